//! Scenarios as tests: the libtest-mimic harness behind `#[windup::main]`.
//!
//! Scenarios are discovered when the test binary runs, so a new scenario file needs no rebuild.
//! Each becomes one trial named by its id; nextest's custom-harness contract holds (`--list
//! --format terse`, `--ignored`, `--exact`). The user's setup runs once, and only when some trial
//! runs; trials share a pool of browser sessions. A scenario that fails to load is a failing
//! trial with its error, not a crash of the harness.

use std::any::Any;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use tokio::sync::OnceCell;
use url::Url;

use crate::browser::Browser;
use crate::config::Settings;
use crate::ledger::PriceTable;
use crate::runner::{Outcome, SessionPool, is_ignored, load_scenarios, run_scenario};
use crate::scenario::Scenario;
use crate::{report, secrets};

/// What the user's setup hands the harness: the URL of the app under test, and whatever must
/// live as long as the tests do (a server handle, a child process) — dropped after the last one.
pub struct Setup {
    base_url: Option<Url>,
    guard: Option<Box<dyn Any + Send>>,
    error: Option<String>,
}

impl Setup {
    /// Tests run against `base_url`.
    pub fn new(base_url: &str) -> Self {
        match Url::parse(base_url) {
            Ok(url) => Self {
                base_url: Some(url),
                guard: None,
                error: None,
            },
            Err(err) => Self::failed(format!(
                "setup returned an invalid base URL {base_url:?}: {err}"
            )),
        }
    }

    /// Tests run against the `base_url` of windup.toml (or `WINDUP_BASE_URL`).
    pub fn from_config() -> Self {
        Self {
            base_url: None,
            guard: None,
            error: None,
        }
    }

    /// Keeps `guard` alive until every scenario has run.
    pub fn with_guard(mut self, guard: impl Any + Send) -> Self {
        self.guard = Some(Box::new(guard));
        self
    }

    /// A setup that could not be done: every scenario fails with this message.
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            base_url: None,
            guard: None,
            error: Some(message.into()),
        }
    }
}

/// What a setup function may return: a [`Setup`], or a `Result` whose error becomes the message
/// of every failing scenario.
pub trait IntoSetup {
    fn into_setup(self) -> Setup;
}

impl IntoSetup for Setup {
    fn into_setup(self) -> Setup {
        self
    }
}

impl<E: std::fmt::Display> IntoSetup for Result<Setup, E> {
    fn into_setup(self) -> Setup {
        self.unwrap_or_else(|err| Setup::failed(format!("setup failed: {err}")))
    }
}

type SetupFuture = Pin<Box<dyn Future<Output = Setup> + Send>>;

/// Everything trials share, made once, on the first trial that runs.
struct Ready {
    base_url: Url,
    pool: SessionPool,
    // Behind a mutex only so that the harness can be shared between trial threads.
    _guard: std::sync::Mutex<Option<Box<dyn Any + Send>>>,
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    settings: Settings,
    /// What the trials reported, for the leak scan.
    output: std::sync::Mutex<String>,
    /// Each scenario's part of the report, when reports are asked for (`WINDUP_REPORT`).
    reported: std::sync::Mutex<Vec<report::ScenarioReport>>,
    /// The prices reports use, read once.
    prices: PriceTable,
    setup: std::sync::Mutex<Option<Box<dyn FnOnce() -> SetupFuture + Send>>>,
    ready: OnceCell<Result<Ready, String>>,
}

impl Harness {
    async fn ready(&self) -> &Result<Ready, String> {
        self.ready
            .get_or_init(|| async {
                let setup = self.setup.lock().unwrap_or_else(|p| p.into_inner()).take();
                let setup = match setup {
                    Some(make) => make().await,
                    None => return Err("setup already ran and failed".to_owned()),
                };
                if let Some(error) = setup.error {
                    return Err(error);
                }
                let base_url = match setup.base_url.or_else(|| self.settings.base_url.clone()) {
                    Some(url) => url,
                    None => {
                        return Err("no base URL: return one from the setup function \
                                    (Setup::new(url)), or set base_url in windup.toml or \
                                    WINDUP_BASE_URL"
                            .to_owned());
                    }
                };
                let browser = Browser::launch(self.settings.browser_config())
                    .await
                    .map_err(|err| err.to_string())?;
                Ok(Ready {
                    base_url,
                    pool: SessionPool::new(browser, self.settings.workers),
                    _guard: std::sync::Mutex::new(setup.guard),
                })
            })
            .await
    }

    fn run(&self, scenario: &Scenario) -> Result<(), Failed> {
        self.runtime.block_on(async {
            let ready = match self.ready().await {
                Ok(ready) => ready,
                Err(message) => return Err(Failed::from(message)),
            };
            let result = run_scenario(&ready.pool, &self.settings, &ready.base_url, scenario).await;
            if !self.settings.reports.is_empty() {
                self.reported
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(report::scenario_report(scenario, &result, &self.prices));
            }
            match result.outcome {
                Outcome::Passed {
                    pending: Some(path),
                    ..
                } => {
                    // Like insta: the test passes, and the new plan waits for a person.
                    eprintln!(
                        "windup: a new plan for {} waits for review: {} (cargo windup review)",
                        scenario.id,
                        path.display()
                    );
                    Ok(())
                }
                Outcome::Passed { .. } => Ok(()),
                Outcome::Failed { message, .. } => {
                    let mut output = self.output.lock().unwrap_or_else(|p| p.into_inner());
                    output.push_str(&message);
                    output.push('\n');
                    Err(Failed::from(message))
                }
            }
        })
    }

