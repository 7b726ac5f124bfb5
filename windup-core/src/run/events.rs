//! The run's typed event stream (docs/architecture.md#events).
//!
//! A [`crate::run::suite::Suite`] produces [`RunEvent`]s and [`Reporter`]s consume them: the
//! terminal, the libtest trials, the reports, the ledger, the leak scan, an embedder's own. Every
//! event is owned, cloneable and serializes to one JSON object tagged by `event`, so a stream can
//! be stored and replayed to a subscriber that arrives late.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::{Serialize, Serializer};

use crate::engine::audit::{Budget, Finding, InvariantStatus, Phase as AuditPhase};
use crate::engine::ledger::LlmCall;
use crate::engine::secret::Leak;
use crate::engine::signature::PageVisit;
use crate::model::plan::{Action, ActionKind};
use crate::model::scenario::{Scenario, ScenarioError};
use crate::run::outcome::ScenarioResult;

/// Something that happened in a run, in the order it happened. Within one scenario the order is
/// strict; scenarios on different workers interleave. `SuiteStarted` comes first and
/// `SuiteFinished` closes the run; what follows it are the run's products: reports written, the
/// model's summary, and the leak scan's findings, which read what the reporters wrote.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunEvent {
    SuiteStarted {
        /// The suite's name: the project directory's name.
        name: String,
        base_url: String,
        /// Scenarios that will run (loaded, and selected).
        scenarios: usize,
        /// Scenario files that did not load; each comes as a [`RunEvent::ScenarioUnloadable`].
        unloadable: usize,
        workers: usize,
        /// The protocol the sessions speak (`bidi` or `classic`), as the first one opened says;
        /// the configured one's when none could open yet.
        protocol: String,
        /// RFC 3339, UTC.
        started_at: String,
    },
    /// A scenario file that did not load: it counts as a failure.
    ScenarioUnloadable {
        file: PathBuf,
        #[serde(serialize_with = "as_text")]
        error: ScenarioError,
    },
    ScenarioStarted {
        #[serde(serialize_with = "scenario_ref")]
        scenario: Arc<Scenario>,
    },
    /// The plan a scenario is about to run, or that planning is about to make one.
    PlanChosen {
        scenario: String,
        choice: PlanChoice,
    },
    ActionStarted {
        scenario: String,
        action: ActionInfo,
    },
    ActionFinished {
        scenario: String,
        action: ActionInfo,
        passed: bool,
        duration_ms: u64,
        /// The page after the action (a filmstrip frame), or at its failure.
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot: Option<PathBuf>,
    },
    /// A page a run reached: its path and structural signature.
    PageVisited {
        scenario: String,
        page: PageVisit,
    },
    /// A model call, as the provider reported its usage; `scenario` is `(suite)` for calls about
    /// the whole run.
    ModelCall {
        scenario: String,
        call: LlmCall,
        /// At the price table's rates, when the call is priced.
        #[serde(skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    ScenarioFinished {
        #[serde(serialize_with = "scenario_ref")]
        scenario: Arc<Scenario>,
        #[serde(serialize_with = "shared")]
        result: Arc<ScenarioResult>,
    },
    SuiteFinished {
        totals: Totals,
    },
    /// A report file the run wrote.
    ReportWritten {
        path: PathBuf,
    },
    /// A report that could not be written; the outcome of the run stands.
    ReportFailed {
        error: String,
    },
    /// What the model said about the run (`--summary`), and what kept it from saying more.
    Summary {
        #[serde(skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
        /// Scenario id and the suggested fix.
        suggestions: Vec<(String, String)>,
        problems: Vec<String>,
    },
    /// Something a person should know that changes no outcome.
    Warning {
        message: String,
    },
    /// A secret value found in a file Windup wrote or in the run's output.
    LeakFound {
        #[serde(serialize_with = "leak_ref")]
        leak: Leak,
    },
    /// An audit began: its store id, target, seed, budget and deny list.
    AuditStarted {
        run_id: String,
        target: String,
        seed: u64,
        budget: Budget,
        deny: Vec<String>,
    },
    /// The audit moved to another phase.
    Phase {
        run_id: String,
        phase: AuditPhase,
    },
    /// Why the audit does what it does next.
    #[serde(rename = "reason")]
    Reasoning {
        run_id: String,
        text: String,
    },
    /// An invariant the audit holds the app to, and its standing.
    Invariant {
        run_id: String,
        invariant: Box<crate::model::invariant::Invariant>,
        #[serde(flatten)]
        status: InvariantStatus,
    },
    /// An action of an attack.
    #[serde(rename = "action")]
    AuditAction {
        run_id: String,
        label: String,
        /// The action in words: `click "Add to cart"`.
        step: String,
        action: ActionInfo,
        #[serde(skip_serializing_if = "Option::is_none")]
        screenshot: Option<PathBuf>,
    },
    /// How much of the app's own code the audit has reached: distinct edges taken, of the edges
    /// of every script instrumented so far, at `at_ms` into the audit. Told as the count grows,
    /// at most twice a second.
    #[serde(rename = "coverage")]
    CodeReached {
        run_id: String,
        at_ms: u64,
        reached: usize,
        edges: u64,
        scripts: usize,
    },
    /// A violation proven: reproduced, shrunk, explained.
    Finding {
        run_id: String,
        finding: Finding,
    },
    /// A finding's regression test, written.
    #[serde(rename = "test")]
    TestWritten {
        run_id: String,
        finding: String,
        framework: String,
        path: PathBuf,
        lockfile: PathBuf,
    },
    /// The audit ended.
    #[serde(rename = "done")]
    AuditDone {
        run_id: String,
        status: String,
        runtime_ms: u64,
        findings: usize,
        actions: usize,
        attacks: usize,
        pages_explored: usize,
        /// Violations seen once that did not reproduce.
        unconfirmed: usize,
        stopped_by: String,
        /// How much of the app's code the audit ran, and when (`off` says why not).
        #[serde(default)]
        code: crate::engine::audit::CodeCoverage,
    },
    /// An audit that could not run, or ended on an error (a browser that would not start).
    #[serde(rename = "failed")]
    AuditFailed {
        run_id: String,
        message: String,
        at: String,
    },
}

