//! Gemini `generateContent` with a JSON response MIME type and a response JSON schema.

use futures::future::BoxFuture;
use reqwest::header::HeaderName;
use serde_json::{Value, json};

use std::time::Duration;

use super::http::{ErrorDetails, Transport, json_body, not_sent, secret_headers};
use super::openai::number;
use super::{Called, Completion, LlmClient, LlmError, Request, Role, SecretValue, Usage};

pub(super) const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

pub(super) struct Gemini {
    pub(super) transport: Transport,
    pub(super) base_url: String,
    pub(super) model: String,
    pub(super) key: SecretValue,
}

impl LlmClient for Gemini {
    fn provider(&self) -> &str {
        "gemini"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, request: &'a Request<'a>) -> BoxFuture<'a, Called> {
        Box::pin(async move {
            let url = format!(
                "{}/models/{}:generateContent",
                self.base_url.trim_end_matches('/'),
                self.model
            );
            let headers = match secret_headers(
                "gemini",
                &[(
                    HeaderName::from_static("x-goog-api-key"),
                    self.key.expose().to_owned(),
                )],
            ) {
                Ok(headers) => headers,
                Err(error) => return not_sent(error),
            };
            let body = body(request);
            self.transport.post(&url, headers, &body, read).await
        })
    }
}

pub(super) fn body(request: &Request<'_>) -> Value {
    let contents: Vec<Value> = request
        .prompt
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "model",
            };
            let mut parts = vec![json!({ "text": message.text })];
            for image in &message.images {
                parts.push(json!({ "inlineData": {
                    "mimeType": crate::llm::Image::MEDIA_TYPE,
                    "data": image.base64(),
                } }));
            }
            json!({ "role": role, "parts": parts })
        })
        .collect();
    json!({
        "systemInstruction": { "parts": [{ "text": request.prompt.system }] },
        "contents": contents,
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": request.schema,
            "maxOutputTokens": request.max_output_tokens,
        }
    })
}

/// Reads the first candidate's text; a blocked prompt or a candidate stopped for safety is a
/// refusal, billed all the same.
pub(super) fn read(bytes: &[u8]) -> Result<Completion, LlmError> {
    let bad = |problem: String| LlmError::BadResponse {
        provider: "gemini".to_owned(),
        problem,
    };
    let value = json_body("gemini", bytes)?;
    // Thinking tokens are billed as output.
    let usage = Usage {
        input_tokens: number(&value, "/usageMetadata/promptTokenCount"),
        output_tokens: number(&value, "/usageMetadata/candidatesTokenCount")
            + number(&value, "/usageMetadata/thoughtsTokenCount"),
    };
    let refused = |message: String| LlmError::Refused {
        provider: "gemini".to_owned(),
        message,
        usage,
    };
    if let Some(reason) = value
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(refused(format!("the prompt was blocked ({reason})")));
    }
    let candidate = value
        .pointer("/candidates/0")
        .ok_or_else(|| bad("no `candidates[0]`".to_owned()))?;
    let finish = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .unwrap_or("");
    let text: String = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() && !matches!(finish, "" | "STOP" | "MAX_TOKENS") {
        return Err(refused(format!("the answer stopped with {finish}")));
    }
    Ok(Completion {
        text,
        usage,
        truncated: finish == "MAX_TOKENS",
    })
}

/// What Google's error body says in `error.details[]`: the wait a `google.rpc.RetryInfo` asks
/// for, and whether a `google.rpc.ErrorInfo` says the key is not valid (`API_KEY_INVALID`,
/// which Gemini sends with a 400 `INVALID_ARGUMENT`).
pub(super) fn error_details(bytes: &[u8]) -> ErrorDetails {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return ErrorDetails::default();
    };
    let mut details = ErrorDetails::default();
    let entries = value
        .pointer("/error/details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    for entry in entries {
        let kind = entry.get("@type").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with("/google.rpc.RetryInfo") {
            let delay = entry.get("retryDelay").and_then(Value::as_str);
            details.retry_delay = details.retry_delay.or(delay.and_then(duration));
        } else if kind.ends_with("/google.rpc.ErrorInfo")
            && entry.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID")
        {
            details.key_invalid = true;
        }
    }
    details
}

/// A protobuf `Duration` as JSON writes it: whole seconds, an optional fraction of up to nine
/// digits, and `s` (`"37s"`, `"1.5s"`, `"0.000001s"`). `None` for anything else, a negative
/// one included.
pub(super) fn duration(text: &str) -> Option<Duration> {
    let number = text.trim().strip_suffix('s')?;
    let (whole, fraction) = match number.split_once('.') {
        Some((whole, fraction)) if !fraction.is_empty() => (whole, fraction),
        Some(_) => return None,
        None => (number, ""),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || fraction.len() > 9 || !digits(fraction) {
        return None;
    }
    let seconds: u64 = whole.parse().ok()?;
    let nanos: u32 = format!("{fraction:0<9}").parse().ok()?;
    Some(Duration::new(seconds, nanos))
}
