//! Windup Shop: the demo target for Windup's end-to-end tests.
//!
//! A small but real web shop (catalogue, cart, coupons, login, checkout, order history),
//! rendered on the server with a little JavaScript, keeping all state in memory. Seeded bugs
//! ([`Bug`]) can be switched on to give Windup's audit something to find, and an alternative
//! [`Markup`] renames every id and test id to exercise re-planning.

mod account;
mod assets;
mod bugs;
mod cart;
mod catalogue;
mod checkout;
mod html;
mod markup;
mod orders;
mod pages;
mod session;
mod store;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

pub use bugs::{Bug, BugSet, ParseBugError};
pub use markup::{Markup, ParseMarkupError};
pub use store::{DEMO_EMAIL, DEMO_PASSWORD};

/// The shop's own invariants (`invariants/shop.yaml`): what it must never do, as an audit reads
/// them. Built in, so that `cargo windup demo --audit` needs no checkout of this repository.
pub const INVARIANTS: &str = include_str!("../invariants/shop.yaml");

use html::Header;
use markup::Names;
use store::{Session, Store};

/// How to run the shop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ShopOptions {
    /// The seeded bugs switched on (none by default).
    pub bugs: BugSet,
    /// Which markup the pages use.
    pub markup: Markup,
}

/// What every handler shares: the state and the options it was started with.
#[derive(Clone)]
pub(crate) struct Shop {
    store: Arc<Mutex<Store>>,
    bugs: BugSet,
    names: &'static Names,
}

impl Shop {
    fn new(opts: ShopOptions) -> Self {
        Shop {
            store: Arc::new(Mutex::new(Store::new())),
            bugs: opts.bugs,
            names: opts.markup.names(),
        }
    }

    /// The state; a handler that panicked mid-update leaves it usable for a demo.
    fn lock(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn header(&self, session: &Session) -> Header {
        Header {
            names: self.names,
            user: session.user.clone(),
            cart_count: session.cart.count(),
        }
    }
}

/// The shop's routes, with fresh in-memory state.
pub fn router(opts: ShopOptions) -> Router {
    let shop = Shop::new(opts);
    Router::new()
        .route("/", get(pages::home))
        .route("/products", get(pages::products))
        .route("/help", get(pages::help))
        .route("/products/{slug}", get(pages::product))
        .route("/search", get(pages::search))
        .route("/cart", get(cart::show))
        .route("/cart/add", post(cart::add))
        .route("/cart/update", post(cart::update))
        .route("/cart/remove", post(cart::remove))
        .route("/cart/coupon", post(cart::coupon))
        .route("/api/cart/coupon", post(cart::coupon_api))
        .route("/login", get(account::login_page).post(account::login))
        .route("/logout", post(account::logout))
        .route("/checkout", get(checkout::show).post(checkout::place))
        .route("/orders", get(orders::list))
        .route("/orders/{id}", get(orders::show))
        .fallback(pages::not_found)
        .layer(from_fn_with_state(shop.clone(), session::layer))
        // Added after the session layer: static files never create a session.
        .route("/static/shop.css", get(assets::css))
        .route("/static/shop.js", get(assets::js))
        .with_state(shop)
}

/// Serves the shop on `listener` until the future is dropped or the listener fails.
pub async fn serve(listener: TcpListener, opts: ShopOptions) -> std::io::Result<()> {
    axum::serve(listener, router(opts)).await
}

/// Starts the shop on a free port of 127.0.0.1 in a background task.
pub async fn spawn(opts: ShopOptions) -> std::io::Result<RunningShop> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(async move {
        // The task only ends when aborted or when accepting fails; nothing to report then.
        let _ = serve(listener, opts).await;
    });
    Ok(RunningShop {
        url: format!("http://{addr}"),
        addr,
        task,
    })
}

/// A shop serving in the background; stops when dropped.
#[derive(Debug)]
pub struct RunningShop {
    url: String,
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl RunningShop {
    /// The base URL, such as `http://127.0.0.1:41234` (no trailing slash).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address the shop listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for RunningShop {
    fn drop(&mut self) {
        self.task.abort();
    }
}