/// Where a scenario's plan comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "snake_case")]
#[non_exhaustive]
pub enum PlanChoice {
    /// The active plan in the plan cache.
    Cache,
    /// The committed lockfile, seeding a cold cache.
    Lockfile,
    /// None works or exists: the scenario is planned, from scratch or after a failed replay.
    Planning {
        planner: crate::model::plan::PlannerKind,
        replan: bool,
    },
}

/// An action as events name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionInfo {
    /// The action's id in its plan (`s3`).
    pub id: String,
    /// 1-based position in the plan, of `of`.
    pub position: usize,
    pub of: usize,
    pub kind: ActionKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// What a person calls its target: its accessible name, else its label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ActionInfo {
    pub fn new(action: &Action, position: usize, of: usize) -> Self {
        Self {
            id: action.id.clone(),
            position,
            of,
            kind: action.kind,
            selector: action.target.as_ref().map(|t| t.selector.clone()),
            name: action
                .target
                .as_ref()
                .and_then(|t| t.identity.name.clone().or_else(|| t.identity.label.clone())),
        }
    }
}

/// What a run came to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub passed: usize,
    /// Failed scenarios, and files that did not load.
    pub failed: usize,
    /// How many failures were of each class that has its own exit code.
    pub read_only: usize,
    pub budget: usize,
    pub duration_ms: u64,
}

impl RunEvent {
    /// The scenario this event is about, when it is about one.
    pub fn scenario(&self) -> Option<&str> {
        match self {
            RunEvent::ScenarioStarted { scenario }
            | RunEvent::ScenarioFinished { scenario, .. } => Some(&scenario.id),
            RunEvent::PlanChosen { scenario, .. }
            | RunEvent::ActionStarted { scenario, .. }
            | RunEvent::ActionFinished { scenario, .. }
            | RunEvent::PageVisited { scenario, .. }
            | RunEvent::ModelCall { scenario, .. } => Some(scenario),
            _ => None,
        }
    }

