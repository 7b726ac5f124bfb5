//! react-router: `<Route>` trees in JSX — with the app's own wrappers (`<PrivateRoute
//! path="/settings" component={…}/>`), v5's `<Switch>` and arrays of paths — and route objects
//! given to `createBrowserRouter`, `createHashRouter`, `createMemoryRouter` or `useRoutes`,
//! followed the way real code keeps them: arrays and single route objects, in place or in
//! constants, imported (named, default, re-exported, through tsconfig aliases), spread into
//! other arrays, returned by functions, and as `children`.
//!
//! A child's relative path joins its parent's, an absolute one stands alone; an index route
//! (and a child at its parent's own path) renders its parent's path, so the page is the
//! child's; a pathless route is a layout that passes its parent's path down; a path with
//! children and no element of its own is a prefix, not a page. `*` is `*splat`; an optional
//! segment (`:lang?`) gives the path with and without it; path-to-regexp's forms (v5) are read
//! into the map's notation — `:id(\d+)` is `:id`, `(public)` is `public`, `(en|fr)` both —
//! and a segment the notation cannot hold is listed unresolved. Each page's source is its
//! component's file, found through the file's imports, else the file that declares the route.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::super::files::{self, Source, descendants};
use super::super::{Framework, Scan, Unresolved, normal};
use super::{Aliases, Import, Sources, attributes, dynamic_import, elements, imports, tag_name};
use crate::model::sitemap::{Provenance, Route};

/// The functions that take route objects.
const ROUTERS: &[&str] = &[
    "createBrowserRouter",
    "createHashRouter",
    "createMemoryRouter",
    "createStaticRouter",
    "useRoutes",
];

/// Attributes and properties that name a route's component.
const COMPONENT: &[&str] = &["element", "Component", "component", "lazy", "render"];

/// How deep constants, imports and calls are followed.
const DEPTH: usize = 12;

/// A route as declared: its paths (none: pathless), whether it is an index, its component's
/// file, its children, and where it is written.
#[derive(Debug, Default)]
struct Declared {
    paths: Vec<String>,
    index: bool,
    component: Option<PathBuf>,
    /// It names a component (even one the scan cannot find): it renders something of its own.
    renders: bool,
    children: Vec<Declared>,
    file: PathBuf,
    line: u32,
}

/// Adds the routes of the react-router app in `dir` to `scan`.
pub(super) fn scan(root: &Path, dir: &Path, sources: &mut Sources, scan: &mut Scan) {
    let files = files::under(dir, &["tsx", "ts", "jsx", "js", "mjs"]);
    let files: Vec<PathBuf> = files.into_iter().filter(|f| !is_test(f)).collect();
    for file in &files {
        sources.get(file);
    }
    let aliases = Aliases::of(dir);
    let mut app = App {
        sources,
        aliases: &aliases,
        root,
        imports: BTreeMap::new(),
        unresolved: Vec::new(),
    };
    let mut found: Vec<Declared> = Vec::new();
    for file in &files {
        found.extend(app.jsx_trees(file));
        found.extend(app.router_calls(file));
    }
    let mut routes = Vec::new();
    for tree in &found {
        pages(tree, "", None, &mut routes, &mut app.unresolved, root);
    }
    let unresolved = std::mem::take(&mut app.unresolved);
    if !routes.is_empty() || !unresolved.is_empty() {
        scan.frameworks.push(Framework::ReactRouter);
    }
    for page in routes {
        let elements = sources
            .find(&page.file)
            .map(elements::of)
            .unwrap_or_default();
        scan.routes.push(Route {
            pattern: page.pattern,
            file: files::relative(root, &page.file),
            lines: None,
            elements,
            provenance: Provenance {
                framework: Framework::ReactRouter.to_string(),
                file: files::relative(root, &page.declared_in),
                line: page.line,
                partial: false,
            },
        });
    }
    scan.unresolved.extend(unresolved);
}

fn is_test(file: &Path) -> bool {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.contains(".test.") || name.contains(".spec.") || name.ends_with(".d.ts")
}

/// A page of a route tree: its pattern, the file that renders it, and where it is declared.
struct Page {
    pattern: String,
    file: PathBuf,
    declared_in: PathBuf,
    line: u32,
}

