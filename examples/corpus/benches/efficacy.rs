//! The audit's efficacy on the corpus, as a benchmark: seeded audits of every app with its bugs
//! on and of its correct build, and per bug the runs that found it, the false positives, the
//! median time to the first finding, actions per second and states covered.
//!
//! `cargo bench -p windup-corpus --bench efficacy -- [--seeds N] [--time S] [--apps a,b]
//! [--strategy novelty|coverage|uniform|both|all] [--jobs N]` (defaults: 10 seeds, 60 s, every
//! app, novelty, one audit at a time; `both` is novelty and uniform, `all` adds coverage). With `--jobs 2` two audits (each with its own browser and
//! site) run at once: the run takes half as long, and each audit has less of the machine, so
//! its actions per second are lower than alone.

use std::time::{Duration, Instant};

use futures::StreamExt;

use windup_core::engine::audit::Strategy;
use windup_corpus::efficacy::{Plan, table, trial};

struct Options {
    seeds: u64,
    time: Duration,
    apps: Option<Vec<String>>,
    strategies: Vec<Strategy>,
    jobs: usize,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        seeds: 10,
        time: Duration::from_secs(60),
        apps: None,
        strategies: vec![Strategy::Novelty],
        jobs: 1,
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
                    one => vec![one.parse()?],
                }
            }
            "--jobs" => {
                options.jobs = value()?.parse().map_err(|e| format!("--jobs: {e}"))?;
                if options.jobs == 0 {
                    return Err("--jobs must be at least 1".into());
                }
            }
            // What cargo bench passes to every bench binary.
            "--bench" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let options = match options() {
        Ok(options) => options,
        Err(err) => {
            eprintln!("efficacy: {err}");
            return std::process::ExitCode::from(2);
        }
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
        Err(err) => {
            eprintln!("efficacy: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(err) => {
            eprintln!("efficacy: a scratch directory: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    let started = Instant::now();
    let mut runs = Vec::new();
    for strategy in &options.strategies {
        for app in &apps {
            for seed in 1..=options.seeds {
                for bugs_on in [true, false] {
                    runs.push((*strategy, app, seed, bugs_on));
                }
            }
        }
    }
    let scratch = scratch.path();
    let trials: Vec<_> = futures::stream::iter(runs)
        .map(|(strategy, app, seed, bugs_on)| async move {
            let plan = Plan {
                seed,
                time: options.time,
                steps: None,
                strategy,
                stop_after: Some(app.bugs.len()),
                emit: false,
            };
            let root = scratch.join(format!(
                "{}-{seed}-{}-{strategy:?}",
                app.name,
                if bugs_on { "bugs" } else { "correct" }
            ));
            let done = trial(app, bugs_on, plan, &root).await;
            eprintln!(
                "{} seed {seed} bugs {} {:?}: broke {:?} in {:.1} s, {} actions, {} states{}",
                app.name,
                if bugs_on { "on" } else { "off" },
                strategy,
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
        })
        .buffer_unordered(options.jobs)
        .collect()
        .await;
    println!(
        "efficacy: {} seeds of {} apps, {} s each, in {:.0} s",
        options.seeds,
        apps.len(),
        options.time.as_secs(),
        started.elapsed().as_secs_f64()
    );
    print!("{}", table(&apps, &trials));
    std::process::ExitCode::SUCCESS
}
