//! The bench: how a user convinces themselves that "plan once, replay free" holds for one of
//! their scenarios (docs/cli.md#cargo-windup-bench). Against the project's site it runs:
//!
//! 1. [`GENERATIONS`] fresh generations: the scenario planned from scratch, each plan run and
//!    verified as planning does; at least [`GENERATIONS_NEEDED`] must be valid and pass;
//! 2. [`REPLAYS`] replays of a plan that passed, from the cache: all pass, no model call;
//! 3. the median replay within [`FLOOR_RATIO_ALLOWED`] times the browser's floor for the same
//!    flow ([`crate::engine::floor`], run beside each replay); with no floor (an element
//!    WebDriver alone cannot reach), at least [`SPEEDUP_NEEDED`] times faster than the median
//!    generation;
//! 4. replays that cost $0;
//! 5. the plan with one selector broken: its replay fails there, the runner plans again from
//!    the failure, as for any stale cache entry, and the new plan passes.
//!
//! Every run is the runner's own ([`crate::run::runner`]), with a scratch cache of the bench's: no
//! lockfile is read or written and the project's cache is left alone. Each run is a ledger
//! record of kind `bench`, its model calls of purpose `bench`; the budgets of `[llm]` hold, and
//! a bench that could not fit in them is refused before any call.

mod report;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use time::{Date, OffsetDateTime};
use url::Url;

use crate::browser::{Browser, BrowserError};
use crate::config::{Reports, Settings, UpdateMode};
use crate::engine::cache::{CacheEntry, CacheKey, PlanCache};
use crate::engine::floor;
use crate::engine::ledger::millis;
use crate::engine::ledger::{PriceTable, RecordKind};
use crate::engine::secret::Accounts;
use crate::llm::LlmLimits;
use crate::model::plan::Plan;
use crate::model::scenario::Scenario;
use crate::run::events::{Events, RunEvent};
use crate::run::failure::{Failure, FailureClass, relative};
use crate::run::outcome::ScenarioResult;
use crate::run::pool::SessionPool;
use crate::run::report::LedgerReporter;
use crate::run::runner::{self, Context, Plans};

pub use report::{
    BenchPlanner, BenchReport, Criterion, FLOOR_RATIO_ALLOWED, Floor, GENERATIONS,
    GENERATIONS_NEEDED, REPLAYS, Recovery, SPEEDUP_NEEDED, Trial,
};

/// The selector a bench puts in place of one action's: it matches nothing on any page.
pub const BROKEN_SELECTOR: &str = "[data-windup-bench=\"broken-selector\"]";

/// Model calls a bench needs at least: one answer per generation, and one re-plan.
pub const CALLS_NEEDED: usize = GENERATIONS + 1;

/// Why a bench could not be made. Criteria that are not met are no error: they are in the
/// [`BenchReport`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BenchError {
    /// No such scenario, one that does not load, nothing to plan it with, a price file or a
    /// model client that cannot be used, a scratch directory that cannot be made.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Browser(#[from] BrowserError),
    /// The bench's model calls could go over a budget: none was made.
    #[error("{0}")]
    Budget(String),
    /// The scenario's start page could not be opened or read to price its prompt.
    #[error("{0}")]
    Failed(Box<Failure>),
}

/// What a bench tells as it goes, one line each.
#[derive(Debug, Clone, Copy)]
pub enum Progress<'a> {
    /// Who plans the generations.
    Planner(&'a BenchPlanner),
    Generation {
        number: usize,
        trial: &'a Trial,
    },
    Replay {
        number: usize,
        trial: &'a Trial,
    },
    Recovery(&'a Recovery),
}

impl std::fmt::Display for Progress<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Progress::Planner(planner) => write!(f, "planning with the {planner}"),
            Progress::Generation { number, trial } => {
                write!(f, "generation {number} of {GENERATIONS}: {}", said(trial))
            }
            Progress::Replay { number, trial } => {
                write!(f, "replay {number} of {REPLAYS}: {}", said(trial))
            }
            Progress::Recovery(recovery) => write!(
                f,
                "broken selector at {} ({} of {}): {}",
                recovery.action,
                recovery.position,
                recovery.of,
                said(&recovery.trial)
            ),
        }
    }
}

