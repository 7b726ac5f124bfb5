use super::*;

#[test]
fn patterns_are_normal_and_assets_are_not_pages() {
    assert_eq!(normal("users//:id/"), "/users/:id");
    assert_eq!(normal(""), "/");
    assert!(is_asset("/static/shop.css"));
    assert!(!is_asset("/products/:slug") && !is_asset("/"));
}

/// The corpus of source trees under `tests/fixtures/scan/`: each tree with an `expected.txt`
/// holds what a person reading its code found, and the scan must find exactly that — every
/// route with the file that renders it, every route it cannot read (file and line), every file
/// that does not parse (file, line and column) — with nothing missed and nothing invented.
///
/// `expected.txt`, a line each (`#` starts a comment):
///
/// ```text
/// /orders/:id  src/pages/orders.rs
/// unresolved  src/App.tsx:14
/// error  src/Broken.tsx:9:5
/// [apps/admin]
/// ```
///
/// A `[DIR]` line starts the part of a repository of several apps that a scan with `--app DIR`
/// must find; lines before any such line are the scan of the tree's root.
mod corpus {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    use super::super::{ScanOptions, scan};

    #[derive(Debug, Default)]
    struct Expected {
        routes: BTreeSet<String>,
        unresolved: BTreeSet<String>,
        errors: BTreeSet<String>,
    }

    fn trees() -> Vec<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/scan");
        let mut trees: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.join("expected.txt").is_file())
            .collect();
        trees.sort();
        trees
    }

    fn expected(tree: &Path) -> BTreeMap<String, Expected> {
        let text = std::fs::read_to_string(tree.join("expected.txt")).unwrap();
        let mut apps: BTreeMap<String, Expected> = BTreeMap::new();
        let mut app = String::new();
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            if let Some(dir) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                dir.clone_into(&mut app);
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let entry = apps.entry(app.clone()).or_default();
            match words.as_slice() {
                ["unresolved", at] => entry.unresolved.insert((*at).to_owned()),
                ["error", at] => entry.errors.insert((*at).to_owned()),
                [pattern, file] => entry.routes.insert(format!("{pattern}  {file}")),
                _ => panic!("{}: a line the corpus cannot read: {line}", tree.display()),
            };
        }
        apps
    }

    #[test]
    fn every_tree_scans_to_exactly_what_a_person_reads_in_it() {
        let trees = trees();
        assert!(trees.len() >= 12, "the corpus has its trees: {trees:?}");
        let mut wrong = Vec::new();
        for tree in &trees {
            for (app, expected) in expected(tree) {
                let options = ScanOptions {
                    app: (!app.is_empty()).then(|| PathBuf::from(&app)),
                    ..ScanOptions::default()
                };
                let name = format!("{} {app}", tree.file_name().unwrap().to_string_lossy());
                let found = match scan(tree, &options) {
                    Ok(found) => found,
                    Err(e) => {
                        wrong.push(format!("{name}: {e}"));
                        continue;
                    }
                };
                let routes: BTreeSet<String> = found
                    .routes
                    .iter()
                    .map(|r| format!("{}  {}", r.pattern, r.file))
                    .collect();
                let unresolved: BTreeSet<String> = found
                    .unresolved
                    .iter()
                    .map(|u| format!("{}:{}", u.file, u.line))
                    .collect();
                let errors: BTreeSet<String> = found
                    .parse_errors
                    .iter()
                    .map(|e| format!("{}:{}:{}", e.file, e.line, e.column))
                    .collect();
                for (what, want, got) in [
                    ("route", &expected.routes, &routes),
                    ("unresolved", &expected.unresolved, &unresolved),
                    ("parse error", &expected.errors, &errors),
                ] {
                    for missed in want.difference(got) {
                        wrong.push(format!("{name}: {what} missed: {missed}"));
                    }
                    for invented in got.difference(want) {
                        wrong.push(format!("{name}: {what} invented: {invented}"));
                    }
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
