//! The audit as a run: the one entry point a front end calls ([`AuditRun`]). It reads the
//! invariants, opens the audit store, starts the browser, runs the engine's audit, writes each
//! finding's regression test as it is proven, and tells every step as a [`RunEvent`] — to the
//! reporters and, in order, to the store, so that a dashboard can rebuild the run from it.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;
use url::Url;

use crate::browser::{Browser, BrowserError};
use crate::config::Settings;
use crate::engine::audit::{
    Audit, AuditConfig, AuditModel, AuditOutcome, AuditWatcher, Budget, Deny, EmittedTest, Finding,
    InvariantStatus, Login, Phase, TestPlace, write_test,
};
use crate::engine::planner::prompt::Redactor;
use crate::engine::secret::Accounts;
use crate::model::invariant::{Invariant, InvariantError};
use crate::model::plan::Action;
use crate::run::events::{ActionInfo, Events, Reporter, RunEvent};
use crate::store::{
    self, AuditStore, FindingId, Framework, NewFinding, NewRun, NewTest, RunId, RunStatus,
    StoreError,
};

/// Where audits are kept, under the project root.
pub const STORE_FILE: &str = ".windup/audits.sqlite";

/// Why a target with a user name or password in it is refused: the target is kept in the store
/// and said in every event and report, so it may carry no credentials.
pub const CREDENTIALS_IN_TARGET: &str = "the target URL carries a user name or password \
    (user:…@host); Windup keeps no credentials in a target, which is stored and shown in every \
    report: give the address without them, and log in with an account of windup.toml \
    ([accounts.NAME], chosen with `account`)";

/// Whether `target` carries a user name or a password.
pub fn carries_credentials(target: &url::Url) -> bool {
    !target.username().is_empty() || target.password().is_some()
}

/// Why an audit could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Invariants(Vec<InvariantError>),
    #[error("the audit store: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Browser(#[from] BrowserError),
    #[error("{0}")]
    Usage(String),
    /// The audit was asked to use a model that cannot be set up.
    #[error("the audit's model: {0}")]
    Model(String),
    /// The audit could not use the app: nothing it could say of it would mean anything. The run
    /// is stored, failed, with this reason.
    #[error("the audit could not use the app: {reason} (run {run_id})")]
    Unusable {
        run_id: RunId,
        reason: String,
        /// Whether the browser or its driver failed, rather than the app.
        browser: bool,
    },
}

/// An audit to run: the target, and what to hold it to.
pub struct AuditRun {
    settings: Settings,
    config: AuditConfig,
    invariants_dir: Option<PathBuf>,
    account: Option<String>,
    store: PathBuf,
    emit_dir: Option<PathBuf>,
    reporters: Vec<Box<dyn Reporter>>,
    stop: Arc<AtomicBool>,
    /// Whether the model of `[llm]` proposes rules, plans attacks and judges.
    with_model: bool,
    /// A run already recorded (queued by a server) to tell into, instead of a new one.
    recorded: Option<RunId>,
}

/// Where an audit run keeps its screenshots and preview frames: `audit-A-1001` under the
/// project's artifacts directory.
pub fn run_artifacts(settings: &Settings, run: &RunId) -> PathBuf {
    settings.artifacts_dir.join(format!("audit-{}", run.slug()))
}

/// A finished audit.
#[derive(Debug)]
pub struct AuditFinished {
    pub run_id: RunId,
    pub outcome: AuditOutcome,
    pub tests: Vec<EmittedTest>,
    pub store: PathBuf,
}

