//! A run's actions as a person reads them: the step the author wrote, or for an action a model
//! planned, what it does in a few words; and the element it acted on.

use super::ActionReport;
use crate::engine::executor::ActionRecord;
use crate::engine::verifier::describe;
use crate::model::plan::{Action, ActionKind, Plan};
use crate::model::scenario::Scenario;

/// The actions that ran, each with what the plan says of it.
pub(super) fn action_reports(
    scenario: &Scenario,
    plan: Option<&Plan>,
    records: &[ActionRecord],
) -> Vec<ActionReport> {
    records
        .iter()
        .map(|record| {
            let planned = plan.and_then(|plan| plan.actions.iter().find(|a| a.id == record.id));
            let written = planned
                .and_then(Action::written_step)
                .and_then(|n| scenario.steps.get(n.checked_sub(1)?));
            let target = planned.and_then(|action| action.target.as_ref());
            ActionReport {
                id: record.id.clone(),
                kind: record.kind.as_str().to_owned(),
                step: written.map(|step| step.text.clone()),
                line: written.map(|step| step.line).filter(|&line| line > 0),
                description: planned
                    .map(description)
                    .unwrap_or_else(|| record.kind.as_str().to_owned()),
                selector: target.map(|target| target.selector.clone()),
                frames: target
                    .map(|target| target.frames.clone())
                    .unwrap_or_default(),
                duration_ms: crate::engine::ledger::millis(record.duration),
                screenshot: record.screenshot.clone(),
            }
        })
        .collect()
}

/// What an action does, in the words of a step: `click "Add to cart"`, `goto /cart`,
/// `fill "Email" with account.email`, `wait_for text_visible "Products"`.
pub(super) fn description(action: &Action) -> String {
    let element = action.target.as_ref().map(|target| {
        let identity = &target.identity;
        match identity.name.as_deref().or(identity.label.as_deref()) {
            Some(name) if !name.trim().is_empty() => format!("{:?}", name.trim()),
            _ => format!("<{}>", identity.tag),
        }
    });
    let value = action
        .value
        .as_deref()
        .map(|value| format!("{value:?}"))
        .or_else(|| action.value_ref.clone());
    let within = |element: Option<String>| element.map(|element| format!("in {element}"));
    let rest = match action.kind {
        ActionKind::Goto => vec![action.url.clone()],
        ActionKind::Use => vec![action.use_fragment.clone()],
        ActionKind::Press => vec![action.key.clone(), within(element)],
        ActionKind::Select => vec![value, within(element)],
        ActionKind::Fill => vec![element, value.map(|value| format!("with {value}"))],
        // What it waits for says more than the element it waits on, often the page's body.
        ActionKind::WaitFor if !action.expect.is_empty() => {
            let conditions: Vec<String> = action.expect.iter().map(describe).collect();
            vec![Some(conditions.join(" and "))]
        }
        _ => vec![element],
    };
    std::iter::once(action.kind.as_str().to_owned())
        .chain(rest.into_iter().flatten())
        .collect::<Vec<_>>()
        .join(" ")
}
