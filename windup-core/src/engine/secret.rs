//! Secrets by reference. `[accounts.NAME]` in windup.toml maps each key to the name of an
//! environment variable; the value comes from the environment, or else from `.env.local` in
//! the project root (keep it out of version control). Scenarios, plans, lockfiles and the cache
//! carry only references (`account.password`); the value is resolved at the WebDriver call.
//!
//! [`SecretValue`] has no `Display`, shows as `<redacted>` under `Debug` and does not implement
//! `Serialize`, so it cannot reach a message, a log or a file by accident. What could still carry
//! one — a page's text in a failure message, a report — is what the [leak scan](scan) is for:
//! after every run it searches every file Windup wrote and the run's output for every value.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::config::{EnvFile, Settings};
use crate::engine::executor::ValueSource;
use crate::model::scenario::Scenario;

/// Values shorter than this are not scanned for: they would match ordinary text.
pub const MIN_SCANNED_LEN: usize = 4;

use crate::model::secret::SecretValue;

/// One scenario's account values, resolved when a step types them.
#[derive(Debug, Clone, Default)]
pub struct Accounts {
    /// Key (`password`) → the account's variable, resolved.
    values: BTreeMap<String, SecretValue>,
}

impl Accounts {
    /// The values of the scenario's account (none without one); keys whose variable is unset
    /// are left out, so a step that types one fails saying so.
    pub fn for_scenario(settings: &Settings, scenario: &Scenario) -> Self {
        let values = scenario
            .account
            .as_ref()
            .and_then(|name| settings.accounts.get(name))
            .map(|keys| resolve(keys, &settings.env_file))
            .unwrap_or_default();
        Self { values }
    }

    /// The values of the account `name` (none when there is no such account).
    pub fn for_account(settings: &Settings, name: &str) -> Self {
        let values = settings
            .accounts
            .get(name)
            .map(|keys| resolve(keys, &settings.env_file))
            .unwrap_or_default();
        Self { values }
    }

    /// Each reference (`account.email`) with its value, for keeping values out of prompts.
    pub fn named(&self) -> Vec<(String, SecretValue)> {
        self.values
            .iter()
            .map(|(key, value)| (format!("account.{key}"), value.clone()))
            .collect()
    }
}

impl ValueSource for Accounts {
    fn resolve(&self, reference: &str) -> Option<SecretValue> {
        self.values
            .get(reference.strip_prefix("account.")?)
            .cloned()
    }
}

fn resolve(keys: &BTreeMap<String, String>, env: &EnvFile) -> BTreeMap<String, SecretValue> {
    keys.iter()
        .filter_map(|(key, var)| Some((key.clone(), SecretValue::new(env.var(var)?))))
        .collect()
}

/// Every secret a run may hold, named for a person (`accounts.demo.password`): each configured
/// account value and the model provider's key.
pub fn all(settings: &Settings) -> Vec<(String, SecretValue)> {
    let mut all = Vec::new();
    for (account, keys) in &settings.accounts {
        for (key, value) in resolve(keys, &settings.env_file) {
            all.push((format!("accounts.{account}.{key}"), value));
        }
    }
    if let Some(key) = settings.llm.as_ref().and_then(|llm| llm.api_key.clone()) {
        all.push(("the model provider's API key".to_owned(), key));
    }
    all
}

/// A secret value found where it must not be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leak {
    /// The file, or a description of the text (`the run's output`).
    pub place: String,
    /// Which secret, by name: never its value.
    pub secret: String,
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "secret leak: the value of {} is in {}; delete or clean it, and change the scenario or \
             report that wrote it (a secret typed into a field whose text is then checked or shown)",
            self.secret, self.place
        )
    }
}

