//! Every rule, once per setting, on the value that won the stacking of flags, environment and
//! file. An error names that value's origin and says how that source writes a good value.

use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;

use url::Url;

use super::layer::{BrowserLayer, Layer, LlmLayer, RawAccount};
use super::origin::{Origin, Sourced, Written};
use super::{BrowserSettings, ConfigError, Reports, Settings, UpdateMode};
use crate::browser::{BrowserKind, Protocol};
use crate::llm::{LlmLimits, LlmSettings, Provider};
use crate::model::steps::suggest::closest;

const MAX_WORKERS: i64 = 64;
const MAX_TIMEOUT_MS: i64 = 120_000;
const WIDTH: RangeInclusive<i64> = 320..=7680;
const HEIGHT: RangeInclusive<i64> = 240..=4320;

type Checked<T> = Result<T, ConfigError>;

/// The rules, with what errors and paths are relative to.
pub(super) struct Rules<'a> {
    /// `windup.toml`, for errors located in it.
    pub(super) file: &'a Path,
    pub(super) root: &'a Path,
}

impl Rules<'_> {
    pub(super) fn settings(&self, layer: Layer) -> Checked<Settings> {
        let root = self.root;
        Ok(Settings {
            root: root.to_owned(),
            base_url: layer
                .base_url
                .as_ref()
                .map(|v| self.base_url(v))
                .transpose()?,
            scenarios_dir: root.join(self.scenarios(layer.scenarios.as_ref())?),
            workers: self.workers(layer.workers.as_ref())?,
            timeout: self.timeout(layer.timeout_ms.as_ref())?,
            allowed_origins: self.allowed_origins(layer.allowed_origins.unwrap_or_default())?,
            ignore_tags: self.ignore_tags(layer.ignore_tags.unwrap_or_default())?,
            exclude: self.exclude(layer.exclude.unwrap_or_default())?,
            browser: self.browser(&layer.browser)?,
            llm: self.llm(&layer.llm)?,
            accounts: self.accounts(layer.accounts.unwrap_or_default())?,
            artifacts_dir: root.join(".windup").join("artifacts"),
            update: self.update(layer.update.as_ref(), layer.ci)?,
            reports: match &layer.reports {
                Some(spec) => self.reports(spec)?,
                None => Reports::default(),
            },
            env_file: Default::default(),
        })
    }

    fn error(
        &self,
        at: &Origin,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> ConfigError {
        at.error(self.file, message, hint)
    }

    /// A whole number in `range`, however the source wrote it.
    fn whole(
        &self,
        value: &Sourced<Written<i64>>,
        key: &str,
        range: RangeInclusive<i64>,
        hint: String,
    ) -> Checked<i64> {
        let (low, high) = (range.start(), range.end());
        // Wider than any range, so that a huge flag or variable reads as out of range.
        let number = match &value.value {
            Written::Typed(n) => Ok(i128::from(*n)),
            Written::Text(text) => text.trim().parse::<i128>().map_err(|_| text),
        };
        match number {
            Ok(n) => i64::try_from(n)
                .ok()
                .filter(|n| range.contains(n))
                .ok_or_else(|| {
                    self.error(
                        &value.origin,
                        format!("`{key}` must be from {low} to {high}, found {n}"),
                        hint,
                    )
                }),
            Err(text) => Err(self.error(
                &value.origin,
                format!("`{key}` must be a whole number from {low} to {high}, found {text:?}"),
                hint,
            )),
        }
    }

    /// A count that fits `u32` (`range` is within it), `default` when unset.
    fn count(
        &self,
        value: Option<&Sourced<Written<i64>>>,
        key: &str,
        range: RangeInclusive<i64>,
        default: u32,
    ) -> Checked<u32> {
        let Some(value) = value else {
            return Ok(default);
        };
        let hint = format!("e.g. {}", value.origin.example(key, &default.to_string()));
        let n = self.whole(value, key, range, hint)?;
        Ok(u32::try_from(n).unwrap_or(default))
    }

    fn workers(&self, value: Option<&Sourced<Written<i64>>>) -> Checked<usize> {
        let Some(value) = value else {
            return Ok(1);
        };
        let hint = format!(
            "each worker is one browser; 1 to 4 suits most machines, e.g. {}",
            value.origin.example("workers", "2")
        );
        let n = self.whole(value, "workers", 1..=MAX_WORKERS, hint)?;
        Ok(usize::try_from(n).unwrap_or(1))
    }

    fn timeout(&self, value: Option<&Sourced<Written<i64>>>) -> Checked<Duration> {
        let Some(value) = value else {
            return Ok(Duration::from_millis(5000));
        };
        let hint = format!(
            "it is the deadline of one action in milliseconds, e.g. {}",
            value.origin.example("timeout_ms", "5000")
        );
        let ms = self.whole(value, "timeout_ms", 1..=MAX_TIMEOUT_MS, hint)?;
        Ok(Duration::from_millis(u64::try_from(ms).unwrap_or(5000)))
    }

    /// An absolute http(s) URL, kept as written (trimmed).
    fn url(&self, value: &Sourced<String>, key: &str, what: &str, example: &str) -> Checked<Url> {
        http_url(&value.value).map_err(|problem| {
            self.error(
                &value.origin,
                format!("`{key}` {problem}"),
                format!("write {what}, e.g. {}", value.origin.example(key, example)),
            )
        })
    }

    fn base_url(&self, value: &Sourced<String>) -> Checked<Url> {
        self.url(
            value,
            "base_url",
            "an http(s) URL",
            "\"http://127.0.0.1:8080\"",
        )
    }

    fn scenarios(&self, value: Option<&Sourced<String>>) -> Checked<String> {
        match value {
            None => Ok("scenarios".to_owned()),
            Some(value) if value.value.trim().is_empty() => Err(self.error(
                &value.origin,
                "`scenarios` is empty",
                format!(
                    "name the scenarios directory relative to windup.toml, e.g. {}",
                    value.origin.example("scenarios", "\"scenarios\"")
                ),
            )),
            Some(value) => Ok(value.value.clone()),
        }
    }

    fn allowed_origins(&self, values: Vec<Sourced<String>>) -> Checked<Vec<String>> {
        let mut origins: Vec<String> = Vec::new();
        for value in values {
            let origin = normalize_origin(&value.value).map_err(|problem| {
                self.error(
                    &value.origin,
                    format!("`allowed_origins`: {:?} {problem}", value.value),
                    "write origins as scheme, host and optional port, e.g. `\"https://accounts.example\"`",
                )
            })?;
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
        Ok(origins)
    }

    fn ignore_tags(&self, values: Vec<Sourced<String>>) -> Checked<Vec<String>> {
        let mut tags: Vec<String> = Vec::new();
        for value in values {
            let tag = &value.value;
            if tag.is_empty() || tag.chars().any(char::is_whitespace) {
                return Err(self.error(
                    &value.origin,
                    format!("`ignore_tags`: invalid tag {tag:?}"),
                    "tags are single words as scenarios write them, e.g. `ignore_tags = [\"slow\"]`",
                ));
            }
            if !tags.contains(tag) {
                tags.push(value.value);
            }
        }
        Ok(tags)
    }

    /// Directories relative to the scenarios directory, inside it.
    fn exclude(&self, values: Vec<Sourced<String>>) -> Checked<Vec<PathBuf>> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        for value in values {
            let dir = PathBuf::from(value.value.trim().trim_end_matches('/'));
            let inside = !dir.as_os_str().is_empty()
                && dir
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)));
            if !inside {
                return Err(self.error(
                    &value.origin,
                    format!(
                        "`exclude`: {:?} is not a directory under the scenarios directory",
                        value.value
                    ),
                    "name directories relative to `scenarios`, e.g. `exclude = [\"dashboard\"]`",
                ));
            }
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        Ok(dirs)
    }

    fn browser(&self, layer: &BrowserLayer) -> Checked<BrowserSettings> {
        let defaults = BrowserSettings::default();
        Ok(BrowserSettings {
            kind: match &layer.name {
                Some(name) => self.browser_kind(name)?,
                None => defaults.kind,
            },
            headless: match &layer.headed {
                Some(headed) => !self.headed(headed)?,
                None => defaults.headless,
            },
            webdriver_url: match &layer.webdriver_url {
                Some(value) => Some(self.webdriver_url(value)?),
                None => None,
            },
            chromedriver: self.executable("chromedriver", layer.chromedriver.as_ref())?,
            chrome: self.executable("chrome", layer.chrome.as_ref())?,
            geckodriver: self.executable("geckodriver", layer.geckodriver.as_ref())?,
            firefox: self.executable("firefox", layer.firefox.as_ref())?,
            window: match &layer.window {
                Some(window) => self.window(window)?,
                None => defaults.window,
            },
            protocol: match &layer.protocol {
                Some(protocol) => self.protocol(protocol)?,
                None => defaults.protocol,
            },
        })
    }

    /// `protocol = "bidi"`, `WINDUP_PROTOCOL=classic`: which protocol sessions speak.
    fn protocol(&self, value: &Sourced<String>) -> Checked<Protocol> {
        value.value.parse().map_err(|why: String| {
            self.error(
                &value.origin,
                why,
                format!("e.g. {}", value.origin.example("protocol", "\"auto\"")),
            )
        })
    }

    /// `browser = "firefox"`, `WINDUP_BROWSER=chromium`, `--browser firefox`.
    fn browser_kind(&self, value: &Sourced<String>) -> Checked<BrowserKind> {
        value.value.parse().map_err(|_| {
            self.error(
                &value.origin,
                format!(
                    "unknown browser {:?}: Windup drives {}",
                    value.value,
                    BrowserKind::ALL.map(BrowserKind::as_str).join(" and ")
                ),
                format!("e.g. {}", value.origin.example("browser", "\"firefox\"")),
            )
        })
    }

    /// `--headed`, `headless = false`, `WINDUP_HEADED=1`: whether the window shows.
    fn headed(&self, value: &Sourced<Written<bool>>) -> Checked<bool> {
        let text = match &value.value {
            Written::Typed(headed) => return Ok(*headed),
            Written::Text(text) => text,
        };
        match text.trim().to_ascii_lowercase().as_str() {
            "1" | "true" | "yes" => Ok(true),
            "0" | "false" | "no" => Ok(false),
            _ => Err(self.error(
                &value.origin,
                format!(
                    "expected 1, true or yes (show the browser window) or 0, false or no (hide it), found {text:?}"
                ),
                format!("e.g. {}", value.origin.example("headed", "1")),
            )),
        }
    }

    fn webdriver_url(&self, value: &Sourced<String>) -> Checked<String> {
        let example = "\"http://localhost:4444\"";
        self.url(
            value,
            "webdriver_url",
            "the WebDriver's http(s) URL",
            example,
        )?;
        Ok(value.value.trim().to_owned())
    }

    fn executable(
        &self,
        key: &str,
        value: Option<&Sourced<String>>,
    ) -> Checked<Option<std::path::PathBuf>> {
        match value {
            Some(value) if value.value.trim().is_empty() => Err(self.error(
                &value.origin,
                format!("`{key}` is empty"),
                format!("give the executable's path, or remove `{key}` to find it on PATH"),
            )),
            Some(value) => Ok(Some(value.value.clone().into())),
            None => Ok(None),
        }
    }

    fn window(&self, value: &Sourced<Vec<i64>>) -> Checked<(u32, u32)> {
        let size = match value.value.as_slice() {
            [w, h] if WIDTH.contains(w) && HEIGHT.contains(h) => {
                u32::try_from(*w).ok().zip(u32::try_from(*h).ok())
            }
            _ => None,
        };
        size.ok_or_else(|| {
            self.error(
                &value.origin,
                format!(
                    "`window` must be [width, height] with width {} to {} and height {} to {}",
                    WIDTH.start(),
                    WIDTH.end(),
                    HEIGHT.start(),
                    HEIGHT.end()
                ),
                "e.g. `window = [1280, 900]`",
            )
        })
    }

    fn llm(&self, layer: &LlmLayer) -> Checked<Option<LlmSettings>> {
        let Some(provider) = self.provider(layer)? else {
            return Ok(None);
        };
        let model = layer.model.as_ref().map(|v| self.model(v)).transpose()?;
        let base_url = match &layer.base_url {
            Some(value) => {
                let example = "\"http://localhost:11434/v1\"";
                self.url(value, "base_url", "the API's http(s) URL", example)?;
                Some(value.value.trim().to_owned())
            }
            None => None,
        };
        let api_key_env = layer
            .api_key_env
            .as_ref()
            .map(|v| self.api_key_env(v))
            .transpose()?;
        if provider.value == Provider::OpenAiCompatible && base_url.is_none() {
            // The missing key belongs in the table that names the provider, when the file does.
            let at = match (&provider.origin, &layer.table) {
                (Origin::File { .. }, Some(table)) => table,
                (at, _) => at,
            };
            return Err(self.error(
                at,
                "provider \"openai-compatible\" needs `base_url`",
                "add the server's URL under [llm] in windup.toml, e.g. `base_url = \"http://localhost:11434/v1\"`",
            ));
        }
        Ok(Some(LlmSettings {
            provider: provider.value,
            model,
            base_url,
            api_key_env,
            api_key: None,
            images: layer.images.as_ref().map(|v| v.value),
            limits: self.limits(layer)?,
        }))
    }

    /// The provider, if any LLM setting is made; settings without one are an error.
    fn provider(&self, layer: &LlmLayer) -> Checked<Option<Sourced<Provider>>> {
        let names = Provider::ALL.map(Provider::as_str).join(", ");
        match (&layer.provider, &layer.table, &layer.model) {
            (Some(name), _, _) => match Provider::from_name(&name.value) {
                Some(provider) => Ok(Some(Sourced {
                    value: provider,
                    origin: name.origin.clone(),
                })),
                None => Err(self.error(
                    &name.origin,
                    format!("unknown provider {:?}", name.value),
                    provider_hint(&name.value),
                )),
            },
            (None, Some(table), _) => Err(self.error(
                table,
                "[llm] has no `provider`",
                format!("add `provider = \"openai\"` (one of {names})"),
            )),
            (None, None, Some(model)) => Err(self.error(
                &model.origin,
                "a model is set but no LLM provider is configured",
                format!(
                    "also set WINDUP_LLM (one of {names}) or add [llm] provider to windup.toml"
                ),
            )),
            (None, None, None) => Ok(None),
        }
    }

    fn model(&self, value: &Sourced<String>) -> Checked<String> {
        let model = value.value.trim();
        if model.is_empty() {
            return Err(self.error(
                &value.origin,
                "`model` is empty",
                format!(
                    "name the model, e.g. {}, or remove the key for the provider's default",
                    value.origin.example("model", "\"gpt-4.1-mini\"")
                ),
            ));
        }
        Ok(model.to_owned())
    }

    fn api_key_env(&self, value: &Sourced<String>) -> Checked<String> {
        if is_env_name(&value.value) {
            return Ok(value.value.clone());
        }
        Err(self.error(
            &value.origin,
            "`api_key_env` must be the name of an environment variable",
            "name the variable that holds the key, e.g. `api_key_env = \"OPENAI_API_KEY\"`; never the key itself",
        ))
    }

    fn limits(&self, layer: &LlmLayer) -> Checked<LlmLimits> {
        let defaults = LlmLimits::default();
        let count = |value: &Option<_>, key, range, default| {
            self.count(value.as_ref(), key, range, default)
        };
        let usd = |value: &Option<_>, key, default| self.usd(value.as_ref(), key, default);
        Ok(LlmLimits {
            max_calls_per_scenario: count(
                &layer.max_calls_per_scenario,
                "max_calls_per_scenario",
                0..=100,
                defaults.max_calls_per_scenario,
            )?,
            max_calls_per_run: count(
                &layer.max_calls_per_run,
                "max_calls_per_run",
                0..=100_000,
                defaults.max_calls_per_run,
            )?,
            max_usd_per_scenario: usd(
                &layer.max_usd_per_scenario,
                "max_usd_per_scenario",
                defaults.max_usd_per_scenario,
            )?,
            max_usd_per_run: usd(
                &layer.max_usd_per_run,
                "max_usd_per_run",
                defaults.max_usd_per_run,
            )?,
            max_calls_per_audit: count(
                &layer.max_calls_per_audit,
                "max_calls_per_audit",
                0..=10_000,
                defaults.max_calls_per_audit,
            )?,
            max_usd_per_audit: usd(
                &layer.max_usd_per_audit,
                "max_usd_per_audit",
                defaults.max_usd_per_audit,
            )?,
            timeout: Duration::from_millis(u64::from(count(
                &layer.timeout_ms,
                "timeout_ms",
                1..=600_000,
                60_000,
            )?)),
            retries: count(&layer.retries, "retries", 0..=10, defaults.retries)?,
            semantic_retries: count(
                &layer.semantic_retries,
                "semantic_retries",
                0..=5,
                defaults.semantic_retries,
            )?,
            max_output_tokens: count(
                &layer.max_output_tokens,
                "max_output_tokens",
                256..=65_536,
                defaults.max_output_tokens,
            )?,
        })
    }

    /// US dollars, 0 or more.
    fn usd(&self, value: Option<&Sourced<f64>>, key: &str, default: f64) -> Checked<f64> {
        match value {
            None => Ok(default),
            Some(value) if value.value.is_finite() && value.value >= 0.0 => Ok(value.value),
            Some(value) => Err(self.error(
                &value.origin,
                format!("`{key}` must be a number of US dollars, 0 or more"),
                format!(
                    "e.g. {}; 0 forbids model calls",
                    value.origin.example(key, &format!("{default:.2}"))
                ),
            )),
        }
    }

    fn accounts(
        &self,
        raw: Vec<RawAccount>,
    ) -> Checked<BTreeMap<String, BTreeMap<String, String>>> {
        let mut accounts = BTreeMap::new();
        for RawAccount { name, keys } in raw {
            if !is_account_name(&name.value) {
                return Err(self.error(
                    &name.origin,
                    format!("invalid account name {:?}", name.value),
                    "account names use letters, digits, `_` and `-`, e.g. `[accounts.demo]`",
                ));
            }
            let mut vars = BTreeMap::new();
            for (key, var) in keys {
                self.account_key(&name.value, &key, &var)?;
                vars.insert(key.value, var.value);
            }
            accounts.insert(name.value, vars);
        }
        Ok(accounts)
    }

    /// `key = "VAR"` in `[accounts.NAME]`: both must be variable-like names.
    fn account_key(&self, name: &str, key: &Sourced<String>, var: &Sourced<String>) -> Checked<()> {
        let key_name = &key.value;
        if !is_env_name(key_name) {
            return Err(self.error(
                &key.origin,
                format!("invalid account key {key_name:?} in [accounts.{name}]"),
                "account keys use letters, digits and `_`, and do not start with a digit, e.g. `email`",
            ));
        }
        if !is_env_name(&var.value) {
            return Err(self.error(
                &var.origin,
                // The value is not echoed: it may be the secret itself.
                format!("`{key_name}` in [accounts.{name}] must be the name of an environment variable"),
                format!(
                    "write the NAME of the variable holding the value, e.g. `{key_name} = \"DEMO_{}\"`; never the secret itself",
                    key_name.to_ascii_uppercase()
                ),
            ));
        }
        Ok(())
    }

    fn reports(&self, spec: &Sourced<String>) -> Checked<Reports> {
        Reports::parse(&spec.value, self.root).map_err(|problem| {
            let example = "junit=target/windup.xml,json=target/windup.json,html=target/windup.html";
            self.error(
                &spec.origin,
                problem,
                format!("e.g. {}", spec.origin.example("report", example)),
            )
        })
    }

    /// `WINDUP_UPDATE`, or read-only under CI.
    fn update(&self, value: Option<&Sourced<String>>, ci: bool) -> Checked<UpdateMode> {
        let Some(value) = value else {
            return Ok(if ci { UpdateMode::No } else { UpdateMode::Auto });
        };
        match value.value.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(UpdateMode::Auto),
            "new" => Ok(UpdateMode::New),
            "always" => Ok(UpdateMode::Always),
            "no" => Ok(UpdateMode::No),
            _ => Err(self.error(
                &value.origin,
                format!("expected auto, new, always or no, found {:?}", value.value),
                "auto saves new and changed plans, new only new ones, always re-plans everything, no never writes (the default under CI)",
            )),
        }
    }
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
pub(super) fn normalize_origin(value: &str) -> Result<String, String> {
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

fn provider_hint(value: &str) -> String {
    let names = Provider::ALL.map(Provider::as_str);
    let mut hint = format!("use one of {}", names.join(", "));
    if let Some(near) = closest(value.trim(), &names) {
        hint.push_str(&format!("; did you mean `{near}`?"));
    }
    hint
}

/// `[A-Za-z_][A-Za-z0-9_]*`
pub(super) fn is_env_name(name: &str) -> bool {
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
