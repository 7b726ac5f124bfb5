//! The judge: a violation counts only when it reproduces twice more from a fresh session. It is
//! then shrunk by delta debugging (Zeller's ddmin: drop chunks of the sequence while it still
//! breaks the rule, each candidate run from a fresh session, within the budget), and becomes a
//! finding with its regression test.

use std::collections::{BTreeMap, BTreeSet};

use crate::invariant::{Invariant, location_of};
use crate::plan::Action;

use super::emit;
use super::trial::{Budgeted, Extra, Lab, Run, Violation};
use super::{Finding, InvariantStatus};

/// Findings per invariant: one proven violation is what its regression test needs; more of
/// the same rule broken would spend the budget on what is already known.
const PER_INVARIANT: usize = 1;

/// A violation seen once, not yet proven.
pub(super) enum Suspect {
    /// One of the lab's invariants, broken after action `violation.at` of `actions`.
    Invariant {
        actions: Vec<Action>,
        violation: Violation,
    },
    /// A differential oracle: `invariant` checked after action `at` against the state after
    /// action `since` (ids).
    Records {
        actions: Vec<Action>,
        invariant: Box<Invariant>,
        since: String,
        at: String,
        seen: Vec<String>,
    },
}

/// The findings so far, and what did not reproduce.
#[derive(Default)]
pub(super) struct Judged {
    pub(super) findings: Vec<Finding>,
    pub(super) unconfirmed: usize,
    fingerprints: BTreeSet<String>,
    per_invariant: BTreeMap<String, usize>,
}

