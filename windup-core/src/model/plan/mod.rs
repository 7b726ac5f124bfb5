//! Plans: the data a scenario is planned into, and the only thing the executor runs.
//!
//! A plan is a list of browser actions with selectors and postconditions. It has no
//! conditionals, loops or free code, so a page can never make Windup run anything else.
//! `plan.schema.json` is the authority on its shape; [`validate`] adds the semantic rules.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::invariant::ActionFacts;

mod answer;
mod error;
mod rules;
mod sanitize;
mod schema;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use answer::check_strict;
pub(crate) use answer::closed as strict_object;
pub use answer::{Envelope, answer_schema, plan_from_answer};
pub use error::{ActionRef, PlanError, Problem, Rule};
pub use rules::{Rules, key_names, validate};
pub use sanitize::sanitize;
pub use schema::PLAN_SCHEMA;

/// The plan format version this build reads and writes.
pub const PLAN_VERSION: &str = "0.1";

/// A planned scenario: what to open, then the actions to take in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    pub plan_version: String,
    pub scenario_id: String,
    pub task: String,
    /// A path joined to the base URL (keeps plans portable between environments).
    pub start_url: String,
    pub generated_by: GeneratedBy,
    pub actions: Vec<Action>,
}

/// Who produced a plan, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratedBy {
    pub planner: PlannerKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// RFC 3339 timestamp.
    pub at: String,
}

/// The id of the action that carries out a scenario's step `number` (1-based): `s3`.
pub fn step_action_id(number: usize) -> String {
    format!("s{number}")
}

/// The step an id such as `s3` names, as plans without [`Action::step`] were read.
fn legacy_step(action_id: &str) -> Option<usize> {
    let number: usize = action_id.strip_prefix('s')?.parse().ok()?;
    // Only the names the planner gives: not `s0`, `s01` or `s+1`.
    (number > 0 && action_id == step_action_id(number)).then_some(number)
}

/// Which planner made a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlannerKind {
    /// From the scenario's explicit steps, without a model.
    Offline,
    /// By a language model, from the task.
    Llm,
    /// Written by a person.
    Hand,
    /// By `cargo windup audit`: a finding's shrunk actions, pinned as its regression test.
    Audit,
}

impl PlannerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            PlannerKind::Offline => "offline",
            PlannerKind::Llm => "llm",
            PlannerKind::Hand => "hand",
            PlannerKind::Audit => "audit",
        }
    }
}

impl std::fmt::Display for PlannerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One browser action. The wire form is flat (docs/plan-format.md); which fields an action needs
/// depends on its [`ActionKind`] and is checked by [`validate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Action {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ActionKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// A reference to an account key (`account.password`), resolved at the WebDriver call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(rename = "use", default, skip_serializing_if = "Option::is_none")]
    pub use_fragment: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<Postcondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The scenario step (1-based) this action carries out, for a plan made from explicit
    /// steps; none for a model's plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

/// What an action does; the wire name is [`ActionKind::as_str`].
impl Action {
    /// Whether one of its postconditions is a `holds` (a predicate over the page).
    pub fn checks_holds(&self) -> bool {
        self.expect
            .iter()
            .any(|c| matches!(c, Postcondition::Holds { .. }))
    }

    /// An action of `kind` with nothing else set yet.
    pub fn new(id: impl Into<String>, kind: ActionKind) -> Self {
        Self {
            id: id.into(),
            kind,
            target: None,
            value: None,
            value_ref: None,
            url: None,
            key: None,
            use_fragment: None,
            expect: Vec::new(),
            timeout_ms: None,
            step: None,
        }
    }

