//! Running scenarios: one at a time on a session, or a suite on a pool of browser workers.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::{Semaphore, SemaphorePermit};
use url::Url;

use crate::browser::{Browser, BrowserError, Session};
use crate::config::Settings;
use crate::executor::{ExecOptions, Executor, FailureCause, StepFailure, ValueSource};
use crate::planner::OfflinePlanner;
use crate::scenario::Scenario;

/// The outcome of one scenario.
#[derive(Debug)]
pub struct ScenarioResult {
    pub id: String,
    pub duration: Duration,
    pub outcome: Outcome,
}

/// Passed with the number of actions run, or failed with a message a person can act on.
#[derive(Debug)]
pub enum Outcome {
    Passed { actions: usize },
    Failed(String),
}

impl ScenarioResult {
    pub fn passed(&self) -> bool {
        matches!(self.outcome, Outcome::Passed { .. })
    }
}

/// Browser sessions shared by a suite's workers: at most `size` at once, each reused (and reset)
/// from one scenario to the next.
#[derive(Debug)]
pub struct SessionPool {
    browser: Browser,
    idle: Mutex<Vec<Session>>,
    permits: Semaphore,
}

impl SessionPool {
    pub fn new(browser: Browser, size: usize) -> Self {
        Self {
            browser,
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(size.max(1)),
        }
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

/// Account values from the environment: `account.KEY` of the scenario's account reads the
/// variable `[accounts.NAME]` maps KEY to.
#[derive(Debug, Clone, Default)]
pub struct AccountValues {
    vars: std::collections::BTreeMap<String, String>,
}

impl AccountValues {
    pub fn for_scenario(settings: &Settings, scenario: &Scenario) -> Self {
        let vars = scenario
            .account
            .as_ref()
            .and_then(|name| settings.accounts.get(name))
            .cloned()
            .unwrap_or_default();
        Self { vars }
    }
}

impl ValueSource for AccountValues {
    fn resolve(&self, reference: &str) -> Option<String> {
        let key = reference.strip_prefix("account.")?;
        std::env::var(self.vars.get(key)?).ok()
    }
}

/// The executor options a suite runs scenarios with.
pub fn exec_options(settings: &Settings, base_url: &Url) -> ExecOptions {
    let mut options = ExecOptions::new(base_url.clone());
    options.default_timeout = settings.timeout;
    options.artifacts_dir = settings.artifacts_dir.clone();
    options.allowed_origins = settings.allowed_origins.clone();
    options
}

/// Plans and runs one scenario on a session from the pool.
pub async fn run_scenario(
    pool: &SessionPool,
    settings: &Settings,
    base_url: &Url,
    scenario: &Scenario,
) -> ScenarioResult {
    let started = Instant::now();
    let finish = |outcome| ScenarioResult {
        id: scenario.id.clone(),
        duration: started.elapsed(),
        outcome,
    };
    if let Some(problem) = account_problem(settings, scenario) {
        return finish(Outcome::Failed(problem));
    }
    let lease = match pool.acquire().await {
        Ok(lease) => lease,
        Err(err) => {
            return finish(Outcome::Failed(format!(
                "scenario {:?}: {err}",
                scenario.id
            )));
        }
    };
    let options = exec_options(settings, base_url);
    let values = AccountValues::for_scenario(settings, scenario);
    let executor = Executor::new(lease.session(), &options, &values);
    let outcome = match OfflinePlanner.plan(scenario, &executor).await {
        Ok(run) => Outcome::Passed {
            actions: run.execution.actions.len(),
        },
        Err(failure) => {
            let browser_gone = matches!(
                failure.cause,
                FailureCause::Browser(BrowserError::Lost { .. })
            );
            let message = explain(scenario, &failure);
            if browser_gone {
                lease.discard();
            }
            Outcome::Failed(message)
        }
    };
    finish(outcome)
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
