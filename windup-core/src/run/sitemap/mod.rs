//! The site map in a run: the [`recorder`] adds the pages every run reaches to it, and it is shown
//! as pictures: DOT for graphviz and one self-contained HTML page with the graph drawn in SVG — pages coloured by who says they are there (execution, static, llm) and
//! dashed when stale, each with the scenarios whose runs crossed it. No script, no style sheet
//! and no font from elsewhere: the page shows offline.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;

use crate::engine::ledger::RunRecord;
use crate::model::sitemap::{MapPage, SiteMap, Source};

pub mod recorder;

/// Which scenarios' runs crossed each page, by pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Crossings(pub BTreeMap<String, BTreeSet<String>>);

impl Crossings {
    /// From the ledger's runs: every page a run reached, as the map names it.
    pub fn from_runs(map: &SiteMap, records: &[RunRecord]) -> Crossings {
        let mut crossings = BTreeMap::<String, BTreeSet<String>>::new();
        for record in records {
            for page in &record.pages {
                crossings
                    .entry(map.pattern_of(&page.path))
                    .or_default()
                    .insert(record.scenario_id.clone());
            }
        }
        Crossings(crossings)
    }

    fn of(&self, pattern: &str) -> Vec<&str> {
        self.0
            .get(pattern)
            .map(|s| s.iter().map(String::as_str).collect())
            .unwrap_or_default()
    }
}

/// A page's colours: fill, border.
fn colours(page: &MapPage) -> (&'static str, &'static str) {
    match page.source() {
        Source::Execution => ("#dcf2e3", "#2f855a"),
        Source::Static => ("#dbeafe", "#2b6cb0"),
        Source::Llm => ("#fdf0d5", "#b7791f"),
    }
}

