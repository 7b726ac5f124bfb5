//! `cargo windup`: a thin command line over windup-core.
//!
//! Exit codes (docs/cli.md#exit-codes): 0 passed, 1 scenarios failed (or, for an audit, findings
//! exist), 2 usage or configuration error, 3 browser or driver unavailable, 4 read-only run needed
//! planning, 5 budget exceeded, 6 secret leaked. [`CliError`] owns them.

mod audit;
mod bench;
#[cfg(test)]
mod documented;
mod impact;
mod map;
mod new;
mod scan;
mod serve;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use windup_core::browser::BrowserKind;
use windup_core::browser::install::{InstallPlan, availability, install_plan};
use windup_core::config::Settings;
use windup_core::engine::cache::{EntryStatus, PlanCache};
use windup_core::engine::executor::NoValues;
use windup_core::front::ci;
use windup_core::front::init::Change;
use windup_core::model::plan::{Plan, Rules};
use windup_core::run::failure::relative;
use windup_core::run::report::{Terminal, count};
use windup_core::run::runner::exec_options;
use windup_core::run::suite::{Finished, Selection, Suite, SuiteError};
use windup_core::{browser::Browser, engine::executor::Executor};
use windup_core::{engine::ledger, engine::lockfile};

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
        /// Only the scenarios that cross pages whose source changed since this git revision
        /// (see `cargo windup impact`).
        #[arg(long, value_name = "REV")]
        affected: Option<String>,
    },
    /// Write a scenario for review from an instruction, anchored in the site map and the
    /// accounts (one model call, or a scaffold with no model).
    New(new::NewArgs),
    /// Bench one scenario: fresh generations, replays, speed, cost and a broken selector
    /// mended; exits 0 when all five criteria are met.
    #[command(long_about = bench::LONG_ABOUT)]
    Bench(bench::BenchArgs),
    /// Start the demo shop on a free port and run scenarios/ against it (or, with --audit,
    /// audit it).
    Demo {
        #[command(flatten)]
        suite: SuiteArgs,
        /// Install Chromium and ChromeDriver without asking, when they are missing.
        #[arg(long, short = 'y')]
        yes: bool,
        /// Audit the shop with all its seeded bugs instead, with its invariants and demo
        /// account; the tests it writes go to .windup/demo-audit/.
        #[arg(long, conflicts_with_all = ["workers", "include_ignored", "report", "summary"])]
        audit: bool,
    },
    /// Audit a running web app (URL), or show a stored audit (show ID).
    #[command(long_about = audit::LONG_ABOUT)]
    Audit(audit::AuditCommand),
    /// The audits in the store (.windup/audits.sqlite), newest first.
    Audits(audit::AuditsArgs),
    /// The site map every run adds to, drawn: .windup/sitemap.dot and .windup/sitemap.html.
    Map(map::MapArgs),
    /// Find the routes the source declares (axum, react-router, Next.js) and add them to the
    /// site map.
    Scan(scan::ScanArgs),
    /// Serve the audit's HTTP API and its live dashboard (loopback by default).
    #[command(long_about = serve::LONG_ABOUT)]
    Serve(serve::ServeArgs),
    /// Scaffold windup.toml, tests/e2e.rs, a first scenario and the [[test]] entry in this crate
    /// (and, with --ci, a CI workflow that runs the scenarios in shards).
    Init(InitArgs),
    /// Install a browser and its driver: Chromium and ChromeDriver with the system package
    /// manager, or (`--browser firefox`) Firefox, and geckodriver from crates.io.
    Setup {
        /// Which browser: chromium or firefox (default: the project's `browser`, else chromium).
        #[arg(long)]
        browser: Option<String>,
    },
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
        #[arg(long, default_value = "scenario", value_parser = group_by)]
        by: ledger::GroupBy,
    },
    /// The scenarios that cross pages whose source changed: since a git revision (default:
    /// the uncommitted changes), or in the files given.
    Impact(impact::ImpactArgs),
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
        /// The site's base URL (default: base_url from windup.toml); plans carry paths joined
        /// to it.
        #[arg(long)]
        base_url: Option<String>,
        /// Show the browser window.
        #[arg(long)]
        headed: bool,
        /// The browser to replay in: chromium or firefox (default: `browser` in windup.toml).
        #[arg(long)]
        browser: Option<String>,
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

