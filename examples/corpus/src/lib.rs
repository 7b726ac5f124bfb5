//! The audit's corpus: small apps on real UI frameworks from the npm registry, each with seeded
//! bugs that only a person's moves reach (text left pending, a key at a time, Escape, blur,
//! hover, double-click, back and forward, a checkbox behind its label), committed as built
//! static files so nothing is built to use them.
//!
//! Each app lives in `examples/corpus/<name>/`: its source and lockfile, the built `site/`, the
//! invariants a user would write from its spec (`invariants/`), and `app.yaml`, which names its
//! framework and each bug with the invariant that catches it. [`serve`] serves an app's site on
//! loopback with the bugs chosen switched on: the site loads `./bugs.js` before its bundle, and
//! the server answers it with `window.__BUGS__ = [...]`.

pub mod bombadil;
pub mod compare;
pub mod efficacy;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// An app of the corpus, as its `app.yaml` describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct App {
    pub name: String,
    /// The npm package and version it is built on (`react 18.3.1`), or `none`.
    pub framework: String,
    /// What the app does and the rules it keeps, in a few sentences.
    pub spec: String,
    pub bugs: Vec<Bug>,
    /// The app's folder.
    #[serde(skip)]
    pub dir: PathBuf,
}

/// A seeded bug: its id (as the app checks it), the invariant that catches it, its kind, and
/// the moves that show it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bug {
    pub id: String,
    pub invariant: String,
    pub kind: String,
    pub reach: String,
    /// The kinds of move ([`efficacy::move_kind`]) without which nothing reaches the bug: the
    /// regression test of its finding makes each of them. An entry may name alternatives,
    /// `press Enter|press Space`: one of them is made.
    #[serde(default)]
    pub moves: Vec<String>,
}

impl Bug {
    /// Whether a test making the moves `made` makes each of the bug's [`Bug::moves`]; the
    /// first one missing when not.
    pub fn missing_move<'a>(
        &'a self,
        made: &std::collections::BTreeSet<String>,
    ) -> Option<&'a str> {
        self.moves
            .iter()
            .find(|needed| !needed.split('|').any(|kind| made.contains(kind)))
            .map(String::as_str)
    }
}

/// What went wrong reading or serving the corpus.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Manifest {
        path: PathBuf,
        source: serde_yaml::Error,
    },
    #[error("there is no app {0:?} in the corpus; the apps are: {1}")]
    NoSuchApp(String, String),
    #[error("{app} has no bug {bug:?}; its bugs are: {known}")]
    NoSuchBug {
        app: String,
        bug: String,
        known: String,
    },
    #[error("cannot listen on 127.0.0.1: {0}")]
    Bind(std::io::Error),
}

/// The corpus folder of this repository.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Every app of the corpus, by name.
pub fn apps() -> Result<Vec<App>, CorpusError> {
    let root = root();
    let entries = std::fs::read_dir(&root).map_err(|source| CorpusError::Read {
        path: root.clone(),
        source,
    })?;
    let mut apps = Vec::new();
    for entry in entries.flatten() {
        let manifest = entry.path().join("app.yaml");
        if manifest.is_file() {
            apps.push(App::load(&entry.path())?);
        }
    }
    apps.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(apps)
}

/// One app of the corpus, by name.
pub fn app(name: &str) -> Result<App, CorpusError> {
    let all = apps()?;
    let names: Vec<String> = all.iter().map(|a| a.name.clone()).collect();
    all.into_iter()
        .find(|a| a.name == name)
        .ok_or_else(|| CorpusError::NoSuchApp(name.to_owned(), names.join(", ")))
}

impl App {
    /// The app in `dir`, from its `app.yaml`.
    pub fn load(dir: &Path) -> Result<App, CorpusError> {
        let path = dir.join("app.yaml");
        let text = std::fs::read_to_string(&path).map_err(|source| CorpusError::Read {
            path: path.clone(),
            source,
        })?;
        let mut app: App =
            serde_yaml::from_str(&text).map_err(|source| CorpusError::Manifest { path, source })?;
        app.dir = dir.to_path_buf();
        Ok(app)
    }

    /// The built site, served as is.
    pub fn site(&self) -> PathBuf {
        self.dir.join("site")
    }

    /// The invariants a user would write for it.
    pub fn invariants(&self) -> PathBuf {
        self.dir.join("invariants")
    }

