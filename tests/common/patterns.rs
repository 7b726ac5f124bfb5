//! The pattern pages of `tests/fixtures/patterns/`: small hand-written pages of real-world markup
//! (opacity-0 checkboxes, shadow roots, frames, virtual lists, …), each with a scenario beside it.
//!
//! [`PatternSite`] serves them on two loopback origins. Every `__OTHER_ORIGIN__` in a page is
//! replaced by the second origin's URL, so a page can load a cross-origin frame from it.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The placeholder a page writes where it needs the other origin (`http://127.0.0.1:PORT_B`).
const OTHER_ORIGIN: &str = "__OTHER_ORIGIN__";

/// The pattern pages served on two loopback origins (the second is the "other origin"
/// cross-origin frames load from). Both servers stop when this is dropped.
#[allow(dead_code)]
pub struct PatternSite {
    url: String,
    other_url: String,
    /// One per server: sending (or dropping) it starts that server's graceful shutdown.
    stops: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<()>>,
}

#[allow(dead_code)]
impl PatternSite {
    /// Binds `127.0.0.1:0` twice and serves `tests/fixtures/patterns/*.html` on both.
    pub async fn start() -> PatternSite {
        let first = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("a loopback port for the pattern site");
        let second = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .expect("a second loopback port for the pattern site");
        let url = format!("http://{}", first.local_addr().expect("a bound address"));
        let other_url = format!("http://{}", second.local_addr().expect("a bound address"));

        let mut stops = Vec::new();
        let mut tasks = Vec::new();
        for listener in [first, second] {
            let (stop, stopped) = oneshot::channel::<()>();
            let app = router(other_url.clone());
            tasks.push(tokio::spawn(async move {
                // Ends once shut down and every connection is closed; nothing to report then.
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        // A send or a dropped sender both mean: stop.
                        let _ = stopped.await;
                    })
                    .await;
            }));
            stops.push(stop);
        }
        PatternSite {
            url,
            other_url,
            stops,
            tasks,
        }
    }

    /// The first origin, such as `http://127.0.0.1:41234` (no trailing slash): start URLs are
    /// joined to it.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The second origin, which `__OTHER_ORIGIN__` stands for in the pages.
    pub fn other_url(&self) -> String {
        self.other_url.clone()
    }

    /// `tests/fixtures/patterns`, where the pages and their scenarios are.
    pub fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/patterns")
    }

    /// The scenarios beside the pages (`*.yaml`), sorted by file name.
    pub fn scenario_files() -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(Self::dir())
            .expect("tests/fixtures/patterns is readable")
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().is_some_and(|ext| ext == "yaml"))
            .collect();
        files.sort();
        files
    }

    /// Stops both servers and waits until they have ended.
    pub async fn stop(mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
        for task in self.tasks.drain(..) {
            let _ = task.await;
        }
    }
}

impl Drop for PatternSite {
    fn drop(&mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
    }
}

fn router(other_url: String) -> Router {
    Router::new()
        .route("/{file}", get(page))
        .fallback(|| async { not_found() })
        .with_state(Arc::new(other_url))
}

/// `GET /NAME.html` (the page with `__OTHER_ORIGIN__` replaced), `/NAME.css`, `/NAME.js` (what
/// pages share); 404 for anything else.
async fn page(State(other_url): State<Arc<String>>, Path(file): Path<String>) -> Response {
    let Some(kind) = content_type(&file) else {
        return not_found();
    };
    match tokio::fs::read_to_string(PatternSite::dir().join(&file)).await {
        Ok(text) => (
            [
                (header::CONTENT_TYPE, kind),
                (header::CACHE_CONTROL, "no-store"),
            ],
            text.replace(OTHER_ORIGIN, &other_url),
        )
            .into_response(),
        Err(_) => not_found(),
    }
}

/// The type of a plain file name, `^[a-z0-9-]+\.(html|css|js)$` (so no `..`, no `/`, no other
/// files); `None` for any other name.
fn content_type(file: &str) -> Option<&'static str> {
    let (stem, extension) = file.rsplit_once('.')?;
    let plain = !stem.is_empty()
        && stem
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    let kind = match extension {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        _ => return None,
    };
    plain.then_some(kind)
}

fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "not found\n",
    )
        .into_response()
}
