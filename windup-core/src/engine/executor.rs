//! The deterministic loop: open the start page, then for each action gate, act and verify.
//! No model is involved; the same plan on the same page does the same thing every time.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use url::Url;

use crate::browser::{
    AfterClick, BrowserError, Clicked, GateMode, Key, Probe, ProbeState, Session,
};
use crate::engine::fragments::{FragmentPlans, NoFragments};
use crate::engine::signature::PageVisit;
use crate::engine::verifier::{self, Baseline, Unmet};
use crate::model::invariant::{self, ActionFacts, Observation, Predicate};
use crate::model::plan::{Action, ActionKind, Plan, Postcondition};
use crate::model::secret::SecretValue;

/// How the executor runs plans.
#[derive(Debug, Clone)]
pub struct ExecOptions {
    /// Plans carry paths; they are joined to this URL.
    pub base_url: Url,
    /// The deadline of an action that sets no `timeout_ms`.
    pub default_timeout: Duration,
    /// Where screenshots of failures are written.
    pub artifacts_dir: PathBuf,
    /// Origins besides the base URL's that a `goto` may open (`https://accounts.example`).
    pub allowed_origins: Vec<String>,
    /// Whether to keep a screenshot after every action (for the HTML report's filmstrip).
    pub filmstrip: bool,
    /// Whether to record the pages visited, with their signatures (for the ledger and the
    /// site map); an audit observes every page its own way and turns it off.
    pub visits: bool,
}

impl ExecOptions {
    pub fn new(base_url: Url) -> Self {
        Self {
            base_url,
            default_timeout: Duration::from_secs(5),
            artifacts_dir: PathBuf::from(".windup/artifacts"),
            allowed_origins: Vec::new(),
            filmstrip: false,
            visits: true,
        }
    }

    /// Whether a plan may open `url`: the base URL's origin, or one of the allowed origins.
    pub fn allows(&self, url: &Url) -> bool {
        let origin = url.origin().ascii_serialization();
        url.origin() == self.base_url.origin()
            || self
                .allowed_origins
                .iter()
                .any(|o| o.trim_end_matches('/') == origin)
    }
}

/// Resolves a `value_ref` (`account.password`) at the moment it is typed. The value is handed
/// straight to WebDriver and is never stored, logged or put in an error.
pub trait ValueSource: Send + Sync {
    fn resolve(&self, reference: &str) -> Option<SecretValue>;
}

/// A source with no values: every `value_ref` fails with a message saying so.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoValues;

impl ValueSource for NoValues {
    fn resolve(&self, _reference: &str) -> Option<SecretValue> {
        None
    }
}

/// What a passing run did.
#[derive(Debug, Clone)]
pub struct Execution {
    pub actions: Vec<ActionRecord>,
    pub duration: Duration,
    pub final_url: String,
}

/// One action as it ran.
#[derive(Debug, Clone)]
pub struct ActionRecord {
    pub id: String,
    pub kind: ActionKind,
    pub duration: Duration,
    /// The page after the action, when the run keeps a filmstrip.
    pub screenshot: Option<PathBuf>,
}

/// Why a step failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum FailureCause {
    /// The element never became actionable; the last thing the gate saw.
    NotActionable { probe: Probe, waited: Duration },
    /// Postconditions that did not hold by the deadline.
    Unmet(Vec<Unmet>),
    /// The action could not be carried out as planned (an option that does not exist, a
    /// `goto` to a foreign origin, a value that cannot be resolved).
    Refused(String),
    /// An explicit step named an element that is not on the page, or not only once.
    Unresolved(String),
    /// The browser failed under the action.
    Browser(BrowserError),
    /// A page could not be opened: the site is not reachable, or the start page answered with
    /// an HTTP error. No step is resolved on such a page.
    Navigation(String),
    /// A fragment the action uses failed (at one of its actions), or has no plan to run.
    Fragment {
        name: String,
        action_id: Option<String>,
        cause: Box<FailureCause>,
    },
}

impl std::fmt::Display for FailureCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureCause::NotActionable { probe, waited } => {
                write!(f, "{} (waited {} ms)", probe.detail, waited.as_millis())
            }
            FailureCause::Unmet(unmet) => {
                let lines: Vec<String> = unmet.iter().map(ToString::to_string).collect();
                f.write_str(&lines.join("; "))
            }
            FailureCause::Refused(reason)
            | FailureCause::Unresolved(reason)
            | FailureCause::Navigation(reason) => f.write_str(reason),
            FailureCause::Browser(err) => write!(f, "{err}"),
            FailureCause::Fragment {
                name,
                action_id,
                cause,
            } => match action_id {
                Some(id) => write!(f, "in fragment {name:?}, at its action {id}: {cause}"),
                None => write!(f, "{cause}"),
            },
        }
    }
}

