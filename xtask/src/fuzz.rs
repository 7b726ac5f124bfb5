//! `cargo xtask fuzz`: builds the fuzz targets of `fuzz/` once, then runs each for a fixed time
//! and says, in one line a target, how many inputs it ran and whether one crashed it.
//!
//! Each run starts from a fresh scratch corpus (written) and the committed `fuzz/corpus/TARGET`
//! (only read), so a run never changes the repository; a crashing input is left in
//! `fuzz/artifacts/TARGET/` (ignored by git), with the command that replays it.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::machine::Machine;

/// The profile the targets are built with: the debug build `cargo run` gives from a clone, whose
/// frames are the largest, so a stack that holds here holds in a release build too; it also
/// checks arithmetic for overflow, and it builds in a third of the release build's time.
const PROFILE: &str = "--dev";

/// How long each target runs unless `--time` says otherwise.
const DEFAULT_SECONDS: u64 = 30;

/// The longest input libFuzzer makes. Longer seeds (ten thousand brackets) are cut to it and
/// still nest far past every limit, and short inputs run many times faster than 64 KiB ones.
const MAX_LEN: usize = 8 << 10;

/// One input taking longer than this is a hang, reported like a crash.
const TIMEOUT_SECONDS: u64 = 10;

/// What `cargo xtask fuzz` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub seconds: u64,
    /// The targets to run; empty: every target of `fuzz/`.
    pub targets: Vec<String>,
    /// Only build the targets (`--build`): CI builds them while the suite runs.
    pub build_only: bool,
}

impl Request {
    /// Reads `[--build] [--time SECS] [TARGET…]`.
    pub fn parse(args: &[String]) -> Result<Request, String> {
        let mut request = Request {
            seconds: DEFAULT_SECONDS,
            targets: Vec::new(),
            build_only: false,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            if arg == "--time" {
                let value = args.next().ok_or("--time takes a number of seconds")?;
                request.seconds =
                    value.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                        format!("--time takes a number of seconds, not `{value}`")
                    })?;
            } else if arg == "--build" {
                request.build_only = true;
            } else if arg.starts_with('-') {
                return Err(format!("`{arg}` is not an option of `cargo xtask fuzz`"));
            } else {
                request.targets.push(arg.clone());
            }
        }
        Ok(request)
    }
}

/// The toolchain that builds the fuzz targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Toolchain {
    /// A nightly that rustup has, by the name it lists (`nightly-x86_64-unknown-linux-gnu`).
    Nightly(String),
    /// The task's own toolchain, stable.
    Stable,
}

impl Toolchain {
    /// A nightly when `rustup toolchain list` names one, else stable.
    pub fn here(machine: &Machine) -> Toolchain {
        let Some(rustup) = machine.program(&["rustup"]) else {
            return Toolchain::Stable;
        };
        let listed = Command::new(rustup)
            .args(["toolchain", "list"])
            .stderr(Stdio::null())
            .output();
        match listed {
            Ok(out) if out.status.success() => {
                Toolchain::from_list(&String::from_utf8_lossy(&out.stdout))
            }
            _ => Toolchain::Stable,
        }
    }

    /// The first nightly of `rustup toolchain list`'s output.
    fn from_list(list: &str) -> Toolchain {
        list.lines()
            .filter_map(|line| line.split_whitespace().next())
            .find(|name| name.starts_with("nightly"))
            .map_or(Toolchain::Stable, |name| {
                Toolchain::Nightly(name.to_owned())
            })
    }

    /// `cargo fuzz` on this toolchain, at the repository's root.
    fn cargo_fuzz(&self, machine: &Machine) -> Command {
        let mut command = match self {
            Toolchain::Nightly(name) => {
                let mut rustup = Command::new("rustup");
                rustup.args(["run", name, "cargo", "fuzz"]);
                rustup
            }
            Toolchain::Stable => {
                let mut cargo = crate::cargo(machine);
                cargo.arg("fuzz");
                // AddressSanitizer is `-Zsanitizer`; without it a stack overflow is a bare SIGSEGV and leaves no artifact.
                cargo.env("RUSTC_BOOTSTRAP", "1");
                cargo
            }
        };
        command.current_dir(&machine.repo);
        command
    }

