//! JavaScript and TypeScript apps: react-router's route trees and Next.js's route directories,
//! with the interactive elements each page's component renders.

mod elements;
mod next;
mod react_router;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::files::{self, Source, descendants};
use super::{Framework, Scan};

/// The extensions of source files, in the order an import without one is tried.
const EXTENSIONS: &[&str] = &["tsx", "ts", "jsx", "js", "mjs"];

/// Adds the routes of the JS/TS app in `dir` (under `root`) to `scan`, by the conventions its
/// manifest and configuration choose: Next.js's directories only where `next` is a dependency
/// or a `next.config.*` is there (a react-router app's `src/pages/` is its own business), and
/// react-router's route trees only where `react-router` or `react-router-dom` is.
pub(crate) fn scan(root: &Path, dir: &Path, app: &super::App, scan: &mut Scan) {
    let mut sources = Sources::default();
    let next = app
        .depends_on(&["next"])
        .or_else(|| app.next_config.clone());
    if let Some(why) = next {
        next::scan(root, dir, &why, &mut sources, scan);
    }
    if let Some(why) = app.depends_on(&["react-router-dom", "react-router"]) {
        scan.conventions.push(super::Convention {
            framework: Framework::ReactRouter,
            why,
        });
        react_router::scan(root, dir, &mut sources, scan);
    }
    scan.files += sources.parsed.len();
    for source in sources.parsed.values().flatten() {
        scan.parsed(root, source);
    }
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
    /// The file at `path`, when it was parsed already.
    pub(crate) fn find(&self, path: &Path) -> Option<&Source> {
        self.parsed.get(&files::clean(path))?.as_ref()
    }

    /// The file at `path` (`..` resolved, so each file is parsed once under one name).
    pub(crate) fn get(&mut self, path: &Path) -> Option<&Source> {
        let path = files::clean(path);
        self.parsed
            .entry(path.clone())
            .or_insert_with(|| Source::parse(&path, &language_of(&path)?))
            .as_ref()
    }
}

/// How the app's own imports that do not start with `.` are resolved: tsconfig's or
/// jsconfig's `baseUrl` and `paths` (`@/*` → `src/*`), read from the app's directory.
#[derive(Debug, Default, Clone)]
pub(crate) struct Aliases {
    base_url: Option<PathBuf>,
    /// Each `paths` pattern (with at most one `*`) and its targets, made absolute.
    paths: Vec<(String, Vec<PathBuf>)>,
}

impl Aliases {
    /// The aliases of the app in `dir`: its `tsconfig.json`, else its `jsconfig.json` (with
    /// the comments and trailing commas both allow), following one relative `extends`.
    pub(crate) fn of(dir: &Path) -> Aliases {
        let mut aliases = Aliases::default();
        for name in ["tsconfig.json", "jsconfig.json"] {
            let file = dir.join(name);
            if file.is_file() {
                aliases.read(&file, 0);
                break;
            }
        }
        aliases
    }

    fn read(&mut self, file: &Path, depth: usize) {
        let Some(config) = std::fs::read_to_string(file)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&jsonc(&text)).ok())
        else {
            return;
        };
        let here = file.parent().unwrap_or(Path::new(""));
        // What this file extends comes first; its own options override it.
        if let Some(extends) = config.get("extends").and_then(|e| e.as_str())
            && extends.starts_with('.')
            && depth < 4
        {
            let mut parent = here.join(extends);
            if parent.extension().is_none() {
                parent.set_extension("json");
            }
            self.read(&files::clean(&parent), depth + 1);
        }
        let Some(options) = config.get("compilerOptions") else {
            return;
        };
        if let Some(base) = options.get("baseUrl").and_then(|b| b.as_str()) {
            self.base_url = Some(files::clean(&here.join(base)));
        }
        if let Some(paths) = options.get("paths").and_then(|p| p.as_object()) {
            let base = self.base_url.clone().unwrap_or_else(|| here.to_path_buf());
            self.paths = paths
                .iter()
                .map(|(pattern, targets)| {
                    let targets = targets
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|t| t.as_str())
                        .map(|t| base.join(t))
                        .collect();
                    (pattern.clone(), targets)
                })
                .collect();
        }
    }

    /// The candidates (without extension) a bare specifier stands for.
    fn candidates(&self, specifier: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for (pattern, targets) in &self.paths {
            let star = match pattern.split_once('*') {
                Some((prefix, suffix)) => specifier
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_suffix(suffix)),
                None => (pattern == specifier).then_some(""),
            };
            if let Some(star) = star {
                out.extend(
                    targets
                        .iter()
                        .map(|t| PathBuf::from(t.to_string_lossy().replacen('*', star, 1))),
                );
            }
        }
        if let Some(base) = &self.base_url {
            out.push(base.join(specifier));
        }
        out
    }
}

