//! JavaScript and TypeScript apps: react-router and Next.js.

use std::path::Path;

use super::Scan;

/// Adds the routes of the JS/TS app in `dir` (under `root`) to `scan`.
pub(crate) fn scan(_root: &Path, _dir: &Path, _scan: &mut Scan) {}
