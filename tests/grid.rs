//! Windup on a real Selenium Grid (the server jar that tools/selenium pins, run by Java): the
//! shop's scenarios through the Grid with two workers in Chromium and in Firefox, a reset through
//! the Grid that forgets the shop's login and cart, a session that speaks WebDriver BiDi through
//! the Grid's router, and a Grid that leaves no session and no process behind. One Grid serves the whole file: its JVM takes seconds to start.

mod common;

use std::time::{Duration, Instant};

use common::grid::{Grid, MAX_SESSIONS};
use common::{SHOP_SCENARIOS, plan, plan_file, processes_in_group};
use serde_json::json;
use windup::{Selection, Settings, Suite};
use windup_core::browser::{BrowserKind, Protocol};
use windup_core::config::UpdateMode;
use windup_core::engine::executor::NoValues;
use windup_core::engine::ledger::CacheOutcome;
use windup_core::{
    browser::Browser, browser::BrowserConfig, browser::Session, engine::executor::ExecOptions,
    engine::executor::Executor,
};
use windup_shop::RunningShop;

/// Scenarios at once, each in its own session on the Grid.
const WORKERS: usize = 2;
const _: () = assert!(
    WORKERS <= MAX_SESSIONS,
    "the Grid runs every worker's session at once"
);

#[tokio::test]
async fn windup_runs_the_shop_on_a_selenium_grid_and_leaves_nothing_behind() {
    let grid = Grid::start().await;
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the shop starts");
    for kind in BrowserKind::ALL {
        the_shop_s_scenarios_pass_two_at_a_time(&grid, &shop, kind).await;
    }
    for kind in BrowserKind::ALL {
        a_remote_reset_forgets_the_login_and_the_cart(&grid, &shop, kind).await;
    }
    for kind in BrowserKind::ALL {
        a_session_through_the_grid_speaks_bidi_and_hears_the_page(&grid, &shop, kind).await;
    }
    let group = grid.stop();
    assert_group_ends(group);
}

/// The shop's scenarios (less the one that fails by design) pass through the Grid with two
/// workers, from the committed plans, read-only as in CI; both workers' sessions are open on the
/// Grid at once, and none is left when the suite has finished.
async fn the_shop_s_scenarios_pass_two_at_a_time(
    grid: &Grid,
    shop: &RunningShop,
    kind: BrowserKind,
) {
    let project = ShopProject::copy();
    let settings = project.settings(grid, kind);
    assert_eq!(
        settings.update,
        UpdateMode::No,
        "CI keeps the plans read-only"
    );
    let selection = Selection::load(&settings, None, false).expect("the scenarios load");
    let mut ids: Vec<&str> = selection.scenarios.iter().map(|s| s.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids, SHOP_SCENARIOS,
        "the one that fails by design is left out"
    );

    let told = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let heard = std::sync::Arc::clone(&told);
    let running = Suite::new(settings, shop.url().parse().expect("the shop's URL"))
        .reporter(move |event: &windup::RunEvent| {
            heard.lock().unwrap().push(event.to_json().to_string());
        })
        .start(selection.scenarios.len(), Vec::new())
        .await
        .unwrap_or_else(|e| panic!("{kind}: the suite starts on the Grid: {e}"));
    running.run_all(&selection.scenarios).await;
    // Each worker keeps its session until the suite finishes: the Grid holds both at once.
    let open = grid.sessions().await;
    assert_eq!(
        open.len(),
        WORKERS,
        "{kind}: two sessions at once: {open:?}"
    );
    assert_ne!(open[0].id, open[1].id, "{kind}: two different sessions");
    let grid_name = match kind {
        BrowserKind::Chromium => "chrome",
        BrowserKind::Firefox => "firefox",
    };
    assert!(
        open.iter().all(|s| s.browser_name == grid_name),
        "{kind}: {open:?}"
    );

    let finished = running.finish().await;
    for (scenario, result) in &finished.results {
        assert!(
            result.passed(),
            "{kind}: {} failed through the Grid: {:?}\n{}",
            scenario.id,
            result.outcome,
            grid.log_tail()
        );
        assert_eq!(result.cache(), CacheOutcome::Hit, "{kind}: {}", scenario.id);
    }
    assert_eq!(finished.totals.passed, SHOP_SCENARIOS.len(), "{kind}");
    let told = std::mem::take(&mut *told.lock().unwrap());
    assert!(told.len() > SHOP_SCENARIOS.len(), "{kind}: {told:?}");
    assert!(
        told.iter().all(|event| !event.contains(grid.password())),
        "{kind}: the Grid's password in an event"
    );
    grid.assert_no_session_left(&format!("the {kind} suite"))
        .await;
}

