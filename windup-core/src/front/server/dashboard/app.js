// The dashboard of `cargo windup serve`: a projection of an audit's event stream and its stored
// report, nothing more. Preact + htm, vendored, so there is no build step and no CDN (the CSP
// allows only this server's own scripts).
import {
  html,
  render,
  useState,
  useEffect,
  useLayoutEffect,
  useRef,
  useReducer,
  useMemo,
  useCallback,
} from './preact-htm.js';

// ---------------------------------------------------------------------------------------------
// The API
// ---------------------------------------------------------------------------------------------

// sessionStorage, so the token dies with the tab and is never written to disk by the page.
const TOKEN_KEY = 'windup.token';

const auth = {
  token: () => sessionStorage.getItem(TOKEN_KEY) || '',
  set: (token) => sessionStorage.setItem(TOKEN_KEY, token),
  // Whoever shows the token form listens here: any call may be the first to get a 401.
  listeners: new Set(),
  wanted() {
    for (const listener of this.listeners) listener();
  },
};

class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
}

// One call of the API: JSON in and out, errors as the server words them.
async function api(path, { method = 'GET', body, as = 'json' } = {}) {
  const headers = {};
  const token = auth.token();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'unreachable', `The server did not answer (${err.message}).`);
  }
  if (!response.ok) {
    let error = { code: `http_${response.status}`, message: `${response.status} ${response.statusText}` };
    try {
      const json = await response.json();
      if (json && json.error) error = json.error;
    } catch {
      // Not JSON (a proxy's page): the status line says enough.
    }
    if (response.status === 401) auth.wanted();
    throw new ApiError(response.status, error.code, error.message, error.field);
  }
  if (as === 'text') return response.text();
  if (as === 'blob') return response.blob();
  return response.json();
}

const runPath = (runId) => `/audit/${encodeURIComponent(runId)}`;

// Events name files by their path on the server's disk; the server serves them by base name.
const fileUrl = (runId, path) => `${runPath(runId)}/files/${encodeURIComponent(baseName(path))}`;

const baseName = (path) => String(path || '').split(/[\\/]/).pop();

// ---------------------------------------------------------------------------------------------
// Formatting
// ---------------------------------------------------------------------------------------------

const TERMINAL = new Set(['done', 'stopped', 'interrupted', 'failed']);

function formatDate(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso || '—' : date.toLocaleString();
}

function formatClock(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour12: false });
}

function formatDuration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

// The budget as events and reports carry it: `time` in milliseconds.
function formatBudget(budget) {
  if (!budget) return '—';
  const parts = [];
  if (budget.time !== undefined) parts.push(`${Math.round(budget.time / 1000)} s`);
  if (budget.steps !== undefined) parts.push(`${budget.steps} steps`);
  if (budget.pages !== undefined) parts.push(`${budget.pages} pages`);
  return parts.join(', ');
}

const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------------------------------------
// Routing: the hash, so a reload keeps the page and the server needs one route for all
// ---------------------------------------------------------------------------------------------

function parseRoute(hash) {
  const match = /^#\/audit\/([^/?#]+)/.exec(hash);
  return match ? { page: 'audit', runId: decodeURIComponent(match[1]) } : { page: 'home' };
}

function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return parseRoute(hash);
}

// ---------------------------------------------------------------------------------------------
// One run's state: a reducer over its events, plus the last report fetched
// ---------------------------------------------------------------------------------------------

// Events after which the store holds something new the stream does not carry (store ids,
// tests' downloads, the final status): the report is fetched again.
const REFETCH_AFTER = new Set(['finding', 'test', 'done', 'failed']);

function initialRun(runId) {
  return {
    runId,
    report: null,
    reportError: null,
    seq: 0, // the last seq applied: no event is applied twice
    count: 0,
    status: null, // as the stream tells it; null before its first event
    phase: null,
    started: null, // the audit_started event
    done: null, // the done event
    feed: [],
    frames: [],
    invariants: [],
    findings: [], // { key: fingerprint, finding } as the stream tells them
    tests: {}, // stream finding id → frameworks written
    code: null, // { reached, edges, scripts, series: [[at_ms, reached]] } from coverage events
  };
}

function reduceRun(state, message) {
  switch (message.type) {
    case 'report':
      return { ...state, report: message.report, reportError: null };
    case 'report-error':
      return { ...state, reportError: message.error };
    case 'events':
      return applyEvents(state, message.events);
    default:
      return state;
  }
}

// Applies a batch at once: a replay of thousands of events is one render, not thousands.
function applyEvents(state, events) {
  const next = {
    ...state,
    feed: state.feed.slice(),
    frames: state.frames.slice(),
    invariants: state.invariants.slice(),
    findings: state.findings.slice(),
    tests: { ...state.tests },
  };
  for (const event of events) {
    if (typeof event.seq !== 'number' || event.seq <= next.seq) continue;
    next.seq = event.seq;
    next.count += 1;
    if (next.status === null) next.status = 'queued';
    applyEvent(next, event);
  }
  return next;
}

