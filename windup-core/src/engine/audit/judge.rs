//! The judge: a violation counts only when it reproduces twice more from a fresh session. It is
//! then shrunk by delta debugging (Zeller's ddmin: drop chunks of the sequence while it still
//! breaks the rule, each candidate run from a fresh session, within the budget), and becomes a
//! finding with its regression test.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::invariant::{Invariant, location_of};
use crate::model::plan::{Action, ActionKind};

use super::emit;
use super::model::{self, AuditModel, JUDGE_SCHEMA, JudgeWord, Purpose};
use super::trial::{Budgeted, Extra, Lab, Run, Violation};
use super::{Finding, InvariantStatus, Vetoed};

/// Findings per invariant: one proven violation is what its regression test needs; more of
/// the same rule broken would spend the budget on what is already known.
const PER_INVARIANT: usize = 1;

/// Each action's deadline while shrinking.
const SHRINK_ACTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// A violation seen once, not yet proven.
pub(super) enum Suspect {
    /// One of the lab's invariants, broken after action `violation.at` of `actions`.
    Invariant {
        actions: Vec<Action>,
        violation: Violation,
        /// For a click of a walk, by its id: a click on the page's background as the page was
        /// then, the simpler move the shrinker tries in its place (the click may only have
        /// mattered because it took the focus away).
        blurs: Blurs,
    },
    /// A differential oracle: `invariant` checked after action `at` against the state after
    /// action `since` (ids).
    Records {
        /// How the duplicate was made (`double-submit`): each way is a bug of its own.
        class: &'static str,
        actions: Vec<Action>,
        invariant: Box<Invariant>,
        since: String,
        at: String,
        seen: Vec<String>,
    },
}

/// Clicks on the page's background, by the id of the click each may replace.
pub(super) type Blurs = BTreeMap<String, Action>;

/// The findings so far, and what did not reproduce.
#[derive(Default)]
pub(super) struct Judged {
    pub(super) findings: Vec<Finding>,
    pub(super) unconfirmed: usize,
    /// Proven violations the model's judge vetoed, kept as evidence.
    pub(super) vetoed: Vec<Vetoed>,
    fingerprints: BTreeSet<String>,
    per_invariant: BTreeMap<String, usize>,
}

/// What a reproduction has to show: the invariant broken again.
/// The pages before and after the action that broke a rule.
type Around = (
    Option<crate::model::invariant::Observation>,
    Option<crate::model::invariant::Observation>,
);

struct Claim<'a> {
    invariant: &'a Invariant,
    /// Index into the lab's invariants, for the lab's own.
    index: Option<usize>,
    since: Option<String>,
    at: Option<String>,
}

impl Claim<'_> {
    fn extra(&self) -> Option<Extra<'_>> {
        match (&self.since, &self.at) {
            (Some(since), Some(at)) => Some(Extra {
                invariant: self.invariant,
                since,
                at,
            }),
            _ => None,
        }
    }

    /// Whether `run` broke the claimed invariant, and what it saw then.
    fn broken_in(&self, run: &Run) -> Option<(usize, Vec<String>)> {
        match self.index {
            Some(index) => run
                .violations
                .iter()
                .find(|v| v.invariant == index)
                .map(|v| (v.at, v.seen.clone())),
            None => run
                .extra
                .clone()
                .map(|seen| (run.done.saturating_sub(1), seen)),
        }
    }
}

