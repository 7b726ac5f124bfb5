//! Windup's engine: plans, the browser boundary, the deterministic executor and the verifier.
//!
//! A scenario is planned once into a [`plan::Plan`] — plain data — which the [`executor`] runs
//! in a real browser over WebDriver and the [`verifier`] checks without any model.

pub mod browser;
pub mod cache;
pub mod config;
pub mod events;
pub mod executor;
pub mod failure;
pub mod fragments;
pub mod harness;
pub mod init;
pub mod ledger;
pub mod llm;
pub mod lockfile;
pub mod plan;
pub mod planner;
pub mod pool;
pub mod report;
pub mod reporters;
pub mod runner;
pub mod scenario;
pub mod secrets;
pub mod signature;
pub mod steps;
pub mod suite;
pub mod summary;
pub mod verifier;

pub use browser::{Browser, BrowserConfig, BrowserError, Session};
pub use executor::{ExecOptions, Execution, Executor, StepFailure};
pub use plan::{Action, ActionKind, Identity, Plan, Postcondition, Target};
