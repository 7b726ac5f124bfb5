//! `cargo windup`: a thin command line over windup-core.
//!
//! Exit codes: 0 passed, 1 a plan failed, 2 usage or input error, 3 browser or driver unavailable.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use windup_core::executor::NoValues;
use windup_core::plan::{Plan, Rules};
use windup_core::{Browser, BrowserConfig, ExecOptions, Executor, Session};

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
    /// Start the demo shop on a free port and replay the plans in scenarios/ against it.
    Demo {
        /// Where the plans are (`*.plan.json`).
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
        /// Show the browser window.
        #[arg(long)]
        headed: bool,
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
        /// Where screenshots of failures go.
        #[arg(long, default_value = ".windup/artifacts")]
        artifacts: PathBuf,
    },
}

/// Exit codes, as documented in docs/cli.md.
mod exit {
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BROWSER: u8 = 3;
}

fn main() -> ExitCode {
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
    runtime.block_on(async {
        match cli.command {
            Command::Demo { scenarios, headed } => demo(&scenarios, headed).await,
            Command::Exec {
                plans,
                base_url,
                headed,
                artifacts,
            } => {
                let mut options = ExecOptions::new(base_url);
                options.artifacts_dir = artifacts;
                exec(&plans, options, headed).await
            }
        }
    })
}

async fn demo(scenarios: &Path, headed: bool) -> ExitCode {
    let plans = match plan_files(scenarios) {
        Ok(plans) if !plans.is_empty() => plans,
        Ok(_) => {
            eprintln!(
                "error: no *.plan.json in {}; run the demo from the Windup repository root",
                scenarios.display()
            );
            return ExitCode::from(exit::USAGE);
        }
        Err(err) => {
            eprintln!(
                "error: cannot read {}: {err}; run the demo from the Windup repository root",
                scenarios.display()
            );
            return ExitCode::from(exit::USAGE);
        }
    };
    let shop = match windup_shop::spawn(Default::default()).await {
        Ok(shop) => shop,
        Err(err) => {
            eprintln!("error: the demo shop did not start: {err}");
            return ExitCode::from(exit::USAGE);
        }
    };
    println!("demo shop at {}", shop.url());
    let base = match shop.url().parse() {
        Ok(base) => base,
        Err(err) => {
            eprintln!(
                "error: the demo shop's URL {} is invalid: {err}",
                shop.url()
            );
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut options = ExecOptions::new(base);
    options.artifacts_dir = PathBuf::from(".windup/artifacts");
    exec(&plans, options, headed).await
}

/// Runs plan files one after another on one session, printing a line per plan and a summary.
async fn exec(plans: &[PathBuf], options: ExecOptions, headed: bool) -> ExitCode {
    let mut loaded = Vec::new();
    for path in plans {
        match load(path) {
            Ok(plan) => loaded.push(plan),
            Err(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(exit::USAGE);
            }
        }
    }
    let mut config = BrowserConfig::from_env();
    config.headless &= !headed;
    let browser = match Browser::launch(config).await {
        Ok(browser) => browser,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(exit::BROWSER);
        }
    };
    let session = match browser.new_session().await {
        Ok(session) => session,
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(exit::BROWSER);
        }
    };
    let (passed, failed) = replay_all(&session, &loaded, &options).await;
    let _ = session.close().await;
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(exit::FAILED)
    }
}

async fn replay_all(session: &Session, plans: &[Plan], options: &ExecOptions) -> (usize, usize) {
    let (mut passed, mut failed) = (0, 0);
    for plan in plans {
        if let Err(err) = session.reset().await {
            println!(
                "FAIL {} (the browser could not be reset: {err})",
                plan.scenario_id
            );
            failed += 1;
            continue;
        }
        match Executor::new(session, options, &NoValues).run(plan).await {
            Ok(run) => {
                passed += 1;
                println!(
                    "PASS {} ({} actions, {})",
                    plan.scenario_id,
                    run.actions.len(),
                    millis(run.duration)
                );
            }
            Err(failure) => {
                failed += 1;
                println!("FAIL {}\n  {failure}", plan.scenario_id);
            }
        }
    }
    (passed, failed)
}

fn load(path: &Path) -> Result<Plan, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Plan::from_json_str(&text, &Rules::default()).map_err(|e| format!("{}: {e}", path.display()))
}

fn plan_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.to_string_lossy().ends_with(".plan.json"))
        .collect();
    found.sort();
    Ok(found)
}

fn millis(duration: Duration) -> String {
    format!("{} ms", duration.as_millis())
}
