//! The offline planner: each explicit step is resolved against the live page into an action with
//! a stable selector and the element's identity, then run at once, so that the next step is
//! resolved on the page the previous one led to. The plan it returns has therefore already been
//! executed and verified, end to end.

use std::time::Instant;

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::browser::{BrowserError, Naming, ProbeState, Purpose, Resolved, Unresolved};
use crate::engine::executor::{
    ActionRecord, Execution, Executor, FailureCause, Position, StepFailure,
};
use crate::engine::fragments::FragmentError;
use crate::engine::verifier;
use crate::model::plan::{
    self, Action, ActionKind, GeneratedBy, Identity, PLAN_VERSION, Plan, Postcondition, Target,
};
use crate::model::scenario::Scenario;
use crate::model::steps::{Expectation, FillValue, RoleVerb, Step, StepKind};

/// A plan made by running a scenario's explicit steps, with the run that verified it.
#[derive(Debug, Clone)]
pub struct PlannedRun {
    pub plan: Plan,
    pub execution: Execution,
}

impl PlannedRun {
    /// A plan whose actions have all run on the executor's session, ending on its current page.
    pub(crate) async fn ended(
        plan: Plan,
        actions: Vec<ActionRecord>,
        started: Instant,
        executor: &Executor<'_>,
    ) -> Self {
        // The last look records the page the run ended on once it has loaded (over BiDi a
        // script does not wait for that, as Classic's do).
        executor.session().wait_for_navigation().await;
        executor.observe(&plan.scenario_id).await;
        let final_url = executor
            .session()
            .current_url()
            .await
            .map(|u| u.to_string())
            .unwrap_or_default();
        PlannedRun {
            plan,
            execution: Execution {
                actions,
                duration: started.elapsed(),
                final_url,
            },
        }
    }
}

/// Plans scenarios that carry explicit steps. Embedded, offline: no model, no network.
#[derive(Debug, Default, Clone, Copy)]
pub struct OfflinePlanner;

impl OfflinePlanner {
    /// Plans and runs `scenario` on the executor's session: opens the start page, then resolves and
    /// runs each step in turn, and checks the scenario's own expectations at the end.
    pub async fn plan(
        &self,
        scenario: &Scenario,
        executor: &Executor<'_>,
    ) -> Result<PlannedRun, Box<StepFailure>> {
        let started = Instant::now();
        let of = scenario.steps.len();
        if scenario.steps.is_empty() {
            let at = position(scenario, "task", 0, None);
            return Err(executor
                .failure(
                    at,
                    FailureCause::Refused(
                        "the scenario has no steps, so only a model could plan it: add explicit \
                         steps, or configure [llm] in windup.toml"
                            .into(),
                    ),
                )
                .await);
        }
        executor.open(&scenario.id, &scenario.start_url, of).await?;
        self.plan_from(scenario, executor, Vec::new(), started)
            .await
    }