function applyEvent(next, event) {
  const item = { key: event.seq, seq: event.seq, at: event.at };
  switch (event.event) {
    case 'reason':
      next.feed.push({ ...item, kind: 'reason', text: event.text });
      break;
    case 'audit_started':
      next.status = 'running';
      next.started = event;
      break;
    case 'phase':
      next.phase = event.phase;
      next.feed.push({ ...item, kind: 'phase', phase: event.phase });
      break;
    case 'invariant':
      upsertInvariant(next.invariants, invariantRow(event.invariant, event.status, event.finding || event.error));
      break;
    case 'action':
      addAction(next, event, item);
      break;
    case 'finding': {
      const finding = event.finding || {};
      const key = finding.fingerprint || finding.id;
      if (!next.findings.some((f) => f.key === key)) next.findings.push({ key, finding });
      markViolated(next.invariants, finding.invariant_id, finding.id);
      next.feed.push({ ...item, kind: 'finding', title: finding.title, severity: finding.severity });
      break;
    }
    case 'test':
      next.tests[event.finding] = [...(next.tests[event.finding] || []), event.framework];
      next.feed.push({ ...item, kind: 'test', framework: event.framework, file: baseName(event.path) });
      break;
    case 'model_call':
      next.feed.push({ ...item, kind: 'model', call: event.call || {}, cost: event.cost_usd });
      break;
    case 'warning':
      next.feed.push({ ...item, kind: 'warning', text: event.message });
      break;
    case 'coverage': {
      const series = next.code ? next.code.series : [];
      next.code = { reached: event.reached, edges: event.edges, scripts: event.scripts, series: [...series, [event.at_ms, event.reached]] };
      break;
    }
    case 'done':
      next.status = event.status;
      next.done = event;
      if (event.code && !event.code.off) {
        const series = event.code.over_time || [];
        next.code = { reached: event.code.reached, edges: event.code.edges, scripts: event.code.scripts, series };
      } else if (event.code && event.code.off) {
        next.code = { off: event.code.off };
      }
      next.feed.push({ ...item, kind: 'done', done: event });
      break;
    case 'failed':
      next.status = 'failed';
      next.feed.push({ ...item, kind: 'failed', text: event.message });
      break;
    default:
      // An event this page does not know yet: counted, not shown.
      break;
  }
}

// Consecutive actions of one attack share a feed line: the attack's label, then its steps.
function addAction(next, event, item) {
  const action = event.action || {};
  const step = event.step || [action.kind, action.selector].filter(Boolean).join(' ');
  if (event.screenshot) {
    next.frames.push({
      seq: event.seq,
      src: fileUrl(next.runId, event.screenshot),
      name: baseName(event.screenshot),
      step,
      label: event.label,
    });
  }
  const entry = { seq: event.seq, step, frame: Boolean(event.screenshot) };
  const last = next.feed[next.feed.length - 1];
  if (last && last.kind === 'actions' && last.label === event.label) {
    next.feed[next.feed.length - 1] = { ...last, steps: [...last.steps, entry] };
  } else {
    next.feed.push({ ...item, kind: 'actions', label: event.label, steps: [entry] });
  }
}

function invariantRow(invariant, status, detail) {
  return {
    id: invariant.id,
    statement: invariant.statement,
    severity: invariant.severity,
    source: invariant.source,
    status,
    detail: detail || null,
  };
}

function upsertInvariant(rows, row) {
  const at = rows.findIndex((r) => r.id === row.id);
  if (at === -1) rows.push(row);
  else rows[at] = row;
}

function markViolated(rows, invariantId, findingId) {
  const at = rows.findIndex((r) => r.id === invariantId);
  if (at !== -1 && rows[at].status === 'unbroken') {
    rows[at] = { ...rows[at], status: 'violated', detail: findingId };
  }
}

// The status word: the stream's while the run goes, the store's once it has ended (a run whose
// process died never streams a `done`, but the store says `interrupted`).
function runStatus(state) {
  if (TERMINAL.has(state.status)) return state.status;
  const stored = state.report && state.report.status;
  if (TERMINAL.has(stored)) return stored;
  return state.status || stored || 'queued';
}

// Findings as the stream tells them, matched to the store's by fingerprint for their store id,
// tests and screenshots' addresses; the store's alone (a stream not read yet) come after.
function findingCards(state) {
  const stored = (state.report && Array.isArray(state.report.findings) && state.report.findings) || [];
  const used = new Set();
  const cards = state.findings.map(({ key, finding }) => {
    const match = stored.find((f) => !used.has(f.id) && f.fingerprint === finding.fingerprint);
    if (match) used.add(match.id);
    return findingCard(state, key, finding, match);
  });
  // Keyed by fingerprint either way, so a drawer opened before the stream caught up stays open.
  const keys = new Set(cards.map((c) => c.key));
  for (const f of stored) {
    if (used.has(f.id)) continue;
    const key = f.fingerprint && !keys.has(f.fingerprint) ? f.fingerprint : `stored:${f.id}`;
    keys.add(key);
    cards.push(findingCard(state, key, null, f));
  }
  return cards;
}

