//! `cargo windup init`: scaffolds Windup into a crate — windup.toml, a first scenario, the test
//! target and its `[[test]]` entry, the dev-dependency — changing nothing that is already there,
//! so running it twice changes nothing. With `--ci`, a CI workflow too ([`super::ci`]).

use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, DocumentMut, Item, Table, value};

const CONFIG: &str = r#"# Windup configuration (see docs/configuration.md in the Windup repository).
# The app under test: the test setup in tests/e2e.rs may start it and return its URL instead.
base_url = "http://127.0.0.1:8080"
scenarios = "scenarios"
"#;

const TEST_TARGET: &str = r#"//! End-to-end scenarios (scenarios/*.yaml), run by Windup as tests: `cargo test --test e2e`.

#[windup::main]
async fn setup() -> windup::Setup {
    // Start the app under test here and return its URL, for example:
    //     let app = my_app::spawn().await;
    //     windup::Setup::new(app.url()).with_guard(app)
    // As written, scenarios run against base_url from windup.toml (or WINDUP_BASE_URL).
    windup::Setup::from_config()
}
"#;

const FIRST_SCENARIO: &str = r#"# A first scenario. Steps are planned without any model; see the step language in the
# Windup guide. Replace these with what a person does on your site.
task: Open the home page.
steps:
  - go to /
  - expect url /
"#;

/// One thing init did, or a file it left as it was and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    Created(PathBuf),
    Edited {
        path: PathBuf,
        what: String,
    },
    /// A file init would have written is there already and stays as it is.
    Kept {
        path: PathBuf,
        why: String,
    },
}

impl Change {
    /// Whether a file was written (a file kept changes nothing).
    pub fn changed(&self) -> bool {
        !matches!(self, Change::Kept { .. })
    }
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Change::Created(path) => write!(f, "created {}", path.display()),
            Change::Edited { path, what } => write!(f, "edited {}: {what}", path.display()),
            Change::Kept { path, why } => write!(f, "kept {} as it is: {why}", path.display()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InitError {
    #[error("{path} not found: run `cargo windup init` in the root of a crate", path = .0.display())]
    NotACrate(PathBuf),
    #[error("{path} is not valid TOML: {reason}; fix it, then run init again", path = .path.display())]
    Manifest { path: PathBuf, reason: String },
    #[error("cannot write {path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Scaffolds Windup into the crate at `crate_dir`; `windup_dependency` is the dev-dependency to
/// add when there is none (a version requirement such as `"0.1"`).
pub fn init(crate_dir: &Path, windup_dependency: &str) -> Result<Vec<Change>, InitError> {
    let manifest = crate_dir.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(InitError::NotACrate(manifest));
    }
    let mut changes = Vec::new();
    create(&crate_dir.join("windup.toml"), CONFIG, &mut changes)?;
    create(&crate_dir.join("tests/e2e.rs"), TEST_TARGET, &mut changes)?;
    let scenarios = crate_dir.join("scenarios");
    let has_scenarios = std::fs::read_dir(&scenarios)
        .map(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.ends_with(".yaml") || name.ends_with(".yml")
            })
        })
        .unwrap_or(false);
    if !has_scenarios {
        create(&scenarios.join("home.yaml"), FIRST_SCENARIO, &mut changes)?;
    }
    edit_manifest(&manifest, windup_dependency, &mut changes)?;
    ignore_state(&crate_dir.join(".gitignore"), &mut changes)?;
    Ok(changes)
}

/// Writes `contents` to `path` unless there is a file there already.
pub(super) fn create(
    path: &Path,
    contents: &str,
    changes: &mut Vec<Change>,
) -> Result<(), InitError> {
    if path.exists() {
        return Ok(());
    }
    let io = |source| InitError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(path, contents).map_err(io)?;
    changes.push(Change::Created(path.to_owned()));
    Ok(())
}

