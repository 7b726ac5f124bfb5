//! Anthropic Messages with a forced tool as the structured output: `POST /v1/messages`.

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Value, json};

use crate::check::{self, Fields};
use crate::image::{self, Tally};
use crate::render::{Answer, Exchange, Refusal};

/// The only API version the Messages API has.
const VERSION: &str = "2023-06-01";

/// Every way the request differs from a well-formed forced-tool Messages request.
pub(crate) fn check(headers: &HeaderMap, body: Option<&Fields>) -> Vec<String> {
    let mut problems = Vec::new();
    if check::header(headers, "x-api-key").is_none() {
        problems.push("the x-api-key header must carry the API key".to_owned());
    }
    let version = check::header(headers, "anthropic-version");
    if version != Some(VERSION) {
        problems.push(format!(
            "the anthropic-version header must be {VERSION}, got {}",
            version.map_or_else(|| "none".to_owned(), |v| format!("{v:?}"))
        ));
    }
    let Some(body) = body else {
        return problems;
    };

    check::non_empty_string(body, "model", "model", &mut problems);
    if !matches!(body.get("max_tokens").and_then(Value::as_u64), Some(1..)) {
        problems.push(format!(
            "max_tokens must be a positive integer, got {}",
            shown(body.get("max_tokens"))
        ));
    }
    check_system(body.get("system"), &mut problems);
    check_messages(body, &mut problems);
    let tools = check_tools(body, &mut problems);
    check_tool_choice(body.get("tool_choice"), &tools, &mut problems);
    problems
}

/// `system` is optional: a string, or an array of text blocks.
fn check_system(system: Option<&Value>, problems: &mut Vec<String>) {
    match system {
        None | Some(Value::String(_)) => {}
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                if block.get("type").and_then(Value::as_str) != Some("text")
                    || !block.get("text").is_some_and(Value::is_string)
                {
                    problems.push(format!(
                        "system[{i}] must be a text block {{\"type\": \"text\", \"text\": string}}"
                    ));
                }
            }
        }
        Some(other) => problems.push(format!(
            "system must be a string or an array of text blocks, got {}",
            check::kind(other)
        )),
    }
}

fn check_messages(body: &Fields, problems: &mut Vec<String>) {
    let Some(messages) = check::non_empty_array(body, "messages", "messages", problems) else {
        return;
    };
    if messages[0].get("role").and_then(Value::as_str) != Some("user") {
        problems.push("messages[0] must be a user message".to_owned());
    }
    for (i, message) in messages.iter().enumerate() {
        let path = format!("messages[{i}]");
        let Some(message) = check::object(Some(message), &path, problems) else {
            continue;
        };
        let role = message.get("role").and_then(Value::as_str);
        match role {
            Some("user" | "assistant") => {}
            _ => problems.push(format!(
                "{path}.role must be \"user\" or \"assistant\", got {}",
                shown(message.get("role"))
            )),
        }
        match message.get("content") {
            Some(Value::String(_)) => {}
            Some(Value::Array(blocks)) => {
                for (j, block) in blocks.iter().enumerate() {
                    let path = format!("{path}.content[{j}]");
                    check_block(block, &path, role == Some("user"), problems);
                }
            }
            other => problems.push(format!(
                "{path}.content must be a string or an array of content blocks, got {}",
                check::got(other)
            )),
        }
    }
}

/// A content block is an object with a `type`; a text block also has its `text`, an image block
/// (only in a user message) its `source`.
fn check_block(block: &Value, path: &str, user: bool, problems: &mut Vec<String>) {
    match block.get("type").and_then(Value::as_str) {
        Some("text") if !block.get("text").is_some_and(Value::is_string) => {
            problems.push(format!("{path}.text must be a string"));
        }
        Some("image") if user => check_source(block.get("source"), path, problems),
        Some("image") => problems.push(format!(
            "{path} must not be an image block: only user messages may carry images"
        )),
        Some(_) => {}
        None => problems.push(format!(
            "{path} must be a content block with a string type, got {}",
            check::kind(block)
        )),
    }
}

/// An image block's `source`: base64 data of a known media type, or a URL.
fn check_source(source: Option<&Value>, path: &str, problems: &mut Vec<String>) {
    let path = format!("{path}.source");
    let Some(source) = check::object(source, &path, problems) else {
        return;
    };
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => {
            let media_path = format!("{path}.media_type");
            let media = image::media_type(source.get("media_type"), &media_path, problems);
            image::check_data(source.get("data"), media, &format!("{path}.data"), problems);
        }
        Some("url") => match source.get("url").and_then(Value::as_str) {
            Some(url) if is_web_url(url) => {}
            _ => problems.push(format!(
                "{path}.url must be an http:// or https:// URL, got {}",
                image::preview(source.get("url"))
            )),
        },
        _ => problems.push(format!(
            "{path}.type must be \"base64\" or \"url\", got {}",
            shown(source.get("type"))
        )),
    }
}