impl AuditRun {
    /// An audit of `target` with the project's settings and the default budget.
    pub fn new(settings: Settings, target: Url) -> Self {
        let config = AuditConfig {
            target,
            seed: 1,
            budget: Budget::default(),
            strategy: Default::default(),
            coverage: true,
            invariants: Vec::new(),
            inputs: Vec::new(),
            login: None,
            deny: Deny::default(),
            allowed_origins: settings.allowed_origins.clone(),
            artifacts_dir: settings.artifacts_dir.clone(),
            // An audit's moves often aim at what is no longer there; the page is local and quick.
            action_timeout: settings.timeout.min(Duration::from_secs(2)),
            ready_timeout: settings.timeout,
            frames: None,
        };
        let store = settings.root.join(STORE_FILE);
        let emit_dir = Some(settings.scenarios_dir.join("audit"));
        AuditRun {
            settings,
            config,
            invariants_dir: None,
            account: None,
            store,
            emit_dir,
            reporters: Vec::new(),
            stop: Arc::new(AtomicBool::new(false)),
            with_model: false,
            recorded: None,
        }
    }

    /// Tells the audit into `run`, which the caller recorded (`queued`, then started) in the
    /// same store, instead of a new run.
    pub fn in_run(mut self, run: RunId) -> Self {
        self.recorded = Some(run);
        self
    }

    /// Pictures the browser after an attack's action, at most once per `every`, for a live
    /// preview: each `action` event then names its frame.
    pub fn frames(mut self, every: Duration) -> Self {
        self.config.frames = Some(every);
        self
    }

    /// Lets the model of `[llm]` propose rules, plan attacks and judge what they break,
    /// within the audit's model budgets (`max_calls_per_audit`, `max_usd_per_audit`).
    pub fn with_model(mut self, on: bool) -> Self {
        self.with_model = on;
        self
    }

    pub fn seed(mut self, seed: u64) -> Self {
        self.config.seed = seed;
        self
    }

    pub fn budget(mut self, budget: Budget) -> Self {
        self.config.budget = budget;
        self
    }

    /// How the walks choose their moves.
    pub fn strategy(mut self, strategy: crate::engine::audit::Strategy) -> Self {
        self.config.strategy = strategy;
        self
    }

    /// Whether to count the edges of the app's scripts (on by default, docs/audit.md#coverage;
    /// it needs BiDi, which the audit's session then speaks where the driver offers it).
    pub fn coverage(mut self, on: bool) -> Self {
        self.config.coverage = on;
        self
    }

