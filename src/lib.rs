//! Windup: natural-language end-to-end browser tests, planned once and replayed deterministically.
//!
//! **Where to start.**
//! - Test authors: add `windup` as a dev-dependency, a `harness = false` test target with a
//!   [`main`] setup function returning a [`Setup`], and YAML scenarios under `scenarios/`.
//!   `cargo windup init` does all three; docs/guide.md walks through it.
//! - Embedders: load [`Settings`], pick scenarios with [`Selection`], and run a [`Suite`] with your
//!   own [`Reporter`]: it receives every [`RunEvent`] of the run, in order
//!   (`examples/embed_suite.rs`). To replay one [`Plan`] yourself, see `examples/replay_plan.rs`
//!   and the [`engine`].
//!
//! Everything at this level is the stable surface; [`engine`] is the machinery under it, for
//! advanced use, and changes more often.
//!
//! **Features.** The default is what scenarios in `cargo test` need: plans, replay, offline and
//! model planning, the plan cache and lockfiles, the ledger, reports. The rest is named:
//! `audit` (the adversarial audit as a run, and its SQLite store), `server` (the audit server and
//! dashboard), `scan` (the static scan of a project's routes), `images` (screenshots scaled: JPEG
//! thumbnails in the HTML report, pictures sized for a model), and `full` for all of them.
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
