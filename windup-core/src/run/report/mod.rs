//! What a run tells, as it happens and when it ends.
//!
//! - **Reporters** receive the run's [`RunEvent`]s as they happen, each doing one thing with
//!   them: print a run ([`Terminal`]) or an audit ([`AuditView`]), write the ledger
//!   ([`LedgerReporter`]), write the reports, scan for leaked secrets.
//! - **Reports** are the files people read once it ends: JUnit XML for CI parsers, JSON with the
//!   whole run, and one self-contained HTML file (no external request of any kind: CSS, script
//!   and images inline). A [`SuiteReport`] is plain data the runner fills in; each writer turns
//!   it into text.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use time::OffsetDateTime;

use crate::config::{Reports, Settings};
use crate::engine::ledger::{self, CacheOutcome, Ledger, LlmCall, PriceTable, RunRecord, millis};
use crate::engine::secret::{self, Leak};
use crate::model::plan::Plan;
use crate::model::scenario::Scenario;
use crate::run::events::{Reporter, RunEvent, Totals};
use crate::run::outcome::{Outcome, ScenarioResult};

mod actions;
#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod audit_view;
mod html;
mod junit;
mod terminal;
#[cfg(test)]
mod tests;
mod thumbnail;

#[cfg(feature = "audit")]
pub use audit_view::AuditView;
pub use html::html;
pub use junit::junit;
pub use terminal::{Line, Terminal, Tone, count, lines};

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
        file: crate::run::failure::relative(&scenario.path),
        task: scenario.task.clone(),
        passed: result.passed(),
        failure_class,
        message,
        failed_step: details.failed_step.clone(),
        screenshot: details.screenshot.clone(),
        duration_ms: crate::engine::ledger::millis(result.duration),
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

/// A reporter the suite keeps a handle on, to ask it for what it made once the events stop.
pub(crate) struct Shared<R>(pub Arc<Mutex<R>>);

impl<R: Reporter> Reporter for Shared<R> {
    fn report(&mut self, event: &RunEvent) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .report(event);
    }
}

/// One ledger record per scenario run. A ledger that cannot be written is said on stderr and
/// does not change the outcome.
pub struct LedgerReporter {
    ledger: Ledger,
    kind: ledger::RecordKind,
}

impl LedgerReporter {
    pub fn new(settings: &Settings) -> Self {
        Self {
            ledger: Ledger::new(&settings.root),
            kind: ledger::RecordKind::Run,
        }
    }

    /// Records of another kind than the project's runs (a bench's).
    pub fn of_kind(mut self, kind: ledger::RecordKind) -> Self {
        self.kind = kind;
        self
    }
}

impl Reporter for LedgerReporter {
    fn report(&mut self, event: &RunEvent) {
        let RunEvent::ScenarioFinished { result, .. } = event else {
            return;
        };
        let (outcome, failure_class) = match &result.outcome {
            Outcome::Passed { .. } => (ledger::Outcome::Passed, None),
            Outcome::Failed(failure) => (
                ledger::Outcome::Failed,
                Some(failure.class().as_str().to_owned()),
            ),
        };
        let entry = RunRecord {
            run_id: ledger::new_run_id(),
            scenario_id: result.id.clone(),
            started_at: result.started_at.clone(),
            duration_ms: millis(result.duration),
            outcome,
            failure_class,
            cache: result.cache(),
            replan: result.details.replan,
            llm_calls: result.details.llm_calls.clone(),
            pages: result.details.pages.clone(),
            kind: self.kind,
        };
        if let Err(err) = self.ledger.append(&entry) {
            eprintln!("windup: the run ledger was not written: {err}");
        }
    }
}

/// The JUnit, JSON and HTML reports the settings ask for, written when the suite finishes.
pub(crate) struct ReportWriter {
    reports: Reports,
    prices: PriceTable,
    name: String,
    base_url: String,
    started_at: String,
    scenarios: Vec<ScenarioReport>,
    /// What was written, or why not.
    pub(crate) written: Result<Vec<PathBuf>, String>,
}

impl ReportWriter {
    pub(crate) fn new(reports: Reports, prices: PriceTable) -> Self {
        Self {
            reports,
            prices,
            name: String::new(),
            base_url: String::new(),
            started_at: String::new(),
            scenarios: Vec::new(),
            written: Ok(Vec::new()),
        }
    }

    fn write(&mut self, totals: &Totals) {
        let suite = SuiteReport {
            name: std::mem::take(&mut self.name),
            started_at: std::mem::take(&mut self.started_at),
            duration_ms: totals.duration_ms,
            base_url: std::mem::take(&mut self.base_url),
            scenarios: std::mem::take(&mut self.scenarios),
        };
        self.written = write(&self.reports, &suite).map_err(|err| err.to_string());
    }
}

impl Reporter for ReportWriter {
    fn report(&mut self, event: &RunEvent) {
        match event {
            RunEvent::SuiteStarted {
                name,
                base_url,
                started_at,
                ..
            } => {
                self.name.clone_from(name);
                self.base_url.clone_from(base_url);
                self.started_at.clone_from(started_at);
            }
            RunEvent::ScenarioFinished { scenario, result } => self
                .scenarios
                .push(scenario_report(scenario, result, &self.prices)),
            RunEvent::SuiteFinished { totals } => self.write(totals),
            _ => {}
        }
    }
}

/// The leak scan: every secret the project configures, searched for in what the run printed
/// (every event as the terminal shows it), in the files Windup wrote and in the reports.
pub(crate) struct LeakScan {
    output: String,
}

impl LeakScan {
    pub(crate) fn new() -> Self {
        Self {
            output: String::new(),
        }
    }

    pub(crate) fn scan(&self, settings: &Settings) -> Vec<Leak> {
        secret::check_run(settings, &settings.reports.paths(), &self.output)
    }
}

impl Reporter for LeakScan {
    fn report(&mut self, event: &RunEvent) {
        for line in lines(event) {
            self.output.push_str(&line.text);
            self.output.push('\n');
        }
    }
}
