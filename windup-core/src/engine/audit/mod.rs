//! The adversarial audit, without a model: explore a running app within a budget, gather the
//! invariants it must keep (Windup's generic oracles and the user's `invariants/*.yaml`), attack
//! them with built-in moves and seeded random walks, and keep only what the browser proves: a
//! violation counts when it reproduces twice more from a fresh session; it is then shrunk to the
//! shortest action sequence that still breaks the rule and emitted as a regression scenario with
//! a pinned plan whose final expectation is the invariant.
//!
//! Progress is told to an [`AuditWatcher`] as it happens; the run layer turns it into events and
//! a store.

mod attack;
mod edges;
mod emit;
mod explore;
mod judge;
mod model;
mod moves;
mod oracles;
pub mod playwright;
mod rng;
mod trial;
mod walk;
mod with_model;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::{Glob, GlobMatcher};
use serde::Serialize;
use url::Url;

use crate::browser::Session;
use crate::engine::executor::{ExecOptions, ValueSource};
use crate::model::invariant::{Invariant, Severity};
use crate::model::plan::Action;

pub use edges::CodeCoverage;
pub use emit::{EmittedTest, TestPlace, describe as describe_action, write_test};
pub use model::{AuditModel, ModelStop, Purpose, SentPrompt};
pub use oracles::generic as generic_invariants;

/// What to audit and how far to go.
#[derive(Debug, Clone)]
pub struct AuditConfig {
    /// Where the audit starts (its origin is the scope).
    pub target: Url,
    /// Seeds every random choice: the same seed on the same app makes the same audit.
    pub seed: u64,
    pub budget: Budget,
    /// How a walk chooses among a person's moves.
    pub strategy: Strategy,
    /// Count the edges of the app's scripts as they load (docs/audit.md#coverage): the
    /// `coverage` strategy steers by them, and the outcome says how much of the code the audit
    /// reached. Needs a session that speaks BiDi.
    pub coverage: bool,
    /// The user's (and later a model's) invariants; the generic oracles are added.
    pub invariants: Vec<Invariant>,
    /// Values a tester knows the app accepts, by field name or label (`Coupon code`).
    pub inputs: Vec<(String, Vec<String>)>,
    /// Log in with this account when a login form is found; its values stay references.
    pub login: Option<Login>,
    pub deny: Deny,
    /// Origins besides the target's that a page may send the audit to.
    pub allowed_origins: Vec<String>,
    /// Screenshots and evidence.
    pub artifacts_dir: PathBuf,
    /// Each action's deadline.
    pub action_timeout: Duration,
    /// How long a page opened or reloaded may take to show something a person can act on
    /// before the audit takes it as it is (an app rendering after its scripts load).
    pub ready_timeout: Duration,
    /// A picture of the browser after an attack's action, at most once per this long, for a
    /// live preview (`frame-N.jpg` in `artifacts_dir`); none when unset.
    pub frames: Option<Duration>,
}

/// How much an audit may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Budget {
    /// Browser actions in all, replays and shrinking included.
    pub steps: usize,
    /// Wall time.
    #[serde(serialize_with = "as_millis")]
    pub time: Duration,
    /// Distinct page states explored.
    pub pages: usize,
    /// Seeded random walks, each from a fresh session; `None`: walks until the budget is
    /// spent.
    pub walks: Option<usize>,
    /// The actions in each walk.
    pub walk_length: usize,
    /// Runs spent shrinking each finding.
    pub shrink_runs: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            steps: 2000,
            time: Duration::from_secs(180),
            pages: 24,
            walks: None,
            walk_length: 24,
            shrink_runs: 12,
        }
    }
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn some_millis<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => as_millis(d, s),
        None => s.serialize_none(),
    }
}

/// How a walk chooses its next move among those a person could make.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// As `novelty`, and each walk more often than not starts from a prefix of an earlier walk
    /// that reached code of the app no move had run before, replayed whole and extended or cut
    /// and varied (docs/audit.md#coverage). Without the app's code counted, as `novelty`.
    Coverage,
    /// By how often a person makes each kind of move, and toward the moves the run has not made
    /// yet in a state like the current one.
    #[default]
    Novelty,
    /// By how often a person makes each kind of move alone.
    Uniform,
}

