//! Where a drafted scenario's credentials and file go: each value into `.env.local` (kept out of
//! git), its variable's name into `windup.toml`'s `[accounts.NAME]`, the scenario under
//! `scenarios/` — never over a file that is there.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{ENV_FILE, Settings};
use crate::model::secret::SecretValue;

use super::AuthorError;

/// The variable that holds an account's key: the one `windup.toml` names, else `ACCOUNT_KEY`.
pub(super) fn variable(settings: &Settings, account: &str, key: &str) -> String {
    if let Some(name) = settings
        .accounts
        .get(account)
        .and_then(|keys| keys.get(key))
    {
        return name.clone();
    }
    format!("{account}_{key}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// Puts each `(variable, value)` in `.env.local`: added when missing, left when it holds the
/// value already; a variable there with another value is an error, and nothing is written.
/// Returns the variables added.
pub(super) fn store_values(
    root: &Path,
    values: &[(String, SecretValue)],
) -> Result<Vec<String>, AuthorError> {
    let path = root.join(ENV_FILE);
    let env = crate::config::EnvFile::load(root).map_err(|e| AuthorError::Io {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    let mut lines = String::new();
    let mut added = Vec::new();
    for (name, value) in values {
        match env.in_file(name) {
            Some(held) if held == value.expose() => {}
            Some(_) => {
                return Err(AuthorError::Conflict {
                    path,
                    variable: name.clone(),
                });
            }
            None => {
                lines.push_str(&format!("{name}={}\n", quoted(value.expose())));
                added.push(name.clone());
            }
        }
    }
    if lines.is_empty() {
        return Ok(added);
    }
    let io = |e: std::io::Error| AuthorError::Io {
        path: path.clone(),
        detail: e.to_string(),
    };
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    let mut file = private_append(&path).map_err(io)?;
    if !existing.is_empty() && !existing.ends_with('\n') {
        file.write_all(b"\n").map_err(io)?;
    }
    file.write_all(lines.as_bytes()).map_err(io)?;
    Ok(added)
}

/// A value as a `.env.local` line holds it, read back as it is: bare when it can be, else in
/// single quotes (nothing in them is expanded), else in double quotes with escapes.
fn quoted(value: &str) -> String {
    let plain = value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "-_.@+/:,".contains(c));
    if plain {
        value.to_owned()
    } else if !value.contains('\'') {
        format!("'{value}'")
    } else {
        let escaped = value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('$', "\\$");
        format!("\"{escaped}\"")
    }
}

#[cfg(unix)]
fn private_append(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_append(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

/// Maps each key of `account` to its variable in `windup.toml`, keeping the file's comments
/// and order; returns whether the file changed.
pub(super) fn map_account(
    root: &Path,
    account: &str,
    keys: &[(String, String)],
) -> Result<bool, AuthorError> {
    let path = root.join("windup.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| AuthorError::Io {
        path: path.clone(),
        detail: format!("{e}"),
    })?;
    let accounts = doc
        .entry("accounts")
        .or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        })
        .as_table_mut()
        .ok_or_else(|| AuthorError::Io {
            path: path.clone(),
            detail: "`accounts` is not a table".to_owned(),
        })?;
    let table = accounts
        .entry(account)
        .or_insert_with(toml_edit::table)
        .as_table_mut()
        .ok_or_else(|| AuthorError::Io {
            path: path.clone(),
            detail: format!("`accounts.{account}` is not a table"),
        })?;
    let mut changed = false;
    for (key, variable) in keys {
        if table.get(key).is_none() {
            table.insert(key, toml_edit::value(variable.as_str()));
            changed = true;
        }
    }
    if changed {
        std::fs::write(&path, doc.to_string()).map_err(|e| AuthorError::Io {
            path,
            detail: e.to_string(),
        })?;
    }
    Ok(changed)
}

/// Adds `.env.local` to the project's `.gitignore` when the project is a git repository that
/// does not ignore it yet; returns whether it did.
pub(super) fn ignore_env_file(root: &Path) -> Result<bool, AuthorError> {
    let path = root.join(".gitignore");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let ignored = text
        .lines()
        .map(str::trim)
        .any(|l| l == ENV_FILE || l == "/.env.local" || l == ".env*" || l == ".env.*");
    if ignored || (!root.join(".git").exists() && !path.exists()) {
        return Ok(false);
    }
    let sep = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    std::fs::write(&path, format!("{text}{sep}{ENV_FILE}\n")).map_err(|e| AuthorError::Io {
        path,
        detail: e.to_string(),
    })?;
    Ok(true)
}

/// Writes the scenario as `DIR/NAME.yaml`, failing if that file is there.
pub(super) fn write_scenario(dir: &Path, name: &str, yaml: &str) -> Result<PathBuf, AuthorError> {
    let path = dir.join(format!("{name}.yaml"));
    let io = |e: std::io::Error| AuthorError::Io {
        path: path.clone(),
        detail: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path);
    match file {
        Ok(mut file) => file.write_all(yaml.as_bytes()).map_err(io)?,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(AuthorError::Exists { path });
        }
        Err(e) => return Err(io(e)),
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_go_to_env_local_once_and_a_conflict_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let value = |v: &str| ("DEMO_PASSWORD".to_owned(), SecretValue::new(v));
        assert_eq!(
            store_values(root, &[value("it's a secret")]).unwrap(),
            ["DEMO_PASSWORD"]
        );
        let odd = ("ODD".to_owned(), SecretValue::new("a $b \"c\" \\d #e"));
        let single = ("SINGLE".to_owned(), SecretValue::new("x y$z"));
        store_values(root, &[odd, single]).unwrap();
        assert_eq!(
            store_values(root, &[value("it's a secret")]).unwrap(),
            Vec::<String>::new()
        );
        let env = crate::config::EnvFile::load(root).unwrap();
        assert_eq!(env.in_file("DEMO_PASSWORD"), Some("it's a secret"));
        assert_eq!(env.in_file("ODD"), Some("a $b \"c\" \\d #e"));
        assert_eq!(env.in_file("SINGLE"), Some("x y$z"));
        let err = store_values(root, &[value("s3cond-value")]).unwrap_err();
        assert!(err.to_string().contains("DEMO_PASSWORD"), "{err}");
        assert!(!err.to_string().contains("s3cond"), "{err}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(root.join(ENV_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o077, 0, "only its owner reads it");
        }
    }

    #[test]
    fn an_account_is_mapped_in_windup_toml_keeping_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("windup.toml"), "# mine\nworkers = 2\n").unwrap();
        let keys = [("password".to_owned(), "DEMO_PASSWORD".to_owned())];
        assert!(map_account(root, "demo", &keys).unwrap());
        assert!(!map_account(root, "demo", &keys).unwrap(), "already there");
        let text = std::fs::read_to_string(root.join("windup.toml")).unwrap();
        assert_eq!(
            text,
            "# mine\nworkers = 2\n\n[accounts.demo]\npassword = \"DEMO_PASSWORD\"\n"
        );
    }

    #[test]
    fn a_scenario_is_never_written_over_another() {
        let dir = tempfile::tempdir().unwrap();
        let path = write_scenario(dir.path(), "orders", "task: x\n").unwrap();
        assert!(path.ends_with("orders.yaml"));
        let err = write_scenario(dir.path(), "orders", "task: y\n").unwrap_err();
        assert!(matches!(err, AuthorError::Exists { .. }));
        assert_eq!(std::fs::read_to_string(path).unwrap(), "task: x\n");
    }
}
