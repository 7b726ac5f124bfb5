//! A trial: a sequence of actions run from a fresh session, the page observed after each one
//! and every invariant checked — state invariants on each page, transition invariants around
//! each action.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use crate::browser::{BrowserError, PageDigest, Session};
use crate::engine::executor::{ExecOptions, Executor, FailureCause, ValueSource};
use crate::model::invariant::{Invariant, Observation, PageEvents, Probe, Verdict};
use crate::model::plan::Action;

use super::{AuditConfig, AuditWatcher, Budget, StopSignal};

/// The scenario name the audit's actions run under, in evidence file names.
pub(super) const SCENARIO: &str = "audit";

/// How long a page reached by an action may take to show something to act on.
pub(super) const SETTLE_READY: std::time::Duration = std::time::Duration::from_secs(2);

/// How often a page that shows nothing to act on yet is looked at again.
const READY_POLL: std::time::Duration = std::time::Duration::from_millis(100);

/// How often a page is looked at while an obligation is owed.
const WATCH_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Why the start page could not be opened.
#[derive(Debug, Clone)]
pub(super) struct Unopened {
    pub(super) reason: String,
    /// Whether the browser or its driver failed, rather than the app.
    pub(super) browser: bool,
}

impl Unopened {
    fn browser(err: BrowserError) -> Self {
        Unopened {
            reason: err.to_string(),
            browser: true,
        }
    }
}

/// What a trial needs and does not change.
pub(super) struct Lab<'a> {
    pub(super) session: &'a Session,
    pub(super) options: &'a ExecOptions,
    pub(super) values: &'a dyn ValueSource,
    pub(super) invariants: &'a [Invariant],
    /// What the invariants read from a page, all of them.
    pub(super) reads: &'a BTreeSet<Probe>,
    pub(super) config: &'a AuditConfig,
    pub(super) watcher: &'a dyn AuditWatcher,
    /// The model, when the audit has one: it proposes rules, plans attacks and judges.
    pub(super) model: Option<&'a super::AuditModel>,
    pub(super) frames: &'a Frames,
}

/// Pictures of the browser for a live preview: at most one per `every`, each a JPEG of at most
/// [`Frames::WIDTH`] pixels across, numbered from 1.
#[derive(Debug)]
pub(super) struct Frames {
    every: Option<std::time::Duration>,
    last: std::sync::Mutex<Option<Instant>>,
    taken: std::sync::atomic::AtomicUsize,
}

impl Frames {
    #[cfg(feature = "images")]
    const WIDTH: u32 = 800;
    #[cfg(feature = "images")]
    const QUALITY: u8 = 70;

    pub(super) fn new(every: Option<std::time::Duration>) -> Self {
        Frames {
            every,
            last: std::sync::Mutex::new(None),
            taken: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Whether a frame is due now; if so, the time is taken as the last frame's.
    fn due(&self) -> bool {
        let Some(every) = self.every else {
            return false;
        };
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|at| at.elapsed() < every) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    /// The page as a small JPEG.
    #[cfg(feature = "images")]
    fn encode(png: &[u8]) -> Option<Vec<u8>> {
        let picture = image::load_from_memory_with_format(png, image::ImageFormat::Png).ok()?;
        let picture = if picture.width() > Self::WIDTH {
            picture.resize(Self::WIDTH, u32::MAX, image::imageops::FilterType::Triangle)
        } else {
            picture
        };
        let rgb = image::DynamicImage::ImageRgb8(picture.to_rgb8());
        let mut out = Vec::new();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, Self::QUALITY);
        rgb.write_with_encoder(encoder).ok()?;
        Some(out)
    }

    /// Without the `images` feature there are no live frames: nothing can scale them.
    #[cfg(not(feature = "images"))]
    fn encode(_png: &[u8]) -> Option<Vec<u8>> {
        None
    }
}

/// A proof under way past the budget: see [`Budgeted::begin_proof`].
#[derive(Debug, Clone, Copy)]
struct Proof {
    began: Instant,
    until: Instant,
    steps: usize,
}

/// The audit's spending against its budget.
pub(super) struct Budgeted<'a> {
    budget: Budget,
    started: Instant,
    stop: &'a dyn StopSignal,
    pub(super) actions: usize,
    pub(super) attacks: usize,
    stopped: Option<&'static str>,
    /// While a violation seen within the budget is proven (reproduced and shrunk): when the
    /// proof began, and until when and up to how many actions the audit may go on.
    proof: Option<Proof>,
    /// The time spent past the budget proving violations seen within it.
    pub(super) overrun: std::time::Duration,
    /// Why, in words, when a budget of the model stopped it.
    pub(super) reason: Option<String>,
    /// Invariants found not to evaluate on this app, by index, with the error.
    pub(super) invalid: BTreeMap<usize, String>,
    /// For each invariant (by index) seen broken: the actions done before, and when.
    pub(super) first_seen: BTreeMap<usize, (usize, std::time::Duration)>,
    /// Invariants (by index) with a proven violation, or one the model's judge vetoed: no
    /// longer checked, since one finding is what a rule's regression test needs.
    pub(super) proven: BTreeSet<usize>,
    /// The states the walks met and the moves they made in each.
    pub(super) visits: super::walk::Visits,
    /// The app's code reached, and the walks' prefixes that reached new code.
    pub(super) compass: super::edges::Compass,
}

