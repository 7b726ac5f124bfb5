//! The page as an Observation, in real Chromium: values read through open shadow roots and
//! same-origin frames, visibility as Playwright counts it, inputs, money in both conventions,
//! values gone wrong in rendering, and what a page does on its own (exceptions, rejections,
//! console errors, dialogs, failed requests, injected markers), drained once each, kept across a
//! navigation, and seen from the first line of a page once the session watches its events. Then
//! the `holds` postcondition in plans and in the step language, passing on a correct page and
//! failing, with what it saw, on a broken one.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Path as UrlPath;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use serde_json::json;
use url::Url;
use windup_core::browser::{BrowserError, BrowserKind, Protocol};
use windup_core::engine::executor::{FailureCause, NoValues};
use windup_core::engine::planner::OfflinePlanner;
use windup_core::engine::verifier::{self, Baseline};
use windup_core::model::invariant::{
    FailedRequest, Field, Observation, PageEvents, Predicate, Probe, Reading, Verdict,
};
use windup_core::model::plan::{Plan, Postcondition};
use windup_core::{
    browser::Browser, browser::BrowserConfig, browser::Session, engine::executor::ExecOptions,
    engine::executor::Executor,
};

/// The fixture pages, served on loopback until dropped.
type Site = common::Site;

async fn fixture_site() -> Site {
    let app = Router::new()
        .route("/api/{name}", any(api))
        .route("/{page}", get(page));
    common::Site::serve(app).await
}

async fn api(UrlPath(name): UrlPath<String>) -> Response {
    match name.as_str() {
        "ok" => (StatusCode::OK, "{}").into_response(),
        "slow" => {
            tokio::time::sleep(Duration::from_millis(600)).await;
            (StatusCode::OK, "{}").into_response()
        }
        "slow-image" => {
            tokio::time::sleep(Duration::from_millis(400)).await;
            (StatusCode::NOT_FOUND, "no such image").into_response()
        }
        "posted" => {
            tokio::time::sleep(Duration::from_millis(600)).await;
            POSTED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            (StatusCode::OK, "{}").into_response()
        }
        "no-content" => StatusCode::NO_CONTENT.into_response(),
        "fail" => (StatusCode::INTERNAL_SERVER_ERROR, "{\"error\":\"boom\"}").into_response(),
        _ => (StatusCode::NOT_FOUND, "no such thing").into_response(),
    }
}

async fn page(UrlPath(name): UrlPath<String>) -> Response {
    let Some((status, body)) = fixture(&name) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// A page that changes every 2 ms: one timer writes its count into `#a`, rebuilds the rows, writes
/// `#c` in a frame and then `#b`. A reading spread over two moments would see `#a` and `#b` differ.
/// A field that lists each key pressed in it, with Shift when the event says so.
const KEYS: &str = r#"<!doctype html><html><head><title>Keys</title></head><body>
<input id="field" aria-label="Field"><ol id="keys"></ol>
<script>
document.getElementById('field').addEventListener('keydown', (e) => {
  const li = document.createElement('li');
  li.textContent = (e.shiftKey ? 'Shift+' : '') + e.key;
  document.getElementById('keys').append(li);
});
</script></body></html>"#;

const TICKING: &str = r#"<!doctype html><html><head><title>Ticking</title></head><body>
<p id="a">0</p><ul id="rows"><li>0</li></ul><iframe id="f" srcdoc="<p id='c'>0</p>"></iframe><p id="b">0</p>
<script>
let n = 0;
setInterval(() => {
  n += 1;
  document.getElementById('a').textContent = n;
  const rows = document.getElementById('rows');
  rows.textContent = '';
  for (let i = 0; i <= n % 4; i++) { const li = document.createElement('li'); li.textContent = n; rows.append(li); }
  const c = document.getElementById('f').contentDocument.getElementById('c');
  if (c) c.textContent = n;
  document.getElementById('b').textContent = n;
}, 2);
</script></body></html>"#;

const VALUES: &str = r#"<!doctype html><html><head><title>Values</title></head><body>
<h1>Cart</h1>
<ul id="light"><li class="item">Alpha</li><li class="item">  Beta
   two </li></ul>
<shop-list></shop-list>
<p class="shy" style="display:none">Gone</p>
<p class="shy" style="visibility:hidden">Invisible</p>
<p class="shy" style="opacity:0">Ghost</p>
<input id="name" value="Ada">
<input id="agree" type="checkbox" checked> <input id="news" type="checkbox">
<input type="checkbox" style="display:none" checked>
<input id="styled" type="checkbox" checked style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)"><label for="styled">Styled</label>
<select id="country"><option value="de">Germany</option><option value="fr" selected>France</option></select>
<textarea id="note">Hello</textarea>
<span class="price">$1,234.50</span> <span class="price">1.234,50 €</span>
<iframe id="frame" src="/frame.html"></iframe>
<script>
customElements.define('shop-list', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<ul><li class="item">Gamma</li><li class="item">Delta</li></ul>';
  }
});
</script>
</body></html>"#;

/// An account badge as component libraries render it (upper-cased, in a shadow root), a
/// filled form, and a same-origin frame with a typed value.
const SHOWN: &str = r#"<!doctype html><html><head><title>Account</title></head><body>
<account-badge></account-badge>
<form><input id="email" type="email" value="ada@example.test">
<input id="secret" type="password" value="hunter2-secret"><input type="hidden" name="token" value="tok-hidden-9">
<textarea id="bio">Writes   engines</textarea></form>
<p style="display:none">Not rendered</p>
<iframe id="frame" src="/frame.html"></iframe>
<script>
customElements.define('account-badge', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<span style="text-transform:uppercase">Signed in as ada@example.test</span>';
  }
});
</script>
</body></html>"#;

const FRAME: &str = r#"<!doctype html><html><body>
<p class="item">In the frame</p><input id="qty" value="3"><p class="price">$2.00</p>
</body></html>"#;

const BROKEN: &str = r#"<!doctype html><html><head><title>Broken</title></head><body>
<p>Total: <b class="total">NaN</b></p>
<p>Items: [object Object]</p>
<p class="each">$NaN</p>
<p>undefined</p>
<p>BaNaNa bread</p><p>null hypothesis</p>
<p style="display:none">NaN</p>
<p>Refund -$5.00</p>
<p>$-3.00</p>
<p>−5,00 €</p>
<p>Order A-17 ships for $4.00</p>
<p>$5 - $10</p>
<p><span class="split">-<b>$</b>7.00</span></p>
</body></html>"#;

const EVENTS: &str = r#"<!doctype html><html><head><title>Events</title></head><body>
<button id="throw" onclick="null.x">Throw</button>
<button id="log" onclick="console.error('bad', { code: 7 })">Log</button>
<button id="dialogs" onclick="const ok = confirm('Delete?'); alert('Saved'); document.querySelector('#answers').textContent = ok + ' ' + prompt('Name?', 'Ada');">Dialogs</button>
<button id="reject" onclick="Promise.reject(new Error('nope'))">Reject</button>
<button id="fetch" onclick="fetch('/api/fail').then((r) => { document.querySelector('#fetched').textContent = 'fetched ' + r.status; })">Fetch</button>
<button id="xhr" onclick="const x = new XMLHttpRequest(); x.open('POST', '/api/missing'); x.onloadend = () => { document.querySelector('#sent').textContent = 'xhr ' + x.status; }; x.send('{}');">XHR</button>
<button id="inject" onclick="document.body.insertAdjacentHTML('beforeend', '&lt;img src=x onerror=&quot;__windupMark(\'w1x\')&quot;&gt;'); document.querySelector('img').addEventListener('error', () => { document.querySelector('#injected').textContent = 'img failed'; });">Inject</button>
<form action="/after.html" onsubmit="throw new Error('submit broke')"><button id="submit">Submit</button></form>
<p id="answers"></p><p id="fetched"></p><p id="sent"></p><p id="injected"></p>
</body></html>"#;

