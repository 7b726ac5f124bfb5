// Shared by Windup's injected scripts. Pure functions over the DOM; no state is kept between
// calls. The page is seen as a person sees it: through open shadow roots, as one tree.
const W = {
  // A short, human description of an element: tag#id.class [data-testid] "text".
  describe(el) {
    if (!el || el.nodeType !== 1) return String(el);
    let out = el.tagName.toLowerCase();
    if (el.id) out += '#' + el.id;
    const classes = Array.from(el.classList).slice(0, 2);
    if (classes.length) out += '.' + classes.join('.');
    const testId = el.getAttribute('data-testid');
    if (testId) out += `[data-testid="${testId}"]`;
    // A checkbox's or radio's value is no name ("on" by default).
    const value = el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(el.type) ? '' : el.value;
    const text = W.squash(W.text(el) || value || el.getAttribute('aria-label') || '');
    if (text) out += ` "${text.length > 40 ? text.slice(0, 40) + '…' : text}"`;
    if (el.getRootNode() instanceof ShadowRoot) out += ` (in the shadow root of ${W.describe(el.getRootNode().host).split(' ')[0]})`;
    return out;
  },
  squash(text) {
    return String(text || '').replace(/\s+/g, ' ').trim();
  },
  // The parent in the tree a person sees: a slotted element's slot, a shadow root's host.
  parent(node) {
    if (node.assignedSlot) return node.assignedSlot;
    if (node.parentElement) return node.parentElement;
    const up = node.parentNode;
    return up && up.nodeType === 11 && up.host ? up.host : null;
  },
  // Whether `node` is `ancestor` or lies under it, across shadow boundaries.
  within(ancestor, node) {
    for (let n = node; n; n = W.parent(n)) if (n === ancestor) return true;
    return false;
  },
  // `root` and every open shadow root under it, nested ones too, in document order. The
  // document's are found once per script run, and again after a DOM change was waited for.
  roots(root) {
    if (root === document && W._roots) return W._roots;
    const out = [root];
    for (let i = 0; i < out.length; i++) {
      for (const el of out[i].querySelectorAll('*')) if (el.shadowRoot) out.push(el.shadowRoot);
    }
    if (root === document) W._roots = out;
    return out;
  },
  // Whether the page has any open shadow root; most pages have none, and then a deep walk is a
  // plain query.
  shadowy() {
    return W.roots(document).length > 1;
  },
  // Every element matching a CSS selector, in the document and in every open shadow root.
  deepAll(css, root) {
    const roots = W.roots(root || document);
    if (roots.length === 1) return Array.from(roots[0].querySelectorAll(css));
    return roots.flatMap((r) => Array.from(r.querySelectorAll(css)));
  },
  // A plan selector: CSS selectors joined by `>>>`, each evaluated inside the open shadow roots
  // of the previous one's matches. Answers { matches, closed }: `closed` is a host whose shadow
  // root cannot be entered (closed), when the chain stopped there.
  chain(selector) {
    const parts = String(selector).split('>>>').map((p) => p.trim());
    let scopes = [document];
    let closed = null;
    for (let i = 0; i < parts.length; i++) {
      const found = scopes.flatMap((s) => Array.from(s.querySelectorAll(parts[i])));
      if (i === parts.length - 1) return { matches: found, closed };
      scopes = found.map((host) => host.shadowRoot).filter(Boolean);
      if (found.length && !scopes.length) closed = found[0];
    }
    return { matches: [], closed };
  },
  query(selector) {
    return W.chain(selector).matches;
  },
  // The rendered text of an element, its shadow trees included (innerText alone stops at them).
  text(el) {
    if (!el || el.nodeType !== 1) return '';
    let out = el.innerText || '';
    if (!W.shadowy() || !W.isRendered(el)) return out;
    const hosts = el.shadowRoot ? [el] : [];
    for (const inner of el.querySelectorAll('*')) if (inner.shadowRoot) hosts.push(inner);
    for (const host of hosts) {
      if (!W.isRendered(host)) continue;
      for (const child of host.shadowRoot.children) {
        if (child.tagName === 'STYLE' || child.tagName === 'SLOT' || !W.isRendered(child)) continue;
        out += '\n' + W.text(child);
      }
    }
    return out;
  },
  isRendered(el) {
    if (typeof el.checkVisibility === 'function') return el.checkVisibility({ checkVisibilityCSS: true });
    return getComputedStyle(el).display !== 'none';
  },
  // The element a pointer at (x, y) would hit, inside open shadow roots too.
  hitAt(x, y) {
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  },
  // Why an element is not visible, or null when a person can see it. As in Playwright, an element
  // is visible when it has a non-empty box and is not `visibility: hidden`; opacity does not
  // matter (a transparent control over a styled one is what a person clicks). Windup is stricter
  // in one way: a box of at most 1 px (the "visually hidden" pattern) counts as no box.
  hiddenReason(el) {
    if (!el.isConnected) return 'it is no longer attached to the page';
    const style = getComputedStyle(el);
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility({ checkVisibilityCSS: true })) {
      if (style.visibility !== 'visible' && style.display !== 'none') return `it has visibility:${style.visibility}`;
      return style.display === 'none'
        ? 'it has display:none'
        : 'it or an ancestor is not rendered (display:none, a closed <details> or <dialog>, or content-visibility)';
    }
    if (style.visibility !== 'visible') return `it has visibility:${style.visibility}`;
    const rect = el.getBoundingClientRect();
    if (rect.width <= 1 || rect.height <= 1) return `it has no size (${rect.width}x${rect.height})`;
    return null;
  },
  isVisible(el) {
    return W.hiddenReason(el) === null;
  },
  isDisabled(el) {
    if (el.disabled === true) return true;
    if (el.closest && el.closest('fieldset[disabled]') && ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName)) return true;
    return el.getAttribute('aria-disabled') === 'true';
  },
  // Why a person cannot reach an element although it shows: behind a modal dialog, or inert.
  inertReason(el) {
    for (let n = el; n; n = W.parent(n)) if (n.nodeType === 1 && n.hasAttribute('inert')) return `it is inert (${W.describe(n).split(' ')[0]} has the inert attribute)`;
    const modal = W.deepAll('dialog').find((d) => d.open && d.matches(':modal'));
    if (modal && !W.within(modal, el)) return `it is behind the modal dialog ${W.describe(modal).split(' ')[0]}`;
    return null;
  },
  // Visible labels of a form control, for controls that are styled through their label.
  visibleLabel(el) {
    return Array.from(el.labels || []).find(W.isVisible) || null;
  },
  // The control an element stands for: a <label>'s control, the checkbox, radio or switch an
  // element names through aria-labelledby (a switch named by the text beside it), else the
  // element itself.
  control(el) {
    if (!el || el.nodeType !== 1) return el;
    if (el.tagName === 'LABEL') return el.control || W.labelledControl(el) || el;
    if (el.matches(CONTROLS)) return el;
    return W.labelledControl(el) || el;
  },
  // The checkbox, radio or switch whose aria-labelledby names `el`, in its tree scope.
  labelledControl(el) {
    if (!el.id) return null;
    const root = el.getRootNode();
    if (!root.querySelectorAll) return null;
    return Array.from(root.querySelectorAll('[aria-labelledby]'))
      .find((c) => c !== el && c.matches(CHECKABLE) && labelledBy(c).includes(el)) || null;
  },
  // One target to a person: a control and its labels (a <label> for it or around it; for a
  // checkbox, radio or switch, the elements its aria-labelledby names too). A click on any of
  // them reaches the control.
  pair(el) {
    const control = W.control(el);
    const labels = Array.from(control.labels || []);
    if (control.matches && control.matches(CHECKABLE)) labels.push(...labelledBy(control));
    const out = [control];
    for (const member of labels.concat([el])) if (!out.includes(member)) out.push(member);
    return out;
  },
  // How `el` stands in its label/control pair, for a message: " (a label of input#x)", " (the
  // control of label "…")", or nothing.
  pairNote(el) {
    const control = W.control(el);
    if (control !== el) return ` (a label of ${W.describe(control)})`;
    const label = W.pair(el).find((m) => m !== el && W.isVisible(m));
    return label ? ` (the control of ${W.describe(label)})` : '';
  },
  // Whether a pointer that hits `hit` acts on `el`: the hit is the element or lies inside it, or
  // it is the element's control or a label of that control.
  receives(el, hit) {
    if (!hit) return false;
    if (W.within(el, hit)) return true;
    return W.pair(el).some((member) => W.within(member, hit));
  },
  // The point a pointer aims at on `el`, as WebDriver does: the centre of its first box, clipped
  // to the viewport; null when none of it is in the viewport.
  centre(el) {
    const r = el.getClientRects()[0] || el.getBoundingClientRect();
    const left = Math.max(r.left, 0);
    const right = Math.min(r.right, innerWidth);
    const top = Math.max(r.top, 0);
    const bottom = Math.min(r.bottom, innerHeight);
    if (right <= left || bottom <= top) return null;
    return { x: Math.floor((left + right) / 2), y: Math.floor((top + bottom) / 2) };
  },
  // Whether scrolling can bring `el` into view: a box moved off the page (`left: -9999px`)
  // cannot be.
  onPage(el) {
    const r = el.getBoundingClientRect();
    return r.right + scrollX > 0 && r.bottom + scrollY > 0;
  },
  // Whether a pointer at the centre of a visible `el` reaches it, `reaches(el, hit)` deciding:
  // false off the page, true when the centre is out of view (scrolled to later, where the gate
  // looks again).
  aimable(el, reaches) {
    if (!W.onPage(el)) return false;
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return true;
    const point = W.centre(el);
    return point !== null && reaches(el, W.hitAt(point.x, point.y));
  },
  // The hit at the centre is the element itself.
  takesPointer(el) {
    return W.aimable(el, W.within);
  },
  // The hit at the centre is the element, or its control or a label of it (a click there
  // reaches the same control).
  pointable(el) {
    return W.aimable(el, W.receives);
  },
  // The element a person would act on for `el`: the control itself when it shows and its centre
  // takes the pointer; else a visible label of it that can be pointed at (a control hidden,
  // shrunk, clipped, moved off the page or covered, and styled through its label); else the
  // control when it shows at all, for the gate to say what is in its way.
  actionable(el) {
    const control = W.control(el);
    const labels = Array.from(control.labels || []).filter(W.isVisible);
    if (!labels.length) {
      if (control !== el && W.isVisible(control)) return control;
      return W.isVisible(el) ? el : null;
    }
    if (W.isVisible(control) && W.takesPointer(control)) return control;
    const usable = labels.filter(W.pointable);
    if (usable.length) return usable.includes(el) ? el : usable[0];
    if (W.isVisible(control) && W.onPage(control)) return control;
    return labels.includes(el) ? el : labels[0];
  },
  // Resolves once the DOM changes, the document's loading moves on (`readystatechange`: a page
  // loading its images changes no DOM), the document goes (`pagehide`: a look at a page that is
  // leaving ends with it) or after `ms`, whichever comes first: a condition wait.
  // Changes inside open shadow roots count too.
  nextChange(ms) {
    return new Promise((resolve) => {
      const observer = new MutationObserver(() => finish());
      const timer = setTimeout(() => finish(), ms);
      document.addEventListener('readystatechange', finish);
      addEventListener('pagehide', finish);
      function finish() {
        observer.disconnect(); clearTimeout(timer); document.removeEventListener('readystatechange', finish);
        removeEventListener('pagehide', finish);
        W._roots = undefined; resolve();
      }
      for (const root of W.roots(document)) {
        observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
      }
    });
  },
  frame() {
    return new Promise((resolve) => requestAnimationFrame(() => resolve()));
  },
};

