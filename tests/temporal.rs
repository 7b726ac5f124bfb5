//! Rules across time, end to end in Chromium and Firefox, on a small desk app whose four bugs
//! only such rules can state (tests/fixtures/temporal): a confirmation that never comes and a
//! spinner that never goes (`within`), a pager that skips a page (a transition relation), and
//! an inbox counter that stops following once signed in (`until`, without which the app's
//! signed-out preview is a false alarm). The audit finds each with its rule and nothing without
//! them; on the correct app it finds nothing; the regression scenarios it writes fail on the
//! bugs and pass on the fix, and so does the Playwright spec of an obligation, a bounded poll.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use common::Project;
use common::npm::{playwright, spec_dir};
use windup::Budget;
use windup_core::browser::BrowserKind;
use windup_core::run::audit::{AuditFinished, AuditRun};

const DESK_BUGS: [&str; 4] = [
    "saving-confirms",
    "spinner-goes",
    "pager-moves-one-page",
    "unread-counter-follows",
];

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/temporal")
        .join(path)
}

/// The desk app, with its bugs or without.
async fn desk(bug: bool) -> common::Site {
    let page = std::fs::read_to_string(fixture("index.html"))
        .expect("the fixture reads")
        .replace("__BUG__", if bug { "true" } else { "false" });
    let app = Router::new()
        .route("/", get(move || async move { axum::response::Html(page) }))
        .route("/save", post(|| async { "saved" }))
        .route(
            "/items",
            get(|| async { axum::Json(vec!["first", "second"]) }),
        );
    common::Site::serve(app).await
}

/// A budget counted in walks, not time, so a busy machine audits the same as an idle one.
fn budget() -> Budget {
    let mut budget = Budget::default();
    budget.time = Duration::from_secs(900);
    budget.walks = Some(5);
    budget.walk_length = 12;
    budget.shrink_runs = 6;
    budget
}

fn toml(kind: BrowserKind) -> String {
    format!("browser = \"{kind}\"\n")
}

async fn audit(
    project: &Project,
    kind: BrowserKind,
    url: &str,
    rules: Option<&Path>,
) -> AuditFinished {
    let mut run = AuditRun::new(
        project.settings_with(&toml(kind), &|_| None),
        url.parse().unwrap(),
    )
    .seed(5)
    .budget(budget());
    if let Some(rules) = rules {
        run = run.invariants_dir(rules);
    }
    run.run()
        .await
        .unwrap_or_else(|e| panic!("{kind}: the audit runs: {e}"))
}