/// One click adds an order at once, and another when the server's slow answer arrives.
const LATE: &str = r#"<!doctype html><html><head><title>Late</title></head><body>
<button id="place">Place order</button> <a id="next" href="/marked.html">Search</a>
<ul id="orders"></ul>
<script>
document.getElementById('place').addEventListener('click', () => {
  const list = document.getElementById('orders');
  list.insertAdjacentHTML('beforeend', '<li class="order">one</li>');
  fetch('/api/slow').then((r) => r.text())
    .then(() => list.insertAdjacentHTML('beforeend', '<li class="order">again</li>'));
});
</script></body></html>"#;

/// Markup that runs when its image fails to load, after the document itself has.
const MARKED: &str = r#"<!doctype html><html><head><title>Marked</title></head><body>
<p>Results for <img src="/missing.png" onerror="__windupMark('ran')"></p>
</body></html>"#;

/// A click saves, and the answer renders markup whose image fails slowly: its marker comes well
/// after the request has ended. An image below the fold loads lazily and never starts.
const RENDERED: &str = r#"<!doctype html><html><head><title>Rendered</title></head><body>
<button id="save">Save</button><div id="out"></div>
<div style="height:5000px"></div><img loading="lazy" src="/api/slow-image" alt="">
<script>
document.getElementById('save').addEventListener('click', () => {
  fetch('/api/ok').then((r) => r.text()).then(() => {
    document.getElementById('out').innerHTML =
      '<p>Saved <img src="/api/slow-image" onerror="__windupMark(\'late\')"></p>';
  });
});
</script></body></html>"#;

/// A link that navigates a moment after its click (as links that first send an analytics beacon
/// do), to a page whose image keeps its document loading well after its text is shown.
const LEAVE: &str = r#"<!doctype html><html><head><title>Leave</title></head><body>
<a id="go" href="/arrive.html">Go on</a>
<script>
document.getElementById('go').addEventListener('click', (event) => {
  event.preventDefault();
  setTimeout(() => { location.href = event.target.href; }, 50);
});
</script></body></html>"#;

/// A plain link to another page.
const LINK: &str = r#"<!doctype html><html><head><title>Link</title></head><body>
<a id="on" href="/after.html">On</a></body></html>"#;

const ARRIVE: &str = r#"<!doctype html><html><head><title>Arrive</title></head><body>
<p>Arrived</p><img src="/api/slow-image" alt=""></body></html>"#;

/// A form posted to an answer that takes 600 ms.
const POST_SLOW: &str = r#"<!doctype html><html><head><title>Post</title></head><body>
<form method="post" action="/api/posted"><button id="send">Send</button></form></body></html>"#;

/// A form posted to an answer with no content, which leaves the form's page where it is.
const POST_NOTHING: &str = r#"<!doctype html><html><head><title>Post</title></head><body>
<form method="post" action="/api/no-content"><button id="send">Send</button></form></body></html>"#;

/// The posts `/api/posted` has answered.
static POSTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A save that is still waiting for its answer when the page throws, then leaves for another.
const BUSY_LEAVE: &str = r#"<!doctype html><html><head><title>Busy</title></head><body>
<button id="save">Save</button>
<script>
document.getElementById('save').addEventListener('click', () => {
  fetch('/api/slow').catch(() => {});
  setTimeout(() => { throw new Error('left busy'); }, 100);
  setTimeout(() => { location.href = '/after.html'; }, 200);
});
</script></body></html>"#;

const AFTER: &str =
    "<!doctype html><html><head><title>After</title></head><body><p>Thanks</p></body></html>";

/// A page that asks the server twice (fetch and XHR), then leaves before either is answered: the
/// browser cancels both, which is no failure of the server.
const ABANDON: &str = r#"<!doctype html><html><head><title>Leaving</title></head><body>
<p>Leaving</p>
<script>
fetch('/api/slow').catch(() => {});
const xhr = new XMLHttpRequest();
xhr.open('GET', '/api/slow');
xhr.send();
setTimeout(() => { location.href = '/after.html'; }, 100);
</script>
</body></html>"#;

const LOAD_ERROR: &str = r#"<!doctype html><html><head><title>Loading</title>
<script>
const root = document.documentElement;
fetch('/api/fail').then((r) => r.text()).then(() => { root.dataset.fetched = 'yes'; });
window.addEventListener('load', () => { root.dataset.loaded = 'yes'; });
missing.call();
</script>
</head><body><p>Loaded</p><img src="/missing.png" alt=""></body></html>"#;

const SERVER_ERROR: &str =
    "<!doctype html><html><head><title>Oops</title></head><body><h1>500</h1></body></html>";

/// An order list: "Place order" adds one order after the server answers; `extra` orders more
/// per click (a bug), and `throws` makes the click handler throw once it has asked.
fn orders(extra: usize, throws: bool) -> String {
    let adds = 1 + extra;
    let after = if throws { "null.total;" } else { "" };
    format!(
        r#"<!doctype html><html><head><title>Orders</title></head><body>
<ul id="orders"><li class="order">#1</li><li class="order">#2</li></ul>
<p>Orders: <span class="count">2</span></p>
<button id="place">Place order</button>
<script>
document.querySelector('#place').addEventListener('click', () => {{
  fetch('/api/ok').then(() => {{
    const list = document.querySelector('#orders');
    for (let i = 0; i < {adds}; i++) {{
      const li = document.createElement('li');
      li.className = 'order';
      li.textContent = '#' + (list.children.length + 1);
      list.appendChild(li);
    }}
    document.querySelector('.count').textContent = list.children.length;
  }});
  {after}
}});
</script></body></html>"#
    )
}

/// Fields where the focus can be: the page's own, one in an open shadow root, one in a frame.
const FOCUS: &str = r#"<!doctype html><html><head><title>Focus</title></head><body>
<h1>Focus</h1>
<input id="top" class="field"> <input id="hidden" class="field" style="display:none">
<note-box></note-box>
<iframe id="frame" srcdoc="<input id='in-frame' class='field'>"></iframe>
<script>
customElements.define('note-box', class extends HTMLElement {
  constructor() {
    super();
    this.attachShadow({ mode: 'open' }).innerHTML = '<input class="inner field">';
  }
});
</script>
</body></html>"#;