fn dot_text(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The map in graphviz's DOT language.
pub fn dot(map: &SiteMap, crossings: &Crossings) -> String {
    let mut out = String::from(
        "digraph sitemap {\n  rankdir=LR;\n  node [shape=box, style=\"rounded,filled\", \
         fontname=\"sans-serif\", fontsize=11];\n  edge [fontname=\"sans-serif\", fontsize=9];\n",
    );
    let ids = ids(map);
    for page in &map.pages {
        let (fill, border) = colours(page);
        let scenarios = crossings.of(&page.pattern);
        let mut label = dot_text(&page.pattern);
        if !scenarios.is_empty() {
            let _ = write!(label, "\\n{} scenario(s)", scenarios.len());
        }
        let style = if page.stale() {
            "rounded,filled,dashed"
        } else {
            "rounded,filled"
        };
        let _ = writeln!(
            out,
            "  {} [label=\"{label}\", fillcolor=\"{fill}\", color=\"{border}\", style=\"{style}\", \
             tooltip=\"{}: {}\"];",
            ids[&page.pattern],
            page.source(),
            dot_text(&scenarios.join(", "))
        );
    }
    for transition in &map.transitions {
        let (Some(from), Some(to)) = (ids.get(&transition.from), ids.get(&transition.to)) else {
            continue;
        };
        let _ = writeln!(
            out,
            "  {from} -> {to} [label=\"{}\"];",
            dot_text(&transition.action)
        );
    }
    out.push_str("}\n");
    out
}

/// Each page's node id, `p0`, `p1`, … in pattern order.
fn ids(map: &SiteMap) -> BTreeMap<String, String> {
    let mut patterns: Vec<&str> = map.pages.iter().map(|p| p.pattern.as_str()).collect();
    patterns.sort_unstable();
    patterns
        .into_iter()
        .enumerate()
        .map(|(n, p)| (p.to_owned(), format!("p{n}")))
        .collect()
}

/// Each page's column: its distance from the start page (`/`, else the pages nothing leads
/// to), breadth first; pages nothing reaches go in a last column.
fn columns(map: &SiteMap) -> BTreeMap<String, usize> {
    let mut column = BTreeMap::new();
    let mut queue = VecDeque::new();
    let roots: Vec<&str> = if map.page("/").is_some() {
        vec!["/"]
    } else {
        map.pages
            .iter()
            .map(|p| p.pattern.as_str())
            .filter(|p| !map.transitions.iter().any(|t| t.to == *p && t.from != *p))
            .collect()
    };
    for root in roots {
        column.insert(root.to_owned(), 0);
        queue.push_back(root.to_owned());
    }
    while let Some(at) = queue.pop_front() {
        let next = column[&at] + 1;
        for transition in map.transitions.iter().filter(|t| t.from == at) {
            if !column.contains_key(&transition.to) && map.page(&transition.to).is_some() {
                column.insert(transition.to.clone(), next);
                queue.push_back(transition.to.clone());
            }
        }
    }
    let last = column.values().max().map_or(0, |m| m + 1);
    for page in &map.pages {
        column.entry(page.pattern.clone()).or_insert(last);
    }
    column
}

fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const NODE_W: usize = 210;
const NODE_H: usize = 46;
const GAP_X: usize = 90;
const GAP_Y: usize = 26;
const MARGIN: usize = 20;

/// The map as one HTML page: the graph drawn, then every page in a table.
pub fn html(map: &SiteMap, crossings: &Crossings, title: &str) -> String {
    let columns = columns(map);
    let mut rows: BTreeMap<usize, usize> = BTreeMap::new();
    let mut at: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut pages: Vec<&MapPage> = map.pages.iter().collect();
    pages.sort_by(|a, b| (columns[&a.pattern], &a.pattern).cmp(&(columns[&b.pattern], &b.pattern)));
    for page in &pages {
        let column = columns[&page.pattern];
        let row = rows.entry(column).or_default();
        let x = MARGIN + column * (NODE_W + GAP_X);
        let y = MARGIN + *row * (NODE_H + GAP_Y);
        *row += 1;
        at.insert(&page.pattern, (x, y));
    }
    let width = MARGIN * 2 + (columns.values().max().map_or(0, |m| m + 1)) * (NODE_W + GAP_X);
    let height = MARGIN * 2 + rows.values().max().copied().unwrap_or(0) * (NODE_H + GAP_Y);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"The site map\">\
         <defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" \
         markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" \
         fill=\"#718096\"/></marker></defs>"
    );
    for transition in &map.transitions {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (
            at.get(transition.from.as_str()),
            at.get(transition.to.as_str()),
        ) else {
            continue;
        };
        let (sx, sy, ex, ey) = (x1 + NODE_W, y1 + NODE_H / 2, x2, y2 + NODE_H / 2);
        let bend = (ex.max(sx) - ex.min(sx)) / 2 + 30;
        let _ = write!(
            svg,
            "<path class=\"edge\" d=\"M{sx},{sy} C{},{sy} {},{ey} {ex},{ey}\" \
             marker-end=\"url(#arrow)\"><title>{}</title></path>",
            sx + bend,
            ex.saturating_sub(bend),
            html_text(&transition.action)
        );
    }
    for page in &pages {
        let (x, y) = at[page.pattern.as_str()];
        let (fill, border) = colours(page);
        let scenarios = crossings.of(&page.pattern);
        let dash = if page.stale() {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let _ = write!(
            svg,
            "<g class=\"page\" data-pattern=\"{pattern}\"><title>{pattern} · {source}{stale} · {n} \
             scenario(s){list}</title><rect x=\"{x}\" y=\"{y}\" width=\"{NODE_W}\" \
             height=\"{NODE_H}\" rx=\"8\" fill=\"{fill}\" stroke=\"{border}\"{dash}/>\
             <text x=\"{tx}\" y=\"{ty1}\" class=\"pattern\">{pattern}</text>\
             <text x=\"{tx}\" y=\"{ty2}\" class=\"meta\">{source} · {n} scenario(s)</text></g>",
            pattern = html_text(&page.pattern),
            source = page.source(),
            stale = if page.stale() { ", stale" } else { "" },
            n = scenarios.len(),
            list = if scenarios.is_empty() {
                String::new()
            } else {
                format!(": {}", html_text(&scenarios.join(", ")))
            },
            tx = x + 10,
            ty1 = y + 19,
            ty2 = y + 36,
        );
    }
    svg.push_str("</svg>");
    page_html(map, crossings, title, &svg)
}

fn page_html(map: &SiteMap, crossings: &Crossings, title: &str, svg: &str) -> String {
    let mut table = String::new();
    let mut pages: Vec<&MapPage> = map.pages.iter().collect();
    pages.sort_by(|a, b| a.pattern.cmp(&b.pattern));
    for page in pages {
        let last = page
            .claims
            .iter()
            .map(|c| c.last_seen.as_str())
            .max()
            .unwrap_or("");
        let _ = write!(
            table,
            "<tr><td><code>{}</code></td><td>{}{}</td><td>{}</td><td>{}</td></tr>",
            html_text(&page.pattern),
            page.source(),
            if page.stale() { " (stale)" } else { "" },
            html_text(last),
            html_text(&crossings.of(&page.pattern).join(", "))
        );
    }
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>body{{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1a202c}}\
         .graph{{overflow:auto;border:1px solid #e2e8f0;border-radius:8px;background:#fafbfc}}\
         .pattern{{font:600 12px ui-monospace,monospace;fill:#1a202c}}.meta{{font-size:11px;\
         fill:#4a5568}}.edge{{fill:none;stroke:#a0aec0;stroke-width:1.4}}\
         table{{border-collapse:collapse;margin-top:16px}}td,th{{padding:4px 10px;border-bottom:\
         1px solid #e2e8f0;text-align:left}}.key span{{display:inline-block;width:12px;height:\
         12px;border-radius:3px;margin:0 4px 0 12px;vertical-align:-1px}}</style></head><body>\
         <h1>{title}</h1><p class=\"key\">{pages} pages, {transitions} ways between them.\
         <span style=\"background:#dcf2e3;border:1px solid #2f855a\"></span>seen by a run\
         <span style=\"background:#dbeafe;border:1px solid #2b6cb0\"></span>found in the source\
         <span style=\"background:#fdf0d5;border:1px solid #b7791f\"></span>said by a model\
         <span style=\"border:1px dashed #718096\"></span>stale</p><div class=\"graph\">{svg}\
         </div><table><thead><tr><th>page</th><th>source</th><th>last seen</th>\
         <th>scenarios that cross it</th></tr></thead><tbody>{table}</tbody></table></body></html>\n",
        title = html_text(title),
        pages = map.pages.len(),
        transitions = map.transitions.len(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sitemap::{Move, Route, Visit};

    fn map() -> SiteMap {
        let mut map = SiteMap::default();
        let visit = |path: &str, sig: &str| Visit {
            path: path.to_owned(),
            signature: Some(sig.to_owned()),
            ..Visit::default()
        };
        map.observe(
            &[visit("/", "home"), visit("/cart", "cart")],
            &[Move {
                from: "/".to_owned(),
                action: "click \"Cart (1)\"".to_owned(),
                to: "/cart".to_owned(),
            }],
            "2026-12-02T10:00:00Z",
        );
        map.scanned(
            "",
            &[Route {
                pattern: "/admin/<x>".to_owned(),
                file: "src/main.rs".to_owned(),
                ..Route::default()
            }],
            None,
            "2026-12-02T10:00:00Z",
        );
        map
    }

    #[test]
    fn dot_names_every_page_and_way_with_its_quotes_escaped() {
        let map = map();
        let crossings = Crossings(BTreeMap::from([(
            "/cart".to_owned(),
            BTreeSet::from(["coupon".to_owned(), "checkout".to_owned()]),
        )]));
        let dot = dot(&map, &crossings);
        assert!(dot.starts_with("digraph sitemap {"), "{dot}");
        assert!(dot.contains("label=\"/cart\\n2 scenario(s)\""), "{dot}");
        assert!(
            dot.contains("p0 -> p2 [label=\"click \\\"Cart (1)\\\"\"]"),
            "{dot}"
        );
        assert!(
            dot.contains("fillcolor=\"#dbeafe\""),
            "the static page: {dot}"
        );
    }

    #[test]
    fn the_page_draws_every_page_and_names_nothing_elsewhere() {
        let html = html(&map(), &Crossings::default(), "Site map of <shop>");
        assert_eq!(html.matches("<g class=\"page\"").count(), 3);
        assert_eq!(html.matches("<path class=\"edge\"").count(), 1);
        assert!(html.contains("<title>Site map of &lt;shop&gt;</title>"));
        assert!(html.contains("/admin/&lt;x&gt;"), "escaped");
        // Nothing to fetch: the only URL is SVG's namespace.
        let urls = html.matches("http").count();
        assert_eq!(urls, html.matches("http://www.w3.org/2000/svg").count());
        assert!(!html.contains("<script"));
    }
}
