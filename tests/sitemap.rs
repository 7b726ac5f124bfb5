//! Every run is also collection: after the shop's scenarios run, the project's site map holds
//! every page they visited, seen by execution, products one `:slug` page, and the ways between
//! the pages; a second run renews the same pages rather than adding others.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use common::Project;
use windup::{RunEvent, Selection, Suite};
use windup_core::engine::sitemap::MapFile;
use windup_core::model::sitemap::Source;

use common::SHOP_SCENARIOS as SCENARIOS;

/// Runs the scenarios against the shop; every path a scenario visited.
async fn run(project: &Project, url: &str) -> BTreeSet<String> {
    let mut settings = project.settings(false);
    settings.workers = 2;
    let selection = Selection::load(&settings, None, false).unwrap();
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let paths = Arc::clone(&seen);
    let finished = Suite::new(settings, url.parse().unwrap())
        .reporter(move |event: &RunEvent| {
            if let RunEvent::PageVisited { page, .. } = event {
                paths.lock().unwrap().insert(page.path.clone());
            }
        })
        .run(selection)
        .await
        .unwrap();
    assert_eq!(finished.totals.failed, 0, "{:?}", finished.totals);
    seen.lock().unwrap().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_the_shops_scenarios_run_the_map_holds_every_page_they_visited() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = Project::with(&SCENARIOS);
    let visited = run(&project, shop.url()).await;
    assert!(visited.len() >= 6, "{visited:?}");
    let map = MapFile::of(project.root()).read().unwrap();
    for path in &visited {
        let pattern = map.pattern_of(path);
        let page = map
            .page(&pattern)
            .unwrap_or_else(|| panic!("{path} ({pattern}) is not in the map: {:#?}", map.pages));
        assert_eq!(page.source(), Source::Execution, "{pattern}");
        assert!(page.signature.is_some(), "{pattern}");
    }
    let products: Vec<&String> = visited
        .iter()
        .filter(|p| p.starts_with("/products/"))
        .collect();
    if products.len() >= 2 {
        assert_eq!(
            map.pattern_of(products[0]),
            "/products/:slug",
            "{products:?}"
        );
    }
    assert!(
        map.transitions
            .iter()
            .any(|t| t.action.starts_with("click ") && t.source() == Source::Execution),
        "{:#?}",
        map.transitions
    );
    // Again: the same pages renewed, none added.
    let patterns = |map: &windup_core::model::sitemap::SiteMap| {
        map.pages
            .iter()
            .map(|p| p.pattern.clone())
            .collect::<BTreeSet<_>>()
    };
    let before = patterns(&map);
    run(&project, shop.url()).await;
    let again = MapFile::of(project.root()).read().unwrap();
    assert_eq!(patterns(&again), before);
    scanned_after(&project, &visited);
    let scanned = MapFile::of(project.root()).read().unwrap();
    drawn(&project, scanned.pages.len()).await;
}

/// The shop's scan merged after its runs: a page a run visited stays `execution`, one only the
/// source declares is `static`, and the scan's patterns are the runs' own.
fn scanned_after(project: &Project, visited: &BTreeSet<String>) {
    use windup_core::engine::scan::{ScanOptions, scan};
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let shop = ScanOptions {
        app: Some("cargo-windup/shop".into()),
        ..ScanOptions::default()
    };
    let found = scan(repo, &shop).unwrap();
    let map = MapFile::of(project.root())
        .update(|map| map.scanned("", &found.routes, None, "2026-12-02T12:00:00Z"))
        .unwrap();
    let visited: BTreeSet<String> = visited.iter().map(|p| map.pattern_of(p)).collect();
    let mut unvisited = 0;
    for route in &found.routes {
        let page = map.page(&route.pattern).unwrap();
        if visited.contains(&route.pattern) {
            assert_eq!(page.source(), Source::Execution, "{}", route.pattern);
            assert_eq!(page.claims.len(), 2, "both claims kept: {page:?}");
        } else {
            assert_eq!(page.source(), Source::Static, "{}", route.pattern);
            unvisited += 1;
        }
    }
    assert!(
        unvisited >= 1,
        "the scenarios visit every page? {visited:?}"
    );
    let declared: BTreeSet<String> = found.routes.iter().map(|r| r.pattern.clone()).collect();
    assert_eq!(
        map.pages.len(),
        declared.union(&visited).count(),
        "the scan added no other name for a page a run saw (/products/{{slug}} is /products/:slug)"
    );
}

/// `cargo windup map`: DOT that graphviz accepts, and a page Chromium shows with every page
/// drawn and nothing fetched.
async fn drawn(project: &Project, pages: usize) {
    let output = common::run_in(project.root(), &["map"], &[]);
    let out = common::text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.starts_with(&format!("{pages} pages, ")), "{out}");
    let dot = project.root().join(".windup/sitemap.dot");
    let graphviz = std::process::Command::new("dot")
        .args(["-Tsvg", "-o", "/dev/null"])
        .arg(&dot)
        .output()
        .expect("graphviz's dot (apt-get install graphviz)");
    assert!(
        graphviz.status.success(),
        "{}",
        String::from_utf8_lossy(&graphviz.stderr)
    );
    let page = project.root().join(".windup/sitemap.html");
    let browser = windup_core::browser::Browser::launch(common::browser_config())
        .await
        .unwrap();
    let session = browser.new_session().await.unwrap();
    session
        .goto(&format!("file://{}", page.display()))
        .await
        .unwrap();
    let seen = session
        .execute_script(
            "return [document.querySelectorAll('svg g.page').length, \
             performance.getEntriesByType('resource').length, \
             document.querySelector('svg').getBoundingClientRect().width > 0];",
        )
        .await
        .unwrap();
    assert_eq!(
        seen,
        serde_json::json!([pages, 0, true]),
        "drawn, nothing fetched"
    );
    session.close().await.unwrap();
}
