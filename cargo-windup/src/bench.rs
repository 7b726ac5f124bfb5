//! `cargo windup bench SCENARIO`: the validation protocol of "plan once, replay free" for one
//! scenario (windup-core's `bench`); this only parses, prints and picks the exit code.

use clap::Args;
use windup_core::run::bench::{Bench, BenchError};

use crate::{CliError, SuiteArgs, base_url_of, project_settings_with};

pub(crate) const LONG_ABOUT: &str = "\
Bench one scenario: 5 fresh generations (at least 4 valid and passing), 10 replays of a plan that \
passed (all passing, no model call), the median replay at least 5x faster than the median \
generation, replays at $0, and a plan with one selector broken mended by a re-plan from the \
failure. Nothing is written to the plan cache or the lockfiles; every run goes to the ledger as \
kind `bench`. Exits 0 when all five criteria are met, 1 when one is not, 5 when the budgets \
under [llm] cannot hold the bench's model calls (nothing is asked then).";

#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// The scenario's id, as `cargo windup run` shows it.
    scenario: String,
    /// The site to test, instead of base_url from windup.toml.
    #[arg(long)]
    base_url: Option<String>,
    /// Print the report as JSON (progress still goes to standard error).
    #[arg(long)]
    json: bool,
    /// Show the browser window.
    #[arg(long)]
    headed: bool,
    /// The browser: chromium or firefox (default: `browser` in windup.toml, WINDUP_BROWSER).
    #[arg(long)]
    browser: Option<String>,
}

pub(crate) async fn bench(args: BenchArgs) -> Result<(), CliError> {
    let suite = SuiteArgs {
        headed: args.headed,
        browser: args.browser.clone(),
        ..SuiteArgs::default()
    };
    let settings = project_settings_with(&suite, args.base_url.as_deref())?;
    let base_url = base_url_of(&settings)?;
    let report = Bench::new(settings, base_url)
        .run(&args.scenario, &mut |step| eprintln!("{step}"))
        .await
        .map_err(|err| match err {
            BenchError::Usage(message) => CliError::Usage(message),
            BenchError::Browser(err) => CliError::Browser(err.to_string()),
            BenchError::Budget(message) => {
                eprintln!("error: {message}");
                CliError::Budget
            }
            BenchError::Failed(failure) => {
                eprintln!("error: {failure}");
                CliError::Failed
            }
            // A kind of error added later: said as it is, a failed bench.
            other => {
                eprintln!("error: {other}");
                CliError::Failed
            }
        })?;
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{report}");
    }
    if report.met {
        Ok(())
    } else {
        Err(CliError::Failed)
    }
}