/// A failed step, with the evidence a person needs to see why.
#[derive(Debug)]
pub struct StepFailure {
    pub scenario_id: String,
    pub action_id: String,
    /// The scenario step (1-based) the failing action carries out, when it carries one out.
    pub step: Option<usize>,
    /// 1-based position in the plan; 0 for opening the start page.
    pub position: usize,
    pub of: usize,
    pub kind: Option<ActionKind>,
    pub selector: Option<String>,
    pub cause: FailureCause,
    /// The page URL when the step failed, when it could be read.
    pub url: Option<String>,
    /// A screenshot taken at that moment, when one could be taken.
    pub screenshot: Option<PathBuf>,
}

impl std::fmt::Display for StepFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "scenario {:?}, ", self.scenario_id)?;
        match self.kind {
            Some(kind) => write!(
                f,
                "action {:?} (#{} of {}, {kind}",
                self.action_id, self.position, self.of
            )?,
            None => write!(f, "opening the start page ({}", self.action_id)?,
        }
        if let Some(selector) = &self.selector {
            write!(f, " {selector}")?;
        }
        write!(f, "): {}", self.cause)?;
        if let Some(url) = &self.url {
            write!(f, "\n  page: {url}")?;
        }
        if let Some(path) = &self.screenshot {
            write!(f, "\n  screenshot: {}", path.display())?;
        }
        Ok(())
    }
}

impl std::error::Error for StepFailure {}

/// Who watches a run as it happens: each action as it starts and ends, each page as it is
/// reached. The run layer turns these into its events; watching never changes what runs.
pub trait Watcher: Send + Sync {
    fn action_started(&self, _scenario: &str, _action: &Action, _position: usize, _of: usize) {}
    fn action_finished(&self, _scenario: &str, _action: &Action, _end: ActionEnd<'_>) {}
    fn page_visited(&self, _scenario: &str, _page: &PageVisit) {}
}

/// How an action ended, for a [`Watcher`].
#[derive(Debug, Clone, Copy)]
pub struct ActionEnd<'a> {
    pub position: usize,
    pub of: usize,
    pub passed: bool,
    pub duration: Duration,
    /// The filmstrip frame after it, or the screenshot at its failure.
    pub screenshot: Option<&'a std::path::Path>,
}

/// A run nobody watches.
#[derive(Debug, Default, Clone, Copy)]
pub struct Unwatched;

impl Watcher for Unwatched {}

/// Runs plans on one session.
pub struct Executor<'a> {
    session: &'a Session,
    options: &'a ExecOptions,
    values: &'a dyn ValueSource,
    fragments: &'a dyn FragmentPlans,
    watcher: &'a dyn Watcher,
    /// The pages reached since the last [`Executor::take_visits`], in order.
    visits: Mutex<Vec<PageVisit>>,
    /// What `holds` postconditions compare with: read only for plans that have them.
    baselines: Mutex<Baselines>,
}

/// An action of a run, for baselines: the scenario (or `scenario/fragment`) and the action id.
type ActionKey = (String, String);

/// The pages `holds` postconditions compare with: what to read around which action, and what
/// was read.
#[derive(Debug, Default)]
struct Baselines {
    /// Probes to read just before an action runs.
    before: BTreeMap<ActionKey, BTreeSet<invariant::Probe>>,
    /// Probes to read right after an action and its postconditions passed.
    after: BTreeMap<ActionKey, BTreeSet<invariant::Probe>>,
    /// The page just before each action that needed it.
    seen_before: BTreeMap<ActionKey, Observation>,
    /// The page right after each action a `since` names.
    seen_after: BTreeMap<ActionKey, Observation>,
    /// The page events gathered since just before each action that has a `holds`.
    events: BTreeMap<ActionKey, invariant::PageEvents>,
    /// Each action of a prepared plan that has a `holds`, as its predicates read it (with the
    /// fills that lead up to it).
    facts: BTreeMap<ActionKey, ActionFacts>,
}

fn key(scenario: &str, action_id: &str) -> ActionKey {
    (scenario.to_owned(), action_id.to_owned())
}

