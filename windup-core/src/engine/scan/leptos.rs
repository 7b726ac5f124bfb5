//! Leptos: the `<Route path=…>` tags of `view! { … }` macros, nested `<ParentRoute>`s (and the
//! 0.6 style of a `<Route>` with children) composing their paths. A path is a string, a
//! `path!("…")`, or segments (`StaticSegment("a")`, `ParamSegment("id")`,
//! `WildcardSegment("rest")`, alone or in a tuple). A page's source is its `view=` component's
//! function, when the crate defines it.

use std::path::Path;

use tree_sitter::Node;

use super::files::{self, Source, descendants};
use super::{Framework, Scan, Unresolved, normal};
use crate::model::sitemap::{Provenance, Route};

/// The tags that declare routes.
const ROUTE_TAGS: &[&str] = &[
    "Route",
    "ParentRoute",
    "ProtectedRoute",
    "ProtectedParentRoute",
];

/// A token of a macro's body: its kind and text.
#[derive(Debug, Clone)]
struct Token<'a> {
    kind: &'a str,
    text: &'a str,
    line: u32,
}

/// Adds the routes of the Leptos crate in `dir` (under `root`) to `scan`.
pub(crate) fn scan(root: &Path, dir: &Path, scan: &mut Scan) {
    let language: tree_sitter::Language = tree_sitter_rust::LANGUAGE.into();
    let sources: Vec<Source> = files::under(&dir.join("src"), &["rs"])
        .iter()
        .filter_map(|path| Source::parse(path, &language))
        .collect();
    let mut found = false;
    for source in &sources {
        scan.parsed(root, source);
    }
    for source in &sources {
        for view in descendants(source.tree.root_node())
            .into_iter()
            .filter(|n| is_view(source, *n))
        {
            let tokens = tokens(source, view);
            let mut routes = Routes::default();
            routes.read(&tokens);
            found |= !routes.found.is_empty() || routes.unresolved.is_some();
            for (pattern, component, line) in routes.found {
                let (file, lines) = component_fn(&sources, &component)
                    .unwrap_or_else(|| (source.path.clone(), [line, line]));
                scan.routes.push(Route {
                    pattern,
                    file: files::relative(root, &file),
                    lines: Some(lines),
                    elements: Vec::new(),
                    provenance: Provenance {
                        framework: Framework::Leptos.to_string(),
                        file: files::relative(root, &source.path),
                        line,
                        partial: false,
                    },
                });
            }
            if let Some((line, why)) = routes.unresolved {
                scan.unresolved.push(Unresolved {
                    file: files::relative(root, &source.path),
                    line,
                    why,
                });
            }
        }
    }
    if found {
        scan.frameworks.push(Framework::Leptos);
    }
}

fn is_view(source: &Source, node: Node<'_>) -> bool {
    node.kind() == "macro_invocation"
        && node
            .child_by_field_name("macro")
            .is_some_and(|m| source.text_of(m).rsplit("::").next() == Some("view"))
}

