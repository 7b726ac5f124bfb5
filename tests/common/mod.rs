//! Shared rig for the end-to-end tests: the demo shop on a free port, a real Chromium session,
//! and an executor whose screenshots go to a temporary directory.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use windup_core::config::Settings;
use windup_core::engine::executor::{Execution, NoValues, StepFailure};
use windup_core::model::plan::{Plan, Rules};
use windup_core::model::scenario::{self, Scenario};
use windup_core::{
    browser::Browser, browser::BrowserConfig, browser::Session, engine::executor::ExecOptions,
    engine::executor::Executor,
};
use windup_shop::{RunningShop, ShopOptions};

pub mod fresh;
pub mod grid;
pub mod npm;
pub mod patterns;
pub mod serve;

pub struct Rig {
    pub shop: RunningShop,
    pub options: ExecOptions,
    // Session before browser: the session closes before its driver ends.
    pub session: Session,
    pub browser: Browser,
    pub artifacts: tempfile::TempDir,
}

impl Rig {
    pub async fn start() -> Self {
        Self::with_shop(ShopOptions::default()).await
    }

    pub async fn with_shop(shop_options: ShopOptions) -> Self {
        let shop = windup_shop::spawn(shop_options)
            .await
            .expect("the shop starts");
        let browser = Browser::launch(browser_config())
            .await
            .expect("chromedriver starts (install chromium and chromium-driver)");
        let session = browser
            .new_session()
            .await
            .expect("a browser session opens");
        let artifacts = tempfile::tempdir().expect("a temporary directory");
        let mut options = ExecOptions::new(shop.url().parse().expect("the shop URL parses"));
        options.artifacts_dir = artifacts.path().to_owned();
        options.default_timeout = Duration::from_secs(5);
        Self {
            shop,
            options,
            session,
            browser,
            artifacts,
        }
    }

    pub async fn run(&self, plan: &Plan) -> Result<Execution, Box<StepFailure>> {
        Executor::new(&self.session, &self.options, &NoValues)
            .run(plan)
            .await
    }

    /// Runs a plan that must fail, and returns the failure.
    pub async fn fail(&self, plan: &Plan) -> Box<StepFailure> {
        match self.run(plan).await {
            Ok(run) => panic!(
                "the plan {} passed but should fail: {run:?}",
                plan.scenario_id
            ),
            Err(failure) => failure,
        }
    }

    pub async fn close(self) {
        self.session.close().await.expect("the session closes");
    }
}

/// A project in a temporary directory with copies of some of the repository's scenarios.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn with(scenarios: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("scenarios")).unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            "scenarios = \"scenarios\"\n",
        )
        .unwrap();
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        for name in scenarios {
            std::fs::copy(
                repo.join(format!("{name}.yaml")),
                dir.path().join(format!("scenarios/{name}.yaml")),
            )
            .unwrap();
        }
        Self { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Settings as a developer's machine has them, or as CI has them.
    pub fn settings(&self, ci: bool) -> Settings {
        let env = move |name: &str| (ci && name == "CI").then(|| "true".to_owned());
        self.settings_with("", &env)
    }

    /// Settings from `windup.toml` lines added to the scenarios directory's, and an environment.
    pub fn settings_with(&self, toml: &str, env: &dyn Fn(&str) -> Option<String>) -> Settings {
        let toml = format!("scenarios = \"scenarios\"\n{toml}");
        Settings::from_parts(self.root(), Some(&toml), env).unwrap()
    }

    /// Writes `scenarios/NAME.yaml`.
    pub fn write(&self, name: &str, yaml: &str) {
        std::fs::write(self.root().join(format!("scenarios/{name}.yaml")), yaml).unwrap();
    }

    pub fn scenario(&self, name: &str) -> Scenario {
        let root = self.root().join("scenarios");
        scenario::load(&root.join(format!("{name}.yaml")), &root).unwrap()
    }

    pub fn pending(&self, name: &str) -> PathBuf {
        windup_core::engine::lockfile::pending_path(
            &self.root().join(format!("scenarios/{name}.yaml")),
        )
    }
}

