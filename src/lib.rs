//! Windup: natural-language end-to-end browser tests, planned once and replayed deterministically.
//!
//! A scenario (YAML: a task, steps a person takes, what must hold) is planned once into a plan —
//! plain data: browser actions with selectors and postconditions — replayed over WebDriver in a
//! real browser, verified without any model, and kept as a lockfile beside the scenario, so every
//! later run makes no model call and costs nothing.
//!
//! # Getting started
//!
//! ```sh
//! cargo add --dev windup                # this crate, as a dev-dependency
//! cargo install cargo-windup --locked   # the `cargo windup` command
//! cargo windup setup                    # Chromium and ChromeDriver, when the machine lacks them
//! cargo windup init                     # windup.toml, tests/e2e.rs, scenarios/home.yaml, [[test]] e2e
//! cargo test --test e2e                 # every scenario is a test
//! ```
//!
//! `tests/e2e.rs` is a `harness = false` test target whose [`main`] starts the app under test
//! (or names where it runs) and returns a [`Setup`]:
//!
//! ```no_run
//! #[windup::main]
//! async fn setup() -> windup::Setup {
//!     // Start your app here and keep it alive with `with_guard`; or point at one running.
//!     windup::Setup::new("http://127.0.0.1:8080")
//! }
//! ```
//!
//! and `scenarios/buy-a-mug.yaml` says what a person does:
//!
//! ```yaml
//! task: Buy one Rust mug as the demo user and confirm the order.
//! start_url: /products/rust-mug
//! steps:
//!   - click "Add to cart"
//!   - fill "Email" with "demo@windup.test"
//!   - fill "Password" with account.password
//!   - click "Place order"
//! expect:
//!   - text "Thank you for your order"
//! ```
//!
//! **Embedding.** Load [`Settings`], pick scenarios with [`Selection`], and run a [`Suite`] with
//! your own [`Reporter`]: it receives every [`RunEvent`] of the run, in order.
//!
//! ```no_run
//! use windup::{RunEvent, Selection, Settings, Suite};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let settings = Settings::load(std::path::Path::new("."))?; // windup.toml + WINDUP_* env
//! let selection = Selection::load(&settings, None, false)?; // scenarios/, ignore_tags applied
//! let finished = Suite::new(settings, "http://127.0.0.1:8080".parse()?)
//!     .reporter(|event: &RunEvent| println!("{}", event.to_json()))
//!     .run(selection)
//!     .await?;
//! println!("{} passed, {} failed", finished.totals.passed, finished.totals.failed);
//! # Ok(()) }
//! ```
//!
//! Everything at this level is the stable surface; [`engine`] is the machinery under it (replay
//! one [`Plan`] yourself, keep plans, serve or bench a project), for advanced use, and changes
//! more often. The guides (scenarios, the cache, the audit, CI) are in the repository's `docs/`.
//!
//! # Features
//!
//! The default is what scenarios in `cargo test` need: plans, replay, offline and model
//! planning, the plan cache and lockfiles, the ledger, reports. The rest is named: `audit` (the
//! adversarial audit as a run, and its SQLite store), `server` (the audit server and dashboard),
//! `scan` (the static scan of a project's routes), `images` (screenshots scaled: JPEG thumbnails
//! in the HTML report, pictures sized for a model), and `full` for all of them.
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use windup_core::config::{ConfigError, Settings};
pub use windup_core::engine::audit::{Budget, Finding};
pub use windup_core::front::harness::{IntoSetup, Setup};
pub use windup_core::model::plan::Plan;
pub use windup_core::model::scenario::{Scenario, ScenarioError};
#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub use windup_core::run::audit::{AuditError, AuditFinished, AuditRun};
pub use windup_core::run::events::{ActionInfo, PlanChoice, Reporter, RunEvent, Totals};
pub use windup_core::run::failure::{Failure, FailureClass};
pub use windup_core::run::outcome::{Outcome, ScenarioResult};
pub use windup_core::run::suite::{Finished, Selection, Suite, SuiteError};
pub use windup_macros::main;

/// The engine under the front door, by name: what an embedder needs to replay one plan in a
/// browser of its own (`examples/replay_plan.rs`), keep plans (the cache, lockfiles, the ledger)
/// and serve or bench a project. It changes more often than the front door; the whole engine,
/// layer by layer as docs/architecture.md describes it, is the `windup-core` crate.
pub mod engine {
    pub use windup_core::browser::{Browser, BrowserConfig, BrowserError, Session};
    pub use windup_core::config::Overrides;
    pub use windup_core::engine::cache::{CacheError, CacheKey, PlanCache};
    pub use windup_core::engine::executor::{
        ActionRecord, ExecOptions, Execution, Executor, FailureCause, NoValues, StepFailure,
        ValueSource,
    };
    pub use windup_core::engine::ledger::{CostReport, Ledger, LedgerError};
    pub use windup_core::engine::lockfile::LockfileError;
    #[cfg(feature = "server")]
    #[cfg_attr(docsrs, doc(cfg(feature = "server")))]
    pub use windup_core::front::server::{ServeError, ServeOptions, Server};
    pub use windup_core::model::plan::{Action, ActionKind, Postcondition, Rules, Target};
    pub use windup_core::run::bench::{Bench, BenchError};
    pub use windup_core::run::runner::exec_options;
}

#[doc(hidden)]
pub mod __private {
    pub use windup_core::front::harness::main as harness_main;
}
