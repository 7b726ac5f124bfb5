// Windup's predicate language, as Bombadil extractors and formulas, for the corpus' specs.
//
// Each app's `bombadil/spec.ts` states the rules of its `invariants/` with these reads, so that
// both tools judge the same thing (docs/audit.md, "The predicate language"):
//
// - the reads run in the page, in an extractor, and see only what a person sees: `text`,
//   `number`, `money` and `input` read the first visible match, `texts`, `count`, `numbers`,
//   `moneys` and `inputs` every visible one; a selector may go into open shadow roots with
//   `host >>> part`; a hidden checkbox shown through its visible label is read too;
// - a read of one element that nothing visible matches is `null`, and a rule that `need`s it
//   says nothing on that page (Windup: "not applicable");
// - `invariant` is a rule of every page, `transition` one of every action: it sees the page
//   before the action, the page after it and the action, named as Windup names its own
//   (`press` with its `key`, `click`, `double_click`, `type`, `back`, `forward`, `reload`).

import { always, now, next, type Formula } from "@antithesishq/bombadil";
import { extract, type Action, type State } from "@antithesishq/bombadil/browser";
import {
  noUncaughtExceptions,
  noUnhandledPromiseRejections,
} from "@antithesishq/bombadil/browser/defaults/properties";

// Reads ---------------------------------------------------------------------------------------

// Windup's visibility: rendered, not `visibility: hidden`, and a box larger than 1 px (the
// "visually hidden" pattern counts as no box); opacity does not matter.
function shows(el: Element): boolean {
  const view = el.ownerDocument.defaultView;
  if (!view || !el.isConnected) return false;
  if (typeof el.checkVisibility === "function" && !el.checkVisibility({ checkVisibilityCSS: true })) {
    return false;
  }
  if (view.getComputedStyle(el).visibility !== "visible") return false;
  const box = el.getBoundingClientRect();
  return box.width > 1 && box.height > 1;
}

// A field counts as shown when it or one of its labels is (a styled checkbox).
function fieldShows(el: Element): boolean {
  if (shows(el)) return true;
  const labels = (el as HTMLInputElement).labels;
  return labels ? Array.from(labels).some(shows) : false;
}

// The document and every open shadow root in it, so that a selector's first part finds
// elements wherever they are.
function roots(doc: Document): ParentNode[] {
  const out: ParentNode[] = [doc];
  for (let i = 0; i < out.length; i++) {
    for (const el of Array.from(out[i].querySelectorAll("*"))) {
      if (el.shadowRoot) out.push(el.shadowRoot);
    }
  }
  return out;
}

function matches(state: State, selector: string): Element[] {
  const [first, ...rest] = selector.split(">>>").map((part) => part.trim());
  let found = roots(state.document).flatMap((root) => Array.from(root.querySelectorAll(first)));
  for (const part of rest) {
    found = found.flatMap((host) =>
      host.shadowRoot ? Array.from(host.shadowRoot.querySelectorAll(part)) : [],
    );
  }
  return found;
}

function squash(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

function textOf(el: Element): string {
  return squash((el as HTMLElement).innerText ?? el.textContent);
}

function valueOf(el: Element): string | boolean {
  if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
    return el.checked;
  }
  if (
    el instanceof HTMLInputElement ||
    el instanceof HTMLSelectElement ||
    el instanceof HTMLTextAreaElement
  ) {
    return el.value;
  }
  return textOf(el);
}

export function texts(state: State, selector: string): string[] {
  return matches(state, selector).filter(shows).map(textOf);
}

export function text(state: State, selector: string): string | null {
  return texts(state, selector)[0] ?? null;
}

export function count(state: State, selector: string): number {
  return matches(state, selector).filter(shows).length;
}

export function inputs(state: State, selector: string): (string | boolean)[] {
  return matches(state, selector).filter(fieldShows).map(valueOf);
}

export function input(state: State, selector: string): string | boolean | null {
  return inputs(state, selector)[0] ?? null;
}

// Whether the element that holds the focus, through open shadow roots, is a visible match.
export function focused(state: State, selector: string): boolean {
  let active = state.document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active !== null && matches(state, selector).filter(shows).includes(active);
}

export function hash(state: State): string {
  return state.window.location.hash;
}

