//! What a bench measured, the five criteria it is judged by, and how both read: a table for a
//! person, JSON for a machine.

use std::fmt;

use serde::Serialize;
use time::Date;

use crate::engine::ledger::{CacheOutcome, PriceTable, Replan, millis};
use crate::run::failure::FailureClass;
use crate::run::outcome::ScenarioResult;

/// Fresh generations a bench makes.
pub const GENERATIONS: usize = 5;
/// Generations that must be valid and pass.
pub const GENERATIONS_NEEDED: usize = 4;
/// Replays of a plan that passed; every one must pass, with no model call.
pub const REPLAYS: usize = 10;
/// How many times the browser's floor for the same flow the median replay may take at most: the
/// floor is the plan carried out by WebDriver's own commands alone, measured in the same bench
/// ([`crate::engine::floor`]), so the criterion holds on a slow machine as on a fast one.
pub const FLOOR_RATIO_ALLOWED: f64 = 2.0;
/// How many times faster than the median generation the median replay must be, where the
/// floor could not be measured (an element WebDriver's own find cannot reach).
pub const SPEEDUP_NEEDED: f64 = 5.0;

/// The browser's floor for the plan's flow, run beside each replay.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Floor {
    /// Each run's time, from the session's reset as a replay's.
    pub runs_ms: Vec<u64>,
    /// Why it could not be measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Who planned a bench's generations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BenchPlanner {
    /// The configured model, one answer per plan; the scenario's steps, if any, as guidance.
    Model { provider: String, model: String },
    /// The offline planner, from the scenario's explicit steps.
    Offline,
}

impl fmt::Display for BenchPlanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchPlanner::Model { provider, model } => write!(f, "model {provider}/{model}"),
            BenchPlanner::Offline => f.write_str("offline planner (the scenario's steps)"),
        }
    }
}

/// One run of the scenario in a bench: a generation, a replay, or the broken plan's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trial {
    pub passed: bool,
    /// What the plan cache did: `miss` for a generation, `hit` for a replay, `replanned` for a
    /// broken plan mended.
    pub cache: CacheOutcome,
    pub duration_ms: u64,
    pub llm_calls: usize,
    /// What its calls cost at the price table's rates; `None` when one of them has no price.
    pub cost_usd: Option<f64>,
    /// Why it failed: the model answer's class, the failed step, or the failure's class — never
    /// a page's text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Trial {
    /// A run as a bench counts it, its calls priced on `on`.
    pub fn of(result: &ScenarioResult, prices: &PriceTable, on: Date) -> Self {
        let calls = &result.details.llm_calls;
        Trial {
            passed: result.passed(),
            cache: result.cache(),
            duration_ms: millis(result.duration),
            llm_calls: calls.len(),
            cost_usd: calls.iter().map(|call| prices.cost(call, on)).sum(),
            failure: failure_of(result),
        }
    }
}

/// Why a run failed, in words that cannot carry a page's text (or a secret it shows).
fn failure_of(result: &ScenarioResult) -> Option<String> {
    let failure = result.failure()?;
    let answer = result
        .details
        .llm_calls
        .iter()
        .rev()
        .find_map(|call| call.failure.clone());
    Some(match (answer, &result.details.failed_step) {
        (Some(class), _) => format!("model answer: {class}"),
        (None, Some(step)) => format!("{}: {step}", failure.class()),
        (None, None) if failure.class() == FailureClass::Step => failure.class().to_string(),
        // Configuration, budget and setup messages quote no page.
        (None, None) => failure.to_string().lines().next().unwrap_or("").to_owned(),
    })
}

/// The broken plan's run: which action was broken, where the replay failed, how it was
/// planned again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recovery {
    /// The id of the action whose selector was replaced, and its 1-based position of `of`.
    pub action: String,
    pub position: usize,
    pub of: usize,
    /// The position of the first action that failed, if one did.
    pub failed_at: Option<usize>,
    /// How the runner planned again, if it did.
    pub replan: Option<Replan>,
    pub trial: Trial,
}

impl Recovery {
    /// The replay failed at the broken action, was planned again, and the new plan passed.
    pub fn met(&self) -> bool {
        self.failed_at == Some(self.position)
            && self.replan.is_some()
            && self.trial.passed
            && self.trial.cache == CacheOutcome::Replanned
    }
}

/// One of the five criteria: what was measured, and whether it is met.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Criterion {
    /// `generations`, `replays`, `speed`, `cost` or `recovery`.
    pub name: &'static str,
    pub measured: String,
    pub met: bool,
}

