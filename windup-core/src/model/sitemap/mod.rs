//! The site map: what Windup knows of an app's pages and of the ways between them, as plain
//! data. Every page and transition carries its claims — who said so (`execution`, a static
//! `scan` of the source, or a model's `llm` assist), when first and last, and whether that
//! claim has gone stale — and the strongest live claim wins: execution > static > llm.
//! Knowledge is cache, not truth: whatever the map says can be wrong by the next run.
//!
//! Pages are path patterns (`/products/:slug`). A pattern comes from the paths seen, never from
//! knowledge of a site: a segment that is a number, a UUID or a long hex string is an `:id`;
//! two paths under one parent whose pages have the same structural signature are one page
//! with a `:slug`; a scan names its own parameters (`/posts/:id`, `/docs/*rest`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

mod slice;
pub use slice::{SLICE_CHARS, SLICE_DEPTH, terms};

/// The version of the map's file this build reads and writes.
pub const MAP_VERSION: &str = "0.1";

/// How many observed paths a page keeps as examples.
const EXAMPLES: usize = 5;

/// Who says a page or a transition is there, weakest first: a model's guess, the source's
/// routes, what a browser saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    Llm,
    Static,
    Execution,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Llm => "llm",
            Source::Static => "static",
            Source::Execution => "execution",
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One source's word on a page or a transition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    pub source: Source,
    /// RFC 3339, UTC.
    pub first_seen: String,
    pub last_seen: String,
    /// The source no longer says so: a route gone from the code, a page a run found missing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// Where a static claim comes from (`app/products/[slug]/page.tsx`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The lines of `file` that render the page (first and last, from 1), when the scan knows
    /// them: an axum handler's function. None: the whole file is the page's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// The app of a repository of several whose scan made a static claim (its directory,
    /// `apps/web`); None for a project of one app. Each app keeps its own claims: a scan of one
    /// never renews or stales another's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
}

/// An interactive element a page shows: how a person names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MapElement {
    pub role: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_id: Option<String>,
}

/// A page of the app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapPage {
    /// `/products/:slug`.
    pub pattern: String,
    /// Paths seen that are this page, the latest last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Its structural signature, when a browser has seen it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elements: Vec<MapElement>,
    /// Who said what of its elements: an execution's list replaces a scan's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elements_from: Option<Source>,
    pub claims: Vec<Claim>,
}

impl MapPage {
    /// The strongest claim still live, else the strongest.
    pub fn source(&self) -> Source {
        strongest(&self.claims)
    }

    /// Every claim on it has gone stale.
    pub fn stale(&self) -> bool {
        self.claims.iter().all(|c| c.stale)
    }

    /// Whether a visit that matches this page's pattern is another page all the same: a
    /// `:slug` the map inferred from siblings alike, and a page of another structure
    /// (`/products/featured` beside `/products/:slug`). A scan's parameters are the source's
    /// word, and an `:id` is data, so neither is second-guessed.
    fn other_than(&self, visit: &Visit) -> bool {
        let inferred = self.claim(Source::Static).is_none() && self.pattern.ends_with("/:slug");
        let last = visit.path.split(['?', '#']).next().unwrap_or("");
        let last = last.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        inferred
            && !is_id(last)
            && self.signature.is_some()
            && visit.signature.is_some()
            && self.signature != visit.signature
    }

    fn claim(&self, source: Source) -> Option<&Claim> {
        self.claims.iter().find(|c| c.source == source)
    }
}

/// A way from one page to another: an action in words (`click "Add to cart"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transition {
    pub from: String,
    pub action: String,
    pub to: String,
    pub claims: Vec<Claim>,
}

impl Transition {
    pub fn source(&self) -> Source {
        strongest(&self.claims)
    }
}

fn strongest(claims: &[Claim]) -> Source {
    let live = claims.iter().filter(|c| !c.stale).map(|c| c.source).max();
    live.or_else(|| claims.iter().map(|c| c.source).max())
        .unwrap_or(Source::Llm)
}

/// The map, as its file holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiteMap {
    pub map_version: String,
    /// The commit the last scan read, when the project is a git repository.
    #[serde(default)]
    pub last_scan_sha: Option<String>,
    #[serde(default)]
    pub pages: Vec<MapPage>,
    #[serde(default)]
    pub transitions: Vec<Transition>,
    /// The model assist's answers by the hash of the file it read: never asked twice.
    #[serde(default)]
    pub assist_seen: BTreeMap<String, String>,
}