impl<'a> Executor<'a> {
    pub fn new(
        session: &'a Session,
        options: &'a ExecOptions,
        values: &'a dyn ValueSource,
    ) -> Self {
        Self {
            session,
            options,
            values,
            fragments: &NoFragments,
            watcher: &Unwatched,
            visits: Mutex::new(Vec::new()),
            baselines: Mutex::new(Baselines::default()),
        }
    }

    /// The same executor, telling `watcher` what happens as it happens.
    pub fn watched_by(mut self, watcher: &'a dyn Watcher) -> Self {
        self.watcher = watcher;
        self
    }

    /// The same executor, running `use` actions with these fragments' plans.
    pub fn with_fragments(mut self, fragments: &'a dyn FragmentPlans) -> Self {
        self.fragments = fragments;
        self
    }

    /// Where `use` actions find their fragments.
    pub fn fragments(&self) -> &dyn FragmentPlans {
        self.fragments
    }

    /// The pages reached since the last call, each with its structural signature, in the order
    /// they were reached; a page is listed again when a run comes back to it.
    pub fn take_visits(&self) -> Vec<PageVisit> {
        std::mem::take(&mut *self.visits.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Records the current page when the path changed since the last page recorded: the URL a
    /// script of the step already reported (else one read), and one snapshot per new page. Recording is collection, never a verdict:
    /// a page that cannot be read now is simply not recorded. A planner looks once more when
    /// a run ends, after the scenario's expectations have waited for the page they are about.
    pub(crate) async fn observe(&self, scenario: &str) {
        if !self.options.visits {
            return;
        }
        let Ok(url) = self.session.url_now().await else {
            return;
        };
        let path = url.path();
        let visits = || self.visits.lock().unwrap_or_else(|p| p.into_inner());
        if visits().last().is_some_and(|last| last.path == path) {
            return;
        }
        // A page still loading is left for the next step to record, and the path recorded is
        // the one the snapshot itself saw. A script of the step may have read it already.
        let seen = self
            .session
            .take_seen_structure()
            .and_then(|raw| {
                serde_json::from_value::<crate::engine::signature::PageStructure>(raw).ok()
            })
            .filter(|page| Url::parse(&page.url).is_ok_and(|u| u.path() == path));
        let page = match seen {
            Some(page) => page,
            None => match self.session.structure().await {
                Ok(page) => page,
                Err(_) => return,
            },
        };
        let Some(path) = Url::parse(&page.url)
            .ok()
            .map(|url| url.path().to_owned())
            .filter(|_| page.loaded)
        else {
            return;
        };
        let mut visits = visits();
        if visits.last().is_none_or(|last| last.path != path) {
            let visit = PageVisit {
                path,
                sig: page.signature(),
            };
            self.watcher.page_visited(scenario, &visit);
            self.session.set_recorded_path(Some(&visit.path));
            visits.push(visit);
        }
    }

    /// Runs a plan from its start page to its last postcondition.
    pub async fn run(&self, plan: &Plan) -> Result<Execution, Box<StepFailure>> {
        let started = Instant::now();
        let scenario = plan.scenario_id.as_str();
        let of = plan.actions.len();
        self.watch_if_read(scenario, plan).await?;
        self.open(scenario, &plan.start_url, of).await?;
        self.prepare_plan(scenario, plan);
        let mut records = Vec::with_capacity(of);
        for (index, action) in plan.actions.iter().enumerate() {
            records.push(self.step(scenario, action, index + 1, of).await?);
        }
        // A page the last step left still loading is recorded once it has loaded (over BiDi a
        // script does not wait for that, as Classic's do).
        self.session.wait_for_navigation().await;
        self.observe(scenario).await;
        let final_url = match self.session.url_now().await {
            Ok(url) => url.to_string(),
            Err(err) => {
                let at = Position::end(scenario, of);
                return Err(self.failure(at, FailureCause::Browser(err)).await);
            }
        };
        Ok(Execution {
            actions: records,
            duration: started.elapsed(),
            final_url,
        })
    }

    /// Opens a scenario's start page (a path joined to the base URL).
    pub async fn open(
        &self,
        scenario: &str,
        start_url: &str,
        of: usize,
    ) -> Result<(), Box<StepFailure>> {
        self.forget_pages();
        let opening = async {
            let url = self.resolve_url(start_url)?;
            let opened = self.session.goto(url.as_str()).await.map_err(navigation)?;
            match opened.status {
                Some(status) if status >= 400 => Err(FailureCause::Navigation(format!(
                    "the start page {url} answered HTTP {status} ({}): check the scenario's \
                     start_url and the base URL",
                    http_reason(status)
                ))),
                _ => Ok(()),
            }
        };
        match opening.await {
            Ok(()) => {
                self.observe(scenario).await;
                Ok(())
            }
            Err(cause) => {
                let at = Position::opening(scenario, start_url, of);
                Err(self.failure(at, cause).await)
            }
        }
    }

    /// Runs one action (gate, act, verify); `position` is 1-based among `of`.
    pub async fn step(
        &self,
        scenario: &str,
        action: &Action,
        position: usize,
        of: usize,
    ) -> Result<ActionRecord, Box<StepFailure>> {
        let started = Instant::now();
        self.watcher.action_started(scenario, action, position, of);
        let at = Position {
            scenario,
            action_id: &action.id,
            step: action.written_step(),
            position,
            of,
            kind: Some(action.kind),
            selector: action.target.as_ref().map(|t| t.selector.as_str()),
        };
        let done = match self.run_action(scenario, scenario, action).await {
            Ok(()) => {
                let duration = started.elapsed();
                self.observe(scenario).await;
                let screenshot = self.film(scenario, position, &action.id).await;
                Ok(ActionRecord {
                    id: action.id.clone(),
                    kind: action.kind,
                    duration,
                    screenshot,
                })
            }
            Err(cause) => Err(self.failure(at, cause).await),
        };
        let end = ActionEnd {
            position,
            of,
            passed: done.is_ok(),
            duration: started.elapsed(),
            screenshot: match &done {
                Ok(record) => record.screenshot.as_deref(),
                Err(failure) => failure.screenshot.as_deref(),
            },
        };
        self.watcher.action_finished(scenario, action, end);
        done
    }

    /// A plan that checks a `holds` may read page events (errors, markers), so every document
    /// it opens is watched from its start; any other plan meets the page as it is.
    async fn watch_if_read(&self, scenario: &str, plan: &Plan) -> Result<(), Box<StepFailure>> {
        let watched = if plan.actions.iter().any(Action::checks_holds) {
            self.session.watch_page_events().await
        } else {
            self.session.unwatch_page_events().await
        };
        match watched {
            Ok(()) => Ok(()),
            Err(err) => Err(self
                .failure(Position::end(scenario, 0), FailureCause::Browser(err))
                .await),
        }
    }

    /// The session this executor drives.
    pub fn session(&self) -> &Session {
        self.session
    }

    /// The options this executor runs with.
    pub fn options(&self) -> &ExecOptions {
        self.options
    }

    /// Gates, acts and verifies one action; `key` names the run it belongs to for baselines
    /// (the scenario, or `scenario/fragment` inside a fragment).
    async fn run_action(
        &self,
        scenario: &str,
        key: &str,
        action: &Action,
    ) -> Result<(), FailureCause> {
        let timeout = action
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.default_timeout);
        self.read_before(key, action).await?;
        let started = Instant::now();
        let deadline = started + timeout;
        let acted = self.act(scenario, action, deadline, started).await;
        // Whatever happened inside a frame, what follows looks at the page itself.
        let left = self.session.leave_frames().await;
        acted?;
        left.map_err(FailureCause::Browser)?;
        // Postconditions get the action's full timeout from the moment the act is done.
        let verify_deadline = Instant::now() + timeout;
        let mut baseline = self.baseline(key, action, &action.expect);
        let verified = verifier::verify(
            self.session,
            &self.options.base_url,
            &action.expect,
            &mut baseline,
            verify_deadline,
        )
        .await;
        self.keep_events(key, &action.id, baseline);
        verified
            .map_err(FailureCause::Browser)?
            .map_err(FailureCause::Unmet)?;
        self.read_after(key, action).await
    }

    /// Makes ready for a plan's `holds` postconditions: each is told to the executor as
    /// [`Executor::prepare_holds`] would be. [`Executor::run`] does it; a caller that runs a
    /// plan's actions one by one with [`Executor::step`] does it first, so that a `since`
    /// finds the page it names.
    pub fn prepare_plan(&self, scenario: &str, plan: &Plan) {
        for (index, action) in plan.actions.iter().enumerate() {
            for condition in &action.expect {
                self.prepare_holds(scenario, &action.id, condition);
            }
            if action.checks_holds() {
                self.baselines().facts.insert(
                    key(scenario, &action.id),
                    crate::model::plan::action_facts(&plan.actions, index),
                );
            }
        }
    }

    /// Tells the executor that `condition` will be checked after the action `action_id` of
    /// `scenario`: for a `holds`, the page is then read just before that action (its events
    /// count from there) and, for its `before.`, right after the action its `since` names. Other
    /// postconditions need nothing. It must come before the actions it names run.
    pub fn prepare_holds(&self, scenario: &str, action_id: &str, condition: &Postcondition) {
        let Postcondition::Holds { predicate, since } = condition else {
            return;
        };
        let Ok(parsed) = Predicate::parse(predicate) else {
            return;
        };
        let mut baselines = self.baselines();
        let before = baselines
            .before
            .entry(key(scenario, action_id))
            .or_default();
        if !parsed.reads_before() {
            return;
        }
        match since {
            None => before.extend(parsed.probes()),
            Some(since) => baselines
                .after
                .entry(key(scenario, since))
                .or_default()
                .extend(parsed.probes()),
        }
    }

    fn baselines(&self) -> std::sync::MutexGuard<'_, Baselines> {
        self.baselines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new run on this session: nothing read of earlier pages is compared with any more.
    fn forget_pages(&self) {
        let mut baselines = self.baselines();
        baselines.seen_before.clear();
        baselines.seen_after.clear();
        baselines.events.clear();
    }

    /// Reads the page just before an action that has a `holds`, or that one was prepared for;
    /// no script for any other action. Its events so far belong to earlier actions.
    async fn read_before(&self, run: &str, action: &Action) -> Result<(), FailureCause> {
        let at = key(run, &action.id);
        let prepared = self.baselines().before.get(&at).cloned();
        let own: Vec<Predicate> = action
            .expect
            .iter()
            .filter_map(|condition| match condition {
                Postcondition::Holds { predicate, since } => {
                    Predicate::parse(predicate).ok().filter(|_| since.is_none())
                }
                _ => None,
            })
            .collect();
        if prepared.is_none() && !action.checks_holds() {
            return Ok(());
        }
        let mut probes = prepared.unwrap_or_default();
        for predicate in own.iter().filter(|p| p.reads_before()) {
            probes.extend(predicate.probes());
        }
        let page = self.read_page(&probes, action).await?;
        let mut baselines = self.baselines();
        baselines.events.insert(at.clone(), Default::default());
        match page {
            Some(page) => baselines.seen_before.insert(at, page),
            None => baselines.seen_before.remove(&at),
        };
        Ok(())
    }

    /// Reads the page right after an action that a later `since` names; its events join the
    /// action's.
    async fn read_after(&self, run: &str, action: &Action) -> Result<(), FailureCause> {
        let at = key(run, &action.id);
        let Some(probes) = self.baselines().after.get(&at).cloned() else {
            return Ok(());
        };
        let Some(mut page) = self.read_page(&probes, action).await? else {
            return Ok(());
        };
        let mut baselines = self.baselines();
        let events = std::mem::take(&mut page.events);
        baselines
            .events
            .entry(at.clone())
            .or_default()
            .absorb(events);
        baselines.seen_after.insert(at, page);
        Ok(())
    }

    /// As [`Executor::read_after`], for an action the executor did not run itself (a `use`
    /// whose fragment was planned in its place).
    pub(crate) async fn after_action(
        &self,
        scenario: &str,
        action: &Action,
    ) -> Result<(), FailureCause> {
        self.read_after(scenario, action).await
    }

    /// The page, once it can be read, within the action's timeout: a page still navigating is
    /// looked at again after its next change; `None` when it never settles.
    async fn read_page(
        &self,
        probes: &BTreeSet<invariant::Probe>,
        action: &Action,
    ) -> Result<Option<Observation>, FailureCause> {
        let timeout = action
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.options.default_timeout);
        let deadline = Instant::now() + timeout;
        loop {
            match self.session.observe(probes).await {
                Ok(page) => return Ok(Some(page)),
                Err(err) if err.is_lost() => return Err(FailureCause::Browser(err)),
                Err(_) if Instant::now() >= deadline => return Ok(None),
                Err(_) => self.session.wait_for_change().await,
            }
        }
    }

