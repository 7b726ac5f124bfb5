// The page as an Observation (observe.rs): `look(probes)`, probes being [{ selector, field }] with
// field "text", "value" or "focus". Answers { url, title, status, found, events, broken_texts, negative_amounts }:
// `found` holds one list per probe, what every visible match showed, the page's own matches first
// (through open shadow roots, in tree order) and then those of each visible same-origin frame.
// The page-events observer is installed where it is missing, in the page and its same-origin
// frames, and every one of them is drained.
const LIMIT = 20;
const CLIP = 200;
const clip = (text) => (text.length > CLIP ? text.slice(0, CLIP) + '…' : text);
// The page and the same-origin documents of its frames, nested ones too (at most 3 deep); with
// `visibleOnly`, only the frames a person can see.
function documents(visibleOnly) {
  const out = [];
  const visit = (doc, depth) => {
    out.push(doc);
    if (depth >= 3) return;
    for (const frame of W.roots(doc).flatMap((r) => Array.from(r.querySelectorAll('iframe, frame')))) {
      let inner = null;
      try { inner = frame.contentDocument; } catch (e) { inner = null; }
      if (inner && inner.documentElement && (!visibleOnly || W.isVisible(frame))) visit(inner, depth + 1);
    }
  };
  visit(document, 0);
  return out;
}
// Each element's place in the tree a person sees: a host's shadow tree before its light children.
const orders = new Map();
function treeOrder(doc) {
  if (orders.has(doc)) return orders.get(doc);
  const order = new Map();
  const stack = [doc.documentElement];
  while (stack.length) {
    const el = stack.pop();
    if (!el || order.has(el)) continue;
    order.set(el, order.size);
    const children = Array.from(el.children);
    if (el.shadowRoot) children.unshift(...Array.from(el.shadowRoot.children));
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  orders.set(doc, order);
  return order;
}
// The matches of a selector (a `>>>` chain) in one document: the first part in the document and
// every open shadow root, each further part inside the shadow roots of the previous matches.
// Throws on a selector that is not valid CSS.
function matchesIn(doc, selector) {
  const parts = String(selector).split('>>>').map((p) => p.trim());
  const roots = W.roots(doc);
  let found = roots.flatMap((r) => Array.from(r.querySelectorAll(parts[0])));
  if (roots.length > 1) {
    const order = treeOrder(doc);
    found.sort((a, b) => order.get(a) - order.get(b));
  }
  for (const part of parts.slice(1)) {
    found = found.flatMap((host) => (host.shadowRoot ? Array.from(host.shadowRoot.querySelectorAll(part)) : []));
  }
  return found;
}
function valueOf(el) {
  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return el.checked;
  if (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') return String(el.value);
  return W.squash(W.text(el));
}
// The element of `doc` that holds the focus, through open shadow roots; null when the focus is
// not in `doc` (a frame's document counts only while its frame holds the page's focus).
function focusIn(doc) {
  const deep = (d) => {
    let el = d.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    return el;
  };
  if (doc !== document) {
    const frame = doc.defaultView && doc.defaultView.frameElement;
    if (!frame || focusIn(frame.ownerDocument) !== frame) return null;
  }
  return deep(doc);
}
function read(docs, probe) {
  const out = [];
  for (const doc of docs) {
    let matches = [];
    try { matches = matchesIn(doc, probe.selector); } catch (e) { return []; }
    const focus = probe.field === 'focus' ? focusIn(doc) : null;
    for (const el of matches) {
      // A field hidden and shown through its label (a styled checkbox) is read as a person sees it.
      if (probe.field === 'value' ? W.isVisible(el) || W.visibleLabel(el) : W.isVisible(el)) {
        if (probe.field === 'focus') out.push(el === focus);
        else out.push(probe.field === 'value' ? valueOf(el) : W.squash(W.text(el)));
      }
    }
  }
  return out;
}
// Values gone wrong in rendering, and negative amounts of money: a minus sign directly before a
// currency sign or code and a number, or before a number followed by one, or after the sign
// (`-$5.00`, `−5,00 €`, `$-5.00`); a hyphen joining a word (`A-17`) is no minus.
const BROKEN = /(^|[^\p{L}\p{N}_])NaN([^\p{L}\p{N}_]|$)|\[object Object\]/u;
const CURRENCY = '(?:[$€£¥₹₩₽₺₪¢]|USD|EUR|GBP|CHF|JPY|SEK|NOK|DKK|PLN|CAD|AUD)';
const NUMBER = '\\d[\\d.,\'\\s]*';
const NEGATIVE = new RegExp(`(?<![\\p{L}\\p{N}])[-−–](?:${CURRENCY}\\s?${NUMBER}|${NUMBER}${CURRENCY})|${CURRENCY}\\s?[-−–]\\d`, 'u');
const SKIPPED = ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TEXTAREA'];
const shown = new Map();
function showsText(el) {
  if (!el || SKIPPED.includes(el.tagName)) return false;
  if (!shown.has(el)) shown.set(el, W.isVisible(el));
  return shown.get(el);
}
function scanTexts(docs) {
  const broken = [];
  const negative = [];
  const negativeAt = [];
  for (const doc of docs) {
    for (const root of W.roots(doc)) {
      const start = root.nodeType === 9 ? root.body : root;
      if (!start) continue;
      const walker = doc.createTreeWalker(start, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = W.squash(node.data);
        if (!text || !showsText(node.parentElement)) continue;
        if (broken.length < LIMIT && (['NaN', 'undefined', 'null'].includes(text) || BROKEN.test(text))) broken.push(clip(text));
        if (NEGATIVE.test(text)) { negativeAt.push(node.parentElement); if (negative.length < LIMIT) negative.push(clip(text)); }
      }
    }
  }
  negative.push(...splitAmounts(docs, negativeAt).slice(0, Math.max(0, LIMIT - negative.length)));
  return { broken, negative };
}
// Short elements whose text shows a negative amount only when their pieces are read together:
// `<span>-<b>$</b>5.00</span>`; the innermost such element, where no text node showed one.
function splitAmounts(docs, taken) {
  const found = [];
  for (const doc of docs) {
    for (const el of W.roots(doc).flatMap((r) => Array.from(r.querySelectorAll('*')))) {
      const raw = el.textContent || '';
      if (el.childNodes.length < 2 || raw.length > 80 || !/[-−–]/.test(raw) || !/\d/.test(raw)) continue;
      if (!showsText(el)) continue;
      const text = W.squash(W.text(el));
      if (NEGATIVE.test(text)) found.push({ el, text });
    }
  }
  const blocked = taken.concat(found.map((f) => f.el));
  return found
    .filter((f) => !blocked.some((other) => other !== f.el && W.within(f.el, other)))
    .map((f) => clip(f.text));
}
// Drains the observer of every same-origin window, installing it where it is missing.
function drainEvents() {
  const events = { errors: [], console_errors: [], dialogs: [], failed_requests: [], markers: [] };
  for (const doc of documents(false)) {
    const win = doc.defaultView;
    if (!win) continue;
    windupObserver(win);
    const observer = win.__windupObserver;
    if (!observer || typeof observer.drain !== 'function') continue;
    for (const e of observer.drain()) {
      if (e.kind === 'error') events.errors.push(e.text);
      else if (e.kind === 'console') events.console_errors.push(e.text);
      else if (e.kind === 'dialog') events.dialogs.push(e.text);
      else if (e.kind === 'marker') events.markers.push(e.text);
      else if (e.kind === 'request') events.failed_requests.push({ method: e.method, url: e.url, status: e.status });
    }
  }
  return events;
}
// What the page is still doing on its own: its requests in flight, each document still loading
// (its images' errors come before its load event), and each image still loading, such as one
// just rendered that will fail and run its `onerror`. An image left to load lazily is not
// waited for: off screen, it may never start.
function pending(docs) {
  let count = window.__windupObserver ? window.__windupObserver.pending : 0;
  for (const doc of docs) {
    if (doc.readyState !== 'complete') count += 1;
    for (const img of W.roots(doc).flatMap((r) => Array.from(r.querySelectorAll('img')))) {
      if (!img.complete && img.loading !== 'lazy') count += 1;
    }
  }
  return count;
}
// The edges of the page's instrumented scripts (coverage.rs) taken since the last look, by
// script id: each window's counters, with a note of those already told.
function newEdges() {
  const out = {};
  for (const doc of documents(false)) {
    const win = doc.defaultView;
    const counters = win && win.__windupEdges;
    if (!counters) continue;
    const told = win.__windupEdgesTold || (win.__windupEdgesTold = {});
    for (const id of Object.keys(counters)) {
      const hits = counters[id];
      const seen = told[id] || (told[id] = new Uint8Array(hits.length));
      for (let i = 0; i < hits.length; i++) {
        if (hits[i] && !seen[i]) { seen[i] = 1; (out[id] || (out[id] = [])).push(i); }
      }
    }
  }
  return out;
}
function look(probes) {
  const visibleDocs = documents(true);
  const found = probes.map((probe) => read(visibleDocs, probe));
  const { broken, negative } = scanTexts(visibleDocs);
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    url: location.href,
    title: document.title,
    status: nav && nav.responseStatus ? nav.responseStatus : 0,
    found,
    events: drainEvents(),
    pending: pending(visibleDocs),
    broken_texts: broken,
    negative_amounts: negative,
    edges: newEdges(),
  };
}