    /// Reads the user's invariants (and known inputs) from `dir` (`invariants/`).
    pub fn invariants_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.invariants_dir = Some(dir.into());
        self
    }

    /// Invariants given directly (a model's, an embedder's).
    pub fn invariants(mut self, invariants: Vec<Invariant>) -> Self {
        self.config.invariants.extend(invariants);
        self
    }

    /// Logs in with `[accounts.NAME]` when a login form is found.
    pub fn account(mut self, name: impl Into<String>) -> Self {
        self.account = Some(name.into());
        self
    }

    /// Adds deny patterns (paths, or words of control names).
    pub fn deny(mut self, patterns: &[String]) -> Result<Self, AuditError> {
        for pattern in patterns {
            self.config.deny.add(pattern).map_err(AuditError::Usage)?;
        }
        Ok(self)
    }

    /// Keeps the store somewhere else than `.windup/audits.sqlite`.
    pub fn store(mut self, path: impl Into<PathBuf>) -> Self {
        self.store = path.into();
        self
    }

    /// Writes regression tests to `dir`, or, with `None`, nowhere.
    pub fn emit_to(mut self, dir: Option<PathBuf>) -> Self {
        self.emit_dir = dir;
        self
    }

    pub fn reporter(mut self, reporter: impl Reporter + 'static) -> Self {
        self.reporters.push(Box::new(reporter));
        self
    }

    /// A flag that stops the audit at its next step when set.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    pub fn config(&self) -> &AuditConfig {
        &self.config
    }

    /// Runs the audit to its end (or its budget, or a stop).
    pub async fn run(mut self) -> Result<AuditFinished, AuditError> {
        if carries_credentials(&self.config.target) {
            return Err(AuditError::Usage(CREDENTIALS_IN_TARGET.to_owned()));
        }
        self.prepare()?;
        let model = self.model()?;
        let store = AuditStore::open(&self.store)?;
        let mut browser_config = self.settings.browser_config();
        // Counting the app's code needs BiDi's network interception: a session that would speak
        // Classic alone speaks BiDi where the driver offers it.
        if self.config.coverage {
            if browser_config.protocol == crate::browser::Protocol::Classic {
                browser_config.protocol = crate::browser::Protocol::Auto;
            }
            browser_config.intercepts = true;
        }
        let browser = Browser::launch(browser_config).await?;
        let session = browser.new_session().await?;
        session.watch_page_events().await?;
        let run_id = match self.recorded {
            Some(run) => run,
            None => store.create_run(&NewRun {
                target_url: self.config.target.to_string(),
                seed: self.config.seed,
                budget_json: serde_json::to_string(&self.config.budget).unwrap_or_default(),
                started_at: crate::engine::ledger::started_at(OffsetDateTime::now_utc()),
            })?,
        };
        // Each run's pictures apart, so that one run's never overwrite another's.
        self.config.artifacts_dir = run_artifacts(&self.settings, &run_id);
        let teller = self.teller(run_id, store);
        teller.tell(RunEvent::AuditStarted {
            run_id: run_id.to_string(),
            target: self.config.target.to_string(),
            seed: self.config.seed,
            budget: self.config.budget,
            deny: self.config.deny.patterns(),
        });
        let values = match &self.account {
            Some(name) => Accounts::for_account(&self.settings, name),
            None => Accounts::default(),
        };
        let audit = Audit {
            session: &session,
            config: &self.config,
            values: &values,
            watcher: &teller,
            stop: self.stop.as_ref(),
            model: model.as_ref(),
        };
        let started_at = crate::engine::ledger::started_at(OffsetDateTime::now_utc());
        let outcome = audit.run().await;
        let _ = session.close().await;
        drop(browser);
        if let Some(model) = &model {
            teller.ledger(&self.settings, model, &outcome, started_at);
        }
        teller.map(&self.settings, &outcome);
        if let Some(unusable) = &outcome.unusable {
            teller.fail(&unusable.reason, &outcome)?;
            return Err(AuditError::Unusable {
                run_id,
                reason: unusable.reason.clone(),
                browser: unusable.browser,
            });
        }
        teller.finish(&outcome)?;
        Ok(AuditFinished {
            run_id,
            outcome,
            tests: teller.tests.into_inner().unwrap_or_else(|p| p.into_inner()),
            store: self.store,
        })
    }

    /// The watcher that tells the run's events and writes its tests.
    fn teller(&mut self, run_id: RunId, store: AuditStore) -> Teller {
        Teller {
            run_id,
            events: Events::new(std::mem::take(&mut self.reporters)),
            store: Mutex::new(store),
            emit: self.emit_dir.clone(),
            scenarios: self.settings.scenarios_dir.clone(),
            account: self.account.clone(),
            account_keys: self
                .account
                .as_ref()
                .and_then(|name| self.settings.accounts.get(name))
                .cloned()
                .unwrap_or_default(),
            start: crate::model::invariant::location_of(self.config.target.as_str()),
            base_url: self.config.target.origin().ascii_serialization(),
            note: format!("run {run_id}, seed {}", self.config.seed),
            tests: Mutex::new(Vec::new()),
            failures: Mutex::new(Vec::new()),
        }
    }

    /// The audit's model, when it is asked for: `[llm]`'s client, the project's prices, and
    /// every secret of the settings to redact.
    fn model(&self) -> Result<Option<AuditModel>, AuditError> {
        if !self.with_model {
            return Ok(None);
        }
        let Some(llm) = &self.settings.llm else {
            return Err(AuditError::Model(
                "windup.toml has no [llm] section: add one (see docs/llm.md), or audit without \
                 --model"
                    .to_owned(),
            ));
        };
        let client = crate::llm::client(llm).map_err(|err| AuditError::Model(err.to_string()))?;
        let prices = crate::engine::ledger::PriceTable::for_project(&self.settings.root)
            .map_err(|err| AuditError::Model(err.to_string()))?;
        let keys = self
            .config
            .login
            .as_ref()
            .map(|login| login.keys.clone())
            .unwrap_or_default();
        let redactor = Redactor::new(crate::engine::secret::all(&self.settings));
        Ok(Some(
            AuditModel::new(client, prices, llm.limits.clone(), redactor, keys)
                .show_images(llm.takes_images())
                .keep_prompts(self.settings.root.join(".windup").join("prompts")),
        ))
    }

    /// Reads the invariants directory and the account, before anything starts.
    fn prepare(&mut self) -> Result<(), AuditError> {
        if let Some(dir) = &self.invariants_dir {
            let (invariants, inputs) = crate::model::invariant::load_dir_with_inputs(dir)
                .map_err(AuditError::Invariants)?;
            self.config.invariants.extend(invariants);
            self.config.inputs.extend(inputs);
        }
        if let Some(name) = &self.account {
            let keys = self.settings.accounts.get(name).ok_or_else(|| {
                AuditError::Usage(format!(
                    "there is no [accounts.{name}] in windup.toml; add it, or leave out --account"
                ))
            })?;
            self.config.login = Some(Login {
                account: name.clone(),
                keys: keys.keys().cloned().collect(),
            });
        }
        Ok(())
    }
}

