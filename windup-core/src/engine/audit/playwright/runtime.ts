// Windup's runtime for a rendered spec: the page is read by the same scripts Windup's own replay
// runs (the page-events observer and the observe script, embedded below), and a `holds` is
// checked as Windup checks it: values read through CSS selectors, money and numbers parsed as
// a person reads them, believed only on a page quiet for two looks in a row.

const OBSERVER: string = __OBSERVER__;
const OBSERVE: string = __OBSERVE__;
const QUIET_LOOKS = 2;
const TIMEOUT_MS = 5000;

type Probe = { selector: string; field: 'text' | 'value' };
type Failed = { method: string; url: string; status: number };
type Events = {
  errors: string[];
  console_errors: string[];
  dialogs: string[];
  failed_requests: Failed[];
  markers: string[];
};
type Seen = {
  url: string;
  title: string;
  status: number;
  found: string[][];
  events: Events;
  broken_texts: string[];
  negative_amounts: string[];
  pending?: number;
};
type Facts = { kind: string; target: string; value: string; key: string; url: string; typed: string[] };

/** A predicate that says nothing on this page: what it reads is missing or not a number. */
class NotApplicable extends Error {}

async function look(page: Page, probes: Probe[]): Promise<Seen> {
  const script = `(function () {\n${OBSERVE}\n}).apply(null, ${JSON.stringify([probes])})`;
  for (;;) {
    try {
      return (await page.evaluate(script)) as Seen;
    } catch (error) {
      // A look interrupted by a navigation is "not yet".
      if (!/navigat|destroyed|closed/i.test(String(error))) throw error;
      await page.waitForLoadState('load');
    }
  }
}

function noEvents(): Events {
  return { errors: [], console_errors: [], dialogs: [], failed_requests: [], markers: [] };
}

function absorb(into: Events, later: Events): void {
  into.errors.push(...later.errors);
  into.console_errors.push(...later.console_errors);
  into.dialogs.push(...later.dialogs);
  into.failed_requests.push(...later.failed_requests);
  into.markers.push(...later.markers);
}

/** The page before an action: looked at until it is quiet (its events drained). */
async function settled(page: Page, probes: Probe[]): Promise<Reader> {
  const deadline = Date.now() + TIMEOUT_MS;
  let quiet = 0;
  const events = noEvents();
  for (;;) {
    const seen = await look(page, probes);
    absorb(events, seen.events);
    quiet = (seen.pending ?? 0) === 0 ? quiet + 1 : 0;
    if (quiet >= QUIET_LOOKS || Date.now() >= deadline) return reader({ ...seen, events }, probes);
    await page.waitForTimeout(50);
  }
}

/**
 * Checks `predicate` after an action until it holds on a quiet page, or the deadline passes:
 * then the test fails with what the predicate read.
 */
async function holds(
  page: Page,
  source: string,
  probes: Probe[],
  before: Reader | null,
  action: Facts,
  predicate: (now: Reader, before: Reader, action: Facts) => unknown,
  timeoutMs: number = TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const events = noEvents();
  let quiet = 0;
  let why = '';
  for (;;) {
    const seen = await look(page, probes);
    absorb(events, seen.events);
    quiet = (seen.pending ?? 0) === 0 ? quiet + 1 : 0;
    const now = reader({ ...seen, events: structuredClone(events) }, probes);
    try {
      // A predicate that reads no `before` is given none.
      const value = predicate(now, before as Reader, action);
      if (value === true && quiet >= QUIET_LOOKS) return;
      if (value !== true && value !== false) throw new Error(`it gave ${JSON.stringify(value)}, not true or false`);
      const read = [...now.readings(), ...(before?.readings() ?? []).map((r) => `before.${r}`)];
      why = value ? 'it holds so far, but the page is not quiet yet' : `it is false: ${read.join('; ')}`;
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
      why = `it does not apply: ${error.message}`;
    }
    if (Date.now() >= deadline) break;
    await page.waitForTimeout(50);
  }
  expect(why, `expected holds ${JSON.stringify(source)}`).toBe('');
}

