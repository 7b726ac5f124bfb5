//! Reports people read: JUnit XML for CI parsers, JSON with the whole run, and one
//! self-contained HTML file (no external request of any kind: CSS, script and images inline).
//!
//! A [`SuiteReport`] is plain data the runner fills in; each writer turns it into text.

use std::path::PathBuf;

use serde::Serialize;

use crate::ledger::{CacheOutcome, LlmCall};
use crate::plan::Plan;

mod html;
mod junit;
#[cfg(test)]
mod tests;

pub use html::html;
pub use junit::junit;

/// One run of a suite.
#[derive(Debug, Clone, Serialize)]
pub struct SuiteReport {
    /// The suite's name: the project directory's name.
    pub name: String,
    /// RFC 3339, UTC.
    pub started_at: String,
    pub duration_ms: u64,
    /// Where the app under test ran.
    pub base_url: String,
    pub scenarios: Vec<ScenarioReport>,
}

/// One scenario of the run.
#[derive(Debug, Clone, Serialize)]
pub struct ScenarioReport {
    pub id: String,
    /// The scenario file, as a person reads it (relative to the working directory).
    pub file: PathBuf,
    pub task: String,
    pub passed: bool,
    /// When it failed: `step`, `read_only`, `setup` or `budget`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    /// When it failed: the whole failure message (file, line, step, reason, page, screenshot).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When a step failed: the step as written, e.g. `fill "Email" with account.email`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<String>,
    /// When a step failed: the screenshot taken at that moment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<PathBuf>,
    pub duration_ms: u64,
    pub cache: CacheOutcome,
    /// The actions of the plan that ran last, as far as they ran.
    pub actions: Vec<ActionReport>,
    /// The plan that ran last, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Plan>,
    pub llm_calls: Vec<LlmCall>,
    /// What the model calls cost at the price table's rates; `None` when a call is unpriced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// One action as it ran.
#[derive(Debug, Clone, Serialize)]
pub struct ActionReport {
    pub id: String,
    /// The action type (`click`, `fill`, …).
    pub kind: String,
    pub duration_ms: u64,
    /// A screenshot taken after the action, for the filmstrip, when screenshots were taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<PathBuf>,
}

impl SuiteReport {
    pub fn passed(&self) -> usize {
        self.scenarios.iter().filter(|s| s.passed).count()
    }

    pub fn failed(&self) -> usize {
        self.scenarios.len() - self.passed()
    }

    /// The whole run as pretty JSON.
    pub fn json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self)
            .expect("a report holds only plain values, so it always serializes");
        text.push('\n');
        text
    }
}
