//! Gemini generateContent with a JSON response schema:
//! `POST /v1beta/models/{model}:generateContent`.
//!
//! The REST API reads protobuf JSON, which accepts a field in lowerCamelCase or in its original
//! snake_case (the official curl samples send `system_instruction`), so both spellings count.

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::check::{self, Fields};
use crate::image::{self, Tally};
use crate::render::{Answer, Exchange, Refusal};

/// Every way the request differs from a well-formed JSON-schema generateContent request.
pub(crate) fn check(
    model: &str,
    verb: &str,
    headers: &HeaderMap,
    body: Option<&Fields>,
) -> Vec<String> {
    let mut problems = Vec::new();
    if model.is_empty() || verb != "generateContent" {
        problems.push(format!(
            "the path must be /v1beta/models/{{model}}:generateContent, got model {model:?} and method {verb:?}"
        ));
    }
    if check::header(headers, "x-goog-api-key").is_none() {
        problems.push("the x-goog-api-key header must carry the API key".to_owned());
    }
    let Some(body) = body else {
        return problems;
    };

    let contents = check::non_empty_array(body, "contents", "contents", &mut problems);
    for (i, content) in contents.into_iter().flatten().enumerate() {
        let path = format!("contents[{i}]");
        let Some(content) = check::object(Some(content), &path, &mut problems) else {
            continue;
        };
        match content.get("role").and_then(Value::as_str) {
            Some("user" | "model") => {}
            _ => problems.push(format!(
                "{path}.role must be \"user\" or \"model\", got {}",
                quoted(content.get("role"))
            )),
        }
        check_parts(content, &path, true, &mut problems);
    }
    if let Some(system) = field(body, "systemInstruction", "system_instruction")
        && let Some(system) = check::object(Some(system), "systemInstruction", &mut problems)
    {
        check_parts(system, "systemInstruction", false, &mut problems);
    }

    let config = field(body, "generationConfig", "generation_config");
    let Some(config) = check::object(config, "generationConfig", &mut problems) else {
        return problems;
    };
    let mime = field(config, "responseMimeType", "response_mime_type");
    if mime.and_then(Value::as_str) != Some("application/json") {
        problems.push(format!(
            "generationConfig.responseMimeType must be \"application/json\", got {}",
            quoted(mime)
        ));
    }
    let json_schema = field(config, "responseJsonSchema", "response_json_schema");
    let schema = field(config, "responseSchema", "response_schema");
    match (
        json_schema.is_some_and(Value::is_object),
        schema.is_some_and(Value::is_object),
    ) {
        (true, false) | (false, true) => {}
        (true, true) => problems.push(
            "generationConfig must set only one of responseJsonSchema and responseSchema, got both"
                .to_owned(),
        ),
        (false, false) => problems.push(format!(
            "generationConfig.responseJsonSchema (or responseSchema) must be an object, got {}",
            check::got(json_schema.or(schema))
        )),
    }
    problems
}

/// `fields[camel]`, or `fields[snake]` when only that spelling is present.
fn field<'a>(fields: &'a Fields, camel: &str, snake: &str) -> Option<&'a Value> {
    fields.get(camel).or_else(|| fields.get(snake))
}

/// Checks `parts`: a non-empty array of `{ "text": string }`, or also of
/// `{ "inlineData": { "mimeType", "data" } }` where `images` allows.
fn check_parts(content: &Fields, path: &str, images: bool, problems: &mut Vec<String>) {
    let parts = check::non_empty_array(content, "parts", &format!("{path}.parts"), problems);
    for (j, part) in parts.into_iter().flatten().enumerate() {
        let path = format!("{path}.parts[{j}]");
        let inline = part
            .as_object()
            .and_then(|p| field(p, "inlineData", "inline_data"));
        match (part.get("text"), inline) {
            (Some(_), Some(_)) => problems.push(format!(
                "{path} must hold exactly one of text and inlineData, got both"
            )),
            (None, Some(_)) if !images => {
                problems.push(format!("{path} must be a text part, got inlineData"));
            }
            (None, Some(inline)) => check_inline_data(inline, &path, problems),
            (text, None) if !text.is_some_and(Value::is_string) => problems.push(format!(
                "{path}.text must be a string, got {}",
                check::got(text)
            )),
            (_, None) => {}
        }
    }
}

