// The rules of invariants/vue-contacts.yaml, for Bombadil: each export is a Windup invariant,
// named by its id in camel case, over the same selectors; the corpus' efficacy bench maps them
// back (examples/corpus/README.md).
//
// Bombadil's default actions never double-click: the rename editor, and so the bugs of
// escapeCancelsRename and leavingRenameSavesIt, are out of their reach.

import { extract } from "@antithesishq/bombadil/browser";
import { count, input, invariant, need, number, text, texts, transition } from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  editing: count(state, ".contact.editing"),
  original: text(state, ".contact.editing .orig"),
  draft: input(state, ".contact.editing .edit"),
  names: texts(state, ".contact .name"),
  search: input(state, "#search"),
  newName: input(state, "#new-name"),
  newEmail: input(state, "#new-email"),
  shown: number(state, ".contact-count"),
  listed: count(state, "#contacts .contact"),
  listedNames: texts(state, "#contacts .contact .name"),
  listedEmails: texts(state, "#contacts .contact .email"),
}));

// Bombadil has no `goto`.
const reloads = (kind: string) => ["reload", "back", "forward"].includes(kind);

export const escapeCancelsRename = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Escape" && before.editing === 1) ||
    (after.editing === 0 && after.names.includes(need(before.original))),
);

export const leavingRenameSavesIt = transition(page, (before, after, action) => {
  const applies =
    before.editing === 1 &&
    after.editing === 0 &&
    !(action.kind === "press" && action.key === "Escape") &&
    !reloads(action.kind) &&
    /^[!-~]+( [!-~]+)*$/.test(String(need(before.draft))) &&
    need(after.search) === "";
  return !applies || after.names.includes(String(need(before.draft)));
});

export const searchKeepsNewContactDraft = transition(page, (before, after, action) => {
  const applies = need(before.search) !== need(after.search) && !reloads(action.kind);
  return (
    !applies ||
    (need(after.newName) === need(before.newName) && need(after.newEmail) === need(before.newEmail))
  );
});

export const countMatchesList = invariant(
  () => need(page.current.search) !== "" || need(page.current.shown) === page.current.listed,
);

export const everyContactHasANameAndAnEmail = invariant(
  () =>
    page.current.listedNames.every((n) => n !== "") &&
    page.current.listedEmails.every((e) => e.includes("@")),
);
