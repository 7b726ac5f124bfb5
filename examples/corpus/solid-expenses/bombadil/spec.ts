// The rules of invariants/solid-expenses.yaml, for Bombadil: each export is a Windup
// invariant, named by its id in camel case, over the same selectors; the corpus' efficacy
// bench maps them back (examples/corpus/README.md).

import { extract } from "@antithesishq/bombadil/browser";
import {
  hash,
  input,
  invariant,
  money,
  moneys,
  need,
  number,
  texts,
  transition,
} from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  hash: hash(state),
  total: money(state, ".total strong"),
  amounts: moneys(state, ".expense .amount"),
  descriptions: texts(state, ".expense .desc"),
  categories: texts(state, ".expense .cat"),
  description: input(state, "#desc"),
  allCount: number(state, ".all-count"),
  grandTotal: money(state, ".grand-total"),
}));

type Page = typeof page.current;

const keepsEvery = (before: Page, after: Page) =>
  need(after.allCount) === need(before.allCount) &&
  need(after.grandTotal) === need(before.grandTotal);

export const totalIsSumOfShown = invariant(
  () => need(page.current.total) === page.current.amounts.reduce((sum, a) => sum + a, 0),
);

export const noBlankDescription = invariant(() => page.current.descriptions.every((d) => d !== ""));

export const blankDescriptionAddsNothing = transition(page, (before, after, action) => {
  const applies =
    action.kind === "press" && action.key === "Enter" && !/\S/.test(String(need(before.description)));
  return !applies || need(after.allCount) === need(before.allCount);
});

export const reloadKeepsExpenses = transition(
  page,
  (before, after, action) => action.kind !== "reload" || keepsEvery(before, after),
);

export const backForwardKeepExpenses = transition(
  page,
  (before, after, action) =>
    !(action.kind === "back" || action.kind === "forward") || keepsEvery(before, after),
);

const CATEGORIES: Record<string, string> = {
  "#/food": "Food",
  "#/travel": "Travel",
  "#/home": "Home",
  "#/other": "Other",
};

export const categoryFilterShowsItsCategory = invariant(() => {
  const category = CATEGORIES[page.current.hash];
  return category === undefined || page.current.categories.every((c) => c === category);
});