    /// What the `conditions` checked after `action` compare with (nothing to gather when none is
    /// a `holds`).
    pub(crate) fn baseline(
        &self,
        run: &str,
        action: &Action,
        conditions: &[Postcondition],
    ) -> Baseline {
        if !conditions
            .iter()
            .any(|c| matches!(c, Postcondition::Holds { .. }))
        {
            return Baseline::default();
        }
        let at = key(run, &action.id);
        let baselines = self.baselines();
        let after = conditions
            .iter()
            .filter_map(|condition| match condition {
                Postcondition::Holds {
                    since: Some(since), ..
                } => baselines
                    .seen_after
                    .get(&key(run, since))
                    .map(|page| (since.clone(), page.clone())),
                _ => None,
            })
            .collect();
        Baseline {
            before: baselines.seen_before.get(&at).cloned(),
            after,
            action: Some(baselines.facts.get(&at).cloned().unwrap_or_else(|| {
                crate::model::plan::action_facts(std::slice::from_ref(action), 0)
            })),
            events: baselines.events.get(&at).cloned().unwrap_or_default(),
        }
    }

    /// Keeps the events a verification gathered, for the next one after the same action.
    pub(crate) fn keep_events(&self, run: &str, action_id: &str, baseline: Baseline) {
        if baseline.action.is_some() {
            self.baselines()
                .events
                .insert(key(run, action_id), baseline.events);
        }
    }

