//! What `[llm]` describes once validated: the provider, the model, where to reach it, the key,
//! and the limits on calls. `config` reads and checks these; this module only defines them.

use std::fmt;
use std::time::Duration;

use super::SecretValue;

/// A model provider, as `[llm] provider` and `WINDUP_LLM` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI's chat completions API.
    OpenAi,
    /// Google's Gemini `generateContent` API.
    Gemini,
    /// Anthropic's messages API.
    Anthropic,
    /// Any server speaking OpenAI's chat completions API at `base_url` (Ollama, vLLM, …).
    OpenAiCompatible,
}

impl Provider {
    /// Every provider, in the order messages list them.
    pub const ALL: [Provider; 4] = [
        Provider::OpenAi,
        Provider::Gemini,
        Provider::Anthropic,
        Provider::OpenAiCompatible,
    ];

    /// The name the configuration, the ledger and the price table use.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Gemini => "gemini",
            Provider::Anthropic => "anthropic",
            Provider::OpenAiCompatible => "openai-compatible",
        }
    }

    /// The provider a name means, ignoring case and surrounding blanks.
    pub fn from_name(name: &str) -> Option<Provider> {
        let name = name.trim();
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str().eq_ignore_ascii_case(name))
    }

    /// The model asked when `[llm]` names none (each is in the built-in price table).
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("gpt-5-mini"),
            Provider::Gemini => Some("gemini-2.5-flash"),
            Provider::Anthropic => Some("claude-haiku-4-5"),
            Provider::OpenAiCompatible => None,
        }
    }

    /// Whether the provider's models read images unless `[llm] images` says otherwise: the
    /// three hosted APIs do; a local server's model may be text alone.
    pub fn takes_images(self) -> bool {
        self != Provider::OpenAiCompatible
    }

    /// The environment variable the key is read from when `api_key_env` names none.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("OPENAI_API_KEY"),
            Provider::Gemini => Some("GEMINI_API_KEY"),
            Provider::Anthropic => Some("ANTHROPIC_API_KEY"),
            Provider::OpenAiCompatible => None,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `[llm]`, validated by `config`, used by [`super::client`] and the model planner.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmSettings {
    pub provider: Provider,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// The NAME of the env var holding the API key.
    pub api_key_env: Option<String>,
    /// The key, read from that variable (or the provider's default one) when the settings
    /// were loaded; never printed.
    pub api_key: Option<SecretValue>,
    /// `images`: whether prompts may carry screenshots; unset, the provider's default
    /// ([`Provider::takes_images`]).
    pub images: Option<bool>,
    /// Budgets, deadlines and retry bounds.
    pub limits: LlmLimits,
}

impl LlmSettings {
    /// A provider with no model, base URL or key variable named, and the default limits.
    pub fn new(provider: Provider) -> Self {
        Self {
            provider,
            model: None,
            base_url: None,
            api_key_env: None,
            api_key: None,
            images: None,
            limits: LlmLimits::default(),
        }
    }

    /// Whether a prompt may show the model a screenshot.
    pub fn takes_images(&self) -> bool {
        self.images.unwrap_or(self.provider.takes_images())
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
    /// Model calls one audit may make: rules, attacks and judgements (`max_calls_per_audit`).
    pub max_calls_per_audit: u32,
    /// USD one audit's calls may cost (`max_usd_per_audit`).
    pub max_usd_per_audit: f64,
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
            max_calls_per_audit: 40,
            max_usd_per_audit: 2.00,
            timeout: Duration::from_secs(60),
            retries: 3,
            semantic_retries: 2,
            max_output_tokens: 4096,
        }
    }
}
