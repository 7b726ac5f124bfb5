//! The single WebDriver boundary: the driver process, sessions, reset, actionability, keys, the
//! page snapshot and screenshots. Nothing else in Windup speaks to fantoccini, and what differs
//! between browsers lives in one backend per [`BrowserKind`].

mod backend;
mod bare;
mod bidi;
mod chromium;
#[cfg(feature = "audit")]
pub mod coverage;
mod covered;
mod digest;
mod driver;
mod firefox;
mod input;
pub mod install;
#[cfg(feature = "audit")]
mod intercept;
mod keys;
mod observe;
mod page;
mod resolve;
mod scratch;
pub(crate) mod scripts;
mod snapshot;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub use backend::{BrowserKind, Capabilities, Names};
pub use bare::Bare;
pub use bidi::Protocol;
pub use covered::CoverageStats;
pub use digest::{Control, FormInfo, PageDigest};
pub use keys::Key;
pub use observe::QUIET_LOOKS;
pub(crate) use observe::{observe_script_source, observer_script_source};
pub use page::{Actionable, GateMode, Probe, ProbeState};
pub use resolve::{Naming, Purpose, Resolved, Unresolved};

pub use snapshot::{ElementBox, ElementInfo, PageSnapshot};

use backend::{Backend, Local};
use chromium::Chromium;
use driver::DriverProcess;
use firefox::Firefox;

impl BrowserKind {
    /// The one place a kind picks its backend (here, above the backends, so that the backend
    /// contract and the backends that keep it do not use each other).
    pub(crate) fn backend(self) -> &'static dyn Backend {
        match self {
            BrowserKind::Chromium => &Chromium,
            BrowserKind::Firefox => &Firefox,
        }
    }
}

/// How long ending a session may take before the driver is taken to have stopped answering.
const CLOSE_WITHIN: Duration = Duration::from_secs(20);

/// How long a Classic command of a session that holds requests waits for a navigation under way
/// (see [`BrowserConfig::intercepts`]).
const INTERCEPTED_PAGE_LOAD: Duration = Duration::from_secs(3);

/// How to reach a browser. `config::Settings::browser_config` builds it from `windup.toml` and
/// the `WINDUP_*` environment, checked once; the defaults suit headless Chromium.
#[derive(Debug, Clone)]
pub struct BrowserConfig {
    /// Which browser to drive; its backend reads the fields it needs.
    pub kind: BrowserKind,
    pub headless: bool,
    pub window_width: u32,
    pub window_height: u32,
    /// A remote WebDriver (Selenium Grid, a cloud grid); when set, no driver is started.
    pub webdriver_url: Option<String>,
    /// The chromedriver executable (Chromium); found on PATH when unset.
    pub chromedriver: Option<PathBuf>,
    /// The Chromium executable; chromedriver's own default when unset and none is on PATH.
    pub chrome_binary: Option<PathBuf>,
    /// The geckodriver executable (Firefox); found on PATH or in cargo's bin directory when unset.
    pub geckodriver: Option<PathBuf>,
    /// The Firefox executable; geckodriver's own default when unset and none is on PATH.
    pub firefox_binary: Option<PathBuf>,
    /// How long the driver may take to start.
    pub startup_timeout: Duration,
    /// Which protocol sessions speak (docs/browsers.md#webdriver-bidi).
    pub protocol: Protocol,
    /// Whether sessions will hold the page's requests to count the app's code
    /// (`Session::cover`). Their Classic commands then wait at most a few seconds for a
    /// navigation under way: chromedriver carries one session's commands in turn, so a Classic
    /// command that waits for a document (or a script of it) the interception holds keeps the
    /// answer that lets it go from being read until the command gives up (its page load
    /// timeout, 300 s by default). In Chromium they do not wait at all (the page load strategy
    /// `none`, see `Browser::page_load_strategy`). docs/audit.md#coverage has the evidence.
    pub intercepts: bool,
}

impl Default for BrowserConfig {
    fn default() -> Self {
        Self {
            kind: BrowserKind::default(),
            headless: true,
            window_width: 1280,
            window_height: 900,
            webdriver_url: None,
            chromedriver: None,
            chrome_binary: None,
            geckodriver: None,
            firefox_binary: None,
            startup_timeout: Duration::from_secs(20),
            protocol: Protocol::default(),
            intercepts: false,
        }
    }
}

/// Errors at the WebDriver boundary. Each says what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// The backend's driver is nowhere it looks; `help` is the backend's advice.
    #[error(
        "{driver} was not found on PATH. {help}, or set WINDUP_WEBDRIVER_URL to use a remote \
         WebDriver"
    )]
    DriverNotFound {
        driver: &'static str,
        help: &'static str,
    },
    #[error("could not start {path}: {reason}", path = .path.display())]
    DriverStart { path: PathBuf, reason: String },
    /// `help` is the backend's advice: what to check of the browser and its driver.
    #[error("the WebDriver at {url} did not open a browser session: {reason}. {help}")]
    SessionStart {
        url: String,
        reason: String,
        help: &'static str,
    },
    #[error("cannot prepare a browser profile in {path}: {source}", path = .path.display())]
    Profile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the browser stopped answering during {during}: {reason}")]
    Lost { during: String, reason: String },
    #[error("WebDriver command `{during}` failed: {reason}")]
    Command { during: String, reason: String },
    #[error("an injected page script returned something unexpected during {during}: {value}")]
    Script { during: String, value: String },
    /// The browser could not open a page: it shows its own error page instead.
    #[error("{0}")]
    Navigation(Unreachable),
}

/// How a click went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clicked {
    /// With, for a checkbox or radio (or its label), whether its control is checked after.
    Done { checked: Option<bool> },
    /// The page changed under the click since the gate passed.
    Raced,
}

/// What a click waits for once the browser has clicked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterClick {
    /// A submission it sent to leave, and what the page is then (its URL, whether the clicked
    /// control is checked): one script.
    Settle,
    /// Nothing: the caller's next command is a postcondition check of the page itself, whose
    /// first look waits for a departing submission (`Session::check`). One script less.
    CheckPage,
}

/// A refused command is an answer (`Ok`); a lost browser is an error.
fn lost_or_refused(err: BrowserError) -> Result<(), BrowserError> {
    if err.is_lost() { Err(err) } else { Ok(()) }
}

/// A page the browser opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    /// The HTTP status its document was served with, when the browser tells it (not for
    /// `file:` or `about:` pages).
    pub status: Option<u16>,
}

#[derive(Debug, serde::Deserialize)]
struct OpenedPage {
    error: Option<String>,
    status: Option<u16>,
    #[serde(default)]
    href: Option<String>,
    #[serde(default)]
    structure: Option<Value>,
}

/// A page the browser could not open, with the network error it gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    pub url: String,
    /// The network error code, in Chromium's names (`ERR_CONNECTION_REFUSED`).
    pub code: String,
}

