//! The audit end to end in real Chromium: the to-do demo app with its six seeded bugs and its
//! correct twin; the regression tests it writes fail while a bug is there and pass once it is
//! gone; the same seed makes the same findings; an audit killed mid-run leaves its store
//! consistent and marked interrupted.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::Project;
use windup::Budget;
// The audit is a feature of `windup` (`audit`); the tests reach it through windup-core, which
// their dev-dependency builds with every feature.
use windup_core::run::audit::{AuditFinished, AuditRun};
use windup_core::store::{AuditStore, RunStatus};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

async fn todo(bugs: &str) -> windup_todo::RunningTodo {
    windup_todo::spawn(windup_todo::TodoOptions {
        bugs: bugs.parse().unwrap(),
    })
    .await
    .unwrap()
}

/// A budget counted in actions, not time, so a busy machine audits the same as an idle one.
fn budget(walks: usize) -> Budget {
    let mut budget = Budget::default();
    budget.time = Duration::from_secs(900);
    budget.walks = Some(walks);
    budget
}

async fn audit_todo(project: &Project, url: &str, seed: u64, budget: Budget) -> AuditFinished {
    AuditRun::new(project.settings_with("", &|_| None), url.parse().unwrap())
        .seed(seed)
        .budget(budget)
        .invariants_dir(repo("examples/todo/invariants"))
        .run()
        .await
        .unwrap()
}

/// The invariant that catches each seeded bug of the to-do app (docs/todo-demo.md).
const TODO_BUGS: [(&str, &str); 6] = [
    ("counter-counts-all", "counter-shows-unchecked"),
    ("input-not-cleared", "add-grows-by-one-and-clears"),
    ("active-filter-leaks", "active-filter-shows-only-unchecked"),
    ("title-xss", "injected-markup-ran"),
    ("clear-completed-throws", "no-uncaught-exception"),
    ("long-title-500", "no-server-error"),
];

use common::found;