// The first number written in a text, as Windup reads it: digits with the separators between
// them, a minus right before them (not a hyphen joining a word), and a decimal part when the
// last `.` or `,` is followed by other than three digits or both marks appear.
function parse(text: string): { whole: string; fraction: string; negative: boolean } | null {
  const found = /\d(?:[\d.,' \u00a0\u202f\u2019]*\d)?/.exec(text);
  if (!found) return null;
  const written = found[0];
  const before = text.slice(0, found.index).replace(/[\s$€£¥₹₩₽₺₪¢]*$/, "");
  const negative = /(^|[^\p{L}\p{N}])[-−–]$/u.test(before);
  const dot = written.lastIndexOf(".");
  const comma = written.lastIndexOf(",");
  let at = Math.max(dot, comma);
  if (dot < 0 || comma < 0) {
    const mark = written[at];
    const marks = at < 0 ? 0 : written.split(mark).length - 1;
    if (at < 0 || marks !== 1 || written.length - at - 1 === 3) at = -1;
  }
  const digits = (s: string) => s.replace(/\D/g, "");
  return at < 0
    ? { whole: digits(written), fraction: "", negative }
    : { whole: digits(written.slice(0, at)), fraction: digits(written.slice(at + 1)), negative };
}

export function numberIn(text: string | null): number | null {
  const found = text === null ? null : parse(text);
  if (!found) return null;
  const value = Number(found.fraction ? `${found.whole}.${found.fraction}` : found.whole);
  return found.negative ? -value : value;
}

// An amount in minor units (cents), so that sums compare exactly.
export function moneyIn(text: string | null): number | null {
  const found = text === null ? null : parse(text);
  if (!found) return null;
  const cents = Number(found.whole) * 100 + Number((found.fraction + "00").slice(0, 2));
  return found.negative ? -cents : cents;
}

export function number(state: State, selector: string): number | null {
  return numberIn(text(state, selector));
}

export function numbers(state: State, selector: string): number[] {
  return texts(state, selector).flatMap((t) => numberIn(t) ?? []);
}

export function money(state: State, selector: string): number | null {
  return moneyIn(text(state, selector));
}

export function moneys(state: State, selector: string): number[] {
  return texts(state, selector).flatMap((t) => moneyIn(t) ?? []);
}

// CEL's `==` on lists and `size()` on strings (code points), for the rules' checks.
export function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function size(text: string): number {
  return Array.from(text).length;
}

// Rules ---------------------------------------------------------------------------------------

// Thrown by `need` to say a rule does not apply on this page.
const NOT_APPLICABLE = new Error("not applicable");

export function need<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw NOT_APPLICABLE;
  return value;
}

function holds(check: () => boolean): boolean {
  try {
    return check();
  } catch (err) {
    if (err === NOT_APPLICABLE) return true;
    throw err;
  }
}

// An action in Windup's words: its kind, and the key of a press.
export type Move = { kind: string; key: string | null; name: string | null };

const KEYS: Record<number, string> = {
  8: "Backspace",
  9: "Tab",
  13: "Enter",
  27: "Escape",
  32: "Space",
  46: "Delete",
};

export function move(action: Action | null): Move {
  if (action === null) return { kind: "none", key: null, name: null };
  if (typeof action === "string") return { kind: action.toLowerCase(), key: null, name: null };
  if ("PressKey" in action) {
    return { kind: "press", key: KEYS[action.PressKey.code] ?? String(action.PressKey.code), name: null };
  }
  if ("Click" in action || "DoubleClick" in action) {
    const print = ("Click" in action ? action.Click : action.DoubleClick).fingerprint as Record<
      string,
      string | null
    >;
    return {
      kind: "Click" in action ? "click" : "double_click",
      key: null,
      // The trace writes the fingerprint's keys in snake case, the types in camel case.
      name: print.accessibleName ?? print.accessible_name ?? null,
    };
  }
  if ("TypeText" in action) return { kind: "type", key: null, name: null };
  return { kind: Object.keys(action)[0].toLowerCase(), key: null, name: null };
}

const lastAction = extract((state) => state.lastAction);

// A rule of every page.
export function invariant(check: () => boolean): Formula {
  return always(() => holds(check));
}

// A rule of every action: `check(before, after, action, previous)` with the page before and
// after it, the action, and the one before it (what led to `before`).
export function transition<P>(
  page: { current: P },
  check: (before: P, after: P, action: Move, previous: Move) => boolean,
): Formula {
  return always(
    now(() => {
      const before = page.current;
      const previous = move(lastAction.current);
      return next(() => holds(() => check(before, page.current, move(lastAction.current), previous)));
    }),
  );
}

// The generic rules both tools have -------------------------------------------------------------

// Windup's `no-uncaught-exception` is Bombadil's two default properties in one.
export const noUncaughtException: Formula = noUncaughtExceptions.and(noUnhandledPromiseRejections);

// Windup's `no-server-error`: the document or one of the page's own requests answered 5xx.
// Bombadil's default `noHttpErrorCodes` reads the document alone, and fails on 4xx too.
const serverErrors = extract((state) => {
  const origin = state.window.location.origin;
  return state.window.performance
    .getEntriesByType("navigation")
    .concat(state.window.performance.getEntriesByType("resource"))
    .filter((entry) => entry.entryType === "navigation" || entry.name.startsWith(origin))
    .map((entry) => (entry as PerformanceResourceTiming).responseStatus ?? 0)
    .filter((status) => status >= 500);
});

export const noServerError: Formula = invariant(() => serverErrors.current.length === 0);
