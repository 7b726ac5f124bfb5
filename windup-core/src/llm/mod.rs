//! Language models behind one trait. Each provider speaks its documented HTTP API through
//! reqwest and answers in the shape a schema asks for: OpenAI (and any server speaking its chat
//! completions API) with a strict JSON-schema response format, Gemini with a response JSON
//! schema, Anthropic with a forced tool whose input schema is the schema.
//!
//! A call that fails in transit (429, 5xx, a timeout, a dropped or cut-off connection) is
//! retried here with exponential backoff that honours `Retry-After` (or the wait Gemini names in
//! its error body), a bounded number of times; every attempt is reported, with the tokens it was
//! billed (a refusal's too), so the ledger holds each one. Whether an answer is a working plan
//! is the planner's business, not this module's.

mod anthropic;
mod gemini;
mod http;
mod openai;
mod settings;

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

pub use http::RetryPolicy;
pub use settings::{LlmLimits, LlmSettings, Provider};

/// What one image may cost in input tokens, at most, for a budget checked at a call's worst case.
/// Screenshots are at most [`MAX_IMAGE_SIDE`] pixels a side, which every provider bills below this
/// (Anthropic about w×h/750, OpenAI 85 + 170 a 512-pixel tile, Gemini 258 a 768-pixel tile).
pub const IMAGE_TOKENS: u64 = 1_600;

/// The longest side of an image Windup sends, in pixels.
pub const MAX_IMAGE_SIDE: u32 = 1_024;

/// A conversation for a model: instructions, then turns.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// How to behave and what to answer (the system prompt).
    pub system: String,
    /// The turns, starting with the user's.
    pub messages: Vec<Message>,
}

/// One turn of a [`Prompt`].
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub role: Role,
    pub text: String,
    /// Pictures the turn shows, after its text; only a user's turn has them, and only for a
    /// provider that takes images.
    pub images: Vec<Image>,
}

impl Message {
    /// A turn of text alone.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Message {
            role,
            text: text.into(),
            images: Vec::new(),
        }
    }
}

/// A picture in a prompt: a PNG (a screenshot), sent inline.
#[derive(Clone, PartialEq)]
pub struct Image {
    pub png: Vec<u8>,
}

impl Image {
    /// The media type every provider is told.
    pub const MEDIA_TYPE: &'static str = "image/png";

    /// The bytes in standard base64, as every provider takes them inline.
    pub fn base64(&self) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(&self.png)
    }
}

impl Image {
    /// A screenshot made fit to send: scaled down, its proportions kept, so that no side is
    /// over [`MAX_IMAGE_SIDE`]; as it was when it fits already. An error when it is no image.
    #[cfg(feature = "images")]
    pub fn screenshot(png: Vec<u8>) -> Result<Image, String> {
        let picture = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
            .map_err(|err| format!("the screenshot is not a PNG: {err}"))?;
        if picture.width() <= MAX_IMAGE_SIDE && picture.height() <= MAX_IMAGE_SIDE {
            return Ok(Image { png });
        }
        let small = picture.resize(
            MAX_IMAGE_SIDE,
            MAX_IMAGE_SIDE,
            image::imageops::FilterType::Triangle,
        );
        let mut out = std::io::Cursor::new(Vec::new());
        small
            .write_to(&mut out, image::ImageFormat::Png)
            .map_err(|err| format!("the screenshot could not be scaled: {err}"))?;
        Ok(Image {
            png: out.into_inner(),
        })
    }
}

impl Image {
    /// A screenshot that fits already, as it was; without the `images` feature one over
    /// [`MAX_IMAGE_SIDE`] cannot be scaled, and is not sent.
    #[cfg(not(feature = "images"))]
    pub fn screenshot(png: Vec<u8>) -> Result<Image, String> {
        let (width, height) = crate::model::png::dimensions(&png)
            .ok_or_else(|| "the screenshot is not a PNG".to_owned())?;
        if width <= MAX_IMAGE_SIDE && height <= MAX_IMAGE_SIDE {
            Ok(Image { png })
        } else {
            Err(format!(
                "the screenshot is {width}×{height}, over {MAX_IMAGE_SIDE} pixels a side, and \
                 scaling it needs Windup's `images` feature"
            ))
        }
    }
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Image(png, {} bytes)", self.png.len())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

/// What to ask a model for: an answer to `prompt` that is JSON matching `schema`.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub prompt: &'a Prompt,
    /// A short name for the schema (`windup_plan`), where the API wants one.
    pub schema_name: &'a str,
    pub schema: &'a Value,
    pub max_output_tokens: u32,
}

/// Tokens as the provider counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// The structured answer as text: the message content, or the forced tool's input.
    pub text: String,
    pub usage: Usage,
    /// The answer stopped at the output-token limit, so `text` is likely cut short.
    pub truncated: bool,
}

/// One HTTP attempt of a call, as the ledger records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub usage: Usage,
    pub latency: Duration,
    /// Whether this attempt repeated an earlier one that failed in transit.
    pub retried: bool,
    /// A class name when the attempt failed (`rate_limited`, `server_error`, `timeout`, …).
    pub failure: Option<&'static str>,
}

/// The outcome of a call with every attempt it took.
#[derive(Debug)]
pub struct Called {
    pub result: Result<Completion, LlmError>,
    pub attempts: Vec<Attempt>,
}

