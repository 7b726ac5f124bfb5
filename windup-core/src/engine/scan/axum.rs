//! axum: the `.route("/path", get(handler))` calls of a crate's router functions, with
//! `.nest("/prefix", other())` followed into the crate's other functions. A page is a route
//! with a GET handler (`get`, `any`, `get_service`); a route only posted to is a form's
//! target, a path with a file extension an asset, and one under `/api/` an endpoint — none is
//! a page. Each page's source
//! is its handler's function, found by its path in the crate's modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::files::{self, Source, descendants, literal};
use super::{Framework, Scan, Unresolved, is_asset, normal};
use crate::model::sitemap::Route;

/// The routing functions whose handler answers a GET.
const GET: &[&str] = &["get", "any", "get_service", "any_service"];

/// What one function of the crate declares.
#[derive(Debug, Default)]
struct Declared {
    routes: Vec<Route>,
    /// `(prefix, function)` of each `.nest`.
    nests: Vec<(String, String)>,
}

/// Adds the routes of the axum crate in `dir` (under `root`) to `scan`.
pub(crate) fn scan(root: &Path, dir: &Path, scan: &mut Scan) {
    let language: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
    let src = dir.join("src");
    let sources: Vec<Source> = files::under(&src, &["rs"])
        .iter()
        .filter_map(|path| Source::parse(path, &language))
        .collect();
    scan.files += sources.len();
    let crate_files = Crate {
        src,
        sources: &sources,
    };
    let mut declared: BTreeMap<String, Declared> = BTreeMap::new();
    let mut unresolved: BTreeMap<String, String> = BTreeMap::new();
    for source in &sources {
        for call in descendants(source.tree.root_node()) {
            let Some(method) = method_of(source, call) else {
                continue;
            };
            let function = enclosing_fn(source, call).unwrap_or_default();
            let outcome = match method {
                "route" => crate_files.route(source, call),
                "nest" => nest(source, call).map(|n| Found::Nest(n.0, n.1)),
                _ => continue,
            };
            match outcome {
                Ok(Found::Route(Some(route))) => {
                    declared.entry(function).or_default().routes.push(route);
                }
                Ok(Found::Route(None)) => {}
                Ok(Found::Nest(prefix, inner)) => {
                    declared
                        .entry(function)
                        .or_default()
                        .nests
                        .push((prefix, inner));
                }
                Err(why) => {
                    unresolved
                        .entry(files::relative(root, &source.path))
                        .or_insert(why);
                }
            }
        }
    }
    let nested: BTreeSet<&str> = declared
        .values()
        .flat_map(|d| d.nests.iter().map(|(_, f)| f.as_str()))
        .collect();
    let mut routes = Vec::new();
    for (function, _) in declared
        .iter()
        .filter(|(f, _)| !nested.contains(f.as_str()))
    {
        expand(&declared, function, "", 0, &mut routes);
    }
    for route in &mut routes {
        route.file = files::relative(root, Path::new(&route.file));
    }
    routes.retain(|r| !is_asset(&r.pattern) && !is_api(&r.pattern));
    if !routes.is_empty() || !unresolved.is_empty() {
        scan.frameworks.push(Framework::Axum);
    }
    scan.routes.extend(routes);
    scan.unresolved.extend(
        unresolved
            .into_iter()
            .map(|(file, why)| Unresolved { file, why }),
    );
}

/// Whether a path is under `/api/`: an endpoint a page calls, not a page (as Next.js's
/// `pages/api/`).
fn is_api(pattern: &str) -> bool {
    pattern == "/api" || pattern.starts_with("/api/")
}

