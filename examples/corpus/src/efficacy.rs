//! The audit's efficacy on the corpus: seeded audits of each app with its bugs on (does each
//! bug's invariant break, and how soon) and of its correct build (does anything break: a false
//! positive), with actions per second and the states the walks covered.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use windup_core::config::Settings;
use windup_core::engine::audit::{Budget, Strategy};
use windup_core::run::audit::AuditRun;
use windup_core::run::events::RunEvent;

use crate::{App, serve};

/// The tool a trial ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    /// Windup's audit.
    Windup,
    /// Bombadil, with the app's `bombadil/spec.ts` ([`crate::bombadil`]).
    Bombadil,
}

/// One audit of one app.
#[derive(Debug, Clone)]
pub struct Trial {
    pub app: String,
    pub seed: u64,
    pub bugs_on: bool,
    pub tool: Tool,
    /// The audit's strategy (Windup's trials only).
    pub strategy: Strategy,
    /// The invariants found broken, each with when it was first seen.
    pub broken: BTreeMap<String, Duration>,
    pub actions: usize,
    pub runtime: Duration,
    pub states: usize,
    /// Distinct edges of the app's code the audit reached (0 when it was not counted).
    pub edges: usize,
    /// Those edges, by script id and number: what several runs reached together.
    pub taken: BTreeSet<(String, u32)>,
    /// Edges reached over the audit's time: (milliseconds since it began, edges).
    pub over_time: Vec<(u64, usize)>,
    pub moves: usize,
    pub stopped_by: String,
    /// The audit's error, when it ended on one.
    pub error: Option<String>,
    /// Each action the audit took, as `walk: step`, in order: what it did, to read why it
    /// missed a bug.
    pub steps: Vec<String>,
    /// The kinds of move ([`move_kind`]) in the findings' shrunk steps, by the invariant each
    /// finding broke: the moves their regression tests make.
    pub kinds_by_invariant: BTreeMap<String, BTreeSet<String>>,
}

/// Every kind of move a person makes in the audit's walks, as [`move_kind`] names them.
pub const MOVE_KINDS: [&str; 22] = [
    "click",
    "click link",
    "toggle",
    "double_click",
    "hover",
    "click background",
    "focus",
    "type",
    "fill",
    "select",
    "press Enter",
    "press Escape",
    "press Space",
    "press Tab",
    "press Shift+Tab",
    "press Backspace",
    "press Delete",
    "press ArrowDown",
    "goto",
    "back",
    "forward",
    "reload",
];

/// The plain elements the walks click to leave a field (the page's background): a click on
/// one of them with no role, or only the structural role its tag gives it (an `h1` is a
/// heading, a `header` a banner), is a click on the background.
const BACKGROUND_TAGS: [&str; 9] = [
    "h1", "h2", "h3", "p", "header", "footer", "main", "section", "article",
];

/// What kind of move an action is: its kind (`click`, `type`, `back`), a key press with its key
/// (`press Backspace`), a click on a link as `click link`, on a plain element (a heading, a
/// paragraph) as `click background`, and a click, check or uncheck of a checkbox, radio or
/// switch (through its label when the input is hidden) as `toggle`. Any arrow key is
/// `press ArrowDown`.
pub fn move_kind(action: &windup_core::model::plan::Action) -> String {
    use windup_core::model::plan::ActionKind;
    let identity = action.target.as_ref().map(|t| &t.identity);
    let role = identity.and_then(|i| i.role.as_deref());
    match action.kind {
        ActionKind::Press => {
            let key = action.key.as_deref().unwrap_or("");
            if key.starts_with("Arrow") {
                "press ArrowDown".to_owned()
            } else {
                format!("press {key}")
            }
        }
        ActionKind::Click | ActionKind::Check | ActionKind::Uncheck
            if matches!(role, Some("checkbox" | "radio" | "switch")) =>
        {
            "toggle".to_owned()
        }
        ActionKind::Click if role == Some("link") => "click link".to_owned(),
        ActionKind::Click
            if matches!(
                role,
                None | Some("heading" | "banner" | "contentinfo" | "main" | "region" | "article")
            ) && identity.is_some_and(|i| BACKGROUND_TAGS.contains(&i.tag.as_str())) =>
        {
            "click background".to_owned()
        }
        kind => kind.to_string(),
    }
}

