//! Model planning end to end in real Chromium, against the fake provider server on loopback:
//! a scenario with only a task is planned with one call, executed, verified, cached, and then
//! replayed with no call at all — through each provider's wire format. Bad answers are fed
//! back and retried within bounds; budgets stop calls before they are made; prompts fence the
//! page as untrusted data.

mod common;

use common::{Project, run_in, text};
use serde_json::{Value, json};
use url::Url;
use windup_core::browser::Browser;
use windup_core::config::Settings;
use windup_core::engine::ledger::{CacheOutcome, Ledger, RetryKind, RunRecord};
use windup_core::run::failure::FailureClass;
use windup_core::run::outcome::{Outcome, ScenarioResult};
use windup_core::run::pool::SessionPool;
use windup_core::run::runner::run_scenario;
use windup_fake_provider::{FakeProvider, Recorded, Reply, Wire};
use windup_shop::RunningShop;

const MUGS: &str = "\
id: mugs-in-cart
task: Put two Rust mugs in the cart.
start_url: /products/rust-mug
expect:
  - url /cart
";

/// One action of a model's answer, every field present as strict mode has it.
fn action(id: &str, kind: &str, target: Option<(&str, &str, &str)>, extra: Value) -> Value {
    let mut action = json!({
        "id": id, "type": kind, "target": null, "value": null, "value_ref": null, "url": null,
        "key": null, "use": null, "expect": [], "timeout_ms": null,
    });
    if let Some((selector, tag, name)) = target {
        action["target"] = json!({
            "selector": selector,
            "identity": { "tag": tag, "role": null, "name": name, "label": null }
        });
    }
    for (key, value) in extra.as_object().into_iter().flatten() {
        action[key] = value.clone();
    }
    action
}

/// A working plan for MUGS.
fn mugs_answer() -> Value {
    json!({ "actions": [
        action("a1", "fill", Some(("#quantity", "input", "Quantity")), json!({ "value": "2" })),
        action("a2", "click", Some(("[data-testid=\"add-to-cart\"]", "button", "Add to cart")),
            json!({ "expect": [
                { "kind": "url_matches", "pattern": "/cart" },
                { "kind": "input_value", "selector": "#qty-rust-mug", "value": "2" }
            ] })),
    ]})
}

/// The `[llm]` table for a provider served by the fake, and its key.
fn llm_toml(wire: Wire, fake: &FakeProvider, extra: &str) -> (String, &'static str) {
    let (provider, root, model, key) = match wire {
        Wire::OpenAi => ("openai", "/v1", "gpt-5-mini", "OPENAI_API_KEY"),
        Wire::Gemini => ("gemini", "/v1beta", "gemini-2.5-flash", "GEMINI_API_KEY"),
        Wire::Anthropic => ("anthropic", "/v1", "claude-haiku-4-5", "ANTHROPIC_API_KEY"),
    };
    let toml = format!(
        "[llm]\nprovider = \"{provider}\"\nmodel = \"{model}\"\nbase_url = \"{}{root}\"\n{extra}",
        fake.url()
    );
    (toml, key)
}

fn settings(project: &Project, wire: Wire, fake: &FakeProvider, extra: &str) -> Settings {
    let (toml, key) = llm_toml(wire, fake, extra);
    project.settings_with(&toml, &move |name: &str| {
        (name == key).then(|| "fake-key-for-tests".to_owned())
    })
}

/// A shop and a browser for a sequence of runs.
struct Stage {
    shop: RunningShop,
    pool: SessionPool,
}

impl Stage {
    async fn start() -> Self {
        let shop = windup_shop::spawn(Default::default()).await.unwrap();
        let browser = Browser::launch(common::browser_config()).await.unwrap();
        Self {
            shop,
            pool: SessionPool::new(browser, 1),
        }
    }

    async fn run(
        &self,
        settings: &Settings,
        project: &Project,
        name: &str,
    ) -> std::sync::Arc<ScenarioResult> {
        let base: Url = self.shop.url().parse().unwrap();
        run_scenario(&self.pool, settings, &base, &project.scenario(name)).await
    }

    async fn close(self) {
        self.pool.close().await;
    }
}

fn passed(result: &ScenarioResult) -> CacheOutcome {
    match &result.outcome {
        Outcome::Passed { cache, .. } => *cache,
        Outcome::Failed(failure) => panic!("{} failed:\n{failure}", result.id),
    }
}

