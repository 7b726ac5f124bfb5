//! OpenAI Chat Completions with Structured Outputs: `POST /v1/chat/completions`.

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::check::{self, Fields};
use crate::image::{self, Tally};
use crate::render::{Answer, Exchange, Refusal};
use crate::strict;

/// The message roles a structured-output request may use.
const ROLES: [&str; 4] = ["system", "developer", "user", "assistant"];

/// Every way the request differs from a well-formed strict structured-output request.
pub(crate) fn check(headers: &HeaderMap, body: Option<&Fields>) -> Vec<String> {
    let mut problems = Vec::new();
    let bearer = check::header(headers, "authorization")
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|key| !key.is_empty());
    if bearer.is_none() {
        problems.push("the authorization header must be `Bearer <api key>`".to_owned());
    }
    let Some(body) = body else {
        return problems;
    };

    check::non_empty_string(body, "model", "model", &mut problems);
    let messages = check::non_empty_array(body, "messages", "messages", &mut problems);
    for (i, message) in messages.into_iter().flatten().enumerate() {
        let Some(message) = check::object(Some(message), &format!("messages[{i}]"), &mut problems)
        else {
            continue;
        };
        match message.get("role").and_then(Value::as_str) {
            Some(role) if ROLES.contains(&role) => {}
            other => problems.push(format!(
                "messages[{i}].role must be one of {}, got {}",
                ROLES.join(", "),
                other.map_or_else(
                    || check::got(message.get("role")).to_owned(),
                    |r| format!("{r:?}")
                )
            )),
        }
        let role = message.get("role").and_then(Value::as_str);
        check_content(message, &format!("messages[{i}]"), role, &mut problems);
    }
    check_response_format(body.get("response_format"), &mut problems);
    problems
}

/// `content` is a string or a non-empty array of parts: text parts, and image parts in a user message.
fn check_content(message: &Fields, path: &str, role: Option<&str>, problems: &mut Vec<String>) {
    let parts = match message.get("content") {
        Some(Value::String(_)) => return,
        Some(Value::Array(parts)) if !parts.is_empty() => parts,
        other => {
            let got = match other {
                Some(Value::Array(_)) => "an empty array",
                other => check::got(other),
            };
            problems.push(format!(
                "{path}.content must be a string or a non-empty array of content parts, got {got}"
            ));
            return;
        }
    };
    let user = role == Some("user");
    for (j, part) in parts.iter().enumerate() {
        let path = format!("{path}.content[{j}]");
        let Some(part) = check::object(Some(part), &path, problems) else {
            continue;
        };
        match part.get("type").and_then(Value::as_str) {
            Some("text") if !part.get("text").is_some_and(Value::is_string) => {
                problems.push(format!(
                    "{path}.text must be a string, got {}",
                    check::got(part.get("text"))
                ));
            }
            Some("text") => {}
            Some("image_url") if user => check_image_url(part, &path, problems),
            Some("image_url") => problems.push(format!(
                "{path} must be a text part: only user messages may carry images, got an image_url part in a {} message",
                role.unwrap_or("role-less")
            )),
            _ if user => problems.push(format!(
                "{path}.type must be \"text\" or \"image_url\", got {}",
                describe(part.get("type"))
            )),
            _ => problems.push(format!(
                "{path}.type must be \"text\", got {}",
                describe(part.get("type"))
            )),
        }
    }
}

/// An image part's `image_url`: an https URL or a base64 data URL, and an optional detail.
fn check_image_url(part: &Fields, path: &str, problems: &mut Vec<String>) {
    let path = format!("{path}.image_url");
    let Some(image_url) = check::object(part.get("image_url"), &path, problems) else {
        return;
    };
    let url_path = format!("{path}.url");
    let url = image_url.get("url").and_then(Value::as_str);
    match url.map(|url| (url, image::data_url(url))) {
        Some((_, Some((media, payload)))) if image::MEDIA_TYPES.contains(&media) => {
            image::check_payload(payload, Some(media), &url_path, problems);
        }
        Some((_, Some((media, _)))) => problems.push(format!(
            "{url_path} must be a data URL of one of {}, got one of {media:?}",
            image::MEDIA_TYPES.join(", ")
        )),
        Some((url, None)) if url.len() > "https://".len() && url.starts_with("https://") => {}
        _ => problems.push(format!(
            "{url_path} must be an https:// URL or a data:<image type>;base64,<data> URL, got {}",
            image::preview(image_url.get("url"))
        )),
    }
    match image_url.get("detail").and_then(Value::as_str) {
        None if !image_url.contains_key("detail") => {}
        Some("auto" | "low" | "high") => {}
        _ => problems.push(format!(
            "{path}.detail must be \"auto\", \"low\" or \"high\", got {}",
            describe(image_url.get("detail"))
        )),
    }
}

