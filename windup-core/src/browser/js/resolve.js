// Name resolver for explicit steps. Arguments: { name, role, within, purpose, wait }, then the
// WebDriver callback. `name` is what a person calls the element; or, for a control with no name,
// `role` is what it is (a checkbox, a button), found `within` a container. purpose: "click" |
// "hover" | "fill" | "select" | "check" | "field" | "find" (any element, by its text too).
// Answers { status: "ok", selector, identity, described, rank } | { status: "missing", known,
// closed } | { status: "ambiguous", candidates: [{ described, selector }], rank }, and
// always `frames`: the frames of this document, for the caller to look into. With `wait`, when
// nothing matches it waits for the next DOM change (at most 100 ms) before answering, so callers
// poll on conditions. The page is searched through open shadow roots.
const [query, done] = arguments;
const fold = (text) => W.squash(text).toLowerCase();
const TEXT_INPUT_EXCLUDED = ['hidden', 'checkbox', 'radio', 'submit', 'button', 'reset', 'image', 'file', 'range', 'color'];
const POOLS = {
  click: () => W.deepAll(INTERACTIVE + ', label'),
  fill: () => W.deepAll('input, textarea, [contenteditable="true"], [contenteditable=""], [role="textbox"]').filter((el) =>
    el.tagName !== 'INPUT' || !TEXT_INPUT_EXCLUDED.includes(el.type)),
  select: () => W.deepAll('select'),
  check: () => W.deepAll('input[type="checkbox"], input[type="radio"], [role="checkbox"], [role="radio"], [role="switch"], [role="menuitemcheckbox"], [role="menuitemradio"]'),
  field: () => W.deepAll('input:not([type="hidden"]), textarea, select, [contenteditable="true"], [role="textbox"]'),
  find: () => (document.body ? W.deepAll('*', document.body) : []).filter((el) => !['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)),
};
POOLS.hover = POOLS.find;
// What a person may call an element: accessible name, label, text, placeholder, title, alt, test id.
function namesOf(el, byText) {
  const out = [accessibleName(el), labelText(el), el.getAttribute('placeholder'), el.getAttribute('title'),
    el.getAttribute('alt'), el.getAttribute('data-testid'), el.getAttribute('aria-label')];
  if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) out.push(el.value);
  if (byText || !['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) out.push(W.text(el));
  return out.filter((n) => n && W.squash(n)).map(W.squash);
}
// Tiers: exact, exact ignoring case, then contained ignoring case; a role query has one tier.
function tier(el, byText) {
  if (query.role) return role(el) === query.role ? 0 : 3;
  const names = namesOf(el, byText);
  if (names.includes(W.squash(query.name))) return 0;
  const wanted = fold(query.name);
  if (names.some((n) => fold(n) === wanted)) return 1;
  if (names.some((n) => fold(n).includes(wanted))) return 2;
  return 3;
}
// The heading nearest above an element, inside its closest ancestor that has one: what a person
// would say it is "in", and so what `in "…"` could name to single it out.
function context(el) {
  for (let node = W.parent(el); node && node !== document.body; node = W.parent(node)) {
    if (node.nodeType !== 1) continue;
    const heading = (node.shadowRoot || node).querySelector('h1, h2, h3, h4, h5, h6, legend, caption, [role="heading"]');
    if (heading && !W.within(heading, el)) return W.squash(heading.innerText).slice(0, 60);
  }
  return null;
}
function usable(el, purpose) {
  const acted = ['check', 'click', 'hover'].includes(purpose) ? W.actionable(el) : (W.isVisible(el) ? el : null);
  return acted !== null && W.inertReason(acted) === null;
}
// One control however it is named: a label stands for its control, and an element that names
// another through aria-labelledby stands for that one; each appears once, as the control.
function controls(matches) {
  const out = [];
  const labelling = new Set(matches.flatMap((el) => labelledBy(el)));
  for (const el of matches) {
    if (labelling.has(el) && !matches.every((m) => labelling.has(m))) continue;
    const control = el.tagName === 'LABEL' && el.control ? el.control : el;
    const representative = matches.includes(control) || el.tagName === 'LABEL' ? control : el;
    if (!out.includes(representative)) out.push(representative);
  }
  return out;
}
// Candidates for the query, best tier first; `hidden` when the best ones cannot be used now.
function pick(purpose) {
  const byText = purpose === 'find' || purpose === 'hover';
  const pool = POOLS[purpose]();
  const tiers = [[], [], []];
  for (const el of pool) {
    const t = tier(el, byText);
    if (t < 3) tiers[t].push(el);
  }
  let hiddenOnly = null;
  for (let t = 0; t < tiers.length; t++) {
    let matches = tiers[t];
    if (!matches.length) continue;
    if (byText) matches = matches.filter((el) => !matches.some((other) => other !== el && W.within(el, other)));
    if (purpose !== 'fill' && purpose !== 'select') matches = controls(matches);
    if (query.within) {
      // Keep a match only when its container holds no other match: "Add to cart" in "Rust mug"
      // is the one button whose nearest ancestor showing "Rust mug" contains no other such button.
      const all = matches;
      matches = all.filter((el) => {
        const s = containerOf(el, query.within);
        return s && all.filter((other) => W.within(s, other)).length === 1;
      });
      if (!matches.length) continue;
    }
    const visible = matches.filter((el) => usable(el, purpose));
    if (visible.length) {
      // A person acts on the enabled one of an enabled and a disabled twin; a disabled control
      // alone is still the one meant (and the gate says it is disabled).
      // When several enabled ones remain, the ambiguity lists every one that shows.
      const enabled = byText ? visible : visible.filter((el) => !W.isDisabled(W.control(el) || el));
      if (enabled.length === 1) return { chosen: enabled, rank: t * 2 };
      return { chosen: visible, rank: enabled.length ? t * 2 : t * 2 + 1 };
    }
    hiddenOnly = hiddenOnly || { chosen: matches, rank: HIDDEN + t };
  }
  return hiddenOnly || { chosen: [], rank: 999 };
}
// Ranks order matches across the page and its frames: what shows comes first, then the name's
// tier (exact, ignoring case, contained), then enabled before disabled.
const HIDDEN = 100;  // resolve.rs: HIDDEN_RANK
function identity(el) {
  const id = W.identityOf(el);
  if (query.within) id.within = W.squash(query.within);
  return id;
}
function target(el, purpose) {
  // A control hidden and styled through its label is acted on, and recorded, as that label.
  const acted = ['check', 'click', 'hover'].includes(purpose) ? (W.actionable(el) || el) : el;
  return { selector: selectors(acted)[0], identity: identity(acted), described: W.describe(acted) };
}
function frames() {
  return W.deepAll('iframe, frame').filter(W.isVisible).map((f) => ({
    selector: selectors(f)[0],
    name: W.squash(f.getAttribute('title') || f.getAttribute('name') || f.id || W.describe(f)),
  }));
}
(async () => {
  const attempts = query.wait ? 2 : 1;
  let found = { chosen: [], rank: 999 };
  for (let attempt = 0; attempt < attempts; attempt++) {
    found = pick(query.purpose);
    // A match that cannot be used yet (hidden, behind a dialog) may become usable: look again.
    if (found.chosen.length && found.rank < HIDDEN) break;
    if (attempt + 1 < attempts) await W.nextChange(100);
  }
  const { chosen, rank } = found;
  if (chosen.length === 1) return { status: 'ok', rank, frames: frames(), ...target(chosen[0], query.purpose) };
  if (chosen.length > 1) {
    const described = (el) => {
      const near = context(el);
      return W.describe(el) + (near ? ` in "${near}"` : '');
    };
    return { status: 'ambiguous', rank, frames: frames(), candidates: chosen.slice(0, 10).map((el) => ({ described: described(el), selector: selectors(el)[0] })) };
  }
  const known = [];
  for (const el of POOLS[['find', 'hover'].includes(query.purpose) ? 'click' : query.purpose]()) {
    const name = accessibleName(el);
    if (name && W.isVisible(el) && !known.includes(name)) known.push(name);
    if (known.length >= 15) break;
  }
  return { status: 'missing', known, frames: frames(), closed: W.closedHosts().slice(0, 3).map((el) => W.describe(el)) };
})().then(done, (e) => done({ status: 'error', detail: String(e && e.message || e) }));
