//! `windup.toml` plus the environment, parsed and validated once into [`Settings`].
//!
//! Parse (TOML into raw, spanned values), then validate (every rule, each error located in the
//! file or naming the environment variable), then use: nothing downstream re-checks.
//!
//! ```toml
//! base_url = "http://127.0.0.1:8080"   # optional
//! scenarios = "scenarios"               # default
//! workers = 2                           # default: 1
//! timeout_ms = 5000                     # default action timeout
//! allowed_origins = ["https://accounts.example"]
//! ignore_tags = ["fails-by-design"]     # listed, but run only when asked for
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
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;
use url::Url;

use crate::browser::BrowserConfig;
use crate::steps::suggest::{closest, parse_unknown_field};

#[cfg(test)]
mod tests;

/// The configuration file's name, in the project root.
pub const FILE_NAME: &str = "windup.toml";

/// The LLM providers `[llm] provider` and `WINDUP_LLM` accept.
pub const PROVIDERS: &[&str] = &["openai", "gemini", "anthropic", "openai-compatible"];

const MAX_WORKERS: usize = 64;
const MAX_TIMEOUT_MS: u64 = 120_000;
const WIDTH: Range<u32> = 320..7681;
const HEIGHT: Range<u32> = 240..4321;

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
    pub env_file: crate::secrets::EnvFile,
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
    pub headless: bool,
    /// A remote WebDriver; when set, no driver is started.
    pub webdriver_url: Option<String>,
    pub chromedriver: Option<PathBuf>,
    pub chrome: Option<PathBuf>,
    /// Width and height in CSS pixels.
    pub window: (u32, u32),
}

impl Default for BrowserSettings {
    fn default() -> Self {
        BrowserSettings {
            headless: true,
            webdriver_url: None,
            chromedriver: None,
            chrome: None,
            window: (1280, 900),
        }
    }
}

/// `[llm]`: parsed and validated here, used by the LLM planner.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    /// One of [`PROVIDERS`].
    pub provider: String,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The NAME of the env var holding the API key.
    pub api_key_env: Option<String>,
    /// The key, read from that variable (or the provider's default one) when the settings
    /// were loaded; never printed.
    pub api_key: Option<crate::llm::Secret>,
    /// Budgets, deadlines and retry bounds.
    pub limits: LlmLimits,
}

impl LlmSettings {
    /// A provider with no model, base URL or key variable named, and the default limits.
    pub fn new(provider: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            model: None,
            base_url: None,
            api_key_env: None,
            api_key: None,
            limits: LlmLimits::default(),
        }
    }
}

/// What model calls may cost and how long they may take. Going over a budget fails the
/// scenario before the call that would go over is made.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmLimits {
    /// Model calls one scenario may make, semantic retries included (`max_calls_per_scenario`).
    pub max_calls_per_scenario: u32,
    /// Model calls one run (a `cargo windup run`, a test binary) may make (`max_calls_per_run`).
    pub max_calls_per_run: u32,
    /// USD one scenario's calls may cost, at the price table's rates (`max_usd_per_scenario`).
    pub max_usd_per_scenario: f64,
    /// USD one run's calls may cost (`max_usd_per_run`).
    pub max_usd_per_run: f64,
    /// The deadline of one HTTP call (`timeout_ms`).
    pub timeout: Duration,
    /// Retries of a call that failed in transit: 429, 5xx, a timeout, a dropped connection
    /// (`retries`).
    pub retries: u32,
    /// New calls after an answer that was not a working plan, with its problems fed back
    /// (`semantic_retries`).
    pub semantic_retries: u32,
    /// The most output tokens one answer may use (`max_output_tokens`).
    pub max_output_tokens: u32,
}

