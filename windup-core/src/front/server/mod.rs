//! `cargo windup serve`: the audit's HTTP API and its live dashboard, in one process with the
//! audit inside it as a library.
//!
//! - `POST /audit` starts an audit (queued while others run), `POST /audit/{id}/stop` stops
//!   one; `GET /audit/{id}` is its report, `GET /audits` the history,
//!   `GET /findings/{id}/test` a generated test to download, `GET /audit/{id}/files/{name}` a
//!   screenshot of it.
//! - `WS /audit/{id}/stream?after=SEQ` is the run's event stream: what the store holds after
//!   `SEQ` first, then each event as it is stored, in order, with no gap and no duplicate,
//!   whenever the subscriber arrives. Every event comes from the store, so a refresh, a second
//!   tab or a restart of the server shows the same thing.
//! - `/` is the dashboard: a projection of the same stream.
//!
//! It binds to loopback unless told otherwise, and then only with a token; every request must
//! name a loopback host on a loopback bind (no DNS rebinding), every state-changing request and
//! every stream must come from the dashboard's own origin when a browser sends it, and only
//! the configured targets may be audited (docs/server.md).

mod api;
mod app;
mod assets;
mod guard;
mod listen;
mod runs;
mod stream;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::config::Settings;
use crate::model::secret::SecretValue;
use crate::store::{AuditStore, StoreError};

pub use guard::TargetPolicy;

/// How a server is set up.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The project: its root (the store, the tests written), its browser, its accounts.
    pub settings: Settings,
    pub bind: SocketAddr,
    /// Required for a bind off loopback: every API request and stream must carry it.
    pub token: Option<SecretValue>,
    /// The origins an audit may be asked for.
    pub targets: TargetPolicy,
    /// Audits run at once; others wait, `queued`.
    pub max_running: usize,
    /// Audits that may wait for a turn; past them a new one is refused (429 `queue_full`).
    pub max_queued: usize,
    /// The largest request body taken, in bytes.
    pub max_body: usize,
    /// The longest a client may take to send a request's head, and then its body (past it: the
    /// connection is closed, or 408 `request_timeout`); also how long a kept-alive connection
    /// may wait idle for its next request.
    pub read_limit: Duration,
    /// How long, once the server is asked to stop, its connections get to finish the answer
    /// they are on; then those a client still holds are dropped.
    pub grace: Duration,
    /// Streams open at once on one run.
    pub max_subscribers: usize,
    /// How often, at most, an audit's browser is pictured for the live preview.
    pub frames: Duration,
    /// Where audits are kept (`.windup/audits.sqlite` under the root by default).
    pub store: PathBuf,
    /// The dashboard's files read from this directory on each request instead of those built
    /// in: for working on the dashboard without a rebuild.
    pub assets_dir: Option<PathBuf>,
}

impl ServeOptions {
    /// The defaults: loopback port 7357, the project's base URL the only target, one audit at a
    /// time and 16 waiting, 64 KiB bodies, 32 streams a run, a frame a second.
    pub fn new(settings: Settings) -> Self {
        let targets = TargetPolicy::from_origins(
            settings
                .base_url
                .iter()
                .map(|url| url.origin().ascii_serialization()),
        );
        let store = settings.root.join(crate::run::audit::STORE_FILE);
        ServeOptions {
            settings,
            bind: SocketAddr::from(([127, 0, 0, 1], 7357)),
            token: None,
            targets,
            max_running: 1,
            max_queued: 16,
            max_body: 64 * 1024,
            read_limit: Duration::from_secs(10),
            grace: SHUTDOWN_GRACE,
            max_subscribers: 32,
            frames: Duration::from_secs(1),
            store,
            assets_dir: None,
        }
    }
}

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error(
        "refusing to serve on {bind} without a token: off loopback, anyone who reaches the port \
         could start audits; set WINDUP_SERVE_TOKEN (or bind to 127.0.0.1)"
    )]
    NoToken { bind: SocketAddr },
    #[error("cannot listen on {bind}: {source}; pick another port with --bind")]
    Bind {
        bind: SocketAddr,
        source: std::io::Error,
    },
    #[error("the audit store: {0}")]
    Store(#[from] StoreError),
}

/// How long, once asked to stop, the server waits for its connections to finish, by default.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// A server bound to its address, ready to serve.
pub struct Server {
    listener: TcpListener,
    app: Arc<app::App>,
}

impl Server {
    /// Checks the options, opens the store and binds. Nothing is served until [`Server::serve`].
    pub async fn bind(options: ServeOptions) -> Result<Server, ServeError> {
        if !options.bind.ip().is_loopback() && options.token.is_none() {
            return Err(ServeError::NoToken { bind: options.bind });
        }
        let store = Arc::new(AuditStore::open(&options.store)?);
        let listener =
            TcpListener::bind(options.bind)
                .await
                .map_err(|source| ServeError::Bind {
                    bind: options.bind,
                    source,
                })?;
        let local = listener.local_addr().map_err(|source| ServeError::Bind {
            bind: options.bind,
            source,
        })?;
        let app = Arc::new(app::App::new(options, local, store));
        Ok(Server { listener, app })
    }

    /// The address it listens on (the port chosen, for a bind to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.app.local
    }

    /// Serves until `shutdown` resolves; then stops every audit and waits for them to end, so
    /// that no browser outlives the server. Connections get the options' `grace` to finish what
    /// they are answering; one a client holds open past it (a request it never finishes
    /// sending) is dropped, so the server's end never waits on a client.
    pub async fn serve(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let router = api::router(Arc::clone(&self.app));
        let app = Arc::clone(&self.app);
        // Streams end first, so that they leave the connections free to close.
        let shutdown = async move {
            shutdown.await;
            app.close();
        };
        let options = &self.app.options;
        let (read_limit, grace) = (options.read_limit, options.grace);
        listen::serve(self.listener, router, read_limit, shutdown, grace).await;
        self.app.runs.stop_all().await;
        Ok(())
    }
}