/** The values a predicate reads from one look at the page. */
type Reader = ReturnType<typeof reader>;

function reader(seen: Seen, probes: Probe[]) {
  const url = new URL(seen.url);
  const texts = (kind: string, selector: string): string[] => {
    const field = kind === 'input' || kind === 'inputs' ? 'value' : kind === 'focused' ? 'focus' : 'text';
    const at = probes.findIndex((p) => p.selector === selector && p.field === field);
    if (at < 0) throw new NotApplicable(`${JSON.stringify(selector)} was not read from the page`);
    return seen.found[at];
  };
  const read = (kind: string, selector: string): unknown => {
    const all = texts(kind, selector);
    const first = (): string => {
      if (all.length === 0) throw new NotApplicable(`nothing visible matches ${JSON.stringify(selector)} for ${kind}()`);
      return all[0];
    };
    const notA = (what: string, text: string) =>
      new NotApplicable(`the text of ${JSON.stringify(selector)} is not ${what}: ${JSON.stringify(text)}`);
    switch (kind) {
      case 'text':
      case 'input':
        return first();
      case 'texts':
      case 'inputs':
        return [...all];
      case 'count':
        return all.length;
      case 'visible':
        return all.length > 0;
      case 'focused':
        return all.some((held: unknown) => held === true);
      case 'number': {
        const n = parseNumber(first());
        if (n === null) throw notA('a number', first());
        return n;
      }
      case 'money': {
        const n = parseMoney(first());
        if (n === null) throw notA('an amount', first());
        return n;
      }
      case 'numbers':
        return all.map(parseNumber).filter((n) => n !== null);
      case 'moneys':
        return all.map(parseMoney).filter((n) => n !== null);
    }
    throw new Error(`no page-reading function ${kind}`);
  };
  const readings = new Set<string>();
  return {
    url: seen.url,
    path: url.pathname,
    hash: url.hash,
    title: seen.title,
    status: seen.status,
    errors: seen.events.errors,
    console_errors: seen.events.console_errors,
    dialogs: seen.events.dialogs,
    failed_requests: seen.events.failed_requests,
    markers: seen.events.markers,
    broken_texts: seen.broken_texts,
    negative_amounts: seen.negative_amounts.map((text) => parseMoney(text) ?? -1),
    read(kind: string, selector: string): unknown {
      const value = read(kind, selector);
      readings.add(`${kind}(${JSON.stringify(selector)}) = ${JSON.stringify(value)}`);
      return value;
    },
    readings(): string[] {
      return [...readings];
    },
  };
}

/**
 * A Windup URL glob: `*` stays within a path segment, `**` crosses them, `\` escapes. A pattern
 * with a scheme matches the whole URL; any other the path, or the path and query, on BASE_URL's
 * origin.
 */
function urlGlob(pattern: string): (url: URL) => boolean {
  const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) source += escape(pattern[++i]);
    else if (c === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else source += escape(c);
  }
  const glob = new RegExp(`^${source}$`);
  const base = new URL(BASE_URL);
  return (url) =>
    pattern.includes('://')
      ? glob.test(url.href)
      : url.origin === base.origin && (glob.test(url.pathname) || (url.search !== '' && glob.test(url.pathname + url.search)));
}

// Numbers and money as a person reads them, in either convention: `$1,234.50`, `1.234,50 €`.
const CURRENCY = '$€£¥₹₩₽₺₪¢';
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isSeparator = (c: string) => ['.', ',', ' ', '\u00a0', '\u202f', "'", '’'].includes(c);

function scan(text: string, accounting: boolean): { negative: boolean; whole: string; fraction: string } | null {
  const chars = Array.from(text);
  const start = chars.findIndex(isDigit);
  if (start < 0) return null;
  let end = start;
  while (end < chars.length) {
    const c = chars[end];
    const between = isSeparator(c) && isDigit(chars[end + 1]) && end > start;
    if (isDigit(c) || between) end += 1;
    else break;
  }
  const negative = isNegative(chars.slice(0, start), accounting ? chars[end] : undefined);
  const [whole, fraction] = splitDecimal(chars.slice(start, end).join(''));
  return { negative, whole: Array.from(whole).filter(isDigit).join(''), fraction };
}

