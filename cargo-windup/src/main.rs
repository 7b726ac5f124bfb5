//! `cargo windup`: a thin command line over windup-core.
//!
//! Exit codes (docs/cli.md): 0 passed, 1 scenarios failed, 2 usage or configuration error,
//! 3 browser or driver unavailable.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use windup_core::browser::install::{InstallPlan, availability, install_plan};
use windup_core::cache::{EntryStatus, PlanCache};
use windup_core::config::Settings;
use windup_core::executor::NoValues;
use windup_core::ledger::CacheOutcome;
use windup_core::plan::{Plan, Rules};
use windup_core::runner::{
    FailureClass, Outcome, ScenarioResult, SessionPool, is_ignored, load_scenarios, relative,
    run_suite,
};
use windup_core::scenario::Scenario;
use windup_core::{Browser, ExecOptions, Executor};
use windup_core::{ledger, lockfile, report, secrets, summary};

#[derive(Debug, Parser)]
#[command(
    name = "cargo windup",
    bin_name = "cargo windup",
    version,
    about = "Natural-language end-to-end browser tests, planned once and replayed deterministically."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the scenarios of this project against its base URL.
    Run {
        /// Only scenarios whose id contains this text.
        filter: Option<String>,
        #[command(flatten)]
        suite: SuiteArgs,
        /// The site to test, instead of base_url from windup.toml.
        #[arg(long)]
        base_url: Option<String>,
    },
    /// Start the demo shop on a free port and run scenarios/ against it.
    Demo {
        #[command(flatten)]
        suite: SuiteArgs,
        /// Install Chromium and ChromeDriver without asking, when they are missing.
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Scaffold windup.toml, tests/e2e.rs, a first scenario and the [[test]] entry in this crate.
    Init,
    /// Install Chromium and ChromeDriver with the system package manager.
    Setup,
    /// Review new or changed plans (NAME.plan.json.new): show each diff, then accept or reject it.
    Review {
        /// Accept every pending plan without asking.
        #[arg(long, conflicts_with = "reject_all")]
        accept_all: bool,
        /// Reject every pending plan without asking.
        #[arg(long)]
        reject_all: bool,
    },
    /// Model costs and cache outcomes from the run ledger, recomputed from the dated price table.
    Costs {
        /// Only runs on or after this date (YYYY-MM-DD).
        #[arg(long)]
        since: Option<String>,
        /// Group by scenario, model or day.
        #[arg(long, default_value = "scenario")]
        by: String,
    },
    /// Look into or clear the plan cache (.windup/cache).
    Cache {
        #[command(subcommand)]
        action: CacheAction,
    },
    /// Execute plan files against a running site.
    Exec {
        /// Plan files (`*.plan.json`).
        #[arg(required = true)]
        plans: Vec<PathBuf>,
        /// The site's base URL; plans carry paths joined to it.
        #[arg(long)]
        base_url: url::Url,
        /// Show the browser window.
        #[arg(long)]
        headed: bool,
    },
}

#[derive(Debug, Subcommand)]
enum CacheAction {
    /// One line per cached plan: scenario, status, runs and passes, last run.
    Ls,
    /// A scenario's cached plans, active and stale, with why each stale one failed.
    Show { scenario: String },
    /// Remove every cached plan, or one scenario's.
    Clear { scenario: Option<String> },
}

#[derive(Debug, Args)]
struct SuiteArgs {
    /// Browser workers running scenarios at once (default: `workers` in windup.toml).
    #[arg(long, short = 'j')]
    workers: Option<usize>,
    /// Also run scenarios whose tags windup.toml ignores.
    #[arg(long)]
    include_ignored: bool,
    /// Show the browser window.
    #[arg(long)]
    headed: bool,
    /// Reports to write: `junit=PATH,json=PATH,html=PATH`, any of them (also WINDUP_REPORT).
    #[arg(long, value_name = "KIND=PATH,…")]
    report: Option<String>,
    /// After the run, ask the model for a summary and a fix suggestion per failure (one call
    /// each, within the budgets; outcomes never change).
    #[arg(long)]
    summary: bool,
}

/// Exit codes, as documented in docs/cli.md.
mod exit {
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BROWSER: u8 = 3;
    /// A scenario needed planning that this run may not do (read-only: CI or WINDUP_UPDATE=no).
    pub const READ_ONLY: u8 = 4;
    /// Planning needed a model call that would have gone over a budget.
    pub const BUDGET: u8 = 5;
    /// A secret value was found in a file Windup wrote or in its output.
    pub const LEAK: u8 = 6;
}

