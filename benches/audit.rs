//! The audit's speed: actions per second during seeded random walks on the to-do demo app (every
//! invariant checked after every action, the page observed once and digested once per move), and
//! the time to each finding on the demo shop with all its seeded bugs, at the default budget.
//!
//! `cargo bench --bench audit` (`-- walks` or `-- shop` for one part). Target: at least 5 actions
//! per second on one worker.
//!
//! The walks run three times each way, alternately, over BiDi: with the app's code counted and
//! without (`--no-coverage`), the same seeded walks (the `novelty` strategy, which coverage does
//! not steer), so the ratio is what counting costs.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use windup::{Budget, RunEvent};
// The audit is a feature of `windup` (`audit`); the tests reach it through windup-core, which
// their dev-dependency builds with every feature.
use windup_core::config::Settings;
use windup_core::run::audit::AuditRun;

/// When each event arrived, since the audit began.
type Timeline = Arc<Mutex<Vec<(Duration, RunEvent)>>>;

fn recorder() -> (Timeline, impl FnMut(&RunEvent) + Send + 'static) {
    let seen: Timeline = Arc::default();
    let sink = Arc::clone(&seen);
    let started = Instant::now();
    (seen, move |event: &RunEvent| {
        sink.lock()
            .unwrap()
            .push((started.elapsed(), event.clone()))
    })
}

fn settings(dir: &Path, accounts: bool) -> Settings {
    settings_speaking(dir, accounts, None)
}

fn settings_speaking(dir: &Path, accounts: bool, protocol: Option<&str>) -> Settings {
    let mut toml = String::from("scenarios = \"scenarios\"\n");
    if let Some(protocol) = protocol {
        toml.push_str(&format!("[browser]\nprotocol = \"{protocol}\"\n"));
    }
    if accounts {
        toml.push_str("[accounts.demo]\nemail = \"BENCH_EMAIL\"\npassword = \"BENCH_PASSWORD\"\n");
    }
    let mut settings = Settings::from_parts(dir, Some(&toml), &|_| None).expect("settings");
    settings.env_file = settings
        .env_file
        .clone()
        .with("BENCH_EMAIL", windup_shop::DEMO_EMAIL)
        .with("BENCH_PASSWORD", windup_shop::DEMO_PASSWORD);
    settings
}

#[tokio::main]
async fn main() {
    // `-- walks` or `-- shop` runs that part alone.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |part: &str| only.is_empty() || only.iter().any(|a| a == part);
    if wanted("walks") {
        walks().await;
    }
    if wanted("shop") {
        shop().await;
    }
}

async fn walks() {
    let app = windup_todo::spawn(windup_todo::TodoOptions::default())
        .await
        .expect("the to-do app starts");
    let mut rates = [Vec::new(), Vec::new()];
    for round in 0..3 {
        for (way, coverage) in [true, false].into_iter().enumerate() {
            let (actions, span, code) = walk_once(app.url(), coverage).await;
            let rate = (actions - 1) as f64 / span;
            println!(
                "round {}: random walks on the to-do app, BiDi, coverage {}: {actions} actions in \
                 {span:.1} s = {rate:.1} actions/s{code}",
                round + 1,
                if coverage { "on" } else { "off" },
            );
            rates[way].push(rate);
        }
    }
    let median = |rates: &mut Vec<f64>| {
        rates.sort_by(f64::total_cmp);
        rates[rates.len() / 2]
    };
    let (on, off) = (median(&mut rates[0]), median(&mut rates[1]));
    println!(
        "random walks: median {on:.1} actions/s with the code counted, {off:.1} without \
         ({:.2}x; target >= 5 actions/s)",
        on / off
    );
}

/// One audit of six seeded walks: the walk actions, the seconds from the first to the last, and
/// what it says of the app's code.
async fn walk_once(url: &str, coverage: bool) -> (usize, f64, String) {
    let dir = tempfile::tempdir().expect("a directory");
    let mut budget = Budget::default();
    budget.pages = 1;
    budget.walks = Some(6);
    budget.walk_length = 20;
    budget.time = Duration::from_secs(600);
    let (timeline, reporter) = recorder();
    let invariants = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/todo/invariants");
    let finished = AuditRun::new(
        settings_speaking(dir.path(), false, Some("bidi")),
        url.parse().expect("a URL"),
    )
    .seed(1)
    .budget(budget)
    .strategy(windup_core::engine::audit::Strategy::Novelty)
    .coverage(coverage)
    .invariants_dir(invariants)
    .emit_to(None)
    .reporter(reporter)
    .run()
    .await
    .expect("the audit runs");
    let timeline = timeline.lock().unwrap();
    let walk_actions: Vec<Duration> = timeline
        .iter()
        .filter(
            |(_, e)| matches!(e, RunEvent::AuditAction { label, .. } if label.starts_with("walk ")),
        )
        .map(|(at, _)| *at)
        .collect();
    let (Some(first), Some(last)) = (walk_actions.first(), walk_actions.last()) else {
        panic!("random walks: no action recorded");
    };
    let code = &finished.outcome.code;
    let code = match &code.off {
        Some(_) => String::new(),
        None => format!(" ({} of {} edges reached)", code.reached, code.edges),
    };
    (walk_actions.len(), (*last - *first).as_secs_f64(), code)
}

async fn shop() {
    let shop = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: windup_shop::BugSet::all(),
        ..Default::default()
    })
    .await
    .expect("the shop starts");
    let dir = tempfile::tempdir().expect("a directory");
    let (timeline, reporter) = recorder();
    let invariants = Path::new(env!("CARGO_MANIFEST_DIR")).join("cargo-windup/shop/invariants");
    let finished = AuditRun::new(
        settings(dir.path(), true),
        shop.url().parse().expect("a URL"),
    )
    .seed(1)
    .invariants_dir(invariants)
    .account("demo")
    .emit_to(None)
    .reporter(reporter)
    .run()
    .await
    .expect("the audit runs");
    println!(
        "the shop with every seeded bug, default budget: {} findings, {} actions in {:.1} s ({:.1} actions/s overall, replays included)",
        finished.outcome.findings.len(),
        finished.outcome.actions,
        finished.outcome.runtime.as_secs_f64(),
        finished.outcome.actions as f64 / finished.outcome.runtime.as_secs_f64()
    );
    for (at, event) in timeline.lock().unwrap().iter() {
        if let RunEvent::Finding { finding, .. } = event {
            println!(
                "  {:>6.1} s  {}  ({})",
                at.as_secs_f64(),
                finding.invariant_id,
                finding.attack
            );
        }
    }
}
