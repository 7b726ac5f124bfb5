//! What a model answers when it plans: the actions of a plan, nothing else. Windup writes the
//! rest (version, scenario, task, start page, who planned it), so a model cannot claim another
//! scenario or another start page.
//!
//! The answer schema is written for the strictest structured-output mode (OpenAI's `strict`):
//! every object closes its properties and requires all of them, and a field that does not
//! apply is `null` — which the sanitizer reads as absent. It is derived from the same field
//! tables the sanitizer keeps in step with `plan.schema.json`, which stays the authority: an
//! answer becomes a plan only through [`super::parse_model_output`].

use serde_json::{Map, Value, json};

use super::sanitize::{ACTION_FIELDS, IDENTITY_FIELDS, POSTCONDITION_FIELDS, TARGET_FIELDS};
use super::{ActionKind, GeneratedBy, PLAN_VERSION};

/// The JSON schema of a model's answer: `{ "actions": [...] }`.
pub fn answer_schema() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["actions"],
        "properties": {
            "actions": {
                "description": "The browser actions, in order, from the start page to the end of the task.",
                "type": "array",
                "items": action(),
            }
        }
    })
}

/// What Windup writes around an answer's actions.
#[derive(Debug, Clone)]
pub struct Envelope<'a> {
    pub scenario_id: &'a str,
    pub task: &'a str,
    pub start_url: &'a str,
    pub generated_by: GeneratedBy,
}

/// The whole plan value for an answer: its `actions` (whatever they are: the schema judges
/// them next) inside Windup's envelope. Any other field of the answer is dropped.
pub fn plan_from_answer(answer: Value, envelope: Envelope<'_>) -> Value {
    let actions = match answer {
        Value::Object(mut map) => map.remove("actions").unwrap_or(Value::Null),
        // A bare list of actions.
        list @ Value::Array(_) => list,
        _ => Value::Null,
    };
    json!({
        "plan_version": PLAN_VERSION,
        "scenario_id": envelope.scenario_id,
        "task": envelope.task,
        "start_url": envelope.start_url,
        "generated_by": envelope.generated_by,
        "actions": actions,
    })
}

fn nullable(schema: Value) -> Value {
    json!({ "anyOf": [schema, { "type": "null" }] })
}

fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}

/// An object schema for strict mode: closed, with every property required.
pub(crate) fn closed(properties: Map<String, Value>) -> Value {
    let required: Vec<&String> = properties.keys().collect();
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": required,
        "properties": properties,
    })
}

fn action() -> Value {
    let kinds: Vec<&str> = ActionKind::ALL.iter().map(|k| k.as_str()).collect();
    let mut properties = Map::new();
    // A model plans from the task: its actions carry out no written step.
    for &(field, optional) in ACTION_FIELDS.iter().filter(|(f, _)| *f != "step") {
        let schema = match field {
            "id" => string("Unique within the plan, e.g. a1, a2, …"),
            "type" => json!({ "type": "string", "enum": kinds }),
            "target" => target(),
            "value" => string("The text to type (fill) or the option to choose (select)."),
            "value_ref" => string(
                "Instead of value, for a secret: account.KEY, naming one of the account keys listed in the task.",
            ),
            "url" => string("For goto: a path on the site, starting with /."),
            "key" => string("For press: a key name such as Enter, Tab or Escape."),
            "use" => string("For use: the id of a fragment from the catalogue."),
            "expect" => json!({
                "description": "What must hold after the action; the last action must have at least one.",
                "type": "array",
                "items": postcondition(),
            }),
            "timeout_ms" => {
                json!({ "type": "integer", "description": "Only when the action needs longer than usual." })
            }
            other => string(other),
        };
        let schema = if optional && field != "expect" {
            nullable(schema)
        } else {
            schema
        };
        properties.insert(field.to_owned(), schema);
    }
    closed(properties)
}

