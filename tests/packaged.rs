//! The crates as crates.io would hold them: packaged by cargo, unpacked, and used by a fresh
//! crate through `[patch.crates-io]` onto the unpacked packages (never this repository's paths).
//! `cargo-windup` is installed from its package, `cargo windup init` sets the crate up, and a
//! scenario passes under `cargo test` against a page of the crate's own. A file a package needs
//! and leaves out (a page script, the dashboard, a schema) fails the build here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::fresh::{self, build_dir as target, repo};
use common::text;

/// The crates a user needs, in the order they depend on each other.
const PUBLISHED: [&str; 5] = [
    "windup-macros",
    "windup-core",
    "windup-shop",
    "windup",
    "cargo-windup",
];

const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>Counter</title></head>
<body>
  <h1>Counter</h1>
  <button type="button" onclick="const n = document.getElementById('n'); n.textContent = String(Number(n.textContent) + 1)">Add one</button>
  <p>Clicked <output id="n">0</output> times</p>
</body></html>"#;

const SCENARIO: &str = r#"task: Count to two.
steps:
  - click "Add one"
  - click "Add one"
  - expect text "Clicked 2 times"
"#;

fn cargo(dir: &Path, args: &[&str]) -> Output {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env_remove("CI")
        .output()
        .expect("cargo runs")
}

/// Packages every published crate into `out` (its `package/` folder) without building them.
fn package(out: &Path) -> Output {
    let mut args = vec!["package", "--offline", "--no-verify", "--allow-dirty"];
    for name in PUBLISHED {
        args.extend(["-p", name]);
    }
    let out = out.to_str().unwrap();
    args.extend(["--target-dir", out]);
    cargo(&repo(), &args)
}

