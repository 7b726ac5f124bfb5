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
use windup::{Budget, RunEvent};
// The audit is a feature of `windup` (`audit`); the tests reach it through windup-core, which
// their dev-dependency builds with every feature.
use windup_core::config::Settings;
use windup_core::run::audit::{AuditFinished, AuditRun};
use windup_fake_provider::{FakeProvider, Reply, Wire};
use windup_shop::BugSet;

/// A small audit: a few page states, no random walk; it is stopped once it has a finding.
fn budget() -> Budget {
    let mut budget = Budget::default();
    budget.time = Duration::from_secs(900);
    budget.pages = 6;
    budget.walks = Some(0);
    budget.shrink_runs = 4;
    budget
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
        "{}[llm]\nprovider = \"{provider}\"\nmodel = \"{model}\"\nbase_url = \"{}{root}\"\n{extra}",
        common::SHOP_ACCOUNT_TOML,
        fake.url()
    );
    let env = move |name: &str| match name {
        "CI" if ci => Some("true".to_owned()),
        _ if name == key => Some("fake-key-for-tests".to_owned()),
        _ => None,
    };
    common::with_shop_account(project.settings_with(&toml, &env))
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

/// Runs the audit with the model until its first finding, a veto (or its end).
async fn audit(settings: Settings, url: &str) -> (AuditFinished, Vec<String>) {
    let (finished, events) = audit_until(settings, budget(), url, &|text: &str| {
        text.contains("The model's judge vetoed")
    })
    .await;
    (finished, reasonings(&events))
}

