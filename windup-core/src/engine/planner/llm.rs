//! The model planner: a scenario with only a task is planned by a language model, once.
//!
//! One call per plan: the prompt carries the task and the start page; the answer is sanitized,
//! judged by the plan schema (the authority) and the semantic rules, its first selectors are
//! checked against the live page, and then it runs, verified, like any plan — the scenario's own
//! `expect` items included. An answer that fails any of that is a semantic retry: the problems
//! (and the page the plan failed on) go back to the model, a bounded number of times. Every
//! call is counted against the scenario's and the run's budgets before it is made, and recorded
//! for the ledger, attempt by attempt.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::browser::{BrowserError, PageSnapshot};
use crate::engine::executor::{ActionRecord, Executor, FailureCause, Position, StepFailure};
use crate::engine::ledger::{LlmCall, PriceTable, RetryKind};
use crate::llm::{
    Called, LlmClient, LlmError, LlmLimits, Message, Prompt, Provider, Request, Role,
};
use crate::model::plan::{self, ActionKind, Envelope, GeneratedBy, Plan, Rules};
use crate::model::scenario::Scenario;

use super::offline::{OfflinePlanner, PlannedRun};
use super::prompt::{self, PlanInput, Redactor, SCHEMA_NAME};

/// What a run's model calls have spent so far, shared by all its scenarios.
#[derive(Debug, Default)]
pub struct RunSpend {
    spent: Mutex<Spent>,
}

/// Calls made and USD spent, by a scenario or a run.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Spent {
    pub calls: u32,
    pub usd: f64,
}

impl RunSpend {
    /// Calls made and USD spent so far.
    pub fn spent(&self) -> (u32, f64) {
        let spent = *self.spent.lock().unwrap_or_else(|p| p.into_inner());
        (spent.calls, spent.usd)
    }

    /// Counts one call that cost `usd`.
    pub fn charge(&self, usd: f64) {
        let mut run = self.spent.lock().unwrap_or_else(|p| p.into_inner());
        run.calls += 1;
        run.usd += usd;
    }

    /// Why `request` may not be sent, if it could take a budget over its limit: one more call
    /// than allowed, or, at worst (a prompt of one token per 3 characters, the whole output
    /// allowance), more USD than is left. `scenario` is what the scenario has spent (nothing, for
    /// a call of the whole run).
    pub fn check(
        &self,
        client: &dyn LlmClient,
        prices: &PriceTable,
        limits: &LlmLimits,
        request: &Request<'_>,
        scenario: &Spent,
    ) -> Result<(), BudgetExceeded> {
        let worst = worst_cost(client, prices, request)?;
        let run = *self.spent.lock().unwrap_or_else(|p| p.into_inner());
        let calls = |scope, spent: &Spent, allowed| {
            (spent.calls + 1 > allowed).then_some(BudgetExceeded::Calls {
                scope,
                call: spent.calls + 1,
                allowed,
            })
        };
        let usd = |scope, spent: &Spent, limit: f64| {
            (spent.usd + worst > limit).then_some(BudgetExceeded::Usd {
                scope,
                worst,
                left: (limit - spent.usd).max(0.0),
                limit,
            })
        };
        let exceeded = calls(Scope::Scenario, scenario, limits.max_calls_per_scenario)
            .or_else(|| calls(Scope::Run, &run, limits.max_calls_per_run))
            .or_else(|| usd(Scope::Scenario, scenario, limits.max_usd_per_scenario))
            .or_else(|| usd(Scope::Run, &run, limits.max_usd_per_run));
        exceeded.map_or(Ok(()), Err)
    }
}

/// The most `request` can cost: a prompt of one token per 3 characters (and
/// [`crate::llm::IMAGE_TOKENS`] an image) and the whole output
/// allowance, at today's price of the client's model. A model without a price cannot be held
/// to a budget, except a local server's, which costs nothing unless the project prices it.
pub fn worst_cost(
    client: &dyn LlmClient,
    prices: &PriceTable,
    request: &Request<'_>,
) -> Result<f64, BudgetExceeded> {
    let provider = client.provider();
    let model = client.model();
    let today = OffsetDateTime::now_utc().date();
    let price = match prices.price_for(provider, model, today) {
        Some(price) => price,
        None if provider == Provider::OpenAiCompatible.as_str() => crate::engine::ledger::Price {
            input: 0.0,
            output: 0.0,
        },
        None => {
            return Err(BudgetExceeded::Unpriced {
                provider: provider.to_owned(),
                model: model.to_owned(),
                on: today,
            });
        }
    };
    let chars: usize = request.prompt.system.len()
        + request
            .prompt
            .messages
            .iter()
            .map(|m| m.text.len())
            .sum::<usize>()
        + request.schema.to_string().len();
    let images: usize = request.prompt.messages.iter().map(|m| m.images.len()).sum();
    Ok(price.cost(
        (chars as u64).div_ceil(3) + images as u64 * crate::llm::IMAGE_TOKENS,
        u64::from(request.max_output_tokens),
    ))
}