impl Trial {
    /// A trial of `tool` on `app` that has not run yet.
    pub fn new(app: &App, bugs_on: bool, plan: Plan, tool: Tool) -> Trial {
        Trial {
            app: app.name.clone(),
            seed: plan.seed,
            bugs_on,
            tool,
            strategy: plan.strategy,
            broken: BTreeMap::new(),
            actions: 0,
            runtime: Duration::ZERO,
            states: 0,
            edges: 0,
            taken: BTreeSet::new(),
            over_time: Vec::new(),
            moves: 0,
            stopped_by: String::new(),
            error: None,
            steps: Vec::new(),
            kinds_by_invariant: BTreeMap::new(),
        }
    }

    /// The kinds of move all the findings' regression tests make.
    pub fn kinds(&self) -> BTreeSet<&str> {
        self.kinds_by_invariant
            .values()
            .flatten()
            .map(String::as_str)
            .collect()
    }

    pub fn actions_per_second(&self) -> f64 {
        self.actions as f64 / self.runtime.as_secs_f64().max(0.001)
    }

    /// The edges it had reached `at` into the audit.
    pub fn edges_at(&self, at: Duration) -> usize {
        let at = u64::try_from(at.as_millis()).unwrap_or(u64::MAX);
        self.over_time
            .iter()
            .take_while(|(when, _)| *when <= at)
            .last()
            .map_or(0, |&(_, edges)| edges)
    }
}

/// How an app is audited.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub seed: u64,
    pub time: Duration,
    /// Browser actions in all, when the audit is to be counted in actions rather than time (a
    /// busy machine then audits as an idle one does).
    pub steps: Option<usize>,
    pub strategy: Strategy,
    /// With the bugs on, stop once this many of the bugs' invariants broke (all of them: nothing
    /// later changes whether each was found or when); `None` spends the whole budget.
    pub stop_after: Option<usize>,
    /// Write each finding's regression test under the project's `scenarios/audit/`.
    pub emit: bool,
}

/// Audits `app` once, with all its bugs on or none, in the project at `root` (created when
/// missing; its store and tests go there).
pub async fn trial(app: &App, bugs_on: bool, plan: Plan, root: &std::path::Path) -> Trial {
    let bugs = if bugs_on { app.all_bugs() } else { Vec::new() };
    let mut trial = Trial::new(app, bugs_on, plan, Tool::Windup);
    let site = match serve(app, &bugs).await {
        Ok(site) => site,
        Err(err) => {
            trial.error = Some(err.to_string());
            return trial;
        }
    };
    let _ = std::fs::create_dir_all(root.join("scenarios"));
    let settings = match Settings::from_parts(root, Some("scenarios = \"scenarios\"\n"), &|_| None)
    {
        Ok(settings) => settings,
        Err(err) => {
            trial.error = Some(err.to_string());
            return trial;
        }
    };
    let target = match site.url().parse() {
        Ok(url) => url,
        Err(err) => {
            trial.error = Some(format!("{err}"));
            return trial;
        }
    };
    let mut budget = Budget::default();
    budget.time = plan.time;
    budget.steps = plan.steps.unwrap_or(100_000);
    let wanted: BTreeSet<String> = app.bugs.iter().map(|b| b.invariant.clone()).collect();
    let seen = Arc::new(Mutex::new(BTreeSet::<String>::new()));
    let audit = AuditRun::new(settings, target)
        .seed(plan.seed)
        .budget(budget)
        .strategy(plan.strategy)
        .invariants_dir(app.invariants());
    let audit = if plan.emit {
        audit
    } else {
        audit.emit_to(None)
    };
    let stop = audit.stop_flag();
    let watch = Arc::clone(&seen);
    let enough = plan.stop_after.filter(|_| bugs_on);
    let taken = Arc::new(Mutex::new(Vec::<String>::new()));
    let log = Arc::clone(&taken);
    let audit = audit.reporter(move |event: &RunEvent| match event {
        RunEvent::AuditAction { label, step, .. } => {
            let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
            log.push(format!("{label}: {step}"));
        }
        RunEvent::Finding { finding, .. } => {
            let mut seen = watch.lock().unwrap_or_else(|p| p.into_inner());
            seen.insert(finding.invariant_id.clone());
            if enough.is_some_and(|n| wanted.intersection(&seen).count() >= n) {
                stop.store(true, Ordering::SeqCst);
            }
        }
        _ => {}
    });
    match audit.run().await {
        Ok(finished) => {
            let outcome = finished.outcome;
            for finding in &outcome.findings {
                trial
                    .broken
                    .entry(finding.invariant_id.clone())
                    .or_insert(finding.found_after);
                trial
                    .kinds_by_invariant
                    .entry(finding.invariant_id.clone())
                    .or_default()
                    .extend(finding.actions.iter().map(move_kind));
            }
            trial.actions = outcome.actions;
            trial.runtime = outcome.runtime;
            trial.states = outcome.coverage.states;
            trial.edges = outcome.code.reached;
            trial.taken = outcome.code.taken;
            trial.over_time = outcome.code.over_time;
            trial.moves = outcome.coverage.moves;
            trial.stopped_by = outcome.stopped_by;
        }
        Err(err) => trial.error = Some(err.to_string()),
    }
    site.stop().await;
    trial.steps = std::mem::take(&mut *taken.lock().unwrap_or_else(|p| p.into_inner()));
    trial
}

