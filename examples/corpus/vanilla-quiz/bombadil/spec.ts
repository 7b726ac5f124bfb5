// The rules of invariants/vanilla-quiz.yaml, for Bombadil: each export is a Windup invariant,
// named by its id in camel case (`score-at-most-answered` is `scoreAtMostAnswered`), over the
// same selectors; the corpus' efficacy bench maps them back (examples/corpus/README.md).
//
// The header is drawn 300 ms after load: until then every read of it is null and the rules
// that need it say nothing, as in Windup.

import { extract } from "@antithesishq/bombadil/browser";
import { count, hash, invariant, need, number, transition } from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  hash: hash(state),
  answered: number(state, ".answered"),
  score: number(state, ".score"),
  chosen: count(state, ".choice[aria-checked=true]"),
  finalScore: number(state, ".final-score"),
  right: count(state, ".review-item.right"),
}));

type Page = typeof page.current;

const keepsProgress = (before: Page, after: Page) =>
  need(after.answered) === need(before.answered) && need(after.score) === need(before.score);

export const scoreAtMostAnswered = invariant(() => {
  const { score, answered } = page.current;
  return need(score) >= 0 && need(score) <= need(answered) && need(answered) <= 5;
});

export const backForwardKeepsAnswers = transition(
  page,
  (before, after, action) =>
    !(action.kind === "back" || action.kind === "forward") || keepsProgress(before, after),
);

// Bombadil's default actions press Escape only in a focused text field: the Restart dialog's
// Escape (escape-restarts) is out of their reach.
export const escapeKeepsProgress = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Escape") || keepsProgress(before, after),
);

export const reloadKeepsAnswers = transition(
  page,
  (before, after, action) => action.kind !== "reload" || keepsProgress(before, after),
);

export const oneAnswerPerQuestion = invariant(() => page.current.chosen <= 1);

export const resultMatchesScore = invariant(() => {
  const { hash, finalScore, score, right } = page.current;
  return hash !== "#/result" || (need(finalScore) === need(score) && right === need(score));
});