/// What a budget applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Scenario,
    Run,
    Audit,
}

impl Scope {
    fn as_str(self) -> &'static str {
        match self {
            Scope::Scenario => "scenario",
            Scope::Run => "run",
            Scope::Audit => "audit",
        }
    }
}

/// Why a model call may not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BudgetExceeded {
    #[error(
        "model {model:?} of {provider} has no price on {on}, so its cost cannot be held to the \
         budget; add it to windup-prices.toml (see docs/llm.md), or choose a priced model"
    )]
    Unpriced {
        provider: String,
        model: String,
        on: time::Date,
    },
    #[error(
        "it would make call {call} of a {} allowed {allowed} (`max_calls_per_{}`)",
        scope.as_str(),
        scope.as_str()
    )]
    Calls {
        scope: Scope,
        call: u32,
        allowed: u32,
    },
    #[error(
        "it could cost up to ${worst:.4}, and the {} has ${left:.4} of its ${limit:.2} left \
         (`max_usd_per_{}`)",
        scope.as_str(),
        scope.as_str()
    )]
    Usd {
        scope: Scope,
        worst: f64,
        left: f64,
        limit: f64,
    },
}

/// A model call a scenario needed and a budget refused; it was not made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "scenario {scenario:?} ({}): the model call was not made: {exceeded}; raise the limit under \
     [llm] in windup.toml, or give the scenario explicit steps",
    file.display()
)]
pub struct OverBudget {
    pub scenario: String,
    pub file: std::path::PathBuf,
    pub exceeded: BudgetExceeded,
}

/// Why the model planner gave no plan.
#[derive(Debug)]
pub enum ModelPlanFailure {
    /// The browser failed at something the planner itself did (opening the start page).
    Step(Box<StepFailure>),
    /// The next call would have gone over a budget; it was not made.
    Budget(OverBudget),
    /// The provider could not be asked: configuration, or a failure retries did not cure.
    Provider(LlmError),
    /// Every answer the budget allowed failed; the message has the last one's problems.
    NoWorkingPlan(String),
}

/// A model planner's result, with every call it made.
#[derive(Debug)]
pub struct ModelPlanned {
    pub planned: Result<PlannedRun, ModelPlanFailure>,
    pub calls: Vec<LlmCall>,
}

/// Plans task-only scenarios with a model.
pub struct ModelPlanner<'a> {
    pub client: &'a dyn LlmClient,
    pub limits: &'a LlmLimits,
    pub prices: &'a PriceTable,
    pub run_spend: &'a RunSpend,
    /// The account keys the plan may reference (names, from `[accounts.NAME]`).
    pub account_keys: Vec<String>,
    /// The values that must never leave in a prompt, with their names.
    pub redactor: Redactor,
    /// Where each prompt sent is kept for review (`.windup/prompts`), if anywhere.
    pub prompts_dir: Option<PathBuf>,
    /// The fragments a plan may `use`: id and task.
    pub fragments: Vec<(String, String)>,
    /// The site map's slice for the scenario's task, when the map knows its pages.
    pub site_map: Option<String>,
    /// What the ledger says the calls were for: `plan` in a run, `bench` in a bench.
    pub purpose: &'static str,
}

