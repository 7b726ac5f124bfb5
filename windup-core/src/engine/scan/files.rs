//! The source files a scan reads, and their parse trees.

use std::path::{Path, PathBuf};

/// Directories never scanned: dependencies, build output, tools' state, hidden ones.
const SKIPPED: &[&str] = &["node_modules", "target", "dist", "build", "out", "coverage"];

/// The largest file a scan parses: a bigger one is generated, not written.
const MAX_BYTES: u64 = 1 << 20;

pub(crate) fn is_skipped(name: &str) -> bool {
    SKIPPED.contains(&name)
}

/// Every file under `dir` whose extension is one of `extensions`, sorted.
pub(crate) fn under(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    walk(dir, extensions, &mut found);
    found.sort();
    found
}

fn walk(dir: &Path, extensions: &[&str], found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !name.starts_with('.') && !SKIPPED.contains(&name.as_str()) {
                walk(&path, extensions, found);
            }
        } else if kind.is_file()
            && extensions.iter().any(|e| name.ends_with(&format!(".{e}")))
            && entry.metadata().is_ok_and(|m| m.len() <= MAX_BYTES)
        {
            found.push(path);
        }
    }
}

/// `path` with its `.` parts dropped and each `..` taking the part before it away, without
/// asking the file system (`src/routes/../account/Orders.tsx` is `src/account/Orders.tsx`): one
/// name per file, in the scan, the map and impact alike. A `..` above the start is kept.
pub(crate) fn clean(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(part),
            },
            other => out.push(other),
        }
    }
    out.iter().collect()
}

/// A path with `/` between its parts, as the map keeps files.
pub(crate) fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|c| c != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// `path` relative to `root`, cleaned and slashed.
pub(crate) fn relative(root: &Path, path: &Path) -> String {
    let path = clean(path);
    slashed(path.strip_prefix(clean(root)).unwrap_or(&path))
}

/// A parsed source file.
pub(crate) struct Source {
    pub path: PathBuf,
    pub text: String,
    pub tree: tree_sitter::Tree,
    /// The file's first syntax error, when it has one: what was read of it is what tree-sitter
    /// recovered.
    pub error: Option<SyntaxError>,
}

/// Where a file stops being valid source, and why, as the language's own parser says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// From 1.
    pub line: u32,
    /// From 1, in characters.
    pub column: u32,
    pub what: String,
}

impl Source {
    /// Reads and parses `path` with `language`; None when it cannot be read.
    pub(crate) fn parse(path: &Path, language: &tree_sitter::Language) -> Option<Source> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(language).ok()?;
        let tree = parser.parse(&text, None)?;
        // tree-sitter recovers from what it cannot read, and its grammars lag the languages a
        // little: the language's own parser (syn for Rust, oxc for JavaScript and TypeScript)
        // decides whether the file is broken, and where.
        let error = if tree.root_node().has_error() {
            confirmed(path, &text)
        } else {
            None
        };
        Some(Source {
            path: path.to_path_buf(),
            text,
            tree,
            error,
        })
    }

    pub(crate) fn text_of(&self, node: tree_sitter::Node<'_>) -> &str {
        node.utf8_text(self.text.as_bytes()).unwrap_or("")
    }

    /// 1-based first and last line of a node.
    pub(crate) fn lines_of(node: tree_sitter::Node<'_>) -> [u32; 2] {
        let line = |p: tree_sitter::Point| u32::try_from(p.row + 1).unwrap_or(u32::MAX);
        [line(node.start_position()), line(node.end_position())]
    }
}

impl Source {
    /// The lines of the function item `name` in this file.
    pub(crate) fn fn_lines(&self, name: &str) -> Option<[u32; 2]> {
        descendants(self.tree.root_node())
            .into_iter()
            .filter(|n| n.kind() == "function_item")
            .find(|n| {
                n.child_by_field_name("name")
                    .is_some_and(|id| self.text_of(id) == name)
            })
            .map(Source::lines_of)
    }
}

/// The first syntax error of `text` (the file at `path`) by the language's own parser; None
/// when it parses.
fn confirmed(path: &Path, text: &str) -> Option<SyntaxError> {
    if path.extension().is_some_and(|e| e == "rs") {
        let error = syn::parse_file(text).err()?;
        let at = error.span().start();
        return Some(SyntaxError {
            line: u32::try_from(at.line).unwrap_or(u32::MAX).max(1),
            column: u32::try_from(at.column + 1).unwrap_or(u32::MAX),
            what: error.to_string(),
        });
    }
    let source_type = oxc_span::SourceType::from_path(path).ok()?;
    let allocator = oxc_allocator::Allocator::default();
    let parsed = oxc_parser::Parser::new(&allocator, text, source_type).parse();
    let error = parsed.errors.first()?;
    let offset = error
        .labels
        .as_ref()
        .and_then(|labels| labels.first())
        .map_or(0, |label| label.offset());
    let (line, column) = line_and_column(text, offset);
    Some(SyntaxError {
        line,
        column,
        what: error.message.to_string(),
    })
}

/// The line and column (from 1; the column in characters) of a byte offset of `text`.
pub(crate) fn line_and_column(text: &str, offset: usize) -> (u32, u32) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(column).unwrap_or(u32::MAX),
    )
}

/// Every node under `node`, depth first, in source order.
pub(crate) fn descendants(node: tree_sitter::Node<'_>) -> Vec<tree_sitter::Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(next) = stack.pop() {
        out.push(next);
        let children: Vec<_> = next.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// The text of a string literal node without its quotes, when it is one with no interpolation.
pub(crate) fn literal(source: &Source, node: tree_sitter::Node<'_>) -> Option<String> {
    match node.kind() {
        "string_literal" | "string" | "raw_string_literal" => {
            let text = source.text_of(node);
            let inner = text
                .trim_start_matches('r')
                .trim_matches('#')
                .strip_prefix(['"', '\''])?
                .strip_suffix(['"', '\''])?;
            Some(inner.to_owned())
        }
        "template_string" => {
            let has_substitution = (0..node.named_child_count())
                .filter_map(|i| node.named_child(i as u32))
                .any(|c| c.kind() == "template_substitution");
            let text = source.text_of(node);
            (!has_substitution).then(|| text.trim_matches('`').to_owned())
        }
        _ => None,
    }
}
