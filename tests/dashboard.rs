//! The dashboard, dogfooded: Windup's own scenarios (scenarios/dashboard/) drive it in real
//! Chromium against a `cargo windup serve` of this process, which audits the shop with every
//! seeded bug: an audit started from the form, its feed moving, a finding appearing and opened,
//! its tests read and downloaded, a reload mid-run that rebuilds the same feed, a stop.

mod common;

use std::path::Path;

use common::serve::{Served, browsers_left};
use windup::{Outcome, Selection, Suite};
use windup_shop::{BugSet, ShopOptions};

/// Copies scenarios/dashboard/ into the project that runs them.
fn copy_scenarios(project: &common::Project) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/dashboard");
    let to = project.root().join("scenarios/dashboard");
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboard_scenarios_pass_against_a_live_audit_of_the_shop() {
    let shop = windup_shop::spawn(ShopOptions {
        bugs: BugSet::all(),
        ..Default::default()
    })
    .await
    .unwrap();
    let served = Served::over(shop, common::Project::with(&[]), |_| {}).await;
    let runner = common::Project::with(&[]);
    copy_scenarios(&runner);
    // A finding takes the audit tens of seconds: expectations wait that long.
    let mut settings = runner.settings_with("timeout_ms = 120000\n", &|_| None);
    settings.workers = 1;
    let selection = Selection::load(&settings, Some("dashboard/"), true).unwrap();
    assert_eq!(selection.scenarios.len(), 2, "{:?}", selection.unloadable);
    let finished = Suite::new(settings, served.url.parse().unwrap())
        .run(selection)
        .await
        .unwrap();
    let failures: Vec<String> = finished
        .results
        .iter()
        .filter_map(|(scenario, result)| match &result.outcome {
            Outcome::Passed { .. } => None,
            other => Some(format!("{}: {other:?}", scenario.id)),
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(finished.totals.passed, 2);
    // Both audits were stopped from the page; each ends at its next step.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let statuses = loop {
        let (_, list) = served.get("/audits").await;
        let statuses: Vec<String> = list["audits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["status"].as_str().unwrap().to_owned())
            .collect();
        if statuses.iter().all(|s| s != "running") || std::time::Instant::now() > deadline {
            break statuses;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    };
    assert_eq!(statuses, ["stopped", "stopped"]);
    served.stop().await;
    assert!(browsers_left().is_empty(), "{:?}", browsers_left());
}
