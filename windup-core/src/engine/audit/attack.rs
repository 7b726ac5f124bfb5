//! The built-in attacks, no model: hostile values in every field (boundaries, negatives, huge,
//! empty, markup that runs), the same submission twice, the double submit, reload and back after
//! a submit (each measured against a single submission), and seeded random walks. Every
//! violation seen goes to the judge.

use std::collections::BTreeSet;

use crate::browser::Control;
use crate::engine::executor::Executor;
use crate::model::invariant::{Field, Observation, Probe, location_of};
use crate::model::plan::Action;

use super::explore::{Explored, Page};
use super::judge::{Blurs, Judged, Suspect};
use super::moves::{self, numbered};
use super::moves::{filled, form_key, send};
use super::oracles;
use super::rng::Rng;
use super::trial::{Budgeted, Lab, Run, SETTLE_READY};
use super::walk;

/// What the record oracle counts on a page: the rows of lists and tables a submission adds to.
const ROWS: [&str; 4] = ["tbody tr", "ul li", "ol li", "article"];

/// Pages measured around a submission, at most.
const MEASURED: usize = 5;

/// How long a walk's action may wait for its element to become actionable.
const WALK_ACTION_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);

/// The built-in attacks of one audit, in the order they are tried: the moves that most often
/// break business rules first, so a small budget still tries them.
pub(super) struct BuiltIn<'a> {
    forms: Vec<Form<'a>>,
    turns: std::collections::VecDeque<Turn>,
    /// Whether the forms' attacks, and the walks, were announced.
    forms_told: bool,
    walks_told: bool,
}

/// One built-in attack, on a form by its index.
#[derive(Debug, Clone, Copy)]
enum Turn {
    Records(usize),
    Twice(usize),
    /// A form's hostile values, from the `.1`th on.
    Hostile(usize, usize),
    Walk(usize),
}

impl<'a> BuiltIn<'a> {
    pub(super) fn new(lab: &Lab<'_>, explored: &'a Explored) -> Self {
        let deny = &lab.config.deny;
        let forms: Vec<Form<'a>> = forms(explored)
            .into_iter()
            .filter(|f| {
                !f.fields
                    .iter()
                    .any(|c| c.submits && deny.denies_name(c.called()))
            })
            .collect();
        let mut turns = std::collections::VecDeque::new();
        let mut actions_seen = BTreeSet::new();
        for (n, form) in forms.iter().enumerate() {
            // One record attack per place a form posts to: the same action from another page
            // makes the same records.
            if form.method == "post"
                && !form.is_login()
                && actions_seen.insert(form.action.split('?').next().unwrap_or("").to_owned())
            {
                turns.push_back(Turn::Records(n));
            }
        }
        turns.extend((0..forms.len()).map(Turn::Twice));
        turns.extend(
            (0..forms.len())
                .filter(|&n| !forms[n].is_login())
                .map(|n| Turn::Hostile(n, 0)),
        );
        if lab.config.budget.walks != Some(0) {
            turns.push_back(Turn::Walk(0));
        }
        BuiltIn {
            forms,
            turns,
            forms_told: false,
            walks_told: false,
        }
    }

    /// Runs the next attack; false when none is left.
    pub(super) async fn next(
        &mut self,
        lab: &Lab<'_>,
        explored: &Explored,
        spend: &mut Budgeted<'_>,
        judged: &mut Judged,
    ) -> bool {
        let Some(turn) = self.turns.pop_front() else {
            return false;
        };
        if !self.forms_told {
            self.forms_told = true;
            lab.watcher.reasoning(&format!(
                "Attacking {} forms with hostile values, repeated and double submissions.",
                self.forms.len()
            ));
        }
        match turn {
            Turn::Records(n) => records(lab, explored, &self.forms[n], spend, judged).await,
            Turn::Twice(n) => twice(lab, explored, &self.forms[n], spend, judged).await,
            Turn::Hostile(n, at) => {
                if hostile_value(lab, &self.forms[n], at, spend, judged).await {
                    self.turns.push_front(Turn::Hostile(n, at + 1));
                }
            }
            Turn::Walk(walk) => {
                let budget = spend.budget();
                if !self.walks_told {
                    self.walks_told = true;
                    let how_many = match budget.walks {
                        Some(walks) => format!("{walks} walks"),
                        None => "walks until the budget is spent".to_owned(),
                    };
                    lab.watcher.reasoning(&format!(
                        "Using the app as a person does: {how_many}, each of {} moves from a \
                         fresh session, seed {}.",
                        budget.walk_length, lab.config.seed
                    ));
                }
                if !spend.exhausted() {
                    random_walk(lab, walk, spend, judged).await;
                    if budget.walks.is_none_or(|walks| walk + 1 < walks) {
                        self.turns.push_back(Turn::Walk(walk + 1));
                    }
                }
            }
        }
        true
    }
}

