//! `windup.toml`, the environment and a front end's flags, validated once into [`Settings`].
//!
//! Read each source into a raw layer that keeps every value's origin (the file's line and
//! column, the variable, the flag), stack the layers (flag over environment over file over
//! default), then check every rule once on the values that won, each error naming the origin:
//! `windup.toml:3:12: …`, `WINDUP_WORKERS: …`, `--workers: …`. Nothing downstream re-checks.
//!
//! ```toml
//! base_url = "http://127.0.0.1:8080"   # optional
//! scenarios = "scenarios"               # default
//! workers = 2                           # default: 1
//! timeout_ms = 5000                     # default action timeout
//! allowed_origins = ["https://accounts.example"]
//! ignore_tags = ["fails-by-design"]     # listed, but run only when asked for
//! exclude = ["dashboard"]                # scenarios/dashboard/ is not run with the others
//! [browser]
//! headless = true
//! window = [1280, 900]
//! [llm]
//! provider = "openai"
//! max_usd_per_run = 5.0                # budgets; see LlmLimits for each default
//! [accounts.demo]                       # key -> the NAME of an env var holding the value
//! email = "DEMO_EMAIL"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use url::Url;

use crate::browser::{BrowserConfig, BrowserKind, Protocol};
use crate::model::secret::SecretValue;

mod env;
mod env_file;
mod file;
mod layer;
mod origin;
mod overrides;
mod validate;

#[cfg(test)]
mod tests;

pub use crate::llm::{LlmLimits, LlmSettings, Provider};
pub use env_file::{ENV_FILE, EnvFile, EnvFileError};
pub use overrides::Overrides;

/// The configuration file's name, in the project root.
pub const FILE_NAME: &str = "windup.toml";

/// Validated settings for a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The project root (the directory of `windup.toml`).
    pub root: PathBuf,
    /// Where the app under test runs; the test setup may supply it instead.
    pub base_url: Option<Url>,
    /// `root` joined with `scenarios` (default `scenarios`).
    pub scenarios_dir: PathBuf,
    /// Browser workers running scenarios in parallel.
    pub workers: usize,
    /// The default deadline of one action.
    pub timeout: Duration,
    /// Origins besides the base URL's that pages may navigate to, normalized `https://host[:port]`.
    pub allowed_origins: Vec<String>,
    /// Scenarios with any of these tags are listed but run only when asked for (`--ignored`).
    pub ignore_tags: Vec<String>,
    /// Directories under `scenarios_dir` whose scenarios are not run with the others (they
    /// target another app, and their own test runs them).
    pub exclude: Vec<PathBuf>,
    pub browser: BrowserSettings,
    pub llm: Option<LlmSettings>,
    /// Account -> key -> the NAME of the env var holding the value (never a value).
    pub accounts: BTreeMap<String, BTreeMap<String, String>>,
    /// `root/.windup/artifacts`: screenshots and other evidence.
    pub artifacts_dir: PathBuf,
    /// Whether plans may be saved (`WINDUP_UPDATE`; `no` under CI by default).
    pub update: UpdateMode,
    /// Reports to write after a run (`WINDUP_REPORT`, or `cargo windup run --report`).
    pub reports: Reports,
    /// `.env.local`, as [`Settings::load`] read it (empty otherwise): where account values the
    /// environment lacks are found.
    pub env_file: EnvFile,
}

/// Which reports a run writes, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reports {
    pub junit: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

impl Reports {
    /// Parses `junit=PATH,json=PATH,html=PATH` (any of them, in any order); relative paths are
    /// taken from `base`.
    pub fn parse(spec: &str, base: &Path) -> Result<Reports, String> {
        let mut reports = Reports::default();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((kind, path)) = part.split_once('=') else {
                return Err(format!(
                    "{part:?} is not KIND=PATH; write e.g. `junit=target/windup.xml,html=target/windup.html`"
                ));
            };
            let path = path.trim();
            if path.is_empty() {
                return Err(format!("{part:?} has no path"));
            }
            let slot = match kind.trim().to_ascii_lowercase().as_str() {
                "junit" => &mut reports.junit,
                "json" => &mut reports.json,
                "html" => &mut reports.html,
                other => {
                    return Err(format!(
                        "unknown report {other:?}; the kinds are junit, json and html"
                    ));
                }
            };
            *slot = Some(base.join(path));
        }
        Ok(reports)
    }

    pub fn is_empty(&self) -> bool {
        self.junit.is_none() && self.json.is_none() && self.html.is_none()
    }

    /// Every path a report goes to.
    pub fn paths(&self) -> Vec<PathBuf> {
        [&self.junit, &self.json, &self.html]
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }
}

/// `[browser]`.
#[derive(Debug, Clone, PartialEq)]
pub struct BrowserSettings {
    /// Which browser to drive.
    pub kind: BrowserKind,
    pub headless: bool,
    /// A remote WebDriver; when set, no driver is started.
    pub webdriver_url: Option<String>,
    pub chromedriver: Option<PathBuf>,
    pub chrome: Option<PathBuf>,
    pub geckodriver: Option<PathBuf>,
    pub firefox: Option<PathBuf>,
    /// Width and height in CSS pixels.
    pub window: (u32, u32),
    /// Which protocol sessions speak: BiDi where the driver offers it (`auto`), BiDi or nothing,
    /// or Classic alone (docs/browsers.md#webdriver-bidi).
    pub protocol: Protocol,
}