/// Searches every file under `paths` (files or directories, recursively) and each named text
/// for every secret of at least [`MIN_SCANNED_LEN`] characters.
pub fn scan(
    paths: &[PathBuf],
    texts: &[(&str, &str)],
    secrets: &[(String, SecretValue)],
) -> Vec<Leak> {
    let secrets: Vec<&(String, SecretValue)> = secrets
        .iter()
        .filter(|(_, value)| value.expose().chars().count() >= MIN_SCANNED_LEN)
        .collect();
    let mut leaks = Vec::new();
    if secrets.is_empty() {
        return leaks;
    }
    let mut check = |place: String, bytes: &[u8]| {
        for (name, value) in &secrets {
            if contains(bytes, value.expose().as_bytes()) {
                leaks.push(Leak {
                    place: place.clone(),
                    secret: name.clone(),
                });
            }
        }
    };
    for (name, text) in texts {
        check((*name).to_owned(), text.as_bytes());
    }
    let mut files = Vec::new();
    for path in paths {
        collect_files(path, &mut files);
    }
    files.sort();
    for file in files {
        if let Ok(bytes) = std::fs::read(&file) {
            check(file.display().to_string(), &bytes);
        }
    }
    leaks
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty()
        && haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

fn collect_files(path: &Path, out: &mut Vec<PathBuf>) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => {
            if let Ok(entries) = std::fs::read_dir(path) {
                for entry in entries.flatten() {
                    collect_files(&entry.path(), out);
                }
            }
        }
        Ok(meta) if meta.is_file() => out.push(path.to_owned()),
        _ => {}
    }
}

/// The leak scan after a run: every secret the project configures, searched for in what Windup
/// wrote (see [`written_paths`]), in `extra` files (reports) and in the run's `output`.
pub fn check_run(settings: &Settings, extra: &[PathBuf], output: &str) -> Vec<Leak> {
    let mut paths = written_paths(settings);
    paths.extend(extra.iter().cloned());
    scan(&paths, &[("the run's output", output)], &all(settings))
}

/// What Windup writes in a project: `.windup/` (cache, ledger, prompts, screenshots) and the
/// plan lockfiles beside the scenarios.
pub fn written_paths(settings: &Settings) -> Vec<PathBuf> {
    let mut paths = vec![settings.root.join(".windup")];
    let mut lockfiles = Vec::new();
    collect_files(&settings.scenarios_dir, &mut lockfiles);
    paths.extend(lockfiles.into_iter().filter(|path| {
        let name = path.to_string_lossy();
        name.ends_with(".plan.json") || name.ends_with(".plan.json.new")
    }));
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_never_shows() {
        let secret = SecretValue::new("hunter2-long");
        assert_eq!(format!("{secret:?}"), "SecretValue(<redacted>)");
        assert_eq!(
            format!(
                "{:?}",
                Accounts {
                    values: [("password".to_owned(), secret.clone())].into()
                }
            )
            .matches("hunter2")
            .count(),
            0
        );
    }

    #[test]
    fn the_scan_names_the_file_and_the_secret_never_the_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(
            dir.path().join("a/b/report.json"),
            "typed demo-password-123 here",
        )
        .unwrap();
        std::fs::write(dir.path().join("a/clean.txt"), "nothing to see").unwrap();
        let secrets = vec![
            (
                "accounts.demo.password".to_owned(),
                SecretValue::new("demo-password-123"),
            ),
            ("accounts.demo.pin".to_owned(), SecretValue::new("42")),
        ];
        let leaks = scan(
            &[dir.path().to_owned()],
            &[("the run's output", "PASS login; 42 items")],
            &secrets,
        );
        assert_eq!(leaks.len(), 1, "{leaks:?}");
        assert_eq!(leaks[0].secret, "accounts.demo.password");
        assert!(leaks[0].place.ends_with("a/b/report.json"));
        let message = leaks[0].to_string();
        assert!(message.starts_with("secret leak: the value of accounts.demo.password is in "));
        assert!(!message.contains("demo-password-123"));
        let leaks = scan(
            &[],
            &[("the run's output", "oops demo-password-123")],
            &secrets,
        );
        assert_eq!(leaks[0].place, "the run's output");
    }
}