impl<'a> Budgeted<'a> {
    pub(super) fn new(budget: Budget, started: Instant, stop: &'a dyn StopSignal) -> Self {
        Budgeted {
            budget,
            started,
            stop,
            actions: 0,
            attacks: 0,
            stopped: None,
            proof: None,
            overrun: std::time::Duration::ZERO,
            reason: None,
            invalid: BTreeMap::new(),
            first_seen: BTreeMap::new(),
            proven: BTreeSet::new(),
            visits: super::walk::Visits::default(),
            compass: super::edges::Compass::default(),
        }
    }

    /// Time since the audit began.
    pub(super) fn elapsed(&self) -> std::time::Duration {
        self.started.elapsed()
    }

    /// Takes the session's count of the app's code after an observation, telling it when due.
    pub(super) fn reached(&mut self, lab: &Lab<'_>) {
        let at = self.elapsed();
        let (_, tell) = self.compass.update(lab.session.coverage(), at);
        if tell {
            lab.watcher.edges(&self.compass.code);
        }
    }

    pub(super) fn budget(&self) -> Budget {
        self.budget
    }

    /// Whether the audit must stop now; remembers why.
    pub(super) fn exhausted(&mut self) -> bool {
        if self.stopped.is_none() {
            let (until, steps) = self
                .proof
                .map_or((self.deadline(), self.budget.steps), |p| (p.until, p.steps));
            if self.stop.stop_requested() {
                self.stopped = Some("stopped");
            } else if Instant::now() >= until {
                self.stopped = Some("time");
            } else if self.actions >= steps {
                self.stopped = Some("steps");
            }
        }
        self.stopped.is_some()
    }

    /// When the time budget ends (a budget of a century or more never does).
    fn deadline(&self) -> Instant {
        const CENTURY: std::time::Duration = std::time::Duration::from_secs(100 * 365 * 86_400);
        self.started + self.budget.time.min(CENTURY)
    }

    /// A violation was just seen within the budget: proving it (two reproductions and the
    /// shrinking runs) may go on past the budget's end by a grace of a third of the budget (at
    /// least 5 s or 50 actions, at most 30 s or 500), so that what a walk saw in its last
    /// seconds is counted, and its regression test is as short as one seen earlier. A stop
    /// asked for, or a budget of the model, is never extended.
    pub(super) fn begin_proof(&mut self) {
        if matches!(self.stopped, Some("stopped" | "model")) || self.proof.is_some() {
            return;
        }
        let grace = (self.budget.time / 3).clamp(
            std::time::Duration::from_secs(5),
            std::time::Duration::from_secs(30),
        );
        let steps = (self.budget.steps / 3).clamp(50, 500);
        let now = Instant::now();
        self.proof = Some(Proof {
            began: now,
            until: self.deadline().max(now.min(self.deadline()) + grace),
            steps: self
                .budget
                .steps
                .max(self.actions.min(self.budget.steps) + steps),
        });
        if matches!(self.stopped, Some("time" | "steps")) {
            self.stopped = None;
        }
    }

    /// The proof begun by [`Self::begin_proof`] is over: the budget is the budget again, and
    /// the time the proof took past it is counted.
    pub(super) fn end_proof(&mut self) {
        if let Some(proof) = self.proof.take() {
            let now = Instant::now();
            self.overrun += now.saturating_duration_since(proof.began.max(self.deadline()));
            if matches!(self.stopped, Some("time" | "steps")) {
                self.stopped = None;
            }
        }
    }

    /// Stops the audit for a budget of the model (`model`), saying why.
    pub(super) fn stop_for_model(&mut self, why: String) {
        if self.stopped.is_none() {
            self.stopped = Some("model");
            self.reason = Some(why);
        }
    }

