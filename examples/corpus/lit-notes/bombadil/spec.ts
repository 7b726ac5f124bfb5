// The rules of invariants/lit-notes.yaml, for Bombadil: each export is a Windup invariant,
// named by its id in camel case, over the same selectors (through the open shadow roots with
// `>>>`); the corpus' efficacy bench maps them back (examples/corpus/README.md).

import { extract } from "@antithesishq/bombadil/browser";
import {
  count,
  focused,
  hash,
  input,
  inputs,
  invariant,
  need,
  number,
  same,
  size,
  text,
  texts,
  transition,
} from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  hash: hash(state),
  charCount: number(state, "notes-app >>> .char-count"),
  draft: input(state, "notes-app >>> .draft"),
  draftFocused: focused(state, "notes-app >>> .draft"),
  notes: texts(state, "notes-app >>> note-item >>> .text"),
  pins: inputs(state, "notes-app >>> note-item >>> .pin-box"),
  pinnedCount: number(state, "notes-app >>> .pinned-count"),
  selectedFilter: text(state, "notes-app >>> .filters a.selected"),
  noteCount: number(state, "notes-app >>> .note-count"),
  noteCountText: text(state, "notes-app >>> .note-count"),
  items: count(state, "notes-app >>> note-item"),
}));

export const charCountMatchesDraft = invariant(
  () => need(page.current.charCount) === size(String(need(page.current.draft))),
);

// Bombadil has no `goto`: only a reload loads the page again.
export const draftKeptAcrossFilters = transition(
  page,
  (before, after, action) =>
    action.kind === "reload" || after.hash === before.hash || need(after.draft) === need(before.draft),
);

export const notesSurviveReload = transition(
  page,
  (before, after, action) =>
    action.kind !== "reload" || (same(after.notes, before.notes) && same(after.pins, before.pins)),
);

export const pinnedCountMatchesPins = invariant(
  () => need(page.current.pinnedCount) === page.current.pins.filter((p) => p === true).length,
);

export const filterFollowsAddress = invariant(() => {
  const p = page.current;
  return (
    need(p.selectedFilter) === (p.hash === "#/pinned" ? "Pinned" : "All") &&
    (p.hash !== "#/pinned" || p.pins.every((pin) => pin === true))
  );
});

export const noteCountMatchesList = invariant(() => {
  const p = page.current;
  if (p.hash === "#/pinned" || need(p.selectedFilter) !== "All") return true;
  return (
    need(p.noteCount) === p.items &&
    need(p.noteCountText) === `${p.items} ${p.items === 1 ? "note" : "notes"}`
  );
});

export const enterAddsOneAndClears = transition(page, (before, after, action) => {
  const applies =
    action.kind === "press" &&
    action.key === "Enter" &&
    before.draftFocused &&
    /[!-~]/.test(String(need(before.draft))) &&
    after.hash === before.hash;
  return !applies || (need(after.noteCount) === need(before.noteCount) + 1 && need(after.draft) === "");
});