impl Unreachable {
    /// The cause in words, and what to do about it.
    fn cause(&self) -> (&'static str, &'static str) {
        let code = self.code.as_str();
        match code {
            "ERR_CONNECTION_REFUSED" => ("connection refused", "is the server running?"),
            "ERR_NAME_NOT_RESOLVED" | "ERR_NAME_RESOLUTION_FAILED" => (
                "the host name does not resolve (DNS)",
                "check the host in the base URL",
            ),
            "ERR_CONNECTION_TIMED_OUT" | "ERR_TIMED_OUT" => (
                "the connection timed out",
                "is the server up and reachable from here?",
            ),
            "ERR_CONNECTION_RESET" | "ERR_CONNECTION_CLOSED" | "ERR_EMPTY_RESPONSE" => (
                "the server closed the connection without an answer",
                "is it the right port, and does the server speak HTTP there?",
            ),
            "ERR_ADDRESS_UNREACHABLE" | "ERR_INTERNET_DISCONNECTED" | "ERR_NETWORK_CHANGED" => (
                "the network cannot reach it",
                "check the base URL and the network",
            ),
            "ERR_UNSAFE_PORT" => (
                "Chromium refuses to open this port, which it deems unsafe",
                "serve the site on another port",
            ),
            "ERR_SSL_PROTOCOL_ERROR" | "ERR_SSL_VERSION_OR_CIPHER_MISMATCH" => (
                "the TLS handshake failed",
                "does the server speak HTTPS on this port? try http://",
            ),
            c if c.starts_with("ERR_CERT_") => (
                "its TLS certificate is not trusted",
                "use a trusted certificate, or http:// for a local server",
            ),
            _ => (
                "the browser could not load it",
                "check the URL and the server",
            ),
        }
    }
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (cause, next) = self.cause();
        write!(
            f,
            "the site at {} is not reachable ({cause}, {}): {next}",
            self.url, self.code
        )
    }
}

impl BrowserError {
    /// Whether the browser is gone: nothing more can be done in its session.
    pub fn is_lost(&self) -> bool {
        matches!(self, BrowserError::Lost { .. })
    }

    /// Wraps a fantoccini command error, telling a dead browser apart from a refused command.
    pub(crate) fn command(during: impl Into<String>, err: fantoccini::error::CmdError) -> Self {
        use fantoccini::error::CmdError;
        let during = during.into();
        match err {
            CmdError::Lost(_) | CmdError::Failed(_) | CmdError::FailedC(_) => BrowserError::Lost {
                during,
                reason: err.to_string(),
            },
            err if err.is_invalid_session_id() || backend::says_browser_gone(&err.to_string()) => {
                BrowserError::Lost {
                    during,
                    reason: err.to_string(),
                }
            }
            err => BrowserError::Command {
                during,
                reason: err.to_string(),
            },
        }
    }
}

/// The credentials a WebDriver URL carries (`https://user:key@hub…`): the text they are written
/// as, to take out of anything shown, and the `Authorization` header a request to the same host
/// sends with them (the Grid's BiDi socket wants it as its router's HTTP does).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Credentials {
    /// `user:key`, as written in the URL (and `key` alone, if long enough to be told apart).
    written: Vec<String>,
    /// `host:port` of the URL they belong to, and whether it was TLS (then only TLS may carry
    /// them on).
    host: String,
    secure: bool,
    header: Option<String>,
}

impl Credentials {
    /// The credentials in `url`; none when it has none.
    pub(crate) fn of(url: &str) -> Credentials {
        let Ok(parsed) = url::Url::parse(url) else {
            return Credentials::default();
        };
        let (user, key) = (parsed.username(), parsed.password().unwrap_or_default());
        if user.is_empty() && key.is_empty() {
            return Credentials::default();
        }
        use base64::Engine as _;
        let pair = format!("{user}:{key}");
        let mut written = vec![format!("{pair}@")];
        if key.len() >= 4 {
            written.push(key.to_owned());
        }
        Credentials {
            written,
            host: host_of(&parsed),
            secure: parsed.scheme() == "https",
            header: Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(&pair)
            )),
        }
    }

    /// Whether the URL carried any.
    pub(crate) fn present(&self) -> bool {
        self.header.is_some()
    }

    /// `text` with the credentials taken out: `https://***@hub…`.
    pub(crate) fn hide(&self, text: &str) -> String {
        let mut shown = text.to_owned();
        for (n, secret) in self.written.iter().enumerate() {
            shown = shown.replace(secret.as_str(), if n == 0 { "***@" } else { "***" });
        }
        shown
    }

    /// The `Authorization` header for a request to `url`: only to the host they came with.
    pub(crate) fn header_for(&self, url: &str) -> Option<&str> {
        let parsed = url::Url::parse(url).ok()?;
        let downgraded = self.secure && parsed.scheme() != "wss";
        (host_of(&parsed) == self.host && !downgraded)
            .then_some(self.header.as_deref())
            .flatten()
    }
}

fn host_of(url: &url::Url) -> String {
    format!(
        "{}:{}",
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or_default()
    )
}

/// A WebDriver endpoint with the means to open sessions on it: a driver this process started and
/// owns, or a remote WebDriver. Dropping it ends the driver and its browsers.
#[derive(Debug)]
pub struct Browser {
    config: BrowserConfig,
    url: String,
    browser_binary: Option<PathBuf>,
    // Field order matters: the driver (and its browsers) end before their profiles are removed.
    driver: Option<DriverProcess>,
    scratch: tempfile::TempDir,
}

impl Browser {
    /// Starts the kind's driver (or connects to `webdriver_url`), ready to open sessions.
    pub async fn launch(config: BrowserConfig) -> Result<Self, BrowserError> {
        let scratch = scratch::create().map_err(|source| BrowserError::Profile {
            path: std::env::temp_dir(),
            source,
        })?;
        let browser_binary = config.kind.backend().browser_binary(&config);
        let (driver, url) = match &config.webdriver_url {
            Some(url) => (None, url.trim_end_matches('/').to_owned()),
            None => {
                let process = start_driver(&config, scratch.path()).await?;
                let url = process.url().to_owned();
                (Some(process), url)
            }
        };
        Ok(Self {
            config,
            url,
            browser_binary,
            driver,
            scratch,
        })
    }

    /// The WebDriver URL sessions are opened on.
    pub fn webdriver_url(&self) -> &str {
        &self.url
    }

    /// The process group of the driver this browser started (none for a remote WebDriver).
    /// Every driver and browser process it starts belongs to that group.
    pub fn driver_process_group(&self) -> Option<u32> {
        self.driver.as_ref().map(DriverProcess::process_group)
    }

    /// The capabilities Windup opens its sessions with, less the profile directory each session
    /// gets: for an embedder that opens its own WebDriver session on [`Browser::webdriver_url`].
    pub fn capabilities(&self) -> Capabilities {
        self.session_capabilities(None)
    }

    /// Opens a new browser session with a fresh profile.
    pub async fn new_session(&self) -> Result<Session, BrowserError> {
        let profile = tempfile::Builder::new()
            .prefix("profile-")
            .tempdir_in(self.scratch.path())
            .map_err(|source| BrowserError::Profile {
                path: self.scratch.path().to_owned(),
                source,
            })?;
        let mut capabilities = self.session_capabilities(Some(profile.path()));
        if self.config.protocol != Protocol::Classic {
            capabilities.insert("webSocketUrl".into(), json!(true));
        }
        // A driver that serves one session gets a new one per session; the first stays free
        // for an embedder's own session on `webdriver_url`.
        let own_driver = match &self.driver {
            Some(_) if self.config.kind.backend().one_session_per_driver() => {
                Some(start_driver(&self.config, self.scratch.path()).await?)
            }
            _ => None,
        };
        let driver = own_driver.as_ref().or(self.driver.as_ref());
        let url = driver.map_or(self.url.as_str(), DriverProcess::url);
        let credentials = Credentials::of(url);
        let client = fantoccini::ClientBuilder::native()
            .capabilities(capabilities)
            .connect(url)
            .await
            .map_err(|err| BrowserError::SessionStart {
                url: credentials.hide(url),
                reason: credentials.hide(&match driver {
                    Some(driver) => {
                        format!("{err}; driver log: {}", driver::log_tail(driver.log_path()))
                    }
                    None => err.to_string(),
                }),
                help: self.config.kind.backend().session_help(),
            })?;
        let bidi = match self.open_bidi(&client, url, &credentials).await {
            Ok(bidi) => bidi,
            Err(err) => {
                let _ = client.close().await;
                return Err(err);
            }
        };
        Ok(Session {
            client,
            bidi,
            authenticated: credentials.present(),
            driver: own_driver,
            visited: Default::default(),
            kind: self.config.kind,
            local: self.driver.is_some(),
            framed: Default::default(),
            privileged: Default::default(),
            watching: Default::default(),
            seen: Default::default(),
            #[cfg(feature = "audit")]
            covering: Default::default(),
            _profile: profile,
        })
    }