/// A trial in a few words: how it ended, its time, its model calls and their cost.
fn said(trial: &Trial) -> String {
    let ended = match &trial.failure {
        None if trial.passed => "passed".to_owned(),
        None => "failed".to_owned(),
        Some(why) => format!("failed ({why})"),
    };
    format!(
        "{ended} in {}, {} model {}, {}",
        report::seconds(trial.duration_ms as f64),
        trial.llm_calls,
        report::plural(trial.llm_calls, "call", "calls"),
        report::usd(trial.cost_usd)
    )
}

/// A bench of one scenario of the project, against `base_url`.
pub struct Bench {
    settings: Settings,
    base_url: Url,
    today: Date,
}

impl Bench {
    pub fn new(settings: Settings, base_url: Url) -> Self {
        Self {
            settings,
            base_url,
            today: OffsetDateTime::now_utc().date(),
        }
    }

    /// Prices model calls as of `today` (UTC) rather than the day it runs.
    pub fn priced_on(mut self, today: Date) -> Self {
        self.today = today;
        self
    }

    /// Runs the protocol on the scenario whose id is `scenario_id`, telling `progress` each
    /// step, and judges it.
    pub async fn run(
        &self,
        scenario_id: &str,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<BenchReport, BenchError> {
        let scenario = find_scenario(&self.settings, scenario_id)?;
        let planner = planner_for(&self.settings, &scenario)?;
        let settings = bench_settings(&self.settings);
        let scenario = match &planner {
            BenchPlanner::Model { .. } => for_model(&scenario),
            BenchPlanner::Offline => scenario,
        };
        if let Some(llm) = &settings.llm {
            check_calls(&scenario, &llm.limits)?;
        }
        let prices = PriceTable::for_project(&settings.root)
            .map_err(|err| BenchError::Usage(err.to_string()))?;
        let scratch = tempfile::Builder::new()
            .prefix("windup-bench-")
            .tempdir()
            .map_err(|err| {
                BenchError::Usage(format!("no scratch directory for the bench: {err}"))
            })?;
        let browser = Browser::launch(settings.browser_config()).await?;
        let stage = Stage {
            settings,
            base_url: &self.base_url,
            pool: SessionPool::new(browser, 1),
            prices,
            today: self.today,
            scenario: Arc::new(scenario),
            scratch: scratch.path().to_owned(),
        };
        progress(Progress::Planner(&planner));
        let measured = stage.measure(planner, progress).await;
        stage.pool.close().await;
        measured
    }
}

/// The scenario of the project with this id.
fn find_scenario(settings: &Settings, id: &str) -> Result<Scenario, BenchError> {
    let loaded = crate::run::suite::load_scenarios(settings)
        .map_err(|err| BenchError::Usage(err.to_string()))?;
    let mut ids = Vec::new();
    for scenario in loaded {
        match scenario {
            Ok(scenario) if scenario.id == id => return Ok(scenario),
            Ok(scenario) => ids.push(scenario.id),
            Err(unloadable) if file_id(&unloadable.file, &settings.scenarios_dir) == id => {
                return Err(BenchError::Usage(format!(
                    "scenario {id:?} does not load: {}",
                    unloadable.error
                )));
            }
            Err(_) => {}
        }
    }
    let names: Vec<&str> = ids.iter().map(String::as_str).collect();
    let hint = match crate::model::steps::suggest::closest(id, &names) {
        Some(near) => format!("did you mean {near:?}?"),
        None => format!("the scenarios are: {}", names.join(", ")),
    };
    Err(BenchError::Usage(format!(
        "no scenario {id:?} in {}: {hint} (a bench takes a scenario's id, as `cargo windup run` \
         shows it)",
        relative(&settings.scenarios_dir).display()
    )))
}

/// A scenario file's default id: its path under the scenarios directory, without extension.
fn file_id(file: &Path, dir: &Path) -> String {
    let under = file.strip_prefix(dir).unwrap_or(file);
    under.with_extension("").to_string_lossy().into_owned()
}

/// The configured model when there is one; else the offline planner, which needs steps.
fn planner_for(settings: &Settings, scenario: &Scenario) -> Result<BenchPlanner, BenchError> {
    if let Some(llm) = &settings.llm {
        let client = crate::llm::client(llm)
            .map_err(|err| BenchError::Usage(format!("scenario {:?}: {err}", scenario.id)))?;
        return Ok(BenchPlanner::Model {
            provider: client.provider().to_owned(),
            model: client.model().to_owned(),
        });
    }
    if scenario.steps.is_empty() {
        return Err(BenchError::Usage(format!(
            "scenario {:?} ({}) has no steps and no model is configured, so nothing can plan it: \
             add [llm] to windup.toml (see docs/llm.md) to bench the model planner, or give the \
             scenario explicit `steps:` to bench the offline one",
            scenario.id,
            scenario.path.display()
        )));
    }
    Ok(BenchPlanner::Offline)
}

/// The project's settings as a bench runs: one answer per plan (a generation is valid on the
/// model's first answer, or not), planning allowed whatever `WINDUP_UPDATE` says (a bench writes
/// no plan), and no reports.
fn bench_settings(settings: &Settings) -> Settings {
    let mut bench = settings.clone();
    bench.update = UpdateMode::Auto;
    bench.reports = Reports::default();
    if let Some(llm) = &mut bench.llm {
        llm.limits.semantic_retries = 0;
    }
    bench
}

/// The scenario as the model plans it: its steps, if any, become hints, in order, so that the
/// model plans it — guided by what its author wrote — rather than the offline planner.
fn for_model(scenario: &Scenario) -> Scenario {
    let mut model = scenario.clone();
    let steps = std::mem::take(&mut model.steps);
    let of = steps.len();
    for (number, step) in steps.iter().enumerate() {
        model.hints.push(format!(
            "step {} of {of}, as the author wrote it: {}",
            number + 1,
            step.text
        ));
    }
    model
}

/// Refuses a bench whose calls the call budgets cannot hold, before anything runs.
fn check_calls(scenario: &Scenario, limits: &LlmLimits) -> Result<(), BenchError> {
    let problem = if limits.max_calls_per_scenario < 1 {
        Some("every plan needs one model call, and `max_calls_per_scenario` is 0".to_owned())
    } else if (limits.max_calls_per_run as usize) < CALLS_NEEDED {
        Some(format!(
            "it needs {CALLS_NEEDED} model calls ({GENERATIONS} generations and one re-plan, one \
             answer each), and `max_calls_per_run` allows {}",
            limits.max_calls_per_run
        ))
    } else {
        None
    };
    within_limits(scenario, problem)
}

/// A bench refused for a limit of `[llm]` it goes over (`problem`), if any.
fn within_limits(scenario: &Scenario, problem: Option<String>) -> Result<(), BenchError> {
    match problem {
        None => Ok(()),
        Some(problem) => Err(refused(
            scenario,
            &problem,
            "raise it under [llm] in windup.toml",
        )),
    }
}

/// A bench refused for its budget: what it needs, and what to do.
fn refused(scenario: &Scenario, problem: &str, what_to_do: &str) -> BenchError {
    BenchError::Budget(format!(
        "the bench of scenario {:?} ({}) was refused before any model call: {problem}; \
         {what_to_do}, and run it again",
        scenario.id,
        scenario.path.display()
    ))
}

/// The plan with the selector of its middle targeted action replaced by [`BROKEN_SELECTOR`],
/// and that action's 1-based position; `None` when no action has a target.
pub fn break_one_selector(plan: &Plan) -> Option<(usize, Plan)> {
    let targeted: Vec<usize> = plan
        .actions
        .iter()
        .enumerate()
        .filter(|(_, action)| action.target.is_some())
        .map(|(index, _)| index)
        .collect();
    let index = *targeted.get(targeted.len() / 2)?;
    let mut broken = plan.clone();
    if let Some(target) = broken.actions[index].target.as_mut() {
        target.selector = BROKEN_SELECTOR.to_owned();
    }
    Some((index + 1, broken))
}

/// What every run of one bench shares.
struct Stage<'a> {
    /// The bench's settings ([`bench_settings`]).
    settings: Settings,
    base_url: &'a Url,
    /// One session: the runs are measured one at a time.
    pool: SessionPool,
    prices: PriceTable,
    today: Date,
    scenario: Arc<Scenario>,
    /// The bench's own plan caches, one directory each.
    scratch: PathBuf,
}

