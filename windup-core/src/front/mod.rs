//! The front ends' wiring: the test [`harness`] behind `#[windup::main]`, [`init`] for a new
//! project (and [`ci`], the CI workflow it writes with `--ci`), and the audit [`server`] behind
//! `cargo windup serve`.

pub mod ci;
pub mod harness;
pub mod init;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
