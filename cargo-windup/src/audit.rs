//! `cargo windup audit URL`, `audit show ID`, `audits` and `demo --audit`: their arguments, and
//! the wiring to windup-core's audit run, its terminal view and its store.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::{Args, Subcommand};
use url::Url;
use windup_core::config::Settings;
use windup_core::engine::audit::Budget;
use windup_core::run::audit::{AuditError, AuditFinished, AuditRun, STORE_FILE};
use windup_core::run::failure::relative;
use windup_core::run::report::{AuditView, audit_view};
use windup_core::store::{AuditStore, RunId, StoreError};

use crate::{CliError, SuiteArgs, project_settings, usage};

/// What `cargo windup audit --help` says before the arguments.
pub(crate) const LONG_ABOUT: &str = "Audit a running web app, or show an audit kept in the store.

`cargo windup audit URL` explores the app at URL, gathers the rules it must keep (Windup's
generic oracles and the invariants/*.yaml you write), attacks them with built-in moves and
seeded random walks, and keeps only the violations the browser reproduces from a fresh
session. Each finding is written as a regression scenario with a pinned plan under
scenarios/audit/, and the run is kept in .windup/audits.sqlite. The audit stays on URL's
origin and the allowed_origins of windup.toml; Ctrl-C stops it at its next step and keeps
what it found.

`cargo windup audit show ID` prints a stored run: its summary, each finding and the files of
its tests. `cargo windup audits` lists the stored runs and their ids.

Exit codes: 0 no findings, 1 findings, 2 usage or configuration error (a bad invariants file
prints every located error), 3 browser or driver unavailable.";

/// `cargo windup audit`: an audit to run, or a stored one to show.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct AuditCommand {
    #[command(subcommand)]
    stored: Option<Stored>,
    #[command(flatten)]
    run: AuditArgs,
}

#[derive(Debug, Subcommand)]
enum Stored {
    /// Show a stored audit: its summary, each finding (severity, expected, actual, impact,
    /// steps) and the files of its tests.
    Show {
        /// The run's id, as `cargo windup audits` lists it: `A-1001` (the `#` may be left out).
        id: String,
    },
}

#[derive(Debug, Args)]
struct AuditArgs {
    /// The app to audit: an http(s) URL. Its origin, with allowed_origins from windup.toml, is
    /// the audit's scope.
    #[arg(value_name = "URL", required = true, value_parser = http_url)]
    url: Option<Url>,
    /// Seeds every random choice: the same seed on the same app makes the same audit.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    #[arg(long, value_name = "N", value_parser = positive, help = format!(
        "Browser actions in all, replays and shrinking included [default: {}]",
        Budget::default().steps
    ))]
    steps: Option<usize>,
    #[arg(long, value_name = "DURATION", value_parser = duration, help = format!(
        "Wall time: 90s, 2m, 1m30s [default: {}s]",
        Budget::default().time.as_secs()
    ))]
    time: Option<Duration>,
    /// Walks through the app, each from a fresh session, choosing a person's moves at every
    /// step [default: as many as the budget allows].
    #[arg(long, value_name = "N", value_parser = positive)]
    walks: Option<usize>,
    #[arg(long, value_name = "N", value_parser = positive, help = format!(
        "Actions in each walk [default: {}]",
        Budget::default().walk_length
    ))]
    walk_length: Option<usize>,
    /// How a walk chooses its next move: `novelty` leans toward moves not yet made in a state
    /// like the current one; `coverage` also starts walks from earlier ones that reached code of
    /// the app no move had run; `uniform` goes by how often a person makes each move.
    #[arg(long, value_name = "STRATEGY", default_value = "novelty")]
    strategy: windup_core::engine::audit::Strategy,
    /// Do not count the edges of the app's scripts (docs/audit.md#coverage). Counting needs
    /// WebDriver BiDi, which the audit speaks where the driver offers it unless this is given.
    #[arg(long)]
    no_coverage: bool,
    /// Counting is on by default now; `--coverage`, which asked for it, is still taken.
    #[arg(long, hide = true, conflicts_with = "no_coverage")]
    coverage: bool,
    /// A directory of invariants (*.yaml) to hold the app to [default: invariants/ under the
    /// project root, when it exists].
    #[arg(long, value_name = "DIR")]
    invariants: Option<PathBuf>,
    /// Log in with [accounts.NAME] of windup.toml when a login form is found.
    #[arg(long, value_name = "NAME")]
    account: Option<String>,
    /// Keep away from paths matching a glob (`/admin/**`) or controls whose name holds the words
    /// (`Delete`); repeatable. Logging out and deleting the account are always kept away from.
    #[arg(long, value_name = "PATTERN")]
    deny: Vec<String>,
    /// Write no regression tests (findings are still stored).
    #[arg(long)]
    no_tests: bool,
    /// Let the model of [llm] in windup.toml propose the app's rules, plan attacks on them and
    /// judge what they break (it can only veto a violation the predicate found), within
    /// max_calls_per_audit and max_usd_per_audit.
    #[arg(long)]
    model: bool,
    /// Show the browser window.
    #[arg(long)]
    headed: bool,
    /// The browser: chromium or firefox (default: `browser` in windup.toml, WINDUP_BROWSER).
    #[arg(long, value_name = "NAME")]
    browser: Option<String>,
}

/// `cargo windup audits`.
#[derive(Debug, Args)]
pub(crate) struct AuditsArgs {
    /// How many runs to list, newest first.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = positive)]
    limit: usize,
}

/// The audit's target: an http(s) URL with a host.
fn http_url(text: &str) -> Result<Url, String> {
    let hint = "give the app's address, like http://localhost:3000";
    let url = Url::parse(text).map_err(|e| format!("not a URL ({e}); {hint}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(format!("not an http(s) URL; {hint}"));
    }
    Ok(url)
}

/// `90s`, `2m`, `1m30s`, `1500ms`: more than nothing.
fn duration(text: &str) -> Result<Duration, String> {
    let time = humantime::parse_duration(text)
        .map_err(|e| format!("{e}; write a duration like 90s, 2m or 1m30s"))?;
    if time.is_zero() {
        return Err("the audit needs some time: give more than 0s".to_owned());
    }
    Ok(time)
}

fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{e}; give a whole number")),
    }
}

pub(crate) async fn audit(command: AuditCommand) -> Result<(), CliError> {
    match command.stored {
        Some(Stored::Show { id }) => show(&id),
        None => run(command.run).await,
    }
}

async fn run(args: AuditArgs) -> Result<(), CliError> {
    let url = args
        .url
        .ok_or_else(|| usage("the app to audit is missing: cargo windup audit URL"))?;
    let suite = SuiteArgs {
        headed: args.headed,
        browser: args.browser.clone(),
        ..SuiteArgs::default()
    };
    let settings = project_settings(&suite)?;
    let defaults = Budget::default();
    let mut budget = defaults;
    budget.steps = args.steps.unwrap_or(defaults.steps);
    budget.time = args.time.unwrap_or(defaults.time);
    budget.walks = args.walks.or(defaults.walks);
    budget.walk_length = args.walk_length.unwrap_or(defaults.walk_length);
    let invariants = args.invariants.or_else(|| {
        let dir = settings.root.join("invariants");
        dir.is_dir().then_some(dir)
    });
    let mut audit = AuditRun::new(settings, url)
        .seed(args.seed)
        .budget(budget)
        .strategy(args.strategy)
        .coverage(args.coverage || !args.no_coverage)
        .deny(&args.deny)
        .map_err(from_audit)?
        .with_model(args.model)
        .reporter(AuditView::new());
    if let Some(dir) = invariants {
        audit = audit.invariants_dir(dir);
    }
    if let Some(name) = args.account {
        audit = audit.account(name);
    }
    if args.no_tests {
        audit = audit.emit_to(None);
    }
    let finished = run_to_end(audit).await?;
    audit_view::print(&audit_view::summary(&finished));
    if finished.outcome.findings.is_empty() {
        Ok(())
    } else {
        Err(CliError::Findings)
    }
}

/// Runs the audit; the first Ctrl-C stops it at its next step (what it found is kept), a second
/// one ends the process.
async fn run_to_end(audit: AuditRun) -> Result<AuditFinished, CliError> {
    let stop = audit.stop_flag();
    let watch = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("windup: stopping the audit at its next step; Ctrl-C again ends it now");
            stop.store(true, Ordering::SeqCst);
            if tokio::signal::ctrl_c().await.is_ok() {
                std::process::exit(130);
            }
        }
    });
    let done = audit.run().await;
    watch.abort();
    done.map_err(from_audit)
}

fn from_audit(err: AuditError) -> CliError {
    match err {
        AuditError::Browser(err) => CliError::Browser(err.to_string()),
        AuditError::Unusable { browser: true, .. } => CliError::Browser(err.to_string()),
        AuditError::Invariants(errors) => {
            let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
            CliError::Usage(format!(
                "the invariants cannot be used ({}):\n{}",
                windup_core::run::report::count(all.len(), "error"),
                all.join("\n")
            ))
        }
        other => CliError::Usage(other.to_string()),
    }
}

fn from_store(err: StoreError) -> CliError {
    CliError::Usage(err.to_string())
}

/// The project's audit store, when one has been written; never created by looking.
fn existing_store() -> Result<Option<(PathBuf, AuditStore)>, CliError> {
    let root = std::env::current_dir().map_err(|e| usage(format!("no current directory: {e}")))?;
    let path = root.join(STORE_FILE);
    if !path.is_file() {
        return Ok(None);
    }
    let store = AuditStore::open(&path).map_err(from_store)?;
    Ok(Some((path, store)))
}

/// `cargo windup audits`: the stored runs, newest first.
pub(crate) fn history(args: &AuditsArgs) -> Result<(), CliError> {
    let runs = match existing_store()? {
        Some((_, store)) => store.runs(args.limit).map_err(from_store)?,
        None => Vec::new(),
    };
    if runs.is_empty() {
        println!("no audits yet: run `cargo windup audit URL` (or `cargo windup demo --audit`)");
        return Ok(());
    }
    audit_view::print(&audit_view::history(&runs));
    Ok(())
}

/// `cargo windup audit show ID`.
fn show(id: &str) -> Result<(), CliError> {
    let how = "`cargo windup audits` lists the stored runs and their ids";
    let run: RunId = id
        .parse()
        .map_err(|e: StoreError| usage(format!("{e}\n  {how}")))?;
    let Some((path, store)) = existing_store()? else {
        return Err(usage(format!(
            "no audit {run}: there are no audits here yet ({STORE_FILE} is missing); {how}"
        )));
    };
    match audit_view::stored_run(&store, &run).map_err(from_store)? {
        Some(lines) => {
            audit_view::print(&lines);
            Ok(())
        }
        None => Err(usage(format!(
            "no audit {run} in {}; {how}",
            relative(&path).display()
        ))),
    }
}

/// `cargo windup demo --audit`: the demo shop with every seeded bug, audited with its own
/// invariants and demo account; its tests go to `.windup/demo-audit/`, not into `scenarios/`.
pub(crate) async fn demo(suite: &SuiteArgs, yes: bool) -> Result<(), CliError> {
    let mut settings = project_settings(suite)?;
    crate::ensure_browser(&settings, yes)?;
    with_demo_account(&mut settings);
    let emit = settings.root.join(".windup/demo-audit");
    // The shop's invariants are built into it; the audit reads them from a folder of its own.
    let invariants = settings.root.join(".windup/demo-invariants");
    std::fs::create_dir_all(&invariants)
        .and_then(|()| std::fs::write(invariants.join("shop.yaml"), windup_shop::INVARIANTS))
        .map_err(|e| usage(format!("cannot write {}: {e}", invariants.display())))?;
    let shop = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: windup_shop::BugSet::all(),
        ..Default::default()
    })
    .await
    .map_err(|e| usage(format!("the demo shop did not start: {e}")))?;
    println!("demo shop at {} with every seeded bug", shop.url());
    let url = Url::parse(shop.url()).map_err(usage)?;
    let audit = AuditRun::new(settings, url)
        .invariants_dir(invariants)
        .account(DEMO_ACCOUNT)
        .emit_to(Some(emit.clone()))
        .reporter(AuditView::new());
    let finished = run_to_end(audit).await?;
    drop(shop);
    audit_view::print(&audit_view::summary(&finished));
    print_recap(&finished, &emit);
    Ok(())
}

/// The account the demo logs in with, as `[accounts.demo]` in windup.toml would name it.
const DEMO_ACCOUNT: &str = "demo";

/// `[accounts.demo]` with the shop's public demo credentials, through the settings' env file
/// (these are published values, not secrets).
fn with_demo_account(settings: &mut Settings) {
    let (email, password) = ("WINDUP_DEMO_SHOP_EMAIL", "WINDUP_DEMO_SHOP_PASSWORD");
    settings.accounts.insert(
        DEMO_ACCOUNT.to_owned(),
        [("email", email), ("password", password)]
            .into_iter()
            .map(|(key, var)| (key.to_owned(), var.to_owned()))
            .collect(),
    );
    settings.env_file = settings
        .env_file
        .clone()
        .with(email, windup_shop::DEMO_EMAIL)
        .with(password, windup_shop::DEMO_PASSWORD);
}

/// The demo's findings and the files it wrote, once more, in a few lines.
fn print_recap(finished: &AuditFinished, emit: &Path) {
    let findings = &finished.outcome.findings;
    if findings.is_empty() {
        println!("the audit found nothing within its budget");
        return;
    }
    println!("findings:");
    for finding in findings {
        println!(
            "  {} ({}): {}",
            finding.id,
            finding.severity.as_str(),
            finding.title
        );
    }
    if finished.tests.is_empty() {
        return;
    }
    println!("regression tests written to {}:", relative(emit).display());
    for test in &finished.tests {
        let spec = match &test.spec {
            Ok(spec) => format!("; Playwright: {}", relative(&spec.path).display()),
            Err(why) => format!("; no Playwright spec: {why}"),
        };
        println!(
            "  {} (plan {}{spec})",
            relative(&test.scenario).display(),
            relative(&test.lockfile).display()
        );
    }
}