function findingCard(state, key, live, stored) {
  const source = stored || live;
  return {
    key,
    title: source.title,
    severity: source.severity,
    invariantId: source.invariant_id,
    expected: source.expected,
    actual: source.actual,
    impact: source.impact,
    steps: Array.isArray(source.steps) ? source.steps : [],
    screenshots: stored
      ? stored.screenshots || []
      : (live.screenshots || []).map((path) => fileUrl(state.runId, path)),
    tests: (stored && stored.tests) || [],
    storeId: stored ? stored.id : null,
    streamId: live ? live.id : null,
  };
}

// The stream's invariants; the store's verdicts win once the run has ended and stored them.
function invariantRows(state, cards) {
  const rows = state.invariants.slice();
  const stored = (state.report && state.report.invariants) || [];
  for (const item of stored) {
    const status = item.status || {};
    upsertInvariant(rows, invariantRow(item.invariant, status.status, status.finding || status.error));
  }
  for (const card of cards) markViolated(rows, card.invariantId, card.storeId || card.streamId);
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Data hooks
// ---------------------------------------------------------------------------------------------

// The run's report, fetched now and again on demand; calls while one is in flight fold into
// one more, so a burst of findings costs two fetches, not fifty.
function useReport(runId, dispatch) {
  const flags = useRef({ busy: false, again: false, live: true });
  const refresh = useCallback(async () => {
    const f = flags.current;
    if (f.busy) {
      f.again = true;
      return;
    }
    f.busy = true;
    do {
      f.again = false;
      try {
        const report = await api(runPath(runId));
        if (f.live) dispatch({ type: 'report', report });
      } catch (error) {
        if (f.live) dispatch({ type: 'report-error', error });
      }
    } while (f.again && f.live);
    f.busy = false;
  }, [runId, dispatch]);
  useEffect(() => {
    flags.current.live = true;
    refresh();
    return () => {
      flags.current.live = false;
    };
  }, [refresh]);
  return refresh;
}

// The run's event stream: from seq 0 on open, from the last seq seen after any close that
// leaves the run unfinished (a dropped connection, or a server that stopped and came back).
function useStream(runId, dispatch, refresh, gone) {
  const [state, setState] = useState('connecting');
  useEffect(() => {
    let socket = null;
    let retry = null;
    let flushing = null;
    let stopped = false;
    let last = 0;
    let delay = 500;
    let buffer = [];

    const flush = () => {
      flushing = null;
      const events = buffer;
      buffer = [];
      dispatch({ type: 'events', events });
      if (events.some((e) => REFETCH_AFTER.has(e.event))) refresh();
    };

    // A normal close means the run is over, or the server is stopping: the store tells which.
    const isOver = async () => {
      try {
        const report = await api(runPath(runId));
        if (!stopped) dispatch({ type: 'report', report });
        return TERMINAL.has(report.status);
      } catch {
        return false;
      }
    };

    const connect = () => {
      const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
      const url = `${scheme}//${location.host}${runPath(runId)}/stream?after=${last}`;
      const token = auth.token();
      // A browser cannot set headers on a WebSocket: the token rides as a subprotocol.
      const protocols = token ? ['windup.v1', `windup.bearer.${token}`] : ['windup.v1'];
      try {
        socket = new WebSocket(url, protocols);
      } catch (err) {
        setState('failed');
        return;
      }
      socket.onopen = () => setState('live');
      socket.onmessage = (message) => {
        let event;
        try {
          event = JSON.parse(message.data);
        } catch {
          return;
        }
        if (typeof event.seq !== 'number' || event.seq <= last) return;
        last = event.seq;
        delay = 500;
        buffer.push(event);
        if (!flushing) flushing = setTimeout(flush, 40);
      };
      socket.onclose = async (close) => {
        socket = null;
        if (stopped) return;
        if (close.code === 1000 && (await isOver())) {
          setState('ended');
          return;
        }
        if (stopped) return;
        if (gone.current) {
          setState('failed');
          return;
        }
        setState('reconnecting');
        retry = setTimeout(connect, delay);
        delay = Math.min(delay * 2, 3000);
      };
    };

    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      clearTimeout(flushing);
      if (socket) socket.close(1000);
    };
  }, [runId, dispatch, refresh, gone]);
  return state;
}

// A test's code, fetched once per address and kept: switching tabs back and forth is instant.
const texts = new Map();

function loadText(url) {
  if (!texts.has(url)) {
    texts.set(
      url,
      api(url, { as: 'text' }).then(
        (text) => ({ text }),
        (error) => {
          texts.delete(url);
          return { error: error.message };
        },
      ),
    );
  }
  return texts.get(url);
}

function useText(url) {
  const [result, setResult] = useState(null);
  useEffect(() => {
    if (!url) return undefined;
    let live = true;
    loadText(url).then((r) => live && setResult({ url, ...r }));
    return () => {
      live = false;
    };
  }, [url]);
  return result && result.url === url ? result : null;
}

// An <img> or a download link cannot send the token's header: with a token, files are fetched
// with it and shown as data: URLs (the CSP allows data: images). Without one, plain addresses.
const images = new Map();

