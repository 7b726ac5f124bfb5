//! react-router: `<Route>` trees in JSX and route objects given to `createBrowserRouter`,
//! `createHashRouter`, `createMemoryRouter` or `useRoutes` (an array written in place, or a
//! constant of the same file or of a file it imports). A child's relative path joins its
//! parent's, an absolute one stands alone; an index route is its parent's page; a pathless
//! route is a layout that passes its parent's path down; `*` is `*splat`; an optional segment
//! (`:lang?`) gives the path with and without it. Each page's source is its component's file,
//! found through the file's imports, else the file that declares the route.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::super::files::{self, Source, descendants};
use super::super::{Framework, Scan, Unresolved, normal};
use super::{Sources, attributes, dynamic_import, elements, imports, string_value, tag_name};
use crate::model::sitemap::Route;

/// The functions that take an array of route objects.
const ROUTERS: &[&str] = &[
    "createBrowserRouter",
    "createHashRouter",
    "createMemoryRouter",
    "createStaticRouter",
    "useRoutes",
];

/// A route as declared: its path (None: pathless), whether it is an index, its component's
/// file, its children.
#[derive(Debug, Default)]
struct Declared {
    path: Option<String>,
    index: bool,
    component: Option<PathBuf>,
    children: Vec<Declared>,
}

/// Adds the routes of the react-router app in `dir` to `scan`.
pub(super) fn scan(root: &Path, dir: &Path, sources: &mut Sources, scan: &mut Scan) {
    let files = files::under(dir, &["tsx", "ts", "jsx", "js", "mjs"]);
    let mut found: Vec<(PathBuf, Declared)> = Vec::new();
    let mut unresolved: BTreeMap<String, String> = BTreeMap::new();
    for file in files.iter().filter(|f| !is_test(f)) {
        let Some(source) = sources.get(file) else {
            continue;
        };
        let mut reader = Reader {
            source,
            imports: imports(source),
            unresolved: None,
        };
        for tree in reader.jsx_trees() {
            found.push((file.clone(), tree));
        }
        let arrays = reader.router_arrays();
        if let Some(why) = reader.unresolved.take() {
            unresolved.insert(files::relative(root, file), why);
        }
        for (from, name) in arrays {
            found.extend(objects_in(sources, &from, &name, &mut unresolved, root));
        }
    }
    let mut routes = Vec::new();
    for (file, tree) in &found {
        pages(tree, "", file, &mut routes);
    }
    if !routes.is_empty() || !unresolved.is_empty() {
        scan.frameworks.push(Framework::ReactRouter);
    }
    for (pattern, file) in routes {
        let elements = sources.get(&file).map(elements::of).unwrap_or_default();
        scan.routes.push(Route {
            pattern,
            file: files::relative(root, &file),
            lines: None,
            elements,
        });
    }
    scan.unresolved.extend(
        unresolved
            .into_iter()
            .map(|(file, why)| Unresolved { file, why }),
    );
}

fn is_test(file: &Path) -> bool {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.contains(".test.") || name.contains(".spec.") || name.ends_with(".d.ts")
}

/// The route objects of the array `name` in `file` (`None` name: the file's default export).
fn objects_in(
    sources: &mut Sources,
    file: &Path,
    name: &Option<String>,
    unresolved: &mut BTreeMap<String, String>,
    root: &Path,
) -> Vec<(PathBuf, Declared)> {
    let Some(source) = sources.get(file) else {
        return Vec::new();
    };
    let mut reader = Reader {
        source,
        imports: imports(source),
        unresolved: None,
    };
    let declared = reader
        .named_array(name.as_deref())
        .map(|array| reader.objects(array));
    if let Some(why) = reader.unresolved.take() {
        unresolved.insert(files::relative(root, file), why);
    }
    declared
        .unwrap_or_default()
        .into_iter()
        .map(|d| (file.to_path_buf(), d))
        .collect()
}

