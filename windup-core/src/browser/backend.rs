//! Browser kinds. Each kind is a backend that owns everything that differs between browsers: how
//! its driver and executable are found and the driver started, the capabilities a session asks
//! for, how a page that did not open shows, and how a session is wiped between scenarios. Shared
//! code asks the backend; it never asks which browser it is talking to.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use serde_json::{Map, Value};

use super::chromium::Chromium;
use super::{BrowserConfig, BrowserError, Session};

/// Which browser Windup drives. Chromium (through chromedriver) is the only kind today.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BrowserKind {
    #[default]
    Chromium,
}

impl BrowserKind {
    /// The one place a kind picks its backend.
    pub(crate) fn backend(self) -> &'static dyn Backend {
        match self {
            BrowserKind::Chromium => &Chromium,
        }
    }

    /// The browser's and its driver's names, as a person knows them.
    pub fn names(self) -> Names {
        self.backend().names()
    }
}

impl std::fmt::Display for BrowserKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.names().browser)
    }
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

    /// What to check when the driver answers but opens no session.
    fn session_help(&self) -> &'static str;

    /// The network error code in the message of a navigation command that failed
    /// (`ERR_CONNECTION_REFUSED`), when the message carries one.
    fn navigation_error(&self, message: &str) -> Option<String>;

    /// A script expression: the network error code when the page open now is the browser's own
    /// error page, else `null`.
    fn error_page_js(&self) -> &'static str;

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