impl Default for SiteMap {
    fn default() -> Self {
        SiteMap {
            map_version: MAP_VERSION.to_owned(),
            last_scan_sha: None,
            pages: Vec::new(),
            transitions: Vec::new(),
            assist_seen: BTreeMap::new(),
        }
    }
}

/// Why a map's text cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SiteMapError {
    #[error("{what} is not a site map: {detail}; delete it and the next run writes a new one")]
    Unreadable { what: String, detail: String },
    #[error(
        "{what} is a site map of version {found}; this Windup reads {MAP_VERSION}: delete it, or \
         upgrade Windup"
    )]
    Version { what: String, found: String },
}

/// A page as a run saw it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Visit {
    /// The path, without query or fragment.
    pub path: String,
    pub signature: Option<String>,
    pub title: Option<String>,
    pub elements: Vec<MapElement>,
}

/// An action a run took and the pages around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub from: String,
    pub action: String,
    pub to: String,
}

/// An action as a transition names it: what was done to what a person sees (its name, else
/// its selector), never a value typed; `go to`, `reload` and `go back` name no target.
pub fn action_words(kind: crate::model::plan::ActionKind, target: Option<&str>) -> String {
    use crate::model::plan::ActionKind;
    let verb = match kind {
        ActionKind::Goto => return "go to".to_owned(),
        ActionKind::Reload => return "reload".to_owned(),
        ActionKind::Back => return "go back".to_owned(),
        ActionKind::Forward => return "go forward".to_owned(),
        kind => kind.as_str().replace('_', " "),
    };
    match target {
        Some(name) => format!("{verb} {name:?}"),
        None => verb,
    }
}

/// A route a scan found in the source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Route {
    pub pattern: String,
    /// The source file that renders the page, relative to the project's root.
    pub file: String,
    /// The lines of `file` that render it (first and last, from 1); None: the whole file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    pub elements: Vec<MapElement>,
    /// How the scan knows it.
    pub provenance: Provenance,
}

