//! The module graph of windup-core, read from the code itself (every `use` and every path that
//! starts at `crate`, `super` or `self`, parsed with syn), keeps two rules
//! (docs/architecture.md#layers):
//!
//! - **The layers run one way**: a module may use its own layer and those below it, never one
//!   above. A module's layer is the first folder of its path, and its path is its file's path
//!   (no `#[path]` attribute may say otherwise):
//!
//!   | rank | module | what |
//!   |---|---|---|
//!   | 0 | `model` | plain data and parsing |
//!   | 1 | `browser`, `llm`, `store`, `sys` | the boundaries |
//!   | 2 | `config` | settings |
//!   | 3 | `engine` | executor, verifier, planner, cache, audit, … |
//!   | 4 | `run` | suite, events, runner, reporters, … |
//!   | 5 | `front` | ci, harness, init, server |
//!
//! - **No circle**: among the modules of one parent (the layers themselves, `engine`'s modules,
//!   `engine::audit`'s, …), the "uses" relation has no cycle. A parent and its own children may use
//!   each other (a child reaches its parent's shared types through `super`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// The rank and name of the layer a top-level module belongs to.
fn layer(top: &str) -> Option<(usize, &'static str)> {
    Some(match top {
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

/// One use of a module's item by another, where it is written.
#[derive(Debug, Clone)]
struct Use {
    file: String,
    line: usize,
    /// The module whose code it is (inline modules included).
    from: Vec<String>,
    /// The absolute path it names, without `crate`.
    to: Vec<String>,
}

/// The module a file holds: `engine/audit/walk.rs` is `engine::audit::walk`, `model/plan/mod.rs`
/// is `model::plan`, `lib.rs` the crate root.
fn module_of_file(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Reads one file's uses and the modules it holds, and the problems that make the graph unreadable (a file that does not
/// parse, a `#[path]` attribute).
fn uses_of(source: &Source, modules: &mut BTreeSet<Vec<String>>) -> Result<Vec<Use>, String> {
    let file = syn::parse_file(&source.text)
        .map_err(|e| format!("src/{}: does not parse: {e}", source.path))?;
    let mut reader = Reader {
        file: &source.path,
        module: module_of_file(&source.path),
        uses: Vec::new(),
        modules: Vec::new(),
        problems: Vec::new(),
    };
    modules.insert(reader.module.clone());
    reader.visit_file(&file);
    modules.extend(reader.modules);
    if reader.problems.is_empty() {
        Ok(reader.uses)
    } else {
        Err(reader.problems.join("\n"))
    }
}

struct Reader<'a> {
    file: &'a str,
    module: Vec<String>,
    uses: Vec<Use>,
    /// The inline modules it declares (`mod tests { … }`).
    modules: Vec<Vec<String>>,
    problems: Vec<String>,
}

impl Reader<'_> {
    /// Records a path when it starts at `crate`, `super` or `self`; others name a dependency, a
    /// prelude item or a child module, which no rule is about.
    fn record(&mut self, segments: &[String], line: usize) {
        let mut to = self.module.clone();
        let mut rest = segments;
        match segments.first().map(String::as_str) {
            Some("crate") => {
                to.clear();
                rest = &segments[1..];
            }
            Some("super") => {
                while rest.first().is_some_and(|s| s == "super") {
                    to.pop();
                    rest = &rest[1..];
                }
            }
            Some("self") => rest = &segments[1..],
            _ => return,
        }
        to.extend(rest.iter().cloned());
        self.uses.push(Use {
            file: self.file.to_owned(),
            line,
            from: self.module.clone(),
            to,
        });
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => {
                prefix.push(name.ident.to_string());
                self.record(&prefix.clone(), name.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Rename(rename) => {
                prefix.push(rename.ident.to_string());
                self.record(&prefix.clone(), rename.ident.span().start().line);
                prefix.pop();
            }
            syn::UseTree::Glob(glob) => {
                self.record(&prefix.clone(), glob.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(group) => {
                for item in &group.items {
                    self.use_tree(prefix, item);
                }
            }
        }
    }

    /// Paths inside a macro's tokens (`matches!(x, crate::a::B)`, `format!("{}", super::f())`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < trees.len() {
            if let TokenTree::Group(group) = &trees[at] {
                self.tokens(group.stream());
                at += 1;
                continue;
            }
            let starts = matches!(&trees[at], TokenTree::Ident(i) if i == "crate" || i == "super");
            let preceded =
                at > 0 && matches!(&trees[at - 1], TokenTree::Punct(p) if p.as_char() == ':');
            if !starts || preceded {
                at += 1;
                continue;
            }
            let line = trees[at].span().start().line;
            let mut segments = vec![trees[at].to_string()];
            at += 1;
            while at + 2 < trees.len()
                && matches!(&trees[at], TokenTree::Punct(p) if p.as_char() == ':')
                && matches!(&trees[at + 1], TokenTree::Punct(p) if p.as_char() == ':')
            {
                match &trees[at + 2] {
                    TokenTree::Ident(ident) => segments.push(ident.to_string()),
                    _ => break,
                }
                at += 3;
            }
            self.record(&segments, line);
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.attrs.iter().any(|a| a.path().is_ident("path")) {
            self.problems.push(format!(
                "src/{}:{}: `#[path]` on `mod {}`: a module's path must be its file's path",
                self.file,
                item.ident.span().start().line,
                item.ident
            ));
        }
        self.module.push(item.ident.to_string());
        if item.content.is_some() {
            self.modules.push(self.module.clone());
        }
        syn::visit::visit_item_mod(self, item);
        self.module.pop();
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let Some(first) = path.segments.first() {
            self.record(&segments, first.ident.span().start().line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

/// Whether a use reaches a higher layer than its own.
fn goes_up(u: &Use) -> bool {
    let rank = |path: &[String]| {
        path.first()
            .and_then(|top| layer(top))
            .map(|(rank, _)| rank)
    };
    matches!((rank(&u.from), rank(&u.to)), (Some(from), Some(to)) if to > from)
}

/// Every use from a lower layer of a higher one, as `file:line: what`.
fn upward(uses: &[Use]) -> Vec<String> {
    let name = |path: &[String]| layer(&path[0]).map_or("?", |(_, name)| name);
    uses.iter()
        .filter(|u| goes_up(u))
        .map(|u| {
            format!(
                "src/{}:{}: `{}` ({}) uses `{}` ({}), a higher layer; move what it needs down, \
                 or hand it in from above",
                u.file,
                u.line,
                u.from.join("::"),
                name(&u.from),
                u.to.join("::"),
                name(&u.to),
            )
        })
        .collect()
}

/// The edge a use adds between two modules of one parent: `engine::audit::walk` using
/// `engine::audit::oracles::Oracle` is `walk → oracles` under `engine::audit`. None when one
/// module is within the other (a parent and its children: `engine::audit::Budget` is an item of
/// the parent, not a module).
fn sibling_edge(u: &Use, modules: &BTreeSet<Vec<String>>) -> Option<(Vec<String>, String, String)> {
    let common = u.from.iter().zip(&u.to).take_while(|(a, b)| a == b).count();
    let from = u.from.get(common)?;
    let to = u.to.get(common)?;
    (from != to && modules.contains(&u.to[..=common]))
        .then(|| (u.from[..common].to_vec(), from.clone(), to.clone()))
}

/// Every cycle among the modules of one parent, each as the modules and the uses that close it.
fn circles(uses: &[Use], modules: &BTreeSet<Vec<String>>) -> Vec<String> {
    type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;
    let mut parents: BTreeMap<Vec<String>, Graph> = BTreeMap::new();
    for u in uses {
        if let Some((parent, from, to)) = sibling_edge(u, modules) {
            parents
                .entry(parent)
                .or_default()
                .entry(from)
                .or_default()
                .entry(to)
                .or_default()
                .insert(format!("src/{}:{}", u.file, u.line));
        }
    }
    let mut found = Vec::new();
    for (parent, graph) in &parents {
        for component in strongly_connected(graph) {
            let inside: BTreeSet<&String> = component.iter().collect();
            let mut edges = Vec::new();
            for from in &component {
                for (to, at) in &graph[from] {
                    if inside.contains(to) {
                        let mut at: Vec<&str> = at.iter().map(String::as_str).collect();
                        let more = at.len().saturating_sub(3);
                        at.truncate(3);
                        let more = if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        };
                        edges.push(format!("    {from} → {to} ({}{more})", at.join(", ")));
                    }
                }
            }
            let scope = if parent.is_empty() {
                "the crate root".to_owned()
            } else {
                format!("`{}`", parent.join("::"))
            };
            found.push(format!(
                "a circle in {scope}: {} use each other; move the shared type down into a module \
                 they both use, or split one\n{}",
                component.join(", "),
                edges.join("\n")
            ));
        }
    }
    found
}

/// The strongly connected components of more than one node (Tarjan's algorithm).
fn strongly_connected(
    graph: &BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, node: &'g str) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.graph.get(node).into_iter().flat_map(|m| m.keys()) {
            let next = next.as_str();
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.low[next].min(s.low[node]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.index[next].min(s.low[node]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut component = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                component.push(top.to_owned());
                if top == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.found
}

/// Every problem with the module graph of these sources.
fn problems(sources: &[Source]) -> Vec<String> {
    let mut uses = Vec::new();
    let mut modules = BTreeSet::new();
    let mut found = Vec::new();
    for source in sources {
        match uses_of(source, &mut modules) {
            Ok(more) => uses.extend(more),
            Err(problem) => found.push(problem),
        }
    }
    found.extend(upward(&uses));
    // An upward use closes a circle among the layers; it is reported once, as what it is.
    uses.retain(|u| !goes_up(u));
    found.extend(circles(&uses, &modules));
    found
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files.sort();
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

fn edit(sources: &mut [Source], path: &str, add: &str) {
    let source = sources
        .iter_mut()
        .find(|s| s.path == path)
        .unwrap_or_else(|| panic!("src/{path}"));
    source.text.push_str(add);
}

#[test]
fn the_module_graph_runs_one_way_without_circles() {
    let sources = sources();
    let outside = sources
        .iter()
        .filter(|s| s.path != "lib.rs")
        .filter(|s| layer(&module_of_file(&s.path)[0]).is_none())
        .map(|s| s.path.clone())
        .collect::<Vec<_>>();
    assert!(
        outside.is_empty(),
        "source files outside any layer's folder: {outside:?}"
    );
    assert!(
        sources.len() > 100,
        "the check read only {} files",
        sources.len()
    );
    let found = problems(&sources);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn an_upward_use_is_caught_in_a_use_a_path_and_a_macro() {
    let mut sources = sources();
    edit(
        &mut sources,
        "model/plan/mod.rs",
        "\nuse crate::{run::suite::Suite, model::plan::Action};\n\
         fn f() { crate::engine::executor::x(); }\n\
         mod inner { fn g() { assert!(super::super::super::front::harness::ok()); } }\n",
    );
    let found = problems(&sources);
    assert_eq!(found.len(), 3, "{found:#?}");
    assert!(
        found[0].contains("`model::plan` (model) uses `run::suite::Suite` (run), a higher layer"),
        "{}",
        found[0]
    );
    assert!(
        found[0].starts_with("src/model/plan/mod.rs:"),
        "{}",
        found[0]
    );
    assert!(
        found[1].contains("uses `engine::executor::x` (engine)"),
        "{}",
        found[1]
    );
    assert!(
        found[2].contains("`model::plan::inner` (model) uses `front::harness::ok`"),
        "{}",
        found[2]
    );
}

#[test]
fn a_circle_is_caught_with_the_files_that_close_it() {
    let mut sources = sources();
    edit(
        &mut sources,
        "model/excerpt.rs",
        "\nfn circle() { crate::model::yaml_depth::depth(); }\n",
    );
    edit(
        &mut sources,
        "model/yaml_depth.rs",
        "\nuse super::excerpt::Excerpt as _;\n",
    );
    let found = problems(&sources);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].starts_with("a circle in `model`: excerpt, yaml_depth use each other"),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("excerpt → yaml_depth (src/model/excerpt.rs:"),
        "{}",
        found[0]
    );
    assert!(
        found[0].contains("yaml_depth → excerpt (src/model/yaml_depth.rs:"),
        "{}",
        found[0]
    );
}

#[test]
fn a_path_attribute_and_a_file_that_does_not_parse_are_problems() {
    let mut sources = sources();
    edit(
        &mut sources,
        "model/mod.rs",
        "\n#[path = \"../run/x.rs\"]\nmod x;\n",
    );
    edit(&mut sources, "model/excerpt.rs", "\nfn broken( {\n");
    let found = problems(&sources);
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("src/model/excerpt.rs: does not parse"))
    );
    assert!(found.iter().any(|p| p.contains("`#[path]` on `mod x`")));
}

#[test]
fn a_parent_and_its_child_may_use_each_other() {
    let u = |from: &str, to: &str| Use {
        file: "f.rs".into(),
        line: 1,
        from: from.split("::").map(str::to_owned).collect(),
        to: to.split("::").map(str::to_owned).collect(),
    };
    let modules: BTreeSet<Vec<String>> = [
        "engine::audit",
        "engine::audit::walk",
        "engine::audit::oracles",
        "run::runner",
        "model",
        "model::plan",
    ]
    .iter()
    .map(|m| m.split("::").map(str::to_owned).collect())
    .collect();
    let edge = |from: &str, to: &str| sibling_edge(&u(from, to), &modules);
    assert_eq!(edge("engine::audit::walk", "engine::audit::Budget"), None);
    assert_eq!(edge("engine::audit", "engine::audit::walk::Walk"), None);
    assert_eq!(
        edge("engine::audit::walk", "engine::audit::oracles"),
        Some((
            vec!["engine".into(), "audit".into()],
            "walk".into(),
            "oracles".into()
        ))
    );
    assert_eq!(
        edge("engine::audit::walk", "engine::audit::oracles::Oracle"),
        Some((
            vec!["engine".into(), "audit".into()],
            "walk".into(),
            "oracles".into()
        ))
    );
    assert_eq!(
        edge("run::runner", "model::plan::Plan"),
        Some((vec![], "run".into(), "model".into()))
    );
}
