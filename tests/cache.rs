//! The plan cache end to end in real Chromium: the first run plans and leaves a plan for review,
//! the next replays it with no planning, a markup change makes the replay fail, the entry turns
//! stale and the scenario is re-planned from the point of failure; read-only runs never plan.

mod common;

use common::Project;
use url::Url;
use windup_core::browser::Browser;
use windup_core::config::Settings;
use windup_core::engine::cache::{EntryStatus, PlanCache};
use windup_core::engine::ledger::{CacheOutcome, Ledger, Replan};
use windup_core::engine::lockfile;
use windup_core::model::scenario::Scenario;
use windup_core::run::failure::FailureClass;
use windup_core::run::outcome::{Outcome, ScenarioResult};
use windup_core::run::pool::SessionPool;
use windup_core::run::runner::run_scenario;
use windup_shop::{Markup, ShopOptions};

async fn run(
    settings: &Settings,
    markup: Markup,
    scenario: &Scenario,
) -> std::sync::Arc<ScenarioResult> {
    let shop = windup_shop::spawn(ShopOptions {
        markup,
        ..ShopOptions::default()
    })
    .await
    .unwrap();
    let browser = Browser::launch(settings.browser_config()).await.unwrap();
    let pool = SessionPool::new(browser, 1);
    let base: Url = shop.url().parse().unwrap();
    let result = run_scenario(&pool, settings, &base, scenario).await;
    pool.close().await;
    result
}

fn cache_outcome(result: &ScenarioResult) -> CacheOutcome {
    match &result.outcome {
        Outcome::Passed { cache, .. } => *cache,
        Outcome::Failed(failure) => panic!("{} failed:\n{failure}", result.id),
    }
}

#[tokio::test]
async fn plan_once_replay_then_replan_what_the_site_broke() {
    let project = Project::with(&["login"]);
    let settings = project.settings(false);
    let login = project.scenario("login");

    // First run: planned, verified, and left for review.
    let first = run(&settings, Markup::Standard, &login).await;
    assert_eq!(cache_outcome(&first), CacheOutcome::Miss);
    let pending = project.pending("login");
    assert!(pending.is_file(), "the new plan waits for review");
    lockfile::accept(&pending).unwrap();

    // Second run: the cached plan replays.
    let second = run(&settings, Markup::Standard, &login).await;
    assert_eq!(cache_outcome(&second), CacheOutcome::Hit);
    assert!(
        !pending.exists(),
        "an unchanged plan leaves nothing to review"
    );

    // The markup changes: the replay fails at the email field, the entry turns stale, and the
    // scenario is re-planned from there, keeping the verified first step.
    let third = run(&settings, Markup::Renamed, &login).await;
    assert_eq!(cache_outcome(&third), CacheOutcome::Replanned);
    assert!(pending.is_file(), "the re-planned plan waits for review");
    let waiting = lockfile::pending(&project.root().join("scenarios")).unwrap();
    let diff =
        lockfile::PlanDiff::between(waiting[0].current.as_ref(), &waiting[0].proposed).to_string();
    assert!(diff.contains("- s2 fill #email"), "{diff}");
    assert!(diff.contains("+ s2 fill #login-email"), "{diff}");
    assert!(
        diff.contains("  s1 click a[href=\"/login\"]"),
        "the first step is kept: {diff}"
    );

    let entries = PlanCache::new(project.root()).get("login").unwrap();
    let stale = entries
        .iter()
        .find(|e| e.status == EntryStatus::Stale)
        .expect("the old plan is kept as evidence");
    let evidence = stale.failure.as_deref().unwrap_or_default();
    assert!(evidence.contains("step: fill \"Email\""), "{evidence}");
    assert!(
        evidence.contains("no element matches the selector"),
        "{evidence}"
    );
    assert!(
        evidence.contains("the start page's structure changed since the plan was made"),
        "the renamed markup reorders the home page too: {evidence}"
    );
    assert!(entries.iter().any(|e| e.status == EntryStatus::Active));

    // The ledger tells the story: planned, replayed with no planning, re-planned from step 2.
    let records = Ledger::new(project.root()).read().unwrap().records;
    let story: Vec<(CacheOutcome, Option<Replan>)> =
        records.iter().map(|r| (r.cache, r.replan)).collect();
    assert_eq!(
        story,
        vec![
            (CacheOutcome::Miss, None),
            (CacheOutcome::Hit, None),
            (CacheOutcome::Replanned, Some(Replan::FromStep { index: 1 })),
        ]
    );
    assert!(records.iter().all(|r| r.llm_calls.is_empty()));

    // Every page a run reached is recorded with its signature: the same structure gives the
    // same signatures, the renamed markup another one for the login form.
    let paths: Vec<&str> = records[0].pages.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["/", "/login", "/"], "{:?}", records[0].pages);
    assert!(
        records[0]
            .pages
            .iter()
            .all(|p| p.sig.len() == 64 && p.sig.bytes().all(|b| b.is_ascii_hexdigit()))
    );
    assert_eq!(records[1].pages, records[0].pages);
    let login_sig = |record: &windup_core::engine::ledger::RunRecord| {
        record
            .pages
            .iter()
            .find(|p| p.path == "/login")
            .map(|p| p.sig.clone())
    };
    assert!(login_sig(&records[2]).is_some());
    assert_ne!(login_sig(&records[2]), login_sig(&records[0]));
    // The cache key carries the signature of the page the plan starts on.
    let active = entries
        .iter()
        .find(|e| e.status == EntryStatus::Active)
        .unwrap();
    assert_eq!(
        active.key.start_sig.as_deref(),
        Some(records[2].pages[0].sig.as_str())
    );
}

