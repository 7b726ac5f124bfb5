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

use crate::browser::BrowserKind;
use crate::config::{Reports, Settings};
use crate::model::scenario::Scenario;
use crate::run::events::{Reporter, RunEvent};
use crate::run::outcome::Outcome;
use crate::run::suite::{Running, Suite, Unloadable, is_ignored, load_scenarios};

/// What the user's setup hands the harness: the URL of the app under test, and whatever must
/// live as long as the tests do (a server handle, a child process) — dropped after the last one.
pub struct Setup {
    base_url: Option<Url>,
    browser: Option<BrowserKind>,
    guard: Option<Box<dyn Any + Send>>,
    error: Option<String>,
}

impl Setup {
    /// Tests run against `base_url`.
    pub fn new(base_url: &str) -> Self {
        match Url::parse(base_url) {
            Ok(url) => Self {
                base_url: Some(url),
                browser: None,
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
            browser: None,
            guard: None,
            error: None,
        }
    }

    /// Runs the scenarios in `kind` whatever windup.toml and `WINDUP_BROWSER` say: for a second
    /// test target that replays the same plans in another browser.
    pub fn in_browser(mut self, kind: BrowserKind) -> Self {
        self.browser = Some(kind);
        self
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
            browser: None,
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
type MakeSetup = Box<dyn FnOnce() -> SetupFuture + Send>;

/// Everything trials share, made once, on the first trial that runs.
struct Ready {
    running: Running,
    // Behind a mutex only so that the harness can be shared between trial threads.
    _guard: std::sync::Mutex<Option<Box<dyn Any + Send>>>,
}

struct Harness {
    runtime: tokio::runtime::Runtime,
    settings: Settings,
    /// How many scenarios there are, for the suite's first event.
    planned: usize,
    setup: std::sync::Mutex<Option<MakeSetup>>,
    ready: OnceCell<Result<Ready, String>>,
}

impl Harness {
    async fn ready(&self) -> &Result<Ready, String> {
        self.ready.get_or_init(|| self.start()).await
    }

    /// Runs the user's setup, then starts the suite on the URL it gave.
    async fn start(&self) -> Result<Ready, String> {
        let setup = self.setup.lock().unwrap_or_else(|p| p.into_inner()).take();
        let setup = match setup {
            Some(make) => make().await,
            None => return Err("setup already ran and failed".to_owned()),
        };
        if let Some(error) = setup.error {
            return Err(error);
        }
        let Some(base_url) = setup.base_url.or_else(|| self.settings.base_url.clone()) else {
            return Err(
                "no base URL: return one from the setup function (Setup::new(url)), or \
                        set base_url in windup.toml or WINDUP_BASE_URL"
                    .to_owned(),
            );
        };
        let mut settings = self.settings.clone();
        if let Some(kind) = setup.browser {
            settings.browser.kind = kind;
        }
        let running = Suite::new(settings, base_url)
            .reporter(Stderr)
            .start(self.planned, Vec::new())
            .await
            .map_err(|err| err.to_string())?;
        Ok(Ready {
            running,
            _guard: std::sync::Mutex::new(setup.guard),
        })
    }

    fn run(&self, scenario: &Arc<Scenario>) -> Result<(), Failed> {
        self.runtime.block_on(async {
            let ready = self.ready().await.as_ref().map_err(Failed::from)?;
            let result = ready.running.run_scenario(scenario).await;
            match result.failure() {
                None => Ok(()),
                Some(failure) => Err(Failed::from(failure.to_string())),
            }
        })
    }

    /// Finishes the suite (reports, leak scan), ends the browser, then drops the user's guard.
    /// Whether the leak scan found a secret.
    fn shutdown(self) -> bool {
        let Harness { runtime, ready, .. } = self;
        runtime.block_on(async {
            match ready.into_inner() {
                Some(Ok(Ready { running, _guard })) => {
                    let finished = running.finish().await;
                    drop(_guard);
                    !finished.leaks.is_empty()
                }
                _ => false,
            }
        })
    }
}

/// What the harness says beside libtest's own lines: plans waiting for review, the reports,
/// warnings and leaks, on stderr.
struct Stderr;

impl Reporter for Stderr {
    fn report(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ScenarioFinished { result, .. } => {
                if let Outcome::Passed {
                    pending: Some(path),
                    ..
                } = &result.outcome
                {
                    // Like insta: the test passes, and the new plan waits for a person.
                    eprintln!(
                        "windup: a new plan for {} waits for review: {} (cargo windup review)",
                        result.id,
                        path.display()
                    );
                }
            }
            RunEvent::ReportWritten { path } => eprintln!("windup: report: {}", path.display()),
            RunEvent::ReportFailed { error } => {
                eprintln!("error: windup: the report was not written: {error}")
            }
            RunEvent::Warning { message } => eprintln!("windup: {message}"),
            RunEvent::LeakFound { leak } => eprintln!("error: windup: {leak}"),
            _ => {}
        }
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
    let mut settings = match Settings::load(Path::new(manifest_dir)) {
        Ok(settings) => settings,
        Err(err) => return failing(&args, "windup.toml", err.to_string()),
    };
    if let Some(test) = nextest_test(&args, &|var| std::env::var(var).ok()) {
        settings.reports = per_test(&settings.reports, test);
    }
    let loaded = match load_scenarios(&settings) {
        Ok(loaded) => loaded,
        Err(err) => return failing(&args, "scenarios", err.to_string()),
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
    let make: MakeSetup = Box::new(move || Box::pin(async move { setup().await.into_setup() }));
    let harness = Arc::new(Harness {
        runtime,
        planned: loaded.len(),
        settings,
        setup: std::sync::Mutex::new(Some(make)),
        ready: OnceCell::new(),
    });
    let trials = trials(&harness, loaded);
    let conclusion = libtest_mimic::run(&args, trials);
    // The trials, and their clones of the harness, are gone once run returns; were one left,
    // dropping it would still end the browser.
    let leaked = Arc::try_unwrap(harness).is_ok_and(Harness::shutdown);
    if leaked {
        ExitCode::from(101)
    } else {
        conclusion.exit_code()
    }
}

/// The test nextest runs in this process, when it runs each test in a process of its own: it
/// says so in the environment and names the test on the line (`--exact NAME`). Both, since a
/// process that a nextest test started (a `cargo test` of its own) inherits the environment.
fn nextest_test<'a>(args: &'a Arguments, env: &dyn Fn(&str) -> Option<String>) -> Option<&'a str> {
    let per_test = env("NEXTEST_EXECUTION_MODE").is_some_and(|m| m == "process-per-test");
    let named = env("NEXTEST_TEST_NAME")?;
    let test = args.filter.as_deref()?;
    (per_test && args.exact && test == named).then_some(test)
}

/// The reports of a process that runs the one scenario `test`. Under nextest every scenario
/// runs in a process of its own, and each would write its report over the last one's: each
/// writes its own instead, `DIR/NAME.EXT` becoming `DIR/NAME/SCENARIO.EXT`.
fn per_test(reports: &Reports, test: &str) -> Reports {
    let file: String = test
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '_' | '.' => c,
            '/' => '.',
            _ => '_',
        })
        .collect();
    let own = |path: &Option<PathBuf>| {
        path.as_ref().map(|path| {
            let dir = path.with_extension("");
            match path.extension() {
                Some(ext) => dir.join(format!("{file}.{}", ext.to_string_lossy())),
                None => dir.join(&file),
            }
        })
    };
    Reports {
        junit: own(&reports.junit),
        json: own(&reports.json),
        html: own(&reports.html),
    }
}