#[derive(Debug, Default, Args)]
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
    /// The browser: chromium or firefox (default: `browser` in windup.toml, WINDUP_BROWSER).
    #[arg(long)]
    browser: Option<String>,
    /// Reports to write: `junit=PATH,json=PATH,html=PATH`, any of them (also WINDUP_REPORT).
    #[arg(long, value_name = "KIND=PATH,…")]
    report: Option<String>,
    /// After the run, ask the model for a summary and a fix suggestion per failure (one call
    /// each, within the budgets; outcomes never change).
    #[arg(long)]
    summary: bool,
}

/// Why a command did not succeed; it owns the exit code (docs/cli.md#exit-codes).
#[derive(Debug)]
enum CliError {
    /// Bad arguments, an invalid `windup.toml`, no base URL, an unreadable plan: 2.
    Usage(String),
    /// The browser or its driver is unavailable: 3.
    Browser(String),
    /// At least one scenario failed, did not load, or its site could not be opened: 1.
    Failed,
    /// A scenario needed planning that this run may not do (read-only: CI or
    /// WINDUP_UPDATE=no): 4.
    ReadOnly,
    /// Planning needed a model call that would have gone over a budget: 5.
    Budget,
    /// An audit ran and found violations: 1 (its output has said what they are).
    Findings,
    /// A secret value was found in a file Windup wrote or in its output: 6.
    Leak,
    /// A scan met source files that do not parse (and was not told to keep going): 7.
    Unparsed(String),
}

impl CliError {
    fn exit_code(&self) -> u8 {
        match self {
            CliError::Failed | CliError::Findings => 1,
            CliError::Usage(_) => 2,
            CliError::Browser(_) => 3,
            CliError::ReadOnly => 4,
            CliError::Budget => 5,
            CliError::Leak => 6,
            CliError::Unparsed(_) => 7,
        }
    }

    /// What to print, when the run has not said it already.
    fn message(&self) -> Option<&str> {
        match self {
            CliError::Usage(message) | CliError::Browser(message) | CliError::Unparsed(message) => {
                Some(message)
            }
            _ => None,
        }
    }

    /// A suite's end: leaks first, then the failure classes with their own codes.
    fn of(finished: &Finished) -> Result<(), CliError> {
        let totals = &finished.totals;
        if !finished.leaks.is_empty() {
            Err(CliError::Leak)
        } else if totals.failed == 0 && finished.report_failed {
            Err(CliError::Usage("a report was not written".into()))
        } else if totals.failed == 0 {
            Ok(())
        } else if totals.budget > 0 {
            Err(CliError::Budget)
        } else if totals.read_only > 0 {
            Err(CliError::ReadOnly)
        } else {
            Err(CliError::Failed)
        }
    }
}

impl From<SuiteError> for CliError {
    fn from(err: SuiteError) -> Self {
        match err {
            SuiteError::Browser(err) => CliError::Browser(err.to_string()),
            other => CliError::Usage(other.to_string()),
        }
    }
}

fn usage(message: impl std::fmt::Display) -> CliError {
    CliError::Usage(message.to_string())
}

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
            let code = if err.use_stderr() { 2 } else { 0 };
            return ExitCode::from(code);
        }
    };
    let done = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime.block_on(dispatch(cli.command)),
        Err(err) => Err(CliError::Browser(format!(
            "cannot start the async runtime: {err}"
        ))),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            if let Some(message) = err.message() {
                eprintln!("error: {message}");
            }
            ExitCode::from(err.exit_code())
        }
    }
}

