//! `cargo xtask`: the repository's own tasks. `cargo xtask test` brings everything the test
//! suite needs onto the machine (installing only what is missing), then runs the whole suite and
//! checks that it left no browser behind. It has no dependencies, so a fresh clone builds it in
//! seconds and nothing else compiles before the machine is ready.

mod fuzz;
mod machine;
mod needs;
mod setup;
mod suite;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use machine::Machine;
use needs::Scope;

const USAGE: &str = "\
usage: cargo xtask <task> [options]

tasks:
  test [--quick] [ARGS…]   bring what the suite needs, then run it: `cargo nextest run
                           --workspace` and the doc tests, or with ARGS (`--test cli`,
                           `-E 'test(name)'`…) nextest alone; then check that no browser,
                           driver or Selenium Grid outlived it
  setup [--quick]          only bring what the suite needs
  lint                     cargo fmt --check (fuzz/ too), clippy with warnings as errors, the
                           function-length lint
  fuzz [--build] [--time SECS] [TARGET…]
                           build the fuzz targets of fuzz/ (cargo-fuzz, on nightly when rustup
                           has it), then run each, or each TARGET, for SECS seconds (30): a
                           crash fails it, with the input and the command that replays it;
                           with --build, only build them

--quick   the suite without Firefox, the Selenium Grid and the doc tests: no Firefox,
          geckodriver, Java or Selenium server needed, and the tests that need them are not run

exit codes: 0 passed, 1 tests or lints failed (or a fuzz target crashed), 2 usage, 3 the machine lacks what the tests need
and it cannot be installed here (the commands are printed)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let quick = rest.first().is_some_and(|a| a == "--quick");
    let rest = &rest[usize::from(quick)..];
    let scope = if quick { Scope::Quick } else { Scope::Full };
    let machine = Machine::here(&repo());
    let outcome = match (task.as_str(), rest) {
        ("test", args) => set_up(&machine, scope).and_then(|()| test(&machine, quick, args)),
        ("setup", []) => set_up(&machine, scope),
        ("lint", []) if !quick => set_up(&machine, Scope::Build).and_then(|()| lint(&machine)),
        ("fuzz", args) if !quick => {
            set_up(&machine, Scope::Fuzz).and_then(|()| fuzz::run(&machine, args))
        }
        ("help" | "--help" | "-h", _) => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            Err(2)
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => ExitCode::from(code),
    }
}

/// The repository's root: this crate's parent folder, or `XTASK_REPO` (the tests of a bare
/// machine point it at an empty folder).
fn repo() -> PathBuf {
    if let Some(repo) = std::env::var_os("XTASK_REPO") {
        return repo.into();
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repository")
        .to_owned()
}

fn set_up(machine: &Machine, scope: Scope) -> Result<(), u8> {
    setup::run(machine, scope).map_err(|err| {
        eprintln!("error: {err}");
        match err {
            setup::SetupError::CannotInstall | setup::SetupError::Failed(_) => 3,
        }
    })
}

/// The cargo that runs this task.
fn cargo(machine: &Machine) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(&machine.repo);
    command
}

/// The quick loop leaves out what needs Firefox or the Selenium Grid.
const QUICK_FILTER: &str = "not (binary(e2e_firefox) | binary(grid) | test(/firefox/))";

/// The suite: every test under nextest (the test binaries side by side, each test in its own
/// process), then the doc tests, which nextest does not run; with `args`, what they select
/// alone. Its results are totalled in a last line, and no browser may outlive it.
fn test(machine: &Machine, quick: bool, args: &[String]) -> Result<(), u8> {
    let started = Instant::now();
    let before = suite::Census::now();
    let mut nextest = cargo(machine);
    nextest.args(["nextest", "run", "--locked"]);
    // The whole workspace, unless the arguments pick packages (nextest would ignore them).
    if !args.iter().any(|a| a == "-p" || a.starts_with("--package")) {
        nextest.arg("--workspace");
    }
    if quick {
        nextest.args(["-E", QUICK_FILTER]);
        // The tests "in each browser" keep to Chromium (tests/common's `browsers`).
        nextest.env("WINDUP_TEST_BROWSERS", "chromium");
    }
    nextest.args(args);
    let mut runs = vec![(nextest, suite::Stream::Stderr)];
    if args.is_empty() && !quick {
        let mut doc = cargo(machine);
        doc.args(["test", "--workspace", "--locked", "--doc"]);
        runs.push((doc, suite::Stream::Stdout));
    }
    let mut passed = true;
    let mut totals = suite::Totals::default();
    for (command, stream) in runs {
        let (status, counted) = suite::run_counted(command, stream).map_err(|why| {
            eprintln!("error: {why}");
            1
        })?;
        passed &= status.success();
        totals.passed += counted.passed;
        totals.failed += counted.failed;
    }
    let left = suite::nothing_left_behind(&before);
    match &left {
        Ok(()) => println!("no browser, driver or Selenium Grid left behind"),
        Err(why) => eprintln!("error: {why}"),
    }
    println!("suite: {:.0} s in all", started.elapsed().as_secs_f64());
    println!("tests: {} passed, {} failed", totals.passed, totals.failed);
    if passed && left.is_ok() {
        Ok(())
    } else {
        Err(1)
    }
}

/// The feature sets of windup-core linted on their own: the default, and each named feature.
const FEATURE_SETS: [&str; 4] = ["", "audit", "scan", "images"];

/// The lints CI holds every change to.
fn lint(machine: &Machine) -> Result<(), u8> {
    let function_length = "tools/function-length/Cargo.toml";
    let runs: [&[&str]; 5] = [
        &["fmt", "--all", "--", "--check"],
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
        &["fmt", "--manifest-path", function_length, "--", "--check"],
        // The fuzz targets are a workspace of their own too; `cargo xtask fuzz` compiles them.
        &["fmt", "--manifest-path", "fuzz/Cargo.toml", "--", "--check"],
        // The lint is a test suite of its own workspace that reads this one.
        &[
            "test",
            "--manifest-path",
            function_length,
            "--locked",
            "--quiet",
        ],
    ];
    // The workspace builds windup-core with every feature; each documented set alone must build
    // and lint clean too (docs/architecture.md#features): the default a test crate gets, and
    // each feature on its own (`server` holds `audit`, and `full` is the workspace's).
    let features: Vec<Vec<&str>> = FEATURE_SETS
        .iter()
        .map(|set| {
            let mut args = vec![
                "clippy",
                "-p",
                "windup-core",
                "--all-targets",
                "--locked",
                "--no-default-features",
            ];
            if !set.is_empty() {
                args.extend(["--features", set]);
            }
            args.extend(["--", "-D", "warnings"]);
            args
        })
        .collect();
    // The facade as a test crate gets it (its own tests turn every feature on), documented
    // throughout: `missing_docs` is a warning in `windup`.
    let facade: &[&str] = &[
        "clippy", "-p", "windup", "--lib", "--locked", "--", "-D", "warnings",
    ];
    let runs = runs
        .iter()
        .copied()
        .chain(features.iter().map(Vec::as_slice))
        .chain([facade]);
    for args in runs {
        println!("lint: cargo {}", args.join(" "));
        let status = cargo(machine).args(args).status().map_err(|e| {
            eprintln!("error: cannot run cargo: {e}");
            1
        })?;
        if !status.success() {
            eprintln!("error: `cargo {}` failed", args.join(" "));
            return Err(1);
        }
    }
    Ok(())
}
