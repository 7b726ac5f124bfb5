//! One scenario's run on a session of the pool: replay its plan, or plan it, and say what
//! happened as events (docs/architecture.md#the-run-of-one-scenario).

use std::sync::Arc;
use std::time::Instant;

use time::OffsetDateTime;
use url::Url;

use crate::config::{Settings, UpdateMode};
use crate::engine::cache::{CacheEntry, CacheError, CacheKey, PlanCache};
use crate::engine::executor::{
    ActionEnd, ExecOptions, Execution, Executor, FailureCause, StepFailure, Watcher,
};
use crate::engine::fragments::ProjectFragments;
use crate::engine::ledger::{self, CacheOutcome, Replan};
use crate::engine::lockfile::{self, Written};
use crate::engine::planner::llm::{ModelPlanFailure, ModelPlanner};
use crate::engine::planner::prompt::Redactor;
use crate::engine::planner::{OfflinePlanner, PlannedRun};
use crate::engine::secret::Accounts;
use crate::engine::signature::PageVisit;
use crate::llm::{LlmClient, LlmSettings};
use crate::model::plan::{Action, Plan, PlannerKind};
use crate::model::scenario::Scenario;
use crate::run::events::{ActionInfo, Events, PlanChoice, RunEvent};
use crate::run::failure::{
    Evidence, Failure, FailureClass, NeedsPlanning, PlanningReason, StepAt, plan_follows_steps,
    relative,
};
use crate::run::outcome::{Outcome, RunDetails, ScenarioResult};
use crate::run::pool::SessionPool;

impl RunDetails {
    /// Keeps what a run that planned did.
    fn planned(&mut self, scenario: &Scenario, planned: &Result<PlannedRun, Unplanned>) {
        match planned {
            Ok(run) => {
                self.plan = Some(run.plan.clone());
                self.actions = run.execution.actions.clone();
            }
            Err(Unplanned::Step(failure)) => self.failed(scenario, failure),
            Err(Unplanned::Failed(_)) => {}
        }
    }

    /// Keeps where a step failed.
    fn failed(&mut self, scenario: &Scenario, failure: &StepFailure) {
        self.failed_step = Some(StepAt::of(scenario, failure).step_text(failure));
        self.screenshot = failure.screenshot.clone();
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

/// What every scenario of a run shares.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub pool: &'a SessionPool,
    pub settings: &'a Settings,
    pub base_url: &'a Url,
    pub events: &'a Events,
    pub plans: Plans<'a>,
}

/// Where a run finds and keeps its plans.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Plans<'a> {
    /// The project's cache, seeded from committed lockfiles; new plans are written for review.
    Project,
    /// A bench's own cache, apart from the project's: no lockfile is read or written (the
    /// fragments' included), and model calls are recorded as the bench's.
    Bench(&'a PlanCache),
}

impl Plans<'_> {
    fn cache(self, settings: &Settings) -> PlanCache {
        match self {
            Plans::Project => PlanCache::new(&settings.root),
            Plans::Bench(cache) => cache.clone(),
        }
    }

    fn lockfiles(self) -> bool {
        matches!(self, Plans::Project)
    }

    /// The purpose the ledger records model calls under.
    fn purpose(self) -> &'static str {
        match self {
            Plans::Project => "plan",
            Plans::Bench(_) => "bench",
        }
    }
}

/// Runs one scenario on a session from the pool, and writes its ledger record; see
/// [`crate::run::suite::Suite`] for a whole suite with reporters.
pub async fn run_scenario(
    pool: &SessionPool,
    settings: &Settings,
    base_url: &Url,
    scenario: &Scenario,
) -> Arc<ScenarioResult> {
    let events = Events::new(vec![Box::new(crate::run::report::LedgerReporter::new(
        settings,
    ))]);
    let context = Context {
        pool,
        settings,
        base_url,
        events: &events,
        plans: Plans::Project,
    };
    run_in(context, &Arc::new(scenario.clone())).await
}