    /// Closes sessions, ends the browser, then drops the user's guard.
    fn shutdown(self) {
        let Harness { runtime, ready, .. } = self;
        runtime.block_on(async {
            if let Some(Ok(ready)) = ready.into_inner() {
                ready.pool.close().await;
                drop(ready);
            }
        });
    }
}

/// The harness entry point `#[windup::main]` expands to. `manifest_dir` is the directory of the
/// crate whose tests these are (windup.toml and the scenarios live there).
pub fn main<F, Fut, S>(manifest_dir: &str, setup: F) -> ExitCode
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = S> + Send + 'static,
    S: IntoSetup + 'static,
{
    let args = Arguments::from_args();
    let root = PathBuf::from(manifest_dir);
    let settings = match Settings::load(&root) {
        Ok(settings) => settings,
        Err(err) => {
            let message = err.to_string();
            let trial = Trial::test("windup.toml", move || Err(Failed::from(message)));
            return libtest_mimic::run(&args, vec![trial]).exit_code();
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("windup: cannot start the async runtime: {err}");
            return ExitCode::from(101);
        }
    };
    // Read only for reports. A broken price file makes their costs unknowable, not the tests
    // wrong: say so, and price with the built-in table.
    let prices = if settings.reports.is_empty() {
        PriceTable::default()
    } else {
        PriceTable::for_project(&root).unwrap_or_else(|err| {
            eprintln!("windup: {err}; reports use the built-in prices");
            PriceTable::builtin()
        })
    };
    let make: Box<dyn FnOnce() -> SetupFuture + Send> =
        Box::new(move || Box::pin(async move { setup().await.into_setup() }));
    let harness = Arc::new(Harness {
        runtime,
        settings,
        setup: std::sync::Mutex::new(Some(make)),
        ready: OnceCell::new(),
        output: std::sync::Mutex::new(String::new()),
        reported: std::sync::Mutex::new(Vec::new()),
        prices,
    });
    let started = std::time::Instant::now();
    let started_at = crate::ledger::started_at(time::OffsetDateTime::now_utc());
    let trials = trials(&harness);
    let conclusion = libtest_mimic::run(&args, trials);
    let ran = harness.ready.initialized();
    if ran && !harness.settings.reports.is_empty() {
        let base_url = match harness.ready.get() {
            Some(Ok(ready)) => ready.base_url.to_string(),
            _ => String::new(),
        };
        let suite = report::SuiteReport {
            name: harness
                .settings
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            started_at,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            base_url,
            scenarios: std::mem::take(
                &mut *harness.reported.lock().unwrap_or_else(|p| p.into_inner()),
            ),
        };
        match report::write(&harness.settings.reports, &suite) {
            Ok(paths) => {
                for path in paths {
                    eprintln!("windup: report: {}", path.display());
                }
            }
            Err(err) => eprintln!("error: windup: the report was not written: {err}"),
        }
    }
    let leaks = ran.then(|| {
        let output = harness.output.lock().unwrap_or_else(|p| p.into_inner());
        secrets::check_run(
            &harness.settings,
            &harness.settings.reports.paths(),
            &output,
        )
    });
    // The trials, and their clones of the harness, are gone once run returns; were one left,
    // dropping it would still end the browser.
    if let Ok(harness) = Arc::try_unwrap(harness) {
        harness.shutdown();
    }
    match leaks {
        Some(leaks) if !leaks.is_empty() => {
            for leak in &leaks {
                eprintln!("error: windup: {leak}");
            }
            ExitCode::from(101)
        }
        _ => conclusion.exit_code(),
    }
}

/// One trial per scenario file, named by the scenario's id; files that fail to load become
/// failing trials named by their path.
fn trials(harness: &Arc<Harness>) -> Vec<Trial> {
    let root = harness.settings.scenarios_dir.clone();
    let loaded = match load_scenarios(&harness.settings) {
        Ok(loaded) => loaded,
        Err(message) => {
            return vec![Trial::test("scenarios", move || Err(Failed::from(message)))];
        }
    };
    loaded
        .into_iter()
        .map(|loaded| match loaded {
            Ok(scenario) => {
                let ignored = is_ignored(&harness.settings, &scenario);
                let harness = Arc::clone(harness);
                Trial::test(scenario.id.clone(), move || harness.run(&scenario))
                    .with_ignored_flag(ignored)
            }
            Err((path, err)) => {
                let message = err.to_string();
                Trial::test(fallback_name(&path, &root), move || {
                    Err(Failed::from(message))
                })
            }
        })
        .collect()
}

/// A name for a scenario file that could not be read: its path under the root, no extension.
fn fallback_name(path: &Path, root: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    relative
        .with_extension("")
        .to_string_lossy()
        .replace('\\', "/")
}
