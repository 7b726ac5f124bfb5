//! Tidying a model's plan before the schema judges it.
//!
//! Models drift in spelling, not in meaning: `"WaitFor"` for `wait_for`, `"5000"` for 5000,
//! `null` for an absent field, an extra `"reason"` field. The sanitizer fixes only such obvious
//! variants and drops fields the schema does not know; anything it cannot fix is left for the
//! schema to reject with a located message.

use serde_json::{Map, Number, Value};

use super::{ActionKind, Postcondition, rules::key_names};

/// The fields of each object in a plan, as `plan.schema.json` names them (a test keeps the
/// two in step). The `bool` says whether the field is optional, so that `null` means absent.
pub(super) const PLAN_FIELDS: &[(&str, bool)] = &[
    ("plan_version", false),
    ("scenario_id", false),
    ("task", false),
    ("start_url", false),
    ("generated_by", false),
    ("actions", false),
];
pub(super) const GENERATED_BY_FIELDS: &[(&str, bool)] = &[
    ("planner", false),
    ("provider", true),
    ("model", true),
    ("at", false),
];
pub(super) const ACTION_FIELDS: &[(&str, bool)] = &[
    ("id", false),
    ("type", false),
    ("target", true),
    ("value", true),
    ("value_ref", true),
    ("url", true),
    ("key", true),
    ("use", true),
    ("expect", true),
    ("timeout_ms", true),
    ("step", true),
];
pub(super) const TARGET_FIELDS: &[(&str, bool)] =
    &[("frames", true), ("selector", false), ("identity", false)];
pub(super) const IDENTITY_FIELDS: &[(&str, bool)] = &[
    ("tag", false),
    ("role", true),
    ("name", true),
    ("label", true),
    ("within", true),
];
/// Each postcondition kind and the fields it takes besides `kind`; all are required but
/// [`OPTIONAL_POSTCONDITION_FIELDS`].
pub(super) const POSTCONDITION_FIELDS: &[(&str, &[&str])] = &[
    ("element_visible", &["frames", "selector"]),
    ("element_hidden", &["frames", "selector"]),
    ("text_visible", &["text"]),
    ("text_absent", &["text"]),
    ("url_matches", &["pattern"]),
    ("input_value", &["frames", "selector", "value"]),
    ("holds", &["predicate", "since"]),
];
/// The postcondition fields that may be left out: the frame chain (none: the page itself) and
/// the action a `holds` compares with (none: the state just before its own action).
pub(super) const OPTIONAL_POSTCONDITION_FIELDS: &[&str] = &["frames", "since"];

/// Tidies a model's plan: trims strings, normalizes obvious spelling variants of field names,
/// action types, postcondition kinds and key names, turns numeric strings into numbers where a
/// number belongs, removes `null` optional fields, and drops fields the schema does not know,
/// at every level. Never fails and never panics; the result still has to pass the schema.
pub fn sanitize(plan: Value) -> Value {
    match plan {
        Value::Object(map) => Value::Object(object(map, PLAN_FIELDS, plan_field)),
        other => other,
    }
}

