//! Why a scenario failed, typed until a reporter prints it.

use std::path::{Path, PathBuf};

use crate::browser::BrowserError;
use crate::engine::cache::CacheError;
use crate::engine::executor::{FailureCause, StepFailure};
use crate::engine::fragments::FragmentError;
use crate::engine::ledger::LedgerError;
use crate::engine::lockfile::LockfileError;
use crate::engine::planner::llm::OverBudget;
use crate::llm::LlmError;
use crate::model::plan::Plan;
use crate::model::scenario::Scenario;

/// Why a scenario failed, in classes the CLI maps to exit codes and the ledger records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureClass {
    /// A step did not do what it should: the site or the scenario is wrong.
    Step,
    /// The scenario needed planning, and this run may not plan (CI, `WINDUP_UPDATE=no`).
    ReadOnly,
    /// The scenario could not be run at all: configuration, browser, store, model provider.
    Setup,
    /// Planning needed a model call that would have gone over a budget.
    Budget,
    /// The site could not be opened (not reachable, or its start page answered an HTTP error):
    /// nothing about the scenario was tried.
    Navigation,
}

impl FailureClass {
    /// The class as the ledger and reports name it.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Step => "step",
            FailureClass::ReadOnly => "read_only",
            FailureClass::Setup => "setup",
            FailureClass::Budget => "budget",
            FailureClass::Navigation => "navigation",
        }
    }
}

impl std::fmt::Display for FailureClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a scenario failed. Its text says the file, the step, what happened and what to do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// A step failed, replaying or while planning ran it.
    #[error("{}", at.explain(failure))]
    Step {
        at: Box<StepAt>,
        failure: Box<StepFailure>,
    },
    /// The scenario needed planning and this run is read-only.
    #[error("{0}")]
    ReadOnly(Box<NeedsPlanning>),
    #[error(
        "scenario {scenario:?} ({}): account {account:?} is not configured; add \
         [accounts.{account}] to windup.toml, mapping each key to the environment variable that \
         holds its value",
        file.display()
    )]
    UnknownAccount {
        scenario: String,
        file: PathBuf,
        account: String,
    },
    #[error(
        "scenario {scenario:?} ({}) has only a task, and no model is configured to plan it: add \
         [llm] to windup.toml (see docs/llm.md), or give the scenario explicit `steps:`",
        file.display()
    )]
    NoModel { scenario: String, file: PathBuf },
    /// Something under the run failed: the browser, the plan cache, a lockfile, the prices.
    #[error("scenario {scenario:?}: {source}")]
    Setup {
        scenario: String,
        source: Box<SetupError>,
    },
    /// The model provider could not be asked.
    #[error("scenario {scenario:?} ({}): {source}", file.display())]
    Provider {
        scenario: String,
        file: PathBuf,
        source: Box<LlmError>,
    },
    #[error("{0}")]
    Budget(Box<OverBudget>),
    /// Every answer the budget allowed failed; the text has the last one's problems.
    #[error("{0}")]
    NoWorkingPlan(String),
}