/// Replays a scenario's cached plan (or, on a cold cache, its lockfile); when there is none, or
/// the replay fails, plans it — unless this run is read-only. A plan is saved only after a
/// complete, verified run. The run's events go to `context.events`, ending with
/// [`RunEvent::ScenarioFinished`].
pub(crate) async fn run_in(context: Context<'_>, scenario: &Arc<Scenario>) -> Arc<ScenarioResult> {
    context.events.emit(RunEvent::ScenarioStarted {
        scenario: Arc::clone(scenario),
    });
    let started = Instant::now();
    let started_at = ledger::started_at(OffsetDateTime::now_utc());
    let mut log = RunDetails::default();
    let outcome = match account_problem(context.settings, scenario) {
        Some(failure) => Outcome::Failed(failure),
        None => match context.pool.acquire().await {
            Ok(lease) => {
                let run = Run {
                    context,
                    session: lease.session(),
                    scenario,
                    started,
                };
                let outcome = run.run(&mut log).await;
                if matches!(&outcome, Outcome::Failed(failure) if failure.browser_lost()) {
                    lease.discard();
                }
                outcome
            }
            Err(err) => Outcome::Failed(Failure::setup(scenario, err)),
        },
    };
    if matches!(outcome, Outcome::Passed { .. }) {
        // A failure on the way (a replay that was re-planned) is not the outcome.
        log.failed_step = None;
        log.screenshot = None;
    }
    let result = Arc::new(ScenarioResult {
        id: scenario.id.clone(),
        started_at,
        duration: started.elapsed(),
        outcome,
        details: log,
    });
    context.events.emit(RunEvent::ScenarioFinished {
        scenario: Arc::clone(scenario),
        result: Arc::clone(&result),
    });
    result
}

/// Turns what the executor sees into the run's events.
struct EventWatcher<'a>(&'a Events);

impl Watcher for EventWatcher<'_> {
    fn action_started(&self, scenario: &str, action: &Action, position: usize, of: usize) {
        self.0.emit(RunEvent::ActionStarted {
            scenario: scenario.to_owned(),
            action: ActionInfo::new(action, position, of),
        });
    }

    fn action_finished(&self, scenario: &str, action: &Action, end: ActionEnd<'_>) {
        self.0.emit(RunEvent::ActionFinished {
            scenario: scenario.to_owned(),
            action: ActionInfo::new(action, end.position, end.of),
            passed: end.passed,
            duration_ms: millis(end.duration),
            screenshot: end.screenshot.map(ToOwned::to_owned),
        });
    }

    fn page_visited(&self, scenario: &str, page: &PageVisit) {
        self.0.emit(RunEvent::PageVisited {
            scenario: scenario.to_owned(),
            page: page.clone(),
        });
    }
}

/// Where a replayed plan came from; a cached plan with the start page's signature when made.
enum Source {
    Cache(Option<String>),
    Lockfile,
}

/// Why planning gave no plan.
enum Unplanned {
    /// A step failed while planning ran it.
    Step(Box<StepFailure>),
    /// Planning could not go on.
    Failed(Failure),
}

impl Unplanned {
    /// Why the model planner gave no plan, in the run's terms.
    fn of_model(scenario: &Scenario, failure: ModelPlanFailure) -> Self {
        match failure {
            ModelPlanFailure::Step(step) => Unplanned::Step(step),
            ModelPlanFailure::Budget(over) => Unplanned::Failed(Failure::Budget(Box::new(over))),
            ModelPlanFailure::Provider(source) => Unplanned::Failed(Failure::Provider {
                scenario: scenario.id.clone(),
                file: scenario.path.clone(),
                source: Box::new(source),
            }),
            ModelPlanFailure::NoWorkingPlan(message) => {
                Unplanned::Failed(Failure::NoWorkingPlan(message))
            }
        }
    }
}

