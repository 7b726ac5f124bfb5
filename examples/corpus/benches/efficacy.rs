//! The audit's efficacy on the corpus, as a benchmark: seeded audits of every app with its bugs
//! on and of its correct build, and per bug the runs that found it, the false positives, the
//! median time to the first finding, actions per second and states covered.
//!
//! `cargo bench -p windup-corpus --bench efficacy -- [--seeds N] [--time S] [--apps a,b]
//! [--strategy novelty|coverage|uniform|both|all|a,b] [--jobs N] [--tool windup|bombadil|both]`
//! (defaults: 10 seeds, 60 s, every app, novelty, one audit at a time, Windup alone; `both` is
//! novelty and uniform, `all` adds coverage; a list such as `coverage,novelty` names them). With `--jobs 2` two audits (each with its own
//! browser and site) run at once: the run takes half as long, and each audit has less of the
//! machine, so its actions per second are lower than alone.
//!
//! `--tool both` runs Bombadil (tools/bombadil, installed with `npm ci` on first use) beside
//! Windup on each app and seed, each with the same time on a fresh site with every bug on, and
//! each once on the correct build; it prints markdown tables, a column per tool. `--tool
//! bombadil` runs Bombadil alone.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;

use windup_core::engine::audit::Strategy;
use windup_corpus::App;
use windup_corpus::efficacy::{Plan, Tool, Trial, table, trial};
use windup_corpus::{bombadil, compare};

/// Which tools run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tools {
    Windup,
    Bombadil,
    Both,
}

struct Options {
    seeds: u64,
    time: Duration,
    apps: Option<Vec<String>>,
    strategies: Vec<Strategy>,
    jobs: usize,
    tools: Tools,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        seeds: 10,
        time: Duration::from_secs(60),
        apps: None,
        strategies: vec![Strategy::Novelty],
        jobs: 1,
        tools: Tools::Windup,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--seeds" => options.seeds = value()?.parse().map_err(|e| format!("--seeds: {e}"))?,
            "--time" => {
                let seconds: u64 = value()?.parse().map_err(|e| format!("--time: {e}"))?;
                options.time = Duration::from_secs(seconds);
            }
            "--apps" => options.apps = Some(value()?.split(',').map(str::to_owned).collect()),
            "--strategy" => {
                options.strategies = match value()?.as_str() {
                    "both" => vec![Strategy::Novelty, Strategy::Uniform],
                    "all" => vec![Strategy::Coverage, Strategy::Novelty, Strategy::Uniform],
                    list => list.split(',').map(str::parse).collect::<Result<_, _>>()?,
                }
            }
            "--jobs" => {
                options.jobs = value()?.parse().map_err(|e| format!("--jobs: {e}"))?;
                if options.jobs == 0 {
                    return Err("--jobs must be at least 1".into());
                }
            }
            "--tool" => {
                options.tools = match value()?.as_str() {
                    "windup" => Tools::Windup,
                    "bombadil" => Tools::Bombadil,
                    "both" => Tools::Both,
                    other => return Err(format!("--tool {other}: windup, bombadil or both")),
                }
            }
            // What cargo bench passes to every bench binary.
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// One run of the benchmark.
#[derive(Clone, Copy)]
struct Run<'a> {
    tool: Tool,
    strategy: Strategy,
    app: &'a App,
    seed: u64,
    bugs_on: bool,
}

