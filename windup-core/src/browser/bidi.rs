//! WebDriver BiDi: a session's second channel, one WebSocket on which the browser answers
//! commands and pushes what happens in the page as it happens (W3C WebDriver BiDi). A session
//! asks for it with the `webSocketUrl` capability; chromedriver, geckodriver and the Selenium
//! Grid's router answer with the socket's address, and the same session then speaks Classic over
//! HTTP (fantoccini) and BiDi over the socket.
//!
//! This is a small typed client for the few commands and events Windup uses, over
//! tokio-tungstenite (docs/browsers.md#webdriver-bidi says why not a BiDi crate). Commands are
//! JSON `{id, method, params}`; an answer carries the same `id`, with `type` `success` or
//! `error`; an event has `type` `event`, its `method` and `params`. A reader task sends each
//! answer to the command waiting for it and keeps the events the session subscribed to: console
//! errors, uncaught exceptions and failed requests, each in the order it happened.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

use crate::model::invariant::{FailedRequest, PageEvents};

/// Which protocol a session speaks where both could serve: BiDi's socket where the driver offers
/// one, or WebDriver Classic's HTTP commands alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Protocol {
    /// BiDi when the driver offers it, Classic otherwise.
    Auto,
    /// BiDi, or the session does not start.
    Bidi,
    /// Classic alone: no socket is asked for.
    #[default]
    Classic,
}

impl Protocol {
    /// The name a setting takes (`protocol = "bidi"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Auto => "auto",
            Protocol::Bidi => "bidi",
            Protocol::Classic => "classic",
        }
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Protocol::Auto),
            "bidi" => Ok(Protocol::Bidi),
            "classic" => Ok(Protocol::Classic),
            other => Err(format!(
                "unknown protocol {other:?}: use \"auto\", \"bidi\" or \"classic\""
            )),
        }
    }
}

/// How long a command may wait for its answer before the channel counts as stuck.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

/// The events a session subscribes to while the page's events are watched.
const EVENTS: &[&str] = &[
    "log.entryAdded",
    "network.responseCompleted",
    "network.fetchError",
];

/// The events that end a navigation of the top-level page. The session hears the whole
/// `browsingContext` module (a few events per page): a driver that lacks one of these events
/// (Firefox has no `navigationAborted` yet) refuses a subscription that names it.
const NAVIGATION_ENDS: &[&str] = &[
    "browsingContext.load",
    "browsingContext.navigationAborted",
    "browsingContext.navigationFailed",
    "browsingContext.fragmentNavigated",
];

/// The events kept between two takes, as the page observer's buffer holds.
const MAX_HEARD: usize = 100;

/// A command the channel could not carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The browser answered with an error: its code and message.
    Error { error: String, message: String },
    /// The socket closed, or never answered in time: why.
    Gone(String),
}

impl Refusal {
    /// The error of the step `during` that the channel refused: a socket gone is a session lost.
    pub(crate) fn during(self, during: &str) -> super::BrowserError {
        match self {
            Refusal::Gone(reason) => super::BrowserError::Lost {
                during: during.to_owned(),
                reason,
            },
            refused => super::BrowserError::Command {
                during: during.to_owned(),
                reason: refused.to_string(),
            },
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Error { error, message } => write!(f, "{error}: {message}"),
            Refusal::Gone(why) => write!(f, "the BiDi socket is gone: {why}"),
        }
    }
}

type Waiting = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, Refusal>>>>>;

/// The open socket of one session.
#[derive(Debug)]
pub(crate) struct Channel {
    link: Link,
    /// Told when the top-level page's navigation under way comes or ends.
    moved: Arc<tokio::sync::Notify>,
    /// The subscription of [`Channel::listen`], while it lasts (empty: one without an id).
    subscription: Mutex<Option<String>>,
    /// Where requests the browser holds for the session go (`network.beforeRequestSent` with
    /// `isBlocked`), once `Channel::intercept` asked for them (the audit's coverage).
    #[cfg_attr(not(feature = "audit"), allow(dead_code))]
    blocked: Blocked,
    /// The session's top-level browsing context (its Classic window handle).
    context: String,
    reader: JoinHandle<()>,
    writer: JoinHandle<()>,
}

type Blocked = Arc<Mutex<Option<mpsc::UnboundedSender<Value>>>>;