    /// The audit's wall time not yet spent (with a proof's grace, while one is under way).
    pub(super) fn time_left(&self) -> std::time::Duration {
        let until = self.proof.map_or(self.deadline(), |p| p.until);
        until.saturating_duration_since(Instant::now())
    }

    pub(super) fn coverage(&self) -> super::Coverage {
        self.visits.coverage()
    }

    pub(super) fn stopped_by(&self) -> &'static str {
        self.stopped.unwrap_or("done")
    }
}

/// A violation seen in a trial: which invariant (index into the lab's), after which action
/// (index into the trial's actions), and the values it read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Violation {
    pub(super) invariant: usize,
    pub(super) at: usize,
    pub(super) seen: Vec<String>,
}

/// An invariant checked once, after the action `at`, against the state after action `since`
/// (ids of the trial's actions): the differential oracles.
pub(super) struct Extra<'a> {
    pub(super) invariant: &'a Invariant,
    pub(super) since: &'a str,
    pub(super) at: &'a str,
}

/// What a trial did.
#[derive(Debug, Default)]
pub(super) struct Run {
    /// Actions carried out.
    pub(super) done: usize,
    /// Why it stopped before its end, when it did.
    pub(super) failed: Option<String>,
    /// Why the start page could not be opened, when it could not.
    pub(super) unopened: Option<Unopened>,
    /// Every violation, in order (one per invariant: the first).
    pub(super) violations: Vec<Violation>,
    /// The extra check's violation, when it had one.
    pub(super) extra: Option<Vec<String>>,
    /// The page after opening, then after each action done.
    pub(super) pages: Vec<Observation>,
    /// Invariants (by index) whose readiness condition has held in this run.
    pub(super) ready: BTreeSet<usize>,
    /// What the page did while an obligation was watched, for the next step's checks.
    pub(super) carried: PageEvents,
}

/// An obligation a step left: the invariant (by index) whose trigger held and whose predicate
/// did not yet, and when its time runs out.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owed {
    invariant: usize,
    until: Instant,
}

