//! What one scenario's run came to: passed or failed, and what it did on the way, for events,
//! reports, the ledger and the store.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Serialize, Serializer};

use crate::engine::executor::ActionRecord;
use crate::engine::ledger::{CacheOutcome, LlmCall, Replan, millis};
use crate::engine::signature::PageVisit;
use crate::model::plan::Plan;
use crate::run::failure::{Failure, FailureClass};

/// The outcome of one scenario.
#[derive(Debug)]
pub struct ScenarioResult {
    pub id: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub duration: Duration,
    pub outcome: Outcome,
    /// What the run did, for reports: the plan, its actions, model calls, pages.
    pub details: RunDetails,
}

/// Passed with the number of actions run and what the plan cache did, or failed, typed.
#[derive(Debug)]
pub enum Outcome {
    Passed {
        actions: usize,
        cache: CacheOutcome,
        /// Where a new or changed plan now waits for review, if one does.
        pending: Option<PathBuf>,
    },
    Failed(Failure),
}

impl ScenarioResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Passed { .. })
    }

    /// What the plan cache did: a failed run is a re-plan when it planned again after a
    /// replay failed, a miss otherwise.
    pub fn cache(&self) -> CacheOutcome {
        match &self.outcome {
            Outcome::Passed { cache, .. } => *cache,
            Outcome::Failed(_) if self.details.replan.is_some() => CacheOutcome::Replanned,
            Outcome::Failed(_) => CacheOutcome::Miss,
        }
    }

    /// Why it failed, when it failed.
    pub fn failure(&self) -> Option<&Failure> {
        match &self.outcome {
            Outcome::Failed(failure) => Some(failure),
            Outcome::Passed { .. } => None,
        }
    }
}

/// A result serializes as the facts a store or a dashboard shows; the failure as its class and
/// its text.
impl Serialize for ScenarioResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Facts<'a> {
            id: &'a str,
            started_at: &'a str,
            duration_ms: u64,
            passed: bool,
            cache: CacheOutcome,
            #[serde(skip_serializing_if = "Option::is_none")]
            failure_class: Option<FailureClass>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pending: Option<&'a PathBuf>,
            actions: usize,
            pages: &'a [PageVisit],
        }
        let pending = match &self.outcome {
            Outcome::Passed { pending, .. } => pending.as_ref(),
            Outcome::Failed(_) => None,
        };
        Facts {
            id: &self.id,
            started_at: &self.started_at,
            duration_ms: millis(self.duration),
            passed: self.passed(),
            cache: self.cache(),
            failure_class: self.failure().map(Failure::class),
            message: self.failure().map(ToString::to_string),
            pending,
            actions: self.details.actions.len(),
            pages: &self.details.pages,
        }
        .serialize(s)
    }
}

/// What a run did besides its outcome: for its ledger record and for reports.
#[derive(Debug, Default, Clone)]
pub struct RunDetails {
    /// Every page reached, in order.
    pub pages: Vec<PageVisit>,
    /// Every model call, attempt by attempt.
    pub llm_calls: Vec<LlmCall>,
    /// The plan that ran last, and its actions as far as they ran.
    pub plan: Option<Plan>,
    pub actions: Vec<ActionRecord>,
    /// When a step failed: the step, as written or as the plan has it, and the screenshot.
    pub failed_step: Option<String>,
    pub screenshot: Option<PathBuf>,
    /// How the run planned again after a replay failed, when it did.
    pub replan: Option<Replan>,
}