/// Adds the `e2e` test target (harness = false) and the windup dev-dependency when missing,
/// keeping the manifest's formatting and comments.
fn edit_manifest(
    manifest: &Path,
    dependency: &str,
    changes: &mut Vec<Change>,
) -> Result<(), InitError> {
    let text = std::fs::read_to_string(manifest).map_err(|source| InitError::Io {
        path: manifest.to_owned(),
        source,
    })?;
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|err: toml_edit::TomlError| InitError::Manifest {
                path: manifest.to_owned(),
                reason: err.to_string(),
            })?;
    let mut edits = Vec::new();
    let has_dependency = ["dev-dependencies", "dependencies"]
        .iter()
        .any(|table| doc.get(table).and_then(|t| t.get("windup")).is_some());
    if !has_dependency {
        let dev = doc
            .entry("dev-dependencies")
            .or_insert_with(|| Item::Table(Table::new()));
        if let Some(dev) = dev.as_table_like_mut() {
            dev.insert("windup", value(dependency));
            edits.push(format!(
                "added the dev-dependency windup = \"{dependency}\""
            ));
        }
    }
    let has_target = doc
        .get("test")
        .and_then(Item::as_array_of_tables)
        .is_some_and(|tests| {
            tests
                .iter()
                .any(|t| t.get("name").and_then(Item::as_str) == Some("e2e"))
        });
    if !has_target {
        let tests = doc
            .entry("test")
            .or_insert_with(|| Item::ArrayOfTables(ArrayOfTables::new()));
        if let Some(tests) = tests.as_array_of_tables_mut() {
            let mut target = Table::new();
            target.insert("name", value("e2e"));
            target.insert("harness", value(false));
            tests.push(target);
            edits.push("added the test target e2e (harness = false)".to_owned());
        }
    }
    if edits.is_empty() {
        return Ok(());
    }
    std::fs::write(manifest, doc.to_string()).map_err(|source| InitError::Io {
        path: manifest.to_owned(),
        source,
    })?;
    for what in edits {
        changes.push(Change::Edited {
            path: manifest.to_owned(),
            what,
        });
    }
    Ok(())
}

/// Windup's state directory (`.windup/`: cache, artifacts) stays out of version control.
fn ignore_state(gitignore: &Path, changes: &mut Vec<Change>) -> Result<(), InitError> {
    let current = std::fs::read_to_string(gitignore).unwrap_or_default();
    if current.lines().any(|line| {
        matches!(
            line.trim(),
            ".windup" | ".windup/" | "/.windup" | "/.windup/"
        )
    }) {
        return Ok(());
    }
    let mut updated = current.clone();
    if !updated.is_empty() && !updated.ends_with('\n') {
        updated.push('\n');
    }
    updated.push_str(".windup/\n");
    std::fs::write(gitignore, updated).map_err(|source| InitError::Io {
        path: gitignore.to_owned(),
        source,
    })?;
    changes.push(Change::Edited {
        path: gitignore.to_owned(),
        what: "ignored .windup/".to_owned(),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_crate() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"shop\" # my shop\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn scaffolds_everything_once() {
        let dir = fresh_crate();
        let first = init(dir.path(), "0.1").unwrap();
        let created: Vec<String> = first.iter().map(|c| c.to_string()).collect();
        assert_eq!(first.len(), 6, "{created:#?}");
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("name = \"shop\" # my shop"),
            "comments survive: {manifest}"
        );
        assert!(
            manifest.contains("[dev-dependencies]\nwindup = \"0.1\""),
            "{manifest}"
        );
        assert!(
            manifest.contains("[[test]]\nname = \"e2e\"\nharness = false"),
            "{manifest}"
        );
        assert!(dir.path().join("tests/e2e.rs").is_file());
        assert!(dir.path().join("scenarios/home.yaml").is_file());
        assert!(dir.path().join("windup.toml").is_file());

        let before: Vec<(PathBuf, String)> = [
            "Cargo.toml",
            "windup.toml",
            "tests/e2e.rs",
            "scenarios/home.yaml",
            ".gitignore",
        ]
        .iter()
        .map(|p| {
            (
                dir.path().join(p),
                std::fs::read_to_string(dir.path().join(p)).unwrap(),
            )
        })
        .collect();
        assert_eq!(
            init(dir.path(), "0.1").unwrap(),
            vec![],
            "a second run changes nothing"
        );
        for (path, text) in before {
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                text,
                "{}",
                path.display()
            );
        }
    }

    #[test]
    fn keeps_what_the_crate_already_has() {
        let dir = fresh_crate();
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"shop\"\nversion = \"0.1.0\"\n\n[dev-dependencies]\nwindup = { path = \"../windup\" }\n",
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
        std::fs::write(
            dir.path().join("scenarios/mine.yaml"),
            "task: mine\nsteps: [go to /]\n",
        )
        .unwrap();
        let changes = init(dir.path(), "0.1").unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("windup = { path = \"../windup\" }"));
        assert!(!manifest.contains("windup = \"0.1\""));
        assert!(
            !dir.path().join("scenarios/home.yaml").exists(),
            "{changes:?}"
        );
    }

    #[test]
    fn refuses_a_directory_without_a_crate() {
        let dir = tempfile::tempdir().unwrap();
        let err = init(dir.path(), "0.1").unwrap_err();
        assert!(
            err.to_string()
                .contains("run `cargo windup init` in the root of a crate"),
            "{err}"
        );
    }
}
