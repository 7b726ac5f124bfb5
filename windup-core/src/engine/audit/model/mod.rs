//! The model in the audit: three narrow calls, each structured, bounded, recorded and never
//! trusted as a verdict.
//!
//! - **rules**: the explored pages in, invariants in the predicate language out. A rule whose
//!   predicate does not parse, reads nothing, or finds nothing on its surface goes back to the
//!   model with its problems (a semantic retry), as a plan does.
//! - **attack**: one unbroken invariant and the page the browser has open in, a plan out. The
//!   audit runs it like any of its moves: from a fresh session, off-origin and denied targets
//!   refused, the invariant checked by its predicate after every action.
//! - **judge**: a violation the predicate found and the audit reproduced in, a word out. The
//!   judge may confirm it and grade it, or veto it (kept as evidence with its reason); it can
//!   never make a finding of its own.
//!
//! Every call is checked against the audit's budgets (calls, USD at the call's worst case, and
//! the time left against the call's deadline) before it is made, and is a ledger record with
//! its purpose.

mod answers;
mod prompts;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;

use crate::engine::ledger::{LlmCall, PriceTable, RetryKind};
use crate::engine::planner::llm::{BudgetExceeded, Scope, Spent, worst_cost};
use crate::engine::planner::prompt::Redactor;
use crate::llm::{LlmClient, LlmError, LlmLimits, Message, Prompt, Request, Role};

pub(crate) use answers::{
    ATTACK_SCHEMA, JUDGE_SCHEMA, JudgeWord, PlannedAttack, RULES_SCHEMA, attack_schema,
    judge_schema, read_attack, read_judge, read_rules, rules_schema,
};
pub(crate) use prompts::{MAX_PAGES, Screenshot, Shown, attack_prompt, judge_prompt, rules_prompt};

/// What a call of the audit's model is for, as the ledger spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Rules,
    Attack,
    Judge,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        match self {
            Purpose::Rules => "rules",
            Purpose::Attack => "attack",
            Purpose::Judge => "judge",
        }
    }
}

/// Why the model gave no usable answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelStop {
    /// The next call could go over a budget; it was not made, and the audit stops.
    #[error(
        "the {purpose} call was not made: {exceeded}; raise the limit under [llm] in windup.toml"
    )]
    Budget {
        purpose: &'static str,
        exceeded: BudgetExceeded,
    },
    /// The audit's time could run out during the call.
    #[error(
        "the {purpose} call was not made: it may take up to {deadline:?} and the audit has \
         {left:?} left; give the audit more time (--time)"
    )]
    Time {
        purpose: &'static str,
        deadline: Duration,
        left: Duration,
    },
    /// The provider could not be asked: configuration, or failures retries did not cure.
    #[error("the {purpose} call failed: {error}")]
    Provider {
        purpose: &'static str,
        error: LlmError,
    },
    /// Every answer the retries allowed had problems; the last ones.
    #[error("the model gave no usable {purpose} answer in {answers} answers; the last one's problems: {}", problems.join("; "))]
    Unusable {
        purpose: &'static str,
        answers: u32,
        problems: Vec<String>,
    },
}

impl ModelStop {
    /// Whether the audit must stop (a budget), rather than go on without this answer.
    pub fn stops_the_audit(&self) -> bool {
        matches!(self, ModelStop::Budget { .. } | ModelStop::Time { .. })
    }
}

/// A prompt as it was sent, kept for review.
#[derive(Debug, Clone, PartialEq)]
pub struct SentPrompt {
    pub purpose: Purpose,
    pub prompt: Prompt,
}

#[derive(Debug, Default)]
struct Ledgered {
    spent: Spent,
    calls: Vec<LlmCall>,
    prompts: Vec<SentPrompt>,
}

/// The audit's model: a client, its prices, the audit's budgets, and the secrets no prompt
/// may carry.
pub struct AuditModel {
    client: Box<dyn LlmClient>,
    prices: PriceTable,
    limits: LlmLimits,
    redactor: Redactor,
    /// The account keys an attack may name as `value_ref` (names only).
    account_keys: Vec<String>,
    /// Whether prompts may show screenshots (`[llm] images`).
    images: bool,
    /// Where each prompt sent is written for review (`.windup/prompts`), if anywhere.
    prompts_dir: Option<PathBuf>,
    ledgered: Mutex<Ledgered>,
}

