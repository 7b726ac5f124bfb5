//! A user's fresh crate beside this repository: its manifest, this repository's build
//! directory and profiles (so windup's dependencies are not compiled again), and pages it tests,
//! served on loopback.

use std::path::{Path, PathBuf};

/// This repository.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// This repository's build directory.
pub fn build_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"))
}

/// This repository's `[profile]` tables, for a fresh crate. A crate builds its dependencies
/// with its own profile: with cargo's default one, windup and each of its dependencies would be
/// compiled again into the shared build directory (two minutes on a clean clone); with the same
/// one, only windup itself is.
pub fn repository_profiles() -> String {
    let manifest: toml::Table = std::fs::read_to_string(repo().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let profiles = toml::Table::from_iter([("profile".to_owned(), manifest["profile"].clone())]);
    toml::to_string(&profiles).unwrap()
}

/// A crate `name` at `dir` with an empty library, its manifest ending in `rest` (dependencies,
/// profiles), and this repository's lockfile: the same versions, and no network.
pub fn write_crate(dir: &Path, name: &str, rest: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n\n{rest}"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("src/lib.rs"), "").unwrap();
    std::fs::copy(repo().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

/// A crate `name` in a new temporary directory with windup as a path dev-dependency and this
/// repository's profiles.
pub fn with_windup(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let rest = format!(
        "[dev-dependencies]\nwindup = {{ path = {:?} }}\n\n{}",
        repo(),
        repository_profiles()
    );
    write_crate(dir.path(), name, &rest);
    dir
}

/// Serves `pages` (path and HTML) on loopback: its URL, and the task to abort at the end.
pub async fn serve(
    pages: &[(&'static str, &'static str)],
) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let mut app = axum::Router::new();
    for &(path, html) in pages {
        app = app.route(
            path,
            axum::routing::get(move || async move { axum::response::Html(html) }),
        );
    }
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (url, server)
}