fn failed(result: &ScenarioResult) -> (String, FailureClass) {
    match &result.outcome {
        Outcome::Failed(failure) => (failure.to_string(), failure.class()),
        Outcome::Passed { .. } => panic!("{} passed", result.id),
    }
}

fn records(project: &Project) -> Vec<RunRecord> {
    Ledger::new(project.root()).read().unwrap().records
}

fn well_formed(requests: &[Recorded]) {
    for request in requests {
        assert!(
            request.problems.is_empty(),
            "{}: {:?}",
            request.path,
            request.problems
        );
    }
}

/// The text of every prompt turn a request carried, whatever its wire format.
fn prompt_text(request: &Recorded) -> String {
    let body = &request.body;
    let mut texts: Vec<String> = Vec::new();
    let mut collect = |value: &Value| {
        if let Some(text) = value.as_str() {
            texts.push(text.to_owned());
        }
    };
    collect(&body["system"]);
    for message in body["messages"].as_array().into_iter().flatten() {
        collect(&message["content"]);
    }
    for part in body["systemInstruction"]["parts"]
        .as_array()
        .into_iter()
        .flatten()
    {
        collect(&part["text"]);
    }
    for content in body["contents"].as_array().into_iter().flatten() {
        for part in content["parts"].as_array().into_iter().flatten() {
            collect(&part["text"]);
        }
    }
    texts.join("\n")
}

#[tokio::test]
async fn each_provider_plans_a_task_with_one_call_then_replays_with_none() {
    let stage = Stage::start().await;
    for wire in [Wire::OpenAi, Wire::Gemini, Wire::Anthropic] {
        let project = Project::with(&[]);
        project.write("mugs-in-cart", MUGS);
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Json(mugs_answer()));
        let settings = settings(&project, wire, &fake, "");

        let first = stage.run(&settings, &project, "mugs-in-cart").await;
        assert_eq!(passed(&first), CacheOutcome::Miss, "{wire:?}");
        let second = stage.run(&settings, &project, "mugs-in-cart").await;
        assert_eq!(passed(&second), CacheOutcome::Hit, "{wire:?}");

        let requests = fake.requests();
        assert_eq!(requests.len(), 1, "{wire:?}: one call, then none");
        assert_eq!(requests[0].wire, Some(wire));
        well_formed(&requests);
        let ledger = records(&project);
        assert_eq!(ledger.len(), 2);
        assert_eq!(ledger[0].llm_calls.len(), 1, "{wire:?}");
        assert!(ledger[0].llm_calls[0].input_tokens > 0);
        assert_eq!(ledger[1].llm_calls, Vec::new(), "the replay calls no model");

        let pending = project.pending("mugs-in-cart");
        let plan = std::fs::read_to_string(&pending).expect("the plan waits for review");
        assert!(plan.contains("\"planner\": \"llm\""), "{plan}");

        if wire == Wire::Anthropic {
            // Another provider does not invalidate the plan: still a hit, still no call.
            let other = FakeProvider::start().await.unwrap();
            let switched = self::settings(&project, Wire::OpenAi, &other, "");
            let third = stage.run(&switched, &project, "mugs-in-cart").await;
            assert_eq!(passed(&third), CacheOutcome::Hit);
            assert_eq!(other.requests().len(), 0);
        }
    }
    stage.close().await;
}