async fn dispatch(command: Command) -> Result<(), CliError> {
    match command {
        Command::Run {
            filter,
            suite,
            base_url,
            affected,
        } => {
            run(
                filter.as_deref(),
                &suite,
                base_url.as_deref(),
                affected.as_deref(),
            )
            .await
        }
        Command::Impact(args) => impact::impact(&args),
        Command::New(args) => new::new(args).await,
        Command::Bench(args) => bench::bench(args).await,
        Command::Demo {
            suite,
            yes,
            audit: true,
        } => audit::demo(&suite, yes).await,
        Command::Demo { suite, yes, .. } => demo(&suite, yes).await,
        Command::Audit(command) => audit::audit(command).await,
        Command::Audits(args) => audit::history(&args),
        Command::Serve(args) => serve::serve(args).await,
        Command::Map(args) => map::map(&args),
        Command::Scan(args) => scan::scan(&args).await,
        Command::Init(args) => init(&args),
        Command::Cache { action } => cache(action),
        Command::Costs { since, by } => costs(since.as_deref(), by),
        Command::Review {
            accept_all,
            reject_all,
        } => review(accept_all, reject_all),
        Command::Setup { browser } => setup_command(browser.as_deref()),
        Command::Exec {
            plans,
            base_url,
            headed,
            browser,
        } => {
            let suite = SuiteArgs {
                headed,
                browser,
                ..SuiteArgs::default()
            };
            exec(&plans, base_url, &suite).await
        }
    }
}

fn project_settings(suite: &SuiteArgs) -> Result<Settings, CliError> {
    project_settings_with(suite, None)
}

/// The project's settings with the suite's flags (and `--base-url`) over the environment and
/// windup.toml, all checked by the same rules.
fn project_settings_with(suite: &SuiteArgs, base_url: Option<&str>) -> Result<Settings, CliError> {
    let root = std::env::current_dir().map_err(|e| usage(format!("no current directory: {e}")))?;
    let overrides = windup_core::config::Overrides {
        workers: suite.workers,
        headed: suite.headed,
        report: suite.report.clone(),
        base_url: base_url.map(str::to_owned),
        browser: suite.browser.clone(),
    };
    Settings::load_with(&root, &overrides).map_err(usage)
}

/// The base URL to test (`--base-url` is in the settings already); without one, what to do.
fn base_url_of(settings: &Settings) -> Result<url::Url, CliError> {
    if let Some(url) = &settings.base_url {
        return Ok(url.clone());
    }
    let config = settings.root.join("windup.toml");
    Err(usage(if config.exists() {
        "no base URL: set base_url in windup.toml or WINDUP_BASE_URL, or pass --base-url".to_owned()
    } else {
        format!(
            "no windup.toml found in {}: run `cargo windup init` to set Windup up here, or pass \
             --base-url (or set WINDUP_BASE_URL)",
            settings.root.display()
        )
    }))
}

async fn run(
    filter: Option<&str>,
    suite: &SuiteArgs,
    base_url: Option<&str>,
    affected: Option<&str>,
) -> Result<(), CliError> {
    let settings = project_settings_with(suite, base_url)?;
    let base_url = base_url_of(&settings)?;
    let mut selection = Selection::load(&settings, filter, suite.include_ignored)?;
    if let Some(rev) = affected {
        let changes = impact::since(&settings.root, rev)?;
        let found = impact::affected(&settings, &changes);
        selection
            .scenarios
            .retain(|s| found.scenarios.contains_key(&s.id));
        println!(
            "{} scenario(s) cross pages changed since {rev}",
            selection.scenarios.len()
        );
        if selection.is_empty() {
            return Ok(());
        }
    }
    run_scenarios(settings, base_url, selection, suite.summary).await
}

