//! Fragments end to end in real Chromium: one login fragment used by three scenarios. It is
//! planned once, where it is first used, and replayed by the others; when the login page changes,
//! the first scenario's replay fails inside the fragment, the fragment alone is planned again, and
//! the other two replay the new fragment plan.

mod common;

use common::Project;
use url::Url;
use windup_core::browser::Browser;
use windup_core::engine::cache::PlanCache;
use windup_core::engine::ledger::{CacheOutcome, Ledger};
use windup_core::engine::lockfile;
use windup_core::run::outcome::{Outcome, ScenarioResult};
use windup_core::run::pool::SessionPool;
use windup_core::run::runner::run_scenario;
use windup_shop::{Markup, ShopOptions};

const LOGIN: &str = "\
task: Log in as the demo user.
steps:
  - click \"Log in\"
  - fill \"Email\" with \"demo@windup.test\"
  - fill \"Password\" with \"demo-password-123\"
  - click \"Log in\" in \"Password\"
  - expect text \"Log out\"
";

fn scenario(path: &str, text: &str) -> String {
    format!(
        "task: Signed in, open {path}.\nsteps:\n  - use login\n  - go to {path}\n  - expect text \"{text}\"\n"
    )
}

async fn run_all(project: &Project, markup: Markup) -> Vec<std::sync::Arc<ScenarioResult>> {
    let shop = windup_shop::spawn(ShopOptions {
        markup,
        ..ShopOptions::default()
    })
    .await
    .unwrap();
    let settings = project.settings(false);
    let browser = Browser::launch(settings.browser_config()).await.unwrap();
    let pool = SessionPool::new(browser, 1);
    let base: Url = shop.url().parse().unwrap();
    let mut results = Vec::new();
    for name in ["a-orders", "b-cart", "c-products"] {
        results.push(run_scenario(&pool, &settings, &base, &project.scenario(name)).await);
    }
    pool.close().await;
    results
}

fn cache_outcomes(results: &[std::sync::Arc<ScenarioResult>]) -> Vec<CacheOutcome> {
    results
        .iter()
        .map(|result| match &result.outcome {
            Outcome::Passed { cache, .. } => *cache,
            Outcome::Failed(failure) => panic!("{} failed:\n{failure}", result.id),
        })
        .collect()
}

