//! OpenAI chat completions with a strict JSON-schema response format, and any server that
//! speaks that API by base URL (Ollama, vLLM, llama.cpp server, LM Studio).

use futures::future::BoxFuture;
use reqwest::header::{AUTHORIZATION, HeaderName};
use serde_json::{Value, json};

use super::http::{Transport, json_body, not_sent, secret_headers};
use super::{Called, Completion, LlmClient, LlmError, Request, Role, SecretValue, Usage};
use crate::model::excerpt::cut;

pub(super) const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

pub(super) struct OpenAi {
    pub(super) transport: Transport,
    pub(super) base_url: String,
    pub(super) model: String,
    pub(super) key: Option<SecretValue>,
    /// A server that speaks the API rather than OpenAI itself: `system` instead of
    /// `developer` instructions and `max_tokens` instead of `max_completion_tokens`, which
    /// such servers know better.
    pub(super) compatible: bool,
}

impl OpenAi {
    fn provider_name(&self) -> &'static str {
        if self.compatible {
            "openai-compatible"
        } else {
            "openai"
        }
    }
}

impl LlmClient for OpenAi {
    fn provider(&self) -> &str {
        self.provider_name()
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, request: &'a Request<'a>) -> BoxFuture<'a, Called> {
        Box::pin(async move {
            let url = format!("{}/chat/completions", self.base_url.trim_end_matches('/'));
            let secrets: Vec<(HeaderName, String)> = self
                .key
                .iter()
                .map(|key| (AUTHORIZATION, format!("Bearer {}", key.expose())))
                .collect();
            let headers = match secret_headers(self.provider_name(), &secrets) {
                Ok(headers) => headers,
                Err(error) => return not_sent(error),
            };
            let body = body(request, &self.model, self.compatible);
            let provider = self.provider_name();
            self.transport
                .post(&url, headers, &body, |bytes| read(provider, bytes))
                .await
        })
    }
}

/// The request body: instructions, turns, and the schema the answer must match.
pub(super) fn body(request: &Request<'_>, model: &str, compatible: bool) -> Value {
    let instructions_role = if compatible { "system" } else { "developer" };
    let mut messages = vec![json!({ "role": instructions_role, "content": request.prompt.system })];
    for message in &request.prompt.messages {
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        messages.push(json!({ "role": role, "content": content(message) }));
    }
    let limit = if compatible {
        "max_tokens"
    } else {
        "max_completion_tokens"
    };
    json!({
        "model": model,
        "messages": messages,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": request.schema_name,
                "strict": true,
                "schema": request.schema,
            }
        },
        limit: request.max_output_tokens,
    })
}

/// A turn's content: its text, or its text and images as content parts.
fn content(message: &crate::llm::Message) -> Value {
    if message.images.is_empty() {
        return json!(message.text);
    }
    let mut parts = vec![json!({ "type": "text", "text": message.text })];
    for image in &message.images {
        let url = format!(
            "data:{};base64,{}",
            crate::llm::Image::MEDIA_TYPE,
            image.base64()
        );
        parts.push(json!({ "type": "image_url", "image_url": { "url": url } }));
    }
    Value::Array(parts)
}

/// Reads a chat completion: the first choice's content, or its refusal with what it was billed.
pub(super) fn read(provider: &str, bytes: &[u8]) -> Result<Completion, LlmError> {
    let bad = |problem: String| LlmError::BadResponse {
        provider: provider.to_owned(),
        problem,
    };
    let value = json_body(provider, bytes)?;
    let usage = Usage {
        input_tokens: number(&value, "/usage/prompt_tokens"),
        output_tokens: number(&value, "/usage/completion_tokens"),
    };
    let choice = value
        .pointer("/choices/0")
        .ok_or_else(|| bad("no `choices[0]`".to_owned()))?;
    if let Some(refusal) = choice
        .pointer("/message/refusal")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        // A refusal is billed like an answer.
        return Err(LlmError::Refused {
            provider: provider.to_owned(),
            message: cut(refusal.trim_end_matches('.'), 300),
            usage,
        });
    }
    let text = choice
        .pointer("/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("no `choices[0].message.content`".to_owned()))?;
    Ok(Completion {
        text: text.to_owned(),
        usage,
        truncated: choice.get("finish_reason").and_then(Value::as_str) == Some("length"),
    })
}

pub(super) fn number(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}