impl AuditModel {
    pub fn new(
        client: Box<dyn LlmClient>,
        prices: PriceTable,
        limits: LlmLimits,
        redactor: Redactor,
        account_keys: Vec<String>,
    ) -> Self {
        AuditModel {
            client,
            prices,
            limits,
            redactor,
            account_keys,
            images: false,
            prompts_dir: None,
            ledgered: Mutex::default(),
        }
    }

    /// Shows the model screenshots of the first pages explored, for a provider that takes
    /// images.
    pub fn show_images(mut self, images: bool) -> Self {
        self.images = images;
        self
    }

    pub(crate) fn takes_images(&self) -> bool {
        self.images
    }

    /// Writes every prompt sent under `dir`.
    pub fn keep_prompts(mut self, dir: PathBuf) -> Self {
        self.prompts_dir = Some(dir);
        self
    }

    fn ledgered(&self) -> std::sync::MutexGuard<'_, Ledgered> {
        self.ledgered.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every call made so far, attempt by attempt, for the ledger.
    pub fn calls(&self) -> Vec<LlmCall> {
        self.ledgered().calls.clone()
    }

    /// Every prompt sent so far, in order.
    pub fn prompts(&self) -> Vec<SentPrompt> {
        self.ledgered().prompts.clone()
    }

    pub fn spent(&self) -> Spent {
        self.ledgered().spent
    }

    pub fn provider(&self) -> &str {
        self.client.provider()
    }

    pub fn model(&self) -> &str {
        self.client.model()
    }

    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    pub(crate) fn account_keys(&self) -> &[String] {
        &self.account_keys
    }

    /// Why `request` may not be sent with `left` of the audit's time.
    fn check(
        &self,
        purpose: Purpose,
        request: &Request<'_>,
        left: Duration,
    ) -> Result<(), ModelStop> {
        let budget = |exceeded| ModelStop::Budget {
            purpose: purpose.as_str(),
            exceeded,
        };
        let spent = self.spent();
        if spent.calls + 1 > self.limits.max_calls_per_audit {
            return Err(budget(BudgetExceeded::Calls {
                scope: Scope::Audit,
                call: spent.calls + 1,
                allowed: self.limits.max_calls_per_audit,
            }));
        }
        let worst = worst_cost(self.client.as_ref(), &self.prices, request).map_err(budget)?;
        if spent.usd + worst > self.limits.max_usd_per_audit {
            return Err(budget(BudgetExceeded::Usd {
                scope: Scope::Audit,
                worst,
                left: (self.limits.max_usd_per_audit - spent.usd).max(0.0),
                limit: self.limits.max_usd_per_audit,
            }));
        }
        if left < self.limits.timeout {
            return Err(ModelStop::Time {
                purpose: purpose.as_str(),
                deadline: self.limits.timeout,
                left,
            });
        }
        Ok(())
    }

    /// New answers asked after one that could not be used (`semantic_retries`).
    pub(crate) fn semantic_retries(&self) -> u32 {
        self.limits.semantic_retries
    }

    /// Marks the last call's answer as one that could not be used, for the ledger.
    pub(crate) fn mark_unusable(&self, purpose: Purpose) {
        if let Some(call) = self.ledgered().calls.last_mut() {
            call.failure = Some(format!("invalid_{}", purpose.as_str()));
        }
    }

