//! OpenAI Chat Completions with Structured Outputs: `POST /v1/chat/completions`.

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::check::{self, Fields};
use crate::render::{Answer, Exchange};
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
        if !message.get("content").is_some_and(Value::is_string) {
            problems.push(format!(
                "messages[{i}].content must be a string, got {}",
                check::got(message.get("content"))
            ));
        }
    }
    check_response_format(body.get("response_format"), &mut problems);
    problems
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
    let output_tokens = crate::render::tokens(text.len());
    json!({
        "id": format!("chatcmpl-fake-{}", exchange.seq),
        "object": "chat.completion",
        "created": crate::render::CREATED,
        "model": exchange.model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": text, "refusal": null },
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": exchange.input_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": exchange.input_tokens + output_tokens
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
