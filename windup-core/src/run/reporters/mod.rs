//! The reporters Windup ships: each consumes the run's [`RunEvent`]s and does one thing with
//! them — print a run or an audit, write the ledger, write the reports, scan for leaked secrets.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::config::{Reports, Settings};
use crate::events::{Reporter, RunEvent, Totals};
use crate::ledger::{self, Ledger, PriceTable, RunRecord};
use crate::report::{self, ScenarioReport, SuiteReport};
use crate::runner::{Outcome, millis};
use crate::secrets::{self, Leak};

pub mod audit_view;
pub mod site_map;
mod terminal;

pub use audit_view::AuditView;
pub use terminal::{Line, Terminal, Tone, count, lines};

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
        self.written = report::write(&self.reports, &suite).map_err(|err| err.to_string());
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
                .push(report::scenario_report(scenario, result, &self.prices)),
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
        secrets::check_run(settings, &settings.reports.paths(), &self.output)
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