#[tokio::test]
async fn read_only_runs_replay_lockfiles_and_never_plan() {
    let project = Project::with(&["search", "out-of-stock"]);
    // A developer planned and accepted the search plan; the cache is not committed.
    let developer = project.settings(false);
    let search = project.scenario("search");
    assert_eq!(
        cache_outcome(&*run(&developer, Markup::Standard, &search).await),
        CacheOutcome::Miss
    );
    lockfile::accept(&project.pending("search")).unwrap();
    PlanCache::new(project.root()).clear(None).unwrap();

    // CI: a cold cache is seeded from the lockfile and replays.
    let ci = project.settings(true);
    assert_eq!(
        cache_outcome(&*run(&ci, Markup::Standard, &search).await),
        CacheOutcome::Hit
    );

    // CI: a scenario with no plan fails with what to do, and nothing is written.
    let unplanned = run(&ci, Markup::Standard, &project.scenario("out-of-stock")).await;
    match &unplanned.outcome {
        Outcome::Failed(failure) => {
            let (message, class) = (&failure.to_string(), &failure.class());
            assert_eq!(*class, FailureClass::ReadOnly);
            assert!(
                message.contains("needs planning (it has no plan yet), and this run is read-only"),
                "{message}"
            );
            assert!(
                message.contains("run `cargo windup run out-of-stock`"),
                "{message}"
            );
            assert!(
                message.contains("commit scenarios/out-of-stock.plan.json")
                    || message.contains("out-of-stock.plan.json"),
                "{message}"
            );
        }
        Outcome::Passed { .. } => panic!("a read-only run must not plan"),
    }
    assert!(!project.pending("out-of-stock").exists());
    assert!(!lockfile::lockfile_path(&project.root().join("scenarios/out-of-stock.yaml")).exists());
}

#[tokio::test]
async fn a_plan_weaker_than_the_scenario_never_passes_and_is_never_saved() {
    let project = Project::with(&["login"]);
    // A committed plan that stops after opening the login form: its own postcondition holds,
    // but the scenario expects the user signed in.
    let weak = r#"{
      "plan_version": "0.1",
      "scenario_id": "login",
      "task": "Log in as the demo user.",
      "start_url": "/",
      "generated_by": { "planner": "offline", "at": "2026-11-30T00:00:00Z" },
      "actions": [
        {
          "id": "s1",
          "type": "click",
          "target": {
            "selector": "a[href=\"/login\"]",
            "identity": { "tag": "a", "role": "link", "name": "Log in" }
          },
          "expect": [{ "kind": "url_matches", "pattern": "/login" }]
        }
      ]
    }"#;
    let lockfile = project.root().join("scenarios/login.plan.json");
    std::fs::write(&lockfile, weak).unwrap();
    let login = project.scenario("login");

    // Read-only: the plan ran to its end, the scenario's expectation did not hold.
    // An expectation that does not hold fails at the action's deadline: keep it short.
    let short = |mut settings: Settings| {
        settings.timeout = std::time::Duration::from_millis(1500);
        settings
    };
    let ci = run(&short(project.settings(true)), Markup::Standard, &login).await;
    let Outcome::Failed(failure) = &ci.outcome else {
        panic!("a weak plan passed: {:?}", ci.outcome);
    };
    let (message, class) = (&failure.to_string(), &failure.class());
    assert_eq!(*class, FailureClass::ReadOnly, "{message}");
    assert!(
        message.contains("Signed in as demo@windup.test"),
        "{message}"
    );
    assert_eq!(PlanCache::new(project.root()).list().unwrap(), Vec::new());

    // Locally it is re-planned in full, and the new plan meets the expectation.
    let local = short(project.settings(false));
    let replanned = run(&local, Markup::Standard, &login).await;
    assert_eq!(cache_outcome(&replanned), CacheOutcome::Replanned);
    let waiting = lockfile::pending(&project.root().join("scenarios")).unwrap();
    assert_eq!(waiting[0].proposed.actions.len(), 4);
    assert_eq!(std::fs::read_to_string(&lockfile).unwrap(), weak);

    // A scenario whose expectation the site cannot meet gets no plan at all.
    std::fs::remove_file(project.pending("login")).unwrap();
    PlanCache::new(project.root()).clear(None).unwrap();
    let path = project.root().join("scenarios/login.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace("Signed in as demo@windup.test", "Signed in as nobody"),
    )
    .unwrap();
    let impossible = run(&local, Markup::Standard, &project.scenario("login")).await;
    let Outcome::Failed(failure) = &impossible.outcome else {
        panic!("an unmet expectation passed: {:?}", impossible.outcome);
    };
    let (message, class) = (&failure.to_string(), &failure.class());
    assert_eq!(*class, FailureClass::Step, "{message}");
    assert!(message.contains("Signed in as nobody"), "{message}");
    assert_eq!(PlanCache::new(project.root()).list().unwrap(), Vec::new());
    assert!(!project.pending("login").exists());
    assert_eq!(std::fs::read_to_string(&lockfile).unwrap(), weak);
}
