//! This machine as the set-up sees it: what is on PATH, who runs, and which system it is.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::needs::Probe;

/// The copy of an npm project's lockfile that `npm ci` left in node_modules: equal to the
/// lockfile, the installed packages are the locked ones.
pub const NPM_STAMP: &str = "node_modules/.xtask-package-lock.json";

/// The copy of a Python project's `requirements.txt` left in its virtual environment once pip
/// installed it: equal to the file, the installed packages are the pinned ones.
pub const PIP_STAMP: &str = ".venv/.xtask-requirements.txt";

/// How the set-up may install system packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Privilege {
    /// Running as root.
    Root,
    /// Not root, but `sudo -n` works without a password.
    Sudo,
    /// Neither: system packages are for someone else to install.
    None,
}

impl Privilege {
    /// The words put before a system command: none as root, `sudo -n` (keeping apt's
    /// non-interactive mode, which sudo would drop) through sudo, and plain `sudo` in a command
    /// shown to a person who has neither here.
    pub fn prefix(&self) -> &'static [&'static str] {
        match self {
            Privilege::Root => &[],
            Privilege::Sudo => &["sudo", "-n", "env", "DEBIAN_FRONTEND=noninteractive"],
            Privilege::None => &["sudo"],
        }
    }
}

/// What the set-up looks at; everything comes from the environment once, so tests can give
/// their own.
#[derive(Debug, Clone)]
pub struct Machine {
    /// The repository's root.
    pub repo: PathBuf,
    path: Vec<PathBuf>,
    cargo_bin: Option<PathBuf>,
    os_release: String,
}

impl Machine {
    /// This machine, for the repository at `repo`.
    pub fn here(repo: &Path) -> Self {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")));
        Machine {
            repo: repo.to_owned(),
            path: std::env::split_paths(&path).collect(),
            cargo_bin: cargo_home.map(|home| home.join("bin")),
            os_release: std::fs::read_to_string("/etc/os-release").unwrap_or_default(),
        }
    }

    /// The first of `names` on PATH.
    pub fn program(&self, names: &[&str]) -> Option<PathBuf> {
        self.path
            .iter()
            .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
            .find(|candidate| is_executable(candidate))
    }

    /// PATH as it was, for the commands the set-up runs.
    pub fn path_var(&self) -> OsString {
        std::env::join_paths(&self.path).unwrap_or_default()
    }

    /// Where the thing `probe` looks for is, in a few words; `None` when it is missing.
    pub fn find(&self, probe: &Probe) -> Option<String> {
        match *probe {
            Probe::Program { names, fallbacks } => self
                .program(names)
                .or_else(|| {
                    fallbacks
                        .iter()
                        .map(PathBuf::from)
                        .find(|p| is_executable(p))
                })
                .map(|p| p.display().to_string()),
            Probe::CargoBin(name) => self
                .program(&[name])
                .or_else(|| {
                    let installed = self.cargo_bin.as_ref()?.join(name);
                    is_executable(&installed).then_some(installed)
                })
                .map(|p| p.display().to_string()),
            Probe::PkgConfig(library) => {
                let pkg_config = self.program(&["pkg-config"])?;
                let version = Command::new(pkg_config)
                    .args(["--modversion", library])
                    .stderr(Stdio::null())
                    .output()
                    .ok()
                    .filter(|out| out.status.success())?;
                let version = String::from_utf8_lossy(&version.stdout);
                Some(format!("{library} {} (pkg-config)", version.trim()))
            }
            Probe::NpmLock(dir) => {
                let project = self.repo.join(dir);
                let lock = std::fs::read(project.join("package-lock.json")).ok()?;
                let stamp = std::fs::read(project.join(NPM_STAMP)).ok()?;
                (lock == stamp).then(|| format!("{dir}/node_modules, as locked"))
            }
            Probe::PipLock(dir) => {
                let project = self.repo.join(dir);
                let pinned = std::fs::read(project.join("requirements.txt")).ok()?;
                let stamp = std::fs::read(project.join(PIP_STAMP)).ok()?;
                let python = is_executable(&project.join(".venv/bin/python"));
                (python && pinned == stamp).then(|| format!("{dir}/.venv, as pinned"))
            }
        }
    }