/// The audit's watcher: every step as an event, to the reporters and the store; each finding's
/// test written as it is proven.
struct Teller {
    run_id: RunId,
    events: Events,
    store: Mutex<AuditStore>,
    emit: Option<PathBuf>,
    scenarios: PathBuf,
    account: Option<String>,
    /// The account's key → the name of its environment variable, for a Playwright spec.
    account_keys: std::collections::BTreeMap<String, String>,
    start: String,
    base_url: String,
    note: String,
    tests: Mutex<Vec<EmittedTest>>,
    /// What the store or the file system refused, told once the audit ends.
    failures: Mutex<Vec<String>>,
}

impl Teller {
    fn store(&self) -> std::sync::MutexGuard<'_, AuditStore> {
        self.store.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn failed(&self, what: String) {
        self.failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(what);
    }

    /// Stores the event in the run's stream, then hands it to the reporters.
    fn tell(&self, event: RunEvent) {
        if let Err(err) = self
            .store()
            .append_event(&self.run_id, event.name(), &event.to_json())
        {
            self.failed(format!("an event was not stored: {err}"));
        }
        self.events.emit(event);
    }

    /// The model's calls as one ledger record of kind `audit`, each also told as an event.
    fn ledger(
        &self,
        settings: &Settings,
        model: &AuditModel,
        outcome: &AuditOutcome,
        started_at: String,
    ) {
        let calls = model.calls();
        let prices = crate::engine::ledger::PriceTable::for_project(&settings.root)
            .unwrap_or_else(|_| crate::engine::ledger::PriceTable::builtin());
        let today = OffsetDateTime::now_utc().date();
        let subject = format!("audit {}", self.run_id);
        for call in &calls {
            self.tell(RunEvent::ModelCall {
                scenario: subject.clone(),
                call: call.clone(),
                cost_usd: prices.cost(call, today),
            });
        }
        let record = crate::engine::ledger::RunRecord {
            run_id: crate::engine::ledger::new_run_id(),
            scenario_id: subject,
            started_at,
            duration_ms: crate::engine::ledger::millis(outcome.runtime),
            outcome: crate::engine::ledger::Outcome::Passed,
            failure_class: None,
            cache: crate::engine::ledger::CacheOutcome::Miss,
            replan: None,
            llm_calls: calls,
            pages: Vec::new(),
            kind: crate::engine::ledger::RecordKind::Audit,
        };
        if let Err(err) = crate::engine::ledger::Ledger::new(&settings.root).append(&record) {
            self.failed(format!("the ledger was not written: {err}"));
        }
    }

