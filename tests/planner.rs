//! The offline planner in real Chromium: explicit steps resolved by name on the live page, the
//! located messages when a name matches nothing or too much, and what the plan records.

mod common;

use std::path::Path;

use common::Rig;
use windup_core::engine::executor::{Executor, ValueSource};
use windup_core::engine::planner::{OfflinePlanner, PlannedRun};
use windup_core::model::scenario::{self, Scenario};
use windup_core::model::secret::SecretValue;
use windup_core::run::failure::explain;
use windup_shop::{Markup, ShopOptions};

fn scenario(name: &str, text: &str) -> Scenario {
    let root = Path::new("scenarios");
    scenario::parse(text, &root.join(format!("{name}.yaml")), root)
        .unwrap_or_else(|e| panic!("test scenario {name} is invalid: {e}"))
}

struct Secrets;

impl ValueSource for Secrets {
    fn resolve(&self, reference: &str) -> Option<SecretValue> {
        (reference == "account.password").then(|| SecretValue::new("demo-password-123"))
    }
}

async fn plan(rig: &Rig, scenario: &Scenario) -> Result<PlannedRun, String> {
    rig.session.reset().await.unwrap();
    let executor = Executor::new(&rig.session, &rig.options, &Secrets);
    OfflinePlanner
        .plan(scenario, &executor)
        .await
        .map_err(|failure| explain(scenario, &failure))
}

/// The parts of a failure message that do not change from run to run.
fn stable(message: &str) -> String {
    message
        .lines()
        .filter(|line| {
            !line.trim_start().starts_with("page: ")
                && !line.trim_start().starts_with("screenshot: ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_name_that_matches_nothing_fails_with_the_names_on_the_page() {
    let mut rig = Rig::start().await;
    rig.options.default_timeout = std::time::Duration::from_millis(500);
    let buy = scenario(
        "buy-now",
        "task: Buy the mug at once.\nstart_url: /products/rust-mug\nsteps:\n  - click \"Buy now\"\n",
    );
    let message = plan(&rig, &buy)
        .await
        .expect_err("nothing is named Buy now");
    assert!(message.contains("screenshot: "), "{message}");
    insta::assert_snapshot!("missing_name", stable(&message));
    rig.close().await;
}

#[tokio::test]
async fn an_ambiguous_name_fails_listing_the_candidates_and_in_narrows_it() {
    let rig = Rig::start().await;
    let ambiguous = scenario(
        "add-any",
        "task: Add something.\nstart_url: /products\nsteps:\n  - click \"Add to cart\"\n",
    );
    let message = plan(&rig, &ambiguous)
        .await
        .expect_err("six buttons are named Add to cart");
    insta::assert_snapshot!("ambiguous_name", stable(&message));

    let narrowed = scenario(
        "add-mug",
        "task: Add the mug.\nstart_url: /products\nsteps:\n  - click \"Add to cart\" in \"Rust mug\"\n  - expect text \"$12.00\"\nexpect:\n  - url /cart\n",
    );
    let run = plan(&rig, &narrowed)
        .await
        .unwrap_or_else(|m| panic!("{m}"));
    let click = &run.plan.actions[0];
    assert_eq!(
        click.target.as_ref().unwrap().identity.name.as_deref(),
        Some("Add to cart")
    );
    let line = rig
        .session
        .execute_script(
            "return document.querySelector('[data-testid=\"cart-line-rust-mug\"]') !== null",
        )
        .await
        .unwrap();
    assert_eq!(line, true, "the mug, not another product, is in the cart");
    rig.close().await;
}

#[tokio::test]
async fn the_plan_records_stable_selectors_identities_and_references_not_secrets() {
    let rig = Rig::start().await;
    let checkout = scenario(
        "checkout",
        r#"task: Buy a mug as the demo user.
start_url: /products/rust-mug
account: demo
steps:
  - click "Add to cart"
  - click "Proceed to checkout"
  - fill "Email" with "demo@windup.test"
  - fill "Password" with account.password
  - click "Log in" in "Password"
  - fill "Full name" with "Ferris Crab"
  - fill "Address" with "1 Rust Lane"
  - select "Japan" in "Country"
  - check "I accept the terms"
  - click "Place order"
expect:
  - text "Thank you for your order"
  - url /orders/*
"#,
    );
    let run = plan(&rig, &checkout)
        .await
        .unwrap_or_else(|m| panic!("{m}"));
    let json = run.plan.to_json_pretty();
    assert!(
        !json.contains("demo-password-123"),
        "the secret never enters the plan: {json}"
    );
    let password = &run.plan.actions[3];
    assert_eq!(password.value_ref.as_deref(), Some("account.password"));
    assert_eq!(password.value, None);
    let terms = run.plan.actions[8].target.as_ref().unwrap();
    assert_eq!(
        terms.selector, "label[for=\"terms\"]",
        "the hidden checkbox is checked through its label"
    );
    assert_eq!(terms.identity.tag, "label");
    let add = run.plan.actions[0].target.as_ref().unwrap();
    assert_eq!(add.selector, "[data-testid=\"add-to-cart\"]");
    assert_eq!(add.identity.role.as_deref(), Some("button"));
    let last = run.plan.actions.last().unwrap();
    assert_eq!(
        last.expect.len(),
        2,
        "the scenario's expectations end the plan: {last:?}"
    );
    assert_eq!(run.plan.generated_by.planner.as_str(), "offline");
    assert_eq!(run.execution.actions.len(), 10);

    // The plan it made replays on a fresh session.
    rig.session.reset().await.unwrap();
    Executor::new(&rig.session, &rig.options, &Secrets)
        .run(&run.plan)
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    rig.close().await;
}

#[tokio::test]
async fn the_same_steps_plan_against_renamed_markup() {
    let rig = Rig::with_shop(ShopOptions {
        markup: Markup::Renamed,
        ..ShopOptions::default()
    })
    .await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let checkout = scenario::load(&root.join("checkout-as-demo-user.yaml"), &root).unwrap();
    let run = plan(&rig, &checkout)
        .await
        .unwrap_or_else(|m| panic!("{m}"));
    let add = run.plan.actions[0].target.as_ref().unwrap();
    assert_ne!(
        add.selector, "[data-testid=\"add-to-cart\"]",
        "renamed markup, other selectors"
    );
    assert_eq!(
        add.identity.name.as_deref(),
        Some("Add to cart"),
        "same thing to a person"
    );
    rig.close().await;
}
