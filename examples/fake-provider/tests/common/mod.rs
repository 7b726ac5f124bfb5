//! Well-formed requests for each wire, and a client that sends them to a fake provider.

#![allow(dead_code)]

use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use windup_fake_provider::{FakeProvider, Wire};

pub const OPENAI_KEY: &str = "sk-openai-secret";
pub const GEMINI_KEY: &str = "gemini-secret";
pub const ANTHROPIC_KEY: &str = "sk-ant-secret";
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";

/// A strict schema for a plan: a list of steps, each an action and a target.
pub fn plan_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "action": { "type": "string", "enum": ["click", "fill"] },
                        "target": { "type": ["string", "null"] }
                    },
                    "required": ["action", "target"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["steps"],
        "additionalProperties": false
    })
}

pub fn openai_body() -> Value {
    json!({
        "model": "gpt-4o-2024-08-06",
        "messages": [
            { "role": "developer", "content": "Plan the scenario." },
            { "role": "user", "content": "Add a mug to the cart." }
        ],
        "response_format": {
            "type": "json_schema",
            "json_schema": { "name": "plan", "strict": true, "schema": plan_schema() }
        }
    })
}

pub fn gemini_body() -> Value {
    json!({
        "systemInstruction": { "parts": [{ "text": "Plan the scenario." }] },
        "contents": [{ "role": "user", "parts": [{ "text": "Add a mug to the cart." }] }],
        "generationConfig": {
            "responseMimeType": "application/json",
            "responseJsonSchema": plan_schema()
        }
    })
}

pub fn anthropic_body() -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": "Plan the scenario.",
        "messages": [{ "role": "user", "content": "Add a mug to the cart." }],
        "tools": [{
            "name": "submit_plan",
            "description": "Submit the plan.",
            "input_schema": plan_schema()
        }],
        "tool_choice": { "type": "tool", "name": "submit_plan" }
    })
}

pub fn body(wire: Wire) -> Value {
    match wire {
        Wire::OpenAi => openai_body(),
        Wire::Gemini => gemini_body(),
        Wire::Anthropic => anthropic_body(),
    }
}

pub fn path(wire: Wire) -> String {
    match wire {
        Wire::OpenAi => "/v1/chat/completions".to_owned(),
        Wire::Gemini => format!("/v1beta/models/{GEMINI_MODEL}:generateContent"),
        Wire::Anthropic => "/v1/messages".to_owned(),
    }
}

/// The headers a well-formed request of the wire carries.
pub fn headers(wire: Wire) -> Vec<(&'static str, String)> {
    match wire {
        Wire::OpenAi => vec![("authorization", format!("Bearer {OPENAI_KEY}"))],
        Wire::Gemini => vec![("x-goog-api-key", GEMINI_KEY.to_owned())],
        Wire::Anthropic => vec![
            ("x-api-key", ANTHROPIC_KEY.to_owned()),
            ("anthropic-version", "2023-06-01".to_owned()),
        ],
    }
}

/// A response, read to the end.
#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

/// Sends a well-formed request of the wire; returns the answer and the request body's length.
pub async fn send(provider: &FakeProvider, wire: Wire) -> (Answer, usize) {
    let body = body(wire);
    let len = serde_json::to_vec(&body).unwrap().len();
    (
        send_raw(provider, &path(wire), &headers(wire), &body).await,
        len,
    )
}

/// Sends `body` with the wire's well-formed headers.
pub async fn send_body(provider: &FakeProvider, wire: Wire, body: &Value) -> Answer {
    send_raw(provider, &path(wire), &headers(wire), body).await
}

pub async fn send_raw(
    provider: &FakeProvider,
    path: &str,
    headers: &[(&'static str, String)],
    body: &Value,
) -> Answer {
    let mut request = reqwest::Client::new()
        .post(format!("{}{path}", provider.url()))
        .header("content-type", "application/json")
        .body(serde_json::to_vec(body).unwrap());
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.send().await.expect("the fake provider answers");
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.json().await.expect("a JSON body");
    Answer {
        status,
        headers,
        body,
    }
}