    /// Adds what exploration saw to the project's site map, every name redacted.
    fn map(&self, settings: &Settings, outcome: &AuditOutcome) {
        let redactor = Redactor::new(crate::engine::secret::all(settings));
        let (mut visits, mut moves) = outcome.seen.clone();
        for visit in &mut visits {
            visit.title = visit.title.as_deref().map(|t| redactor.redact(t));
            for element in &mut visit.elements {
                element.name = redactor.redact(&element.name);
            }
        }
        for step in &mut moves {
            step.action = redactor.redact(&step.action);
        }
        let at = crate::engine::ledger::started_at(OffsetDateTime::now_utc());
        let updated = crate::engine::sitemap::MapFile::of(&settings.root)
            .update(|map| map.observe(&visits, &moves, &at));
        if let Err(err) = updated {
            self.failed(format!("the site map was not updated: {err}"));
        }
    }

    fn finish(&self, outcome: &AuditOutcome) -> Result<(), AuditError> {
        let status = match outcome.stopped_by.as_str() {
            "stopped" => RunStatus::Stopped,
            _ => RunStatus::Done,
        };
        let invariants: Vec<serde_json::Value> = outcome
            .invariants
            .iter()
            .map(|(invariant, status)| {
                serde_json::json!({ "invariant": invariant, "status": status })
            })
            .collect();
        let runtime_ms = crate::engine::ledger::millis(outcome.runtime);
        self.tell(RunEvent::AuditDone {
            run_id: self.run_id.to_string(),
            status: status.as_str().to_owned(),
            runtime_ms,
            findings: outcome.findings.len(),
            actions: outcome.actions,
            attacks: outcome.attacks,
            pages_explored: outcome.pages_explored,
            unconfirmed: outcome.unconfirmed,
            stopped_by: outcome.stopped_by.clone(),
            code: outcome.code.clone(),
        });
        let store = self.store();
        store.set_invariants(
            &self.run_id,
            &serde_json::Value::from(invariants).to_string(),
        )?;
        store.finish_run(&self.run_id, status, runtime_ms)?;
        drop(store);
        self.tell_failures();
        Ok(())
    }

    /// What the store or the file system refused, as warnings.
    fn tell_failures(&self) {
        for failure in self
            .failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            self.events.emit(RunEvent::Warning { message: failure });
        }
    }

    /// Ends a run that could not use the app: failed, with the reason as its event.
    fn fail(&self, reason: &str, outcome: &AuditOutcome) -> Result<(), AuditError> {
        self.tell(RunEvent::AuditFailed {
            run_id: self.run_id.to_string(),
            message: format!("the audit could not use the app: {reason}"),
            at: crate::engine::ledger::started_at(OffsetDateTime::now_utc()),
        });
        let runtime_ms = crate::engine::ledger::millis(outcome.runtime);
        self.store()
            .finish_run(&self.run_id, RunStatus::Failed, runtime_ms)?;
        self.tell_failures();
        Ok(())
    }

    /// Records a finding and writes its test.
    fn record(&self, finding: &Finding) -> Result<(), String> {
        let new = NewFinding {
            invariant_id: finding.invariant_id.clone(),
            severity: finding.severity.as_str().to_owned(),
            title: finding.title.clone(),
            expected: finding.expected.clone(),
            actual: finding.actual.clone(),
            impact: finding.impact.clone(),
            steps_json: json(&finding.steps),
            screenshots_json: json(&finding.screenshots),
            action_log_json: json(&finding.actions),
            fingerprint: finding.fingerprint.clone(),
        };
        let stored = self
            .store()
            .add_finding(&self.run_id, &new)
            .map_err(|e| format!("the finding {} was not stored: {e}", finding.id))?;
        let Some(dir) = &self.emit else {
            return Ok(());
        };
        let place = TestPlace {
            dir,
            root: &self.scenarios,
            start_url: &self.start,
            base_url: &self.base_url,
            account: self.account.as_deref(),
            account_keys: &self.account_keys,
            note: &self.note,
        };
        let test = write_test(finding, &place).map_err(|e| {
            format!(
                "the test of {} was not written to {}: {e}",
                finding.id,
                dir.display()
            )
        })?;
        self.store_test(&stored, finding, &test)?;
        self.tests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(test);
        Ok(())
    }
}

