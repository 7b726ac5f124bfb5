//! One JSON POST to a provider, retried while it fails in transit.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};
use serde_json::Value;
use time::OffsetDateTime;
use time::macros::format_description;

use super::{Attempt, Called, Completion, LlmError};
use crate::model::excerpt::cut;

/// How a call that fails in transit is retried.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub retries: u32,
    /// The pause before the first retry; it doubles with each retry, up to `max_backoff`.
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    /// The longest `Retry-After` honoured: a provider asking for more is not waited for, and
    /// the error says when to try again.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            retries: 3,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The pause before retry number `retry` (0-based), unless the provider said otherwise.
    fn backoff(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry.min(16)).unwrap_or(u32::MAX);
        self.first_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
    }
}

/// Posts JSON for one provider.
pub(super) struct Transport {
    provider: String,
    client: reqwest::Client,
    policy: RetryPolicy,
    timeout: Duration,
    /// The name of the environment variable the key comes from, for messages about the key.
    key_env: Option<String>,
    /// Reads what the provider's error bodies say beyond their message.
    details: fn(&[u8]) -> ErrorDetails,
}

/// What a provider's error body says beyond its message, in a shape only that provider uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct ErrorDetails {
    /// How long the provider asks to wait before trying again.
    pub(super) retry_delay: Option<Duration>,
    /// The provider says the API key is not valid, whatever the status.
    pub(super) key_invalid: bool,
}

/// What an attempt ended with, before retry decisions.
enum Failure {
    /// Worth another attempt, after at least this long (a provider's `Retry-After`).
    Transient(LlmError, Option<Duration>),
    Final(LlmError),
}

impl Transport {
    pub(super) fn new(
        provider: &str,
        policy: RetryPolicy,
        timeout: Duration,
        key_env: Option<String>,
    ) -> Result<Self, LlmError> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|err| LlmError::Config {
                provider: provider.to_owned(),
                message: format!("cannot set up HTTP: {err}"),
            })?;
        Ok(Self {
            provider: provider.to_owned(),
            client,
            policy,
            timeout,
            key_env,
            details: |_| ErrorDetails::default(),
        })
    }

    /// This transport, reading error bodies' details with `details`.
    pub(super) fn reading_details(self, details: fn(&[u8]) -> ErrorDetails) -> Self {
        Self { details, ..self }
    }

    /// Posts `body` to `url` with `headers`, reading a 2xx answer with `read`. Failures in
    /// transit are retried within the policy; every attempt is in the result.
    pub(super) async fn post(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
        read: impl Fn(&[u8]) -> Result<Completion, LlmError>,
    ) -> Called {
        let mut attempts: Vec<Attempt> = Vec::new();
        let mut retry = 0;
        loop {
            let started = Instant::now();
            let outcome = self.attempt(url, headers.clone(), body, &read).await;
            let latency = started.elapsed();
            let retried = retry > 0;
            match outcome {
                Ok(completion) => {
                    attempts.push(Attempt {
                        usage: completion.usage,
                        latency,
                        retried,
                        failure: None,
                    });
                    return Called {
                        result: Ok(completion),
                        attempts,
                    };
                }
                Err(failure) => {
                    let (error, wait) = match failure {
                        Failure::Transient(error, after) => (error, Some(after)),
                        Failure::Final(error) => (error, None),
                    };
                    attempts.push(Attempt {
                        usage: error.usage(),
                        latency,
                        retried,
                        failure: Some(error.class()),
                    });
                    let pause = match wait {
                        Some(after) if retry < self.policy.retries => {
                            let pause = after.unwrap_or_else(|| self.policy.backoff(retry));
                            (pause <= self.policy.max_retry_after).then_some(pause)
                        }
                        _ => None,
                    };
                    match pause {
                        Some(pause) => {
                            tokio::time::sleep(pause).await;
                            retry += 1;
                        }
                        None => {
                            let count = u32::try_from(attempts.len()).unwrap_or(u32::MAX);
                            return Called {
                                result: Err(with_attempts(error, count)),
                                attempts,
                            };
                        }
                    }
                }
            }
        }
    }

    async fn attempt(
        &self,
        url: &str,
        headers: HeaderMap,
        body: &Value,
        read: &impl Fn(&[u8]) -> Result<Completion, LlmError>,
    ) -> Result<Completion, Failure> {
        let sent = self
            .client
            .post(url)
            .headers(headers)
            .json(body)
            .send()
            .await;
        let response = sent.map_err(|err| self.transit(url, &err))?;
        let status = response.status();
        let retry_after = retry_after(response.headers(), OffsetDateTime::now_utc());
        let bytes = response
            .bytes()
            .await
            .map_err(|err| self.transit(url, &err))?;
        if status.is_success() {
            return read(&bytes).map_err(Failure::Final);
        }
        let details = (self.details)(&bytes);
        let wait = retry_after.or(details.retry_delay);
        let hint = if details.key_invalid {
            key_hint(self.key_env.as_deref())
        } else {
            hint(status, wait, &self.policy, self.key_env.as_deref())
        };
        let error = LlmError::Status {
            provider: self.provider.clone(),
            status: status.as_u16(),
            message: error_message(&bytes),
            hint,
            attempts: 1,
        };
        if is_transient(status) && !details.key_invalid {
            Err(Failure::Transient(error, wait))
        } else {
            Err(Failure::Final(error))
        }
    }

    /// A request that got no whole answer: timed out, or the connection failed or was cut.
    fn transit(&self, url: &str, err: &reqwest::Error) -> Failure {
        let error = if err.is_timeout() {
            LlmError::Timeout {
                provider: self.provider.clone(),
                url: url.to_owned(),
                timeout: self.timeout,
                attempts: 1,
            }
        } else {
            LlmError::Connection {
                provider: self.provider.clone(),
                url: url.to_owned(),
                message: describe(err),
                attempts: 1,
            }
        };
        Failure::Transient(error, None)
    }
}