/// Each page of a declared tree under `parent`: its pattern and its source file.
fn pages(route: &Declared, parent: &str, file: &Path, out: &mut Vec<(String, PathBuf)>) {
    let file = route
        .component
        .clone()
        .unwrap_or_else(|| file.to_path_buf());
    let bases: Vec<String> = match &route.path {
        Some(path) => expand(path)
            .into_iter()
            .map(|p| {
                if p.starts_with('/') {
                    p
                } else {
                    format!("{parent}/{p}")
                }
            })
            .collect(),
        None => vec![parent.to_owned()],
    };
    for base in &bases {
        let base = normal(base);
        if route.index || route.path.is_some() {
            out.push((base.clone(), file.clone()));
        }
        for child in &route.children {
            pages(child, if base == "/" { "" } else { &base }, &file, out);
        }
    }
}

/// A path's forms: `*` named, each optional segment with and without.
fn expand(path: &str) -> Vec<String> {
    let mut forms = vec![Vec::<String>::new()];
    for segment in path.split('/') {
        let (segment, optional) = match segment.strip_suffix('?') {
            Some(s) => (s, true),
            None => (segment, false),
        };
        let segment = if segment == "*" {
            "*splat".to_owned()
        } else {
            segment.to_owned()
        };
        let with: Vec<Vec<String>> = forms
            .iter()
            .map(|f| {
                let mut f = f.clone();
                f.push(segment.clone());
                f
            })
            .collect();
        if optional {
            forms.extend(with);
        } else {
            forms = with;
        }
    }
    let absolute = path.starts_with('/');
    forms
        .into_iter()
        .map(|f| {
            let joined = f.join("/");
            if absolute {
                format!("/{}", joined.trim_start_matches('/'))
            } else {
                joined
            }
        })
        .collect()
}

/// Reads one file's routes.
struct Reader<'a> {
    source: &'a Source,
    imports: BTreeMap<String, PathBuf>,
    unresolved: Option<String>,
}

impl<'a> Reader<'a> {
    /// The `<Route>` trees of the file: each outermost `<Route>` with its nested ones.
    fn jsx_trees(&mut self) -> Vec<Declared> {
        let source = self.source;
        let outermost: Vec<Node<'_>> = descendants(source.tree.root_node())
            .into_iter()
            .filter(|n| is_route_element(source, *n))
            .filter(|n| !has_route_ancestor(source, *n))
            .collect();
        outermost.into_iter().map(|n| self.jsx_route(n)).collect()
    }

    fn jsx_route(&mut self, node: Node<'_>) -> Declared {
        let source = self.source;
        let mut route = Declared::default();
        for (name, value) in attributes(source, node) {
            match name.as_str() {
                "path" => match string_value(source, value) {
                    Some(path) => route.path = Some(path),
                    None => self.unresolve(format!(
                        "a <Route path={}> the scan cannot read",
                        value.map_or("", |v| source.text_of(v))
                    )),
                },
                "index" => route.index = value.is_none_or(|v| source.text_of(v).contains("true")),
                "element" | "Component" | "component" | "lazy" => {
                    route.component = route.component.take().or_else(|| self.component(value));
                }
                _ => {}
            }
        }
        if node.kind() == "jsx_element" {
            let mut cursor = node.walk();
            let children: Vec<Node<'_>> = node
                .named_children(&mut cursor)
                .filter(|c| is_route_element(source, *c))
                .collect();
            route.children = children.into_iter().map(|c| self.jsx_route(c)).collect();
        }
        route
    }

    /// The file of the component an attribute or property names: `<Users/>`, `Users`,
    /// `() => import("./users")`.
    fn component(&self, value: Option<Node<'_>>) -> Option<PathBuf> {
        let value = value?;
        if let Some(file) = dynamic_import(self.source, value) {
            return Some(file);
        }
        let name = descendants(value)
            .into_iter()
            .find_map(|n| match n.kind() {
                "jsx_self_closing_element" | "jsx_element" => {
                    tag_name(self.source, n).map(str::to_owned)
                }
                "identifier" => Some(self.source.text_of(n).to_owned()),
                _ => None,
            })?;
        let name = name.split('.').next().unwrap_or(&name);
        self.imports.get(name).cloned()
    }