impl Lab<'_> {
    /// The probes every check needs, the extra one's and `more` included.
    pub(super) fn probes(&self, extra: Option<&Extra<'_>>, more: &[Probe]) -> BTreeSet<Probe> {
        let mut probes = self.reads.clone();
        if let Some(extra) = extra {
            probes.extend(extra.invariant.probes());
        }
        probes.extend(more.iter().cloned());
        probes
    }

    /// Runs `actions` from a fresh session on the target's start page; the pages are also
    /// asked for `more`.
    pub(super) async fn run(
        &self,
        actions: &[Action],
        extra: Option<&Extra<'_>>,
        more: &[Probe],
        spend: &mut Budgeted<'_>,
        label: Option<&str>,
    ) -> Run {
        let mut run = Run::default();
        let probes = self.probes(extra, more);
        let executor = Executor::new(self.session, self.options, self.values);
        if let Err(err) = self.open(&executor).await {
            run.failed = Some(err.reason.clone());
            run.unopened = Some(err);
            return run;
        }
        match self.session.observe(&probes).await {
            Ok(page) => run.pages.push(page),
            Err(err) => {
                run.failed = Some(err.to_string());
                return run;
            }
        }
        let mut since: Option<Observation> = None;
        for (index, action) in actions.iter().enumerate() {
            if spend.exhausted() {
                run.failed = Some("the audit's budget ran out".to_owned());
                break;
            }
            spend.actions += 1;
            if let Err(why) = self.step(&executor, action, index, actions.len()).await {
                run.failed = Some(why);
                break;
            }
            let acted = Instant::now();
            run.done += 1;
            let page = match self.settled(&probes).await {
                Ok(page) => page,
                Err(err) => {
                    run.failed = Some(err.to_string());
                    break;
                }
            };
            let page = self
                .judge_step(&mut run, actions, index, page, acted, &probes, spend)
                .await;
            if let Some(extra) = extra {
                if action.id == extra.since {
                    since = Some(page.clone());
                }
                if action.id == extra.at
                    && let Verdict::Violated { seen } =
                        extra.invariant.check(&page, None, since.as_ref(), None)
                {
                    run.extra = Some(seen);
                }
            }
            if let Some(label) = label {
                self.tell_action(label, action).await;
            }
            run.pages.push(page);
        }
        run
    }

    /// Tells the watcher of an attack's action, with a frame of the browser when one is due.
    pub(super) async fn tell_action(&self, label: &str, action: &Action) {
        let frame = self.frame().await;
        self.watcher.action(label, action, frame.as_deref());
    }

    /// A picture of the browser for the live preview, when one is due.
    async fn frame(&self) -> Option<std::path::PathBuf> {
        if !self.frames.due() {
            return None;
        }
        let png = self.session.screenshot_png().await.ok()?;
        let jpeg = Frames::encode(&png)?;
        let n = 1 + self
            .frames
            .taken
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let path = self.config.artifacts_dir.join(format!("frame-{n}.jpg"));
        std::fs::create_dir_all(&self.config.artifacts_dir).ok()?;
        std::fs::write(&path, jpeg).ok()?;
        Some(path)
    }

    /// The page once it is quiet (see [`crate::browser::Session::observe_quiet`]), within a
    /// few seconds: the events of every look are kept.
    pub(super) async fn settled(
        &self,
        probes: &BTreeSet<Probe>,
    ) -> Result<Observation, crate::browser::BrowserError> {
        self.session
            .observe_quiet(probes, std::time::Duration::from_secs(3))
            .await
    }

    /// Carries on from where the session is, without a fresh start: `actions` run, then the
    /// page is observed with `more`. Exploration's shortcut from a state to its first child.
    pub(super) async fn proceed(
        &self,
        actions: &[Action],
        more: &[Probe],
        spend: &mut Budgeted<'_>,
    ) -> Result<Observation, String> {
        let executor = Executor::new(self.session, self.options, self.values);
        for (index, action) in actions.iter().enumerate() {
            if spend.exhausted() {
                return Err("the audit's budget ran out".to_owned());
            }
            spend.actions += 1;
            self.step(&executor, action, index, actions.len()).await?;
        }
        let probes: BTreeSet<Probe> = more.iter().cloned().collect();
        self.session
            .observe(&probes)
            .await
            .map_err(|e| e.to_string())
    }

    /// Opens the start page in a fresh session, then waits for the app to show something a
    /// person can act on (see [`Lab::ready`]).
    pub(super) async fn open(&self, executor: &Executor<'_>) -> Result<PageDigest, Unopened> {
        self.session.reset().await.map_err(Unopened::browser)?;
        let start = crate::model::invariant::location_of(self.config.target.as_str());
        executor
            .open(SCENARIO, &start, 0)
            .await
            .map_err(|failure| Unopened {
                browser: matches!(failure.cause, FailureCause::Browser(_)),
                reason: failure.cause.to_string(),
            })?;
        self.ready(self.config.ready_timeout)
            .await
            .map_err(Unopened::browser)
    }

    /// The page once it shows a control, as a person waits for an app to render before acting;
    /// as it is when none shows `within`. A document that goes meanwhile (an app that rewrites
    /// its address by loading another) is waited for too.
    pub(super) async fn ready(
        &self,
        within: std::time::Duration,
    ) -> Result<PageDigest, BrowserError> {
        let deadline = Instant::now() + within;
        let mut last: Result<PageDigest, BrowserError>;
        loop {
            last = self.session.digest().await;
            if last.as_ref().is_ok_and(|d| !d.controls.is_empty()) || Instant::now() >= deadline {
                return last;
            }
            tokio::time::sleep(READY_POLL).await;
        }
    }

    /// Carries out one action, refusing what the deny list keeps out of bounds.
    pub(super) async fn step(
        &self,
        executor: &Executor<'_>,
        action: &Action,
        index: usize,
        of: usize,
    ) -> Result<(), String> {
        let deny = &self.config.deny;
        if let Some(url) = &action.url
            && deny.denies_location(url)
        {
            return Err(format!("{url} is on the deny list"));
        }
        if let Some(target) = &action.target {
            let name = target.identity.name.as_deref().unwrap_or("");
            if deny.denies_name(name) {
                return Err(format!("{name:?} is on the deny list"));
            }
        }
        executor
            .step(SCENARIO, action, index + 1, of)
            .await
            .map(|_| ())
            .map_err(|failure| failure.cause.to_string())
    }

    /// Checks every invariant after action `index` (done at `acted`) on the page it left, then
    /// watches the page while an obligation is owed; the page the step leaves, as last seen.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn judge_step(
        &self,
        run: &mut Run,
        actions: &[Action],
        index: usize,
        mut page: Observation,
        acted: Instant,
        probes: &BTreeSet<Probe>,
        spend: &mut Budgeted<'_>,
    ) -> Observation {
        page.events.absorb(std::mem::take(&mut run.carried));
        let owed = self.check(run, actions, index, &page, acted, spend);
        if owed.is_empty() {
            return page;
        }
        self.keep_watch(run, actions, index, page, owed, probes, spend)
            .await
    }

    /// Checks every invariant after action `index`, the page before it and the action; the
    /// obligations it leaves owed.
    fn check(
        &self,
        run: &mut Run,
        actions: &[Action],
        index: usize,
        page: &Observation,
        acted: Instant,
        spend: &mut Budgeted<'_>,
    ) -> Vec<Owed> {
        let before = run.pages.last();
        let facts = crate::model::plan::action_facts(actions, index);
        if may_load_a_document(&actions[index], before, page) {
            // The app may start again: readiness is waited for again.
            run.ready.clear();
        }
        let mut owed = Vec::new();
        for (n, invariant) in self.invariants.iter().enumerate() {
            if spend.proven.contains(&n) || run.violations.iter().any(|v| v.invariant == n) {
                continue;
            }
            if !run.ready.contains(&n) {
                let mut ready = invariant.ready(page, before, Some(&facts));
                if index == 0
                    && ready == Ok(false)
                    && let Some(start) = before
                {
                    // The start page, which no step left.
                    ready = invariant.ready(start, None, None);
                }
                match ready {
                    Ok(true) => {
                        run.ready.insert(n);
                    }
                    Ok(false) => continue,
                    Err(error) => {
                        self.invalid(n, error, spend);
                        continue;
                    }
                }
            }
            let verdict = match invariant.within {
                Some(within) => match invariant.applies(page, None, before, Some(&facts)) {
                    Err(verdict) => verdict,
                    Ok(()) => match invariant.predicate.check(page, before, Some(&facts)) {
                        verdict @ (Verdict::Holds | Verdict::Broken { .. }) => verdict,
                        _ => {
                            owed.push(Owed {
                                invariant: n,
                                until: acted + within,
                            });
                            continue;
                        }
                    },
                },
                None => invariant.check(page, None, before, Some(&facts)),
            };
            match verdict {
                Verdict::Violated { seen } => {
                    seen_broken(&mut run.violations, spend, n, index, seen);
                }
                Verdict::Broken { error } => self.invalid(n, error, spend),
                Verdict::Holds | Verdict::NotApplicable { .. } => {}
            }
        }
        owed
    }

    /// Looks at the page while obligations are owed: each is met by a look on which its
    /// predicate holds before its time runs out, and broken by a look at or past that time on
    /// which it still does not. One whose time ran out before the first look is not judged: what
    /// the page showed meanwhile is unknown. The events the looks heard go to the next step.
    #[allow(clippy::too_many_arguments)]
    async fn keep_watch(
        &self,
        run: &mut Run,
        actions: &[Action],
        index: usize,
        settled: Observation,
        mut owed: Vec<Owed>,
        probes: &BTreeSet<Probe>,
        spend: &mut Budgeted<'_>,
    ) -> Observation {
        let facts = crate::model::plan::action_facts(actions, index);
        owed.retain(|o| Instant::now() < o.until);
        let mut page = settled.clone();
        while !owed.is_empty() {
            let soonest = owed
                .iter()
                .map(|o| o.until)
                .min()
                .unwrap_or_else(Instant::now);
            tokio::time::sleep(WATCH_POLL.min(soonest.saturating_duration_since(Instant::now())))
                .await;
            let Ok(mut look) = self.session.observe(probes).await else {
                continue;
            };
            run.carried.absorb(std::mem::take(&mut look.events));
            page = look;
            let now = Instant::now();
            let before = run.pages.last();
            owed.retain(|o| {
                let invariant = &self.invariants[o.invariant];
                let seen = match invariant.predicate.check(&page, before, Some(&facts)) {
                    Verdict::Holds => return false,
                    _ if now < o.until => return true,
                    Verdict::Violated { seen } => seen,
                    Verdict::NotApplicable { why } => vec![format!("it does not apply: {why}")],
                    Verdict::Broken { error } => vec![format!("it cannot be evaluated: {error}")],
                };
                let within = invariant.within.unwrap_or_default();
                let mut said = vec![format!(
                    "it did not hold within {} of the step",
                    humantime::format_duration(within)
                )];
                said.extend(seen);
                seen_broken(&mut run.violations, spend, o.invariant, index, said);
                false
            });
        }
        page.events = settled.events;
        page
    }

    /// An invariant found not to evaluate on this app, told once.
    fn invalid(&self, n: usize, error: String, spend: &mut Budgeted<'_>) {
        if let std::collections::btree_map::Entry::Vacant(slot) = spend.invalid.entry(n) {
            let status = super::InvariantStatus::Invalid {
                error: error.clone(),
            };
            self.watcher.invariant(&self.invariants[n], &status);
            slot.insert(error);
        }
    }
}