impl Default for LlmLimits {
    fn default() -> Self {
        Self {
            max_calls_per_scenario: 3,
            max_calls_per_run: 50,
            max_usd_per_scenario: 0.50,
            max_usd_per_run: 5.00,
            timeout: Duration::from_secs(60),
            retries: 3,
            semantic_retries: 2,
            max_output_tokens: 4096,
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

/// Configuration that cannot be used, naming the file (with line and column) or the variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A problem inside `windup.toml`.
    #[error("{}", crate::scenario::located(.path, *.line, *.column, .message, .hint))]
    File {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: String,
    },
    /// An environment variable with a value Windup cannot use.
    #[error("environment variable {var}={value:?}: {message}\n  hint: {hint}")]
    Env {
        var: String,
        value: String,
        message: String,
        hint: String,
    },
    /// `windup.toml` exists but cannot be read.
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
        let file = crate::secrets::EnvFile::load(root).map_err(|err| ConfigError::Read {
            path: err.path.clone(),
            message: err.message.clone(),
        })?;
        let mut settings =
            Settings::from_parts(root, text.as_deref(), &|name: &str| file.var(name))?;
        settings.env_file = file;
        Ok(settings)
    }

    /// The same with the file's text and the environment given (tests pin both).
    pub fn from_parts(
        root: &Path,
        toml_text: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Settings, ConfigError> {
        let file = File {
            path: root.join(FILE_NAME),
            text: toml_text.unwrap_or_default(),
        };
        let raw: RawConfig = match toml_text {
            Some(text) => toml::from_str(text).map_err(|err| file.toml_error(&err))?,
            None => RawConfig::default(),
        };
        let mut settings = file.validate(root, raw)?;
        apply_env(&mut settings, &|name| {
            env(name).filter(|value| !value.trim().is_empty())
        })?;
        Ok(settings)
    }

    /// The browser settings as the browser layer takes them.
    pub fn browser_config(&self) -> BrowserConfig {
        BrowserConfig {
            headless: self.browser.headless,
            window_width: self.browser.window.0,
            window_height: self.browser.window.1,
            webdriver_url: self.browser.webdriver_url.clone(),
            chromedriver: self.browser.chromedriver.clone(),
            chrome_binary: self.browser.chrome.clone(),
            ..BrowserConfig::default()
        }
    }
}

/// The raw shape of `windup.toml`, before any check.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    base_url: Option<Spanned<String>>,
    scenarios: Option<Spanned<String>>,
    workers: Option<Spanned<i64>>,
    timeout_ms: Option<Spanned<i64>>,
    allowed_origins: Option<Vec<Spanned<String>>>,
    ignore_tags: Option<Vec<Spanned<String>>>,
    browser: Option<RawBrowser>,
    llm: Option<Spanned<RawLlm>>,
    accounts: Option<RawAccounts>,
}

/// Account name -> key -> env var name, each with its place in the file.
type RawAccounts = BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<String>>>;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBrowser {
    headless: Option<bool>,
    webdriver_url: Option<Spanned<String>>,
    chromedriver: Option<Spanned<String>>,
    chrome: Option<Spanned<String>>,
    window: Option<Spanned<Vec<i64>>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLlm {
    provider: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    base_url: Option<Spanned<String>>,
    api_key_env: Option<Spanned<String>>,
    max_calls_per_scenario: Option<Spanned<i64>>,
    max_calls_per_run: Option<Spanned<i64>>,
    max_usd_per_scenario: Option<Spanned<f64>>,
    max_usd_per_run: Option<Spanned<f64>>,
    timeout_ms: Option<Spanned<i64>>,
    retries: Option<Spanned<i64>>,
    semantic_retries: Option<Spanned<i64>>,
    max_output_tokens: Option<Spanned<i64>>,
}

/// `windup.toml`, for locating errors.
struct File<'a> {
    path: PathBuf,
    text: &'a str,
}

impl File<'_> {
    fn error(
        &self,
        span: Range<usize>,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> ConfigError {
        let (line, column) = line_column(self.text, span.start);
        ConfigError::File {
            path: self.path.clone(),
            line,
            column,
            message: message.into(),
            hint: hint.into(),
        }
    }

    fn toml_error(&self, err: &toml::de::Error) -> ConfigError {
        let span = err.span().unwrap_or(0..0);
        let message = err.message().trim();
        if let Some((key, expected)) = parse_unknown_field(message) {
            let mut hint = if expected.is_empty() {
                "this table takes no keys".to_owned()
            } else {
                format!("valid keys here: {}", expected.join(", "))
            };
            if let Some(near) = closest(&key, &expected) {
                hint.push_str(&format!("; did you mean `{near}`?"));
            }
            return self.error(span, format!("unknown key `{key}`"), hint);
        }
        if message.starts_with("invalid type") || message.starts_with("invalid value") {
            let key = key_on_line(self.text, span.start);
            let message = without_value(message)
                .replace("expected i64", "expected a whole number")
                .replace("expected a boolean", "expected true or false");
            return match key {
                Some(key) => self.error(span, format!("`{key}`: {message}"), key_hint(key)),
                None => self.error(span, message, "check the value's type"),
            };
        }
        self.error(
            span,
            format!("invalid TOML: {message}"),
            "check the syntax here; strings need double quotes, e.g. `base_url = \"http://127.0.0.1:8080\"`",
        )
    }

    fn validate(&self, root: &Path, raw: RawConfig) -> Result<Settings, ConfigError> {
        let base_url = raw
            .base_url
            .map(|value| {
                http_url(value.get_ref()).map_err(|problem| {
                    self.error(
                        value.span(),
                        format!("`base_url` {problem}"),
                        "write an http(s) URL, e.g. `base_url = \"http://127.0.0.1:8080\"`",
                    )
                })
            })
            .transpose()?;

        let scenarios = match raw.scenarios {
            Some(value) if value.get_ref().trim().is_empty() => {
                return Err(self.error(
                    value.span(),
                    "`scenarios` is empty",
                    "name the scenarios directory relative to windup.toml, e.g. `scenarios = \"scenarios\"`",
                ));
            }
            Some(value) => value.into_inner(),
            None => "scenarios".to_owned(),
        };

        let workers = match raw.workers {
            Some(value) => match usize::try_from(*value.get_ref()) {
                Ok(n) if (1..=MAX_WORKERS).contains(&n) => n,
                _ => {
                    return Err(self.error(
                        value.span(),
                        format!("`workers` must be from 1 to {MAX_WORKERS}, found {}", value.get_ref()),
                        "each worker is one browser; 1 to 4 suits most machines, e.g. `workers = 2`",
                    ));
                }
            },
            None => 1,
        };

        let timeout = match raw.timeout_ms {
            Some(value) => match u64::try_from(*value.get_ref()) {
                Ok(ms) if (1..=MAX_TIMEOUT_MS).contains(&ms) => Duration::from_millis(ms),
                _ => {
                    return Err(self.error(
                        value.span(),
                        format!(
                            "`timeout_ms` must be from 1 to {MAX_TIMEOUT_MS}, found {}",
                            value.get_ref()
                        ),
                        "it is the deadline of one action in milliseconds, e.g. `timeout_ms = 5000`",
                    ));
                }
            },
            None => Duration::from_millis(5000),
        };

        let mut allowed_origins: Vec<String> = Vec::new();
        for value in raw.allowed_origins.unwrap_or_default() {
            let origin = normalize_origin(value.get_ref()).map_err(|problem| {
                self.error(
                    value.span(),
                    format!("`allowed_origins`: {:?} {problem}", value.get_ref()),
                    "write origins as scheme, host and optional port, e.g. `\"https://accounts.example\"`",
                )
            })?;
            if !allowed_origins.contains(&origin) {
                allowed_origins.push(origin);
            }
        }

        let mut ignore_tags: Vec<String> = Vec::new();
        for value in raw.ignore_tags.unwrap_or_default() {
            let tag = value.get_ref();
            if tag.is_empty() || tag.chars().any(char::is_whitespace) {
                return Err(self.error(
                    value.span(),
                    format!("`ignore_tags`: invalid tag {tag:?}"),
                    "tags are single words as scenarios write them, e.g. `ignore_tags = [\"slow\"]`",
                ));
            }
            if !ignore_tags.contains(tag) {
                ignore_tags.push(tag.clone());
            }
        }

        let browser = self.browser(raw.browser.unwrap_or_default())?;
        let llm = raw.llm.map(|llm| self.llm(llm)).transpose()?;
        let accounts = self.accounts(raw.accounts.unwrap_or_default())?;

        Ok(Settings {
            root: root.to_owned(),
            base_url,
            scenarios_dir: root.join(scenarios),
            workers,
            timeout,
            allowed_origins,
            ignore_tags,
            browser,
            llm,
            accounts,
            artifacts_dir: root.join(".windup").join("artifacts"),
            reports: Reports::default(),
            update: UpdateMode::Auto,
            env_file: Default::default(),
        })
    }

    fn browser(&self, raw: RawBrowser) -> Result<BrowserSettings, ConfigError> {
        let defaults = BrowserSettings::default();
        let webdriver_url = raw
            .webdriver_url
            .map(|value| {
                http_url(value.get_ref())
                    .map(|_| value.get_ref().trim().to_owned())
                    .map_err(|problem| {
                        self.error(
                            value.span(),
                            format!("`webdriver_url` {problem}"),
                            "write the WebDriver's http(s) URL, e.g. `webdriver_url = \"http://localhost:4444\"`",
                        )
                    })
            })
            .transpose()?;
        let window = match raw.window {
            Some(value) => {
                let size = match value.get_ref().as_slice() {
                    [w, h] => u32::try_from(*w)
                        .ok()
                        .zip(u32::try_from(*h).ok())
                        .filter(|(w, h)| WIDTH.contains(w) && HEIGHT.contains(h)),
                    _ => None,
                };
                size.ok_or_else(|| {
                    self.error(
                        value.span(),
                        format!(
                            "`window` must be [width, height] with width {} to {} and height {} to {}",
                            WIDTH.start,
                            WIDTH.end - 1,
                            HEIGHT.start,
                            HEIGHT.end - 1
                        ),
                        "e.g. `window = [1280, 900]`",
                    )
                })?
            }
            None => defaults.window,
        };
        Ok(BrowserSettings {
            headless: raw.headless.unwrap_or(defaults.headless),
            webdriver_url,
            chromedriver: self.path_value("chromedriver", raw.chromedriver)?,
            chrome: self.path_value("chrome", raw.chrome)?,
            window,
        })
    }

    fn path_value(
        &self,
        key: &str,
        value: Option<Spanned<String>>,
    ) -> Result<Option<PathBuf>, ConfigError> {
        match value {
            Some(value) if value.get_ref().trim().is_empty() => Err(self.error(
                value.span(),
                format!("`{key}` is empty"),
                format!("give the executable's path, or remove `{key}` to find it on PATH"),
            )),
            Some(value) => Ok(Some(PathBuf::from(value.into_inner()))),
            None => Ok(None),
        }
    }

    fn llm(&self, raw: Spanned<RawLlm>) -> Result<LlmSettings, ConfigError> {
        let table = raw.span();
        let raw = raw.into_inner();
        let Some(provider) = raw.provider else {
            return Err(self.error(
                table,
                "[llm] has no `provider`",
                format!(
                    "add `provider = \"openai\"` (one of {})",
                    PROVIDERS.join(", ")
                ),
            ));
        };
        let provider = provider_name(provider.get_ref()).ok_or_else(|| {
            self.error(
                provider.span(),
                format!("unknown provider {:?}", provider.get_ref()),
                provider_hint(provider.get_ref()),
            )
        })?;
        let model = match raw.model {
            Some(value) if value.get_ref().trim().is_empty() => {
                return Err(self.error(
                    value.span(),
                    "`model` is empty",
                    "name the model, e.g. `model = \"gpt-4.1-mini\"`, or remove the key for the provider's default",
                ));
            }
            other => other.map(Spanned::into_inner),
        };
        let base_url = raw
            .base_url
            .map(|value| {
                http_url(value.get_ref())
                    .map(|_| value.get_ref().trim().to_owned())
                    .map_err(|problem| {
                        self.error(
                            value.span(),
                            format!("`base_url` {problem}"),
                            "write the API's http(s) URL, e.g. `base_url = \"http://localhost:11434/v1\"`",
                        )
                    })
            })
            .transpose()?;
        let api_key_env = raw
            .api_key_env
            .map(|value| {
                if is_env_name(value.get_ref()) {
                    Ok(value.into_inner())
                } else {
                    Err(self.error(
                        value.span(),
                        "`api_key_env` must be the name of an environment variable",
                        "name the variable that holds the key, e.g. `api_key_env = \"OPENAI_API_KEY\"`; never the key itself",
                    ))
                }
            })
            .transpose()?;
        if provider == "openai-compatible" && base_url.is_none() {
            return Err(self.error(
                table,
                "provider \"openai-compatible\" needs `base_url`",
                "add the server's URL, e.g. `base_url = \"http://localhost:11434/v1\"`",
            ));
        }
        let defaults = LlmLimits::default();
        let count = |value: Option<Spanned<i64>>, name: &str, range: Range<i64>, default: u32| {
            match value {
                None => Ok(default),
                Some(value) if range.contains(value.get_ref()) => {
                    Ok(u32::try_from(*value.get_ref()).unwrap_or(default))
                }
                Some(value) => Err(self.error(
                    value.span(),
                    format!(
                        "`{name}` must be from {} to {}, found {}",
                        range.start,
                        range.end - 1,
                        value.get_ref()
                    ),
                    format!("e.g. `{name} = {default}`"),
                )),
            }
        };
        let usd = |value: Option<Spanned<f64>>, name: &str, default: f64| match value {
            None => Ok(default),
            Some(value) if value.get_ref().is_finite() && *value.get_ref() >= 0.0 => {
                Ok(*value.get_ref())
            }
            Some(value) => Err(self.error(
                value.span(),
                format!("`{name}` must be a number of US dollars, 0 or more"),
                format!("e.g. `{name} = {default:.2}`; 0 forbids model calls"),
            )),
        };
        let limits = LlmLimits {
            max_calls_per_scenario: count(
                raw.max_calls_per_scenario,
                "max_calls_per_scenario",
                0..101,
                defaults.max_calls_per_scenario,
            )?,
            max_calls_per_run: count(
                raw.max_calls_per_run,
                "max_calls_per_run",
                0..100_001,
                defaults.max_calls_per_run,
            )?,
            max_usd_per_scenario: usd(
                raw.max_usd_per_scenario,
                "max_usd_per_scenario",
                defaults.max_usd_per_scenario,
            )?,
            max_usd_per_run: usd(
                raw.max_usd_per_run,
                "max_usd_per_run",
                defaults.max_usd_per_run,
            )?,
            timeout: Duration::from_millis(u64::from(count(
                raw.timeout_ms,
                "timeout_ms",
                1..600_001,
                60_000,
            )?)),
            retries: count(raw.retries, "retries", 0..11, defaults.retries)?,
            semantic_retries: count(
                raw.semantic_retries,
                "semantic_retries",
                0..6,
                defaults.semantic_retries,
            )?,
            max_output_tokens: count(
                raw.max_output_tokens,
                "max_output_tokens",
                256..65_537,
                defaults.max_output_tokens,
            )?,
        };
        Ok(LlmSettings {
            provider: provider.to_owned(),
            model,
            base_url,
            api_key_env,
            api_key: None,
            limits,
        })
    }

    fn accounts(
        &self,
        raw: RawAccounts,
    ) -> Result<BTreeMap<String, BTreeMap<String, String>>, ConfigError> {
        let mut accounts = BTreeMap::new();
        for (name, keys) in raw {
            if !is_account_name(name.get_ref()) {
                return Err(self.error(
                    name.span(),
                    format!("invalid account name {:?}", name.get_ref()),
                    "account names use letters, digits, `_` and `-`, e.g. `[accounts.demo]`",
                ));
            }
            let mut vars = BTreeMap::new();
            for (key, var) in keys {
                if !is_env_name(key.get_ref()) {
                    return Err(self.error(
                        key.span(),
                        format!("invalid account key {:?} in [accounts.{}]", key.get_ref(), name.get_ref()),
                        "account keys use letters, digits and `_`, and do not start with a digit, e.g. `email`",
                    ));
                }
                if !is_env_name(var.get_ref()) {
                    return Err(self.error(
                        var.span(),
                        // The value is not echoed: it may be the secret itself.
                        format!(
                            "`{}` in [accounts.{}] must be the name of an environment variable",
                            key.get_ref(),
                            name.get_ref()
                        ),
                        format!(
                            "write the NAME of the variable holding the value, e.g. `{} = \"DEMO_{}\"`; never the secret itself",
                            key.get_ref(),
                            key.get_ref().to_ascii_uppercase()
                        ),
                    ));
                }
                vars.insert(key.into_inner(), var.into_inner());
            }
            accounts.insert(name.into_inner(), vars);
        }
        Ok(accounts)
    }
}

/// Overrides from the environment; `env` yields only non-empty values.
fn apply_env(
    settings: &mut Settings,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), ConfigError> {
    let bad = |var: &str, value: &str, message: &str, hint: &str| ConfigError::Env {
        var: var.to_owned(),
        value: value.to_owned(),
        message: message.to_owned(),
        hint: hint.to_owned(),
    };

    if let Some(value) = env("WINDUP_BASE_URL") {
        let url = http_url(&value).map_err(|problem| {
            bad(
                "WINDUP_BASE_URL",
                &value,
                &format!("the base URL {problem}"),
                "set it to the app's http(s) URL, e.g. WINDUP_BASE_URL=http://127.0.0.1:8080",
            )
        })?;
        settings.base_url = Some(url);
    }
    if let Some(value) = env("WINDUP_WEBDRIVER_URL") {
        http_url(&value).map_err(|problem| {
            bad(
                "WINDUP_WEBDRIVER_URL",
                &value,
                &format!("the WebDriver URL {problem}"),
                "set it to a WebDriver's http(s) URL, e.g. WINDUP_WEBDRIVER_URL=http://localhost:4444",
            )
        })?;
        settings.browser.webdriver_url = Some(value.trim().to_owned());
    }
    if let Some(value) = env("WINDUP_HEADED") {
        settings.browser.headless = match value.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" => false,
            "0" | "false" | "no" => true,
            _ => {
                return Err(bad(
                    "WINDUP_HEADED",
                    &value,
                    "expected 1, true or yes (show the browser window) or 0, false or no (hide it)",
                    "e.g. WINDUP_HEADED=1",
                ));
            }
        };
    }
    if let Some(value) = env("WINDUP_WORKERS") {
        settings.workers = match value.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_WORKERS).contains(&n) => n,
            _ => {
                return Err(bad(
                    "WINDUP_WORKERS",
                    &value,
                    &format!("expected a whole number from 1 to {MAX_WORKERS}"),
                    "each worker is one browser, e.g. WINDUP_WORKERS=2",
                ));
            }
        };
    }
    if let Some(value) = env("WINDUP_CHROMEDRIVER") {
        settings.browser.chromedriver = Some(PathBuf::from(value));
    }
    if let Some(value) = env("WINDUP_CHROME") {
        settings.browser.chrome = Some(PathBuf::from(value));
    }
    if let Some(value) = env("WINDUP_LLM") {
        let provider = provider_name(&value).ok_or_else(|| {
            bad(
                "WINDUP_LLM",
                &value,
                "unknown LLM provider",
                &provider_hint(&value),
            )
        })?;
        match &mut settings.llm {
            Some(llm) => llm.provider = provider.to_owned(),
            None => settings.llm = Some(LlmSettings::new(provider)),
        }
        if provider == "openai-compatible"
            && settings
                .llm
                .as_ref()
                .is_some_and(|llm| llm.base_url.is_none())
        {
            return Err(bad(
                "WINDUP_LLM",
                &value,
                "provider openai-compatible needs a base URL",
                "set `base_url` under [llm] in windup.toml, e.g. `base_url = \"http://localhost:11434/v1\"`",
            ));
        }
    }
    if let Some(value) = env("WINDUP_MODEL") {
        match &mut settings.llm {
            Some(llm) => llm.model = Some(value.trim().to_owned()),
            None => {
                return Err(bad(
                    "WINDUP_MODEL",
                    &value,
                    "a model is set but no LLM provider is configured",
                    &format!(
                        "also set WINDUP_LLM (one of {}) or add [llm] provider to windup.toml",
                        PROVIDERS.join(", ")
                    ),
                ));
            }
        }
    }
    if let Some(llm) = &mut settings.llm {
        // The key is read here, with the rest of the environment, and held as a secret.
        let variable = llm
            .api_key_env
            .clone()
            .or_else(|| crate::llm::default_key_env(&llm.provider).map(str::to_owned));
        llm.api_key = variable
            .as_deref()
            .and_then(env)
            .filter(|key| !key.trim().is_empty())
            .map(|key| crate::llm::Secret::new(key.trim()));
    }
    if let Some(value) = env("WINDUP_REPORT") {
        settings.reports = Reports::parse(&value, &settings.root).map_err(|problem| {
            bad(
                "WINDUP_REPORT",
                &value,
                &problem,
                "e.g. WINDUP_REPORT=junit=target/windup.xml,json=target/windup.json,html=target/windup.html",
            )
        })?;
    }
    let ci = env("CI")
        .is_some_and(|value| !matches!(value.trim().to_ascii_lowercase().as_str(), "false" | "0"));
    settings.update = match env("WINDUP_UPDATE") {
        Some(value) => match value.trim().to_ascii_lowercase().as_str() {
            "auto" => UpdateMode::Auto,
            "new" => UpdateMode::New,
            "always" => UpdateMode::Always,
            "no" => UpdateMode::No,
            _ => {
                return Err(bad(
                    "WINDUP_UPDATE",
                    &value,
                    "expected auto, new, always or no",
                    "auto saves new and changed plans, new only new ones, always re-plans everything, no never writes (the default under CI)",
                ));
            }
        },
        None if ci => UpdateMode::No,
        None => UpdateMode::Auto,
    };
    Ok(())
}