/// A failure of the command itself, with its exit code.
struct Fatal(u8, String);

fn main() -> ExitCode {
    // Output piped into `head` and closed early ends the process quietly, as other tools do.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Run as `cargo windup …`, cargo passes the subcommand's own name first.
    let args = std::env::args_os()
        .enumerate()
        .filter(|(i, arg)| !(*i == 1 && arg == "windup"))
        .map(|(_, arg)| arg);
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(exit::USAGE)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(exit::BROWSER);
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Run {
                filter,
                suite,
                base_url,
            } => run(filter.as_deref(), &suite, base_url.as_deref()).await,
            Command::Demo { suite, yes } => demo(&suite, yes).await,
            Command::Init => init(),
            Command::Cache { action } => cache(action),
            Command::Costs { since, by } => costs(since.as_deref(), &by),
            Command::Review {
                accept_all,
                reject_all,
            } => review(accept_all, reject_all),
            Command::Setup => setup(),
            Command::Exec {
                plans,
                base_url,
                headed,
            } => exec(&plans, base_url, headed).await,
        }
    });
    match outcome {
        Ok(code) => code,
        Err(Fatal(code, message)) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

fn project_settings(suite: &SuiteArgs) -> Result<Settings, Fatal> {
    project_settings_with(suite, None)
}

/// The project's settings with the suite's flags (and `--base-url`) over the environment and
/// windup.toml, all checked by the same rules.
fn project_settings_with(suite: &SuiteArgs, base_url: Option<&str>) -> Result<Settings, Fatal> {
    let root = std::env::current_dir()
        .map_err(|e| Fatal(exit::USAGE, format!("no current directory: {e}")))?;
    let overrides = windup_core::config::Overrides {
        workers: suite.workers,
        headed: suite.headed,
        report: suite.report.clone(),
        base_url: base_url.map(str::to_owned),
    };
    Settings::load_with(&root, &overrides).map_err(|e| Fatal(exit::USAGE, e.to_string()))
}

/// Loads the scenarios to run; a file that does not load is reported and counts as a failure.
fn scenarios(
    settings: &Settings,
    filter: Option<&str>,
    include_ignored: bool,
) -> Result<(Vec<Scenario>, usize), Fatal> {
    let all = load_scenarios(settings).map_err(|message| Fatal(exit::USAGE, message))?;
    let mut loaded = Vec::new();
    let mut broken = 0;
    for scenario in all {
        match scenario {
            Ok(scenario) => {
                let wanted = filter.is_none_or(|f| scenario.id.contains(f));
                if wanted && (include_ignored || !is_ignored(settings, &scenario)) {
                    loaded.push(scenario);
                }
            }
            Err((path, err)) => {
                broken += 1;
                println!("FAIL {}\n  {err}", path.display());
            }
        }
    }
    Ok((loaded, broken))
}

async fn run(
    filter: Option<&str>,
    suite: &SuiteArgs,
    base_url: Option<&str>,
) -> Result<ExitCode, Fatal> {
    let settings = project_settings_with(suite, base_url)?;
    let base_url = settings.base_url.clone().ok_or_else(|| {
        Fatal(
            exit::USAGE,
            "no base URL: set base_url in windup.toml or WINDUP_BASE_URL, or pass --base-url"
                .into(),
        )
    })?;
    let (scenarios, broken) = scenarios(&settings, filter, suite.include_ignored)?;
    run_scenarios(&settings, &base_url, &scenarios, broken, suite.summary).await
}

async fn demo(suite: &SuiteArgs, yes: bool) -> Result<ExitCode, Fatal> {
    let settings = project_settings(suite)?;
    let found = availability(&settings.browser_config());
    if settings.browser.webdriver_url.is_none() && !found.ready() {
        let missing = found.missing().join(" and ");
        println!("The demo runs in Chromium through ChromeDriver; missing here: {missing}.");
        if !(yes || confirm("Install them now with the system package manager?")) {
            return Err(Fatal(
                exit::BROWSER,
                format!(
                    "{missing} missing: run `cargo windup setup`, or `cargo windup demo --yes`"
                ),
            ));
        }
        setup()?;
    }
    let (scenarios, broken) = scenarios(&settings, None, suite.include_ignored)?;
    if scenarios.is_empty() && broken == 0 {
        return Err(Fatal(
            exit::USAGE,
            format!(
                "no scenarios in {}: run the demo from the root of the Windup repository",
                settings.scenarios_dir.display()
            ),
        ));
    }
    let shop = windup_shop::spawn(Default::default())
        .await
        .map_err(|e| Fatal(exit::USAGE, format!("the demo shop did not start: {e}")))?;
    println!("demo shop at {}", shop.url());
    let base_url = url::Url::parse(shop.url()).map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    run_scenarios(&settings, &base_url, &scenarios, broken, suite.summary).await
}

/// Runs scenarios on the configured number of workers, a line per scenario and a summary.
async fn run_scenarios(
    settings: &Settings,
    base_url: &url::Url,
    scenarios: &[Scenario],
    broken: usize,
    summary: bool,
) -> Result<ExitCode, Fatal> {
    let started = Instant::now();
    let browser = Browser::launch(settings.browser_config())
        .await
        .map_err(|e| Fatal(exit::BROWSER, e.to_string()))?;
    let workers = settings.workers.min(scenarios.len().max(1));
    let pool = SessionPool::new(browser, workers);
    println!(
        "running {} scenarios on {workers} workers against {base_url}",
        scenarios.len()
    );
    // What the run prints, kept for the leak scan.
    let printed = std::sync::Mutex::new(String::new());
    let say = |text: String| {
        println!("{text}");
        let mut printed = printed.lock().unwrap_or_else(|p| p.into_inner());
        printed.push_str(&text);
        printed.push('\n');
    };
    let report = |result: &ScenarioResult| {
        let ms = result.duration.as_millis();
        match &result.outcome {
            Outcome::Passed {
                actions,
                cache,
                pending,
            } => {
                let cache = match cache {
                    CacheOutcome::Hit => "replayed",
                    CacheOutcome::Miss => "planned",
                    CacheOutcome::Replanned => "re-planned",
                };
                say(format!(
                    "PASS {} ({actions} actions, {cache}, {ms} ms)",
                    result.id
                ));
                if let Some(path) = pending {
                    say(format!(
                        "  new plan waits for review: {} (cargo windup review)",
                        path.display()
                    ));
                }
            }
            Outcome::Failed { message, .. } => say(format!(
                "FAIL {} ({ms} ms)\n  {}",
                result.id,
                message.replace('\n', "\n  ")
            )),
        }
        let _ = std::io::stdout().flush();
    };
    let started_at = ledger::started_at(time::OffsetDateTime::now_utc());
    let results = run_suite(&pool, settings, base_url, scenarios, workers, &report).await;
    pool.close().await;
    let passed = results.iter().filter(|r| r.passed()).count();
    let failed = results.len() - passed + broken;
    println!("finished in {:.1} s", started.elapsed().as_secs_f64());
    println!("{passed} passed, {failed} failed");
    if !settings.reports.is_empty() {
        let prices = ledger::PriceTable::for_project(&settings.root)
            .map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
        let suite = report::SuiteReport {
            name: suite_name(settings),
            started_at,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            base_url: base_url.to_string(),
            scenarios: scenarios
                .iter()
                .zip(&results)
                .map(|(scenario, result)| report::scenario_report(scenario, result, &prices))
                .collect(),
        };
        for path in report::write(&settings.reports, &suite)
            .map_err(|e| Fatal(exit::USAGE, format!("the report was not written: {e}")))?
        {
            println!("report: {}", path.display());
        }
    }
    if summary {
        let runs: Vec<_> = scenarios.iter().zip(&results).collect();
        match summary::summarize(settings, pool.spend(), &runs).await {
            Ok(summaries) => {
                for (id, text) in &summaries.suggestions {
                    say(format!("suggestion for {id}: {text}"));
                }
                if let Some(text) = &summaries.summary {
                    say(format!("summary: {text}"));
                }
                for problem in &summaries.problems {
                    say(format!("windup: {problem}"));
                }
            }
            Err(problem) => say(format!("windup: no summary: {problem}")),
        }
    }
    let printed = printed.into_inner().unwrap_or_else(|p| p.into_inner());
    let leaks = secrets::check_run(settings, &settings.reports.paths(), &printed);
    if !leaks.is_empty() {
        for leak in &leaks {
            eprintln!("error: {leak}");
        }
        return Ok(ExitCode::from(exit::LEAK));
    }
    let failed_for = |class: FailureClass| {
        results
            .iter()
            .any(|r| matches!(&r.outcome, Outcome::Failed { class: c, .. } if *c == class))
    };
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else if failed_for(FailureClass::Budget) {
        ExitCode::from(exit::BUDGET)
    } else if failed_for(FailureClass::ReadOnly) {
        ExitCode::from(exit::READ_ONLY)
    } else {
        ExitCode::from(exit::FAILED)
    })
}

