// The page-events observer. `windupObserver(win)` installs it into one window, once: the browser
// runs it in every new document before the page's own scripts (when the backend can), and the
// observe script runs it where it finds none. It records what the page does on its own into a
// buffer that `__windupObserver.drain()` empties: uncaught exceptions, unhandled rejections,
// console.error calls, dialogs, failed same-origin requests and the markers injected markup sets;
// and which elements listen for a person's clicks, keys and pointer (`listens(el)`).
// The top document mirrors its buffer into sessionStorage (`__windup_events`), so the events of a
// page that navigated away before they were drained are read by the next page of the same origin.
// No global of the page is replaced by anything but a wrapper that still calls the original,
// except the dialogs, which would block WebDriver: they answer as a person clicking OK does.
function windupObserver(win) {
  if (!win || win.__windupObserver) return;
  const KEY = '__windup_events';
  const MAX_EVENTS = 100;
  const MAX_TEXT = 300;
  let top = false;
  try { top = win === win.top; } catch (e) { top = false; }
  // `pending`: the page's own requests still waiting for their answer (fetch and XHR).
  const state = { events: [], stopped: false, seen: new Set(), since: win.performance.now(), pending: 0 };
  const clip = (text) => { const s = String(text); return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + '…' : s; };
  const say = (value) => (value === undefined || value === null ? '' : String(value));
  // A value as a person reads it in a message: `TypeError: x is undefined`, `{"a":1}`, `42`.
  function show(value) {
    if (value && typeof value === 'object' && typeof value.message === 'string' && typeof value.name === 'string') {
      return value.name + ': ' + value.message;
    }
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object') {
      try { return JSON.stringify(value); } catch (e) { return Object.prototype.toString.call(value); }
    }
    return String(value);
  }
  function persist() {
    if (!top) return;
    try {
      if (state.events.length) win.sessionStorage.setItem(KEY, JSON.stringify(state.events));
      else win.sessionStorage.removeItem(KEY);
    } catch (e) {}
  }
  function record(event) {
    if (state.stopped || state.events.length >= MAX_EVENTS) return;
    state.events.push(event);
    persist();
  }
  if (top) {
    try {
      const stored = JSON.parse(win.sessionStorage.getItem(KEY) || '[]');
      if (Array.isArray(stored)) state.events = stored.slice(0, MAX_EVENTS);
    } catch (e) {}
  }
  // Script errors only: a resource that fails to load fires a plain Event on its element.
  win.addEventListener('error', (e) => {
    if (!(e instanceof win.ErrorEvent)) return;
    record({ kind: 'error', text: clip(e.message || (e.error ? show(e.error) : 'Script error.')) });
  });
  win.addEventListener('unhandledrejection', (e) => record({ kind: 'error', text: clip('Unhandled rejection: ' + show(e.reason)) }));
  const console = win.console;
  if (console && typeof console.error === 'function') {
    const original = console.error;
    console.error = function (...args) {
      try { record({ kind: 'console', text: clip(args.map(show).join(' ')) }); } catch (e) {}
      return original.apply(this, args);
    };
  }
  win.alert = function (message) { record({ kind: 'dialog', text: clip('alert: ' + say(message)) }); };
  win.confirm = function (message) { record({ kind: 'dialog', text: clip('confirm: ' + say(message)) }); return true; };
  win.prompt = function (message, value) { record({ kind: 'dialog', text: clip('prompt: ' + say(message)) }); return say(value); };
  // What injected markup calls when it runs: `<img src=x onerror="__windupMark('w1x')">`.
  Object.defineProperty(win, '__windupMark', { value: (value) => record({ kind: 'marker', text: clip(say(value)) }), configurable: true });
  const location = win.location;
  function failed(method, url, status) {
    let absolute = null;
    try { absolute = new win.URL(String(url), location.href); } catch (e) { return; }
    if (absolute.origin !== location.origin) return;
    record({ kind: 'request', method: String(method || '').toUpperCase(), url: clip(absolute.href), status: status });
  }
  // A request the browser cancels because the page is leaving (Firefox ends them as network
  // errors, not aborts, once a navigation starts) is no failure of the server: a request that
  // ends without an answer within a moment of the page starting to leave is not recorded.
  let leaving = -Infinity;
  const now = () => (win.performance && win.performance.now ? win.performance.now() : Date.now());
  const markLeaving = () => { leaving = now(); };
  win.addEventListener('beforeunload', markLeaving);
  win.addEventListener('pagehide', markLeaving);
  const leftBehind = () => now() - leaving < 2000;
  const fetch = win.fetch;
  if (typeof fetch === 'function') {
    win.fetch = function (input, init) {
      const asked = input && typeof input === 'object';
      const method = (init && init.method) || (asked && input.method) || 'GET';
      const url = asked && 'url' in input ? input.url : input;
      state.pending += 1;
      return fetch.apply(win, arguments).then((response) => {
        state.pending -= 1;
        if (response.status >= 400) failed(method, response.url || url, response.status);
        return response;
      }, (error) => {
        state.pending -= 1;
        if (!(error && error.name === 'AbortError') && !leftBehind()) failed(method, url, 0);
        throw error;
      });
    };
  }
  const XHR = win.XMLHttpRequest;
  if (XHR && XHR.prototype) {
    const requests = new WeakMap();
    const open = XHR.prototype.open;
    const send = XHR.prototype.send;
    XHR.prototype.open = function (method, url) {
      requests.set(this, { method: method, url: url, aborted: false });
      return open.apply(this, arguments);
    };
    XHR.prototype.send = function () {
      const request = requests.get(this);
      if (request) {
        state.pending += 1;
        this.addEventListener('abort', () => { request.aborted = true; });
        this.addEventListener('loadend', () => {
          state.pending -= 1;
          const cancelled = request.aborted || (this.status === 0 && leftBehind());
          if (!cancelled && (this.status >= 400 || this.status === 0)) failed(request.method, this.responseURL || request.url, this.status);
        });
      }
      return send.apply(this, arguments);
    };
  }
  // Which elements listen for what a person does (a click, a double click, a key, the pointer
  // coming over them), as the page adds its listeners: the audit's candidates beyond controls.
  const listening = new WeakMap();
  const PERSON_EVENTS = { click: 'click', mousedown: 'click', mouseup: 'click', pointerdown: 'click', pointerup: 'click',
    dblclick: 'dblclick', keydown: 'key', keyup: 'key', keypress: 'key', mouseenter: 'hover', mouseover: 'hover', pointerenter: 'hover', pointerover: 'hover' };
  const Target = win.EventTarget && win.EventTarget.prototype;
  if (Target && typeof Target.addEventListener === 'function') {
    const add = Target.addEventListener;
    Target.addEventListener = function (type, listener, options) {
      try {
        const kind = PERSON_EVENTS[type];
        if (kind && this && this.nodeType === 1) {
          const kinds = listening.get(this) || new Set();
          kinds.add(kind);
          listening.set(this, kinds);
        }
      } catch (e) {}
      return add.apply(this, arguments);
    };
  }
  state.listens = (el) => Array.from(listening.get(el) || []);
  // Requests the wrappers could not see: those of elements (images, scripts, styles), and those
  // made before the wrappers were installed. Each resource entry counts once. The icon the
  // browser asks for on its own (`/favicon.ico`) is not the page's request.
  state.scan = () => {
    let entries = [];
    try { entries = win.performance.getEntriesByType('resource'); } catch (e) { return; }
    for (const entry of entries) {
      const status = entry.responseStatus || 0;
      const key = entry.name + ' ' + entry.startTime;
      if (status < 400 || state.seen.has(key) || isBrowserIcon(entry)) continue;
      state.seen.add(key);
      const scripted = entry.initiatorType === 'fetch' || entry.initiatorType === 'xmlhttprequest';
      if (scripted && entry.startTime >= state.since) continue;
      failed(scripted ? '' : 'GET', entry.name, status);
    }
  };
  function isBrowserIcon(entry) {
    try { return new win.URL(entry.name).pathname === '/favicon.ico' && entry.initiatorType !== 'fetch' && entry.initiatorType !== 'xmlhttprequest'; } catch (e) { return false; }
  }
  win.addEventListener('pagehide', () => state.scan());
  state.drain = () => {
    state.scan();
    const events = state.events;
    state.events = [];
    persist();
    return events;
  };
  // Reset: nothing more is recorded, nor written to the storage being cleared.
  state.stop = () => { state.stopped = true; };
  Object.defineProperty(win, '__windupObserver', { value: state, configurable: true });
}
