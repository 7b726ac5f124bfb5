//! `cargo windup scan`: the shop's own axum routes, exactly, each with its handler's lines; a
//! repository of several apps reported and scanned one at a time; and, through the CLI on a
//! fixture app, the map's static claims — renewed, made stale by a route gone from the source,
//! outranked by what a browser saw — and the model assist, asked once per file's text.

mod common;

use std::path::{Path, PathBuf};

use common::{run_in, text};
use serde_json::json;
use windup_core::engine::scan::{ScanError, ScanOptions, scan};
use windup_core::engine::sitemap::MapFile;
use windup_core::model::sitemap::{Source, Visit};
use windup_fake_provider::{FakeProvider, Reply};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The first and last line of `fn NAME` in a file: from its line to the `}` that closes it at
/// the start of a line.
fn fn_lines(file: &Path, name: &str) -> [u32; 2] {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains(&format!("fn {name}(")))
        .unwrap();
    let last = first + lines[first..].iter().position(|l| *l == "}").unwrap();
    [first as u32 + 1, last as u32 + 1]
}

#[test]
fn the_shops_scan_gives_exactly_its_pages_each_with_its_handler() {
    let shop = ScanOptions {
        app: Some("cargo-windup/shop".into()),
    };
    let found = scan(&repo(), &shop).unwrap();
    let patterns: Vec<&str> = found.routes.iter().map(|r| r.pattern.as_str()).collect();
    assert_eq!(
        patterns,
        [
            "/",
            "/cart",
            "/checkout",
            "/help",
            "/login",
            "/orders",
            "/orders/:id",
            "/products",
            "/products/:slug",
            "/search"
        ],
        "GET routes only: no form targets (/cart/add), no assets (/static/shop.css)"
    );
    let order = found
        .routes
        .iter()
        .find(|r| r.pattern == "/orders/:id")
        .unwrap();
    assert_eq!(order.file, "cargo-windup/shop/src/orders.rs");
    let orders_rs = repo().join("cargo-windup/shop/src/orders.rs");
    assert_eq!(order.lines, Some(fn_lines(&orders_rs, "show")));
    let login = found.routes.iter().find(|r| r.pattern == "/login").unwrap();
    let account_rs = repo().join("cargo-windup/shop/src/account.rs");
    assert_eq!(
        (login.file.as_str(), login.lines),
        (
            "cargo-windup/shop/src/account.rs",
            Some(fn_lines(&account_rs, "login_page"))
        ),
        "the GET handler of get(…).post(…)"
    );
    assert!(found.unresolved.is_empty(), "{:?}", found.unresolved);
    assert!(found.files >= 10);
}

#[test]
fn a_leptos_apps_routes_compose_through_parent_routes() {
    let leptos = ScanOptions {
        app: Some("tests/fixtures/scan/leptos".into()),
    };
    let found = scan(&repo(), &leptos).unwrap();
    let patterns: Vec<&str> = found.routes.iter().map(|r| r.pattern.as_str()).collect();
    assert_eq!(
        patterns,
        [
            "/",
            "/archive/:year",
            "/files/*path",
            "/posts",
            "/posts/:slug",
            "/settings"
        ]
    );
    let post = found
        .routes
        .iter()
        .find(|r| r.pattern == "/posts/:slug")
        .unwrap();
    let pages = repo().join("tests/fixtures/scan/leptos/src/pages/mod.rs");
    assert_eq!(post.file, "tests/fixtures/scan/leptos/src/pages/mod.rs");
    assert_eq!(post.lines, Some(fn_lines(&pages, "Post")));
    assert!(found.unresolved.is_empty(), "{:?}", found.unresolved);
}

#[test]
fn a_repository_of_several_apps_is_reported_and_scanned_one_at_a_time() {
    let err = scan(&repo(), &ScanOptions::default()).unwrap_err();
    let ScanError::Monorepo { apps, .. } = &err else {
        panic!("{err}");
    };
    for app in ["cargo-windup/shop", "examples/todo"] {
        assert!(apps.contains(&PathBuf::from(app)), "{apps:?}");
    }
    assert!(
        err.to_string()
            .contains("scan one at a time with --app PATH"),
        "{err}"
    );
    let todo = ScanOptions {
        app: Some("examples/todo".into()),
    };
    let found = scan(&repo(), &todo).unwrap();
    assert_eq!(found.app, PathBuf::from("examples/todo"));
    assert!(
        found
            .routes
            .iter()
            .all(|r| r.file.starts_with("examples/todo/"))
    );
    let nowhere = ScanOptions {
        app: Some("examples".into()),
    };
    let err = scan(&repo(), &nowhere).unwrap_err();
    assert!(
        err.to_string().contains("--app examples: no app there"),
        "{err}"
    );
}

