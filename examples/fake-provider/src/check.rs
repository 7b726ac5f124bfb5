//! Small pieces every wire's request checks are made of.

use axum::http::HeaderMap;
use serde_json::{Map, Value};

/// A JSON object: the request body or one of its parts.
pub(crate) type Fields = Map<String, Value>;

/// The header's value, trimmed; `None` when absent, empty or not text.
pub(crate) fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`, the name rule OpenAI and Anthropic share.
pub(crate) fn is_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// What kind of JSON value this is, for error messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `what` of `got` for an error message: "missing" or "a number".
pub(crate) fn got(value: Option<&Value>) -> &'static str {
    value.map_or("missing", kind)
}

/// Checks that `fields[key]` is a non-empty string, naming it `path` in the problem.
pub(crate) fn non_empty_string<'a>(
    fields: &'a Fields,
    key: &str,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a str> {
    match fields.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
        Some(Value::String(_)) => {
            problems.push(format!(
                "{path} must be a non-empty string, got an empty string"
            ));
            None
        }
        other => {
            problems.push(format!(
                "{path} must be a non-empty string, got {}",
                got(other)
            ));
            None
        }
    }
}

/// Checks that `fields[key]` is a non-empty array, naming it `path` in the problem.
pub(crate) fn non_empty_array<'a>(
    fields: &'a Fields,
    key: &str,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a [Value]> {
    match fields.get(key) {
        Some(Value::Array(items)) if !items.is_empty() => Some(items),
        Some(Value::Array(_)) => {
            problems.push(format!(
                "{path} must be a non-empty array, got an empty array"
            ));
            None
        }
        other => {
            problems.push(format!(
                "{path} must be a non-empty array, got {}",
                got(other)
            ));
            None
        }
    }
}

/// Checks that `value` is an object, naming it `path` in the problem.
pub(crate) fn object<'a>(
    value: Option<&'a Value>,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a Fields> {
    match value {
        Some(Value::Object(fields)) => Some(fields),
        other => {
            problems.push(format!("{path} must be an object, got {}", got(other)));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_shared_pattern() {
        assert!(is_name("plan_step-2"));
        assert!(is_name(&"a".repeat(64)));
        assert!(!is_name(""));
        assert!(!is_name(&"a".repeat(65)));
        assert!(!is_name("plan step"));
        assert!(!is_name("plan.step"));
    }

    #[test]
    fn a_blank_header_counts_as_missing() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", "  ".parse().unwrap());
        assert_eq!(header(&headers, "x-api-key"), None);
        headers.insert("x-api-key", " k ".parse().unwrap());
        assert_eq!(header(&headers, "x-api-key"), Some("k"));
    }
}