impl Stage<'_> {
    async fn measure(
        &self,
        planner: BenchPlanner,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<BenchReport, BenchError> {
        if let BenchPlanner::Model { .. } = planner {
            self.check_usd().await?;
        }
        let (generations, passing) = self.generations(progress).await;
        let (replays, floor, recovery) = match passing {
            Some((plan, cache)) => {
                let (replays, floor) = self.replays(&plan, &cache, progress).await?;
                let recovery = self.recovery(&plan, &cache, progress).await?;
                (replays, Some(floor), recovery)
            }
            None => (Vec::new(), None, None),
        };
        Ok(BenchReport::new(
            &self.scenario.id,
            self.base_url.as_str(),
            planner,
            generations,
            replays,
            recovery,
            floor,
        ))
    }

    /// Refuses a bench whose calls could cost more than the USD budgets allow, at worst: the
    /// first prompt is made on the live start page, as planning makes it, and priced.
    async fn check_usd(&self) -> Result<(), BenchError> {
        let Some(llm) = &self.settings.llm else {
            return Ok(());
        };
        let cache = PlanCache::at(&self.scratch.join("budget"));
        let events = Events::new(Vec::new());
        let context = self.context(&self.settings, &events, &cache);
        let scenario = &self.scenario;
        let worst = runner::worst_model_call(context, scenario)
            .await
            .map_err(|failure| match failure.class() {
                FailureClass::Budget => refused(
                    scenario,
                    &failure.to_string(),
                    "price the model in windup-prices.toml (docs/llm.md)",
                ),
                _ => BenchError::Failed(Box::new(failure)),
            })?;
        let limits = &llm.limits;
        let all = worst * CALLS_NEEDED as f64;
        let problem = if worst > limits.max_usd_per_scenario {
            Some(format!(
                "one plan could cost up to ${worst:.4}, and `max_usd_per_scenario` is ${:.2}",
                limits.max_usd_per_scenario
            ))
        } else if all > limits.max_usd_per_run {
            Some(format!(
                "its {CALLS_NEEDED} model calls ({GENERATIONS} generations and one re-plan) could \
                 cost up to ${all:.4} (${worst:.4} each), and `max_usd_per_run` is ${:.2}",
                limits.max_usd_per_run
            ))
        } else {
            None
        };
        within_limits(scenario, problem)
    }

    /// Plans the scenario from scratch [`GENERATIONS`] times, each in a cache of its own; the
    /// first plan that passed comes back with its cache.
    async fn generations(
        &self,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> (Vec<Trial>, Option<(Plan, PlanCache)>) {
        let mut trials = Vec::with_capacity(GENERATIONS);
        let mut passing = None;
        for number in 1..=GENERATIONS {
            let cache = PlanCache::at(&self.scratch.join(format!("generation-{number}")));
            let (result, _) = self.run(&self.settings, &cache).await;
            let trial = Trial::of(&result, &self.prices, self.today);
            progress(Progress::Generation {
                number,
                trial: &trial,
            });
            if passing.is_none()
                && result.passed()
                && let Some(plan) = &result.details.plan
            {
                passing = Some((plan.clone(), cache));
            }
            trials.push(trial);
        }
        (trials, passing)
    }

    /// Replays `plan` from `cache` [`REPLAYS`] times. A replay that fails is not planned again
    /// (the runs are read-only), and the plan is put back before the next. After each, the
    /// browser's floor for the same flow: the plan by WebDriver's own commands alone, on a session
    /// of the same pool, timed as a replay is from its session's reset.
    async fn replays(
        &self,
        plan: &Plan,
        cache: &PlanCache,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<(Vec<Trial>, Floor), BenchError> {
        let mut read_only = self.settings.clone();
        read_only.update = UpdateMode::No;
        let mut trials = Vec::with_capacity(REPLAYS);
        let mut floor = Floor::default();
        for number in 1..=REPLAYS {
            self.seed(cache, plan)?;
            let (result, _) = self.run(&read_only, cache).await;
            let trial = Trial::of(&result, &self.prices, self.today);
            progress(Progress::Replay {
                number,
                trial: &trial,
            });
            trials.push(trial);
            if floor.failure.is_none() {
                match self.floor(plan).await {
                    Ok(ms) => floor.runs_ms.push(ms),
                    Err(why) => floor.failure = Some(why),
                }
            }
        }
        Ok((trials, floor))
    }

    /// One run of the browser's floor for `plan`, in milliseconds from its session's reset.
    async fn floor(&self, plan: &Plan) -> Result<u64, String> {
        let started = std::time::Instant::now();
        let lease = self.pool.acquire().await.map_err(|e| e.to_string())?;
        let options = runner::exec_options(&self.settings, self.base_url);
        let accounts = Accounts::for_scenario(&self.settings, &self.scenario);
        let ran = floor::floor(lease.session(), &options, &accounts, plan).await;
        if ran.is_err() {
            lease.discard();
        }
        ran.map(|_| millis(started.elapsed()))
    }

    /// Runs `plan` with one selector broken, as the cache's active plan, and sees what the
    /// runner makes of it.
    async fn recovery(
        &self,
        plan: &Plan,
        cache: &PlanCache,
        progress: &mut dyn FnMut(Progress<'_>),
    ) -> Result<Option<Recovery>, BenchError> {
        let Some((position, broken)) = break_one_selector(plan) else {
            return Ok(None);
        };
        self.seed(cache, &broken)?;
        let (result, failed_at) = self.run(&self.settings, cache).await;
        let recovery = Recovery {
            action: broken.actions[position - 1].id.clone(),
            position,
            of: broken.actions.len(),
            failed_at,
            replan: result.details.replan,
            trial: Trial::of(&result, &self.prices, self.today),
        };
        progress(Progress::Recovery(&recovery));
        Ok(Some(recovery))
    }

    /// Makes `plan` the active plan of the scenario in `cache`.
    fn seed(&self, cache: &PlanCache, plan: &Plan) -> Result<(), BenchError> {
        let scenario = &self.scenario;
        let key = CacheKey::new(&scenario.id, &scenario.start_url);
        cache
            .save(&CacheEntry::new(key, &scenario.hash, plan.clone()))
            .map_err(|err| BenchError::Usage(format!("the bench's scratch cache: {err}")))
    }

    /// One run of the scenario by the runner, with `cache` as its plan cache; its ledger record
    /// is of kind `bench`. Comes back with the position of the first action that failed.
    async fn run(
        &self,
        settings: &Settings,
        cache: &PlanCache,
    ) -> (Arc<ScenarioResult>, Option<usize>) {
        let failed_at = Arc::new(Mutex::new(None));
        let first = Arc::clone(&failed_at);
        let events = Events::new(vec![
            Box::new(LedgerReporter::new(settings).of_kind(RecordKind::Bench)),
            Box::new(move |event: &RunEvent| {
                if let RunEvent::ActionFinished {
                    passed: false,
                    action,
                    ..
                } = event
                {
                    first
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(action.position);
                }
            }),
        ]);
        let result = runner::run_in(self.context(settings, &events, cache), &self.scenario).await;
        let failed_at = *failed_at.lock().unwrap_or_else(|p| p.into_inner());
        (result, failed_at)
    }

    fn context<'c>(
        &'c self,
        settings: &'c Settings,
        events: &'c Events,
        cache: &'c PlanCache,
    ) -> Context<'c> {
        Context {
            pool: &self.pool,
            settings,
            base_url: self.base_url,
            events,
            plans: Plans::Bench(cache),
        }
    }
}