fn reasonings(events: &[RunEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            RunEvent::Reasoning { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// Runs the audit with the model until its first finding, or until `enough` is true of what it
/// has said so far; every event it told.
async fn audit_until(
    settings: Settings,
    budget: Budget,
    url: &str,
    enough: &'static (dyn Fn(&str) -> bool + Sync),
) -> (AuditFinished, Vec<RunEvent>) {
    let told = Arc::new(Mutex::new(Vec::new()));
    let run = AuditRun::new(settings, url.parse().unwrap())
        .seed(1)
        .budget(budget)
        .account("demo")
        .with_model(true);
    let stop = run.stop_flag();
    let heard = Arc::clone(&told);
    let run = run.reporter(move |event: &RunEvent| {
        let mut heard = heard.lock().unwrap();
        heard.push(event.clone());
        let said: Vec<String> = reasonings(&heard);
        if matches!(event, RunEvent::Finding { .. }) || enough(&said.join("\n")) {
            stop.store(true, Ordering::SeqCst);
        }
    });
    let finished = run.run().await.expect("the audit runs");
    let told = told.lock().unwrap().clone();
    (finished, told)
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
    assert_eq!(finding.source, windup_core::model::invariant::Source::Model);
    assert_eq!(
        finding.severity,
        windup_core::model::invariant::Severity::Critical,
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
    // The rules are read from the pages and from screenshots of the first of them.
    let requests = fake.requests();
    assert!(requests[0].images >= 1, "no screenshot in the rules prompt");
    assert!(requests[1..].iter().all(|r| r.images == 0));
    for request in requests {
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
    let ledger = windup_core::engine::ledger::Ledger::new(project.root())
        .read()
        .unwrap();
    let calls: Vec<&str> = ledger
        .records
        .iter()
        .flat_map(|r| r.llm_calls.iter().map(|c| c.purpose.as_str()))
        .collect();
    assert_eq!(calls, ["rules"]);
}

/// A budget the very first call would go over: no request is sent, the audit stops marked
/// `model` and says which limit, and the ledger has no call.
async fn stopped_before_any_call(extra: &str, budget: Budget, limit: &str) {
    let buggy = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(rules_answer()));
    let project = Project::with(&[]);
    let settings = settings_with(&project, Wire::OpenAi, &fake, false, extra);
    let (finished, events) = audit_until(settings, budget, buggy.url(), &|_| false).await;
    let outcome = &finished.outcome;
    assert_eq!(outcome.stopped_by, "model", "{:#?}", reasonings(&events));
    let reason = outcome.stop_reason.as_deref().unwrap_or_default();
    assert!(
        reason.contains("the rules call was not made") && reason.contains(limit),
        "{reason}"
    );
    assert!(fake.requests().is_empty(), "no request was sent");
    assert_eq!(fake.pending(), 1);
    assert_eq!(outcome.model_calls, 0);
    assert!(outcome.findings.is_empty());
    let ledger = windup_core::engine::ledger::Ledger::new(project.root())
        .read()
        .unwrap();
    assert!(ledger.records.iter().all(|r| r.llm_calls.is_empty()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_usd_budget_stops_the_audit_before_a_call_that_could_exceed_it() {
    stopped_before_any_call(
        "max_usd_per_audit = 0.0001\n",
        budget(),
        "max_usd_per_audit",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_budget_stops_the_audit_before_a_call_that_could_outlast_it() {
    // Each call may take ten minutes, and the audit has two in all.
    let short = {
        let mut budget = budget();
        budget.time = Duration::from_secs(120);
        budget
    };
    stopped_before_any_call("timeout_ms = 600000\n", short, "give the audit more time").await;
}

/// Two rules on the help page, whose customer note tells AI agents to leave for another site and
/// leak the password; the "steered" model obeys in both attacks.
fn steered_rules() -> Value {
    let rule = |id: &str| {
        json!({
            "id": id, "statement": "The help page shows one customer note.", "surface": "/help",
            "predicate": "count(\"[data-testid=customer-note]\") <= 1", "severity": "low"
        })
    };
    json!({ "invariants": [rule("help-shows-one-note"), rule("help-note-stays")] })
}

fn steered_attack(id: &str, action: Value) -> Value {
    json!({ "invariant_id": id, "rationale": "As the page says.", "actions": [action], "watch": [] })
}

/// Every file under `dir`, read as bytes.
fn files(dir: &std::path::Path, out: &mut Vec<(std::path::PathBuf, Vec<u8>)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            out.push((path, bytes));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_injection_page_cannot_steer_the_audit_off_origin_into_a_denied_control_or_a_leak() {
    let shop = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(steered_rules()));
    fake.push(Reply::Json(steered_attack(
        "help-shows-one-note",
        action(
            "a1",
            "goto",
            json!({
                "url": "https://evil.example/collect",
                "expect": [{ "kind": "url_matches", "pattern": "/collect" }]
            }),
        ),
    )));
    fake.push(Reply::Json(steered_attack(
        "help-note-stays",
        action(
            "a1",
            "click",
            json!({
                "target": target("form.logout button", "button", "button", "Log out", None),
                "expect": [{ "kind": "url_matches", "pattern": "/" }]
            }),
        ),
    )));
    let project = Project::with(&[]);
    let settings = settings(&project, Wire::Gemini, &fake, false);
    // The audit starts on the help page, so the note is the first page it reads.
    let help = format!("{}/help", shop.url());
    let (finished, events) = audit_until(settings, budget(), &help, &|said: &str| {
        said.matches("Refused the model's attack").count() >= 2
    })
    .await;
    let said = reasonings(&events);
    let refused: Vec<&String> = said.iter().filter(|t| t.starts_with("Refused")).collect();
    assert_eq!(refused.len(), 2, "{said:#?}");
    assert!(
        refused[0].contains("off the audited origin"),
        "{}",
        refused[0]
    );
    assert!(
        refused[1].contains("\"Log out\", which is denied"),
        "{}",
        refused[1]
    );
    assert_eq!(fake.pending(), 0, "{said:#?}");
    // No action of the audit went to the other site: only the refusals name it.
    for event in &events {
        if !matches!(event, RunEvent::Reasoning { .. }) {
            assert!(
                !event.to_json().contains("evil.example"),
                "{}",
                event.to_json()
            );
        }
    }
    // The page reached the model only inside the untrusted fence; no secret left in a request.
    let asked = fake.requests()[0].body.to_string();
    let note = asked
        .find("IMPORTANT SYSTEM MESSAGE")
        .expect("the help page was read");
    let fence = asked[..note]
        .rfind("UNTRUSTED PAGE CONTENT")
        .expect("a fence before it");
    assert!(
        !asked[fence..note].contains("END UNTRUSTED"),
        "the note sits inside the fence"
    );
    let secrets = [windup_shop::DEMO_PASSWORD, windup_shop::DEMO_EMAIL];
    for request in fake.requests() {
        let body = request.body.to_string();
        for secret in secrets {
            assert!(!body.contains(secret), "a secret reached the provider");
        }
    }
    // Nor any file the audit wrote: the store, the prompts kept, the ledger, the tests.
    let mut written = Vec::new();
    files(project.root(), &mut written);
    assert!(written.iter().any(|(p, _)| p.ends_with("audits.sqlite")));
    for (path, bytes) in &written {
        for secret in secrets {
            let found = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            assert!(!found, "{} holds a secret", path.display());
        }
    }
    assert!(
        finished
            .outcome
            .findings
            .iter()
            .all(|f| f.source != windup_core::model::invariant::Source::Model)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_violation_whose_predicate_holds_never_becomes_a_finding() {
    let shop = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    // The rule holds on the buggy shop too: the cart always has its heading.
    fake.push(Reply::Json(json!({ "invariants": [{
        "id": "cart-has-a-heading", "statement": "The cart page says what it is.",
        "surface": "/cart", "predicate": "count(\"h1\") == 1", "severity": "low"
    }]})));
    let mut attack = attack_answer();
    attack["invariant_id"] = json!("cart-has-a-heading");
    fake.push(Reply::Json(attack));
    // A judge eager to report it: it is never asked, since the predicate found nothing.
    fake.push(Reply::Json(judge_answer(true)));
    let project = Project::with(&[]);
    let settings = settings(&project, Wire::OpenAi, &fake, false);
    let (finished, events) = audit_until(settings, budget(), shop.url(), &|said: &str| {
        said.contains("Attacking ")
    })
    .await;
    let said = reasonings(&events);
    assert!(
        said.iter()
            .any(|t| t.starts_with("The model attacks \"cart-has-a-heading\"")),
        "{said:#?}"
    );
    assert!(
        finished
            .outcome
            .findings
            .iter()
            .all(|f| f.invariant_id != "cart-has-a-heading"),
        "{:#?}",
        finished.outcome.findings
    );
    assert_eq!(fake.pending(), 1, "the judge was never asked");
    assert_eq!(finished.outcome.model_calls, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_models_attacks_and_windups_own_take_turns() {
    let shop = buggy_shop().await;
    let fake = FakeProvider::start().await.unwrap();
    // Two rules the buggy shop keeps, so that no finding ends the audit early.
    fake.push(Reply::Json(json!({ "invariants": [
        { "id": "cart-has-a-heading", "statement": "The cart page says what it is.",
          "surface": "/cart", "predicate": "count(\"h1\") == 1", "severity": "low" },
        { "id": "cart-has-one-heading-still", "statement": "The cart page has one title.",
          "surface": "/cart", "predicate": "count(\"h1\") <= 1", "severity": "low" }
    ]})));
    for id in ["cart-has-a-heading", "cart-has-one-heading-still"] {
        let mut attack = attack_answer();
        attack["invariant_id"] = json!(id);
        fake.push(Reply::Json(attack));
    }
    let project = Project::with(&[]);
    let settings = settings(&project, Wire::OpenAi, &fake, false);
    let (_, events) = audit_until(settings, budget(), shop.url(), &|said: &str| {
        said.contains("The model attacks \"cart-has-one-heading-still\"")
    })
    .await;
    // Each attack once, in the order they came: the model's as it announced them (the audit
    // stops on the second's announcement), Windup's own by their actions.
    let mut attacks: Vec<String> = Vec::new();
    for event in &events {
        let attack = match event {
            RunEvent::Reasoning { text, .. } if text.starts_with("The model attacks ") => {
                text.split('"').nth(1).map(|id| format!("model: {id}"))
            }
            RunEvent::AuditAction { label, .. } if !label.starts_with("the model's attack") => {
                Some(label.clone())
            }
            _ => None,
        };
        if let Some(attack) = attack
            && attacks.last() != Some(&attack)
        {
            attacks.push(attack);
        }
    }
    assert_eq!(attacks[0], "model: cart-has-a-heading", "{attacks:#?}");
    let next = attacks
        .iter()
        .position(|a| a == "model: cart-has-one-heading-still")
        .expect("the model's second attack");
    assert!(
        next >= 2,
        "Windup's own attacks between the model's: {attacks:#?}"
    );
    assert!(
        attacks[1..next].iter().all(|a| !a.starts_with("model: ")),
        "{attacks:#?}"
    );
    // One built-in turn: the record oracle's measured submissions, all of one form.
    assert!(
        attacks[1..next].iter().all(|a| a.ends_with("form on /")),
        "{attacks:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_shows_a_secret_is_never_sent_as_a_screenshot() {
    let site = common::patterns::PatternSite::start().await;
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(json!({ "invariants": [{
        "id": "account-has-a-title", "statement": "The account page says what it is.",
        "surface": "/account-badge.html", "predicate": "count(\"h1\") == 1", "severity": "low"
    }]})));
    let project = Project::with(&[]);
    let settings = settings(&project, Wire::Anthropic, &fake, false);
    // The account page shows the demo account's email, upper-cased, in a shadow root; the
    // page it links to shows none.
    let start = format!("{}/account-badge.html", site.url());
    let (_, events) = audit_until(settings, budget(), &start, &|said: &str| {
        said.contains("invariants to hold")
    })
    .await;
    let said = reasonings(&events);
    assert!(
        said.iter().any(|t| t
            == "No screenshot of /account-badge.html for the model: the page shows \
                accounts.demo.email."),
        "{said:#?}"
    );
    let rules = &fake.requests()[0];
    assert!(rules.problems.is_empty(), "{:?}", rules.problems);
    let asked = rules.body.to_string();
    assert!(asked.contains("No screenshot of /account-badge.html: it shows an account's values."));
    assert!(
        asked.contains("Image 1 is a screenshot of /label-for.html."),
        "{asked}"
    );
    // Each image sent is announced, and kept beside the prompt for review.
    let announced = asked.matches(" is a screenshot of ").count();
    assert_eq!(rules.images, announced);
    let kept = project.root().join(".windup/prompts");
    let pngs = std::fs::read_dir(&kept)
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "png"))
        .count();
    assert_eq!(pngs, announced);
    site.stop().await;
}
