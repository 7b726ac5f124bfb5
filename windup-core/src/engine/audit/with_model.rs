//! The audit's steps that ask its model: the rules it proposes from the explored pages, each
//! checked on a page of its surface before it is held, and the attacks it plans on one unbroken
//! rule at a time, run like any of the audit's moves.

use std::collections::BTreeSet;

use crate::model::invariant::{Invariant, Probe};
use crate::model::plan::{Action, ActionKind};

use super::explore::{Explored, Page};
use super::judge::{Judged, Suspect};
use super::model::{
    self, ATTACK_SCHEMA, AuditModel, ModelStop, PlannedAttack, Purpose, RULES_SCHEMA, Shown,
};
use super::moves::numbered;
use super::trial::{Budgeted, Lab};

fn shown(page: &Page) -> Shown<'_> {
    Shown {
        location: &page.location,
        digest: &page.digest,
        outline: page.outline.as_deref(),
        screenshot: page.screenshot.as_ref(),
    }
}

/// Tells what stopped the model; a budget stops the whole audit.
fn stopped(lab: &Lab<'_>, spend: &mut Budgeted<'_>, stop: &ModelStop) {
    lab.watcher.reasoning(&format!("The model: {stop}."));
    if stop.stops_the_audit() {
        spend.stop_for_model(stop.to_string());
    }
}

/// The rules the model proposes for the explored app, each held only once its predicate
/// parses and reads something on a page of its surface; the others go back to the model.
pub(super) async fn rules(
    lab: &Lab<'_>,
    model: &AuditModel,
    explored: &Explored,
    spend: &mut Budgeted<'_>,
) -> Vec<Invariant> {
    let pages: Vec<Shown<'_>> = explored
        .pages
        .iter()
        .take(model::MAX_PAGES)
        .map(shown)
        .collect();
    let held: Vec<&Invariant> = lab.invariants.iter().collect();
    let mut prompt = model::rules_prompt(&pages, &held, model.redactor());
    let schema = model::rules_schema();
    let mut kept: Vec<Invariant> = Vec::new();
    for answer in 0..=model.semantic_retries() {
        let retry = (answer > 0).then_some(crate::engine::ledger::RetryKind::Semantic);
        let text = match model
            .ask_once(
                Purpose::Rules,
                &prompt,
                (RULES_SCHEMA, &schema),
                retry,
                spend.time_left(),
            )
            .await
        {
            Ok(text) => text,
            Err(stop) => {
                stopped(lab, spend, &stop);
                break;
            }
        };
        let mut taken: Vec<&str> = lab.invariants.iter().map(|i| i.id.as_str()).collect();
        taken.extend(kept.iter().map(|i| i.id.as_str()));
        let (proposed, mut problems) = model::read_rules(&text, &taken);
        for invariant in proposed {
            match readable(lab, explored, &invariant, spend).await {
                Ok(()) => kept.push(invariant),
                Err(problem) => problems.push(problem),
            }
        }
        if problems.is_empty() {
            break;
        }
        model.mark_unusable(Purpose::Rules);
        lab.watcher.reasoning(&format!(
            "{} of the model's rules cannot be held as written: {}",
            problems.len(),
            problems.join("; ")
        ));
        model.follow_up(&mut prompt, &text, &problems, &kept);
    }
    kept
}

/// Whether a rule can be read where it applies: its surface covers an explored page, and on
/// the nearest one at least one of its selectors finds something.
async fn readable(
    lab: &Lab<'_>,
    explored: &Explored,
    invariant: &Invariant,
    spend: &mut Budgeted<'_>,
) -> Result<(), String> {
    let Some(page) = nearest(explored, invariant) else {
        let seen: Vec<&str> = explored.pages.iter().map(|p| p.location.as_str()).collect();
        return Err(format!(
            "rule {:?}: its surface {} covers none of the pages explored ({}); give a surface \
             over those paths",
            invariant.id,
            invariant.surface.url,
            seen.join(", ")
        ));
    };
    let probes: Vec<Probe> = invariant.probes().into_iter().collect();
    let run = lab.run(&page.path, None, &probes, spend, None).await;
    let Some(last) = run.pages.last().filter(|_| run.failed.is_none()) else {
        // The page could not be reached again: that says nothing about the rule.
        return Ok(());
    };
    let found = last
        .found
        .iter()
        .any(|f| probes.contains(&f.probe) && !f.texts.is_empty());
    if found {
        return Ok(());
    }
    let selectors: BTreeSet<&str> = probes.iter().map(|p| p.selector.as_str()).collect();
    Err(format!(
        "rule {:?}: on {}, none of its selectors finds anything ({}); copy selectors from the \
         page's controls and text",
        invariant.id,
        page.location,
        selectors.into_iter().collect::<Vec<_>>().join(", ")
    ))
}

/// The explored page on a rule's surface that is quickest to reach.
fn nearest<'a>(explored: &'a Explored, invariant: &Invariant) -> Option<&'a Page> {
    explored
        .pages
        .iter()
        .filter(|p| invariant.surface.covers(&p.location, None))
        .min_by_key(|p| p.path.len())
}

