//! Running scenarios: one at a time on a session, or a suite on a pool of browser workers.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use time::OffsetDateTime;

use tokio::sync::{Semaphore, SemaphorePermit};
use url::Url;

use crate::browser::{Browser, BrowserError, Session};
use crate::cache::{CacheEntry, CacheError, CacheKey, PlanCache};
use crate::config::Settings;
use crate::config::UpdateMode;
use crate::executor::{ActionRecord, ExecOptions, Execution, Executor, FailureCause, StepFailure};
use crate::fragments::ProjectFragments;
use crate::ledger::{self, CacheOutcome, Ledger, Replan, RunRecord};
use crate::lockfile::{self, Written};
use crate::plan::Plan;
use crate::planner::llm::{ModelPlanFailure, ModelPlanner, RunSpend};
use crate::planner::prompt::Redactor;
use crate::planner::{OfflinePlanner, PlannedRun};
use crate::scenario::Scenario;
use crate::secrets::Accounts;
use crate::signature::PageVisit;

/// The outcome of one scenario.
#[derive(Debug)]
pub struct ScenarioResult {
    pub id: String,
    pub duration: Duration,
    pub outcome: Outcome,
    /// What the run did, for reports: the plan, its actions, model calls, pages.
    pub details: RunDetails,
}

/// Passed with the number of actions run and what the plan cache did, or failed with a message a
/// person can act on.
#[derive(Debug)]
pub enum Outcome {
    Passed {
        actions: usize,
        cache: CacheOutcome,
        /// Where a new or changed plan now waits for review, if one does.
        pending: Option<PathBuf>,
    },
    Failed {
        message: String,
        class: FailureClass,
    },
}

/// Why a scenario failed, in classes the CLI maps to exit codes and the ledger records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

impl ScenarioResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Passed { .. })
    }

    /// What the plan cache did: a failed run is a re-plan when it planned again after a
    /// replay failed, a miss otherwise.
    pub fn cache(&self) -> CacheOutcome {
        match &self.outcome {
            Outcome::Passed { cache, .. } => *cache,
            Outcome::Failed { .. } if self.details.replanned => CacheOutcome::Replanned,
            Outcome::Failed { .. } => CacheOutcome::Miss,
        }
    }

    /// The failure message, when it failed.
    pub fn failure(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Failed { message, .. } => Some(message),
            Outcome::Passed { .. } => None,
        }
    }
}

/// What a suite's workers share: browser sessions, at most `size` at once, each reused (and
/// reset) from one scenario to the next; and what the run's model calls have spent.
#[derive(Debug)]
pub struct SessionPool {
    browser: Browser,
    idle: Mutex<Vec<Session>>,
    permits: Semaphore,
    spend: RunSpend,
}

impl SessionPool {
    pub fn new(browser: Browser, size: usize) -> Self {
        Self {
            browser,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(size.max(1)),
            spend: RunSpend::default(),
        }
    }

    /// What this run's model calls have spent, against `max_calls_per_run` and
    /// `max_usd_per_run`.
    pub fn spend(&self) -> &RunSpend {
        &self.spend
    }

    /// A session to run one scenario on: an idle one reset, or a new one.
    pub async fn acquire(&self) -> Result<PooledSession<'_>, BrowserError> {
        let permit = self
            .permits
            .acquire()
            .await
            .expect("the pool's semaphore is never closed");
        let idle = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let session = match idle {
            Some(session) => match session.reset().await {
                Ok(()) => session,
                // A session that cannot be reset is replaced, not reused.
                Err(_) => self.browser.new_session().await?,
            },
            None => self.browser.new_session().await?,
        };
        Ok(PooledSession {
            pool: self,
            session: Some(session),
            _permit: permit,
        })
    }

    /// Closes every idle session.
    pub async fn close(&self) {
        let sessions = std::mem::take(&mut *self.idle.lock().unwrap_or_else(|p| p.into_inner()));
        for session in sessions {
            let _ = session.close().await;
        }
    }
}

/// A session on loan from the pool; it goes back when dropped (or is dropped with it when it
/// is known to be broken).
pub struct PooledSession<'a> {
    pool: &'a SessionPool,
    session: Option<Session>,
    _permit: SemaphorePermit<'a>,
}