/// A function's routes under `prefix`, its nests followed (a cycle stops at depth 8).
fn expand(
    declared: &BTreeMap<String, Declared>,
    function: &str,
    prefix: &str,
    depth: usize,
    out: &mut Vec<Route>,
) {
    let Some(here) = declared.get(function).filter(|_| depth < 8) else {
        return;
    };
    for route in &here.routes {
        out.push(Route {
            pattern: normal(&format!("{prefix}{}", route.pattern)),
            ..route.clone()
        });
    }
    for (inner_prefix, inner) in &here.nests {
        expand(
            declared,
            inner,
            &format!("{prefix}{inner_prefix}"),
            depth + 1,
            out,
        );
    }
}

/// What a call declares.
enum Found {
    /// A route; None when it is not a page (posted to only).
    Route(Option<Route>),
    /// `.nest(prefix, function())`.
    Nest(String, String),
}

/// The method a call expression calls (`route` in `router.route(…)`).
fn method_of<'a>(source: &'a Source, call: Node<'_>) -> Option<&'a str> {
    if call.kind() != "call_expression" {
        return None;
    }
    let function = call.child_by_field_name("function")?;
    if function.kind() != "field_expression" {
        return None;
    }
    Some(source.text_of(function.child_by_field_name("field")?))
}

/// The name of the function a node is in.
fn enclosing_fn(source: &Source, node: Node<'_>) -> Option<String> {
    let mut at = node.parent();
    while let Some(node) = at {
        if node.kind() == "function_item" {
            return Some(source.text_of(node.child_by_field_name("name")?).to_owned());
        }
        at = node.parent();
    }
    None
}

/// A call's arguments.
fn arguments(call: Node<'_>) -> Vec<Node<'_>> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    (0..args.named_child_count())
        .filter_map(|i| args.named_child(i as u32))
        .collect()
}

/// An axum path as a map pattern: `{slug}` → `:slug`, `{*rest}` → `*rest`.
fn pattern_of(path: &str) -> String {
    let segments: Vec<String> = path
        .split('/')
        .map(
            |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(inner) if inner.starts_with('*') => inner.to_owned(),
                Some(inner) => format!(":{inner}"),
                None => s.to_owned(),
            },
        )
        .collect();
    normal(&segments.join("/"))
}

/// `.nest("/prefix", function())`: the prefix and the function.
fn nest(source: &Source, call: Node<'_>) -> Result<(String, String), String> {
    let args = arguments(call);
    let (Some(path), Some(inner)) = (args.first(), args.get(1)) else {
        return Err("a .nest(…) without a path and a router".to_owned());
    };
    let prefix = literal(source, *path).ok_or_else(|| {
        format!(
            "a .nest({}, …) whose path is not a string",
            source.text_of(*path)
        )
    })?;
    let function = (inner.kind() == "call_expression")
        .then(|| inner.child_by_field_name("function"))
        .flatten()
        .map(|f| {
            source
                .text_of(f)
                .rsplit("::")
                .next()
                .unwrap_or("")
                .to_owned()
        })
        .filter(|f| !f.is_empty())
        .ok_or_else(|| {
            format!(
                "a .nest(…, {}) of a router the scan cannot follow",
                source.text_of(*inner)
            )
        })?;
    Ok((pattern_of(&prefix), function))
}

/// The crate's parsed files, for finding a handler's function.
struct Crate<'a> {
    src: PathBuf,
    sources: &'a [Source],
}

