// The rules of invariants/preact-kanban.yaml, for Bombadil: each export is a Windup invariant,
// named by its id in camel case, over the same selectors; the corpus' efficacy bench maps them
// back (examples/corpus/README.md).
//
// Bombadil's default actions never double-click: the card editor, and so the bugs of
// escapeCancelsCardEdit and leavingTheEditorSavesIt, are out of their reach.

import { extract } from "@antithesishq/bombadil/browser";
import { count, input, invariant, need, number, same, texts, transition } from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  columns: ["#col-todo", "#col-doing", "#col-done"].map((col) => ({
    shown: number(state, `${col} .col-count`),
    cards: count(state, `${col} .card`),
  })),
  cards: count(state, ".card"),
  editors: count(state, ".card .edit"),
  editing: input(state, ".card .edit"),
  titles: texts(state, ".card-title"),
}));

export const columnCountsMatchCards = invariant(() =>
  page.current.columns.every((col) => need(col.shown) === col.cards),
);

export const oneEnterAddsAtMostOneCard = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Enter") || after.cards <= before.cards + 1,
);

export const escapeCancelsCardEdit = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Escape" && before.editors === 1) ||
    (after.editors === 0 && same(after.titles, before.titles)),
);

// Windup's kinds click, double_click, press, fill, type, focus, check and uncheck are
// Bombadil's click, double_click, press and type (it checks by clicking, and has no focus).
export const leavingTheEditorSavesIt = transition(page, (before, after, action) => {
  const applies =
    before.editors === 1 &&
    after.editors === 0 &&
    ["click", "double_click", "press", "type"].includes(action.kind) &&
    !(action.kind === "press" && action.key === "Escape") &&
    /^[!-~]+( [!-~]+)*$/.test(String(need(before.editing)));
  return !applies || after.titles.includes(String(need(before.editing)));
});

export const noBlankCardTitle = invariant(() => page.current.titles.every((t) => t !== ""));

// Bombadil has no `goto`: only a reload loads the page again.
export const noCardIsEverLost = transition(
  page,
  (before, after, action) => action.kind === "reload" || after.cards >= before.cards,
);