/// Headers carrying a secret, marked sensitive so that no debug output shows them.
pub(super) fn secret_headers(
    provider: &str,
    secrets: &[(HeaderName, String)],
) -> Result<HeaderMap, LlmError> {
    let mut headers = HeaderMap::new();
    for (name, value) in secrets {
        let mut value = HeaderValue::from_str(value).map_err(|_| LlmError::Config {
            provider: provider.to_owned(),
            message: "the API key holds characters a header cannot carry".to_owned(),
        })?;
        value.set_sensitive(true);
        headers.insert(name.clone(), value);
    }
    Ok(headers)
}

/// A call that failed before any attempt.
pub(super) fn not_sent(error: LlmError) -> Called {
    Called {
        result: Err(error),
        attempts: Vec::new(),
    }
}

/// A provider's response body as JSON, or why it is not.
pub(super) fn json_body(provider: &str, bytes: &[u8]) -> Result<Value, LlmError> {
    serde_json::from_slice(bytes).map_err(|err| LlmError::BadResponse {
        provider: provider.to_owned(),
        problem: format!(
            "not JSON ({err}): {}",
            cut(&String::from_utf8_lossy(bytes), 200)
        ),
    })
}

/// 408, 425, 429, 500, 502, 503, 504 and Anthropic's 529 (overloaded) are worth another try.
fn is_transient(status: StatusCode) -> bool {
    matches!(
        status.as_u16(),
        408 | 425 | 429 | 500 | 502 | 503 | 504 | 529
    )
}

fn hint(
    status: StatusCode,
    retry_after: Option<Duration>,
    policy: &RetryPolicy,
    key_env: Option<&str>,
) -> String {
    match status.as_u16() {
        401 => key_hint(key_env),
        403 => match key_env {
            Some(variable) => format!(
                "check that the API key in the environment variable {variable} may use this API \
                 and `model`"
            ),
            None => "check that the server lets this client use `model`".to_owned(),
        },
        404 => "check `model` and `base_url` under [llm]".to_owned(),
        400 | 422 => {
            "the provider rejected the request; check `model` supports structured output".to_owned()
        }
        429 => match retry_after {
            Some(after) if after > policy.max_retry_after => format!(
                "the provider asks to wait {}s; try again then, or raise your rate limit",
                after.as_secs() + u64::from(after.subsec_nanos() > 0)
            ),
            _ => "rate limited: try again later, lower `workers`, or raise your rate limit"
                .to_owned(),
        },
        _ if status.is_server_error() || status.as_u16() == 529 => {
            "the provider is failing; try again later".to_owned()
        }
        _ => "see the provider's message".to_owned(),
    }
}