/// The suite's name in reports: the project directory's name.
fn suite_name(settings: &Settings) -> String {
    settings
        .root
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|| "windup".to_owned())
}

fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        return false;
    }
    print!("{question} [y/N] ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok()
        && matches!(answer.trim(), "y" | "Y" | "yes")
}

/// Shows each pending plan's diff against its lockfile and accepts or rejects it.
fn review(accept_all: bool, reject_all: bool) -> Result<ExitCode, Fatal> {
    let settings = project_settings(&SuiteArgs {
        workers: None,
        include_ignored: false,
        headed: false,
        report: None,
        summary: false,
    })?;
    let waiting = lockfile::pending(&settings.scenarios_dir)
        .map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    if waiting.is_empty() {
        println!("no plans to review");
        return Ok(ExitCode::SUCCESS);
    }
    let interactive = std::io::stdin().is_terminal();
    if !(accept_all || reject_all || interactive) {
        return Err(Fatal(
            exit::USAGE,
            format!(
                "{} plans wait for review; run `cargo windup review` in a terminal, or pass --accept-all or --reject-all",
                waiting.len()
            ),
        ));
    }
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    for pending in &waiting {
        let shown = relative(&pending.lockfile);
        let what = if pending.current.is_some() {
            "changed"
        } else {
            "new"
        };
        println!(
            "{what} plan {} ({} by {}):",
            shown.display(),
            pending.proposed.scenario_id,
            pending.proposed.generated_by.planner
        );
        print!(
            "{}",
            lockfile::PlanDiff::between(pending.current.as_ref(), &pending.proposed)
        );
        let choice = if accept_all {
            'a'
        } else if reject_all {
            'r'
        } else {
            ask("[a]ccept, [r]eject or [s]kip?")
        };
        let outcome = match choice {
            'a' => lockfile::accept(&pending.path).map(|_| accepted += 1),
            'r' => lockfile::reject(&pending.path).map(|_| rejected += 1),
            _ => {
                skipped += 1;
                Ok(())
            }
        };
        outcome.map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    }
    println!("{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(ExitCode::SUCCESS)
}

fn ask(question: &str) -> char {
    print!("{question} ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return 's';
    }
    answer
        .trim()
        .chars()
        .next()
        .map_or('s', |c| c.to_ascii_lowercase())
}

fn cache(action: CacheAction) -> Result<ExitCode, Fatal> {
    let root = std::env::current_dir()
        .map_err(|e| Fatal(exit::USAGE, format!("no current directory: {e}")))?;
    let cache = PlanCache::new(&root);
    let failed = |e: windup_core::cache::CacheError| Fatal(exit::USAGE, e.to_string());
    match action {
        CacheAction::Ls => {
            let entries = cache.list().map_err(failed)?;
            if entries.is_empty() {
                println!("the plan cache is empty");
            }
            for entry in entries {
                println!(
                    "{:<32} {:<6} {:>3} actions  {} runs, {} passes  last {}",
                    entry.key.scenario_id,
                    status(entry.status),
                    entry.plan.actions.len(),
                    entry.stats.runs,
                    entry.stats.passes,
                    entry.stats.last_run.as_deref().unwrap_or("never")
                );
            }
        }
        CacheAction::Show { scenario } => {
            let entries = cache.get(&scenario).map_err(failed)?;
            if entries.is_empty() {
                return Err(Fatal(
                    exit::USAGE,
                    format!("no cached plan for scenario {scenario:?}"),
                ));
            }
            for entry in entries {
                let sig = entry
                    .key
                    .start_sig
                    .as_deref()
                    .map(|sig| format!(", start page signature {}", sig.get(..12).unwrap_or(sig)))
                    .unwrap_or_default();
                println!(
                    "{} plan for {} (start {}{sig}):",
                    status(entry.status),
                    scenario,
                    entry.key.start_path
                );
                print!(
                    "{}",
                    lockfile::PlanDiff::between(None, &entry.plan)
                        .to_string()
                        .replace("+ ", "  ")
                );
                if let Some(failure) = &entry.failure {
                    println!(
                        "  why it turned stale:\n    {}",
                        failure.replace('\n', "\n    ")
                    );
                }
            }
        }
        CacheAction::Clear { scenario } => {
            let removed = cache.clear(scenario.as_deref()).map_err(failed)?;
            println!("removed {removed} cached plans");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn status(status: EntryStatus) -> &'static str {
    match status {
        EntryStatus::Active => "active",
        EntryStatus::Stale => "stale",
    }
}

/// Prints the cost report of the project's ledger.
fn costs(since: Option<&str>, by: &str) -> Result<ExitCode, Fatal> {
    let root = std::env::current_dir()
        .map_err(|e| Fatal(exit::USAGE, format!("no current directory: {e}")))?;
    let by: ledger::GroupBy = by
        .parse()
        .map_err(|e: String| Fatal(exit::USAGE, format!("--by: {e}")))?;
    let since = match since {
        Some(text) => {
            let format = time::macros::format_description!("[year]-[month]-[day]");
            Some(time::Date::parse(text, &format).map_err(|e| {
                Fatal(
                    exit::USAGE,
                    format!("--since {text:?}: {e}; use YYYY-MM-DD"),
                )
            })?)
        }
        None => None,
    };
    let read = ledger::Ledger::new(&root)
        .read()
        .map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    let prices =
        ledger::PriceTable::for_project(&root).map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    print!("{}", ledger::costs(&read.records, &prices, since, by));
    if read.skipped_lines > 0 {
        println!(
            "({} ledger lines were not whole records and were skipped)",
            read.skipped_lines
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn init() -> Result<ExitCode, Fatal> {
    let root = std::env::current_dir()
        .map_err(|e| Fatal(exit::USAGE, format!("no current directory: {e}")))?;
    let version = env!("CARGO_PKG_VERSION");
    let requirement = version
        .rsplit_once('.')
        .map_or(version, |(major_minor, _)| major_minor);
    let changes = windup_core::init::init(&root, requirement)
        .map_err(|e| Fatal(exit::USAGE, e.to_string()))?;
    if changes.is_empty() {
        println!("Windup is already set up here; nothing changed.");
    }
    for change in changes {
        println!("{change}");
    }
    println!("next: write scenarios in scenarios/, then `cargo test --test e2e`");
    Ok(ExitCode::SUCCESS)
}

fn setup() -> Result<ExitCode, Fatal> {
    match install_plan() {
        InstallPlan::Commands(commands) => {
            for command in commands {
                println!("$ {}", command.join(" "));
                let status = std::process::Command::new(&command[0])
                    .args(&command[1..])
                    .status()
                    .map_err(|e| Fatal(exit::BROWSER, format!("cannot run {}: {e}", command[0])))?;
                if !status.success() {
                    return Err(Fatal(
                        exit::BROWSER,
                        format!(
                            "`{}` failed ({status}); run it yourself to see why",
                            command.join(" ")
                        ),
                    ));
                }
            }
            println!("Chromium and ChromeDriver are installed.");
            Ok(ExitCode::SUCCESS)
        }
        InstallPlan::Manual(instructions) => Err(Fatal(exit::BROWSER, instructions)),
    }
}

/// Replays plan files on one session, a line per plan and a summary.
async fn exec(plans: &[PathBuf], base_url: url::Url, headed: bool) -> Result<ExitCode, Fatal> {
    let loaded = plans
        .iter()
        .map(|p| load_plan(p))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = project_settings(&SuiteArgs {
        workers: None,
        include_ignored: false,
        headed,
        report: None,
        summary: false,
    })?;
    let browser = Browser::launch(settings.browser_config())
        .await
        .map_err(|e| Fatal(exit::BROWSER, e.to_string()))?;
    let session = browser
        .new_session()
        .await
        .map_err(|e| Fatal(exit::BROWSER, e.to_string()))?;
    let mut options = ExecOptions::new(base_url);
    options.artifacts_dir = PathBuf::from(".windup/artifacts");
    let (mut passed, mut failed) = (0, 0);
    for plan in &loaded {
        if let Err(err) = session.reset().await {
            return Err(Fatal(exit::BROWSER, err.to_string()));
        }
        match Executor::new(&session, &options, &NoValues).run(plan).await {
            Ok(run) => {
                passed += 1;
                println!(
                    "PASS {} ({} actions, {} ms)",
                    plan.scenario_id,
                    run.actions.len(),
                    run.duration.as_millis()
                );
            }
            Err(failure) => {
                failed += 1;
                println!("FAIL {}\n  {failure}", plan.scenario_id);
            }
        }
    }
    let _ = session.close().await;
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILED)
    })
}

fn load_plan(path: &Path) -> Result<Plan, Fatal> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Fatal(exit::USAGE, format!("cannot read {}: {e}", path.display())))?;
    Plan::from_json_str(&text, &Rules::default())
        .map_err(|e| Fatal(exit::USAGE, format!("{}: {e}", path.display())))
}