/// The test's browser settings for a session of `kind` through the Grid, over `protocol`.
fn on_the_grid(grid: &Grid, kind: BrowserKind, protocol: Protocol) -> BrowserConfig {
    BrowserConfig {
        kind,
        webdriver_url: Some(grid.url().to_owned()),
        protocol,
        ..common::browser_config()
    }
}

/// A session on the Grid logs in and fills its cart, then leaves for another origin (the same
/// shop by the name `localhost`), so that the login and the cart belong to a page no longer open
/// when the reset comes. After the reset the shop has forgotten both, and the storage is empty.
async fn a_remote_reset_forgets_the_login_and_the_cart(
    grid: &Grid,
    shop: &RunningShop,
    kind: BrowserKind,
) {
    let config = on_the_grid(grid, kind, Protocol::Classic);
    let browser = Browser::launch(config)
        .await
        .expect("the Grid is reachable");
    assert_eq!(browser.driver_process_group(), None, "no local driver");
    let session = browser
        .new_session()
        .await
        .unwrap_or_else(|e| panic!("{kind}: a session opens on the Grid: {e}"));
    let artifacts = tempfile::tempdir().expect("a directory for screenshots");
    let mut options = ExecOptions::new(shop.url().parse().expect("the shop's URL"));
    options.artifacts_dir = artifacts.path().to_owned();
    let fill_the_cart = plan(
        "fill-the-cart",
        "/products/rust-mug",
        json!([{ "id": "add", "type": "click",
                 "target": target("[data-testid=\"add-to-cart\"]", "button"),
                 "expect": [{ "kind": "url_matches", "pattern": "/cart" },
                            { "kind": "element_visible",
                              "selector": "[data-testid=\"cart-line-rust-mug\"]" }] }]),
    );
    for plan in [plan_file("checkout"), fill_the_cart] {
        Executor::new(&session, &options, &NoValues)
            .run(&plan)
            .await
            .unwrap_or_else(|f| panic!("{kind}: {f}"));
    }
    session
        .execute_script("localStorage.setItem('k', 'v'); sessionStorage.setItem('k', 'v');")
        .await
        .expect("storage is set");
    let elsewhere = shop.url().replace("127.0.0.1", "localhost");
    session
        .goto(&elsewhere)
        .await
        .expect("the other origin opens");

    session
        .reset()
        .await
        .unwrap_or_else(|e| panic!("{kind}: reset: {e}"));
    let blank = session.current_url().await.expect("the URL");
    assert_eq!(blank.as_str(), "about:blank", "{kind}");

    assert_forgotten(&session, &options, kind).await;
    session.close().await.expect("the session closes");
    grid.assert_no_session_left(&format!("the {kind} reset"))
        .await;
}

/// The shop asks to log in for the orders, shows an empty cart, and the page's storage is empty.
async fn assert_forgotten(session: &Session, options: &ExecOptions, kind: BrowserKind) {
    let fresh = plan(
        "fresh",
        "/orders",
        json!([
            { "id": "asked-to-log-in", "type": "wait_for", "target": target("h1", "h1"),
              "expect": [{ "kind": "url_matches", "pattern": "/login*" },
                         { "kind": "text_visible", "text": "Log in" }] },
            { "id": "cart", "type": "goto", "url": "/cart",
              "expect": [{ "kind": "text_visible", "text": "Your cart is empty" }] }
        ]),
    );
    Executor::new(session, options, &NoValues)
        .run(&fresh)
        .await
        .unwrap_or_else(|f| panic!("{kind}: the reset forgot nothing: {f}"));
    let storage = session
        .execute_script("return [localStorage.length, sessionStorage.length];")
        .await
        .expect("storage is read");
    assert_eq!(
        storage,
        json!([0, 0]),
        "{kind}: local and session storage are empty"
    );
}

