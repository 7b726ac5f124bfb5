//! Getting Chromium and ChromeDriver onto a machine: what is missing, and the system package
//! manager's commands that install them (`cargo windup setup`).

use std::path::PathBuf;

use super::driver::find_executable;
use super::{BrowserConfig, Names};

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

/// The install commands for the first package manager found on PATH (apt-get, dnf, pacman,
/// zypper, brew), with `sudo` when not running as root and sudo exists.
pub fn install_plan() -> InstallPlan {
    let has = |program: &str| find_executable(None, &[program], &[]).is_some();
    // SAFETY: geteuid has no preconditions and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    let elevate = |mut command: Vec<&str>| -> Vec<String> {
        if !root && has("sudo") {
            command.insert(0, "sudo");
        }
        command.into_iter().map(str::to_owned).collect()
    };
    if has("apt-get") {
        return InstallPlan::Commands(vec![
            elevate(vec!["apt-get", "update"]),
            elevate(vec![
                "apt-get",
                "install",
                "-y",
                "chromium",
                "chromium-driver",
            ]),
        ]);
    }
    if has("dnf") {
        return InstallPlan::Commands(vec![elevate(vec![
            "dnf",
            "install",
            "-y",
            "chromium",
            "chromedriver",
        ])]);
    }
    if has("pacman") {
        return InstallPlan::Commands(vec![elevate(vec![
            "pacman",
            "-S",
            "--noconfirm",
            "chromium",
        ])]);
    }
    if has("zypper") {
        return InstallPlan::Commands(vec![elevate(vec![
            "zypper",
            "--non-interactive",
            "install",
            "chromium",
            "chromedriver",
        ])]);
    }
    if has("brew") {
        return InstallPlan::Commands(vec![
            vec![
                "brew".into(),
                "install".into(),
                "--cask".into(),
                "chromium".into(),
            ],
            vec![
                "brew".into(),
                "install".into(),
                "--cask".into(),
                "chromedriver".into(),
            ],
        ]);
    }
    InstallPlan::Manual(
        "no supported package manager found (apt-get, dnf, pacman, zypper, brew). Install \
         Chromium and the ChromeDriver of the same version, put chromedriver on PATH (or set \
         WINDUP_CHROMEDRIVER and WINDUP_CHROME to their paths), or set WINDUP_WEBDRIVER_URL to a \
         running WebDriver"
            .to_owned(),
    )
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
        let InstallPlan::Commands(commands) = install_plan() else {
            panic!("apt-get is on PATH, so there is a plan");
        };
        let last = commands.last().unwrap().join(" ");
        assert!(
            last.ends_with("apt-get install -y chromium chromium-driver"),
            "{last}"
        );
        assert!(commands[0].join(" ").ends_with("apt-get update"));
    }
}