/// Everything a bench measured, and its verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    pub scenario: String,
    pub base_url: String,
    pub planner: BenchPlanner,
    pub generations: Vec<Trial>,
    /// Empty when no generation passed.
    pub replays: Vec<Trial>,
    /// `None` when no generation passed, or its plan has no action with a target.
    pub recovery: Option<Recovery>,
    /// The browser's floor for the same flow; `None` when no generation passed.
    pub floor: Option<Floor>,
    pub median_generation_ms: Option<f64>,
    pub median_replay_ms: Option<f64>,
    pub median_floor_ms: Option<f64>,
    /// The median generation's time over the median replay's.
    pub speedup: Option<f64>,
    pub criteria: Vec<Criterion>,
    /// Every criterion is met.
    pub met: bool,
}

impl BenchReport {
    /// Judges what was measured.
    pub fn new(
        scenario: &str,
        base_url: &str,
        planner: BenchPlanner,
        generations: Vec<Trial>,
        replays: Vec<Trial>,
        recovery: Option<Recovery>,
        floor: Option<Floor>,
    ) -> Self {
        let median_generation_ms = median(&generations);
        let median_replay_ms = median(&replays);
        let median_floor_ms = floor
            .as_ref()
            .filter(|floor| floor.failure.is_none())
            .and_then(|floor| median_of(floor.runs_ms.clone()));
        let speedup = match (median_generation_ms, median_replay_ms) {
            (Some(generation), Some(replay)) if replay > 0.0 => Some(generation / replay),
            (Some(_), Some(_)) => Some(f64::INFINITY),
            _ => None,
        };
        let mut report = BenchReport {
            scenario: scenario.to_owned(),
            base_url: base_url.to_owned(),
            planner,
            generations,
            replays,
            recovery,
            floor,
            median_generation_ms,
            median_replay_ms,
            median_floor_ms,
            speedup,
            criteria: Vec::new(),
            met: false,
        };
        report.criteria = vec![
            report.generations_criterion(),
            report.replays_criterion(),
            report.speed_criterion(),
            report.cost_criterion(),
            report.recovery_criterion(),
        ];
        report.met = report.criteria.iter().all(|c| c.met);
        report
    }

    /// The criteria not met, by name.
    pub fn unmet(&self) -> Vec<&'static str> {
        self.criteria
            .iter()
            .filter(|c| !c.met)
            .map(|c| c.name)
            .collect()
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a bench report holds only plain values")
    }

    fn generations_criterion(&self) -> Criterion {
        let passed = self.generations.iter().filter(|t| t.passed).count();
        let mut measured = format!(
            "{passed} of {} valid and passed ({GENERATIONS_NEEDED} needed)",
            self.generations.len()
        );
        let mut why: Vec<&str> = Vec::new();
        for failure in self.generations.iter().filter_map(|t| t.failure.as_deref()) {
            if !why.contains(&failure) {
                why.push(failure);
            }
        }
        if !why.is_empty() {
            measured.push_str(&format!("; failed: {}", why.join("; ")));
        }
        Criterion {
            name: "generations",
            measured,
            met: passed >= GENERATIONS_NEEDED,
        }
    }

    fn replays_criterion(&self) -> Criterion {
        if self.replays.is_empty() {
            return unmeasured("replays", "no generation passed: no plan to replay");
        }
        let passed = self
            .replays
            .iter()
            .filter(|t| t.passed && t.cache == CacheOutcome::Hit)
            .count();
        let calls: usize = self.replays.iter().map(|t| t.llm_calls).sum();
        let mut measured = format!(
            "{passed} of {} passed from the cache, {calls} model {}",
            self.replays.len(),
            plural(calls, "call", "calls")
        );
        if let Some(why) = self.replays.iter().find_map(|t| t.failure.as_deref()) {
            measured.push_str(&format!("; failed: {why}"));
        }
        Criterion {
            name: "replays",
            measured,
            met: passed == REPLAYS && self.replays.len() == REPLAYS && calls == 0,
        }
    }

    fn speed_criterion(&self) -> Criterion {
        let (Some(generation), Some(replay), Some(speedup)) = (
            self.median_generation_ms,
            self.median_replay_ms,
            self.speedup,
        ) else {
            return unmeasured("speed", "no plan was replayed: nothing to compare");
        };
        if let Some(floor) = self.median_floor_ms.filter(|floor| *floor > 0.0) {
            let ratio = replay / floor;
            return Criterion {
                name: "speed",
                measured: format!(
                    "median replay {}, the browser's floor for the same flow {}: {ratio:.2}× \
                     (at most {FLOOR_RATIO_ALLOWED}×); {speedup:.1}× faster than generating",
                    seconds(replay),
                    seconds(floor)
                ),
                met: ratio <= FLOOR_RATIO_ALLOWED,
            };
        }
        let why = match self.floor.as_ref().and_then(|f| f.failure.as_deref()) {
            Some(why) => format!("no floor ({why}); "),
            None => "no floor; ".to_owned(),
        };
        Criterion {
            name: "speed",
            measured: format!(
                "{why}median replay {}, median generation {}: {speedup:.1}× faster \
                 ({SPEEDUP_NEEDED}× needed)",
                seconds(replay),
                seconds(generation)
            ),
            met: speedup >= SPEEDUP_NEEDED,
        }
    }

    fn cost_criterion(&self) -> Criterion {
        if self.replays.is_empty() {
            return unmeasured("cost", "no plan was replayed");
        }
        let cost = |trials: &[Trial]| -> (Option<f64>, usize) {
            let usd = trials.iter().map(|t| t.cost_usd).sum();
            (usd, trials.iter().map(|t| t.llm_calls).sum())
        };
        let (replays, replay_calls) = cost(&self.replays);
        let (generations, generation_calls) = cost(&self.generations);
        Criterion {
            name: "cost",
            measured: format!(
                "replays {} ({replay_calls} model {}); generations {} ({generation_calls} model \
                 {})",
                usd(replays),
                plural(replay_calls, "call", "calls"),
                usd(generations),
                plural(generation_calls, "call", "calls")
            ),
            met: replays == Some(0.0),
        }
    }

    fn recovery_criterion(&self) -> Criterion {
        let Some(recovery) = &self.recovery else {
            let why = if self.replays.is_empty() {
                "no generation passed: no plan to break"
            } else {
                "the plan has no action with a target to break"
            };
            return unmeasured("recovery", why);
        };
        let failed = match recovery.failed_at {
            Some(at) if at == recovery.position => "the replay failed there".to_owned(),
            Some(at) => format!("the replay failed at action {at} instead"),
            None => "the replay did not fail".to_owned(),
        };
        let replanned = match recovery.replan {
            Some(Replan::FromStep { index }) => format!("re-planned from action {}", index + 1),
            Some(Replan::Full) => "re-planned from the start".to_owned(),
            None => "not re-planned".to_owned(),
        };
        let calls = recovery.trial.llm_calls;
        let ended = match &recovery.trial.failure {
            None if recovery.trial.passed => "passed".to_owned(),
            None => "did not pass".to_owned(),
            Some(why) => format!("failed: {why}"),
        };
        Criterion {
            name: "recovery",
            measured: format!(
                "{} ({} of {}) broken: {failed}, {replanned} ({calls} model {}), {ended}",
                recovery.action,
                recovery.position,
                recovery.of,
                plural(calls, "call", "calls")
            ),
            met: recovery.met(),
        }
    }
}

