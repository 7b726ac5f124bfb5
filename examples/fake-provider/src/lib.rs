//! A fake LLM provider for hermetic tests.
//!
//! One local HTTP server speaks three providers' wire formats: OpenAI Chat Completions
//! (`POST /v1/chat/completions`), Gemini generateContent
//! (`POST /v1beta/models/{model}:generateContent`) and Anthropic Messages (`POST /v1/messages`).
//! Every request is checked the way the real API documents it and recorded, so a test can
//! assert that nothing it sent was malformed; well-formed requests are answered with the
//! [`Reply`]s the test queued, first in, first out.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use windup_fake_provider::{FakeProvider, Reply};
//!
//! let provider = FakeProvider::start().await?;
//! provider.push(Reply::Json(serde_json::json!({ "steps": [] })));
//! // ... point the client under test at `provider.url()` and run it ...
//! assert!(provider.requests().iter().all(|r| r.problems.is_empty()));
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod anthropic;
mod check;
mod gemini;
mod image;
mod openai;
mod render;
mod strict;

use std::collections::VecDeque;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use image::Tally;
use render::Exchange;

/// The input tokens the fake bills for each image, whatever its size; the image's base64 payload
/// is not counted as text.
pub const IMAGE_TOKENS: u64 = 1_000;

/// The wire format a request was sent in, told by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    /// OpenAI Chat Completions: `POST /v1/chat/completions`.
    OpenAi,
    /// Gemini generateContent: `POST /v1beta/models/{model}:generateContent`.
    Gemini,
    /// Anthropic Messages: `POST /v1/messages`.
    Anthropic,
}

/// What the fake provider answers to the next well-formed request.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// A well-formed answer whose structured output is this JSON value: OpenAI/Gemini put
    /// `value.to_string()` in the text; Anthropic puts the value as the tool_use `input`
    /// (if the value is not an object, Anthropic gets a `text` block with value.to_string() instead).
    Json(Value),
    /// A well-formed answer whose text is exactly this string (e.g. invalid JSON). Anthropic: a
    /// `text` content block and stop_reason "end_turn" instead of a tool_use.
    Text(String),
    /// An HTTP error: status, optional Retry-After header value, and a body in the provider's error shape
    /// with this message.
    ///
    /// A status below 200 or above 999 is served as 500; a Retry-After value that is not a valid
    /// header value is left out.
    Status {
        /// The HTTP status code.
        status: u16,
        /// The `Retry-After` header value, such as `"2"`.
        retry_after: Option<String>,
        /// The error message in the body.
        message: String,
    },
    /// A refusal that is billed all the same, as each wire says it: OpenAI a message whose
    /// `refusal` is `message` (and `content` null); Anthropic `stop_reason: "refusal"` with
    /// `message` as a text block; Gemini a blocked prompt, `promptFeedback.blockReason: "SAFETY"`
    /// and no candidates (a block carries a reason code, not words, so `message` is left out).
    /// Each reports these token counts as its usage (Gemini's `candidatesTokenCount` only when
    /// `output_tokens` is not zero).
    Refusal {
        /// The model's words of refusal.
        message: String,
        /// The input tokens the usage reports.
        input_tokens: u64,
        /// The output tokens the usage reports.
        output_tokens: u64,
    },
    /// A 429 whose body says how long to wait, as Gemini's does: `RESOURCE_EXHAUSTED` with
    /// `error.details[]` holding a `google.rpc.QuotaFailure`, a `google.rpc.Help` and a
    /// `google.rpc.RetryInfo` whose `retryDelay` is this protobuf Duration (such as `"1.2s"`),
    /// and no `Retry-After` header. OpenAI and Anthropic have no such field: they get their plain
    /// 429, with no wait given.
    RateLimited {
        /// The `retryDelay`, as written.
        retry_delay: String,
    },
    /// The answer to an API key the provider does not know, in each wire's words: OpenAI's 401
    /// `invalid_api_key`, Anthropic's 401 `authentication_error`, Gemini's 400
    /// `INVALID_ARGUMENT` with a `google.rpc.ErrorInfo` of reason `API_KEY_INVALID`. None of
    /// them repeats the key.
    InvalidKey,
    /// The inner reply, sent after this delay.
    Slow(Duration, Box<Reply>),
    /// The inner reply's headers (with a Content-Length of the full body) and only the first half
    /// of its body, then the connection is closed: a truncated body.
    Truncated(Box<Reply>),
}

/// One request the fake provider received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    /// The wire format its path belongs to; `None` for an unknown path.
    pub wire: Option<Wire>,
    /// The request path, without the query.
    pub path: String,
    /// The headers with lowercase names; the values of `authorization`, `x-api-key` and
    /// `x-goog-api-key` are replaced by `"<redacted>"`.
    pub headers: Vec<(String, String)>,
    /// The body as JSON; `Value::Null` when it is not JSON.
    pub body: Value,
    /// Every check the request failed, in the words of the 400 it got; empty when well-formed.
    pub problems: Vec<String>,
    /// How many images (image parts or blocks, well-formed or not) the request's messages carry.
    pub images: usize,
    /// When the request had arrived whole, before any reply to it was made.
    pub received: Instant,
}

/// A fake LLM provider serving on a free port of 127.0.0.1; stops when dropped.
#[derive(Debug)]
pub struct FakeProvider {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
}

