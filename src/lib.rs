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

pub use windup_core::audit::{Budget, Finding};
pub use windup_core::audit_run::{AuditError, AuditFinished, AuditRun};
pub use windup_core::config::{ConfigError, Settings};
pub use windup_core::events::{ActionInfo, PlanChoice, Reporter, RunEvent, Totals};
pub use windup_core::failure::{Failure, FailureClass};
pub use windup_core::harness::{IntoSetup, Setup};
pub use windup_core::plan::Plan;
pub use windup_core::runner::{Outcome, ScenarioResult};
pub use windup_core::scenario::{Scenario, ScenarioError};
pub use windup_core::suite::{Finished, Selection, Suite, SuiteError};
pub use windup_macros::main;

/// The engine under the front door: the browser boundary, the executor and verifier, the
/// planners, the plan cache, lockfiles, the ledger, the audit store and the reports, layer by
/// layer as docs/architecture.md describes them.
pub mod engine {
    pub use windup_core::{
        Browser, BrowserConfig, BrowserError, ExecOptions, Execution, Executor, Session,
        StepFailure,
    };
    pub use windup_core::{
        ask, audit, audit_run, authoring, bench, browser, cache, config, events, executor, failure,
        fragments, harness, impact, init, invariant, ledger, llm, lockfile, map_view, mapfile,
        plan, planner, pool, report, reporters, runner, scan, scenario, secret, secrets, server,
        signature, sitemap, steps, store, suite, summary, verifier,
    };
}

#[doc(hidden)]
pub mod __private {
    pub use windup_core::harness::main as harness_main;
}