    /// Plans the scenario's remaining steps on the current page, after `kept` actions that have
    /// already run on it (the verified prefix of a replay that failed at the next step).
    pub async fn plan_from(
        &self,
        scenario: &Scenario,
        executor: &Executor<'_>,
        kept: Vec<Action>,
        started: Instant,
    ) -> Result<PlannedRun, Box<StepFailure>> {
        let of = scenario.steps.len();
        prepare_steps(scenario, executor);
        let mut actions = kept;
        actions.truncate(of);
        let mut records: Vec<ActionRecord> = Vec::with_capacity(of);
        for (index, step) in scenario.steps.iter().enumerate().skip(actions.len()) {
            let action = self.action_for(scenario, step, index, executor).await?;
            let record = match &step.kind {
                StepKind::Use { fragment } => {
                    self.use_fragment(scenario, fragment, &action, index, executor)
                        .await?
                }
                _ => executor
                    .step(&scenario.id, &action, index + 1, of)
                    .await
                    .map_err(|failure| hover_hint(step, failure))?,
            };
            records.push(record);
            actions.push(action);
        }
        if let Some(last) = actions.last_mut() {
            self.finish(scenario, last, executor).await?;
        }
        let plan = Plan {
            plan_version: PLAN_VERSION.to_owned(),
            scenario_id: scenario.id.clone(),
            task: scenario.task.clone(),
            start_url: scenario.start_url.clone(),
            generated_by: GeneratedBy {
                planner: crate::model::plan::PlannerKind::Offline,
                provider: None,
                model: None,
                at: OffsetDateTime::now_utc()
                    .format(&Rfc3339)
                    .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into()),
            },
            actions,
        };
        if let Err(err) = plan::validate(&plan, &scenario.plan_rules()) {
            // A planner bug, not the user's: say so plainly rather than run a bad plan.
            let at = position(scenario, "plan", of, None);
            return Err(executor
                .failure(
                    at,
                    FailureCause::Refused(format!(
                        "the offline planner made an invalid plan: {err}"
                    )),
                )
                .await);
        }
        Ok(PlannedRun::ended(plan, records, started, executor).await)
    }

    /// Runs a `use` step: the fragment's plan when it has one; otherwise the fragment is planned
    /// here, on the page it is used from, and its plan kept for every scenario that uses it.
    async fn use_fragment(
        &self,
        scenario: &Scenario,
        name: &str,
        action: &Action,
        index: usize,
        executor: &Executor<'_>,
    ) -> Result<ActionRecord, Box<StepFailure>> {
        let of = scenario.steps.len();
        let fragments = executor.fragments();
        let failed = |cause: FailureCause| async {
            let at = position(scenario, &action.id, index + 1, Some(ActionKind::Use));
            let cause = FailureCause::Fragment {
                name: name.to_owned(),
                action_id: None,
                cause: Box::new(cause),
            };
            executor.failure(at, cause).await
        };
        match fragments.plan(name) {
            Ok(_) => return executor.step(&scenario.id, action, index + 1, of).await,
            Err(FragmentError::NoPlan(_)) => {}
            Err(err) => return Err(failed(FailureCause::Refused(err.to_string())).await),
        }
        let fragment = match fragments.definition(name) {
            Ok(fragment) => fragment,
            Err(err) => return Err(failed(FailureCause::Refused(err.to_string())).await),
        };
        let started = Instant::now();
        let planned = Box::pin(self.plan_from(&fragment, executor, Vec::new(), started)).await?;
        if let Err(err) = fragments.planned(&fragment, &planned.plan) {
            return Err(failed(FailureCause::Refused(err.to_string())).await);
        }
        if let Err(cause) = executor.after_action(&scenario.id, action).await {
            return Err(failed(cause).await);
        }
        Ok(ActionRecord {
            id: action.id.clone(),
            kind: ActionKind::Use,
            duration: started.elapsed(),
            screenshot: None,
        })
    }

    /// The action for one step, its element resolved on the current page.
    async fn action_for(
        &self,
        scenario: &Scenario,
        step: &Step,
        index: usize,
        executor: &Executor<'_>,
    ) -> Result<Action, Box<StepFailure>> {
        let id = crate::model::plan::step_action_id(index + 1);
        let (kind, lookup) = kind_and_lookup(&step.kind);
        let mut action = Action::new(id.clone(), kind);
        action.step = Some(index + 1);
        set_fields(&step.kind, &mut action);
        if let StepKind::Expect(expectation) = &step.kind {
            let condition = self
                .postcondition(scenario, expectation, &id, index + 1, executor)
                .await?;
            action.expect.push(condition);
        }
        if let Some(lookup) = lookup {
            let at = StepAt {
                scenario,
                id: &id,
                index,
                kind: action.kind,
            };
            let found = resolve(executor, at, lookup).await?;
            action.target = Some(target(found));
        }
        Ok(action)
    }

    /// Tells the executor about the scenario's `holds` expectations, which will be checked
    /// after the action `last_id` (the plan's last): what they compare with is read as the
    /// plan runs. Call it before running a plan that did not come from the scenario's steps.
    pub fn prepare_expectations(
        &self,
        scenario: &Scenario,
        last_id: &str,
        executor: &Executor<'_>,
    ) {
        for expected in &scenario.expect {
            if let Some(condition) = holds_condition(&expected.expectation) {
                executor.prepare_holds(&scenario.id, last_id, &condition);
            }
        }
    }

    /// Checks the scenario's own `expect` items on the current page, after any plan ran: whatever
    /// plan runs, what the author said must hold is checked.
    pub async fn check_expectations(
        &self,
        scenario: &Scenario,
        last: &Action,
        executor: &Executor<'_>,
    ) -> Result<(), Box<StepFailure>> {
        let mut last = last.clone();
        self.finish(scenario, &mut last, executor).await
    }

    /// After the last step has run: the scenario's own expectations, resolved on the page it led
    /// to, join the last action's postconditions and are verified there. An action list that would
    /// end with no postcondition at all gets the URL it ended on.
    pub(crate) async fn finish(
        &self,
        scenario: &Scenario,
        last: &mut Action,
        executor: &Executor<'_>,
    ) -> Result<(), Box<StepFailure>> {
        let of = scenario.steps.len();
        let mut added = Vec::new();
        for expected in &scenario.expect {
            let condition = self
                .postcondition(scenario, &expected.expectation, &last.id, of, executor)
                .await?;
            if !last.expect.contains(&condition) && !added.contains(&condition) {
                added.push(condition);
            }
        }
        if last.expect.is_empty() && added.is_empty() {
            let ended = executor
                .session()
                .current_url()
                .await
                .map_err(browser_failure);
            match ended {
                Ok(url) => added.push(Postcondition::UrlMatches {
                    pattern: glob_literal(url.path()),
                }),
                Err(cause) => {
                    let at = position_of(scenario, &last.id, of, last.kind);
                    return Err(executor.failure(at, cause).await);
                }
            }
        }
        let deadline = Instant::now() + executor.options().default_timeout;
        let mut baseline = executor.baseline(&scenario.id, last, &added);
        let verdict = verifier::verify(
            executor.session(),
            &executor.options().base_url,
            &added,
            &mut baseline,
            deadline,
        )
        .await;
        executor.keep_events(&scenario.id, &last.id, baseline);
        let cause = match verdict {
            Ok(Ok(())) => {
                last.expect.extend(added);
                return Ok(());
            }
            Ok(Err(unmet)) => FailureCause::Unmet(unmet),
            Err(err) => browser_failure(err),
        };
        let at = position_of(scenario, &last.id, of, last.kind);
        Err(executor.failure(at, cause).await)
    }

    /// A postcondition for an expectation; element names are resolved on the current page.
    async fn postcondition(
        &self,
        scenario: &Scenario,
        expectation: &Expectation,
        id: &str,
        position: usize,
        executor: &Executor<'_>,
    ) -> Result<Postcondition, Box<StepFailure>> {
        let at = StepAt {
            scenario,
            id,
            index: position.saturating_sub(1),
            kind: ActionKind::WaitFor,
        };
        Ok(match expectation {
            Expectation::Text(text) => Postcondition::TextVisible { text: text.clone() },
            Expectation::NoText(text) => Postcondition::TextAbsent { text: text.clone() },
            Expectation::Url(pattern) => Postcondition::UrlMatches {
                pattern: pattern.clone(),
            },
            Expectation::Holds { predicate, since } => Postcondition::Holds {
                predicate: predicate.source().to_owned(),
                since: since.map(plan::step_action_id),
            },
            Expectation::Value { field, value } => {
                let lookup = Lookup {
                    naming: Naming::Name(field),
                    within: None,
                    purpose: Purpose::Field,
                };
                let found = resolve(executor, at, lookup).await?;
                Postcondition::InputValue {
                    frames: found.frames,
                    selector: found.selector,
                    value: value.clone(),
                }
            }
            Expectation::Visible(name) => {
                let lookup = Lookup {
                    naming: Naming::Name(name),
                    within: None,
                    purpose: Purpose::Find,
                };
                let found = resolve(executor, at, lookup).await?;
                Postcondition::ElementVisible {
                    frames: found.frames,
                    selector: found.selector,
                }
            }
            Expectation::Hidden(name) => {
                // Something that should be hidden may already be gone: then its name must not show.
                let deadline = Instant::now();
                match executor
                    .session()
                    .resolve(name, None, Purpose::Find, deadline)
                    .await
                    .map_err(browser_failure)
                {
                    Ok(Ok(found)) => Postcondition::ElementHidden {
                        frames: found.frames,
                        selector: found.selector,
                    },
                    Ok(Err(_)) => Postcondition::TextAbsent { text: name.clone() },
                    Err(cause) => {
                        let at = position_of(scenario, id, position, ActionKind::WaitFor);
                        return Err(executor.failure(at, cause).await);
                    }
                }
            }
        })
    }
}