    /// `cargo fuzz` as a person types it on this toolchain.
    fn shown(&self) -> String {
        match self {
            Toolchain::Nightly(name) => format!("cargo +{name} fuzz"),
            Toolchain::Stable => "RUSTC_BOOTSTRAP=1 cargo fuzz".to_owned(),
        }
    }
}

/// What one libFuzzer run said, read from its output a line at a time.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// How many inputs it ran.
    pub runs: Option<u64>,
    /// Where it wrote the input that crashed it.
    pub artifact: Option<String>,
    /// The crash as libFuzzer told it: the panic or the sanitizer's report, from its first line.
    pub crash: Vec<String>,
    /// Past the crash's own lines.
    ended: bool,
}

/// The most lines of a crash kept: the message and the top of the stack.
const CRASH_LINES: usize = 60;

/// The most characters of a line of it kept.
const LINE_CHARS: usize = 300;

/// `line` cut to `most` characters, saying so.
fn cut(line: &str, most: usize) -> String {
    match line.char_indices().nth(most) {
        Some((at, _)) => format!("{}… (cut)", &line[..at]),
        None => line.to_owned(),
    }
}

impl Report {
    pub fn read(&mut self, line: &str) {
        let line = line.trim_end();
        // `stat::number_of_executed_runs: 1234` at the end, `Done 1234 runs in 30 second(s)`
        // before it; either counts.
        if let Some(runs) = line.strip_prefix("stat::number_of_executed_runs:") {
            self.runs = runs.trim().parse().ok().or(self.runs);
        } else if let Some(rest) = line.strip_prefix("Done ") {
            let runs = rest.split_whitespace().next().and_then(|n| n.parse().ok());
            self.runs = runs.or(self.runs);
        }
        if let Some((_, path)) = line.split_once("Test unit written to ") {
            self.artifact = Some(path.trim().to_owned());
        }
        let crashing = !self.crash.is_empty()
            || [
                "panicked at",
                "ERROR: AddressSanitizer",
                "ERROR: libFuzzer",
                "has overflowed its stack",
            ]
            .iter()
            .any(|sign| line.contains(sign));
        // cargo fuzz ends with the input's bytes written out, tens of kilobytes on one line: the
        // input's file is what to read, so the crash ends where that part begins.
        if line.contains("Output of `std::fmt::Debug`") {
            self.ended = true;
        }
        if crashing && !self.ended && self.crash.len() < CRASH_LINES {
            self.crash.push(cut(line, LINE_CHARS));
        }
    }
}

/// Builds, then runs every target asked for; `Err` holds the exit code.
pub fn run(machine: &Machine, args: &[String]) -> Result<(), u8> {
    let request = Request::parse(args).map_err(|why| {
        eprintln!("error: {why}\n\nusage: cargo xtask fuzz [--build] [--time SECS] [TARGET…]");
        2
    })?;
    let fuzz = machine.repo.join("fuzz");
    let toolchain = Toolchain::here(machine);
    check_lockfile(machine)?;
    let started = Instant::now();
    println!("fuzz: building the targets ({})", toolchain.shown());
    succeed(
        toolchain.cargo_fuzz(machine).args(["build", PROFILE]),
        "build the fuzz targets",
    )?;
    println!("fuzz: built in {:.0} s", started.elapsed().as_secs_f64());
    if request.build_only {
        return Ok(());
    }
    let all = targets(machine, &toolchain)?;
    if let Some(unknown) = request.targets.iter().find(|t| !all.contains(t)) {
        eprintln!(
            "error: `{unknown}` is not a fuzz target; fuzz/ has: {}",
            all.join(", ")
        );
        return Err(2);
    }
    let chosen = if request.targets.is_empty() {
        all
    } else {
        request.targets
    };
    let mut crashed = Vec::new();
    for target in &chosen {
        let report = run_target(machine, &toolchain, target, request.seconds)?;
        let runs = report.runs.map_or("? runs".to_owned(), |n| {
            format!("{n} runs ({}/s)", n / request.seconds.max(1))
        });
        if report.crash.is_empty() && report.artifact.is_none() {
            println!("fuzz {target}: {} s, {runs}, no crash", request.seconds);
            continue;
        }
        println!("fuzz {target}: CRASHED after {runs}");
        for line in &report.crash {
            println!("    {line}");
        }
        match &report.artifact {
            Some(artifact) => {
                let artifact = Path::new(artifact)
                    .strip_prefix(&machine.repo)
                    .map_or(artifact.clone(), |p| p.display().to_string());
                println!("  the input: {artifact}");
                println!(
                    "  reproduce: {} run {PROFILE} {target} {artifact}",
                    toolchain.shown()
                );
            }
            None => println!("  libFuzzer wrote no input (see its output above)"),
        }
        crashed.push(target.clone());
    }
    let _ = std::fs::remove_dir_all(fuzz.join("target/scratch-corpus"));
    println!(
        "fuzz: {} targets in {:.0} s, {} crashed",
        chosen.len(),
        started.elapsed().as_secs_f64(),
        crashed.len()
    );
    if crashed.is_empty() { Ok(()) } else { Err(1) }
}