impl Judged {
    /// Reproduces, shrinks and records a suspect, unless the same finding is already known;
    /// whether it ran anything in the session (which then no longer is where the suspect left it).
    pub(super) async fn consider(
        &mut self,
        lab: &Lab<'_>,
        spend: &mut Budgeted<'_>,
        suspect: Suspect,
        attack: &str,
    ) -> bool {
        let (actions, claim, _) = claim_of(lab, &suspect);
        let no_blurs = Blurs::new();
        let blurs = match &suspect {
            Suspect::Invariant { blurs, .. } => blurs,
            Suspect::Records { .. } => &no_blurs,
        };
        let class = match &suspect {
            Suspect::Records { class, .. } => format!("{}/{class}", claim.invariant.id),
            Suspect::Invariant { .. } => claim.invariant.id.clone(),
        };
        let fingerprint = format!("{class}|{}", fingerprint(&actions));
        let counted = self.per_invariant.get(&class).copied().unwrap_or(0);
        if self.fingerprints.contains(&fingerprint) || counted >= PER_INVARIANT {
            return false;
        }
        lab.watcher.reasoning(&format!(
            "{:?} looks broken by {attack}; reproducing it twice from a fresh session.",
            claim.invariant.statement
        ));
        // Seen within the budget, it is proven even when the budget ends meanwhile.
        spend.begin_proof();
        let Some((seen, screenshot, pages)) = self.reproduce(lab, spend, &claim, &actions).await
        else {
            spend.end_proof();
            self.unconfirmed += 1;
            lab.watcher
                .reasoning("It did not reproduce, so it does not count.");
            return true;
        };
        // A record suspect is already short: the shortest known way to its form (the
        // exploration's), the two visits that count, and the submission.
        let actions = match claim.index {
            Some(_) => shrink(lab, spend, &claim, actions, blurs).await,
            None => actions,
        };
        let proof = Proof {
            actions,
            seen,
            screenshot,
            fingerprint,
            class,
        };
        let word = match (lab.model, pages) {
            (Some(model), (before, Some(after)))
                if claim.invariant.source == crate::model::invariant::Source::Model =>
            {
                let evidence = Evidence {
                    before: before.as_ref(),
                    after: &after,
                };
                match self
                    .judge(lab, model, spend, &claim, &proof, evidence)
                    .await
                {
                    Some(word) if !word.violated => {
                        spend.end_proof();
                        spend.proven.extend(claim.index);
                        self.veto(lab, &claim, proof, word);
                        return true;
                    }
                    word => word,
                }
            }
            _ => None,
        };
        spend.end_proof();
        self.record(lab, spend, &claim, proof, attack, word);
        spend.proven.extend(claim.index);
        true
    }

    /// The suspect run twice more, each from a fresh session; what the second run saw, its
    /// screenshot and the pages around the violation, or `None` when either did not break the
    /// rule. The second reproduction leaves the session on the page that breaks the rule: its
    /// screenshot is the finding's evidence, and what it saw the finding's actual.
    async fn reproduce(
        &self,
        lab: &Lab<'_>,
        spend: &mut Budgeted<'_>,
        claim: &Claim<'_>,
        actions: &[Action],
    ) -> Option<(Vec<String>, Option<std::path::PathBuf>, Around)> {
        let first = lab
            .run(actions, claim.extra().as_ref(), &[], spend, None)
            .await;
        claim.broken_in(&first)?;
        let second = lab
            .run(actions, claim.extra().as_ref(), &[], spend, None)
            .await;
        let (at, seen) = claim.broken_in(&second)?;
        let screenshot = self.screenshot(lab).await;
        let pages = (
            second.pages.get(at).cloned(),
            second.pages.get(at + 1).cloned(),
        );
        Some((seen, screenshot, pages))
    }

    /// Whether a finding already breaks the invariant `id`.
    pub(super) fn broke(&self, id: &str) -> bool {
        self.findings.iter().any(|f| f.invariant_id == id)
    }

    /// The model judge's word on a proven violation of one of its own rules; `None` when it
    /// gave none (the predicate's verdict stands: the judge may only veto).
    async fn judge(
        &self,
        lab: &Lab<'_>,
        model: &AuditModel,
        spend: &mut Budgeted<'_>,
        claim: &Claim<'_>,
        proof: &Proof,
        evidence: Evidence<'_>,
    ) -> Option<JudgeWord> {
        let steps: Vec<String> = proof.actions.iter().map(emit::describe).collect();
        let prompt = model::judge_prompt(
            claim.invariant,
            &steps,
            evidence.before,
            evidence.after,
            &proof.seen,
            model.redactor(),
        );
        let schema = model::judge_schema();
        let answer = model
            .answer(
                Purpose::Judge,
                prompt,
                (JUDGE_SCHEMA, &schema),
                spend.time_left(),
                &mut model::read_judge,
            )
            .await;
        match answer {
            Ok(word) => Some(word),
            Err(stop) => {
                lab.watcher.reasoning(&format!(
                    "The model gave no judgement, so the predicate's verdict stands: {stop}."
                ));
                if stop.stops_the_audit() {
                    spend.stop_for_model(stop.to_string());
                }
                None
            }
        }
    }