impl PooledSession<'_> {
    pub fn session(&self) -> &Session {
        self.session.as_ref().expect("present until drop")
    }

    /// Drops the session instead of returning it: its browser is gone.
    pub fn discard(mut self) {
        self.session.take();
    }
}

impl Drop for PooledSession<'_> {
    fn drop(&mut self) {
        if let Some(session) = self.session.take() {
            self.pool
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(session);
        }
    }
}

/// The executor options a suite runs scenarios with.
pub fn exec_options(settings: &Settings, base_url: &Url) -> ExecOptions {
    let mut options = ExecOptions::new(base_url.clone());
    options.default_timeout = settings.timeout;
    options.artifacts_dir = settings.artifacts_dir.clone();
    options.allowed_origins = settings.allowed_origins.clone();
    options.filmstrip = settings.reports.html.is_some();
    options
}

/// Runs one scenario on a session from the pool: replays its cached plan (or, on a cold cache, its
/// lockfile); when there is none, or the replay fails, plans it — unless this run is read-only.
/// A plan is saved only after a complete, verified run, and every run is written to the ledger.
pub async fn run_scenario(
    pool: &SessionPool,
    settings: &Settings,
    base_url: &Url,
    scenario: &Scenario,
) -> ScenarioResult {
    let started = Instant::now();
    let started_at = ledger::started_at(OffsetDateTime::now_utc());
    let mut log = RunDetails::default();
    let (outcome, replan) = match account_problem(settings, scenario) {
        Some(problem) => (
            Outcome::Failed {
                message: problem,
                class: FailureClass::Setup,
            },
            None,
        ),
        None => match pool.acquire().await {
            Ok(lease) => {
                let (outcome, replan, browser_gone) = run_on(Run {
                    session: lease.session(),
                    pool,
                    settings,
                    base_url,
                    scenario,
                    started,
                    log: &mut log,
                })
                .await;
                if browser_gone {
                    lease.discard();
                }
                (outcome, replan)
            }
            Err(err) => (
                Outcome::Failed {
                    message: format!("scenario {:?}: {err}", scenario.id),
                    class: FailureClass::Setup,
                },
                None,
            ),
        },
    };
    if matches!(outcome, Outcome::Passed { .. }) {
        // A failure on the way (a replay that was re-planned) is not the outcome.
        log.failed_step = None;
        log.screenshot = None;
    }
    log.replanned = replan.is_some();
    let result = ScenarioResult {
        id: scenario.id.clone(),
        duration: started.elapsed(),
        outcome,
        details: log,
    };
    record(settings, &result, &started_at, replan);
    result
}

/// Where a replayed plan came from; a cached plan with the start page's signature when made.
enum Source {
    Cache(Option<String>),
    Lockfile,
}

/// What a run did besides its outcome: for its ledger record and for reports.
#[derive(Debug, Default, Clone)]
pub struct RunDetails {
    /// Every page reached, in order.
    pub pages: Vec<PageVisit>,
    /// Every model call, attempt by attempt.
    pub llm_calls: Vec<ledger::LlmCall>,
    /// The plan that ran last, and its actions as far as they ran.
    pub plan: Option<Plan>,
    pub actions: Vec<ActionRecord>,
    /// When a step failed: the step, as written or as the plan has it, and the screenshot.
    pub failed_step: Option<String>,
    pub screenshot: Option<PathBuf>,
    /// Whether the run planned again after a replay failed.
    pub replanned: bool,
}

impl RunDetails {
    /// Keeps what a run that planned did.
    fn planned(&mut self, scenario: &Scenario, planned: &Result<PlannedRun, Unplanned>) {
        match planned {
            Ok(run) => {
                self.plan = Some(run.plan.clone());
                self.actions = run.execution.actions.clone();
            }
            Err(Unplanned::Step(failure)) => self.failed(scenario, failure),
            Err(Unplanned::Failed { .. }) => {}
        }
    }

    /// Keeps where a step failed.
    fn failed(&mut self, scenario: &Scenario, failure: &StepFailure) {
        self.failed_step = Some(step_of(scenario, failure));
        self.screenshot = failure.screenshot.clone();
    }
}

