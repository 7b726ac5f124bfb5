//! `cargo windup scan`: the routes an app's source declares, found by its framework's
//! conventions and read with real parsers (tree-sitter grammars for Rust, TypeScript/TSX and
//! JavaScript) — axum's `.route(…)` chains, react-router's `<Route>` trees and route objects,
//! Next.js's `app/` and `pages/` directories — with the interactive elements each page's
//! component renders. The engine knows frameworks, never a site: everything about the app comes
//! from its files. What conventions cannot resolve is listed as `Unresolved`, for the model
//! assist. A repository of several apps is reported, and one app is scanned at a time.

mod apps;
mod axum;
mod files;
pub mod js;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::sitemap::Route;

pub use apps::{App, find_apps};

/// What to scan.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Which app of a repository of several, relative to the root.
    pub app: Option<PathBuf>,
}

/// A framework whose routing conventions the scan knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Framework {
    Axum,
    ReactRouter,
    NextApp,
    NextPages,
}

impl fmt::Display for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Framework::Axum => "axum",
            Framework::ReactRouter => "react-router",
            Framework::NextApp => "Next.js app/",
            Framework::NextPages => "Next.js pages/",
        })
    }
}

/// A routing construct whose path is not written out (`<Route path={ROUTES.x}>`,
/// `.route(PATH, …)`): a file for the model assist to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolved {
    /// Relative to the root, with `/`.
    pub file: String,
    pub why: String,
}

/// What a scan found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// The app scanned, relative to the root (empty: the root itself).
    pub app: PathBuf,
    /// Every app found under the root.
    pub apps: Vec<PathBuf>,
    pub frameworks: Vec<Framework>,
    /// Sorted by pattern, one per pattern; files relative to the root.
    pub routes: Vec<Route>,
    pub unresolved: Vec<Unresolved>,
    /// Source files parsed.
    pub files: usize,
}

/// Why there was nothing to scan.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error(
        "{} apps found under {}: {}; scan one at a time with --app PATH",
        apps.len(),
        root.display(),
        apps.iter().map(|a| a.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    Monorepo { root: PathBuf, apps: Vec<PathBuf> },
    #[error(
        "no app found under {}: the scan knows axum (Cargo.toml), react-router and Next.js \
         (package.json); pass --app PATH to the app's directory",
        root.display()
    )]
    NoApp { root: PathBuf },
    #[error(
        "--app {}: no app there (apps found: {})",
        app.display(),
        if apps.is_empty() { "none".to_owned() } else {
            apps.iter().map(|a| a.display().to_string()).collect::<Vec<_>>().join(", ")
        }
    )]
    NotAnApp { app: PathBuf, apps: Vec<PathBuf> },
}

/// Scans the app under `root` (or `options.app` of several).
pub fn scan(root: &Path, options: &ScanOptions) -> Result<Scan, ScanError> {
    let found = find_apps(root);
    let app = match &options.app {
        Some(wanted) => {
            let wanted = PathBuf::from(files::slashed(wanted));
            found
                .iter()
                .find(|a| a.dir == wanted)
                .cloned()
                .ok_or_else(|| ScanError::NotAnApp {
                    app: wanted.clone(),
                    apps: found.iter().map(|a| a.dir.clone()).collect(),
                })?
        }
        None => match found.as_slice() {
            [] => {
                return Err(ScanError::NoApp {
                    root: root.to_path_buf(),
                });
            }
            [one] => one.clone(),
            many => {
                return Err(ScanError::Monorepo {
                    root: root.to_path_buf(),
                    apps: many.iter().map(|a| a.dir.clone()).collect(),
                });
            }
        },
    };
    let mut scan = Scan {
        app: app.dir.clone(),
        apps: found.iter().map(|a| a.dir.clone()).collect(),
        ..Scan::default()
    };
    let dir = root.join(&app.dir);
    if app.rust {
        axum::scan(root, &dir, &mut scan);
    }
    if app.js {
        js::scan(root, &dir, &mut scan);
    }
    scan.routes.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    scan.routes.dedup_by(|a, b| a.pattern == b.pattern);
    scan.frameworks.sort();
    scan.frameworks.dedup();
    Ok(scan)
}

/// A path pattern in the map's terms: `/` first, no trailing or doubled slash.
pub(crate) fn normal(pattern: &str) -> String {
    let segments: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    format!("/{}", segments.join("/"))
}

/// Whether a page's path names an asset (`/static/shop.css`), not a page.
pub(crate) fn is_asset(pattern: &str) -> bool {
    pattern
        .rsplit('/')
        .next()
        .and_then(|last| last.rsplit_once('.'))
        .is_some_and(|(stem, ext)| {
            !stem.is_empty() && ext.chars().all(|c| c.is_ascii_alphanumeric()) && !ext.is_empty()
        })
}

#[cfg(test)]
mod tests;
