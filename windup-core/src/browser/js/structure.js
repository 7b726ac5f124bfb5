// Page structure, for the page signature. No arguments. Answers { url, loaded, elements }: for each
// interactive element only what the signature counts — tag, role, input type, whether it has a
// test id and whether its id is a selector that reaches it — the same facts the snapshot gives.
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