/// An image given inline: a known image media type and its base64 bytes.
fn check_inline_data(inline: &Value, path: &str, problems: &mut Vec<String>) {
    let path = format!("{path}.inlineData");
    let Some(inline) = check::object(Some(inline), &path, problems) else {
        return;
    };
    let mime = field(inline, "mimeType", "mime_type");
    let media = image::media_type(mime, &format!("{path}.mimeType"), problems);
    image::check_data(inline.get("data"), media, &format!("{path}.data"), problems);
}

/// The inline images of the contents and the system instruction.
pub(crate) fn images(body: &Fields) -> Tally {
    let mut tally = Tally::default();
    let contents = body.get("contents").and_then(Value::as_array);
    let system = field(body, "systemInstruction", "system_instruction");
    let parts = contents
        .into_iter()
        .flatten()
        .chain(system)
        .filter_map(|content| content.get("parts")?.as_array())
        .flatten();
    for part in parts {
        let inline = part
            .as_object()
            .and_then(|p| field(p, "inlineData", "inline_data"));
        if let Some(inline) = inline {
            tally.add(inline.get("data").and_then(Value::as_str));
        }
    }
    tally
}

fn quoted(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => format!("{s:?}"),
        other => check::got(other).to_owned(),
    }
}

/// A generateContent response with one candidate whose only part is the answer.
pub(crate) fn answer(exchange: &Exchange, answer: &Answer<'_>) -> Value {
    let text = answer.text();
    let output_tokens = crate::render::tokens(text.len());
    json!({
        "candidates": [{
            "content": { "role": "model", "parts": [{ "text": text }] },
            "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {
            "promptTokenCount": exchange.input_tokens,
            "candidatesTokenCount": output_tokens,
            "totalTokenCount": exchange.input_tokens + output_tokens
        },
        "modelVersion": exchange.model,
        "responseId": format!("fake-{}", exchange.seq)
    })
}

/// Google's error body: the HTTP code, the message and the canonical status name.
pub(crate) fn error(status: StatusCode, message: &str) -> Value {
    let name = match status.as_u16() {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        code if (400..500).contains(&code) => "FAILED_PRECONDITION",
        code if (500..600).contains(&code) => "INTERNAL",
        _ => "UNKNOWN",
    };
    json!({ "error": { "code": status.as_u16(), "message": message, "status": name } })
}

/// A blocked prompt: `promptFeedback.blockReason`, no candidates, and the usage all the same.
pub(crate) fn refusal(exchange: &Exchange, refusal: &Refusal<'_>) -> Value {
    let mut usage = json!({
        "promptTokenCount": refusal.input_tokens,
        "totalTokenCount": refusal.input_tokens + refusal.output_tokens
    });
    if refusal.output_tokens > 0 {
        usage["candidatesTokenCount"] = json!(refusal.output_tokens);
    }
    json!({
        "promptFeedback": {
            "blockReason": "SAFETY",
            "safetyRatings": [{
                "category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                "probability": "HIGH",
                "blocked": true
            }]
        },
        "usageMetadata": usage,
        "modelVersion": exchange.model,
        "responseId": format!("fake-{}", exchange.seq)
    })
}

/// Google's 429 for a spent quota, the wait in a `RetryInfo` among its details.
pub(crate) fn quota_exhausted(exchange: &Exchange, retry_delay: &str) -> Value {
    json!({ "error": {
        "code": 429,
        "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
        "status": "RESOURCE_EXHAUSTED",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{
                    "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    "quotaDimensions": { "location": "global", "model": exchange.model },
                    "quotaValue": "10"
                }]
            },
            {
                "@type": "type.googleapis.com/google.rpc.Help",
                "links": [{
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits"
                }]
            },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay }
        ]
    } })
}

/// Google's 400 for an API key it does not know.
pub(crate) fn invalid_key() -> Value {
    let message = "API key not valid. Please pass a valid API key.";
    json!({ "error": {
        "code": 400,
        "message": message,
        "status": "INVALID_ARGUMENT",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": { "service": "generativelanguage.googleapis.com" }
            },
            {
                "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                "locale": "en-US",
                "message": message
            }
        ]
    } })
}
