//! The semantic rules: what the schema cannot say about which fields each action needs.

use std::collections::{BTreeSet, HashMap};

use super::error::{ActionRef, PlanError, Problem, Rule};
use super::{Action, ActionKind, PLAN_VERSION, Plan, Postcondition};
use crate::model::invariant::Predicate;

/// The key names a `press` action may use (W3C `KeyboardEvent.key` spellings).
const KEY_NAMES: &[&str] = &[
    "Enter",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
    "Space",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Shift+Tab",
];

/// The key names a `press` action may use, exactly as plans spell them.
pub fn key_names() -> &'static [&'static str] {
    KEY_NAMES
}

/// What the scenario allows a plan to refer to, beyond the plan itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// The account keys a `value_ref` may name. `None`: the scenario has no account, so any
    /// `value_ref` is an error. Entries may be bare keys (`password`) or full references
    /// (`account.password`); either form allows `account.password`.
    pub allowed_value_refs: Option<BTreeSet<String>>,
}

impl Rules {
    /// Rules for a scenario without an account: no `value_ref` is allowed.
    pub fn without_account() -> Self {
        Rules::default()
    }

    /// Rules for a scenario whose account has these keys (`email`, `password`, …).
    pub fn with_account_keys<I, S>(keys: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Rules {
            allowed_value_refs: Some(keys.into_iter().map(Into::into).collect()),
        }
    }

    fn allows(allowed: &BTreeSet<String>, value_ref: &str, key: &str) -> bool {
        allowed.contains(key) || allowed.contains(value_ref)
    }
}

/// Checks a plan against the schema and the semantic rules, reporting every problem found.
///
/// Plans read with [`Plan::from_json_str`] or [`super::parse_model_output`] are already
/// validated; call this for plans built in code.
pub fn validate(plan: &Plan, rules: &Rules) -> Result<(), PlanError> {
    let mut problems: Vec<Problem> = match serde_json::to_value(plan) {
        Ok(value) => super::schema::problems(&value)
            .into_iter()
            .filter(|p| !covered_by_rules(p))
            .collect(),
        Err(err) => vec![Problem::plan(
            Rule::Shape,
            format!("cannot be written as JSON: {err}"),
        )],
    };
    problems.extend(check(plan, rules));
    PlanError::check(Some(&plan.scenario_id), problems)
}

/// Schema errors that a semantic rule reports in better words; the rule's message is kept.
fn covered_by_rules(problem: &Problem) -> bool {
    problem.message.starts_with("schema: /plan_version:")
        || (problem.action.is_some() && problem.message.contains("/value_ref: "))
}

/// The semantic rules alone, for a plan that already satisfies the schema.
pub(super) fn check(plan: &Plan, rules: &Rules) -> Vec<Problem> {
    let mut problems = Vec::new();
    if plan.plan_version != PLAN_VERSION {
        problems.push(Problem::plan(
            Rule::PlanVersion,
            format!(
                "plan_version {:?} is not supported (this build reads {PLAN_VERSION:?}); \
                 plan the scenario again or use a Windup that reads it",
                plan.plan_version
            ),
        ));
    }
    if !is_plan_url(&plan.start_url) {
        problems.push(Problem::plan(
            Rule::StartUrl,
            format!(
                "start_url {:?} is neither a path starting with \"/\" nor an absolute http(s) URL; \
                 use a path such as \"/\" so the plan works against any base URL",
                plan.start_url
            ),
        ));
    }

    let mut first_with_id: HashMap<&str, usize> = HashMap::new();
    for (index, action) in plan.actions.iter().enumerate() {
        let at = action_ref(index, action);
        if let Some(first) = first_with_id.get(action.id.as_str()) {
            problems.push(Problem::action(
                at.clone(),
                Rule::DuplicateId,
                format!(
                    "id {:?} is already used by action #{}; give every action its own id",
                    action.id,
                    first + 1
                ),
            ));
        } else {
            first_with_id.insert(&action.id, index);
        }
        check_action(action, &at, rules, &mut problems);
        check_holds(action, &at, |id| {
            first_with_id.get(id).is_some_and(|&i| i < index)
        })
        .for_each(|problem| problems.push(problem));
    }

    if let Some(last) = plan.actions.last()
        && last.expect.is_empty()
        && last.kind != ActionKind::Use
    {
        problems.push(Problem::action(
            action_ref(plan.actions.len() - 1, last),
            Rule::FinalExpect,
            "the final action must carry \"expect\" (or be a use) so a run can tell success \
             from failure; add the postconditions that show the task is done",
        ));
    }
    problems
}

fn action_ref(index: usize, action: &Action) -> ActionRef {
    ActionRef {
        index,
        id: Some(action.id.clone()).filter(|id| !id.is_empty() && id.chars().count() <= 64),
        kind: Some(action.kind),
    }
}

/// Which optional fields an action type takes.
struct Takes {
    target: bool,
    value: bool,
    value_ref: bool,
    url: bool,
    key: bool,
    use_fragment: bool,
}

