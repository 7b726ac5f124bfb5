//! The npm tools of `tools/playwright` (tsc, Playwright), for the tests of rendered specs:
//! installed with `npm ci` from its lockfile the first time a test needs them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/playwright")
}

/// `tools/playwright` with its node_modules, installed from the lockfile when missing.
pub fn npm_tools() -> PathBuf {
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = INSTALL.lock().unwrap_or_else(|p| p.into_inner());
    let dir = tools();
    if !dir.join("node_modules/.bin/playwright").exists() {
        let installed = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
            .output()
            .unwrap_or_else(|e| panic!("npm runs (install Node.js and npm): {e}"));
        assert!(
            installed.status.success(),
            "npm ci in tools/playwright failed: {}",
            super::text(&installed)
        );
    }
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
