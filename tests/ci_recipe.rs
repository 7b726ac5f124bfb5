//! `cargo windup init --ci`, as a user meets it: a fresh crate with windup as a path
//! dev-dependency gets a GitHub workflow (and a GitLab one), both checked by a real validator
//! against GitHub's and GitLab's schemas; five scenarios are planned locally, then the workflow's
//! own shard command, read from its YAML, runs shard 1 and shard 2 of 2 read-only in real
//! Chromium, and their JUnit reports together hold every scenario exactly once, each shard with
//! its own HTML pages.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

mod common;
use common::fresh::{self, build_dir, repo};
use common::text;

const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>Greeter</title></head>
<body>
  <h1>Greeter</h1>
  <label for="who">Your name</label> <input id="who">
  <button type="button" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('who').value">Say hello</button>
  <p id="out"></p>
  <button type="button" onclick="this.textContent = 'Clicked'">Click me</button>
  <label for="lang">Language</label>
  <select id="lang"><option>English</option><option>French</option></select>
  <a href="/about">About</a>
</body></html>"#;

const ABOUT: &str = r#"<!doctype html>
<html lang="en"><head><title>About</title></head>
<body><h1>About the greeter</h1><a href="/">Home</a></body></html>"#;

const SCENARIOS: &[(&str, &str)] = &[
    (
        "hello",
        "task: Greet Ferris.\nsteps:\n  - fill \"Your name\" with \"Ferris\"\n  - click \"Say hello\"\n  - expect text \"Hello, Ferris\"\n",
    ),
    (
        "title",
        "task: See the greeter's heading.\nsteps:\n  - expect text \"Greeter\"\n",
    ),
    (
        "clicker",
        "task: Click the button.\nsteps:\n  - click \"Click me\"\n  - expect text \"Clicked\"\n",
    ),
    (
        "language",
        "task: Choose French.\nsteps:\n  - select \"French\" in \"Language\"\n  - expect \"Language\" value \"French\"\n",
    ),
    (
        "about",
        "task: Read about the greeter.\nsteps:\n  - click \"About\"\n  - expect url /about\n  - expect text \"About the greeter\"\n",
    ),
];

/// A command in the fresh crate that shares this repository's build directory, so that windup
/// and its dependencies are not compiled again; with no network, and not in CI unless told.
fn in_crate(dir: &Path, program: impl AsRef<std::ffi::OsStr>, base_url: &str) -> Command {
    let target = build_dir();
    let mut command = Command::new(program);
    command
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_NET_OFFLINE", "true")
        .env("WINDUP_BASE_URL", base_url)
        .env_remove("CI")
        .env_remove("WINDUP_UPDATE")
        .env_remove("WINDUP_REPORT")
        .env_remove("WINDUP_WEBDRIVER_URL");
    command
}

fn cargo(dir: &Path, base_url: &str, args: &[&str]) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    in_crate(dir, cargo, base_url)
        .args(args)
        .output()
        .expect("cargo runs")
}

/// `cargo windup ARGS` in the fresh crate, from this repository's source.
fn cargo_windup(dir: &Path, base_url: &str, args: &[&str]) -> Output {
    let manifest = repo().join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let cli = [
        "run",
        "-q",
        "--manifest-path",
        manifest,
        "-p",
        "cargo-windup",
        "--",
    ];
    cargo(dir, base_url, &[&cli[..], args].concat())
}

// ---- the validator: check-jsonschema from tools/python, with the schemas it ships ----

/// A program of tools/python's virtual environment, as `cargo xtask setup` installs it from
/// tools/python/requirements.txt.
fn python_tool(name: &str) -> PathBuf {
    let tool = repo().join("tools/python/.venv/bin").join(name);
    assert!(
        tool.exists(),
        "{} is not installed: run `cargo xtask setup` (or the whole suite with `cargo xtask \
         test`), which installs tools/python from its pinned requirements.txt",
        tool.display()
    );
    tool
}

/// Validates `file` against one of the schemas check-jsonschema ships (`vendor.github-workflows`,
/// `vendor.gitlab-ci`), offline.
fn validate(schema: &str, file: &Path) -> Result<(), String> {
    let output = Command::new(python_tool("check-jsonschema"))
        .args(["--no-cache", "--builtin-schema", schema])
        .arg(file)
        .output()
        .expect("check-jsonschema runs");
    if output.status.success() {
        Ok(())
    } else {
        Err(text(&output))
    }
}

