//! Turning a scripted [`Reply`] (or a rejection) into the HTTP response of one wire.

use std::convert::Infallible;

use axum::body::{Body, Bytes};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use crate::{Reply, Wire, anthropic, gemini, openai};

/// The `created` time of every OpenAI completion (2025-01-01T00:00:00Z): replies stay
/// byte-for-byte the same from run to run.
pub(crate) const CREATED: u64 = 1_735_689_600;

/// What a reply needs to know about the request it answers.
#[derive(Debug)]
pub(crate) struct Exchange {
    /// The request's 1-based position among all requests, for ids.
    pub seq: usize,
    /// The model the request named (in its body, or in the Gemini path).
    pub model: String,
    /// Anthropic's forced tool, `tool_choice.name`.
    pub tool: Option<String>,
    /// The request's size in tokens: its text's, plus [`crate::IMAGE_TOKENS`] per image.
    pub input_tokens: u64,
}

/// The answer a well-formed reply carries.
pub(crate) enum Answer<'a> {
    Json(&'a Value),
    Text(&'a str),
}

impl Answer<'_> {
    /// The answer as the text of the model's message.
    pub(crate) fn text(&self) -> String {
        match self {
            Answer::Json(value) => value.to_string(),
            Answer::Text(text) => (*text).to_owned(),
        }
    }
}

/// A scripted refusal, with the usage it reports.
pub(crate) struct Refusal<'a> {
    pub message: &'a str,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Tokens for `len` bytes of text: a quarter, at least one, the same every run.
pub(crate) fn tokens(len: usize) -> u64 {
    (len as u64 / 4).max(1)
}

/// The 400 for a request that failed checks.
pub(crate) fn rejected(wire: Wire, exchange: &Exchange, message: &str) -> Response {
    let body = error_body(wire, StatusCode::BAD_REQUEST, message, exchange.seq);
    complete(StatusCode::BAD_REQUEST, None, &body)
}

/// The 500 for a well-formed request when the script has run out.
pub(crate) fn exhausted(wire: Wire, exchange: &Exchange) -> Response {
    let status = StatusCode::INTERNAL_SERVER_ERROR;
    let message = "the fake provider has no scripted reply left";
    complete(
        status,
        None,
        &error_body(wire, status, message, exchange.seq),
    )
}

/// The 404 for a path no wire serves.
pub(crate) fn not_found(message: &str) -> Response {
    let body = json!({ "error": { "code": 404, "message": message, "status": "NOT_FOUND" } });
    complete(StatusCode::NOT_FOUND, None, &body)
}

/// The scripted reply, after its delays and with its truncation.
pub(crate) async fn reply(wire: Wire, exchange: &Exchange, mut reply: Reply) -> Response {
    let mut truncated = false;
    let reply = loop {
        match reply {
            Reply::Slow(delay, inner) => {
                tokio::time::sleep(delay).await;
                reply = *inner;
            }
            Reply::Truncated(inner) => {
                truncated = true;
                reply = *inner;
            }
            answer_or_status => break answer_or_status,
        }
    };
    let (status, retry_after, body) = response(wire, exchange, reply);
    if truncated {
        cut_short(status, retry_after, &body)
    } else {
        complete(status, retry_after, &body)
    }
}

/// The status, `Retry-After` header and body of a reply that is neither slow nor cut short.
fn response(
    wire: Wire,
    exchange: &Exchange,
    reply: Reply,
) -> (StatusCode, Option<HeaderValue>, Value) {
    match reply {
        Reply::Json(value) => (
            StatusCode::OK,
            None,
            answer(wire, exchange, &Answer::Json(&value)),
        ),
        Reply::Text(text) => (
            StatusCode::OK,
            None,
            answer(wire, exchange, &Answer::Text(&text)),
        ),
        Reply::Refusal {
            message,
            input_tokens,
            output_tokens,
        } => {
            let refusal = Refusal {
                message: &message,
                input_tokens,
                output_tokens,
            };
            let body = match wire {
                Wire::OpenAi => openai::refusal(exchange, &refusal),
                Wire::Gemini => gemini::refusal(exchange, &refusal),
                Wire::Anthropic => anthropic::refusal(exchange, &refusal),
            };
            (StatusCode::OK, None, body)
        }
        Reply::Status {
            status,
            retry_after,
            message,
        } => {
            let status = StatusCode::from_u16(status)
                .ok()
                .filter(|s| !s.is_informational())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let retry_after = retry_after.and_then(|v| HeaderValue::from_str(&v).ok());
            (
                status,
                retry_after,
                error_body(wire, status, &message, exchange.seq),
            )
        }
        Reply::RateLimited { retry_delay } => {
            let status = StatusCode::TOO_MANY_REQUESTS;
            let body = match wire {
                Wire::Gemini => gemini::quota_exhausted(exchange, &retry_delay),
                Wire::OpenAi | Wire::Anthropic => {
                    error_body(wire, status, "Rate limit reached.", exchange.seq)
                }
            };
            (status, None, body)
        }
        Reply::InvalidKey => {
            let (status, body) = match wire {
                Wire::OpenAi => (StatusCode::UNAUTHORIZED, openai::invalid_key()),
                Wire::Gemini => (StatusCode::BAD_REQUEST, gemini::invalid_key()),
                Wire::Anthropic => (
                    StatusCode::UNAUTHORIZED,
                    anthropic::error(StatusCode::UNAUTHORIZED, "invalid x-api-key", exchange.seq),
                ),
            };
            (status, None, body)
        }
        Reply::Slow(..) | Reply::Truncated(..) => unreachable!("unwrapped by `reply`"),
    }
}

fn answer(wire: Wire, exchange: &Exchange, answer: &Answer<'_>) -> Value {
    match wire {
        Wire::OpenAi => openai::answer(exchange, answer),
        Wire::Gemini => gemini::answer(exchange, answer),
        Wire::Anthropic => anthropic::answer(exchange, answer),
    }
}

fn error_body(wire: Wire, status: StatusCode, message: &str, seq: usize) -> Value {
    match wire {
        Wire::OpenAi => openai::error(status, message),
        Wire::Gemini => gemini::error(status, message),
        Wire::Anthropic => anthropic::error(status, message, seq),
    }
}

fn head(status: StatusCode, retry_after: Option<HeaderValue>) -> axum::http::response::Builder {
    let mut head = Response::builder()
        .status(status)
        .header(CONTENT_TYPE, "application/json");
    if let Some(value) = retry_after {
        head = head.header(RETRY_AFTER, value);
    }
    head
}

fn complete(status: StatusCode, retry_after: Option<HeaderValue>, body: &Value) -> Response {
    head(status, retry_after)
        .body(Body::from(body.to_string()))
        .expect("status and headers are valid")
}

/// Announces the whole body but sends only its first half; the server then closes the
/// connection, because the body ended before its Content-Length.
fn cut_short(status: StatusCode, retry_after: Option<HeaderValue>, body: &Value) -> Response {
    let full = Bytes::from(body.to_string());
    let half = full.slice(..full.len() / 2);
    let chunks = futures::stream::unfold(Some(half), |next| async move {
        match next {
            Some(half) => Some((Ok::<_, Infallible>(half), None)),
            None => {
                // hyper drops unflushed bytes when a body ends short; pending once makes it
                // flush the head and the half before it sees the end.
                tokio::task::yield_now().await;
                None
            }
        }
    });
    head(status, retry_after)
        .header(CONTENT_LENGTH, full.len())
        .body(Body::from_stream(chunks))
        .expect("status and headers are valid")
}