#[tokio::test]
async fn bad_answers_are_fed_back_and_retried_within_bounds() {
    let stage = Stage::start().await;
    let project = Project::with(&[]);
    project.write("mugs-in-cart", MUGS);
    let fake = FakeProvider::start().await.unwrap();
    // Not JSON; a click without a target; a selector that matches nothing; then a working plan.
    fake.push(Reply::Text("{\"actions\": [".to_owned()));
    fake.push(Reply::Json(
        json!({ "actions": [action("a1", "click", None, json!({
        "expect": [{ "kind": "url_matches", "pattern": "/cart" }] }))] }),
    ));
    fake.push(Reply::Json(json!({ "actions": [action("a1", "click",
        Some(("#buy-now", "button", "Buy now")),
        json!({ "expect": [{ "kind": "url_matches", "pattern": "/cart" }] }))] })));
    fake.push(Reply::Json(mugs_answer()));
    let settings = settings(
        &project,
        Wire::OpenAi,
        &fake,
        "semantic_retries = 3\nmax_calls_per_scenario = 4\n",
    );

    let result = stage.run(&settings, &project, "mugs-in-cart").await;
    assert_eq!(passed(&result), CacheOutcome::Miss);
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    well_formed(&requests);
    let feedback: Vec<String> = requests[1..]
        .iter()
        .map(|r| {
            let messages = r.body["messages"].as_array().unwrap();
            messages.last().unwrap()["content"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(
        feedback[0].contains("the answer is not JSON"),
        "{}",
        feedback[0]
    );
    assert!(
        feedback[1].contains("a1") && feedback[1].contains("target"),
        "{}",
        feedback[1]
    );
    assert!(
        feedback[2].contains("the selector #buy-now matches nothing on the start page"),
        "{}",
        feedback[2]
    );
    assert!(
        feedback[2].contains("UNTRUSTED PAGE CONTENT"),
        "the page comes with it"
    );

    let calls = &records(&project)[0].llm_calls;
    let story: Vec<(Option<RetryKind>, Option<&str>)> = calls
        .iter()
        .map(|c| (c.retry, c.failure.as_deref()))
        .collect();
    assert_eq!(
        story,
        [
            (None, Some("invalid_json")),
            (Some(RetryKind::Semantic), Some("invalid_plan")),
            (Some(RetryKind::Semantic), Some("plan_failed")),
            (Some(RetryKind::Semantic), None),
        ]
    );

    // With the retries spent, the scenario fails saying what the last answer got wrong.
    let project = Project::with(&[]);
    project.write("mugs-in-cart", MUGS);
    for _ in 0..2 {
        fake.push(Reply::Text("no plan today".to_owned()));
    }
    let settings = self::settings(&project, Wire::OpenAi, &fake, "semantic_retries = 1\n");
    let result = stage.run(&settings, &project, "mugs-in-cart").await;
    let (message, class) = failed(&result);
    assert_eq!(class, FailureClass::Step);
    assert!(
        message.contains("gave no working plan in 2 answers"),
        "{message}"
    );
    assert!(message.contains("the answer is not JSON"), "{message}");
    assert!(PlanCacheIsEmpty::check(&project));
    stage.close().await;
}

/// A refusal fails the scenario saying what to do, and the tokens the provider billed for it are
/// in the ledger, through each provider's wire format.
#[tokio::test]
async fn a_refusal_fails_the_scenario_and_its_billed_tokens_are_ledgered() {
    let stage = Stage::start().await;
    for wire in [Wire::OpenAi, Wire::Gemini, Wire::Anthropic] {
        let project = Project::with(&[]);
        project.write("mugs-in-cart", MUGS);
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Refusal {
            message: "I can't help with that.".to_owned(),
            input_tokens: 1_234,
            output_tokens: 56,
        });
        let settings = settings(&project, wire, &fake, "");
        let result = stage.run(&settings, &project, "mugs-in-cart").await;
        let (message, class) = failed(&result);
        assert_eq!(class, FailureClass::Setup, "{wire:?}");
        assert!(
            message.contains("refused to answer")
                && message.contains("reword the task or hints that led to it"),
            "{message}"
        );
        assert_eq!(
            fake.requests().len(),
            1,
            "{wire:?}: a refusal is not retried"
        );
        well_formed(&fake.requests());
        let ledger = records(&project);
        let calls: Vec<(u64, u64, Option<&str>)> = ledger[0]
            .llm_calls
            .iter()
            .map(|c| (c.input_tokens, c.output_tokens, c.failure.as_deref()))
            .collect();
        assert_eq!(calls, [(1_234, 56, Some("refused"))], "{wire:?}");
        assert!(PlanCacheIsEmpty::check(&project));
    }
    stage.close().await;
}

struct PlanCacheIsEmpty;

impl PlanCacheIsEmpty {
    fn check(project: &Project) -> bool {
        windup_core::engine::cache::PlanCache::new(project.root())
            .list()
            .unwrap()
            .is_empty()
    }
}

#[tokio::test]
async fn budgets_stop_a_call_before_it_is_made() {
    let stage = Stage::start().await;
    let project = Project::with(&[]);
    project.write("mugs-in-cart", MUGS);
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Text("not a plan".to_owned()));
    fake.push(Reply::Json(mugs_answer()));

    // One call allowed: the retry the bad answer needs is not made.
    let one_call = settings(
        &project,
        Wire::Gemini,
        &fake,
        "max_calls_per_scenario = 1\n",
    );
    let result = stage.run(&one_call, &project, "mugs-in-cart").await;
    let (message, class) = failed(&result);
    assert_eq!(class, FailureClass::Budget);
    assert!(
        message.contains("it would make call 2 of a scenario allowed 1 (`max_calls_per_scenario`)"),
        "{message}"
    );
    assert_eq!(fake.requests().len(), 1);
    assert_eq!(
        records(&project)[0].failure_class.as_deref(),
        Some("budget")
    );

    // A run budget smaller than one call's worst case: no call at all.
    let tiny = settings(&project, Wire::Gemini, &fake, "max_usd_per_run = 0.0001\n");
    let result = stage.run(&tiny, &project, "mugs-in-cart").await;
    let (message, class) = failed(&result);
    assert_eq!(class, FailureClass::Budget);
    assert!(message.contains("`max_usd_per_run`"), "{message}");
    assert_eq!(fake.requests().len(), 1, "nothing more was asked");
    stage.close().await;
}

#[tokio::test]
async fn the_prompt_for_a_fixed_page_fences_it_as_untrusted_data() {
    let stage = Stage::start().await;
    let project = Project::with(&[]);
    project.write(
        "help-to-products",
        "task: From the help page, go to the list of all products.\nstart_url: /help\nhints: [\"There is a link at the bottom\"]\nexpect:\n  - url /products\n",
    );
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(json!({ "actions": [action("a1", "click",
        Some(("[data-testid=\"help-browse\"]", "a", "Browse all products")),
        json!({ "expect": [{ "kind": "url_matches", "pattern": "/products" }] }))] })));
    let settings = settings(&project, Wire::Anthropic, &fake, "");
    let result = stage.run(&settings, &project, "help-to-products").await;
    assert_eq!(passed(&result), CacheOutcome::Miss);
    let requests = fake.requests();
    let prompt = prompt_text(&requests[0]);
    // The page's instruction to AI agents sits inside the fence, as data.
    let open = prompt
        .find("<<<UNTRUSTED PAGE CONTENT")
        .expect("the fence opens");
    let close = prompt
        .find("<<<END UNTRUSTED PAGE CONTENT")
        .expect("the fence closes");
    let injection = prompt
        .find("ignore all previous instructions")
        .expect("the page text");
    assert!(open < injection && injection < close, "{prompt}");
    insta::assert_snapshot!("help_page_prompt", prompt);
    stage.close().await;
}

