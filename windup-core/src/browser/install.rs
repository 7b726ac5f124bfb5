//! Getting a browser and its driver onto a machine: what is missing, and the system package
//! manager's commands that install them (`cargo windup setup [--browser firefox]`).

use std::path::PathBuf;

use super::driver::find_executable;
use super::{BrowserConfig, BrowserKind, Names};

/// What the browser layer would use, found now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Availability {
    /// The browser kind's names, for what is missing.
    pub names: Names,
    pub driver: Option<PathBuf>,
    pub browser: Option<PathBuf>,
}

impl Availability {
    /// Whether a local browser can be started (a remote WebDriver needs neither).
    pub fn ready(&self) -> bool {
        self.driver.is_some() && self.browser.is_some()
    }

    /// What is missing, in words.
    pub fn missing(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if self.browser.is_none() {
            missing.push(self.names.browser);
        }
        if self.driver.is_none() {
            missing.push(self.names.driver);
        }
        missing
    }
}

/// Looks for the configured kind's driver and browser where [`super::Browser::launch`] would.
pub fn availability(config: &BrowserConfig) -> Availability {
    let backend = config.kind.backend();
    Availability {
        names: backend.names(),
        driver: backend.driver(config).ok(),
        browser: backend.browser_binary(config),
    }
}

/// How to install Chromium and ChromeDriver here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InstallPlan {
    /// Commands to run in order, each a program and its arguments.
    Commands(Vec<Vec<String>>),
    /// No known package manager: what to do by hand.
    Manual(String),
}

/// The package managers looked for, in order.
const MANAGERS: &[&str] = &["apt-get", "dnf", "pacman", "zypper", "brew"];

/// geckodriver from crates.io, where the system has no package of it.
const GECKODRIVER_CRATE: &[&str] = &["cargo", "install", "--locked", "geckodriver"];

/// What `manager` runs to install `kind`.
fn commands_of(manager: &str, kind: BrowserKind) -> Vec<&'static [&'static str]> {
    use BrowserKind::{Chromium, Firefox};
    match (manager, kind) {
        ("apt-get", Chromium) => vec![
            &["apt-get", "update"],
            &["apt-get", "install", "-y", "chromium", "chromium-driver"],
        ],
        ("apt-get", Firefox) => vec![
            &["apt-get", "update"],
            &["apt-get", "install", "-y", "firefox-esr"],
            GECKODRIVER_CRATE,
        ],
        ("dnf", Chromium) => vec![&["dnf", "install", "-y", "chromium", "chromedriver"]],
        ("dnf", Firefox) => vec![&["dnf", "install", "-y", "firefox"], GECKODRIVER_CRATE],
        ("pacman", Chromium) => vec![&["pacman", "-S", "--noconfirm", "chromium"]],
        ("pacman", Firefox) => vec![&["pacman", "-S", "--noconfirm", "firefox", "geckodriver"]],
        ("zypper", Chromium) => vec![&[
            "zypper",
            "--non-interactive",
            "install",
            "chromium",
            "chromedriver",
        ]],
        ("zypper", Firefox) => vec![
            &["zypper", "--non-interactive", "install", "MozillaFirefox"],
            GECKODRIVER_CRATE,
        ],
        ("brew", Chromium) => vec![
            &["brew", "install", "--cask", "chromium"],
            &["brew", "install", "--cask", "chromedriver"],
        ],
        ("brew", Firefox) => vec![
            &["brew", "install", "--cask", "firefox"],
            &["brew", "install", "geckodriver"],
        ],
        _ => Vec::new(),
    }
}

/// The install commands for `kind` with the first package manager found on PATH (apt-get, dnf,
/// pacman, zypper, brew), with `sudo` for the system's package manager when not running as root
/// and sudo exists. Where the system has no geckodriver package, it comes from crates.io.
pub fn install_plan(kind: BrowserKind) -> InstallPlan {
    let has = |program: &str| find_executable(None, &[program], &[]).is_some();
    // SAFETY: geteuid has no preconditions and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    let sudo = !root && has("sudo");
    if let Some(manager) = MANAGERS.iter().find(|m| has(m)) {
        let commands = commands_of(manager, kind).into_iter().map(|command| {
            let system = !matches!(command[0], "brew" | "cargo");
            let elevate = (system && sudo).then_some("sudo");
            elevate
                .into_iter()
                .chain(command.iter().copied())
                .map(str::to_owned)
                .collect()
        });
        return InstallPlan::Commands(commands.collect());
    }
    let names = kind.names();
    InstallPlan::Manual(format!(
        "no supported package manager found (apt-get, dnf, pacman, zypper, brew). Install {} and \
         its {} of a matching version, put the driver on PATH (or set the paths in windup.toml's \
         [browser]), or set WINDUP_WEBDRIVER_URL to a running WebDriver",
        names.browser, names.driver
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_driver_is_named() {
        let config = BrowserConfig {
            chromedriver: Some("/nonexistent/chromedriver".into()),
            chrome_binary: Some("/nonexistent/chromium".into()),
            ..BrowserConfig::default()
        };
        let found = availability(&config);
        assert!(!found.ready());
        assert_eq!(found.missing(), vec!["Chromium", "ChromeDriver"]);
    }

    #[test]
    fn apt_machines_get_the_debian_packages() {
        if find_executable(None, &["apt-get"], &[]).is_none() {
            return; // Another family of machine: its own branch applies.
        }
        let InstallPlan::Commands(commands) = install_plan(BrowserKind::Chromium) else {
            panic!("apt-get is on PATH, so there is a plan");
        };
        let last = commands.last().unwrap().join(" ");
        assert!(
            last.ends_with("apt-get install -y chromium chromium-driver"),
            "{last}"
        );
        assert!(commands[0].join(" ").ends_with("apt-get update"));
        let InstallPlan::Commands(commands) = install_plan(BrowserKind::Firefox) else {
            panic!("apt-get is on PATH, so there is a plan");
        };
        let lines: Vec<String> = commands.iter().map(|c| c.join(" ")).collect();
        assert!(
            lines[1].ends_with("apt-get install -y firefox-esr"),
            "{lines:?}"
        );
        assert_eq!(lines[2], "cargo install --locked geckodriver");
    }
}
