//! The front ends' wiring: the test [`harness`] behind `#[windup::main]`, [`init`] for a new
//! project, and the audit [`server`] behind `cargo windup serve`.

pub mod harness;
pub mod init;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