async fn demo(suite: &SuiteArgs, yes: bool) -> Result<(), CliError> {
    let settings = project_settings(suite)?;
    ensure_browser(&settings, yes)?;
    let selection = Selection::load(&settings, None, suite.include_ignored)?;
    if selection.is_empty() {
        return Err(usage(format!(
            "no scenarios in {}: run the demo from the root of the Windup repository",
            settings.scenarios_dir.display()
        )));
    }
    let shop = windup_shop::spawn(Default::default())
        .await
        .map_err(|e| usage(format!("the demo shop did not start: {e}")))?;
    println!("demo shop at {}", shop.url());
    let base_url = url::Url::parse(shop.url()).map_err(usage)?;
    run_scenarios(settings, base_url, selection, suite.summary).await
}

/// For the demos: the browser and its driver are here, or installed now with consent (`yes`, or
/// an answer in a terminal). Without either it says the exact commands and stops (exit 3): no
/// prompt waits where nobody can answer it.
fn ensure_browser(settings: &Settings, yes: bool) -> Result<(), CliError> {
    let found = availability(&settings.browser_config());
    if settings.browser.webdriver_url.is_some() || found.ready() {
        return Ok(());
    }
    let missing = found.missing().join(" and ");
    let names = settings.browser.kind.names();
    println!(
        "The demo runs in {} through {}; missing here: {missing}.",
        names.browser, names.driver
    );
    if !(yes || confirm("Install them now with the system package manager?")) {
        let how = match install_plan(settings.browser.kind) {
            InstallPlan::Commands(commands) => format!(
                "install them with `{}`, or run the demo again with --yes to let it do that",
                commands
                    .iter()
                    .map(|command| command.join(" "))
                    .collect::<Vec<_>>()
                    .join(" && ")
            ),
            InstallPlan::Manual(instructions) => instructions,
        };
        return Err(CliError::Browser(format!("{missing} missing: {how}")));
    }
    setup(settings.browser.kind)
}

/// Runs a suite with the terminal reporter; the exit code says how it went.
async fn run_scenarios(
    settings: Settings,
    base_url: url::Url,
    selection: Selection,
    summary: bool,
) -> Result<(), CliError> {
    let finished = Suite::new(settings, base_url)
        .reporter(Terminal::new())
        .with_summary(summary)
        .run(selection)
        .await?;
    CliError::of(&finished)
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
fn review(accept_all: bool, reject_all: bool) -> Result<(), CliError> {
    let settings = project_settings(&SuiteArgs::default())?;
    let waiting =
        lockfile::pending(&settings.scenarios_dir).map_err(|e| CliError::Usage(e.to_string()))?;
    if waiting.is_empty() {
        println!("no plans to review");
        return Ok(());
    }
    let interactive = std::io::stdin().is_terminal();
    if !(accept_all || reject_all || interactive) {
        return Err(CliError::Usage(format!(
            "{} plans wait for review; run `cargo windup review` in a terminal, or pass --accept-all or --reject-all",
            waiting.len()
        )));
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
        let decision = if accept_all {
            Decision::Accept
        } else if reject_all {
            Decision::Reject
        } else {
            ask("[a]ccept, [r]eject or [s]kip?")
        };
        let outcome = match decision {
            Decision::Accept => lockfile::accept(&pending.path).map(|_| accepted += 1),
            Decision::Reject => lockfile::reject(&pending.path).map(|_| rejected += 1),
            Decision::Skip => {
                skipped += 1;
                Ok(())
            }
        };
        outcome.map_err(|e| CliError::Usage(e.to_string()))?;
    }
    println!("{accepted} accepted, {rejected} rejected, {skipped} skipped");
    Ok(())
}

/// What a person decides about a pending plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decision {
    Accept,
    Reject,
    Skip,
}

/// Asks about one plan; anything but an answer starting with `a` or `r` skips it.
fn ask(question: &str) -> Decision {
    print!("{question} ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return Decision::Skip;
    }
    match answer.trim().chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a') => Decision::Accept,
        Some('r') => Decision::Reject,
        _ => Decision::Skip,
    }
}

fn cache(action: CacheAction) -> Result<(), CliError> {
    let root = std::env::current_dir()
        .map_err(|e| CliError::Usage(format!("no current directory: {e}")))?;
    let cache = PlanCache::new(&root);
    let failed = |e: windup_core::engine::cache::CacheError| CliError::Usage(e.to_string());
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
                return Err(CliError::Usage(format!(
                    "no cached plan for scenario {scenario:?}"
                )));
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
    Ok(())
}