function loadImage(src) {
  if (!images.has(src)) {
    const read = api(src, { as: 'blob' }).then(
      (blob) =>
        new Promise((resolve) => {
          const reader = new FileReader();
          reader.onload = () => resolve(reader.result);
          reader.onerror = () => resolve(null);
          reader.readAsDataURL(blob);
        }),
      () => null,
    );
    images.set(src, read);
    // Bounded: a long run has hundreds of frames, the page shows a dozen.
    if (images.size > 64) images.delete(images.keys().next().value);
  }
  return images.get(src);
}

function useImage(src) {
  const token = auth.token();
  const [loaded, setLoaded] = useState(null);
  useEffect(() => {
    if (!token || !src) return undefined;
    let live = true;
    loadImage(src).then((url) => live && setLoaded({ src, url }));
    return () => {
      live = false;
    };
  }, [src, token]);
  if (!token) return src;
  return loaded && loaded.src === src && loaded.url ? loaded.url : undefined;
}

function Img({ src, ...props }) {
  return html`<img src=${useImage(src)} ...${props} />`;
}

async function downloadWithToken(event, test) {
  if (!auth.token()) return;
  event.preventDefault();
  const got = await loadText(test.download);
  if (got.error) return;
  const link = document.createElement('a');
  link.href = `data:text/plain;charset=utf-8,${encodeURIComponent(got.text)}`;
  link.download = baseName(test.filename);
  document.body.append(link);
  link.click();
  link.remove();
}

// ---------------------------------------------------------------------------------------------
// Small pieces
// ---------------------------------------------------------------------------------------------

function Severity({ level, id }) {
  return html`<span class=${`chip sev-${level || 'unknown'}`} id=${id}>${level || '?'}</span>`;
}

function StatusBadge({ status, testid }) {
  return html`<span class=${`badge status-${status}`} data-testid=${testid}>${status}</span>`;
}

// ---------------------------------------------------------------------------------------------
// The landing page: start an audit, see the others
// ---------------------------------------------------------------------------------------------

function Landing() {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    let live = true;
    let timer = null;
    const load = async () => {
      try {
        const answer = await api('/audits');
        if (live) {
          setData(answer);
          setError(null);
        }
      } catch (err) {
        if (live) setError(err);
      }
      // Polled, not streamed: the API has no stream of the run list.
      if (live) timer = setTimeout(load, 3000);
    };
    load();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, []);
  useEffect(() => {
    document.title = 'Audits · Windup';
  }, []);
  return html`
    <div class="landing">
      <${StartForm} targets=${data && data.targets} />
      <${History} audits=${data && data.audits} error=${error} />
    </div>
  `;
}

// Which input a server error's `field` is about.
const FIELD_INPUT = {
  target_url: 'target',
  seed: 'seed',
  'budget.steps': 'steps',
  'budget.time_s': 'time',
};