// Roles, names and identity: how a person tells elements apart.
// What a click on a label of it acts on; and, of those, what is checked or not.
const CONTROLS = 'input, select, textarea, button, meter, output, progress, [role="checkbox"], [role="radio"], ' +
  '[role="switch"], [role="menuitemcheckbox"], [role="menuitemradio"], [role="button"], [role="slider"], [role="combobox"], [role="textbox"]';
const CHECKABLE = 'input[type="checkbox"], input[type="radio"], [role="checkbox"], [role="radio"], [role="switch"], ' +
  '[role="menuitemcheckbox"], [role="menuitemradio"]';
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
// The elements an aria-labelledby attribute names, in the element's own tree scope.
function labelledBy(el) {
  const by = el.getAttribute('aria-labelledby');
  if (!by) return [];
  const root = el.getRootNode();
  return by.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : document.getElementById(id))).filter(Boolean);
}
function accessibleName(el) {
  const by = labelledBy(el);
  if (by.length) {
    const text = by.map((n) => n.innerText).join(' ');
    if (W.squash(text)) return W.squash(text);
  }
  const aria = el.getAttribute('aria-label');
  if (aria && W.squash(aria)) return W.squash(aria);
  const label = labelText(el);
  if (label) return label;
  if (el.tagName === 'IMG') return W.squash(el.getAttribute('alt')) || null;
  if (el.tagName === 'INPUT' && ['submit', 'button', 'reset'].includes(el.type)) return W.squash(el.value) || null;
  if (!['INPUT', 'SELECT', 'TEXTAREA', 'IFRAME'].includes(el.tagName)) {
    const text = W.squash(W.text(el) || el.textContent);
    if (text) return text.length > 80 ? text.slice(0, 80) + '…' : text;
    const img = el.querySelector('img[alt]');
    if (img) return W.squash(img.getAttribute('alt')) || null;
  }
  return W.squash(el.getAttribute('title')) || W.squash(el.getAttribute('placeholder')) || null;
}
// The lowest ancestor (across shadow boundaries) that names or shows `within`.
function containerOf(el, within) {
  const wanted = W.squash(within).toLowerCase();
  for (let node = W.parent(el); node && node !== document.documentElement; node = W.parent(node)) {
    if (node.nodeType !== 1) continue;
    if (W.squash(W.text(node)).toLowerCase().includes(wanted)) return node;
    const named = [accessibleName(node), node.getAttribute('aria-label'), node.getAttribute('title')];
    if (named.some((n) => n && W.squash(n).toLowerCase() === wanted)) return node;
  }
  return null;
}