/// A run that cannot start: one failing trial named after what is wrong.
fn failing(args: &Arguments, name: &str, message: String) -> ExitCode {
    let trial = Trial::test(name, move || Err(Failed::from(message)));
    libtest_mimic::run(args, vec![trial]).exit_code()
}

/// One trial per scenario file, named by the scenario's id; files that fail to load become
/// failing trials named by their path.
fn trials(harness: &Arc<Harness>, loaded: Vec<Result<Scenario, Unloadable>>) -> Vec<Trial> {
    let root = harness.settings.scenarios_dir.clone();
    loaded
        .into_iter()
        .map(|loaded| match loaded {
            Ok(scenario) => {
                let ignored = is_ignored(&harness.settings, &scenario);
                let harness = Arc::clone(harness);
                let scenario = Arc::new(scenario);
                Trial::test(scenario.id.clone(), move || harness.run(&scenario))
                    .with_ignored_flag(ignored)
            }
            Err(Unloadable { file, error }) => {
                let message = error.to_string();
                Trial::test(fallback_name(&file, &root), move || {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_nextest_each_scenario_writes_reports_of_its_own() {
        let reports = Reports::parse(
            "junit=target/windup.xml,html=target/windup/report.html,json=out",
            Path::new("/crate"),
        )
        .unwrap();
        let own = per_test(&reports, "checkout");
        assert_eq!(
            own.junit.as_deref(),
            Some(Path::new("/crate/target/windup/checkout.xml"))
        );
        assert_eq!(
            own.html.as_deref(),
            Some(Path::new("/crate/target/windup/report/checkout.html"))
        );
        assert_eq!(own.json.as_deref(), Some(Path::new("/crate/out/checkout")));
        // A scenario in a folder, or with a name no file could have, stays in the directory.
        let own = per_test(&reports, "audit/../coupon 1");
        assert_eq!(
            own.html.as_deref(),
            Some(Path::new(
                "/crate/target/windup/report/audit....coupon_1.html"
            ))
        );
        assert_eq!(
            per_test(&Reports::default(), "checkout"),
            Reports::default()
        );
    }

    #[test]
    fn a_process_of_one_test_is_told_by_nextest_and_its_line_together() {
        let nextest = |var: &str| match var {
            "NEXTEST_EXECUTION_MODE" => Some("process-per-test".to_owned()),
            "NEXTEST_TEST_NAME" => Some("checkout".to_owned()),
            _ => None,
        };
        let line = |words: &[&str]| Arguments::from_iter(["e2e"].iter().chain(words));
        let exact = line(&["--exact", "checkout", "--nocapture"]);
        assert_eq!(nextest_test(&exact, &nextest), Some("checkout"));
        assert_eq!(nextest_test(&exact, &|_| None), None, "not under nextest");
        // A `cargo test` that a nextest test started inherits nextest's environment.
        assert_eq!(nextest_test(&line(&[]), &nextest), None);
        assert_eq!(nextest_test(&line(&["checkout"]), &nextest), None);
        assert_eq!(nextest_test(&line(&["--exact", "cart"]), &nextest), None);
    }
}
