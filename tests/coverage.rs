//! Branch coverage of an app under audit, in each browser over BiDi: the app's scripts (a module,
//! a classic script its page pins with a hash, an inline script) are instrumented as they load,
//! the page still works as it did (its own requests go on, its pinned script runs, its stack
//! traces keep their line numbers), and every observation reads the edges taken since the last —
//! a branch not yet taken shows once, a branch taken again never. A Classic session says why it
//! cannot count.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use base64::Engine;
use sha2::Digest;
use windup_core::browser::{
    Actionable, AfterClick, Browser, BrowserConfig, BrowserKind, Clicked, GateMode, Key, Protocol,
    Session,
};
use windup_core::model::invariant::{Field, Observation, Probe};

const APP: &str = "const out = document.querySelector('#out');
let clicks = 0;
function where() {
  return new Error('here').stack;
}
document.querySelector('#more').addEventListener('click', () => {
  clicks += 1;
  if (clicks % 2 === 0) { out.textContent = 'even ' + clicks; } else { out.textContent = 'odd ' + clicks; }
});
document.querySelector('#stack').textContent = where();
fetch('/api/data').then((r) => r.json()).then((d) => { document.querySelector('#data').textContent = d.name; });
";

const LIB: &str =
    "document.querySelector('#lib').textContent = window.ready ? 'pinned ran' : 'early';\n";

fn page() -> String {
    let pin = base64::engine::general_purpose::STANDARD.encode(sha2::Sha384::digest(LIB));
    format!(
        "<!doctype html><html><head><title>Counted</title></head><body>\
         <button id=\"more\">More</button><p id=\"out\">none</p><p id=\"stack\"></p>\
         <p id=\"data\">waiting</p><p id=\"lib\">not run</p>\
         <script>window.ready = document.readyState !== 'complete' ? true : 1;</script>\
         <script src=\"/lib.js\" integrity=\"sha384-{pin}\" crossorigin=\"anonymous\"></script>\
         <script type=\"module\" src=\"/app.js\"></script></body></html>"
    )
}

async fn site() -> common::Site {
    let js = |body: &'static str| {
        move || async move { ([(header::CONTENT_TYPE, "text/javascript")], body).into_response() }
    };
    let app = Router::new()
        .route(
            "/",
            get(|| async {
                (
                    [(header::SET_COOKIE, "visit=seen; Path=/")],
                    axum::response::Html(page()),
                )
            }),
        )
        .route("/app.js", get(js(APP)))
        .route("/lib.js", get(js(LIB)))
        .route(
            "/api/data",
            get(|headers: axum::http::HeaderMap| async move {
                let cookie = headers
                    .get(header::COOKIE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("no cookie")
                    .to_owned();
                axum::Json(serde_json::json!({ "name": format!("from the API ({cookie})") }))
            }),
        );
    common::Site::serve(app).await
}

async fn session(kind: BrowserKind, protocol: Protocol) -> (Browser, Session) {
    let config = BrowserConfig {
        kind,
        protocol,
        ..common::browser_config()
    };
    let browser = Browser::launch(config)
        .await
        .unwrap_or_else(|e| panic!("{kind}'s driver starts (cargo windup setup): {e}"));
    let session = browser.new_session().await.expect("a session opens");
    (browser, session)
}

fn probes() -> BTreeSet<Probe> {
    ["#out", "#stack", "#data", "#lib"]
        .into_iter()
        .map(|selector| Probe {
            selector: selector.to_owned(),
            field: Field::Text,
        })
        .collect()
}

fn text(page: &Observation, selector: &str) -> String {
    let probe = Probe {
        selector: selector.to_owned(),
        field: Field::Text,
    };
    page.texts(&probe)
        .and_then(|texts| texts.first())
        .map(|reading| reading.text().into_owned())
        .unwrap_or_default()
}

fn count(page: &Observation) -> usize {
    page.edges.values().map(Vec::len).sum()
}