    /// The session's BiDi socket, as the configured protocol asks: none for Classic; for `auto`,
    /// the one the driver offers, if it offers one and it opens; for `bidi`, that one or an error.
    async fn open_bidi(
        &self,
        client: &fantoccini::Client,
        url: &str,
        credentials: &Credentials,
    ) -> Result<Option<bidi::Channel>, BrowserError> {
        let protocol = self.config.protocol;
        if protocol == Protocol::Classic {
            return Ok(None);
        }
        let offered = client
            .capabilities()
            .and_then(|caps| caps.get("webSocketUrl"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let refused = |reason: String| BrowserError::SessionStart {
            url: credentials.hide(url),
            reason: credentials.hide(&reason),
            help: "set `protocol = \"auto\"` under [browser] (or WINDUP_PROTOCOL=auto) to fall \
                   back to WebDriver Classic where BiDi is missing",
        };
        match (offered, protocol) {
            (Some(socket), _) => match self.bidi_channel(client, &socket, credentials).await {
                Ok(channel) => Ok(Some(channel)),
                Err(_) if protocol == Protocol::Auto => Ok(None),
                Err(err) => Err(refused(format!("its BiDi socket did not open: {err}"))),
            },
            (None, Protocol::Bidi) => Err(refused(
                "the driver offers no BiDi socket (no `webSocketUrl` among the session's \
                 capabilities)"
                    .to_owned(),
            )),
            (None, _) => Ok(None),
        }
    }

    /// The socket at `socket`, for the session's window.
    async fn bidi_channel(
        &self,
        client: &fantoccini::Client,
        socket: &str,
        credentials: &Credentials,
    ) -> Result<bidi::Channel, bidi::Refusal> {
        let window = client
            .window()
            .await
            .map_err(|e| bidi::Refusal::Gone(format!("the session's window is unknown: {e}")))?;
        let channel =
            bidi::Channel::open(socket, credentials.header_for(socket), window.into()).await?;
        // Every new document keeps the scripts' helpers from its start.
        channel.preload(&scripts::LIBRARY.install).await?;
        Ok(channel)
    }

    /// How the driver's own Classic commands wait for a page to load: `normal`, except in a
    /// Chromium session that holds requests, where it is `none`. chromedriver's tracker of
    /// `normal` asks the page for its `readyState` on one thread when a load is told, and Chrome
    /// keeps a command to a page whose next document is on its way (from another process) until
    /// that document comes: when a load was told late, after the next navigation had started
    /// and its document was held, the question waited for the held document and the answer
    /// that lets it go waited behind the question, and the session stopped answering for good
    /// (a busy machine made it likely). `none` asks nothing; the session waits for its loads
    /// over BiDi, its own events.
    fn page_load_strategy(&self) -> &'static str {
        match (self.config.intercepts, self.config.kind) {
            (true, BrowserKind::Chromium) => "none",
            _ => "normal",
        }
    }

    /// The backend's capabilities, and the standard ones every session gets.
    fn session_capabilities(&self, profile: Option<&Path>) -> Capabilities {
        let local = self.driver.as_ref().map(|_| Local {
            profile,
            binary: self.browser_binary.as_deref(),
        });
        let mut caps = self.config.kind.backend().capabilities(&self.config, local);
        caps.insert("pageLoadStrategy".into(), json!(self.page_load_strategy()));
        if self.config.intercepts {
            caps.insert(
                "timeouts".into(),
                json!({ "pageLoad": INTERCEPTED_PAGE_LOAD.as_millis() as u64 }),
            );
        }
        caps.insert(
            "unhandledPromptBehavior".into(),
            json!("dismiss and notify"),
        );
        caps
    }
}

/// Runs a script over BiDi as Classic's `execute` (or, with `callback`, `executeAsync`) would:
/// one whose helpers the page keeps sends only its own part, and installs the helpers first in a
/// document that began before the session's preload script ([`scripts::Library`]).
async fn on_socket(
    channel: &bidi::Channel,
    script: &str,
    args: &[Value],
    callback: bool,
) -> Result<Value, bidi::Refusal> {
    let call = |body: &str| {
        let body = body.to_owned();
        async move {
            if callback {
                channel.run_async(&body, args).await
            } else {
                channel.run(&body, args).await
            }
        }
    };
    let library = &*scripts::LIBRARY;
    let Some(slim) = library.slim(script, callback) else {
        return call(script).await;
    };
    let answer = call(&slim).await?;
    if answer.as_str() != Some(library.missing().as_str()) {
        return Ok(answer);
    }
    channel.run(&library.install, &[]).await?;
    call(&slim).await
}

/// Starts the configured kind's driver on a free loopback port, its log in `log_dir`.
async fn start_driver(
    config: &BrowserConfig,
    log_dir: &Path,
) -> Result<DriverProcess, BrowserError> {
    let backend = config.kind.backend();
    let program = backend.driver(config)?;
    let args = |port| backend.driver_args(port);
    DriverProcess::start(&program, args, log_dir, config.startup_timeout).await
}

/// One browser session (a browser process), kept by a worker and reset between scenarios.
#[derive(Debug)]
pub struct Session {
    client: fantoccini::Client,
    /// The session's BiDi socket, when it speaks BiDi (docs/browsers.md#webdriver-bidi).
    bidi: Option<bidi::Channel>,
    /// Whether its WebDriver URL carries credentials (a Grid with basic authentication).
    authenticated: bool,
    /// Origins this session has visited since its last reset, whose storage reset clears.
    visited: std::sync::Mutex<std::collections::BTreeSet<String>>,
    kind: BrowserKind,
    /// Whether this process started the driver. A remote WebDriver may refuse a backend's vendor
    /// commands (DevTools, Firefox's privileged context): each then falls back to what WebDriver
    /// alone can do.
    local: bool,
    /// Whether the session may be inside a frame rather than on the page itself.
    framed: std::sync::atomic::AtomicBool,
    /// Whether its Classic scripts run in the browser's own privileged context (Firefox's
    /// `chrome`), which only Classic reaches.
    privileged: std::sync::atomic::AtomicBool,
    /// Whether the backend runs the page-events observer in every new document.
    watching: std::sync::Mutex<Option<String>>,
    /// What scripts told of the top-level page since a command last changed it.
    seen: std::sync::Mutex<Seen>,
    /// The task counting the edges of the audited app's scripts, once asked for.
    #[cfg(feature = "audit")]
    covering: std::sync::Mutex<Option<intercept::Covering>>,
    /// The session's own driver, for a browser whose driver serves one session; it ends after
    /// the session, before the profile is removed.
    driver: Option<DriverProcess>,
    _profile: tempfile::TempDir,
}

/// What the session's scripts told of the top-level page since a command last changed it.
#[derive(Debug, Default)]
struct Seen {
    url: Option<url::Url>,
    /// A new page's structure, read by a script that ran after an act.
    structure: Option<Value>,
    /// The path of the page the caller recorded last.
    recorded: Option<String>,
}

/// WebDriver Classic's key for an element reference in JSON (BiDi's shared id is the same id).
pub(crate) const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// How late every answer from the network arrives during a double click.
pub const SLOW_ANSWER: Duration = Duration::from_millis(400);

/// After a click: whether a submission the document saw (armed by the gate), not prevented by
/// the page, is about to replace it. If so, it answers when the document goes, or after
/// `arguments[0]` ms; otherwise at once, with whether the element the gate passed (or the control
/// of that label) is checked, and what `pageAfter` tells of the page (`arguments[1]`: the path
/// last recorded). The gate keeps the element in the page: a reference the driver holds goes
/// stale when the click replaces the document, and the script would fail.
static AFTER_CLICK: scripts::Script = scripts::Script::new(|| {
    scripts::with_selectors(&format!(
        "{}\n{}",
        include_str!("js/structure.js"),
        include_str!("js/after_click.js")
    ))
});

#[derive(Debug, serde::Deserialize)]
struct Departure {
    leaving: bool,
    #[serde(default)]
    gone: bool,
    #[serde(default)]
    checked: Option<bool>,
    #[serde(default)]
    href: Option<String>,
    #[serde(default)]
    structure: Option<Value>,
}

/// Control+A, every key released, Backspace: the keys that empty a field.
/// How long a back or forward waits for the address to change (an entry with the same address
/// waits it all; nothing else does).
const TRAVERSAL_WAIT: Duration = Duration::from_secs(2);

/// How long an act with no deadline of its own (typing, a key, a double click) waits, over BiDi,
/// for a navigation it started to land.
const SETTLE_WITHIN: Duration = Duration::from_secs(10);

const SELECT_ALL_AND_DELETE: &str = "\u{E009}a\u{E000}\u{E003}";

/// Empties a field the keys left text in (`arguments[0]`), as WebDriver's Element Clear does,
/// telling the page as typing would.
const EMPTY_WHAT_IS_LEFT: &str = "const el = arguments[0]; \
    if (typeof el.value === 'string' && el.value !== '') { \
      el.value = ''; \
      el.dispatchEvent(new Event('input', { bubbles: true })); \
      el.dispatchEvent(new Event('change', { bubbles: true })); \
    } \
    return true;";

/// Picks the option of a list (`arguments[0]`) whose text is `arguments[1]`, else whose value
/// is, as WebDriver's Element Click on that option does: the list hears the pointer, takes the
/// focus, and hears `input`, then `change` if the choice changed. False when it has no such option.
const PICK_OPTION: &str = "const [list, wanted] = arguments; \
    const options = Array.from(list.options || []); \
    const option = options.find((o) => o.textContent === wanted) \
      || options.find((o) => o.value === wanted); \
    if (!option) return false; \
    const mouse = (type) => list.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window })); \
    mouse('mouseover'); mouse('mousemove'); mouse('mousedown'); \
    if (document.activeElement !== list) list.focus(); \
    if (!option.disabled) { \
      list.dispatchEvent(new Event('input', { bubbles: true, composed: true })); \
      const before = option.selected; \
      option.selected = list.multiple ? !before : true; \
      if (!before) list.dispatchEvent(new Event('change', { bubbles: true })); \
    } \
    mouse('mouseup'); mouse('click'); \
    return true;";

/// Where a pointer sent over BiDi goes for an element that passed the gate: the point the gate
/// tested, else the element's centre.
fn aim(element: &Actionable) -> input::Aim {
    match element.point {
        Some(point) => input::Aim::Point(point),
        None => input::Aim::Element(element.element.element_id().to_string()),
    }
}

/// Whether a refused pointer action means the page changed under it since the gate passed.
fn raced(error: &str) -> bool {
    matches!(
        error,
        "move target out of bounds"
            | "no such node"
            | "no such element"
            | "stale element reference"
    )
}

impl Session {
    fn backend(&self) -> &'static dyn Backend {
        self.kind.backend()
    }