impl std::str::FromStr for Strategy {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "coverage" => Ok(Strategy::Coverage),
            "novelty" => Ok(Strategy::Novelty),
            "uniform" => Ok(Strategy::Uniform),
            other => Err(format!(
                "`{other}` is not a strategy: use novelty (the default), coverage or uniform"
            )),
        }
    }
}

/// An account to log in with: its name and the keys it has (`email`, `password`), typed as
/// `account.KEY` references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub account: String,
    pub keys: Vec<String>,
}

/// What the audit never touches: paths (globs over the location) and controls whose name holds
/// one of the words.
#[derive(Debug, Clone)]
pub struct Deny {
    paths: Vec<(String, GlobMatcher)>,
    names: Vec<String>,
}

impl Default for Deny {
    /// Logging out and deleting an account, by path and by name.
    fn default() -> Self {
        let mut deny = Deny {
            paths: Vec::new(),
            names: Vec::new(),
        };
        for pattern in [
            "**/logout*",
            "**/log-out*",
            "**/signout*",
            "**/sign-out*",
            "**/delete-account*",
        ] {
            deny.add(pattern).expect("the default patterns are globs");
        }
        deny
    }
}

impl Deny {
    /// Adds a pattern: a path glob when it starts with `/` or `*`, else words of a control's
    /// name (`Delete account`).
    pub fn add(&mut self, pattern: &str) -> Result<(), String> {
        if pattern.starts_with('/') || pattern.starts_with('*') {
            let glob = Glob::new(pattern).map_err(|e| format!("`{pattern}` is not a glob: {e}"))?;
            self.paths
                .push((pattern.to_owned(), glob.compile_matcher()));
        } else {
            self.names.push(pattern.to_lowercase());
        }
        Ok(())
    }

    /// The patterns, as given, for the record.
    pub fn patterns(&self) -> Vec<String> {
        let mut all: Vec<String> = self.paths.iter().map(|(p, _)| p.clone()).collect();
        all.extend(Deny::default_names().iter().map(|n| (*n).to_owned()));
        all.extend(self.names.iter().cloned());
        all
    }

    fn default_names() -> &'static [&'static str] {
        &[
            "log out",
            "logout",
            "sign out",
            "delete account",
            "delete my account",
            "close account",
        ]
    }

    /// Whether a page at `location` (path, query, fragment) is out of bounds.
    pub fn denies_location(&self, location: &str) -> bool {
        let path = location.split(['?', '#']).next().unwrap_or(location);
        self.paths
            .iter()
            .any(|(_, glob)| glob.is_match(path) || glob.is_match(location))
    }

    /// Whether a control called `name` is out of bounds.
    pub fn denies_name(&self, name: &str) -> bool {
        let name = name.to_lowercase();
        Deny::default_names().iter().any(|d| name.contains(d))
            || self.names.iter().any(|d| name.contains(d.as_str()))
    }
}

/// The audit's phases, as the design names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Phase {
    Explore,
    Hypothesize,
    Attack,
    Report,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Explore => "explore",
            Phase::Hypothesize => "hypothesize",
            Phase::Attack => "attack",
            Phase::Report => "report",
        }
    }
}

/// Where an invariant stands in the audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum InvariantStatus {
    /// Gathered; nothing has broken it.
    Unbroken,
    /// Broken, and proven.
    Violated { finding: String },
    /// It cannot be evaluated on this app (a type error): the invariant is wrong.
    Invalid { error: String },
}

/// A confirmed violation: reproduced from fresh sessions, shrunk, with its evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// Unique within the audit, safe for a file name: `cart-total-1`.
    pub id: String,
    pub invariant_id: String,
    pub source: crate::model::invariant::Source,
    pub severity: Severity,
    pub title: String,
    /// The rule, as stated, and the predicate that decides it.
    pub expected: String,
    /// What the page showed instead.
    pub actual: String,
    pub impact: String,
    /// The shrunk sequence, in words.
    pub steps: Vec<String>,
    /// The shrunk sequence, as plan actions.
    #[serde(skip)]
    pub actions: Vec<Action>,
    /// The predicate the regression test holds, and the action its `before.` refers to.
    pub predicate: String,
    pub since: Option<String>,
    /// For an obligation, its bound: the regression test's last step must see the predicate
    /// hold within it.
    #[serde(
        rename = "within_ms",
        serialize_with = "some_millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub within: Option<Duration>,
    pub screenshots: Vec<PathBuf>,
    /// Which attack found it.
    pub attack: String,
    /// The same bug found twice has the same fingerprint.
    pub fingerprint: String,
    /// Actions before its invariant was first seen broken, and when.
    pub found_after_actions: usize,
    #[serde(serialize_with = "as_millis")]
    pub found_after: Duration,
}