/// The files cargo would put in `name`'s package.
fn listed(name: &str) -> Vec<String> {
    let listing = cargo(
        &repo(),
        &[
            "package",
            "--list",
            "--offline",
            "--allow-dirty",
            "-p",
            name,
        ],
    );
    assert!(listing.status.success(), "{name}: {}", text(&listing));
    String::from_utf8_lossy(&listing.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every `include_str!`/`include_bytes!` path in the non-test sources of the crate at `root`,
/// relative to the crate.
fn included(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut dirs = vec![root.join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            let is_test = path
                .file_name()
                .is_some_and(|n| n == "tests.rs" || n.to_string_lossy().ends_with("_tests.rs"));
            if path.extension().is_none_or(|e| e != "rs") || is_test {
                continue;
            }
            let source = std::fs::read_to_string(&path).unwrap();
            // Test modules at the end of a file include test data: stop at them.
            let source = source.split("#[cfg(test)]").next().unwrap_or("");
            for macro_name in ["include_str!(", "include_bytes!("] {
                for (at, _) in source.match_indices(macro_name) {
                    let rest = &source[at + macro_name.len()..];
                    let Some(quoted) = rest.trim_start().strip_prefix('"') else {
                        continue;
                    };
                    let Some(end) = quoted.find('"') else {
                        continue;
                    };
                    let file = path.parent().unwrap().join(&quoted[..end]);
                    let file = clean(&file);
                    found.push(
                        file.strip_prefix(root)
                            .unwrap_or(&file)
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// `a/b/../c` as `a/c`.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_file_a_package_builds_from_is_in_it() {
    for (name, dir) in [
        ("windup-core", "windup-core"),
        ("windup-shop", "cargo-windup/shop"),
        ("cargo-windup", "cargo-windup"),
        ("windup", "."),
        ("windup-macros", "windup-macros"),
    ] {
        let list = listed(name);
        let root = clean(&repo().join(dir));
        for needed in included(&root) {
            assert!(
                list.contains(&needed),
                "{name} includes {needed} in its code, but its package leaves it out:\n{}",
                list.join("\n")
            );
        }
        for file in ["Cargo.toml", "README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
            assert!(list.iter().any(|f| f == file), "{name} lacks {file}");
        }
        // What only this repository's tests use stays out of what users download.
        assert!(
            !list
                .iter()
                .any(|f| f.starts_with("tests/fixtures") || f.contains("/snapshots/")),
            "{name}: {}",
            list.join("\n")
        );
    }
    let core = included(&clean(&repo().join("windup-core")));
    for needed in [
        "plan.schema.json",
        "src/browser/js/observe.js",
        "src/front/server/dashboard/app.js",
    ] {
        assert!(core.contains(&needed.to_owned()), "{core:?}");
    }
}

/// Each package unpacked under `crates/`, and cargo's configuration for a crate built from them
/// alone: every published crate patched onto its package, and this repository's profiles.
fn unpack(packages: &Path, root: &Path) -> String {
    let crates = root.join("crates");
    std::fs::create_dir_all(&crates).unwrap();
    let mut patch = String::from("[patch.crates-io]\n");
    for name in PUBLISHED {
        let file = packages.join(format!("package/{name}-0.1.0.crate"));
        let untar = Command::new("tar")
            .arg("xzf")
            .arg(&file)
            .arg("-C")
            .arg(&crates)
            .output()
            .expect("tar runs");
        assert!(untar.status.success(), "{name}: {}", text(&untar));
        let unpacked = crates.join(format!("{name}-0.1.0"));
        patch.push_str(&format!("{name} = {{ path = {:?} }}\n", unpacked));
    }
    format!("{patch}\n{}", fresh::repository_profiles())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crate_built_from_the_packages_alone_runs_a_scenario() {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path();
    let packaged = tokio::task::spawn_blocking({
        let out = root.join("packaged");
        move || package(&out)
    })
    .await
    .unwrap();
    assert!(
        packaged.status.success(),
        "cargo package: {}",
        text(&packaged)
    );
    let config = unpack(&root.join("packaged"), root);
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(root.join(".cargo/config.toml"), config).unwrap();

    // `cargo install` from the package, as `cargo install cargo-windup` would from crates.io.
    let installed = root.join("installed");
    let (dir, into, build) = (root.to_owned(), installed.clone(), target());
    let install = tokio::task::spawn_blocking(move || {
        let path = dir.join("crates/cargo-windup-0.1.0");
        cargo(
            &dir,
            &[
                "install",
                "--offline",
                "--debug",
                "--path",
                path.to_str().unwrap(),
                "--root",
                into.to_str().unwrap(),
                "--target-dir",
                build.to_str().unwrap(),
            ],
        )
    })
    .await
    .unwrap();
    assert!(
        install.status.success(),
        "cargo install: {}",
        text(&install)
    );
    let cargo_windup = installed.join("bin/cargo-windup");
    assert!(cargo_windup.is_file(), "{}", text(&install));

    let app = root.join("counter");
    fresh::write_crate(&app, "counter", "");

    let init = Command::new(&cargo_windup)
        .args(["windup", "init"])
        .current_dir(&app)
        .output()
        .expect("cargo-windup runs");
    assert!(init.status.success(), "init: {}", text(&init));
    let manifest = std::fs::read_to_string(app.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("windup = \"0.1\""),
        "init asks for windup from the registry: {manifest}"
    );
    std::fs::remove_file(app.join("scenarios/home.yaml")).unwrap();
    std::fs::write(app.join("scenarios/count.yaml"), SCENARIO).unwrap();

    let (url, server) = fresh::serve(&[("/", PAGE)]).await;
    let (dir, build) = (app.clone(), target());
    let tested = tokio::task::spawn_blocking(move || {
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(["test", "--offline", "--test", "e2e"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", build)
            .env("WINDUP_BASE_URL", url)
            .env_remove("CI")
            .output()
            .expect("cargo runs")
    })
    .await
    .unwrap();
    let output = text(&tested);
    assert!(tested.status.success(), "cargo test: {output}");
    assert!(output.contains("test count ... ok"), "{output}");
    // The crate was built from the packages: no path into this repository in its lockfile.
    let lock = std::fs::read_to_string(app.join("Cargo.lock")).unwrap();
    let repo = repo().to_string_lossy().into_owned();
    assert!(!lock.contains(&repo), "{lock}");
    let tree = cargo(
        &app,
        &["tree", "--offline", "-e", "normal,dev", "-i", "windup-core"],
    );
    let tree = text(&tree);
    assert!(
        tree.contains(
            &root
                .join("crates/windup-core-0.1.0")
                .to_string_lossy()
                .into_owned()
        ),
        "windup-core comes from its package: {tree}"
    );
    server.abort();
}
