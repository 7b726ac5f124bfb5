//! Windup's engine: plans, the browser boundary, the deterministic executor and the verifier,
//! and the run layer that drives them. Most users want the `windup` crate's front door
//! (`windup::Suite`, `windup::main`); this crate is what it stands on.
//!
//! The modules sit in layers, one directory each, and a module uses only its own layer and the
//! ones above it in this list (docs/architecture.md; `tests/layers.rs` keeps it so):
//!
//! 1. **model** (`src/model/`): plain data and parsing, no I/O — [`plan`], [`steps`], [`excerpt`],
//!    [`scenario`], [`secret`], [`invariant`], [`sitemap`].
//! 2. **boundaries**: one outside thing each — [`browser`] (the only user of fantoccini),
//!    [`llm`] (model providers), [`store`] (the SQLite store of audits), and `sys` (the
//!    operating system's file locks, within the crate).
//! 3. **settings**: [`config`], read once at the edge and handed down.
//! 4. **engine** (`src/engine/`): the work — [`executor`], [`verifier`], [`planner`], [`cache`],
//!    [`lockfile`], [`mapfile`], [`ledger`], [`fragments`], [`secrets`], [`signature`],
//!    [`audit`].
//! 5. **run** (`src/run/`): orchestration and presentation — [`suite`], [`events`],
//!    [`runner`], [`failure`], [`pool`], [`reporters`], [`report`], [`summary`], [`audit_run`],
//!    [`bench`](mod@bench), [`map_view`].
//! 6. **front ends** (`src/front/`): wiring — [`harness`], [`init`], [`server`].

#![warn(unreachable_pub)]

// model
#[path = "model/excerpt.rs"]
pub mod excerpt;
#[path = "model/invariant/mod.rs"]
pub mod invariant;
#[path = "model/plan/mod.rs"]
pub mod plan;
#[path = "model/scenario/mod.rs"]
pub mod scenario;
#[path = "model/secret.rs"]
pub mod secret;
#[path = "model/sitemap/mod.rs"]
pub mod sitemap;
#[path = "model/steps/mod.rs"]
pub mod steps;
#[path = "model/yaml_depth.rs"]
pub mod yaml_depth;

// boundaries
pub mod browser;
pub mod llm;
pub mod store;
pub(crate) mod sys;

// settings
pub mod config;

// engine
#[path = "engine/ask.rs"]
pub mod ask;
#[path = "engine/audit/mod.rs"]
pub mod audit;
#[path = "engine/authoring/mod.rs"]
pub mod authoring;
#[path = "engine/cache/mod.rs"]
pub mod cache;
#[path = "engine/executor.rs"]
pub mod executor;
#[path = "engine/fragments.rs"]
pub mod fragments;
#[path = "engine/impact.rs"]
pub mod impact;
#[path = "engine/ledger/mod.rs"]
pub mod ledger;
#[path = "engine/lockfile.rs"]
pub mod lockfile;
#[path = "engine/mapfile.rs"]
pub mod mapfile;
#[path = "engine/planner/mod.rs"]
pub mod planner;
#[path = "engine/scan/mod.rs"]
pub mod scan;
#[path = "engine/secrets.rs"]
pub mod secrets;
#[path = "engine/signature.rs"]
pub mod signature;
#[path = "engine/verifier.rs"]
pub mod verifier;

// run
#[path = "run/audit.rs"]
pub mod audit_run;
#[path = "run/bench/mod.rs"]
pub mod bench;
#[path = "run/events.rs"]
pub mod events;
#[path = "run/failure.rs"]
pub mod failure;
#[path = "run/map_view.rs"]
pub mod map_view;
#[path = "run/pool.rs"]
pub mod pool;
#[path = "run/report/mod.rs"]
pub mod report;
#[path = "run/reporters/mod.rs"]
pub mod reporters;
#[path = "run/runner.rs"]
pub mod runner;
#[path = "run/suite.rs"]
pub mod suite;
#[path = "run/summary.rs"]
pub mod summary;

// front ends
#[path = "front/harness.rs"]
pub mod harness;
#[path = "front/init.rs"]
pub mod init;
#[path = "front/server/mod.rs"]
pub mod server;

pub use browser::{Browser, BrowserConfig, BrowserError, Session};
pub use executor::{ExecOptions, Execution, Executor, StepFailure};
pub use plan::{Action, ActionKind, Identity, Plan, Postcondition, Target};