    /// Carries out an action once its element is actionable, before its postconditions.
    async fn act(
        &self,
        scenario: &str,
        action: &Action,
        deadline: Instant,
        started: Instant,
    ) -> Result<(), FailureCause> {
        let gated = |mode| self.gate(action, mode, deadline, started);
        let browser = |result: Result<(), BrowserError>| result.map_err(FailureCause::Browser);
        match action.kind {
            ActionKind::Goto => {
                let url = self.resolve_url(required(&action.url, "url")?)?;
                self.session.goto(url.as_str()).await.map_err(navigation)?;
            }
            ActionKind::Click => {
                self.click(action, GateMode::Click, None, deadline, started)
                    .await?;
            }
            ActionKind::Fill => {
                let text = self.fill_value(action)?;
                let element = gated(GateMode::Fill).await?;
                browser(self.session.type_into(&element, &text).await)?;
            }
            ActionKind::Select => self.select(action, gated(GateMode::Select).await?).await?,
            ActionKind::Check | ActionKind::Uncheck => {
                let want = action.kind == ActionKind::Check;
                let element = gated(GateMode::Check).await?;
                if element.checked != Some(want) {
                    // The gate just passed: the first click needs no second look.
                    let checked = self
                        .click(action, GateMode::Check, Some(element), deadline, started)
                        .await?;
                    if checked != Some(want) {
                        self.wait_checked(action, want, deadline, started).await?;
                    }
                }
            }
            ActionKind::Press => self.press(action, deadline, started).await?,
            ActionKind::Type => {
                let text = required(&action.value, "value")?;
                let element = gated(GateMode::Fill).await?;
                browser(self.session.type_more(&element, text).await)?;
            }
            ActionKind::Focus => {
                let element = gated(GateMode::Visible).await?;
                browser(self.session.focus(&element).await)?;
            }
            ActionKind::WaitFor => {
                gated(GateMode::Visible).await?;
            }
            ActionKind::Hover => {
                let element = gated(GateMode::Hover).await?;
                browser(self.session.hover(&element).await)?;
            }
            ActionKind::DoubleClick => {
                let element = gated(GateMode::Click).await?;
                browser(self.session.double_click(&element).await)?;
            }
            ActionKind::Reload => {
                self.session.reload().await.map_err(navigation)?;
            }
            ActionKind::Back => {
                self.session.back().await.map_err(navigation)?;
            }
            ActionKind::Forward => {
                self.session.forward().await.map_err(navigation)?;
            }
            ActionKind::Use => self.use_fragment(scenario, action).await?,
        }
        Ok(())
    }

