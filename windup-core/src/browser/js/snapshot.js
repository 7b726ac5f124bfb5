// Page snapshot. No arguments. Answers { url, title, elements, outline }: the interactive elements
// with how a person would name them and selectors that find them, and a compact outline.
// Open shadow roots are seen through, as a person sees the page.
const elements = W.deepAll(INTERACTIVE).map((el) => ({
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
      // A stable hook on the text, so a rule or an expectation can read it by selector.
      const testId = node.getAttribute('data-testid');
      const hook = testId ? ` @ [data-testid="${testId}"]` : (node.id ? ` @ #${CSS.escape(node.id)}` : '');
      const line = '  '.repeat(depth) + 'text ' + quote(text.length > 80 ? text.slice(0, 80) + '…' : text) + hook;
      lines.push(line); budget -= line.length;
    }
    return;
  }
  if (node.tagName === 'IFRAME' || node.tagName === 'FRAME') {
    const name = node.getAttribute('title') || node.getAttribute('name') || '';
    const line = '  '.repeat(depth) + 'frame' + (name ? ' ' + quote(name) : '');
    lines.push(line); budget -= line.length;
    return;
  }
  if (node.shadowRoot) for (const child of node.shadowRoot.children) walk(child, next);
  for (const child of node.children) walk(child, next);
}
if (document.body) walk(document.body, 0);
return { url: location.href, title: document.title, elements, outline: lines.join('\n') };