/// What a scenario's run stands on and could not do.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SetupError {
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error(transparent)]
    Cache(#[from] CacheError),
    #[error(transparent)]
    Lockfile(#[from] LockfileError),
    #[error(transparent)]
    Fragment(#[from] FragmentError),
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    #[error(transparent)]
    Provider(#[from] LlmError),
}

impl Failure {
    pub fn class(&self) -> FailureClass {
        match self {
            Failure::Step { failure, .. } => class_of(failure),
            Failure::ReadOnly(_) => FailureClass::ReadOnly,
            Failure::Budget(_) => FailureClass::Budget,
            Failure::NoWorkingPlan(_) => FailureClass::Step,
            Failure::UnknownAccount { .. }
            | Failure::NoModel { .. }
            | Failure::Setup { .. }
            | Failure::Provider { .. } => FailureClass::Setup,
        }
    }

    /// A step failure, placed in the scenario's own terms.
    pub fn step(scenario: &Scenario, failure: Box<StepFailure>) -> Self {
        Failure::Step {
            at: Box::new(StepAt::of(scenario, &failure)),
            failure,
        }
    }

    pub fn setup(scenario: &Scenario, source: impl Into<SetupError>) -> Self {
        Failure::Setup {
            scenario: scenario.id.clone(),
            source: Box::new(source.into()),
        }
    }

    /// The failed step, when a step failed.
    pub fn step_failure(&self) -> Option<&StepFailure> {
        match self {
            Failure::Step { failure, .. } => Some(failure),
            _ => None,
        }
    }

    /// Whether the browser is gone: its session must not be used again.
    pub fn browser_lost(&self) -> bool {
        self.step_failure().is_some_and(|failure| {
            matches!(
                failure.cause,
                FailureCause::Browser(BrowserError::Lost { .. })
            )
        })
    }
}

/// The class of a step failure: a page that could not be opened is not the scenario's fault.
fn class_of(failure: &StepFailure) -> FailureClass {
    match failure.cause {
        FailureCause::Navigation(_) => FailureClass::Navigation,
        _ => FailureClass::Step,
    }
}

/// Where a step failure happened, in the scenario's terms.
#[derive(Debug, Clone)]
pub struct StepAt {
    pub scenario: String,
    pub file: PathBuf,
    pub start_url: String,
    /// The step as written, when the failing action carries one out.
    pub written: Option<WrittenStep>,
}

/// A step of a scenario file, as its author wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenStep {
    /// 1-based, of `of`.
    pub number: usize,
    pub of: usize,
    pub text: String,
    pub line: usize,
}

impl WrittenStep {
    /// Step `number` (1-based) of `scenario`, when it has one.
    pub fn of(scenario: &Scenario, number: Option<usize>) -> Option<Self> {
        let number = number?;
        let step = scenario.steps.get(number.checked_sub(1)?)?;
        Some(WrittenStep {
            number,
            of: scenario.steps.len(),
            text: step.text.clone(),
            line: step.line,
        })
    }
}

impl StepAt {
    pub fn of(scenario: &Scenario, failure: &StepFailure) -> Self {
        StepAt {
            scenario: scenario.id.clone(),
            file: scenario.path.clone(),
            start_url: scenario.start_url.clone(),
            written: WrittenStep::of(scenario, failure.step),
        }
    }

    /// A step failure in the scenario's own terms: its file and line, the step as written, the
    /// reason, the page and the screenshot.
    pub fn explain(&self, failure: &StepFailure) -> String {
        let mut text = match &self.written {
            Some(step) => format!(
                "scenario {:?} failed at step {} of {} ({}:{})\n  step: {}",
                self.scenario,
                step.number,
                step.of,
                shown(&self.file),
                step.line,
                step.text
            ),
            None if failure.position == 0 => format!(
                "scenario {:?} ({}) failed opening its start page {}",
                self.scenario,
                shown(&self.file),
                self.start_url
            ),
            None => format!(
                "scenario {:?} ({}) failed",
                self.scenario,
                self.file.display()
            ),
        };
        text.push_str(&format!("\n  reason: {}", failure.cause));
        if let Some(url) = &failure.url {
            text.push_str(&format!("\n  page: {url}"));
        }
        if let Some(path) = &failure.screenshot {
            text.push_str(&format!("\n  screenshot: {}", shown(path)));
        }
        text
    }

    /// The step as the scenario writes it with its file and line, or the plan's action.
    pub fn step_text(&self, failure: &StepFailure) -> String {
        match &self.written {
            Some(step) => format!("{} ({}:{})", step.text, shown(&self.file), step.line),
            None if failure.position == 0 => format!("open {}", self.start_url),
            None => {
                let kind = failure.kind.map(|k| k.as_str()).unwrap_or("action");
                match &failure.selector {
                    Some(selector) => format!("{} {kind} {selector}", failure.action_id),
                    None => format!("{} {kind}", failure.action_id),
                }
            }
        }
    }
}

/// Why a read-only run would have had to plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanningReason {
    /// No plan in the cache or a lockfile.
    NoPlan,
    /// The cached or committed plan failed its replay.
    PlanBroken,
}

/// A read-only run that would have had to plan, with what to run locally.
#[derive(Debug, thiserror::Error)]
#[error("{}", self.text())]
pub struct NeedsPlanning {
    pub scenario: String,
    pub lockfile: PathBuf,
    pub reason: PlanningReason,
    /// When the replay failed: why, as written to the stale cache entry.
    pub evidence: Option<Evidence>,
}

impl NeedsPlanning {
    fn text(&self) -> String {
        let why = match self.reason {
            PlanningReason::NoPlan => "it has no plan yet",
            PlanningReason::PlanBroken => "its plan no longer works",
        };
        let mut message = format!(
            "scenario {:?} needs planning ({why}), and this run is read-only (CI is set, or \
             WINDUP_UPDATE=no). Locally, run `cargo windup run {}`, review the plan with `cargo \
             windup review`, and commit {}",
            self.scenario,
            self.scenario,
            shown(&self.lockfile)
        );
        if let Some(evidence) = &self.evidence {
            message.push_str(&format!(
                "\n  the replay failed:\n  {}",
                evidence.to_string().replace('\n', "\n  ")
            ));
        }
        message
    }
}

/// Why a replayed plan failed: the step failure, and whether the start page changed since the
/// plan was made (signatures, as a person compares them).
#[derive(Debug)]
pub struct Evidence {
    pub at: Box<StepAt>,
    pub failure: Box<StepFailure>,
    pub start_changed: Option<(String, String)>,
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.at.explain(&self.failure))?;
        if let Some((planned, now)) = &self.start_changed {
            write!(
                f,
                "\n  the start page's structure changed since the plan was made (signature {} is \
                 now {})",
                short(planned),
                short(now)
            )?;
        }
        Ok(())
    }
}

/// The first 12 hex digits of a signature, as a person compares them.
fn short(sig: &str) -> &str {
    sig.get(..12).unwrap_or(sig)
}

/// A plan's first `kept` actions are the scenario's first steps, one action per step, as the
/// offline planner makes them — the condition for keeping them and planning on from there.
pub(crate) fn plan_follows_steps(plan: &Plan, scenario: &Scenario, kept: usize) -> bool {
    plan.actions.len() == scenario.steps.len()
        && plan.actions[..kept]
            .iter()
            .enumerate()
            .all(|(i, action)| action.written_step() == Some(i + 1))
}

/// A path as a person reads it: relative to the working directory when it is under it.
pub fn relative(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

fn shown(path: &Path) -> String {
    relative(path).display().to_string()
}

/// A step failure in the scenario's own terms: its file and line, the step as written, the
/// reason, the page and the screenshot.
pub fn explain(scenario: &Scenario, failure: &StepFailure) -> String {
    StepAt::of(scenario, failure).explain(failure)
}