    /// A violation the judge vetoed: kept with its reason, never a finding; its rule is not
    /// attacked again.
    fn veto(&mut self, lab: &Lab<'_>, claim: &Claim<'_>, proof: Proof, word: JudgeWord) {
        lab.watcher.reasoning(&format!(
            "The model's judge vetoed the violation of {:?}: {}",
            claim.invariant.id, word.reason
        ));
        self.fingerprints.insert(proof.fingerprint);
        *self.per_invariant.entry(proof.class).or_default() += PER_INVARIANT;
        self.vetoed.push(Vetoed {
            invariant_id: claim.invariant.id.clone(),
            steps: proof.actions.iter().map(emit::describe).collect(),
            seen: proof.seen,
            reason: word.reason,
        });
    }

    /// A proven, shrunk violation as a finding.
    fn record(
        &mut self,
        lab: &Lab<'_>,
        spend: &Budgeted<'_>,
        claim: &Claim<'_>,
        proof: Proof,
        attack: &str,
        word: Option<JudgeWord>,
    ) {
        let Proof {
            actions,
            seen,
            screenshot,
            fingerprint,
            class,
        } = proof;
        let mut finding = emit::finding(emit::Proven {
            number: self.findings.len() + 1,
            invariant: claim.invariant,
            actions: &actions,
            since: claim.since.clone(),
            seen,
            attack,
            fingerprint: &fingerprint,
            first_seen: claim
                .index
                .and_then(|n| spend.first_seen.get(&n).copied())
                .unwrap_or((spend.actions, spend.elapsed())),
        });
        finding.screenshots.extend(screenshot);
        if let Some(word) = word {
            finding.severity = word.severity;
            finding.actual = format!("{} (the predicate saw: {})", word.actual, finding.actual);
            finding.impact = word.impact;
        }
        self.fingerprints.insert(fingerprint);
        *self.per_invariant.entry(class).or_default() += 1;
        lab.watcher.finding(&finding);
        self.findings.push(finding);
    }

    /// A screenshot of the page the session is on, as the next finding's.
    async fn screenshot(&self, lab: &Lab<'_>) -> Option<std::path::PathBuf> {
        let path = lab
            .config
            .artifacts_dir
            .join(format!("finding-{}.png", self.findings.len() + 1));
        lab.session.screenshot(&path).await.ok().map(|()| path)
    }

    /// Each invariant's standing, in the order given.
    pub(super) fn statuses(
        &self,
        invariants: &[Invariant],
        invalid: &BTreeMap<usize, String>,
    ) -> Vec<InvariantStatus> {
        invariants
            .iter()
            .enumerate()
            .map(|(n, invariant)| {
                if let Some(error) = invalid.get(&n) {
                    return InvariantStatus::Invalid {
                        error: error.clone(),
                    };
                }
                match self
                    .findings
                    .iter()
                    .find(|f| f.invariant_id == invariant.id)
                {
                    Some(finding) => InvariantStatus::Violated {
                        finding: finding.id.clone(),
                    },
                    None => InvariantStatus::Unbroken,
                }
            })
            .collect()
    }
}

/// The pages around a reproduced violation: before its last action, and after.
struct Evidence<'a> {
    before: Option<&'a crate::model::invariant::Observation>,
    after: &'a crate::model::invariant::Observation,
}

/// A reproduced violation: its shrunk actions, what it saw, its fingerprint.
struct Proof {
    actions: Vec<Action>,
    seen: Vec<String>,
    screenshot: Option<std::path::PathBuf>,
    fingerprint: String,
    /// The invariant, and for a record suspect how the duplicate was made.
    class: String,
}

/// A suspect's actions (up to its violation), what reproducing it must show, and what it saw.
fn claim_of<'a>(lab: &'a Lab<'_>, suspect: &'a Suspect) -> (Vec<Action>, Claim<'a>, Vec<String>) {
    match suspect {
        Suspect::Invariant {
            actions, violation, ..
        } => (
            actions[..=violation.at].to_vec(),
            Claim {
                invariant: &lab.invariants[violation.invariant],
                index: Some(violation.invariant),
                since: None,
                at: None,
            },
            violation.seen.clone(),
        ),
        Suspect::Records {
            actions,
            invariant,
            class: _,
            since,
            at,
            seen,
        } => (
            actions.clone(),
            Claim {
                invariant,
                index: None,
                since: Some(since.clone()),
                at: Some(at.clone()),
            },
            seen.clone(),
        ),
    }
}