/// What sends commands on the socket and waits for their answers: the channel's, and a copy for
/// each task that answers the browser on its own (a held request).
#[derive(Debug, Clone)]
pub(crate) struct Link {
    outgoing: mpsc::UnboundedSender<Message>,
    waiting: Waiting,
    next_id: Arc<AtomicU64>,
    heard: Arc<Mutex<Heard>>,
}

impl Link {
    /// Sends one command and waits for its answer.
    pub(crate) async fn command(&self, method: &str, params: Value) -> Result<Value, Refusal> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        lock(&self.waiting).insert(id, answer);
        let message = json!({ "id": id, "method": method, "params": params }).to_string();
        lock(&self.heard).sent += 1;
        if self.outgoing.send(Message::text(message)).is_err() {
            lock(&self.waiting).remove(&id);
            return Err(Refusal::Gone("the socket's writer has stopped".to_owned()));
        }
        match tokio::time::timeout(ANSWER_WITHIN, answered).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(Refusal::Gone("the socket's reader has stopped".to_owned())),
            Err(_) => {
                lock(&self.waiting).remove(&id);
                Err(Refusal::Gone(format!(
                    "no answer to {method} within {} s",
                    ANSWER_WITHIN.as_secs()
                )))
            }
        }
    }
}

/// A navigation of the top-level page under way, as its events told it.
#[derive(Debug)]
struct Navigation {
    id: Option<String>,
    started: tokio::time::Instant,
    /// Whether its document has come (`browsingContext.navigationCommitted`).
    committed: bool,
}

/// How long a navigation whose document has not come is waited for: Firefox tells no end of
/// one that replaces nothing (a form answered 204), and the page's own watch takes a submission
/// still there after 3 s to replace nothing too (`js/after_click.js`).
const UNCOMMITTED_WITHIN: Duration = Duration::from_secs(3);

/// What the page did, as the events said it, since it was last taken.
#[derive(Debug, Default)]
struct Heard {
    events: PageEvents,
    /// Commands and events the channel carried: sent, then received.
    sent: u64,
    received: u64,
    /// The top-level page's navigation under way (started, not yet loaded, aborted or failed).
    navigating: Option<Navigation>,
    /// The top-level context, whose navigations are followed.
    context: String,
}