/// Refuses a `fuzz/Cargo.lock` that the build would have to change, as `--locked` does (cargo
/// fuzz has no such flag): a fuzz run must not change the repository.
fn check_lockfile(machine: &Machine) -> Result<(), u8> {
    let status = crate::cargo(machine)
        .args(["tree", "--locked", "--quiet", "--depth", "0"])
        .args(["--manifest-path", "fuzz/Cargo.toml"])
        .stdout(Stdio::null())
        .status();
    if status.is_ok_and(|s| s.success()) {
        return Ok(());
    }
    eprintln!(
        "error: fuzz/Cargo.lock does not match the fuzz crate's dependencies (windup-core's \
         changed?): run `cargo update --workspace --manifest-path fuzz/Cargo.toml` and commit \
         fuzz/Cargo.lock"
    );
    Err(1)
}

/// The targets `cargo fuzz list` names.
fn targets(machine: &Machine, toolchain: &Toolchain) -> Result<Vec<String>, u8> {
    let out = toolchain
        .cargo_fuzz(machine)
        .arg("list")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| {
            eprintln!("error: cannot run `cargo fuzz list`: {e}");
            1
        })?;
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    if !out.status.success() || listed.is_empty() {
        eprintln!("error: `cargo fuzz list` named no target");
        return Err(1);
    }
    Ok(listed)
}

/// Runs `target` for `seconds` and reads what libFuzzer said.
fn run_target(
    machine: &Machine,
    toolchain: &Toolchain,
    target: &str,
    seconds: u64,
) -> Result<Report, u8> {
    let fuzz = machine.repo.join("fuzz");
    let scratch = fuzz.join("target/scratch-corpus").join(target);
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).map_err(|e| {
        eprintln!("error: cannot make {}: {e}", scratch.display());
        1
    })?;
    let mut command = toolchain.cargo_fuzz(machine);
    command.args(["run", PROFILE, target]).arg(&scratch);
    let seeds = fuzz.join("corpus").join(target);
    if seeds.is_dir() {
        command.arg(&seeds);
    }
    command.arg("--").args([
        format!("-max_total_time={seconds}"),
        format!("-max_len={MAX_LEN}"),
        format!("-timeout={TIMEOUT_SECONDS}"),
        "-print_final_stats=1".to_owned(),
    ]);
    let dict = fuzz.join("dict").join(format!("{target}.dict"));
    if dict.is_file() {
        command.arg(format!("-dict={}", dict.display()));
    }
    command.stderr(Stdio::piped()).stdout(Stdio::null());
    let mut child = command.spawn().map_err(|e| {
        eprintln!("error: cannot run `cargo fuzz run {target}`: {e}");
        1
    })?;
    let mut report = Report::default();
    // The last lines, shown when the run fails without saying why.
    let mut tail = VecDeque::new();
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            report.read(&line);
            if tail.len() == 20 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    }
    let status = child.wait().map_err(|e| {
        eprintln!("error: `cargo fuzz run {target}` did not finish: {e}");
        1
    })?;
    if !status.success() && report.crash.is_empty() && report.artifact.is_none() {
        // Not a crash libFuzzer caught (a build that failed, a killed process): its own words.
        report.crash = tail.into();
        report
            .crash
            .insert(0, format!("`cargo fuzz run {target}` failed ({status}):"));
    }
    Ok(report)
}