function isNegative(before: string[], after: string | undefined): boolean {
  let at = before.length;
  while (at > 0 && (/\s/.test(before[at - 1]) || CURRENCY.includes(before[at - 1]))) at -= 1;
  while (at > 0 && before[at - 1] >= 'A' && before[at - 1] <= 'Z') at -= 1;
  if (at === 0) return false;
  const sign = before[at - 1];
  if (sign === '-' || sign === '−' || sign === '–') {
    const word = before[at - 2];
    return !(word !== undefined && /[\p{L}\p{N}]/u.test(word));
  }
  return sign === '(' && after === ')';
}

function splitDecimal(written: string): [string, string] {
  const dot = written.lastIndexOf('.');
  const comma = written.lastIndexOf(',');
  let at = -1;
  if (dot >= 0 && comma >= 0) at = Math.max(dot, comma);
  else if (dot >= 0 || comma >= 0) {
    const mark = dot >= 0 ? dot : comma;
    const after = Array.from(written.slice(mark + 1)).length;
    const marks = written.split(written[mark]).length - 1;
    if (marks === 1 && after !== 3) at = mark;
  }
  return at < 0 ? [written, ''] : [written.slice(0, at), written.slice(at + 1)];
}

function parseNumber(text: string): number | null {
  const found = scan(text, false);
  if (!found) return null;
  const value = Number(found.fraction ? `${found.whole}.${found.fraction}` : found.whole);
  return found.negative ? -value : value;
}

function parseMoney(text: string): number | null {
  const found = scan(text, true);
  if (!found) return null;
  const cents = Number(found.fraction.slice(0, 2).padEnd(2, '0'));
  const amount = Number(found.whole) * 100 + cents;
  return found.negative ? -amount : amount;
}

