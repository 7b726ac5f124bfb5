//! Replay time of the checkout plan on a warm session over WebDriver Classic and over BiDi, next
//! to the same flow written by hand as direct fantoccini calls (Classic). All three run
//! interleaved against cargo-windup/shop, each on its own warm session opened with the same
//! capabilities, and each session is reset (not timed) before each run.
//!
//! `cargo bench --bench replay` (set WINDUP_BENCH_RUNS to change the number of timed runs).

use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use windup_core::browser::{Browser, BrowserConfig, Protocol};
use windup_core::config::Settings;
use windup_core::engine::executor::NoValues;
use windup_core::model::plan::{Plan, Rules};
use windup_core::{engine::executor::ExecOptions, engine::executor::Executor};

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("WINDUP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the shop starts");
    let config = Settings::load(Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("windup.toml loads")
        .browser_config();
    // The plan over each protocol, each on a driver of its own (the protocol is the driver's
    // setting), and the hand-written flow on the Classic one.
    let browser = Browser::launch(BrowserConfig {
        protocol: Protocol::Classic,
        ..config.clone()
    })
    .await
    .expect("chromedriver starts");
    let bidi_browser = Browser::launch(BrowserConfig {
        protocol: Protocol::Bidi,
        ..config
    })
    .await
    .expect("a second chromedriver starts");
    let session = browser.new_session().await.expect("a session opens");
    let bidi_session = bidi_browser
        .new_session()
        .await
        .expect("a BiDi session opens");
    // A profile of the bench's own, removed when the bench ends: one chromedriver makes for a
    // session without one outlives the driver, which ends at once after the session.
    let hand_profile = tempfile::tempdir().expect("a temporary directory");
    let hand_client = fantoccini::ClientBuilder::native()
        .capabilities(with_profile(browser.capabilities(), hand_profile.path()))
        .connect(browser.webdriver_url())
        .await
        .expect("a hand-written session opens");
    let plan_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checkout.plan.json");
    let plan = Plan::from_json_str(
        &std::fs::read_to_string(&plan_path).expect("the checkout plan"),
        &Rules::default(),
    )
    .expect("a valid plan");
    let artifacts = tempfile::tempdir().expect("a temporary directory");
    let mut options = ExecOptions::new(shop.url().parse().expect("a URL"));
    options.artifacts_dir = artifacts.path().to_owned();

    let mut classic_times = Vec::with_capacity(runs);
    let mut bidi_times = Vec::with_capacity(runs);
    let mut hand_times = Vec::with_capacity(runs);
    let mut bidi_sent = 0;
    // Two untimed rounds warm the sessions, the shop and the caches.
    for round in 0..runs + 2 {
        let classic = replay(&session, &options, &plan).await;
        let before = bidi_session.bidi_traffic().unwrap_or_default().0;
        let bidi = replay(&bidi_session, &options, &plan).await;
        bidi_sent = bidi_session.bidi_traffic().unwrap_or_default().0 - before;
        reset_by_hand(&hand_client).await;
        let hand = time(hand_written(&hand_client, shop.url())).await;
        if round >= 2 {
            classic_times.push(classic);
            bidi_times.push(bidi);
            hand_times.push(hand);
        }
    }
    let classic = Summary::of(&mut classic_times);
    let bidi = Summary::of(&mut bidi_times);
    let hand = Summary::of(&mut hand_times);
    let ratio = |of: Summary| of.median.as_secs_f64() / hand.median.as_secs_f64();
    println!("checkout replay on a warm session, {runs} runs each, interleaved");
    println!("  windup plan, Classic  {classic}  {:.2}x", ratio(classic));
    println!("  windup plan, BiDi     {bidi}  {:.2}x", ratio(bidi));
    println!("  hand-written          {hand}  1.00x");
    println!("  (ratio: median / the hand-written flow's median)");
    println!(
        "  BiDi messages sent per replay, its reset included: {bidi_sent} for {} actions",
        plan.actions.len()
    );
    session.close().await.expect("the session closes");
    bidi_session.close().await.expect("the BiDi session closes");
    hand_client
        .close()
        .await
        .expect("the hand-written session closes");
}

