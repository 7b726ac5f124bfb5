//! The npm tools of `tools/playwright` (tsc, Playwright), for the tests of rendered specs, as
//! `cargo xtask setup` installs them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/playwright")
}

/// `tools/playwright` with its node_modules, as `cargo xtask setup` installs them from the
/// lockfile.
pub fn npm_tools() -> PathBuf {
    let dir = tools();
    assert!(
        dir.join("node_modules/.bin/playwright").exists(),
        "tools/playwright is not installed: run `cargo xtask setup` (or the whole suite with \
         `cargo xtask test`), which installs it from its lockfile"
    );
    dir
}

pub fn tool(name: &str) -> Command {
    let mut command = Command::new(npm_tools().join("node_modules/.bin").join(name));
    command.current_dir(tools());
    command
}

/// A directory of specs that resolves `@playwright/test` from tools/playwright.
pub fn spec_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::os::unix::fs::symlink(
        npm_tools().join("node_modules"),
        dir.path().join("node_modules"),
    )
    .expect("node_modules linked");
    dir
}

pub fn type_check(specs: &[PathBuf]) -> Output {
    tool("tsc")
        .args([
            "--noEmit",
            "--strict",
            "--target",
            "ES2022",
            "--module",
            "ESNext",
            "--moduleResolution",
            "Bundler",
            "--skipLibCheck",
            "--types",
            "node",
        ])
        .args(specs)
        .output()
        .expect("tsc runs")
}

pub fn playwright(dir: &Path, base_url: &str) -> Output {
    tool("playwright")
        .args(["test", "--config", "playwright.config.ts"])
        .env("WINDUP_SPEC_DIR", dir)
        .env("WINDUP_BASE_URL", base_url)
        .env("WINDUP_CHROMIUM", chromium())
        .output()
        .expect("playwright runs")
}

pub fn chromium() -> String {
    std::env::var("WINDUP_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned())
}