/// A form of an explored page, and how to reach it.
struct Form<'a> {
    page: &'a Page,
    fields: Vec<&'a Control>,
    method: String,
    /// Where it is sent (the page itself for a standalone field).
    action: String,
}

/// Every kind of form the exploration met, once (the first page it was met on), and every
/// field that stands alone and is sent with Enter, as a form of one field.
fn forms(explored: &Explored) -> Vec<Form<'_>> {
    let mut seen = BTreeSet::new();
    let mut forms = Vec::new();
    for page in &explored.pages {
        let digest = &page.digest;
        for (index, info) in digest.forms.iter().enumerate() {
            let fields: Vec<&Control> = digest.fields_of(index);
            if seen.insert(form_key(info, &fields)) {
                forms.push(Form {
                    page,
                    fields,
                    method: info.method.clone(),
                    action: info.action.clone(),
                });
            }
        }
        for control in digest.controls.iter().filter(|c| c.form.is_none()) {
            if control.is_text_field() && seen.insert(format!("field {}", control.selector)) {
                forms.push(Form {
                    page,
                    fields: vec![control],
                    method: "none".to_owned(),
                    action: page.location.clone(),
                });
            }
        }
    }
    forms
}

impl Form<'_> {
    /// A login form: hostile values there only lock the audit out.
    fn is_login(&self) -> bool {
        self.fields
            .iter()
            .any(|c| c.input_type.as_deref() == Some("password"))
    }

    fn name(&self) -> String {
        let sender = self.fields.iter().find(|c| c.submits).map(|c| c.called());
        match sender {
            Some(name) => format!("the {name:?} form on {}", self.page.location),
            None => format!("{:?} on {}", self.fields[0].called(), self.page.location),
        }
    }

    /// The form filled (one field with `instead`) and sent, after the way to its page.
    fn submitted(&self, lab: &Lab<'_>, instead: Option<(&str, &str)>) -> Option<Vec<Action>> {
        let mut actions = self.page.path.clone();
        actions.extend(filled(lab.config, &self.fields, instead)?);
        actions.extend(send(&self.fields));
        Some(actions)
    }
}