/// The step a failure happened at, as the scenario writes it, or the plan's action.
fn step_of(scenario: &Scenario, failure: &StepFailure) -> String {
    let written = failure
        .action_id
        .strip_prefix('s')
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| scenario.steps.get(n.wrapping_sub(1)));
    match written {
        Some(step) => format!("{} ({}:{})", step.text, shown(&scenario.path), step.line),
        None if failure.position == 0 => format!("open {}", scenario.start_url),
        None => {
            let kind = failure.kind.map(|k| k.as_str()).unwrap_or("action");
            match &failure.selector {
                Some(selector) => format!("{} {kind} {selector}", failure.action_id),
                None => format!("{} {kind}", failure.action_id),
            }
        }
    }
}

/// One scenario's run on a leased session.
struct Run<'a> {
    session: &'a Session,
    pool: &'a SessionPool,
    settings: &'a Settings,
    base_url: &'a Url,
    scenario: &'a Scenario,
    started: Instant,
    log: &'a mut RunDetails,
}

/// The run itself; the third value says the browser is gone and the session must not be reused.
async fn run_on(run: Run<'_>) -> (Outcome, Option<Replan>, bool) {
    let Run {
        session,
        pool,
        settings,
        base_url,
        scenario,
        started,
        log,
    } = run;
    let setup_failure = |message: String| {
        (
            Outcome::Failed {
                message,
                class: FailureClass::Setup,
            },
            None,
            false,
        )
    };
    let options = exec_options(settings, base_url);
    let values = Accounts::for_scenario(settings, scenario);
    let fragments = ProjectFragments::new(settings);
    let executor = Executor::new(session, &options, &values).with_fragments(&fragments);
    let cache = PlanCache::new(&settings.root);
    let key = CacheKey::new(&scenario.id, &scenario.start_url);

    // Looked up by scenario and start path only: a start page whose structure changed is a
    // reason to suspect the plan, not to throw it away unseen — the replay is fail-closed, and
    // says so in its evidence when it fails.
    let found = match cache.lookup(&key, &scenario.hash) {
        Ok(Some(entry)) => Some((entry.plan, Source::Cache(entry.key.start_sig))),
        Ok(None) => match lockfile::read(&lockfile::lockfile_path(&scenario.path)) {
            Ok(Some(plan)) if plan.scenario_id == scenario.id && plan.task == scenario.task => {
                Some((plan, Source::Lockfile))
            }
            Ok(_) => None,
            Err(err) => return setup_failure(format!("scenario {:?}: {err}", scenario.id)),
        },
        Err(err) => return setup_failure(format!("scenario {:?}: {err}", scenario.id)),
    };

    let mut replan = None;
    if let Some((plan, source)) = found {
        let replayed = replay(&executor, scenario, &plan).await;
        log.plan = Some(plan.clone());
        match &replayed {
            Ok(run) => log.actions = run.actions.clone(),
            Err(failure) => log.failed(scenario, failure),
        }
        let replay_pages = executor.take_visits();
        log.pages.extend(replay_pages.iter().cloned());
        let key = key.with_start_sig(start_sig(&replay_pages));
        let failure = match replayed {
            Ok(run) => {
                let actions = run.actions.len();
                let saved = match source {
                    // A lockfile seeds a cold cache once it has passed here.
                    Source::Lockfile => {
                        cache.save(&CacheEntry::new(key.clone(), &scenario.hash, plan))
                    }
                    Source::Cache(_) => Ok(()),
                };
                let recorded = saved.and_then(|()| {
                    vanished_is_fine(cache.record_run(
                        &key,
                        true,
                        &ledger::started_at(OffsetDateTime::now_utc()),
                        millis(started),
                    ))
                });
                if let Err(err) = recorded {
                    return setup_failure(format!("scenario {:?}: {err}", scenario.id));
                }
                let outcome = Outcome::Passed {
                    actions,
                    cache: CacheOutcome::Hit,
                    pending: None,
                };
                return (outcome, None, false);
            }
            Err(failure) => failure,
        };
        // A browser that is gone, or a site that is down, says nothing about the plan: it stays
        // active, and nothing is planned (on the browser's error page).
        let gone = matches!(
            failure.cause,
            FailureCause::Browser(BrowserError::Lost { .. })
        );
        if gone || matches!(failure.cause, FailureCause::Navigation(_)) {
            let outcome = Outcome::Failed {
                message: explain(scenario, &failure),
                class: class_of(&failure),
            };
            return (outcome, None, gone);
        }
        let mut evidence = explain(scenario, &failure);
        if let Source::Cache(Some(planned)) = &source
            && let Some(now) = &key.start_sig
            && planned != now
        {
            evidence.push_str(&format!(
                "\n  the start page's structure changed since the plan was made (signature {} is \
                 now {})",
                short(planned),
                short(now)
            ));
        }
        if let FailureCause::Fragment { name, .. } = &failure.cause {
            // The scenario's plan holds; the fragment it uses is planned again where it is used.
            if let Err(err) = fragments.broken(name, &evidence) {
                return setup_failure(format!("scenario {:?}: {err}", scenario.id));
            }
        } else if matches!(source, Source::Cache(_))
            && let Err(err) = vanished_is_fine(cache.mark_stale(&key, &evidence))
        {
            return setup_failure(format!("scenario {:?}: {err}", scenario.id));
        }
        if settings.update == UpdateMode::No {
            return read_only(scenario, "its plan no longer works", Some(&evidence));
        }
        // Re-plan from the point of failure when nothing was done at the failing step (the gate
        // refused it), so the page is where the verified prefix left it; otherwise from the start.
        let kept = failure.position.saturating_sub(1);
        let from_failure = matches!(failure.cause, FailureCause::NotActionable { .. })
            && kept > 0
            && plan_follows_steps(&plan, scenario, kept);
        let (planned, key) = if from_failure {
            replan = Some(Replan::FromStep { index: kept });
            let planned = OfflinePlanner
                .plan_from(
                    scenario,
                    &executor,
                    plan.actions[..kept].to_vec(),
                    Instant::now(),
                )
                .await
                .map_err(Unplanned::Step);
            // The kept prefix started on the replay's start page.
            log.pages.extend(executor.take_visits());
            (planned, key)
        } else {
            replan = Some(Replan::Full);
            if let Err(err) = session.reset().await {
                return setup_failure(format!("scenario {:?}: {err}", scenario.id));
            }
            let (planned, sig) = plan_anew(scenario, &executor, settings, pool, &values, log).await;
            (planned, key.with_start_sig(sig))
        };
        log.planned(scenario, &planned);
        let finished = finish_planned(
            planned,
            &cache,
            key,
            settings,
            scenario,
            CacheOutcome::Replanned,
            replan,
            started,
        );
        return with_fragment_pending(finished, &fragments);
    }

    if settings.update == UpdateMode::No {
        return read_only(scenario, "it has no plan yet", None);
    }
    let (planned, sig) = plan_anew(scenario, &executor, settings, pool, &values, log).await;
    log.planned(scenario, &planned);
    let finished = finish_planned(
        planned,
        &cache,
        key.with_start_sig(sig),
        settings,
        scenario,
        CacheOutcome::Miss,
        replan,
        started,
    );
    with_fragment_pending(finished, &fragments)
}

