//! `cargo xtask` on a Debian machine that has none of the suite's tools, run by a user who is
//! not root and has no sudo: it installs nothing, compiles nothing, and says what is missing,
//! which tests need each thing and the commands that would install it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The user the tests run as when they run as root: nobody, who may not install packages.
const NOBODY: &str = "65534";

struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    /// A folder another user can read, with a copy of xtask, a PATH holding only apt-get (the
    /// machine is Debian, its user just may not use it), and a cargo that says when it runs.
    fn bare() -> Machine {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        std::fs::set_permissions(root, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::copy(env!("CARGO_BIN_EXE_xtask"), root.join("xtask")).unwrap();
        std::fs::create_dir(root.join("bin")).unwrap();
        std::fs::create_dir(root.join("repo")).unwrap();
        if Path::new("/usr/bin/apt-get").exists() {
            std::os::unix::fs::symlink("/usr/bin/apt-get", root.join("bin/apt-get")).unwrap();
        }
        let cargo = root.join("cargo");
        std::fs::write(
            &cargo,
            "#!/bin/sh\necho 'fake cargo ran:' \"$@\"\nexit 97\n",
        )
        .unwrap();
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        Machine { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs xtask with `args` as a user without root, with nothing but this machine's PATH.
    fn xtask(&self, args: &[&str]) -> Output {
        let xtask = self.path("xtask");
        let mut command = if is_root() {
            let mut as_nobody = Command::new("/usr/bin/setpriv");
            as_nobody
                .args([
                    &format!("--reuid={NOBODY}"),
                    &format!("--regid={NOBODY}"),
                    "--clear-groups",
                ])
                .arg(&xtask);
            as_nobody
        } else {
            Command::new(&xtask)
        };
        command
            .args(args)
            .env_clear()
            .env("PATH", self.path("bin"))
            .env("HOME", self.dir.path())
            .env("CARGO", self.path("cargo"))
            // A repository whose npm projects were never installed.
            .env("XTASK_REPO", self.path("repo"))
            .output()
            .expect("xtask runs")
    }
}

fn is_root() -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let uids = status.lines().find_map(|l| l.strip_prefix("Uid:")).unwrap();
    uids.split_whitespace().nth(1) == Some("0")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn without_root_or_sudo_it_names_what_is_missing_and_compiles_nothing() {
    if !Path::new("/usr/bin/apt-get").exists() {
        return; // Not a Debian machine: the next test covers the other systems' refusal.
    }
    let machine = Machine::bare();
    let output = machine.xtask(&["test"]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(!out.contains("fake cargo ran"), "it compiled: {out}");
    assert!(
        out.contains(
            "stopped before installing or compiling anything: installing Debian packages needs \
             root, and `sudo -n` cannot run here"
        ),
        "{out}"
    );
    // ChromeDriver is also looked for where Debian puts it, off PATH, so it may be found here.
    for (tool, needed_by, install) in [
        (
            "Chromium",
            "every end-to-end test in tests/",
            "sudo apt-get install -y chromium",
        ),
        (
            "OpenSSL headers",
            "reqwest",
            "sudo apt-get install -y pkg-config libssl-dev",
        ),
        (
            "graphviz",
            "tests/sitemap.rs",
            "sudo apt-get install -y graphviz",
        ),
        (
            "xmllint",
            "tests/report.rs",
            "sudo apt-get install -y libxml2-utils",
        ),
        (
            "Firefox",
            "tests/e2e_firefox.rs",
            "sudo apt-get install -y firefox-esr",
        ),
        (
            "Java",
            "tests/grid.rs",
            "sudo apt-get install -y default-jre-headless",
        ),
        ("Node.js and npm", "", "sudo apt-get install -y nodejs npm"),
        (
            "geckodriver",
            "Firefox tests",
            "cargo install --locked geckodriver",
        ),
        (
            "tools/playwright",
            "tests/playwright.rs",
            "(cd tools/playwright && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci",
        ),
        (
            "tools/selenium",
            "tests/grid.rs",
            "(cd tools/selenium && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci",
        ),
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("missing  {tool} ")))
            .unwrap_or_else(|| panic!("{tool} is not said to be missing: {out}"));
        assert!(line.contains(needed_by), "{line}");
        let said = out
            .split_once(&format!("\n  {tool}: "))
            .unwrap_or_else(|| panic!("{tool} has no install command: {out}"))
            .1;
        let command = said.lines().nth(1).unwrap_or_default();
        assert!(command.trim().starts_with(install), "{tool}: {command}");
    }
    // The same tools for the quick loop, but Firefox's and the Grid's.
    let quick = machine.xtask(&["setup", "--quick"]);
    let out = text(&quick);
    assert_eq!(quick.status.code(), Some(3), "{out}");
    assert!(out.contains("missing  Chromium "), "{out}");
    assert!(out.contains("missing  cargo-nextest "), "{out}");
    for tool in ["Firefox", "Java", "geckodriver", "tools/selenium"] {
        assert!(!out.contains(&format!("  {tool}")), "{tool}: {out}");
    }
}

#[test]
fn a_machine_without_apt_get_is_told_to_use_its_own_package_manager() {
    let machine = Machine::bare();
    let _ = std::fs::remove_file(machine.path("bin/apt-get"));
    let output = machine.xtask(&["setup"]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(
        out.contains("this is not Debian or Ubuntu (no apt-get)"),
        "{out}"
    );
    assert!(out.contains("missing  Chromium "), "{out}");
    assert!(!out.contains("fake cargo ran"), "{out}");
}

#[test]
fn an_unknown_task_is_a_usage_error() {
    let machine = Machine::bare();
    let output = machine.xtask(&["tset"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(text(&output).contains("usage: cargo xtask <task>"));
}
