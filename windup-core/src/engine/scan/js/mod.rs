//! JavaScript and TypeScript apps: react-router's route trees and Next.js's route directories,
//! with the interactive elements each page's component renders.

mod elements;
mod next;
mod react_router;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::Scan;
use super::files::{self, Source, descendants};

/// The extensions of source files, in the order an import without one is tried.
const EXTENSIONS: &[&str] = &["tsx", "ts", "jsx", "js", "mjs"];

/// Adds the routes of the JS/TS app in `dir` (under `root`) to `scan`.
pub(crate) fn scan(root: &Path, dir: &Path, scan: &mut Scan) {
    let mut sources = Sources::default();
    next::scan(root, dir, &mut sources, scan);
    react_router::scan(root, dir, &mut sources, scan);
    scan.files += sources.parsed.len();
}

/// The grammar for a file, by its extension.
fn language_of(path: &Path) -> Option<tree_sitter::Language> {
    let ext = path.extension()?.to_str()?;
    Some(match ext {
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX.into(),
        "ts" | "mts" | "cts" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        "js" | "jsx" | "mjs" | "cjs" => tree_sitter_javascript::LANGUAGE.into(),
        _ => return None,
    })
}

/// Each file parsed once, however many routes lead to it.
#[derive(Default)]
pub(crate) struct Sources {
    parsed: BTreeMap<PathBuf, Option<Source>>,
}

impl Sources {
    pub(crate) fn get(&mut self, path: &Path) -> Option<&Source> {
        self.parsed
            .entry(path.to_path_buf())
            .or_insert_with(|| Source::parse(path, &language_of(path)?))
            .as_ref()
    }
}

/// The file a relative import names (`./pages/Users` → `pages/Users.tsx` or
/// `pages/Users/index.tsx`); None for a package.
fn resolve_import(from: &Path, specifier: &str) -> Option<PathBuf> {
    if !specifier.starts_with('.') {
        return None;
    }
    let base = from.parent()?.join(specifier);
    if base.is_file() && language_of(&base).is_some() {
        return Some(base);
    }
    for ext in EXTENSIONS {
        let file = PathBuf::from(format!("{}.{ext}", base.display()));
        if file.is_file() {
            return Some(file);
        }
    }
    EXTENSIONS
        .iter()
        .map(|ext| base.join(format!("index.{ext}")))
        .find(|file| file.is_file())
}

/// What a file's imports bring in: each local name and the file it comes from, with
/// `lazy(() => import("./x"))` constants too.
fn imports(source: &Source) -> BTreeMap<String, PathBuf> {
    let mut names = BTreeMap::new();
    for node in descendants(source.tree.root_node()) {
        match node.kind() {
            "import_statement" => {
                let Some(from) = node
                    .child_by_field_name("source")
                    .and_then(|s| files::literal(source, s))
                    .and_then(|s| resolve_import(&source.path, &s))
                else {
                    continue;
                };
                for name in descendants(node)
                    .into_iter()
                    .filter(|n| n.kind() == "identifier")
                {
                    names.insert(source.text_of(name).to_owned(), from.clone());
                }
            }
            "variable_declarator" => {
                let (Some(name), Some(value)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("value"),
                ) else {
                    continue;
                };
                if let Some(from) = dynamic_import(source, value) {
                    names.insert(source.text_of(name).to_owned(), from);
                }
            }
            _ => {}
        }
    }
    names
}

/// The file of an `import("./x")` inside `node` (a `lazy(() => import("./x"))`).
fn dynamic_import(source: &Source, node: Node<'_>) -> Option<PathBuf> {
    descendants(node).into_iter().find_map(|n| {
        let call = n.kind() == "call_expression"
            && n.child_by_field_name("function")
                .is_some_and(|f| f.kind() == "import");
        if !call {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        let first = args.named_child(0)?;
        resolve_import(&source.path, &files::literal(source, first)?)
    })
}

/// The attributes of a JSX element (opening or self-closing): name and value node; a bare
/// attribute (`index`) has no value.
fn attributes<'a>(source: &Source, element: Node<'a>) -> Vec<(String, Option<Node<'a>>)> {
    let tag = match element.kind() {
        "jsx_element" => element.child_by_field_name("open_tag"),
        _ => Some(element),
    };
    let Some(tag) = tag else {
        return Vec::new();
    };
    let mut cursor = tag.walk();
    tag.named_children(&mut cursor)
        .filter(|c| c.kind() == "jsx_attribute")
        .filter_map(|attribute| {
            let name = attribute.named_child(0)?;
            let value = attribute.named_child(1);
            Some((source.text_of(name).to_owned(), value))
        })
        .collect()
}

/// A JSX element's tag name (`Route`, `button`, `Foo.Bar`).
fn tag_name<'a>(source: &'a Source, element: Node<'_>) -> Option<&'a str> {
    let tag = match element.kind() {
        "jsx_element" => element.child_by_field_name("open_tag")?,
        "jsx_self_closing_element" => element,
        _ => return None,
    };
    Some(source.text_of(tag.child_by_field_name("name")?))
}

/// An attribute's value as a string: `"x"`, `{"x"}` or `` {`x`} ``.
fn string_value(source: &Source, value: Option<Node<'_>>) -> Option<String> {
    let value = value?;
    if value.kind() == "jsx_expression" {
        return files::literal(source, value.named_child(0)?);
    }
    files::literal(source, value)
}

#[cfg(test)]
mod tests;