    /// The scenario step (1-based) this action carries out: its `step`, or, in a plan written
    /// before actions carried one, what its id `s3` says.
    pub fn written_step(&self) -> Option<usize> {
        self.step.or_else(|| legacy_step(&self.id))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Goto,
    Click,
    Fill,
    Select,
    Check,
    Uncheck,
    Press,
    WaitFor,
    Use,
    /// Moves the pointer over the target, for controls that show only on hover.
    Hover,
    /// Two clicks in quick succession, as a person double-clicks (a double submit).
    DoubleClick,
    /// Reloads the page, as the browser's reload button does (a page that answered a form
    /// posts it again).
    Reload,
    /// Goes back one page in the session's history.
    Back,
    /// Types text into a field key by key after what it holds, without clearing it and
    /// without sending it: text a person leaves pending.
    Type,
    /// Moves the focus to an element without clicking it.
    Focus,
    /// Goes forward one page in the session's history.
    Forward,
}

impl ActionKind {
    /// Every action type, in the order the schema lists them.
    pub const ALL: [ActionKind; 16] = [
        ActionKind::Goto,
        ActionKind::Click,
        ActionKind::Fill,
        ActionKind::Select,
        ActionKind::Check,
        ActionKind::Uncheck,
        ActionKind::Press,
        ActionKind::WaitFor,
        ActionKind::Use,
        ActionKind::Hover,
        ActionKind::DoubleClick,
        ActionKind::Reload,
        ActionKind::Back,
        ActionKind::Type,
        ActionKind::Focus,
        ActionKind::Forward,
    ];

    /// The name used in plans and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Goto => "goto",
            ActionKind::Click => "click",
            ActionKind::Fill => "fill",
            ActionKind::Select => "select",
            ActionKind::Check => "check",
            ActionKind::Uncheck => "uncheck",
            ActionKind::Press => "press",
            ActionKind::WaitFor => "wait_for",
            ActionKind::Use => "use",
            ActionKind::Hover => "hover",
            ActionKind::DoubleClick => "double_click",
            ActionKind::Reload => "reload",
            ActionKind::Back => "back",
            ActionKind::Type => "type",
            ActionKind::Focus => "focus",
            ActionKind::Forward => "forward",
        }
    }

    /// Whether this kind acts on an element and so needs a target.
    pub fn needs_target(self) -> bool {
        matches!(
            self,
            ActionKind::Click
                | ActionKind::Fill
                | ActionKind::Select
                | ActionKind::Check
                | ActionKind::Uncheck
                | ActionKind::WaitFor
                | ActionKind::Hover
                | ActionKind::DoubleClick
                | ActionKind::Type
                | ActionKind::Focus
        )
    }
}

impl std::fmt::Display for ActionKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The element an action is planned for: how to find it, and what it was when planned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The frames the element is in, outermost first: each a selector of an `<iframe>` in the
    /// document the previous one opened (empty: the page itself).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    /// CSS selector; stable attributes first (`data-testid`, `id`, `name`, `aria-label`). An
    /// element inside open shadow roots is reached by a chain: `todo-app >>> li.row > input`,
    /// each part matched inside the shadow roots of the previous part's matches.
    pub selector: String,
    pub identity: Identity,
}

/// What an element was when it was planned; a replay must find the same thing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Identity {
    pub tag: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Accessible name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The container the step named it in (`in "Buy milk"`): a replay must find it there, as the
    /// one such element in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<String>,
}

/// Something that must hold after an action; checked without any model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Postcondition {
    ElementVisible {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        frames: Vec<String>,
        selector: String,
    },
    ElementHidden {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        frames: Vec<String>,
        selector: String,
    },
    TextVisible {
        text: String,
    },
    TextAbsent {
        text: String,
    },
    /// A glob matched against the URL's path (and query), or the whole URL when it has a scheme.
    UrlMatches {
        pattern: String,
    },
    InputValue {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        frames: Vec<String>,
        selector: String,
        value: String,
    },
    /// A predicate over values read from the page ([`crate::model::invariant::Predicate`]) is true.
    /// `before.` in it reads the page just before the action, or, with `since`, right after
    /// the earlier action of that id.
    Holds {
        predicate: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        since: Option<String>,
    },
}

impl Postcondition {
    /// The frames a selector postcondition looks in (empty: the page itself).
    pub fn frames(&self) -> &[String] {
        match self {
            Postcondition::ElementVisible { frames, .. }
            | Postcondition::ElementHidden { frames, .. }
            | Postcondition::InputValue { frames, .. } => frames,
            _ => &[],
        }
    }

    /// The selector a postcondition checks, if it checks an element.
    pub fn selector(&self) -> Option<&str> {
        match self {
            Postcondition::ElementVisible { selector, .. }
            | Postcondition::ElementHidden { selector, .. }
            | Postcondition::InputValue { selector, .. } => Some(selector),
            _ => None,
        }
    }

    /// Every postcondition kind, in the order the schema lists them.
    pub const KINDS: [&'static str; 7] = [
        "element_visible",
        "element_hidden",
        "text_visible",
        "text_absent",
        "url_matches",
        "input_value",
        "holds",
    ];