    /// Navigates and waits for the page to load.
    pub async fn goto(&self, url: &str) -> Result<Opened, BrowserError> {
        self.forget_seen_url();
        self.leave_frames().await?;
        let unreachable = |code| {
            Err(BrowserError::Navigation(Unreachable {
                url: url.to_owned(),
                code,
            }))
        };
        // A driver reports some network errors as a failed command and shows others only as the
        // browser's error page: either way the browser's error page is what is open now.
        if let Err(err) = self.navigate(url, &format!("goto {url}")).await {
            if let Some(code) = self.backend().navigation_error(&err.to_string()) {
                return unreachable(code);
            }
            // Over BiDi a browser may refuse the navigation with its error page open: look.
            if self.socket().is_some()
                && !err.is_lost()
                && let Ok(OpenedPage {
                    error: Some(code), ..
                }) = self.opened().await
            {
                return unreachable(code);
            }
            return Err(err);
        }
        let page = self.opened().await?;
        if let Some(code) = page.error {
            return unreachable(code);
        }
        self.remember_origin(url);
        Ok(Opened {
            status: page.status,
        })
    }

    /// Opens `url` and waits for it to load: over BiDi `browsingContext.navigate`, else
    /// WebDriver's Navigate To. An absolute URL is sent as it is: fantoccini's `goto` first
    /// asks the driver for the current URL to resolve it against, a round trip per page.
    async fn navigate(&self, url: &str, during: &str) -> Result<(), BrowserError> {
        let absolute = url::Url::parse(url).is_ok();
        if let Some(channel) = self.socket().filter(|_| absolute) {
            return channel
                .navigate(url)
                .await
                .map_err(|refusal| refusal.during(during));
        }
        let sent = if absolute {
            self.client
                .issue_cmd(SessionPost {
                    path: "url",
                    body: serde_json::json!({ "url": url }),
                })
                .await
                .map(|_| ())
        } else {
            self.client.goto(url).await
        };
        sent.map_err(|e| BrowserError::command(during, e))
    }

    /// What the page just opened is: the browser's error page (with its network error code), or
    /// a document served with an HTTP status (Navigation Timing's `responseStatus`), with its
    /// structure when it is a new page. One script.
    async fn opened(&self) -> Result<OpenedPage, BrowserError> {
        let raw = self
            .execute(
                "check the page opened",
                self.backend().opened_js(),
                vec![json!(self.recorded_path())],
            )
            .await?;
        let mut page: OpenedPage =
            serde_json::from_value(raw.clone()).map_err(|_| BrowserError::Script {
                during: "check the page opened".into(),
                value: raw.to_string(),
            })?;
        if let Some(href) = &page.href {
            self.saw_page(href, page.structure.take());
        }
        Ok(page)
    }

    /// The page's URL as a script reported it since the page last changed under a command of
    /// this session (an act, a navigation, a script), if one did: what [`Session::current_url`]
    /// would answer, without asking the driver.
    pub fn seen_url(&self) -> Option<url::Url> {
        self.seen().url.clone()
    }

    /// The page's URL now: the one seen since the last change, else read from the driver.
    pub async fn url_now(&self) -> Result<url::Url, BrowserError> {
        match self.seen_url() {
            Some(url) => Ok(url),
            None => {
                let url = self.current_url().await?;
                self.seen().url = Some(url.clone());
                Ok(url)
            }
        }
    }

    /// Records the top-level page's URL and, when the script read it, its structure (as the
    /// page-structure script answers it: the engine reads it).
    pub(crate) fn saw_page(&self, href: &str, structure: Option<Value>) {
        let mut seen = self.seen();
        seen.url = url::Url::parse(href).ok();
        seen.structure = structure;
    }

    /// Forgets what was seen: a command is about to change the page, or may have.
    pub(crate) fn forget_seen_url(&self) {
        let mut seen = self.seen();
        seen.url = None;
        seen.structure = None;
    }

