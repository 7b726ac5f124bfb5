// Name resolver for explicit steps. Arguments: { name, within, purpose }, then the WebDriver
// callback. purpose: "click" | "fill" | "select" | "check" | "find" (any element, by its text too).
// Answers { status: "ok", selector, identity, described } | { status: "missing", known: [...] } |
// { status: "ambiguous", candidates: [{ described, selector }] }. When nothing matches it waits
// for the next DOM change (at most 100 ms) before answering, so callers poll on conditions.
const [query, done] = arguments;
const fold = (text) => W.squash(text).toLowerCase();
const POOLS = {
  click: () => Array.from(document.querySelectorAll(INTERACTIVE + ', label')),
  fill: () => Array.from(document.querySelectorAll('input, textarea, [contenteditable="true"]')).filter((el) =>
    el.tagName !== 'INPUT' || !['hidden', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'range', 'color'].includes(el.type)),
  select: () => Array.from(document.querySelectorAll('select')),
  check: () => Array.from(document.querySelectorAll('input[type="checkbox"], input[type="radio"], [role="checkbox"], [role="radio"], [role="switch"]')),
  field: () => Array.from(document.querySelectorAll('input:not([type="hidden"]), textarea, select, [contenteditable="true"]')),
  find: () => Array.from(document.body ? document.body.querySelectorAll('*') : []).filter((el) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)),
};
// What a person may call an element: accessible name, label, text, placeholder, title, alt, test id.
function namesOf(el, byText) {
  const out = [accessibleName(el), labelText(el), el.getAttribute('placeholder'), el.getAttribute('title'),
    el.getAttribute('alt'), el.getAttribute('data-testid'), el.getAttribute('aria-label')];
  if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) out.push(el.value);
  if (byText || !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) out.push(el.innerText);
  return out.filter((n) => n && W.squash(n)).map(W.squash);
}
// Tiers: exact, exact ignoring case, then contained ignoring case.
function tier(el, name, byText) {
  const names = namesOf(el, byText);
  if (names.includes(W.squash(name))) return 0;
  const wanted = fold(name);
  if (names.some((n) => fold(n) === wanted)) return 1;
  if (names.some((n) => fold(n).includes(wanted))) return 2;
  return 3;
}
// The lowest ancestor that names or shows `within`.
function scope(el, within) {
  const wanted = fold(within);
  for (let node = el.parentElement; node && node !== document.documentElement; node = node.parentElement) {
    if (fold(node.innerText).includes(wanted) || namesOf(node, false).some((n) => fold(n) === wanted)) return node;
  }
  return null;
}
// The heading nearest above an element, inside its closest ancestor that has one: what a person
// would say it is "in", and so what `in "…"` could name to single it out.
function context(el) {
  for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
    const heading = node.querySelector('h1, h2, h3, h4, h5, h6, legend, caption, [role="heading"]');
    if (heading && !heading.contains(el)) return W.squash(heading.innerText).slice(0, 60);
  }
  return null;
}
function usable(el, purpose) {
  if (purpose === 'check' || purpose === 'click') return W.actionable(el) !== null;
  return W.isVisible(el);
}
function identity(el) {
  return { tag: el.tagName.toLowerCase(), role: role(el), name: accessibleName(el), label: labelText(el) };
}
function pick(purpose) {
  const byText = purpose === 'find';
  let pool = POOLS[purpose]();
  const tiers = [[], [], []];
  for (const el of pool) {
    const t = tier(el, query.name, byText);
    if (t < 3) tiers[t].push(el);
  }
  for (let matches of tiers) {
    if (!matches.length) continue;
    if (byText) matches = matches.filter((el) => !matches.some((other) => other !== el && el.contains(other)));
    if (query.within) {
      // Keep a match only when its scope holds no other match: "Add to cart" in "Rust mug" is the
      // one button whose nearest ancestor showing "Rust mug" contains no other such button.
      const all = matches;
      matches = all.filter((el) => {
        const s = scope(el, query.within);
        return s && all.filter((other) => s.contains(other)).length === 1;
      });
      if (!matches.length) continue;
    }
    const visible = matches.filter((el) => usable(el, purpose));
    const chosen = visible.length ? visible : matches;
    return chosen;
  }
  return [];
}
function target(el, purpose) {
  // A hidden checkbox or radio styled through its label is acted on, and recorded, as that label.
  const acted = (purpose === 'check' || purpose === 'click') && !W.isVisible(el) ? (W.actionable(el) || el) : el;
  return { selector: selectors(acted)[0], identity: identity(acted), described: W.describe(acted) };
}
(async () => {
  for (let attempt = 0; attempt < 2; attempt++) {
    const chosen = pick(query.purpose);
    if (chosen.length === 1) return { status: 'ok', ...target(chosen[0], query.purpose) };
    if (chosen.length > 1) {
      const described = (el) => {
        const near = context(el);
        return W.describe(el) + (near ? ` in "${near}"` : '');
      };
      return { status: 'ambiguous', candidates: chosen.slice(0, 10).map((el) => ({ described: described(el), selector: selectors(el)[0] })) };
    }
    if (attempt === 0) await W.nextChange(100);
  }
  const known = [];
  for (const el of POOLS[query.purpose === 'find' ? 'click' : query.purpose]()) {
    const name = accessibleName(el);
    if (name && W.isVisible(el) && !known.includes(name)) known.push(name);
    if (known.length >= 15) break;
  }
  return { status: 'missing', known };
})().then(done, (e) => done({ status: 'error', detail: String(e && e.message || e) }));
