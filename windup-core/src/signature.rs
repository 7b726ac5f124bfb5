//! Structural page identity: a SHA-256 of the page's interactive elements, normalized so that
//! only structure counts — no text and no data. The same page template with other products, other
//! quantities or more cart lines has the same signature; a page whose controls change or move has
//! another.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::browser::{BrowserError, ElementInfo, PageSnapshot, Session};

/// A page a run visited: its path (never its query, which may carry data) and its signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageVisit {
    pub path: String,
    pub sig: String,
}

/// The signature of a snapshot: lowercase hex SHA-256.
pub fn of(snapshot: &PageSnapshot) -> String {
    let shapes: Vec<String> = snapshot.elements.iter().map(shape).collect();
    let collapsed = collapse_repeats(shapes);
    let mut hasher = Sha256::new();
    for shape in &collapsed {
        hasher.update(shape.as_bytes());
        hasher.update(b"\n");
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

impl Session {
    /// The structural signature of the current page.
    pub async fn signature(&self) -> Result<String, BrowserError> {
        Ok(of(&self.snapshot().await?))
    }
}

/// What an element is structurally: tag, role, input type, and which stable attributes it has —
/// never its text, its name or the values of its attributes.
fn shape(element: &ElementInfo) -> String {
    let stable_selector = |prefix: &str| element.selectors.iter().any(|s| s.starts_with(prefix));
    format!(
        "{}|{}|{}|{}{}",
        element.tag,
        element.role.as_deref().unwrap_or(""),
        element.input_type.as_deref().unwrap_or(""),
        if element.test_id.is_some() { "t" } else { "" },
        if stable_selector("#") { "i" } else { "" },
    )
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