/// The `at`th hostile value of a form (its fields in order, each field's values in order) put
/// in and sent; whether the form has more.
async fn hostile_value(
    lab: &Lab<'_>,
    form: &Form<'_>,
    at: usize,
    spend: &mut Budgeted<'_>,
    judged: &mut Judged,
) -> bool {
    let marker = format!("m{}", spend.attacks);
    let values: Vec<(&Control, &'static str, String)> = form
        .fields
        .iter()
        .filter(|c| !c.submits)
        .flat_map(|field| {
            moves::hostile(field, &marker)
                .into_iter()
                .map(move |(what, value)| (*field, what, value))
        })
        .collect();
    let Some((field, what, value)) = values.get(at) else {
        return false;
    };
    if let Some(actions) = form.submitted(lab, Some((&field.selector, value))) {
        let label = format!("{what} in {:?} of {}", field.called(), form.name());
        try_attack(lab, numbered(actions), &label, spend, judged).await;
    }
    at + 1 < values.len()
}

/// The same submission twice in a row (a coupon applied twice), from the form's page again
/// when the first one leaves it (an item added to the cart twice).
async fn twice(
    lab: &Lab<'_>,
    explored: &Explored,
    form: &Form<'_>,
    spend: &mut Budgeted<'_>,
    judged: &mut Judged,
) {
    if spend.exhausted() {
        return;
    }
    let (Some(mut actions), Some(again)) = (
        form.submitted(lab, None),
        filled(lab.config, &form.fields, None),
    ) else {
        return;
    };
    if leaves(explored, form.page, &actions) {
        actions.push(moves::goto(&form.page.location));
    }
    actions.extend(again);
    actions.extend(send(&form.fields));
    let label = format!("the same submission twice in {}", form.name());
    try_attack(lab, numbered(actions), &label, spend, judged).await;
}

/// Whether exploration saw `actions` (the way to `page`, then more) end on another location.
/// Exploration's ways are numbered, so these are too before they are compared.
fn leaves(explored: &Explored, page: &Page, actions: &[Action]) -> bool {
    let actions = numbered(actions.to_vec());
    explored
        .transitions
        .iter()
        .any(|(path, location)| *path == actions && *location != page.location)
}

/// Runs an attack and hands every violation to the judge.
async fn try_attack(
    lab: &Lab<'_>,
    actions: Vec<Action>,
    label: &str,
    spend: &mut Budgeted<'_>,
    judged: &mut Judged,
) {
    spend.attacks += 1;
    let run = lab.run(&actions, None, &[], spend, Some(label)).await;
    for violation in &run.violations {
        let suspect = Suspect::Invariant {
            actions: actions.clone(),
            violation: violation.clone(),
            blurs: Blurs::new(),
        };
        judged.consider(lab, spend, suspect, label).await;
    }
}

/// How a submission is made in a record attack.
#[derive(Debug, Clone, Copy)]
enum Submit {
    Once,
    Double,
    Reload,
    Resubmit,
}

impl Submit {
    /// The kind of duplicate it makes, as a finding's class: each has its own fix (a locked
    /// button, a redirect after the post, a token checked once).
    fn class(self) -> &'static str {
        match self {
            Submit::Once => "once",
            Submit::Double => "double-submit",
            Submit::Reload => "reload-resubmits",
            Submit::Resubmit => "back-resubmit",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Submit::Once => "one submission",
            Submit::Double => "a double click on the submit button",
            Submit::Reload => "a reload of the page that answered the submission",
            Submit::Resubmit => "back after submitting, and submitting again",
        }
    }
}

/// The record oracle: a submission made once, then made twice in the ways people do it, each
/// from a fresh session, with the lists of the app's pages counted before and after. More rows
/// than a single submission makes is a duplicate record.
async fn records(
    lab: &Lab<'_>,
    explored: &Explored,
    form: &Form<'_>,
    spend: &mut Budgeted<'_>,
    judged: &mut Judged,
) {
    let measured = measured_pages(explored, form);
    if measured.is_empty() {
        return;
    }
    lab.watcher.reasoning(&format!(
        "Counting the rows of {} around one submission of {}.",
        measured.join(", "),
        form.name()
    ));
    let probes = row_probes();
    let Some(once) = record_trial(lab, form, &measured, Submit::Once) else {
        return;
    };
    if spend.exhausted() {
        return;
    }
    spend.attacks += 1;
    let control = lab.run(&once, None, &probes, spend, None).await;
    let single = growth(&once, &control, &measured);
    if !single.iter().any(|g| g.grew >= 1) {
        return;
    }
    // Only the pages where one submission shows up are counted from here on.
    let mut measured: Vec<String> = measured
        .into_iter()
        .filter(|l| single.iter().any(|g| g.grew >= 1 && g.location == *l))
        .collect();
    measured.dedup();
    for submit in [Submit::Double, Submit::Reload, Submit::Resubmit] {
        let Some(actions) = record_trial(lab, form, &measured, submit) else {
            continue;
        };
        if spend.exhausted() {
            return;
        }
        spend.attacks += 1;
        let label = format!("{} in {}", submit.what(), form.name());
        let run = lab.run(&actions, None, &probes, spend, Some(&label)).await;
        let attacked = growth(&actions, &run, &measured);
        let Some((base, more)) = single.iter().filter(|g| g.grew >= 1).find_map(|g| {
            attacked
                .iter()
                .find(|a| a.same_as(g) && a.grew > g.grew)
                .map(|a| (g, a))
        }) else {
            continue;
        };
        let suspect = duplicate(&actions, &measured, submit, base, more);
        judged.consider(lab, spend, suspect, &label).await;
    }
}

