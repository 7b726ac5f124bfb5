//! Brings what a run needs: a line for each thing already here, then one install step per kind
//! of source (Debian's packages, crates, npm and Python projects), each saying what it installs
//! and why. A
//! machine where something cannot be installed is told so, with the commands, before anything
//! is installed or compiled.

use std::fmt;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use crate::machine::{Machine, NPM_STAMP, PIP_STAMP, Privilege};
use crate::needs::{self, Need, Scope, Source};

/// Why the set-up stopped.
#[derive(Debug)]
pub enum SetupError {
    /// Something is missing and this machine cannot install it (the report was printed).
    CannotInstall,
    /// An install step failed.
    Failed(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::CannotInstall => {
                f.write_str("the machine lacks what the tests need (listed above)")
            }
            SetupError::Failed(why) => f.write_str(why),
        }
    }
}

/// A command to run, as it is shown to a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub env: Vec<(&'static str, &'static str)>,
    pub words: Vec<String>,
    /// Where it runs, relative to the repository (`None`: the repository's root).
    pub dir: Option<&'static str>,
    /// Once it ran, the project in `dir` is installed from this lockfile: it is copied to the
    /// stamp (lockfile, stamp, both relative to `dir`) that the probe compares with it.
    pub stamp: Option<(&'static str, &'static str)>,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(dir) = self.dir {
            write!(f, "(cd {dir} && ")?;
        }
        for (key, value) in &self.env {
            write!(f, "{key}={value} ")?;
        }
        f.write_str(&self.words.join(" "))?;
        if self.dir.is_some() {
            f.write_str(")")?;
        }
        Ok(())
    }
}

fn step(prefix: &[&str], words: &[&str]) -> Step {
    Step {
        env: Vec::new(),
        words: prefix
            .iter()
            .chain(words)
            .map(|w| (*w).to_owned())
            .collect(),
        dir: None,
        stamp: None,
    }
}

/// A step of the project in `dir`.
fn in_dir(dir: &'static str, words: &[&str]) -> Step {
    Step {
        dir: Some(dir),
        ..step(&[], words)
    }
}

/// The commands that install `missing`, in order, with `privilege` for the system's packages.
pub fn commands(missing: &[&Need], privilege: &Privilege) -> Vec<Step> {
    let debian: Vec<&str> = missing
        .iter()
        .filter_map(|need| match need.source {
            Source::Debian(packages) => Some(packages),
            _ => None,
        })
        .flatten()
        .copied()
        .collect();
    let mut steps = Vec::new();
    if !debian.is_empty() {
        let prefix = privilege.prefix();
        steps.push(step(prefix, &["apt-get", "update"]));
        let mut install = step(prefix, &["apt-get", "install", "-y"]);
        install.words.extend(debian.iter().map(|p| (*p).to_owned()));
        if *privilege == Privilege::Root {
            install.env.push(("DEBIAN_FRONTEND", "noninteractive"));
        }
        steps.push(install);
    }
    for need in missing {
        match need.source {
            Source::Debian(_) => {}
            Source::Crate(name) => steps.push(step(&[], &["cargo", "install", "--locked", name])),
            Source::Npm(dir) => steps.push(Step {
                // Playwright drives the system's Chromium: no browser download.
                env: vec![("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")],
                stamp: Some(("package-lock.json", NPM_STAMP)),
                ..in_dir(dir, &["npm", "ci", "--no-audit", "--no-fund"])
            }),
            Source::Pip(dir) => {
                steps.push(in_dir(dir, &["python3", "-m", "venv", "--clear", ".venv"]));
                // Every package is pinned in the file, its dependencies too: pip adds none.
                let pip = [".venv/bin/python", "-m", "pip", "install", "--no-deps"];
                steps.push(Step {
                    stamp: Some(("requirements.txt", PIP_STAMP)),
                    ..in_dir(dir, &[&pip[..], &["-r", "requirements.txt"]].concat())
                });
            }
        }
    }
    steps
}

/// Why system packages cannot be installed here, if they cannot.
fn obstacle(machine: &Machine, privilege: &Privilege) -> Option<&'static str> {
    if !machine.is_debian() {
        return Some(
            "this is not Debian or Ubuntu (no apt-get): install the equivalents of the Debian \
             packages below with the system's package manager",
        );
    }
    (*privilege == Privilege::None).then_some(
        "installing Debian packages needs root, and `sudo -n` cannot run here (no sudo, or it \
         asks for a password): run the commands below as root",
    )
}

