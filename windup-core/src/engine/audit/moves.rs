//! Plan actions made from what a page digest offers, and the values the audit types.

use crate::browser::{Control, FormInfo};
use crate::model::plan::{Action, ActionKind, Identity, Target};

use super::{AuditConfig, Login};

/// The marker function injected markup calls when it runs (installed by the browser's page
/// observer): `__windupMark('w1')` records `w1`.
pub(super) fn injection(marker: &str) -> String {
    format!("<img src=x onerror=\"__windupMark('{marker}')\">")
}

/// A `goto` of a URL on the target: its path, query and fragment.
pub(super) fn goto(url: &str) -> Action {
    let mut action = Action::new("", ActionKind::Goto);
    action.url = Some(crate::model::invariant::location_of(url));
    action
}

fn on(control: &Control, kind: ActionKind) -> Action {
    let mut action = Action::new("", kind);
    action.target = Some(Target {
        frames: Vec::new(),
        selector: control.selector.clone(),
        identity: Identity {
            tag: control.tag.clone(),
            role: control.role.clone(),
            name: control.name.clone(),
            label: control.label.clone(),
            within: None,
        },
    });
    action
}

pub(super) fn click(control: &Control) -> Action {
    on(control, ActionKind::Click)
}

pub(super) fn double_click(control: &Control) -> Action {
    on(control, ActionKind::DoubleClick)
}

/// A checkbox or radio button set as a person does. In a form, `check`/`uncheck` (which also
/// reach a box hidden behind its label); on its own, a click: such a box often acts at once
/// and may leave the view (a to-do item checked on the Active filter), which a click allows.
pub(super) fn toggle(control: &Control) -> Action {
    let kind = match (control.form, control.checked) {
        (None, _) => ActionKind::Click,
        (Some(_), Some(true)) => ActionKind::Uncheck,
        (Some(_), _) => ActionKind::Check,
    };
    on(control, kind)
}

/// A value to type: text, or an account key typed by reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Value {
    Text(String),
    Account(String),
}

pub(super) fn fill(control: &Control, value: &Value) -> Action {
    if control.tag == "select" {
        let mut action = on(control, ActionKind::Select);
        action.value = Some(match value {
            Value::Text(text) => text.clone(),
            Value::Account(_) => String::new(),
        });
        return action;
    }
    let mut action = on(control, ActionKind::Fill);
    match value {
        Value::Text(text) => action.value = Some(text.clone()),
        Value::Account(key) => action.value_ref = Some(format!("account.{key}")),
    }
    action
}

pub(super) fn press_enter() -> Action {
    press(None, "Enter")
}

/// A key pressed in `control` (given the focus first), or in whatever has the focus.
pub(super) fn press(control: Option<&Control>, key: &str) -> Action {
    let mut action = match control {
        Some(control) => on(control, ActionKind::Press),
        None => Action::new("", ActionKind::Press),
    };
    action.key = Some(key.to_owned());
    action
}

/// Keys typed into a field after what it holds, and left there.
pub(super) fn type_text(control: &Control, text: &str) -> Action {
    let mut action = on(control, ActionKind::Type);
    action.value = Some(text.to_owned());
    action
}

pub(super) fn focus(control: &Control) -> Action {
    on(control, ActionKind::Focus)
}

pub(super) fn hover(control: &Control) -> Action {
    on(control, ActionKind::Hover)
}

/// One option of a list chosen.
pub(super) fn select(control: &Control, option: &str) -> Action {
    let mut action = on(control, ActionKind::Select);
    action.value = Some(option.to_owned());
    action
}

pub(super) fn reload() -> Action {
    Action::new("", ActionKind::Reload)
}

pub(super) fn back() -> Action {
    Action::new("", ActionKind::Back)
}

pub(super) fn forward() -> Action {
    Action::new("", ActionKind::Forward)
}

/// Numbers the actions `a1`, `a2`, … in order.
pub(super) fn numbered(actions: Vec<Action>) -> Vec<Action> {
    actions
        .into_iter()
        .enumerate()
        .map(|(n, mut action)| {
            action.id = format!("a{}", n + 1);
            action
        })
        .collect()
}

