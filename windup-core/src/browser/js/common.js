// Shared by Windup's injected scripts. Pure functions over the DOM; no state is kept.
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
    const text = W.squash(el.innerText || el.value || el.getAttribute('aria-label') || '');
    if (text) out += ` "${text.length > 40 ? text.slice(0, 40) + '…' : text}"`;
    return out;
  },
  squash(text) {
    return String(text || '').replace(/\s+/g, ' ').trim();
  },
  // Why an element is not visible, or null when a person can see it.
  hiddenReason(el) {
    if (!el.isConnected) return 'it is no longer attached to the page';
    const style = getComputedStyle(el);
    if (typeof el.checkVisibility === 'function') {
      if (!el.checkVisibility({ checkVisibilityCSS: true })) {
        return style.display === 'none'
          ? 'it has display:none'
          : 'it or an ancestor is not rendered (display:none or content-visibility)';
      }
      if (!el.checkVisibility({ checkOpacity: true })) return 'it or an ancestor has opacity 0';
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
  // Visible labels of a form control, for controls that are styled through their label.
  visibleLabel(el) {
    return Array.from(el.labels || []).find(W.isVisible) || null;
  },
  // The element a person would act on for `el`: itself, or the visible label of a hidden control.
  actionable(el) {
    if (W.isVisible(el)) return el;
    if (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA') return W.visibleLabel(el);
    return null;
  },
  // The checkbox or radio an element stands for: itself or the control of its label.
  control(el) {
    if (el.tagName === 'LABEL') return el.control;
    return el;
  },
  // Resolves once the DOM changes or after `ms`, whichever comes first: a condition wait.
  nextChange(ms) {
    return new Promise((resolve) => {
      const observer = new MutationObserver(() => finish());
      const timer = setTimeout(() => finish(), ms);
      function finish() { observer.disconnect(); clearTimeout(timer); resolve(); }
      observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    });
  },
  frame() {
    return new Promise((resolve) => requestAnimationFrame(() => resolve()));
  },
};

// Naming and selectors, shared by the snapshot and the resolver.
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
// Whether the executor, which acts on the first visible match, would act on `el`.
function leadsTo(selector, el) {
  try {
    const found = Array.from(document.querySelectorAll(selector));
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
    const siblings = node.parentElement ? Array.from(node.parentElement.children).filter((s) => s.tagName === node.tagName) : [];
    parts.unshift(siblings.length > 1 ? `${tag}:nth-of-type(${siblings.indexOf(node) + 1})` : tag);
    node = node.parentElement;
  }
  return parts.join(' > ');
}
// An element's own id as a selector, unless the id looks generated (three digits or more).
function idSelector(el) {
  return el.id && !/\d{3,}/.test(el.id) ? '#' + CSS.escape(el.id) : null;
}
function selectors(el) {
  const tag = el.tagName.toLowerCase();
  const out = [];
  const testId = el.getAttribute('data-testid');
  if (testId) out.push(`[data-testid=${quote(testId)}]`);
  const id = idSelector(el);
  if (id) out.push(id);
  const name = el.getAttribute('name');
  if (name && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(el.tagName)) out.push(`${tag}[name=${quote(name)}]`);
  const aria = el.getAttribute('aria-label');
  if (aria) out.push(`${tag}[aria-label=${quote(aria)}]`);
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
  const candidates = out.filter((s) => leadsTo(s, el));
  candidates.push(structural(el));
  return candidates;
}
function box(el) {
  const r = el.getBoundingClientRect();
  return { x: Math.round(r.x), y: Math.round(r.y + window.scrollY), width: Math.round(r.width), height: Math.round(r.height) };
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
  if (!names.length) return true;
  const current = [now.name, now.label].filter(Boolean).map(W.loose);
  return names.some((n) => current.includes(W.loose(n)));
};
W.describeIdentity = (identity) => {
  const name = identity.name || identity.label;
  return `${identity.role || identity.tag}${name ? ` "${name}"` : ''}`;
};
