//! `cargo windup init --ci PROVIDER`: a CI workflow that runs the scenarios read-only in shards,
//! each shard a job with its own browser running its part of them (cargo-nextest's
//! `--partition count:K/N`), with its JUnit and HTML reports kept as the job's artifacts.
//!
//! The workflow is text made here; writing it, and the `.config/nextest.toml` whose `ci` profile
//! writes the JUnit report, follows init's rule: what is already there is left as it is, and
//! init says so.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use toml_edit::{DocumentMut, Item, Table, value};

use super::init::{Change, InitError, create};

/// The nextest profile the workflow runs, and where its JUnit report goes (under the crate's
/// `target/nextest/`, whatever `CARGO_TARGET_DIR` says).
pub const NEXTEST_PROFILE: &str = "ci";
/// The JUnit report of one shard, from the crate's root.
pub const JUNIT_REPORT: &str = "target/nextest/ci/junit.xml";
/// Windup's HTML report as the workflow asks for it (`WINDUP_REPORT`); under nextest each
/// scenario's page goes to `target/windup/report/SCENARIO.html`.
pub const HTML_REPORT: &str = "target/windup/report.html";

/// Where the workflow runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// GitHub Actions: `.github/workflows/windup.yml`, a matrix of shards.
    GitHub,
    /// GitLab CI/CD: `.gitlab-ci.yml`, a job with `parallel:`.
    GitLab,
}

impl Provider {
    /// The workflow's file, from the crate's root.
    pub fn workflow_path(self) -> &'static str {
        match self {
            Provider::GitHub => ".github/workflows/windup.yml",
            Provider::GitLab => ".gitlab-ci.yml",
        }
    }

    /// The most shards the provider runs at once: a GitHub matrix makes at most 256 jobs, and
    /// GitLab's `parallel:` takes at most 200.
    pub fn max_shards(self) -> u32 {
        match self {
            Provider::GitHub => 256,
            Provider::GitLab => 200,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Provider::GitHub => "GitHub Actions",
            Provider::GitLab => "GitLab CI/CD",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::GitHub => "github",
            Provider::GitLab => "gitlab",
        })
    }
}

impl FromStr for Provider {
    type Err = CiError;

    fn from_str(text: &str) -> Result<Self, CiError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "github" | "github-actions" => Ok(Provider::GitHub),
            "gitlab" | "gitlab-ci" => Ok(Provider::GitLab),
            _ => Err(CiError::UnknownProvider(text.to_owned())),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CiError {
    #[error(
        "`--ci {0}`: Windup writes workflows for github (GitHub Actions) and gitlab (GitLab CI/CD)"
    )]
    UnknownProvider(String),
    #[error("`--shards 0`: the scenarios need at least one shard to run in")]
    NoShards,
    #[error(
        "`--shards {shards}`: {name} runs at most {max} shards of one job; ask for 1 to {max}",
        name = .provider.name(),
        max = .provider.max_shards()
    )]
    TooManyShards { provider: Provider, shards: u32 },
}

/// A workflow to write: where it runs, in how many shards, and the cargo-windup it installs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    provider: Provider,
    shards: u32,
    windup_version: String,
}

impl Recipe {
    /// The default number of shards.
    pub const SHARDS: u32 = 2;

    /// A workflow for `provider` in `shards` jobs, installing cargo-windup `windup_version`.
    pub fn new(provider: Provider, shards: u32, windup_version: &str) -> Result<Self, CiError> {
        if shards == 0 {
            return Err(CiError::NoShards);
        }
        if shards > provider.max_shards() {
            return Err(CiError::TooManyShards { provider, shards });
        }
        Ok(Self {
            provider,
            shards,
            windup_version: windup_version.to_owned(),
        })
    }

    pub fn provider(&self) -> Provider {
        self.provider
    }

    pub fn shards(&self) -> u32 {
        self.shards
    }

    /// The workflow's text.
    pub fn workflow(&self) -> String {
        let template = match self.provider {
            Provider::GitHub => GITHUB,
            Provider::GitLab if self.shards == 1 => &GITLAB.replace(GITLAB_PARALLEL, ""),
            Provider::GitLab => GITLAB,
        };
        let matrix: Vec<String> = (1..=self.shards).map(|k| k.to_string()).collect();
        template
            .replace("@SHARDS@", &self.shards.to_string())
            .replace("@MATRIX@", &matrix.join(", "))
            .replace("@VERSION@", &self.windup_version)
            .replace("@PROFILE@", NEXTEST_PROFILE)
            .replace("@JUNIT@", JUNIT_REPORT)
            .replace("@HTML@", HTML_REPORT)
            .replace("@HTML_DIR@", html_dir())
    }
}