/// A table: one row per criterion, then the verdict.
impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "bench of {} against {}, planned by the {}",
            self.scenario, self.base_url, self.planner
        )?;
        let name_width = self
            .criteria
            .iter()
            .map(|c| c.name.len())
            .chain(["criterion".len()])
            .max()
            .unwrap_or(0);
        let measured_width = self
            .criteria
            .iter()
            .map(|c| c.measured.chars().count())
            .chain(["measured".len()])
            .max()
            .unwrap_or(0);
        let row = |f: &mut fmt::Formatter<'_>, name: &str, measured: &str, met: &str| {
            writeln!(f, "{name:<name_width$}  {measured:<measured_width$}  {met}")
        };
        row(f, "criterion", "measured", "met")?;
        for criterion in &self.criteria {
            let met = if criterion.met { "yes" } else { "NO" };
            row(f, criterion.name, &criterion.measured, met)?;
        }
        let unmet = self.unmet();
        if unmet.is_empty() {
            writeln!(f, "all {} criteria met", self.criteria.len())
        } else {
            writeln!(
                f,
                "{} of {} criteria not met: {}",
                unmet.len(),
                self.criteria.len(),
                unmet.join(", ")
            )
        }
    }
}

fn unmeasured(name: &'static str, why: &str) -> Criterion {
    Criterion {
        name,
        measured: why.to_owned(),
        met: false,
    }
}

/// The median duration of `trials`, in milliseconds; `None` for none.
fn median(trials: &[Trial]) -> Option<f64> {
    median_of(trials.iter().map(|t| t.duration_ms).collect())
}

/// The median of durations in milliseconds; `None` for none.
fn median_of(mut ms: Vec<u64>) -> Option<f64> {
    ms.sort_unstable();
    let n = ms.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(ms[n / 2] as f64),
        _ => Some((ms[n / 2 - 1] + ms[n / 2]) as f64 / 2.0),
    }
}

/// Milliseconds as seconds, for a person.
pub(crate) fn seconds(ms: f64) -> String {
    format!("{:.2} s", ms / 1000.0)
}

/// USD as the cost report writes it; `?` when a call has no price.
pub(crate) fn usd(usd: Option<f64>) -> String {
    match usd {
        None => "?".to_owned(),
        Some(0.0) => "$0".to_owned(),
        Some(usd) => format!("${usd:.4}"),
    }
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