fn fixture(name: &str) -> Option<(StatusCode, String)> {
    let ok = |body: &str| Some((StatusCode::OK, body.to_owned()));
    match name {
        "values.html" => ok(VALUES),
        "focus.html" => ok(FOCUS),
        "shown.html" => ok(SHOWN),
        "frame.html" => ok(FRAME),
        "broken.html" => ok(BROKEN),
        "events.html" => ok(EVENTS),
        "after.html" => ok(AFTER),
        "abandon.html" => ok(ABANDON),
        "busy-leave.html" => ok(BUSY_LEAVE),
        "leave.html" => ok(LEAVE),
        "link.html" => ok(LINK),
        "post-slow.html" => ok(POST_SLOW),
        "post-nothing.html" => ok(POST_NOTHING),
        "arrive.html" => ok(ARRIVE),
        "late.html" => ok(LATE),
        "marked.html" => ok(MARKED),
        "rendered.html" => ok(RENDERED),
        "load-error.html" => ok(LOAD_ERROR),
        "ticking.html" => ok(TICKING),
        "keys.html" => ok(KEYS),
        "server-error.html" => Some((StatusCode::INTERNAL_SERVER_ERROR, SERVER_ERROR.to_owned())),
        "orders.html" => Some((StatusCode::OK, orders(0, false))),
        "orders-twice.html" => Some((StatusCode::OK, orders(1, false))),
        "orders-throws.html" => Some((StatusCode::OK, orders(0, true))),
        _ => None,
    }
}

/// A browser with one session; the session closes before the driver ends.
struct Rig {
    site: Site,
    session: Session,
    options: ExecOptions,
    _browser: Browser,
    _artifacts: tempfile::TempDir,
}

impl Rig {
    async fn start() -> Rig {
        Rig::start_in(BrowserKind::Chromium).await
    }

    async fn start_in(kind: BrowserKind) -> Rig {
        Rig::start_speaking(kind, common::browser_config().protocol).await
    }

    async fn start_speaking(kind: BrowserKind, protocol: Protocol) -> Rig {
        let site = fixture_site().await;
        let config = BrowserConfig {
            kind,
            protocol,
            ..common::browser_config()
        };
        let browser = Browser::launch(config)
            .await
            .unwrap_or_else(|e| panic!("{kind}'s driver starts (cargo windup setup): {e}"));
        let session = browser.new_session().await.expect("a session opens");
        let artifacts = tempfile::tempdir().expect("a temporary directory");
        let mut options = ExecOptions::new(site.url.parse().expect("the site's URL parses"));
        options.artifacts_dir = artifacts.path().to_owned();
        options.default_timeout = Duration::from_secs(5);
        Rig {
            site,
            session,
            options,
            _browser: browser,
            _artifacts: artifacts,
        }
    }

    async fn open(&self, path: &str) {
        self.session
            .goto(&self.site.at(path))
            .await
            .unwrap_or_else(|e| panic!("{path} opens: {e}"));
    }

    async fn observe(&self, probes: &[(&str, Field)]) -> Observation {
        let probes: BTreeSet<Probe> = probes
            .iter()
            .map(|(selector, field)| Probe {
                selector: (*selector).to_owned(),
                field: *field,
            })
            .collect();
        self.session
            .observe(&probes)
            .await
            .expect("the page is observed")
    }

    async fn click(&self, selector: &str) {
        let script = format!("document.querySelector({selector:?}).click(); return true;");
        self.session
            .execute_script(&script)
            .await
            .unwrap_or_else(|e| panic!("{selector} is clicked: {e}"));
    }

    /// Waits, as the verifier does, until `condition` holds (for at most 5 s).
    async fn until(&self, condition: Postcondition) {
        self.until_within(condition, Duration::from_secs(5)).await;
    }

    async fn until_within(&self, condition: Postcondition, timeout: Duration) {
        let base: Url = self.site.url.parse().expect("the site's URL parses");
        let deadline = Instant::now() + timeout;
        let verdict = verifier::verify(
            &self.session,
            &base,
            std::slice::from_ref(&condition),
            &mut Baseline::default(),
            deadline,
        )
        .await
        .expect("the browser answers");
        if let Err(unmet) = verdict {
            panic!("{unmet:?}");
        }
    }

    async fn until_text(&self, text: &str) {
        self.until(Postcondition::TextVisible { text: text.into() })
            .await;
    }

    fn executor(&self) -> Executor<'_> {
        Executor::new(&self.session, &self.options, &NoValues)
    }

    async fn close(self) {
        self.session.close().await.expect("the session closes");
    }
}