/// What earlier runs put in the site map reaches the planner: the pages near the start page,
/// the task's own first, with their elements and the ways between them.
#[tokio::test]
async fn the_planner_is_shown_the_site_maps_slice_for_its_task() {
    use windup_core::engine::sitemap::MapFile;
    use windup_core::model::sitemap::{MapElement, Move, Visit};
    let stage = Stage::start().await;
    let project = Project::with(&[]);
    project.write("mugs-in-cart", MUGS);
    let cart = Visit {
        path: "/cart".to_owned(),
        title: Some("Your cart".to_owned()),
        elements: vec![MapElement {
            role: "button".to_owned(),
            name: "Proceed to checkout".to_owned(),
            test_id: None,
        }],
        ..Visit::default()
    };
    let product = Visit {
        path: "/products/rust-mug".to_owned(),
        ..Visit::default()
    };
    let step = Move {
        from: "/products/rust-mug".to_owned(),
        action: "click \"Add to cart\"".to_owned(),
        to: "/cart".to_owned(),
    };
    MapFile::of(project.root())
        .update(|map| map.observe(&[product, cart], &[step], "2026-12-02T10:00:00Z"))
        .unwrap();
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Json(mugs_answer()));
    let settings = settings(&project, Wire::OpenAi, &fake, "");
    let result = stage.run(&settings, &project, "mugs-in-cart").await;
    assert_eq!(passed(&result), CacheOutcome::Miss);
    let prompt = prompt_text(&fake.requests()[0]);
    let known = prompt
        .find("Known pages of the site:")
        .expect("the slice is in the prompt");
    let cart_line = "- /cart (seen) \"Your cart\"; shows button \"Proceed to checkout\"";
    let at = prompt.find(cart_line).unwrap_or_else(|| panic!("{prompt}"));
    assert!(known < at, "{prompt}");
    assert!(
        prompt.contains("- /products/rust-mug (seen); click \"Add to cart\" → /cart"),
        "{prompt}"
    );
    stage.close().await;
}