/// The suspect of a duplicate record: `submit`'s actions without the visits of measured pages
/// that do not count, and the rule that the list grows no more than `base` says.
fn duplicate(
    actions: &[Action],
    measured: &[String],
    submit: Submit,
    base: &Growth,
    more: &Growth,
) -> Suspect {
    let measured_visit = |a: &Action| {
        a.kind == crate::model::plan::ActionKind::Goto
            && a.url
                .as_deref()
                .is_some_and(|u| measured.iter().any(|m| m == u))
            && a.id != more.since
            && a.id != more.at
    };
    Suspect::Records {
        actions: actions
            .iter()
            .filter(|a| !measured_visit(a))
            .cloned()
            .collect(),
        class: submit.class(),
        invariant: Box::new(oracles::one_record(&more.selector, base.grew)),
        since: more.since.clone(),
        at: more.at.clone(),
        seen: vec![format!(
            "{} added {} rows to {} ({:?}) where one submission adds {}",
            submit.what(),
            more.grew,
            more.location,
            more.selector,
            base.grew
        )],
    }
}

/// The locations counted around a submission: the explored pages by path — those met signed
/// in first, where records are listed, then the shallowest (index pages before detail pages) —
/// but the start page and the form's own.
fn measured_pages(explored: &Explored, form: &Form<'_>) -> Vec<String> {
    let path = |l: &str| l.split(['?', '#']).next().unwrap_or("").to_owned();
    let own = path(&form.page.location);
    let start = explored
        .pages
        .first()
        .map(|p| path(&p.location))
        .unwrap_or_default();
    let mut pages: Vec<(bool, usize, String)> = Vec::new();
    for page in &explored.pages {
        let location = path(&page.location);
        if location == own || location == start {
            continue;
        }
        let depth = location.split('/').filter(|s| !s.is_empty()).count();
        match pages.iter_mut().find(|(_, _, l)| *l == location) {
            Some(known) => known.0 &= !page.signed_in,
            None => pages.push((!page.signed_in, depth, location)),
        }
    }
    pages.sort_by_key(|(outside, depth, _)| (*outside, *depth));
    pages
        .into_iter()
        .map(|(_, _, l)| l)
        .take(MEASURED)
        .collect()
}

/// What the record oracle counts, as probes.
fn row_probes() -> Vec<Probe> {
    ROWS.iter()
        .map(|r| Probe {
            selector: (*r).to_owned(),
            field: Field::Text,
        })
        .collect()
}

/// The way to the form, a visit of every measured page, back to the form, the submission made
/// as `submit` says, and the measured pages again.
fn record_trial(
    lab: &Lab<'_>,
    form: &Form<'_>,
    measured: &[String],
    submit: Submit,
) -> Option<Vec<Action>> {
    let mut actions = form.page.path.clone();
    actions.extend(measured.iter().map(|l| moves::goto(l)));
    actions.push(moves::goto(&form.page.location));
    actions.extend(filled(lab.config, &form.fields, None)?);
    let button = form.fields.iter().find(|c| c.submits && c.enabled)?;
    match submit {
        Submit::Once => actions.push(moves::click(button)),
        Submit::Double => actions.push(moves::double_click(button)),
        Submit::Reload => actions.extend([moves::click(button), moves::reload()]),
        Submit::Resubmit => {
            actions.extend([moves::click(button), moves::back(), moves::click(button)])
        }
    }
    actions.extend(measured.iter().map(|l| moves::goto(l)));
    Some(numbered(actions))
}

/// How much one list grew between two visits of a page.
#[derive(Debug, Clone)]
struct Growth {
    location: String,
    selector: String,
    grew: i64,
    /// The ids of the first and the second visit.
    since: String,
    at: String,
}

impl Growth {
    fn same_as(&self, other: &Growth) -> bool {
        self.location == other.location && self.selector == other.selector
    }
}