/// The browser settings of this repository's windup.toml and the `WINDUP_*` environment.
pub fn browser_config() -> BrowserConfig {
    Settings::load(Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("windup.toml and the environment are valid")
        .browser_config()
}

/// The browsers a test "in each browser" runs in: all of them, or those that
/// `WINDUP_TEST_BROWSERS` names (`cargo xtask test --quick` sets `chromium`).
pub fn browsers() -> Vec<windup_core::browser::BrowserKind> {
    use windup_core::browser::BrowserKind;
    match std::env::var("WINDUP_TEST_BROWSERS") {
        Ok(names) => names
            .split(',')
            .map(|name| {
                name.trim()
                    .parse::<BrowserKind>()
                    .unwrap_or_else(|e| panic!("WINDUP_TEST_BROWSERS={names:?}: {e}"))
            })
            .collect(),
        Err(_) => BrowserKind::ALL.to_vec(),
    }
}

/// A hand-written plan from `tests/fixtures/NAME.plan.json`.
pub fn plan_file(name: &str) -> Plan {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(format!("{name}.plan.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Plan::from_json_str(&text, &Rules::default())
        .unwrap_or_else(|e| panic!("{} is not a valid plan: {e}", path.display()))
}

/// A plan from inline JSON actions, starting at `start`.
pub fn plan(id: &str, start: &str, actions: serde_json::Value) -> Plan {
    let value = serde_json::json!({
        "plan_version": "0.1",
        "scenario_id": id,
        "task": format!("test {id}"),
        "start_url": start,
        "generated_by": { "planner": "hand", "at": "2026-11-30T00:00:00Z" },
        "actions": actions,
    });
    Plan::from_json_str(&value.to_string(), &Rules::default())
        .unwrap_or_else(|e| panic!("test plan {id} is invalid: {e}"))
}

/// `cargo windup ARGS` in `dir`, with `env` added, `CI` and `WINDUP_BASE_URL` removed.
pub fn run_in(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(["run", "--offline", "-q", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .args(["-p", "cargo-windup", "--"])
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .env_remove("WINDUP_BASE_URL");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("cargo runs")
}

/// The `cargo-windup` binary, built if needed: for a test that signals the process itself,
/// not the `cargo run` over it.
pub fn cargo_windup() -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let built = Command::new(cargo)
        .args([
            "build",
            "--offline",
            "-q",
            "-p",
            "cargo-windup",
            "--manifest-path",
        ])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .status()
        .expect("cargo runs");
    assert!(built.success(), "cargo-windup builds");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("debug/cargo-windup")
}

/// Standard output then standard error.
pub fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Whether a process exists and is not a zombie waiting to be reaped.
pub fn process_running(pid: u32) -> bool {
    let stat = match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat,
        Err(_) => return false,
    };
    // The state is the first field after the parenthesised command name.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .is_some_and(|state| state != "Z" && state != "X")
}

/// Every live process in a process group.
pub fn processes_in_group(pgid: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // Fields after the name: state, ppid, pgrp, ...
        if fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z" && fields[0] != "X"
        {
            let name = head
                .split_once('(')
                .map(|(_, n)| n.to_owned())
                .unwrap_or_default();
            found.push((pid, name));
        }
    }
    found
}

/// Files in a directory tree, for screenshot assertions.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(files_under(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// A loopback port that refuses every connection for as long as the value lives: a socket is
/// bound to it and never listens, so no other test's server can take the port meanwhile (a port
/// that was merely free a moment ago can be, and then answers).
pub struct ClosedPort {
    port: u16,
    _bound: tokio::net::TcpSocket,
}

impl ClosedPort {
    pub fn port(&self) -> u16 {
        self.port
    }
}

pub fn closed_port() -> ClosedPort {
    let socket = tokio::net::TcpSocket::new_v4().expect("a socket opens");
    socket
        .bind((std::net::Ipv4Addr::LOCALHOST, 0).into())
        .expect("a loopback port binds");
    let port = socket.local_addr().expect("the bound port reads").port();
    ClosedPort {
        port,
        _bound: socket,
    }
}

/// Runs the audit's regression tests (the scenarios under `scenarios/audit/`) against `url`:
/// each one's id and whether it passed. A test that does not load fails the calling test.
pub async fn replay_audit_tests(
    settings: Settings,
    url: &str,
) -> std::collections::BTreeMap<String, bool> {
    let selection = windup::Selection::load(&settings, Some("audit/"), false).unwrap();
    if let Some(unloadable) = selection.unloadable.first() {
        panic!("{}: {}", unloadable.file.display(), unloadable.error);
    }
    let finished = windup::Suite::new(settings, url.parse().unwrap())
        .run(selection)
        .await
        .unwrap();
    finished
        .results
        .iter()
        .map(|(scenario, result)| {
            if !result.passed() {
                eprintln!("{} failed against {url}: {:?}", scenario.id, result.outcome);
            }
            (scenario.id.clone(), result.passed())
        })
        .collect()
}

/// `[accounts.demo]` as the shop's public demo account: the TOML table, to put in a test's
/// settings, and the values its variables read, set on those settings.
pub const SHOP_ACCOUNT_TOML: &str =
    "[accounts.demo]\nemail = \"SHOP_EMAIL\"\npassword = \"SHOP_PASSWORD\"\n";

/// Settings that hold [`SHOP_ACCOUNT_TOML`], given the shop's demo values.
pub fn with_shop_account(mut settings: Settings) -> Settings {
    settings.env_file = settings
        .env_file
        .clone()
        .with("SHOP_EMAIL", windup_shop::DEMO_EMAIL)
        .with("SHOP_PASSWORD", windup_shop::DEMO_PASSWORD);
    settings
}

/// The shop's scenarios that pass (the repository's `scenarios/`, less the one that fails by
/// design).
pub const SHOP_SCENARIOS: [&str; 10] = [
    "browse-catalogue",
    "cart-quantities",
    "checkout-as-demo-user",
    "coupon",
    "deal-of-the-day",
    "login",
    "order-history",
    "out-of-stock",
    "remove-from-cart",
    "search",
];

/// This repository's windup.toml and scenarios (its top folder only), copied to a directory of
/// their own: the lockfiles are replayed there, never written here.
pub fn shop_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(repo.join("windup.toml"), dir.path().join("windup.toml"))
        .expect("windup.toml is copied");
    let scenarios = dir.path().join("scenarios");
    std::fs::create_dir(&scenarios).expect("scenarios/ is made");
    for entry in std::fs::read_dir(repo.join("scenarios")).expect("scenarios/ is read") {
        let path = entry.expect("an entry").path();
        if path.is_file() {
            let name = path.file_name().expect("a file name");
            std::fs::copy(&path, scenarios.join(name)).expect("a scenario is copied");
        }
    }
    dir
}

/// An axum app served on a loopback port until dropped (the fixture pages of a test).
pub struct Site {
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Site {
    pub async fn serve(app: axum::Router) -> Site {
        let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = stopped.await;
                })
                .await;
        });
        Site {
            url,
            stop: Some(stop),
        }
    }

    /// The address of `path` on the site.
    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The invariants an audit found broken, by id.
pub fn found(
    finished: &windup_core::run::audit::AuditFinished,
) -> std::collections::BTreeSet<String> {
    finished
        .outcome
        .findings
        .iter()
        .map(|f| f.invariant_id.clone())
        .collect()
}
