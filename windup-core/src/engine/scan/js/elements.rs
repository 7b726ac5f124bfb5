//! The interactive elements a component's JSX renders, named as a person sees them: native
//! controls, router links, and design-system components by their common names.

use tree_sitter::Node;

use super::super::files::{Source, descendants};
use super::{attributes, string_value, tag_name};
use crate::model::sitemap::MapElement;

/// Components that are controls, whatever library they come from, by role.
const COMPONENTS: &[(&str, &str)] = &[
    ("Button", "button"),
    ("IconButton", "button"),
    ("LoadingButton", "button"),
    ("Link", "link"),
    ("NavLink", "link"),
    ("Anchor", "link"),
    ("TextField", "textbox"),
    ("TextInput", "textbox"),
    ("Input", "textbox"),
    ("Textarea", "textbox"),
    ("PasswordInput", "textbox"),
    ("SearchField", "searchbox"),
    ("Checkbox", "checkbox"),
    ("Radio", "radio"),
    ("Switch", "switch"),
    ("Toggle", "switch"),
    ("Select", "combobox"),
    ("Combobox", "combobox"),
    ("Autocomplete", "combobox"),
    ("Tab", "tab"),
    ("MenuItem", "menuitem"),
    ("Slider", "slider"),
];

/// Attributes that name a control, in the order a person's eye would take them.
const NAMING: &[&str] = &["aria-label", "label", "title", "placeholder", "alt", "name"];

/// Attributes that carry a test id.
const TEST_IDS: &[&str] = &["data-testid", "data-test", "data-cy", "data-test-id"];

/// Every interactive element of the file, sorted, each once.
pub(crate) fn of(source: &Source) -> Vec<MapElement> {
    let mut found: Vec<MapElement> = descendants(source.tree.root_node())
        .into_iter()
        .filter(|n| matches!(n.kind(), "jsx_element" | "jsx_self_closing_element"))
        .filter_map(|n| element(source, n))
        .collect();
    found.sort();
    found.dedup();
    found
}

fn element(source: &Source, node: Node<'_>) -> Option<MapElement> {
    let tag = tag_name(source, node)?;
    let attributes = attributes(source, node);
    let attribute = |name: &str| {
        attributes
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| string_value(source, *v))
    };
    let role = match tag {
        "button" => "button",
        "a" => "link",
        "select" => "combobox",
        "textarea" => "textbox",
        "input" => match attribute("type").as_deref().unwrap_or("text") {
            "hidden" => return None,
            "checkbox" => "checkbox",
            "radio" => "radio",
            "submit" | "button" | "reset" | "image" => "button",
            "search" => "searchbox",
            "range" => "slider",
            "number" => "spinbutton",
            _ => "textbox",
        },
        other => {
            let last = other.rsplit('.').next().unwrap_or(other);
            COMPONENTS.iter().find(|(name, _)| *name == last)?.1
        }
    };
    let role = attribute("role")
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| role.to_owned());
    // A list's or a text area's content is its options or its value, not its name.
    let text = match tag {
        "select" | "textarea" | "Select" => String::new(),
        _ => text_of(source, node),
    };
    let name = Some(text)
        .filter(|t| !t.is_empty())
        .or_else(|| NAMING.iter().find_map(|a| attribute(a)))
        .or_else(|| (tag == "input").then(|| attribute("value")).flatten())
        .unwrap_or_default();
    let test_id = TEST_IDS.iter().find_map(|a| attribute(a));
    (!name.is_empty() || test_id.is_some()).then_some(MapElement {
        role,
        name,
        test_id,
    })
}

/// The static text an element shows: its JSX text and string expressions, nested elements
/// included, whitespace collapsed.
fn text_of(source: &Source, node: Node<'_>) -> String {
    if node.kind() != "jsx_element" {
        return String::new();
    }
    let mut words = Vec::new();
    for inner in descendants(node)
        .into_iter()
        .filter(|n| !in_attribute(*n, node))
    {
        match inner.kind() {
            "jsx_text" => words.push(source.text_of(inner).to_owned()),
            "jsx_expression" => {
                if let Some(text) = inner
                    .named_child(0)
                    .and_then(|c| super::super::files::literal(source, c))
                {
                    words.push(text);
                }
            }
            _ => {}
        }
    }
    words
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `node` is part of an attribute of an element within `element` (a `className={"x"}`
/// is not text a person reads).
fn in_attribute(node: Node<'_>, element: Node<'_>) -> bool {
    let mut at = Some(node);
    while let Some(current) = at {
        if current.id() == element.id() {
            return false;
        }
        if current.kind() == "jsx_attribute" {
            return true;
        }
        at = current.parent();
    }
    false
}