impl Default for BrowserSettings {
    fn default() -> Self {
        BrowserSettings {
            kind: BrowserKind::default(),
            headless: true,
            webdriver_url: None,
            chromedriver: None,
            chrome: None,
            geckodriver: None,
            firefox: None,
            window: (1280, 900),
            protocol: Protocol::default(),
        }
    }
}

/// Whether a run may write plans (`WINDUP_UPDATE`), like `INSTA_UPDATE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Save new plans and replace stale ones, as pending lockfiles.
    Auto,
    /// Save plans only for scenarios that have none.
    New,
    /// Re-plan and save every scenario.
    Always,
    /// Read-only: a missing or stale plan fails the test.
    No,
}

impl UpdateMode {
    /// How `WINDUP_UPDATE` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            UpdateMode::Auto => "auto",
            UpdateMode::New => "new",
            UpdateMode::Always => "always",
            UpdateMode::No => "no",
        }
    }
}

/// Configuration that cannot be used, naming where the value came from: the file (with line
/// and column), the environment variable or the command-line flag.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A problem inside `windup.toml`.
    #[error("{}", crate::model::located::located(.path, *.line, *.column, .message, .hint))]
    File {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: String,
    },
    /// An environment variable (or a line of `.env.local`) with a value Windup cannot use.
    #[error("{var}: {message}\n  hint: {hint}")]
    Env {
        var: String,
        value: String,
        message: String,
        hint: String,
    },
    /// A command-line flag ([`Overrides`]) with a value Windup cannot use.
    #[error("{flag}: {message}\n  hint: {hint}")]
    Flag {
        flag: String,
        value: String,
        message: String,
        hint: String,
    },
    /// `windup.toml` or `.env.local` exists but cannot be read.
    #[error(
        "cannot read {path}: {message}\n  hint: check the file's permissions, or remove it to use the defaults",
        path = .path.display()
    )]
    Read { path: PathBuf, message: String },
}

impl Settings {
    /// Reads `root/windup.toml` when it exists (defaults otherwise), then the process
    /// environment, then `root/.env.local` for what the environment does not set.
    pub fn load(root: &Path) -> Result<Settings, ConfigError> {
        Settings::load_with(root, &Overrides::default())
    }

    /// The same with a front end's flags over the environment and the file; precedence is
    /// flag, then environment (then `.env.local`), then `windup.toml`, then the default.
    pub fn load_with(root: &Path, overrides: &Overrides) -> Result<Settings, ConfigError> {
        let path = root.join(FILE_NAME);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => Some(text),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                return Err(ConfigError::Read {
                    path,
                    message: err.to_string(),
                });
            }
        };
        let file = EnvFile::load(root).map_err(|err| ConfigError::Read {
            path: err.path.clone(),
            message: err.message.clone(),
        })?;
        let env = |name: &str| file.var(name);
        let mut settings = Settings::from_sources(root, text.as_deref(), &env, overrides)?;
        settings.env_file = file;
        Ok(settings)
    }

    /// [`Settings::load`] with the file's text and the environment given (tests pin both).
    pub fn from_parts(
        root: &Path,
        toml_text: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        Settings::from_sources(root, toml_text, env, &Overrides::default())
    }

    /// [`Settings::load_with`] with the file's text and the environment given: each source
    /// read into a layer with the origin of every value, the layers stacked, then every rule
    /// checked once on the values that won. Blank variables count as unset.
    pub fn from_sources(
        root: &Path,
        toml_text: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
        overrides: &Overrides,
    ) -> Result<Settings, ConfigError> {
        let path = root.join(FILE_NAME);
        let env = |name: &str| env(name).filter(|value| !value.trim().is_empty());
        let file = match toml_text {
            Some(text) => file::File { path: &path, text }.read()?,
            None => layer::Layer::default(),
        };
        let layer = overrides.layer().over(env::read(&env).over(file));
        let mut settings = validate::Rules { file: &path, root }.settings(layer)?;
        if let Some(llm) = &mut settings.llm {
            llm.api_key = api_key(llm, &env);
        }
        Ok(settings)
    }

    /// The browser settings as the browser layer takes them.
    pub fn browser_config(&self) -> BrowserConfig {
        BrowserConfig {
            kind: self.browser.kind,
            headless: self.browser.headless,
            window_width: self.browser.window.0,
            window_height: self.browser.window.1,
            webdriver_url: self.browser.webdriver_url.clone(),
            chromedriver: self.browser.chromedriver.clone(),
            chrome_binary: self.browser.chrome.clone(),
            geckodriver: self.browser.geckodriver.clone(),
            firefox_binary: self.browser.firefox.clone(),
            protocol: self.browser.protocol,
            ..BrowserConfig::default()
        }
    }
}

/// The provider's key, read with the rest of the environment and held as a secret from here on.
fn api_key(llm: &LlmSettings, env: &dyn Fn(&str) -> Option<String>) -> Option<SecretValue> {
    let variable = llm
        .api_key_env
        .as_deref()
        .or(llm.provider.default_key_env())?;
    env(variable).map(|key| SecretValue::new(key.trim()))
}