impl Channel {
    /// Opens the socket at `url` (a session's `webSocketUrl`). It hears no event until
    /// [`Self::listen`]: every request of a page is an event, and one nobody reads costs time.
    pub(crate) async fn open(
        url: &str,
        authorization: Option<&str>,
        context: String,
    ) -> Result<Channel, Refusal> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let refused = |e: &dyn std::fmt::Display| Refusal::Gone(format!("cannot open {url}: {e}"));
        let mut request = url.into_client_request().map_err(|e| refused(&e))?;
        if let Some(value) = authorization {
            let value = value.parse().map_err(|e| refused(&e))?;
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, value);
        }
        let (socket, _) = tokio_tungstenite::connect_async(request)
            .await
            .map_err(|e| refused(&e))?;
        let (mut sink, stream) = socket.split();
        let (outgoing, mut queue) = mpsc::unbounded_channel::<Message>();
        let writer = tokio::spawn(async move {
            while let Some(message) = queue.recv().await {
                if sink.send(message).await.is_err() {
                    break;
                }
            }
            let _ = sink.close().await;
        });
        let waiting: Waiting = Arc::default();
        let blocked: Blocked = Arc::default();
        let heard = Arc::new(Mutex::new(Heard {
            context: context.clone(),
            ..Heard::default()
        }));
        let moved: Arc<tokio::sync::Notify> = Arc::default();
        let reader = read(
            stream,
            Arc::clone(&waiting),
            Arc::clone(&heard),
            Arc::clone(&moved),
            Arc::clone(&blocked),
        );
        let channel = Channel {
            link: Link {
                outgoing,
                waiting,
                next_id: Arc::new(AtomicU64::new(1)),
                heard,
            },
            moved,
            blocked,
            subscription: Mutex::new(None),
            context,
            reader,
            writer,
        };
        channel
            .command(
                "session.subscribe",
                json!({ "events": ["browsingContext"], "contexts": [channel.context] }),
            )
            .await?;
        Ok(channel)
    }

    /// Waits while a navigation of the top-level page is under way (one an act started: a link
    /// followed, a form sent, a key pressed), until its document has loaded, as Classic's
    /// commands wait for a pending navigation; at `deadline`, or [`UNCOMMITTED_WITHIN`] after it
    /// started while its document has not come, it stops waiting and forgets it.
    pub(crate) async fn settled(&self, deadline: std::time::Instant) {
        let deadline = tokio::time::Instant::from_std(deadline);
        loop {
            let moved = self.moved.notified();
            tokio::pin!(moved);
            moved.as_mut().enable();
            let until = match &lock(&self.link.heard).navigating {
                None => return,
                Some(navigation) if navigation.committed => deadline,
                Some(navigation) => deadline.min(navigation.started + UNCOMMITTED_WITHIN),
            };
            if tokio::time::timeout_at(until, moved).await.is_err() {
                lock(&self.link.heard).navigating = None;
                return;
            }
        }
    }

    /// Subscribes to the page's errors and failed requests, once.
    pub(crate) async fn listen(&self) -> Result<(), Refusal> {
        if lock(&self.subscription).is_some() {
            return Ok(());
        }
        let answer = self
            .command("session.subscribe", json!({ "events": EVENTS }))
            .await?;
        // A driver of an earlier draft answers without an id; it is unsubscribed by event names.
        let id = answer["subscription"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        *lock(&self.subscription) = Some(id);
        Ok(())
    }

    /// Ends the subscription of [`Self::listen`]; what was heard and not taken is dropped.
    pub(crate) async fn stop_listening(&self) -> Result<(), Refusal> {
        let Some(id) = lock(&self.subscription).take() else {
            return Ok(());
        };
        let params = if id.is_empty() {
            json!({ "events": EVENTS })
        } else {
            json!({ "subscriptions": [id] })
        };
        self.command("session.unsubscribe", params).await?;
        lock(&self.link.heard).events = PageEvents::default();
        Ok(())
    }

    /// Sends one command and waits for its answer.
    pub(crate) async fn command(&self, method: &str, params: Value) -> Result<Value, Refusal> {
        self.link.command(method, params).await
    }

    /// Holds every request of the session's pages to `origin` (its scheme, host and port) until
    /// it is answered: the requests come, as `network.beforeRequestSent` events' parameters, to
    /// the receiver, and each must be continued or answered through [`Self::link`].
    #[cfg(feature = "audit")]
    pub(crate) async fn intercept(
        &self,
        origin: &url::Url,
    ) -> Result<mpsc::UnboundedReceiver<Value>, Refusal> {
        let (sender, receiver) = mpsc::unbounded_channel();
        *lock(&self.blocked) = Some(sender);
        self.command(
            "session.subscribe",
            json!({ "events": ["network.beforeRequestSent"], "contexts": [self.context] }),
        )
        .await?;
        let mut pattern = json!({
            "type": "pattern",
            "protocol": origin.scheme(),
            "hostname": origin.host_str().unwrap_or_default(),
        });
        if let Some(port) = origin.port() {
            pattern["port"] = json!(port.to_string());
        }
        self.command(
            "network.addIntercept",
            json!({
                "phases": ["beforeRequestSent"],
                "contexts": [self.context],
                "urlPatterns": [pattern],
            }),
        )
        .await?;
        Ok(receiver)
    }

    /// A copy of what sends commands, for a task that answers the browser on its own.
    #[cfg(feature = "audit")]
    pub(crate) fn link(&self) -> Link {
        self.link.clone()
    }

    /// Runs `body` (a script's statements) in every new document of the session before the
    /// page's own scripts, in the page's own realm; its id, to take it back with [`Self::unload`].
    pub(crate) async fn preload(&self, body: &str) -> Result<String, Refusal> {
        let declaration = format!("() => {{\n{body}\n}}");
        let answer = self
            .command(
                "script.addPreloadScript",
                json!({ "functionDeclaration": declaration }),
            )
            .await?;
        answer["script"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| Refusal::Gone(format!("a preload script without an id: {answer}")))
    }

    /// Takes back a preload script: new documents no longer run it.
    pub(crate) async fn unload(&self, id: &str) -> Result<(), Refusal> {
        self.command("script.removePreloadScript", json!({ "script": id }))
            .await
            .map(|_| ())
    }

    /// Calls a script in the top-level page of `context`, as WebDriver Classic's `execute` does:
    /// `body` is a function's statements that read `arguments` (arguments and the answer in
    /// Classic's JSON, elements as Classic's references, which are BiDi's shared ids), and a
    /// promise it returns is awaited. One message each way, where Classic takes an HTTP request.
    pub(crate) async fn call(
        &self,
        context: &str,
        body: &str,
        args: &[Value],
    ) -> Result<Value, Refusal> {
        // An object or array with no element in it goes as its JSON text, parsed in the page:
        // chromedriver builds each one in the page with a command of its own, which made a
        // call with an object argument cost 10 ms where one with a string costs 2.
        let as_text: Vec<usize> = (0..args.len())
            .filter(|&i| args[i].is_object() || args[i].is_array())
            .filter(|&i| !holds_element(&args[i]))
            .collect();
        let declaration = if as_text.is_empty() {
            format!("function () {{\n{body}\n}}")
        } else {
            format!(
                "function () {{\nconst args = Array.prototype.slice.call(arguments);\n\
                 for (const i of {as_text:?}) args[i] = JSON.parse(args[i]);\n\
                 return (function () {{\n{body}\n}}).apply(this, args);\n}}"
            )
        };
        let arguments: Vec<Value> = args
            .iter()
            .enumerate()
            .map(|(i, arg)| match as_text.contains(&i) {
                true => json!({ "type": "string", "value": arg.to_string() }),
                false => local_value(arg),
            })
            .collect();
        let answer = self
            .command(
                "script.callFunction",
                json!({
                    "functionDeclaration": declaration,
                    "arguments": arguments,
                    "target": { "context": context },
                    "awaitPromise": true,
                    "resultOwnership": "none",
                }),
            )
            .await?;
        match answer["type"].as_str() {
            Some("success") => Ok(classic_value(&answer["result"])),
            _ => Err(Refusal::Error {
                error: "javascript error".to_owned(),
                message: answer["exceptionDetails"]["text"]
                    .as_str()
                    .unwrap_or("the script threw")
                    .to_owned(),
            }),
        }
    }

    /// Calls a script as WebDriver Classic's `executeAsync` does, in the session's top-level
    /// page: `body` answers by calling the function passed after its arguments.
    pub(crate) async fn run_async(&self, body: &str, args: &[Value]) -> Result<Value, Refusal> {
        let body = format!(
            "const args = Array.prototype.slice.call(arguments);\n\
             return new Promise((resolve, reject) => {{\n\
             args.push(resolve);\n\
             try {{ (function () {{\n{body}\n}}).apply(window, args); }} catch (e) {{ reject(e); }}\n\
             }});"
        );
        self.call(&self.context, &body, args).await
    }

    /// Performs input actions (`input.performActions`: trusted pointer and key events, as a
    /// person's) in the session's top-level page; [`super::input`] builds them.
    pub(crate) async fn perform(&self, actions: Value) -> Result<(), Refusal> {
        self.on_page("input.performActions", json!({ "actions": actions }))
            .await
    }

    /// Opens `url` in the session's top-level page and answers once it has loaded
    /// (`browsingContext.navigate` with `wait: complete`, as Classic's page load strategy
    /// `normal`).
    pub(crate) async fn navigate(&self, url: &str) -> Result<(), Refusal> {
        let params = json!({ "url": url, "wait": "complete" });
        let answer = self.on_page("browsingContext.navigate", params).await;
        self.landed(answer).await
    }

    /// Reloads the top-level page and answers once it has loaded.
    pub(crate) async fn reload(&self) -> Result<(), Refusal> {
        let params = json!({ "wait": "complete" });
        let answer = self.on_page("browsingContext.reload", params).await;
        self.landed(answer).await
    }

    /// A navigation's answer, where one the page replaced with its own (an app that moves to
    /// its own address as it loads: "navigation canceled by concurrent navigation") is no
    /// failure, as under Classic: the page's own navigation is waited for instead.
    async fn landed(&self, answer: Result<(), Refusal>) -> Result<(), Refusal> {
        match answer {
            Err(Refusal::Error { message, .. }) if superseded(&message) => {
                self.settled(std::time::Instant::now() + SUPERSEDED_WAIT)
                    .await;
                Ok(())
            }
            answer => answer,
        }
    }

    /// Goes `delta` entries through the top-level page's history (-1: back).
    pub(crate) async fn traverse(&self, delta: i64) -> Result<(), Refusal> {
        let params = json!({ "delta": delta });
        self.on_page("browsingContext.traverseHistory", params)
            .await
    }

    /// The address of the session's top-level page, as the browser's tree of pages has it
    /// (`browsingContext.getTree`): no script, so a document that is going answers too.
    pub(crate) async fn url(&self) -> Result<String, Refusal> {
        let params = json!({ "root": self.context, "maxDepth": 0 });
        let tree = self.command("browsingContext.getTree", params).await?;
        tree["contexts"][0]["url"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| Refusal::Error {
                error: "unexpected answer".to_owned(),
                message: format!("a tree of pages without an address: {tree}"),
            })
    }

    /// A PNG of the session's top-level page's viewport, as Classic's Take Screenshot takes it.
    pub(crate) async fn screenshot(&self) -> Result<Vec<u8>, Refusal> {
        use base64::Engine as _;
        let params = json!({ "context": self.context });
        let answer = self
            .command("browsingContext.captureScreenshot", params)
            .await?;
        let data = answer["data"].as_str().unwrap_or_default();
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| Refusal::Error {
                error: "unexpected answer".to_owned(),
                message: format!("a screenshot that is not base64: {e}"),
            })
    }

    /// Sends a command about the session's top-level page (`params` get its `context`) and
    /// waits for its answer.
    async fn on_page(&self, method: &str, mut params: Value) -> Result<(), Refusal> {
        params["context"] = json!(self.context);
        self.command(method, params).await.map(|_| ())
    }

    /// The page's events heard since the last call, oldest first.
    pub(crate) fn take_events(&self) -> PageEvents {
        std::mem::take(&mut lock(&self.link.heard).events)
    }

    /// Runs a script as [`Self::call`] does, in the session's top-level page.
    pub(crate) async fn run(&self, body: &str, args: &[Value]) -> Result<Value, Refusal> {
        self.call(&self.context, body, args).await
    }

    /// Messages the channel carried so far: commands sent, answers and events received.
    pub(crate) fn traffic(&self) -> (u64, u64) {
        let heard = lock(&self.link.heard);
        (heard.sent, heard.received)
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// A mutex's guard, poisoned or not: what it guards stays usable after a panic elsewhere.
/// How long the page's own navigation that replaced one of ours may take to load.
const SUPERSEDED_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether a navigation was refused because the page started another meanwhile (chromedriver:
/// "navigation canceled by concurrent navigation"; Firefox: aborted by another navigation).
fn superseded(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    [
        "concurrent navigation",
        "navigation canceled",
        "navigation was aborted",
        "aborted by",
    ]
    .iter()
    .any(|words| message.contains(words))
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The task that reads the socket: each answer to the command waiting for it, each event where
/// it goes; when the socket closes, every command still waiting is told why.
fn read(
    mut stream: futures::stream::SplitStream<
        tokio_tungstenite::WebSocketStream<
            tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
        >,
    >,
    waiting: Waiting,
    heard: Arc<Mutex<Heard>>,
    moved: Arc<tokio::sync::Notify>,
    blocked: Blocked,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let why = loop {
            match stream.next().await {
                Some(Ok(Message::Text(text))) => {
                    if dispatch(&text, &waiting, &heard, &blocked) {
                        moved.notify_waiters();
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    break format!("closed by the browser ({frame:?})");
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break e.to_string(),
                None => break "closed".to_owned(),
            }
        };
        let pending: Vec<_> = lock(&waiting).drain().collect();
        for (_, answer) in pending {
            let _ = answer.send(Err(Refusal::Gone(why.clone())));
        }
    })
}

/// One message from the browser: an answer to the command waiting for it, or an event. True
/// when the top-level page's navigation under way came or ended.
fn dispatch(text: &str, waiting: &Waiting, heard: &Mutex<Heard>, blocked: &Blocked) -> bool {
    let Ok(message) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    lock(heard).received += 1;
    match message["type"].as_str() {
        Some("success") | Some("error") => {
            let Some(id) = message["id"].as_u64() else {
                return false;
            };
            let Some(answer) = lock(waiting).remove(&id) else {
                return false;
            };
            let result = if message["type"] == "success" {
                Ok(message["result"].clone())
            } else {
                Err(Refusal::Error {
                    error: message["error"].as_str().unwrap_or("error").to_owned(),
                    message: message["message"].as_str().unwrap_or_default().to_owned(),
                })
            };
            let _ = answer.send(result);
            false
        }
        Some("event") => {
            let method = message["method"].as_str().unwrap_or_default();
            if method == "network.beforeRequestSent" && message["params"]["isBlocked"] == true {
                if let Some(sender) = lock(blocked).as_ref() {
                    let _ = sender.send(message["params"].clone());
                }
                return false;
            }
            let mut heard = lock(heard);
            if method.starts_with("browsingContext.") {
                return navigated(&mut heard, method, &message["params"]);
            }
            heard_event(&mut heard, method, &message["params"]);
            false
        }
        _ => false,
    }
}

/// Follows the top-level page's navigation: one starts, its document comes, and it ends when
/// that document has loaded, it was aborted or failed, or it only moved to a fragment. True when
/// the navigation under way came or ended.
fn navigated(heard: &mut Heard, method: &str, params: &Value) -> bool {
    if params["context"].as_str() != Some(heard.context.as_str()) {
        return false;
    }
    let navigation = params["navigation"].as_str();
    if method == "browsingContext.navigationStarted" {
        heard.navigating = Some(Navigation {
            id: navigation.map(str::to_owned),
            started: tokio::time::Instant::now(),
            committed: false,
        });
        return false;
    }
    let Some(under_way) = heard.navigating.as_mut() else {
        return false;
    };
    // An event without an id, or of the navigation under way (not of one it replaced).
    if navigation.is_some() && under_way.id.as_deref() != navigation {
        return false;
    }
    if method == "browsingContext.navigationCommitted" {
        under_way.committed = true;
        return true;
    }
    if !NAVIGATION_ENDS.contains(&method) {
        return false;
    }
    heard.navigating = None;
    true
}

/// Keeps what an event says about the page: an error, a failed request, a load.
fn heard_event(heard: &mut Heard, method: &str, params: &Value) {
    // Kept until taken, and nothing takes them yet where an audit watches a page for minutes:
    // at most as many as the page's own observer keeps, later ones dropped until they are.
    let kept = &heard.events;
    if kept.errors.len() + kept.console_errors.len() + kept.failed_requests.len() >= MAX_HEARD {
        return;
    }
    match method {
        "log.entryAdded" if params["level"] == "error" => {
            let text = params["text"].as_str().unwrap_or_default().to_owned();
            match params["type"].as_str() {
                Some("javascript") => heard.events.errors.push(text),
                _ => heard.events.console_errors.push(text),
            }
        }
        // A page's own document (its status is the observation's) and the icon the browser asks
        // for on its own are not the page's requests.
        "network.responseCompleted" | "network.fetchError" if !the_pages_own(params) => {}
        "network.responseCompleted" => {
            let status = params["response"]["status"].as_u64().unwrap_or(0);
            if status >= 400 {
                heard
                    .events
                    .failed_requests
                    .push(request(params, status as u16));
            }
        }
        "network.fetchError" if !aborted(params["errorText"].as_str().unwrap_or_default()) => {
            heard.events.failed_requests.push(request(params, 0));
        }
        _ => {}
    }
}

/// Whether a request is one the page made: not the navigation that loads a document, nor the
/// browser's own `/favicon.ico`.
fn the_pages_own(params: &Value) -> bool {
    if !params["navigation"].is_null() {
        return false;
    }
    let url = params["request"]["url"].as_str().unwrap_or_default();
    let icon = url::Url::parse(url).is_ok_and(|u| u.path() == "/favicon.ico");
    !icon || params["initiator"]["type"] == "script"
}

use super::ELEMENT_KEY;

/// Whether a Classic JSON value holds an element reference anywhere in it.
fn holds_element(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(holds_element),
        Value::Object(map) => map.contains_key(ELEMENT_KEY) || map.values().any(holds_element),
        _ => false,
    }
}

/// A Classic JSON argument as BiDi's local value.
fn local_value(value: &Value) -> Value {
    match value {
        Value::Null => json!({ "type": "null" }),
        Value::Bool(b) => json!({ "type": "boolean", "value": b }),
        Value::Number(n) => json!({ "type": "number", "value": n }),
        Value::String(s) => json!({ "type": "string", "value": s }),
        Value::Array(items) => {
            json!({ "type": "array", "value": items.iter().map(local_value).collect::<Vec<_>>() })
        }
        Value::Object(map) => match map.get(ELEMENT_KEY).and_then(Value::as_str) {
            Some(id) => json!({ "sharedId": id }),
            None => json!({
                "type": "object",
                "value": map
                    .iter()
                    .map(|(key, value)| json!([key, local_value(value)]))
                    .collect::<Vec<_>>(),
            }),
        },
    }
}

/// A BiDi remote value as Classic's JSON: what `execute` would have answered.
fn classic_value(remote: &Value) -> Value {
    let value = &remote["value"];
    match remote["type"].as_str().unwrap_or_default() {
        "string" | "boolean" => value.clone(),
        // NaN, Infinity and -0 come as strings; Classic's JSON has no NaN or Infinity.
        "number" => match value {
            Value::Number(_) => value.clone(),
            Value::String(s) if s == "-0" => json!(0),
            _ => Value::Null,
        },
        "bigint" | "date" => value.clone(),
        "array" | "set" | "nodelist" | "htmlcollection" => Value::Array(
            value
                .as_array()
                .map(|items| items.iter().map(classic_value).collect())
                .unwrap_or_default(),
        ),
        "object" | "map" => Value::Object(
            value
                .as_array()
                .map(|pairs| {
                    pairs
                        .iter()
                        .filter_map(|pair| {
                            let key = match &pair[0] {
                                Value::String(key) => key.clone(),
                                other => classic_value(other).as_str()?.to_owned(),
                            };
                            Some((key, classic_value(&pair[1])))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        ),
        "node" => match remote["sharedId"].as_str() {
            Some(id) => json!({ ELEMENT_KEY: id }),
            None => Value::Null,
        },
        _ => Value::Null,
    }
}

/// A request an event is about, with the status it came to.
fn request(params: &Value, status: u16) -> FailedRequest {
    FailedRequest {
        method: params["request"]["method"]
            .as_str()
            .unwrap_or("GET")
            .to_owned(),
        url: params["request"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        status,
    }
}

/// Whether a fetch error is the app's or the browser's own cancelling (a navigation that leaves
/// a request behind, an `AbortController`): that is no failure of the server. Chromium says
/// `net::ERR_ABORTED`, Firefox `NS_BINDING_ABORTED`.
fn aborted(error: &str) -> bool {
    error.contains("ERR_ABORTED") || error.contains("NS_BINDING_ABORTED")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(events: &[(&str, Value)]) -> Heard {
        let mut heard = Heard::default();
        for (method, params) in events {
            heard_event(&mut heard, method, params);
        }
        heard
    }

    #[test]
    fn errors_failed_requests_and_aborts_are_told_apart() {
        let heard = heard(&[
            (
                "log.entryAdded",
                json!({ "level": "error", "type": "javascript", "text": "Error: boom" }),
            ),
            (
                "log.entryAdded",
                json!({ "level": "error", "type": "console", "text": "bad total" }),
            ),
            (
                "log.entryAdded",
                json!({ "level": "info", "type": "console", "text": "hello" }),
            ),
            (
                "network.responseCompleted",
                json!({ "request": { "method": "POST", "url": "http://a/api" },
                        "response": { "status": 500 } }),
            ),
            (
                "network.responseCompleted",
                json!({ "request": { "method": "GET", "url": "http://a/" },
                        "response": { "status": 200 } }),
            ),
            (
                "network.responseCompleted",
                json!({ "request": { "method": "GET", "url": "http://a/favicon.ico" },
                        "initiator": { "type": "other" }, "navigation": null,
                        "response": { "status": 404 } }),
            ),
            (
                "network.responseCompleted",
                json!({ "request": { "method": "GET", "url": "http://a/missing" },
                        "navigation": "n-1", "response": { "status": 404 } }),
            ),
            (
                "network.fetchError",
                json!({ "request": { "method": "GET", "url": "http://a/gone" },
                        "errorText": "net::ERR_CONNECTION_REFUSED" }),
            ),
            (
                "network.fetchError",
                json!({ "request": { "method": "GET", "url": "http://a/left" },
                        "errorText": "net::ERR_ABORTED" }),
            ),
            (
                "network.fetchError",
                json!({ "request": { "method": "GET", "url": "http://a/left" },
                        "errorText": "NS_BINDING_ABORTED" }),
            ),
        ]);
        assert_eq!(heard.events.errors, ["Error: boom"]);
        assert_eq!(heard.events.console_errors, ["bad total"]);
        assert_eq!(
            heard.events.failed_requests,
            [
                FailedRequest {
                    method: "POST".into(),
                    url: "http://a/api".into(),
                    status: 500
                },
                FailedRequest {
                    method: "GET".into(),
                    url: "http://a/gone".into(),
                    status: 0
                },
            ]
        );
    }

    #[test]
    fn classic_json_goes_out_as_local_values_and_comes_back_from_remote_ones() {
        let element = json!({ ELEMENT_KEY: "f.1.d.2" });
        assert_eq!(local_value(&element), json!({ "sharedId": "f.1.d.2" }));
        assert_eq!(
            local_value(&json!([1, "a", null, { "k": true }])),
            json!({ "type": "array", "value": [
                { "type": "number", "value": 1 },
                { "type": "string", "value": "a" },
                { "type": "null" },
                { "type": "object", "value": [["k", { "type": "boolean", "value": true }]] },
            ] })
        );
        let remote = json!({ "type": "object", "value": [
            ["ok", { "type": "boolean", "value": true }],
            ["n", { "type": "number", "value": "NaN" }],
            ["z", { "type": "number", "value": "-0" }],
            ["els", { "type": "array", "value": [
                { "type": "node", "sharedId": "f.1.d.7", "value": { "nodeType": 1 } },
            ] }],
            ["gone", { "type": "undefined" }],
        ] });
        assert_eq!(
            classic_value(&remote),
            json!({ "ok": true, "n": null, "z": 0, "els": [{ ELEMENT_KEY: "f.1.d.7" }], "gone": null })
        );
    }

    #[test]
    fn no_more_events_are_kept_than_the_observer_keeps() {
        let error = json!({ "level": "error", "type": "console", "text": "again" });
        let heard = heard(&vec![("log.entryAdded", error); MAX_HEARD + 20]);
        assert_eq!(heard.events.console_errors.len(), MAX_HEARD);
    }

    #[test]
    fn a_navigation_is_under_way_from_its_start_to_its_end_and_known_when_its_document_came() {
        let mut heard = Heard {
            context: "top".to_owned(),
            ..Heard::default()
        };
        let event = |navigation: &str| json!({ "context": "top", "navigation": navigation });
        let started = "browsingContext.navigationStarted";
        assert!(!navigated(&mut heard, started, &event("n-1")));
        let under_way = |heard: &Heard| heard.navigating.as_ref().map(|n| n.committed);
        assert_eq!(under_way(&heard), Some(false));
        let other = json!({ "context": "frame", "navigation": "n-9" });
        assert!(!navigated(&mut heard, started, &other), "a frame's");
        assert!(navigated(
            &mut heard,
            "browsingContext.navigationCommitted",
            &event("n-1")
        ));
        assert_eq!(under_way(&heard), Some(true));
        assert!(
            !navigated(&mut heard, "browsingContext.load", &event("n-0")),
            "one it replaced"
        );
        assert!(navigated(&mut heard, "browsingContext.load", &event("n-1")));
        assert_eq!(under_way(&heard), None);
        // A navigation that fails (Chromium's answer to a 204) ends too.
        navigated(&mut heard, started, &event("n-2"));
        assert!(navigated(
            &mut heard,
            "browsingContext.navigationFailed",
            &event("n-2")
        ));
        assert_eq!(under_way(&heard), None);
    }

    #[test]
    fn a_navigation_the_page_replaced_with_its_own_is_told_from_a_failure() {
        assert!(superseded(
            "unknown error: navigation canceled by concurrent navigation"
        ));
        assert!(superseded("Navigation was aborted by another navigation"));
        assert!(!superseded("unknown error: net::ERR_CONNECTION_REFUSED"));
    }

    #[test]
    fn a_protocol_is_named_as_its_setting_is() {
        for protocol in [Protocol::Auto, Protocol::Bidi, Protocol::Classic] {
            assert_eq!(protocol.as_str().parse::<Protocol>(), Ok(protocol));
        }
        assert_eq!(" BiDi ".parse::<Protocol>(), Ok(Protocol::Bidi));
        let err = "cdp".parse::<Protocol>().unwrap_err();
        assert!(err.contains("\"auto\", \"bidi\" or \"classic\""), "{err}");
    }
}
