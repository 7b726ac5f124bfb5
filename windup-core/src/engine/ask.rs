//! One model call for a JSON answer outside a scenario's run — a run's summary, a scenario
//! drafted by `cargo windup new`, a file the scan could not read — checked against the budgets
//! before it is made and written to the ledger after, as a record that costs but is not a run.

use std::path::Path;

use serde_json::Value;
use time::OffsetDateTime;

use crate::config::LlmLimits;
use crate::engine::ledger::{
    self, CacheOutcome, Ledger, LlmCall, PriceTable, RecordKind, RunRecord,
};
use crate::engine::planner::llm::{RunSpend, Spent, record};
use crate::llm::{LlmClient, Prompt, Request};

/// What a call is asked with, and where it is accounted.
pub struct Ask<'a> {
    pub client: &'a dyn LlmClient,
    pub prices: &'a PriceTable,
    pub limits: &'a LlmLimits,
    /// The project whose ledger records the call.
    pub root: &'a Path,
    /// What the calls have spent so far, shared by the calls of one command.
    pub spend: &'a RunSpend,
    /// The ledger record's kind.
    pub kind: RecordKind,
}

/// An answer and the calls it took, each with its cost when priced.
#[derive(Debug)]
pub struct Asked {
    pub answer: Result<Value, String>,
    pub calls: Vec<(LlmCall, Option<f64>)>,
}

/// What one call asks for.
pub struct Question<'a> {
    /// The ledger's purpose (`summary`, `new`, `scan`).
    pub purpose: &'a str,
    /// What the call is about, as the ledger's scenario id (`(suite)`, a file's path).
    pub subject: &'a str,
    /// Already redacted.
    pub prompt: &'a Prompt,
    pub schema_name: &'a str,
    pub schema: &'a Value,
    pub max_output_tokens: u32,
}

impl Ask<'_> {
    /// Makes the call when the budgets allow it; the answer parsed as JSON. A call not made,
    /// a provider's failure and an answer that is not JSON are each a problem in words.
    pub async fn json(&self, question: &Question<'_>) -> Asked {
        let (purpose, subject) = (question.purpose, question.subject);
        let request = Request {
            prompt: question.prompt,
            schema_name: question.schema_name,
            schema: question.schema,
            max_output_tokens: question.max_output_tokens,
        };
        let checked = self.spend.check(
            self.client,
            self.prices,
            self.limits,
            &request,
            &Spent::default(),
        );
        if let Err(why) = checked {
            return Asked {
                answer: Err(format!(
                    "no {purpose} for {subject}: the call was not made: {why}"
                )),
                calls: Vec::new(),
            };
        }
        let started_at = ledger::started_at(OffsetDateTime::now_utc());
        let started = std::time::Instant::now();
        let called = self.client.complete(&request).await;
        let mut calls: Vec<LlmCall> = Vec::new();
        let cost = record(self.client, self.prices, purpose, &called, None, &mut calls);
        self.spend.charge(cost);
        let today = OffsetDateTime::now_utc().date();
        let priced = calls
            .iter()
            .map(|call| (call.clone(), self.prices.cost(call, today)))
            .collect();
        let entry = RunRecord {
            run_id: ledger::new_run_id(),
            scenario_id: subject.to_owned(),
            started_at,
            duration_ms: ledger::millis(started.elapsed()),
            outcome: ledger::Outcome::Passed,
            failure_class: None,
            cache: CacheOutcome::Hit,
            replan: None,
            llm_calls: calls,
            pages: Vec::new(),
            kind: self.kind,
        };
        if let Err(err) = Ledger::new(self.root).append(&entry) {
            eprintln!("windup: the run ledger was not written: {err}");
        }
        let answer = called
            .result
            .map_err(|err| format!("no {purpose} for {subject}: {err}"))
            .and_then(|completion| {
                serde_json::from_str(completion.text.trim()).map_err(|err| {
                    format!("no {purpose} for {subject}: the answer is not JSON: {err}")
                })
            });
        Asked {
            answer,
            calls: priced,
        }
    }
}