/// Every list's growth on the measured pages between their first and second visit in a run.
fn growth(actions: &[Action], run: &Run, measured: &[String]) -> Vec<Growth> {
    let count = |page: &Observation, selector: &str| {
        let probe = Probe {
            selector: selector.to_owned(),
            field: Field::Text,
        };
        page.texts(&probe).map(|t| t.len() as i64)
    };
    let mut out = Vec::new();
    for location in measured {
        let visits: Vec<usize> = actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a.url.as_deref() == Some(location.as_str()))
            .map(|(i, _)| i)
            .collect();
        let [first, .., second] = visits.as_slice() else {
            continue;
        };
        // pages[0] is the start page; action i's page is pages[i + 1].
        let (Some(before), Some(after)) = (run.pages.get(first + 1), run.pages.get(second + 1))
        else {
            continue;
        };
        for selector in ROWS {
            if let (Some(b), Some(a)) = (count(before, selector), count(after, selector)) {
                out.push(Growth {
                    location: location.clone(),
                    selector: selector.to_owned(),
                    grew: a - b,
                    since: actions[*first].id.clone(),
                    at: actions[*second].id.clone(),
                });
            }
        }
    }
    out
}

/// One seeded walk from the start page in a fresh session: at every step a move chosen among
/// what a person could do on the page as it is now (see [`super::walk`]), every invariant
/// checked after each of its actions, every violation judged at once.
async fn random_walk(lab: &Lab<'_>, number: usize, spend: &mut Budgeted<'_>, judged: &mut Judged) {
    // A move the page does not take is one a person gives up on quickly: the walk's actions have
    // less time to become actionable than a replay's.
    let mut options = lab.options.clone();
    options.default_timeout = options.default_timeout.min(WALK_ACTION_TIMEOUT);
    let Some(mut walk) = Walk::start(lab, &options, number, spend).await else {
        return;
    };
    // A walk of the coverage strategy may begin with a prefix that reached new code before.
    let mut prefix = match lab.config.strategy {
        super::Strategy::Coverage => match spend.compass.start(&mut walk.rng) {
            super::edges::Start::From(actions) => Some(actions),
            super::edges::Start::Fresh => None,
        },
        _ => None,
    };
    if let Some(actions) = &prefix {
        walk.length = actions.len() + walk.length.div_ceil(2);
    }
    while walk.actions.len() < walk.length && !spend.exhausted() && walk.on_target(lab) {
        let chosen = match prefix.take() {
            Some(actions) => walk::Move {
                key: String::new(),
                weight: 1.0,
                actions,
            },
            None => match walk.choose(lab, spend) {
                Some(chosen) => chosen,
                None => break,
            },
        };
        let seen_before = walk.run.violations.len();
        let (stopped, found) = walk.make(lab, &chosen, spend).await;
        // A prefix replayed is no move of this state: only chosen moves build a record.
        if !chosen.key.is_empty() {
            spend.visits.gained(&chosen.key, found);
        }
        let mut replayed = false;
        for violation in walk.run.violations[seen_before..].iter().cloned() {
            let suspect = Suspect::Invariant {
                actions: walk.actions.clone(),
                violation,
                blurs: walk.blurs.clone(),
            };
            replayed |= judged.consider(lab, spend, suspect, &walk.label).await;
        }
        // What the judge's replays reached is nobody's find.
        spend.reached(lab);
        if stopped {
            break;
        }
        // The walk goes on after a violation: the other invariants still hold it to account.
        // The judge's replays ran in this session, so the walk's own actions are run again
        // from a fresh one to be where it was.
        if replayed
            && lab
                .run(&walk.actions, None, &[], spend, None)
                .await
                .failed
                .is_some()
        {
            break;
        }
        if !walk.look(lab).await {
            break;
        }
    }
}

/// A walk under way: where it is, what it did, and what it needs to go on.
struct Walk<'a> {
    rng: Rng,
    executor: Executor<'a>,
    probes: BTreeSet<crate::model::invariant::Probe>,
    run: Run,
    actions: Vec<Action>,
    /// A click on the page's background for each click or double-click made where the page
    /// had one.
    blurs: Blurs,
    /// What the page offers now, and what it showed a person before the last move.
    digest: crate::browser::PageDigest,
    before: Option<std::collections::HashSet<String>>,
    history: walk::History,
    first: String,
    label: String,
    number: usize,
    length: usize,
}