/// What a person would type into a field to get past it: a tester's known value, an account's
/// value for a login form, else something plausible for its type and name.
pub(super) fn usual(control: &Control, config: &AuditConfig, login_form: bool) -> Option<Value> {
    if let Some(value) = known(control, config) {
        return Some(Value::Text(value));
    }
    if login_form && let Some(key) = config.login.as_ref().and_then(|l| account_key(control, l)) {
        return Some(Value::Account(key));
    }
    if control.tag == "select" {
        return control
            .options
            .iter()
            .find(|o| !o.is_empty())
            .cloned()
            .map(Value::Text);
    }
    let called = format!(
        "{} {}",
        control.field.as_deref().unwrap_or(""),
        control.called()
    )
    .to_lowercase();
    let text = match control.input_type.as_deref() {
        Some("email") => "audit@windup.test",
        Some("password") => "Audit-Passw0rd!",
        Some("number") => return Some(Value::Text(control.min.clone().unwrap_or("1".to_owned()))),
        Some("tel") => "5550100",
        Some("url") => "https://example.com",
        Some("date") => "2026-01-15",
        _ if called.contains("mail") => "audit@windup.test",
        _ if called.contains("address") || called.contains("street") => "1 Audit Lane",
        _ if called.contains("name") => "Ada Lovelace",
        _ if called.contains("city") => "Lisbon",
        _ if called.contains("zip") || called.contains("postal") => "1000-001",
        _ if called.contains("phone") => "5550100",
        _ if called.contains("search") || control.input_type.as_deref() == Some("search") => "mug",
        _ => "Audit test",
    };
    Some(Value::Text(text.to_owned()))
}

/// A value the tester gave for this field (by name, label or field name).
fn known(control: &Control, config: &AuditConfig) -> Option<String> {
    let names = [
        control.name.as_deref(),
        control.label.as_deref(),
        control.field.as_deref(),
    ];
    config.inputs.iter().find_map(|(field, values)| {
        names
            .iter()
            .flatten()
            .any(|n| n.eq_ignore_ascii_case(field))
            .then(|| values.first().cloned())
            .flatten()
    })
}

/// The account key a login field takes: the password, or the email / user name.
fn account_key(control: &Control, login: &Login) -> Option<String> {
    let has = |key: &str| login.keys.iter().any(|k| k == key);
    let called = format!(
        "{} {}",
        control.field.as_deref().unwrap_or(""),
        control.called()
    )
    .to_lowercase();
    if control.input_type.as_deref() == Some("password") {
        return has("password").then(|| "password".to_owned());
    }
    ["email", "username", "user", "login"]
        .into_iter()
        .find(|key| {
            has(key) && (called.contains(key) || control.input_type.as_deref() == Some("email"))
        })
        .map(str::to_owned)
}

/// The hostile values to try in a field, each with what it tries.
pub(super) fn hostile(control: &Control, marker: &str) -> Vec<(&'static str, String)> {
    if control.tag == "select" || control.is_toggle() {
        return Vec::new();
    }
    match control.input_type.as_deref() {
        Some("number") => vec![
            ("a negative number", "-3".to_owned()),
            ("a larger quantity", "3".to_owned()),
            ("a huge number", "99999999".to_owned()),
            ("zero", "0".to_owned()),
        ],
        Some("password") => Vec::new(),
        Some("email") => vec![
            ("an empty value", String::new()),
            ("a malformed address", "not-an-email".to_owned()),
        ],
        _ => vec![
            ("markup that runs", injection(marker)),
            ("an empty value", String::new()),
            // Blank but not empty: what a check of `length` instead of `trim()` lets through.
            ("only spaces", "   ".to_owned()),
            ("a long value", "w".repeat(150)),
        ],
    }
}

/// What makes two forms the same kind: how and where they are sent, and their fields' names.
pub(super) fn form_key(info: &FormInfo, fields: &[&Control]) -> String {
    format!(
        "{} {} {}",
        info.method,
        info.action.split('?').next().unwrap_or(&info.action),
        fields
            .iter()
            .map(|c| c.field.as_deref().unwrap_or(c.called()))
            .collect::<Vec<_>>()
            .join(",")
    )
}

/// The fills of a form's fields with the values a person would type; `instead` puts another
/// value in one field (by selector). `None` when a field on the deny list is in the way.
pub(super) fn filled(
    config: &AuditConfig,
    fields: &[&Control],
    instead: Option<(&str, &str)>,
) -> Option<Vec<Action>> {
    let login = fields
        .iter()
        .any(|c| c.input_type.as_deref() == Some("password"));
    let mut actions = Vec::new();
    for field in fields.iter().filter(|c| !c.submits && c.enabled) {
        if config.deny.denies_name(field.called()) {
            return None;
        }
        if field.is_toggle() {
            if field.checked == Some(false) && field.input_type.as_deref() == Some("checkbox") {
                actions.push(toggle(field));
            }
            continue;
        }
        if !(field.is_text_field() || field.tag == "select") {
            continue;
        }
        let value = match instead {
            Some((selector, value)) if selector == field.selector => {
                Some(Value::Text(value.to_owned()))
            }
            _ => usual(field, config, login),
        };
        if let Some(value) = value {
            actions.push(fill(field, &value));
        }
    }
    Some(actions)
}

/// How a form is sent: its submit button, else Enter in its last field.
pub(super) fn send(fields: &[&Control]) -> Vec<Action> {
    match fields.iter().find(|c| c.submits && c.enabled) {
        Some(button) => vec![click(button)],
        None => vec![press_enter()],
    }
}
