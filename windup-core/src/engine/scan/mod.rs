//! `cargo windup scan`: the routes an app's source declares, found by its framework's
//! conventions and read with real parsers (tree-sitter grammars for Rust, TypeScript/TSX and
//! JavaScript) — axum's `.route(…)` chains, react-router's `<Route>` trees and route objects,
//! Next.js's `app/` and `pages/` directories — with the interactive elements each page's
//! component renders. The engine knows frameworks, never a site: everything about the app comes
//! from its files. What conventions cannot resolve is listed as `Unresolved`, for the model
//! assist. A repository of several apps is reported, and one app is scanned at a time.

mod apps;
pub mod assist;
mod axum;
mod files;
pub mod js;
mod leptos;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::model::sitemap::Route;

pub use apps::{App, find_apps};

/// What to scan.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Which app of a repository of several, relative to the root.
    pub app: Option<PathBuf>,
    /// Merge what was read into the site map even when a file does not parse (the routes read
    /// from it are then partial, and those it hid go stale). Without it such a scan leaves the
    /// map as it was.
    pub keep_going: bool,
}

/// A framework whose routing conventions the scan knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Framework {
    Axum,
    Leptos,
    ReactRouter,
    NextApp,
    NextPages,
}

impl fmt::Display for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Framework::Axum => "axum",
            Framework::Leptos => "Leptos",
            Framework::ReactRouter => "react-router",
            Framework::NextApp => "Next.js app/",
            Framework::NextPages => "Next.js pages/",
        })
    }
}

impl serde::Serialize for Framework {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A routing construct the scan could not read to a path (`<Route path={ROUTES.x}>`,
/// `.route(PATH, …)`, a wrapper it does not know): where it is and why. Its file is what the
/// model assist reads.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Unresolved {
    /// Relative to the root, with `/`.
    pub file: String,
    /// From 1.
    pub line: u32,
    pub why: String,
}

/// A source file that does not parse: where its first syntax error is, as the language's own
/// parser (syn, oxc) reports it. The routes read from it are what could be recovered, marked
/// partial.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ParseError {
    /// Relative to the root, with `/`.
    pub file: String,
    /// From 1.
    pub line: u32,
    /// From 1, in characters.
    pub column: u32,
    pub what: String,
}

/// A framework's conventions the scan applied to the app, and what in the app chose them
/// (`react-router-dom` in package.json, a `next.config.mjs`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Convention {
    pub framework: Framework,
    pub why: String,
}

/// What a scan found.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Scan {
    /// The app scanned, relative to the root (empty: the root itself).
    pub app: PathBuf,
    /// Every app found under the root.
    pub apps: Vec<PathBuf>,
    /// The conventions applied, each with why.
    pub conventions: Vec<Convention>,
    /// The frameworks that declared at least one route (or one the scan could not read).
    pub frameworks: Vec<Framework>,
    /// Sorted by pattern, one per pattern; files relative to the root.
    pub routes: Vec<Route>,
    pub unresolved: Vec<Unresolved>,
    /// Source files that do not parse, by file.
    pub parse_errors: Vec<ParseError>,
    /// Source files parsed.
    pub files: usize,
}

impl Scan {
    /// Notes `source`'s syntax error, if it has one.
    pub(crate) fn parsed(&mut self, root: &Path, source: &files::Source) {
        if let Some(error) = &source.error {
            self.parse_errors.push(ParseError {
                file: files::relative(root, &source.path),
                line: error.line,
                column: error.column,
                what: error.what.clone(),
            });
        }
    }
}

/// Why there was nothing to scan.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScanError {
    #[error(
        "{} apps found under {}: {}; scan one at a time with --app PATH",
        apps.len(),
        root.display(),
        apps.iter().map(|a| a.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    Monorepo { root: PathBuf, apps: Vec<PathBuf> },
    #[error(
        "no app found under {}: the scan knows axum and Leptos (Cargo.toml), react-router and Next.js \
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
    #[error(
        "--app {}: no such directory under {} (apps found: {}); give the app's directory relative to the project's root",
        app.display(),
        root.display(),
        if apps.is_empty() { "none".to_owned() } else {
            apps.iter().map(|a| a.display().to_string()).collect::<Vec<_>>().join(", ")
        }
    )]
    NoSuchDirectory {
        app: PathBuf,
        root: PathBuf,
        apps: Vec<PathBuf>,
    },
    #[error(transparent)]
    Map(#[from] crate::engine::sitemap::MapFileError),
}

