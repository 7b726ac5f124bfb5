//! The run layer: orchestration and presentation — the [`suite`] that runs scenarios, the typed
//! [`events`] it tells and the [`report`]ers and report files that show them, the [`audit`] as a
//! run, the [`sitemap`] as runs see it, and the [`bench`](mod@bench).

#[cfg(feature = "audit")]
#[cfg_attr(docsrs, doc(cfg(feature = "audit")))]
pub mod audit;
pub mod bench;
pub mod events;
pub mod failure;
pub mod outcome;
pub mod pool;
pub mod report;
pub mod runner;
pub mod sitemap;
pub mod suite;
pub mod summary;