fn texts(observation: &Observation, selector: &str, field: Field) -> Vec<Reading> {
    let probe = Probe {
        selector: selector.to_owned(),
        field,
    };
    observation
        .texts(&probe)
        .unwrap_or_else(|| panic!("{selector} was asked"))
        .to_vec()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn readings(items: &[&str]) -> Vec<Reading> {
    items.iter().map(|s| (*s).into()).collect()
}

fn check(source: &str, now: &Observation) -> Verdict {
    Predicate::parse(source)
        .unwrap_or_else(|e| panic!("{source} parses: {e}"))
        .check(now, None, None)
}

#[tokio::test]
async fn what_a_screenshot_could_show_is_read_through_shadow_roots_frames_and_fields() {
    let rig = Rig::start().await;
    rig.open("/shown.html").await;
    let shown = rig.session.shown_text().await.expect("the page's text");
    let lines: Vec<&str> = shown.lines().map(str::trim).collect();
    // The badge as it renders, upper-cased; the field's value; the frame's text and value.
    assert!(lines.contains(&"SIGNED IN AS ADA@EXAMPLE.TEST"), "{shown}");
    assert!(lines.contains(&"ada@example.test"), "{shown}");
    assert!(lines.contains(&"Writes   engines"), "{shown}");
    assert!(lines.contains(&"In the frame"), "{shown}");
    assert!(lines.contains(&"3"), "{shown}");
    // What no screenshot shows: a password's characters, a hidden field, what is not rendered.
    for unseen in ["hunter2-secret", "tok-hidden-9", "Not rendered"] {
        assert!(!shown.contains(unseen), "{unseen} in {shown}");
    }
    // The secrets the page shows, whatever its case and spacing.
    let redactor = windup_core::engine::planner::prompt::Redactor::new([
        (
            "accounts.ada.email".to_owned(),
            windup_core::model::secret::SecretValue::new("Ada@Example.test"),
        ),
        (
            "accounts.ada.bio".to_owned(),
            windup_core::model::secret::SecretValue::new("writes engines"),
        ),
        (
            "accounts.ada.password".to_owned(),
            windup_core::model::secret::SecretValue::new("hunter2-secret"),
        ),
    ]);
    assert_eq!(
        redactor.shown_in(&shown),
        ["accounts.ada.email", "accounts.ada.bio"]
    );
    rig.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_observation_reads_shadow_roots_frames_visible_matches_inputs_and_money() {
    let rig = Rig::start().await;
    rig.open("/values.html").await;
    let seen = rig
        .observe(&[
            (".item", Field::Text),
            ("shop-list >>> li", Field::Text),
            (".shy", Field::Text),
            ("#name", Field::Value),
            ("input[type=checkbox]", Field::Value),
            ("#country", Field::Value),
            ("#note", Field::Value),
            ("#qty", Field::Value),
            (".price", Field::Text),
            ("li:nth-child(", Field::Text),
        ])
        .await;
    assert_eq!(seen.url, rig.site.at("/values.html"));
    assert_eq!(seen.title, "Values");
    assert_eq!(seen.status, 200);
    assert_eq!(
        texts(&seen, ".item", Field::Text),
        readings(&["Alpha", "Beta two", "Gamma", "Delta", "In the frame"])
    );
    assert_eq!(
        texts(&seen, "shop-list >>> li", Field::Text),
        readings(&["Gamma", "Delta"])
    );
    // display:none and visibility:hidden are not seen; opacity 0 is, as Playwright counts it.
    assert_eq!(texts(&seen, ".shy", Field::Text), readings(&["Ghost"]));
    assert_eq!(texts(&seen, "#name", Field::Value), readings(&["Ada"]));
    // A checkbox reads as a bool; one hidden and shown through its label is read too.
    assert_eq!(
        texts(&seen, "input[type=checkbox]", Field::Value),
        [
            Reading::Checked(true),
            Reading::Checked(false),
            Reading::Checked(true)
        ]
    );
    assert_eq!(texts(&seen, "#country", Field::Value), readings(&["fr"]));
    assert_eq!(texts(&seen, "#note", Field::Value), readings(&["Hello"]));
    assert_eq!(texts(&seen, "#qty", Field::Value), readings(&["3"]));
    assert_eq!(
        texts(&seen, ".price", Field::Text),
        readings(&["$1,234.50", "1.234,50 €", "$2.00"])
    );
    assert!(texts(&seen, "li:nth-child(", Field::Text).is_empty());
    assert!(seen.broken_texts.is_empty(), "{:?}", seen.broken_texts);
    assert!(
        seen.negative_amounts.is_empty(),
        "{:?}",
        seen.negative_amounts
    );
    assert_eq!(seen.events, PageEvents::default());

    // Predicates are checked on an observation of what they read, as the verifier does it.
    let holding = [
        r#"money(".price") == 123450"#,
        r#"sum(moneys(".price")) == 123450 * 2 + 200"#,
        r#"count(".item") == 5 && texts(".item")[4] == "In the frame""#,
        r#"input('#agree') == true && !input('#news') && input('#styled')"#,
        r#"inputs("input[type=checkbox]") == [true, false, true]"#,
        r#"inputs("input[type=checkbox]").filter(c, c).size() == 2"#,
        r#"int(input('#qty')) == 3 && !visible(".nothing-here")"#,
        r#"status == 200 && title == "Values" && path == "/values.html""#,
        r#"errors.size() == 0 && broken_texts.size() == 0"#,
    ];
    let predicates: Vec<Predicate> = holding
        .iter()
        .map(|source| Predicate::parse(source).expect("the predicate parses"))
        .collect();
    let probes: BTreeSet<Probe> = predicates.iter().flat_map(Predicate::probes).collect();
    let seen = rig
        .session
        .observe(&probes)
        .await
        .expect("the page is observed");
    for predicate in &predicates {
        assert_eq!(
            predicate.check(&seen, None, None),
            Verdict::Holds,
            "{}",
            predicate.source()
        );
    }
    assert_eq!(
        check(r#"count(".item") == 4"#, &seen),
        Verdict::Violated {
            seen: vec![r#"count(".item") = 5"#.to_owned()]
        }
    );
    assert!(matches!(
        check(r#"text(".nothing-here") == "Ghost""#, &seen),
        Verdict::NotApplicable { .. }
    ));
    rig.close().await;
}

#[tokio::test]
async fn focused_reads_the_element_a_key_goes_to_through_shadow_roots_and_frames() {
    let rig = Rig::start().await;
    rig.open("/focus.html").await;
    let predicates = [
        (r##"focused("#top")"##, "#top"),
        (r#"focused("note-box >>> .inner")"#, "note-box >>> .inner"),
        (r##"focused("#in-frame")"##, "#in-frame"),
    ];
    let all = r#"focused(".field")"#;
    let parsed: Vec<Predicate> = predicates
        .iter()
        .map(|(source, _)| *source)
        .chain([all])
        .map(|source| Predicate::parse(source).expect("the predicate parses"))
        .collect();
    let probes: BTreeSet<Probe> = parsed.iter().flat_map(Predicate::probes).collect();
    let holding = |seen: &Observation| -> Vec<bool> {
        parsed
            .iter()
            .map(|p| p.check(seen, None, None) == Verdict::Holds)
            .collect()
    };
    // Nothing holds the focus yet: the body has it.
    let seen = rig.session.observe(&probes).await.expect("observed");
    assert_eq!(holding(&seen), [false, false, false, false]);
    let focus = [
        "document.getElementById('top').focus()",
        "document.querySelector('note-box').shadowRoot.querySelector('.inner').focus()",
        "document.getElementById('frame').contentDocument.getElementById('in-frame').focus()",
    ];
    for (n, script) in focus.iter().enumerate() {
        rig.session
            .execute_script(script)
            .await
            .unwrap_or_else(|e| panic!("{script}: {e}"));
        let seen = rig.session.observe(&probes).await.expect("observed");
        let mut expected = [false; 4];
        expected[n] = true;
        expected[3] = true;
        assert_eq!(holding(&seen), expected, "after {}", predicates[n].1);
    }
    // A hidden match is not read; a blurred field holds nothing.
    rig.session
        .execute_script("document.activeElement.blur(); document.getElementById('hidden').focus()")
        .await
        .expect("blurred");
    let seen = rig.session.observe(&probes).await.expect("observed");
    assert_eq!(holding(&seen), [false, false, false, false]);
    rig.close().await;
}

#[tokio::test]
async fn values_gone_wrong_and_negative_amounts_are_found_in_visible_text() {
    let rig = Rig::start().await;
    rig.open("/broken.html").await;
    let seen = rig.observe(&[(".total", Field::Text)]).await;
    assert_eq!(
        seen.broken_texts,
        strings(&["NaN", "Items: [object Object]", "$NaN", "undefined"])
    );
    assert_eq!(
        seen.negative_amounts,
        strings(&["Refund -$5.00", "$-3.00", "−5,00 €", "-$7.00"])
    );
    assert!(matches!(
        check(r#"money(".total") > 0"#, &seen),
        Verdict::NotApplicable { .. }
    ));
    assert_eq!(
        check("broken_texts.size() == 0", &seen),
        Verdict::Violated {
            seen: strings(&[
                r#"broken_texts = ["NaN", "Items: [object Object]", "$NaN", "undefined"]"#
            ])
        }
    );
    assert_eq!(
        check(
            "negative_amounts.all(a, a < 0) && negative_amounts.size() == 4",
            &seen
        ),
        Verdict::Holds
    );
    rig.close().await;
}

#[tokio::test]
async fn page_events_are_recorded_drained_once_and_kept_across_a_navigation() {
    let rig = Rig::start().await;
    rig.open("/events.html").await;
    // Without a watch, the first look installs the observer; it sees from then on.
    assert_eq!(rig.observe(&[]).await.events, PageEvents::default());
    for button in ["#throw", "#log", "#dialogs", "#reject"] {
        rig.click(button).await;
    }
    rig.until_text("true Ada").await;
    let seen = rig.observe(&[]).await;
    assert_eq!(
        seen.events,
        PageEvents {
            errors: strings(&[
                "Uncaught TypeError: Cannot read properties of null (reading 'x')",
                "Unhandled rejection: Error: nope",
            ]),
            console_errors: strings(&[r#"bad {"code":7}"#]),
            dialogs: strings(&["confirm: Delete?", "alert: Saved", "prompt: Name?"]),
            ..PageEvents::default()
        }
    );
    assert_eq!(
        rig.observe(&[]).await.events,
        PageEvents::default(),
        "a second look does not repeat them"
    );

    rig.click("#fetch").await;
    rig.until_text("fetched 500").await;
    rig.click("#xhr").await;
    rig.until_text("xhr 404").await;
    let seen = rig.observe(&[]).await;
    let request = |method: &str, path: &str, status| FailedRequest {
        method: method.to_owned(),
        url: rig.site.at(path),
        status,
    };
    assert_eq!(
        seen.events.failed_requests,
        [
            request("GET", "/api/fail", 500),
            request("POST", "/api/missing", 404)
        ]
    );

    // The payload the audit injects: its marker, and the image's own failed request.
    rig.click("#inject").await;
    rig.until_text("img failed").await;
    let seen = rig.observe(&[]).await;
    assert_eq!(seen.events.markers, strings(&["w1x"]));
    assert_eq!(seen.events.failed_requests, [request("GET", "/x", 404)]);
    assert_eq!(rig.observe(&[]).await.events, PageEvents::default());

    // A submit handler throws, and the form navigates away before anyone looks.
    rig.click("#submit").await;
    rig.until(Postcondition::UrlMatches {
        pattern: "/after.html".into(),
    })
    .await;
    let seen = rig.observe(&[]).await;
    assert_eq!(seen.title, "After");
    assert_eq!(
        seen.events.errors,
        strings(&["Uncaught Error: submit broke"])
    );
    assert_eq!(rig.observe(&[]).await.events, PageEvents::default());
    rig.close().await;
}

/// A page that goes while it is looked at until quiet: the look ends on the page that came,
/// with what the page that went did before it went. In each browser.
#[tokio::test]
async fn a_quiet_look_at_a_page_that_goes_meanwhile_ends_on_the_next_with_its_events() {
    for kind in common::browsers() {
        let rig = Rig::start_in(kind).await;
        rig.open("/busy-leave.html").await;
        rig.session
            .watch_page_events()
            .await
            .expect("the page is watched");
        rig.click("#save").await;
        let seen = rig
            .session
            .observe_quiet(&BTreeSet::new(), Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{kind}: the page is observed: {e}"));
        assert_eq!(seen.title, "After", "{kind}: {seen:?}");
        assert_eq!(seen.pending, 0, "{kind}: {seen:?}");
        // Chromium says "Uncaught Error: …", Firefox "Error: …".
        assert!(
            matches!(&seen.events.errors[..], [error] if error.ends_with("Error: left busy")),
            "{kind}: {:?}",
            seen.events.errors
        );
        rig.close().await;
    }
}

#[tokio::test]
async fn a_quiet_look_waits_for_the_answer_and_the_image_it_renders() {
    let rig = Rig::start().await;
    rig.open("/rendered.html").await;
    rig.session
        .watch_page_events()
        .await
        .expect("the page is watched");
    let probes: BTreeSet<Probe> = [Probe {
        selector: "#out".into(),
        field: Field::Text,
    }]
    .into();
    let before = rig
        .session
        .observe_quiet(&probes, Duration::from_secs(10))
        .await
        .expect("the page is observed");
    assert_eq!(
        before.pending, 0,
        "the lazy image off screen is not waited for"
    );
    rig.click("#save").await;
    let seen = rig
        .session
        .observe_quiet(&probes, Duration::from_secs(10))
        .await
        .expect("the page is observed");
    assert_eq!(seen.pending, 0, "the page is quiet: {seen:?}");
    assert_eq!(texts(&seen, "#out", Field::Text), readings(&["Saved"]));
    assert_eq!(
        seen.events.markers,
        strings(&["late"]),
        "the marker of the image that failed after the answer"
    );
    rig.close().await;
}

/// `/load-error.html` has fetched its answer and loaded.
fn fetched_and_loaded() -> Postcondition {
    Postcondition::ElementVisible {
        frames: vec![],
        selector: "html[data-fetched=yes][data-loaded=yes]".into(),
    }
}

#[tokio::test]
async fn a_watched_session_sees_errors_during_load_and_keeps_watching_after_a_reset() {
    let rig = Rig::start().await;
    let loaded = fetched_and_loaded;
    rig.open("/load-error.html").await;
    rig.until(loaded()).await;
    let unwatched = rig.observe(&[]).await;
    assert!(
        unwatched.events.errors.is_empty(),
        "an error thrown while loading is before any injected observer: {:?}",
        unwatched.events
    );
    let missing_image = FailedRequest {
        method: "GET".into(),
        url: rig.site.at("/missing.png"),
        status: 404,
    };
    let early_fetch = FailedRequest {
        method: String::new(),
        url: rig.site.at("/api/fail"),
        status: 500,
    };
    // What the resource timeline shows: the image, and the fetch made before the observer
    // (whose method it does not know), in the order they started; not the browser's icon.
    let mut early = unwatched.events.failed_requests.clone();
    early.sort_by(|a, b| a.url.cmp(&b.url));
    assert_eq!(early, [early_fetch, missing_image.clone()]);

    rig.session
        .watch_page_events()
        .await
        .expect("watching starts");
    rig.session
        .watch_page_events()
        .await
        .expect("a second call is harmless");
    for round in ["watched", "after a reset"] {
        rig.open("/load-error.html").await;
        rig.until(loaded()).await;
        let seen = rig.observe(&[]).await;
        assert_eq!(
            seen.events.errors,
            strings(&["Uncaught ReferenceError: missing is not defined"]),
            "{round}"
        );
        let fetched = FailedRequest {
            method: "GET".into(),
            url: rig.site.at("/api/fail"),
            status: 500,
        };
        assert_eq!(
            seen.events.failed_requests,
            [fetched, missing_image.clone()],
            "{round}: each request once, the fetch by its wrapper"
        );
        assert_eq!(
            rig.observe(&[]).await.events,
            PageEvents::default(),
            "{round}"
        );
        rig.session.reset().await.expect("the session resets");
    }

    let opened = rig
        .session
        .goto(&rig.site.at("/server-error.html"))
        .await
        .expect("an HTTP error page still opens");
    assert_eq!(opened.status, Some(500));
    let seen = rig.observe(&[]).await;
    assert_eq!((seen.status, seen.title.as_str()), (500, "Oops"));
    assert_eq!(
        check("status < 500", &seen),
        Verdict::Violated {
            seen: vec!["status = 500".to_owned()]
        }
    );
    rig.close().await;
}

/// Places two orders: the first must add exactly one, and both together two since the page
/// was ready; the count shown must match the list, with no error on the way.
fn orders_plan(start: &str) -> Plan {
    let place = json!({
        "selector": "#place",
        "identity": { "tag": "button", "role": "button", "name": "Place order" }
    });
    common::plan(
        "orders",
        start,
        json!([
            { "id": "ready", "type": "wait_for", "target": place },
            { "id": "first", "type": "click", "target": place, "expect": [
                { "kind": "holds", "predicate": "count('.order') == before.count('.order') + 1" }
            ]},
            { "id": "second", "type": "click", "target": place, "expect": [
                { "kind": "holds", "predicate": "count('.order') == before.count('.order') + 2", "since": "ready" },
                { "kind": "holds", "predicate": "number('.count') == count('.order') && errors.size() == 0" }
            ]}
        ]),
    )
}

/// Over WebDriver BiDi, in each browser: the observer runs as a preload script, so an error
/// thrown while a page loads is seen in Firefox too (which has no DevTools to install it with
/// under Classic); and what the page does reaches the session as events pushed on the socket,
/// with no script sent to the page to ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_bidi_errors_during_load_are_seen_and_events_are_pushed_in_each_browser() {
    for kind in common::browsers() {
        let rig = Rig::start_speaking(kind, Protocol::Bidi).await;
        assert_eq!(rig.session.protocol(), Protocol::Bidi, "{kind}");
        rig.session
            .watch_page_events()
            .await
            .expect("watching starts");
        rig.open("/load-error.html").await;
        rig.until(fetched_and_loaded()).await;
        let seen = rig.observe(&[]).await;
        assert_eq!(seen.events.errors.len(), 1, "{kind}: {:?}", seen.events);
        assert!(
            seen.events.errors[0].contains("missing is not defined"),
            "{kind}: {:?}",
            seen.events
        );

        let (sent, _) = rig.session.bidi_traffic().expect("a BiDi session");
        let heard = rig.session.heard_page_events().expect("a BiDi session");
        assert_eq!(
            rig.session.bidi_traffic().expect("a BiDi session").0,
            sent,
            "{kind}: hearing what was pushed sends nothing"
        );
        assert!(
            heard
                .errors
                .iter()
                .any(|e| e.contains("missing is not defined")),
            "{kind}: the exception, pushed: {heard:?}"
        );
        let fail = rig.site.at("/api/fail");
        assert!(
            heard
                .failed_requests
                .iter()
                .any(|r| r.url == fail && r.status == 500),
            "{kind}: the failed fetch, pushed: {heard:?}"
        );
        assert_eq!(
            rig.session.heard_page_events(),
            Some(PageEvents::default()),
            "{kind}: each event is heard once"
        );
        rig.session
            .unwatch_page_events()
            .await
            .expect("the preload script goes");
        // Unwatched, nothing is subscribed to: a page's requests cost no events.
        rig.open("/load-error.html").await;
        rig.until(fetched_and_loaded()).await;
        assert_eq!(
            rig.session.heard_page_events(),
            Some(PageEvents::default()),
            "{kind}: nothing heard once unwatched"
        );
        // A BiDi session resets as a Classic one does (Firefox clears its data from its
        // privileged context, which only Classic reaches): a pool keeps it for the next scenario.
        rig.session
            .reset()
            .await
            .unwrap_or_else(|e| panic!("{kind}: a BiDi session resets: {e}"));
        rig.close().await;
    }
}

/// Requests a page leaves behind when it navigates away are cancelled by the browser, not
/// failed by the server: no failed request is recorded, in either browser, under either protocol.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_cancelled_by_leaving_the_page_are_not_failures_in_each_browser() {
    for kind in common::browsers() {
        for protocol in [Protocol::Classic, Protocol::Bidi] {
            let rig = Rig::start_speaking(kind, protocol).await;
            rig.session
                .watch_page_events()
                .await
                .expect("watching starts");
            rig.open("/abandon.html").await;
            rig.until_text("Thanks").await;
            // Past the time the slow answers would have taken.
            tokio::time::sleep(Duration::from_millis(800)).await;
            let seen = rig.observe(&[]).await;
            assert_eq!(
                seen.events.failed_requests,
                [],
                "{kind} over {}: {:?}",
                protocol.as_str(),
                seen.events
            );
            if let Some(heard) = rig.session.heard_page_events() {
                assert_eq!(
                    heard.failed_requests,
                    [],
                    "{kind} over BiDi, pushed: {heard:?}"
                );
            }
            rig.close().await;
        }
    }
}

#[tokio::test]
async fn a_plan_with_holds_passes_on_a_correct_page_and_says_what_it_saw_on_a_broken_one() {
    let rig = Rig::start().await;
    let executor = rig.executor();
    executor
        .run(&orders_plan("/orders.html"))
        .await
        .unwrap_or_else(|failure| panic!("the correct page passes: {failure}"));

    let failure = executor
        .run(&orders_plan("/orders-twice.html"))
        .await
        .expect_err("two orders for one click fail");
    assert_eq!(failure.action_id, "first");
    let FailureCause::Unmet(unmet) = &failure.cause else {
        panic!("{failure}");
    };
    assert_eq!(
        unmet[0].to_string(),
        r#"expected holds "count('.order') == before.count('.order') + 1": it is false: count(".order") = 4; before.count(".order") = 2"#
    );

    let failure = executor
        .run(&orders_plan("/orders-throws.html"))
        .await
        .expect_err("an error after the order fails");
    assert_eq!(failure.action_id, "second");
    let message = failure.cause.to_string();
    assert!(
        message.starts_with(
            r#"expected holds "number('.count') == count('.order') && errors.size() == 0": it is false: "#
        ) && message.contains(
            r#"errors = ["Uncaught TypeError: Cannot read properties of null (reading 'total')"]"#
        ),
        "{message}"
    );
    rig.close().await;
}

#[tokio::test]
async fn a_holds_is_believed_only_once_the_page_is_quiet() {
    let rig = Rig::start().await;
    let executor = rig.executor();
    let place = json!({
        "selector": "#place",
        "identity": { "tag": "button", "role": "button", "name": "Place order" }
    });
    // True right after the click, false once the page's own request is answered.
    let plan = common::plan(
        "late",
        "/late.html",
        json!([
            { "id": "ready", "type": "wait_for", "target": place },
            { "id": "first", "type": "click", "target": place, "expect": [
                { "kind": "holds", "predicate": "count('.order') == before.count('.order') + 1" }
            ]}
        ]),
    );
    let failure = executor
        .run(&plan)
        .await
        .expect_err("the second order, once answered, breaks the rule");
    assert_eq!(failure.action_id, "first");
    assert!(
        failure.cause.to_string().contains(r#"count(".order") = 2"#),
        "{failure}"
    );
    // Markup that runs as the next page's image fails: the plan's documents are watched from
    // their start, and the rule is judged once the page has loaded.
    let next = json!({
        "selector": "#next",
        "identity": { "tag": "a", "role": "link", "name": "Search" }
    });
    let plan = common::plan(
        "marked",
        "/late.html",
        json!([
            { "id": "go", "type": "click", "target": next, "expect": [
                { "kind": "holds", "predicate": "size(markers) == 0" }
            ]}
        ]),
    );
    let failure = executor.run(&plan).await.expect_err("the markup ran");
    assert!(
        failure.cause.to_string().contains(r#"markers = ["ran"]"#),
        "{failure}"
    );
    rig.close().await;
}

const ORDERS_SCENARIO: &str = r#"task: Place two orders.
start_url: /orders.html
steps:
  - wait for "Place order"
  - click "Place order"
  - expect holds "count('.order') == before.count('.order') + 1" since step 1
  - click "Place order"
expect:
  - holds 'count(".order") == before.count(".order") + 1'
  - holds count('.order') == before.count('.order') + 2 since step 1
  - holds "number('.count') == count('.order')"
"#;

fn orders_scenario(start: &str) -> windup_core::model::scenario::Scenario {
    let text = ORDERS_SCENARIO.replace("/orders.html", start);
    windup_core::model::scenario::parse(
        &text,
        Path::new("scenarios/orders.yaml"),
        Path::new("scenarios"),
    )
    .unwrap_or_else(|e| panic!("the scenario parses: {e}"))
}

#[tokio::test]
async fn holds_steps_plan_offline_into_holds_postconditions_that_replay() {
    let rig = Rig::start().await;
    let scenario = orders_scenario("/orders.html");
    let executor = rig.executor();
    let planned = OfflinePlanner
        .plan(&scenario, &executor)
        .await
        .unwrap_or_else(|failure| panic!("the scenario plans: {failure}"));
    let holds = |id: &str| -> Vec<Postcondition> {
        let action = planned.plan.actions.iter().find(|a| a.id == id).unwrap();
        action
            .expect
            .iter()
            .filter(|c| c.kind() == "holds")
            .cloned()
            .collect()
    };
    let condition = |predicate: &str, since: Option<&str>| Postcondition::Holds {
        predicate: predicate.to_owned(),
        since: since.map(str::to_owned),
    };
    assert_eq!(
        holds("s3"),
        [condition(
            "count('.order') == before.count('.order') + 1",
            Some("s1")
        )]
    );
    assert_eq!(
        holds("s4"),
        [
            condition(r#"count(".order") == before.count(".order") + 1"#, None),
            condition("count('.order') == before.count('.order') + 2", Some("s1")),
            condition("number('.count') == count('.order')", None),
        ]
    );
    rig.executor()
        .run(&planned.plan)
        .await
        .unwrap_or_else(|failure| panic!("the plan replays: {failure}"));

    let broken = orders_scenario("/orders-twice.html");
    let failure = OfflinePlanner
        .plan(&broken, &rig.executor())
        .await
        .expect_err("two orders for one click fail");
    assert_eq!(failure.action_id, "s3");
    assert!(
        failure
            .cause
            .to_string()
            .ends_with(r#"it is false: count(".order") = 4; before.count(".order") = 2"#),
        "{failure}"
    );
    rig.close().await;
}

/// The last step lands, a moment after its click, on the page the scenario's expectation is
/// about: planning records that page as replaying does (planning once missed it, as it looks at
/// the page before the expectation waits for it).
#[tokio::test]
async fn the_page_a_run_ends_on_is_recorded_when_planned_and_when_replayed() {
    let rig = Rig::start().await;
    let scenario = windup_core::model::scenario::parse(
        "task: Go on.\nstart_url: /leave.html\nsteps:\n  - click \"Go on\"\nexpect:\n  - text \"Arrived\"\n",
        Path::new("scenarios/arrive.yaml"),
        Path::new("scenarios"),
    )
    .unwrap_or_else(|e| panic!("the scenario parses: {e}"));
    let executor = rig.executor();
    let paths = || -> Vec<String> { executor.take_visits().into_iter().map(|v| v.path).collect() };
    let planned = OfflinePlanner
        .plan(&scenario, &executor)
        .await
        .unwrap_or_else(|failure| panic!("the scenario plans: {failure}"));
    assert_eq!(paths(), ["/leave.html", "/arrive.html"], "planned");
    executor
        .run(&planned.plan)
        .await
        .unwrap_or_else(|failure| panic!("the plan replays: {failure}"));
    assert_eq!(paths(), ["/leave.html", "/arrive.html"], "replayed");
    rig.close().await;
}

/// A click that submits a form returns once the answer has replaced the form's page, so that a
/// next action (here a `goto`) cannot cancel the submission on its way. A click whose
/// postconditions look at the page itself leaves that wait to their first look: a condition that
/// holds on the form's page too is checked on the page the answer brings. In each browser.
#[tokio::test]
async fn a_click_that_submits_returns_once_the_answer_replaced_the_form() {
    // Both clicks post to the same counter: one test, so that they never run at once.
    let expectations = [
        ("no postcondition", None),
        (
            "a postcondition that holds on both pages",
            Some(json!([{ "kind": "text_absent", "text": "Something went wrong" }])),
        ),
    ];
    for kind in common::browsers() {
        let rig = Rig::start_in(kind).await;
        for (what, expect) in &expectations {
            let mut send = json!({ "id": "send", "type": "click",
                "target": { "selector": "#send", "identity": { "tag": "button", "name": "Send" } } });
            if let Some(expect) = expect {
                send["expect"] = expect.clone();
            }
            let plan = common::plan(
                "post",
                "/post-slow.html",
                json!([
                    send,
                    { "id": "away", "type": "goto", "url": "/after.html",
                      "expect": [{ "kind": "text_visible", "text": "Thanks" }] }
                ]),
            );
            let before = POSTED.load(std::sync::atomic::Ordering::SeqCst);
            let run = rig
                .executor()
                .run(&plan)
                .await
                .unwrap_or_else(|failure| panic!("{kind}, {what}: the plan runs: {failure}"));
            assert_eq!(
                POSTED.load(std::sync::atomic::Ordering::SeqCst),
                before + 1,
                "{kind}, {what}: the post was answered before the goto"
            );
            assert!(
                run.actions[0].duration >= Duration::from_millis(600),
                "{kind}, {what}: the click waited for the answer: {:?}",
                run.actions[0].duration
            );
        }
        rig.close().await;
    }
}

/// A click that opens another page tells where it landed in its own script, which reads the
/// clicked element from the page (a reference the driver holds is stale on the new page, and
/// the script failed): nothing asks the driver for the URL after. In each browser.
#[tokio::test]
async fn a_click_that_opens_a_page_tells_where_it_landed() {
    for kind in common::browsers() {
        let mut rig = Rig::start_in(kind).await;
        rig.options.visits = false;
        let plan = common::plan(
            "link",
            "/link.html",
            json!([
                { "id": "on", "type": "click",
                  "target": { "selector": "#on", "identity": { "tag": "a", "name": "On" } } },
                { "id": "read", "type": "goto", "url": "/after.html",
                  "expect": [{ "kind": "text_visible", "text": "Thanks" }] }
            ]),
        );
        rig.open("/link.html").await;
        let executor = rig.executor();
        executor
            .step("link", &plan.actions[0], 1, 1)
            .await
            .unwrap_or_else(|failure| panic!("{kind}: the click runs: {failure}"));
        let seen = rig.session.seen_url().map(|url| url.path().to_owned());
        assert_eq!(seen.as_deref(), Some("/after.html"), "{kind}");
        rig.close().await;
    }
}

/// A look waits while a submission the gate saw leaves the page, and checks the page that
/// follows: here a submission that navigates 300 ms after it was sent, and a condition that
/// holds on both pages. A submission that replaces nothing (a 204 answer) is waited for 3 s,
/// not for ever. In each browser.
#[tokio::test]
async fn a_look_checks_the_page_a_leaving_submission_brings() {
    for kind in common::browsers() {
        let rig = Rig::start_in(kind).await;
        rig.open("/post-slow.html").await;
        // What the gate's watch records when a form is submitted, and a navigation that comes
        // a moment later, as a submission's answer does.
        rig.session
            .execute_script(
                "window.__windupSubmit = new Event('submit'); \
                 setTimeout(() => { location.href = '/after.html'; }, 300); return true;",
            )
            .await
            .unwrap_or_else(|e| panic!("{kind}: the page takes the script: {e}"));
        rig.until(Postcondition::TextAbsent {
            text: "Something went wrong".into(),
        })
        .await;
        let url = rig.session.current_url().await.expect("the URL reads");
        assert_eq!(url.path(), "/after.html", "{kind}: the look waited");

        rig.session
            .execute_script("window.__windupSubmit = new Event('submit'); return true;")
            .await
            .unwrap_or_else(|e| panic!("{kind}: the page takes the script: {e}"));
        let started = Instant::now();
        let thanks = Postcondition::TextVisible {
            text: "Thanks".into(),
        };
        rig.until_within(thanks, Duration::from_secs(20)).await;
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(2500),
            "{kind}: the look waited for the submission a while: {waited:?}"
        );
        rig.close().await;
    }
}

/// A click that submits a form whose answer replaces nothing (204 No Content) waits 3 s for the
/// page to go, not the whole deadline. In each browser.
#[tokio::test]
async fn a_submission_that_replaces_nothing_is_not_waited_for_until_the_deadline() {
    for kind in common::browsers() {
        let mut rig = Rig::start_in(kind).await;
        rig.options.default_timeout = Duration::from_secs(30);
        let plan = common::plan(
            "post-nothing",
            "/post-nothing.html",
            json!([
                { "id": "send", "type": "click",
                  "target": { "selector": "#send", "identity": { "tag": "button", "name": "Send" } },
                  "expect": [{ "kind": "url_matches", "pattern": "/post-nothing.html" }] }
            ]),
        );
        let run = rig
            .executor()
            .run(&plan)
            .await
            .unwrap_or_else(|failure| panic!("{kind}: the plan runs: {failure}"));
        let took = run.actions[0].duration;
        assert!(
            took < Duration::from_secs(20),
            "{kind}: the click waited for a page that never goes: {took:?}"
        );
        rig.close().await;
    }
}

/// Typing a capital or an upper sign holds Shift around it, as a person and Send Keys do, so the
/// page's key events are the same over WebDriver Classic and BiDi, in each browser.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shifted_character_is_typed_with_shift_over_either_protocol() {
    let field = json!({
        "selector": "#field",
        "identity": { "tag": "input", "name": "Field" }
    });
    let plan = common::plan(
        "keys",
        "/keys.html",
        json!([
            { "id": "t", "type": "type", "target": field, "value": "aB!c", "expect": [
                { "kind": "input_value", "selector": "#field", "value": "aB!c" }
            ]}
        ]),
    );
    for kind in common::browsers() {
        for protocol in [Protocol::Classic, Protocol::Bidi] {
            let rig = Rig::start_speaking(kind, protocol).await;
            rig.executor()
                .run(&plan)
                .await
                .unwrap_or_else(|f| panic!("{kind} over {}: {f}", protocol.as_str()));
            let seen = rig.observe(&[("#keys li", Field::Text)]).await;
            // Shift's own events aside (chromedriver's Send Keys presses it anew for each sign).
            let keys: Vec<String> = seen
                .texts(&Probe {
                    selector: "#keys li".to_owned(),
                    field: Field::Text,
                })
                .expect("the keys are read")
                .iter()
                .map(|k| k.text().into_owned())
                .filter(|k| !matches!(k.as_str(), "Shift" | "Shift+Shift"))
                .collect();
            // geckodriver's Send Keys types the character alone (docs/browsers.md#firefox).
            let expected = if kind == BrowserKind::Firefox && protocol == Protocol::Classic {
                ["a", "B", "!", "c"]
            } else {
                ["a", "Shift+B", "Shift+!", "c"]
            };
            assert_eq!(keys, expected, "{kind} over {}", protocol.as_str());
            rig.close().await;
        }
    }
}

/// Opening a page sends an absolute URL to the driver as it is, and a relative one resolved
/// against the page open now; a page that cannot be reached is the browser's network error, in
/// Chromium's names. In each browser.
#[tokio::test]
async fn goto_opens_absolute_and_relative_urls_and_names_an_unreachable_one() {
    let closed = common::closed_port();
    let port = closed.port();
    for kind in common::browsers() {
        let rig = Rig::start_in(kind).await;
        rig.open("/post-slow.html").await;
        rig.session
            .goto("after.html")
            .await
            .unwrap_or_else(|e| panic!("{kind}: a relative URL opens: {e}"));
        let url = rig.session.current_url().await.expect("the URL reads");
        assert_eq!(url.path(), "/after.html", "{kind}");

        let unreachable = format!("http://127.0.0.1:{port}/");
        match rig.session.goto(&unreachable).await {
            Err(BrowserError::Navigation(error)) => {
                assert_eq!(error.code, "ERR_CONNECTION_REFUSED", "{kind}");
                assert_eq!(error.url, unreachable, "{kind}");
            }
            other => panic!("{kind}: {unreachable} opened: {other:?}"),
        }
        rig.close().await;
    }
}

/// Every observation reads the page as one instant: on a page whose text changes every 2 ms, in
/// 1,000 observations no reading mixes two moments (each probe, the rows and a frame's text agree).
/// In each browser.
#[tokio::test]
async fn a_reading_is_one_instant_of_a_page_that_keeps_changing() {
    for kind in common::browsers() {
        let rig = Rig::start_in(kind).await;
        rig.open("/ticking.html").await;
        let mut seen = BTreeSet::new();
        for look in 0..1000 {
            let page = rig
                .observe(&[
                    ("#a", Field::Text),
                    ("#b", Field::Text),
                    ("#rows li", Field::Text),
                    ("#c", Field::Text),
                ])
                .await;
            let read = |selector: &str| -> Vec<String> {
                let probe = Probe {
                    selector: selector.to_owned(),
                    field: Field::Text,
                };
                page.texts(&probe)
                    .unwrap_or_default()
                    .iter()
                    .map(|r| r.text().into_owned())
                    .collect()
            };
            let (a, b, rows, c) = (read("#a"), read("#b"), read("#rows li"), read("#c"));
            assert_eq!(a.len(), 1, "{kind}: look {look}: {a:?}");
            let n: usize = a[0].parse().expect("a count");
            assert_eq!(b, a, "{kind}: look {look}: #a and #b read at two moments");
            assert_eq!(
                c, a,
                "{kind}: look {look}: the frame read at another moment"
            );
            assert_eq!(
                rows.len(),
                n % 4 + 1,
                "{kind}: look {look}: rows {rows:?} of count {n}"
            );
            assert!(
                rows.iter().all(|r| *r == a[0]),
                "{kind}: look {look}: {rows:?} of {n}"
            );
            seen.insert(n);
        }
        assert!(
            seen.len() > 200,
            "{kind}: the page kept changing: {} counts seen",
            seen.len()
        );
        rig.close().await;
    }
}