/// The postcondition of a `holds` expectation: it needs nothing of the page to be planned. Its
/// `since step N` is the action that carries out step N.
fn holds_condition(expectation: &Expectation) -> Option<Postcondition> {
    match expectation {
        Expectation::Holds { predicate, since } => Some(Postcondition::Holds {
            predicate: predicate.source().to_owned(),
            since: since.map(plan::step_action_id),
        }),
        _ => None,
    }
}

/// Tells the executor about every `holds` of the scenario's steps and of its `expect:` (checked
/// after the last step) before any step runs, so that the pages they compare with are read.
fn prepare_steps(scenario: &Scenario, executor: &Executor<'_>) {
    for (index, step) in scenario.steps.iter().enumerate() {
        if let StepKind::Expect(expectation) = &step.kind
            && let Some(condition) = holds_condition(expectation)
        {
            executor.prepare_holds(&scenario.id, &plan::step_action_id(index + 1), &condition);
        }
    }
    let last = plan::step_action_id(scenario.steps.len());
    OfflinePlanner.prepare_expectations(scenario, &last, executor);
}

/// How a step names the element it needs, where, and for what.
#[derive(Debug, Clone, Copy)]
struct Lookup<'a> {
    naming: Naming<'a>,
    within: Option<&'a str>,
    purpose: Purpose,
}

