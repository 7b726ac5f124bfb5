//! The engine layer: the work of a run — replaying a plan ([`executor`], [`verifier`]), making
//! one ([`planner`], [`authoring`]), keeping it ([`cache`], [`lockfile`], [`ledger`]), and the
//! adversarial [`audit`]. It uses the model, the boundaries and the settings, never the run layer.

pub mod ask;
pub mod audit;
pub mod authoring;
pub mod cache;
pub mod executor;
pub mod floor;
pub mod fragments;
#[cfg(feature = "scan")]
#[cfg_attr(docsrs, doc(cfg(feature = "scan")))]
pub mod impact;
pub mod ledger;
pub mod lockfile;
pub mod planner;
#[cfg(feature = "scan")]
#[cfg_attr(docsrs, doc(cfg(feature = "scan")))]
pub mod scan;
pub mod secret;
pub mod signature;
pub mod sitemap;
pub mod verifier;