impl<'a> Walk<'a> {
    /// Opens the start page in a fresh session and looks at it; `None` when it cannot.
    async fn start(
        lab: &'a Lab<'a>,
        options: &'a crate::engine::executor::ExecOptions,
        number: usize,
        spend: &mut Budgeted<'_>,
    ) -> Option<Self> {
        let executor = Executor::new(lab.session, options, lab.values);
        let probes = lab.probes(None, &[]);
        let digest = lab.open(&executor).await.ok()?;
        let start = lab.session.observe(&probes).await.ok()?;
        spend.attacks += 1;
        // The start page's code is nobody's find.
        spend.reached(lab);
        spend.compass.walked(&start.edges);
        Some(Walk {
            rng: Rng::fork(lab.config.seed, number as u64 + 1),
            executor,
            probes,
            run: Run {
                pages: vec![start],
                ..Run::default()
            },
            actions: Vec::new(),
            blurs: Blurs::new(),
            first: location_of(&digest.url),
            digest,
            before: None,
            history: walk::History::default(),
            label: format!("walk {} (seed {})", number + 1, lab.config.seed),
            number,
            length: spend.budget().walk_length,
        })
    }

    fn on_target(&self, lab: &Lab<'_>) -> bool {
        url::Url::parse(&self.digest.url).is_ok_and(|u| u.origin() == lab.config.target.origin())
    }

    /// The next move among those the page offers, counted as made in this state.
    fn choose(&mut self, lab: &Lab<'_>, spend: &mut Budgeted<'_>) -> Option<walk::Move> {
        let marker = format!("r{}x{}", self.number, self.actions.len());
        let state = walk::state_of(&self.digest, self.history.typed);
        spend.visits.saw(state);
        let offered = walk::moves(
            lab.config,
            &self.digest,
            self.before.as_ref(),
            &mut self.rng,
            &marker,
            self.history,
        );
        let chosen = spend
            .visits
            .choose(lab.config.strategy, state, &offered, &mut self.rng)?;
        let chosen = offered.into_iter().nth(chosen)?;
        spend.visits.made(state, &chosen.key);
        Some(chosen)
    }

    /// Makes a move, checking every invariant after each of its actions: whether the page can
    /// no longer be looked at (the walk stops), and how many edges its actions reached that no
    /// walk had. A move the page would not take (not actionable in time) did nothing: the walk
    /// goes on without it.
    async fn make(
        &mut self,
        lab: &Lab<'_>,
        chosen: &walk::Move,
        spend: &mut Budgeted<'_>,
    ) -> (bool, usize) {
        let mut found = 0;
        for mut action in chosen.actions.iter().cloned() {
            action.id = format!("a{}", self.actions.len() + 1);
            // A double-click may be made a click, and that click one on the background.
            if let (
                crate::model::plan::ActionKind::Click | crate::model::plan::ActionKind::DoubleClick,
                Some(background),
            ) = (action.kind, &self.digest.background)
            {
                self.blurs
                    .insert(action.id.clone(), super::moves::click(background));
            }
            self.actions.push(action);
            let index = self.actions.len() - 1;
            spend.actions += 1;
            let stepped = lab
                .step(&self.executor, &self.actions[index], index, self.length)
                .await;
            if stepped.is_err() {
                self.actions.pop();
                return (false, found);
            }
            let acted = std::time::Instant::now();
            let Ok(page) = lab.settled(&self.probes).await else {
                return (true, found);
            };
            let page = lab
                .judge_step(
                    &mut self.run,
                    &self.actions,
                    index,
                    page,
                    acted,
                    &self.probes,
                    spend,
                )
                .await;
            spend.reached(lab);
            let new = spend.compass.walked(&page.edges);
            if lab.config.strategy == super::Strategy::Coverage {
                spend.compass.keep(&self.actions, new);
            }
            found += new;
            lab.tell_action(&self.label, &self.actions[index]).await;
            self.run.pages.push(page);
            self.history = moved(self.history, &self.actions[index]);
        }
        (false, found)
    }

    /// Looks at the page the move left, once it shows something to act on; false when it
    /// cannot.
    async fn look(&mut self, lab: &Lab<'_>) -> bool {
        self.before = Some(walk::shown(&self.digest));
        match lab.ready(SETTLE_READY.min(lab.config.ready_timeout)).await {
            Ok(next) => self.digest = next,
            Err(_) => return false,
        }
        self.history.went |= location_of(&self.digest.url) != self.first;
        true
    }
}