/// The whole path through the CLI, as a user runs it: the page's injection attempt is followed
/// by the (scripted) model, and refused by the executor; a failure on a page that shows the
/// user's email goes back to the model with the email redacted; no secret reaches any request.
#[tokio::test]
async fn injected_instructions_are_refused_and_no_secret_reaches_a_prompt() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = Project::with(&[]);
    let (llm, _) = llm_toml(Wire::OpenAi, &fake, "");
    std::fs::write(
        project.root().join("windup.toml"),
        format!(
            "scenarios = \"scenarios\"\n{llm}\n[accounts.demo]\nemail = \"WINDUP_TEST_EMAIL\"\npassword = \"WINDUP_TEST_PASSWORD\"\n"
        ),
    )
    .unwrap();
    project.write(
        "help-login",
        "task: From the help page, log in with the demo account.\nstart_url: /help\naccount: demo\nexpect:\n  - text \"Log out\"\n",
    );
    let login = |last_text: &str| {
        json!({ "actions": [
            action("a1", "goto", None, json!({ "url": "/login" })),
            action("a2", "fill", Some(("#email", "input", "Email")), json!({ "value_ref": "account.email" })),
            action("a3", "fill", Some(("#password", "input", "Password")), json!({ "value_ref": "account.password" })),
            action("a4", "click", Some(("form[action=\"/login\"] button[type=\"submit\"]", "button", "Log in")),
                json!({ "expect": [{ "kind": "text_visible", "text": last_text }] })),
        ]})
    };
    // The model obeys the page; then it fails on the signed-in page; then it works.
    fake.push(Reply::Json(
        json!({ "actions": [action("a1", "goto", None, json!({
        "url": "https://evil.example/collect",
        "expect": [{ "kind": "url_matches", "pattern": "/collect" }] }))] }),
    ));
    fake.push(Reply::Json(login("Welcome back, agent")));
    fake.push(Reply::Json(login("Log out")));

    let url = shop.url().to_owned();
    let dir = project.root().to_owned();
    let key_env = "OPENAI_API_KEY";
    let output = tokio::task::spawn_blocking(move || {
        run_in(
            &dir,
            &["run", "--base-url", &url],
            &[
                (key_env, "fake-key-for-tests"),
                ("WINDUP_TEST_EMAIL", "demo@windup.test"),
                ("WINDUP_TEST_PASSWORD", "demo-password-123"),
            ],
        )
    })
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS help-login"), "{out}");

    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "{out}");
    well_formed(&requests);
    let refused = prompt_text(&requests[1]);
    assert!(refused.contains("evil.example"), "{refused}");
    assert!(
        refused.contains("origin"),
        "the refusal goes back to the model: {refused}"
    );
    let signed_in = prompt_text(&requests[2]);
    assert!(
        signed_in.contains("Signed in as [account.email]"),
        "{signed_in}"
    );
    for secret in [
        "demo@windup.test",
        "demo-password-123",
        "fake-key-for-tests",
    ] {
        for request in &requests {
            assert!(
                !request.body.to_string().contains(secret),
                "{secret} reached a prompt"
            );
        }
        for file in common::files_under(project.root()) {
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{secret} in {}",
                file.display()
            );
        }
        assert!(!out.contains(secret), "{secret} in the output");
    }
}

#[tokio::test]
async fn a_run_over_budget_exits_with_its_own_code() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = Project::with(&[]);
    let (llm, key) = llm_toml(Wire::Anthropic, &fake, "max_calls_per_run = 0\n");
    std::fs::write(
        project.root().join("windup.toml"),
        format!("scenarios = \"scenarios\"\n{llm}"),
    )
    .unwrap();
    project.write("mugs-in-cart", MUGS);
    let url = shop.url().to_owned();
    let dir = project.root().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        run_in(
            &dir,
            &["run", "--base-url", &url],
            &[(key, "fake-key-for-tests")],
        )
    })
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(5), "{out}");
    assert!(out.contains("allowed 0 (`max_calls_per_run`)"), "{out}");
    assert_eq!(fake.requests().len(), 0);
}