    /// Presses the action's key in its target (given the focus first), or in whatever has the
    /// focus.
    async fn press(
        &self,
        action: &Action,
        deadline: Instant,
        started: Instant,
    ) -> Result<(), FailureCause> {
        let name = required(&action.key, "key")?;
        let key = Key::named(name).ok_or_else(|| {
            FailureCause::Refused(format!("{name:?} is not a key Windup can press"))
        })?;
        let pressed = match &action.target {
            Some(_) => {
                let element = self
                    .gate(action, GateMode::Visible, deadline, started)
                    .await?;
                self.session.press_in(&element, key).await
            }
            None => self.session.press(key).await,
        };
        pressed.map_err(FailureCause::Browser)
    }

    async fn select(
        &self,
        action: &Action,
        element: crate::browser::Actionable,
    ) -> Result<(), FailureCause> {
        let option = required(&action.value, "value")?;
        let found = self
            .session
            .select_option(&element, option)
            .await
            .map_err(FailureCause::Browser)?;
        if found {
            Ok(())
        } else {
            Err(FailureCause::Refused(format!(
                "the list {} has no option labelled or valued {option:?}",
                element.described
            )))
        }
    }

    /// Runs a fragment's actions in place of a `use` action.
    async fn use_fragment(&self, scenario: &str, action: &Action) -> Result<(), FailureCause> {
        let name = required(&action.use_fragment, "use")?;
        let in_fragment = |action_id: Option<&str>, cause: FailureCause| FailureCause::Fragment {
            name: name.to_owned(),
            action_id: action_id.map(str::to_owned),
            cause: Box::new(cause),
        };
        let plan = self
            .fragments
            .plan(name)
            .map_err(|err| in_fragment(None, FailureCause::Refused(err.to_string())))?;
        let key = format!("{scenario}/{name}");
        self.prepare_plan(&key, &plan);
        for inner in &plan.actions {
            if inner.kind == ActionKind::Use {
                let nested =
                    FailureCause::Refused("a fragment cannot use another fragment".to_owned());
                return Err(in_fragment(Some(&inner.id), nested));
            }
            Box::pin(self.run_action(scenario, &key, inner))
                .await
                .map_err(|cause| in_fragment(Some(&inner.id), cause))?;
            self.observe(scenario).await;
        }
        Ok(())
    }

