//! `windup.toml` into a [`Layer`]: TOML's own errors (syntax, unknown keys, wrong types) are
//! located and explained here; every other rule is the validator's.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use super::ConfigError;
use super::layer::{BrowserLayer, Layer, LlmLayer, RawAccount};
use super::origin::{Origin, Sourced, Written};
use crate::model::steps::suggest::{closest, parse_unknown_field};

/// The shape of `windup.toml`, each value with its place in the file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    base_url: Option<Spanned<String>>,
    scenarios: Option<Spanned<String>>,
    workers: Option<Spanned<i64>>,
    timeout_ms: Option<Spanned<i64>>,
    allowed_origins: Option<Vec<Spanned<String>>>,
    ignore_tags: Option<Vec<Spanned<String>>>,
    exclude: Option<Vec<Spanned<String>>>,
    browser: Option<Spanned<FileBrowserEntry>>,
    llm: Option<Spanned<FileLlm>>,
    accounts: Option<FileAccounts>,
}

/// Account name -> key -> env var name.
type FileAccounts = BTreeMap<Spanned<String>, BTreeMap<Spanned<String>, Spanned<String>>>;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileBrowser {
    name: Option<Spanned<String>>,
    headless: Option<Spanned<bool>>,
    webdriver_url: Option<Spanned<String>>,
    chromedriver: Option<Spanned<String>>,
    chrome: Option<Spanned<String>>,
    geckodriver: Option<Spanned<String>>,
    firefox: Option<Spanned<String>>,
    window: Option<Spanned<Vec<i64>>>,
    protocol: Option<Spanned<String>>,
}

/// `browser = "firefox"`, the short form, or the `[browser]` table.
#[derive(Debug)]
enum FileBrowserEntry {
    Name(String),
    Table(Box<FileBrowser>),
}

impl<'de> Deserialize<'de> for FileBrowserEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entry;
        impl<'de> serde::de::Visitor<'de> for Entry {
            type Value = FileBrowserEntry;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a browser name such as \"firefox\", or a [browser] table")
            }

            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
                Ok(FileBrowserEntry::Name(name.to_owned()))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Self::Value, A::Error> {
                let table = serde::de::value::MapAccessDeserializer::new(map);
                FileBrowser::deserialize(table).map(|t| FileBrowserEntry::Table(Box::new(t)))
            }
        }
        deserializer.deserialize_any(Entry)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileLlm {
    provider: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    base_url: Option<Spanned<String>>,
    api_key_env: Option<Spanned<String>>,
    max_calls_per_scenario: Option<Spanned<i64>>,
    max_calls_per_run: Option<Spanned<i64>>,
    max_usd_per_scenario: Option<Spanned<f64>>,
    max_usd_per_run: Option<Spanned<f64>>,
    max_calls_per_audit: Option<Spanned<i64>>,
    max_usd_per_audit: Option<Spanned<f64>>,
    timeout_ms: Option<Spanned<i64>>,
    retries: Option<Spanned<i64>>,
    semantic_retries: Option<Spanned<i64>>,
    max_output_tokens: Option<Spanned<i64>>,
    images: Option<Spanned<bool>>,
}

/// `windup.toml`'s text, for locating values and errors.
pub(super) struct File<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
}