/// The step a lookup is for, to place its failure.
#[derive(Clone, Copy)]
struct StepAt<'a> {
    scenario: &'a Scenario,
    id: &'a str,
    index: usize,
    kind: ActionKind,
}

/// The action kind for a step, and the element it names, if any: how to find it, in what
/// container, and what for.
fn kind_and_lookup(step: &StepKind) -> (ActionKind, Option<Lookup<'_>>) {
    match step {
        StepKind::GoTo { .. } => (ActionKind::Goto, None),
        StepKind::Click { name, within } => {
            (ActionKind::Click, Some(named(name, within, Purpose::Click)))
        }
        StepKind::Fill { field, within, .. } => {
            (ActionKind::Fill, Some(named(field, within, Purpose::Fill)))
        }
        StepKind::Select { field, .. } => {
            let lookup = named(field, &None, Purpose::Select);
            (ActionKind::Select, Some(lookup))
        }
        StepKind::Check { name, within } => {
            (ActionKind::Check, Some(named(name, within, Purpose::Check)))
        }
        StepKind::Uncheck { name, within } => {
            let lookup = named(name, within, Purpose::Check);
            (ActionKind::Uncheck, Some(lookup))
        }
        StepKind::Hover { name, within } => {
            (ActionKind::Hover, Some(named(name, within, Purpose::Hover)))
        }
        // A double click opens an editor on what shows a value (a row's label, a card's
        // title) as often as it sends a form: any element, by its text too.
        StepKind::DoubleClick { name, within } => {
            let lookup = named(name, within, Purpose::Hover);
            (ActionKind::DoubleClick, Some(lookup))
        }
        StepKind::Reload => (ActionKind::Reload, None),
        StepKind::Back => (ActionKind::Back, None),
        StepKind::Forward => (ActionKind::Forward, None),
        StepKind::Type { field, within, .. } => {
            (ActionKind::Type, Some(named(field, within, Purpose::Fill)))
        }
        StepKind::Focus { name, within } => {
            (ActionKind::Focus, Some(named(name, within, Purpose::Find)))
        }
        StepKind::Press {
            field: Some(field),
            within,
            ..
        } => (ActionKind::Press, Some(named(field, within, Purpose::Find))),
        StepKind::ByRole { verb, role, within } => by_role(*verb, role, within),
        StepKind::Press { .. } => (ActionKind::Press, None),
        StepKind::WaitFor { name, within } => {
            let lookup = named(name, within, Purpose::Find);
            (ActionKind::WaitFor, Some(lookup))
        }
        StepKind::Use { .. } => (ActionKind::Use, None),
        StepKind::Expect(_) => (ActionKind::WaitFor, None),
    }
}