fn takes(kind: ActionKind) -> Takes {
    let none = Takes {
        target: false,
        value: false,
        value_ref: false,
        url: false,
        key: false,
        use_fragment: false,
    };
    match kind {
        ActionKind::Goto => Takes { url: true, ..none },
        ActionKind::Reload | ActionKind::Back | ActionKind::Forward => none,
        ActionKind::Click
        | ActionKind::Check
        | ActionKind::Uncheck
        | ActionKind::WaitFor
        | ActionKind::Hover
        | ActionKind::DoubleClick
        | ActionKind::Focus => Takes {
            target: true,
            ..none
        },
        ActionKind::Fill => Takes {
            target: true,
            value: true,
            value_ref: true,
            ..none
        },
        ActionKind::Select | ActionKind::Type => Takes {
            target: true,
            value: true,
            ..none
        },
        // The target is optional: without one the key goes to whatever has focus.
        ActionKind::Press => Takes {
            target: true,
            key: true,
            ..none
        },
        ActionKind::Use => Takes {
            use_fragment: true,
            ..none
        },
    }
}

fn check_action(action: &Action, at: &ActionRef, rules: &Rules, problems: &mut Vec<Problem>) {
    let mut problem = |rule: Rule, message: String| {
        problems.push(Problem::action(at.clone(), rule, message));
    };
    let takes = takes(action.kind);
    check_foreign_fields(action, &takes, &mut problem);
    check_target(action, &mut problem);
    check_kind_fields(action, &mut problem);
    check_selectors(action, &mut problem);
    check_value_ref(action, &takes, rules, &mut problem);
}

/// Fields set on an action whose kind does not take them.
fn check_foreign_fields(action: &Action, takes: &Takes, problem: &mut impl FnMut(Rule, String)) {
    let kind = action.kind;
    let present = [
        ("target", action.target.is_some(), takes.target),
        ("value", action.value.is_some(), takes.value),
        ("value_ref", action.value_ref.is_some(), takes.value_ref),
        ("url", action.url.is_some(), takes.url),
        ("key", action.key.is_some(), takes.key),
        ("use", action.use_fragment.is_some(), takes.use_fragment),
    ];
    for (field, is_present, is_taken) in present {
        if is_present && !is_taken {
            problem(
                Rule::ForeignField,
                format!("\"{field}\" does not belong on a {kind} action; remove it"),
            );
        }
    }
}

/// An action that acts on an element must name it.
fn check_target(action: &Action, problem: &mut impl FnMut(Rule, String)) {
    let kind = action.kind;
    if kind.needs_target() && action.target.is_none() {
        problem(
            Rule::TargetRequired,
            format!(
                "needs a target because {kind} acts on an element; add \"target\" with the \
                 element's selector and identity"
            ),
        );
    }
}

/// The fields an action's own kind requires: its value, url, key or fragment.
fn check_kind_fields(action: &Action, problem: &mut impl FnMut(Rule, String)) {
    match action.kind {
        ActionKind::Fill => check_fill_value(action, problem),
        ActionKind::Select if action.value.is_none() => problem(
            Rule::SelectValue,
            "needs \"value\": the option to choose; add it".to_owned(),
        ),
        ActionKind::Type if action.value.as_deref().is_none_or(str::is_empty) => problem(
            Rule::FillValue,
            "needs \"value\": the text to type, at least one character; add it".to_owned(),
        ),
        ActionKind::Goto => check_goto_url(action.url.as_deref(), problem),
        ActionKind::Press => check_press_key(action.key.as_deref(), problem),
        ActionKind::Use if action.use_fragment.is_none() => problem(
            Rule::UseFragment,
            "needs \"use\": the name of the fragment to run; add it".to_owned(),
        ),
        _ => {}
    }
}

/// A `fill` types exactly one of a literal value or an account value.
fn check_fill_value(action: &Action, problem: &mut impl FnMut(Rule, String)) {
    match (&action.value, &action.value_ref) {
        (Some(_), Some(_)) => problem(
            Rule::FillValue,
            "needs exactly one of value or value_ref, found both; keep value for literal \
             text or value_ref for an account key"
                .to_owned(),
        ),
        (None, None) => problem(
            Rule::FillValue,
            "needs exactly one of value or value_ref, found neither; add \"value\" with the \
             text to type or \"value_ref\" naming an account key"
                .to_owned(),
        ),
        _ => {}
    }
}

/// A `goto` needs a url that is a path or an absolute http(s) URL.
fn check_goto_url(url: Option<&str>, problem: &mut impl FnMut(Rule, String)) {
    match url {
        None => problem(
            Rule::GotoUrl,
            "needs \"url\": a path starting with \"/\" or an absolute http(s) URL; add it"
                .to_owned(),
        ),
        Some(url) if !is_plan_url(url) => problem(
            Rule::GotoUrl,
            format!(
                "url {url:?} is neither a path starting with \"/\" nor an absolute http(s) \
                 URL; use a path such as \"/cart\""
            ),
        ),
        Some(_) => {}
    }
}

