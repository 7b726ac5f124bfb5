//! docs/architecture.md's table of layers lists exactly the modules the code declares: a module
//! added, renamed or removed without the page changing fails here, with both lists.

use std::collections::BTreeSet;
use std::path::Path;

/// The modules a file declares (`mod x;`, `pub mod x;`, any visibility), tests left out.
fn declared(file: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    parsed
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.ident != "tests" => Some(m.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// The rows of the page's layer table: the layer's module (or `the boundaries`) and the modules
/// it lists, each in backticks.
fn documented(page: &str) -> Vec<(String, BTreeSet<String>)> {
    let section = page
        .split("\n## ")
        .find(|s| s.starts_with("Layers"))
        .expect("docs/architecture.md has a `## Layers` section");
    section
        .lines()
        .filter(|line| {
            line.strip_prefix("| ")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let ticked = |cell: &str| -> BTreeSet<String> {
                cell.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_owned)
                    .collect()
            };
            (cells[2].trim_matches('`').to_owned(), ticked(cells[3]))
        })
        .collect()
}

#[test]
fn the_layer_table_lists_the_modules_the_code_declares() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("../docs/architecture.md"))
        .expect("docs/architecture.md beside the crate");
    let rows = documented(&page);
    assert_eq!(rows.len(), 6, "six layers in the table: {rows:?}");
    let src = root.join("src");
    let top = declared(&src.join("lib.rs"));
    let mut listed_at_top = BTreeSet::new();
    let mut wrong = Vec::new();
    for (layer, listed) in &rows {
        let code = match layer.as_str() {
            "the boundaries" | "config" => {
                listed_at_top.extend(listed.iter().cloned());
                listed
                    .iter()
                    .filter(|m| top.contains(*m))
                    .cloned()
                    .collect()
            }
            _ => {
                listed_at_top.insert(layer.clone());
                declared(&src.join(layer).join("mod.rs"))
            }
        };
        if &code != listed {
            wrong.push(format!(
                "{layer}: the page lists {listed:?}, the code declares {code:?}"
            ));
        }
    }
    if listed_at_top != top {
        wrong.push(format!(
            "the crate root: the page's layers are {listed_at_top:?}, lib.rs declares {top:?}"
        ));
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md#layers has drifted from the code:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_table_is_read_as_the_rows_say() {
    let page = "# x\n\n## Layers\n\n| rank | module | its modules | what |\n|---|---|---|---|\n\
                | 0 | `model` | `plan`, `steps` | data |\n| 1 | the boundaries | `browser` | io |\n\n\
                ## Next\n| 9 | `no` | `x` | y |\n";
    let rows = documented(page);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "model");
    assert_eq!(
        rows[0].1,
        ["plan", "steps"].map(str::to_owned).into_iter().collect()
    );
    assert_eq!(rows[1].0, "the boundaries");
}