/// A YAML file as JSON, read by ruamel.yaml (YAML 1.2, as GitHub and GitLab read workflows).
fn yaml(file: &Path) -> Value {
    let script = "import json, sys\nfrom ruamel.yaml import YAML\n\
                  json.dump(YAML(typ='safe').load(open(sys.argv[1])), sys.stdout)";
    let output = Command::new(python_tool("python"))
        .args(["-c", script])
        .arg(file)
        .output()
        .expect("python runs");
    assert!(
        output.status.success(),
        "{}: {}",
        file.display(),
        text(&output)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_validator_rejects_a_broken_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.yml");
    std::fs::write(
        &good,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
    )
    .unwrap();
    validate("vendor.github-workflows", &good).expect("a minimal workflow is valid");
    let broken = dir.path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  a:\n    runs-onn: ubuntu-latest\n    steps:\n      - run: echo\n",
    )
    .unwrap();
    let err = validate("vendor.github-workflows", &broken).unwrap_err();
    assert!(err.contains("'runs-on' is a required property"), "{err}");
    let gitlab = dir.path().join(".gitlab-ci.yml");
    std::fs::write(&gitlab, "job:\n  script: echo\n  parallel: many\n").unwrap();
    let err = validate("vendor.gitlab-ci", &gitlab).unwrap_err();
    assert!(err.contains("parallel"), "{err}");
}

// ---- the workflow's shard command, as the provider would run it ----

/// A GitHub expression of the shard's job: the matrix value, or an unset repository variable.
fn github_expressions(text: &str, shard: u32) -> String {
    let out = text
        .replace("${{ matrix.shard }}", &shard.to_string())
        .replace("${{ vars.WINDUP_WEBDRIVER_URL }}", "");
    assert!(
        !out.contains("${{"),
        "an expression this test does not know: {out}"
    );
    out
}

/// The command and environment of shard `shard` of the GitHub workflow: the step that runs
/// nextest, and the workflow's, the job's and the step's `env`.
fn github_shard(workflow: &Value, shard: u32) -> (String, BTreeMap<String, String>) {
    let jobs = workflow["jobs"].as_object().expect("jobs");
    assert_eq!(jobs.len(), 1, "{jobs:?}");
    let job = jobs.values().next().unwrap();
    let steps = job["steps"].as_array().expect("steps");
    let runs: Vec<&Value> = steps
        .iter()
        .filter(|step| {
            step["run"]
                .as_str()
                .is_some_and(|run| run.contains("nextest run"))
        })
        .collect();
    assert_eq!(runs.len(), 1, "one step runs nextest: {steps:?}");
    let mut env = BTreeMap::new();
    for scope in [&workflow["env"], &job["env"], &runs[0]["env"]] {
        for (key, value) in scope.as_object().into_iter().flatten() {
            let value = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            env.insert(key.clone(), github_expressions(&value, shard));
        }
    }
    let command = github_expressions(runs[0]["run"].as_str().unwrap(), shard);
    (command, env)
}

/// The test cases a JUnit report names.
fn junit_cases(report: &Path) -> Vec<String> {
    let xml =
        std::fs::read_to_string(report).unwrap_or_else(|err| panic!("{}: {err}", report.display()));
    xml.split("<testcase ")
        .skip(1)
        .map(|case| {
            // `name="…"`, not the end of `classname="…"`.
            let (at, _) = case
                .match_indices("name=\"")
                .find(|(at, _)| *at == 0 || case.as_bytes()[at - 1] == b' ')
                .expect("a test case has a name");
            let name = &case[at + "name=\"".len()..];
            name[..name.find('"').unwrap()].to_owned()
        })
        .collect()
}

