//! Windup Todo: a second demo target for Windup's audit, in another domain than the shop.
//!
//! A TodoMVC-style to-do list: one HTML page with the standard TodoMVC markup and class names,
//! rendered in the browser by plain JavaScript (no framework, no build step), talking to a
//! small JSON API. Each visitor's list lives on the server, in memory, keyed by a session
//! cookie; lists and sessions are bounded. Seeded bugs ([`Bug`]) can be switched on, each
//! alone; with none the list behaves correctly. Client-side bugs change the script the
//! server sends, never the page's markup.

mod api;
mod bugs;
mod pages;
mod script;
mod session;
mod store;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, patch, post};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use bugs::{Bug, BugSet, ParseBugError};
pub use store::{MAX_SESSIONS, MAX_TITLE_CHARS, MAX_TODOS};

use store::Store;

/// How to run the to-do list.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TodoOptions {
    /// The seeded bugs switched on (none by default).
    pub bugs: BugSet,
}

/// What every handler shares: the state, the bugs, and the script rendered for them.
#[derive(Clone)]
pub(crate) struct App {
    store: Arc<Mutex<Store>>,
    bugs: BugSet,
    script: Arc<str>,
}

impl App {
    fn new(opts: TodoOptions) -> Self {
        App {
            store: Arc::new(Mutex::new(Store::new())),
            bugs: opts.bugs,
            script: script::for_bugs(opts.bugs).into(),
        }
    }

    /// The state; a handler that panicked mid-update leaves it usable for a demo.
    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The list's routes, with fresh in-memory state.
pub fn router(opts: TodoOptions) -> Router {
    let app = App::new(opts);
    Router::new()
        .route("/", get(pages::home))
        .route("/api/todos", get(api::index).post(api::create))
        .route("/api/todos/clear-completed", post(api::clear_completed))
        .route("/api/todos/toggle-all", post(api::toggle_all))
        .route("/api/todos/{id}", patch(api::update).delete(api::delete))
        .fallback(pages::not_found)
        .layer(from_fn_with_state(app.clone(), session::layer))
        // Added after the session layer: static files never create a session.
        .route("/static/todo.css", get(pages::css))
        .route("/static/todo.js", get(pages::js))
        .with_state(app)
}

/// Serves the list on `listener` until the future is dropped or the listener fails.
pub async fn serve(listener: TcpListener, opts: TodoOptions) -> std::io::Result<()> {
    axum::serve(listener, router(opts)).await
}

/// Starts the list on a free port of 127.0.0.1 in a background task.
pub async fn spawn(opts: TodoOptions) -> std::io::Result<RunningTodo> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        // The task only ends when aborted or when accepting fails; nothing to report then.
        let _ = serve(listener, opts).await;
    });
    Ok(RunningTodo {
        url: format!("http://{addr}"),
        addr,
        task,
    })
}

/// A to-do list serving in the background; stops when dropped.
#[derive(Debug)]
pub struct RunningTodo {
    url: String,
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl RunningTodo {
    /// The base URL, such as `http://127.0.0.1:41234` (no trailing slash).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the list listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for RunningTodo {
    fn drop(&mut self) {
        self.task.abort();
    }
}