#[tokio::test]
async fn one_fragment_replanned_once_fixes_every_scenario_that_uses_it() {
    let project = Project::with(&[]);
    std::fs::create_dir_all(project.root().join("scenarios/fragments")).unwrap();
    std::fs::write(project.root().join("scenarios/fragments/login.yaml"), LOGIN).unwrap();
    project.write("a-orders", &scenario("/orders", "Your orders"));
    project.write("b-cart", &scenario("/cart", "Your cart"));
    project.write("c-products", &scenario("/products", "Products"));

    // Planned: the fragment once, where the first scenario uses it; the others replay it.
    let first = run_all(&project, Markup::Standard).await;
    assert_eq!(cache_outcomes(&first), [CacheOutcome::Miss; 3]);
    let fragment_lockfile = project.root().join("scenarios/fragments/login.yaml");
    let pending = lockfile::pending_path(&fragment_lockfile);
    let plan = std::fs::read_to_string(&pending).expect("the fragment's plan waits for review");
    assert!(plan.contains("#email"), "{plan}");
    lockfile::accept(&pending).unwrap();
    let scenario_plan = std::fs::read_to_string(lockfile::pending_path(
        &project.root().join("scenarios/b-cart.yaml"),
    ))
    .unwrap();
    assert!(
        scenario_plan.contains("\"type\": \"use\"") && scenario_plan.contains("\"use\": \"login\""),
        "the scenario keeps only the reference: {scenario_plan}"
    );
    assert!(!scenario_plan.contains("#email"), "{scenario_plan}");
    let fragment_runs = |project: &Project| {
        PlanCache::new(project.root())
            .get("fragment:login")
            .unwrap()
            .into_iter()
            .filter(|e| e.status == windup_core::engine::cache::EntryStatus::Active)
            .count()
    };
    assert_eq!(fragment_runs(&project), 1);

    // Replayed: every scenario from the cache.
    let second = run_all(&project, Markup::Standard).await;
    assert_eq!(cache_outcomes(&second), [CacheOutcome::Hit; 3]);

    // The login page changes: the first scenario re-plans the fragment, the others replay it.
    let third = run_all(&project, Markup::Renamed).await;
    assert_eq!(
        cache_outcomes(&third),
        [
            CacheOutcome::Replanned,
            CacheOutcome::Hit,
            CacheOutcome::Hit
        ]
    );
    let plan = std::fs::read_to_string(&pending).expect("the new fragment plan waits for review");
    assert!(plan.contains("#login-email"), "{plan}");
    let entries = PlanCache::new(project.root())
        .get("fragment:login")
        .unwrap();
    let stale = entries
        .iter()
        .find(|e| e.status == windup_core::engine::cache::EntryStatus::Stale)
        .expect("the old fragment plan is kept as evidence");
    assert!(
        stale
            .failure
            .as_deref()
            .unwrap_or_default()
            .contains("fragment \"login\""),
        "{:?}",
        stale.failure
    );
    // The scenarios' own cached plans were never the problem.
    for name in ["a-orders", "b-cart", "c-products"] {
        let entries = PlanCache::new(project.root()).get(name).unwrap();
        assert!(
            entries
                .iter()
                .all(|e| e.status == windup_core::engine::cache::EntryStatus::Active),
            "{name}"
        );
    }
    let records = Ledger::new(project.root()).read().unwrap().records;
    assert_eq!(records.len(), 9);
    assert_eq!(
        records
            .iter()
            .filter(|r| r.cache == CacheOutcome::Replanned)
            .count(),
        1,
        "one re-plan fixed all three"
    );
}

#[tokio::test]
async fn a_fragment_types_the_secrets_of_the_scenario_running_it() {
    let project = Project::with(&[]);
    std::fs::write(
        project.root().join("windup.toml"),
        "scenarios = \"scenarios\"\n[accounts.demo]\nemail = \"FRAGMENT_TEST_EMAIL\"\npassword = \"FRAGMENT_TEST_PASSWORD\"\n",
    )
    .unwrap();
    std::fs::write(
        project.root().join(".env.local"),
        "FRAGMENT_TEST_EMAIL=demo@windup.test\nFRAGMENT_TEST_PASSWORD=demo-password-123\n",
    )
    .unwrap();
    std::fs::create_dir_all(project.root().join("scenarios/fragments")).unwrap();
    std::fs::write(
        project.root().join("scenarios/fragments/login.yaml"),
        LOGIN
            .replace("steps:", "account: demo\nsteps:")
            .replace("\"demo@windup.test\"", "account.email")
            .replace("\"demo-password-123\"", "account.password"),
    )
    .unwrap();
    project.write(
        "orders",
        &format!("account: demo\n{}", scenario("/orders", "Your orders")),
    );
    let shop = windup_shop::spawn(ShopOptions::default()).await.unwrap();
    // Loaded as a run loads it (`.env.local` included), but never read-only, even under CI.
    let mut settings = windup_core::config::Settings::load(project.root()).unwrap();
    settings.update = windup_core::config::UpdateMode::Auto;
    let browser = Browser::launch(settings.browser_config()).await.unwrap();
    let pool = SessionPool::new(browser, 1);
    let base: Url = shop.url().parse().unwrap();
    let result = run_scenario(&pool, &settings, &base, &project.scenario("orders")).await;
    pool.close().await;
    assert_eq!(cache_outcomes(&[result]), [CacheOutcome::Miss]);
    let plan = std::fs::read_to_string(lockfile::pending_path(
        &project.root().join("scenarios/fragments/login.yaml"),
    ))
    .unwrap();
    assert!(
        plan.contains("\"value_ref\": \"account.password\""),
        "{plan}"
    );
    assert!(!plan.contains("demo-password-123"), "{plan}");
}