/// Looks until the page has fetched its data (at most 10 s), keeping every edge seen.
async fn loaded(session: &Session) -> (Observation, usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut edges = 0;
    loop {
        let page = session
            .observe(&probes())
            .await
            .expect("the page is observed");
        edges += count(&page);
        if text(&page, "#data") != "waiting" || Instant::now() >= deadline {
            return (page, edges);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn click_more(session: &Session) -> Observation {
    session
        .execute_script("document.querySelector('#more').click(); return true;")
        .await
        .expect("More is clicked");
    session
        .observe(&probes())
        .await
        .expect("the page is observed")
}

#[tokio::test]
async fn an_apps_scripts_are_counted_as_they_load_and_each_branch_shows_once() {
    for kind in common::browsers() {
        let site = site().await;
        let (_browser, session) = session(kind, Protocol::Bidi).await;
        let origin: url::Url = site.url.parse().expect("the site's URL parses");
        session
            .cover(&origin)
            .await
            .unwrap_or_else(|why| panic!("{kind}: coverage starts: {why}"));
        session
            .goto(&format!("{}/", site.url))
            .await
            .expect("the page opens");
        let (page, at_load) = loaded(&session).await;

        assert_eq!(
            text(&page, "#data"),
            "from the API (visit=seen)",
            "{kind}: the app's own request went on, with the cookie its page set"
        );
        assert_eq!(
            text(&page, "#lib"),
            "pinned ran",
            "{kind}: the pinned script ran"
        );
        let stack = text(&page, "#stack");
        assert!(
            stack.contains("app.js:4:"),
            "{kind}: the line of `new Error` is the app's own: {stack}"
        );
        let stats = session.coverage().expect("coverage is on");
        assert_eq!(
            stats.scripts.len(),
            3,
            "{kind}: the inline, pinned and module scripts: {stats:?}"
        );
        assert!(
            stats.refused.is_empty() && stats.unfetched == 0,
            "{kind}: {stats:?}"
        );
        assert!(at_load > 0, "{kind}: loading the page took edges");
        assert!(
            (at_load as u64) < stats.edges(),
            "{kind}: not every edge is taken at load ({at_load} of {})",
            stats.edges()
        );

        let first = click_more(&session).await;
        assert_eq!(text(&first, "#out"), "odd 1", "{kind}");
        assert!(
            count(&first) > 0,
            "{kind}: the handler and its odd branch are new"
        );
        let second = click_more(&session).await;
        assert_eq!(text(&second, "#out"), "even 2", "{kind}");
        assert_eq!(
            count(&second),
            1,
            "{kind}: only the even branch is new: {:?}",
            second.edges
        );
        let third = click_more(&session).await;
        assert_eq!(text(&third, "#out"), "odd 3", "{kind}");
        assert_eq!(
            count(&third),
            0,
            "{kind}: nothing is new the third time: {:?}",
            third.edges
        );

        session.close().await.expect("the session closes");
    }
}

#[tokio::test]
async fn a_classic_session_says_why_it_cannot_count() {
    let site = site().await;
    let (_browser, session) = session(BrowserKind::Chromium, Protocol::Classic).await;
    let origin: url::Url = site.url.parse().expect("the site's URL parses");
    let why = session
        .cover(&origin)
        .await
        .expect_err("Classic cannot count");
    assert!(why.contains("Classic") && why.contains("bidi"), "{why}");
    assert!(session.coverage().is_none());
    session
        .goto(&format!("{}/", site.url))
        .await
        .expect("the page opens");
    let page = session
        .observe(&probes())
        .await
        .expect("the page is observed");
    assert!(page.edges.is_empty(), "{:?}", page.edges);
    session.close().await.expect("the session closes");
}

const NEXT_JS: &str = "document.querySelector('#ran').textContent = \
    location.pathname === '/next' ? 'next ran' : 'done ran';\n";

/// A server-rendered site whose link and form (sent by its button or by Enter) each open a page
/// with a script: the navigations a counting session holds. The form's answer sets a cookie, and
/// the page it leads to shows the cookies it was asked for with.
async fn forms() -> common::Site {
    use axum::extract::{Form, Query};
    use axum::http::HeaderMap;
    use axum::response::{Html, Redirect};
    use axum::routing::post;
    use std::collections::HashMap;
    let page = |title: &str, body: &str| {
        Html(format!(
            "<!doctype html><html><head><title>{title}</title></head><body>{body}\
             <p id=\"ran\">not run</p><script src=\"/next.js\"></script></body></html>"
        ))
    };
    let home = page(
        "Home",
        "<a id=\"next\" href=\"/next\">Next</a>\
         <form method=\"post\" action=\"/sent\"><label>Word <input id=\"word\" name=\"word\">\
         </label><button id=\"send\">Send</button></form>",
    );
    let next = page("Next", "<h1>Next</h1>");
    let app = Router::new()
        .route("/", get(move || async move { home }))
        .route("/next", get(move || async move { next }))
        .route(
            "/sent",
            post(|Form(form): Form<HashMap<String, String>>| async move {
                let word = form.get("word").cloned().unwrap_or_default();
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("word", &word)
                    .finish();
                // 303 See Other with a session's cookie, as a server-rendered form answers.
                (
                    [(header::SET_COOKIE, format!("sent={word}; Path=/"))],
                    Redirect::to(&format!("/done?{query}")),
                )
            }),
        )
        .route(
            "/done",
            get(
                |Query(query): Query<HashMap<String, String>>, headers: HeaderMap| async move {
                    let word = query.get("word").cloned().unwrap_or_default();
                    let cookie = headers
                        .get(header::COOKIE)
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("no cookie")
                        .to_owned();
                    Html(format!(
                        "<!doctype html><html><head><title>Done</title></head><body>\
                         <h1 id=\"word\">{word}</h1><p id=\"cookie\">{cookie}</p>\
                         <p id=\"ran\">not run</p><script src=\"/next.js\"></script></body></html>"
                    ))
                },
            ),
        )
        .route(
            "/next.js",
            get(|| async { ([(header::CONTENT_TYPE, "text/javascript")], NEXT_JS) }),
        );
    common::Site::serve(app).await
}

/// A BiDi session that holds the site's requests to count its scripts, as the audit's does.
async fn counting(kind: BrowserKind, site: &common::Site) -> (Browser, Session) {
    let config = BrowserConfig {
        kind,
        protocol: Protocol::Bidi,
        intercepts: true,
        ..common::browser_config()
    };
    let browser = Browser::launch(config)
        .await
        .unwrap_or_else(|e| panic!("{kind}'s driver starts (cargo windup setup): {e}"));
    let session = browser.new_session().await.expect("a session opens");
    let origin: url::Url = site.url.parse().expect("the site's URL parses");
    session
        .cover(&origin)
        .await
        .unwrap_or_else(|why| panic!("{kind}: coverage starts: {why}"));
    (browser, session)
}

/// What a page of the site says once its script ran.
#[derive(Debug, PartialEq)]
struct Landed {
    ran: String,
    word: String,
    cookie: String,
}

/// Waits (at most 10 s) until the page at `path` has run its script after `step`, and answers
/// what it says.
async fn arrived(session: &Session, kind: BrowserKind, step: &str, path: &str) -> Landed {
    let deadline = Instant::now() + Duration::from_secs(10);
    let read = "const text = (s) => (document.querySelector(s) || {}).textContent || ''; \
                return { ran: text('#ran'), word: text('h1#word'), cookie: text('#cookie') };";
    loop {
        let url = session.current_url().await.unwrap_or_else(|e| {
            panic!("{kind}, {step}: the URL is read on the way to {path}: {e}")
        });
        if url.path() == path {
            let said = session.execute_script(read).await.unwrap_or_default();
            let text = |key: &str| said[key].as_str().unwrap_or_default().to_owned();
            if !matches!(text("ran").as_str(), "" | "not run") {
                return Landed {
                    ran: text("ran"),
                    word: text("word"),
                    cookie: text("cookie"),
                };
            }
        }
        assert!(
            Instant::now() < deadline,
            "{kind}, {step}: the page at {path} did not arrive (still at {url})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn actionable(session: &Session, selector: &str, mode: GateMode) -> Actionable {
    let deadline = Instant::now() + Duration::from_secs(10);
    session
        .wait_actionable(selector, mode, None, deadline)
        .await
        .expect("the browser answers")
        .unwrap_or_else(|probe| panic!("{selector} is actionable: {probe:?}"))
}

async fn home(session: &Session, site: &common::Site, kind: BrowserKind) {
    session
        .goto(&site.at("/"))
        .await
        .expect("the home page opens");
    arrived(session, kind, "opening the home page", "/").await;
}

/// The page a form sent with `word` lands on: its script ran, and it was asked for with the
/// cookie the form's answer set.
fn sent(word: &str) -> Landed {
    Landed {
        ran: "done ran".to_owned(),
        word: word.to_owned(),
        cookie: format!("sent={word}"),
    }
}

/// In each browser, a session that holds its pages' requests to count their scripts (the audit's,
/// by default) clicks a link, sends a form with its button, with Enter typed and with Enter
/// pressed, and each time lands on the next page with its script counted: nothing it does waits
/// behind a held request (chromedriver held Classic commands so, until they gave up after 3 s).
#[tokio::test]
async fn a_counting_session_follows_links_and_sends_forms_to_pages_with_scripts() {
    for kind in common::browsers() {
        let site = forms().await;
        let (_browser, session) = counting(kind, &site).await;
        let deadline = || Instant::now() + Duration::from_secs(10);

        home(&session, &site, kind).await;
        let link = actionable(&session, "#next", GateMode::Click).await;
        let clicked = session.click(&link, AfterClick::Settle, deadline()).await;
        assert!(
            matches!(clicked, Ok(Clicked::Done { .. })),
            "{kind}: {clicked:?}"
        );
        let landed = arrived(&session, kind, "the link", "/next").await;
        assert_eq!(
            landed.ran, "next ran",
            "{kind}: the link's page ran its script"
        );

        home(&session, &site, kind).await;
        let field = actionable(&session, "#word", GateMode::Fill).await;
        session.type_into(&field, "sent").await.expect("typed");
        let send = actionable(&session, "#send", GateMode::Click).await;
        let clicked = session.click(&send, AfterClick::Settle, deadline()).await;
        assert!(
            matches!(clicked, Ok(Clicked::Done { .. })),
            "{kind}: {clicked:?}"
        );
        assert_eq!(
            arrived(&session, kind, "the button", "/done").await,
            sent("sent"),
            "{kind}: the form's button sent it to a page that ran its script"
        );

        home(&session, &site, kind).await;
        let field = actionable(&session, "#word", GateMode::Fill).await;
        session
            .type_into(&field, "typed\n")
            .await
            .unwrap_or_else(|e| panic!("{kind}: typed with Enter: {e}"));
        assert_eq!(
            arrived(&session, kind, "typing Enter", "/done").await,
            sent("typed"),
            "{kind}: Enter in the field sent the form"
        );

        home(&session, &site, kind).await;
        let field = actionable(&session, "#word", GateMode::Fill).await;
        session.type_more(&field, "pressed").await.expect("typed");
        session
            .press_in(&field, Key::named("Enter").expect("Enter"))
            .await
            .unwrap_or_else(|e| panic!("{kind}: Enter pressed: {e}"));
        assert_eq!(
            arrived(&session, kind, "pressing Enter", "/done").await,
            sent("pressed"),
            "{kind}: Enter pressed in the field sent the form"
        );

        let stats = session.coverage().expect("coverage is on");
        let script = windup_core::browser::coverage::script_id(NEXT_JS);
        assert!(
            stats.scripts.contains_key(&script),
            "{kind}: the pages' script was counted: {stats:?}"
        );
        assert!(
            stats.refused.is_empty() && stats.unfetched == 0,
            "{kind}: {stats:?}"
        );
        session.close().await.expect("the session closes");
    }
}