/// What to do about a key the provider does not accept, naming where it comes from (never the
/// key).
fn key_hint(key_env: Option<&str>) -> String {
    match key_env {
        Some(variable) => format!(
            "the API key is not valid: set the environment variable {variable} to a valid key \
             (or `api_key_env` under [llm] to the variable that holds one)"
        ),
        None => "the server wants an API key: set `api_key_env` under [llm] to the environment \
                 variable that holds it"
            .to_owned(),
    }
}

fn with_attempts(error: LlmError, count: u32) -> LlmError {
    match error {
        LlmError::Status {
            provider,
            status,
            message,
            hint,
            ..
        } => LlmError::Status {
            provider,
            status,
            message,
            hint,
            attempts: count,
        },
        LlmError::Timeout {
            provider,
            url,
            timeout,
            ..
        } => LlmError::Timeout {
            provider,
            url,
            timeout,
            attempts: count,
        },
        LlmError::Connection {
            provider,
            url,
            message,
            ..
        } => LlmError::Connection {
            provider,
            url,
            message,
            attempts: count,
        },
        other => other,
    }
}

/// `Retry-After` as seconds or as an HTTP date.
pub(super) fn retry_after(headers: &HeaderMap, now: OffsetDateTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let format = format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let at = time::PrimitiveDateTime::parse(value, &format)
        .ok()?
        .assume_utc();
    Some(Duration::try_from(at - now).unwrap_or(Duration::ZERO))
}

/// The provider's own error message (`error.message` in all three formats), or the start of
/// the body.
fn error_message(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| String::from_utf8_lossy(body).trim().to_owned());
    // The hint follows after a `;`, so a closing full stop would stand before it.
    let message = message.trim_end_matches('.');
    let message = if message.is_empty() {
        "no message"
    } else {
        message
    };
    cut(message, 300)
}

fn describe(err: &reqwest::Error) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    cut(&text, 300)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let now = OffsetDateTime::from_unix_timestamp(784_111_777).unwrap(); // Sun, 06 Nov 1994 08:49:37 GMT
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(7)));
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:47 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(10)));
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Sun, 06 Nov 1994 08:49:30 GMT"),
        );
        assert_eq!(retry_after(&headers, now), Some(Duration::ZERO), "past");
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
    }

    #[test]
    fn backoff_doubles_to_its_cap() {
        let policy = RetryPolicy::default();
        let pauses: Vec<u64> = (0..6)
            .map(|n| policy.backoff(n).as_millis() as u64)
            .collect();
        assert_eq!(pauses, [500, 1000, 2000, 4000, 8000, 8000]);
        assert_eq!(policy.backoff(u32::MAX), policy.max_backoff);
    }

    #[test]
    fn a_refused_key_is_traced_to_its_variable() {
        let policy = RetryPolicy::default();
        let hint = |status: u16, key_env: Option<&str>| {
            hint(
                StatusCode::from_u16(status).unwrap(),
                None,
                &policy,
                key_env,
            )
        };
        assert_eq!(
            hint(401, Some("TEAM_KEY")),
            "the API key is not valid: set the environment variable TEAM_KEY to a valid key (or \
             `api_key_env` under [llm] to the variable that holds one)"
        );
        assert_eq!(
            hint(401, None),
            "the server wants an API key: set `api_key_env` under [llm] to the environment \
             variable that holds it"
        );
        assert_eq!(
            hint(403, Some("GEMINI_API_KEY")),
            "check that the API key in the environment variable GEMINI_API_KEY may use this API \
             and `model`"
        );
    }

    #[test]
    fn error_messages_come_from_the_body() {
        assert_eq!(
            error_message(br#"{"error":{"message":"slow down","type":"rate_limit"}}"#),
            "slow down"
        );
        assert_eq!(error_message(b"  bad gateway "), "bad gateway");
        assert_eq!(
            error_message(br#"{"error":{"message":"API key not valid."}}"#),
            "API key not valid",
            "the hint's `;` follows"
        );
        assert_eq!(error_message(b""), "no message");
        assert_eq!(
            error_message("x".repeat(400).as_bytes()),
            format!("{}… (400 characters in all)", "x".repeat(300))
        );
    }
}