/// Runs the audit's regression tests against `url`: each one's id and whether it passed.
async fn replay(project: &Project, url: &str) -> BTreeMap<String, bool> {
    common::replay_audit_tests(project.settings(true), url).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seeded_bug_of_the_todo_app_is_found_and_kept_by_a_failing_test() {
    let buggy = todo("all").await;
    let project = Project::with(&[]);
    let finished = audit_todo(&project, buggy.url(), 7, budget(10)).await;
    let found = found(&finished);
    for (bug, invariant) in TODO_BUGS {
        assert!(
            found.contains(invariant),
            "{bug} was not found (by {invariant}); found {found:?}"
        );
    }
    // Every finding's regression test is written, pinned, and fails against the buggy app.
    let tests = &finished.tests;
    assert_eq!(tests.len(), finished.outcome.findings.len());
    for test in tests {
        assert!(
            test.scenario
                .starts_with(project.root().join("scenarios/audit"))
        );
        assert!(test.lockfile.is_file(), "{}", test.lockfile.display());
    }
    // Each fails against the buggy app, and passes against the correct twin from its pinned
    // plan, with no model.
    let against_buggy = replay(&project, buggy.url()).await;
    assert_eq!(against_buggy.len(), tests.len());
    let passing: Vec<String> = against_buggy
        .iter()
        .filter(|(_, passed)| **passed)
        .map(|(id, _)| {
            let file = project.root().join(format!("scenarios/{id}.yaml"));
            format!(
                "{id}:\n{}",
                std::fs::read_to_string(file).unwrap_or_default()
            )
        })
        .collect();
    assert!(
        passing.is_empty(),
        "pass against the buggy app: {passing:#?}"
    );
    let correct = todo("none").await;
    let against_correct = replay(&project, correct.url()).await;
    let failing: Vec<_> = against_correct.iter().filter(|(_, p)| !**p).collect();
    assert!(
        failing.is_empty(),
        "fail against the correct app: {failing:?}"
    );
    // The store has the run, its findings and tests, and its event stream.
    let store = AuditStore::open(&project.root().join(".windup/audits.sqlite")).unwrap();
    let report = store
        .run(&finished.run_id)
        .unwrap()
        .expect("the run is stored");
    assert_eq!(report.summary.status, RunStatus::Done);
    assert_eq!(report.findings.len(), finished.outcome.findings.len());
    // Both dialects of every test: the Windup scenario and the Playwright spec.
    assert_eq!(report.tests.len(), 2 * tests.len());
    assert!(
        tests
            .iter()
            .all(|t| t.spec.as_ref().is_ok_and(|spec| spec.path.is_file()))
    );
    let events = store.events_since(&finished.run_id, 0, 100_000).unwrap();
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.first(), Some(&"audit_started"));
    assert_eq!(names.last(), Some(&"done"));
    assert_eq!(
        names.iter().filter(|n| **n == "finding").count(),
        report.findings.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_correct_todo_app_has_no_findings() {
    let correct = todo("none").await;
    let project = Project::with(&[]);
    let finished = audit_todo(&project, correct.url(), 7, budget(10)).await;
    assert!(
        finished.outcome.findings.is_empty(),
        "false positives: {:#?}",
        finished.outcome.findings
    );
    assert!(finished.outcome.actions > 50, "it did audit");
    // What it explored is in the project's site map, seen by execution, with its controls.
    let map = windup_core::engine::sitemap::MapFile::of(project.root())
        .read()
        .unwrap();
    let home = map.page("/").expect("the start page is in the site map");
    assert_eq!(
        home.source(),
        windup_core::model::sitemap::Source::Execution
    );
    assert!(!home.elements.is_empty(), "{home:#?}");
    assert!(home.title.is_some(), "{home:#?}");
}

/// The stored events of a run named `name`, as JSON.
fn stored_events(
    project: &Project,
    run: &windup_core::store::RunId,
    name: &str,
) -> Vec<serde_json::Value> {
    let store = AuditStore::open(&project.root().join(".windup/audits.sqlite")).unwrap();
    store
        .events_since(run, 0, 100_000)
        .unwrap()
        .into_iter()
        .filter(|e| e.name == name)
        .map(|e| serde_json::from_str(&e.json).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_counts_the_apps_code_unless_asked_not_to() {
    let app = todo("none").await;
    let mut small = budget(2);
    small.walk_length = 10;
    let project = Project::with(&[]);
    let counted = audit_todo(&project, app.url(), 3, small).await;
    let code = &counted.outcome.code;
    assert_eq!(code.off, None, "{code:?}");
    assert!(code.scripts >= 1 && code.edges > 0, "{code:?}");
    assert!(
        code.reached > 0 && code.reached as u64 <= code.edges,
        "{code:?}"
    );
    assert_eq!(
        code.over_time.last().map(|&(_, n)| n),
        Some(code.reached),
        "{code:?}"
    );
    // Each edge reached is named, so that two runs can be merged.
    assert_eq!(code.taken.len(), code.reached, "{code:?}");
    let told = stored_events(&project, &counted.run_id, "coverage");
    assert!(!told.is_empty(), "the count was told as it grew");
    // The timeline begins while the audit explores, not at its first walk.
    let store = AuditStore::open(&project.root().join(".windup/audits.sqlite")).unwrap();
    let names: Vec<(String, String)> = store
        .events_since(&counted.run_id, 0, 100_000)
        .unwrap()
        .into_iter()
        .map(|e| (e.name, e.json))
        .collect();
    let first = |wanted: &dyn Fn(&(String, String)) -> bool| names.iter().position(wanted);
    let counted_at = first(&|(name, _)| name == "coverage");
    let attack_at = first(&|(name, json)| name == "phase" && json.contains("\"attack\""));
    assert!(
        counted_at.is_some() && attack_at.is_some() && counted_at < attack_at,
        "{names:?}"
    );
    let done = stored_events(&project, &counted.run_id, "done");
    assert_eq!(done[0]["code"]["reached"], code.reached, "{done:?}");

    let project = Project::with(&[]);
    let uncounted = AuditRun::new(
        project.settings_with("", &|_| None),
        app.url().parse().unwrap(),
    )
    .seed(3)
    .budget(small)
    .coverage(false)
    .invariants_dir(repo("examples/todo/invariants"))
    .run()
    .await
    .unwrap();
    let code = &uncounted.outcome.code;
    assert!(
        code.off
            .as_deref()
            .is_some_and(|why| why.contains("--no-coverage")),
        "{code:?}"
    );
    assert_eq!((code.reached, code.edges, code.taken.len()), (0, 0, 0));
    assert!(uncounted.outcome.actions > 10, "it audited all the same");
    assert!(stored_events(&project, &uncounted.run_id, "coverage").is_empty());
}

/// The coverage strategy keeps the walk prefixes that reached new edges and starts walks from
/// them; novelty never does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coverage_guided_walks_start_from_prefixes_that_reached_new_code() {
    let app = todo("none").await;
    let mut small = budget(6);
    small.walk_length = 8;
    let run = |strategy| {
        let project = Project::with(&[]);
        let url = app.url().to_owned();
        async move {
            AuditRun::new(project.settings_with("", &|_| None), url.parse().unwrap())
                .seed(5)
                .budget(small)
                .strategy(strategy)
                .invariants_dir(repo("examples/todo/invariants"))
                .run()
                .await
                .unwrap()
        }
    };
    let steered = run(windup_core::engine::audit::Strategy::Coverage).await;
    let code = &steered.outcome.code;
    assert_eq!(code.off, None, "{code:?}");
    assert!(
        code.prefixes > 0,
        "prefixes that reached new code are kept: {code:?}"
    );
    assert!(
        code.from_prefix > 0 && code.from_prefix < 6,
        "some walks, not all, start from one: {code:?}"
    );
    let novel = run(windup_core::engine::audit::Strategy::Novelty).await;
    let code = &novel.outcome.code;
    assert!(code.reached > 0, "{code:?}");
    assert_eq!((code.prefixes, code.from_prefix), (0, 0), "{code:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_seed_makes_the_same_findings() {
    let small = {
        let mut budget = budget(2);
        budget.walks = Some(2);
        budget.walk_length = 10;
        budget
    };
    let mut runs = Vec::new();
    for _ in 0..2 {
        // A fresh app each time: the same seed on the same app.
        let buggy = todo("all").await;
        let project = Project::with(&[]);
        let finished = audit_todo(&project, buggy.url(), 42, small).await;
        let findings: Vec<(String, Vec<String>)> = finished
            .outcome
            .findings
            .iter()
            .map(|f| (f.invariant_id.clone(), f.steps.clone()))
            .collect();
        runs.push(findings);
    }
    assert!(!runs[0].is_empty());
    assert_eq!(runs[0], runs[1]);
}

/// The child of [`an_audit_killed_mid_run_is_interrupted_and_its_store_consistent`]: audits until
/// it is killed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_audits_until_killed() {
    let Ok(store) = std::env::var("WINDUP_TEST_AUDIT_STORE") else {
        return;
    };
    let buggy = todo("all").await;
    let project = Project::with(&[]);
    let _ = AuditRun::new(
        project.settings_with("", &|_| None),
        buggy.url().parse().unwrap(),
    )
    .budget(budget(50))
    .store(store)
    .emit_to(None)
    .run()
    .await;
}

#[test]
fn an_audit_killed_mid_run_is_interrupted_and_its_store_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("audits.sqlite");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_audits_until_killed", "--nocapture"])
        .env("WINDUP_TEST_AUDIT_STORE", &store_path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut seen = 0;
    while Instant::now() < deadline && seen < 20 {
        if let Ok(store) = AuditStore::open(&store_path)
            && let Ok(runs) = store.runs(1)
            && let Some(run) = runs.first()
        {
            seen = run.events;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: the pid is the child this test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
    let _ = child.wait();
    assert!(seen >= 20, "the audit never got going ({seen} events)");
    let store = AuditStore::open(&store_path).unwrap();
    store.check_integrity().unwrap();
    let run = store.runs(1).unwrap().remove(0);
    assert_eq!(run.status, RunStatus::Interrupted);
    let events = store.events_since(&run.id, 0, 100_000).unwrap();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=run.events).collect::<Vec<_>>());
    assert_eq!(events[0].name, "audit_started");
}
