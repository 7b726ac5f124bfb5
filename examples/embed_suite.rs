//! Runs a project's scenarios against the demo shop from your own program, with a reporter of
//! your own that sees every event of the run.
//!
//! `cargo run --example embed_suite [PROJECT_DIR] [FILTER]` (default: this repository, every
//! scenario that is not ignored).

use std::path::PathBuf;
use std::process::ExitCode;

use windup::{RunEvent, Selection, Settings, Suite};

/// A reporter is anything that takes events: here, a line for the events a person follows.
fn report(event: &RunEvent) {
    match event {
        RunEvent::SuiteStarted { scenarios, .. } => println!("suite: {scenarios} to run"),
        RunEvent::ScenarioStarted { scenario } => println!("start {}", scenario.id),
        RunEvent::ActionFinished {
            scenario, action, ..
        } => println!("  {scenario}: {} {}", action.id, action.kind),
        RunEvent::ScenarioFinished { result, .. } => match result.failure() {
            None => println!("pass {}", result.id),
            Some(failure) => println!("fail {} ({})", result.id, failure.class()),
        },
        RunEvent::SuiteFinished { totals } => {
            println!("done: {} passed, {} failed", totals.passed, totals.failed)
        }
        _ => {}
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let project = args
        .next()
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let filter = args.next();
    let settings = match Settings::load(&project) {
        Ok(settings) => settings,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(2);
        }
    };
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the demo shop starts on loopback");
    let base_url = shop.url().parse().expect("the shop's URL");
    let selection = match Selection::load(&settings, filter.as_deref(), false) {
        Ok(selection) => selection,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(2);
        }
    };
    match Suite::new(settings, base_url)
        .reporter(report)
        .run(selection)
        .await
    {
        Ok(finished) if finished.totals.failed == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(err) => {
            eprintln!("{err}");
            ExitCode::from(3)
        }
    }
}