/// Keeps the known fields of `map` under their canonical names, tidying each value with `tidy`.
fn object(
    map: Map<String, Value>,
    fields: &[(&'static str, bool)],
    tidy: fn(&'static str, Value) -> Option<Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, value) in map {
        let squashed = squash(&name);
        let Some(&(field, optional)) = fields.iter().find(|(f, _)| squash(f) == squashed) else {
            continue;
        };
        if out.contains_key(field) || (optional && value.is_null()) {
            continue;
        }
        if let Some(value) = tidy(field, value) {
            out.insert(field.to_owned(), value);
        }
    }
    out
}

fn plan_field(field: &'static str, value: Value) -> Option<Value> {
    Some(match (field, value) {
        ("plan_version", Value::Number(n)) => Value::String(n.to_string()),
        ("generated_by", Value::Object(map)) => {
            Value::Object(object(map, GENERATED_BY_FIELDS, generated_by_field))
        }
        ("actions", Value::Array(items)) => Value::Array(items.into_iter().map(action).collect()),
        // A lone action where a list belongs.
        ("actions", Value::Object(map)) => Value::Array(vec![action(Value::Object(map))]),
        (_, value) => trim(value),
    })
}

fn generated_by_field(field: &'static str, value: Value) -> Option<Value> {
    Some(match (field, trim(value)) {
        ("planner", Value::String(s)) => Value::String(s.to_lowercase()),
        (_, value) => value,
    })
}

fn action(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(object(map, ACTION_FIELDS, action_field)),
        other => other,
    }
}

fn action_field(field: &'static str, value: Value) -> Option<Value> {
    let value = match (field, trim(value)) {
        ("id", Value::Number(n)) => Value::String(n.to_string()),
        ("type", Value::String(s)) => {
            Value::String(canonical(&s, ActionKind::ALL.map(ActionKind::as_str)))
        }
        ("key", Value::String(s)) => Value::String(canonical(&s, key_names().iter().copied())),
        ("value", Value::Number(n)) => Value::String(n.to_string()),
        ("value", Value::Bool(b)) => Value::String(b.to_string()),
        ("target", Value::Object(map)) => Value::Object(object(map, TARGET_FIELDS, target_field)),
        ("expect", Value::Array(items)) if items.is_empty() => return None,
        ("expect", Value::Array(items)) => {
            Value::Array(items.into_iter().map(postcondition).collect())
        }
        // A lone postcondition where a list belongs.
        ("expect", Value::Object(map)) => Value::Array(vec![postcondition(Value::Object(map))]),
        ("timeout_ms" | "step", value) => whole_number(value),
        (_, value) => value,
    };
    Some(value)
}

fn target_field(field: &'static str, value: Value) -> Option<Value> {
    Some(match (field, value) {
        ("identity", Value::Object(map)) => {
            Value::Object(object(map, IDENTITY_FIELDS, identity_field))
        }
        (_, value) => trim(value),
    })
}

fn identity_field(field: &'static str, value: Value) -> Option<Value> {
    Some(match (field, trim(value)) {
        // HTML tag names are case-insensitive; the browser reports them in lower case.
        ("tag", Value::String(s)) => Value::String(s.to_lowercase()),
        (_, value) => value,
    })
}

fn postcondition(value: Value) -> Value {
    let Value::Object(map) = value else {
        return value;
    };
    let mut kind = None;
    let mut rest = Map::new();
    for (name, value) in map {
        if squash(&name) == "kind" {
            if kind.is_none() {
                kind = Some(trim(value));
            }
        } else {
            rest.insert(name, value);
        }
    }
    let kind = kind.map(|kind| match kind {
        Value::String(s) => Value::String(canonical(&s, Postcondition::KINDS)),
        other => other,
    });
    // A known kind keeps only its own fields; an unknown one keeps any postcondition field,
    // so the schema's message can still point at the kind.
    let known: Vec<(&'static str, bool)> = match POSTCONDITION_FIELDS
        .iter()
        .find(|(k, _)| kind.as_ref().and_then(Value::as_str) == Some(*k))
    {
        Some((_, fields)) => fields
            .iter()
            .map(|f| (*f, OPTIONAL_POSTCONDITION_FIELDS.contains(f)))
            .collect(),
        None => {
            let mut all: Vec<(&'static str, bool)> = Vec::new();
            for (_, fields) in POSTCONDITION_FIELDS {
                for field in *fields {
                    if !all.iter().any(|(f, _)| f == field) {
                        all.push((field, OPTIONAL_POSTCONDITION_FIELDS.contains(field)));
                    }
                }
            }
            all
        }
    };
    let mut out = Map::new();
    if let Some(kind) = kind {
        out.insert("kind".to_owned(), kind);
    }
    out.extend(object(rest, &known, postcondition_field));
    Value::Object(out)
}

fn postcondition_field(field: &'static str, value: Value) -> Option<Value> {
    Some(match (field, trim(value)) {
        ("value", Value::Number(n)) => Value::String(n.to_string()),
        (_, value) => value,
    })
}

fn trim(value: Value) -> Value {
    match value {
        Value::String(s) if s.trim().len() != s.len() => Value::String(s.trim().to_owned()),
        other => other,
    }
}

/// `"5000"` and `5000.0` become 5000; anything else is left for the schema to judge.
fn whole_number(value: Value) -> Value {
    let parsed = match &value {
        Value::String(s) => s.trim().parse::<u64>().ok(),
        Value::Number(n) if n.as_u64().is_none() => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u32::MAX as f64)
            .map(|f| f as u64),
        _ => None,
    };
    match parsed {
        Some(n) => Value::Number(Number::from(n)),
        None => value,
    }
}

/// The canonical spelling of `s` among `names`, ignoring case and `_`, `-` and spaces;
/// `s` itself when none matches.
fn canonical<'a>(s: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    let squashed = squash(s);
    names
        .into_iter()
        .find(|name| squash(name) == squashed)
        .unwrap_or(s)
        .to_owned()
}

/// Lower case letters and digits only: `"WaitFor"`, `"wait-for"`, `"WAIT_FOR"` → `"waitfor"`.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}
