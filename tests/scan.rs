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
        ..ScanOptions::default()
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
        ..ScanOptions::default()
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
        ..ScanOptions::default()
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
        ..ScanOptions::default()
    };
    let err = scan(&repo(), &nowhere).unwrap_err();
    assert!(
        err.to_string().contains("--app examples: no app there"),
        "{err}"
    );
    let missing = ScanOptions {
        app: Some("apps/nope".into()),
        ..ScanOptions::default()
    };
    let err = scan(&repo(), &missing).unwrap_err().to_string();
    assert!(
        err.contains("--app apps/nope: no such directory under")
            && err.contains("cargo-windup/shop")
            && err.contains("relative to the project's root"),
        "{err}"
    );
}

/// A copy of the fixture app in a project of its own, with `toml` for windup.toml.
fn notes_project(toml: &str) -> tempfile::TempDir {
    let dir = fixture_project("axum-app");
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
    assert!(
        out.contains("Scanned . (axum: `axum` in Cargo.toml): 3 files, 4 routes"),
        "{out}"
    );
    assert!(
        out.contains("unresolved: src/main.rs:18: a .route(paths::SETTINGS, …)"),
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

/// A copy of the fixture tree `name` as a project of its own (a windup.toml, no model).
fn fixture_project(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&repo().join("tests/fixtures/scan").join(name), dir.path());
    std::fs::remove_file(dir.path().join("expected.txt")).unwrap();
    std::fs::write(
        dir.path().join("windup.toml"),
        "scenarios = \"scenarios\"\n",
    )
    .unwrap();
    dir
}

/// The live static claims of a page, by app (`""` for a project of one).
fn live_claims(root: &Path, pattern: &str) -> Vec<String> {
    let map = MapFile::of(root).read().unwrap();
    let Some(page) = map.page(pattern) else {
        return Vec::new();
    };
    let mut apps: Vec<String> = page
        .claims
        .iter()
        .filter(|c| c.source == Source::Static && !c.stale)
        .map(|c| c.app.clone().unwrap_or_default())
        .collect();
    apps.sort();
    apps
}

#[test]
fn two_apps_of_one_repository_keep_their_own_pages_whichever_is_scanned_first() {
    for order in [["apps/web", "apps/admin"], ["apps/admin", "apps/web"]] {
        let project = fixture_project("monorepo");
        let root = project.path();
        for (round, app) in order.iter().enumerate() {
            let output = run_in(root, &["scan", "--app", app, "--no-model"], &[]);
            let out = text(&output);
            assert_eq!(output.status.code(), Some(0), "{order:?}: {out}");
            assert!(
                out.contains("Site map: 2 new, 0 renewed, 0 gone stale"),
                "{order:?}, scan {round}: each app's pages are its own: {out}"
            );
        }
        assert_eq!(
            live_claims(root, "/"),
            ["apps/admin", "apps/web"],
            "{order:?}: both apps' / stay live"
        );
        assert_eq!(live_claims(root, "/pricing"), ["apps/web"], "{order:?}");
        assert_eq!(live_claims(root, "/users"), ["apps/admin"], "{order:?}");
        // A rescan of one app renews its own pages only.
        let again = run_in(root, &["scan", "--app", order[0], "--no-model"], &[]);
        let out = text(&again);
        assert!(out.contains("0 new, 2 renewed, 0 gone stale"), "{out}");
        assert_eq!(live_claims(root, "/"), ["apps/admin", "apps/web"]);
    }
}

#[test]
fn a_file_that_does_not_parse_is_named_and_stops_the_scan_unless_it_keeps_going() {
    let project = fixture_project("broken-tsx");
    let root = project.path();
    let stopped = run_in(root, &["scan", "--no-model"], &[]);
    let out = text(&stopped);
    assert_eq!(stopped.status.code(), Some(7), "{out}");
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert!(
        stderr.contains("error: src/pages/Notes.tsx:11:7: does not parse:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("the site map was not updated") && stderr.contains("--keep-going"),
        "{stderr}"
    );
    assert!(
        out.contains("/notes  src/pages/Notes.tsx  (partial: its file does not parse)"),
        "{out}"
    );
    assert!(
        !root.join(".windup/sitemap.json").exists(),
        "nothing merged from a scan that could not read everything"
    );
    let kept = run_in(root, &["scan", "--no-model", "--keep-going"], &[]);
    let out = text(&kept);
    assert_eq!(kept.status.code(), Some(0), "{out}");
    assert!(out.contains("Site map: 2 new"), "{out}");

    // A Rust file, the same way.
    let project = fixture_project("broken-rs");
    let stopped = run_in(project.path(), &["scan", "--no-model"], &[]);
    let out = text(&stopped);
    assert_eq!(stopped.status.code(), Some(7), "{out}");
    assert!(
        out.contains("error: src/incidents.rs:16:1: does not parse:"),
        "{out}"
    );
}

#[test]
fn a_react_router_app_with_a_pages_folder_is_read_by_react_routers_conventions_alone() {
    let project = fixture_project("react-router-pages-dir");
    let output = run_in(project.path(), &["scan", "--no-model"], &[]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(
        out.contains(
            "Scanned . (react-router: `react-router-dom` in package.json): 10 files, 6 routes"
        ),
        "{out}"
    );
    assert!(!out.contains("Next.js"), "{out}");
    // Next's pages/ convention would have made /Login, /Dashboard … of the files themselves.
    assert!(
        !out.contains("\n  /Login") && !out.contains("\n  /index"),
        "{out}"
    );
}

#[test]
fn the_json_output_has_every_route_with_where_it_is_declared_and_what_was_not_read() {
    let project = fixture_project("react-router-v5");
    let output = run_in(
        project.path(),
        &["scan", "--no-model", "--format", "json"],
        &[],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let scan: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is one JSON object ({e}): {}", text(&output)));
    assert_eq!(
        scan["conventions"],
        json!([{ "framework": "react-router", "why": "`react-router-dom` in package.json" }])
    );
    let routes = scan["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 15, "{routes:#?}");
    let settings = routes
        .iter()
        .find(|r| r["pattern"] == "/settings")
        .expect("/settings");
    assert_eq!(settings["file"], "src/pages/Settings.js");
    assert_eq!(
        settings["provenance"],
        json!({ "framework": "react-router", "file": "src/App.js", "line": 24 })
    );
    assert!(settings["elements"].is_array());
    assert_eq!(
        scan["unresolved"],
        json!([{
            "file": "src/App.js",
            "line": 35,
            "why": "a path pattern \"/report-(\\\\d+)\" the site map has no notation for"
        }])
    );
    assert_eq!(scan["parse_errors"], json!([]));
    assert_eq!(scan["site_map"]["merged"], true);
    assert_eq!(scan["site_map"]["new"].as_array().unwrap().len(), 15);
    assert_eq!(scan["files"], 15);
}

/// A git repository of a fixture tree, committed.
fn committed(name: &str) -> tempfile::TempDir {
    let project = fixture_project(name);
    let root = project.path();
    for args in [
        &["init", "-q"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=Windup",
            "-c",
            "user.email=windup@example.invalid",
            "commit",
            "-qm",
            "the app",
        ],
    ] {
        let done = std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .expect("git runs");
        assert!(done.status.success(), "git {args:?}: {}", text(&done));
    }
    project
}

/// Replaces `from` by `to` in a file of the project.
fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let before = std::fs::read_to_string(&path).unwrap();
    assert!(before.contains(from), "{file} has {from:?}");
    std::fs::write(&path, before.replacen(from, to, 1)).unwrap();
}

/// The pages `cargo windup impact` says changed.
fn changed_pages(root: &Path) -> Vec<String> {
    let output = run_in(root, &["impact"], &[]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    out.lines()
        .filter_map(|l| l.strip_prefix("page "))
        .map(|l| l.split(" changed").next().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn impact_finds_the_page_of_an_associated_handler_an_index_route_and_a_file_reached_through_dot_dot()
 {
    // An associated function's own lines: the item page, not the list beside it.
    let project = committed("axum-07-modules");
    let root = project.path();
    edit(
        root,
        "src/pages/items.rs",
        "<h1>Item {id}</h1>",
        "<h1>Item number {id}</h1>",
    );
    assert_eq!(changed_pages(root), ["/items/:id"]);

    // An index route's page is its own element's; a page imported through `../`.
    let project = committed("react-router-index");
    let root = project.path();
    edit(
        root,
        "src/routes/Storefront.tsx",
        "Today's picks",
        "Picks of the day",
    );
    assert_eq!(changed_pages(root), ["/"]);
    edit(
        root,
        "src/account/AccountHome.tsx",
        "Your account",
        "Account",
    );
    edit(
        root,
        "src/account/Orders.tsx",
        "Download invoices",
        "Download",
    );
    assert_eq!(changed_pages(root), ["/", "/account", "/account/orders"]);
}
