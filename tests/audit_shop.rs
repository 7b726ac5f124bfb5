//! The audit of the demo shop end to end in real Chromium: with every seeded bug on, each of its
//! six bug classes is found and kept by a regression test that fails against the buggy shop and
//! passes against the correct one; the correct shop, audited at the same budget, has no finding.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::Project;
use windup::Budget;
// The audit is a feature of `windup` (`audit`); the tests reach it through windup-core, which
// their dev-dependency builds with every feature.
use windup_core::config::Settings;
use windup_core::run::audit::{AuditFinished, AuditRun};
use windup_core::store::{AuditStore, Framework};
use windup_shop::BugSet;

/// A budget counted in actions, not time, so a busy machine audits the same as an idle one;
/// one random walk (the to-do app's tests hold the walks to account).
fn budget() -> Budget {
    let mut budget = Budget::default();
    budget.time = Duration::from_secs(900);
    budget.walks = Some(1);
    budget
}

/// The project's settings with the shop's public demo account as `[accounts.demo]`.
fn settings(project: &Project, ci: bool) -> Settings {
    let env = move |name: &str| (ci && name == "CI").then(|| "true".to_owned());
    common::with_shop_account(project.settings_with(common::SHOP_ACCOUNT_TOML, &env))
}

async fn shop(bugs: BugSet) -> windup_shop::RunningShop {
    windup_shop::spawn(windup_shop::ShopOptions {
        bugs,
        ..Default::default()
    })
    .await
    .unwrap()
}

/// The shop's invariants as `cargo windup demo --audit` reads them: built into the shop, written
/// to a folder of the project's own.
async fn audit(project: &Project, url: &str) -> AuditFinished {
    audit_counting(project, url, true).await
}

/// [`audit`], counting the app's code or not.
async fn audit_counting(project: &Project, url: &str, counting: bool) -> AuditFinished {
    let invariants = project.root().join(".windup/demo-invariants");
    std::fs::create_dir_all(&invariants).unwrap();
    std::fs::write(invariants.join("shop.yaml"), windup_shop::INVARIANTS).unwrap();
    AuditRun::new(settings(project, false), url.parse().unwrap())
        .seed(1)
        .budget(budget())
        .coverage(counting)
        .invariants_dir(invariants)
        .account("demo")
        .run()
        .await
        .unwrap()
}

/// Which seeded bug a finding is, by the rule it broke and, for duplicate records, how the
/// duplicate was made.
fn bug_of(invariant: &str, attack: &str) -> Option<&'static str> {
    Some(match invariant {
        "negative-amount-accepted" => "negative-quantity",
        "coupon-applies-once" => "coupon-twice",
        "cart-subtotal-is-sum-of-lines" => "cart-total",
        "injected-markup-ran" => "search-xss",
        "one-submission-one-record" if attack.starts_with("a double click") => "double-submit",
        "one-submission-one-record"
            if attack.starts_with("a reload") || attack.starts_with("back after") =>
        {
            "back-resubmit"
        }
        _ => return None,
    })
}

/// Runs the audit's regression tests against `url`: each one's id and whether it passed.
async fn replay(project: &Project, url: &str) -> BTreeMap<String, bool> {
    common::replay_audit_tests(settings(project, true), url).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seeded_bug_of_the_shop_is_found_and_kept_by_a_failing_test() {
    let buggy = shop(BugSet::all()).await;
    let project = Project::with(&[]);
    let finished = audit(&project, buggy.url()).await;
    let findings = &finished.outcome.findings;
    let mut found: BTreeMap<&str, &str> = BTreeMap::new();
    for finding in findings {
        if let Some(bug) = bug_of(&finding.invariant_id, &finding.attack) {
            found.entry(bug).or_insert(&finding.id);
        }
    }
    for bug in BugSet::all().iter() {
        assert!(
            found.contains_key(bug.name()),
            "{} was not found; the findings: {:#?}",
            bug.name(),
            findings
                .iter()
                .map(|f| (&f.invariant_id, &f.attack))
                .collect::<Vec<_>>()
        );
    }
    assert_eq!(finished.tests.len(), findings.len());
    // Each test also as a Playwright spec, kept in the store beside the scenario, and valid
    // TypeScript.
    let specs: Vec<_> = finished
        .tests
        .iter()
        .map(|t| match &t.spec {
            Ok(spec) => spec.path.clone(),
            Err(why) => panic!("{}: {why}", t.scenario.display()),
        })
        .collect();
    let stored = AuditStore::open(&finished.store)
        .unwrap()
        .run(&finished.run_id)
        .unwrap()
        .expect("the run is stored");
    for framework in [Framework::Windup, Framework::Playwright] {
        let count = stored
            .tests
            .iter()
            .filter(|t| t.framework == framework)
            .count();
        assert_eq!(count, findings.len(), "{framework} tests in the store");
    }
    let project_specs = common::npm::spec_dir();
    let linked: Vec<_> = specs
        .iter()
        .map(|spec| {
            let copy = project_specs.path().join(spec.file_name().unwrap());
            std::fs::copy(spec, &copy).unwrap();
            copy
        })
        .collect();
    let checked = common::npm::type_check(&linked);
    assert!(checked.status.success(), "tsc: {}", common::text(&checked));
    // Every regression test fails while the bugs are there, and passes, from its pinned plan
    // and with no model, once they are gone.
    let against_buggy = replay(&project, buggy.url()).await;
    assert_eq!(against_buggy.len(), findings.len());
    let passing: Vec<_> = against_buggy.iter().filter(|(_, p)| **p).collect();
    assert!(
        passing.is_empty(),
        "pass against the buggy shop: {passing:?}"
    );
    let correct = shop(BugSet::none()).await;
    let against_correct = replay(&project, correct.url()).await;
    let failing: Vec<_> = against_correct.iter().filter(|(_, p)| !**p).collect();
    assert!(
        failing.is_empty(),
        "fail against the correct shop: {failing:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_correct_shop_has_no_findings_at_the_same_budget() {
    let correct = shop(BugSet::none()).await;
    let project = Project::with(&[]);
    // Counting the app's code costs time and never changes a verdict: the suite's longest
    // audit does without it (the buggy shop's audit above counts).
    let finished = audit_counting(&project, correct.url(), false).await;
    assert!(
        finished.outcome.findings.is_empty(),
        "false positives: {:#?}",
        finished.outcome.findings
    );
    assert!(finished.outcome.actions > 100, "it did audit");
    assert_eq!(finished.outcome.stopped_by, "done");
}