/// Where and how a scan read a route: the convention that declares it (`react-router`,
/// `Next.js app/`, `axum`, `Leptos`), the file and line of the declaration (a `<Route>`, a route
/// object, a `.route(…)` call, the page file itself), and whether that file parsed only in part.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Provenance {
    pub framework: String,
    /// Relative to the project's root, with `/`.
    pub file: String,
    /// From 1; 0 when the declaration is the whole file (a Next.js page).
    pub line: u32,
    /// The declaring file, or the page's own, has a syntax error: the route (and the page's
    /// elements) were recovered from what did parse, and routes beside it may be missing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl SiteMap {
    /// Reads a map's file text; `what` names it in errors (`.windup/sitemap.json`).
    pub fn parse(text: &str, what: &str) -> Result<SiteMap, SiteMapError> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| SiteMapError::Unreadable {
                what: what.to_owned(),
                detail: e.to_string(),
            })?;
        let found = value
            .get("map_version")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("none");
        if found != MAP_VERSION {
            return Err(SiteMapError::Version {
                what: what.to_owned(),
                found: found.to_owned(),
            });
        }
        serde_json::from_value(value).map_err(|e| SiteMapError::Unreadable {
            what: what.to_owned(),
            detail: e.to_string(),
        })
    }

    /// The file's text: pages and transitions in a stable order, so that the file diffs well.
    pub fn to_json(&self) -> String {
        let mut map = self.clone();
        map.pages.sort_by(|a, b| a.pattern.cmp(&b.pattern));
        map.transitions
            .sort_by(|a, b| (&a.from, &a.to, &a.action).cmp(&(&b.from, &b.to, &b.action)));
        serde_json::to_string_pretty(&map).unwrap_or_default()
    }

    pub fn page(&self, pattern: &str) -> Option<&MapPage> {
        self.pages.iter().find(|p| p.pattern == pattern)
    }

    /// The pattern of the page a path is, among the pages known; else the path generalized.
    pub fn pattern_of(&self, path: &str) -> String {
        let path = clean(path);
        let known = self
            .pages
            .iter()
            .filter(|p| matches(&p.pattern, &path))
            .max_by_key(|p| specificity(&p.pattern));
        match known {
            Some(page) => page.pattern.clone(),
            None => generalize(&path),
        }
    }

    /// Merges what a run saw at `at`: its pages (execution claims, their signatures, titles
    /// and elements) and the moves between them.
    pub fn observe(&mut self, visits: &[Visit], moves: &[Move], at: &str) {
        for visit in visits {
            let index = self.place(visit);
            let page = &mut self.pages[index];
            touch(&mut page.claims, Source::Execution, at, None);
            let path = clean(&visit.path);
            page.examples.retain(|e| *e != path);
            page.examples.push(path);
            if page.examples.len() > EXAMPLES {
                page.examples.remove(0);
            }
            if visit.signature.is_some() {
                page.signature.clone_from(&visit.signature);
            }
            if visit.title.is_some() {
                page.title.clone_from(&visit.title);
            }
            if !visit.elements.is_empty() {
                page.elements = sorted(visit.elements.clone());
                page.elements_from = Some(Source::Execution);
            }
        }
        for step in moves {
            let from = self.pattern_of(&step.from);
            let to = self.pattern_of(&step.to);
            self.transition(&from, &step.action, &to, Source::Execution, at);
        }
    }

    /// Merges a scan of `app`'s source (its directory; `""` for a project of one app) at `at`
    /// (commit `sha`): each route's static claim of that app is made or renewed; a static claim
    /// of that app on a page the scan no longer finds goes stale. Other apps' claims stay as
    /// they are.
    pub fn scanned(&mut self, app: &str, routes: &[Route], sha: Option<&str>, at: &str) {
        let app = (!app.is_empty()).then(|| app.to_owned());
        for route in routes {
            let index = self.page_index(&route.pattern);
            let page = &mut self.pages[index];
            touch_app(
                &mut page.claims,
                Source::Static,
                app.as_deref(),
                at,
                Some((&route.file, route.lines)),
            );
            let executed = page.elements_from == Some(Source::Execution);
            if !executed && !route.elements.is_empty() {
                page.elements = sorted(route.elements.clone());
                page.elements_from = Some(Source::Static);
            }
        }
        for page in &mut self.pages {
            let found = routes.iter().any(|r| r.pattern == page.pattern);
            if let Some(claim) = page
                .claims
                .iter_mut()
                .find(|c| c.source == Source::Static && c.app == app)
            {
                claim.stale = !found;
            }
        }
        self.last_scan_sha = sha.map(str::to_owned);
    }

    /// Merges the routes a model read in files the scan could not resolve: `llm` claims, the
    /// weakest, which any scan or run outranks.
    pub fn assisted(&mut self, routes: &[Route], at: &str) {
        for route in routes {
            let index = self.page_index(&route.pattern);
            let page = &mut self.pages[index];
            touch(
                &mut page.claims,
                Source::Llm,
                at,
                Some((&route.file, route.lines)),
            );
        }
    }

    /// The index of the page with this pattern, made when there is none.
    fn page_index(&mut self, pattern: &str) -> usize {
        match self.pages.iter().position(|p| p.pattern == pattern) {
            Some(index) => index,
            None => {
                self.pages.push(empty_page(pattern));
                self.pages.len() - 1
            }
        }
    }

    fn transition(&mut self, from: &str, action: &str, to: &str, source: Source, at: &str) {
        let found = self
            .transitions
            .iter_mut()
            .find(|t| t.from == from && t.to == to && t.action == action);
        match found {
            Some(transition) => touch(&mut transition.claims, source, at, None),
            None => {
                let mut claims = Vec::new();
                touch(&mut claims, source, at, None);
                self.transitions.push(Transition {
                    from: from.to_owned(),
                    action: action.to_owned(),
                    to: to.to_owned(),
                    claims,
                });
            }
        }
    }

    /// The index of the page a visit is: a known page its path matches; else a sibling with
    /// the same signature, the two made one `:slug` page; else a new page.
    fn place(&mut self, visit: &Visit) -> usize {
        let path = clean(&visit.path);
        let known = self
            .pages
            .iter()
            .enumerate()
            .filter(|(_, p)| matches(&p.pattern, &path))
            .max_by_key(|(_, p)| specificity(&p.pattern))
            .map(|(i, _)| i);
        if let Some(index) = known
            && !self.pages[index].other_than(visit)
        {
            return index;
        }
        let pattern = generalize(&path);
        if let Some(signature) = &visit.signature
            && let Some(index) = self.sibling(&pattern, signature)
        {
            let slug = with_last(&pattern, ":slug");
            let page = &mut self.pages[index];
            let old = std::mem::replace(&mut page.pattern, slug.clone());
            self.rename(&old, &slug);
            return index;
        }
        self.pages.push(empty_page(&pattern));
        self.pages.len() - 1
    }

    /// A page seen by a browser whose pattern differs from `pattern` only in a literal last
    /// segment, with the same signature.
    fn sibling(&self, pattern: &str, signature: &str) -> Option<usize> {
        let (parent, last) = pattern.rsplit_once('/')?;
        // Top-level pages alike in structure (`/about`, `/terms`) are still different pages.
        if parent.is_empty() || last.is_empty() || last.starts_with(':') {
            return None;
        }
        self.pages.iter().position(|p| {
            p.signature.as_deref() == Some(signature)
                && p.claim(Source::Static).is_none()
                && p.pattern
                    .rsplit_once('/')
                    .is_some_and(|(other_parent, other)| {
                        other_parent == parent && other != last && !other.starts_with(':')
                    })
        })
    }

    /// Transitions follow a page whose pattern changed.
    fn rename(&mut self, old: &str, new: &str) {
        for transition in &mut self.transitions {
            if transition.from == old {
                transition.from = new.to_owned();
            }
            if transition.to == old {
                transition.to = new.to_owned();
            }
        }
    }
}