/// A passing run that left no plan of its own for review but a fragment's says where that is.
fn with_fragment_pending(
    finished: (Outcome, Option<Replan>, bool),
    fragments: &ProjectFragments,
) -> (Outcome, Option<Replan>, bool) {
    match finished {
        (
            Outcome::Passed {
                actions,
                cache,
                pending: None,
            },
            replan,
            gone,
        ) => {
            let pending = fragments.pending().first().map(|path| relative(path));
            (
                Outcome::Passed {
                    actions,
                    cache,
                    pending,
                },
                replan,
                gone,
            )
        }
        other => other,
    }
}

/// Why planning gave no plan.
enum Unplanned {
    /// A step failed while planning ran it.
    Step(Box<StepFailure>),
    /// Planning could not go on, for this reason.
    Failed {
        message: String,
        class: FailureClass,
    },
}

/// Plans a scenario from its start page: explicit steps offline, a task alone with the
/// configured model. The pages it reaches and its model calls go to `log`; the start page's
/// signature comes back with the plan.
async fn plan_anew(
    scenario: &Scenario,
    executor: &Executor<'_>,
    settings: &Settings,
    pool: &SessionPool,
    accounts: &Accounts,
    log: &mut RunDetails,
) -> (Result<PlannedRun, Unplanned>, Option<String>) {
    let planned = plan_with(scenario, executor, settings, pool, accounts, log).await;
    let pages = executor.take_visits();
    let sig = start_sig(&pages);
    log.pages.extend(pages);
    (planned, sig)
}