/// A proven violation of a model's rule that the model's judge vetoed: not a finding, kept as
/// evidence with the judge's reason.
#[derive(Debug, Clone, Serialize)]
pub struct Vetoed {
    pub invariant_id: String,
    /// The actions, in words.
    pub steps: Vec<String>,
    /// What the predicate saw.
    pub seen: Vec<String>,
    pub reason: String,
}

/// What an audit reports as it goes. Every method has a default that ignores it.
pub trait AuditWatcher: Send + Sync {
    fn phase(&self, _phase: Phase) {}
    /// Why the audit does what it does next, in a sentence.
    fn reasoning(&self, _text: &str) {}
    fn invariant(&self, _invariant: &Invariant, _status: &InvariantStatus) {}
    /// An action of an attack, with a screenshot after it when one was taken.
    fn action(&self, _label: &str, _action: &Action, _screenshot: Option<&Path>) {}
    fn finding(&self, _finding: &Finding) {}
    fn test(&self, _finding: &Finding, _test: &EmittedTest) {}
    /// How much of the app's code the audit has reached, as the count grows.
    fn edges(&self, _code: &CodeCoverage) {}
}

/// A watcher that ignores everything.
#[derive(Debug, Default, Clone, Copy)]
pub struct Unwatched;

impl AuditWatcher for Unwatched {}

/// What an audit did.
#[derive(Debug, Clone, Serialize)]
pub struct AuditOutcome {
    pub findings: Vec<Finding>,
    /// Every invariant the audit held the app to, with its standing at the end.
    #[serde(skip)]
    pub invariants: Vec<(Invariant, InvariantStatus)>,
    pub pages_explored: usize,
    pub actions: usize,
    pub attacks: usize,
    /// Violations seen that did not reproduce, so were not counted.
    pub unconfirmed: usize,
    /// Proven violations the model's judge vetoed.
    pub vetoed: Vec<Vetoed>,
    /// Model calls made, and what they cost at the price table's rates.
    pub model_calls: u32,
    pub model_usd: f64,
    /// Why the audit stopped: `done`, `steps`, `time`, `stopped`, `model` (a budget of the
    /// model's: calls, USD, or time for a call).
    pub stopped_by: String,
    /// Why, in words, when a budget of the model stopped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The budget it was given, to say how much of it was used.
    pub budget: Budget,
    /// The distinct page states the walks met and the distinct moves they made in them.
    pub coverage: Coverage,
    /// How much of the app's own code the audit ran, and when.
    pub code: CodeCoverage,
    /// Why the audit could not use the app at all (`stopped_by` is then `unusable`): nothing
    /// it says of the app would mean anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unusable: Option<Unusable>,
    #[serde(serialize_with = "as_millis")]
    pub runtime: Duration,
    /// The part of `runtime` past the time budget, spent proving (reproducing and shrinking)
    /// violations the audit saw within it.
    #[serde(serialize_with = "as_millis")]
    pub overrun: Duration,
    /// What exploration saw, for the site map.
    #[serde(skip)]
    pub seen: (
        Vec<crate::model::sitemap::Visit>,
        Vec<crate::model::sitemap::Move>,
    ),
}

/// How much of the app the walks covered: distinct states (a location and what it shows a
/// person can act on, and in which state) and distinct moves (a kind of move on one control in
/// one state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Coverage {
    pub states: usize,
    pub moves: usize,
}

/// Why an audit could not use the app: its start page could not be opened, showed nothing a
/// person can act on, or no action could be taken on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unusable {
    pub reason: String,
    /// Whether the browser or its driver failed, rather than the app.
    pub browser: bool,
}

/// Whether someone asked the audit to stop.
pub trait StopSignal: Send + Sync {
    fn stop_requested(&self) -> bool;
}