/// Where a rule broke and the last thing done: with the rule, what makes two findings the same.
fn fingerprint(actions: &[Action]) -> String {
    let place = actions
        .iter()
        .rev()
        .find_map(|a| a.url.as_deref().map(location_of))
        .unwrap_or_default();
    let place = place.split('?').next().unwrap_or("").to_owned();
    let last = actions
        .last()
        .map(|a| {
            format!(
                "{} {}",
                a.kind,
                a.target.as_ref().map_or("", |t| t.selector.as_str())
            )
        })
        .unwrap_or_default();
    format!("{place}|{last}")
}

/// The shortest, simplest sequence found that still breaks the claim, within the budget's
/// shrinking runs: Zeller's ddmin over the actions, then each move made simpler (`blurs`: the
/// background clicks that may replace clicks). The differential oracles' two visits (`since`,
/// `at`) are never dropped nor changed.
async fn shrink(
    lab: &Lab<'_>,
    spend: &mut Budgeted<'_>,
    claim: &Claim<'_>,
    actions: Vec<Action>,
    blurs: &Blurs,
) -> Vec<Action> {
    // A candidate usually fails by an action whose control is not there without the actions
    // dropped: it is given less time to appear. A slow page only makes shrinking stop sooner.
    let mut options = lab.options.clone();
    options.default_timeout = options.default_timeout.min(SHRINK_ACTION_TIMEOUT);
    let mut shrinking = Shrinking {
        lab: &Lab {
            options: &options,
            ..*lab
        },
        claim,
        runs: spend.budget().shrink_runs,
        blurs,
    };
    let shortest = shrinking.ddmin(spend, actions).await;
    shrinking.simplify(spend, shortest).await
}

/// A claim being shrunk, and the runs it has left.
struct Shrinking<'a, 'l> {
    lab: &'a Lab<'l>,
    claim: &'a Claim<'a>,
    runs: usize,
    blurs: &'a Blurs,
}

impl Shrinking<'_, '_> {
    fn keeps(&self, action: &Action) -> bool {
        [&self.claim.since, &self.claim.at]
            .iter()
            .any(|id| id.as_deref() == Some(&action.id))
    }

    fn left(&self, spend: &mut Budgeted<'_>) -> bool {
        self.runs > 0 && !spend.exhausted()
    }

    /// Runs `candidate` from a fresh session: when it still breaks the claim, the candidate,
    /// cut after the violation for a claim on one action.
    async fn tries(
        &mut self,
        spend: &mut Budgeted<'_>,
        candidate: Vec<Action>,
    ) -> Option<Vec<Action>> {
        self.runs = self.runs.saturating_sub(1);
        let run = self
            .lab
            .run(&candidate, self.claim.extra().as_ref(), &[], spend, None)
            .await;
        let (at, _) = self.claim.broken_in(&run)?;
        Some(match self.claim.index {
            Some(_) => candidate[..=at.min(candidate.len() - 1)].to_vec(),
            None => candidate,
        })
    }

    /// Zeller's ddmin: chunks dropped while the claim still breaks.
    async fn ddmin(&mut self, spend: &mut Budgeted<'_>, actions: Vec<Action>) -> Vec<Action> {
        let mut current = actions;
        let mut chunks = 2;
        while current.len() >= 2 && self.left(spend) {
            let size = current.len().div_ceil(chunks);
            let mut reduced = false;
            for start in (0..current.len()).step_by(size) {
                let end = (start + size).min(current.len());
                if current[start..end].iter().any(|a| self.keeps(a)) || end - start == current.len()
                {
                    continue;
                }
                let candidate = [&current[..start], &current[end..]].concat();
                if let Some(shorter) = self.tries(spend, candidate).await {
                    current = shorter;
                    chunks = (chunks - 1).max(2);
                    reduced = true;
                    break;
                }
                if !self.left(spend) {
                    break;
                }
            }
            if !reduced {
                if chunks >= current.len() {
                    break;
                }
                chunks = (chunks * 2).min(current.len());
            }
        }
        current
    }

