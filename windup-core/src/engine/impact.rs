//! Which scenarios a change to the source affects: changed files (and their changed lines)
//! → the pages whose source they are, by the scan's routes → the scenarios whose plans or
//! runs cross those pages. `cargo windup impact` lists them; `cargo windup run --affected`
//! runs only them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use crate::engine::ledger::RunRecord;
use crate::model::plan::Plan;
use crate::model::sitemap::{Route, SiteMap};

/// A changed file, relative to the project's root, and the lines changed in it as it is now
/// (first and last, from 1); no lines: the whole file counts as changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub file: String,
    pub lines: Vec<[u32; 2]>,
}

/// What a change affects.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Impact {
    /// The pages whose source changed, by pattern, with the changed files that render them.
    pub pages: BTreeMap<String, BTreeSet<String>>,
    /// The scenarios that cross those pages, by id, with the pages each crosses.
    pub scenarios: BTreeMap<String, BTreeSet<String>>,
    /// Changed files that render no known page (shared code, styles, tests): they may
    /// affect any scenario, and are listed so that nobody takes "none" for "safe".
    pub unmapped: Vec<String>,
}

/// Why the changes could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImpactError {
    #[error("cannot run git in {dir}: {detail}; is git installed?")]
    Git { dir: String, detail: String },
    #[error("git diff {rev} failed in {dir}: {detail}")]
    Diff {
        rev: String,
        dir: String,
        detail: String,
    },
}

/// The files changed in the work tree at `root` since `rev` (committed or not), with their
/// changed lines, from `git diff -U0`; paths relative to `root`.
pub fn changes_since(root: &Path, rev: &str) -> Result<Vec<Change>, ImpactError> {
    let dir = root.display().to_string();
    let output = Command::new("git")
        .args([
            "diff",
            "-U0",
            "--no-color",
            "--no-ext-diff",
            "--relative",
            rev,
            "--",
        ])
        .current_dir(root)
        .output()
        .map_err(|e| ImpactError::Git {
            dir: dir.clone(),
            detail: e.to_string(),
        })?;
    if !output.status.success() {
        return Err(ImpactError::Diff {
            rev: rev.to_owned(),
            dir,
            detail: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        });
    }
    Ok(parse_diff(&String::from_utf8_lossy(&output.stdout)))
}

