// Page snapshot. No arguments. Answers { url, title, elements, outline }: the interactive elements
// with how a person would name them and selectors that find them, and a compact outline.
const INTERACTIVE = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, ' +
  '[role="button"], [role="link"], [role="checkbox"], [role="radio"], [role="tab"], [role="menuitem"], ' +
  '[role="switch"], [role="option"], [role="combobox"], [role="textbox"], [contenteditable="true"], [tabindex]:not([tabindex="-1"])';
const IMPLICIT_ROLES = {
  A: (el) => (el.hasAttribute('href') ? 'link' : null), BUTTON: () => 'button', SELECT: (el) => (el.multiple ? 'listbox' : 'combobox'),
  TEXTAREA: () => 'textbox', SUMMARY: () => 'button', H1: () => 'heading', H2: () => 'heading', H3: () => 'heading',
  H4: () => 'heading', H5: () => 'heading', H6: () => 'heading', NAV: () => 'navigation', MAIN: () => 'main',
  HEADER: () => 'banner', FOOTER: () => 'contentinfo', FORM: () => 'form', TABLE: () => 'table', UL: () => 'list',
  OL: () => 'list', LI: () => 'listitem', IMG: () => 'img', DIALOG: () => 'dialog', ARTICLE: () => 'article',
  SECTION: (el) => (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null),
  INPUT: (el) => ({ checkbox: 'checkbox', radio: 'radio', button: 'button', submit: 'button', reset: 'button',
    image: 'button', range: 'slider', number: 'spinbutton', search: 'searchbox' }[el.type] || 'textbox'),
};
function role(el) {
  const explicit = el.getAttribute('role');
  if (explicit) return explicit.split(/\s+/)[0];
  const implicit = IMPLICIT_ROLES[el.tagName];
  return implicit ? implicit(el) : null;
}
function labelText(el) {
  const labels = Array.from(el.labels || []);
  return labels.length ? W.squash(labels.map((l) => l.innerText).join(' ')) : null;
}
function accessibleName(el) {
  const by = el.getAttribute('aria-labelledby');
  if (by) {
    const text = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map((n) => n.innerText).join(' ');
    if (W.squash(text)) return W.squash(text);
  }
  const aria = el.getAttribute('aria-label');
  if (aria && W.squash(aria)) return W.squash(aria);
  const label = labelText(el);
  if (label) return label;
  if (el.tagName === 'IMG') return W.squash(el.getAttribute('alt')) || null;
  if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) return W.squash(el.value) || null;
  if (!['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) {
    const text = W.squash(el.innerText || el.textContent);
    if (text) return text.length > 80 ? text.slice(0, 80) + '…' : text;
    const img = el.querySelector('img[alt]');
    if (img) return W.squash(img.getAttribute('alt')) || null;
  }
  return W.squash(el.getAttribute('title')) || W.squash(el.getAttribute('placeholder')) || null;
}
function quote(value) {
  return '"' + String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
}
function unique(selector, el) {
  try {
    const found = document.querySelectorAll(selector);
    return found.length === 1 && found[0] === el;
  } catch (e) { return false; }
}
function structural(el) {
  const parts = [];
  let node = el;
  while (node && node.nodeType === 1 && node !== document.documentElement) {
    if (node.id && node !== el && unique('#' + CSS.escape(node.id), node)) { parts.unshift('#' + CSS.escape(node.id)); break; }
    const tag = node.tagName.toLowerCase();
    const siblings = node.parentElement ? Array.from(node.parentElement.children).filter((s) => s.tagName === node.tagName) : [];
    parts.unshift(siblings.length > 1 ? `${tag}:nth-of-type(${siblings.indexOf(node) + 1})` : tag);
    node = node.parentElement;
  }
  return parts.join(' > ');
}
function selectors(el) {
  const tag = el.tagName.toLowerCase();
  const out = [];
  const testId = el.getAttribute('data-testid');
  if (testId) out.push(`[data-testid=${quote(testId)}]`);
  if (el.id && !/\d{3,}/.test(el.id)) out.push('#' + CSS.escape(el.id));
  const name = el.getAttribute('name');
  if (name && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(el.tagName)) out.push(`${tag}[name=${quote(name)}]`);
  const aria = el.getAttribute('aria-label');
  if (aria) out.push(`${tag}[aria-label=${quote(aria)}]`);
  const href = el.getAttribute('href');
  if (tag === 'a' && href) out.push(`a[href=${quote(href)}]`);
  const candidates = out.filter((s) => unique(s, el));
  candidates.push(structural(el));
  return candidates;
}
function box(el) {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.x), y: Math.round(r.y + window.scrollY), width: Math.round(r.width), height: Math.round(r.height) };
}
const elements = Array.from(document.querySelectorAll(INTERACTIVE)).map((el) => ({
  tag: el.tagName.toLowerCase(),
  role: role(el),
  name: accessibleName(el),
  label: labelText(el),
  test_id: el.getAttribute('data-testid'),
  placeholder: el.getAttribute('placeholder'),
  input_type: el.tagName === 'INPUT' ? el.type : null,
  selectors: selectors(el),
  visible: W.isVisible(el),
  enabled: !W.isDisabled(el),
  box: box(el),
}));
const OUTLINE_ROLES = new Set(['heading', 'navigation', 'main', 'banner', 'contentinfo', 'form', 'table', 'list', 'dialog', 'region',
  'article', 'link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'spinbutton', 'slider', 'img', 'alert', 'status']);
const lines = [];
let budget = 6000;
function walk(node, depth) {
  if (budget <= 0 || node.nodeType !== 1 || ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(node.tagName)) return;
  if (!W.isVisible(node) && !(node.labels && W.visibleLabel(node))) {
    if (getComputedStyle(node).display === 'none') return;
  }
  const r = role(node);
  let next = depth;
  if (r && OUTLINE_ROLES.has(r)) {
    const name = ['navigation', 'main', 'banner', 'contentinfo', 'form', 'list', 'table'].includes(r) ? (node.getAttribute('aria-label') || '') : accessibleName(node);
    let line = '  '.repeat(depth) + r + (name ? ' ' + quote(name) : '');
    if (r === 'heading') line += ` [level ${node.tagName.slice(1) || node.getAttribute('aria-level') || ''}]`;
    if (node.disabled) line += ' [disabled]';
    if (node.type === 'checkbox' || node.type === 'radio') line += node.checked ? ' [checked]' : ' [unchecked]';
    lines.push(line); budget -= line.length;
    next = depth + 1;
    if (!['navigation', 'main', 'banner', 'contentinfo', 'form', 'list', 'table', 'dialog', 'region', 'article'].includes(r)) return;
  } else if (['P', 'TD', 'TH', 'LI', 'SPAN', 'STRONG', 'LABEL', 'DT', 'DD'].includes(node.tagName) && node.children.length === 0) {
    const text = W.squash(node.innerText);
    if (text && W.isVisible(node)) {
      const line = '  '.repeat(depth) + 'text ' + quote(text.length > 80 ? text.slice(0, 80) + '…' : text);
      lines.push(line); budget -= line.length;
    }
    return;
  }
  for (const child of node.children) walk(child, next);
}
if (document.body) walk(document.body, 0);
return { url: location.href, title: document.title, elements, outline: lines.join('\n') };
