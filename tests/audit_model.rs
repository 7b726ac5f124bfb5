//! The model in the audit, end to end in real Chromium against the demo shop with every bug on,
//! through the fake provider: the rules it proposes are checked before they are held, the attack
//! it plans breaks one the generic oracles cannot state, the judge confirms, and the finding's
//! regression test fails on the buggy shop and passes on the correct one.

mod common;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::Project;
use serde_json::{Value, json};
use windup::engine::config::Settings;
use windup::{AuditFinished, AuditRun, Budget, RunEvent};
use windup_fake_provider::{FakeProvider, Reply, Wire};
use windup_shop::BugSet;

/// A small audit: a few page states, no random walk; it is stopped once it has a finding.
fn budget() -> Budget {
    Budget {
        time: Duration::from_secs(900),
        pages: 6,
        walks: 0,
        shrink_runs: 4,
        ..Budget::default()
    }
}

fn settings(project: &Project, wire: Wire, fake: &FakeProvider, ci: bool) -> Settings {
    settings_with(project, wire, fake, ci, "")
}

fn settings_with(
    project: &Project,
    wire: Wire,
    fake: &FakeProvider,
    ci: bool,
    extra: &str,
) -> Settings {
    let (provider, root, model, key) = match wire {
        Wire::OpenAi => ("openai", "/v1", "gpt-5-mini", "OPENAI_API_KEY"),
        Wire::Gemini => ("gemini", "/v1beta", "gemini-2.5-flash", "GEMINI_API_KEY"),
        Wire::Anthropic => ("anthropic", "/v1", "claude-haiku-4-5", "ANTHROPIC_API_KEY"),
    };
    let toml = format!(
        "[accounts.demo]\nemail = \"SHOP_EMAIL\"\npassword = \"SHOP_PASSWORD\"\n\
         [llm]\nprovider = \"{provider}\"\nmodel = \"{model}\"\nbase_url = \"{}{root}\"\n{extra}",
        fake.url()
    );
    let env = move |name: &str| match name {
        "CI" if ci => Some("true".to_owned()),
        _ if name == key => Some("fake-key-for-tests".to_owned()),
        _ => None,
    };
    let mut settings = project.settings_with(&toml, &env);
    settings.env_file = settings
        .env_file
        .clone()
        .with("SHOP_EMAIL", windup_shop::DEMO_EMAIL)
        .with("SHOP_PASSWORD", windup_shop::DEMO_PASSWORD);
    settings
}

/// The rule a reader of the cart states, and the generic oracles cannot.
fn rules_answer() -> Value {
    json!({ "invariants": [
        {
            "id": "cart-lines-add-up",
            "statement": "The cart's subtotal is the sum of its line totals.",
            "surface": "/cart",
            "predicate": "!visible(\"[data-testid=cart-subtotal]\") || money(\"[data-testid=cart-subtotal]\") == sum(moneys(\"[data-testid^=line-total-]\"))",
            "severity": "high"
        }
    ]})
}

fn target(selector: &str, tag: &str, role: &str, name: &str, label: Option<&str>) -> Value {
    json!({ "selector": selector, "identity": { "tag": tag, "role": role, "name": name, "label": label } })
}

fn action(id: &str, kind: &str, fields: Value) -> Value {
    let mut action = json!({
        "id": id, "type": kind, "target": null, "value": null, "value_ref": null, "url": null,
        "key": null, "use": null, "expect": null, "timeout_ms": null
    });
    for (key, value) in fields.as_object().unwrap() {
        action[key] = value.clone();
    }
    action
}

/// Two mugs in the cart: the buggy shop prices the last line once.
fn attack_answer() -> Value {
    json!({
        "invariant_id": "cart-lines-add-up",
        "rationale": "A line with a quantity above one shows whether the subtotal multiplies.",
        "actions": [
            action("a1", "goto", json!({ "url": "/products/rust-mug" })),
            action("a2", "fill", json!({
                "target": target("#quantity", "input", "spinbutton", "Quantity", Some("Quantity")),
                "value": "2"
            })),
            action("a3", "click", json!({
                "target": target("[data-testid=\"add-to-cart\"]", "button", "button", "Add to cart", None)
            })),
            action("a4", "goto", json!({
                "url": "/cart",
                "expect": [{ "kind": "url_matches", "pattern": "/cart" }]
            })),
        ],
        "watch": ["[data-testid=cart-subtotal]"]
    })
}

fn judge_answer(violated: bool) -> Value {
    json!({
        "violated": violated,
        "severity": "critical",
        "actual": "Two mugs are charged as one.",
        "impact": "The shop loses the price of every extra item on the last line.",
        "reason": if violated { "The subtotal leaves out an item." } else { "The rule is wrong here." }
    })
}

/// Runs the audit with the model until its first finding (or its end).
async fn audit(settings: Settings, url: &str) -> (AuditFinished, Vec<String>) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let run = AuditRun::new(settings, url.parse().unwrap())
        .seed(1)
        .budget(budget())
        .account("demo")
        .with_model(true);
    let stop = run.stop_flag();
    let heard = Arc::clone(&said);
    let run = run.reporter(move |event: &RunEvent| match event {
        RunEvent::Finding { .. } => stop.store(true, Ordering::SeqCst),
        RunEvent::Reasoning { text, .. } => {
            if text.starts_with("The model's judge vetoed") {
                stop.store(true, Ordering::SeqCst);
            }
            heard.lock().unwrap().push(text.clone());
        }
        _ => {}
    });
    let finished = run.run().await.expect("the audit runs");
    let said = said.lock().unwrap().clone();
    (finished, said)
}