/// Whether a step may have loaded a new document, where an app starts again: a reload, a go-to,
/// back, forward, or a move to another path.
fn may_load_a_document(action: &Action, before: Option<&Observation>, page: &Observation) -> bool {
    use crate::model::plan::ActionKind;
    let path = |url: &str| url::Url::parse(url).map(|u| u.path().to_owned()).ok();
    matches!(
        action.kind,
        ActionKind::Reload | ActionKind::Goto | ActionKind::Back | ActionKind::Forward
    ) || before.is_some_and(|before| path(&before.url) != path(&page.url))
}

/// A violation of invariant `n` after action `index`, with when it was first seen.
fn seen_broken(
    violations: &mut Vec<Violation>,
    spend: &mut Budgeted<'_>,
    n: usize,
    index: usize,
    seen: Vec<String>,
) {
    let now = (spend.actions, spend.elapsed());
    spend.first_seen.entry(n).or_insert(now);
    violations.push(Violation {
        invariant: n,
        at: index,
        seen,
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use super::*;

    fn budget(time: Duration, steps: usize) -> Budget {
        Budget {
            time,
            steps,
            ..Budget::default()
        }
    }

    #[test]
    fn a_violation_seen_within_the_budget_is_proven_past_its_end_within_a_grace() {
        let stop = AtomicBool::new(false);
        // A 30 s budget that ended 2 s ago: the violation was seen as it ended.
        let started = Instant::now() - Duration::from_secs(32);
        let mut spend = Budgeted::new(budget(Duration::from_secs(30), 2000), started, &stop);
        assert!(spend.exhausted());
        assert_eq!(spend.stopped_by(), "time");
        spend.begin_proof();
        assert!(!spend.exhausted(), "the proof goes on past the budget");
        // A third of 30 s from the budget's end, of which 2 s are gone.
        let left = spend.time_left();
        assert!(
            left > Duration::from_secs(7) && left <= Duration::from_secs(8),
            "{left:?}"
        );
        spend.end_proof();
        // The 2 s the last action took past the budget are not the proof's.
        assert!(
            spend.overrun < Duration::from_secs(1),
            "{:?}",
            spend.overrun
        );
        assert!(
            spend.exhausted(),
            "once proven, the budget is the budget again"
        );
        assert_eq!(spend.stopped_by(), "time");
    }

    #[test]
    fn a_proof_may_go_past_the_action_budget_but_not_past_a_stop() {
        let stop = AtomicBool::new(false);
        let mut spend = Budgeted::new(budget(Duration::from_secs(60), 100), Instant::now(), &stop);
        spend.actions = 100;
        assert!(spend.exhausted());
        spend.begin_proof();
        assert!(!spend.exhausted());
        spend.actions = 149;
        assert!(!spend.exhausted(), "50 actions of grace");
        spend.actions = 150;
        assert!(spend.exhausted());
        assert_eq!(spend.stopped_by(), "steps");
        spend.end_proof();
        assert!(spend.exhausted());
        assert_eq!(
            spend.overrun,
            Duration::ZERO,
            "no time past the time budget"
        );

        let mut spend = Budgeted::new(budget(Duration::from_secs(60), 100), Instant::now(), &stop);
        spend.begin_proof();
        stop.store(true, Ordering::SeqCst);
        assert!(spend.exhausted(), "a stop asked for is never extended");
        spend.end_proof();
        spend.begin_proof();
        assert!(spend.exhausted());
        assert_eq!(spend.stopped_by(), "stopped");
    }

    #[test]
    fn a_proof_early_in_the_budget_does_not_shorten_it() {
        let stop = AtomicBool::new(false);
        let mut spend = Budgeted::new(
            budget(Duration::from_secs(600), 2000),
            Instant::now(),
            &stop,
        );
        spend.begin_proof();
        assert!(spend.time_left() > Duration::from_secs(590));
        spend.end_proof();
        assert_eq!(spend.overrun, Duration::ZERO);
        let unbounded = Budgeted::new(budget(Duration::MAX, 2000), Instant::now(), &stop);
        assert!(unbounded.time_left() > Duration::from_secs(86_400));
    }
}
