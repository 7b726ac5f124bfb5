//! Structural page identity: a SHA-256 of the page's interactive elements, normalized so that
//! only structure counts — no text and no data. The same page template with other products, other
//! quantities or more cart lines has the same signature; a page whose controls change or move has
//! another.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::browser::scripts::{self, Script};
use crate::browser::{BrowserError, ElementInfo, PageSnapshot, Session};

/// A page a run visited: its path (never its query, which may carry data) and its signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageVisit {
    pub path: String,
    pub sig: String,
}

/// What the signature counts of one element: tag, role, input type, and which stable attributes
/// it has — never its text, its name or the values of its attributes.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct Shape {
    tag: String,
    role: Option<String>,
    input_type: Option<String>,
    /// It has a `data-testid`.
    test_id: bool,
    /// Its own id is a selector that reaches it.
    id_selector: bool,
}

impl From<&ElementInfo> for Shape {
    fn from(element: &ElementInfo) -> Self {
        Shape {
            tag: element.tag.clone(),
            role: element.role.clone(),
            input_type: element.input_type.clone(),
            test_id: element.test_id.is_some(),
            id_selector: element.selectors.iter().any(|s| is_own_id(s)),
        }
    }
}

/// Whether a selector is an element's own id (`#add`, or `todo-card >>> #add` inside a shadow
/// root), not a path anchored on an ancestor's id (`#cart > button`).
fn is_own_id(selector: &str) -> bool {
    let own = selector.rsplit(">>>").next().unwrap_or(selector).trim();
    let Some(id) = own.strip_prefix('#') else {
        return false;
    };
    // `CSS.escape` writes special characters as `\c`; anything else unescaped is more than an id.
    let mut chars = id.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            ' ' | '>' | '+' | '~' | ':' | '[' | '.' | '#' | ',' => return false,
            _ => {}
        }
    }
    true
}

impl Shape {
    fn line(&self) -> String {
        format!(
            "{}|{}|{}|{}{}",
            self.tag,
            self.role.as_deref().unwrap_or(""),
            self.input_type.as_deref().unwrap_or(""),
            if self.test_id { "t" } else { "" },
            if self.id_selector { "i" } else { "" },
        )
    }
}

/// The signature of a snapshot: lowercase hex SHA-256.
pub fn of(snapshot: &PageSnapshot) -> String {
    hash(snapshot.elements.iter().map(Shape::from))
}

fn hash(shapes: impl Iterator<Item = Shape>) -> String {
    let collapsed = collapse_repeats(shapes.map(|shape| shape.line()).collect());
    let mut hasher = Sha256::new();
    for line in &collapsed {
        hasher.update(line.as_bytes());
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A page's structure: just what its signature needs, read by one script that is lighter than a
/// snapshot — what a run records after every step that reached a new page.
#[derive(Debug, Clone, Deserialize)]
pub struct PageStructure {
    pub url: String,
    /// Whether the document had finished loading when it was read.
    pub loaded: bool,
    elements: Vec<Shape>,
}

impl PageStructure {
    /// The page's signature; the same as [`of`] a snapshot of the same page.
    pub fn signature(&self) -> String {
        hash(self.elements.iter().cloned())
    }
}

static STRUCTURE: Script = Script::new(|| {
    scripts::with_selectors(&format!(
        "{}\nreturn pageStructure();",
        include_str!("../browser/js/structure.js")
    ))
});

impl Session {
    /// The structure of the current page.
    pub async fn structure(&self) -> Result<PageStructure, BrowserError> {
        self.page_script("page structure", &STRUCTURE).await
    }

    /// The structural signature of the current page.
    pub async fn signature(&self) -> Result<String, BrowserError> {
        Ok(self.structure().await?.signature())
    }
}

/// Collapses immediate repetitions of blocks of up to four shapes — a list of products, the
/// lines of a cart — so that how many items a list holds is data, not structure.
fn collapse_repeats(mut shapes: Vec<String>) -> Vec<String> {
    for period in 1..=4 {
        let mut out: Vec<String> = Vec::with_capacity(shapes.len());
        let mut i = 0;
        while i < shapes.len() {
            let block_end = i + period;
            let repeats_previous = out.len() >= period
                && block_end <= shapes.len()
                && out[out.len() - period..] == shapes[i..block_end];
            if repeats_previous {
                i = block_end;
            } else {
                out.push(shapes[i].clone());
                i += 1;
            }
        }
        shapes = out;
    }
    shapes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_elements_own_id_counts_as_its_id_selector() {
        assert!(is_own_id("#add"));
        assert!(is_own_id("todo-card#today >>> #add"));
        assert!(is_own_id(r"#a\:b"));
        assert!(!is_own_id("#cart > button:nth-of-type(2)"));
        assert!(!is_own_id("#today >>> [data-testid=\"add-task\"]"));
        assert!(!is_own_id("button#add"));
        assert!(!is_own_id("#a.b"));
    }

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn repeated_items_and_groups_collapse() {
        assert_eq!(
            collapse_repeats(list(&["a", "b", "b", "b", "c"])),
            list(&["a", "b", "c"])
        );
        assert_eq!(
            collapse_repeats(list(&["h", "x", "y", "z", "x", "y", "z", "f"])),
            list(&["h", "x", "y", "z", "f"])
        );
        assert_eq!(
            collapse_repeats(list(&["a", "b", "a"])),
            list(&["a", "b", "a"]),
            "no repeat, no change"
        );
    }

    #[test]
    fn order_is_structure() {
        assert_ne!(
            collapse_repeats(list(&["a", "b"])),
            collapse_repeats(list(&["b", "a"]))
        );
    }
}
