//! axum: the `.route("/path", get(handler))` calls of a crate's router functions, with
//! `.nest("/prefix", other())` and `.merge(other())` followed into the crate's other functions
//! (and a router written in place as `.nest("/prefix", Router::new()…)`). Functions are known
//! by their module path — `crate::admin::router` is not `crate::blog::router` — resolved as
//! rustc would: `crate::`, `self::`, `super::`, `Self::`, the module's `use` imports and its
//! child modules. A page is a route with a GET handler (`get`, `any`, `get_service`); a route
//! only posted to is a form's target, a path with a file extension an asset, and one under
//! `/api/` an endpoint — none is a page. Each page's source is its handler's function, free or
//! associated (`ItemsPage::index`), with its own lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use tree_sitter::Node;

use super::files::{self, Source, descendants, literal};
use super::{Framework, Scan, Unresolved, is_asset, normal};
use crate::model::sitemap::{Provenance, Route};

/// The routing functions whose handler answers a GET.
const GET: &[&str] = &["get", "any", "get_service", "any_service"];

/// What one function of the crate declares.
#[derive(Debug, Default)]
struct Declared {
    routes: Vec<Route>,
    /// `(prefix, function)` of each `.nest` (and, with an empty prefix, each `.merge`), the
    /// function by its full path.
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
    for source in &sources {
        scan.parsed(root, source);
    }
    let items = Items::of(&src, &sources);
    let mut declared: BTreeMap<String, Declared> = BTreeMap::new();
    let mut unresolved: Vec<Unresolved> = Vec::new();
    for (index, source) in sources.iter().enumerate() {
        let module = &items.modules[index];
        for call in descendants(source.tree.root_node()) {
            let Some(method) = method_of(source, call) else {
                continue;
            };
            if in_tests(source, call) {
                continue;
            }
            let scope = Scope::of(source, module, call);
            let outcome = match method {
                "route" => route(&items, &scope, source, call).map(|r| r.map(Found::Route)),
                "nest" => nest(&items, &scope, source, call, true),
                "merge" => nest(&items, &scope, source, call, false),
                _ => continue,
            };
            match outcome {
                Ok(Some(Found::Route(route))) => {
                    declared
                        .entry(scope.function)
                        .or_default()
                        .routes
                        .push(route);
                }
                Ok(Some(Found::Nest(prefix, inner))) => {
                    declared
                        .entry(scope.function)
                        .or_default()
                        .nests
                        .push((prefix, inner));
                }
                Ok(None) => {}
                Err(why) => unresolved.push(Unresolved {
                    file: files::relative(root, &source.path),
                    line: call_line(call),
                    why,
                }),
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
        route.provenance.file = files::relative(root, Path::new(&route.provenance.file));
    }
    routes.retain(|r| !is_asset(&r.pattern) && !is_api(&r.pattern));
    if !routes.is_empty() || !unresolved.is_empty() {
        scan.frameworks.push(Framework::Axum);
    }
    scan.routes.extend(routes);
    scan.unresolved.extend(unresolved);
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
    /// A page.
    Route(Route),
    /// `.nest(prefix, function())` or `.merge(function())`.
    Nest(String, String),
}

/// The crate's functions by their full path (`crate::pages::items::ItemsPage::index`), where
/// each is, and what each module's `use` declarations bring in.
struct Items {
    /// Each source's module path (`crate`, `crate::admin`), by index.
    modules: Vec<String>,
    /// Each source's path, by index.
    paths: Vec<String>,
    /// Each function: the index of its source and its lines.
    functions: BTreeMap<String, (usize, [u32; 2])>,
    /// Per module: each name its `use` declarations bring in, and the path it stands for.
    uses: BTreeMap<String, BTreeMap<String, String>>,
    /// The modules that glob-import a path (`use crate::handlers::*`).
    globs: BTreeMap<String, Vec<String>>,
}

impl Items {
    fn of(src: &Path, sources: &[Source]) -> Items {
        let mut items = Items {
            modules: sources.iter().map(|s| module_of(src, &s.path)).collect(),
            paths: sources
                .iter()
                .map(|s| s.path.display().to_string())
                .collect(),
            functions: BTreeMap::new(),
            uses: BTreeMap::new(),
            globs: BTreeMap::new(),
        };
        for (index, source) in sources.iter().enumerate() {
            let file_module = items.modules[index].clone();
            for node in descendants(source.tree.root_node()) {
                match node.kind() {
                    "function_item" => {
                        let Some(name) = node.child_by_field_name("name") else {
                            continue;
                        };
                        let mut path = inline_module(source, &file_module, node);
                        if let Some(owner) = impl_type(source, node) {
                            path = format!("{path}::{owner}");
                        }
                        let path = format!("{path}::{}", source.text_of(name));
                        items
                            .functions
                            .entry(path)
                            .or_insert((index, Source::lines_of(node)));
                    }
                    "use_declaration" => {
                        let module = inline_module(source, &file_module, node);
                        let Some(tree) = node.child_by_field_name("argument") else {
                            continue;
                        };
                        let mut found = Vec::new();
                        use_tree(source, tree, "", &mut found);
                        for (alias, path) in found {
                            let path = absolute(&module, &path);
                            if alias == "*" {
                                items.globs.entry(module.clone()).or_default().push(path);
                            } else {
                                items
                                    .uses
                                    .entry(module.clone())
                                    .or_default()
                                    .insert(alias, path);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        items
    }

    /// The full path of the function `written` names from `scope`, when it is the crate's.
    fn resolve(&self, scope: &Scope, written: &str) -> Option<String> {
        let written: String = written.chars().filter(|c| !c.is_whitespace()).collect();
        // `handler::<T>` names `handler`.
        let written = written.split("::<").next().unwrap_or(&written);
        let segments: Vec<&str> = written.split("::").filter(|s| !s.is_empty()).collect();
        let (first, rest) = segments.split_first()?;
        let module = &scope.module;
        let base = match *first {
            "crate" | "self" | "super" => absolute(module, written),
            "Self" => format!("{module}::{}", scope.owner.as_deref()?),
            name => match self.uses.get(module).and_then(|u| u.get(name)) {
                Some(path) => path.clone(),
                None => format!("{module}::{name}"),
            },
        };
        // `crate::`, `self::` and `super::` paths are whole already.
        let full = if matches!(*first, "crate" | "self" | "super") || rest.is_empty() {
            base
        } else {
            format!("{base}::{}", rest.join("::"))
        };
        if self.functions.contains_key(&full) {
            return Some(full);
        }
        // Through a glob import of the module.
        let name = segments.join("::");
        for glob in self.globs.get(module).into_iter().flatten() {
            let candidate = format!("{glob}::{name}");
            if self.functions.contains_key(&candidate) {
                return Some(candidate);
            }
        }
        None
    }
}

/// A source file's module path, by where it is under `src/`.
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if parts.first().is_some_and(|p| p == "bin") {
        // Each binary is a crate of its own.
        return "crate".to_owned();
    }
    match stem {
        "main" | "lib" if parts.is_empty() => {}
        "mod" => {}
        other => parts.push(other.to_owned()),
    }
    if parts.is_empty() {
        "crate".to_owned()
    } else {
        format!("crate::{}", parts.join("::"))
    }
}

/// `node`'s module: its file's, and the inline `mod name { … }` blocks around it.
fn inline_module(source: &Source, file_module: &str, node: Node<'_>) -> String {
    let mut names = Vec::new();
    let mut at = node.parent();
    while let Some(current) = at {
        if current.kind() == "mod_item"
            && let Some(name) = current.child_by_field_name("name")
        {
            names.push(source.text_of(name).to_owned());
        }
        at = current.parent();
    }
    names.reverse();
    std::iter::once(file_module.to_owned())
        .chain(names)
        .collect::<Vec<_>>()
        .join("::")
}

/// The type an `impl` block around `node` is for (`ItemsPage` in `impl ItemsPage` and in
/// `impl Page for ItemsPage`), without its generics.
fn impl_type(source: &Source, node: Node<'_>) -> Option<String> {
    let mut at = node.parent();
    while let Some(current) = at {
        match current.kind() {
            "impl_item" => {
                let ty = source.text_of(current.child_by_field_name("type")?);
                return Some(ty.split('<').next().unwrap_or(ty).trim().to_owned());
            }
            "function_item" | "mod_item" => return None,
            _ => {}
        }
        at = current.parent();
    }
    None
}

/// A path written from `module` as an absolute one: `crate::…` as it is, `self::x` and
/// `super::x` against `module`; a path from another crate (`axum::Router`) as it is.
fn absolute(module: &str, path: &str) -> String {
    let mut segments: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
    let mut base: Vec<&str> = module.split("::").collect();
    match segments.first() {
        Some(&"crate") => return segments.join("::"),
        Some(&"self") => {
            segments.remove(0);
        }
        Some(&"super") => {
            while segments.first() == Some(&"super") {
                segments.remove(0);
                if base.len() > 1 {
                    base.pop();
                }
            }
        }
        _ => return segments.join("::"),
    }
    base.extend(segments);
    base.join("::")
}

/// The names a `use` tree brings in, each with the path it stands for (`*` for a glob).
fn use_tree(source: &Source, node: Node<'_>, prefix: &str, out: &mut Vec<(String, String)>) {
    let join = |rest: &str| {
        if prefix.is_empty() {
            rest.to_owned()
        } else {
            format!("{prefix}::{rest}")
        }
    };
    match node.kind() {
        "identifier" | "scoped_identifier" | "crate" | "self" | "super" => {
            let path = join(source.text_of(node));
            let alias = path.rsplit("::").next().unwrap_or(&path).to_owned();
            if alias == "self" {
                // `use crate::admin::{self}` brings in `admin`.
                let module = path.trim_end_matches("::self").to_owned();
                let name = module.rsplit("::").next().unwrap_or(&module).to_owned();
                out.push((name, module));
            } else {
                out.push((alias, path));
            }
        }
        "use_as_clause" => {
            let (Some(path), Some(alias)) = (
                node.child_by_field_name("path"),
                node.child_by_field_name("alias"),
            ) else {
                return;
            };
            out.push((source.text_of(alias).to_owned(), join(source.text_of(path))));
        }
        "use_wildcard" => {
            let text = source
                .text_of(node)
                .trim_end_matches('*')
                .trim_end_matches("::");
            out.push(("*".to_owned(), join(text)));
        }
        "scoped_use_list" => {
            let base = node
                .child_by_field_name("path")
                .map(|p| join(source.text_of(p)))
                .unwrap_or_else(|| prefix.to_owned());
            if let Some(list) = node.child_by_field_name("list") {
                use_tree(source, list, &base, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
            for child in children {
                use_tree(source, child, prefix, out);
            }
        }
        _ => {}
    }
}

/// Whether `node` is test code: in a `#[cfg(test)]` module or a `#[test]` function.
fn in_tests(source: &Source, node: Node<'_>) -> bool {
    let mut at = node.parent();
    while let Some(current) = at {
        if matches!(current.kind(), "mod_item" | "function_item") {
            let mut before = current.prev_named_sibling();
            while let Some(attribute) = before.filter(|b| b.kind() == "attribute_item") {
                let text = source.text_of(attribute);
                if text.contains("cfg(test)") || text.contains("test]") {
                    return true;
                }
                before = attribute.prev_named_sibling();
            }
        }
        at = current.parent();
    }
    false
}

/// Where a call is: its module, the `impl` type around it, and its function's full path.
struct Scope {
    module: String,
    owner: Option<String>,
    function: String,
}

impl Scope {
    fn of(source: &Source, file_module: &str, call: Node<'_>) -> Scope {
        let module = inline_module(source, file_module, call);
        let mut at = call.parent();
        let mut function = None;
        while let Some(node) = at {
            if node.kind() == "function_item" {
                function = Some(node);
                break;
            }
            at = node.parent();
        }
        let owner = function.and_then(|f| impl_type(source, f));
        let name = function
            .and_then(|f| f.child_by_field_name("name"))
            .map(|n| source.text_of(n).to_owned());
        let function = match (&owner, name) {
            (Some(owner), Some(name)) => format!("{module}::{owner}::{name}"),
            (None, Some(name)) => format!("{module}::{name}"),
            (_, None) => module.clone(),
        };
        Scope {
            module,
            owner,
            function,
        }
    }
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

/// The line of a method call's name (`.route` in a chain that starts lines above).
fn call_line(call: Node<'_>) -> u32 {
    call.child_by_field_name("function")
        .and_then(|f| f.child_by_field_name("field"))
        .map_or_else(
            || Source::lines_of(call)[0],
            |name| Source::lines_of(name)[0],
        )
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

/// The prefixes of the `.nest("/prefix", Router::new()…)` calls a route written in place is
/// inside, outermost first, joined.
fn nested_in_place(source: &Source, call: Node<'_>) -> String {
    let mut prefixes = Vec::new();
    let mut child = call;
    let mut at = call.parent();
    while let Some(node) = at {
        if node.kind() == "function_item" {
            break;
        }
        if method_of(source, node) == Some("nest") {
            let args = arguments(node);
            let inside = args.get(1).is_some_and(|router| {
                router.start_byte() <= child.start_byte() && child.end_byte() <= router.end_byte()
            });
            if inside && let Some(prefix) = args.first().and_then(|p| literal(source, *p)) {
                prefixes.push(pattern_of(&prefix));
            }
        }
        child = node;
        at = node.parent();
    }
    prefixes.reverse();
    prefixes.concat()
}

/// `.route("/path", get(handler)…)`: a page when a GET handler answers it.
fn route(
    items: &Items,
    scope: &Scope,
    sources: &Source,
    call: Node<'_>,
) -> Result<Option<Route>, String> {
    let source = sources;
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
        return Ok(None);
    };
    let (file, lines) = handler_source(items, scope, source, handler)
        .unwrap_or_else(|| (source.path.display().to_string(), Source::lines_of(call)));
    let prefix = nested_in_place(source, call);
    Ok(Some(Route {
        pattern: pattern_of(&format!("{prefix}/{path}")),
        file,
        lines: Some(lines),
        elements: Vec::new(),
        provenance: Provenance {
            framework: Framework::Axum.to_string(),
            file: source.path.display().to_string(),
            line: call_line(call),
            partial: false,
        },
    }))
}

/// `.nest("/prefix", other())` or `.merge(other())`: the prefix and the function's full path.
/// A router written in place (`Router::new()…`) or built in a local of the same function is
/// read where it is; None then.
fn nest(
    items: &Items,
    scope: &Scope,
    source: &Source,
    call: Node<'_>,
    nest: bool,
) -> Result<Option<Found>, String> {
    let args = arguments(call);
    let what = if nest { "nest" } else { "merge" };
    let (prefix, inner) = if nest {
        let (Some(path), Some(inner)) = (args.first(), args.get(1)) else {
            return Err("a .nest(…) without a path and a router".to_owned());
        };
        let prefix = literal(source, *path).ok_or_else(|| {
            format!(
                "a .nest({}, …) whose path is not a string",
                source.text_of(*path)
            )
        })?;
        (pattern_of(&prefix), *inner)
    } else {
        let Some(inner) = args.first() else {
            return Err("a .merge() without a router".to_owned());
        };
        (String::new(), *inner)
    };
    let inner = match inner.kind() {
        // A local: the call it was made with, when it was made with one.
        "identifier" => match local_value(source, call, source.text_of(inner)) {
            Some(value) => value,
            None => {
                return Err(format!(
                    "a .{what}(…, {}) of a router the scan cannot follow",
                    source.text_of(inner)
                ));
            }
        },
        _ => inner,
    };
    if inner.kind() != "call_expression" {
        return Err(format!(
            "a .{what}(…, {}) of a router the scan cannot follow",
            source.text_of(inner)
        ));
    }
    let function = inner.child_by_field_name("function");
    match function.map(|f| f.kind()) {
        // `Router::new().route(…)` in place: its routes are read where they are written.
        Some("field_expression") => Ok(None),
        Some("identifier" | "scoped_identifier") => {
            let written = source.text_of(function.expect("matched"));
            if written.ends_with("Router::new") {
                return Ok(None);
            }
            let prefix = format!("{}{prefix}", nested_in_place(source, call));
            match items.resolve(scope, written) {
                Some(full) => Ok(Some(Found::Nest(prefix, full))),
                None => Err(format!(
                    "a .{what}(…, {}) of a router the scan cannot follow",
                    source.text_of(inner)
                )),
            }
        }
        _ => Err(format!(
            "a .{what}(…, {}) of a router the scan cannot follow",
            source.text_of(inner)
        )),
    }
}

/// The value a `let NAME = …;` of the function around `at` gives `name`.
fn local_value<'a>(source: &Source, at: Node<'a>, name: &str) -> Option<Node<'a>> {
    let mut function = at.parent();
    while let Some(node) = function {
        if node.kind() == "function_item" {
            break;
        }
        function = node.parent();
    }
    descendants(function?).into_iter().find_map(|node| {
        let binds = node.kind() == "let_declaration"
            && node
                .child_by_field_name("pattern")
                .is_some_and(|p| source.text_of(p) == name);
        binds.then(|| node.child_by_field_name("value")).flatten()
    })
}

/// Where a handler is defined: a closure where it is written, a function (free or associated)
/// by its path.
fn handler_source(
    items: &Items,
    scope: &Scope,
    source: &Source,
    handler: Node<'_>,
) -> Option<(String, [u32; 2])> {
    if handler.kind() == "closure_expression" {
        return Some((source.path.display().to_string(), Source::lines_of(handler)));
    }
    let full = items.resolve(scope, source.text_of(handler))?;
    let (index, lines) = items.functions.get(&full)?;
    Some((items.paths[*index].clone(), *lines))
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