/// Parses an absolute http(s) URL with a host, or says what is wrong with it.
fn http_url(value: &str) -> Result<Url, String> {
    let url = Url::parse(value.trim()).map_err(|err| format!("is not a URL ({err}): {value:?}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(format!("must be an http(s) URL, found {value:?}"));
    }
    Ok(url)
}

/// `https://Accounts.Example:443/` → `https://accounts.example`.
fn normalize_origin(value: &str) -> Result<String, String> {
    let url = http_url(value).map_err(|_| "is not an http(s) origin".to_owned())?;
    if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
        return Err(
            "has a path, query or fragment; an origin is scheme, host and port only".to_owned(),
        );
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("has credentials; an origin is scheme, host and port only".to_owned());
    }
    Ok(url.origin().ascii_serialization())
}

fn provider_name(value: &str) -> Option<&'static str> {
    let value = value.trim();
    PROVIDERS
        .iter()
        .copied()
        .find(|p| p.eq_ignore_ascii_case(value))
}

fn provider_hint(value: &str) -> String {
    let mut hint = format!("use one of {}", PROVIDERS.join(", "));
    if let Some(near) = closest(value.trim(), PROVIDERS) {
        hint.push_str(&format!("; did you mean `{near}`?"));
    }
    hint
}

/// serde's ``invalid type: string "x", expected i64`` without the value (it may be a secret
/// written where a variable name belongs): ``expected i64, found a string``.
fn without_value(message: &str) -> String {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "));
    match rest.and_then(|rest| rest.split_once(", expected ")) {
        Some((found, expected)) => {
            let kind = found.split(['"', '`']).next().unwrap_or(found).trim();
            format!("expected {expected}, found {}", with_article(kind))
        }
        None => message.to_owned(),
    }
}

fn with_article(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        Some(_) => format!("a {kind}"),
        None => "a value".to_owned(),
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*`
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `[A-Za-z0-9_-]+`, as scenarios name accounts.
fn is_account_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn key_hint(key: &str) -> &'static str {
    match key {
        "base_url" | "webdriver_url" => "write a quoted http(s) URL",
        "scenarios" => "write the directory as a quoted path, e.g. `scenarios = \"scenarios\"`",
        "workers" => "write a whole number without quotes, e.g. `workers = 2`",
        "timeout_ms" => "write milliseconds without quotes, e.g. `timeout_ms = 5000`",
        "allowed_origins" | "ignore_tags" => {
            "write a list of quoted strings, e.g. `[\"a\", \"b\"]`"
        }
        "headless" => "write `true` or `false` without quotes",
        "window" => "write `[width, height]`, e.g. `window = [1280, 900]`",
        _ => "write a quoted string, e.g. `key = \"value\"`",
    }
}

/// The key assigned on the line holding byte `offset` (`workers = "two"` → `workers`).
fn key_on_line(text: &str, offset: usize) -> Option<&str> {
    let offset = offset.min(text.len());
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?;
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    (!key.is_empty()).then_some(key)
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}