/// The directory of the per-scenario HTML pages: the report's path without its extension.
fn html_dir() -> &'static str {
    HTML_REPORT.strip_suffix(".html").unwrap_or(HTML_REPORT)
}

/// Writes the workflow of `recipe` and the nextest profile it runs into the crate at
/// `crate_dir`, leaving what is there as it is and saying so.
pub fn write(crate_dir: &Path, recipe: &Recipe) -> Result<Vec<Change>, InitError> {
    let mut changes = Vec::new();
    let workflow = crate_dir.join(recipe.provider.workflow_path());
    if workflow.exists() {
        changes.push(Change::Kept {
            path: workflow,
            why: format!(
                "it is there already; delete it and run `cargo windup init --ci {}` again for \
                 a new one",
                recipe.provider
            ),
        });
    } else {
        create(&workflow, &recipe.workflow(), &mut changes)?;
    }
    nextest_profile(&crate_dir.join(".config/nextest.toml"), &mut changes)?;
    Ok(changes)
}

/// Makes sure `.config/nextest.toml` has the `ci` profile with its JUnit report: written when
/// there is no file, added to one without the profile's report, and left (saying what the
/// workflow expects) when the profile writes its report somewhere else.
fn nextest_profile(path: &Path, changes: &mut Vec<Change>) -> Result<(), InitError> {
    if !path.exists() {
        return create(
            path,
            &NEXTEST_CONFIG.replace("@PROFILE@", NEXTEST_PROFILE),
            changes,
        );
    }
    let io = |source| InitError::Io {
        path: path.to_owned(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(io)?;
    let mut doc: DocumentMut =
        text.parse()
            .map_err(|err: toml_edit::TomlError| InitError::Manifest {
                path: path.to_owned(),
                reason: err.to_string(),
            })?;
    let junit = doc
        .get("profile")
        .and_then(|p| p.get(NEXTEST_PROFILE))
        .and_then(|p| p.get("junit"));
    match junit.and_then(|j| j.get("path")).map(|p| p.as_str()) {
        Some(Some("junit.xml")) => return Ok(()),
        Some(_) => {
            changes.push(Change::Kept {
                path: path.to_owned(),
                why: format!(
                    "its profile.{NEXTEST_PROFILE}.junit.path is not \"junit.xml\", and the \
                     workflow uploads {JUNIT_REPORT}: change one or the other"
                ),
            });
            return Ok(());
        }
        None => {}
    }
    add_junit(&mut doc);
    std::fs::write(path, doc.to_string()).map_err(io)?;
    changes.push(Change::Edited {
        path: path.to_owned(),
        what: format!("added [profile.{NEXTEST_PROFILE}.junit] path = \"junit.xml\""),
    });
    Ok(())
}

/// Adds `[profile.ci.junit] path = "junit.xml"`, keeping the rest of the file as it is.
fn add_junit(doc: &mut DocumentMut) {
    let implicit = || {
        let mut table = Table::new();
        table.set_implicit(true);
        Item::Table(table)
    };
    let profile = doc.entry("profile").or_insert_with(implicit);
    let Some(profile) = profile.as_table_like_mut() else {
        return;
    };
    let ci = profile.entry(NEXTEST_PROFILE).or_insert_with(implicit);
    let Some(ci) = ci.as_table_like_mut() else {
        return;
    };
    let junit = ci
        .entry("junit")
        .or_insert_with(|| Item::Table(Table::new()));
    if let Some(junit) = junit.as_table_like_mut() {
        junit.insert("path", value("junit.xml"));
    }
}

const NEXTEST_CONFIG: &str = r#"# cargo-nextest's settings, written by `cargo windup init --ci`. The CI workflow runs
# `cargo nextest run --profile @PROFILE@`: its JUnit report goes to target/nextest/@PROFILE@/junit.xml.

[profile.@PROFILE@]
# Every scenario of a shard runs, so that its report names every failure, not only the first.
fail-fast = false

[profile.@PROFILE@.junit]
path = "junit.xml"
# A failed scenario's output (the step, the reason, the page, the screenshot) goes into the report.
store-failure-output = true
"#;

/// The line of the GitLab job that makes its shards; a single shard is a plain job.
const GITLAB_PARALLEL: &str = "  # @SHARDS@ copies of this job, each with CI_NODE_INDEX (1 to @SHARDS@) and CI_NODE_TOTAL set.\n  parallel: @SHARDS@\n";

const GITHUB: &str = include_str!("ci/github.yml");
const GITLAB: &str = include_str!("ci/gitlab.yml");

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(provider: Provider, shards: u32) -> Recipe {
        Recipe::new(provider, shards, "0.1.0").unwrap()
    }

    fn yaml(text: &str) -> serde_yaml::Value {
        serde_yaml::from_str(text).unwrap_or_else(|err| panic!("{err}:\n{text}"))
    }

    /// The `run:` of the GitHub step whose name starts with `name`.
    fn github_run<'a>(workflow: &'a serde_yaml::Value, name: &str) -> &'a str {
        let steps = workflow["jobs"]["scenarios"]["steps"]
            .as_sequence()
            .unwrap();
        let step = steps
            .iter()
            .find(|s| s["name"].as_str().is_some_and(|n| n.starts_with(name)))
            .unwrap_or_else(|| panic!("no step {name:?}"));
        step["run"].as_str().unwrap()
    }

    #[test]
    fn github_runs_a_matrix_of_shards_read_only_with_reports_per_shard() {
        let text = recipe(Provider::GitHub, 2).workflow();
        insta::assert_snapshot!("github_workflow", text);
        let workflow = yaml(&text);
        let job = &workflow["jobs"]["scenarios"];
        assert_eq!(job["strategy"]["matrix"]["shard"], yaml("[1, 2]"));
        assert_eq!(job["strategy"]["fail-fast"], false);
        assert_eq!(workflow["env"]["WINDUP_UPDATE"], "no");
        assert_eq!(
            workflow["env"]["WINDUP_WEBDRIVER_URL"],
            "${{ vars.WINDUP_WEBDRIVER_URL }}"
        );
        assert_eq!(
            github_run(&workflow, "Run the scenarios"),
            "cargo nextest run --profile ci --test e2e --no-tests=warn --partition count:${{ matrix.shard }}/2"
        );
        assert_eq!(
            github_run(&workflow, "Install the browser"),
            "cargo windup setup"
        );
        assert!(
            github_run(&workflow, "Install cargo-nextest")
                .contains("cargo install --locked cargo-windup --version 0.1.0")
        );
        let steps = job["steps"].as_sequence().unwrap();
        let upload = steps.last().unwrap();
        assert_eq!(upload["if"], "always()");
        assert_eq!(
            upload["with"]["name"],
            "windup-reports-shard-${{ matrix.shard }}"
        );
        let paths = upload["with"]["path"].as_str().unwrap();
        assert!(paths.contains(JUNIT_REPORT) && paths.contains("target/windup/report/"));
    }

    #[test]
    fn gitlab_runs_parallel_copies_of_one_job_with_the_same_command() {
        let text = recipe(Provider::GitLab, 3).workflow();
        insta::assert_snapshot!("gitlab_workflow", text);
        let job = &yaml(&text)["windup"];
        assert_eq!(job["parallel"], 3);
        assert_eq!(job["variables"]["WINDUP_UPDATE"], "no");
        assert_eq!(
            job["script"][0],
            "cargo nextest run --profile ci --test e2e --no-tests=warn --partition count:${CI_NODE_INDEX:-1}/${CI_NODE_TOTAL:-1}"
        );
        assert_eq!(job["artifacts"]["when"], "always");
        assert_eq!(job["artifacts"]["reports"]["junit"], JUNIT_REPORT);
        // GitLab's parallel: starts at 2; one shard is a plain job.
        let single = yaml(&recipe(Provider::GitLab, 1).workflow());
        assert!(single["windup"].get("parallel").is_none(), "{single:?}");
        assert_eq!(single["windup"]["script"], job["script"]);
    }

    #[test]
    fn every_placeholder_is_filled() {
        for provider in [Provider::GitHub, Provider::GitLab] {
            for shards in [1, 2, 7] {
                let text = recipe(provider, shards).workflow();
                let left = text.split('@').skip(1).step_by(2).find(|word| {
                    !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                });
                assert_eq!(left, None, "{provider} {shards}:\n{text}");
                assert!(!text.contains("\t"), "YAML has no tabs");
            }
        }
        let matrix = yaml(&recipe(Provider::GitHub, 7).workflow());
        assert_eq!(
            matrix["jobs"]["scenarios"]["strategy"]["matrix"]["shard"],
            yaml("[1, 2, 3, 4, 5, 6, 7]")
        );
    }

    #[test]
    fn bad_flags_are_named_in_their_errors() {
        let err = "jenkins".parse::<Provider>().unwrap_err();
        insta::assert_snapshot!("unknown_provider", err.to_string());
        assert_eq!("GitHub".parse::<Provider>(), Ok(Provider::GitHub));
        assert_eq!("gitlab".parse::<Provider>(), Ok(Provider::GitLab));
        let err = Recipe::new(Provider::GitHub, 0, "0.1.0").unwrap_err();
        insta::assert_snapshot!("no_shards", err.to_string());
        let err = Recipe::new(Provider::GitLab, 201, "0.1.0").unwrap_err();
        insta::assert_snapshot!("too_many_shards", err.to_string());
        assert!(Recipe::new(Provider::GitLab, 200, "0.1.0").is_ok());
        assert!(Recipe::new(Provider::GitHub, 256, "0.1.0").is_ok());
        assert!(Recipe::new(Provider::GitHub, 257, "0.1.0").is_err());
    }

    fn read(dir: &Path, path: &str) -> String {
        std::fs::read_to_string(dir.join(path)).unwrap()
    }

    #[test]
    fn writes_the_workflow_and_the_nextest_profile_once() {
        let dir = tempfile::tempdir().unwrap();
        let github = recipe(Provider::GitHub, 2);
        let changes = write(dir.path(), &github).unwrap();
        let said: Vec<String> = changes.iter().map(ToString::to_string).collect();
        assert_eq!(said.len(), 2, "{said:#?}");
        assert!(changes.iter().all(Change::changed), "{said:#?}");
        assert_eq!(
            read(dir.path(), ".github/workflows/windup.yml"),
            github.workflow()
        );
        let nextest: toml::Table = read(dir.path(), ".config/nextest.toml").parse().unwrap();
        assert_eq!(
            nextest["profile"]["ci"]["junit"]["path"].as_str(),
            Some("junit.xml")
        );
        assert_eq!(nextest["profile"]["ci"]["fail-fast"].as_bool(), Some(false));

        // A second run keeps the workflow, says so, and writes nothing.
        std::fs::write(dir.path().join(".github/workflows/windup.yml"), "mine").unwrap();
        let again = write(dir.path(), &github).unwrap();
        assert_eq!(again.len(), 1, "{again:#?}");
        assert!(!again[0].changed());
        assert!(
            again[0].to_string().starts_with("kept ")
                && again[0]
                    .to_string()
                    .contains("windup.yml as it is: it is there already"),
            "{}",
            again[0]
        );
        assert_eq!(read(dir.path(), ".github/workflows/windup.yml"), "mine");
        // GitLab's file is another file: it is written beside.
        let gitlab = write(dir.path(), &recipe(Provider::GitLab, 2)).unwrap();
        assert_eq!(
            gitlab,
            vec![Change::Created(dir.path().join(".gitlab-ci.yml"))]
        );
    }

    #[test]
    fn a_nextest_config_of_the_crate_gets_the_profile_or_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(".config/nextest.toml");
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        let mine = "# my settings\n[profile.default]\nslow-timeout = \"60s\"\n";
        std::fs::write(&config, mine).unwrap();
        let changes = write(dir.path(), &recipe(Provider::GitHub, 2)).unwrap();
        assert!(
            changes.iter().any(|c| c
                .to_string()
                .ends_with(".config/nextest.toml: added [profile.ci.junit] path = \"junit.xml\"")),
            "{changes:#?}"
        );
        let edited = std::fs::read_to_string(&config).unwrap();
        assert!(edited.starts_with(mine), "{edited}");
        let parsed: toml::Table = edited.parse().unwrap();
        assert_eq!(
            parsed["profile"]["ci"]["junit"]["path"].as_str(),
            Some("junit.xml")
        );

        std::fs::write(&config, "[profile.ci.junit]\npath = \"out.xml\"\n").unwrap();
        std::fs::remove_file(dir.path().join(".github/workflows/windup.yml")).unwrap();
        let changes = write(dir.path(), &recipe(Provider::GitHub, 2)).unwrap();
        let kept = changes
            .iter()
            .find(|c| !c.changed())
            .expect("the config is kept");
        assert!(
            kept.to_string()
                .contains("the workflow uploads target/nextest/ci/junit.xml"),
            "{kept}"
        );
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "[profile.ci.junit]\npath = \"out.xml\"\n"
        );
    }
}
