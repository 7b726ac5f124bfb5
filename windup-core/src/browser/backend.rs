//! Browser kinds. Each kind is a backend that owns everything that differs between browsers: how
//! its driver and executable are found and the driver started, the capabilities a session asks
//! for, how a page that did not open shows, and how a session is wiped between scenarios. Shared
//! code asks the backend; it never asks which browser it is talking to.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use serde_json::{Map, Value};

use super::{BrowserConfig, BrowserError, Session};

/// Which browser Windup drives: Chromium through chromedriver, or Firefox through geckodriver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BrowserKind {
    #[default]
    Chromium,
    Firefox,
}

impl BrowserKind {
    /// Every kind, in the order they are documented.
    pub const ALL: [BrowserKind; 2] = [BrowserKind::Chromium, BrowserKind::Firefox];

    /// The name a setting takes (`browser = "firefox"`).
    pub fn as_str(self) -> &'static str {
        match self {
            BrowserKind::Chromium => "chromium",
            BrowserKind::Firefox => "firefox",
        }
    }

    /// The browser's and its driver's names, as a person knows them.
    pub fn names(self) -> Names {
        self.backend().names()
    }
}

impl std::str::FromStr for BrowserKind {
    type Err = String;

    /// `chromium` (or `chrome`) and `firefox`, in any case.
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.trim().to_ascii_lowercase().as_str() {
            "chromium" | "chrome" => Ok(BrowserKind::Chromium),
            "firefox" => Ok(BrowserKind::Firefox),
            other => Err(other.to_owned()),
        }
    }
}

impl std::fmt::Display for BrowserKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.names().browser)
    }
}

/// Whether a failed command's message says the browser died, in any driver's words.
pub(crate) fn says_browser_gone(message: &str) -> bool {
    BrowserKind::ALL
        .iter()
        .flat_map(|kind| kind.backend().gone_messages())
        .any(|gone| message.contains(gone))
}

/// A browser kind's names, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Names {
    /// The browser (`Chromium`).
    pub browser: &'static str,
    /// Its WebDriver implementation (`ChromeDriver`).
    pub driver: &'static str,
}

/// The capabilities a session is opened with (WebDriver's `alwaysMatch` object).
pub type Capabilities = Map<String, Value>;

/// What a backend knows of a browser this process starts through its own driver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Local<'a> {
    /// The session's own profile directory, when it has one.
    pub profile: Option<&'a Path>,
    /// The browser executable, when one was configured or found.
    pub binary: Option<&'a Path>,
}

/// A future a backend returns; boxed so that kinds can be picked at run time.
pub(crate) type BackendFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What one browser kind brings. One implementation per kind, each in its own module.
pub(crate) trait Backend: Sync {
    fn names(&self) -> Names;

    /// The driver executable: the configured one, else the first found where this browser's
    /// packages put it. The error says what to set or install.
    fn driver(&self, config: &BrowserConfig) -> Result<PathBuf, BrowserError>;

    /// The driver's arguments to serve WebDriver on `port`, to this machine only.
    fn driver_args(&self, port: u16) -> Vec<String>;

    /// The browser executable, configured or found; `None` leaves the choice to the driver.
    fn browser_binary(&self, config: &BrowserConfig) -> Option<PathBuf>;

    /// The browser's own capabilities (its name and vendor options); `local` when this process
    /// started the driver. WebDriver's standard capabilities are added by the caller.
    fn capabilities(&self, config: &BrowserConfig, local: Option<Local<'_>>) -> Capabilities;

    /// What this browser's driver says in a failed command when the browser itself has died
    /// under the session (beyond WebDriver's `invalid session id`).
    fn gone_messages(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether one driver process serves one session only (geckodriver): each session then
    /// gets a driver of its own, which ends with it.
    fn one_session_per_driver(&self) -> bool {
        false
    }

    /// What to check when the driver answers but opens no session.
    fn session_help(&self) -> &'static str;

    /// The network error code in the message of a navigation command that failed
    /// (`ERR_CONNECTION_REFUSED`), when the message carries one.
    fn navigation_error(&self, message: &str) -> Option<String>;

    /// The script that tells what the page just opened is (made by `scripts::opened` from
    /// the backend's expression for its own error page).
    fn opened_js(&self) -> &'static str;

    /// Deletes every cookie and the storage of `origins`: the part of a session's reset that is
    /// the browser's own (the current page's storage is cleared and `about:blank` opened by the
    /// shared reset).
    fn clear_browsing_data<'a>(
        &'a self,
        session: &'a Session,
        origins: Vec<String>,
    ) -> BackendFuture<'a, Result<(), BrowserError>>;

    /// Makes every answer from the network arrive `latency` late (`None`: as fast as it
    /// comes), so that a double click lands before the first click's answer, as on a slow
    /// connection. `false` when this browser cannot, and a double click is then only as
    /// fast as the machine.
    fn slow_network<'a>(
        &'a self,
        _session: &'a Session,
        _latency: Option<std::time::Duration>,
    ) -> BackendFuture<'a, Result<bool, BrowserError>> {
        Box::pin(async { Ok(false) })
    }

    /// Has the browser run `js` in every new document of the session (frames too), before the
    /// page's own scripts, from now on and across resets; the script's id when it will. A
    /// backend that cannot answers `None`, and the caller injects the script where it needs it.
    fn install_init_script<'a>(
        &'a self,
        _session: &'a Session,
        _js: &'a str,
    ) -> BackendFuture<'a, Result<Option<String>, BrowserError>> {
        Box::pin(async { Ok(None) })
    }

    /// Stops running an installed script (by its id) in new documents.
    fn remove_init_script<'a>(
        &'a self,
        _session: &'a Session,
        _id: &'a str,
    ) -> BackendFuture<'a, Result<(), BrowserError>> {
        Box::pin(async { Ok(()) })
    }
}