/// The fields a step carries into its action besides the element: url, value, key, fragment; an
/// expectation acts on the page body.
fn set_fields(step: &StepKind, action: &mut Action) {
    match step {
        StepKind::GoTo { path } => action.url = Some(path.clone()),
        StepKind::Fill { value, .. } => match value {
            FillValue::Text(text) => action.value = Some(text.clone()),
            FillValue::Account(key) => action.value_ref = Some(format!("account.{key}")),
        },
        StepKind::Select { option, .. } => action.value = Some(option.clone()),
        StepKind::Press { key, .. } => action.key = Some(key.clone()),
        StepKind::Type { text, .. } => action.value = Some(text.clone()),
        StepKind::Use { fragment } => action.use_fragment = Some(fragment.clone()),
        StepKind::Expect(_) => action.target = Some(page_body()),
        StepKind::Click { .. }
        | StepKind::Check { .. }
        | StepKind::Uncheck { .. }
        | StepKind::Hover { .. }
        | StepKind::DoubleClick { .. }
        | StepKind::Reload
        | StepKind::Back
        | StepKind::Forward
        | StepKind::Focus { .. }
        | StepKind::ByRole { .. }
        | StepKind::WaitFor { .. } => {}
    }
}

/// A lookup for the element a step names, inside the container it names, if any.
fn named<'a>(name: &'a str, within: &'a Option<String>, purpose: Purpose) -> Lookup<'a> {
    Lookup {
        naming: Naming::Name(name),
        within: within.as_deref(),
        purpose,
    }
}

/// The kind and lookup for a step that finds its element by ARIA role.
fn by_role<'a>(verb: RoleVerb, role: &'a str, within: &'a str) -> (ActionKind, Option<Lookup<'a>>) {
    let (kind, purpose) = match verb {
        RoleVerb::Click => (ActionKind::Click, Purpose::Click),
        RoleVerb::Check => (ActionKind::Check, Purpose::Check),
        RoleVerb::Uncheck => (ActionKind::Uncheck, Purpose::Check),
        RoleVerb::Hover => (ActionKind::Hover, Purpose::Hover),
    };
    let lookup = Lookup {
        naming: Naming::Role(role),
        within: Some(within),
        purpose,
    };
    (kind, Some(lookup))
}

async fn resolve(
    executor: &Executor<'_>,
    at: StepAt<'_>,
    lookup: Lookup<'_>,
) -> Result<Resolved, Box<StepFailure>> {
    let deadline = Instant::now() + executor.options().default_timeout;
    let answer = executor
        .session()
        .find(lookup.naming, lookup.within, lookup.purpose, deadline)
        .await;
    let cause = match answer {
        Ok(Ok(found)) => return Ok(found),
        Ok(Err(unresolved)) => FailureCause::Unresolved(explain(lookup, &unresolved)),
        Err(err) => browser_failure(err),
    };
    let position = position_of(at.scenario, at.id, at.index + 1, at.kind);
    Err(executor.failure(position, cause).await)
}

