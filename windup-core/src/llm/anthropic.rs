//! Anthropic Messages with a forced tool whose input schema is the answer's schema.

use futures::future::BoxFuture;
use reqwest::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::http::{Transport, json_body, not_sent, secret_headers};
use super::openai::number;
use super::{Called, Completion, LlmClient, LlmError, Request, Role, SecretValue, Usage};

pub(super) const DEFAULT_BASE_URL: &str = "https://api.anthropic.com/v1";
/// The API version this client speaks (`anthropic-version`).
const API_VERSION: &str = "2023-06-01";

pub(super) struct Anthropic {
    pub(super) transport: Transport,
    pub(super) base_url: String,
    pub(super) model: String,
    pub(super) key: SecretValue,
}

impl LlmClient for Anthropic {
    fn provider(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, request: &'a Request<'a>) -> BoxFuture<'a, Called> {
        Box::pin(async move {
            let url = format!("{}/messages", self.base_url.trim_end_matches('/'));
            let mut headers = match secret_headers(
                "anthropic",
                &[(
                    HeaderName::from_static("x-api-key"),
                    self.key.expose().to_owned(),
                )],
            ) {
                Ok(headers) => headers,
                Err(error) => return not_sent(error),
            };
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(API_VERSION),
            );
            let body = body(request, &self.model);
            let tool = request.schema_name;
            self.transport
                .post(&url, headers, &body, |bytes| read(bytes, tool))
                .await
        })
    }
}

/// A turn's content: its text, or its images then its text as blocks (images first, as the
/// API's guide advises).
fn content(message: &crate::llm::Message) -> Value {
    if message.images.is_empty() {
        return json!(message.text);
    }
    let mut blocks: Vec<Value> = message
        .images
        .iter()
        .map(|image| {
            json!({ "type": "image", "source": {
                "type": "base64",
                "media_type": crate::llm::Image::MEDIA_TYPE,
                "data": image.base64(),
            } })
        })
        .collect();
    blocks.push(json!({ "type": "text", "text": message.text }));
    Value::Array(blocks)
}

pub(super) fn body(request: &Request<'_>, model: &str) -> Value {
    let messages: Vec<Value> = request
        .prompt
        .messages
        .iter()
        .map(|message| {
            let role = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            json!({ "role": role, "content": content(message) })
        })
        .collect();
    json!({
        "model": model,
        "max_tokens": request.max_output_tokens,
        "system": request.prompt.system,
        "messages": messages,
        "tools": [{
            "name": request.schema_name,
            "description": "Submit the answer. Call this tool exactly once with the whole answer as its input.",
            "input_schema": request.schema,
        }],
        "tool_choice": { "type": "tool", "name": request.schema_name },
    })
}

/// Reads the forced tool's input as the answer; without a tool call, the text blocks (which
/// the planner will find are not a plan).
pub(super) fn read(bytes: &[u8], tool: &str) -> Result<Completion, LlmError> {
    let bad = |problem: String| LlmError::BadResponse {
        provider: "anthropic".to_owned(),
        problem,
    };
    let value = json_body("anthropic", bytes)?;
    let stop = value
        .get("stop_reason")
        .and_then(Value::as_str)
        .unwrap_or("");
    let usage = Usage {
        input_tokens: number(&value, "/usage/input_tokens"),
        output_tokens: number(&value, "/usage/output_tokens"),
    };
    if stop == "refusal" {
        // A refusal is billed like an answer.
        return Err(LlmError::Refused {
            provider: "anthropic".to_owned(),
            message: "the model declined to answer (stop_reason refusal)".to_owned(),
            usage,
        });
    }
    let blocks = value
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `content` list".to_owned()))?;
    let called = blocks.iter().find(|block| {
        block.get("type").and_then(Value::as_str) == Some("tool_use")
            && block.get("name").and_then(Value::as_str) == Some(tool)
    });
    let text = match called.and_then(|block| block.get("input")) {
        Some(input) => input.to_string(),
        None => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect(),
    };
    Ok(Completion {
        text,
        usage,
        truncated: stop == "max_tokens",
    })
}