    /// Whether this is Debian or a system built on it (Ubuntu…), with apt-get on PATH.
    pub fn is_debian(&self) -> bool {
        let family = self.os_release.lines().any(|line| {
            let Some((key, value)) = line.split_once('=') else {
                return false;
            };
            matches!(key, "ID" | "ID_LIKE")
                && value
                    .trim_matches('"')
                    .split_whitespace()
                    .any(|id| id == "debian" || id == "ubuntu")
        });
        family && self.program(&["apt-get"]).is_some()
    }

    /// Root, or sudo without a password, or neither.
    pub fn privilege(&self) -> Privilege {
        if effective_uid() == Some(0) {
            return Privilege::Root;
        }
        let Some(sudo) = self.program(&["sudo"]) else {
            return Privilege::None;
        };
        let works = Command::new(sudo)
            .args(["-n", "true"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        if works {
            Privilege::Sudo
        } else {
            Privilege::None
        }
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The effective user id, from the kernel's own account of this process.
fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let uids = status.lines().find_map(|line| line.strip_prefix("Uid:"))?;
    // Real, effective, saved and file-system ids, in that order.
    uids.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(os_release: &str, path: Vec<PathBuf>) -> Machine {
        Machine {
            repo: PathBuf::from("/nonexistent"),
            path,
            cargo_bin: None,
            os_release: os_release.to_owned(),
        }
    }

    #[test]
    fn debian_and_its_children_are_told_by_os_release_and_apt_get() {
        let dir = tempfile::tempdir().unwrap();
        let apt = dir.path().join("apt-get");
        std::fs::write(&apt, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&apt, std::fs::Permissions::from_mode(0o755)).unwrap();
        let with_apt = vec![dir.path().to_owned()];
        assert!(machine("ID=debian\n", with_apt.clone()).is_debian());
        assert!(machine("ID=ubuntu\nID_LIKE=debian\n", with_apt.clone()).is_debian());
        assert!(machine("ID=pop\nID_LIKE=\"ubuntu debian\"\n", with_apt.clone()).is_debian());
        assert!(!machine("ID=fedora\n", with_apt).is_debian());
        assert!(!machine("ID=debian\n", vec![]).is_debian());
    }

    #[test]
    fn an_npm_project_is_installed_when_its_stamp_is_its_lockfile() {
        let repo = tempfile::tempdir().unwrap();
        let project = repo.path().join("tools/x");
        std::fs::create_dir_all(project.join("node_modules")).unwrap();
        std::fs::write(project.join("package-lock.json"), "{\"v\":1}").unwrap();
        let mut here = machine("", vec![]);
        here.repo = repo.path().to_owned();
        let probe = Probe::NpmLock("tools/x");
        assert_eq!(here.find(&probe), None);
        std::fs::write(project.join(NPM_STAMP), "{\"v\":1}").unwrap();
        assert!(here.find(&probe).is_some());
        std::fs::write(project.join("package-lock.json"), "{\"v\":2}").unwrap();
        assert_eq!(
            here.find(&probe),
            None,
            "a changed lockfile is installed again"
        );
    }

    #[test]
    fn a_python_project_is_installed_when_its_stamp_is_its_requirements() {
        let repo = tempfile::tempdir().unwrap();
        let project = repo.path().join("tools/py");
        std::fs::create_dir_all(project.join(".venv/bin")).unwrap();
        std::fs::write(project.join("requirements.txt"), "a==1\n").unwrap();
        std::fs::write(project.join(PIP_STAMP), "a==1\n").unwrap();
        let mut here = machine("", vec![]);
        here.repo = repo.path().to_owned();
        let probe = Probe::PipLock("tools/py");
        assert_eq!(here.find(&probe), None, "no python in the environment");
        let python = project.join(".venv/bin/python");
        std::fs::write(&python, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(here.find(&probe).is_some());
        std::fs::write(project.join("requirements.txt"), "a==2\n").unwrap();
        assert_eq!(here.find(&probe), None, "a changed pin is installed again");
    }

    #[test]
    fn the_effective_uid_is_read() {
        assert!(effective_uid().is_some());
    }
}