/// One scenario's run on a leased session.
struct Run<'a> {
    context: Context<'a>,
    session: &'a crate::browser::Session,
    scenario: &'a Scenario,
    started: Instant,
}

/// What the run needs from its project for one scenario.
struct Tools<'a> {
    executor: Executor<'a>,
    fragments: &'a ProjectFragments,
    accounts: &'a Accounts,
    cache: PlanCache,
}

/// What [`Tools`] borrow, made for one scenario's run.
struct Parts {
    options: ExecOptions,
    accounts: Accounts,
    fragments: ProjectFragments,
    cache: PlanCache,
}

impl Parts {
    fn new(context: Context<'_>, scenario: &Scenario) -> Self {
        let settings = context.settings;
        let cache = context.plans.cache(settings);
        let fragments = if context.plans.lockfiles() {
            ProjectFragments::new(settings)
        } else {
            ProjectFragments::in_cache(settings, cache.clone())
        };
        Self {
            options: exec_options(settings, context.base_url),
            accounts: Accounts::for_scenario(settings, scenario),
            fragments,
            cache,
        }
    }

    fn tools<'a>(
        &'a self,
        session: &'a crate::browser::Session,
        watcher: &'a EventWatcher<'a>,
    ) -> Tools<'a> {
        Tools {
            executor: Executor::new(session, &self.options, &self.accounts)
                .with_fragments(&self.fragments)
                .watched_by(watcher),
            fragments: &self.fragments,
            accounts: &self.accounts,
            cache: self.cache.clone(),
        }
    }
}

/// What one model call planning `scenario` could cost at worst, in USD: its start page is opened
/// on a session of the pool and the first prompt made, as planning makes them; nothing is asked.
pub(crate) async fn worst_model_call(
    context: Context<'_>,
    scenario: &Scenario,
) -> Result<f64, Failure> {
    let lease = context
        .pool
        .acquire()
        .await
        .map_err(|err| Failure::setup(scenario, err))?;
    let run = Run {
        context,
        session: lease.session(),
        scenario,
        started: Instant::now(),
    };
    let parts = Parts::new(context, scenario);
    let watcher = EventWatcher(context.events);
    let tools = parts.tools(run.session, &watcher);
    run.worst_model_call(&tools)
        .await
        .map_err(|unplanned| match unplanned {
            Unplanned::Step(failure) => Failure::step(scenario, failure),
            Unplanned::Failed(failure) => failure,
        })
}