/// Whether `rev` names a commit of the repository at `root`.
pub fn is_revision(root: &Path, rev: &str) -> bool {
    Command::new("git")
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{rev}^{{commit}}"))
        .current_dir(root)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A unified diff with no context as changes: each file's new-side hunks. A deleted file
/// counts whole, at its old path.
pub fn parse_diff(diff: &str) -> Vec<Change> {
    let mut changes: Vec<Change> = Vec::new();
    let mut old: Option<String> = None;
    for line in diff.lines() {
        if let Some(path) = line.strip_prefix("--- ") {
            old = path.strip_prefix("a/").map(str::to_owned);
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let file = match path.strip_prefix("b/") {
                Some(new) => new.to_owned(),
                None => match old.take() {
                    Some(old) => old,
                    None => continue,
                },
            };
            let deleted = path == "/dev/null";
            changes.push(Change {
                file,
                lines: Vec::new(),
            });
            if deleted && let Some(change) = changes.last_mut() {
                // No hunk of a deleted file names new lines: the whole file is the change.
                change.lines.push([1, u32::MAX]);
            }
        } else if let Some(hunk) = line.strip_prefix("@@ ")
            && let Some(change) = changes.last_mut()
            && let Some(span) = new_side(hunk)
        {
            change.lines.push(span);
        }
    }
    changes
}

/// The new side of a hunk header (`-3,2 +4,5 @@`) as lines; a pure deletion touches the line
/// after which it removed lines.
fn new_side(hunk: &str) -> Option<[u32; 2]> {
    let new = hunk.split_whitespace().find(|w| w.starts_with('+'))?;
    let (start, count) = match new[1..].split_once(',') {
        Some((start, count)) => (start.parse::<u32>().ok()?, count.parse::<u32>().ok()?),
        None => (new[1..].parse::<u32>().ok()?, 1),
    };
    let start = start.max(1);
    Some([start, start + count.max(1) - 1])
}

/// Changes to whole files, as paths given on the command line.
pub fn whole_files(paths: &[String]) -> Vec<Change> {
    paths
        .iter()
        .map(|p| Change {
            file: p.trim_start_matches("./").replace('\\', "/"),
            lines: Vec::new(),
        })
        .collect()
}

/// What `changes` affect: the pages of `routes` (a scan's) whose lines they touch, and the
/// scenarios whose `plans` or ledger `records` cross those pages, as `map` names them.
pub fn impact(
    changes: &[Change],
    routes: &[Route],
    map: &SiteMap,
    plans: &[Plan],
    records: &[RunRecord],
) -> Impact {
    let mut impact = Impact::default();
    for change in changes {
        let mut rendered = false;
        for route in routes.iter().filter(|r| r.file == change.file) {
            if touches(change, route.lines) {
                impact
                    .pages
                    .entry(route.pattern.clone())
                    .or_default()
                    .insert(change.file.clone());
            }
            rendered = true;
        }
        if !rendered {
            impact.unmapped.push(change.file.clone());
        }
    }
    let mut cross = |scenario: &str, path: &str| {
        let pattern = map.pattern_of(path);
        if impact.pages.contains_key(&pattern) {
            impact
                .scenarios
                .entry(scenario.to_owned())
                .or_default()
                .insert(pattern);
        }
    };
    for plan in plans {
        cross(&plan.scenario_id, &plan.start_url);
        for url in plan.actions.iter().filter_map(|a| a.url.as_deref()) {
            cross(&plan.scenario_id, url);
        }
    }
    for record in records {
        for page in &record.pages {
            cross(&record.scenario_id, &page.path);
        }
    }
    impact
}

/// Whether a change touches the lines a route's page is rendered by (all of the file: None).
fn touches(change: &Change, lines: Option<[u32; 2]>) -> bool {
    match lines {
        None => true,
        Some(_) if change.lines.is_empty() => true,
        Some([first, last]) => change
            .lines
            .iter()
            .any(|[from, to]| *from <= last && *to >= first),
    }
}

/// The routes the last scans left in the map: each page's static claims (one per app of a
/// repository of several), stale ones too (a page gone from the source is a change to the
/// scenarios that cross it).
pub fn routes_in_map(map: &SiteMap) -> Vec<Route> {
    map.pages
        .iter()
        .flat_map(|page| {
            page.claims
                .iter()
                .filter(|c| c.source == crate::model::sitemap::Source::Static)
                .filter_map(|claim| {
                    Some(Route {
                        pattern: page.pattern.clone(),
                        file: claim.file.clone()?,
                        lines: claim.lines,
                        ..Route::default()
                    })
                })
        })
        .collect()
}

/// What `changes` affect in the project of `settings`, by `routes`: its scenarios' pinned plans
/// and its ledger's runs say which pages each crosses; scenarios no longer in the project are
/// left out. A map or ledger that cannot be read counts as empty, with the reason in `notes`.
pub fn for_project(
    settings: &crate::config::Settings,
    changes: &[Change],
    routes: &[Route],
    notes: &mut Vec<String>,
) -> Impact {
    let map = crate::engine::sitemap::MapFile::of(&settings.root)
        .read()
        .unwrap_or_else(|e| {
            notes.push(e.to_string());
            SiteMap::default()
        });
    let records = crate::engine::ledger::Ledger::new(&settings.root)
        .read()
        .map(|read| read.records)
        .unwrap_or_else(|e| {
            notes.push(e.to_string());
            Vec::new()
        });
    let files = crate::model::scenario::discover(&settings.scenarios_dir).unwrap_or_default();
    let scenarios: Vec<crate::model::scenario::Scenario> = files
        .iter()
        .filter_map(|file| crate::model::scenario::load(file, &settings.scenarios_dir).ok())
        .collect();
    let plans: Vec<Plan> = scenarios
        .iter()
        .filter_map(|s| {
            crate::engine::lockfile::read(&crate::engine::lockfile::lockfile_path(&s.path)).ok()?
        })
        .collect();
    let mut found = impact(changes, routes, &map, &plans, &records);
    found
        .scenarios
        .retain(|id, _| scenarios.iter().any(|s| s.id == *id));
    // A scenario whose own file or pinned plan changed is affected by that alone.
    let root = &settings.root;
    for scenario in &scenarios {
        let own = [
            scenario.path.clone(),
            crate::engine::lockfile::lockfile_path(&scenario.path),
        ]
        .map(|p| crate::engine::scan::relative_to(root, &p));
        if changes.iter().any(|c| own.contains(&c.file)) {
            found
                .scenarios
                .entry(scenario.id.clone())
                .or_default()
                .insert(OWN_FILE.to_owned());
        }
    }
    found.unmapped.retain(|file| {
        !scenarios.iter().any(|s| {
            crate::engine::scan::relative_to(root, &s.path) == *file
                || crate::engine::scan::relative_to(
                    root,
                    &crate::engine::lockfile::lockfile_path(&s.path),
                ) == *file
        })
    });
    found
}

/// What an affected scenario "crosses" when its own file or plan changed.
pub const OWN_FILE: &str = "its own file";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::signature::PageVisit;

    const DIFF: &str = "\
diff --git a/src/orders.rs b/src/orders.rs
index 1111111..2222222 100644
--- a/src/orders.rs
+++ b/src/orders.rs
@@ -12 +12 @@ fn list
-    \"Your orders\"
+    \"Your past orders\"
@@ -40,3 +39,0 @@ fn show
diff --git a/src/old.rs b/src/old.rs
deleted file mode 100644
--- a/src/old.rs
+++ /dev/null
@@ -1,5 +0,0 @@
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1,0 +2,3 @@
";

    #[test]
    fn a_diff_becomes_each_files_changed_lines() {
        assert_eq!(
            parse_diff(DIFF),
            [
                Change {
                    file: "src/orders.rs".to_owned(),
                    lines: vec![[12, 12], [39, 39]]
                },
                Change {
                    file: "src/old.rs".to_owned(),
                    lines: vec![[1, u32::MAX], [1, 1]]
                },
                Change {
                    file: "README.md".to_owned(),
                    lines: vec![[2, 4]]
                },
            ]
        );
    }

    fn route(pattern: &str, file: &str, lines: Option<[u32; 2]>) -> Route {
        Route {
            pattern: pattern.to_owned(),
            file: file.to_owned(),
            lines,
            ..Route::default()
        }
    }

    fn record(scenario: &str, paths: &[&str]) -> RunRecord {
        let mut record: RunRecord = serde_json::from_value(serde_json::json!({
            "run_id": "r", "scenario_id": scenario, "started_at": "2026-12-02T10:00:00Z",
            "duration_ms": 1, "outcome": "passed", "cache": "hit",
        }))
        .unwrap();
        record.pages = paths
            .iter()
            .map(|p| PageVisit {
                path: (*p).to_owned(),
                sig: "s".to_owned(),
            })
            .collect();
        record
    }

    #[test]
    fn a_change_affects_the_scenarios_that_cross_the_pages_its_lines_render() {
        let routes = [
            route("/orders", "src/orders.rs", Some([10, 20])),
            route("/orders/:id", "src/orders.rs", Some([30, 45])),
            route("/", "src/pages.rs", Some([1, 9])),
        ];
        let mut map = SiteMap::default();
        map.scanned("", &routes, None, "2026-12-02T10:00:00Z");
        let records = [
            record("order-history", &["/products/mug", "/orders"]),
            record("checkout", &["/", "/orders/1042"]),
            record("search", &["/", "/search"]),
        ];
        let only_list = [Change {
            file: "src/orders.rs".to_owned(),
            lines: vec![[12, 12]],
        }];
        let found = impact(&only_list, &routes, &map, &[], &records);
        assert_eq!(found.pages.keys().collect::<Vec<_>>(), ["/orders"]);
        assert_eq!(
            found.scenarios.keys().collect::<Vec<_>>(),
            ["order-history"]
        );
        assert_eq!(found.unmapped, Vec::<String>::new());
        let whole = whole_files(&["./src/orders.rs".to_owned(), "src/shop.css".to_owned()]);
        let found = impact(&whole, &routes, &map, &[], &records);
        assert_eq!(
            found.scenarios.keys().collect::<Vec<_>>(),
            ["checkout", "order-history"]
        );
        assert_eq!(found.unmapped, ["src/shop.css"]);
    }
}