    /// The turns after an answer that could not be used: the answer, then its problems (and
    /// the rules of it that were kept, which need no repeating).
    pub(crate) fn follow_up(
        &self,
        prompt: &mut Prompt,
        text: &str,
        problems: &[String],
        kept: &[crate::model::invariant::Invariant],
    ) {
        prompt
            .messages
            .push(Message::text(Role::Assistant, self.redactor.redact(text)));
        let mut asked = format!(
            "Your answer could not be used as it is. Windup found:\n- {}\n",
            problems.join("\n- ")
        );
        if kept.is_empty() {
            asked.push_str("\nAnswer again with the whole corrected answer.");
        } else {
            let ids: Vec<&str> = kept.iter().map(|i| i.id.as_str()).collect();
            asked.push_str(&format!(
                "\nThese were kept and need no repeating: {}. Answer again with the others, \
                 corrected.",
                ids.join(", ")
            ));
        }
        prompt
            .messages
            .push(Message::text(Role::User, self.redactor.redact(&asked)));
    }

    /// Asks once, within the budgets; the answer's text.
    pub(crate) async fn ask_once(
        &self,
        purpose: Purpose,
        prompt: &Prompt,
        schema: (&str, &Value),
        retry: Option<RetryKind>,
        left: Duration,
    ) -> Result<String, ModelStop> {
        let request = Request {
            prompt,
            schema_name: schema.0,
            schema: schema.1,
            max_output_tokens: self.limits.max_output_tokens,
        };
        self.check(purpose, &request, left)?;
        self.keep_prompt(purpose, prompt);
        let called = self.client.complete(&request).await;
        let mut calls = Vec::new();
        let cost = crate::engine::planner::llm::record(
            self.client.as_ref(),
            &self.prices,
            purpose.as_str(),
            &called,
            retry,
            &mut calls,
        );
        {
            let mut ledgered = self.ledgered();
            ledgered.spent.calls += 1;
            ledgered.spent.usd += cost;
            ledgered.calls.extend(calls);
        }
        called
            .result
            .map(|completion| completion.text)
            .map_err(|error| ModelStop::Provider {
                purpose: purpose.as_str(),
                error,
            })
    }

    /// Asks until `read` takes an answer, feeding each answer's problems back, at most
    /// `semantic_retries` more times. `left` is the audit's time left when asked: each call
    /// must fit in it.
    pub(crate) async fn answer<T>(
        &self,
        purpose: Purpose,
        mut prompt: Prompt,
        schema: (&str, &Value),
        left: Duration,
        read: &mut dyn FnMut(&str) -> Result<T, Vec<String>>,
    ) -> Result<T, ModelStop> {
        let answers = 1 + self.limits.semantic_retries;
        let mut problems = Vec::new();
        for n in 0..answers {
            let retry = (n > 0).then_some(RetryKind::Semantic);
            let text = self.ask_once(purpose, &prompt, schema, retry, left).await?;
            match read(&text) {
                Ok(value) => return Ok(value),
                Err(found) => problems = found,
            }
            self.mark_unusable(purpose);
            self.follow_up(&mut prompt, &text, &problems, &[]);
        }
        Err(ModelStop::Unusable {
            purpose: purpose.as_str(),
            answers,
            problems,
        })
    }

    fn keep_prompt(&self, purpose: Purpose, prompt: &Prompt) {
        let n = {
            let mut ledgered = self.ledgered();
            ledgered.prompts.push(SentPrompt {
                purpose,
                prompt: prompt.clone(),
            });
            ledgered.prompts.len()
        };
        let Some(dir) = &self.prompts_dir else {
            return;
        };
        let stamp = OffsetDateTime::now_utc().unix_timestamp();
        let name = format!("audit-{stamp}-{n:03}-{}", purpose.as_str());
        let mut text = format!("# system\n\n{}\n", prompt.system);
        let mut images = Vec::new();
        for message in &prompt.messages {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            text.push_str(&format!("\n# {role}\n\n{}\n", message.text));
            for image in &message.images {
                images.push(image);
                let file = format!("{name}-image-{}.png", images.len());
                text.push_str(&format!("\n![Image {}]({file})\n", images.len()));
            }
        }
        // Keeping a prompt for review is a convenience: a failure to write it loses nothing.
        let _ = std::fs::create_dir_all(dir).and_then(|()| {
            for (i, image) in images.iter().enumerate() {
                std::fs::write(dir.join(format!("{name}-image-{}.png", i + 1)), &image.png)?;
            }
            std::fs::write(dir.join(format!("{name}.md")), text)
        });
    }
}