// Identity: what an element is to a person, compared loosely enough that data may change (counts,
// prices) but strictly enough that a different control never passes for the planned one.
W.identityOf = (el) => ({ tag: el.tagName.toLowerCase(), role: role(el), name: accessibleName(el), label: labelText(el) });
W.loose = (text) => W.squash(text).toLowerCase().replace(/[0-9]+([.,][0-9]+)*/g, '#');
W.sameIdentity = (el, planned) => {
  const now = W.identityOf(el);
  if (now.tag !== String(planned.tag || '').toLowerCase()) return false;
  if (planned.role && now.role !== planned.role) return false;
  const names = [planned.name, planned.label].filter((n) => n && W.squash(n));
  if (names.length) {
    const current = [now.name, now.label].filter(Boolean).map(W.loose);
    if (!names.some((n) => current.includes(W.loose(n)))) return false;
  }
  // Planned "in" a container: it must still be the one such element in a container showing it.
  if (planned.within) {
    const container = containerOf(el, planned.within);
    if (!container) return false;
    const peers = W.deepAll(el.tagName.toLowerCase(), container).filter((other) => {
      if (other === el || !W.isVisible(other) && !W.visibleLabel(other)) return false;
      const id = W.identityOf(other);
      return id.role === now.role && W.loose(id.name || '') === W.loose(now.name || '');
    });
    if (peers.length) return false;
  }
  return true;
};
W.describeIdentity = (identity) => {
  const name = identity.name || identity.label;
  const within = identity.within ? ` in "${identity.within}"` : '';
  return `${identity.role || identity.tag}${name ? ` "${name}"` : ''}${within}`;
};
// A custom element whose content Windup cannot see: it renders, has no light children to show,
// and no open shadow root (so a closed one, most likely).
W.closedHosts = () => W.deepAll('*').filter((el) => el.tagName.includes('-') && !el.shadowRoot &&
  el.childElementCount === 0 && customElements.get(el.tagName.toLowerCase()) && W.isVisible(el));