impl File<'_> {
    /// The file's layer, or the TOML error located and explained.
    pub(super) fn read(&self) -> Result<Layer, ConfigError> {
        let raw: FileConfig = toml::from_str(self.text).map_err(|err| self.toml_error(&err))?;
        Ok(Layer {
            base_url: raw.base_url.map(|v| self.sourced(v)),
            scenarios: raw.scenarios.map(|v| self.sourced(v)),
            workers: raw.workers.map(|v| self.typed(v)),
            timeout_ms: raw.timeout_ms.map(|v| self.typed(v)),
            allowed_origins: raw.allowed_origins.map(|list| self.all(list)),
            ignore_tags: raw.ignore_tags.map(|list| self.all(list)),
            exclude: raw.exclude.map(|list| self.all(list)),
            browser: raw.browser.map(|b| self.browser(b)).unwrap_or_default(),
            llm: raw.llm.map(|llm| self.llm(llm)).unwrap_or_default(),
            accounts: raw.accounts.map(|accounts| self.accounts(accounts)),
            ..Layer::default()
        })
    }

    fn browser(&self, entry: Spanned<FileBrowserEntry>) -> BrowserLayer {
        let origin = self.origin(entry.span());
        let raw = match entry.into_inner() {
            FileBrowserEntry::Table(raw) => *raw,
            FileBrowserEntry::Name(value) => {
                return BrowserLayer {
                    name: Some(Sourced { value, origin }),
                    ..BrowserLayer::default()
                };
            }
        };
        BrowserLayer {
            name: raw.name.map(|v| self.sourced(v)),
            headed: raw
                .headless
                .map(|v| self.sourced(v).map(|headless| Written::Typed(!headless))),
            webdriver_url: raw.webdriver_url.map(|v| self.sourced(v)),
            chromedriver: raw.chromedriver.map(|v| self.sourced(v)),
            chrome: raw.chrome.map(|v| self.sourced(v)),
            geckodriver: raw.geckodriver.map(|v| self.sourced(v)),
            firefox: raw.firefox.map(|v| self.sourced(v)),
            window: raw.window.map(|v| self.sourced(v)),
            protocol: raw.protocol.map(|v| self.sourced(v)),
        }
    }

    fn llm(&self, raw: Spanned<FileLlm>) -> LlmLayer {
        let table = self.origin(raw.span());
        let raw = raw.into_inner();
        LlmLayer {
            table: Some(table),
            provider: raw.provider.map(|v| self.sourced(v)),
            model: raw.model.map(|v| self.sourced(v)),
            base_url: raw.base_url.map(|v| self.sourced(v)),
            api_key_env: raw.api_key_env.map(|v| self.sourced(v)),
            max_calls_per_scenario: raw.max_calls_per_scenario.map(|v| self.typed(v)),
            max_calls_per_run: raw.max_calls_per_run.map(|v| self.typed(v)),
            max_usd_per_scenario: raw.max_usd_per_scenario.map(|v| self.sourced(v)),
            max_usd_per_run: raw.max_usd_per_run.map(|v| self.sourced(v)),
            max_calls_per_audit: raw.max_calls_per_audit.map(|v| self.typed(v)),
            max_usd_per_audit: raw.max_usd_per_audit.map(|v| self.sourced(v)),
            timeout_ms: raw.timeout_ms.map(|v| self.typed(v)),
            retries: raw.retries.map(|v| self.typed(v)),
            semantic_retries: raw.semantic_retries.map(|v| self.typed(v)),
            max_output_tokens: raw.max_output_tokens.map(|v| self.typed(v)),
            images: raw.images.map(|v| self.sourced(v)),
        }
    }

    fn accounts(&self, raw: FileAccounts) -> Vec<RawAccount> {
        raw.into_iter()
            .map(|(name, keys)| RawAccount {
                name: self.sourced(name),
                keys: keys
                    .into_iter()
                    .map(|(key, var)| (self.sourced(key), self.sourced(var)))
                    .collect(),
            })
            .collect()
    }

    fn origin(&self, span: Range<usize>) -> Origin {
        let (line, column) = line_column(self.text, span.start);
        Origin::File { line, column }
    }

    fn sourced<T>(&self, value: Spanned<T>) -> Sourced<T> {
        Sourced {
            origin: self.origin(value.span()),
            value: value.into_inner(),
        }
    }

    fn typed<T>(&self, value: Spanned<T>) -> Sourced<Written<T>> {
        self.sourced(value).map(Written::Typed)
    }

    fn all<T>(&self, values: Vec<Spanned<T>>) -> Vec<Sourced<T>> {
        values.into_iter().map(|v| self.sourced(v)).collect()
    }

    fn error(&self, span: Range<usize>, message: String, hint: impl Into<String>) -> ConfigError {
        self.origin(span).error(self.path, message, hint)
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

fn key_hint(key: &str) -> &'static str {
    match key {
        "base_url" | "webdriver_url" => "write a quoted http(s) URL",
        "scenarios" => "write the directory as a quoted path, e.g. `scenarios = \"scenarios\"`",
        "workers" => "write a whole number without quotes, e.g. `workers = 2`",
        "timeout_ms" => "write milliseconds without quotes, e.g. `timeout_ms = 5000`",
        "allowed_origins" | "ignore_tags" | "exclude" => {
            "write a list of quoted strings, e.g. `[\"a\", \"b\"]`"
        }
        "headless" | "images" => "write `true` or `false` without quotes",
        "protocol" => "write \"auto\", \"bidi\" or \"classic\"",
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
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}
