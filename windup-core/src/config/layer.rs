//! The raw layer: every setting as one source gave it, with its origin, before any rule.
//! The file, the environment and the flags each fill a [`Layer`]; [`Layer::over`] stacks them,
//! and the rules then check the one value that won, wherever it came from.

use super::origin::{Origin, Sourced, Written};

/// What one source (or several, stacked) says; `None` where it says nothing.
#[derive(Debug, Default)]
pub(super) struct Layer {
    pub(super) base_url: Option<Sourced<String>>,
    pub(super) scenarios: Option<Sourced<String>>,
    pub(super) workers: Option<Sourced<Written<i64>>>,
    pub(super) timeout_ms: Option<Sourced<Written<i64>>>,
    pub(super) allowed_origins: Option<Vec<Sourced<String>>>,
    pub(super) ignore_tags: Option<Vec<Sourced<String>>>,
    /// Directories under the scenarios directory that are not this project's runs.
    pub(super) exclude: Option<Vec<Sourced<String>>>,
    pub(super) browser: BrowserLayer,
    pub(super) llm: LlmLayer,
    pub(super) accounts: Option<Vec<RawAccount>>,
    /// `KIND=PATH,…`
    pub(super) reports: Option<Sourced<String>>,
    pub(super) update: Option<Sourced<String>>,
    /// `CI` is set (and not `false` or `0`): plans are read-only unless `WINDUP_UPDATE` says.
    pub(super) ci: bool,
}

/// `[browser]` and what overrides it.
#[derive(Debug, Default)]
pub(super) struct BrowserLayer {
    /// Which browser: `--browser`, `WINDUP_BROWSER`, `browser = "…"` or `[browser] name`.
    pub(super) name: Option<Sourced<String>>,
    /// `--headed`, `WINDUP_HEADED`, or the file's `headless` turned round.
    pub(super) headed: Option<Sourced<Written<bool>>>,
    pub(super) webdriver_url: Option<Sourced<String>>,
    pub(super) chromedriver: Option<Sourced<String>>,
    pub(super) chrome: Option<Sourced<String>>,
    pub(super) geckodriver: Option<Sourced<String>>,
    pub(super) firefox: Option<Sourced<String>>,
    pub(super) window: Option<Sourced<Vec<i64>>>,
    /// `protocol = "bidi"`, `WINDUP_PROTOCOL`.
    pub(super) protocol: Option<Sourced<String>>,
}

/// `[llm]` and what overrides it.
#[derive(Debug, Default)]
pub(super) struct LlmLayer {
    /// Where the file's `[llm]` table is, when it has one.
    pub(super) table: Option<Origin>,
    pub(super) provider: Option<Sourced<String>>,
    pub(super) model: Option<Sourced<String>>,
    pub(super) base_url: Option<Sourced<String>>,
    pub(super) api_key_env: Option<Sourced<String>>,
    pub(super) max_calls_per_scenario: Option<Sourced<Written<i64>>>,
    pub(super) max_calls_per_run: Option<Sourced<Written<i64>>>,
    pub(super) max_usd_per_scenario: Option<Sourced<f64>>,
    pub(super) max_usd_per_run: Option<Sourced<f64>>,
    pub(super) max_calls_per_audit: Option<Sourced<Written<i64>>>,
    pub(super) max_usd_per_audit: Option<Sourced<f64>>,
    pub(super) timeout_ms: Option<Sourced<Written<i64>>>,
    pub(super) retries: Option<Sourced<Written<i64>>>,
    pub(super) semantic_retries: Option<Sourced<Written<i64>>>,
    pub(super) max_output_tokens: Option<Sourced<Written<i64>>>,
    /// Whether prompts may carry screenshots.
    pub(super) images: Option<Sourced<bool>>,
}

/// `[accounts.NAME]`: key -> the name of the variable holding the value.
#[derive(Debug)]
pub(super) struct RawAccount {
    pub(super) name: Sourced<String>,
    pub(super) keys: Vec<(Sourced<String>, Sourced<String>)>,
}

impl Layer {
    /// This layer where it says something, `lower` elsewhere.
    pub(super) fn over(self, lower: Layer) -> Layer {
        Layer {
            base_url: self.base_url.or(lower.base_url),
            scenarios: self.scenarios.or(lower.scenarios),
            workers: self.workers.or(lower.workers),
            timeout_ms: self.timeout_ms.or(lower.timeout_ms),
            allowed_origins: self.allowed_origins.or(lower.allowed_origins),
            ignore_tags: self.ignore_tags.or(lower.ignore_tags),
            exclude: self.exclude.or(lower.exclude),
            browser: self.browser.over(lower.browser),
            llm: self.llm.over(lower.llm),
            accounts: self.accounts.or(lower.accounts),
            reports: self.reports.or(lower.reports),
            update: self.update.or(lower.update),
            ci: self.ci || lower.ci,
        }
    }
}

impl BrowserLayer {
    fn over(self, lower: BrowserLayer) -> BrowserLayer {
        BrowserLayer {
            name: self.name.or(lower.name),
            headed: self.headed.or(lower.headed),
            webdriver_url: self.webdriver_url.or(lower.webdriver_url),
            chromedriver: self.chromedriver.or(lower.chromedriver),
            chrome: self.chrome.or(lower.chrome),
            geckodriver: self.geckodriver.or(lower.geckodriver),
            firefox: self.firefox.or(lower.firefox),
            window: self.window.or(lower.window),
            protocol: self.protocol.or(lower.protocol),
        }
    }
}

impl LlmLayer {
    fn over(self, lower: LlmLayer) -> LlmLayer {
        LlmLayer {
            table: self.table.or(lower.table),
            provider: self.provider.or(lower.provider),
            model: self.model.or(lower.model),
            base_url: self.base_url.or(lower.base_url),
            api_key_env: self.api_key_env.or(lower.api_key_env),
            max_calls_per_scenario: self.max_calls_per_scenario.or(lower.max_calls_per_scenario),
            max_calls_per_run: self.max_calls_per_run.or(lower.max_calls_per_run),
            max_usd_per_scenario: self.max_usd_per_scenario.or(lower.max_usd_per_scenario),
            max_usd_per_run: self.max_usd_per_run.or(lower.max_usd_per_run),
            max_calls_per_audit: self.max_calls_per_audit.or(lower.max_calls_per_audit),
            max_usd_per_audit: self.max_usd_per_audit.or(lower.max_usd_per_audit),
            timeout_ms: self.timeout_ms.or(lower.timeout_ms),
            retries: self.retries.or(lower.retries),
            semantic_retries: self.semantic_retries.or(lower.semantic_retries),
            max_output_tokens: self.max_output_tokens.or(lower.max_output_tokens),
            images: self.images.or(lower.images),
        }
    }
}