impl FakeProvider {
    /// Starts the server on a free port of 127.0.0.1 in a background task of the current
    /// Tokio runtime.
    pub async fn start() -> std::io::Result<FakeProvider> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::default());
        let app = Router::new().fallback(receive).with_state(shared.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let stopped = async {
                // A dropped sender means the provider is gone too: stop either way.
                let _ = stopped.await;
            };
            // Serving only ends on the stop signal or a failing listener; nobody to tell then.
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await;
        });
        Ok(FakeProvider {
            addr,
            shared,
            stop: Some(stop),
        })
    }

    /// e.g. "http://127.0.0.1:PORT" (no trailing slash)
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queue a reply; replies are served first in, first out, across all three wires.
    pub fn push(&self, reply: Reply) {
        self.shared.queue().push_back(reply);
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log().clone()
    }

    /// How many scripted replies are still queued.
    pub fn pending(&self) -> usize {
        self.shared.queue().len()
    }
}

impl Drop for FakeProvider {
    /// Stops accepting connections; requests already in flight are still answered.
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The script and the log, shared between the test and the server.
#[derive(Debug, Default)]
struct Shared {
    queue: Mutex<VecDeque<Reply>>,
    log: Mutex<Vec<Recorded>>,
}

impl Shared {
    // A test that panicked while holding a lock leaves the data usable for the next assertion.
    fn queue(&self) -> MutexGuard<'_, VecDeque<Reply>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn log(&self) -> MutexGuard<'_, Vec<Recorded>> {
        self.log.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The API a request path belongs to.
enum Route {
    OpenAi,
    Gemini { model: String, verb: String },
    Anthropic,
}

impl Route {
    /// The route of `path`; `None` when no wire serves it.
    fn of(path: &str) -> Option<Route> {
        match path {
            "/v1/chat/completions" => Some(Route::OpenAi),
            "/v1/messages" => Some(Route::Anthropic),
            _ => {
                let rest = path.strip_prefix("/v1beta/models/")?;
                // The model id and the method share one segment: `{model}:generateContent`.
                let (model, verb) = rest.rsplit_once(':').unwrap_or((rest, ""));
                Some(Route::Gemini {
                    model: model.to_owned(),
                    verb: verb.to_owned(),
                })
            }
        }
    }

    fn wire(&self) -> Wire {
        match self {
            Route::OpenAi => Wire::OpenAi,
            Route::Gemini { .. } => Wire::Gemini,
            Route::Anthropic => Wire::Anthropic,
        }
    }

    /// Every check the request fails on this route.
    fn check(&self, method: &Method, headers: &HeaderMap, json: Option<&Value>) -> Vec<String> {
        let mut problems = Vec::new();
        if method != Method::POST {
            problems.push(format!("the method must be POST, not {method}"));
        }
        let fields = match json {
            Some(Value::Object(fields)) => Some(fields),
            _ => {
                problems.push("the request body must be a JSON object".to_owned());
                None
            }
        };
        problems.extend(match self {
            Route::OpenAi => openai::check(headers, fields),
            Route::Gemini { model, verb } => gemini::check(model, verb, headers, fields),
            Route::Anthropic => anthropic::check(headers, fields),
        });
        problems
    }

    /// The images the request carries on this route.
    fn images(&self, json: Option<&Value>) -> Tally {
        let Some(Value::Object(fields)) = json else {
            return Tally::default();
        };
        match self {
            Route::OpenAi => openai::images(fields),
            Route::Gemini { .. } => gemini::images(fields),
            Route::Anthropic => anthropic::images(fields),
        }
    }
}

/// Checks, records and answers every request, whatever its method and path.
async fn receive(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let received = Instant::now();
    let path = uri.path().to_owned();
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    let route = Route::of(&path);
    let problems = match &route {
        Some(route) => route.check(&method, &headers, json.as_ref()),
        None => vec![format!("no provider API is served at {method} {path}")],
    };
    let images = route
        .as_ref()
        .map_or_else(Tally::default, |route| route.images(json.as_ref()));

    let seq = {
        let mut log = shared.log();
        log.push(Recorded {
            wire: route.as_ref().map(Route::wire),
            path: path.clone(),
            headers: recorded_headers(&headers),
            body: json.clone().unwrap_or(Value::Null),
            problems: problems.clone(),
            images: images.count,
            received,
        });
        log.len()
    };

    let Some(route) = route else {
        return render::not_found(&problems.join("; "));
    };
    let exchange = exchange(&route, seq, json.as_ref(), body.len(), images);
    if !problems.is_empty() {
        return render::rejected(route.wire(), &exchange, &problems.join("; "));
    }
    let next = shared.queue().pop_front();
    match next {
        Some(reply) => render::reply(route.wire(), &exchange, reply).await,
        None => render::exhausted(route.wire(), &exchange),
    }
}

/// What answering the request needs to know about it.
fn exchange(
    route: &Route,
    seq: usize,
    json: Option<&Value>,
    body_len: usize,
    images: Tally,
) -> Exchange {
    let model = match route {
        Route::Gemini { model, .. } => model.clone(),
        Route::OpenAi | Route::Anthropic => json
            .and_then(|j| j.get("model"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    };
    let tool = json
        .and_then(|j| j.pointer("/tool_choice/name"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    Exchange {
        seq,
        model,
        tool,
        // Billing base64 as text would make a screenshot cost tens of thousands of tokens.
        input_tokens: render::tokens(body_len.saturating_sub(images.payload_bytes))
            + IMAGE_TOKENS * images.count as u64,
    }
}

/// Headers with lowercase names and the API keys redacted.
fn recorded_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    const SECRET: [&str; 3] = ["authorization", "x-api-key", "x-goog-api-key"];
    headers
        .iter()
        .map(|(name, value)| {
            let name = name.as_str().to_ascii_lowercase();
            let value = if SECRET.contains(&name.as_str()) {
                "<redacted>".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name, value)
        })
        .collect()
}