function StartForm({ targets }) {
  const [fields, setFields] = useState({ target: '', seed: '', steps: '', time: '' });
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const typed = useRef(false);

  // Prefilled once the server says what it may audit, unless the person typed already.
  useEffect(() => {
    if (!typed.current && targets && targets.length) {
      setFields((f) => (f.target ? f : { ...f, target: `${targets[0]}/` }));
    }
  }, [targets]);

  const edit = (name) => (event) => {
    if (name === 'target') typed.current = true;
    const value = event.currentTarget.value;
    setFields((f) => ({ ...f, [name]: value }));
  };

  const submit = async (event) => {
    event.preventDefault();
    // Read from the inputs themselves: a submit right after typing may beat the re-render.
    const value = (name) => event.currentTarget.elements[name].value.trim();
    // Empty means the server's default; every value is checked by the server, not here.
    const body = { target_url: value('target') };
    if (value('seed') !== '') body.seed = Number(value('seed'));
    const budget = {};
    if (value('steps') !== '') budget.steps = Number(value('steps'));
    if (value('time') !== '') budget.time_s = Number(value('time'));
    if (Object.keys(budget).length) body.budget = budget;
    setBusy(true);
    setError(null);
    try {
      const started = await api('/audit', { method: 'POST', body });
      location.hash = `#/audit/${encodeURIComponent(started.run_id)}`;
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const invalid = (name) => (error && FIELD_INPUT[error.field] === name ? 'true' : 'false');
  const input = (name, label, props) => html`
    <div class=${`field field-${name}`}>
      <label for=${`start-${name}`}>${label}</label>
      <input
        id=${`start-${name}`}
        name=${name}
        value=${fields[name]}
        onInput=${edit(name)}
        aria-invalid=${invalid(name)}
        aria-describedby=${error ? 'start-error' : undefined}
        ...${props}
      />
    </div>
  `;

  return html`
    <section class="panel start-panel" aria-labelledby="start-heading">
      <h2 id="start-heading">Start an audit</h2>
      <form data-testid="start-form" class="start-form" onSubmit=${submit} novalidate>
        ${input('target', 'Target URL', {
          type: 'text',
          inputmode: 'url',
          autocomplete: 'off',
          spellcheck: false,
          placeholder: 'http://127.0.0.1:4000/',
        })}
        ${input('seed', 'Seed', { type: 'number', step: '1', placeholder: 'default' })}
        ${input('steps', 'Steps', { type: 'number', step: '1', placeholder: 'default' })}
        ${input('time', 'Time (s)', { type: 'number', step: '1', placeholder: 'default' })}
        <div class="actions">
          <button type="submit" class="primary" disabled=${busy}>Start audit</button>
        </div>
      </form>
      ${error &&
      html`<p class="error" id="start-error" role="alert" data-testid="start-error">
        ${error.message}${error.field ? html` <span class="field-name">(field: <code>${error.field}</code>)</span>` : ''}
      </p>`}
      ${targets &&
      html`<p class="hint">This server may audit: ${targets.length ? targets.join(', ') : 'no origin'}.</p>`}
    </section>
  `;
}

function History({ audits, error }) {
  return html`
    <section class="panel history-panel" aria-labelledby="history-heading">
      <h2 id="history-heading">Audits</h2>
      ${error && html`<p class="error" role="alert">${error.message}</p>`}
      <table data-testid="history" class="history">
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col">Phase</th>
            <th scope="col" class="num">Findings</th>
            <th scope="col">Started</th>
            <th scope="col" class="num">Runtime</th>
          </tr>
        </thead>
        <tbody>
          ${(audits || []).map(
            (a) => html`
              <tr data-testid="history-row" key=${a.run_id}>
                <td><a href=${`#/audit/${encodeURIComponent(a.run_id)}`}>${a.run_id}</a></td>
                <td><code>${a.target_url}</code></td>
                <td><${StatusBadge} status=${a.status} /></td>
                <td>${a.phase}</td>
                <td class="num">${a.findings}</td>
                <td>${formatDate(a.started_at)}</td>
                <td class="num">${formatDuration(a.runtime_ms)}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
      ${audits && audits.length === 0 && html`<p class="empty">No audit yet: start one above.</p>`}
      ${!audits && !error && html`<p class="empty">Loading…</p>`}
    </section>
  `;
}

// ---------------------------------------------------------------------------------------------
// The workspace of one run
// ---------------------------------------------------------------------------------------------

function Workspace({ runId }) {
  const [state, dispatch] = useReducer(reduceRun, runId, initialRun);
  const gone = useRef(false);
  gone.current = Boolean(state.reportError && state.reportError.status === 404);
  const refresh = useReport(runId, dispatch);
  const stream = useStream(runId, dispatch, refresh, gone);

  const cards = useMemo(() => findingCards(state), [state.findings, state.report, state.runId]);
  const invariants = useMemo(
    () => invariantRows(state, cards),
    [state.invariants, state.report, cards],
  );
  const status = runStatus(state);

  const [openKey, setOpenKey] = useState(null);
  const opener = useRef(null);
  const open = useCallback((key, button) => {
    opener.current = button;
    setOpenKey(key);
  }, []);
  const close = useCallback(() => {
    setOpenKey(null);
    // Focus goes back to the finding that opened the drawer, for keyboard users.
    const back = opener.current;
    if (back && back.isConnected) setTimeout(() => back.focus(), 0);
  }, []);
  const openCard = openKey && cards.find((c) => c.key === openKey);

  useEffect(() => {
    document.title = `${runId} · ${status} · Windup`;
  }, [runId, status]);

  return html`
    <div class="workspace">
      <${RunHeader} state=${state} status=${status} stream=${stream} refresh=${refresh} />
      ${state.reportError &&
      html`<p class="error banner" role="alert">${state.reportError.message}</p>`}
      <div class="grid">
        <${Feed} items=${state.feed} />
        <${Preview} frames=${state.frames} />
        <div class="side">
          <${Invariants} rows=${invariants} />
          <${Findings} cards=${cards} onOpen=${open} openKey=${openKey} />
        </div>
      </div>
      ${openCard && html`<${FindingDrawer} card=${openCard} onClose=${close} refresh=${refresh} />`}
    </div>
  `;
}

const STREAM_WORDS = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'stream ended',
  failed: 'no stream',
};

function RunHeader({ state, status, stream, refresh }) {
  const { runId, report, started, done } = state;
  const phase = state.phase || (report && report.phase) || '—';
  const count = Math.max(state.count, (report && report.events) || 0);
  const target = (started && started.target) || (report && report.target_url) || '—';
  const seed = started ? started.seed : report && report.seed;
  const budget = (started && started.budget) || (report && report.budget);
  const runtime = done ? done.runtime_ms : report && report.runtime_ms;
  return html`
    <section class="run-head" aria-label="Audit">
      <div class="run-line">
        <a href="#/" class="back">All audits</a>
        <h1>${runId}</h1>
        <${StatusBadge} status=${status} testid="run-status" />
        <span class="meta-item">Phase <strong data-testid="run-phase">${phase}</strong></span>
        <span class="meta-item" data-testid="event-count">${plural(count, 'event', 'events')}</span>
        <span class=${`meta-item stream stream-${stream}`} data-testid="stream-state">${STREAM_WORDS[stream]}</span>
        <span class="spacer"></span>
        <${StopButton} runId=${runId} status=${status} refresh=${refresh} />
      </div>
      <p class="run-meta">
        <span>Target <code data-testid="run-target">${target}</code></span>
        <span>Seed ${seed === undefined || seed === null ? '—' : seed}</span>
        <span>Budget ${formatBudget(budget)}</span>
        ${report && html`<span>Started ${formatDate(report.started_at)}</span>`}
        <span>Runtime ${formatDuration(runtime)}</span>
        ${done &&
        html`<span>${plural(done.actions, 'action', 'actions')}, ${plural(done.attacks, 'attack', 'attacks')}, ${plural(done.pages_explored, 'page', 'pages')} explored</span>`}
        <${CodeReached} code=${state.code} />
      </p>
    </section>
  `;
}

// How much of the app's code the audit reached, with its curve over the audit's time.
function CodeReached({ code }) {
  if (!code) return null;
  if (code.off) return html`<span data-testid="code-reached">Code not counted: ${code.off}</span>`;
  const series = code.series || [];
  const last = series.length ? series[series.length - 1][0] : 0;
  const width = 120;
  const height = 18;
  const points = series
    .map(([at, reached]) => `${last ? ((at / last) * width).toFixed(1) : 0},${(height - (code.edges ? (reached / code.edges) * height : 0)).toFixed(1)}`)
    .join(' ');
  const share = code.edges ? ` (${((100 * code.reached) / code.edges).toFixed(1)}%)` : '';
  return html`<span data-testid="code-reached"
    >Code reached <strong>${code.reached}</strong> of ${plural(code.edges, 'edge', 'edges')}${share}
    ${series.length > 1 &&
    html`<svg class="code-curve" width=${width} height=${height} role="img" aria-label="Edges reached over time"
      ><polyline points=${points} fill="none" stroke="currentColor"
    /></svg>`}</span
  >`;
}

function StopButton({ runId, status, refresh }) {
  const [stopping, setStopping] = useState(false);
  const [error, setError] = useState(null);
  if (status !== 'queued' && status !== 'running') return null;
  const stop = async () => {
    setStopping(true);
    setError(null);
    try {
      await api(`${runPath(runId)}/stop`, { method: 'POST' });
      // A queued run stops at once and streams nothing more: the store says it.
      refresh();
    } catch (err) {
      setStopping(false);
      setError(err.message);
    }
  };
  return html`
    <span class="stop-wrap">
      <button type="button" class="danger" onClick=${stop} disabled=${stopping}>
        ${stopping ? 'Stopping…' : 'Stop audit'}
      </button>
      ${error && html`<span class="error inline" role="alert">${error}</span>`}
    </span>
  `;
}

// ---------------------------------------------------------------------------------------------
// The agent feed
// ---------------------------------------------------------------------------------------------

function Feed({ items }) {
  const box = useRef(null);
  // Follows the newest line unless the person scrolled up to read.
  const stick = useRef(true);
  const last = items[items.length - 1];
  const tail = last ? `${last.key}:${last.steps ? last.steps.length : 0}` : '';
  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [tail]);
  const scrolled = () => {
    const el = box.current;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
  };
  return html`
    <section class="panel feed-panel" aria-labelledby="feed-heading">
      <h2 id="feed-heading">Agent feed</h2>
      <div class="scroll feed-scroll" ref=${box} onScroll=${scrolled} role="log" aria-labelledby="feed-heading" tabindex="0">
        <ol data-testid="feed" class="feed">
          ${items.map((item) => html`<${FeedItem} key=${item.key} item=${item} />`)}
        </ol>
        ${items.length === 0 && html`<p class="empty">Waiting for the audit's first event…</p>`}
      </div>
    </section>
  `;
}

function FeedItem({ item }) {
  const time = html`<time datetime=${item.at}>${formatClock(item.at)}</time>`;
  const line = (kind, body) => html`
    <li data-testid="feed-item" class=${`fi fi-${kind}`} data-seq=${item.seq}>${time}<div class="fi-body">${body}</div></li>
  `;
  switch (item.kind) {
    case 'reason':
      return line('reason', item.text);
    case 'phase':
      return html`<li data-testid="feed-item" class="fi fi-phase" data-seq=${item.seq}>
        <span class="phase-name">Phase: ${item.phase}</span>
      </li>`;
    case 'actions':
      return line(
        'actions',
        html`<p class="fi-label">${item.label}</p>
          <ol class="fi-steps">
            ${item.steps.map(
              (s) => html`<li key=${s.seq} class=${s.frame ? 'has-frame' : ''}>${s.step}</li>`,
            )}
          </ol>`,
      );
    case 'finding':
      return line(
        'finding',
        html`<${Severity} level=${item.severity} /> <strong>Finding:</strong> ${item.title}`,
      );
    case 'test':
      return line('test', html`Regression test written (${item.framework}): <code>${item.file}</code>`);
    case 'model':
      return line(
        'model',
        `Model call (${item.call.purpose || 'model'}, ${item.call.model || '?'}): ${item.call.input_tokens ?? '?'} in, ${item.call.output_tokens ?? '?'} out, ${item.call.latency_ms ?? '?'} ms${item.call.failure ? ` — ${item.call.failure}` : ''}`,
      );
    case 'warning':
      return line('warning', html`<strong>Warning:</strong> ${item.text}`);
    case 'failed':
      return line('failed', html`<strong>Failed:</strong> ${item.text}`);
    case 'done': {
      const d = item.done;
      const word = d.status === 'stopped' ? 'Stopped' : 'Done';
      return line(
        'done',
        html`<strong>${word}</strong> after ${formatDuration(d.runtime_ms)}: ${plural(d.findings, 'finding', 'findings')}, ${plural(d.actions, 'action', 'actions')}, ${plural(d.attacks, 'attack', 'attacks')}, ${plural(d.pages_explored, 'page', 'pages')} explored${d.unconfirmed ? `, ${d.unconfirmed} unconfirmed` : ''}${d.stopped_by ? ` (ended by: ${d.stopped_by})` : ''}.`,
      );
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------------------------------------
// The browser preview and its filmstrip
// ---------------------------------------------------------------------------------------------

const STRIP = 12;

function Preview({ frames }) {
  // A frame picked in the filmstrip; null follows the newest.
  const [picked, setPicked] = useState(null);
  const current = (picked !== null && frames.find((f) => f.seq === picked)) || frames[frames.length - 1];
  const first = Math.max(0, frames.length - STRIP);
  const strip = frames.slice(first);
  return html`
    <section class="panel preview-panel" aria-labelledby="preview-heading">
      <div class="panel-head">
        <h2 id="preview-heading">Browser</h2>
        ${picked !== null &&
        html`<button type="button" class="quiet" onClick=${() => setPicked(null)}>Follow live</button>`}
      </div>
      <div class="screen">
        ${current
          ? html`<${Img} data-testid="preview" alt="The browser now" src=${current.src} />`
          : html`<p class="empty">No frame yet: frames appear as the audit acts in the browser.</p>`}
      </div>
      ${current &&
      html`<p class="caption"><strong>${current.step}</strong> <span>· ${current.label}</span></p>`}
      <ol data-testid="filmstrip" class="filmstrip" aria-label="Recent frames">
        ${strip.map(
          (f, i) => html`
            <li key=${f.seq}>
              <button
                type="button"
                class=${current && current.seq === f.seq ? 'frame current' : 'frame'}
                aria-label=${`Frame ${first + i + 1}: ${f.step}`}
                aria-pressed=${current && current.seq === f.seq ? 'true' : 'false'}
                onClick=${() => setPicked(f.seq === frames[frames.length - 1].seq ? null : f.seq)}
              >
                <${Img} alt="" src=${f.src} loading="lazy" />
              </button>
            </li>
          `,
        )}
      </ol>
    </section>
  `;
}

// ---------------------------------------------------------------------------------------------
// Invariants and findings
// ---------------------------------------------------------------------------------------------

function Invariants({ rows }) {
  return html`
    <section class="panel invariants-panel" data-testid="invariants" aria-labelledby="invariants-heading">
      <h2 id="invariants-heading">Invariants (${rows.length})</h2>
      <div class="scroll">
        <ul class="invariants">
          ${rows.map(
            (r) => html`
              <li data-testid="invariant-row" key=${r.id} class=${`inv inv-${r.status}`}>
                <div class="inv-top">
                  <code class="inv-id">${r.id}</code>
                  <span class=${`chip inv-status st-${r.status}`} data-testid="invariant-status">${r.status}</span>
                </div>
                <p class="inv-statement">${r.statement}</p>
                ${r.detail && html`<p class="inv-detail">${r.status === 'invalid' ? r.detail : `Finding ${r.detail}`}</p>`}
              </li>
            `,
          )}
        </ul>
        ${rows.length === 0 && html`<p class="empty">None yet: they come in the hypothesize phase.</p>`}
      </div>
    </section>
  `;
}

function Findings({ cards, onOpen, openKey }) {
  return html`
    <section class="panel findings-panel" data-testid="findings" aria-labelledby="findings-heading">
      <h2 id="findings-heading">Findings (${cards.length})</h2>
      <div class="scroll">
        <ul class="findings">
          ${cards.map(
            (c, i) => html`
              <li key=${c.key}>
                <button
                  type="button"
                  data-testid="finding"
                  class=${c.key === openKey ? 'finding open' : 'finding'}
                  aria-label=${c.title}
                  aria-describedby=${`finding-sev-${i}`}
                  aria-haspopup="dialog"
                  onClick=${(event) => onOpen(c.key, event.currentTarget)}
                >
                  <${Severity} level=${c.severity} id=${`finding-sev-${i}`} />
                  <span class="finding-title">${c.title}</span>
                </button>
              </li>
            `,
          )}
        </ul>
        ${cards.length === 0 && html`<p class="empty">No finding yet.</p>`}
      </div>
    </section>
  `;
}

const FRAMEWORKS = [
  { id: 'windup', tab: 'Windup', link: 'Download Windup test' },
  { id: 'playwright', tab: 'Playwright', link: 'Download Playwright spec' },
];

function FindingDrawer({ card, onClose, refresh }) {
  const drawer = useRef(null);
  const [tab, setTab] = useState('windup');

  useEffect(() => {
    if (drawer.current) drawer.current.focus();
  }, [card.key]);

  useEffect(() => {
    const key = (event) => {
      if (event.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', key);
    return () => document.removeEventListener('keydown', key);
  }, [onClose]);

  // A finding just streamed may not be stored with its tests yet: ask the store again.
  useEffect(() => {
    if (!card.storeId || card.tests.length === 0) refresh();
  }, [card.key, card.storeId, card.tests.length]);

  const test = card.tests.find((t) => t.framework === tab);
  const code = useText(test && test.download);
  let shown = 'The regression tests are not stored yet.';
  if (test) shown = code ? code.text ?? `Could not load the test: ${code.error}` : 'Loading…';

  return html`
    <div class="backdrop" onClick=${onClose}></div>
    <aside role="dialog" aria-label="Finding" data-testid="finding-drawer" class="drawer" tabindex="-1" ref=${drawer}>
      <div class="drawer-head">
        <${Severity} level=${card.severity} />
        <span class="drawer-id">${card.storeId || card.streamId}</span>
        <span class="spacer"></span>
        <button type="button" onClick=${onClose}>Close</button>
      </div>
      <h2 class="drawer-title">${card.title}</h2>
      <p class="drawer-sub">Invariant <code>${card.invariantId}</code></p>
      <section class="drawer-part">
        <h3>Expected</h3>
        <p>${card.expected}</p>
      </section>
      <section class="drawer-part">
        <h3>Actual</h3>
        <p class="mono">${card.actual}</p>
      </section>
      <section class="drawer-part">
        <h3>Impact</h3>
        <p>${card.impact}</p>
      </section>
      <section class="drawer-part">
        <h3>Steps</h3>
        <ol class="steps">
          ${card.steps.map((step, i) => html`<li key=${i}>${step}</li>`)}
        </ol>
      </section>
      <section class="drawer-part">
        <h3>Screenshots</h3>
        ${card.screenshots.length
          ? html`<div class="shots">
              ${card.screenshots.map(
                (src, i) => html`<${Img} key=${src} src=${src} alt=${`Screenshot ${i + 1} of the finding`} loading="lazy" />`,
              )}
            </div>`
          : html`<p class="empty">None.</p>`}
      </section>
      <section class="drawer-part">
        <h3>Regression test</h3>
        <div class="tabs" role="group" aria-label="Test framework">
          ${FRAMEWORKS.map(
            (f) => html`<button
              type="button"
              key=${f.id}
              class=${tab === f.id ? 'tab current' : 'tab'}
              aria-pressed=${tab === f.id ? 'true' : 'false'}
              onClick=${() => setTab(f.id)}
            >
              ${f.tab}
            </button>`,
          )}
        </div>
        <pre data-testid="test-code" class="code" tabindex="0">${shown}</pre>
        <p class="downloads">
          ${FRAMEWORKS.map((f) => {
            const t = card.tests.find((x) => x.framework === f.id);
            const save = (event) => downloadWithToken(event, t);
            return t && html`<a key=${f.id} href=${t.download} download=${baseName(t.filename)} onClick=${save}>${f.link}</a>`;
          })}
        </p>
      </section>
    </aside>
  `;
}

// ---------------------------------------------------------------------------------------------
// The token, for a server off loopback
// ---------------------------------------------------------------------------------------------

function TokenForm({ onToken, refused }) {
  const submit = (event) => {
    event.preventDefault();
    const token = event.currentTarget.elements.token.value.trim();
    if (token) onToken(token);
  };
  return html`
    <form class="token-form" data-testid="token-form" onSubmit=${submit}>
      <p>
        ${refused ? 'The server refused this token. ' : ''}This server asks for its token
        (<code>cargo windup serve</code> printed it, or <code>WINDUP_SERVE_TOKEN</code>).
      </p>
      <label for="token-input">Token</label>
      <input id="token-input" name="token" type="password" autocomplete="off" />
      <button type="submit" class="primary">Use token</button>
    </form>
  `;
}

// ---------------------------------------------------------------------------------------------
// The app
// ---------------------------------------------------------------------------------------------

function App() {
  const route = useRoute();
  const [wanted, setWanted] = useState(false);
  // Bumped when a token is given: the page remounts and fetches again with it.
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    const want = () => setWanted(true);
    auth.listeners.add(want);
    return () => auth.listeners.delete(want);
  }, []);
  const giveToken = (token) => {
    auth.set(token);
    setWanted(false);
    setGeneration((g) => g + 1);
  };
  const page =
    route.page === 'audit'
      ? html`<${Workspace} key=${`${route.runId}:${generation}`} runId=${route.runId} />`
      : html`<${Landing} key=${`home:${generation}`} />`;
  return html`
    <header class="top">
      <a href="#/" class="brand">Windup audit server</a>
    </header>
    ${wanted && html`<${TokenForm} onToken=${giveToken} refused=${Boolean(auth.token())} />`}
    <main class="main">${page}</main>
  `;
}

// The boot message goes: Preact renders into an empty root.
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