impl ModelPlanner<'_> {
    /// Plans `scenario` on the executor's session, whose start page is opened first.
    pub async fn plan(&self, scenario: &Scenario, executor: &Executor<'_>) -> ModelPlanned {
        let mut calls = Vec::new();
        let planned = self.plan_recording(scenario, executor, &mut calls).await;
        ModelPlanned { planned, calls }
    }

    async fn plan_recording(
        &self,
        scenario: &Scenario,
        executor: &Executor<'_>,
        calls: &mut Vec<LlmCall>,
    ) -> Result<PlannedRun, ModelPlanFailure> {
        let started = Instant::now();
        let page = open_start_page(scenario, executor).await?;
        let mut prompt = self.first_prompt(scenario, &page);
        let schema = plan::answer_schema();
        let rules = Rules::with_account_keys(self.account_keys.iter().cloned());
        let mut scenario_spent = Spent::default();
        let mut last_problems = String::new();
        let answers = 1 + self.limits.semantic_retries;
        for answer in 0..answers {
            let request = Request {
                prompt: &prompt,
                schema_name: SCHEMA_NAME,
                schema: &schema,
                max_output_tokens: self.limits.max_output_tokens,
            };
            self.reserve(scenario, &request, &scenario_spent)?;
            self.keep_prompt(scenario, answer, &prompt);
            let called = self.client.complete(&request).await;
            let retry = (answer > 0).then_some(RetryKind::Semantic);
            let cost = record(
                self.client,
                self.prices,
                self.purpose,
                &called,
                retry,
                calls,
            );
            scenario_spent.calls += 1;
            scenario_spent.usd += cost;
            self.run_spend.charge(cost);
            let completion = called.result.map_err(ModelPlanFailure::Provider)?;
            let attempt = self
                .try_answer(scenario, executor, &completion.text, &rules, started)
                .await;
            let (problems, page) = match attempt {
                Ok(planned) => return Ok(planned),
                Err(Rejected::Browser(failure)) => return Err(ModelPlanFailure::Step(failure)),
                Err(Rejected::Problems {
                    class,
                    problems,
                    page,
                }) => {
                    if let Some(call) = calls.last_mut() {
                        call.failure = Some(class.to_owned());
                    }
                    let problems = if completion.truncated {
                        format!(
                            "{problems}\n(the answer stopped at the output limit of {} tokens: \
                             give a shorter plan)",
                            self.limits.max_output_tokens
                        )
                    } else {
                        problems
                    };
                    (problems, page)
                }
            };
            prompt.messages.push(Message::text(
                Role::Assistant,
                self.redactor.redact(&completion.text),
            ));
            prompt.messages.push(prompt::retry_message(
                &problems,
                page.as_ref(),
                &self.redactor,
            ));
            last_problems = problems;
        }
        Err(self.no_working_plan(scenario, answers, &last_problems))
    }

    /// What the first call for `scenario` could cost at worst (see [`worst_cost`]): its start
    /// page is opened and read, and the prompt made as [`ModelPlanner::plan`] makes it; nothing
    /// is asked. A model with no price cannot be held to a budget, so it is a
    /// [`ModelPlanFailure::Budget`].
    pub async fn worst_first_call(
        &self,
        scenario: &Scenario,
        executor: &Executor<'_>,
    ) -> Result<f64, ModelPlanFailure> {
        let page = open_start_page(scenario, executor).await?;
        let prompt = self.first_prompt(scenario, &page);
        let schema = plan::answer_schema();
        let request = Request {
            prompt: &prompt,
            schema_name: SCHEMA_NAME,
            schema: &schema,
            max_output_tokens: self.limits.max_output_tokens,
        };
        worst_cost(self.client, self.prices, &request).map_err(|exceeded| {
            ModelPlanFailure::Budget(OverBudget {
                scenario: scenario.id.clone(),
                file: scenario.path.clone(),
                exceeded,
            })
        })
    }

    /// The first prompt for `scenario`, on its start page.
    fn first_prompt(&self, scenario: &Scenario, page: &PageSnapshot) -> Prompt {
        prompt::plan_prompt(
            &PlanInput {
                scenario,
                account_keys: &self.account_keys,
                fragments: &self.fragments,
                site_map: self.site_map.as_deref(),
                page,
            },
            &self.redactor,
        )
    }

    fn no_working_plan(
        &self,
        scenario: &Scenario,
        answers: u32,
        last_problems: &str,
    ) -> ModelPlanFailure {
        ModelPlanFailure::NoWorkingPlan(format!(
            "scenario {:?} ({}): the model ({} {}) gave no working plan in {answers} answers \
             (semantic_retries = {}); the last one's problems:\n  {}\nadd hints or explicit \
             steps to the scenario, or raise `semantic_retries` under [llm]",
            scenario.id,
            scenario.path.display(),
            self.client.provider(),
            self.client.model(),
            self.limits.semantic_retries,
            last_problems.trim_end().replace('\n', "\n  ")
        ))
    }

    /// Writes the prompt of answer `answer` under `prompts_dir/SCENARIO/`, named by the time it
    /// was sent. Keeping it is for people; failing to keep it does not stop planning.
    fn keep_prompt(&self, scenario: &Scenario, answer: u32, prompt: &Prompt) {
        let Some(dir) = &self.prompts_dir else {
            return;
        };
        let dir = dir.join(crate::engine::executor::file_safe(&scenario.id));
        let at = OffsetDateTime::now_utc().unix_timestamp_nanos();
        let file = dir.join(format!("{at}-{}.txt", answer + 1));
        let written =
            std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, transcript(prompt)));
        if let Err(err) = written {
            eprintln!(
                "windup: the prompt was not kept in {}: {err}",
                file.display()
            );
        }
    }

    /// Refuses the call when it could take a budget over its limit.
    fn reserve(
        &self,
        scenario: &Scenario,
        request: &Request<'_>,
        scenario_spent: &Spent,
    ) -> Result<(), ModelPlanFailure> {
        self.run_spend
            .check(
                self.client,
                self.prices,
                self.limits,
                request,
                scenario_spent,
            )
            .map_err(|exceeded| {
                ModelPlanFailure::Budget(OverBudget {
                    scenario: scenario.id.clone(),
                    file: scenario.path.clone(),
                    exceeded,
                })
            })
    }

    /// Turns an answer into a verified plan, or says what was wrong with it.
    async fn try_answer(
        &self,
        scenario: &Scenario,
        executor: &Executor<'_>,
        text: &str,
        rules: &Rules,
        started: Instant,
    ) -> Result<PlannedRun, Rejected> {
        let answer: Value =
            serde_json::from_str(text.trim()).map_err(|err| Rejected::Problems {
                class: "invalid_json",
                problems: format!("the answer is not JSON: {err}"),
                page: None,
            })?;
        let envelope = Envelope {
            scenario_id: &scenario.id,
            task: &scenario.task,
            start_url: &scenario.start_url,
            generated_by: GeneratedBy {
                planner: plan::PlannerKind::Llm,
                provider: Some(self.client.provider().to_owned()),
                model: Some(self.client.model().to_owned()),
                at: OffsetDateTime::now_utc()
                    .format(&Rfc3339)
                    .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into()),
            },
        };
        let mut plan = plan::parse_model_output(plan::plan_from_answer(answer, envelope), rules)
            .map_err(|err| Rejected::Problems {
                class: "invalid_plan",
                problems: err.to_string(),
                page: None,
            })?;
        let of = plan.actions.len();
        let start = Position::opening(&scenario.id, &plan.start_url, of);
        // A fresh start: what an earlier answer did (a cart, a login) must not help this one.
        match executor.session().reset().await {
            Ok(()) => {}
            Err(err) if err.is_lost() => return Err(lost(executor, start, err).await),
            Err(err) => {
                return Err(Rejected::Problems {
                    class: "plan_failed",
                    problems: format!("the browser could not be reset: {err}"),
                    page: None,
                });
            }
        }
        executor
            .open(&scenario.id, &plan.start_url, of)
            .await
            .map_err(Rejected::Browser)?;
        if let Some(problems) = missing_first_selectors(executor, &plan).await {
            return Err(Rejected::Problems {
                class: "plan_failed",
                problems,
                page: page_for_retry(executor, start).await?,
            });
        }
        executor.prepare_plan(&scenario.id, &plan);
        if let Some(last) = plan.actions.last() {
            OfflinePlanner.prepare_expectations(scenario, &last.id, executor);
        }
        let mut records: Vec<ActionRecord> = Vec::with_capacity(of);
        for (index, action) in plan.actions.iter().enumerate() {
            match executor.step(&scenario.id, action, index + 1, of).await {
                Ok(record) => records.push(record),
                Err(failure) => return Err(rejected_run(executor, failure).await),
            }
        }
        if let Some(last) = plan.actions.last_mut()
            && let Err(failure) = OfflinePlanner.finish(scenario, last, executor).await
        {
            return Err(rejected_run(executor, failure).await);
        }
        Ok(PlannedRun::ended(plan, records, started, executor).await)
    }
}

