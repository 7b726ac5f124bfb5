//! The front ends' wiring: the test [`harness`] behind `#[windup::main]`, [`init`] for a new
//! project, and the audit [`server`] behind `cargo windup serve`.

pub mod harness;
pub mod init;
pub mod server;
