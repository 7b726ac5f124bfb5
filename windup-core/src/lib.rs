//! Windup's engine: plans, the browser boundary, the deterministic executor and the verifier,
//! the audit, and the run layer that drives them. Most users want the `windup` crate's front door
//! (`windup::Suite`, `windup::main`); this crate is what it stands on.
//!
//! Its modules are its layers, one directory each. A module uses only its own layer and the ones
//! above it in this list, and no two modules of a layer use each other in a circle
//! (docs/architecture.md#layers; `tests/layers.rs` reads the module graph and keeps it so):
//!
//! 1. [`model`]: plain data and parsing, no I/O — plans, steps, scenarios, invariants, the site map.
//! 2. The boundaries, one outside thing each: [`browser`] (the only user of fantoccini), [`llm`]
//!    (model providers), [`store`] (the SQLite store of audits), and `sys` (the operating
//!    system's file locks, within the crate).
//! 3. [`config`]: the settings, read once at the edge and handed down.
//! 4. [`engine`]: the work — the executor and verifier, the planners, the plan cache, the audit.
//! 5. [`run`]: orchestration and presentation — the suite, its events, reporters and reports.
//! 6. [`front`]: the front ends' wiring — the test harness, `init`, the audit server.

#![warn(unreachable_pub)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod model;

pub mod browser;
pub mod llm;
#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod store;
pub(crate) mod sys;

pub mod config;

pub mod engine;

pub mod run;

pub mod front;