    fn unresolve(&mut self, why: String) {
        self.unresolved.get_or_insert(why);
    }

    /// The arrays the file gives a router function: a file and the constant's name there.
    fn router_arrays(&mut self) -> Vec<(PathBuf, Option<String>)> {
        let source = self.source;
        let mut arrays = Vec::new();
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
            match first.kind() {
                // `<Route>` elements turned into objects: read as JSX already.
                _ if from_elements => {}
                "array" => arrays.push((
                    source.path.clone(),
                    Some(format!("@{}", first.start_byte())),
                )),
                "identifier" => {
                    let name = source.text_of(first).to_owned();
                    match self.imports.get(&name) {
                        Some(file) => arrays.push((file.clone(), Some(name))),
                        None => arrays.push((source.path.clone(), Some(name))),
                    }
                }
                _ => self.unresolve(format!(
                    "routes given as {} the scan cannot follow",
                    source.text_of(first)
                )),
            }
        }
        arrays
    }

    /// The array a name stands for in this file: `@BYTE` for one written in place at that
    /// offset, a constant's name, or the default export; an imported name is the other file's
    /// constant of that name, else its default export.
    fn named_array(&self, name: Option<&str>) -> Option<Node<'a>> {
        let source: &'a Source = self.source;
        let nodes = descendants(source.tree.root_node());
        if let Some(offset) = name.and_then(|n| n.strip_prefix('@')) {
            let offset: usize = offset.parse().ok()?;
            return nodes
                .into_iter()
                .find(|n| n.kind() == "array" && n.start_byte() == offset);
        }
        let declared = nodes.iter().find_map(|n| {
            let named = n.kind() == "variable_declarator"
                && n.child_by_field_name("name").map(|id| source.text_of(id)) == name;
            named.then(|| n.child_by_field_name("value")).flatten()
        });
        let default = || {
            nodes.iter().find_map(|n| {
                (n.kind() == "export_statement" && source.text_of(*n).starts_with("export default"))
                    .then(|| n.child_by_field_name("value"))
                    .flatten()
            })
        };
        let value = declared.or_else(default)?;
        let value = unwrapped(value);
        (value.kind() == "array").then_some(value)
    }

    /// The route objects of an array.
    fn objects(&mut self, array: Node<'_>) -> Vec<Declared> {
        let mut cursor = array.walk();
        let objects: Vec<Node<'_>> = array
            .named_children(&mut cursor)
            .map(unwrapped)
            .filter(|n| n.kind() == "object")
            .collect();
        objects.into_iter().map(|o| self.object(o)).collect()
    }

    fn object(&mut self, object: Node<'_>) -> Declared {
        let source = self.source;
        let mut route = Declared::default();
        let mut cursor = object.walk();
        let pairs: Vec<Node<'_>> = object
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
                    Some(path) => route.path = Some(path),
                    None => self.unresolve(format!(
                        "a route path: {} the scan cannot read",
                        source.text_of(value)
                    )),
                },
                "index" => route.index = source.text_of(value) == "true",
                "children" if unwrapped(value).kind() == "array" => {
                    route.children = self.objects(unwrapped(value));
                }
                "element" | "Component" | "lazy" => {
                    route.component = route
                        .component
                        .take()
                        .or_else(|| self.component(Some(value)));
                }
                _ => {}
            }
        }
        route
    }
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

fn is_route_element(source: &Source, node: Node<'_>) -> bool {
    matches!(node.kind(), "jsx_element" | "jsx_self_closing_element")
        && tag_name(source, node).is_some_and(|t| t == "Route")
}

fn has_route_ancestor(source: &Source, node: Node<'_>) -> bool {
    let mut at = node.parent();
    while let Some(current) = at {
        if is_route_element(source, current) {
            return true;
        }
        at = current.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn optional_segments_and_splats_expand() {
        assert_eq!(expand(":lang?/about"), ["about", ":lang/about"]);
        assert_eq!(expand("/files/*"), ["/files/*splat"]);
        assert_eq!(expand("users/:id"), ["users/:id"]);
    }
}