/// Each page of a declared tree under `parent` (whose component's file is `inherited`).
fn pages(
    route: &Declared,
    parent: &str,
    inherited: Option<&Path>,
    out: &mut Vec<Page>,
    unresolved: &mut Vec<Unresolved>,
    root: &Path,
) {
    // Its component's file; for an element that is none of the app's (`<Navigate>`), the
    // file that declares it; with no element, its layout's.
    let file = match (&route.component, route.renders, inherited) {
        (Some(component), _, _) => component.clone(),
        (None, false, Some(layout)) => layout.to_path_buf(),
        _ => route.file.clone(),
    };
    let mut bases: Vec<String> = Vec::new();
    if route.paths.is_empty() {
        bases.push(parent.to_owned());
    }
    for path in &route.paths {
        match expand(path) {
            Ok(forms) => bases.extend(forms.into_iter().map(|p| {
                if p.starts_with('/') {
                    p
                } else {
                    format!("{parent}/{p}")
                }
            })),
            Err(why) => unresolved.push(Unresolved {
                file: files::relative(root, &route.file),
                line: route.line,
                why,
            }),
        }
    }
    for base in &bases {
        let base = normal(base);
        let before = out.len();
        for child in &route.children {
            let under = if base == "/" { "" } else { base.as_str() };
            pages(child, under, Some(&file), out, unresolved, root);
        }
        // The page at its own path: an index route's; a route's with an element of its own,
        // unless a child (an index) renders that path; never a bare prefix's.
        let taken = out[before..].iter().any(|p| p.pattern == base);
        let own = route.index
            || (!route.paths.is_empty() && (route.renders || route.children.is_empty()));
        if own && !taken {
            out.insert(
                before,
                Page {
                    pattern: base.clone(),
                    file: file.clone(),
                    declared_in: route.file.clone(),
                    line: route.line,
                },
            );
        }
    }
}

/// A path's forms in the map's notation: `*` named, each optional segment with and without,
/// path-to-regexp's parameter patterns dropped, its groups of literals spelled out. Err: a
/// segment the notation has no form for.
fn expand(path: &str) -> Result<Vec<String>, String> {
    let mut forms = vec![Vec::<String>::new()];
    for raw in path.split('/') {
        let alternatives = segment(raw)
            .ok_or_else(|| format!("a path pattern {path:?} the site map has no notation for"))?;
        let mut next = Vec::new();
        for form in &forms {
            for alternative in &alternatives {
                let mut form = form.clone();
                if let Some(segment) = alternative {
                    form.push(segment.clone());
                }
                next.push(form);
            }
        }
        forms = next;
    }
    let absolute = path.starts_with('/');
    let mut out: Vec<String> = forms
        .into_iter()
        .map(|f| {
            let joined = f.join("/");
            if absolute {
                format!("/{}", joined.trim_start_matches('/'))
            } else {
                joined
            }
        })
        .collect();
    out.dedup();
    Ok(out)
}

/// One segment's forms (None in a form: the segment left out); None when it has none.
fn segment(raw: &str) -> Option<Vec<Option<String>>> {
    let word = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '@'))
    };
    if raw.is_empty() {
        return Some(vec![Some(String::new())]);
    }
    if raw == "*" {
        return Some(vec![Some("*splat".to_owned())]);
    }
    if let Some(parameter) = raw.strip_prefix(':') {
        // `:name`, `:name(pattern)`, then `?`, `*` or `+`.
        let (name, rest) = match parameter.find(|c: char| !(c.is_alphanumeric() || c == '_')) {
            Some(at) => parameter.split_at(at),
            None => (parameter, ""),
        };
        if name.is_empty() {
            return None;
        }
        let rest = match rest.strip_prefix('(') {
            Some(inner) => {
                let close = inner.rfind(')')?;
                &inner[close + 1..]
            }
            None => rest,
        };
        return match rest {
            "" => Some(vec![Some(format!(":{name}"))]),
            "?" => Some(vec![None, Some(format!(":{name}"))]),
            "+" => Some(vec![Some(format!("*{name}"))]),
            "*" => Some(vec![None, Some(format!("*{name}"))]),
            _ => None,
        };
    }
    if let Some(inner) = raw.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        // A group of literals: each.
        let choices: Vec<&str> = inner.split('|').collect();
        if inner == ".*" {
            return Some(vec![Some("*splat".to_owned())]);
        }
        return choices
            .iter()
            .all(|c| word(c))
            .then(|| choices.iter().map(|c| Some((*c).to_owned())).collect());
    }
    if let Some(optional) = raw.strip_suffix('?').filter(|o| word(o)) {
        return Some(vec![None, Some(optional.to_owned())]);
    }
    word(raw).then(|| vec![Some(raw.to_owned())])
}