/// Where the walk stands after `action`: for back and forward, and in the focused field.
fn moved(history: walk::History, action: &Action) -> walk::History {
    use crate::model::plan::ActionKind;
    let key = action.key.as_deref().unwrap_or("");
    if action.kind == ActionKind::Hover {
        // The pointer moved; the focus and what the person typed stay.
        return walk::History {
            just_back: false,
            ..history
        };
    }
    let history = walk::History {
        just_back: action.kind == ActionKind::Back,
        entered: matches!(
            action.kind,
            ActionKind::Click | ActionKind::DoubleClick | ActionKind::Focus
        ) || (action.kind == ActionKind::Press && matches!(key, "Tab" | "Shift+Tab")),
        // Erasing in a text field makes a draft; an arrow keeps one. Delete on a row is not
        // typing.
        typed: matches!(action.kind, ActionKind::Type | ActionKind::Fill)
            || (action.kind == ActionKind::Press
                && match key {
                    "Backspace" | "Delete" => in_a_text_field(action),
                    "ArrowLeft" | "ArrowRight" => history.typed,
                    _ => false,
                }),
        ..history
    };
    match action.kind {
        ActionKind::Back => walk::History {
            came_back: true,
            ..history
        },
        ActionKind::Forward | ActionKind::Reload => history,
        ActionKind::Goto | ActionKind::Click | ActionKind::Press => walk::History {
            came_back: false,
            ..history
        },
        _ => history,
    }
}

/// Whether an action is aimed at a text field (by the role its target had: a text, search or
/// number field, or a text area).
fn in_a_text_field(action: &Action) -> bool {
    action.target.as_ref().is_some_and(|target| {
        target.identity.tag == "textarea"
            || matches!(
                target.identity.role.as_deref(),
                Some("textbox" | "searchbox" | "spinbutton")
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::ActionKind;

    /// A key pressed in a text field.
    fn press(key: &str) -> Action {
        press_on(key, "input", Some("textbox"))
    }

    fn press_on(key: &str, tag: &str, role: Option<&str>) -> Action {
        let mut action = Action::new("a1", ActionKind::Press);
        action.key = Some(key.to_owned());
        action.target = Some(crate::model::plan::Target {
            frames: Vec::new(),
            selector: tag.to_owned(),
            identity: crate::model::plan::Identity {
                tag: tag.to_owned(),
                role: role.map(str::to_owned),
                ..crate::model::plan::Identity::default()
            },
        });
        action
    }

    #[test]
    fn the_walk_knows_a_field_just_entered_and_a_draft_typed_in_it() {
        let start = walk::History::default();
        let entered = moved(start, &Action::new("a1", ActionKind::DoubleClick));
        assert!(entered.entered && !entered.typed);
        let typed = moved(entered, &Action::new("a2", ActionKind::Type));
        assert!(typed.typed && !typed.entered);
        // Moving the pointer, or the caret, keeps the draft; Backspace is typing too.
        assert!(moved(typed, &Action::new("a3", ActionKind::Hover)).typed);
        assert!(moved(typed, &press("ArrowLeft")).typed);
        assert!(!moved(entered, &press("ArrowLeft")).typed);
        assert!(moved(entered, &press("Backspace")).typed);
        assert!(moved(entered, &press_on("Delete", "textarea", None)).typed);
        // Delete or Backspace on a focused row removes it: nothing is typed.
        assert!(!moved(entered, &press_on("Delete", "li", Some("listitem"))).typed);
        assert!(!moved(entered, &press_on("Backspace", "div", None)).typed);
        // Enter, Escape or a click ends it; Tab enters the next field.
        for ends in [press("Enter"), press("Escape")] {
            let after = moved(typed, &ends);
            assert!(!after.typed && !after.entered, "{:?}", ends.key);
        }
        let tabbed = moved(typed, &press("Tab"));
        assert!(tabbed.entered && !tabbed.typed);
        let clicked = moved(typed, &Action::new("a4", ActionKind::Click));
        assert!(clicked.entered && !clicked.typed);
    }
}