/// Scans the app under `root` (or `options.app` of several).
pub fn scan(root: &Path, options: &ScanOptions) -> Result<Scan, ScanError> {
    let found = find_apps(root);
    let app = match &options.app {
        Some(wanted) => {
            let wanted = PathBuf::from(files::slashed(&files::clean(wanted)));
            if !root.join(&wanted).is_dir() {
                return Err(ScanError::NoSuchDirectory {
                    app: wanted,
                    root: root.to_path_buf(),
                    apps: found.iter().map(|a| a.dir.clone()).collect(),
                });
            }
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
    if let Some(why) = app.depends_on(&["axum"]) {
        scan.conventions.push(Convention {
            framework: Framework::Axum,
            why,
        });
        axum::scan(root, &dir, &mut scan);
    }
    if let Some(why) = app.depends_on(&["leptos_router", "leptos"]) {
        scan.conventions.push(Convention {
            framework: Framework::Leptos,
            why,
        });
        leptos::scan(root, &dir, &mut scan);
    }
    if app.js {
        js::scan(root, &dir, &app, &mut scan);
    }
    scan.routes.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    scan.routes.dedup_by(|a, b| a.pattern == b.pattern);
    scan.frameworks.sort();
    scan.frameworks.dedup();
    scan.parse_errors.sort_by(|a, b| a.file.cmp(&b.file));
    scan.parse_errors.dedup_by(|a, b| a.file == b.file);
    scan.unresolved
        .sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    scan.unresolved.dedup();
    for route in &mut scan.routes {
        route.provenance.partial = scan
            .parse_errors
            .iter()
            .any(|e| e.file == route.provenance.file || e.file == route.file);
    }
    Ok(scan)
}

/// A scan merged into the project's site map.
#[derive(Debug)]
pub struct Scanned {
    pub scan: Scan,
    /// Whether the site map took the scan: not when a file did not parse, unless
    /// `keep_going`.
    pub merged: bool,
    pub assisted: assist::Assisted,
    /// Pages the map did not know from a scan before.
    pub new: Vec<String>,
    /// Pages whose static claim the scan renewed.
    pub renewed: usize,
    /// Pages whose static claim went stale: gone from the source.
    pub stale: Vec<String>,
}

/// Scans the project of `settings` and merges the routes into its site map, with the model
/// assist for what the conventions left unresolved when `model` is true.
pub async fn scan_project(
    settings: &crate::config::Settings,
    options: &ScanOptions,
    model: bool,
) -> Result<Scanned, ScanError> {
    let root = &settings.root;
    let scan = scan(root, options)?;
    if !scan.parse_errors.is_empty() && !options.keep_going {
        return Ok(Scanned {
            scan,
            merged: false,
            assisted: assist::Assisted::default(),
            new: Vec::new(),
            renewed: 0,
            stale: Vec::new(),
        });
    }
    let file = crate::engine::sitemap::MapFile::of(root);
    let assisted = assist::assist(settings, &scan, &file.read()?, model).await;
    let sha = git_head(root);
    let at = crate::engine::ledger::started_at(time::OffsetDateTime::now_utc());
    let app = files::slashed(&scan.app);
    let claimant = (!app.is_empty()).then(|| app.clone());
    // This app's live static claims: another app's are not this scan's to count.
    let static_live = |map: &crate::model::sitemap::SiteMap| -> Vec<String> {
        map.pages
            .iter()
            .filter(|p| {
                p.claims.iter().any(|c| {
                    c.source == crate::model::sitemap::Source::Static
                        && !c.stale
                        && c.app == claimant
                })
            })
            .map(|p| p.pattern.clone())
            .collect()
    };
    let mut before = Vec::new();
    let map = file.update(|map| {
        before = static_live(map);
        map.scanned(&app, &scan.routes, sha.as_deref(), &at);
        map.assisted(&assisted.routes, &at);
        for (hash, answer) in &assisted.answers {
            map.assist_seen.insert(hash.clone(), answer.clone());
        }
    })?;
    let after = static_live(&map);
    Ok(Scanned {
        new: after
            .iter()
            .filter(|p| !before.contains(p))
            .cloned()
            .collect(),
        renewed: after.iter().filter(|p| before.contains(p)).count(),
        stale: before.into_iter().filter(|p| !after.contains(p)).collect(),
        scan,
        merged: true,
        assisted,
    })
}

/// The commit checked out at `root`, when it is a git repository.
fn git_head(root: &Path) -> Option<String> {
    let output = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .filter(|sha| !sha.is_empty())
}

/// `path` relative to `root` with `/` separators, as scans and diffs name files.
pub fn relative_to(root: &Path, path: &Path) -> String {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let absolute = absolute.canonicalize().unwrap_or(absolute);
    files::relative(&root, &absolute)
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