impl Crate<'_> {
    /// `.route("/path", get(handler)…)`: a page when a GET handler answers it.
    fn route(&self, source: &Source, call: Node<'_>) -> Result<Found, String> {
        let args = arguments(call);
        let (Some(path), Some(method)) = (args.first(), args.get(1)) else {
            return Err("a .route(…) without a path and a handler".to_owned());
        };
        let path = literal(source, *path).ok_or_else(|| {
            format!(
                "a .route({}, …) whose path is not a string",
                source.text_of(*path)
            )
        })?;
        let Some(handler) = get_handler(source, *method) else {
            return Ok(Found::Route(None));
        };
        let (file, lines) = self
            .handler_source(source, handler)
            .unwrap_or_else(|| (source.path.clone(), Source::lines_of(call)));
        Ok(Found::Route(Some(Route {
            pattern: pattern_of(&path),
            file: file.display().to_string(),
            lines: Some(lines),
            elements: Vec::new(),
        })))
    }

    /// Where a handler is defined: a closure where it is written, a function by its path.
    fn handler_source(&self, source: &Source, handler: Node<'_>) -> Option<(PathBuf, [u32; 2])> {
        if handler.kind() == "closure_expression" {
            return Some((source.path.clone(), Source::lines_of(handler)));
        }
        let text = source.text_of(handler);
        let mut parts: Vec<&str> = text
            .split("::")
            .map(str::trim)
            .filter(|p| !matches!(*p, "crate" | "self" | ""))
            .collect();
        let name = parts.pop()?;
        let file = if parts.is_empty() {
            source.path.clone()
        } else {
            let module = parts.join("/");
            let flat = self.src.join(format!("{module}.rs"));
            if flat.exists() {
                flat
            } else {
                self.src.join(module).join("mod.rs")
            }
        };
        let defining = self.sources.iter().find(|s| s.path == file)?;
        defining.fn_lines(name).map(|lines| (file.clone(), lines))
    }
}

/// The handler a method router gives GET (`get(h)`, `get(h).post(p)`, `post(p).get(h)`).
fn get_handler<'a>(source: &Source, method: Node<'a>) -> Option<Node<'a>> {
    descendants(method).into_iter().find_map(|node| {
        if node.kind() != "call_expression" {
            return None;
        }
        let function = node.child_by_field_name("function")?;
        let name = match function.kind() {
            "field_expression" => source.text_of(function.child_by_field_name("field")?),
            _ => source.text_of(function).rsplit("::").next()?,
        };
        GET.contains(&name)
            .then(|| arguments(node).first().copied())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(files: &[(&str, &str)]) -> Scan {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let mut found = Scan::default();
        scan(dir.path(), dir.path(), &mut found);
        found
    }

    fn patterns(scan: &Scan) -> Vec<&str> {
        let mut all: Vec<&str> = scan.routes.iter().map(|r| r.pattern.as_str()).collect();
        all.sort_unstable();
        all
    }

    #[test]
    fn get_routes_are_pages_nests_are_followed_and_handlers_found() {
        let lib = r#"
mod pages;
pub fn app() -> Router {
    Router::new()
        .route("/", get(pages::home))
        .route("/items/{id}", get(crate::pages::item).post(pages::save))
        .route("/items/new", post(pages::create))
        .route("/files/{*path}", axum::routing::get(|| async { "file" }))
        .route("/app.css", get(css))
        .route("/api/items", get(pages::item))
        .nest("/admin", admin())
}
fn admin() -> Router {
    Router::new().route("/users", get(users)).route(USERS, get(users))
}
async fn users() -> String {
    String::new()
}
"#;
        let pages = "pub async fn home() {}\n\npub async fn item() {\n    todo!()\n}\n";
        let found = scanned(&[("src/lib.rs", lib), ("src/pages.rs", pages)]);
        assert_eq!(
            patterns(&found),
            ["/", "/admin/users", "/files/*path", "/items/:id"]
        );
        let item = found
            .routes
            .iter()
            .find(|r| r.pattern == "/items/:id")
            .unwrap();
        assert_eq!(
            (item.file.as_str(), item.lines),
            ("src/pages.rs", Some([3, 5]))
        );
        let users = found
            .routes
            .iter()
            .find(|r| r.pattern == "/admin/users")
            .unwrap();
        assert_eq!(
            (users.file.as_str(), users.lines),
            ("src/lib.rs", Some([16, 18]))
        );
        assert_eq!(found.frameworks, [Framework::Axum]);
        assert_eq!(found.unresolved.len(), 1, "{:?}", found.unresolved);
        assert!(
            found.unresolved[0].why.contains("USERS"),
            "{:?}",
            found.unresolved
        );
        assert_eq!(found.files, 2);
    }
}
