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

/// The install commands for `kind` with the first package manager found on PATH (apt-get, dnf,
/// pacman, zypper, brew), with `sudo` when not running as root and sudo exists. Where the system
/// has no geckodriver package, it comes from crates.io (`cargo install --locked geckodriver`).
pub fn install_plan(kind: BrowserKind) -> InstallPlan {
    let has = |program: &str| find_executable(None, &[program], &[]).is_some();
    // SAFETY: geteuid has no preconditions and touches no memory.
    let root = unsafe { libc::geteuid() } == 0;
    let elevate = |command: &[&str]| -> Vec<String> {
        let sudo = (!root && has("sudo")).then_some("sudo");
        sudo.into_iter()
            .chain(command.iter().copied())
            .map(str::to_owned)
            .collect()
    };
    let plain =
        |command: &[&str]| -> Vec<String> { command.iter().map(|c| (*c).to_owned()).collect() };
    let geckodriver = plain(&["cargo", "install", "--locked", "geckodriver"]);
    let firefox = kind == BrowserKind::Firefox;
    if has("apt-get") {
        let install = if firefox {
            elevate(&["apt-get", "install", "-y", "firefox-esr"])
        } else {
            elevate(&["apt-get", "install", "-y", "chromium", "chromium-driver"])
        };
        let mut commands = vec![elevate(&["apt-get", "update"]), install];
        commands.extend(firefox.then_some(geckodriver));
        return InstallPlan::Commands(commands);
    }
    if has("dnf") {
        let install = if firefox {
            elevate(&["dnf", "install", "-y", "firefox"])
        } else {
            elevate(&["dnf", "install", "-y", "chromium", "chromedriver"])
        };
        return InstallPlan::Commands(
            [install]
                .into_iter()
                .chain(firefox.then_some(geckodriver))
                .collect(),
        );
    }
    if has("pacman") {
        let packages: &[&str] = if firefox {
            &["firefox", "geckodriver"]
        } else {
            &["chromium"]
        };
        let command = [&["pacman", "-S", "--noconfirm"], packages].concat();
        return InstallPlan::Commands(vec![elevate(&command)]);
    }
    if has("zypper") {
        let install = if firefox {
            elevate(&["zypper", "--non-interactive", "install", "MozillaFirefox"])
        } else {
            elevate(&[
                "zypper",
                "--non-interactive",
                "install",
                "chromium",
                "chromedriver",
            ])
        };
        return InstallPlan::Commands(
            [install]
                .into_iter()
                .chain(firefox.then_some(geckodriver))
                .collect(),
        );
    }
    if has("brew") {
        return InstallPlan::Commands(if firefox {
            vec![
                plain(&["brew", "install", "--cask", "firefox"]),
                plain(&["brew", "install", "geckodriver"]),
            ]
        } else {
            vec![
                plain(&["brew", "install", "--cask", "chromium"]),
                plain(&["brew", "install", "--cask", "chromedriver"]),
            ]
        });
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