/// The images the messages carry; a data URL's payload is the part after its comma.
pub(crate) fn images(body: &Fields) -> Tally {
    let mut tally = Tally::default();
    let parts = crate::image::content_parts(body);
    for part in parts.filter(|p| p.get("type").and_then(Value::as_str) == Some("image_url")) {
        let url = part.pointer("/image_url/url").and_then(Value::as_str);
        tally.add(url.and_then(image::data_url).map(|(_, payload)| payload));
    }
    tally
}

fn check_response_format(format: Option<&Value>, problems: &mut Vec<String>) {
    let Some(format) = check::object(format, "response_format", problems) else {
        return;
    };
    if format.get("type").and_then(Value::as_str) != Some("json_schema") {
        problems.push(format!(
            "response_format.type must be \"json_schema\", got {}",
            describe(format.get("type"))
        ));
    }
    let Some(spec) = check::object(
        format.get("json_schema"),
        "response_format.json_schema",
        problems,
    ) else {
        return;
    };
    let name = spec.get("name").and_then(Value::as_str).unwrap_or_default();
    if !check::is_name(name) {
        problems.push(format!(
            "response_format.json_schema.name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {}",
            describe(spec.get("name"))
        ));
    }
    if spec.get("strict") != Some(&Value::Bool(true)) {
        problems.push(format!(
            "response_format.json_schema.strict must be true, got {}",
            describe(spec.get("strict"))
        ));
    }
    match spec.get("schema") {
        Some(schema @ Value::Object(_)) => problems.extend(strict::problems(name, schema)),
        other => problems.push(format!(
            "response_format.json_schema.schema must be an object, got {}",
            check::got(other)
        )),
    }
}

/// A value quoted for a message: `"json_object"`, or its kind when it is not a string.
fn describe(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => format!("{s:?}"),
        Some(Value::Bool(b)) => b.to_string(),
        other => check::got(other).to_owned(),
    }
}

/// A chat completion whose assistant message carries the answer.
pub(crate) fn answer(exchange: &Exchange, answer: &Answer<'_>) -> Value {
    let text = answer.text();
    let message = json!({ "role": "assistant", "content": text, "refusal": null });
    let output_tokens = crate::render::tokens(text.len());
    completion(exchange, message, (exchange.input_tokens, output_tokens))
}

/// A chat completion of one assistant `message`, with its usage (prompt and completion tokens).
fn completion(exchange: &Exchange, message: Value, (input, output): (u64, u64)) -> Value {
    json!({
        "id": format!("chatcmpl-fake-{}", exchange.seq),
        "object": "chat.completion",
        "created": crate::render::CREATED,
        "model": exchange.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": input,
            "completion_tokens": output,
            "total_tokens": input + output
        }
    })
}

/// OpenAI's error body.
pub(crate) fn error(status: StatusCode, message: &str) -> Value {
    let (kind, code) = match status.as_u16() {
        429 => ("requests", json!("rate_limit_exceeded")),
        code if code >= 500 => ("server_error", Value::Null),
        _ => ("invalid_request_error", Value::Null),
    };
    json!({ "error": { "message": message, "type": kind, "param": null, "code": code } })
}

/// A chat completion whose assistant message refuses: `refusal` set, `content` null.
pub(crate) fn refusal(exchange: &Exchange, refusal: &Refusal<'_>) -> Value {
    let message = json!({ "role": "assistant", "content": null, "refusal": refusal.message });
    completion(
        exchange,
        message,
        (refusal.input_tokens, refusal.output_tokens),
    )
}

/// OpenAI's 401 for an API key it does not know.
pub(crate) fn invalid_key() -> Value {
    json!({ "error": {
        "message": "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_api_key"
    } })
}