/// A copy of the fixture app in a project of its own, with `toml` for windup.toml.
fn notes_project(toml: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = repo().join("tests/fixtures/scan/axum-app");
    for file in ["Cargo.toml", "src/main.rs", "src/notes.rs", "src/paths.rs"] {
        let to = dir.path().join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from.join(file), to).unwrap();
    }
    std::fs::write(
        dir.path().join("windup.toml"),
        format!("scenarios = \"scenarios\"\n{toml}"),
    )
    .unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scan_fills_the_map_a_rescan_renews_it_and_the_model_reads_each_file_once() {
    let fake = FakeProvider::start().await.unwrap();
    let llm = format!(
        "[llm]\nprovider = \"openai\"\nmodel = \"gpt-5-mini\"\nbase_url = \"{}/v1\"\n",
        fake.url()
    );
    let project = notes_project(&llm);
    let root = project.path();
    // A browser has seen the notes list already: execution outranks the scan.
    MapFile::of(root)
        .update(|map| {
            let seen = Visit {
                path: "/notes".to_owned(),
                signature: Some("notes".to_owned()),
                ..Visit::default()
            };
            map.observe(&[seen], &[], "2026-12-01T10:00:00Z");
        })
        .unwrap();
    fake.push(Reply::Json(json!({ "routes": [{ "path": "/settings" }] })));
    let key = [("OPENAI_API_KEY", "fake-key-for-tests")];
    let first = run_in(root, &["scan"], &key);
    let out = text(&first);
    assert_eq!(first.status.code(), Some(0), "{out}");
    assert!(out.contains("Scanned . (axum): 3 files, 4 routes"), "{out}");
    assert!(
        out.contains("unresolved: src/main.rs: a .route(paths::SETTINGS, …)"),
        "{out}"
    );
    assert!(out.contains("1 call(s)"), "{out}");
    assert_eq!(fake.requests().len(), 1);
    let prompt = fake.requests()[0].body.to_string();
    assert!(
        prompt.contains("paths::SETTINGS"),
        "the file is shown: {prompt}"
    );

    let map = MapFile::of(root).read().unwrap();
    let source = |pattern: &str| map.page(pattern).map(|p| p.source());
    assert_eq!(source("/"), Some(Source::Static));
    assert_eq!(source("/notes/:id"), Some(Source::Static));
    assert_eq!(source("/health"), Some(Source::Static));
    assert_eq!(
        source("/notes"),
        Some(Source::Execution),
        "a browser's word wins"
    );
    assert_eq!(source("/settings"), Some(Source::Llm));
    assert_eq!(map.assist_seen.len(), 1);

    // Again, nothing changed: no model call, the same pages renewed.
    let second = run_in(root, &["scan"], &key);
    let out = text(&second);
    assert_eq!(second.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 file(s) remembered") && out.contains("0 call(s)"),
        "{out}"
    );
    assert!(out.contains("0 new, 4 renewed, 0 gone stale"), "{out}");
    assert_eq!(fake.requests().len(), 1, "memoized by the file's hash");

    // A route removed from the source: its page's static claim goes stale.
    let notes = root.join("src/notes.rs");
    let without = std::fs::read_to_string(&notes)
        .unwrap()
        .replace("        .route(\"/{id}\", get(show))\n", "");
    std::fs::write(&notes, without).unwrap();
    let third = run_in(root, &["scan", "--no-model"], &[]);
    let out = text(&third);
    assert!(out.contains("gone stale (/notes/:id)"), "{out}");
    let map = MapFile::of(root).read().unwrap();
    let gone = map.page("/notes/:id").unwrap();
    assert!(gone.stale(), "{gone:?}");
    assert_eq!(fake.requests().len(), 1);
}

/// Copies a directory tree.
fn copy_tree(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_js_fixtures_second_scan_asks_the_model_nothing() {
    for (fixture, unresolved, routes) in [("react-router", 1, 20), ("next", 0, 11)] {
        let fake = FakeProvider::start().await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            &repo().join("tests/fixtures/scan").join(fixture),
            dir.path(),
        );
        std::fs::write(
            dir.path().join("windup.toml"),
            format!(
                "[llm]\nprovider = \"openai\"\nmodel = \"gpt-5-mini\"\nbase_url = \"{}/v1\"\n",
                fake.url()
            ),
        )
        .unwrap();
        fake.push(Reply::Json(json!({ "routes": [{ "path": "/export" }] })));
        let key = [("OPENAI_API_KEY", "fake-key-for-tests")];
        for round in 0..2 {
            let output = run_in(dir.path(), &["scan"], &key);
            let out = text(&output);
            assert_eq!(output.status.code(), Some(0), "{fixture}: {out}");
            assert!(
                out.contains(&format!("files, {routes} routes")),
                "{fixture}: {out}"
            );
            assert_eq!(
                fake.requests().len(),
                unresolved,
                "{fixture}, scan {round}: {out}"
            );
        }
        let map = MapFile::of(dir.path()).read().unwrap();
        let statics = map
            .pages
            .iter()
            .filter(|p| p.source() == Source::Static)
            .count();
        assert_eq!(statics, routes, "{fixture}");
        if unresolved > 0 {
            assert_eq!(map.page("/export").map(|p| p.source()), Some(Source::Llm));
        }
    }
}
