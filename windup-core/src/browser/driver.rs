//! The driver process (chromedriver for Chromium): started on a free loopback port with the
//! arguments its backend gives, and never leaked.
//!
//! chromedriver starts Chromium as its own child, and Chromium outlives chromedriver when only
//! chromedriver is killed. So the driver runs inside a small `sh` watchdog that leads its own
//! process group and holds the read end of a pipe whose write end only this process has. When
//! the pipe closes — on drop, on a panic, or when this process dies, even by SIGKILL — the
//! watchdog kills its whole group: chromedriver and every Chromium process under it.

use std::io::Read;
use std::net::{Ipv4Addr, TcpListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use super::BrowserError;

/// Starts the driver, then kills the whole process group (`0`, itself included) as soon as either
/// the pipe on its standard input closes or the driver exits.
const WATCHDOG: &str = r#"exec 3<&0
"$0" "$@" </dev/null &
driver=$!
{ while read -r _ <&3; do :; done; kill -KILL 0; } &
wait "$driver"
kill -KILL 0"#;

/// A running driver, owned: dropping it ends the driver and every browser it started.
#[derive(Debug)]
pub(crate) struct DriverProcess {
    watchdog: Child,
    /// Closing this pipe tells the watchdog to kill the group.
    lifeline: Option<ChildStdin>,
    url: String,
    log_path: PathBuf,
}

impl DriverProcess {
    /// Starts the driver `program` with `args(port)` on a free loopback port and waits until it
    /// answers `/status`.
    pub(crate) async fn start(
        program: &Path,
        args: impl Fn(u16) -> Vec<String>,
        log_dir: &Path,
        timeout: Duration,
    ) -> Result<Self, BrowserError> {
        // A port picked free can be taken before the driver binds it; try a few.
        let mut last_error = None;
        for _ in 0..3 {
            let port = free_port().map_err(|source| BrowserError::DriverStart {
                path: program.to_owned(),
                reason: format!("no free loopback port: {source}"),
            })?;
            let mut driver = Self::spawn(program, port, &args(port), log_dir)?;
            match driver.wait_ready(program, timeout).await {
                Ok(()) => return Ok(driver),
                Err(err) => last_error = Some(err),
            }
        }
        Err(last_error.expect("the loop ran at least once"))
    }

    fn spawn(
        program: &Path,
        port: u16,
        args: &[String],
        log_dir: &Path,
    ) -> Result<Self, BrowserError> {
        let name = program.file_name().unwrap_or(program.as_os_str());
        let log_path = log_dir.join(format!("{}-{port}.log", name.to_string_lossy()));
        let log = std::fs::File::create(&log_path).map_err(|source| BrowserError::DriverStart {
            path: program.to_owned(),
            reason: format!(
                "cannot create its log file {}: {source}",
                log_path.display()
            ),
        })?;
        let log_err = log
            .try_clone()
            .map_err(|source| BrowserError::DriverStart {
                path: program.to_owned(),
                reason: format!("cannot open its log file: {source}"),
            })?;
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(log)
            .stderr(log_err)
            .process_group(0)
            .spawn()
            .map_err(|source| BrowserError::DriverStart {
                path: program.to_owned(),
                reason: format!("cannot start it through sh: {source}"),
            })?;
        let lifeline = watchdog.stdin.take();
        Ok(Self {
            watchdog,
            lifeline,
            url: format!("http://127.0.0.1:{port}"),
            log_path,
        })
    }

    /// Polls `/status` until the driver says it is ready, the process exits, or time runs out.
    async fn wait_ready(&mut self, path: &Path, timeout: Duration) -> Result<(), BrowserError> {
        let deadline = Instant::now() + timeout;
        let addr = self.url.trim_start_matches("http://").to_owned();
        loop {
            if let Ok(Some(status)) = self.watchdog.try_wait() {
                return Err(self.start_failure(path, format!("it exited at start ({status})")));
            }
            if status_ready(&addr).await {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(self.start_failure(
                    path,
                    format!(
                        "it did not answer on {} within {} ms",
                        self.url,
                        timeout.as_millis()
                    ),
                ));
            }
            // A connection attempt is the condition; this only paces the retries.
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    fn start_failure(&self, path: &Path, reason: String) -> BrowserError {
        BrowserError::DriverStart {
            path: path.to_owned(),
            reason: format!("{reason}; its log: {}", log_tail(&self.log_path)),
        }
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The process group id: the watchdog leads the group it was started in.
    pub(crate) fn process_group(&self) -> u32 {
        self.watchdog.id()
    }

    pub(crate) fn log_path(&self) -> &Path {
        &self.log_path
    }
}

impl Drop for DriverProcess {
    fn drop(&mut self) {
        // Closing the lifeline is enough on its own; killing the group here as well makes the
        // browsers gone by the time drop returns, instead of shortly after.
        self.lifeline.take();
        if let Ok(pgid) = i32::try_from(self.watchdog.id()) {
            // SAFETY: kill(2) with a negative pid signals that process group; no memory is touched.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        let _ = self.watchdog.wait();
    }
}

fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?
        .local_addr()?
        .port())
}

/// One `GET /status` over a plain socket; true when the driver reports `"ready": true`.
async fn status_ready(addr: &str) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await else {
        return false;
    };
    let request = format!("GET /status HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).await.is_err() {
        return false;
    }
    // chromedriver keeps the connection open, so read until the answer is there, not to EOF.
    let read = async {
        let mut body = Vec::new();
        let mut chunk = [0u8; 1024];
        loop {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return false,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
            }
            let text = String::from_utf8_lossy(&body);
            if text.contains("\"ready\":true") {
                return true;
            }
            if text.contains("\"ready\":false") {
                return false;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(2), read)
        .await
        .unwrap_or(false)
}

/// The last lines of a log file, for error messages.
pub(crate) fn log_tail(path: &Path) -> String {
    let mut text = String::new();
    if std::fs::File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .is_err()
    {
        return format!("(no log at {})", path.display());
    }
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(5)..].join(" | ");
    if tail.is_empty() {
        format!("(empty log at {})", path.display())
    } else {
        format!("{tail} (full log: {})", path.display())
    }
}

/// Finds an executable: an explicit path, else the first of `names` on PATH, else `fallbacks`.
pub(crate) fn find_executable(
    explicit: Option<&Path>,
    names: &[&str],
    fallbacks: &[&str],
) -> Option<PathBuf> {
    if let Some(path) = explicit {
        return is_executable(path).then(|| path.to_owned());
    }
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path_var)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)));
    on_path
        .chain(fallbacks.iter().map(PathBuf::from))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}