/// `--summary`: one call for a fix suggestion per failure and one for the run's summary, each
/// in the ledger under its own purpose, and the outcome unchanged.
#[tokio::test]
async fn a_summary_and_suggestions_are_extra_calls_that_change_no_outcome() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = Project::with(&["search"]);
    let (llm, key) = llm_toml(Wire::OpenAi, &fake, "");
    std::fs::write(
        project.root().join("windup.toml"),
        format!("scenarios = \"scenarios\"\ntimeout_ms = 1500\n{llm}"),
    )
    .unwrap();
    project.write(
        "broken",
        "task: Find a unicorn.\nstart_url: /products\nsteps:\n  - expect text \"Unicorn mug\"\n",
    );
    fake.push(Reply::Json(
        json!({ "text": "The shop sells no unicorn mug; expect a product it sells." }),
    ));
    fake.push(Reply::Json(
        json!({ "text": "One of two scenarios failed: broken." }),
    ));
    let url = shop.url().to_owned();
    let dir = project.root().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        run_in(
            &dir,
            &["run", "--base-url", &url, "--summary"],
            &[(key, "fake-key-for-tests")],
        )
    })
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the failure still fails: {out}"
    );
    assert!(
        out.contains("suggestion for broken: The shop sells no unicorn mug"),
        "{out}"
    );
    assert!(
        out.contains("summary: One of two scenarios failed: broken."),
        "{out}"
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    well_formed(&requests);
    let suggest = prompt_text(&requests[0]);
    assert!(suggest.contains("<<<UNTRUSTED PAGE CONTENT"), "{suggest}");
    assert!(suggest.contains("Unicorn mug"), "{suggest}");

    let ledger = records(&project);
    let purposes: Vec<(&str, &str)> = ledger
        .iter()
        .flat_map(|r| {
            r.llm_calls
                .iter()
                .map(move |c| (r.scenario_id.as_str(), c.purpose.as_str()))
        })
        .collect();
    assert_eq!(purposes, [("broken", "suggest"), ("(suite)", "summary")]);
    let runs = ledger
        .iter()
        .filter(|r| r.kind == windup_core::engine::ledger::RecordKind::Run)
        .count();
    assert_eq!(runs, 2, "the summary calls are not runs");
}

#[tokio::test]
async fn a_suite_says_each_summary_call_as_a_model_call_event() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = Project::with(&["search"]);
    project.write(
        "broken",
        "task: Find a unicorn.\nstart_url: /products\nsteps:\n  - expect text \"Unicorn mug\"\n",
    );
    fake.push(Reply::Json(
        json!({ "text": "Expect a product the shop sells." }),
    ));
    fake.push(Reply::Json(
        json!({ "text": "One of two scenarios failed." }),
    ));
    let mut settings = settings(&project, Wire::OpenAi, &fake, "");
    settings.timeout = std::time::Duration::from_millis(1500);
    let selection = windup::Selection::load(&settings, None, false).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&seen);
    let finished = windup::Suite::new(settings, shop.url().parse().unwrap())
        .with_summary(true)
        .reporter(move |event: &windup::RunEvent| sink.lock().unwrap().push(event.clone()))
        .run(selection)
        .await
        .unwrap();
    assert_eq!(finished.totals.failed, 1);
    let events = seen.lock().unwrap();
    let calls: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|event| match event {
            windup::RunEvent::ModelCall { scenario, call, .. } => {
                Some((scenario.as_str(), call.purpose.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(calls, [("broken", "suggest"), ("(suite)", "summary")]);
    let summary = events
        .iter()
        .position(|e| matches!(e, windup::RunEvent::Summary { .. }))
        .expect("a summary event");
    let finished_at = events
        .iter()
        .position(|e| matches!(e, windup::RunEvent::SuiteFinished { .. }))
        .unwrap();
    assert!(summary > finished_at);
    assert!(
        matches!(&events[summary], windup::RunEvent::Summary { summary: Some(text), .. } if text == "One of two scenarios failed.")
    );
}