async fn plan_with(
    scenario: &Scenario,
    executor: &Executor<'_>,
    settings: &Settings,
    pool: &SessionPool,
    accounts: &Accounts,
    log: &mut RunDetails,
) -> Result<PlannedRun, Unplanned> {
    if !scenario.steps.is_empty() {
        return OfflinePlanner
            .plan(scenario, executor)
            .await
            .map_err(Unplanned::Step);
    }
    let setup = |message: String| Unplanned::Failed {
        message,
        class: FailureClass::Setup,
    };
    let Some(llm) = &settings.llm else {
        return Err(setup(format!(
            "scenario {:?} ({}) has only a task, and no model is configured to plan it: add \
             [llm] to windup.toml (see docs/llm.md), or give the scenario explicit `steps:`",
            scenario.id,
            scenario.path.display()
        )));
    };
    let client = crate::llm::client(llm)
        .map_err(|err| setup(format!("scenario {:?}: {err}", scenario.id)))?;
    let prices = ledger::PriceTable::for_project(&settings.root)
        .map_err(|err| setup(format!("scenario {:?}: {err}", scenario.id)))?;
    let account_keys: Vec<String> = scenario
        .account
        .as_ref()
        .and_then(|name| settings.accounts.get(name))
        .map(|keys| keys.keys().cloned().collect())
        .unwrap_or_default();
    let planner = ModelPlanner {
        client: client.as_ref(),
        limits: &llm.limits,
        prices: &prices,
        run_spend: pool.spend(),
        account_keys,
        redactor: Redactor::new(accounts.named()),
        fragments: executor.fragments().catalogue(),
        prompts_dir: Some(settings.root.join(".windup").join("prompts")),
    };
    let planned = planner.plan(scenario, executor).await;
    log.llm_calls.extend(planned.calls);
    planned.planned.map_err(|failure| match failure {
        ModelPlanFailure::Step(step) => Unplanned::Step(step),
        ModelPlanFailure::Budget(message) => Unplanned::Failed {
            message,
            class: FailureClass::Budget,
        },
        ModelPlanFailure::Provider(err) => setup(format!(
            "scenario {:?} ({}): {err}",
            scenario.id,
            scenario.path.display()
        )),
        ModelPlanFailure::NoWorkingPlan(message) => Unplanned::Failed {
            message,
            class: FailureClass::Step,
        },
    })
}

/// Replays a plan, then checks the scenario's own expectations, whatever the plan was.
async fn replay(
    executor: &Executor<'_>,
    scenario: &Scenario,
    plan: &Plan,
) -> Result<Execution, Box<StepFailure>> {
    let run = executor.run(plan).await?;
    if let Some(last) = plan.actions.last() {
        OfflinePlanner
            .check_expectations(scenario, last, executor)
            .await?;
    }
    Ok(run)
}

/// Whether a plan's first `kept` actions are the scenario's first steps, one action per step, as
/// the offline planner makes them — the condition for keeping them and planning on from there.
fn plan_follows_steps(plan: &Plan, scenario: &Scenario, kept: usize) -> bool {
    plan.actions.len() == scenario.steps.len()
        && plan.actions[..kept]
            .iter()
            .enumerate()
            .all(|(i, action)| action.id == format!("s{}", i + 1))
}

/// The class of a step failure: a page that could not be opened is not the scenario's fault.
fn class_of(failure: &StepFailure) -> FailureClass {
    match failure.cause {
        FailureCause::Navigation(_) => FailureClass::Navigation,
        _ => FailureClass::Step,
    }
}

/// The signature of the page a run started on.
fn start_sig(pages: &[PageVisit]) -> Option<String> {
    pages.first().map(|page| page.sig.clone())
}

