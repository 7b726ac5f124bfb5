// Actionability gate. Arguments: selector (a `>>>` chain through shadow roots), mode ("visible" |
// "click" | "hover" | "fill" | "select" | "check"),
// the identity the element was planned with ({ tag, role, name, label }, or null), then the
// WebDriver callback. Answers { status, ... }; "ok" carries the element to act on.
const [selector, mode, planned, done] = arguments;
(async () => {
  const pending = async (answer) => { await W.nextChange(100); return answer; };
  if (document.readyState !== 'complete') return pending({ status: 'loading', detail: `the page is still loading (${document.readyState})` });
  let all;
  let closed;
  try { ({ matches: all, closed } = W.chain(selector)); }
  catch (e) { return { status: 'invalid_selector', detail: String(e && e.message || e) }; }
  if (all.length === 0 && closed) {
    return pending({ status: 'closed_shadow', count: 0, detail: `the element ${W.describe(closed)} keeps its content in a closed shadow root, which no script can enter; ask for an open shadow root or a test id on the host` });
  }
  if (all.length === 0) return pending({ status: 'missing', count: 0, detail: 'no element matches the selector' });
  let el = null;
  let original = null;
  let stranger = null;
  // Only a click, a check or a hover may go through a label, as a person would click it.
  const throughLabel = mode === 'click' || mode === 'check' || mode === 'hover';
  for (const candidate of all) {
    const target = throughLabel ? W.actionable(candidate) : (W.isVisible(candidate) ? candidate : null);
    if (!target) continue;
    // Fail closed: act only on an element that still is what the plan was made for.
    if (planned && !W.sameIdentity(candidate, planned)) { stranger = stranger || candidate; continue; }
    el = target; original = candidate; break;
  }
  if (!el && stranger) {
    const expected = W.describeIdentity(planned);
    const found = W.identityOf(stranger);
    const elsewhere = planned.within && W.sameIdentity(stranger, { ...planned, within: null }) ? ` that is not in "${planned.within}"` : '';
    return pending({ status: 'identity_mismatch', count: all.length, detail: `the selector now finds ${W.describeIdentity(found)}${elsewhere}, not the ${expected} the plan was made for` });
  }
  if (!el) {
    const detail = all.length === 1
      ? `the element ${W.describe(all[0])} exists but is hidden: ${W.hiddenReason(all[0])}`
      : `${all.length} elements match, none visible (first: ${W.describe(all[0])}: ${W.hiddenReason(all[0])})`;
    return pending({ status: 'hidden', count: all.length, detail });
  }
  const base = { count: all.length, described: W.describe(original), origin: location.origin };
  if (mode === 'visible') return { ...base, status: 'ok', element: el };
  const inert = W.inertReason(el);
  if (inert) return pending({ ...base, status: 'covered', detail: `the element ${W.describe(el)} cannot be reached: ${inert}` });
  if (mode !== 'hover' && W.isDisabled(original)) return pending({ ...base, status: 'disabled', detail: `the element ${W.describe(original)} is disabled` });
  if (mode === 'fill') {
    const editable = original.isContentEditable || (['INPUT', 'TEXTAREA'].includes(original.tagName) && !original.readOnly);
    if (!editable) return { ...base, status: 'not_editable', detail: `the element ${W.describe(original)} cannot be typed into (it is not an editable input, textarea or contenteditable)` };
    // An empty field is typed into as it is, as a person would: nothing to clear.
    base.empty = !original.isContentEditable && original.value === '';
  }
  if (mode === 'select' && original.tagName !== 'SELECT') {
    return { ...base, status: 'not_editable', detail: `the element ${W.describe(original)} is not a <select>` };
  }
  if (mode === 'check') {
    const control = W.control(original);
    if (!control || control.tagName !== 'INPUT' || !['checkbox', 'radio'].includes(control.type)) {
      return { ...base, status: 'not_editable', detail: `the element ${W.describe(original)} is not a checkbox or radio button, nor the label of one` };
    }
    base.checked = control.checked;
  }
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  // Stable: only a running animation or transition on the element or an ancestor can move it
  // between frames; when one runs, its box must stay the same over three animation frames.
  let after = el.getBoundingClientRect();
  const moving = document.getAnimations().some((a) => {
    const target = a.effect && a.effect.target;
    return a.playState === 'running' && target && target.nodeType === 1 && W.within(target, el);
  });
  if (moving) {
    // Three boxes on consecutive frames: two alone can match across a reversing animation.
    // Boxes that match only because the animations' clock did not move between the frames (a
    // starved renderer) prove nothing: the element is still moving.
    const boxes = [after];
    const clock = [document.timeline.currentTime];
    for (let i = 0; i < 2; i++) {
      await W.frame();
      boxes.push(el.getBoundingClientRect());
      clock.push(document.timeline.currentTime);
    }
    after = boxes[2];
    const same = (a, b) => ['x', 'y', 'width', 'height'].every((k) => Math.abs(a[k] - b[k]) <= 0.5);
    const ticked = clock[0] !== null && clock[2] !== null && clock[2] > clock[1] && clock[1] > clock[0];
    if (!same(boxes[0], boxes[1]) || !same(boxes[1], boxes[2]) || !ticked) {
      return { ...base, status: 'unstable', detail: `the element ${W.describe(el)} is still moving (animating)` };
    }
  }
  let point = W.centre(el);
  let hit = point && W.hitAt(point.x, point.y);
  if (!W.receives(el, hit) && throughLabel) {
    // Not reachable at its centre: another of its label/control pair may be, as a person clicks
    // the label of a control that shows nothing of itself, or the control laid over its label.
    const control = W.control(el);
    for (const other of W.pair(el)) {
      if (other === el || !(other === control || other.tagName === 'LABEL') || !W.isVisible(other)) continue;
      other.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      const at = W.centre(other);
      const there = at && W.hitAt(at.x, at.y);
      if (W.receives(other, there)) { el = other; point = at; hit = there; break; }
    }
  }
  if (!W.receives(el, hit)) {
    const what = hit ? W.describe(hit) : 'nothing (outside the viewport)';
    return pending({ ...base, status: 'covered', detail: `the element ${W.describe(el)}${W.pairNote(el)} is covered by ${what} at its centre${hit ? ', which is not one of its label/control pair' : ''}` });
  }
  // A hit on the other one of a label/control pair: WebDriver's click would call that an
  // interception, so the pointer is pressed where the hit was tested instead.
  base.through = W.within(el, hit) ? null : W.describe(hit);
  base.acted = el === original && !base.through ? null : W.describe(el) + W.pairNote(el);
  // Remember the element passed, and the next submission of a form that would replace this
  // document (no `target` elsewhere), so that the act's own script reads the element's state
  // and waits for the submission to leave: a reference passed back to the driver goes stale
  // as soon as the act replaces the document.
  window.__windupTarget = el;
  window.__windupControl = W.control(el);
  window.__windupSubmit = null;
  document.addEventListener('submit', (e) => {
    const f = e.target;
    if (!f || !f.target || f.target === '_self' || f.target === '_top') window.__windupSubmit = e;
  }, { capture: true, once: true });
  // The point the hit was tested at: a pointer sent there (over BiDi) lands where it was tested.
  return { ...base, status: 'ok', element: el, point, box: { x: after.x, y: after.y, width: after.width, height: after.height } };
})().then(done, (e) => done({ status: 'error', detail: String(e && e.message || e) }));