impl Run<'_> {
    async fn run(&self, log: &mut RunDetails) -> Outcome {
        let parts = Parts::new(self.context, self.scenario);
        let watcher = EventWatcher(self.context.events);
        let tools = parts.tools(self.session, &watcher);
        let outcome = match self.run_with(&tools, log).await {
            Ok(outcome) => outcome,
            Err(failure) => Outcome::Failed(failure),
        };
        with_fragment_pending(outcome, &parts.fragments)
    }

    async fn run_with(&self, tools: &Tools<'_>, log: &mut RunDetails) -> Result<Outcome, Failure> {
        let key = CacheKey::new(&self.scenario.id, &self.scenario.start_url);
        if let Some((plan, source)) = self.lookup(&tools.cache, &key)? {
            return self.replay_found(tools, key, plan, source, log).await;
        }
        if self.context.settings.update == UpdateMode::No {
            return Err(self.needs_planning(PlanningReason::NoPlan, None));
        }
        self.choose(PlanChoice::Planning {
            planner: self.planner(),
            replan: false,
        });
        let (planned, sig) = self.plan_anew(tools, log).await;
        log.planned(self.scenario, &planned);
        self.finish_planned(tools, key.with_start_sig(sig), planned, CacheOutcome::Miss)
    }

    /// The plan to replay: the cache's active one, or a committed lockfile. Looked up by
    /// scenario and start path only: a start page whose structure changed is a reason to suspect
    /// the plan, not to throw it away unseen — the replay is fail-closed, and says so in its
    /// evidence when it fails.
    fn lookup(&self, cache: &PlanCache, key: &CacheKey) -> Result<Option<(Plan, Source)>, Failure> {
        let scenario = self.scenario;
        let fail = |err: CacheError| Failure::setup(scenario, err);
        if let Some(entry) = cache.lookup(key, &scenario.hash).map_err(fail)? {
            return Ok(Some((entry.plan, Source::Cache(entry.key.start_sig))));
        }
        if !self.context.plans.lockfiles() {
            return Ok(None);
        }
        let plan = lockfile::read(&lockfile::lockfile_path(&scenario.path))
            .map_err(|err| Failure::setup(scenario, err))?;
        Ok(plan
            .filter(|plan| plan.scenario_id == scenario.id && plan.task == scenario.task)
            .map(|plan| (plan, Source::Lockfile)))
    }

    async fn replay_found(
        &self,
        tools: &Tools<'_>,
        key: CacheKey,
        plan: Plan,
        source: Source,
        log: &mut RunDetails,
    ) -> Result<Outcome, Failure> {
        self.choose(match source {
            Source::Cache(_) => PlanChoice::Cache,
            Source::Lockfile => PlanChoice::Lockfile,
        });
        let replayed = replay(&tools.executor, self.scenario, &plan).await;
        log.plan = Some(plan.clone());
        match &replayed {
            Ok(run) => log.actions = run.actions.clone(),
            Err(failure) => log.failed(self.scenario, failure),
        }
        let replay_pages = tools.executor.take_visits();
        log.pages.extend(replay_pages.iter().cloned());
        let key = key.with_start_sig(start_sig(&replay_pages));
        match replayed {
            Ok(run) => self.replay_passed(&tools.cache, &key, plan, &source, run.actions.len()),
            Err(failure) => {
                let broken = Broken {
                    key,
                    plan,
                    source,
                    failure,
                };
                self.replay_failed(tools, broken, log).await
            }
        }
    }

    fn replay_passed(
        &self,
        cache: &PlanCache,
        key: &CacheKey,
        plan: Plan,
        source: &Source,
        actions: usize,
    ) -> Result<Outcome, Failure> {
        let scenario = self.scenario;
        if let Source::Lockfile = source {
            // A lockfile seeds a cold cache once it has passed here.
            cache
                .save(&CacheEntry::new(key.clone(), &scenario.hash, plan))
                .map_err(|err| Failure::setup(scenario, err))?;
        }
        self.record_pass(cache, key)?;
        Ok(Outcome::Passed {
            actions,
            cache: CacheOutcome::Hit,
            pending: None,
        })
    }

    /// A replay failed: keep the evidence, then plan again — from the failing step when the
    /// page is where the verified prefix left it, otherwise from the start.
    async fn replay_failed(
        &self,
        tools: &Tools<'_>,
        broken: Broken,
        log: &mut RunDetails,
    ) -> Result<Outcome, Failure> {
        let scenario = self.scenario;
        let Broken {
            key,
            plan,
            source,
            failure,
        } = broken;
        // A browser that is gone, or a site that is down, says nothing about the plan: it stays
        // active, and nothing is planned (on the browser's error page).
        let stop = Failure::step(scenario, failure);
        if stop.browser_lost() || stop.class() == FailureClass::Navigation {
            return Err(stop);
        }
        let Failure::Step { at, failure } = stop else {
            unreachable!("made from a step failure just above")
        };
        // An audit finding's regression test is pinned: its failure is the verdict (the bug is
        // there), not a plan to mend, and the plan stays as it is.
        if plan.generated_by.planner == crate::model::plan::PlannerKind::Audit {
            return Err(Failure::Step { at, failure });
        }
        let start_changed = match (&source, &key.start_sig) {
            (Source::Cache(Some(planned)), Some(now)) if planned != now => {
                Some((planned.clone(), now.clone()))
            }
            _ => None,
        };
        let evidence = Evidence {
            at,
            failure,
            start_changed,
        };
        self.keep_evidence(tools, &key, &source, &evidence)?;
        if self.context.settings.update == UpdateMode::No {
            return Err(self.needs_planning(PlanningReason::PlanBroken, Some(evidence)));
        }
        self.choose(PlanChoice::Planning {
            planner: self.planner(),
            replan: true,
        });
        let (planned, key) = self
            .replan(tools, &plan, &evidence.failure, key, log)
            .await?;
        log.planned(scenario, &planned);
        self.finish_planned(tools, key, planned, CacheOutcome::Replanned)
    }

    /// Marks the failed plan stale with why (kept as evidence), or the fragment it used broken.
    fn keep_evidence(
        &self,
        tools: &Tools<'_>,
        key: &CacheKey,
        source: &Source,
        evidence: &Evidence,
    ) -> Result<(), Failure> {
        let scenario = self.scenario;
        let text = evidence.to_string();
        if let FailureCause::Fragment { name, .. } = &evidence.failure.cause {
            // The scenario's plan holds; the fragment it uses is planned again where it is used.
            tools
                .fragments
                .broken(name, &text)
                .map_err(|err| Failure::setup(scenario, err))
        } else if matches!(source, Source::Cache(_)) {
            vanished_is_fine(tools.cache.mark_stale(key, &text))
                .map_err(|err| Failure::setup(scenario, err))
        } else {
            Ok(())
        }
    }

    /// Plans again after a failed replay; the key carries the start page the new plan began on.
    async fn replan(
        &self,
        tools: &Tools<'_>,
        plan: &Plan,
        failure: &StepFailure,
        key: CacheKey,
        log: &mut RunDetails,
    ) -> Result<(Result<PlannedRun, Unplanned>, CacheKey), Failure> {
        let kept = failure.position.saturating_sub(1);
        let from_failure = matches!(failure.cause, FailureCause::NotActionable { .. })
            && kept > 0
            && plan_follows_steps(plan, self.scenario, kept);
        if from_failure {
            log.replan = Some(Replan::FromStep { index: kept });
            let planned = OfflinePlanner
                .plan_from(
                    self.scenario,
                    &tools.executor,
                    plan.actions[..kept].to_vec(),
                    Instant::now(),
                )
                .await
                .map_err(Unplanned::Step);
            // The kept prefix started on the replay's start page.
            log.pages.extend(tools.executor.take_visits());
            return Ok((planned, key));
        }
        log.replan = Some(Replan::Full);
        self.session
            .reset()
            .await
            .map_err(|err| Failure::setup(self.scenario, err))?;
        let (planned, sig) = self.plan_anew(tools, log).await;
        Ok((planned, key.with_start_sig(sig)))
    }

    /// Plans the scenario from its start page: explicit steps offline, a task alone with the
    /// configured model. The pages it reaches and its model calls go to `log`; the start page's
    /// signature comes back with the plan.
    async fn plan_anew(
        &self,
        tools: &Tools<'_>,
        log: &mut RunDetails,
    ) -> (Result<PlannedRun, Unplanned>, Option<String>) {
        let planned = if self.scenario.steps.is_empty() {
            self.plan_with_model(tools, log).await
        } else {
            OfflinePlanner
                .plan(self.scenario, &tools.executor)
                .await
                .map_err(Unplanned::Step)
        };
        let pages = tools.executor.take_visits();
        let sig = start_sig(&pages);
        log.pages.extend(pages);
        (planned, sig)
    }

    async fn plan_with_model(
        &self,
        tools: &Tools<'_>,
        log: &mut RunDetails,
    ) -> Result<PlannedRun, Unplanned> {
        let scenario = self.scenario;
        let (llm, client, prices) = self.model()?;
        let planner = self.model_planner(tools, llm, client.as_ref(), &prices);
        let planned = planner.plan(scenario, &tools.executor).await;
        let today = OffsetDateTime::now_utc().date();
        for call in &planned.calls {
            self.context.events.emit(RunEvent::ModelCall {
                scenario: scenario.id.clone(),
                call: call.clone(),
                cost_usd: prices.cost(call, today),
            });
        }
        log.llm_calls.extend(planned.calls);
        planned
            .planned
            .map_err(|failure| Unplanned::of_model(scenario, failure))
    }

    /// What one model call planning the scenario could cost at worst.
    async fn worst_model_call(&self, tools: &Tools<'_>) -> Result<f64, Unplanned> {
        let (llm, client, prices) = self.model()?;
        let planner = self.model_planner(tools, llm, client.as_ref(), &prices);
        planner
            .worst_first_call(self.scenario, &tools.executor)
            .await
            .map_err(|failure| Unplanned::of_model(self.scenario, failure))
    }

    /// The configured model: its settings, a client and the project's prices.
    fn model(&self) -> Result<(&LlmSettings, Box<dyn LlmClient>, ledger::PriceTable), Unplanned> {
        let (settings, scenario) = (self.context.settings, self.scenario);
        let Some(llm) = &settings.llm else {
            return Err(Unplanned::Failed(Failure::NoModel {
                scenario: scenario.id.clone(),
                file: scenario.path.clone(),
            }));
        };
        let setup =
            |err: crate::run::failure::SetupError| Unplanned::Failed(Failure::setup(scenario, err));
        let client = crate::llm::client(llm).map_err(|err| setup(err.into()))?;
        let prices =
            ledger::PriceTable::for_project(&settings.root).map_err(|err| setup(err.into()))?;
        Ok((llm, client, prices))
    }

    /// The model planner for this scenario, as every run makes it.
    fn model_planner<'m>(
        &'m self,
        tools: &'m Tools<'_>,
        llm: &'m LlmSettings,
        client: &'m dyn LlmClient,
        prices: &'m ledger::PriceTable,
    ) -> ModelPlanner<'m> {
        let (settings, scenario) = (self.context.settings, self.scenario);
        let account_keys: Vec<String> = scenario
            .account
            .as_ref()
            .and_then(|name| settings.accounts.get(name))
            .map(|keys| keys.keys().cloned().collect())
            .unwrap_or_default();
        ModelPlanner {
            client,
            limits: &llm.limits,
            prices,
            run_spend: self.context.pool.spend(),
            account_keys,
            redactor: Redactor::new(tools.accounts.named()),
            fragments: tools.executor.fragments().catalogue(),
            prompts_dir: Some(settings.root.join(".windup").join("prompts")),
            site_map: site_map_slice(settings, scenario),
            purpose: self.context.plans.purpose(),
        }
    }

    /// Saves a verified plan to the cache and records it for review; or says why planning
    /// failed.
    fn finish_planned(
        &self,
        tools: &Tools<'_>,
        key: CacheKey,
        planned: Result<PlannedRun, Unplanned>,
        cache_outcome: CacheOutcome,
    ) -> Result<Outcome, Failure> {
        let scenario = self.scenario;
        let run = match planned {
            Ok(run) => run,
            Err(Unplanned::Failed(failure)) => return Err(failure),
            Err(Unplanned::Step(failure)) => return Err(Failure::step(scenario, failure)),
        };
        tools
            .cache
            .save(&CacheEntry::new(
                key.clone(),
                &scenario.hash,
                run.plan.clone(),
            ))
            .map_err(|err| Failure::setup(scenario, err))?;
        self.record_pass(&tools.cache, &key)?;
        let pending = if self.context.plans.lockfiles() {
            let written = lockfile::record(&scenario.path, &run.plan, self.context.settings.update)
                .map_err(|err| Failure::setup(scenario, err))?;
            match written {
                Written::Pending(path) => Some(relative(&path)),
                _ => None,
            }
        } else {
            None
        };
        Ok(Outcome::Passed {
            actions: run.execution.actions.len(),
            cache: cache_outcome,
            pending,
        })
    }

    fn record_pass(&self, cache: &PlanCache, key: &CacheKey) -> Result<(), Failure> {
        let at = ledger::started_at(OffsetDateTime::now_utc());
        vanished_is_fine(cache.record_run(key, true, &at, millis(self.started.elapsed())))
            .map_err(|err| Failure::setup(self.scenario, err))
    }

    fn needs_planning(&self, reason: PlanningReason, evidence: Option<Evidence>) -> Failure {
        Failure::ReadOnly(Box::new(NeedsPlanning {
            scenario: self.scenario.id.clone(),
            lockfile: lockfile::lockfile_path(&self.scenario.path),
            reason,
            evidence,
        }))
    }

    fn planner(&self) -> PlannerKind {
        if self.scenario.steps.is_empty() {
            PlannerKind::Llm
        } else {
            PlannerKind::Offline
        }
    }

    fn choose(&self, choice: PlanChoice) {
        self.context.events.emit(RunEvent::PlanChosen {
            scenario: self.scenario.id.clone(),
            choice,
        });
    }
}

