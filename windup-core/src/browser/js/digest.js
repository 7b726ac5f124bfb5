// Page digest for the audit. No arguments. Answers { url, title, controls, forms }: every visible
// control a person could use, with what it is, where it leads (links), which form it belongs to
// and whether it submits it; and the page's forms. Open shadow roots are seen through.
const formsSeen = [];
function formOf(el) {
  const form = el.form || (el.closest && el.closest('form'));
  if (!form) return null;
  let index = formsSeen.indexOf(form);
  if (index < 0) { formsSeen.push(form); index = formsSeen.length - 1; }
  return index;
}
function submits(el) {
  if (el.tagName === 'BUTTON') return (el.getAttribute('type') || 'submit').toLowerCase() === 'submit' && !!(el.form);
  return el.tagName === 'INPUT' && ['submit', 'image'].includes(el.type);
}
function sameOrigin(href) {
  try { return new URL(href, location.href).origin === location.origin; } catch (e) { return false; }
}
const controls = W.deepAll(INTERACTIVE).filter((el) => W.isVisible(el) || (el.labels && W.visibleLabel(el))).slice(0, 300).map((el) => {
  const found = selectors(el);
  const link = el.tagName === 'A' && el.href && sameOrigin(el.href) ? new URL(el.href, location.href).href : null;
  return {
    tag: el.tagName.toLowerCase(),
    role: role(el),
    name: accessibleName(el),
    label: labelText(el),
    input_type: el.tagName === 'INPUT' ? el.type : null,
    field: el.getAttribute('name'),
    selector: found[0],
    enabled: !W.isDisabled(el),
    href: link,
    off_origin: el.tagName === 'A' && !!el.href && !link,
    form: formOf(el),
    submits: submits(el),
    checked: el.type === 'checkbox' || el.type === 'radio' ? !!el.checked : null,
    options: el.tagName === 'SELECT' ? Array.from(el.options).map((o) => W.squash(o.label || o.text)).slice(0, 20) : [],
    min: el.getAttribute('min'),
    max: el.getAttribute('max'),
    required: !!el.required,
  };
});
const forms = formsSeen.map((form) => ({
  selector: selectors(form)[0],
  action: form.getAttribute('action') ? new URL(form.getAttribute('action'), location.href).href : location.href,
  method: (form.getAttribute('method') || 'get').toLowerCase(),
}));
return { url: location.href, title: document.title, controls, forms };
