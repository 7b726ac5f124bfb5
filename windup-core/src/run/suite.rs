//! The one entry point that runs a suite: settings, scenarios, workers and reporters in; typed
//! events out, and what the run came to (docs/architecture.md#the-suite).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use windup_core::config::Settings;
//! use windup_core::run::events::RunEvent;
//! use windup_core::run::suite::{Selection, Suite};
//!
//! let settings = Settings::load(std::path::Path::new("."))?;
//! let base_url = url::Url::parse("http://127.0.0.1:8080")?;
//! let scenarios = Selection::load(&settings, None, false)?;
//! let finished = Suite::new(settings, base_url)
//!     .reporter(|event: &RunEvent| println!("{}", event.name()))
//!     .run(scenarios)
//!     .await?;
//! assert_eq!(finished.totals.failed, 0);
//! # Ok(())
//! # }
//! ```

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use time::OffsetDateTime;
use url::Url;

use crate::browser::{Browser, BrowserError};
use crate::config::Settings;
use crate::engine::ledger::millis;
use crate::engine::ledger::{self, PriceTable};
use crate::engine::secret::Leak;
use crate::model::scenario::{Scenario, ScenarioError};
use crate::run::events::{Events, Reporter, RunEvent, Totals};
use crate::run::failure::{FailureClass, relative};
use crate::run::outcome::ScenarioResult;
use crate::run::pool::SessionPool;
use crate::run::report::{LeakScan, LedgerReporter, ReportWriter, Shared};
use crate::run::runner::{self, Context};
use crate::run::sitemap::recorder::SiteMapRecorder;

/// Why a suite could not run at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    #[error(
        "cannot read the scenarios directory {}: {source}; create it, or set `scenarios` in \
         windup.toml",
        dir.display()
    )]
    ScenariosDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Browser(#[from] BrowserError),
}

/// A scenario file that did not load.
#[derive(Debug, Clone)]
pub struct Unloadable {
    pub file: PathBuf,
    pub error: ScenarioError,
}

