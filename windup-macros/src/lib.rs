//! Procedural macros for Windup. `#[windup::main]` arrives with the scenario harness; this crate
//! exists now so that the facade's shape is the one users will depend on.