impl StopSignal for std::sync::atomic::AtomicBool {
    fn stop_requested(&self) -> bool {
        self.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Everything an audit works with.
pub struct Audit<'a> {
    pub session: &'a Session,
    pub config: &'a AuditConfig,
    pub values: &'a dyn ValueSource,
    pub watcher: &'a dyn AuditWatcher,
    pub stop: &'a dyn StopSignal,
    /// The model that proposes rules, plans attacks and judges; none, and the audit is
    /// Windup's own oracles and moves alone.
    pub model: Option<&'a AuditModel>,
}

impl Audit<'_> {
    /// Runs the whole audit on the session.
    pub async fn run(&self) -> AuditOutcome {
        let started = Instant::now();
        let mut invariants = oracles::generic();
        invariants.extend(self.config.invariants.iter().cloned());
        let options = self.exec_options();
        let mut state = trial::Budgeted::new(self.config.budget, started, self.stop);
        let reads = invariants.iter().flat_map(Invariant::probes).collect();
        let frames = trial::Frames::new(self.config.frames);
        let lab = self.lab(&options, &invariants, &reads, &frames);
        state.compass = self.start_counting().await;
        self.watcher.phase(Phase::Explore);
        self.watcher.reasoning(&format!(
            "Exploring {} within {} page states, staying on its origin.",
            self.config.target, self.config.budget.pages
        ));
        let explored = explore::explore(&lab, &mut state).await;
        if let Some(unusable) = self.unreached(&explored, &state) {
            return self.unusable(unusable, &invariants, &state, &explored, started);
        }
        self.watcher.phase(Phase::Hypothesize);
        let proposed = match self.model {
            Some(model) if !state.exhausted() => {
                with_model::rules(&lab, model, &explored, &mut state).await
            }
            _ => Vec::new(),
        };
        let from_model = proposed.len();
        invariants.extend(proposed);
        for invariant in &invariants {
            self.watcher
                .invariant(invariant, &InvariantStatus::Unbroken);
        }
        self.tell_invariants(&invariants, from_model);
        let reads = invariants.iter().flat_map(Invariant::probes).collect();
        let lab = self.lab(&options, &invariants, &reads, &frames);
        self.watcher.phase(Phase::Attack);
        let judged = self.attack(&lab, &invariants, &explored, &mut state).await;
        state
            .compass
            .close(started.elapsed(), lab.session.edges_taken());
        if state.actions == 0 && !state.exhausted() {
            let unusable = Unusable {
                reason: format!(
                    "no action could be taken on {}: every move the audit tried was refused \
                     (see the screenshots in {})",
                    self.config.target,
                    self.config.artifacts_dir.display()
                ),
                browser: false,
            };
            return self.unusable(unusable, &invariants, &state, &explored, started);
        }
        self.watcher.phase(Phase::Report);
        let statuses = judged.statuses(&invariants, &state.invalid);
        let spent = self.model.map(AuditModel::spent).unwrap_or_default();
        AuditOutcome {
            findings: judged.findings,
            invariants: invariants.into_iter().zip(statuses).collect(),
            pages_explored: explored.pages.len(),
            actions: state.actions,
            attacks: state.attacks,
            unconfirmed: judged.unconfirmed,
            vetoed: judged.vetoed,
            model_calls: spent.calls,
            model_usd: spent.usd,
            stopped_by: state.stopped_by().to_owned(),
            stop_reason: state.reason.clone(),
            budget: self.config.budget,
            coverage: state.coverage(),
            code: state.compass.code.clone(),
            unusable: None,
            runtime: started.elapsed(),
            overrun: state.overrun,
            seen: explored.seen(),
        }
    }

    /// Says what the audit holds the app to, and where each rule came from.
    fn tell_invariants(&self, invariants: &[Invariant], from_model: usize) {
        self.watcher.reasoning(&format!(
            "{} invariants to hold: {} generic oracles, {} written for this app and {} proposed \
             by the model.",
            invariants.len(),
            invariants.len() - self.config.invariants.len() - from_model,
            self.config.invariants.len(),
            from_model
        ));
    }

    /// Starts counting the edges of the app's scripts, unless asked not to; says why not when
    /// the session cannot.
    async fn start_counting(&self) -> edges::Compass {
        if !self.config.coverage {
            return edges::Compass::off("asked not to (--no-coverage)".to_owned());
        }
        match self.session.cover(&self.config.target).await {
            Ok(()) => {
                self.watcher.reasoning(
                    "Counting the edges of the app's scripts as they load: walks that reach code \
                     no move has run are kept and extended.",
                );
                edges::Compass::default()
            }
            Err(why) => {
                self.watcher
                    .reasoning(&format!("Not counting the app's code: {why}."));
                edges::Compass::off(why)
            }
        }
    }

