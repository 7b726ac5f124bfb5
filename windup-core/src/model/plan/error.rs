//! Why a plan was rejected, in words that say where and what to do next.

use std::fmt;

use super::ActionKind;

/// A plan that could not be read, or that breaks the schema or a semantic rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The text is not JSON at all.
    #[error(
        "the plan is not valid JSON: {message} at line {line}, column {column}; fix the syntax there"
    )]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The plan is JSON but breaks the schema or the semantic rules; every problem found is listed.
    #[error("{}", render_invalid(.scenario_id.as_deref(), .problems))]
    Invalid {
        /// The plan's `scenario_id`, when it has a readable one.
        scenario_id: Option<String>,
        problems: Vec<Problem>,
    },
}

impl PlanError {
    /// Every problem found (empty for a syntax error).
    pub fn problems(&self) -> &[Problem] {
        match self {
            PlanError::Syntax { .. } => &[],
            PlanError::Invalid { problems, .. } => problems,
        }
    }

    pub(super) fn syntax(err: &serde_json::Error) -> Self {
        let full = err.to_string();
        let suffix = format!(" at line {} column {}", err.line(), err.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        PlanError::Syntax {
            line: err.line(),
            column: err.column(),
            message,
        }
    }

    /// `Ok` when nothing is wrong; problems are ordered plan-level first, then by action.
    pub(super) fn check(scenario_id: Option<&str>, mut problems: Vec<Problem>) -> Result<(), Self> {
        if problems.is_empty() {
            return Ok(());
        }
        problems.sort_by_key(|p| p.action.as_ref().map(|a| a.index));
        Err(PlanError::Invalid {
            scenario_id: scenario_id.filter(|s| !s.is_empty()).map(str::to_owned),
            problems,
        })
    }
}

fn render_invalid(scenario_id: Option<&str>, problems: &[Problem]) -> String {
    let subject = match scenario_id {
        Some(id) => format!("plan for scenario {id:?}"),
        None => "plan".to_owned(),
    };
    let count = match problems.len() {
        1 => "1 problem".to_owned(),
        n => format!("{n} problems"),
    };
    let mut out = format!("{subject} is invalid ({count}):");
    for problem in problems {
        out.push_str("\n  ");
        out.push_str(&problem.to_string());
    }
    out
}

/// One broken rule, located at the plan or at one action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The action the problem is in; `None` for the plan's own fields.
    pub action: Option<ActionRef>,
    pub rule: Rule,
    /// What is wrong and what to do next, without the location prefix.
    pub message: String,
}

impl Problem {
    pub(super) fn plan(rule: Rule, message: impl Into<String>) -> Self {
        Problem {
            action: None,
            rule,
            message: message.into(),
        }
    }

    pub(super) fn action(action: ActionRef, rule: Rule, message: impl Into<String>) -> Self {
        Problem {
            action: Some(action),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            None => write!(f, "plan: {}", self.message),
            Some(action) => write!(f, "{action}: {}", self.message),
        }
    }
}

/// Which action a problem is in, as a person finds it: id, position, type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionRef {
    /// Zero-based position in `actions`; shown one-based (`#1` is the first action).
    pub index: usize,
    /// The action's id, when it has a readable one.
    pub id: Option<String>,
    /// The action's type, when known.
    pub kind: Option<ActionKind>,
}

impl fmt::Display for ActionRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.index + 1;
        match (&self.id, self.kind) {
            (Some(id), Some(kind)) => write!(f, "action {id:?} (#{n}, {kind})"),
            (Some(id), None) => write!(f, "action {id:?} (#{n})"),
            (None, Some(kind)) => write!(f, "action #{n} ({kind})"),
            (None, None) => write!(f, "action #{n}"),
        }
    }
}

/// The rule a [`Problem`] breaks, for code that reacts to particular rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// `plan.schema.json` rejects the shape.
    Schema,
    /// The JSON passed the schema but does not fit the plan types.
    Shape,
    /// `plan_version` is not one this build reads.
    PlanVersion,
    /// `start_url` is neither a path nor an absolute http(s) URL.
    StartUrl,
    /// An element action has no target.
    TargetRequired,
    /// A fill has neither or both of value / value_ref.
    FillValue,
    /// A select has no option value.
    SelectValue,
    /// A goto has no url, or one that is neither a path nor an absolute http(s) URL.
    GotoUrl,
    /// A press has no key, or an unknown key name.
    PressKey,
    /// A use has no fragment name.
    UseFragment,
    /// A field that the action's type does not take.
    ForeignField,
    /// A value_ref that is malformed or names an account key the scenario does not allow.
    ValueRef,
    /// Two actions share an id.
    DuplicateId,
    /// The final action has no postconditions and is not a use.
    FinalExpect,
    /// A selector chain with an empty part.
    Selector,
    /// A `holds` predicate that does not parse, or reads what a page cannot give.
    Predicate,
    /// A `holds` whose `since` does not name an earlier action, or has nothing to compare.
    Since,
}