    /// The bugs named by `ids`, every one known.
    pub fn bugs_named(&self, ids: &[&str]) -> Result<Vec<String>, CorpusError> {
        ids.iter()
            .map(|id| {
                self.bugs
                    .iter()
                    .find(|b| b.id == *id)
                    .map(|b| b.id.clone())
                    .ok_or_else(|| CorpusError::NoSuchBug {
                        app: self.name.clone(),
                        bug: (*id).to_owned(),
                        known: self
                            .bugs
                            .iter()
                            .map(|b| b.id.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect()
    }

    /// Every bug's id.
    pub fn all_bugs(&self) -> Vec<String> {
        self.bugs.iter().map(|b| b.id.clone()).collect()
    }
}

/// An app's site served on loopback; it stops when dropped.
pub struct RunningSite {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl RunningSite {
    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Stops serving and waits for the server to end.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for RunningSite {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

#[derive(Clone)]
struct Site {
    dir: PathBuf,
    bugs: String,
}

/// Serves `app`'s site on a free loopback port with `bugs` switched on.
pub async fn serve(app: &App, bugs: &[String]) -> Result<RunningSite, CorpusError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(CorpusError::Bind)?;
    serve_on(listener, app, bugs)
}

/// Serves `app`'s site on `listener` with `bugs` switched on.
pub fn serve_on(
    listener: TcpListener,
    app: &App,
    bugs: &[String],
) -> Result<RunningSite, CorpusError> {
    let addr = listener.local_addr().map_err(CorpusError::Bind)?;
    let site = Site {
        dir: app.site(),
        bugs: format!(
            "window.__BUGS__ = {};\n",
            serde_json::to_string(bugs).unwrap_or_else(|_| "[]".to_owned())
        ),
    };
    let router = Router::new()
        .route("/", get(index))
        .route("/bugs.js", get(bugs_js))
        .route("/{*file}", get(file))
        .with_state(site);
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await;
    });
    Ok(RunningSite {
        addr,
        stop: Some(stop),
        task: Some(task),
    })
}

async fn index(State(site): State<Site>) -> Response {
    send(&site.dir, "index.html").await
}

async fn bugs_js(State(site): State<Site>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/javascript"),
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        site.bugs,
    )
        .into_response()
}

async fn file(State(site): State<Site>, UrlPath(file): UrlPath<String>) -> Response {
    if file.ends_with("bugs.js") && !file.contains('/') {
        return bugs_js(State(site)).await;
    }
    send(&site.dir, &file).await
}

/// A file under `dir`, never outside it.
async fn send(dir: &Path, file: &str) -> Response {
    let safe = !file.is_empty()
        && Path::new(file)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !safe {
        return StatusCode::NOT_FOUND.into_response();
    }
    let path = dir.join(file);
    let path = if path.is_dir() {
        path.join("index.html")
    } else {
        path
    };
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
            bytes,
        )
            .into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

fn content_type(path: &Path) -> HeaderValue {
    let kind = match path.extension().and_then(|e| e.to_str()) {
        Some("html") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("json") => "application/json",
        Some("woff2") => "font/woff2",
        _ => "application/octet-stream",
    };
    HeaderValue::from_static(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_app_names_its_framework_and_at_least_two_bugs_each_with_its_invariant() {
        let apps = apps().expect("the corpus reads");
        assert!(apps.len() >= 8, "{} apps", apps.len());
        let on_npm = apps.iter().filter(|a| a.framework != "none").count();
        assert!(on_npm >= 5, "{on_npm} apps on npm frameworks");
        for app in &apps {
            assert!(app.bugs.len() >= 2, "{}: {} bugs", app.name, app.bugs.len());
            assert!(
                app.site().join("index.html").is_file(),
                "{} is built",
                app.name
            );
            let invariants = std::fs::read_dir(app.invariants())
                .map(|d| d.count())
                .unwrap_or(0);
            assert!(invariants > 0, "{} has invariants", app.name);
            let mut caught: Vec<&str> = app.bugs.iter().map(|b| b.invariant.as_str()).collect();
            caught.sort_unstable();
            caught.dedup();
            assert_eq!(
                caught.len(),
                app.bugs.len(),
                "{}: each bug breaks its own rule",
                app.name
            );
            for bug in &app.bugs {
                for kind in bug.moves.iter().flat_map(|m| m.split('|')) {
                    assert!(
                        efficacy::MOVE_KINDS.contains(&kind),
                        "{}: {}: {kind:?} is not a kind of move",
                        app.name,
                        bug.id
                    );
                }
            }
        }
    }

    #[test]
    fn a_bug_needs_each_of_its_moves_and_one_of_its_alternatives() {
        let bug = Bug {
            id: "enter-twice".into(),
            invariant: "one".into(),
            kind: "other".into(),
            reach: String::new(),
            moves: vec!["double_click".into(), "press Enter|press Space".into()],
        };
        let made = |kinds: &[&str]| kinds.iter().map(|k| (*k).to_owned()).collect();
        assert_eq!(
            bug.missing_move(&made(&["double_click", "press Space"])),
            None
        );
        assert_eq!(
            bug.missing_move(&made(&["double_click", "press Enter"])),
            None
        );
        assert_eq!(
            bug.missing_move(&made(&["press Enter"])),
            Some("double_click")
        );
        assert_eq!(
            bug.missing_move(&made(&["double_click", "press Tab"])),
            Some("press Enter|press Space")
        );
    }

    #[tokio::test]
    async fn the_site_is_served_with_the_bugs_asked_for_and_nothing_outside_it() {
        let app = apps().expect("the corpus reads").remove(0);
        let bugs = app.all_bugs();
        let site = serve(&app, &bugs).await.expect("it serves");
        let get = |path: &str| {
            let request = format!("GET /{path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let addr = site.addr;
            async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut stream = tokio::net::TcpStream::connect(addr)
                    .await
                    .expect("it connects");
                stream
                    .write_all(request.as_bytes())
                    .await
                    .expect("it sends");
                let mut answer = String::new();
                stream
                    .read_to_string(&mut answer)
                    .await
                    .expect("it answers");
                answer
            }
        };
        let script = get("bugs.js").await;
        assert!(script.contains(&bugs[0]), "{script}");
        assert!(get("").await.starts_with("HTTP/1.1 200"));
        assert!(get("../Cargo.toml").await.starts_with("HTTP/1.1 404"));
        assert!(get("%2e%2e/Cargo.toml").await.starts_with("HTTP/1.1 404"));
        site.stop().await;
    }
}
