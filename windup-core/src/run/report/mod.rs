//! Reports people read: JUnit XML for CI parsers, JSON with the whole run, and one
//! self-contained HTML file (no external request of any kind: CSS, script and images inline).
//!
//! A [`SuiteReport`] is plain data the runner fills in; each writer turns it into text.

use std::path::PathBuf;

use serde::Serialize;

use time::OffsetDateTime;

use crate::config::Reports;
use crate::ledger::{CacheOutcome, LlmCall, PriceTable};
use crate::plan::Plan;
use crate::runner::{Outcome, ScenarioResult};
use crate::scenario::Scenario;

mod actions;
mod html;
mod junit;
#[cfg(test)]
mod tests;
mod thumbnail;

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
    /// The plan's name for it: `s1`, `s2`… for explicit steps, any name a model gave.
    pub id: String,
    /// The action type (`click`, `fill`, …).
    pub kind: String,
    /// The step as the author wrote it, when the action was planned from one:
    /// `click "Add to cart"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// The step's line in the scenario file, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What the action does, from its plan: `click "Add to cart"`, `goto /cart`.
    pub description: String,
    /// The CSS selector of the element it acted on, when it acted on one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// The frames the element is in, outermost first (empty: the page itself).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
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

/// A scenario's part of the report, from its run.
pub fn scenario_report(
    scenario: &Scenario,
    result: &ScenarioResult,
    prices: &PriceTable,
) -> ScenarioReport {
    let details = &result.details;
    let (failure_class, message) = match &result.outcome {
        Outcome::Passed { .. } => (None, None),
        Outcome::Failed(failure) => (
            Some(failure.class().as_str().to_owned()),
            Some(failure.to_string()),
        ),
    };
    let today = OffsetDateTime::now_utc().date();
    let cost_usd = details
        .llm_calls
        .iter()
        .map(|call| prices.cost(call, today))
        .sum::<Option<f64>>();
    ScenarioReport {
        id: scenario.id.clone(),
        file: crate::failure::relative(&scenario.path),
        task: scenario.task.clone(),
        passed: result.passed(),
        failure_class,
        message,
        failed_step: details.failed_step.clone(),
        screenshot: details.screenshot.clone(),
        duration_ms: crate::ledger::millis(result.duration),
        cache: result.cache(),
        actions: actions::action_reports(scenario, details.plan.as_ref(), &details.actions),
        plan: details.plan.clone(),
        llm_calls: details.llm_calls.clone(),
        cost_usd,
    }
}

/// Writes each report `reports` asks for (creating its directory); returns the paths written.
pub fn write(reports: &Reports, suite: &SuiteReport) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let mut put = |path: &Option<PathBuf>, text: String| -> std::io::Result<()> {
        if let Some(path) = path {
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, text).map_err(|err| {
                std::io::Error::new(err.kind(), format!("{}: {err}", path.display()))
            })?;
            written.push(path.clone());
        }
        Ok(())
    };
    if reports.junit.is_some() {
        put(&reports.junit, junit(suite))?;
    }
    if reports.json.is_some() {
        put(&reports.json, suite.json())?;
    }
    if reports.html.is_some() {
        put(&reports.html, html(suite)?)?;
    }
    Ok(written)
}