impl Teller {
    /// Keeps both dialects of a finding's test in the store and tells of each.
    fn store_test(
        &self,
        stored: &FindingId,
        finding: &Finding,
        test: &EmittedTest,
    ) -> Result<(), String> {
        let mut dialects = vec![(
            Framework::Windup,
            test.scenario.clone(),
            format!("{}\n---\n{}", test.code, test.plan),
        )];
        match &test.spec {
            Ok(spec) => {
                dialects.push((Framework::Playwright, spec.path.clone(), spec.code.clone()))
            }
            Err(why) => self.failed(format!("{} has no Playwright spec: {why}", finding.id)),
        }
        for (framework, path, code) in dialects {
            self.store()
                .add_test(
                    stored,
                    &NewTest {
                        filename: shown(&path),
                        code,
                        framework,
                    },
                )
                .map_err(|e| format!("the test of {} was not stored: {e}", finding.id))?;
            self.tell(RunEvent::TestWritten {
                run_id: self.run_id.to_string(),
                finding: finding.id.clone(),
                framework: framework.to_string(),
                path,
                lockfile: test.lockfile.clone(),
            });
        }
        Ok(())
    }
}

/// A path as a person reads it: relative to the working directory when it is under it.
fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// JSON text of anything serializable, for the store's `_json` columns.
fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned())
}

impl AuditWatcher for Teller {
    fn phase(&self, phase: Phase) {
        let stored = match phase {
            Phase::Explore => store::Phase::Explore,
            Phase::Hypothesize => store::Phase::Hypothesize,
            Phase::Attack => store::Phase::Attack,
            Phase::Report => store::Phase::Report,
        };
        if let Err(err) = self.store().set_phase(&self.run_id, stored) {
            self.failed(format!("the phase was not stored: {err}"));
        }
        self.tell(RunEvent::Phase {
            run_id: self.run_id.to_string(),
            phase,
        });
    }

    fn reasoning(&self, text: &str) {
        self.tell(RunEvent::Reasoning {
            run_id: self.run_id.to_string(),
            text: text.to_owned(),
        });
    }

    fn invariant(&self, invariant: &Invariant, status: &InvariantStatus) {
        self.tell(RunEvent::Invariant {
            run_id: self.run_id.to_string(),
            invariant: Box::new(invariant.clone()),
            status: status.clone(),
        });
    }

    fn action(&self, label: &str, action: &Action, screenshot: Option<&Path>) {
        self.tell(RunEvent::AuditAction {
            run_id: self.run_id.to_string(),
            label: label.to_owned(),
            step: crate::engine::audit::describe_action(action),
            action: ActionInfo::new(action, 0, 0),
            screenshot: screenshot.map(Path::to_owned),
        });
    }

    fn edges(&self, code: &crate::engine::audit::CodeCoverage) {
        self.tell(RunEvent::CodeReached {
            run_id: self.run_id.to_string(),
            at_ms: code.over_time.last().map_or(0, |&(at, _)| at),
            reached: code.reached,
            edges: code.edges,
            scripts: code.scripts,
        });
    }

    fn finding(&self, finding: &Finding) {
        self.tell(RunEvent::Finding {
            run_id: self.run_id.to_string(),
            finding: finding.clone(),
        });
        if let Err(problem) = self.record(finding) {
            self.failed(problem);
        }
    }
}