/// Adds a ledger entry per HTTP attempt of `called`, made for `purpose`; returns what the call
/// cost at the price table's rates (an unpriced call counts as nothing here).
pub fn record(
    client: &dyn LlmClient,
    prices: &PriceTable,
    purpose: &str,
    called: &Called,
    retry: Option<RetryKind>,
    calls: &mut Vec<LlmCall>,
) -> f64 {
    let today = OffsetDateTime::now_utc().date();
    let mut cost = 0.0;
    for (i, attempt) in called.attempts.iter().enumerate() {
        let call = LlmCall {
            purpose: purpose.to_owned(),
            provider: client.provider().to_owned(),
            model: client.model().to_owned(),
            input_tokens: attempt.usage.input_tokens,
            output_tokens: attempt.usage.output_tokens,
            latency_ms: crate::engine::ledger::millis(attempt.latency),
            retry: if i == 0 {
                retry
            } else {
                Some(RetryKind::Transient)
            },
            failure: attempt.failure.map(str::to_owned),
        };
        cost += prices.cost(&call, today).unwrap_or(0.0);
        calls.push(call);
    }
    cost
}

/// Why one answer was not used.
enum Rejected {
    /// The answer's problems, in words for the model, and the page it failed on.
    Problems {
        class: &'static str,
        problems: String,
        page: Option<PageSnapshot>,
    },
    /// The browser itself failed: no answer can help.
    Browser(Box<StepFailure>),
}