    /// The name used in plans and messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Postcondition::ElementVisible { .. } => "element_visible",
            Postcondition::ElementHidden { .. } => "element_hidden",
            Postcondition::TextVisible { .. } => "text_visible",
            Postcondition::TextAbsent { .. } => "text_absent",
            Postcondition::UrlMatches { .. } => "url_matches",
            Postcondition::InputValue { .. } => "input_value",
            Postcondition::Holds { .. } => "holds",
        }
    }
}

impl Plan {
    /// Reads a trusted plan file (a lockfile, a cache entry): JSON syntax, then
    /// `plan.schema.json`, then the plan types, then the semantic rules. Unknown fields are
    /// errors here; only model output is sanitized ([`parse_model_output`]).
    pub fn from_json_str(s: &str, rules: &Rules) -> Result<Plan, PlanError> {
        let value: Value = serde_json::from_str(s).map_err(|err| PlanError::syntax(&err))?;
        from_checked_value(value, rules)
    }

    /// The plan as reviewable JSON: fields in a fixed order, pretty-printed, ending in a newline.
    /// [`Plan::from_json_str`] reads it back unchanged.
    pub fn to_json_pretty(&self) -> String {
        let mut json = serde_json::to_string_pretty(self)
            .expect("a plan has only string keys and plain values, so it always serializes");
        json.push('\n');
        json
    }
}

/// Reads a plan a model produced: [`sanitize`], then `plan.schema.json`, then the plan
/// types, then the semantic rules.
pub fn parse_model_output(output: Value, rules: &Rules) -> Result<Plan, PlanError> {
    from_checked_value(sanitize(output), rules)
}

fn from_checked_value(value: Value, rules: &Rules) -> Result<Plan, PlanError> {
    let scenario_id = value
        .get("scenario_id")
        .and_then(Value::as_str)
        .filter(|id| id.chars().count() <= 200)
        .map(str::to_owned);
    PlanError::check(scenario_id.as_deref(), schema::problems(&value))?;
    let plan: Plan = match Plan::deserialize(&value) {
        Ok(plan) => plan,
        Err(err) => {
            return Err(PlanError::Invalid {
                scenario_id,
                problems: vec![shape_problem(&value, &err)],
            });
        }
    };
    PlanError::check(Some(&plan.scenario_id), rules::check(&plan, rules))?;
    Ok(plan)
}

/// Locates a value the schema let through but the types cannot hold (such as `5000.0` for a
/// timeout) at its action, since serde's message does not say where it is.
fn shape_problem(value: &Value, err: &serde_json::Error) -> Problem {
    let actions = value.get("actions").and_then(Value::as_array);
    for (index, action) in actions.into_iter().flatten().enumerate() {
        if let Err(err) = Action::deserialize(action) {
            let at = ActionRef {
                index,
                id: action
                    .get("id")
                    .and_then(Value::as_str)
                    .filter(|id| !id.is_empty() && id.chars().count() <= 64)
                    .map(str::to_owned),
                kind: None,
            };
            return Problem::action(
                at,
                Rule::Shape,
                format!(
                    "does not fit the plan types: {err}; write whole numbers without a fraction"
                ),
            );
        }
    }
    Problem::plan(
        Rule::Shape,
        format!("does not fit the plan types: {err}; compare it with plan.schema.json"),
    )
}

/// The action at `index` of `actions`, as a transition predicate reads it; `typed` gathers
/// the values of the fills, selections and typed keys that lead up to it.
pub fn action_facts(actions: &[Action], index: usize) -> ActionFacts {
    let action = &actions[index];
    let mut typed = Vec::new();
    for (at, earlier) in actions[..=index].iter().enumerate().rev() {
        match earlier.kind {
            ActionKind::Fill | ActionKind::Select | ActionKind::Type => {
                typed.extend(earlier.value.clone())
            }
            _ if at == index => {}
            _ => break,
        }
    }
    typed.reverse();
    ActionFacts {
        kind: action.kind.as_str().to_owned(),
        target: action
            .target
            .as_ref()
            .map(|t| t.selector.clone())
            .unwrap_or_default(),
        value: action.value.clone().unwrap_or_default(),
        key: action.key.clone().unwrap_or_default(),
        url: action.url.clone().unwrap_or_default(),
        typed,
    }
}