fn target() -> Value {
    let mut identity = Map::new();
    for &(field, optional) in IDENTITY_FIELDS {
        let schema = string(match field {
            "tag" => "The element's tag name, lower case.",
            "role" => "Its ARIA role.",
            "name" => "Its accessible name, as listed for it.",
            "within" => "The text of the container it was found in, when a step named one.",
            _ => "Its label, as listed for it.",
        });
        identity.insert(
            field.to_owned(),
            if optional { nullable(schema) } else { schema },
        );
    }
    let mut properties = Map::new();
    for &(field, _) in TARGET_FIELDS {
        let schema = match field {
            "selector" => string("A CSS selector copied from the element's selectors on the page."),
            "frames" => frames(),
            _ => closed(identity.clone()),
        };
        properties.insert(field.to_owned(), schema);
    }
    nullable(closed(properties))
}

/// The frame chain of a target or a postcondition: null for the page itself.
fn frames() -> Value {
    nullable(json!({
        "type": "array",
        "description": "Selectors of the iframes the element is in, outermost first, as listed for it.",
        "items": { "type": "string" },
    }))
}

fn postcondition() -> Value {
    let shapes: Vec<Value> = POSTCONDITION_FIELDS
        .iter()
        .map(|(kind, fields)| {
            let mut properties = Map::new();
            properties.insert(
                "kind".to_owned(),
                json!({ "type": "string", "enum": [kind] }),
            );
            for field in *fields {
                let description = match *field {
                    "pattern" => "A URL path glob such as /orders/*.",
                    "selector" => "A CSS selector.",
                    "text" => "Text a person sees on the page.",
                    "frames" => {
                        properties.insert((*field).to_owned(), frames());
                        continue;
                    }
                    "predicate" => {
                        "A CEL expression over the page, read with text/texts/count/visible/number/numbers/money/moneys/input/inputs(\".selector\"), such as count(\".row\") == 3."
                    }
                    "since" => {
                        let since = string("The id of an earlier action: before.… in the predicate then reads the page right after it.");
                        properties.insert((*field).to_owned(), nullable(since));
                        continue;
                    }
                    _ => "The field's expected value.",
                };
                properties.insert((*field).to_owned(), string(description));
            }
            closed(properties)
        })
        .collect();
    json!({ "anyOf": shapes })
}

/// Checks, in tests, that a schema suits the strictest structured-output mode: every object
/// closed and requiring all its properties, and no keyword outside strict mode's subset.
#[cfg(test)]
pub(crate) fn check_strict(schema: &Value, at: &str) {
    match schema {
        Value::Object(map) => {
            for keyword in ["allOf", "oneOf", "not", "if", "then", "else", "$ref"] {
                assert!(!map.contains_key(keyword), "{keyword} at {at}");
            }
            if let Some(Value::Object(properties)) = map.get("properties") {
                assert_eq!(
                    map.get("additionalProperties"),
                    Some(&json!(false)),
                    "at {at}"
                );
                let required: Vec<&str> = map["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                let keys: Vec<&str> = properties.keys().map(String::as_str).collect();
                assert_eq!(required, keys, "at {at}");
            }
            for (key, value) in map {
                check_strict(value, &format!("{at}/{key}"));
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_strict(item, &format!("{at}/{i}"));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_schema_suits_strict_structured_output() {
        check_strict(&answer_schema(), "");
    }

    #[test]
    fn an_answer_in_its_envelope_is_checked_like_any_model_plan() {
        let answer = json!({
            "actions": [{
                "id": "a1", "type": "click",
                "target": { "selector": "#go", "identity": { "tag": "button", "role": "button", "name": "Go", "label": null } },
                "value": null, "value_ref": null, "url": null, "key": null, "use": null,
                "expect": [{ "kind": "url_matches", "pattern": "/done" }],
                "timeout_ms": null
            }],
            "scenario_id": "someone-else"
        });
        let envelope = Envelope {
            scenario_id: "go",
            task: "Press go.",
            start_url: "/",
            generated_by: GeneratedBy {
                planner: crate::model::plan::PlannerKind::Llm,
                provider: Some("openai".to_owned()),
                model: Some("gpt-5-mini".to_owned()),
                at: "2026-11-30T00:00:00Z".to_owned(),
            },
        };
        let plan = super::super::parse_model_output(
            plan_from_answer(answer, envelope),
            &super::super::Rules::default(),
        )
        .expect("a valid plan");
        assert_eq!(plan.scenario_id, "go", "the envelope wins");
        assert_eq!(plan.actions[0].value, None);
        assert_eq!(
            plan.actions[0].target.as_ref().unwrap().identity.label,
            None
        );
    }
}