/// The runs, in order. Windup alone audits every seed with the bugs on and off, its strategies
/// in turn (so whatever else the machine does falls on each alike); beside Bombadil,
/// each seed has both tools in turn with the bugs on, and each tool the correct build once.
fn runs<'a>(options: &Options, apps: &'a [App]) -> Vec<Run<'a>> {
    let mut tools: Vec<(Tool, Strategy)> = Vec::new();
    if options.tools != Tools::Bombadil {
        tools.extend(options.strategies.iter().map(|s| (Tool::Windup, *s)));
    }
    if options.tools != Tools::Windup {
        tools.push((Tool::Bombadil, Strategy::Novelty));
    }
    let mut runs = Vec::new();
    let run = |(tool, strategy): (Tool, Strategy), app, seed, bugs_on| Run {
        tool,
        strategy,
        app,
        seed,
        bugs_on,
    };
    if options.tools == Tools::Windup {
        for app in apps {
            for seed in 1..=options.seeds {
                for bugs_on in [true, false] {
                    runs.extend(tools.iter().map(|t| run(*t, app, seed, bugs_on)));
                }
            }
        }
        return runs;
    }
    for app in apps {
        for seed in 1..=options.seeds {
            runs.extend(tools.iter().map(|t| run(*t, app, seed, true)));
        }
        runs.extend(tools.iter().map(|t| run(*t, app, 1, false)));
    }
    runs
}

/// Runs one trial in its own folder of `scratch`.
async fn one(run: Run<'_>, time: Duration, bombadil: Option<&Path>, scratch: &Path) -> Trial {
    let Run {
        tool,
        strategy,
        app,
        seed,
        bugs_on,
    } = run;
    let plan = Plan {
        seed,
        time,
        steps: None,
        strategy,
        stop_after: Some(app.bugs.len()),
        emit: false,
    };
    let root = scratch.join(format!(
        "{}-{seed}-{}-{tool:?}-{strategy:?}",
        app.name,
        if bugs_on { "bugs" } else { "correct" }
    ));
    let done = match (tool, bombadil) {
        (Tool::Bombadil, Some(command)) => {
            bombadil::trial(command, app, bugs_on, plan, &root).await
        }
        _ => trial(app, bugs_on, plan, &root).await,
    };
    eprintln!(
        "{} seed {seed} bugs {} {}: broke {:?} in {:.1} s, {} actions, {} states{}",
        app.name,
        if bugs_on { "on" } else { "off" },
        compare::column(&done),
        done.broken.keys().collect::<Vec<_>>(),
        done.runtime.as_secs_f64(),
        done.actions,
        done.states,
        done.error
            .as_deref()
            .map(|e| format!(" (error: {e})"))
            .unwrap_or_default()
    );
    done
}

fn fail(message: &str) -> std::process::ExitCode {
    eprintln!("efficacy: {message}");
    std::process::ExitCode::from(2)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(err) => return fail(&err),
    };
    let apps: Vec<_> = match windup_corpus::apps() {
        Ok(apps) => apps
            .into_iter()
            .filter(|a| {
                options
                    .apps
                    .as_ref()
                    .is_none_or(|names| names.contains(&a.name))
            })
            .collect(),
        Err(err) => return fail(&err.to_string()),
    };
    let bombadil: Option<PathBuf> = match options.tools {
        Tools::Windup => None,
        _ => match bombadil::install() {
            Ok(command) => Some(command),
            Err(err) => return fail(&format!("Bombadil: {err}")),
        },
    };
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => return fail(&format!("a scratch directory: {err}")),
    };
    let started = Instant::now();
    let (time, command, scratch) = (options.time, bombadil.as_deref(), scratch.path());
    let trials: Vec<Trial> = futures::stream::iter(runs(&options, &apps))
        .map(|run| one(run, time, command, scratch))
        .buffer_unordered(options.jobs)
        .collect()
        .await;
    println!(
        "efficacy: {} seeds of {} apps, {} s each, in {:.0} s{}",
        options.seeds,
        apps.len(),
        options.time.as_secs(),
        started.elapsed().as_secs_f64(),
        match (&bombadil, bombadil::version()) {
            (Some(_), Some(version)) => format!("; Bombadil {version}"),
            _ => String::new(),
        }
    );
    if options.tools == Tools::Windup {
        print!("{}", table(&apps, &trials));
    } else {
        print!("\n{}", compare::table(&apps, &trials));
    }
    std::process::ExitCode::SUCCESS
}
