// Selectors for elements, shared by the resolver, the page snapshot and the page structure (seen
// after common.js). A selector is offered only if the executor, acting on the first visible match,
// would reach that very element.
function quote(value) {
  return '"' + String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}
// The tree scope an element's own selectors are written in: the document or a shadow root.
function scopeOf(el) {
  return el.getRootNode();
}
function unique(selector, el) {
  try {
    const found = scopeOf(el).querySelectorAll(selector);
    return found.length === 1 && found[0] === el;
  } catch (e) { return false; }
}
// Whether the executor, which acts on the first visible match, would act on `el`.
function leadsTo(selector, el) {
  try {
    const found = W.query(selector);
    if (found.length === 1) return found[0] === el;
    return W.isVisible(el) && found.find(W.isVisible) === el;
  } catch (e) { return false; }
}
function structural(el) {
  const parts = [];
  let node = el;
  while (node && node.nodeType === 1 && node !== document.documentElement) {
    // Anchor on the nearest ancestor with a stable, unique name of its own.
    if (node !== el) {
      const testId = node.getAttribute('data-testid');
      const anchor = testId ? `[data-testid=${quote(testId)}]` : (node.id ? '#' + CSS.escape(node.id) : null);
      if (anchor && unique(anchor, node)) { parts.unshift(anchor); break; }
    }
    const tag = node.tagName.toLowerCase();
    const up = node.parentElement;
    const peers = up ? up.children : (node.parentNode && node.parentNode.children) || [];
    const siblings = Array.from(peers).filter((s) => s.tagName === node.tagName);
    parts.unshift(siblings.length > 1 ? `${tag}:nth-of-type(${siblings.indexOf(node) + 1})` : tag);
    node = up;
  }
  return parts.join(' > ');
}
// An element's own id as a selector, unless the id looks generated (three digits or more).
function idSelector(el) {
  return el.id && !/\d{3,}/.test(el.id) ? '#' + CSS.escape(el.id) : null;
}
// Selectors of `el` within its own tree scope, most stable first.
function ownSelectors(el) {
  const tag = el.tagName.toLowerCase();
  const out = [];
  const testId = el.getAttribute('data-testid');
  if (testId) out.push(`[data-testid=${quote(testId)}]`);
  const id = idSelector(el);
  if (id) out.push(id);
  const name = el.getAttribute('name');
  if (name && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'IFRAME'].includes(el.tagName)) out.push(`${tag}[name=${quote(name)}]`);
  const aria = el.getAttribute('aria-label');
  if (aria) out.push(`${tag}[aria-label=${quote(aria)}]`);
  const title = el.getAttribute('title');
  if (tag === 'iframe' && title) out.push(`iframe[title=${quote(title)}]`);
  const href = el.getAttribute('href');
  if (tag === 'a' && href) out.push(`a[href=${quote(href)}]`);
  if (tag === 'label' && el.htmlFor) out.push(`label[for=${quote(el.htmlFor)}]`);
  // A control without stable attributes of its own, anchored on its form's action.
  const form = el.closest && el.closest('form[action]');
  if (form && form !== el) {
    const type = el.getAttribute('type');
    const own = type ? `${tag}[type=${quote(type)}]` : tag;
    out.push(`form[action=${quote(form.getAttribute('action'))}] ${own}`);
  }
  return out;
}
// Selectors that lead the executor to `el`, most stable first; the last is structural. An
// element inside shadow roots gets a chain: its host's selector, `>>>`, its own.
function selectors(el) {
  const prefix = chainPrefix(el);
  const candidates = ownSelectors(el).map((s) => prefix + s).filter((s) => leadsTo(s, el));
  candidates.push(prefix + structural(el));
  return candidates;
}
// What leads into the tree scope of `el`: nothing in the document, `host >>> ` in a shadow root.
function chainPrefix(el) {
  const root = scopeOf(el);
  return root instanceof ShadowRoot ? hostChain(root.host) + ' >>> ' : '';
}
// The selector chain that leads to a shadow host.
function hostChain(host) {
  const found = selectors(host);
  return found[0];
}
function box(el) {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.x), y: Math.round(r.y + window.scrollY), width: Math.round(r.width), height: Math.round(r.height) };
}
