// The rules of invariants/react-groceries.yaml, for Bombadil: each export is a Windup
// invariant, named by its id in camel case, over the same selectors; the corpus' efficacy
// bench maps them back (examples/corpus/README.md).
//
// Bombadil's default actions never hover nor double-click: a row's × shows only under the
// pointer a click left there, and no rename is ever opened.

import { extract } from "@antithesishq/bombadil/browser";
import { count, hash, input, invariant, need, number, text, texts, transition } from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  hash: hash(state),
  left: number(state, ".count strong"),
  leftText: text(state, ".count"),
  needed: count(state, ".items li:not(.bought)"),
  bought: count(state, ".items li.bought"),
  rows: count(state, ".items li"),
  names: texts(state, ".items li .name"),
  hovered: count(state, ".items li:hover"),
  hoveredName: text(state, ".items li:hover .name"),
  editing: count(state, ".items li.editing"),
  draft: input(state, ".new-item"),
  selectedFilters: count(state, ".filters a.selected"),
  selectedFilter: text(state, ".filters a.selected"),
}));

export const counterShowsNeeded = invariant(
  () => page.current.hash === "#/bought" || need(page.current.left) === page.current.needed,
);

export const counterSaysItemOrItems = invariant(() => {
  const n = need(page.current.left);
  return need(page.current.leftText) === `${n} ${n === 1 ? "item" : "items"} left`;
});

export const filterChangeKeepsDraft = transition(
  page,
  (before, after, action) =>
    !(action.kind === "click" && before.hash !== after.hash) ||
    need(after.draft) === need(before.draft),
);

export const removeTakesHoveredRow = transition(page, (before, after, action) => {
  const applies =
    action.kind === "click" &&
    before.hash === after.hash &&
    !["#/needed", "#/bought"].includes(after.hash) &&
    before.hovered === 1 &&
    before.editing === 0 &&
    after.rows === before.rows - 1;
  if (!applies) return true;
  const hovered = need(before.hoveredName);
  return before.names.filter((n) => n === hovered).length !== 1 || !after.names.includes(hovered);
});

export const filterShowsItsItems = invariant(() => {
  const filter = need(page.current.selectedFilter);
  if (filter === "Needed") return page.current.bought === 0;
  if (filter === "Bought") return page.current.needed === 0;
  return true;
});

export const selectedFilterMatchesHash = invariant(() => {
  const p = page.current;
  const named = p.hash === "#/needed" ? "Needed" : p.hash === "#/bought" ? "Bought" : "All";
  return p.selectedFilters === 1 && need(p.selectedFilter) === named;
});
