//! `plan.schema.json`, compiled once, and its errors located at the action they are in.

use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::error::{ActionRef, Problem, Rule};

/// The JSON Schema (draft 2020-12) every plan must satisfy.
pub const PLAN_SCHEMA: &str = include_str!("../../../plan.schema.json");

/// A message longer than this is cut, so a huge wrong value cannot flood the report.
const MAX_MESSAGE_CHARS: usize = 300;

static VALIDATOR: LazyLock<Validator> = LazyLock::new(|| {
    let schema: Value =
        serde_json::from_str(PLAN_SCHEMA).expect("plan.schema.json is valid JSON (tested)");
    jsonschema::draft202012::new(&schema)
        .expect("plan.schema.json is a valid draft 2020-12 schema (tested)")
});

/// Every schema violation in `instance`, each located at its action when it is inside one.
pub(super) fn problems(instance: &Value) -> Vec<Problem> {
    VALIDATOR
        .iter_errors(instance)
        .map(|err| to_problem(&err, instance))
        .collect()
}

fn to_problem(err: &ValidationError<'_>, instance: &Value) -> Problem {
    let path = err.instance_path().as_str();
    let pointer = if path.is_empty() { "/" } else { path };
    let mut what = match err.kind() {
        // The validator's own words name only the first few choices; a person needs them all.
        ValidationErrorKind::Enum { options } => match options.as_array() {
            Some(choices) => {
                let choices: Vec<String> = choices.iter().map(Value::to_string).collect();
                format!(
                    "{} is not one of {}",
                    short(err.instance()),
                    choices.join(", ")
                )
            }
            None => err.to_string(),
        },
        _ => err.to_string(),
    };
    if what.chars().count() > MAX_MESSAGE_CHARS {
        what = what.chars().take(MAX_MESSAGE_CHARS).collect::<String>() + "…";
    }
    let message = format!("schema: {pointer}: {what}{}", hint(err.kind()));
    match action_at(path, instance) {
        Some(action) => Problem::action(action, Rule::Schema, message),
        None => Problem::plan(Rule::Schema, message),
    }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 80 {
        text.chars().take(80).collect::<String>() + "…"
    } else {
        text
    }
}

/// What to do next, where the validator's own words don't already say it.
fn hint(kind: &ValidationErrorKind) -> &'static str {
    match kind {
        ValidationErrorKind::Required { .. } => "; add it",
        ValidationErrorKind::AdditionalProperties { .. } => {
            "; remove it (plan.schema.json lists every field a plan may have)"
        }
        _ => "",
    }
}

/// The action a JSON pointer such as `/actions/1/timeout_ms` is inside.
fn action_at(path: &str, instance: &Value) -> Option<ActionRef> {
    let rest = path.strip_prefix("/actions/")?;
    let index_str = rest.split('/').next()?;
    let index: usize = index_str.parse().ok()?;
    let id = instance
        .pointer(&format!("/actions/{index_str}/id"))
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty() && id.chars().count() <= 64)
        .map(str::to_owned);
    Some(ActionRef {
        index,
        id,
        kind: None,
    })
}