fn target(selector: &str, tag: &str) -> serde_json::Value {
    json!({ "selector": selector, "identity": { "tag": tag } })
}

/// A copy of this repository's windup.toml, scenarios and their committed plans.
struct ShopProject {
    dir: tempfile::TempDir,
}

impl ShopProject {
    fn copy() -> Self {
        Self {
            dir: common::shop_project(),
        }
    }

    /// The project's settings as CI has them, with the environment a team sets for its Grid.
    fn settings(&self, grid: &Grid, kind: BrowserKind) -> Settings {
        let root = self.dir.path();
        let toml = std::fs::read_to_string(root.join("windup.toml")).expect("windup.toml");
        let env = |name: &str| match name {
            "WINDUP_WEBDRIVER_URL" => Some(grid.url().to_owned()),
            "WINDUP_BROWSER" => Some(kind.as_str().to_owned()),
            "WINDUP_WORKERS" => Some(WORKERS.to_string()),
            "CI" => Some("true".to_owned()),
            _ => None,
        };
        Settings::from_parts(root, Some(&toml), &env).expect("the settings are valid")
    }
}

/// Waits until no live process is left in the Grid's group; panics with the survivors otherwise.
fn assert_group_ends(group: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_in_group(group);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of the Grid's group {group} survived: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Through the Grid's router, a session that asks for BiDi gets it: the observer runs as a
/// preload script in the shop's pages, and an error the page throws later is pushed to the
/// session with no script sent to ask for it.
async fn a_session_through_the_grid_speaks_bidi_and_hears_the_page(
    grid: &Grid,
    shop: &RunningShop,
    kind: BrowserKind,
) {
    let config = on_the_grid(grid, kind, Protocol::Bidi);
    let browser = Browser::launch(config)
        .await
        .expect("the Grid is reachable");
    let session = browser
        .new_session()
        .await
        .unwrap_or_else(|e| panic!("{kind}: a BiDi session opens through the Grid: {e}"));
    assert_eq!(session.protocol(), Protocol::Bidi, "{kind}");
    // A session that cannot open says so with the URL it tried, its credentials hidden.
    let closed = common::closed_port();
    let elsewhere = BrowserConfig {
        kind,
        webdriver_url: Some(format!(
            "http://windup:{}@127.0.0.1:{}",
            grid.password(),
            closed.port()
        )),
        ..common::browser_config()
    };
    let refused = Browser::launch(elsewhere)
        .await
        .expect("a remote WebDriver is not checked at launch")
        .new_session()
        .await
        .expect_err("nothing listens on a closed port")
        .to_string();
    assert!(
        refused.contains("http://***@127.0.0.1:") && !refused.contains(grid.password()),
        "{kind}: {refused}"
    );
    session
        .watch_page_events()
        .await
        .unwrap_or_else(|e| panic!("{kind}: the page's events are watched: {e}"));
    session
        .goto(shop.url())
        .await
        .unwrap_or_else(|e| panic!("{kind}: the shop opens: {e}"));
    session
        .execute_script("setTimeout(() => { throw new Error('thrown-through-the-grid'); }, 0);")
        .await
        .unwrap_or_else(|e| panic!("{kind}: a script runs: {e}"));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut heard = Vec::new();
    while !heard
        .iter()
        .any(|e: &String| e.contains("thrown-through-the-grid"))
    {
        assert!(
            Instant::now() < deadline,
            "{kind}: the error is pushed within 10 s; heard {heard:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        let events = session.heard_page_events().expect("a BiDi session");
        heard.extend(events.errors);
    }
    session.close().await.expect("the session closes");
}
