//! The app's own code as the audit's compass (docs/audit.md#coverage): how many edges of its
//! scripts the audit has reached, when, and the walks' prefixes that reached new ones — the
//! corpus a coverage-guided fuzzer keeps, for a web app. A walk of the `coverage` strategy starts,
//! more often than not, from one of those prefixes: replayed whole and extended, or cut short and
//! varied from there.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use serde::Serialize;

use crate::model::plan::Action;

use super::rng::Rng;

/// The corpus keeps at most this many prefixes: the least productive go first.
const CORPUS: usize = 64;

/// Of the walks started while the corpus holds a prefix, the share that start from one. A
/// prefix is replayed in the browser, action by action, at the cost of a fresh walk's actions:
/// half the walks stay fresh, to find what only a fresh walk's first actions reach.
const FROM_CORPUS: f64 = 0.5;

/// How often, at most, the audit tells how many edges it reached.
const TELL_EVERY: Duration = Duration::from_millis(500);

/// What the audit knows of the app's code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CodeCoverage {
    /// Why edges are not counted (`--no-coverage`, a Classic session, a browser that would not
    /// hold requests); `None` while they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub off: Option<String>,
    /// Distinct edges seen taken.
    pub reached: usize,
    /// Edges of every script instrumented.
    pub edges: u64,
    /// Scripts instrumented.
    pub scripts: usize,
    /// Scripts served as they came (they did not parse), and requests fetched by the browser
    /// itself instead.
    pub uncounted: usize,
    /// Edges reached over the audit's time: (milliseconds since it began, edges), each time
    /// the count grew, at most twice a second.
    pub over_time: Vec<(u64, usize)>,
    /// With the `coverage` strategy: the walk prefixes kept because they reached new edges
    /// (the corpus holds the best 64 of them), and the walks that started from one.
    #[serde(skip_serializing_if = "is_zero")]
    pub prefixes: usize,
    #[serde(skip_serializing_if = "is_zero")]
    pub from_prefix: usize,
    /// Each edge reached, by its script's id (a hash of the script's text) and its number, so
    /// that runs can be merged; not stored (the count and timeline are).
    #[serde(skip)]
    pub taken: BTreeSet<(String, u32)>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The coverage as the audit follows it, and the corpus of productive prefixes.
#[derive(Debug, Default)]
pub(super) struct Compass {
    pub(super) code: CodeCoverage,
    corpus: Vec<Seed>,
    told_at: Option<Duration>,
    /// The edges the walks' own observations saw taken. What is new to a walk is judged by
    /// these alone, not by what exploration or a judge's replays reached: those depend on how
    /// quickly the app rendered, and the corpus (so every later walk) would then differ from run
    /// to run of one seed.
    walked: HashSet<(String, u32)>,
}

/// A prefix of a walk that reached edges nothing had reached before it.
#[derive(Debug, Clone)]
struct Seed {
    actions: Vec<Action>,
    /// The new edges its last action reached.
    found: usize,
    /// Walks started from it.
    picked: u32,
}

/// Where a walk starts: the start page alone, or the actions of a prefix first.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Start {
    Fresh,
    From(Vec<Action>),
}

impl Compass {
    /// Counting is off: says why.
    pub(super) fn off(why: String) -> Compass {
        Compass {
            code: CodeCoverage {
                off: Some(why),
                ..CodeCoverage::default()
            },
            ..Compass::default()
        }
    }

    /// Takes the session's count after an observation, at `at` into the audit: how many edges
    /// are new, and whether it is time to tell it.
    pub(super) fn update(
        &mut self,
        stats: Option<crate::browser::CoverageStats>,
        at: Duration,
    ) -> (usize, bool) {
        let Some(stats) = stats else {
            return (0, false);
        };
        let new = stats.reached.saturating_sub(self.code.reached);
        self.code.reached = stats.reached;
        self.code.edges = stats.edges();
        self.code.scripts = stats.scripts.len();
        self.code.uncounted = stats.refused.len() + stats.unfetched as usize;
        let due = self.told_at.is_none_or(|told| at >= told + TELL_EVERY);
        let tell = new > 0 && due;
        if tell {
            self.told_at = Some(at);
            self.code.over_time.push((
                u64::try_from(at.as_millis()).unwrap_or(u64::MAX),
                stats.reached,
            ));
        }
        (new, tell)
    }