    /// The event's name, as it serializes (`scenario_finished`).
    pub fn name(&self) -> &'static str {
        match self {
            RunEvent::SuiteStarted { .. } => "suite_started",
            RunEvent::ScenarioUnloadable { .. } => "scenario_unloadable",
            RunEvent::ScenarioStarted { .. } => "scenario_started",
            RunEvent::PlanChosen { .. } => "plan_chosen",
            RunEvent::ActionStarted { .. } => "action_started",
            RunEvent::ActionFinished { .. } => "action_finished",
            RunEvent::PageVisited { .. } => "page_visited",
            RunEvent::ModelCall { .. } => "model_call",
            RunEvent::ScenarioFinished { .. } => "scenario_finished",
            RunEvent::SuiteFinished { .. } => "suite_finished",
            RunEvent::ReportWritten { .. } => "report_written",
            RunEvent::ReportFailed { .. } => "report_failed",
            RunEvent::Summary { .. } => "summary",
            RunEvent::Warning { .. } => "warning",
            RunEvent::LeakFound { .. } => "leak_found",
            RunEvent::AuditStarted { .. } => "audit_started",
            RunEvent::Phase { .. } => "phase",
            RunEvent::Reasoning { .. } => "reason",
            RunEvent::Invariant { .. } => "invariant",
            RunEvent::AuditAction { .. } => "action",
            RunEvent::CodeReached { .. } => "coverage",
            RunEvent::Finding { .. } => "finding",
            RunEvent::TestWritten { .. } => "test",
            RunEvent::AuditDone { .. } => "done",
            RunEvent::AuditFailed { .. } => "failed",
        }
    }

    /// The event as one line of JSON, as a store keeps it.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("an event holds only plain values")
    }
}

/// A consumer of a run's events. Events arrive one at a time, in order, from whichever worker
/// produced them; a reporter that is slow slows the run, so heavy work belongs at
/// [`RunEvent::SuiteFinished`].
pub trait Reporter: Send {
    fn report(&mut self, event: &RunEvent);
}

impl<F: FnMut(&RunEvent) + Send> Reporter for F {
    fn report(&mut self, event: &RunEvent) {
        self(event)
    }
}

/// Hands each event to every reporter, in the order the reporters were added.
#[derive(Default)]
pub struct Events {
    reporters: Mutex<Vec<Box<dyn Reporter>>>,
}

impl std::fmt::Debug for Events {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Events").finish_non_exhaustive()
    }
}

impl Events {
    pub fn new(reporters: Vec<Box<dyn Reporter>>) -> Self {
        Self {
            reporters: Mutex::new(reporters),
        }
    }

    /// Adds a reporter; it receives the events from now on.
    pub fn add(&self, reporter: Box<dyn Reporter>) {
        self.lock().push(reporter);
    }

    pub fn emit(&self, event: RunEvent) {
        for reporter in self.lock().iter_mut() {
            reporter.report(&event);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Box<dyn Reporter>>> {
        // A reporter that panicked leaves the list as it was; the others go on.
        self.reporters.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn as_text<S: Serializer, T: std::fmt::Display>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn shared<S: Serializer, T: Serialize>(value: &Arc<T>, s: S) -> Result<S::Ok, S::Error> {
    value.as_ref().serialize(s)
}

fn scenario_ref<S: Serializer>(scenario: &Arc<Scenario>, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct ScenarioRef<'a> {
        id: &'a str,
        file: &'a std::path::Path,
        task: &'a str,
    }
    ScenarioRef {
        id: &scenario.id,
        file: &scenario.path,
        task: &scenario.task,
    }
    .serialize(s)
}

fn leak_ref<S: Serializer>(leak: &Leak, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct LeakRef<'a> {
        place: &'a str,
        secret: &'a str,
    }
    LeakRef {
        place: &leak.place,
        secret: &leak.secret,
    }
    .serialize(s)
}