/// JSON with comments and trailing commas (tsconfig's dialect) as JSON.
fn jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            _ => out.push(c),
        }
    }
    // A comma before a closing bracket or brace goes.
    let mut cleaned = String::with_capacity(out.len());
    let bytes: Vec<char> = out.chars().collect();
    let mut in_string = false;
    for (i, &c) in bytes.iter().enumerate() {
        if c == '"' && (i == 0 || bytes[i - 1] != '\\') {
            in_string = !in_string;
        }
        if c == ',' && !in_string {
            let next = bytes[i + 1..].iter().find(|n| !n.is_whitespace());
            if matches!(next, Some('}' | ']')) {
                continue;
            }
        }
        cleaned.push(c);
    }
    cleaned
}

/// The file an import names (`./pages/Users` → `pages/Users.tsx` or `pages/Users/index.tsx`;
/// `@/pages/Users` through the app's aliases); None for a package.
fn resolve_import(from: &Path, specifier: &str, aliases: &Aliases) -> Option<PathBuf> {
    let candidates = if specifier.starts_with('.') {
        vec![files::clean(&from.parent()?.join(specifier))]
    } else {
        aliases.candidates(specifier)
    };
    candidates
        .iter()
        .find_map(|base| file_for(&files::clean(base)))
}

/// The source file an import's path without extension stands for.
fn file_for(base: &Path) -> Option<PathBuf> {
    if base.is_file() && language_of(base).is_some() {
        return Some(base.to_path_buf());
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

/// A name a file imports: the file it comes from and the name it has there (`default` for a
/// default import, `*` for a namespace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    pub file: PathBuf,
    pub name: String,
}

/// What a file's imports bring in: each local name and where it comes from, with
/// `lazy(() => import("./x"))` constants too (the other file's default export).
fn imports(source: &Source, aliases: &Aliases) -> BTreeMap<String, Import> {
    let mut names = BTreeMap::new();
    for node in descendants(source.tree.root_node()) {
        match node.kind() {
            "import_statement" => {
                let Some(from) = node
                    .child_by_field_name("source")
                    .and_then(|s| files::literal(source, s))
                    .and_then(|s| resolve_import(&source.path, &s, aliases))
                else {
                    continue;
                };
                for part in descendants(node) {
                    let (local, name) = match part.kind() {
                        "import_specifier" => {
                            let Some(name) = part.child_by_field_name("name") else {
                                continue;
                            };
                            let local = part.child_by_field_name("alias").unwrap_or(name);
                            (source.text_of(local), source.text_of(name))
                        }
                        "namespace_import" => match part.named_child(0) {
                            Some(local) => (source.text_of(local), "*"),
                            None => continue,
                        },
                        // `import Home from "./Home"`: the clause's own identifier.
                        "identifier"
                            if part.parent().is_some_and(|p| p.kind() == "import_clause") =>
                        {
                            (source.text_of(part), "default")
                        }
                        _ => continue,
                    };
                    names.insert(
                        local.to_owned(),
                        Import {
                            file: from.clone(),
                            name: name.trim_matches(['"', '\'']).to_owned(),
                        },
                    );
                }
            }
            "variable_declarator" => {
                let (Some(name), Some(value)) = (
                    node.child_by_field_name("name"),
                    node.child_by_field_name("value"),
                ) else {
                    continue;
                };
                if let Some(from) = dynamic_import(source, value, aliases) {
                    names.insert(
                        source.text_of(name).to_owned(),
                        Import {
                            file: from,
                            name: "default".to_owned(),
                        },
                    );
                }
            }
            _ => {}
        }
    }
    names
}

/// The file of an `import("./x")` inside `node` (a `lazy(() => import("./x"))`).
fn dynamic_import(source: &Source, node: Node<'_>, aliases: &Aliases) -> Option<PathBuf> {
    descendants(node).into_iter().find_map(|n| {
        let call = n.kind() == "call_expression"
            && n.child_by_field_name("function")
                .is_some_and(|f| f.kind() == "import");
        if !call {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        let first = args.named_child(0)?;
        resolve_import(&source.path, &files::literal(source, first)?, aliases)
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
