//! The plan cache's cost and payoff: how long a lookup takes (each opens the store, reads and
//! closes it, so that many processes can share it), and the demo suite's wall time on its first
//! run (every scenario planned) against a replay (every plan from the cache).
//!
//! `cargo bench --bench cache` (WINDUP_BENCH_RUNS sets the rounds of the suite comparison).

use std::path::Path;
use std::time::{Duration, Instant};

use windup_core::config::Settings;
use windup_core::engine::cache::{CacheEntry, CacheKey, PlanCache};
use windup_core::model::plan::{Plan, Rules};
use windup_core::model::scenario;
use windup_core::run::outcome::Outcome;
use windup_core::run::suite::{Suite, is_ignored};

#[tokio::main]
async fn main() {
    lookups();
    suite().await;
}

fn lookups() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cache = PlanCache::at(dir.path());
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/checkout.plan.json"),
    )
    .expect("the checkout plan");
    let plan = Plan::from_json_str(&text, &Rules::default()).expect("a valid plan");
    for i in 0..50 {
        let key = CacheKey::new(format!("scenario-{i}"), "/");
        cache
            .save(&CacheEntry::new(key, "hash", plan.clone()))
            .expect("saved");
    }
    let key = CacheKey::new("scenario-25", "/");
    let mut times = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let found = cache.lookup(&key, "hash").expect("a lookup");
        times.push(started.elapsed());
        assert!(found.is_some());
    }
    times.sort();
    println!(
        "cache lookup (open, read, close; 50 entries): median {:.2} ms, p90 {:.2} ms, over {} lookups",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 9 / 10]),
        times.len()
    );
}

async fn suite() {
    let runs: usize = std::env::var("WINDUP_BENCH_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the shop starts");
    let base: url::Url = shop.url().parse().expect("a URL");
    let (mut first, mut replay) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        // A fresh project each round: the repository's scenarios, no lockfiles, no cache.
        let project = tempfile::tempdir().expect("a temporary directory");
        let scenarios = project.path().join("scenarios");
        std::fs::create_dir_all(&scenarios).expect("scenarios/");
        for path in scenario::discover(&repo.join("scenarios")).expect("scenarios") {
            std::fs::copy(&path, scenarios.join(path.file_name().expect("a file")))
                .expect("copied");
        }
        std::fs::copy(repo.join("windup.toml"), project.path().join("windup.toml"))
            .expect("copied");
        let not_ci = |_: &str| None;
        let mut settings = Settings::from_parts(
            project.path(),
            Some(
                &std::fs::read_to_string(project.path().join("windup.toml")).expect("windup.toml"),
            ),
            &not_ci,
        )
        .expect("settings");
        settings.workers = 1;
        let loaded: Vec<_> = scenario::discover(&settings.scenarios_dir)
            .expect("scenarios")
            .iter()
            .map(|p| scenario::load(p, &settings.scenarios_dir).expect("a scenario"))
            .filter(|s| !is_ignored(&settings, s))
            .map(std::sync::Arc::new)
            .collect();
        let running = Suite::new(settings, base.clone())
            .start(loaded.len(), Vec::new())
            .await
            .expect("chromedriver starts");
        for times in [&mut first, &mut replay] {
            let started = Instant::now();
            let results = running.run_all(&loaded).await;
            times.push(started.elapsed());
            for result in &results {
                if let Outcome::Failed(failure) = &result.outcome {
                    panic!("{} failed: {failure}", result.id);
                }
            }
        }
        running.finish().await;
    }
    first.sort();
    replay.sort();
    let (f, r) = (first[first.len() / 2], replay[replay.len() / 2]);
    println!("demo suite, 1 worker, {runs} rounds (browser already started):");
    println!("  first run (planned)   median {:6.2} s", f.as_secs_f64());
    println!("  replay (from cache)   median {:6.2} s", r.as_secs_f64());
    println!(
        "  replay / first run: {:.2}",
        r.as_secs_f64() / f.as_secs_f64()
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
