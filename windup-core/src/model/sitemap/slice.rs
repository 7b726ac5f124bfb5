//! The part of the map a task needs: pages within a few moves of its start page, the ones whose
//! words the task shares first, written as short lines within a budget of characters. It goes
//! into the model planner's prompt and chooses `cargo windup new`'s scaffold.

use std::collections::{BTreeMap, VecDeque};

use super::{MapPage, SiteMap, Source};

/// How many moves from the start page a slice reaches.
pub const SLICE_DEPTH: usize = 3;

/// How many characters a slice takes of a prompt, at most.
pub const SLICE_CHARS: usize = 3_000;

/// How many elements a page's line names.
const ELEMENTS_PER_PAGE: usize = 12;

/// Words too common to tell pages apart.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "that", "this", "then", "from", "into", "check", "make", "sure",
    "see", "can", "are", "has", "have", "was", "will", "should", "page", "user", "you", "your",
    "our", "its", "all", "one", "out", "log", "about",
];

/// A task's words that can name a page: lowercase, three letters or more, common ones left out.
pub fn terms(task: &str) -> Vec<String> {
    let mut terms: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .collect();
    terms.sort();
    terms.dedup();
    terms
}

impl MapPage {
    /// How many of `terms` its pattern, title and elements name; a word's stem counts, so that
    /// "orders" finds `/orders` and "order" finds it too.
    pub fn score(&self, terms: &[String]) -> usize {
        let mut words = self.pattern.to_lowercase();
        if let Some(title) = &self.title {
            words.push(' ');
            words.push_str(&title.to_lowercase());
        }
        for element in &self.elements {
            words.push(' ');
            words.push_str(&element.name.to_lowercase());
        }
        terms
            .iter()
            .filter(|term| words.contains(stem(term)))
            .count()
    }
}

/// A word without a plural's or a verb's ending: `orders` → `order`, `checking` → `check`.
fn stem(word: &str) -> &str {
    for ending in ["ing", "es", "s", "ed"] {
        if let Some(stem) = word.strip_suffix(ending)
            && stem.chars().count() >= 3
        {
            return stem;
        }
    }
    word
}

impl SiteMap {
    /// The slice for `task` from the page at `start` (a path), or None when the map knows no
    /// live page: pages within [`SLICE_DEPTH`] moves, those sharing the most of the task's words
    /// first, then the nearest, each a line, until `budget` characters are used.
    pub fn slice(&self, task: &str, start: &str, budget: usize) -> Option<String> {
        let terms = terms(task);
        let depths = self.depths(&self.pattern_of(start));
        let mut chosen: Vec<(&MapPage, usize)> = self
            .pages
            .iter()
            .filter(|p| !p.stale())
            .filter_map(|p| depths.get(p.pattern.as_str()).map(|d| (p, *d)))
            .collect();
        if chosen.is_empty() {
            return None;
        }
        chosen.sort_by(|(a, da), (b, db)| {
            (b.score(&terms), da, &a.pattern).cmp(&(a.score(&terms), db, &b.pattern))
        });
        let mut text = String::new();
        for (page, _) in chosen {
            let line = self.line(page);
            if text.len() + line.len() > budget {
                break;
            }
            text.push_str(&line);
        }
        (!text.is_empty()).then_some(text)
    }

    /// Every page's fewest moves from `start` over live transitions, up to [`SLICE_DEPTH`];
    /// a map with no way out of `start` reaches its other pages at depth 1 (a scan knows
    /// pages, not the ways between them).
    fn depths(&self, start: &str) -> BTreeMap<&str, usize> {
        let mut depths = BTreeMap::new();
        let mut queue = VecDeque::new();
        if let Some(page) = self.page(start) {
            depths.insert(page.pattern.as_str(), 0);
            queue.push_back((page.pattern.as_str(), 0));
        }
        while let Some((from, depth)) = queue.pop_front() {
            if depth == SLICE_DEPTH {
                continue;
            }
            let live = self
                .transitions
                .iter()
                .filter(|t| !t.claims.iter().all(|c| c.stale));
            for transition in live.filter(|t| t.from == from) {
                if !depths.contains_key(transition.to.as_str()) {
                    depths.insert(transition.to.as_str(), depth + 1);
                    queue.push_back((transition.to.as_str(), depth + 1));
                }
            }
        }
        if depths.len() <= 1 {
            for page in &self.pages {
                depths.entry(page.pattern.as_str()).or_insert(1);
            }
        }
        depths
    }

    /// A page as one line: its pattern, who knows it, its title, its elements, its ways out.
    fn line(&self, page: &MapPage) -> String {
        let known = match page.source() {
            Source::Execution => "seen",
            Source::Static => "in the source",
            Source::Llm => "guessed",
        };
        let mut line = format!("- {} ({known})", page.pattern);
        if let Some(title) = &page.title {
            line.push_str(&format!(" {title:?}"));
        }
        let elements: Vec<String> = page
            .elements
            .iter()
            .take(ELEMENTS_PER_PAGE)
            .map(|e| match &e.test_id {
                Some(id) => format!("{} {:?} [data-testid={id:?}]", e.role, e.name),
                None => format!("{} {:?}", e.role, e.name),
            })
            .collect();
        if !elements.is_empty() {
            line.push_str(&format!("; shows {}", elements.join(", ")));
        }
        let ways: Vec<String> = self
            .transitions
            .iter()
            .filter(|t| t.from == page.pattern && t.from != t.to)
            .map(|t| format!("{} → {}", t.action, t.to))
            .collect();
        if !ways.is_empty() {
            line.push_str(&format!("; {}", ways.join(", ")));
        }
        line.push('\n');
        line
    }
}
