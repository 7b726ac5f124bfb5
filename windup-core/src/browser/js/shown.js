// Everything a screenshot of the page could show as text: the rendered text of the document, of
// its open shadow roots and of the same-origin frames it shows, and the values in its fields
// (what was typed is in no text). Password and hidden fields show none. Answers one string.
function shownIn(doc, depth) {
  if (!doc || !doc.body) return '';
  const top = doc === document;
  let out = top ? W.text(doc.body) : doc.body.innerText;
  const fields = top ? W.deepAll('input, textarea, select') : Array.from(doc.querySelectorAll('input, textarea, select'));
  for (const field of fields) {
    if (field.type === 'password' || field.type === 'hidden') continue;
    out += '\n' + (field.value || '') + '\n' + (field.placeholder || '');
  }
  if (depth > 3) return out;
  const frames = top ? W.deepAll('iframe, frame') : Array.from(doc.querySelectorAll('iframe, frame'));
  for (const frame of frames) {
    let inner = null;
    try { inner = frame.contentDocument; } catch (e) { inner = null; }
    if (inner) out += '\n' + shownIn(inner, depth + 1);
  }
  return out;
}
return shownIn(document, 0);