use common::found;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_chromium_each_rule_across_time_catches_the_bug_only_it_can_and_keeps_it_failing() {
    rules_across_time_in(BrowserKind::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_firefox_each_rule_across_time_catches_the_bug_only_it_can_and_keeps_it_failing() {
    rules_across_time_in(BrowserKind::Firefox).await;
}

/// The desk audited with its rules in one browser: every bug found and kept by a test that fails
/// on it and passes on the fix. In Chromium, the obligations' Playwright specs too, and nothing
/// found on the fix.
async fn rules_across_time_in(kind: BrowserKind) {
    if !common::browsers().contains(&kind) {
        return;
    }
    let buggy = desk(true).await;
    let correct = desk(false).await;
    let rules = fixture("invariants");
    let project = Project::with(&[]);
    let finished = audit(&project, kind, &buggy.url, Some(&rules)).await;
    let found = found(&finished);
    for rule in DESK_BUGS {
        assert!(
            found.contains(rule),
            "{kind}: {rule} broke nothing; found {found:?}"
        );
    }
    let finding = |rule: &str| {
        finished
            .outcome
            .findings
            .iter()
            .find(|f| f.invariant_id == rule)
            .expect("found")
    };
    let confirms = finding("saving-confirms");
    assert_eq!(confirms.within, Some(Duration::from_secs(2)), "{kind}");
    assert!(
        confirms
            .actual
            .starts_with("it did not hold within 2s of the step"),
        "{kind}: {}",
        confirms.actual
    );
    let pager = finding("pager-moves-one-page");
    assert!(
        pager
            .actual
            .starts_with("no allowed transition explains this step"),
        "{kind}: {}",
        pager.actual
    );

    // Each regression test fails while its bug is there and passes once it is fixed.
    let settings = || project.settings_with(&toml(kind), &|_| None);
    let on_bug = common::replay_audit_tests(settings(), &buggy.url).await;
    assert_eq!(on_bug.len(), finished.tests.len(), "{kind}");
    let passing: Vec<_> = on_bug.iter().filter(|(_, passed)| **passed).collect();
    assert!(passing.is_empty(), "{kind}: pass on the bugs: {passing:?}");
    let on_fix = common::replay_audit_tests(settings(), &correct.url).await;
    let failing: Vec<_> = on_fix.iter().filter(|(_, passed)| !**passed).collect();
    assert!(failing.is_empty(), "{kind}: fail on the fix: {failing:?}");
    if kind != BrowserKind::Chromium {
        return;
    }
    obligations_as_playwright_specs(&finished, &buggy, &correct);
    // The correct app breaks none of the rules (the audit's judgement is the browser's only
    // through what it reads, which both browsers read alike: once is enough).
    let clean = audit(&Project::with(&[]), kind, &correct.url, Some(&rules)).await;
    assert!(
        clean.outcome.findings.is_empty(),
        "{kind}: false alarms: {:#?}",
        clean.outcome.findings
    );
}

/// The obligations' Playwright specs are bounded polls that fail on the bugs and pass on the
/// fix (Playwright runs the system's Chromium).
fn obligations_as_playwright_specs(
    finished: &AuditFinished,
    buggy: &common::Site,
    correct: &common::Site,
) {
    let specs = spec_dir();
    for rule in ["saving-confirms", "spinner-goes"] {
        let finding = finished
            .outcome
            .findings
            .iter()
            .find(|f| f.invariant_id == rule)
            .unwrap_or_else(|| panic!("{rule} found"));
        let test = finished
            .tests
            .iter()
            .find(|t| t.scenario.ends_with(format!("{}.yaml", finding.id)))
            .expect("its test is written");
        let spec = test.spec.as_ref().expect("it has a Playwright spec");
        assert!(
            spec.code.contains(", 2000);"),
            "the obligation polls for its 2 s: {}",
            spec.code
        );
        let name = spec.path.file_name().expect("a file name");
        std::fs::copy(&spec.path, specs.path().join(name)).expect("copied");
    }
    let failed = playwright(specs.path(), &buggy.url);
    let output = common::text(&failed);
    assert!(!failed.status.success(), "passed on the bugs: {output}");
    assert!(output.contains("2 failed"), "{output}");
    let passed = playwright(specs.path(), &correct.url);
    let output = common::text(&passed);
    assert!(passed.status.success(), "failed on the fix: {output}");
    assert!(output.contains("2 passed"), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_rules_across_time_the_bugs_go_unseen() {
    let buggy = desk(true).await;
    let correct = desk(false).await;
    let kind = BrowserKind::Chromium;
    // The generic oracles alone see nothing wrong with the buggy desk.
    let generic = audit(&Project::with(&[]), kind, &buggy.url, None).await;
    assert!(
        generic.outcome.findings.is_empty(),
        "{:#?}",
        generic.outcome.findings
    );
    // The counter rule without its readiness condition is broken by the correct app's
    // signed-out preview: a false alarm `until` is there to prevent.
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(
        plain.path().join("counter.yaml"),
        "invariants:\n  - id: unread-counter-follows\n    statement: The unread counter shows how \
         many messages are unread\n    predicate: number(\".unread-count\") == count(\".message.unread\")\n",
    )
    .unwrap();
    let unready = audit(&Project::with(&[]), kind, &correct.url, Some(plain.path())).await;
    assert_eq!(
        found(&unready),
        BTreeSet::from(["unread-counter-follows".to_owned()]),
        "the preview breaks the rule read before the app is ready"
    );
}
