//! An audit reaches the app as a person does or says it could not: it waits for an app that
//! renders late, follows an address the app rewrites on load, and fails — never a clean report
//! — when the start page cannot be opened or shows nothing to act on. In real Chromium.

mod common;

use std::time::Duration;

use common::Project;
use common::patterns::PatternSite;
use windup::Budget;
// The audit is a feature of `windup` (`audit`); the tests reach it through windup-core, which
// their dev-dependency builds with every feature.
use windup_core::run::audit::{AuditError, AuditRun};
use windup_core::store::{AuditStore, RunStatus};

/// A small budget counted in actions.
fn small() -> Budget {
    let mut budget = Budget::default();
    budget.time = Duration::from_secs(300);
    budget.walks = Some(2);
    budget.walk_length = 8;
    budget
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_that_moves_to_its_own_address_and_renders_late_is_audited_once_it_shows_controls() {
    let site = PatternSite::start().await;
    let project = Project::with(&[]);
    let url = format!("{}/rewrite-on-load.html", site.url());
    let finished = AuditRun::new(project.settings(false), url.parse().unwrap())
        .budget(small())
        .emit_to(None)
        .run()
        .await
        .expect("the audit runs");
    let outcome = &finished.outcome;
    assert!(outcome.unusable.is_none(), "{:?}", outcome.unusable);
    assert!(outcome.pages_explored >= 1);
    assert!(outcome.actions > 0, "{outcome:#?}");
    let (visits, _) = &outcome.seen;
    let start = visits.first().expect("the start page is seen");
    assert!(
        start.elements.iter().any(|e| e.name == "Add"),
        "the page was read once it rendered: {start:#?}"
    );
    assert!(outcome.coverage.states >= 2, "{:?}", outcome.coverage);
    site.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_whose_router_rewrites_the_address_before_it_renders_is_walked() {
    // A corpus app on a hand-written hash router: `history.replaceState` to `index.html#/`, and its
    // first control 300 ms later.
    let app = windup_corpus::app("vanilla-quiz").expect("the quiz is in the corpus");
    let site = windup_corpus::serve(&app, &[]).await.expect("it serves");
    let project = Project::with(&[]);
    let finished = AuditRun::new(project.settings(false), site.url().parse().unwrap())
        .budget(small())
        .invariants_dir(app.invariants())
        .emit_to(None)
        .run()
        .await
        .expect("the audit runs");
    let outcome = &finished.outcome;
    assert!(outcome.actions > 0, "{outcome:#?}");
    assert!(outcome.findings.is_empty(), "{:#?}", outcome.findings);
    let (visits, _) = &outcome.seen;
    assert!(
        visits.iter().any(|v| v.path == "/index.html"),
        "the rewritten address is followed: {visits:#?}"
    );
    site.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_page_that_cannot_be_opened_or_shows_nothing_to_act_on_fails_the_audit() {
    let closed = common::closed_port();
    let site = PatternSite::start().await;
    let cases = [
        (
            format!("http://127.0.0.1:{}/", closed.port()),
            "could not be opened",
        ),
        (
            format!("{}/nothing-to-do.html", site.url()),
            "showed nothing a person can act on",
        ),
    ];
    for (url, why) in cases {
        let project = Project::with(&[]);
        let store = project.root().join(".windup/audits.sqlite");
        let ran = AuditRun::new(project.settings(false), url.parse().unwrap())
            .budget(small())
            .run()
            .await;
        let Err(AuditError::Unusable {
            run_id,
            reason,
            browser,
        }) = ran
        else {
            panic!("{url}: an audit that could not use the app is an error: {ran:?}");
        };
        assert!(reason.contains(why), "{url}: {reason}");
        assert!(!browser, "{url}: the app, not the browser: {reason}");
        let stored = AuditStore::open(&store).unwrap();
        assert_eq!(
            stored.status(&run_id).unwrap(),
            Some(RunStatus::Failed),
            "{url}: the run is kept, failed"
        );
    }
    site.stop().await;
}