/// Opens the start page and reads it for the first prompt. A lost browser fails the opening
/// step: the session must not be used again.
async fn open_start_page(
    scenario: &Scenario,
    executor: &Executor<'_>,
) -> Result<PageSnapshot, ModelPlanFailure> {
    executor
        .open(&scenario.id, &scenario.start_url, 0)
        .await
        .map_err(ModelPlanFailure::Step)?;
    match executor.session().snapshot().await {
        Ok(page) => Ok(page),
        Err(err) if err.is_lost() => {
            let at = Position::opening(&scenario.id, &scenario.start_url, 0);
            let failure = executor.failure(at, FailureCause::Browser(err)).await;
            Err(ModelPlanFailure::Step(failure))
        }
        Err(err) => Err(ModelPlanFailure::NoWorkingPlan(format!(
            "scenario {:?}: the start page could not be read: {err}",
            scenario.id
        ))),
    }
}

/// A browser lost at something the planner did itself, as a failed step at `at`: no answer can
/// help, and the session must not be used again.
async fn lost(executor: &Executor<'_>, at: Position<'_>, err: BrowserError) -> Rejected {
    Rejected::Browser(executor.failure(at, FailureCause::Browser(err)).await)
}

/// The page the model's retry message shows, when it can be read; a lost browser ends planning.
async fn page_for_retry(
    executor: &Executor<'_>,
    at: Position<'_>,
) -> Result<Option<PageSnapshot>, Rejected> {
    match executor.session().snapshot_if_readable().await {
        Ok(page) => Ok(page),
        Err(err) => Err(lost(executor, at, err).await),
    }
}

/// A failed run of an answer: the model's problem to fix, unless the browser is gone.
async fn rejected_run(executor: &Executor<'_>, failure: Box<StepFailure>) -> Rejected {
    if matches!(&failure.cause, FailureCause::Browser(err) if err.is_lost()) {
        return Rejected::Browser(failure);
    }
    let at = Position {
        scenario: &failure.scenario_id,
        action_id: &failure.action_id,
        step: failure.step,
        position: failure.position,
        of: failure.of,
        kind: failure.kind,
        selector: failure.selector.as_deref(),
    };
    let page = match page_for_retry(executor, at).await {
        Ok(page) => page,
        Err(lost) => return lost,
    };
    let selector = failure
        .selector
        .as_deref()
        .map(|s| format!(" on {s}"))
        .unwrap_or_default();
    Rejected::Problems {
        class: "plan_failed",
        problems: format!(
            "action {} ({} of {}){selector} failed: {}{}",
            failure.action_id,
            failure.position,
            failure.of,
            failure.cause,
            failure
                .url
                .as_deref()
                .map(|u| format!(" (page {u})"))
                .unwrap_or_default()
        ),
        page,
    }
}