/// The first 12 hex digits of a signature, as a person compares them.
fn short(sig: &str) -> &str {
    sig.get(..12).unwrap_or(sig)
}

/// An entry another process cleared meanwhile (`cargo windup cache clear`) needs no stats.
fn vanished_is_fine(result: Result<(), CacheError>) -> Result<(), CacheError> {
    match result {
        Err(CacheError::NoActiveEntry { .. }) => Ok(()),
        other => other,
    }
}

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Saves a verified plan to the cache and records it for review; or reports why planning failed.
#[allow(clippy::too_many_arguments)]
fn finish_planned(
    planned: Result<PlannedRun, Unplanned>,
    cache: &PlanCache,
    key: CacheKey,
    settings: &Settings,
    scenario: &Scenario,
    outcome: CacheOutcome,
    replan: Option<Replan>,
    started: Instant,
) -> (Outcome, Option<Replan>, bool) {
    let run = match planned {
        Ok(run) => run,
        Err(Unplanned::Failed { message, class }) => {
            return (Outcome::Failed { message, class }, replan, false);
        }
        Err(Unplanned::Step(failure)) => {
            let gone = matches!(
                failure.cause,
                FailureCause::Browser(BrowserError::Lost { .. })
            );
            let outcome = Outcome::Failed {
                message: explain(scenario, &failure),
                class: class_of(&failure),
            };
            return (outcome, replan, gone);
        }
    };
    let saved = cache
        .save(&CacheEntry::new(
            key.clone(),
            &scenario.hash,
            run.plan.clone(),
        ))
        .map_err(|e| e.to_string())
        .and_then(|()| {
            vanished_is_fine(cache.record_run(
                &key,
                true,
                &ledger::started_at(OffsetDateTime::now_utc()),
                millis(started),
            ))
            .map_err(|e| e.to_string())
        })
        .and_then(|()| {
            lockfile::record(&scenario.path, &run.plan, settings.update).map_err(|e| e.to_string())
        });
    match saved {
        Ok(written) => {
            let pending = match written {
                Written::Pending(path) => Some(relative(&path)),
                _ => None,
            };
            let outcome = Outcome::Passed {
                actions: run.execution.actions.len(),
                cache: outcome,
                pending,
            };
            (outcome, replan, false)
        }
        Err(message) => (
            Outcome::Failed {
                message: format!("scenario {:?}: {message}", scenario.id),
                class: FailureClass::Setup,
            },
            replan,
            false,
        ),
    }
}

/// The failure of a read-only run that would have had to plan, with what to run locally.
fn read_only(
    scenario: &Scenario,
    why: &str,
    evidence: Option<&str>,
) -> (Outcome, Option<Replan>, bool) {
    let lockfile = relative(&lockfile::lockfile_path(&scenario.path));
    let mut message = format!(
        "scenario {:?} needs planning ({why}), and this run is read-only (CI is set, or \
         WINDUP_UPDATE=no). Locally, run `cargo windup run {}`, review the plan with `cargo windup \
         review`, and commit {}",
        scenario.id,
        scenario.id,
        lockfile.display()
    );
    if let Some(evidence) = evidence {
        message.push_str(&format!(
            "\n  the replay failed:\n  {}",
            evidence.replace('\n', "\n  ")
        ));
    }
    (
        Outcome::Failed {
            message,
            class: FailureClass::ReadOnly,
        },
        None,
        false,
    )
}

/// One ledger record per scenario run. A ledger that cannot be written is said on stderr and
/// does not change the outcome.
fn record(settings: &Settings, result: &ScenarioResult, started_at: &str, replan: Option<Replan>) {
    let (outcome, failure_class) = match &result.outcome {
        Outcome::Passed { .. } => (ledger::Outcome::Passed, None),
        Outcome::Failed { class, .. } => (ledger::Outcome::Failed, Some(class.as_str().to_owned())),
    };
    let entry = RunRecord {
        run_id: ledger::new_run_id(),
        scenario_id: result.id.clone(),
        started_at: started_at.to_owned(),
        duration_ms: u64::try_from(result.duration.as_millis()).unwrap_or(u64::MAX),
        outcome,
        failure_class,
        cache: result.cache(),
        replan,
        llm_calls: result.details.llm_calls.clone(),
        pages: result.details.pages.clone(),
        kind: ledger::RecordKind::Run,
    };
    if let Err(err) = Ledger::new(&settings.root).append(&entry) {
        eprintln!("windup: the run ledger was not written: {err}");
    }
}

