//! Wall time of the demo suite (every scenario under scenarios/ that is not ignored) against
//! cargo-windup/shop, with 1 and with 2 browser workers. Each round starts a fresh browser, so the
//! figures include opening sessions, as a `cargo windup demo` run does.
//!
//! `cargo bench --bench demo_suite` (WINDUP_BENCH_RUNS sets the rounds per worker count).

use std::path::Path;
use std::time::{Duration, Instant};

use windup_core::config::Settings;
use windup_core::model::scenario;
use windup_core::run::suite::{Selection, Suite, is_ignored};

#[tokio::main]
async fn main() {
    let runs: usize = std::env::var("WINDUP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut settings = Settings::load(root).expect("windup.toml loads");
    let artifacts = tempfile::tempdir().expect("a temporary directory");
    settings.artifacts_dir = artifacts.path().to_owned();
    let scenarios: Vec<_> = scenario::discover(&settings.scenarios_dir)
        .expect("scenarios/")
        .iter()
        .map(|path| scenario::load(path, &settings.scenarios_dir).expect("a valid scenario"))
        .filter(|s| !is_ignored(&settings, s))
        .collect();
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the shop starts");
    let base_url: url::Url = shop.url().parse().expect("a URL");
    println!(
        "demo suite: {} scenarios, {runs} rounds per worker count",
        scenarios.len()
    );
    let mut medians = Vec::new();
    for workers in [1, 2] {
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let started = Instant::now();
            let mut settings = settings.clone();
            settings.workers = workers;
            let finished = Suite::new(settings, base_url.clone())
                .run(Selection::of(scenarios.iter().cloned()))
                .await
                .expect("chromedriver starts");
            let elapsed = started.elapsed();
            let failed: Vec<_> = finished
                .results
                .iter()
                .filter(|(_, r)| !r.passed())
                .map(|(_, r)| &r.id)
                .collect();
            assert!(failed.is_empty(), "scenarios failed: {failed:?}");
            times.push(elapsed);
        }
        times.sort();
        let median = times[times.len() / 2];
        println!(
            "  {workers} worker{}: median {:6.2} s  (min {:6.2} s, max {:6.2} s)",
            if workers == 1 { " " } else { "s" },
            secs(median),
            secs(times[0]),
            secs(times[times.len() - 1])
        );
        medians.push(median);
    }
    println!(
        "  speed-up with 2 workers: {:.2}x",
        secs(medians[0]) / secs(medians[1])
    );
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}
