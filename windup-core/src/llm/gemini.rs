//! Gemini `generateContent` with a JSON response MIME type and a response JSON schema.

use futures::future::BoxFuture;
use reqwest::header::HeaderName;
use serde_json::{Value, json};

use super::http::{Transport, json_body, not_sent, secret_headers};
use super::openai::number;
use super::{Called, Completion, LlmClient, LlmError, Request, Role, Secret, Usage};

pub(super) const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

pub(super) struct Gemini {
    pub(super) transport: Transport,
    pub(super) base_url: String,
    pub(super) model: String,
    pub(super) key: Secret,
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
/// refusal.
pub(super) fn read(bytes: &[u8]) -> Result<Completion, LlmError> {
    let bad = |problem: String| LlmError::BadResponse {
        provider: "gemini".to_owned(),
        problem,
    };
    let value = json_body("gemini", bytes)?;
    if let Some(reason) = value
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(LlmError::Refused {
            provider: "gemini".to_owned(),
            message: format!("the prompt was blocked ({reason})"),
        });
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
        return Err(LlmError::Refused {
            provider: "gemini".to_owned(),
            message: format!("the answer stopped with {finish}"),
        });
    }
    // Thinking tokens are billed as output.
    let usage = Usage {
        input_tokens: number(&value, "/usageMetadata/promptTokenCount"),
        output_tokens: number(&value, "/usageMetadata/candidatesTokenCount")
            + number(&value, "/usageMetadata/thoughtsTokenCount"),
    };
    Ok(Completion {
        text,
        usage,
        truncated: finish == "MAX_TOKENS",
    })
}