    /// The structure of a new page a script read since the page last changed, once.
    pub(crate) fn take_seen_structure(&self) -> Option<Value> {
        self.seen().structure.take()
    }

    /// The path of the page the caller recorded last: scripts that run after an act read a
    /// page's structure only when its path is another.
    pub(crate) fn recorded_path(&self) -> Option<String> {
        self.seen().recorded.clone()
    }

    /// Tells the session the path of the page just recorded (`None`: none yet).
    pub(crate) fn set_recorded_path(&self, path: Option<&str>) {
        self.seen().recorded = path.map(str::to_owned);
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, Seen> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current URL. Over BiDi it is read from the browser's tree of pages once a navigation
    /// an act started has landed, as Classic's Get Current URL waits for one: chromedriver would
    /// hold a Classic command that waits for a document the session's interception holds.
    pub async fn current_url(&self) -> Result<url::Url, BrowserError> {
        const DURING: &str = "read the current URL";
        let Some(channel) = self.socket() else {
            return self
                .client
                .current_url()
                .await
                .map_err(|e| BrowserError::command(DURING, e));
        };
        channel.settled(Instant::now() + SETTLE_WITHIN).await;
        let url = channel.url().await.map_err(|r| r.during(DURING))?;
        url::Url::parse(&url).map_err(|e| BrowserError::Command {
            during: DURING.to_owned(),
            reason: format!("the browser gave {url:?}, which is no URL: {e}"),
        })
    }

    /// Runs a script in the page and returns what it returns (`return …;`).
    pub async fn execute_script(&self, script: &str) -> Result<Value, BrowserError> {
        self.forget_seen_url();
        self.execute("run a script", script, vec![]).await
    }

    /// Runs an injected script; `during` names the step for error messages.
    pub(crate) async fn execute(
        &self,
        during: &str,
        script: &str,
        args: Vec<Value>,
    ) -> Result<Value, BrowserError> {
        // Over BiDi on the page itself; in a frame, Classic knows which one.
        if let Some(channel) = self.socket() {
            return on_socket(channel, script, &args, false)
                .await
                .map_err(|refusal| refusal.during(during));
        }
        self.client
            .execute(script, args)
            .await
            .map_err(|e| BrowserError::command(during, e))
    }

    /// The BiDi socket, when the session speaks BiDi and is on the page itself (in a frame,
    /// Classic knows which one; in the browser's privileged context, only Classic goes).
    fn socket(&self) -> Option<&bidi::Channel> {
        use std::sync::atomic::Ordering::SeqCst;
        self.bidi
            .as_ref()
            .filter(|_| !self.framed.load(SeqCst) && !self.privileged.load(SeqCst))
    }

    pub(crate) async fn execute_async(
        &self,
        during: &str,
        script: &str,
        args: Vec<Value>,
    ) -> Result<Value, BrowserError> {
        if let Some(channel) = self.socket() {
            return on_socket(channel, script, &args, true)
                .await
                .map_err(|refusal| refusal.during(during));
        }
        self.client
            .execute_async(script, args)
            .await
            .map_err(|e| BrowserError::command(during, e))
    }

    /// Clears a field that passed the gate (unless it was empty then) and types `text` into it.
    /// Typing text moves no page; a line break may submit a form, and then the URL seen is
    /// forgotten. (A page whose script navigates as one types is seen by the next look.)
    ///
    /// The field is cleared as a person clears it, with the keyboard (select all, then
    /// Backspace), so the page hears it: WebDriver's own clear fires no `input` event in
    /// Chromium, and a framework that keeps the field's value (React, Vue) would put the old
    /// text back at its next render. A field the keys do not empty (a date) is then cleared
    /// WebDriver's way.
    ///
    /// The field takes the focus first as a click gives it ([`Session::focus`]): the element it
    /// leaves hears where the focus went (`relatedTarget`), where WebDriver's own focusing blurs
    /// it towards nothing first.
    pub async fn type_into(&self, element: &Actionable, text: &str) -> Result<(), BrowserError> {
        if text.contains(['\n', '\r']) {
            self.forget_seen_url();
        }
        self.focus(element).await?;
        let typed = match self.socket() {
            Some(channel) => self.retype(channel, element, text).await,
            None => self.retype_classic(element, text).await,
        };
        self.settle(Instant::now() + SETTLE_WITHIN).await;
        typed
    }

    /// Empties a focused field and types `text` with BiDi's key actions; what the keys leave
    /// (a date) is emptied as WebDriver's Element Clear does, by a script over the socket.
    async fn retype(
        &self,
        channel: &bidi::Channel,
        element: &Actionable,
        text: &str,
    ) -> Result<(), BrowserError> {
        const DURING: &str = "type into the field";
        let type_keys = |keys| async move {
            channel
                .perform(input::keyboard(keys))
                .await
                .map_err(|refusal| refusal.during(DURING))
        };
        if !element.empty {
            type_keys(SELECT_ALL_AND_DELETE).await?;
            self.execute(DURING, EMPTY_WHAT_IS_LEFT, vec![self.reference(element)?])
                .await?;
        }
        type_keys(text).await
    }

    /// Empties a focused field and types `text` with Classic's send-keys.
    async fn retype_classic(&self, element: &Actionable, text: &str) -> Result<(), BrowserError> {
        let typed = async {
            if !element.empty {
                element.element.send_keys(SELECT_ALL_AND_DELETE).await?;
                let left = element.element.prop("value").await?;
                if left.is_some_and(|value| !value.is_empty()) {
                    element.element.clear().await?;
                }
            }
            element.element.send_keys(text).await
        };
        typed
            .await
            .map_err(|e| BrowserError::command("type into the field", e))
    }

    /// Picks the option of a list that passed the gate by its label, else by its value; `false`
    /// when the list has no such option.
    pub async fn select_option(
        &self,
        element: &Actionable,
        option: &str,
    ) -> Result<bool, BrowserError> {
        let during = || format!("choose {option:?} in {}", element.described);
        self.forget_seen_url();
        if self.socket().is_some() {
            let args = vec![self.reference(element)?, json!(option)];
            let picked = self.execute(&during(), PICK_OPTION, args).await?;
            return Ok(picked == Value::Bool(true));
        }
        match element.element.select_by_label(option).await {
            Ok(()) => return Ok(true),
            Err(err) => lost_or_refused(BrowserError::command(during(), err))?,
        }
        match element.element.select_by_value(option).await {
            Ok(()) => Ok(true),
            Err(err) => lost_or_refused(BrowserError::command(during(), err)).map(|()| false),
        }
    }

    /// Clicks an element that passed the gate. [`Clicked::Raced`] when the page won a race
    /// since the gate (the element moved, went stale or got covered): gate it again.
    ///
    /// With [`AfterClick::Settle`], a click that submits a form returns once the form's
    /// document has gone (or at `deadline`): the browser starts a submission's navigation after
    /// the click's own events, and a next action that came first (a `goto`) would cancel it
    /// before its request left. The gate armed the watch for the submission in the same script
    /// that passed the element.
    pub async fn click(
        &self,
        element: &Actionable,
        then: AfterClick,
        deadline: Instant,
    ) -> Result<Clicked, BrowserError> {
        self.forget_seen_url();
        if let Some(channel) = self.socket() {
            let pressed = channel
                .perform(input::mouse_at(aim(element), &[input::Mouse::Click]))
                .await;
            return match pressed {
                Ok(()) => {
                    // What the click started (a link followed, a form sent) lands first, as
                    // Classic's click waits for it.
                    channel.settled(deadline).await;
                    let checked = match then {
                        AfterClick::Settle => self.await_departure(deadline).await?,
                        AfterClick::CheckPage => None,
                    };
                    channel.settled(deadline).await;
                    Ok(Clicked::Done { checked })
                }
                Err(bidi::Refusal::Error { error, .. }) if raced(&error) => Ok(Clicked::Raced),
                Err(refusal) => Err(refusal.during(&format!("click {}", element.described))),
            };
        }
        let pressed = match &element.through {
            Some(_) => self.press_at_centre(element).await,
            None => element.element.click().await,
        };
        match pressed {
            Ok(()) => {
                let checked = match then {
                    AfterClick::Settle => self.await_departure(deadline).await?,
                    AfterClick::CheckPage => None,
                };
                Ok(Clicked::Done { checked })
            }
            Err(err)
                if err.is_element_not_interactable()
                    || err.is_stale_element_reference()
                    || err.to_string().contains("click intercepted")
                    || err.to_string().contains("out of bounds") =>
            {
                Ok(Clicked::Raced)
            }
            Err(err) => Err(BrowserError::command(
                format!("click {}", element.described),
                err,
            )),
        }
    }

    /// Presses and releases the pointer at the centre of an element the gate passed, where it
    /// found the element's label or control on top: the click lands on what a person's would.
    async fn press_at_centre(
        &self,
        element: &Actionable,
    ) -> Result<(), fantoccini::error::CmdError> {
        use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
        let click = MouseActions::new("windup-mouse".to_owned())
            .then(PointerAction::MoveToElement {
                element: element.element.clone(),
                duration: None,
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client.perform_actions(click).await
    }

    /// Waits while a submission the document saw has not replaced it yet, in one script that
    /// answers when the document goes; a click that submits nothing answers at once, with the
    /// page's URL and whether the clicked control is checked now.
    async fn await_departure(&self, deadline: Instant) -> Result<Option<bool>, BrowserError> {
        // Each look waits in the page at most this long, so that the deadline is kept.
        const LOOK: Duration = Duration::from_secs(2);
        loop {
            let left = deadline.saturating_duration_since(Instant::now()).min(LOOK);
            let wait = u64::try_from(left.as_millis()).unwrap_or(u64::MAX);
            let answer = self
                .execute_async(
                    "see whether a submission is leaving",
                    &AFTER_CLICK,
                    vec![json!(wait), json!(self.recorded_path())],
                )
                .await;
            match answer.map(serde_json::from_value::<Departure>) {
                Ok(Ok(Departure {
                    leaving: false,
                    href,
                    checked,
                    structure,
                    ..
                })) => {
                    if let Some(href) = href {
                        self.saw_page(&href, structure);
                    }
                    return Ok(checked);
                }
                Ok(Ok(Departure { gone: true, .. })) => return Ok(None),
                Ok(Ok(_)) if Instant::now() >= deadline => return Ok(None),
                Ok(Ok(_)) => {}
                Ok(Err(_)) => return Ok(None),
                // The document is being replaced: the submission is on its way.
                Err(err) => return lost_or_refused(err).map(|()| None),
            }
        }
    }

    /// Types `text` key by key into a field that passed the gate, after what it holds: no
    /// clearing, no Enter. What a person types and leaves pending. The field takes the focus
    /// first as in [`Session::type_into`].
    pub async fn type_more(&self, element: &Actionable, text: &str) -> Result<(), BrowserError> {
        if text.contains(['\n', '\r']) {
            self.forget_seen_url();
        }
        self.focus(element).await?;
        self.send_keys(element, text, &format!("type into {}", element.described))
            .await
    }

    /// Gives an element that passed the gate the focus, unless it has it: no click, no pointer.
    pub async fn focus(&self, element: &Actionable) -> Result<(), BrowserError> {
        let script = "const el = arguments[0]; \
            let active = document.activeElement; \
            while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement; \
            if (active !== el) el.focus(); \
            return true;";
        self.execute(
            &format!("focus {}", element.described),
            script,
            vec![self.reference(element)?],
        )
        .await
        .map(|_| ())
    }

    /// An element that passed the gate as a script's argument.
    fn reference(&self, element: &Actionable) -> Result<Value, BrowserError> {
        serde_json::to_value(&element.element).map_err(|e| BrowserError::Script {
            during: format!("pass {} to a script", element.described),
            value: e.to_string(),
        })
    }

    /// Types `keys` (WebDriver's key codes among them) into an element that passed the gate and
    /// has the focus: over BiDi as key actions, else with Classic's send-keys.
    pub(crate) async fn send_keys(
        &self,
        element: &Actionable,
        keys: &str,
        during: &str,
    ) -> Result<(), BrowserError> {
        let typed = match self.socket() {
            Some(channel) => channel
                .perform(input::keyboard(keys))
                .await
                .map_err(|refusal| refusal.during(during)),
            None => (element.element.send_keys(keys).await)
                .map_err(|e| BrowserError::command(during, e)),
        };
        self.settle(Instant::now() + SETTLE_WITHIN).await;
        typed
    }

    /// Over BiDi, waits while a navigation of the page is under way (one an act started), until
    /// its document has loaded, for at most [`SETTLE_WITHIN`]: Classic's commands (scripts among
    /// them) wait for it themselves, BiDi's do not.
    pub(crate) async fn wait_for_navigation(&self) {
        self.settle(Instant::now() + SETTLE_WITHIN).await;
    }

    /// Over BiDi, waits while a navigation of the page is under way (one an act started), until
    /// its document has loaded or `deadline` comes: Classic's commands wait for it themselves.
    async fn settle(&self, deadline: Instant) {
        if let Some(channel) = &self.bidi {
            channel.settled(deadline).await;
        }
    }

    /// Moves the pointer over an element that passed the gate, as a person hovers it.
    pub async fn hover(&self, element: &Actionable) -> Result<(), BrowserError> {
        self.forget_seen_url();
        if let Some(channel) = self.socket() {
            return channel
                .perform(input::mouse_at(aim(element), &[]))
                .await
                .map_err(|refusal| refusal.during(&format!("hover {}", element.described)));
        }
        self.move_to(
            element.element.clone(),
            &format!("hover {}", element.described),
        )
        .await
    }

    /// Moves the pointer to the centre of `element`: over BiDi as a pointer action with the
    /// element as its origin, else with Classic's actions.
    pub(crate) async fn move_to(
        &self,
        element: fantoccini::elements::Element,
        during: &str,
    ) -> Result<(), BrowserError> {
        use fantoccini::actions::{InputSource, MouseActions, PointerAction};
        if let Some(channel) = self.socket() {
            let aim = input::Aim::Element(element.element_id().to_string());
            return channel
                .perform(input::mouse_at(aim, &[]))
                .await
                .map_err(|refusal| refusal.during(during));
        }
        let mouse =
            MouseActions::new("windup-mouse".to_owned()).then(PointerAction::MoveToElement {
                element,
                duration: None,
                x: 0.0,
                y: 0.0,
            });
        self.client
            .perform_actions(mouse)
            .await
            .map_err(|e| BrowserError::command(during, e))
    }

    /// Double-clicks an element that passed the gate as a person does. One that sends a form
    /// or follows a link is double-clicked as on a slow connection: two clicks 100 ms apart
    /// while every answer from the network takes [`SLOW_ANSWER`], so the second click lands
    /// before the first one's answer (the double submit); the answers are waited for before
    /// the network is fast again. Anything else (a row's label that opens an editor) is
    /// double-clicked at once.
    pub async fn double_click(&self, element: &Actionable) -> Result<(), BrowserError> {
        use fantoccini::actions::{InputSource, MOUSE_BUTTON_LEFT, MouseActions, PointerAction};
        let during = || format!("double-click {}", element.described);
        self.forget_seen_url();
        let sends = "const el = arguments[0]; \
            const sender = el.closest('a[href], button, input[type=submit], input[type=image]'); \
            if (!sender) return false; \
            if (sender.tagName === 'A') return true; \
            return !!sender.form && (sender.tagName !== 'BUTTON' || (sender.getAttribute('type') || 'submit').toLowerCase() === 'submit');";
        let element_arg = self.reference(element)?;
        let navigates = matches!(
            self.execute("look at what is double-clicked", sends, vec![element_arg])
                .await,
            Ok(Value::Bool(true))
        );
        let slowed = navigates && self.backend().slow_network(self, Some(SLOW_ANSWER)).await?;
        self.execute("mark the page", "window.__windupClicked = true;", vec![])
            .await?;
        if let Some(channel) = self.socket() {
            let twice = [
                input::Mouse::Click,
                input::Mouse::Pause(Duration::from_millis(100)),
                input::Mouse::Click,
            ];
            let clicked = channel.perform(input::mouse_at(aim(element), &twice)).await;
            if slowed {
                self.await_answers().await;
                self.backend().slow_network(self, None).await?;
            }
            channel.settled(Instant::now() + SETTLE_WITHIN).await;
            return clicked.map_err(|refusal| refusal.during(&during()));
        }
        let left = MOUSE_BUTTON_LEFT;
        let clicks = MouseActions::new("windup-mouse".to_owned())
            .then(PointerAction::MoveToElement {
                element: element.element.clone(),
                duration: None,
                x: 0.0,
                y: 0.0,
            })
            .then(PointerAction::Down { button: left })
            .then(PointerAction::Up { button: left })
            .then(PointerAction::Pause {
                duration: Duration::from_millis(100),
            })
            .then(PointerAction::Down { button: left })
            .then(PointerAction::Up { button: left });
        let clicked = self.client.perform_actions(clicks).await;
        if slowed {
            self.await_answers().await;
            self.backend().slow_network(self, None).await?;
        }
        clicked.map_err(|e| BrowserError::command(during(), e))
    }

    /// Waits until a new document has loaded after a double click, or until answers slowed by
    /// [`SLOW_ANSWER`] would all have arrived (the clicks may not navigate at all).
    async fn await_answers(&self) {
        let deadline = Instant::now() + SLOW_ANSWER * 3;
        let loaded = "return !window.__windupClicked && document.readyState === 'complete';";
        while Instant::now() < deadline {
            if let Ok(Value::Bool(true)) = self.execute("wait for the page", loaded, vec![]).await {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Reloads the page as the browser's reload button does, and waits for it to load.
    pub async fn reload(&self) -> Result<Opened, BrowserError> {
        self.forget_seen_url();
        self.leave_frames().await?;
        match self.socket() {
            Some(channel) => channel
                .reload()
                .await
                .map_err(|refusal| refusal.during("reload the page"))?,
            None => self
                .client
                .refresh()
                .await
                .map_err(|e| BrowserError::command("reload the page", e))?,
        }
        self.landed().await
    }

    /// Goes back one page in the history, and waits for it to load.
    pub async fn back(&self) -> Result<Opened, BrowserError> {
        self.traverse(false).await
    }

    /// Goes forward one page in the history, and waits for it to load.
    pub async fn forward(&self) -> Result<Opened, BrowserError> {
        self.traverse(true).await
    }

    /// Back or forward one entry. A driver may answer before a traversal within the document
    /// (a fragment, a `pushState` entry) has landed, and a check made then would read the page
    /// it left: so the address is waited for to change, when there is an entry to go to (the
    /// Navigation API says; without it, one is assumed), for at most [`TRAVERSAL_WAIT`].
    async fn traverse(&self, forward: bool) -> Result<Opened, BrowserError> {
        self.forget_seen_url();
        self.leave_frames().await?;
        let before = self
            .execute(
                "look where the history is",
                "const n = window.navigation; \
                 return [location.href, !n || (arguments[0] ? n.canGoForward : n.canGoBack)];",
                vec![Value::Bool(forward)],
            )
            .await
            .ok()
            .and_then(|v| serde_json::from_value::<(String, bool)>(v).ok());
        let what = if forward { "go forward" } else { "go back" };
        match self.socket() {
            Some(channel) => {
                match channel.traverse(if forward { 1 } else { -1 }).await {
                    // No entry there: as Classic's back and forward, nothing happens.
                    Err(bidi::Refusal::Error { error, .. }) if error == "no such history entry" => {
                    }
                    went => went.map_err(|refusal| refusal.during(what))?,
                }
                channel.settled(Instant::now() + SETTLE_WITHIN).await;
            }
            None if forward => self
                .client
                .forward()
                .await
                .map_err(|e| BrowserError::command(what, e))?,
            None => self
                .client
                .back()
                .await
                .map_err(|e| BrowserError::command(what, e))?,
        }
        if let Some((href, true)) = before {
            let deadline = tokio::time::Instant::now() + TRAVERSAL_WAIT;
            while tokio::time::Instant::now() < deadline
                && self.url_now().await.is_ok_and(|now| now.as_str() == href)
            {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        self.landed().await
    }

    /// What the page a reload or a back opened is; the browser's error page is an error.
    async fn landed(&self) -> Result<Opened, BrowserError> {
        let page = self.opened().await?;
        let url = self.url_now().await?.to_string();
        if let Some(code) = page.error {
            return Err(BrowserError::Navigation(Unreachable { url, code }));
        }
        self.remember_origin(&url);
        Ok(Opened {
            status: page.status,
        })
    }

    /// A PNG of the viewport.
    pub async fn screenshot_png(&self) -> Result<Vec<u8>, BrowserError> {
        if let Some(channel) = self.socket() {
            return (channel.screenshot().await)
                .map_err(|refusal| refusal.during("take a screenshot"));
        }
        self.client
            .screenshot()
            .await
            .map_err(|e| BrowserError::command("take a screenshot", e))
    }

    /// A PNG of the viewport, written to `path` (parent directories created).
    pub async fn screenshot(&self, path: &Path) -> Result<(), BrowserError> {
        let png = self.screenshot_png().await?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| BrowserError::Profile {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::write(path, png).map_err(|source| BrowserError::Profile {
            path: path.to_owned(),
            source,
        })
    }

    /// Back to a blank slate, the WebDriver analogue of a fresh browser context: storage of the
    /// current page, then every cookie and the storage of every origin visited (the backend's
    /// part), then `about:blank`.
    pub async fn reset(&self) -> Result<(), BrowserError> {
        self.forget_seen_url();
        self.set_recorded_path(None);
        self.leave_frames().await?;
        self.execute("reset storage", &clear_storage_js(), vec![])
            .await?;
        let origins = std::mem::take(&mut *self.visited.lock().unwrap_or_else(|p| p.into_inner()));
        self.backend()
            .clear_browsing_data(self, origins.into_iter().collect())
            .await?;
        self.navigate("about:blank", "open about:blank").await
    }

    /// What WebDriver alone can clear, for a remote browser that refuses the backend's own way:
    /// the open document's cookies, then each other origin of `origins`, opened at its root, its
    /// storage cleared and its cookies deleted. Delete All Cookies reaches only the cookies the
    /// open page would be sent, so a cookie scoped to a narrower path survives.
    pub(crate) async fn clear_through_webdriver(
        &self,
        origins: Vec<String>,
    ) -> Result<(), BrowserError> {
        let here = self.current_url().await?;
        if matches!(here.scheme(), "http" | "https") {
            self.delete_all_cookies().await?;
        }
        let here = here.origin().ascii_serialization();
        for origin in origins.into_iter().filter(|origin| *origin != here) {
            // Not `goto`: the origin is being forgotten, not visited.
            self.navigate(&format!("{origin}/"), &format!("open {origin} to clear it"))
                .await?;
            self.execute("reset storage", &clear_storage_js(), vec![])
                .await?;
            self.delete_all_cookies().await?;
        }
        Ok(())
    }

    /// WebDriver's own Delete All Cookies: the open document's cookies only.
    async fn delete_all_cookies(&self) -> Result<(), BrowserError> {
        self.client
            .delete_all_cookies()
            .await
            .map_err(|e| BrowserError::command("delete cookies", e))
    }

    /// Ends the session and its browser process, or says it could not within [`CLOSE_WITHIN`]: a
    /// driver that stopped answering is not waited for (its process ends with the [`Browser`]).
    pub async fn close(self) -> Result<(), BrowserError> {
        match tokio::time::timeout(CLOSE_WITHIN, self.end()).await {
            Ok(ended) => ended,
            Err(_) => Err(BrowserError::Lost {
                during: "close the session".to_owned(),
                reason: format!("no answer within {} s", CLOSE_WITHIN.as_secs()),
            }),
        }
    }

    async fn end(self) -> Result<(), BrowserError> {
        if self.authenticated {
            // Deleted with the credentials; fantoccini's close then only ends its connection
            // (its own DELETE, without them, is refused or finds nothing).
            self.client
                .issue_cmd(SessionDelete)
                .await
                .map_err(|e| BrowserError::command("close the session", e))?;
            let _ = self.client.close().await;
            return Ok(());
        }
        self.client
            .close()
            .await
            .map_err(|e| BrowserError::command("close the session", e))
    }

    /// The process group of the driver this session owns, for a browser whose driver serves
    /// one session (Firefox); `None` when it shares the [`Browser`]'s driver or is remote.
    pub fn driver_process_group(&self) -> Option<u32> {
        self.driver.as_ref().map(DriverProcess::process_group)
    }

    /// The protocol this session speaks: BiDi when it has the socket, Classic otherwise.
    pub fn protocol(&self) -> Protocol {
        if self.bidi.is_some() {
            Protocol::Bidi
        } else {
            Protocol::Classic
        }
    }

    /// What the page did since this was last asked, as the BiDi channel heard it pushed:
    /// console errors, uncaught exceptions and failed requests, with no script sent to the page.
    /// `None` for a session that speaks Classic.
    pub fn heard_page_events(&self) -> Option<crate::model::invariant::PageEvents> {
        self.bidi.as_ref().map(bidi::Channel::take_events)
    }

    /// The messages the session's BiDi channel carried so far, as (sent, received); `None` under
    /// Classic.
    pub fn bidi_traffic(&self) -> Option<(u64, u64)> {
        self.bidi.as_ref().map(bidi::Channel::traffic)
    }

    /// The browser kind this session drives.
    pub fn kind(&self) -> BrowserKind {
        self.kind
    }

    /// Sets whether the session is inside a frame, answering whether it was.
    pub(crate) fn in_frame(&self, framed: bool) -> bool {
        self.framed
            .swap(framed, std::sync::atomic::Ordering::SeqCst)
    }

    /// Records the origin of a URL the session is on, so that reset can clear its storage.
    pub(crate) fn remember_origin(&self, url: &str) {
        if let Ok(parsed) = url::Url::parse(url)
            && matches!(parsed.scheme(), "http" | "https")
        {
            let origin = parsed.origin().ascii_serialization();
            self.visited
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(origin);
        }
    }
}

/// Clears the open document's local and session storage, its observer stopped first.
fn clear_storage_js() -> String {
    format!(
        "try {{ {} localStorage.clear(); sessionStorage.clear(); }} catch (e) {{}}",
        observe::STOP_OBSERVER_JS
    )
}

/// Deletes the session: fantoccini's own close sends no credentials, which a Grid with basic
/// authentication refuses, leaving the session open on it.
#[derive(Debug)]
struct SessionDelete;

impl fantoccini::wd::WebDriverCompatibleCommand for SessionDelete {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::DELETE, None)
    }
}

/// A POST of `body` to `session/{id}/{path}`: a WebDriver command fantoccini offers only in
/// part (Switch To Frame with a null id) or a driver's own (DevTools through chromedriver,
/// Firefox's privileged context through geckodriver).
#[derive(Debug)]
pub(crate) struct SessionPost {
    pub(crate) path: &'static str,
    pub(crate) body: Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for SessionPost {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let session = session_id.unwrap_or_default();
        base_url.join(&format!("session/{session}/{}", self.path))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// chromedriver's page load tracker must not ask a page anything in a Chromium session that
    /// holds requests (docs/audit.md#coverage): the question can wait for a held document.
    #[tokio::test]
    async fn a_chromium_session_that_holds_requests_leaves_page_loads_to_bidi() {
        let strategy = |kind, intercepts| async move {
            let config = BrowserConfig {
                kind,
                intercepts,
                webdriver_url: Some("http://127.0.0.1:9".to_owned()),
                ..BrowserConfig::default()
            };
            let browser = Browser::launch(config).await.unwrap();
            browser.capabilities()["pageLoadStrategy"].clone()
        };
        assert_eq!(strategy(BrowserKind::Chromium, true).await, "none");
        assert_eq!(strategy(BrowserKind::Chromium, false).await, "normal");
        assert_eq!(strategy(BrowserKind::Firefox, true).await, "normal");
    }

    #[test]
    fn grid_credentials_are_hidden_and_sent_only_to_their_own_host() {
        let credentials = Credentials::of("https://windup:s3cr3t-key@hub.example:4444/wd/hub");
        assert_eq!(
            credentials.hide(
                "the WebDriver at https://windup:s3cr3t-key@hub.example:4444/wd/hub said no \
                 (key s3cr3t-key)"
            ),
            "the WebDriver at https://***@hub.example:4444/wd/hub said no (key ***)"
        );
        assert_eq!(
            credentials.header_for("wss://hub.example:4444/session/1/se/bidi"),
            Some("Basic d2luZHVwOnMzY3IzdC1rZXk="),
        );
        assert_eq!(
            credentials.header_for("ws://hub.example:4444/session/1/se/bidi"),
            None,
            "not in the clear when they came over TLS"
        );
        assert_eq!(
            credentials.header_for("wss://hub.example:5555/x"),
            None,
            "another port"
        );
        assert_eq!(credentials.header_for("ws://elsewhere:4444/x"), None);
        let none = Credentials::of("http://127.0.0.1:4444");
        assert_eq!(none.hide("http://127.0.0.1:4444"), "http://127.0.0.1:4444");
        assert_eq!(none.header_for("ws://127.0.0.1:4444/x"), None);
    }

    #[test]
    fn an_unreachable_site_says_why_and_what_to_do() {
        let cases = [
            (
                "ERR_CONNECTION_REFUSED",
                "(connection refused, ERR_CONNECTION_REFUSED): is the server running?",
            ),
            ("ERR_NAME_NOT_RESOLVED", "does not resolve (DNS)"),
            (
                "ERR_CERT_AUTHORITY_INVALID",
                "TLS certificate is not trusted",
            ),
            ("ERR_UNSAFE_PORT", "deems unsafe"),
            ("ERR_SOMETHING_NEW", "could not load it, ERR_SOMETHING_NEW)"),
        ];
        for (code, said) in cases {
            let text = Unreachable {
                url: "http://127.0.0.1:1/".into(),
                code: code.into(),
            }
            .to_string();
            assert!(
                text.starts_with("the site at http://127.0.0.1:1/ is not reachable ("),
                "{text}"
            );
            assert!(text.contains(said), "{text}");
        }
    }
}