/// Whether `url` is an http or https URL with something after the scheme.
fn is_web_url(url: &str) -> bool {
    ["https://", "http://"].iter().any(|scheme| {
        url.strip_prefix(scheme)
            .is_some_and(|rest| !rest.is_empty())
    })
}

/// The image blocks of the messages; a base64 source's payload is its `data`.
pub(crate) fn images(body: &Fields) -> Tally {
    let mut tally = Tally::default();
    let blocks = crate::image::content_parts(body);
    for block in blocks.filter(|b| b.get("type").and_then(Value::as_str) == Some("image")) {
        tally.add(block.pointer("/source/data").and_then(Value::as_str));
    }
    tally
}

/// Checks `tools` and returns the names of those that are well-formed.
fn check_tools<'a>(body: &'a Fields, problems: &mut Vec<String>) -> Vec<&'a str> {
    let mut names = Vec::new();
    let tools = check::non_empty_array(body, "tools", "tools", problems);
    for (i, tool) in tools.into_iter().flatten().enumerate() {
        let path = format!("tools[{i}]");
        let Some(tool) = check::object(Some(tool), &path, problems) else {
            continue;
        };
        match tool.get("name").and_then(Value::as_str) {
            Some(name) if check::is_name(name) => names.push(name),
            _ => problems.push(format!(
                "{path}.name must match ^[a-zA-Z0-9_-]{{1,64}}$, got {}",
                shown(tool.get("name"))
            )),
        }
        if tool.get("description").is_some_and(|d| !d.is_string()) {
            problems.push(format!("{path}.description must be a string"));
        }
        let schema = check::object(
            tool.get("input_schema"),
            &format!("{path}.input_schema"),
            problems,
        );
        if schema.is_some_and(|s| s.get("type").and_then(Value::as_str) != Some("object")) {
            problems.push(format!("{path}.input_schema.type must be \"object\""));
        }
    }
    names
}

fn check_tool_choice(choice: Option<&Value>, tools: &[&str], problems: &mut Vec<String>) {
    let Some(choice) = check::object(choice, "tool_choice", problems) else {
        return;
    };
    if choice.get("type").and_then(Value::as_str) != Some("tool") {
        problems.push(format!(
            "tool_choice.type must be \"tool\", got {}",
            shown(choice.get("type"))
        ));
        return;
    }
    match choice.get("name").and_then(Value::as_str) {
        Some(name) if tools.contains(&name) => {}
        other => problems.push(format!(
            "tool_choice.name must name one of the tools ({}), got {}",
            tools.join(", "),
            other.map_or_else(
                || check::got(choice.get("name")).to_owned(),
                |n| format!("{n:?}")
            )
        )),
    }
}

/// A value for a message: strings quoted, numbers as written, other kinds by name.
fn shown(value: Option<&Value>) -> String {
    match value {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.to_string(),
        other => check::got(other).to_owned(),
    }
}

/// A message: the forced tool's call with the answer as its input, or a text block.
pub(crate) fn answer(exchange: &Exchange, answer: &Answer<'_>) -> Value {
    let (block, stop_reason, output) = match (answer, &exchange.tool) {
        (Answer::Json(input @ Value::Object(_)), Some(tool)) => (
            json!({
                "type": "tool_use",
                "id": format!("toolu_fake_{}", exchange.seq),
                "name": tool,
                "input": input
            }),
            "tool_use",
            input.to_string(),
        ),
        _ => {
            let text = answer.text();
            (json!({ "type": "text", "text": text }), "end_turn", text)
        }
    };
    json!({
        "id": format!("msg_fake_{}", exchange.seq),
        "type": "message",
        "role": "assistant",
        "model": exchange.model,
        "content": [block],
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {
            "input_tokens": exchange.input_tokens,
            "output_tokens": crate::render::tokens(output.len())
        }
    })
}

/// A message that stopped with `stop_reason: "refusal"`, the refusal's words as its text.
pub(crate) fn refusal(exchange: &Exchange, refusal: &Refusal<'_>) -> Value {
    let content: Vec<Value> = [refusal.message]
        .into_iter()
        .filter(|text| !text.is_empty())
        .map(|text| json!({ "type": "text", "text": text }))
        .collect();
    json!({
        "id": format!("msg_fake_{}", exchange.seq),
        "type": "message",
        "role": "assistant",
        "model": exchange.model,
        "content": content,
        "stop_reason": "refusal",
        "stop_sequence": null,
        "usage": {
            "input_tokens": refusal.input_tokens,
            "output_tokens": refusal.output_tokens
        }
    })
}

/// Anthropic's error body, with the error type its documentation gives for the status.
pub(crate) fn error(status: StatusCode, message: &str, seq: usize) -> Value {
    let kind = match status.as_u16() {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        409 => "conflict_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        code if code >= 500 => "api_error",
        _ => "invalid_request_error",
    };
    json!({
        "type": "error",
        "error": { "type": kind, "message": message },
        "request_id": format!("req_fake_{seq}")
    })
}