/// Runs shard `shard` of 2 as the workflow does, in CI, and moves its reports to `reports/`;
/// returns the scenarios its JUnit report names.
fn run_shard(app: &Path, url: &str, workflow: &Value, shard: u32, reports: &Path) -> Vec<String> {
    let (command, env) = github_shard(workflow, shard);
    assert!(
        command.contains(&format!("--partition count:{shard}/2")),
        "{command}"
    );
    let run = in_crate(app, "sh", url)
        .args(["-ec", &command])
        .envs(&env)
        .env("CI", "true")
        .output()
        .expect("the shard runs");
    assert!(
        run.status.success(),
        "shard {shard}: {command}\n{}",
        text(&run)
    );
    std::fs::create_dir_all(reports).unwrap();
    let junit = reports.join("junit.xml");
    std::fs::rename(app.join("target/nextest/ci/junit.xml"), &junit).unwrap();
    std::fs::rename(app.join("target/windup/report"), reports.join("html")).unwrap();
    let cases = junit_cases(&junit);
    let mut pages: Vec<String> = std::fs::read_dir(reports.join("html"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    pages.sort();
    let mut expected: Vec<String> = cases.iter().map(|case| format!("{case}.html")).collect();
    expected.sort();
    assert_eq!(
        pages, expected,
        "shard {shard}: an HTML page per scenario it ran"
    );
    cases
}

// ---- the recipe ----

/// `init --ci` with bad flags says which flag and writes nothing.
fn bad_flags_are_refused(app: &Path, url: &str) {
    for (args, said) in [
        (&["init", "--ci", "jenkins"][..], "`--ci jenkins`"),
        (
            &["init", "--ci", "github", "--shards", "0"][..],
            "`--shards 0`",
        ),
        (
            &["init", "--ci", "gitlab", "--shards", "201"][..],
            "`--shards 201`",
        ),
        (&["init", "--shards", "3"][..], "--ci <PROVIDER>"),
    ] {
        let out = cargo_windup(app, url, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(said), "{args:?}: {}", text(&out));
    }
    assert!(
        !app.join("windup.toml").exists(),
        "a refused init writes nothing"
    );
}

fn init_writes_both_workflows_once(app: &Path, url: &str) {
    let github = cargo_windup(app, url, &["init", "--ci", "github"]);
    let said = text(&github);
    assert!(github.status.success(), "{said}");
    for file in [
        ".github/workflows/windup.yml",
        ".config/nextest.toml",
        "windup.toml",
    ] {
        assert!(
            said.contains(&format!("created {}", app.join(file).display())),
            "{said}"
        );
    }
    let gitlab = cargo_windup(app, url, &["init", "--ci", "gitlab", "--shards", "2"]);
    let said = text(&gitlab);
    assert!(gitlab.status.success(), "{said}");
    assert!(
        said.contains("created") && said.contains(".gitlab-ci.yml"),
        "{said}"
    );
    assert!(
        !said.contains("nextest.toml"),
        "the profile is there: {said}"
    );
    let before = std::fs::read_to_string(app.join(".github/workflows/windup.yml")).unwrap();
    let again = cargo_windup(app, url, &["init", "--ci", "github"]);
    let said = text(&again);
    assert!(said.contains("nothing changed"), "{said}");
    assert!(
        said.contains("windup.yml as it is: it is there already"),
        "{said}"
    );
    let after = std::fs::read_to_string(app.join(".github/workflows/windup.yml")).unwrap();
    assert_eq!(before, after);
}

/// Plans every scenario locally, as its author does before committing the lockfiles.
fn plan_locally(app: &Path, url: &str) {
    std::fs::remove_file(app.join("scenarios/home.yaml")).unwrap();
    for (name, yaml) in SCENARIOS {
        std::fs::write(app.join(format!("scenarios/{name}.yaml")), yaml).unwrap();
    }
    let planned = in_crate(
        app,
        std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
        url,
    )
    .args(["test", "--test", "e2e"])
    .env("WINDUP_UPDATE", "always")
    .output()
    .expect("cargo test runs");
    assert!(planned.status.success(), "{}", text(&planned));
    for (name, _) in SCENARIOS {
        assert!(
            app.join(format!("scenarios/{name}.plan.json")).is_file(),
            "{name}"
        );
    }
    // A CI machine clones the repository: the lockfiles, no cache.
    std::fs::remove_dir_all(app.join(".windup")).unwrap();
}

fn lockfiles(app: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(app.join("scenarios"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.to_string_lossy().ends_with(".yaml"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                text,
            )
        })
        .collect()
}

/// The GitLab job runs the same command, its shard from `parallel:`.
fn gitlab_runs_the_same_shards(app: &Path, github: &Value) {
    let gitlab = yaml(&app.join(".gitlab-ci.yml"));
    let job = &gitlab["windup"];
    assert_eq!(job["parallel"], 2, "{job}");
    let script = job["script"].as_array().expect("a script");
    assert_eq!(script.len(), 1, "{script:?}");
    for shard in 1..=2 {
        // The shell expands it in the job, with the variables GitLab sets for `parallel:`.
        let expanded = Command::new("sh")
            .args([
                "-c",
                &format!("printf '%s' \"{}\"", script[0].as_str().unwrap()),
            ])
            .env("CI_NODE_INDEX", shard.to_string())
            .env("CI_NODE_TOTAL", "2")
            .output()
            .unwrap();
        let (command, env) = github_shard(github, shard);
        assert_eq!(String::from_utf8_lossy(&expanded.stdout), command);
        for key in ["WINDUP_UPDATE", "WINDUP_REPORT"] {
            assert_eq!(
                job["variables"][key].as_str(),
                env.get(key).map(String::as_str)
            );
        }
    }
    assert_eq!(
        job["artifacts"]["reports"]["junit"],
        "target/nextest/ci/junit.xml"
    );
    assert_eq!(job["artifacts"]["when"], "always");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ci_recipe_runs_every_scenario_once_across_its_shards() {
    let (url, server) = fresh::serve(&[("/", PAGE), ("/about", ABOUT)]).await;
    let dir = fresh::with_windup("ci-recipe");
    let app = dir.path();
    bad_flags_are_refused(app, &url);
    init_writes_both_workflows_once(app, &url);
    let workflow_file = app.join(".github/workflows/windup.yml");
    validate("vendor.github-workflows", &workflow_file).expect("GitHub's schema");
    validate("vendor.gitlab-ci", &app.join(".gitlab-ci.yml")).expect("GitLab's schema");
    // The same validator fails this workflow once it is broken.
    let broken = app.join("broken.yml");
    let written = std::fs::read_to_string(&workflow_file).unwrap();
    assert!(
        written.contains("    runs-on: ubuntu-latest\n"),
        "{written}"
    );
    std::fs::write(&broken, written.replace("    runs-on: ubuntu-latest\n", "")).unwrap();
    let err = validate("vendor.github-workflows", &broken).unwrap_err();
    assert!(err.contains("'runs-on' is a required property"), "{err}");
    std::fs::remove_file(&broken).unwrap();
    let workflow = yaml(&workflow_file);
    gitlab_runs_the_same_shards(app, &workflow);

    plan_locally(app, &url);
    let committed = lockfiles(app);
    let reports = tempfile::tempdir().unwrap();
    let first = run_shard(app, &url, &workflow, 1, &reports.path().join("shard-1"));
    let second = run_shard(app, &url, &workflow, 2, &reports.path().join("shard-2"));
    assert!(
        !first.is_empty() && !second.is_empty(),
        "{first:?} {second:?}"
    );
    let mut all: Vec<String> = first.iter().chain(&second).cloned().collect();
    all.sort();
    let mut expected: Vec<String> = SCENARIOS
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    expected.sort();
    assert_eq!(
        all, expected,
        "every scenario exactly once: {first:?} + {second:?}"
    );
    assert_eq!(lockfiles(app), committed, "a read-only run writes no plan");

    // Read-only for real: a scenario with no plan fails in CI, saying what to run locally.
    std::fs::write(
        app.join("scenarios/unplanned.yaml"),
        "task: Nothing yet.\nsteps:\n  - expect text \"Greeter\"\n",
    )
    .unwrap();
    let (command, env) = github_shard(&workflow, 1);
    let command = command.replace("--partition count:1/2", "-E 'test(=unplanned)'");
    let run = in_crate(app, "sh", &url)
        .args(["-ec", &command])
        .envs(&env)
        .env("CI", "true")
        .output()
        .unwrap();
    assert!(!run.status.success(), "{}", text(&run));
    assert!(
        text(&run).contains("needs planning (it has no plan yet), and this run is read-only"),
        "{}",
        text(&run)
    );
    assert!(!app.join("scenarios/unplanned.plan.json").exists());
    assert!(!app.join("scenarios/unplanned.plan.json.new").exists());
    server.abort();
}