    /// The audit's last count goes on the timeline, whether or not it was told, and the edges
    /// the session saw taken are kept.
    pub(super) fn close(&mut self, at: Duration, taken: BTreeSet<(String, u32)>) {
        self.code.taken = taken;
        let last = self.code.over_time.last().map(|&(_, n)| n);
        if self.code.off.is_none() && last != Some(self.code.reached) {
            let at = u64::try_from(at.as_millis()).unwrap_or(u64::MAX);
            self.code.over_time.push((at, self.code.reached));
        }
    }

    /// Notes the edges a walk's observation saw taken; how many no walk had taken before.
    pub(super) fn walked(&mut self, edges: &BTreeMap<String, Vec<u32>>) -> usize {
        let mut new = 0;
        for (script, numbers) in edges {
            for &number in numbers {
                new += usize::from(self.walked.insert((script.clone(), number)));
            }
        }
        new
    }

    /// Keeps `actions` (a walk's prefix whose last action reached `found` new edges).
    pub(super) fn keep(&mut self, actions: &[Action], found: usize) {
        if found == 0 || actions.is_empty() {
            return;
        }
        self.code.prefixes += 1;
        self.corpus.push(Seed {
            actions: actions.to_vec(),
            found,
            picked: 0,
        });
        if self.corpus.len() > CORPUS
            && let Some(weakest) = (0..self.corpus.len()).min_by(|&a, &b| {
                self.energy(a)
                    .partial_cmp(&self.energy(b))
                    .unwrap_or(std::cmp::Ordering::Equal)
            })
        {
            self.corpus.remove(weakest);
        }
    }

    /// How much a prefix deserves another walk: what it found, less each time it was picked,
    /// and less the longer it takes to replay (as a fuzzer favours its small, fast inputs).
    fn energy(&self, index: usize) -> f64 {
        let seed = &self.corpus[index];
        (1.0 + seed.found as f64).ln_1p()
            / f64::from(1 + seed.picked)
            / (seed.actions.len() as f64).sqrt()
    }

    /// Where the next walk starts: most often, while the corpus holds prefixes, from one of them
    /// (by its energy), replayed whole to be extended or cut at a random action to be varied
    /// from there; otherwise from the start page.
    pub(super) fn start(&mut self, rng: &mut Rng) -> Start {
        if self.corpus.is_empty() || rng.unit() >= FROM_CORPUS {
            return Start::Fresh;
        }
        let energies: Vec<f64> = (0..self.corpus.len()).map(|i| self.energy(i)).collect();
        let Some(index) = rng.weighted(&energies) else {
            return Start::Fresh;
        };
        self.code.from_prefix += 1;
        let seed = &mut self.corpus[index];
        seed.picked += 1;
        let whole = seed.actions.len();
        let keep = if rng.unit() < 0.5 || whole == 1 {
            whole
        } else {
            1 + rng.below(whole - 1)
        };
        Start::From(seed.actions[..keep].to_vec())
    }