fn empty_page(pattern: &str) -> MapPage {
    MapPage {
        pattern: pattern.to_owned(),
        examples: Vec::new(),
        signature: None,
        title: None,
        elements: Vec::new(),
        elements_from: None,
        claims: Vec::new(),
    }
}

fn sorted(mut elements: Vec<MapElement>) -> Vec<MapElement> {
    elements.sort();
    elements.dedup();
    elements
}

/// Makes or renews `source`'s claim, live again; `file` is where a static claim comes from.
fn touch(
    claims: &mut Vec<Claim>,
    source: Source,
    at: &str,
    file: Option<(&str, Option<[u32; 2]>)>,
) {
    touch_app(claims, source, None, at, file);
}

/// Makes or renews the claim of `source` (and, for a static one, of `app`).
fn touch_app(
    claims: &mut Vec<Claim>,
    source: Source,
    app: Option<&str>,
    at: &str,
    file: Option<(&str, Option<[u32; 2]>)>,
) {
    let index = match claims
        .iter()
        .position(|c| c.source == source && c.app.as_deref() == app)
    {
        Some(index) => index,
        None => {
            claims.push(Claim {
                source,
                first_seen: at.to_owned(),
                last_seen: at.to_owned(),
                stale: false,
                file: None,
                lines: None,
                app: app.map(str::to_owned),
            });
            claims.len() - 1
        }
    };
    let claim = &mut claims[index];
    claim.last_seen = at.to_owned();
    claim.stale = false;
    if let Some((file, lines)) = file {
        claim.file = Some(file.to_owned());
        claim.lines = lines;
    }
    claims.sort_by_key(|c| std::cmp::Reverse(c.source));
}

/// The path alone: no query, no fragment, no trailing slash but the root's.
fn clean(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    if path.len() > 1 {
        path.trim_end_matches('/').to_owned()
    } else {
        path
    }
}

/// A path with its id-like segments made `:id`.
fn generalize(path: &str) -> String {
    if path == "/" {
        return path.to_owned();
    }
    let segments: Vec<&str> = path
        .split('/')
        .skip(1)
        .map(|s| if is_id(s) { ":id" } else { s })
        .collect();
    format!("/{}", segments.join("/"))
}

/// A number, a UUID, or a long hex string: data, not a page's name.
fn is_id(segment: &str) -> bool {
    let digits = !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit());
    let hex = segment.len() >= 8
        && segment.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
        && segment.bytes().any(|b| b.is_ascii_digit());
    digits || hex
}

fn with_last(pattern: &str, last: &str) -> String {
    match pattern.rsplit_once('/') {
        Some(("", _)) => format!("/{last}"),
        Some((parent, _)) => format!("{parent}/{last}"),
        None => format!("/{last}"),
    }
}

/// Whether `path` is a page of `pattern`: `:name` takes one segment, `*name` the rest.
fn matches(pattern: &str, path: &str) -> bool {
    let mut want = pattern.split('/').skip(1);
    let mut have = path.split('/').skip(1);
    loop {
        match (want.next(), have.next()) {
            (None, None) => return true,
            (Some(w), _) if w.starts_with('*') => return true,
            (Some(w), Some(h)) if w.starts_with(':') && !h.is_empty() => {}
            (Some(w), Some(h)) if w == h => {}
            _ => return false,
        }
    }
}

/// How much of a pattern is literal: of two that match, the more literal one is meant.
fn specificity(pattern: &str) -> usize {
    pattern
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with(':') && !s.starts_with('*'))
        .count()
}

#[cfg(test)]
mod tests;