/// Looks for everything `scope` needs, installs what is missing, and says so as it goes.
pub fn run(machine: &Machine, scope: Scope) -> Result<(), SetupError> {
    let started = Instant::now();
    println!("setup: what `cargo xtask` needs for {}", scope_words(scope));
    let mut missing = Vec::new();
    for need in needs::for_scope(scope) {
        match machine.find(&need.probe) {
            Some(found) => println!("  ok       {:<18} {found}", need.name),
            None => {
                println!("  missing  {:<18} {}", need.name, need.why);
                missing.push(need);
            }
        }
    }
    if missing.is_empty() {
        println!(
            "setup: everything is here ({:.1} s)",
            started.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let wants_system = missing
        .iter()
        .any(|n| matches!(n.source, Source::Debian(_)));
    let privilege = if wants_system {
        machine.privilege()
    } else {
        Privilege::Root
    };
    if let Some(why) = wants_system
        .then(|| obstacle(machine, &privilege))
        .flatten()
    {
        refuse(why, &missing);
        return Err(SetupError::CannotInstall);
    }
    install(machine, &missing, &privilege)?;
    println!(
        "setup: installed {} ({:.0} s)",
        missing
            .iter()
            .map(|n| n.name)
            .collect::<Vec<_>>()
            .join(", "),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn scope_words(scope: Scope) -> &'static str {
    match scope {
        Scope::Build => "compiling the workspace",
        Scope::Quick => "the quick suite (Chromium only)",
        Scope::Full => "the whole suite",
        Scope::Fuzz => "the fuzz targets",
    }
}

/// Says what is missing, who needs it and how to install it, having installed nothing.
fn refuse(why: &str, missing: &[&Need]) {
    println!("\nsetup: stopped before installing or compiling anything: {why}.");
    println!("Missing, with the tests that need each and the command that installs it:");
    // Commands as a person types them, with sudo before the system's.
    let shown = Privilege::None;
    for need in missing {
        println!("  {}: {}", need.name, need.why);
        for step in commands(&[need], &shown) {
            if !step.words.ends_with(&["update".to_owned()]) {
                println!("      {step}");
            }
        }
    }
    println!("All at once:");
    for step in commands(missing, &shown) {
        println!("  {step}");
    }
    println!(
        "then run `cargo xtask test` again (or `cargo xtask test --quick` for the suite without \
         Firefox and the Selenium Grid, which needs less)."
    );
}

/// Runs the install steps, then checks that each missing thing is now here.
fn install(machine: &Machine, missing: &[&Need], privilege: &Privilege) -> Result<(), SetupError> {
    let steps = commands(missing, privilege);
    for (i, step) in steps.iter().enumerate() {
        println!(
            "\n[{}/{}] {}: {step}",
            i + 1,
            steps.len(),
            purpose(step, missing)
        );
        run_step(machine, step)?;
        if let (Some(dir), Some((lockfile, stamp_file))) = (step.dir, step.stamp) {
            stamp(&machine.repo.join(dir), lockfile, stamp_file)?;
        }
    }
    let still: Vec<_> = missing
        .iter()
        .filter(|need| machine.find(&need.probe).is_none())
        .map(|need| need.name)
        .collect();
    if !still.is_empty() {
        return Err(SetupError::Failed(format!(
            "installed, yet still not found: {} (is the install directory on PATH?)",
            still.join(", ")
        )));
    }
    Ok(())
}

/// What a step installs, and for whom.
fn purpose(step: &Step, missing: &[&Need]) -> String {
    let served: Vec<String> = missing
        .iter()
        .filter(|need| match need.source {
            Source::Debian(packages) => packages.iter().any(|p| step.words.iter().any(|w| w == p)),
            Source::Crate(name) => step.words.last().is_some_and(|w| w == name),
            Source::Npm(dir) | Source::Pip(dir) => step.dir == Some(dir),
        })
        .map(|need| format!("{} ({})", need.name, need.why))
        .collect();
    if served.is_empty() {
        "refreshing Debian's package lists".to_owned()
    } else {
        format!("installing {}", served.join("; "))
    }
}

fn run_step(machine: &Machine, step: &Step) -> Result<(), SetupError> {
    let (program, args) = step.words.split_first().expect("every step has a program");
    // `cargo` is the cargo that runs this task, whatever PATH says.
    let cargo = std::env::var_os("CARGO").filter(|_| program == "cargo");
    // A program of the project (`.venv/bin/python`) is found in the project's directory.
    let local = step
        .dir
        .filter(|_| program.contains('/'))
        .map(|dir| machine.repo.join(dir).join(program).into_os_string());
    let mut command = Command::new(cargo.or(local).unwrap_or_else(|| program.into()));
    command.args(args).env("PATH", machine.path_var());
    command.envs(step.env.iter().copied());
    if let Some(dir) = step.dir {
        command.current_dir(machine.repo.join(dir));
    }
    let status = command
        .status()
        .map_err(|e| SetupError::Failed(format!("cannot run `{step}`: {e}")))?;
    if status.success() {
        return Ok(());
    }
    let hint = if program == "apt-get" || args.iter().any(|a| a == "apt-get") {
        "; Debian's package servers must be reachable"
    } else {
        "; its registry must be reachable"
    };
    Err(SetupError::Failed(format!(
        "`{step}` failed ({status}){hint}. Nothing was compiled; run it yourself to see why, then \
         `cargo xtask test` again"
    )))
}

/// Marks a project as installed from its current lockfile.
fn stamp(project: &Path, lockfile: &str, stamp: &str) -> Result<(), SetupError> {
    std::fs::copy(project.join(lockfile), project.join(stamp))
        .map(|_| ())
        .map_err(|e| {
            SetupError::Failed(format!(
                "cannot mark {} as installed: {e}",
                project.display()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<&'static Need> {
        names
            .iter()
            .map(|name| needs::NEEDS.iter().find(|n| n.name == *name).unwrap())
            .collect()
    }

    #[test]
    fn one_apt_get_for_every_debian_package_then_crates_then_npm() {
        let missing = named(&["Chromium", "graphviz", "geckodriver", "tools/playwright"]);
        let shown: Vec<String> = commands(&missing, &Privilege::Root)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            [
                "apt-get update",
                "DEBIAN_FRONTEND=noninteractive apt-get install -y chromium graphviz",
                "cargo install --locked geckodriver",
                "(cd tools/playwright && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund)",
            ]
        );
    }

    #[test]
    fn a_python_project_gets_a_virtual_environment_then_its_pinned_packages() {
        let missing = named(&["tools/python"]);
        let steps = commands(&missing, &Privilege::Root);
        let shown: Vec<String> = steps.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "(cd tools/python && python3 -m venv --clear .venv)",
                "(cd tools/python && .venv/bin/python -m pip install --no-deps -r requirements.txt)",
            ]
        );
        // Installed once both ran: only the last step stamps.
        assert_eq!(steps[0].stamp, None);
        assert_eq!(steps[1].stamp, Some(("requirements.txt", PIP_STAMP)));
        assert!(purpose(&steps[0], &missing).starts_with("installing tools/python ("));
    }

    #[test]
    fn sudo_comes_before_system_commands_only() {
        let missing = named(&["xmllint", "geckodriver"]);
        let steps = commands(&missing, &Privilege::Sudo);
        assert_eq!(
            steps[1].to_string(),
            "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y libxml2-utils"
        );
        assert_eq!(steps[2].to_string(), "cargo install --locked geckodriver");
        // Shown to a person who must run it elsewhere: plain sudo.
        let shown = commands(&missing, &Privilege::None);
        assert_eq!(
            shown[1].to_string(),
            "sudo apt-get install -y libxml2-utils"
        );
    }

    #[test]
    fn each_step_says_what_it_installs_and_for_whom() {
        let missing = named(&["Java", "tools/selenium"]);
        let steps = commands(&missing, &Privilege::Root);
        assert_eq!(
            purpose(&steps[0], &missing),
            "refreshing Debian's package lists"
        );
        assert!(purpose(&steps[1], &missing).starts_with("installing Java (tests/grid.rs"));
        assert!(purpose(&steps[2], &missing).starts_with("installing tools/selenium ("));
    }
}
