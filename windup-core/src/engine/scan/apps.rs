//! Which directories under a root are apps: a `Cargo.toml` that depends on axum or Leptos, or a
//! `package.json` that depends on Next.js or react-router. A root with several is a monorepo
//! (a Cargo or npm workspace, pnpm, turbo — or simply several apps side by side).

use std::path::{Path, PathBuf};

/// How deep under the root apps are looked for (`apps/web`, `cargo-windup/shop`, `packages/x/y`).
const DEPTH: usize = 4;

/// An app, by its directory relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct App {
    pub dir: PathBuf,
    /// Its Cargo.toml depends on axum or Leptos.
    pub rust: bool,
    /// Its package.json depends on next or react-router, or it has a `next.config.*`.
    pub js: bool,
    /// The routing dependencies its manifests name (`axum`, `next`, `react-router-dom` …).
    pub dependencies: Vec<String>,
    /// Its Next.js configuration file (`next.config.mjs`), when it has one.
    pub next_config: Option<String>,
}

impl App {
    /// Whether a manifest names one of `names`: the first found, with its manifest.
    pub(crate) fn depends_on(&self, names: &[&str]) -> Option<String> {
        let name = names
            .iter()
            .find(|n| self.dependencies.iter().any(|d| d == *n))?;
        let manifest = if self.rust && RUST.contains(name) {
            "Cargo.toml"
        } else {
            "package.json"
        };
        Some(format!("`{name}` in {manifest}"))
    }
}

/// The dependencies that make a crate an app the scan reads.
const RUST: &[&str] = &["axum", "leptos", "leptos_router"];
/// The dependencies that make a package an app the scan reads.
const JS: &[&str] = &["next", "react-router", "react-router-dom"];

/// Every app under `root`, sorted by directory.
pub fn find_apps(root: &Path) -> Vec<App> {
    let mut found = Vec::new();
    look(root, Path::new(""), 0, &mut found);
    found.sort_by(|a, b| a.dir.cmp(&b.dir));
    found
}

fn look(root: &Path, dir: &Path, depth: usize, found: &mut Vec<App>) {
    let here = root.join(dir);
    let crate_deps = depends(&here.join("Cargo.toml"), RUST, cargo_dependencies);
    let npm_deps = depends(&here.join("package.json"), JS, npm_dependencies);
    let next_config = here
        .join("package.json")
        .is_file()
        .then(|| {
            ["js", "mjs", "cjs", "ts", "mts"]
                .iter()
                .map(|ext| format!("next.config.{ext}"))
                .find(|name| here.join(name).is_file())
        })
        .flatten();
    let rust = !crate_deps.is_empty();
    let js = !npm_deps.is_empty() || next_config.is_some();
    if rust || js {
        found.push(App {
            dir: dir.to_path_buf(),
            rust,
            js,
            dependencies: crate_deps.into_iter().chain(npm_deps).collect(),
            next_config,
        });
    }
    if depth == DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(&here) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.') && !super::files::is_skipped(name))
        .map(|name| dir.join(name))
        .collect();
    dirs.sort();
    for next in dirs {
        look(root, &next, depth + 1, found);
    }
}

/// The names of `wanted` that the manifest's dependencies hold.
fn depends(manifest: &Path, wanted: &[&str], read: fn(&str) -> Vec<String>) -> Vec<String> {
    std::fs::read_to_string(manifest)
        .map(|text| {
            read(&text)
                .into_iter()
                .filter(|d| wanted.contains(&d.as_str()))
                .collect()
        })
        .unwrap_or_default()
}

/// A Cargo.toml's dependency names (normal and dev, and a workspace's shared ones).
fn cargo_dependencies(text: &str) -> Vec<String> {
    let Ok(value) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let mut names = Vec::new();
    for table in ["dependencies"] {
        if let Some(deps) = value.get(table).and_then(|d| d.as_table()) {
            names.extend(deps.keys().cloned());
        }
    }
    names
}

/// A package.json's dependency names.
fn npm_dependencies(text: &str) -> Vec<String> {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    ["dependencies", "devDependencies", "peerDependencies"]
        .iter()
        .filter_map(|key| value.get(key).and_then(|d| d.as_object()))
        .flat_map(|deps| deps.keys().cloned())
        .collect()
}
