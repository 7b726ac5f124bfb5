//! OpenAI's strict-mode rules for the schema of a `json_schema` response format.
//!
//! With `"strict": true` the real API rejects a schema unless the root is an object, every
//! object schema (wherever it sits: `properties`, `items`, `anyOf`, `$defs`) sets
//! `"additionalProperties": false` and lists every property in `required`, and no composition
//! keyword outside `anyOf` is used. The problems are worded like the real API's 400s.

use std::fmt::Write as _;

use serde_json::Value;

/// Keywords strict mode rejects wherever they appear.
const NOT_PERMITTED: [&str; 9] = [
    "allOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
];

/// Every strict-mode rule `schema` breaks; empty when it obeys them all.
pub(crate) fn problems(format_name: &str, schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    if schema.get("type").and_then(Value::as_str) != Some("object") || schema.get("anyOf").is_some()
    {
        found.push(
            "In context=(), the root schema must be an object ('type': 'object'), not 'anyOf'"
                .to_owned(),
        );
    }
    visit(schema, &mut Vec::new(), &mut found);
    found
        .into_iter()
        .map(|p| format!("Invalid schema for response_format '{format_name}': {p}"))
        .collect()
}

/// One step from the root schema to a subschema.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn visit<'a>(schema: &'a Value, context: &mut Vec<Step<'a>>, found: &mut Vec<String>) {
    let Some(fields) = schema.as_object() else {
        return;
    };
    let here = render(context);
    for keyword in NOT_PERMITTED {
        if fields.contains_key(keyword) {
            found.push(format!("In context={here}, '{keyword}' is not permitted."));
        }
    }
    let properties = fields.get("properties").and_then(Value::as_object);
    if is_object_schema(schema) {
        if fields.get("additionalProperties") != Some(&Value::Bool(false)) {
            found.push(format!(
                "In context={here}, 'additionalProperties' is required to be supplied and to be false."
            ));
        }
        let required: Vec<&str> = fields
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for key in properties.into_iter().flat_map(|p| p.keys()) {
            if !required.contains(&key.as_str()) {
                found.push(format!(
                    "In context={here}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{key}'."
                ));
            }
        }
    }

    for (name, sub) in properties.into_iter().flatten() {
        context.extend([Step::Key("properties"), Step::Key(name)]);
        visit(sub, context, found);
        context.truncate(context.len() - 2);
    }
    match fields.get("items") {
        Some(Value::Array(tuple)) => {
            for (i, sub) in tuple.iter().enumerate() {
                context.extend([Step::Key("items"), Step::Index(i)]);
                visit(sub, context, found);
                context.truncate(context.len() - 2);
            }
        }
        Some(sub) => {
            context.push(Step::Key("items"));
            visit(sub, context, found);
            context.pop();
        }
        None => {}
    }
    for (i, sub) in fields
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        context.extend([Step::Key("anyOf"), Step::Index(i)]);
        visit(sub, context, found);
        context.truncate(context.len() - 2);
    }
    for defs in ["$defs", "definitions"] {
        let Some((defs, named)) = fields.get_key_value(defs) else {
            continue;
        };
        for (name, sub) in named.as_object().into_iter().flatten() {
            context.extend([Step::Key(defs), Step::Key(name)]);
            visit(sub, context, found);
            context.truncate(context.len() - 2);
        }
    }
}

/// An object schema: `"type": "object"` (alone or in a type list), or one with `properties`.
fn is_object_schema(schema: &Value) -> bool {
    let typed = match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        _ => false,
    };
    typed || schema.get("properties").is_some()
}

/// The context as the real API prints it, a Python tuple: `()`, `('items',)`, `('anyOf', 0)`.
fn render(context: &[Step<'_>]) -> String {
    let mut out = String::from("(");
    for (i, step) in context.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match step {
            Step::Key(key) => {
                let _ = write!(out, "'{key}'");
            }
            Step::Index(index) => {
                let _ = write!(out, "{index}");
            }
        }
    }
    if context.len() == 1 {
        out.push(',');
    }
    out.push(')');
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn step(steps: &[&str]) -> Value {
        json!({
            "type": "object",
            "properties": { "steps": { "type": "array", "items": {
                "type": "object",
                "properties": { "action": { "type": "string" }, "target": { "type": "string" } },
                "required": steps,
                "additionalProperties": false
            }}},
            "required": ["steps"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_strict_schema_has_no_problems() {
        assert_eq!(
            problems("plan", &step(&["action", "target"])),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_property_missing_from_required_is_named_with_its_context() {
        assert_eq!(
            problems("plan", &step(&["action"])),
            [
                "Invalid schema for response_format 'plan': In context=('properties', 'steps', 'items'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'target'."
            ]
        );
    }

    #[test]
    fn every_object_schema_must_close_additional_properties() {
        let schema = json!({
            "type": "object",
            "properties": {
                "choice": { "anyOf": [
                    { "type": "object", "properties": {}, "additionalProperties": false },
                    { "type": "object", "properties": { "x": { "type": "number" } }, "required": ["x"] }
                ]},
                "step": { "$ref": "#/$defs/step" }
            },
            "$defs": { "step": { "type": "object", "properties": {}, "additionalProperties": true } },
            "required": ["choice", "step"]
        });
        assert_eq!(
            problems("p", &schema),
            [
                "Invalid schema for response_format 'p': In context=(), 'additionalProperties' is required to be supplied and to be false.",
                "Invalid schema for response_format 'p': In context=('properties', 'choice', 'anyOf', 1), 'additionalProperties' is required to be supplied and to be false.",
                "Invalid schema for response_format 'p': In context=('$defs', 'step'), 'additionalProperties' is required to be supplied and to be false.",
            ]
        );
    }

    #[test]
    fn composition_other_than_any_of_is_not_permitted() {
        let mut schema = step(&["action", "target"]);
        schema["properties"]["steps"]["items"]["allOf"] = json!([]);
        schema["oneOf"] = json!([]);
        assert_eq!(
            problems("p", &schema),
            [
                "Invalid schema for response_format 'p': In context=(), 'oneOf' is not permitted.",
                "Invalid schema for response_format 'p': In context=('properties', 'steps', 'items'), 'allOf' is not permitted.",
            ]
        );
    }

    #[test]
    fn the_root_must_be_an_object() {
        let found = problems(
            "p",
            &json!({ "type": "array", "items": { "type": "string" } }),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("the root schema must be an object"),
            "{found:?}"
        );
    }

    #[test]
    fn a_one_step_context_prints_as_a_one_element_tuple() {
        assert_eq!(render(&[]), "()");
        assert_eq!(render(&[Step::Key("items")]), "('items',)");
        assert_eq!(
            render(&[Step::Key("anyOf"), Step::Index(2)]),
            "('anyOf', 2)"
        );
    }
}
