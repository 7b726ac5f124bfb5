//! axum: `Router::new().route("/path", get(handler))` chains.

use std::path::Path;

use super::Scan;

/// Adds the routes of the axum crate in `dir` (under `root`) to `scan`.
pub(crate) fn scan(_root: &Path, _dir: &Path, _scan: &mut Scan) {}
