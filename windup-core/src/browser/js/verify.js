// Postcondition probe. Arguments: a list of { kind, selector?, text?, value? }, the path of the page
// last recorded (see `pageAfter`), then the WebDriver callback. Answers { answers: one { ok, seen }
// per check, href, structure }. When any fails, it waits for the next DOM change (at most 100 ms)
// and looks once more, so callers poll on conditions rather than on a clock.
// Selectors are `>>>` chains through shadow roots; the page's text includes its open shadow roots
// and the frames a script of this page may read (same origin).
const [checks, known, done] = arguments;
function visibleMatches(selector) {
  const all = W.query(selector);
  return { all, visible: all.filter(W.isVisible) };
}
// The rendered text of a document, and of the same-origin frames it shows, nested ones too.
function documentText(doc, depth) {
  if (!doc || !doc.body) return '';
  let out = doc === document ? W.text(doc.body) : doc.body.innerText;
  if (depth > 3) return out;
  for (const frame of doc === document ? W.deepAll('iframe, frame') : doc.querySelectorAll('iframe, frame')) {
    let inner = null;
    try { inner = frame.contentDocument; } catch (e) { inner = null; }
    if (inner && W.isVisible(frame)) out += '\n' + documentText(inner, depth + 1);
  }
  return out;
}
function pageText() {
  return W.squash(documentText(document, 0));
}
function where(text) {
  // The innermost visible element whose text contains `text`, to say where it was seen.
  let best = null;
  for (const el of document.body ? W.deepAll('*', document.body) : []) {
    if (W.squash(W.text(el)).includes(text) && W.isVisible(el)) best = el;
  }
  return best ? W.describe(best) : 'the page';
}
function controlValue(el) {
  if (el.tagName === 'SELECT') {
    const option = el.selectedOptions[0];
    return option ? [el.value, W.squash(option.textContent)] : [el.value];
  }
  if (el.type === 'checkbox' || el.type === 'radio') return [el.checked ? 'checked' : 'unchecked'];
  if (el.isContentEditable || !('value' in el)) return [W.squash(W.text(el))];
  return [el.value];
}
function check(c) {
  try {
    switch (c.kind) {
      case 'element_visible': {
        const { all, visible } = visibleMatches(c.selector);
        if (visible.length) return { ok: true };
        if (!all.length) return { ok: false, seen: 'no element matches the selector' };
        return { ok: false, seen: `${all.length} element(s) match but none is visible (first: ${W.describe(all[0])}: ${W.hiddenReason(all[0])})` };
      }
      case 'element_hidden': {
        const { visible } = visibleMatches(c.selector);
        if (!visible.length) return { ok: true };
        return { ok: false, seen: `the element ${W.describe(visible[0])} is visible` };
      }
      case 'text_visible': {
        const wanted = W.squash(c.text);
        if (pageText().includes(wanted)) return { ok: true };
        const heading = document.querySelector('h1');
        const headline = heading ? W.squash(heading.innerText) : W.squash(document.title);
        return { ok: false, seen: `the text is absent from the visible page (headline: "${headline}")` };
      }
      case 'text_absent': {
        const unwanted = W.squash(c.text);
        if (!pageText().includes(unwanted)) return { ok: true };
        return { ok: false, seen: `the text is shown in ${where(unwanted)}` };
      }
      case 'input_value': {
        const { all, visible } = visibleMatches(c.selector);
        const el = visible[0] || all[0];
        if (!el) return { ok: false, seen: 'no element matches the selector' };
        const values = controlValue(el);
        if (values.includes(c.value)) return { ok: true };
        const shown = values[values.length - 1];
        if (el.type === 'password') {
          return { ok: false, seen: `the value of ${W.describe(el)} is ${shown.length} characters long (a password field's value is never shown)` };
        }
        return { ok: false, seen: `the value of ${W.describe(el)} is "${shown}"` };
      }
      default:
        return { ok: false, seen: `unknown check ${c.kind}` };
    }
  } catch (e) {
    return { ok: false, seen: `the check failed in the page: ${e && e.message || e}` };
  }
}
// A form submission the gate armed the watch for, not prevented by the page and sent less than
// 3 s ago, is about to replace this document: the checks are about the page that follows, so the
// look waits (at most 1 s) for this one to go, and answers that it is leaving. A submission still
// here 3 s after it was sent replaces nothing (a 204 answer, a download), or is slow enough that
// the checks, polled, see its page when it comes.
function leaving() {
  const sent = window.__windupSubmit;
  if (!sent || sent.defaultPrevented || performance.now() - sent.timeStamp > 3000) return null;
  return new Promise((resolve) => {
    addEventListener('pagehide', resolve, { once: true });
    setTimeout(resolve, 1000);
  }).then(() => checks.map(() => ({ ok: false, seen: 'a form submission is replacing the page' })));
}
// The answers come with the page's URL when this is the top document, so that the caller need
// not ask the driver for it, and, once every check holds, with a new page's structure.
(async () => {
  const left = leaving();
  if (left) return { answers: await left, href: null, structure: null };
  let answers = checks.map(check);
  if (!answers.every((a) => a.ok)) {
    await W.nextChange(100);
    answers = checks.map(check);
  }
  return { answers, ...pageAfter(answers.every((a) => a.ok) ? known : location.pathname) };
})().then(done, (e) => done({ answers: checks.map(() => ({ ok: false, seen: String(e && e.message || e) })), href: null }));