/// The app's sources, read as one: what each file imports, and what could not be read.
struct App<'a> {
    sources: &'a Sources,
    aliases: &'a Aliases,
    root: &'a Path,
    imports: BTreeMap<PathBuf, BTreeMap<String, Import>>,
    unresolved: Vec<Unresolved>,
}

impl<'a> App<'a> {
    fn source(&self, file: &Path) -> Option<&'a Source> {
        self.sources.find(file)
    }

    fn imports_of(&mut self, source: &Source) -> &BTreeMap<String, Import> {
        let aliases = self.aliases;
        self.imports
            .entry(source.path.clone())
            .or_insert_with(|| imports(source, aliases))
    }

    fn unresolve(&mut self, source: &Source, at: Node<'_>, why: String) {
        self.unresolved.push(Unresolved {
            file: files::relative(self.root, &source.path),
            line: Source::lines_of(at)[0],
            why,
        });
    }

    /// The `<Route>` trees of a file: each outermost route element with its nested ones.
    fn jsx_trees(&mut self, file: &Path) -> Vec<Declared> {
        let Some(source) = self.source(file) else {
            return Vec::new();
        };
        let candidates: Vec<Node<'a>> = descendants(source.tree.root_node())
            .into_iter()
            .filter(|n| matches!(n.kind(), "jsx_element" | "jsx_self_closing_element"))
            .collect();
        let routes: Vec<Node<'a>> = candidates
            .into_iter()
            .filter(|n| self.is_route(source, *n))
            .collect();
        let outermost: Vec<Node<'a>> = routes
            .iter()
            .copied()
            .filter(|n| {
                !routes.iter().any(|o| {
                    o.id() != n.id()
                        && o.start_byte() <= n.start_byte()
                        && n.end_byte() <= o.end_byte()
                })
            })
            .collect();
        outermost
            .into_iter()
            .map(|n| self.jsx_route(source, n))
            .collect()
    }

    /// Whether a JSX element declares a route: a `<Route>`, one of the app's own components
    /// that renders a `<Route>` (`PrivateRoute`), or any component given a `path` and what to
    /// render.
    fn is_route(&mut self, source: &'a Source, node: Node<'_>) -> bool {
        let Some(tag) = tag_name(source, node) else {
            return false;
        };
        if tag == "Route" {
            return true;
        }
        if !tag.starts_with(|c: char| c.is_ascii_uppercase()) || matches!(tag, "Routes" | "Switch")
        {
            return false;
        }
        let props: Vec<String> = attributes(source, node)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        if props.iter().any(|p| p == "path")
            && props.iter().any(|p| COMPONENT.contains(&p.as_str()))
        {
            return true;
        }
        let import = self.imports_of(source).get(tag).cloned();
        import
            .and_then(|import| self.source(&import.file))
            .is_some_and(|wrapper| {
                props.iter().any(|p| p == "path")
                    && descendants(wrapper.tree.root_node())
                        .into_iter()
                        .any(|n| tag_name(wrapper, n) == Some("Route"))
            })
    }

    fn jsx_route(&mut self, source: &'a Source, node: Node<'a>) -> Declared {
        let mut route = Declared {
            file: source.path.clone(),
            line: Source::lines_of(node)[0],
            ..Declared::default()
        };
        for (name, value) in attributes(source, node) {
            match name.as_str() {
                "path" => match path_values(source, value) {
                    Some(paths) => route.paths = paths,
                    None => self.unresolve(
                        source,
                        value.unwrap_or(node),
                        format!(
                            "a <Route path={}> the scan cannot read",
                            value.map_or("", |v| source.text_of(v))
                        ),
                    ),
                },
                "index" => route.index = value.is_none_or(|v| source.text_of(v).contains("true")),
                name if COMPONENT.contains(&name) => {
                    route.renders = true;
                    if route.component.is_none() {
                        route.component = self.component(source, value);
                    }
                }
                _ => {}
            }
        }
        if node.kind() == "jsx_element" {
            let mut cursor = node.walk();
            let children: Vec<Node<'a>> = node.named_children(&mut cursor).collect();
            for child in children {
                if !matches!(child.kind(), "jsx_element" | "jsx_self_closing_element") {
                    continue;
                }
                if self.is_route(source, child) {
                    let nested = self.jsx_route(source, child);
                    route.children.push(nested);
                } else if route.component.is_none() {
                    // v5: `<Route path="/about"><About /></Route>`.
                    route.renders = true;
                    route.component = self.component(source, Some(child));
                }
            }
        }
        route
    }

    /// The file of the component an attribute or property names: `<Users/>`, `Users`,
    /// `() => import("./users")`, `<RequireAuth><Users/></RequireAuth>` (the innermost),
    /// `() => <Help/>`.
    fn component(&mut self, source: &'a Source, value: Option<Node<'_>>) -> Option<PathBuf> {
        let value = value?;
        if let Some(file) = dynamic_import(source, value, self.aliases) {
            return Some(file);
        }
        let nodes: Vec<Node<'_>> = descendants(value)
            .into_iter()
            .filter(|n| !inside_attribute(*n, value))
            .collect();
        let mut names: Vec<String> = nodes
            .iter()
            .filter(|n| matches!(n.kind(), "jsx_self_closing_element" | "jsx_element"))
            .filter_map(|n| tag_name(source, *n).map(str::to_owned))
            .collect();
        if names.is_empty() {
            names = nodes
                .iter()
                .filter(|n| n.kind() == "identifier")
                .map(|n| source.text_of(*n).to_owned())
                .collect();
        }
        let imports = self.imports_of(source);
        names
            .iter()
            .rev()
            .find_map(|name| imports.get(name.split('.').next().unwrap_or(name)))
            .map(|import| import.file.clone())
    }

    /// The route objects a file gives a router function.
    fn router_calls(&mut self, file: &Path) -> Vec<Declared> {
        let Some(source) = self.source(file) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for call in descendants(source.tree.root_node()) {
            let called = call.kind() == "call_expression"
                && call
                    .child_by_field_name("function")
                    .is_some_and(|f| ROUTERS.contains(&source.text_of(f)));
            let Some(first) = called
                .then(|| call.child_by_field_name("arguments"))
                .flatten()
                .and_then(|a| a.named_child(0))
            else {
                continue;
            };
            let from_elements = first.kind() == "call_expression"
                && first
                    .child_by_field_name("function")
                    .is_some_and(|f| source.text_of(f).starts_with("createRoutesFrom"));
            // `<Route>` elements turned into objects: read as JSX already.
            if !from_elements {
                out.extend(self.routes_of(source, first, 0));
            }
        }
        out
    }

    /// The route objects an expression of `source` stands for.
    fn routes_of(&mut self, source: &'a Source, node: Node<'a>, depth: usize) -> Vec<Declared> {
        let node = unwrapped(node);
        if depth > DEPTH {
            self.unresolve(source, node, "routes nested too deep to follow".to_owned());
            return Vec::new();
        }
        match node.kind() {
            "array" => {
                let mut cursor = node.walk();
                let items: Vec<Node<'a>> = node.named_children(&mut cursor).collect();
                let mut out = Vec::new();
                for item in items {
                    let item = match item.kind() {
                        "spread_element" => match item.named_child(0) {
                            Some(inner) => inner,
                            None => continue,
                        },
                        "comment" => continue,
                        _ => item,
                    };
                    out.extend(self.routes_of(source, item, depth + 1));
                }
                out
            }
            "object" => vec![self.object(source, node, depth)],
            "identifier" | "member_expression" | "call_expression" => {
                match self.value(source, node, depth) {
                    Some((other, value)) => self.routes_of(other, value, depth + 1),
                    None => self.cannot_follow(source, node),
                }
            }
            _ => self.cannot_follow(source, node),
        }
    }

    /// Routes given as an expression the scan cannot follow: listed, with none read.
    fn cannot_follow(&mut self, source: &Source, node: Node<'_>) -> Vec<Declared> {
        self.unresolve(
            source,
            node,
            format!(
                "routes given as {} the scan cannot follow",
                source.text_of(node)
            ),
        );
        Vec::new()
    }

    /// What an expression evaluates to where the routes are: a constant's value (of this file
    /// or another's, through imports and re-exports), a function call's returned value.
    fn value(
        &mut self,
        source: &'a Source,
        node: Node<'a>,
        depth: usize,
    ) -> Option<(&'a Source, Node<'a>)> {
        match node.kind() {
            "identifier" => self.binding(source, source.text_of(node), depth),
            "call_expression" => {
                let function = node.child_by_field_name("function")?;
                if function.kind() != "identifier" {
                    return None;
                }
                let (other, definition) = self.binding(source, source.text_of(function), depth)?;
                Some((other, returned(definition)?))
            }
            _ => None,
        }
    }

    /// The value `name` is bound to in `source`: its own declaration, else what it imports.
    fn binding(
        &mut self,
        source: &'a Source,
        name: &str,
        depth: usize,
    ) -> Option<(&'a Source, Node<'a>)> {
        if depth > DEPTH {
            return None;
        }
        if let Some(value) = declared(source, name) {
            return Some((source, value));
        }
        let import = self.imports_of(source).get(name).cloned()?;
        self.export(&import.file, &import.name, depth + 1)
    }

    /// The value a file exports as `name` (`default` for its default export), through its
    /// re-exports.
    fn export(&mut self, file: &Path, name: &str, depth: usize) -> Option<(&'a Source, Node<'a>)> {
        if depth > DEPTH {
            return None;
        }
        let source = self.source(file)?;
        let statements: Vec<Node<'a>> = descendants(source.tree.root_node())
            .into_iter()
            .filter(|n| n.kind() == "export_statement")
            .collect();
        for statement in &statements {
            let from = statement
                .child_by_field_name("source")
                .and_then(|s| files::literal(source, s))
                .and_then(|s| super::resolve_import(&source.path, &s, self.aliases));
            if name == "default"
                && let Some(value) = statement.child_by_field_name("value")
            {
                return match value.kind() {
                    "identifier" => self.binding(source, source.text_of(value), depth + 1),
                    _ => Some((source, value)),
                };
            }
            if name == "default"
                && let Some(declaration) = statement.child_by_field_name("declaration")
                && source.text_of(*statement).starts_with("export default")
            {
                return Some((source, declaration));
            }
            for specifier in descendants(*statement)
                .into_iter()
                .filter(|n| n.kind() == "export_specifier")
            {
                let Some(local) = specifier.child_by_field_name("name") else {
                    continue;
                };
                let exported = specifier.child_by_field_name("alias").unwrap_or(local);
                if source.text_of(exported).trim_matches(['"', '\'']) != name {
                    continue;
                }
                let local = source.text_of(local).to_owned();
                return match &from {
                    Some(other) => self.export(other, &local, depth + 1),
                    None => self.binding(source, &local, depth + 1),
                };
            }
            // `export * from "./x"`.
            let star = source.text_of(*statement).starts_with("export *")
                && !descendants(*statement)
                    .iter()
                    .any(|n| n.kind() == "namespace_export");
            if star
                && let Some(other) = &from
                && let Some(found) = self.export(other, name, depth + 1)
            {
                return Some(found);
            }
        }
        // `export const name = …` and `export function name() {}` are declarations of the file.
        declared(source, name).map(|value| (source, value))
    }

    fn object(&mut self, source: &'a Source, object: Node<'a>, depth: usize) -> Declared {
        let mut route = Declared {
            file: source.path.clone(),
            line: Source::lines_of(object)[0],
            ..Declared::default()
        };
        let mut cursor = object.walk();
        let pairs: Vec<Node<'a>> = object
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "pair")
            .collect();
        for pair in pairs {
            let (Some(key), Some(value)) = (
                pair.child_by_field_name("key"),
                pair.child_by_field_name("value"),
            ) else {
                continue;
            };
            match source.text_of(key).trim_matches(['"', '\'']) {
                "path" => match files::literal(source, value) {
                    Some(path) => route.paths = vec![path],
                    None => self.unresolve(
                        source,
                        value,
                        format!(
                            "a route path: {} the scan cannot read",
                            source.text_of(value)
                        ),
                    ),
                },
                "index" => route.index = source.text_of(value) == "true",
                "children" => route.children = self.routes_of(source, value, depth + 1),
                name if COMPONENT.contains(&name) => {
                    route.renders = true;
                    if route.component.is_none() {
                        route.component = self.component(source, Some(value));
                    }
                }
                _ => {}
            }
        }
        route
    }
}