/// The selectors of the actions before the first one that may leave the start page must
/// match something on it now: checked at once, rather than at each action's deadline.
async fn missing_first_selectors(executor: &Executor<'_>, plan: &Plan) -> Option<String> {
    let mut problems = Vec::new();
    for action in &plan.actions {
        if let Some(target) = &action.target {
            // A browser that stopped answering shows at the action itself, with its own error.
            let counted = executor
                .session()
                .count_matches(&target.frames, &target.selector)
                .await;
            match counted {
                Ok(Ok(0)) => problems.push(format!(
                    "action {}: the selector {} matches nothing on the start page",
                    action.id, target.selector
                )),
                Ok(Err(why)) => problems.push(format!("action {}: {why}", action.id)),
                Ok(Ok(_)) | Err(_) => {}
            }
        }
        if matches!(
            action.kind,
            ActionKind::Goto | ActionKind::Click | ActionKind::Press | ActionKind::Use
        ) {
            break;
        }
    }
    (!problems.is_empty()).then(|| problems.join("\n"))
}

/// The prompt as kept for review: system, then each turn.
pub fn transcript(prompt: &Prompt) -> String {
    let mut text = format!("[system]\n{}\n", prompt.system);
    for message in &prompt.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        text.push_str(&format!("[{role}]\n{}\n", message.text));
    }
    text
}

#[cfg(test)]
mod tests {
    use futures::future::BoxFuture;
    use serde_json::json;

    use super::*;
    use crate::llm::{Called, Image, LlmClient, Message, Prompt, Request, Role};

    /// A client that is only priced, never asked.
    struct Priced;

    impl LlmClient for Priced {
        fn provider(&self) -> &str {
            "openai"
        }
        fn model(&self) -> &str {
            "gpt-5-mini"
        }
        fn complete<'a>(&'a self, _: &'a Request<'a>) -> BoxFuture<'a, Called> {
            panic!("a priced client is never asked")
        }
    }

    #[test]
    fn the_worst_case_counts_each_image_at_its_allowance() {
        let prices = PriceTable::builtin();
        let schema = json!({});
        let mut prompt = Prompt {
            system: String::new(),
            messages: vec![Message::text(Role::User, "x".repeat(300))],
        };
        let cost = |prompt: &Prompt| {
            let request = Request {
                prompt,
                schema_name: "rules",
                schema: &schema,
                max_output_tokens: 0,
            };
            worst_cost(&Priced, &prices, &request).unwrap()
        };
        let text_only = cost(&prompt);
        prompt.messages[0].images = vec![Image { png: vec![0; 10] }; 2];
        let price = prices
            .price_for("openai", "gpt-5-mini", OffsetDateTime::now_utc().date())
            .unwrap();
        let images = price.cost(2 * crate::llm::IMAGE_TOKENS, 0);
        assert!(images > 0.0);
        assert!((cost(&prompt) - text_only - images).abs() < 1e-12);
    }

    /// A model the price table does not know, of a provider.
    struct Unpriced(&'static str);

    impl LlmClient for Unpriced {
        fn provider(&self) -> &str {
            self.0
        }
        fn model(&self) -> &str {
            "qwen2.5:14b"
        }
        fn complete<'a>(&'a self, _: &'a Request<'a>) -> BoxFuture<'a, Called> {
            panic!("an unpriced client is never asked here")
        }
    }

    /// What docs/llm.md says of a local model: held to the call budgets only until priced; a
    /// hosted model with no price is refused.
    #[test]
    fn an_unpriced_local_model_costs_nothing_against_the_usd_budgets() {
        let prices = PriceTable::builtin();
        let schema = json!({});
        let prompt = Prompt {
            system: "x".repeat(3_000),
            messages: vec![Message::text(Role::User, "Plan it.")],
        };
        let request = Request {
            prompt: &prompt,
            schema_name: "windup_plan",
            schema: &schema,
            max_output_tokens: 4_096,
        };
        let local = worst_cost(&Unpriced("openai-compatible"), &prices, &request);
        assert_eq!(local, Ok(0.0));
        let hosted = worst_cost(&Unpriced("openai"), &prices, &request);
        assert!(
            matches!(hosted, Err(BudgetExceeded::Unpriced { .. })),
            "{hosted:?}"
        );
    }
}
