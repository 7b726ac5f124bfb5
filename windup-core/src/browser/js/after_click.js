// After a click. Arguments: how long to wait (ms), the path of the page last recorded (see
// `pageAfter`), then the WebDriver callback. When a submission the gate armed the watch for, not
// prevented by the page, is about to replace the document, it answers when the document goes (or
// after the wait); otherwise at once, with whether the element the gate passed (its control, for
// a label, named or naming) is a checked checkbox or radio, and what `pageAfter` tells of the page.
const [wait, known, done] = arguments;
const el = window.__windupTarget;
// A submission still here 3 s after it was sent replaces nothing (a 204 answer, a download).
const e = window.__windupSubmit;
if (!e || e.defaultPrevented || performance.now() - e.timeStamp > 3000) {
  const c = window.__windupControl || (el && W.control(el));
  const checked = c && typeof c.checked === 'boolean' && ['checkbox', 'radio'].includes(c.type) ? c.checked : null;
  done({ leaving: false, checked, ...pageAfter(known) });
} else {
  addEventListener('pagehide', () => done({ leaving: true, gone: true }), { once: true });
  setTimeout(() => done({ leaving: true, gone: false }), wait);
}
