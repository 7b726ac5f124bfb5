// Page structure, for the page signature: `pageStructure()` answers { url, loaded, elements }: for
// each interactive element only what the signature counts — tag, role, input type, whether it has
// a test id and whether its id is a selector that reaches it — the same facts the snapshot gives.
function pageStructure() {
  const elements = W.deepAll(INTERACTIVE).map((el) => {
    const id = idSelector(el);
    const prefix = chainPrefix(el);
    return {
      tag: el.tagName.toLowerCase(),
      role: role(el),
      input_type: el.tagName === 'INPUT' ? el.type : null,
      test_id: el.hasAttribute('data-testid'),
      id_selector: Boolean(id && leadsTo(prefix + id, el)),
    };
  });
  return { url: location.href, loaded: document.readyState === 'complete', elements };
}
// What a script that ran after an act tells of the page besides its own answer: the top page's
// URL, and its structure when its path is not `known` (the page last recorded) and it has loaded,
// so that recording a new page needs no script of its own.
function pageAfter(known) {
  if (window !== window.top) return { href: null, structure: null };
  const fresh = location.pathname !== known && document.readyState === 'complete';
  return { href: location.href, structure: fresh ? pageStructure() : null };
}
