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