/// The value `name` is declared with at the top of `source`'s scopes: a `const`/`let`/`var`'s
/// initializer, or a function declaration.
fn declared<'a>(source: &'a Source, name: &str) -> Option<Node<'a>> {
    descendants(source.tree.root_node())
        .into_iter()
        .find_map(|n| {
            let id = n.child_by_field_name("name");
            let named = id.is_some_and(|id| source.text_of(id) == name);
            match n.kind() {
                "variable_declarator" if named => n.child_by_field_name("value"),
                "function_declaration" | "generator_function_declaration" if named => Some(n),
                _ => None,
            }
        })
}

/// What a function returns: an arrow function's expression body, else its first `return`'s
/// value (a function declaration, expression or arrow function with a body).
fn returned(function: Node<'_>) -> Option<Node<'_>> {
    let function = unwrapped(function);
    if !matches!(
        function.kind(),
        "function_declaration" | "function_expression" | "function" | "arrow_function"
    ) {
        return None;
    }
    let body = function.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return Some(body);
    }
    descendants(body).into_iter().find_map(|n| {
        (n.kind() == "return_statement")
            .then(|| n.named_child(0))
            .flatten()
    })
}

/// Whether `node` is inside an attribute of a JSX element below `top` (`fallback={<Spinner/>}`):
/// not what the element renders.
fn inside_attribute(node: Node<'_>, top: Node<'_>) -> bool {
    let mut at = node.parent();
    while let Some(current) = at {
        if current.id() == top.id() {
            return false;
        }
        if current.kind() == "jsx_attribute" {
            return true;
        }
        at = current.parent();
    }
    false
}