/// Runs `command`, its output passed through; `Err(1)` when it fails.
fn succeed(command: &mut Command, what: &str) -> Result<(), u8> {
    match command.status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => {
            eprintln!("error: cannot {what}: {status}");
            Err(1)
        }
        Err(e) => {
            eprintln!("error: cannot {what}: {e}");
            Err(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_time_and_the_targets_are_read() {
        assert_eq!(
            Request::parse(&[]),
            Ok(Request {
                seconds: 30,
                targets: vec![],
                build_only: false,
            })
        );
        assert_eq!(
            Request::parse(&args(&["predicate", "--time", "600", "plan"])),
            Ok(Request {
                seconds: 600,
                targets: args(&["predicate", "plan"]),
                build_only: false,
            })
        );
        assert!(Request::parse(&args(&["--build"])).unwrap().build_only);
        for wrong in [
            &["--time"][..],
            &["--time", "0"],
            &["--time", "1m"],
            &["-j4"],
        ] {
            assert!(Request::parse(&args(wrong)).is_err(), "{wrong:?}");
        }
    }

    #[test]
    fn a_nightly_is_preferred_when_rustup_has_one() {
        let list = "stable-x86_64-unknown-linux-gnu (active, default)\n\
                    nightly-x86_64-unknown-linux-gnu\n1.95.0-x86_64-unknown-linux-gnu\n";
        assert_eq!(
            Toolchain::from_list(list),
            Toolchain::Nightly("nightly-x86_64-unknown-linux-gnu".to_owned())
        );
        assert_eq!(
            Toolchain::from_list("stable-x86_64-unknown-linux-gnu (default)\n"),
            Toolchain::Stable
        );
        assert_eq!(Toolchain::from_list(""), Toolchain::Stable);
        assert_eq!(
            Toolchain::Stable.shown(),
            "RUSTC_BOOTSTRAP=1 cargo fuzz",
            "stable builds the sanitizer only as a bootstrap compiler"
        );
    }

    #[test]
    fn a_quiet_run_is_counted() {
        let mut report = Report::default();
        for line in [
            "#524288\tpulse  cov: 2105 ft: 9921 corp: 612/88Kb exec/s: 17476 rss: 512Mb",
            "Done 524301 runs in 31 second(s)",
            "stat::number_of_executed_runs: 524301",
            "stat::peak_rss_mb:              512",
        ] {
            report.read(line);
        }
        assert_eq!(
            report,
            Report {
                runs: Some(524301),
                artifact: None,
                crash: vec![],
                ended: false,
            }
        );
    }

    #[test]
    fn a_crash_keeps_its_message_and_its_input() {
        let mut report = Report::default();
        for line in [
            "#1024\tNEW    cov: 1 ft: 1 corp: 1/1b exec/s: 0 rss: 30Mb",
            "==26193==ERROR: AddressSanitizer: stack-overflow on address 0x7b2e23b9fe00",
            "    #0 0x560846b9a057 in cel::parser::Parser::visit fuzz_targets/predicate.rs",
            "artifact_prefix='/repo/fuzz/artifacts/predicate/'; Test unit written to \
             /repo/fuzz/artifacts/predicate/crash-c032adc1",
            "stat::number_of_executed_runs: 1030",
        ] {
            report.read(line);
        }
        assert_eq!(report.runs, Some(1030));
        assert_eq!(
            report.artifact.as_deref(),
            Some("/repo/fuzz/artifacts/predicate/crash-c032adc1")
        );
        assert!(report.crash[0].contains("stack-overflow"), "{report:?}");
        assert_eq!(report.crash.len(), 4);
    }
}
