//! `invariants/todo.yaml` is well formed and speaks about selectors the app really renders.

use std::collections::BTreeSet;

use serde_yaml::Value;

const INVARIANTS: &str = include_str!("../invariants/todo.yaml");
const PAGE: &str = include_str!("../static/index.html");
const SCRIPT: &str = include_str!("../static/todo.js");

fn invariants() -> Vec<Value> {
    let doc: Value = serde_yaml::from_str(INVARIANTS).expect("valid YAML");
    doc["invariants"]
        .as_sequence()
        .expect("an `invariants` list")
        .clone()
}

fn field<'a>(invariant: &'a Value, key: &str) -> Option<&'a str> {
    invariant.get(key).map(|v| v.as_str().expect("a string"))
}

#[test]
fn every_invariant_has_an_id_a_statement_a_surface_and_a_predicate() {
    let mut ids = BTreeSet::new();
    for invariant in invariants() {
        let map = invariant.as_mapping().expect("a mapping");
        for key in map.keys() {
            let key = key.as_str().expect("string keys");
            assert!(
                ["id", "statement", "surface", "when", "predicate"].contains(&key),
                "unknown key {key}"
            );
        }
        let id = field(&invariant, "id").expect("an id");
        assert!(
            id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
            "{id} is not kebab-case"
        );
        assert!(ids.insert(id.to_string()), "{id} twice");
        for key in ["statement", "surface", "predicate"] {
            assert!(
                field(&invariant, key).is_some_and(|v| !v.trim().is_empty()),
                "{id} lacks {key}"
            );
        }
        assert_eq!(field(&invariant, "surface"), Some("/**"), "{id}");
    }
    for required in [
        "counter-shows-unchecked",
        "add-grows-by-one-and-clears",
        "active-filter-shows-only-unchecked",
        "completed-filter-shows-only-checked",
        "no-empty-title",
    ] {
        assert!(ids.contains(required), "no {required}");
    }
}

/// Every string literal passed to an extraction function, such as `count(".todo-list li")`.
fn selectors(expression: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = expression;
    while let Some(at) = rest.find("(\".") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find('"') {
            found.push(rest[..end].to_string());
        }
    }
    found
}

#[test]
fn every_class_an_invariant_names_is_rendered_by_the_page_or_its_script() {
    let mut classes = BTreeSet::new();
    for invariant in invariants() {
        for key in ["when", "predicate"] {
            for selector in selectors(field(&invariant, key).unwrap_or_default()) {
                for class in selector
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
                    .flat_map(|part| part.split('.').skip(1))
                    .filter(|class| !class.is_empty())
                {
                    classes.insert(class.to_string());
                }
            }
        }
    }
    assert!(classes.contains("todo-count") && classes.contains("new-todo"));
    for class in classes {
        let in_page = PAGE.contains(&format!("class=\"{class}\""));
        let in_script = SCRIPT.contains(&format!("'{class}'"));
        assert!(in_page || in_script, "nothing renders .{class}");
    }
}

#[test]
fn the_filters_are_named_by_their_fragments() {
    let all = INVARIANTS.to_string();
    for hash in ["\"#/active\"", "\"#/completed\""] {
        assert!(all.contains(hash), "no invariant mentions {hash}");
        let link = format!("href={hash}");
        assert!(PAGE.contains(&link), "the page has no {link}");
    }
    assert!(!all.contains("\"#active\"") && !all.contains("\"/active\""));
}