/// A replay that failed, with what it replayed.
struct Broken {
    key: CacheKey,
    plan: Plan,
    source: Source,
    failure: Box<StepFailure>,
}

/// A passing run that left no plan of its own for review but a fragment's says where that is.
/// What the site map knows around the scenario's start page, for its task; a map that cannot
/// be read is left out, since the planner can do without it.
fn site_map_slice(settings: &Settings, scenario: &Scenario) -> Option<String> {
    let map = crate::engine::sitemap::MapFile::of(&settings.root)
        .read()
        .ok()?;
    let start = Url::parse(&scenario.start_url)
        .map(|url| url.path().to_owned())
        .unwrap_or_else(|_| scenario.start_url.clone());
    map.slice(&scenario.task, &start, crate::model::sitemap::SLICE_CHARS)
}

fn with_fragment_pending(outcome: Outcome, fragments: &ProjectFragments) -> Outcome {
    match outcome {
        Outcome::Passed {
            actions,
            cache,
            pending: None,
        } => Outcome::Passed {
            actions,
            cache,
            pending: fragments.pending().first().map(|path| relative(path)),
        },
        other => other,
    }
}

/// Replays a plan, then checks the scenario's own expectations, whatever the plan was.
async fn replay(
    executor: &Executor<'_>,
    scenario: &Scenario,
    plan: &Plan,
) -> Result<Execution, Box<StepFailure>> {
    if let Some(last) = plan.actions.last() {
        OfflinePlanner.prepare_expectations(scenario, &last.id, executor);
    }
    let run = executor.run(plan).await?;
    if let Some(last) = plan.actions.last() {
        OfflinePlanner
            .check_expectations(scenario, last, executor)
            .await?;
    }
    Ok(run)
}

/// The signature of the page a run started on.
fn start_sig(pages: &[PageVisit]) -> Option<String> {
    pages.first().map(|page| page.sig.clone())
}

/// An entry another process cleared meanwhile (`cargo windup cache clear`) needs no stats.
fn vanished_is_fine(result: Result<(), CacheError>) -> Result<(), CacheError> {
    match result {
        Err(CacheError::NoActiveEntry { .. }) => Ok(()),
        other => other,
    }
}

pub(crate) use crate::engine::ledger::millis;

/// A scenario naming an account the configuration lacks fails before any browser work.
fn account_problem(settings: &Settings, scenario: &Scenario) -> Option<Failure> {
    let name = scenario.account.as_ref()?;
    if settings.accounts.contains_key(name) {
        return None;
    }
    Some(Failure::UnknownAccount {
        scenario: scenario.id.clone(),
        file: scenario.path.clone(),
        account: name.clone(),
    })
}