    /// Clicks once the element is actionable (`gated`: it has just passed the gate). A click
    /// that loses a race with the page (the element moved or got covered after the gate
    /// passed) is gated again, up to the deadline. For a checkbox or radio, whether its control
    /// is checked after the click, when the page told.
    async fn click(
        &self,
        action: &Action,
        mode: GateMode,
        mut gated: Option<crate::browser::Actionable>,
        deadline: Instant,
        started: Instant,
    ) -> Result<Option<bool>, FailureCause> {
        // A plain click whose postconditions look at the page itself leaves the wait for a
        // departing submission to their first look: one script less.
        let then = match action.target.as_ref() {
            Some(target)
                if mode == GateMode::Click
                    && target.frames.is_empty()
                    && verifier::checks_page(&action.expect) =>
            {
                AfterClick::CheckPage
            }
            _ => AfterClick::Settle,
        };
        loop {
            let element = match gated.take() {
                Some(element) => element,
                None => self.gate(action, mode, deadline, started).await?,
            };
            let clicked = self
                .session
                .click(&element, then, deadline)
                .await
                .map_err(FailureCause::Browser)?;
            match clicked {
                Clicked::Done { checked } => return Ok(checked),
                Clicked::Raced if Instant::now() < deadline => {}
                Clicked::Raced => {
                    let aimed = match &element.acted {
                        Some(acted) => format!("{acted}, for {}", element.described),
                        None => element.described.clone(),
                    };
                    let through = match &element.through {
                        Some(hit) => format!(" (pressed through {hit}, of its label/control pair)"),
                        None => String::new(),
                    };
                    return Err(FailureCause::Refused(format!(
                        "the click on {aimed}{through} kept missing it: the page moved, replaced \
                         or covered it each time, up to the deadline"
                    )));
                }
            }
        }
    }

    async fn gate(
        &self,
        action: &Action,
        mode: GateMode,
        deadline: Instant,
        started: Instant,
    ) -> Result<crate::browser::Actionable, FailureCause> {
        let target = action
            .target
            .as_ref()
            .ok_or_else(|| FailureCause::Refused("the action has no target".into()))?;
        self.session
            .wait_actionable_in(
                &target.frames,
                &target.selector,
                mode,
                Some(&target.identity),
                deadline,
            )
            .await
            .map_err(FailureCause::Browser)?
            .map_err(|mut probe| {
                if !target.frames.is_empty() && probe.state != ProbeState::FrameMissing {
                    probe.detail = format!(
                        "{} (in the frame {})",
                        probe.detail,
                        target.frames.join(" > ")
                    );
                }
                FailureCause::NotActionable {
                    probe,
                    waited: started.elapsed(),
                }
            })
    }