/// A model provider.
pub trait LlmClient: Send + Sync {
    /// The provider's name as the ledger and the price table spell it (`openai`, `gemini`,
    /// `anthropic`, `openai-compatible`).
    fn provider(&self) -> &str;
    /// The model this client asks.
    fn model(&self) -> &str;
    /// Asks the model once, retrying failures in transit within the client's policy.
    fn complete<'a>(&'a self, request: &'a Request<'a>) -> BoxFuture<'a, Called>;
}

/// Why a call gave no answer. Messages name the provider, what happened and what to do; they
/// never carry a key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    #[error("{provider}: the API key is missing: set the environment variable {variable}")]
    MissingKey { provider: String, variable: String },
    #[error(
        "{provider}: no model is configured: set `model` under [llm] in windup.toml, or WINDUP_MODEL"
    )]
    MissingModel { provider: String },
    #[error("{provider}: {message}")]
    Config { provider: String, message: String },
    #[error("{provider} answered HTTP {status}{after}: {message}; {hint}", after = attempts_note(*attempts))]
    Status {
        provider: String,
        status: u16,
        message: String,
        hint: String,
        attempts: u32,
    },
    #[error("{provider} did not answer within {timeout:?}{after}; raise `timeout_ms` under [llm], or check that {url} is reachable", after = attempts_note(*attempts))]
    Timeout {
        provider: String,
        url: String,
        timeout: Duration,
        attempts: u32,
    },
    #[error("{provider}: the connection to {url} failed{after}: {message}; check `base_url` and that the server runs", after = attempts_note(*attempts))]
    Connection {
        provider: String,
        url: String,
        message: String,
        attempts: u32,
    },
    #[error(
        "{provider} sent a response Windup cannot read: {problem}; if this repeats, report it with the provider's status page in mind"
    )]
    BadResponse { provider: String, problem: String },
    #[error(
        "{provider} refused to answer: {message}; reword the task or hints that led to it, or set \
         another `model` under [llm]"
    )]
    Refused {
        provider: String,
        message: String,
        /// The tokens the provider billed for the refusal: the ledger records them.
        usage: Usage,
    },
}

impl LlmError {
    /// The class the ledger records for a call that ended with this error.
    pub fn class(&self) -> &'static str {
        match self {
            LlmError::MissingKey { .. }
            | LlmError::MissingModel { .. }
            | LlmError::Config { .. } => "config",
            LlmError::Status { status: 429, .. } => "rate_limited",
            LlmError::Status { status, .. } if *status >= 500 => "server_error",
            LlmError::Status { .. } => "rejected",
            LlmError::Timeout { .. } => "timeout",
            LlmError::Connection { .. } => "connection",
            LlmError::BadResponse { .. } => "bad_response",
            LlmError::Refused { .. } => "refused",
        }
    }

    /// The tokens the provider billed for the attempt that ended with this error: a refusal is
    /// billed; an error with no answer is not.
    pub fn usage(&self) -> Usage {
        match self {
            LlmError::Refused { usage, .. } => *usage,
            _ => Usage::default(),
        }
    }
}

fn attempts_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" (after {attempts} attempts)")
    } else {
        String::new()
    }
}

/// The client `[llm]` describes, with the key the settings read. The key is held by the client
/// and sent only in the provider's auth header.
pub fn client(settings: &LlmSettings) -> Result<Box<dyn LlmClient>, LlmError> {
    let provider = settings.provider;
    let name = provider.as_str();
    let model = match settings
        .model
        .clone()
        .or(provider.default_model().map(str::to_owned))
    {
        Some(model) => model,
        None => {
            return Err(LlmError::MissingModel {
                provider: name.to_owned(),
            });
        }
    };
    let key_env = settings
        .api_key_env
        .clone()
        .or(provider.default_key_env().map(str::to_owned));
    let key = match &key_env {
        Some(variable) => match settings.api_key.clone() {
            Some(key) => Some(key),
            None => {
                return Err(LlmError::MissingKey {
                    provider: name.to_owned(),
                    variable: variable.clone(),
                });
            }
        },
        // A local OpenAI-compatible server usually wants no key.
        None => None,
    };
    let transport = http::Transport::new(
        name,
        RetryPolicy {
            retries: settings.limits.retries,
            ..RetryPolicy::default()
        },
        settings.limits.timeout,
        key_env,
    )?;
    let base = |default: &str| {
        settings
            .base_url
            .clone()
            .unwrap_or_else(|| default.to_owned())
    };
    Ok(match provider {
        Provider::OpenAi | Provider::OpenAiCompatible => Box::new(openai::OpenAi {
            transport,
            base_url: base(openai::DEFAULT_BASE_URL),
            model,
            key,
            compatible: provider == Provider::OpenAiCompatible,
        }),
        Provider::Gemini => Box::new(gemini::Gemini {
            transport: transport.reading_details(gemini::error_details),
            base_url: base(gemini::DEFAULT_BASE_URL),
            model,
            key: key.unwrap_or_default(),
        }),
        Provider::Anthropic => Box::new(anthropic::Anthropic {
            transport,
            base_url: base(anthropic::DEFAULT_BASE_URL),
            model,
            key: key.unwrap_or_default(),
        }),
    })
}

pub(crate) use crate::model::secret::SecretValue;

#[cfg(test)]
mod tests;