    /// How many prefixes the corpus holds.
    #[cfg(test)]
    pub(super) fn corpus_len(&self) -> usize {
        self.corpus.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::browser::CoverageStats;

    fn stats(reached: usize) -> Option<CoverageStats> {
        Some(CoverageStats {
            scripts: [("abc".to_owned(), 40)].into_iter().collect(),
            reached,
            ..CoverageStats::default()
        })
    }

    fn click(n: usize) -> Action {
        let mut action = Action::new("a1", crate::model::plan::ActionKind::Click);
        action.target = Some(crate::model::plan::Target {
            frames: Vec::new(),
            selector: format!("#b{n}"),
            identity: crate::model::plan::Identity::default(),
        });
        action
    }

    #[test]
    fn new_edges_are_counted_and_told_at_most_twice_a_second() {
        let mut compass = Compass::default();
        assert_eq!(
            compass.update(stats(5), Duration::from_millis(100)),
            (5, true)
        );
        assert_eq!(
            compass.update(stats(5), Duration::from_millis(300)),
            (0, false)
        );
        assert_eq!(
            compass.update(stats(7), Duration::from_millis(400)),
            (2, false)
        );
        assert_eq!(
            compass.update(stats(9), Duration::from_millis(700)),
            (2, true)
        );
        assert_eq!(compass.update(None, Duration::from_millis(900)), (0, false));
        compass.close(Duration::from_millis(1000), BTreeSet::new());
        assert_eq!(compass.code.over_time, vec![(100, 5), (700, 9)]);
        assert_eq!((compass.code.edges, compass.code.scripts), (40, 1));
        let off = Compass::off("not asked for".to_owned());
        assert_eq!(off.code.off.as_deref(), Some("not asked for"));
    }

    #[test]
    fn what_is_new_to_a_walk_is_judged_by_the_walks_alone() {
        let mut compass = Compass::default();
        let edges = |pairs: &[(&str, &[u32])]| -> BTreeMap<String, Vec<u32>> {
            pairs
                .iter()
                .map(|(s, n)| ((*s).to_owned(), n.to_vec()))
                .collect()
        };
        assert_eq!(compass.walked(&edges(&[("a", &[1, 2]), ("b", &[1])])), 3);
        assert_eq!(compass.walked(&edges(&[("a", &[2, 3])])), 1);
        // The session's count (exploration's too) says nothing of what is new to the walks.
        assert_eq!(compass.update(stats(40), Duration::from_secs(1)).0, 40);
        assert_eq!(compass.walked(&edges(&[("b", &[1, 2])])), 1);
    }

    #[test]
    fn walks_start_from_productive_prefixes_whole_or_cut() {
        let mut compass = Compass::default();
        let mut rng = Rng::new(7);
        assert_eq!(compass.start(&mut rng), Start::Fresh, "an empty corpus");
        compass.keep(&[click(1), click(2), click(3)], 4);
        compass.keep(&[click(9)], 0);
        assert_eq!(
            compass.corpus_len(),
            1,
            "a prefix that found nothing is not kept"
        );
        let starts: Vec<Start> = (0..200).map(|_| compass.start(&mut rng)).collect();
        let from = starts
            .iter()
            .filter(|s| matches!(s, Start::From(_)))
            .count();
        assert!(
            (70..130).contains(&from),
            "about half from the corpus: {from}"
        );
        let whole = starts
            .iter()
            .filter(|s| matches!(s, Start::From(a) if a.len() == 3))
            .count();
        assert!(
            whole > 30 && whole < from,
            "whole and cut: {whole} of {from}"
        );
        assert!(starts.iter().all(|s| match s {
            Start::From(actions) => actions[0].target == click(1).target,
            Start::Fresh => true,
        }));
        assert_eq!((compass.code.prefixes, compass.code.from_prefix), (1, from));
    }

    #[test]
    fn a_full_corpus_drops_its_weakest_prefix() {
        let mut compass = Compass::default();
        for n in 0..CORPUS {
            compass.keep(&[click(n)], 10);
        }
        compass.keep(&[click(998)], 1);
        assert_eq!(compass.corpus_len(), CORPUS);
        let kept = |c: &Compass, n| {
            c.corpus
                .iter()
                .any(|s| s.actions[0].target == click(n).target)
        };
        assert!(
            !kept(&compass, 998),
            "a newcomer weaker than all is the one dropped"
        );
        compass.keep(&[click(999)], 100);
        assert_eq!(compass.corpus_len(), CORPUS);
        assert!(
            kept(&compass, 999),
            "a stronger newcomer takes a weaker one's place"
        );
    }
}
