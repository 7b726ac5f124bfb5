// The rules of invariants/alpine-settings.yaml, for Bombadil: each export is a Windup
// invariant, named by its id in camel case, over the same selectors; the corpus' efficacy
// bench maps them back (examples/corpus/README.md).

import { extract } from "@antithesishq/bombadil/browser";
import {
  count,
  hash,
  input,
  inputs,
  invariant,
  need,
  number,
  same,
  text,
  transition,
} from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  hash: hash(state),
  onCount: number(state, ".on-count"),
  onCountText: text(state, ".on-count"),
  toggles: inputs(state, ".toggle-input"),
  savedName: text(state, ".saved-name"),
  displayName: input(state, "#display-name"),
  tabs: count(state, "[role=tab]"),
  selectedTabs: count(state, "[role=tab][aria-selected=true]"),
  panels: count(state, "[role=tabpanel]"),
  selectedTab: text(state, "[role=tab][aria-selected=true]"),
  panelTitle: text(state, "[role=tabpanel] h2"),
}));

const on = (toggles: (string | boolean)[]) => toggles.filter((t) => t === true).length;

export const summaryFollowsToggles = transition(page, (before, after) => {
  const applies =
    after.hash === before.hash &&
    after.toggles.length > 0 &&
    after.toggles.length === before.toggles.length;
  return (
    !applies ||
    need(after.onCount) - need(before.onCount) === on(after.toggles) - on(before.toggles)
  );
});

export const escapeRevertsName = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Escape") ||
    (need(after.savedName) === need(before.savedName) &&
      need(after.displayName) === need(after.savedName)),
);

export const settingsKeptOnBackForward = transition(
  page,
  (before, after, action) =>
    !(action.kind === "back" || action.kind === "forward") ||
    (need(after.onCount) === need(before.onCount) &&
      need(after.savedName) === need(before.savedName)),
);

export const settingsKeptOnReload = transition(
  page,
  (before, after, action) =>
    action.kind !== "reload" ||
    (need(after.onCount) === need(before.onCount) &&
      need(after.savedName) === need(before.savedName) &&
      same(after.toggles, before.toggles)),
);

export const summaryWording = invariant(() => {
  const n = need(page.current.onCount);
  return n >= 0 && need(page.current.onCountText) === `${Math.trunc(n)} ${n === 1 ? "option" : "options"} on`;
});

export const oneTabSelected = invariant(() => {
  const p = page.current;
  const named =
    p.hash === "#/notifications" ? "Notifications" : p.hash === "#/privacy" ? "Privacy" : "General";
  return (
    p.tabs === 0 ||
    (p.selectedTabs === 1 &&
      p.panels === 1 &&
      need(p.selectedTab) === named &&
      need(p.panelTitle) === need(p.selectedTab))
  );
});