fn status(status: EntryStatus) -> &'static str {
    match status {
        EntryStatus::Active => "active",
        EntryStatus::Stale => "stale",
    }
}

/// Prints the cost report of the project's ledger.
/// `--by`, parsed by the ledger's own names.
fn group_by(text: &str) -> Result<ledger::GroupBy, String> {
    text.parse()
}

fn costs(since: Option<&str>, by: ledger::GroupBy) -> Result<(), CliError> {
    let root = std::env::current_dir()
        .map_err(|e| CliError::Usage(format!("no current directory: {e}")))?;
    let since =
        match since {
            Some(text) => {
                let format = time::macros::format_description!("[year]-[month]-[day]");
                Some(time::Date::parse(text, &format).map_err(|e| {
                    CliError::Usage(format!("--since {text:?}: {e}; use YYYY-MM-DD"))
                })?)
            }
            None => None,
        };
    let read = ledger::Ledger::new(&root)
        .read()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let prices =
        ledger::PriceTable::for_project(&root).map_err(|e| CliError::Usage(e.to_string()))?;
    print!("{}", ledger::costs(&read.records, &prices, since, by));
    if read.skipped_lines > 0 {
        println!(
            "({} ledger lines were not whole records and were skipped)",
            read.skipped_lines
        );
    }
    Ok(())
}

#[derive(Debug, Args)]
struct InitArgs {
    /// Also write a CI workflow that runs the scenarios read-only in shards, with their reports
    /// as artifacts: github (.github/workflows/windup.yml) or gitlab (.gitlab-ci.yml).
    #[arg(long, value_name = "PROVIDER")]
    ci: Option<String>,
    /// How many shards (jobs at once) the workflow runs the scenarios in [default: 2].
    #[arg(long, value_name = "N", requires = "ci")]
    shards: Option<u32>,
}

fn init(args: &InitArgs) -> Result<(), CliError> {
    let version = env!("CARGO_PKG_VERSION");
    // Checked before anything is written.
    let recipe = match &args.ci {
        Some(provider) => {
            let provider = provider.parse::<ci::Provider>().map_err(usage)?;
            let shards = args.shards.unwrap_or(ci::Recipe::SHARDS);
            Some(ci::Recipe::new(provider, shards, version).map_err(usage)?)
        }
        None => None,
    };
    let root = std::env::current_dir()
        .map_err(|e| CliError::Usage(format!("no current directory: {e}")))?;
    let requirement = version
        .rsplit_once('.')
        .map_or(version, |(major_minor, _)| major_minor);
    let mut changes = windup_core::front::init::init(&root, requirement).map_err(usage)?;
    if let Some(recipe) = &recipe {
        changes.extend(ci::write(&root, recipe).map_err(usage)?);
    }
    if !changes.iter().any(Change::changed) {
        println!("Windup is already set up here; nothing changed.");
    }
    for change in changes {
        println!("{change}");
    }
    println!("next: write scenarios in scenarios/, then `cargo test --test e2e`");
    if let Some(recipe) = recipe {
        println!(
            "then commit the plans (scenarios/*.plan.json) with {}: CI replays them and plans nothing",
            recipe.provider().workflow_path()
        );
    }
    Ok(())
}

/// `cargo windup setup`: the browser named, else the project's, else Chromium.
fn setup_command(browser: Option<&str>) -> Result<(), CliError> {
    let suite = SuiteArgs {
        browser: browser.map(str::to_owned),
        ..SuiteArgs::default()
    };
    let kind = match project_settings(&suite) {
        Ok(settings) => settings.browser.kind,
        // A project whose windup.toml is broken can still get a browser it names on the line.
        Err(err) => match browser.map(str::parse::<BrowserKind>) {
            Some(Ok(kind)) => kind,
            None => BrowserKind::default(),
            Some(Err(_)) => return Err(err),
        },
    };
    setup(kind)
}