/// The attacks the model plans: one per rule of the app's own (the user's, the model's), the
/// quickest to reach first, each from the nearest page of its surface, while the rule is still
/// unbroken.
pub(super) struct Planned<'a> {
    targets: std::collections::VecDeque<(&'a Invariant, &'a Page)>,
}

impl<'a> Planned<'a> {
    pub(super) fn new(invariants: &'a [Invariant], explored: &'a Explored) -> Self {
        let mut targets: Vec<(&Invariant, &Page)> = invariants
            .iter()
            .filter(|i| i.source != crate::model::invariant::Source::Generic)
            .filter_map(|i| nearest(explored, i).map(|page| (i, page)))
            .collect();
        targets.sort_by_key(|(_, page)| page.path.len());
        Planned {
            targets: targets.into(),
        }
    }

    /// Asks for and runs the attack on the next rule still unbroken; false when none is left.
    pub(super) async fn next(
        &mut self,
        lab: &Lab<'_>,
        model: &AuditModel,
        spend: &mut Budgeted<'_>,
        judged: &mut Judged,
    ) -> bool {
        while let Some((invariant, page)) = self.targets.pop_front() {
            if judged.broke(&invariant.id) {
                continue;
            }
            if let Some(planned) = plan(lab, model, invariant, page, spend).await {
                run_planned(lab, invariant, page, planned, spend, judged).await;
            }
            return true;
        }
        false
    }
}

/// The model's attack on one rule from `page`, when it gave one the audit may run.
async fn plan(
    lab: &Lab<'_>,
    model: &AuditModel,
    invariant: &Invariant,
    page: &Page,
    spend: &mut Budgeted<'_>,
) -> Option<PlannedAttack> {
    let prompt = model::attack_prompt(invariant, &shown(page), model.redactor());
    let schema = model::attack_schema();
    let answer = model
        .answer(
            Purpose::Attack,
            prompt,
            (ATTACK_SCHEMA, &schema),
            spend.time_left(),
            &mut |text: &str| model::read_attack(text, &invariant.id, model.account_keys()),
        )
        .await;
    let planned = match answer {
        Ok(planned) => planned,
        Err(stop) => {
            stopped(lab, spend, &stop);
            return None;
        }
    };
    if let Err(why) = allowed(lab, &planned.actions) {
        lab.watcher.reasoning(&format!(
            "Refused the model's attack on {:?}: {why}.",
            invariant.id
        ));
        return None;
    }
    lab.watcher.reasoning(&format!(
        "The model attacks {:?} from {}, watching {}: {}",
        invariant.id,
        page.location,
        planned.watch.join(", "),
        planned.rationale
    ));
    Some(planned)
}

/// Runs a planned attack from a fresh session, the way to its page first, and hands every
/// violation to the judge.
async fn run_planned(
    lab: &Lab<'_>,
    invariant: &Invariant,
    page: &Page,
    planned: PlannedAttack,
    spend: &mut Budgeted<'_>,
    judged: &mut Judged,
) {
    let mut actions = page.path.clone();
    actions.extend(planned.actions);
    let label = format!("the model's attack on {}", invariant.id);
    let actions = numbered(actions);
    spend.attacks += 1;
    let run = lab.run(&actions, None, &[], spend, Some(&label)).await;
    if let Some(why) = &run.failed {
        lab.watcher.reasoning(&format!(
            "The model's attack on {:?} stopped after {} of its {} actions: {why}",
            invariant.id,
            run.done,
            actions.len()
        ));
    }
    for violation in &run.violations {
        let suspect = Suspect::Invariant {
            actions: actions.clone(),
            violation: violation.clone(),
            blurs: super::judge::Blurs::new(),
        };
        judged.consider(lab, spend, suspect, &label).await;
    }
}

/// Why the audit will not run a model's actions: a `goto` off the target's origin (and those it
/// allows), or to a denied path, or a denied control.
fn allowed(lab: &Lab<'_>, actions: &[Action]) -> Result<(), String> {
    let config = lab.config;
    for action in actions {
        if action.kind == ActionKind::Goto {
            let url = action.url.as_deref().unwrap_or("");
            let Ok(to) = lab.options.base_url.join(url) else {
                return Err(format!(
                    "action {} goes to {url:?}, which is not a URL",
                    action.id
                ));
            };
            if !lab.options.allows(&to) {
                return Err(format!(
                    "action {} goes to {}, off the audited origin",
                    action.id,
                    to.origin().ascii_serialization()
                ));
            }
            if config
                .deny
                .denies_location(&crate::model::invariant::location_of(to.as_str()))
            {
                return Err(format!(
                    "action {} goes to {url}, which is denied",
                    action.id
                ));
            }
        }
        if let Some(target) = &action.target {
            let name = target.identity.name.as_deref().unwrap_or("");
            if config.deny.denies_name(name) {
                return Err(format!(
                    "action {} acts on {name:?}, which is denied",
                    action.id
                ));
            }
        }
    }
    Ok(())
}
