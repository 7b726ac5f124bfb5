//! Windup: natural-language end-to-end browser tests, planned once and replayed deterministically.
//!
//! Add `windup` as a dev-dependency, a `harness = false` test target with a `#[windup::main]`
//! setup function, and YAML scenarios under `scenarios/`: `cargo windup init` does all three.

pub use windup_core::harness::{IntoSetup, Setup};
pub use windup_core::*;
pub use windup_macros::main;

#[doc(hidden)]
pub mod __private {
    pub use windup_core::harness::main as harness_main;
}