// CEL's operators and functions over JavaScript values, as a predicate's translation calls them.
const cel = {
  bool(value: unknown): boolean {
    if (typeof value !== 'boolean') throw new Error(`expected a bool, got ${JSON.stringify(value)}`);
    return value;
  },
  and(left: () => unknown, right: () => unknown): boolean {
    return cel.decide(left, right, false);
  },
  or(left: () => unknown, right: () => unknown): boolean {
    return cel.decide(left, right, true);
  },
  // CEL's `&&` (decided by a false side) and `||` (by a true one): a side that decides wins over
  // an error on the other, whichever comes first.
  decide(left: () => unknown, right: () => unknown, decides: boolean): boolean {
    let failure: unknown = null;
    for (const side of [left, right]) {
      try {
        if (cel.bool(side()) === decides) return decides;
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
    return !decides;
  },
  notStrictlyFalse(value: () => unknown): boolean {
    try {
      return value() !== false;
    } catch {
      return true;
    }
  },
  eq(a: unknown, b: unknown): boolean {
    if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => cel.eq(x, b[i]));
    if (a instanceof Map && b instanceof Map)
      return a.size === b.size && [...a].every(([k, v]) => b.has(k) && cel.eq(v, b.get(k)));
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      const ka = Object.keys(a);
      return ka.length === Object.keys(b).length && ka.every((k) => cel.eq((a as any)[k], (b as any)[k]));
    }
    return a === b;
  },
  compare(a: unknown, b: unknown): number {
    const kind = (x: unknown) => (typeof x === 'number' ? 'number' : typeof x);
    if (kind(a) !== kind(b) || !['number', 'string', 'boolean'].includes(kind(a)))
      throw new Error(`no such overload: ${JSON.stringify(a)} compared with ${JSON.stringify(b)}`);
    return (a as any) < (b as any) ? -1 : (a as any) > (b as any) ? 1 : 0;
  },
  add(a: unknown, b: unknown): unknown {
    if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'string')) return (a as any) + (b as any);
    throw new Error(`no such overload: ${JSON.stringify(a)} + ${JSON.stringify(b)}`);
  },
  num(value: unknown): number {
    if (typeof value !== 'number') throw new Error(`expected a number, got ${JSON.stringify(value)}`);
    return value;
  },
  // Whole numbers divide as CEL's integers do (JavaScript cannot tell 2 from 2.0).
  div(a: unknown, b: unknown): number {
    const [x, y] = [cel.num(a), cel.num(b)];
    if (Number.isInteger(x) && Number.isInteger(y)) {
      if (y === 0) throw new Error('divide by zero');
      return Math.trunc(x / y);
    }
    return x / y;
  },
  mod(a: unknown, b: unknown): number {
    const [x, y] = [cel.num(a), cel.num(b)];
    if (y === 0) throw new Error('modulus by zero');
    return x % y;
  },
  index(collection: unknown, key: unknown): unknown {
    if (Array.isArray(collection)) {
      const at = cel.num(key);
      if (at < 0 || at >= collection.length) throw new Error(`index out of bounds: ${at}`);
      return collection[at];
    }
    return cel.select(collection, key);
  },
  select(value: unknown, field: unknown): unknown {
    if (value instanceof Map) {
      if (!value.has(field)) throw new Error(`no such key: ${String(field)}`);
      return value.get(field);
    }
    if (value && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, String(field)))
      return (value as any)[String(field)];
    throw new Error(`no such key: ${String(field)}`);
  },
  has(value: unknown, field: string): boolean {
    if (value instanceof Map) return value.has(field);
    return !!value && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, field);
  },
  in(item: unknown, collection: unknown): boolean {
    if (Array.isArray(collection)) return collection.some((x) => cel.eq(x, item));
    if (collection instanceof Map) return collection.has(item);
    if (collection && typeof collection === 'object') return Object.prototype.hasOwnProperty.call(collection, String(item));
    throw new Error(`no such overload: in ${JSON.stringify(collection)}`);
  },
  items(range: unknown): unknown[] {
    if (Array.isArray(range)) return range;
    if (range instanceof Map) return [...range.keys()];
    if (range && typeof range === 'object') return Object.keys(range);
    throw new Error(`cannot iterate over ${JSON.stringify(range)}`);
  },
  map(entries: [unknown, unknown][]): Map<unknown, unknown> {
    return new Map(entries);
  },
  size(value: unknown): number {
    if (typeof value === 'string') return Array.from(value).length;
    if (Array.isArray(value)) return value.length;
    if (value instanceof Map) return value.size;
    if (value && typeof value === 'object') return Object.keys(value).length;
    throw new Error(`no such overload: size(${JSON.stringify(value)})`);
  },
  str(value: unknown): string {
    if (typeof value !== 'string') throw new Error(`expected a string, got ${JSON.stringify(value)}`);
    return value;
  },
  int(value: unknown): number {
    if (typeof value === 'string') {
      if (!/^[+-]?\d+$/.test(value.trim())) throw new Error(`cannot convert ${JSON.stringify(value)} to int`);
      return Number(value);
    }
    return Math.trunc(cel.num(value));
  },
  double(value: unknown): number {
    const n = typeof value === 'string' ? Number(value) : cel.num(value);
    if (Number.isNaN(n)) throw new Error(`cannot convert ${JSON.stringify(value)} to double`);
    return n;
  },
  string(value: unknown): string {
    return typeof value === 'string' ? value : String(value);
  },
  sum(list: unknown): number {
    if (!Array.isArray(list)) throw new Error(`sum adds a list, not ${JSON.stringify(list)}`);
    return list.reduce((total: number, x) => total + cel.num(x), 0);
  },
  max(...values: unknown[]): number {
    const all = values.length === 1 && Array.isArray(values[0]) ? values[0] : values;
    return Math.max(...all.map(cel.num));
  },
  min(...values: unknown[]): number {
    const all = values.length === 1 && Array.isArray(values[0]) ? values[0] : values;
    return Math.min(...all.map(cel.num));
  },
};
