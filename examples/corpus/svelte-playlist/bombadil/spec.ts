// The rules of invariants/svelte-playlist.yaml, for Bombadil: each export is a Windup
// invariant, named by its id in camel case, over the same selectors; the corpus' efficacy
// bench maps them back (examples/corpus/README.md).
//
// Bombadil's default actions never hover and never press Delete: a row's remove button shows
// only under the pointer a click left there, and deleteRemovesTheFocusedSong's bug is out of
// their reach.

import { extract } from "@antithesishq/bombadil/browser";
import {
  count,
  focused,
  input,
  inputs,
  invariant,
  need,
  number,
  same,
  text,
  texts,
  transition,
} from "../../bombadil/page.ts";

export { defaultActions } from "@antithesishq/bombadil/browser/defaults";
export { noServerError, noUncaughtException } from "../../bombadil/page.ts";

const page = extract((state) => ({
  titles: texts(state, ".song .title"),
  songs: count(state, ".song"),
  songFocused: focused(state, ".song"),
  favCount: number(state, ".fav-count"),
  hearts: inputs(state, ".fav-box"),
  shuffle: input(state, "#shuffle"),
  shuffleLabel: text(state, "label[for=shuffle]"),
  title: input(state, "#title"),
  duration: input(state, "#duration"),
}));

// Windup names the button clicked by its selector, `button[aria-label="Remove <title>"]`;
// Bombadil by its accessible name, here the same aria-label.
export const removeTakesThatSong = transition(page, (before, after, action) => {
  const meant = (t: string) => action.name === `Remove ${t}`;
  const applies = action.kind === "click" && before.titles.filter(meant).length === 1;
  return !applies || (after.songs === before.songs - 1 && !after.titles.some(meant));
});

export const deleteRemovesTheFocusedSong = transition(
  page,
  (before, after, action) =>
    !(action.kind === "press" && action.key === "Delete" && before.songFocused) ||
    after.songs === before.songs - 1,
);

export const favouritesCountMatchesHearts = invariant(
  () => need(page.current.favCount) === page.current.hearts.filter((on) => on === true).length,
);

export const reloadKeepsPlaylist = transition(
  page,
  (before, after, action) =>
    action.kind !== "reload" ||
    (same(after.titles, before.titles) &&
      same(after.hearts, before.hearts) &&
      need(after.shuffle) === need(before.shuffle)),
);

// Windup's `size(action.typed) > 0` (the Enter comes right after typing) is the move before
// the Enter being a typing one.
export const enterAddsOneSongAndClearsTheForm = transition(page, (before, after, action, previous) => {
  const duration = String(need(before.duration));
  const applies =
    action.kind === "press" &&
    action.key === "Enter" &&
    previous.kind === "type" &&
    /[!-~]/.test(String(need(before.title))) &&
    /^[0-9]{1,3}:[0-5][0-9]$/.test(duration) &&
    !/^0{1,3}:00$/.test(duration);
  return (
    !applies ||
    (after.songs === before.songs + 1 && need(after.title) === "" && need(after.duration) === "")
  );
});

export const shuffleLabelSaysItsState = invariant(
  () => need(page.current.shuffleLabel) === (need(page.current.shuffle) === true ? "Shuffle: on" : "Shuffle: off"),
);
