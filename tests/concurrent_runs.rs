//! Eight `cargo windup run` processes replay eight scenarios against one plan store at the same
//! time, as nextest or a user beside `cargo test` would: all pass, no lock error, every run in
//! the ledger.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use windup_core::engine::cache::PlanCache;
use windup_core::engine::ledger::{CacheOutcome, Ledger};

const SCENARIOS: [&str; 8] = [
    "browse-catalogue",
    "cart-quantities",
    "checkout-as-demo-user",
    "login",
    "order-history",
    "out-of-stock",
    "remove-from-cart",
    "search",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn project_with_lockfiles() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir_all(&scenarios).unwrap();
    // One worker per process: eight processes are eight browsers already.
    std::fs::write(
        dir.path().join("windup.toml"),
        "scenarios = \"scenarios\"\nworkers = 1\n",
    )
    .unwrap();
    for name in SCENARIOS {
        for file in [format!("{name}.yaml"), format!("{name}.plan.json")] {
            std::fs::copy(repo().join("scenarios").join(&file), scenarios.join(&file)).unwrap();
        }
    }
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_replay_against_one_store_at_once() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let url = shop.url().to_owned();
    let binary = common::cargo_windup();
    let project = project_with_lockfiles();
    let root: &Path = project.path();

    let children: Vec<_> = SCENARIOS
        .iter()
        .map(|name| {
            Command::new(&binary)
                .args(["run", name, "--base-url", &url])
                .current_dir(root)
                // Read-only: these runs may replay lockfiles and must never plan.
                .env("CI", "true")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("cargo-windup starts")
        })
        .collect();
    let outputs = tokio::task::spawn_blocking(move || {
        children
            .into_iter()
            .map(|child| child.wait_with_output().expect("the run ends"))
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for (name, output) in SCENARIOS.iter().zip(&outputs) {
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(output.status.success(), "{name}: {text}");
        assert!(
            text.contains(&format!("PASS {name} (")) && text.contains("replayed"),
            "{name}: {text}"
        );
        assert!(
            !text.to_lowercase().contains("lock"),
            "{name} met the lock: {text}"
        );
    }

    let records = Ledger::new(root).read().unwrap();
    assert_eq!(records.skipped_lines, 0);
    let mut recorded: Vec<&str> = records
        .records
        .iter()
        .map(|r| r.scenario_id.as_str())
        .collect();
    recorded.sort_unstable();
    assert_eq!(recorded, SCENARIOS.to_vec(), "one ledger record per run");
    assert!(records.records.iter().all(|r| r.cache == CacheOutcome::Hit));
    let entries = PlanCache::new(root).list().unwrap();
    assert_eq!(entries.len(), 8, "each lockfile seeded the shared cache");
}