    /// Each move made as simple as still breaks the claim, so that the regression step says
    /// what matters: a field only focused rather than typed in, a click for a double-click, a
    /// click on the page's background for a click whose control did nothing the rule needs.
    /// A move made simpler is tried simpler again while there is a simpler one.
    async fn simplify(&mut self, spend: &mut Budgeted<'_>, actions: Vec<Action>) -> Vec<Action> {
        let mut current = actions;
        let mut i = 0;
        while i < current.len() && self.left(spend) {
            let simpler = simpler(&current[i], self.blurs).filter(|_| !self.keeps(&current[i]));
            if let Some(simpler) = simpler {
                let mut candidate = current.clone();
                candidate[i] = simpler;
                if let Some(shrunk) = self.tries(spend, candidate).await {
                    current = shrunk;
                    continue;
                }
            }
            i += 1;
        }
        current
    }
}

/// The simpler move an action's place may take: typing or filling becomes focusing the field,
/// a double-click a click, a click on a control a click on the page's background (from
/// `blurs`, by the click's id). None for a move with nothing simpler.
fn simpler(action: &Action, blurs: &Blurs) -> Option<Action> {
    let kind = match action.kind {
        ActionKind::Type | ActionKind::Fill if action.target.is_some() => ActionKind::Focus,
        ActionKind::DoubleClick => ActionKind::Click,
        ActionKind::Click => {
            let background = blurs.get(&action.id)?;
            let on = |a: &Action| a.target.as_ref().map(|t| t.selector.clone());
            if on(background) == on(action) {
                return None;
            }
            let mut simpler = background.clone();
            simpler.id.clone_from(&action.id);
            return Some(simpler);
        }
        _ => return None,
    };
    let mut simpler = action.clone();
    simpler.kind = kind;
    if kind == ActionKind::Focus {
        simpler.value = None;
        simpler.value_ref = None;
    }
    Some(simpler)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::{Identity, Target};

    fn on(kind: ActionKind, value: Option<&str>) -> Action {
        let mut action = Action::new("a3", kind);
        action.target = Some(Target {
            frames: Vec::new(),
            selector: "#draft".to_owned(),
            identity: Identity::default(),
        });
        action.value = value.map(str::to_owned);
        action
    }

    #[test]
    fn typing_is_simpler_as_focus_and_a_double_click_as_a_click() {
        let none = Blurs::new();
        for kind in [ActionKind::Type, ActionKind::Fill] {
            let focus = simpler(&on(kind, Some("Tea time")), &none).expect("a simpler move");
            assert_eq!(focus.kind, ActionKind::Focus);
            assert_eq!(focus.value, None);
            assert_eq!(focus.id, "a3", "the claim's visits name actions by id");
            assert_eq!(focus.target, on(kind, None).target);
        }
        let click = simpler(&on(ActionKind::DoubleClick, None), &none).expect("a simpler move");
        assert_eq!(click.kind, ActionKind::Click);
        for kind in [ActionKind::Click, ActionKind::Focus, ActionKind::Press] {
            assert!(simpler(&on(kind, None), &none).is_none(), "{kind:?}");
        }
        assert!(simpler(&Action::new("a1", ActionKind::Fill), &none).is_none());
    }

    #[test]
    fn a_click_is_simpler_as_a_click_on_the_background_the_page_had_then() {
        let mut background = on(ActionKind::Click, None);
        background.id = "b".to_owned();
        background.target.as_mut().unwrap().selector = "h1".to_owned();
        let blurs = Blurs::from([("a3".to_owned(), background)]);
        let blur = simpler(&on(ActionKind::Click, None), &blurs).expect("a simpler move");
        assert_eq!(blur.kind, ActionKind::Click);
        assert_eq!(blur.target.as_ref().unwrap().selector, "h1");
        assert_eq!(blur.id, "a3", "it takes the click's place");
        // Nothing simpler than the background itself, and no background for another click.
        assert!(simpler(&blur, &blurs).is_none());
        let mut other = on(ActionKind::Click, None);
        other.id = "a4".to_owned();
        assert!(simpler(&other, &blurs).is_none());
    }
}