/// Every scenario file of the project, loaded, with paths as a person reads them.
pub fn load_scenarios(
    settings: &Settings,
) -> Result<Vec<Result<Scenario, Unloadable>>, SuiteError> {
    let root = &settings.scenarios_dir;
    let files =
        crate::model::scenario::discover(root).map_err(|source| SuiteError::ScenariosDir {
            dir: root.clone(),
            source,
        })?;
    Ok(files
        .into_iter()
        .filter(|file| {
            let under = file.strip_prefix(root).unwrap_or(file);
            !settings.exclude.iter().any(|dir| under.starts_with(dir))
        })
        .map(|file| {
            crate::model::scenario::load(&relative(&file), &relative(root))
                .map_err(|error| Unloadable { file, error })
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

/// The scenarios a run takes, and the files that did not load (each a failure).
#[derive(Debug, Default)]
pub struct Selection {
    pub scenarios: Vec<Arc<Scenario>>,
    pub unloadable: Vec<Unloadable>,
}

impl Selection {
    /// The project's scenarios whose id contains `filter`, without those its `ignore_tags`
    /// leave out unless `include_ignored`.
    pub fn load(
        settings: &Settings,
        filter: Option<&str>,
        include_ignored: bool,
    ) -> Result<Self, SuiteError> {
        let mut selection = Selection::default();
        for loaded in load_scenarios(settings)? {
            match loaded {
                Ok(scenario) => {
                    let wanted = filter.is_none_or(|f| scenario.id.contains(f));
                    if wanted && (include_ignored || !is_ignored(settings, &scenario)) {
                        selection.scenarios.push(Arc::new(scenario));
                    }
                }
                Err(unloadable) => selection.unloadable.push(unloadable),
            }
        }
        Ok(selection)
    }

    /// These scenarios, all loaded.
    pub fn of(scenarios: impl IntoIterator<Item = Scenario>) -> Self {
        Selection {
            scenarios: scenarios.into_iter().map(Arc::new).collect(),
            unloadable: Vec::new(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.scenarios.is_empty() && self.unloadable.is_empty()
    }
}

/// A suite to run: against `base_url`, on `settings.workers` browser sessions, telling each
/// reporter what happens. The ledger, the reports the settings ask for and the leak scan are
/// always there; add the terminal, a harness's trials or your own.
pub struct Suite {
    settings: Settings,
    base_url: Url,
    reporters: Vec<Box<dyn Reporter>>,
    summary: bool,
}

impl Suite {
    pub fn new(settings: Settings, base_url: Url) -> Self {
        Self {
            settings,
            base_url,
            reporters: Vec::new(),
            summary: false,
        }
    }

    /// Adds a reporter: it receives every event of the run, in order.
    pub fn reporter(mut self, reporter: impl Reporter + 'static) -> Self {
        self.reporters.push(Box::new(reporter));
        self
    }

    /// After the run, asks the model for a summary and a fix suggestion per failure (one call
    /// each, within the budgets; outcomes never change).
    pub fn with_summary(mut self, summary: bool) -> Self {
        self.summary = summary;
        self
    }

    /// Runs every scenario of `selection` and finishes the suite.
    pub async fn run(self, selection: Selection) -> Result<Finished, SuiteError> {
        let Selection {
            scenarios,
            unloadable,
        } = selection;
        let running = self.start(scenarios.len(), unloadable).await?;
        running.run_all(&scenarios).await;
        Ok(running.finish().await)
    }

    /// Starts the browser and says the suite started; scenarios then run one by one
    /// ([`Running::run_scenario`]) or all at once ([`Running::run_all`]). `planned` scenarios are
    /// to run, on at most that many workers.
    pub async fn start(
        self,
        planned: usize,
        unloadable: Vec<Unloadable>,
    ) -> Result<Running, SuiteError> {
        let browser = Browser::launch(self.settings.browser_config()).await?;
        let workers = self.settings.workers.min(planned.max(1));
        let events = Events::new(vec![Box::new(LedgerReporter::new(&self.settings))]);
        let mut warnings = Vec::new();
        let reports = (!self.settings.reports.is_empty()).then(|| {
            // A broken price file makes the reports' costs unknowable, not the tests wrong.
            let prices = PriceTable::for_project(&self.settings.root).unwrap_or_else(|err| {
                warnings.push(format!("{err}; reports use the built-in prices"));
                PriceTable::builtin()
            });
            let writer = Arc::new(Mutex::new(ReportWriter::new(
                self.settings.reports.clone(),
                prices,
            )));
            events.add(Box::new(Shared(Arc::clone(&writer))));
            writer
        });
        for reporter in self.reporters {
            events.add(reporter);
        }
        let leaks = Arc::new(Mutex::new(LeakScan::new()));
        events.add(Box::new(Shared(Arc::clone(&leaks))));
        let map = Arc::new(Mutex::new(SiteMapRecorder::default()));
        events.add(Box::new(Shared(Arc::clone(&map))));
        let running = Running {
            pool: SessionPool::new(browser, workers),
            events,
            reports,
            leaks,
            map,
            started: Instant::now(),
            summary: self.summary,
            results: Mutex::new(Vec::new()),
            unloadable: unloadable.len(),
            settings: self.settings,
            base_url: self.base_url,
        };
        let protocol = match planned {
            0 => None,
            _ => running.pool.warm().await,
        }
        .unwrap_or(running.settings.browser.protocol);
        running.events.emit(RunEvent::SuiteStarted {
            name: suite_name(&running.settings),
            base_url: running.base_url.to_string(),
            scenarios: planned,
            unloadable: unloadable.len(),
            workers,
            protocol: protocol.as_str().to_owned(),
            started_at: ledger::started_at(OffsetDateTime::now_utc()),
        });
        for message in warnings {
            running.events.emit(RunEvent::Warning { message });
        }
        for Unloadable { file, error } in unloadable {
            running
                .events
                .emit(RunEvent::ScenarioUnloadable { file, error });
        }
        Ok(running)
    }
}

/// A suite whose browser is up: run scenarios on it, then [`Running::finish`].
pub struct Running {
    settings: Settings,
    base_url: Url,
    pool: SessionPool,
    events: Events,
    reports: Option<Arc<Mutex<ReportWriter>>>,
    leaks: Arc<Mutex<LeakScan>>,
    /// What the run saw, for the site map.
    map: Arc<Mutex<SiteMapRecorder>>,
    started: Instant,
    summary: bool,
    results: Mutex<Vec<(Arc<Scenario>, Arc<ScenarioResult>)>>,
    unloadable: usize,
}

impl Running {
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn base_url(&self) -> &Url {
        &self.base_url
    }

    /// Runs one scenario on a session of the pool.
    pub async fn run_scenario(&self, scenario: &Arc<Scenario>) -> Arc<ScenarioResult> {
        let context = Context {
            pool: &self.pool,
            settings: &self.settings,
            base_url: &self.base_url,
            events: &self.events,
            plans: runner::Plans::Project,
        };
        let result = runner::run_in(context, scenario).await;
        self.results
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((Arc::clone(scenario), Arc::clone(&result)));
        result
    }

    /// Runs scenarios on every worker at once; the results in the order of `scenarios`.
    pub async fn run_all(&self, scenarios: &[Arc<Scenario>]) -> Vec<Arc<ScenarioResult>> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results = Mutex::new(Vec::with_capacity(scenarios.len()));
        let worker = || async {
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(scenario) = scenarios.get(index) else {
                    break;
                };
                let result = self.run_scenario(scenario).await;
                results
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((index, result));
            }
        };
        let workers: Vec<_> = (0..self.pool.size()).map(|_| worker()).collect();
        // The workers borrow the suite's data, so they run concurrently on this task.
        futures::future::join_all(workers).await;
        let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
        results.sort_by_key(|(index, _)| *index);
        results.into_iter().map(|(_, result)| result).collect()
    }

    /// Closes the browser sessions and finishes the run: the totals, the reports, the model's
    /// summary when asked, and the leak scan.
    pub async fn finish(self) -> Finished {
        self.pool.close().await;
        let results = std::mem::take(&mut *self.results.lock().unwrap_or_else(|p| p.into_inner()));
        let totals = self.totals(&results);
        self.events.emit(RunEvent::SuiteFinished { totals });
        let mut report_failed = false;
        if let Some(writer) = &self.reports {
            let written = std::mem::replace(
                &mut writer.lock().unwrap_or_else(|p| p.into_inner()).written,
                Ok(Vec::new()),
            );
            match written {
                Ok(paths) => {
                    for path in paths {
                        self.events.emit(RunEvent::ReportWritten { path });
                    }
                }
                Err(error) => {
                    report_failed = true;
                    self.events.emit(RunEvent::ReportFailed { error });
                }
            }
        }
        if self.summary {
            self.summarize(&results).await;
        }
        // Before the leak scan, which reads the map too.
        let mapped = self
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .flush(&self.settings.root);
        if let Err(err) = mapped {
            self.events.emit(RunEvent::Warning {
                message: format!("the site map was not updated: {err}"),
            });
        }
        let leaks = self
            .leaks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .scan(&self.settings);
        for leak in &leaks {
            self.events.emit(RunEvent::LeakFound { leak: leak.clone() });
        }
        Finished {
            totals,
            leaks,
            report_failed,
            results,
        }
    }

    fn totals(&self, results: &[(Arc<Scenario>, Arc<ScenarioResult>)]) -> Totals {
        let failed_as = |class: FailureClass| {
            results
                .iter()
                .filter(|(_, r)| r.failure().is_some_and(|f| f.class() == class))
                .count()
        };
        let passed = results.iter().filter(|(_, r)| r.passed()).count();
        Totals {
            passed,
            failed: results.len() - passed + self.unloadable,
            read_only: failed_as(FailureClass::ReadOnly),
            budget: failed_as(FailureClass::Budget),
            duration_ms: millis(self.started.elapsed()),
        }
    }

    async fn summarize(&self, results: &[(Arc<Scenario>, Arc<ScenarioResult>)]) {
        let runs: Vec<(&Scenario, &ScenarioResult)> = results
            .iter()
            .map(|(scenario, result)| (scenario.as_ref(), result.as_ref()))
            .collect();
        let event =
            match crate::run::summary::summarize(&self.settings, self.pool.spend(), &runs).await {
                Ok(said) => {
                    for (scenario, call, cost_usd) in said.calls {
                        self.events.emit(RunEvent::ModelCall {
                            scenario,
                            call,
                            cost_usd,
                        });
                    }
                    RunEvent::Summary {
                        summary: said.summary,
                        suggestions: said.suggestions,
                        problems: said.problems,
                    }
                }
                Err(problem) => RunEvent::Summary {
                    summary: None,
                    suggestions: Vec::new(),
                    problems: vec![format!("no summary: {problem}")],
                },
            };
        self.events.emit(event);
    }
}

/// What a suite came to.
#[derive(Debug)]
pub struct Finished {
    pub totals: Totals,
    /// Secrets found where they must not be; a run with any is a failed run.
    pub leaks: Vec<Leak>,
    /// A report the settings asked for could not be written.
    pub report_failed: bool,
    /// Every scenario that ran, with its result, in the order they finished.
    pub results: Vec<(Arc<Scenario>, Arc<ScenarioResult>)>,
}

/// The suite's name in reports: the project directory's name.
fn suite_name(settings: &Settings) -> String {
    settings
        .root
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "windup".to_owned())
}
