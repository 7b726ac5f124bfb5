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
    /// Its package.json depends on next or react-router.
    pub js: bool,
}

/// Every app under `root`, sorted by directory.
pub fn find_apps(root: &Path) -> Vec<App> {
    let mut found = Vec::new();
    look(root, Path::new(""), 0, &mut found);
    found.sort_by(|a, b| a.dir.cmp(&b.dir));
    found
}

fn look(root: &Path, dir: &Path, depth: usize, found: &mut Vec<App>) {
    let here = root.join(dir);
    let rust = depends(
        &here.join("Cargo.toml"),
        &["axum", "leptos", "leptos_router"],
        cargo_dependencies,
    );
    let js = depends(
        &here.join("package.json"),
        &["next", "react-router", "react-router-dom"],
        npm_dependencies,
    );
    if rust || js {
        found.push(App {
            dir: dir.to_path_buf(),
            rust,
            js,
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

fn depends(manifest: &Path, wanted: &[&str], read: fn(&str) -> Vec<String>) -> bool {
    std::fs::read_to_string(manifest)
        .map(|text| read(&text).iter().any(|d| wanted.contains(&d.as_str())))
        .unwrap_or(false)
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