/// The capabilities with Chromium's profile in `profile`.
fn with_profile(
    mut capabilities: fantoccini::wd::Capabilities,
    profile: &Path,
) -> fantoccini::wd::Capabilities {
    if let Some(args) = capabilities
        .get_mut("goog:chromeOptions")
        .and_then(|options| options.get_mut("args"))
        .and_then(serde_json::Value::as_array_mut)
    {
        args.push(format!("--user-data-dir={}", profile.display()).into());
    }
    capabilities
}

/// Resets a session (untimed), then times the plan's replay on it.
async fn replay(
    session: &windup_core::browser::Session,
    options: &ExecOptions,
    plan: &Plan,
) -> Duration {
    session.reset().await.expect("reset");
    time(async {
        Executor::new(session, options, &NoValues)
            .run(plan)
            .await
            .unwrap_or_else(|f| panic!("the plan failed: {f}"));
    })
    .await
}

/// Times one run.
async fn time(run: impl std::future::Future<Output = ()>) -> Duration {
    let started = Instant::now();
    run.await;
    started.elapsed()
}

/// The reset someone writing fantoccini by hand would do: the shop keeps its state in a cookie,
/// which WebDriver deletes for the page that is open (the shop's, after a run).
async fn reset_by_hand(client: &Client) {
    let url = client.current_url().await.expect("the current URL");
    if matches!(url.scheme(), "http" | "https") {
        client.delete_all_cookies().await.expect("cookies deleted");
    }
    client.goto("about:blank").await.expect("about:blank opens");
}

/// The checkout as someone would write it with fantoccini directly: wait for each element (a
/// tight 10 ms poll, since a click's navigation may still be under way), act, and at the end check
/// the confirmation.
async fn hand_written(client: &Client, base: &str) {
    let find = |selector: &'static str| async move {
        client
            .wait()
            .every(Duration::from_millis(10))
            .for_element(Locator::Css(selector))
            .await
            .unwrap_or_else(|e| panic!("{selector}: {e}"))
    };
    client.goto(&format!("{base}/")).await.unwrap();
    find("[data-testid=\"product-card-rust-mug\"] h2 a")
        .await
        .click()
        .await
        .unwrap();
    let quantity = find("#quantity").await;
    quantity.clear().await.unwrap();
    quantity.send_keys("2").await.unwrap();
    find("[data-testid=\"add-to-cart\"]")
        .await
        .click()
        .await
        .unwrap();
    find("[data-testid=\"checkout-button\"]")
        .await
        .click()
        .await
        .unwrap();
    find("#email")
        .await
        .send_keys("demo@windup.test")
        .await
        .unwrap();
    find("#password")
        .await
        .send_keys("demo-password-123")
        .await
        .unwrap();
    find("form[action=\"/login\"] button[type=\"submit\"]")
        .await
        .click()
        .await
        .unwrap();
    find("#name").await.send_keys("Ferris Crab").await.unwrap();
    find("#address")
        .await
        .send_keys("1 Rust Lane, Lisbon")
        .await
        .unwrap();
    find("#country")
        .await
        .select_by_label("Germany")
        .await
        .unwrap();
    find("label[for=\"terms\"]").await.click().await.unwrap();
    find("[data-testid=\"place-order\"]")
        .await
        .click()
        .await
        .unwrap();
    let number = find("[data-testid=\"order-number\"]").await;
    assert!(number.text().await.unwrap().starts_with('#'));
    let heading = find("h1").await.text().await.unwrap();
    assert_eq!(heading, "Thank you for your order");
    assert!(
        client
            .current_url()
            .await
            .unwrap()
            .path()
            .starts_with("/orders/")
    );
}

#[derive(Debug, Clone, Copy)]
struct Summary {
    median: Duration,
    mean: Duration,
    min: Duration,
    max: Duration,
}

impl Summary {
    fn of(times: &mut [Duration]) -> Self {
        times.sort();
        let total: Duration = times.iter().sum();
        Self {
            median: times[times.len() / 2],
            mean: total / times.len() as u32,
            min: times[0],
            max: times[times.len() - 1],
        }
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        write!(
            f,
            "median {:7.1} ms  mean {:7.1} ms  min {:7.1} ms  max {:7.1} ms",
            ms(self.median),
            ms(self.mean),
            ms(self.min),
            ms(self.max)
        )
    }
}