    /// After a click on a checkbox (or its label), waits for the control to take the state.
    async fn wait_checked(
        &self,
        action: &Action,
        want: bool,
        deadline: Instant,
        started: Instant,
    ) -> Result<(), FailureCause> {
        loop {
            let element = self
                .gate(action, GateMode::Check, deadline, started)
                .await?;
            if element.checked == Some(want) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let state = if want { "checked" } else { "unchecked" };
                return Err(FailureCause::Refused(format!(
                    "{} did not become {state} after it was clicked",
                    element.described
                )));
            }
            self.session.wait_for_change().await;
        }
    }

    fn fill_value(&self, action: &Action) -> Result<String, FailureCause> {
        match (&action.value, &action.value_ref) {
            (Some(value), None) => Ok(value.clone()),
            (None, Some(reference)) => self
                .values
                .resolve(reference)
                .map(|secret| secret.expose().to_owned())
                .ok_or_else(|| {
                    FailureCause::Refused(format!(
                        "{reference} has no value: set its variable (see [accounts] in \
                         windup.toml) in the environment or in .env.local"
                    ))
                }),
            _ => Err(FailureCause::Refused(
                "a fill needs exactly one of value or value_ref".into(),
            )),
        }
    }

    /// Joins a plan URL to the base URL and refuses origins the run does not allow.
    fn resolve_url(&self, raw: &str) -> Result<Url, FailureCause> {
        let url =
            self.options.base_url.join(raw).map_err(|err| {
                FailureCause::Refused(format!("{raw:?} is not a valid URL ({err})"))
            })?;
        if self.options.allows(&url) {
            Ok(url)
        } else {
            Err(FailureCause::Refused(format!(
                "refusing to open {url}: {} is not the scenario's origin ({}); \
                 add it to the allowed origins in windup.toml if it should be",
                url.origin().ascii_serialization(),
                self.options.base_url.origin().ascii_serialization()
            )))
        }
    }

    /// With a filmstrip on, a screenshot of the page after action `position`; evidence for the
    /// report, so a screenshot that cannot be taken is simply missing.
    async fn film(&self, scenario: &str, position: usize, action_id: &str) -> Option<PathBuf> {
        if !self.options.filmstrip {
            return None;
        }
        let path = self
            .options
            .artifacts_dir
            .join("filmstrip")
            .join(file_safe(scenario))
            .join(format!("{position:03}-{}.png", file_safe(action_id)));
        self.session.screenshot(&path).await.ok().map(|()| path)
    }

    /// Builds a step failure with its evidence: the page URL and a screenshot taken now.
    pub async fn failure(&self, at: Position<'_>, cause: FailureCause) -> Box<StepFailure> {
        let url = self.session.current_url().await.ok().map(|u| u.to_string());
        let path = self
            .options
            .artifacts_dir
            .join("screenshots")
            .join(file_safe(at.scenario))
            .join(format!("{}.png", file_safe(at.action_id)));
        let screenshot = match self.session.screenshot(&path).await {
            Ok(()) => Some(path),
            Err(_) => None,
        };
        Box::new(StepFailure {
            scenario_id: at.scenario.to_owned(),
            action_id: at.action_id.to_owned(),
            step: at.step,
            position: at.position,
            of: at.of,
            kind: at.kind,
            selector: at.selector.map(str::to_owned),
            cause,
            url,
            screenshot,
        })
    }
}

/// Where in a plan a failure happened.
#[derive(Debug, Clone, Copy)]
pub struct Position<'a> {
    pub scenario: &'a str,
    pub action_id: &'a str,
    /// The scenario step (1-based) the action carries out, when it carries one out.
    pub step: Option<usize>,
    /// 1-based; 0 for opening the start page.
    pub position: usize,
    pub of: usize,
    pub kind: Option<ActionKind>,
    pub selector: Option<&'a str>,
}

impl<'a> Position<'a> {
    /// Before a plan's first action: on its start page.
    pub fn opening(scenario: &'a str, start_url: &'a str, of: usize) -> Self {
        Self {
            scenario,
            action_id: start_url,
            step: None,
            position: 0,
            of,
            kind: None,
            selector: None,
        }
    }

    fn end(scenario: &'a str, of: usize) -> Self {
        Self {
            scenario,
            action_id: "end",
            step: None,
            position: of,
            of,
            kind: None,
            selector: None,
        }
    }
}

/// The action a transition predicate reads as `action.`; a secret's reference is never a value.
/// A browser error, with a page the browser could not open told apart.
fn navigation(err: BrowserError) -> FailureCause {
    match err {
        BrowserError::Navigation(unreachable) => FailureCause::Navigation(unreachable.to_string()),
        err => FailureCause::Browser(err),
    }
}

/// The reason phrase of an HTTP error status.
fn http_reason(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("an error")
}

fn required<'v>(value: &'v Option<String>, field: &str) -> Result<&'v str, FailureCause> {
    value
        .as_deref()
        .ok_or_else(|| FailureCause::Refused(format!("the action has no {field}")))
}

/// A name safe to use as one path component.
pub(crate) fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() { "_".into() } else { safe }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_keep_only_safe_characters() {
        assert_eq!(
            file_safe("checkout/as demo..user"),
            "checkout_as_demo__user"
        );
        assert_eq!(file_safe(""), "_");
    }
}