/// A `press` needs a known key name.
fn check_press_key(key: Option<&str>, problem: &mut impl FnMut(Rule, String)) {
    match key {
        None => problem(
            Rule::PressKey,
            format!("needs \"key\"; add one of {}", KEY_NAMES.join(", ")),
        ),
        Some(key) if !KEY_NAMES.contains(&key) => problem(
            Rule::PressKey,
            format!(
                "key {key:?} is not a known key name; use one of {}",
                KEY_NAMES.join(", ")
            ),
        ),
        Some(_) => {}
    }
}

/// Every selector the action uses, in its target and its expectations, has no empty part
/// around `>>>`.
fn check_selectors(action: &Action, problem: &mut impl FnMut(Rule, String)) {
    let selectors = action
        .target
        .iter()
        .flat_map(|t| {
            t.frames
                .iter()
                .map(String::as_str)
                .chain([t.selector.as_str()])
        })
        .chain(
            action
                .expect
                .iter()
                .flat_map(|p| p.frames().iter().map(String::as_str).chain(p.selector())),
        );
    for selector in selectors {
        if selector.split(">>>").any(|part| part.trim().is_empty()) {
            problem(
                Rule::Selector,
                format!(
                    "selector {selector:?} has an empty part around \">>>\"; write one CSS \
                     selector per shadow host, as in \"todo-app >>> button.add\""
                ),
            );
        }
    }
}

/// Each `holds` postcondition's predicate parses and reads only what a page can give; its
/// `since`, when it has one, names an earlier action and the predicate reads `before.`.
fn check_holds<'a>(
    action: &'a Action,
    at: &'a ActionRef,
    is_earlier: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = Problem> + 'a {
    action.expect.iter().filter_map(move |condition| {
        let Postcondition::Holds { predicate, since } = condition else {
            return None;
        };
        let problem = |rule, message: String| Some(Problem::action(at.clone(), rule, message));
        let parsed = match Predicate::parse(predicate) {
            Ok(parsed) => parsed,
            Err(err) => {
                let column = match err.column {
                    0 => String::new(),
                    n => format!(" at column {n}"),
                };
                return problem(
                    Rule::Predicate,
                    format!("holds {predicate:?}{column}: {}; {}", err.message, err.hint),
                );
            }
        };
        match since.as_deref() {
            Some(id) if !is_earlier(id) => problem(
                Rule::Since,
                format!(
                    "holds {predicate:?} has since {id:?}, which is not the id of an earlier \
                     action of this plan; name an action that runs before this one"
                ),
            ),
            Some(id) if !parsed.reads_before() => problem(
                Rule::Since,
                format!(
                    "holds {predicate:?} has since {id:?} but reads nothing of before.; \
                     compare with before.…, or remove since"
                ),
            ),
            _ => None,
        }
    })
}

/// A `value_ref`, where the kind takes one, names an account key the scenario allows.
fn check_value_ref(
    action: &Action,
    takes: &Takes,
    rules: &Rules,
    problem: &mut impl FnMut(Rule, String),
) {
    if let Some(value_ref) = &action.value_ref
        && takes.value_ref
        && let Some(message) = value_ref_problem(value_ref, rules)
    {
        problem(Rule::ValueRef, message);
    }
}

fn value_ref_problem(value_ref: &str, rules: &Rules) -> Option<String> {
    let key = value_ref.strip_prefix("account.").filter(|key| {
        !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    });
    let Some(key) = key else {
        return Some(format!(
            "value_ref {value_ref:?} is not of the form account.KEY; name an account key such \
             as \"account.password\""
        ));
    };
    match &rules.allowed_value_refs {
        None => Some(format!(
            "value_ref {value_ref:?} needs an account, but the scenario has none; give the \
             scenario an \"account\" or use \"value\""
        )),
        Some(allowed) if !Rules::allows(allowed, value_ref, key) => {
            let names: Vec<String> = allowed
                .iter()
                .map(|k| {
                    if k.starts_with("account.") {
                        k.clone()
                    } else {
                        format!("account.{k}")
                    }
                })
                .collect();
            let choices = if names.is_empty() {
                "the account has no keys".to_owned()
            } else {
                format!("use one of {}", names.join(", "))
            };
            Some(format!(
                "value_ref {value_ref:?} names an account key the scenario does not allow; {choices}"
            ))
        }
        Some(_) => None,
    }
}

/// A path such as `/cart` (joined to the base URL) or an absolute http(s) URL.
pub(super) fn is_plan_url(s: &str) -> bool {
    if s.chars().any(char::is_control) {
        return false;
    }
    if let Some(rest) = s.strip_prefix('/') {
        // `//host/…` (or `/\host/…`, which browsers read the same) leaves the site under test.
        return !rest.starts_with(['/', '\\']);
    }
    match url::Url::parse(s) {
        Ok(url) => matches!(url.scheme(), "http" | "https") && url.host().is_some(),
        Err(_) => false,
    }
}