    /// Why exploration leaves nothing to audit: the start page was never opened, or it shows
    /// nothing a person can act on once the app had its time to render.
    fn unreached(
        &self,
        explored: &explore::Explored,
        state: &trial::Budgeted<'_>,
    ) -> Option<Unusable> {
        let target = &self.config.target;
        match explored.pages.first() {
            None if state.stopped_by() == "stopped" => None,
            None => Some(match &explored.unopened {
                Some(unopened) => Unusable {
                    reason: format!(
                        "the start page {target} could not be opened: {}",
                        unopened.reason
                    ),
                    browser: unopened.browser,
                },
                None => Unusable {
                    reason: format!(
                        "the start page {target} could not be read within the budget ({} s)",
                        self.config.budget.time.as_secs()
                    ),
                    browser: false,
                },
            }),
            Some(start) if start.digest.controls.is_empty() => {
                let now = if start.location == crate::model::invariant::location_of(target.as_str())
                {
                    String::new()
                } else {
                    format!(" (which took it to {})", start.location)
                };
                Some(Unusable {
                    reason: format!(
                        "the start page {target}{now} showed nothing a person can act on within \
                         {} s: no link, button, field or other control. Check that the app \
                         renders without errors at that address, or start the audit where it does",
                        self.config.ready_timeout.as_secs_f32()
                    ),
                    browser: false,
                })
            }
            Some(_) => None,
        }
    }

    /// The outcome of an audit that could not use the app.
    fn unusable(
        &self,
        unusable: Unusable,
        invariants: &[Invariant],
        state: &trial::Budgeted<'_>,
        explored: &explore::Explored,
        started: Instant,
    ) -> AuditOutcome {
        self.watcher
            .reasoning(&format!("Stopping: {}.", unusable.reason));
        self.watcher.phase(Phase::Report);
        let spent = self.model.map(AuditModel::spent).unwrap_or_default();
        AuditOutcome {
            findings: Vec::new(),
            invariants: invariants
                .iter()
                .map(|i| (i.clone(), InvariantStatus::Unbroken))
                .collect(),
            pages_explored: explored.pages.len(),
            actions: state.actions,
            attacks: state.attacks,
            unconfirmed: 0,
            vetoed: Vec::new(),
            model_calls: spent.calls,
            model_usd: spent.usd,
            stopped_by: "unusable".to_owned(),
            stop_reason: Some(unusable.reason.clone()),
            budget: self.config.budget,
            coverage: state.coverage(),
            code: state.compass.code.clone(),
            unusable: Some(unusable),
            runtime: started.elapsed(),
            overrun: state.overrun,
            seen: explored.seen(),
        }
    }

    /// The attacks: the model's and Windup's own take turns, so neither starves the other.
    async fn attack(
        &self,
        lab: &trial::Lab<'_>,
        invariants: &[Invariant],
        explored: &explore::Explored,
        state: &mut trial::Budgeted<'_>,
    ) -> judge::Judged {
        let mut judged = judge::Judged::default();
        let mut planned = with_model::Planned::new(invariants, explored);
        let mut built_in = attack::BuiltIn::new(lab, explored);
        loop {
            let mut attacked = false;
            if let Some(model) = self.model
                && !state.exhausted()
            {
                attacked |= planned.next(lab, model, state, &mut judged).await;
            }
            if !state.exhausted() {
                attacked |= built_in.next(lab, explored, state, &mut judged).await;
            }
            if !attacked || state.exhausted() {
                return judged;
            }
        }
    }

    fn lab<'b>(
        &'b self,
        options: &'b ExecOptions,
        invariants: &'b [Invariant],
        reads: &'b std::collections::BTreeSet<crate::model::invariant::Probe>,
        frames: &'b trial::Frames,
    ) -> trial::Lab<'b> {
        trial::Lab {
            session: self.session,
            options,
            values: self.values,
            invariants,
            reads,
            config: self.config,
            watcher: self.watcher,
            model: self.model,
            frames,
        }
    }

    fn exec_options(&self) -> ExecOptions {
        let mut base = self.config.target.clone();
        base.set_path("/");
        base.set_query(None);
        base.set_fragment(None);
        let mut options = ExecOptions::new(base);
        options.default_timeout = self.config.action_timeout;
        options.artifacts_dir = self.config.artifacts_dir.clone();
        options.allowed_origins = self.config.allowed_origins.clone();
        options.visits = false;
        options
    }
}
