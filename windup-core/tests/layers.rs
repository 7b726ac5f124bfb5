//! The layers of windup-core run one way (docs/architecture.md#layers): a module may use its
//! own layer and those below it, never one above. A module's layer is the directory it lives in,
//! so the tree is the table:
//!
//! | rank | directory | modules |
//! |---|---|---|
//! | 0 | `src/model/` | plan, steps, scenario, secret |
//! | 1 | `src/browser/`, `src/llm/`, `src/store/` | the boundaries |
//! | 2 | `src/config/` | settings |
//! | 3 | `src/engine/` | executor, verifier, planner, cache, … |
//! | 4 | `src/run/` | suite, events, runner, reporters, … |
//! | 5 | `src/front/` | harness, init, server |

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The layer a directory under `src/` stands for.
fn rank_of_dir(dir: &str) -> Option<(usize, &'static str)> {
    Some(match dir {
        "model" => (0, "model"),
        "browser" | "llm" | "store" | "sys" => (1, "boundaries"),
        "config" => (2, "settings"),
        "engine" => (3, "engine"),
        "run" => (4, "run"),
        "front" => (5, "front ends"),
        _ => return None,
    })
}

/// A source file, by its path under `src/`.
struct Source {
    path: String,
    text: String,
}

/// The crate module a file belongs to, and its layer: `model/plan/rules.rs` is `plan` in model;
/// `browser/page.rs` is `browser`.
fn module_of(path: &str) -> Option<(String, usize, &'static str)> {
    let parts: Vec<&str> = path.split('/').collect();
    let (rank, layer) = rank_of_dir(parts[0])?;
    let module = match parts[0] {
        "browser" | "llm" | "store" | "sys" | "config" => parts[0].to_owned(),
        _ => parts.get(1)?.trim_end_matches(".rs").to_owned(),
    };
    Some((module, rank, layer))
}

/// Every `crate::NAME` a file's code names (comments left out), grouped imports included.
fn crate_references(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                // `use crate::{a, b::c, d::{e, f}}`: the first name of each top-level item.
                let mut depth = 0;
                let mut item_start = true;
                let mut name = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            if item_start && !name.is_empty() {
                                found.push((n + 1, std::mem::take(&mut name)));
                            }
                            item_start = true;
                        }
                        c if item_start && (c.is_alphanumeric() || c == '_') => name.push(c),
                        _ if item_start && !name.is_empty() => {
                            found.push((n + 1, std::mem::take(&mut name)));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
                if !name.is_empty() {
                    found.push((n + 1, name));
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push((n + 1, name));
                }
            }
            rest = after;
        }
    }
    found
}

/// Every reference from a lower layer to a higher one, as `file:line: what`.
fn violations(sources: &[Source]) -> Vec<String> {
    let mut rank_of_module = BTreeMap::new();
    for source in sources {
        if let Some((module, rank, layer)) = module_of(&source.path) {
            rank_of_module.insert(module, (rank, layer));
        }
    }
    let mut found = Vec::new();
    for source in sources {
        let Some((module, rank, layer)) = module_of(&source.path) else {
            continue;
        };
        for (line, name) in crate_references(&source.text) {
            let Some(&(used_rank, used_layer)) = rank_of_module.get(&name) else {
                continue;
            };
            if used_rank > rank {
                found.push(format!(
                    "src/{}:{line}: `{module}` ({layer}) uses `{name}` ({used_layer}), a higher \
                     layer; move what it needs down, or hand it in from above",
                    source.path
                ));
            }
        }
    }
    found
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files
        .into_iter()
        .map(|file| Source {
            path: file
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/"),
            text: std::fs::read_to_string(&file).expect("a readable source file"),
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable directory") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

#[test]
fn the_layers_run_one_way() {
    let sources = sources();
    let placed = sources
        .iter()
        .filter(|s| s.path != "lib.rs" && module_of(&s.path).is_none())
        .map(|s| s.path.clone())
        .collect::<Vec<_>>();
    assert!(
        placed.is_empty(),
        "source files outside any layer's directory: {placed:?}"
    );
    assert!(
        sources.len() > 50,
        "the check read only {} files",
        sources.len()
    );
    let found = violations(&sources);
    assert!(found.is_empty(), "upward imports:\n{}", found.join("\n"));
}

#[test]
fn an_upward_import_is_caught() {
    let mut sources = sources();
    let plan = sources
        .iter_mut()
        .find(|s| s.path == "model/plan/mod.rs")
        .expect("the plan module");
    plan.text
        .push_str("\nuse crate::{suite::Suite, plan::Action};\nfn f() { crate::executor::x(); }\n");
    let found = violations(&sources);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found[0].contains("`plan` (model) uses `suite` (run), a higher layer"),
        "{}",
        found[0]
    );
    assert!(
        found[1].contains("uses `executor` (engine)"),
        "{}",
        found[1]
    );
}

#[test]
fn references_are_read_from_code_not_comments() {
    let refs = crate_references(
        "use crate::a::B; // crate::ignored\nuse crate::{c, d::{e, f}, g};\nx(crate::h::i)",
    );
    let names: Vec<&str> = refs.iter().map(|(_, n)| n.as_str()).collect();
    assert_eq!(names, ["a", "c", "d", "g", "h"]);
}