/// What a reproduction has to show: the invariant broken again.
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
    /// Reproduces, shrinks and records a suspect, unless the same finding is already known.
    pub(super) async fn consider(
        &mut self,
        lab: &Lab<'_>,
        spend: &mut Budgeted<'_>,
        suspect: Suspect,
        attack: &str,
    ) {
        let (actions, claim, seen) = claim_of(lab, &suspect);
        let fingerprint = fingerprint(claim.invariant, &actions);
        let counted = self
            .per_invariant
            .get(&claim.invariant.id)
            .copied()
            .unwrap_or(0);
        if self.fingerprints.contains(&fingerprint) || counted >= PER_INVARIANT {
            return;
        }
        lab.watcher.reasoning(&format!(
            "{:?} looks broken by {attack}; reproducing it twice from a fresh session.",
            claim.invariant.statement
        ));
        for _ in 0..2 {
            let run = lab
                .run(&actions, claim.extra().as_ref(), &[], spend, None)
                .await;
            if claim.broken_in(&run).is_none() {
                self.unconfirmed += 1;
                lab.watcher
                    .reasoning("It did not reproduce, so it does not count.");
                return;
            }
        }
        // A record suspect is already short: the shortest known way to its form (the
        // exploration's), the two visits that count, and the submission.
        let shrunk = match claim.index {
            Some(_) => shrink(lab, spend, &claim, actions).await,
            None => actions,
        };
        let proof = Proof {
            actions: shrunk,
            seen,
            fingerprint,
        };
        self.record(lab, spend, &claim, proof, attack).await;
    }

    /// A proven, shrunk violation as a finding, with its evidence.
    async fn record(
        &mut self,
        lab: &Lab<'_>,
        spend: &mut Budgeted<'_>,
        claim: &Claim<'_>,
        proof: Proof,
        attack: &str,
    ) {
        let Proof {
            actions: shrunk,
            seen,
            fingerprint,
        } = proof;
        let number = self.findings.len() + 1;
        let screenshot = lab
            .config
            .artifacts_dir
            .join("audit")
            .join(format!("finding-{number}.png"));
        let evidence = self.evidence(lab, spend, claim, &shrunk, &screenshot).await;
        // The test ends where the rule is first seen broken: what follows may exist only in
        // the broken app.
        let shrunk = match (&evidence, claim.index) {
            (Some((at, _, _)), Some(_)) => shrunk[..=(*at).min(shrunk.len() - 1)].to_vec(),
            _ => shrunk,
        };
        let (seen, shot) = evidence.map_or((seen, None), |(_, seen, shot)| (seen, shot));
        let mut finding = emit::finding(emit::Proven {
            number,
            invariant: claim.invariant,
            actions: &shrunk,
            since: claim.since.clone(),
            seen,
            attack,
            fingerprint: &fingerprint,
            first_seen: spend.first_seen.unwrap_or_default(),
        });
        finding.screenshots.extend(shot);
        self.fingerprints.insert(fingerprint);
        *self
            .per_invariant
            .entry(claim.invariant.id.clone())
            .or_default() += 1;
        lab.watcher.finding(&finding);
        self.findings.push(finding);
    }

    /// The shrunk sequence run once more, then a screenshot of the page it left; what it saw
    /// when it broke.
    async fn evidence(
        &self,
        lab: &Lab<'_>,
        spend: &mut Budgeted<'_>,
        claim: &Claim<'_>,
        actions: &[Action],
        screenshot: &std::path::Path,
    ) -> Option<(usize, Vec<String>, Option<std::path::PathBuf>)> {
        let run = lab
            .run(actions, claim.extra().as_ref(), &[], spend, None)
            .await;
        let (at, seen) = claim.broken_in(&run)?;
        let shot = lab
            .session
            .screenshot(screenshot)
            .await
            .ok()
            .map(|()| screenshot.to_owned());
        Some((at, seen, shot))
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

/// A reproduced violation: its shrunk actions, what it saw, its fingerprint.
struct Proof {
    actions: Vec<Action>,
    seen: Vec<String>,
    fingerprint: String,
}

/// A suspect's actions (up to its violation), what reproducing it must show, and what it saw.
fn claim_of<'a>(lab: &'a Lab<'_>, suspect: &'a Suspect) -> (Vec<Action>, Claim<'a>, Vec<String>) {
    match suspect {
        Suspect::Invariant { actions, violation } => (
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

/// What makes two findings the same: the rule, where it broke, and the last thing done.
fn fingerprint(invariant: &Invariant, actions: &[Action]) -> String {
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
    format!("{}|{place}|{last}", invariant.id)
}

/// Zeller's ddmin over the actions: the shortest sequence found that still breaks the claim.
/// The differential oracles' two visits (`since`, `at`) are never dropped.
async fn shrink(
    lab: &Lab<'_>,
    spend: &mut Budgeted<'_>,
    claim: &Claim<'_>,
    actions: Vec<Action>,
) -> Vec<Action> {
    let keep =
        |a: &Action| claim.since.as_deref() == Some(&a.id) || claim.at.as_deref() == Some(&a.id);
    let mut current = actions;
    let mut chunks = 2;
    let mut runs = 0;
    let budget = spend.budget().shrink_runs;
    while current.len() >= 2 && runs < budget && !spend.exhausted() {
        let size = current.len().div_ceil(chunks);
        let mut reduced = false;
        for start in (0..current.len()).step_by(size) {
            let end = (start + size).min(current.len());
            if current[start..end].iter().any(keep) {
                continue;
            }
            let candidate: Vec<Action> = current[..start]
                .iter()
                .chain(&current[end..])
                .cloned()
                .collect();
            if candidate.is_empty() {
                continue;
            }
            runs += 1;
            let run = lab
                .run(&candidate, claim.extra().as_ref(), &[], spend, None)
                .await;
            if let Some((at, _)) = claim.broken_in(&run) {
                // Cut what follows the violation, too.
                current = match claim.index {
                    Some(_) => candidate[..=at.min(candidate.len() - 1)].to_vec(),
                    None => candidate,
                };
                chunks = (chunks - 1).max(2);
                reduced = true;
                break;
            }
            if runs >= budget {
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
