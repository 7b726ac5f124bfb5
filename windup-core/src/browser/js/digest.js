// Page digest for the audit. No arguments. Answers { url, title, controls, forms, actables,
// background, focused }: every visible control a person could use, with what it is, where it
// leads (links), which form it belongs to, whether it submits it and what it listens for; the
// page's forms; the other elements a person can act on (they listen for a click, a double click,
// a key or the pointer, show a pointer cursor, or reveal hidden controls when hovered); a plain
// element to click to leave a field (the page's background); and the selector of the element
// that has the focus. Open shadow roots are seen through.
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
const observer = window.__windupObserver;
// A framework's delegated handlers, by the names it keeps them under, and what a person does.
const HANDLERS = { onClick: 'click', onMouseDown: 'click', onPointerDown: 'click', onDoubleClick: 'dblclick', onDblclick: 'dblclick',
  onKeyDown: 'key', onKeydown: 'key', onKeyUp: 'key', onKeyup: 'key', onMouseEnter: 'hover', onMouseenter: 'hover', onMouseOver: 'hover', onMouseover: 'hover' };
const DELEGATED = { click: 'click', mousedown: 'click', pointerdown: 'click', dblclick: 'dblclick', keydown: 'key', keyup: 'key', mouseover: 'hover' };
// What an element listens for: its listeners as the page added them (seen by the observer), its
// `on…` handlers, and the handlers React (`__reactProps$…`), Vue (`_vei`) and Solid (`$$click`)
// keep on the element while they listen higher up.
function listens(el) {
  const kinds = new Set(observer && observer.listens ? observer.listens(el) : []);
  if (typeof el.onclick === 'function') kinds.add('click');
  if (typeof el.ondblclick === 'function') kinds.add('dblclick');
  if (typeof el.onkeydown === 'function' || typeof el.onkeyup === 'function') kinds.add('key');
  if (typeof el.onmouseenter === 'function' || typeof el.onmouseover === 'function') kinds.add('hover');
  for (const key of Object.keys(el)) {
    let handlers = null;
    if (key.startsWith('__reactProps$') || key === '_vei') handlers = el[key];
    else if (key.startsWith('$$') && DELEGATED[key.slice(2)] && typeof el[key] === 'function') kinds.add(DELEGATED[key.slice(2)]);
    if (handlers && typeof handlers === 'object') {
      for (const name of Object.keys(handlers)) if (HANDLERS[name] && handlers[name]) kinds.add(HANDLERS[name]);
    }
  }
  return Array.from(kinds).sort();
}
function deepActive() {
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  return active && active !== document.body && active !== document.documentElement ? active : null;
}
const active = deepActive();
function emptyField(el) {
  if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return el.value === '';
  if (el.isContentEditable) return W.squash(el.textContent) === '';
  return null;
}
// What a person calls an element: its accessible name; for an element that is not a control
// and names itself by nothing but its text, that text only while it is short (a row, a card's
// title). A container's text is all it holds, and changes with every state of the app: a replay
// must not take it for another element.
const SHORT_NAME = 40;
function nameOf(el) {
  const name = accessibleName(el);
  if (!name || name.length <= SHORT_NAME || el.matches(INTERACTIVE)) return name;
  return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? name : null;
}
function described(el, extra) {
  const found = selectors(el);
  const link = el.tagName === 'A' && el.href && sameOrigin(el.href) ? new URL(el.href, location.href).href : null;
  return Object.assign({
    tag: el.tagName.toLowerCase(),
    role: role(el),
    name: nameOf(el),
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
    listens: listens(el),
    focused: el === active,
    empty: emptyField(el),
    reveals: false,
  }, extra || {});
}
// While a modal dialog is open, only what is in it can be reached; nothing inert can.
const modal = W.deepAll('dialog').find((d) => d.open && d.matches(':modal')) || null;
function reachable(el) {
  for (let n = el; n; n = W.parent(n)) if (n.nodeType === 1 && n.hasAttribute('inert')) return false;
  return !modal || W.within(modal, el);
}
const controls = W.deepAll(INTERACTIVE).filter((el) => (W.isVisible(el) || (el.labels && W.visibleLabel(el))) && reachable(el)).slice(0, 300).map((el) => described(el));
// The elements beyond controls a person can act on. Labels of a control act as the control; an
// element inside a control is the control; a container as large as half the window is where a
// framework listens for everything, not something a person aims at.
const CONTROL_OR_INSIDE = INTERACTIVE + ', ' + INTERACTIVE.split(', ').map((c) => c + ' *').join(', ');
const area = window.innerWidth * window.innerHeight;
const ACTABLES = 60;
const actables = [];
// Each element taken, with its entry.
const taken = new Map();
function large(el) {
  const box = el.getBoundingClientRect();
  return box.width * box.height > area / 2;
}
function pointerStarts(el) {
  const cursor = getComputedStyle(el).cursor;
  const parent = W.parent(el);
  return cursor === 'pointer' && !(parent && parent.nodeType === 1 && getComputedStyle(parent).cursor === 'pointer');
}
for (const el of W.deepAll('body *').slice(0, 3000)) {
  if (actables.length >= ACTABLES) break;
  if (['SCRIPT', 'STYLE', 'TEMPLATE', 'SLOT', 'HTML', 'BODY', 'OPTION'].includes(el.tagName)) continue;
  if (el.matches(CONTROL_OR_INSIDE)) continue;
  const kinds = listens(el);
  if (el.tagName === 'LABEL' && el.control && !kinds.includes('dblclick')) continue;
  if (!kinds.length && !pointerStarts(el)) continue;
  if (!W.isVisible(el) || large(el) || !reachable(el)) continue;
  if (!kinds.length) kinds.push('click');
  const entry = described(el, { listens: kinds });
  taken.set(el, entry);
  actables.push(entry);
}
// Controls hidden until the pointer is over what holds them (a row's delete button): the
// nearest shown ancestor of each, to hover.
for (const el of W.deepAll(INTERACTIVE).slice(0, 300)) {
  if (actables.length >= ACTABLES) break;
  if (W.isVisible(el) || (el.labels && W.visibleLabel(el)) || W.isDisabled(el) || !el.isConnected) continue;
  let holder = W.parent(el);
  while (holder && holder.nodeType === 1 && holder !== document.body && !W.isVisible(holder)) holder = W.parent(holder);
  if (!holder || holder.nodeType !== 1 || holder === document.body || holder === document.documentElement || !reachable(holder)) continue;
  if (large(holder) || controls.length === 0) continue;
  if (taken.has(holder)) {
    taken.get(holder).reveals = true;
    continue;
  }
  const entry = described(holder, { reveals: true });
  taken.set(holder, entry);
  actables.push(entry);
}
// A plain element to click to leave a field: a heading or a paragraph that listens for nothing
// and takes the pointer itself (a heading first: it names the click as a person sees it, where
// a container would be named by all its text).
let background = null;
for (const kind of ['h1', 'h2', 'h3', 'p', 'header, footer', 'main, section, article']) {
  for (const el of W.deepAll(kind).slice(0, 25)) {
    if (el.matches(CONTROL_OR_INSIDE) || taken.has(el) || listens(el).length || !W.isVisible(el) || !reachable(el)) continue;
    const box = el.getBoundingClientRect();
    const x = box.left + Math.min(box.width / 2, 8);
    const y = box.top + box.height / 2;
    if (x < 0 || y < 0 || x >= window.innerWidth || y >= window.innerHeight) continue;
    const hit = W.hitAt(x, y);
    if (!hit || !(hit === el || (W.within(el, hit) && !hit.matches(CONTROL_OR_INSIDE) && !listens(hit).length))) continue;
    background = described(el);
    break;
  }
  if (background) break;
}
const forms = formsSeen.map((form) => ({
  selector: selectors(form)[0],
  action: form.getAttribute('action') ? new URL(form.getAttribute('action'), location.href).href : location.href,
  method: (form.getAttribute('method') || 'get').toLowerCase(),
}));
return {
  url: location.href,
  title: document.title,
  controls,
  forms,
  actables,
  background,
  focused: active ? selectors(active)[0] : null,
};