/// The median of some durations (the lower middle one); none of none.
pub fn median(mut times: Vec<Duration>) -> Option<Duration> {
    times.sort_unstable();
    (!times.is_empty()).then(|| times[(times.len() - 1) / 2])
}

/// The table of a set of trials: per app, per bug the runs that found it and the median time to
/// its first sight; the false positives of the correct builds; actions per second and states.
/// Windup's trials only: [`crate::compare`] sets them beside Bombadil's.
pub fn table(apps: &[App], trials: &[Trial]) -> String {
    let windup: Vec<Trial> = trials
        .iter()
        .filter(|t| t.tool == Tool::Windup)
        .cloned()
        .collect();
    let trials = &windup[..];
    let mut out = String::new();
    let strategies: BTreeSet<String> = trials
        .iter()
        .map(|t| format!("{:?}", t.strategy).to_lowercase())
        .collect();
    for strategy in &strategies {
        let of = |t: &&Trial| format!("{:?}", t.strategy).to_lowercase() == *strategy;
        out.push_str(&format!("strategy: {strategy}\n"));
        for app in apps {
            let buggy: Vec<&Trial> = trials
                .iter()
                .filter(of)
                .filter(|t| t.app == app.name && t.bugs_on)
                .collect();
            let correct: Vec<&Trial> = trials
                .iter()
                .filter(of)
                .filter(|t| t.app == app.name && !t.bugs_on)
                .collect();
            if buggy.is_empty() && correct.is_empty() {
                continue;
            }
            out.push_str(&format!("{} ({})\n", app.name, app.framework));
            for bug in &app.bugs {
                let found: Vec<Duration> = buggy
                    .iter()
                    .filter_map(|t| t.broken.get(&bug.invariant).copied())
                    .collect();
                let first = median(found.clone())
                    .map(|d| format!("{:.1} s", d.as_secs_f64()))
                    .unwrap_or_else(|| "-".to_owned());
                out.push_str(&format!(
                    "  {:<34} {:>2}/{:<2} first seen (median) {first}\n",
                    bug.id,
                    found.len(),
                    buggy.len()
                ));
            }
            let extra: BTreeSet<&String> = buggy
                .iter()
                .flat_map(|t| t.broken.keys())
                .filter(|id| !app.bugs.iter().any(|b| &&b.invariant == id))
                .collect();
            if !extra.is_empty() {
                out.push_str(&format!(
                    "  also broken with the bugs on: {}\n",
                    extra.into_iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            let false_positives: Vec<String> = correct
                .iter()
                .flat_map(|t| {
                    t.broken
                        .keys()
                        .map(move |k| format!("{k} (seed {})", t.seed))
                })
                .collect();
            out.push_str(&format!(
                "  correct build: {} false positives in {} runs{}\n",
                false_positives.len(),
                correct.len(),
                if false_positives.is_empty() {
                    String::new()
                } else {
                    format!(": {}", false_positives.join(", "))
                }
            ));
            let all: Vec<&&Trial> = buggy.iter().chain(correct.iter()).collect();
            let rate: f64 =
                all.iter().map(|t| t.actions_per_second()).sum::<f64>() / all.len().max(1) as f64;
            let states = middle(correct.iter().map(|t| t.states).collect());
            out.push_str(&format!(
                "  {rate:.1} actions/s; correct build: {states} states covered (median)\n  {}\n",
                edges_line(&all)
            ));
            for t in all.iter().filter(|t| t.error.is_some()) {
                out.push_str(&format!(
                    "  error (seed {}, bugs {}): {}\n",
                    t.seed,
                    if t.bugs_on { "on" } else { "off" },
                    t.error.as_deref().unwrap_or("")
                ));
            }
        }
        let mine: Vec<&Trial> = trials.iter().filter(|t| of(t)).collect();
        out.push_str(&kinds_line(&mine));
    }
    out
}

/// The edges some trials reached: the median run's, the fewest and most, at half
/// the run's time, and what all of them reached together (how much any run left to reach).
fn edges_line(trials: &[&&Trial]) -> String {
    let edges: Vec<usize> = trials.iter().map(|t| t.edges).collect();
    let (fewest, most) = (
        edges.iter().min().copied().unwrap_or(0),
        edges.iter().max().copied().unwrap_or(0),
    );
    let early = middle(trials.iter().map(|t| t.edges_at(t.runtime / 2)).collect());
    let together = trials
        .iter()
        .flat_map(|t| t.taken.iter())
        .collect::<BTreeSet<_>>()
        .len();
    format!(
        "{} edges reached (median of all runs; fewest {fewest}, most {most}; \
         {early} at half time; {together} by all runs together)",
        middle(edges)
    )
}

/// The middle of some counts (the lower middle one); 0 of none.
fn middle(mut values: Vec<usize>) -> usize {
    values.sort_unstable();
    values
        .get(values.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0)
}

/// Which kinds of move the findings' regression tests make, over all `trials`, and which of
/// [`MOVE_KINDS`] none makes.
fn kinds_line(trials: &[&Trial]) -> String {
    let made: BTreeSet<&str> = trials.iter().flat_map(|t| t.kinds()).collect();
    let missing: Vec<&str> = MOVE_KINDS
        .iter()
        .copied()
        .filter(|k| !made.contains(k))
        .collect();
    format!(
        "moves in the findings' tests: {}\nmoves in none: {}\n",
        made.into_iter().collect::<Vec<_>>().join(", "),
        if missing.is_empty() {
            "-".to_owned()
        } else {
            missing.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use windup_core::model::plan::{Action, ActionKind, Identity, Target};

    fn on(kind: ActionKind, tag: &str, role: Option<&str>) -> Action {
        let mut action = Action::new("a1", kind);
        action.target = Some(Target {
            frames: Vec::new(),
            selector: tag.to_owned(),
            identity: Identity {
                tag: tag.to_owned(),
                role: role.map(str::to_owned),
                ..Identity::default()
            },
        });
        action
    }

    #[test]
    fn a_move_is_named_by_its_kind_its_key_and_what_a_click_is_on() {
        let mut press = Action::new("a1", ActionKind::Press);
        press.key = Some("Backspace".to_owned());
        assert_eq!(move_kind(&press), "press Backspace");
        press.key = Some("ArrowLeft".to_owned());
        assert_eq!(move_kind(&press), "press ArrowDown");
        assert_eq!(
            move_kind(&on(ActionKind::Click, "h1", None)),
            "click background"
        );
        // A heading's implicit role does not make it a control.
        assert_eq!(
            move_kind(&on(ActionKind::Click, "h2", Some("heading"))),
            "click background"
        );
        assert_eq!(
            move_kind(&on(ActionKind::Click, "header", Some("banner"))),
            "click background"
        );
        assert_eq!(move_kind(&on(ActionKind::Click, "button", None)), "click");
        assert_eq!(
            move_kind(&on(ActionKind::Click, "p", Some("button"))),
            "click"
        );
        assert_eq!(
            move_kind(&on(ActionKind::Uncheck, "input", Some("checkbox"))),
            "toggle"
        );
        assert_eq!(
            move_kind(&on(ActionKind::Click, "input", Some("radio"))),
            "toggle"
        );
        assert_eq!(
            move_kind(&on(ActionKind::Click, "a", Some("link"))),
            "click link"
        );
        assert_eq!(move_kind(&on(ActionKind::Check, "input", None)), "check");
        assert_eq!(
            move_kind(&Action::new("a1", ActionKind::Forward)),
            "forward"
        );
    }
}