async fn buggy_shop() -> windup_shop::RunningShop {
    windup_shop::spawn(windup_shop::ShopOptions {
        bugs: BugSet::all(),
        ..Default::default()
    })
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_openai_the_model_finds_a_bug_the_generic_oracles_cannot() {
    the_model_finds_a_bug_the_generic_oracles_cannot(Wire::OpenAi).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_gemini_the_model_finds_a_bug_the_generic_oracles_cannot() {
    the_model_finds_a_bug_the_generic_oracles_cannot(Wire::Gemini).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn through_anthropic_the_model_finds_a_bug_the_generic_oracles_cannot() {
    the_model_finds_a_bug_the_generic_oracles_cannot(Wire::Anthropic).await;
}

async fn the_model_finds_a_bug_the_generic_oracles_cannot(wire: Wire) {
    let buggy = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: BugSet::all(),
        ..Default::default()
    })
    .await
    .unwrap();
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(rules_answer()));
    fake.push(Reply::Json(attack_answer()));
    fake.push(Reply::Json(judge_answer(true)));
    let project = Project::with(&[]);
    let (finished, said) = audit(settings(&project, wire, &fake, false), buggy.url()).await;
    let outcome = &finished.outcome;
    let finding = outcome
        .findings
        .iter()
        .find(|f| f.invariant_id == "cart-lines-add-up")
        .unwrap_or_else(|| {
            panic!(
                "no finding of the model's rule: {:#?}\n{said:#?}",
                outcome.findings
            )
        });
    assert_eq!(finding.source, windup::engine::invariant::Source::Model);
    assert_eq!(
        finding.severity,
        windup::engine::invariant::Severity::Critical,
        "the judge grades it"
    );
    assert!(
        finding.actual.starts_with("Two mugs are charged as one."),
        "{}",
        finding.actual
    );
    assert_eq!(outcome.model_calls, 3);
    assert_eq!(
        fake.pending(),
        0,
        "rules, attack and judge were each asked once"
    );
    for request in fake.requests() {
        assert_eq!(request.wire, Some(wire));
        assert!(request.problems.is_empty(), "{:?}", request.problems);
        let body = request.body.to_string();
        assert!(
            !body.contains(windup_shop::DEMO_PASSWORD),
            "a secret reached the provider"
        );
    }
    // The regression tests replay at $0: they fail on the buggy shop, pass on the correct one.
    assert_eq!(finished.tests.len(), outcome.findings.len());
    let against_buggy =
        common::replay_audit_tests(settings(&project, wire, &fake, true), buggy.url()).await;
    assert_eq!(against_buggy.len(), outcome.findings.len());
    assert!(
        against_buggy.values().all(|passed| !passed),
        "{against_buggy:?}"
    );
    let correct = windup_shop::spawn(windup_shop::ShopOptions::default())
        .await
        .unwrap();
    let against_correct =
        common::replay_audit_tests(settings(&project, wire, &fake, true), correct.url()).await;
    assert!(
        against_correct.values().all(|passed| *passed),
        "{against_correct:?}"
    );
    assert_eq!(fake.requests().len(), 3, "a replay calls no model");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_judge_veto_keeps_the_violation_as_evidence_and_makes_no_finding() {
    let buggy = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(rules_answer()));
    fake.push(Reply::Json(attack_answer()));
    fake.push(Reply::Json(judge_answer(false)));
    let project = Project::with(&[]);
    let (finished, said) = audit(settings(&project, Wire::OpenAi, &fake, false), buggy.url()).await;
    let outcome = &finished.outcome;
    assert!(
        outcome
            .findings
            .iter()
            .all(|f| f.invariant_id != "cart-lines-add-up"),
        "a vetoed violation is no finding: {:#?}",
        outcome.findings
    );
    let vetoed = outcome
        .vetoed
        .iter()
        .find(|v| v.invariant_id == "cart-lines-add-up")
        .unwrap_or_else(|| panic!("the veto is kept: {said:#?}"));
    assert_eq!(vetoed.reason, "The rule is wrong here.");
    assert!(!vetoed.seen.is_empty(), "with what the predicate saw");
    assert!(
        vetoed.steps.iter().any(|s| s.contains("Add to cart")),
        "{:?}",
        vetoed.steps
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_call_budget_stops_the_audit_before_the_call_that_would_exceed_it() {
    let buggy = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(rules_answer()));
    fake.push(Reply::Json(attack_answer()));
    let project = Project::with(&[]);
    let settings = settings_with(
        &project,
        Wire::Anthropic,
        &fake,
        false,
        "max_calls_per_audit = 1\n",
    );
    let (finished, said) = audit(settings, buggy.url()).await;
    let outcome = &finished.outcome;
    assert_eq!(outcome.stopped_by, "model", "{said:#?}");
    let reason = outcome.stop_reason.as_deref().unwrap_or_default();
    assert!(reason.contains("max_calls_per_audit"), "{reason}");
    assert!(reason.contains("attack"), "{reason}");
    assert_eq!(fake.requests().len(), 1, "only the rules call was made");
    assert_eq!(fake.pending(), 1, "the attack was never asked");
    assert_eq!(outcome.model_calls, 1);
    // The ledger has the call, as an audit's record.
    let ledger = windup::engine::ledger::Ledger::new(project.root())
        .read()
        .unwrap();
    let calls: Vec<&str> = ledger
        .records
        .iter()
        .flat_map(|r| r.llm_calls.iter().map(|c| c.purpose.as_str()))
        .collect();
    assert_eq!(calls, ["rules"]);
}