/// A macro's body as tokens, nested groups flattened (their brackets kept).
fn tokens<'a>(source: &'a Source, view: Node<'_>) -> Vec<Token<'a>> {
    let mut out = Vec::new();
    let Some(body) = (0..view.child_count())
        .filter_map(|i| view.child(i as u32))
        .find(|c| c.kind() == "token_tree")
    else {
        return out;
    };
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        let leaf = node.child_count() == 0 || node.kind() == "string_literal";
        if leaf {
            out.push(Token {
                kind: node.kind(),
                text: source.text_of(node),
                line: Source::lines_of(node)[0],
            });
        } else {
            let children: Vec<Node<'_>> = (0..node.child_count())
                .filter_map(|i| node.child(i as u32))
                .collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out
}

/// The routes of one `view!`: each leaf route's pattern, `view=` component and line.
#[derive(Debug, Default)]
struct Routes {
    found: Vec<(String, String, u32)>,
    /// The first route it could not read: its line and why.
    unresolved: Option<(u32, String)>,
}

/// An open route tag with children.
struct Open {
    path: String,
    component: String,
    line: u32,
    children: usize,
}

impl Routes {
    fn read(&mut self, tokens: &[Token<'_>]) {
        let mut open: Vec<Open> = Vec::new();
        let mut at = 0;
        while at + 1 < tokens.len() {
            let (this, next) = (&tokens[at], &tokens[at + 1]);
            if this.text == "<"
                && next.text == "/"
                && tokens
                    .get(at + 2)
                    .is_some_and(|t| ROUTE_TAGS.contains(&t.text))
            {
                if let Some(parent) = open.pop()
                    && parent.children == 0
                {
                    self.leaf(&open, &parent.path, parent.component, parent.line);
                }
                at += 3;
                continue;
            }
            if this.text != "<" || !ROUTE_TAGS.contains(&next.text) {
                at += 1;
                continue;
            }
            let (end, path, component, closed) = self.tag(tokens, at + 2);
            let line = next.line;
            if let Some(parent) = open.last_mut() {
                parent.children += 1;
            }
            match (closed, path) {
                (true, Some(path)) => self.leaf(&open, &path, component, line),
                (true, None) => {}
                (false, path) => open.push(Open {
                    path: path.unwrap_or_default(),
                    component,
                    line,
                    children: 0,
                }),
            }
            at = end;
        }
    }

    /// A leaf route under the open ones.
    fn leaf(&mut self, open: &[Open], path: &str, component: String, line: u32) {
        let mut full: Vec<&str> = open.iter().map(|o| o.path.as_str()).collect();
        full.push(path);
        self.found.push((normal(&full.join("/")), component, line));
    }

    /// A tag's attributes from `at`: where it ends, its path, its component, and whether it
    /// closes itself.
    fn tag(
        &mut self,
        tokens: &[Token<'_>],
        mut at: usize,
    ) -> (usize, Option<String>, String, bool) {
        let (mut path, mut component) = (Some(String::new()), String::new());
        while at < tokens.len() {
            let token = &tokens[at];
            if matches!(token.text, "{" | "(" | "[") {
                // A block or a call in an attribute (`view=|| view! { … }`) is not the tag's.
                at = past_group(tokens, at);
                continue;
            }
            if token.text == ">" {
                return (at + 1, path, component, false);
            }
            if token.text == "/" && tokens.get(at + 1).is_some_and(|t| t.text == ">") {
                return (at + 2, path, component, true);
            }
            let value = tokens.get(at + 1).is_some_and(|t| t.text == "=");
            if value && token.text == "path" {
                let (end, read) = segments(tokens, at + 2);
                path = read.clone();
                match read {
                    Some(_) => {}
                    None => {
                        self.unresolved.get_or_insert_with(|| {
                            (
                                tokens[at + 2].line,
                                format!(
                                    "a <Route path={}> the scan cannot read",
                                    tokens[at + 2].text
                                ),
                            )
                        });
                    }
                }
                at = end;
                continue;
            }
            if value
                && token.text == "view"
                && let Some(name) = tokens.get(at + 2)
            {
                component = name.text.to_owned();
            }
            at += 1;
        }
        (at, path, component, true)
    }
}

/// A path value from `at` — a string, `path!("…")`, or segments, alone or in a tuple — and
/// where it ends; None when it is something else (a constant).
fn segments(tokens: &[Token<'_>], at: usize) -> (usize, Option<String>) {
    let Some(first) = tokens.get(at) else {
        return (at, None);
    };
    if first.kind == "string_literal" {
        return (at + 1, Some(unquote(first.text)));
    }
    let mut end = at;
    let mut maker = "";
    while let Some(token) = tokens
        .get(end)
        .filter(|t| t.kind == "identifier" || t.text == "!")
    {
        if token.kind == "identifier" {
            maker = token.text;
        }
        end += 1;
    }
    if tokens.get(end).map(|t| t.text) != Some("(") {
        return (end.max(at + 1), None);
    }
    let (mut depth, mut parts) = (0usize, Vec::new());
    while let Some(token) = tokens.get(end) {
        end += 1;
        match token.text {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ if token.kind == "identifier" => maker = token.text,
            _ if token.kind == "string_literal" => {
                let text = unquote(token.text);
                parts.push(match maker {
                    "ParamSegment" => format!(":{text}"),
                    "WildcardSegment" => format!("*{text}"),
                    _ => text,
                });
            }
            _ => {}
        }
    }
    (end, (!parts.is_empty()).then(|| parts.join("/")))
}

/// The index after the bracket that closes the one at `at`.
fn past_group(tokens: &[Token<'_>], mut at: usize) -> usize {
    let mut depth = 0usize;
    while let Some(token) = tokens.get(at) {
        at += 1;
        match token.text {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    at
}

fn unquote(text: &str) -> String {
    text.trim_matches('"').to_owned()
}

/// The file and lines of the component function `name`, when the crate defines it.
fn component_fn(sources: &[Source], name: &str) -> Option<(std::path::PathBuf, [u32; 2])> {
    if name.is_empty() {
        return None;
    }
    sources.iter().find_map(|source| {
        source
            .fn_lines(name)
            .map(|lines| (source.path.clone(), lines))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_nest_and_segments_compose() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        let app = r#"
use leptos::prelude::*;
use leptos_router::{components::*, path, StaticSegment, ParamSegment};

#[component]
pub fn App() -> impl IntoView {
    view! {
        <Router>
            <Routes fallback=|| "Not found.">
                <Route path=path!("/") view=Home/>
                <ParentRoute path=StaticSegment("users") view=Users>
                    <Route path=ParamSegment("id") view=UserProfile/>
                    <Route path=StaticSegment("") view=NoUser/>
                </ParentRoute>
                <Route path=(StaticSegment("docs"), WildcardSegment("rest")) view=Docs/>
                <Route path="/about" view=About/>
                <Route path=ROUTES.settings view=Settings/>
            </Routes>
        </Router>
    }
}

#[component]
fn UserProfile() -> impl IntoView {
    view! { <p>"user"</p> }
}
"#;
        std::fs::write(dir.path().join("src/app.rs"), app).unwrap();
        let mut found = Scan::default();
        scan(dir.path(), dir.path(), &mut found);
        let mut patterns: Vec<&str> = found.routes.iter().map(|r| r.pattern.as_str()).collect();
        patterns.sort_unstable();
        assert_eq!(
            patterns,
            ["/", "/about", "/docs/*rest", "/users", "/users/:id"]
        );
        let profile = found
            .routes
            .iter()
            .find(|r| r.pattern == "/users/:id")
            .unwrap();
        assert_eq!(
            (profile.file.as_str(), profile.lines),
            ("src/app.rs", Some([24, 26]))
        );
        assert_eq!(found.frameworks, [Framework::Leptos]);
        assert_eq!(found.unresolved.len(), 1, "{:?}", found.unresolved);
        assert!(
            found.unresolved[0].why.contains("ROUTES"),
            "{:?}",
            found.unresolved
        );
    }
}
