//! The model layer: plain data and its parsing, with no I/O. Every other layer speaks in these
//! types; none of them reaches up.

pub mod excerpt;
pub mod invariant;
pub(crate) mod located;
pub mod plan;
pub mod png;
pub mod scenario;
pub mod secret;
pub mod sitemap;
pub mod steps;
pub mod yaml_depth;