/// A control found in its container but hidden may show only while the pointer is over the
/// container, as a row's delete button does: say how to write that.
fn hover_hint(step: &Step, mut failure: Box<StepFailure>) -> Box<StepFailure> {
    let within = match &step.kind {
        StepKind::Click {
            within: Some(within),
            ..
        }
        | StepKind::Check {
            within: Some(within),
            ..
        }
        | StepKind::Uncheck {
            within: Some(within),
            ..
        } => within,
        StepKind::ByRole { within, .. } => within,
        _ => return failure,
    };
    if let FailureCause::NotActionable { probe, .. } = &mut failure.cause
        && probe.state == ProbeState::Hidden
    {
        probe.detail.push_str(&format!(
            "; if it shows only while the pointer is over {within:?}, add `hover \"{within}\"` \
             before this step"
        ));
    }
    failure
}

fn browser_failure(err: BrowserError) -> FailureCause {
    FailureCause::Browser(err)
}

/// Why a name did not resolve, with what would fix the step.
fn explain(lookup: Lookup<'_>, unresolved: &Unresolved) -> String {
    let Lookup {
        naming,
        within,
        purpose,
    } = lookup;
    let what = match purpose {
        Purpose::Click => "that can be clicked",
        Purpose::Fill => "that can be typed into",
        Purpose::Select => "that is a list to choose from",
        Purpose::Check => "that is a checkbox or radio button",
        Purpose::Field => "that is a form field",
        Purpose::Find | Purpose::Hover => "",
    };
    let scope = within.map(|w| format!(" in {w:?}")).unwrap_or_default();
    let name = match naming {
        Naming::Name(name) => format!("{name:?}"),
        Naming::Role(role) => format!("a {role}"),
    };
    match unresolved {
        Unresolved::Missing { known, closed } => {
            let mut text = match naming {
                Naming::Name(name) => {
                    format!("no element {what} is named {name:?}{scope} on this page")
                }
                Naming::Role(role) => {
                    format!("no {role} is the only one of its kind{scope} on this page")
                }
            }
            .replace("  ", " ");
            if !known.is_empty() {
                let names: Vec<String> = known.iter().map(|k| format!("{k:?}")).collect();
                text.push_str(&format!("; names here include {}", names.join(", ")));
            }
            if !closed.is_empty() {
                text.push_str(&format!(
                    "; {} keep their content in a closed shadow root, which Windup cannot look \
                     into: ask for an open shadow root, or test that part of the page another way",
                    closed.join(", ")
                ));
            }
            text
        }
        Unresolved::Ambiguous { candidates } => {
            let listed: Vec<String> = candidates
                .iter()
                .map(|(described, selector)| format!("{described} ({selector})"))
                .collect();
            format!(
                "{name}{scope} matches {} elements: {}; add `in \"…\"` naming the part of the page it is in",
                candidates.len(),
                listed.join("; ")
            )
        }
    }
}

/// A path as a glob that matches only itself.
fn glob_literal(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn target(resolved: Resolved) -> Target {
    Target {
        frames: resolved.frames,
        selector: resolved.selector,
        identity: resolved.identity,
    }
}

/// The target of a pure check: the page itself.
fn page_body() -> Target {
    Target {
        frames: Vec::new(),
        selector: "body".into(),
        identity: Identity {
            tag: "body".into(),
            ..Identity::default()
        },
    }
}

fn position<'a>(
    scenario: &'a Scenario,
    id: &'a str,
    position: usize,
    kind: Option<ActionKind>,
) -> Position<'a> {
    Position {
        scenario: &scenario.id,
        action_id: id,
        // The planner names the action for step n `s{n}`; other ids ("plan", "task") are none.
        step: (position > 0 && id == crate::model::plan::step_action_id(position))
            .then_some(position),
        position,
        of: scenario.steps.len(),
        kind,
        selector: None,
    }
}

fn position_of<'a>(
    scenario: &'a Scenario,
    id: &'a str,
    position_: usize,
    kind: ActionKind,
) -> Position<'a> {
    position(scenario, id, position_, Some(kind))
}