fn setup(kind: BrowserKind) -> Result<(), CliError> {
    match install_plan(kind) {
        InstallPlan::Commands(commands) => {
            for command in commands {
                println!("$ {}", command.join(" "));
                let status = std::process::Command::new(&command[0])
                    .args(&command[1..])
                    .status()
                    .map_err(|e| CliError::Browser(format!("cannot run {}: {e}", command[0])))?;
                if !status.success() {
                    return Err(CliError::Browser(format!(
                        "`{}` failed ({status}); run it yourself to see why",
                        command.join(" ")
                    )));
                }
            }
            let names = kind.names();
            println!("{} and {} are installed.", names.browser, names.driver);
            Ok(())
        }
        InstallPlan::Manual(instructions) => Err(CliError::Browser(instructions)),
    }
}

/// Replays plan files on one session, a line per plan and a summary; the executor's options
/// come from the settings, as for every run.
async fn exec(
    plans: &[PathBuf],
    base_url: Option<String>,
    suite: &SuiteArgs,
) -> Result<(), CliError> {
    let loaded = plans
        .iter()
        .map(|p| load_plan(p))
        .collect::<Result<Vec<_>, _>>()?;
    let settings = project_settings_with(suite, base_url.as_deref())?;
    let base_url = base_url_of(&settings)?;
    let browser = Browser::launch(settings.browser_config())
        .await
        .map_err(|e| CliError::Browser(e.to_string()))?;
    let session = browser
        .new_session()
        .await
        .map_err(|e| CliError::Browser(e.to_string()))?;
    let options = exec_options(&settings, &base_url);
    let (mut passed, mut failed) = (0, 0);
    for plan in &loaded {
        if let Err(err) = session.reset().await {
            let _ = session.close().await;
            return Err(CliError::Browser(err.to_string()));
        }
        match Executor::new(&session, &options, &NoValues).run(plan).await {
            Ok(run) => {
                passed += 1;
                println!(
                    "PASS {} ({}, {} ms)",
                    plan.scenario_id,
                    count(run.actions.len(), "action"),
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
    if failed == 0 {
        Ok(())
    } else {
        Err(CliError::Failed)
    }
}

fn load_plan(path: &Path) -> Result<Plan, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::Usage(format!("cannot read {}: {e}", path.display())))?;
    Plan::from_json_str(&text, &Rules::default())
        .map_err(|e| CliError::Usage(format!("{}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init_args(args: &[&str]) -> Result<InitArgs, clap::Error> {
        let line = ["cargo windup", "init"].iter().chain(args);
        match Cli::try_parse_from(line)?.command {
            Command::Init(args) => Ok(args),
            other => panic!("not init: {other:?}"),
        }
    }

    #[test]
    fn init_takes_a_ci_provider_and_shards_only_with_it() {
        let args = init_args(&["--ci", "gitlab", "--shards", "4"]).unwrap();
        assert_eq!((args.ci.as_deref(), args.shards), (Some("gitlab"), Some(4)));
        let args = init_args(&[]).unwrap();
        assert_eq!((args.ci, args.shards), (None, None));
        let err = init_args(&["--shards", "4"]).unwrap_err().to_string();
        assert!(err.contains("--ci <PROVIDER>"), "{err}");
        let err = init_args(&["--ci", "github", "--shards", "two"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("'--shards <N>'"), "{err}");
    }

    #[test]
    fn a_bad_provider_or_shard_count_is_a_usage_error_naming_the_flag() {
        for (ci, shards, said) in [
            ("jenkins", None, "`--ci jenkins`"),
            ("github", Some(0), "`--shards 0`"),
        ] {
            let args = InitArgs {
                ci: Some(ci.to_owned()),
                shards,
            };
            // Refused before the current directory is even looked at.
            let err = init(&args).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            assert!(err.message().is_some_and(|m| m.contains(said)), "{said}");
        }
    }
}
