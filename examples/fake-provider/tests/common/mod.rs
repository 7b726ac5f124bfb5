//! Well-formed requests for each wire, and a client that sends them to a fake provider.

#![allow(dead_code)]

use base64::Engine;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};
use windup_fake_provider::{FakeProvider, Reply, Wire};

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

/// A 1×1 transparent PNG: the smallest screenshot.
pub const PNG: [u8; 68] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0b, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x60, 0x00, 0x02, 0x00,
    0x00, 0x05, 0x00, 0x01, 0xe9, 0xfa, 0xdc, 0xd8, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44,
    0xae, 0x42, 0x60, 0x82,
];

/// [`PNG`] in standard base64, as every wire carries it.
pub fn png_base64() -> String {
    base64::engine::general_purpose::STANDARD.encode(PNG)
}

/// The wire's well-formed body whose user message carries its text and one [`PNG`].
pub fn image_body(wire: Wire) -> Value {
    let text = json!({ "type": "text", "text": "Add a mug to the cart." });
    let data = png_base64();
    let mut body = body(wire);
    match wire {
        Wire::OpenAi => {
            body["messages"][1]["content"] = json!([text, {
                "type": "image_url",
                "image_url": { "url": format!("data:image/png;base64,{data}"), "detail": "low" }
            }]);
        }
        Wire::Gemini => {
            body["contents"][0]["parts"] = json!([
                { "text": "Add a mug to the cart." },
                { "inlineData": { "mimeType": "image/png", "data": data } }
            ]);
        }
        Wire::Anthropic => {
            body["messages"][0]["content"] = json!([text, {
                "type": "image",
                "source": { "type": "base64", "media_type": "image/png", "data": data }
            }]);
        }
    }
    body
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

/// Checks the 400 a malformed request got, the record and that the reply stays queued.
pub async fn assert_rejected(wire: Wire, answer: Answer, provider: &FakeProvider, expect: &str) {
    assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{:?}", answer.body);
    let message = match wire {
        Wire::OpenAi => {
            assert_eq!(answer.body["error"]["type"], "invalid_request_error");
            &answer.body["error"]["message"]
        }
        Wire::Gemini => {
            assert_eq!(answer.body["error"]["code"], 400);
            assert_eq!(answer.body["error"]["status"], "INVALID_ARGUMENT");
            &answer.body["error"]["message"]
        }
        Wire::Anthropic => {
            assert_eq!(answer.body["type"], "error");
            assert_eq!(answer.body["error"]["type"], "invalid_request_error");
            &answer.body["error"]["message"]
        }
    };
    let message = message.as_str().expect("a message");
    assert!(message.contains(expect), "{expect:?} not in {message:?}");

    let recorded = provider.requests();
    let last = recorded.last().expect("recorded");
    assert_eq!(last.wire, Some(wire));
    assert!(
        last.problems.iter().any(|p| p.contains(expect)),
        "{expect:?} not in {:?}",
        last.problems
    );
    assert_eq!(message, last.problems.join("; "));
    assert_eq!(
        provider.pending(),
        1,
        "a malformed request consumes no reply"
    );
}

/// A fake provider with one reply scripted.
pub async fn provider_with(reply: Reply) -> FakeProvider {
    let provider = FakeProvider::start()
        .await
        .expect("the fake provider starts");
    provider.push(reply);
    provider
}