/// A scenario naming an account the configuration lacks fails before any browser work.
fn account_problem(settings: &Settings, scenario: &Scenario) -> Option<String> {
    let name = scenario.account.as_ref()?;
    if settings.accounts.contains_key(name) {
        return None;
    }
    Some(format!(
        "scenario {:?} ({}): account {name:?} is not configured; add [accounts.{name}] to windup.toml, \
         mapping each key to the environment variable that holds its value",
        scenario.id,
        scenario.path.display()
    ))
}

/// One scenario file, loaded or with the error that kept it from loading.
pub type Loaded = Result<Scenario, (PathBuf, crate::scenario::ScenarioError)>;

/// Every scenario file of the project, loaded, with paths as a person reads them; the error side
/// is a directory that cannot be read.
pub fn load_scenarios(settings: &Settings) -> Result<Vec<Loaded>, String> {
    let root = &settings.scenarios_dir;
    let files = crate::scenario::discover(root).map_err(|err| {
        format!(
            "cannot read the scenarios directory {}: {err}; create it, or set `scenarios` in windup.toml",
            root.display()
        )
    })?;
    Ok(files
        .into_iter()
        .map(|path| {
            crate::scenario::load(&relative(&path), &relative(root)).map_err(|err| (path, err))
        })
        .collect())
}

/// Whether the project's `ignore_tags` leave a scenario out unless asked for.
pub fn is_ignored(settings: &Settings, scenario: &Scenario) -> bool {
    scenario
        .tags
        .iter()
        .any(|tag| settings.ignore_tags.contains(tag))
}

/// A path as a person reads it: relative to the working directory when it is under it.
pub fn relative(path: &std::path::Path) -> std::path::PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            path.strip_prefix(cwd)
                .ok()
                .map(std::path::Path::to_path_buf)
        })
        .unwrap_or_else(|| path.to_path_buf())
}

fn shown(path: &std::path::Path) -> String {
    relative(path).display().to_string()
}

/// A step failure in the scenario's own terms: its file and line, the step as written, the
/// reason, the page and the screenshot.
pub fn explain(scenario: &Scenario, failure: &StepFailure) -> String {
    let step = failure
        .action_id
        .strip_prefix('s')
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| scenario.steps.get(n.wrapping_sub(1)).map(|s| (n, s)));
    let mut text = match step {
        Some((n, step)) => format!(
            "scenario {:?} failed at step {n} of {} ({}:{})\n  step: {}",
            scenario.id,
            scenario.steps.len(),
            shown(&scenario.path),
            step.line,
            step.text
        ),
        None if failure.position == 0 => format!(
            "scenario {:?} ({}) failed opening its start page {}",
            scenario.id,
            shown(&scenario.path),
            scenario.start_url
        ),
        None => format!(
            "scenario {:?} ({}) failed",
            scenario.id,
            scenario.path.display()
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

/// Runs scenarios on `workers` sessions at once, reporting each result as it comes.
pub async fn run_suite(
    pool: &SessionPool,
    settings: &Settings,
    base_url: &Url,
    scenarios: &[Scenario],
    workers: usize,
    on_result: &(dyn Fn(&ScenarioResult) + Sync),
) -> Vec<ScenarioResult> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(scenarios.len()));
    let worker = || async {
        loop {
            let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let Some(scenario) = scenarios.get(index) else {
                break;
            };
            let result = run_scenario(pool, settings, base_url, scenario).await;
            on_result(&result);
            results
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((index, result));
        }
    };
    let workers: Vec<_> = (0..workers.max(1)).map(|_| worker()).collect();
    // The workers borrow the suite's data, so they run concurrently on this task.
    futures::future::join_all(workers).await;
    let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    results.sort_by_key(|(index, _)| *index);
    results.into_iter().map(|(_, result)| result).collect()
}