/// A `path` attribute's value: `"x"`, `{"x"}`, `` {`x`} ``, or v5's `{["/a", "/b"]}`.
fn path_values(source: &Source, value: Option<Node<'_>>) -> Option<Vec<String>> {
    let value = value?;
    let inner = if value.kind() == "jsx_expression" {
        value.named_child(0)?
    } else {
        value
    };
    if inner.kind() == "array" {
        let mut cursor = inner.walk();
        return inner
            .named_children(&mut cursor)
            .map(|item| files::literal(source, item))
            .collect();
    }
    files::literal(source, inner).map(|path| vec![path])
}

/// An expression without what only types it (`[…] as RouteObject[]`, `[…] satisfies X`).
fn unwrapped(node: Node<'_>) -> Node<'_> {
    match node.kind() {
        "as_expression"
        | "satisfies_expression"
        | "parenthesized_expression"
        | "non_null_expression" => node.named_child(0).map_or(node, unwrapped),
        _ => node,
    }
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn optional_segments_and_splats_expand() {
        assert_eq!(expand(":lang?/about").unwrap(), ["about", ":lang/about"]);
        assert_eq!(expand("/files/*").unwrap(), ["/files/*splat"]);
        assert_eq!(expand("users/:id").unwrap(), ["users/:id"]);
    }

    #[test]
    fn path_to_regexp_forms_are_read_into_the_maps_notation() {
        assert_eq!(expand("/posts/:id(\\d+)").unwrap(), ["/posts/:id"]);
        assert_eq!(
            expand("/archive/:year?").unwrap(),
            ["/archive", "/archive/:year"]
        );
        assert_eq!(expand("/(public)").unwrap(), ["/public"]);
        assert_eq!(
            expand("/(en|fr)/contact").unwrap(),
            ["/en/contact", "/fr/contact"]
        );
        assert_eq!(expand("/docs/:rest*").unwrap(), ["/docs", "/docs/*rest"]);
        assert_eq!(expand("/files/:path+").unwrap(), ["/files/*path"]);
        assert!(expand("/report-(\\d+)").is_err());
    }
}
