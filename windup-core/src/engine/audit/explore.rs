//! Exploration: a breadth-first walk over the app's page states within the budget, each state
//! reached from a fresh session by the actions that led to it, so that every attack can start
//! from any of them. Links are followed, forms submitted with the values a person would type
//! (the account's, on a login form), standalone fields sent with Enter.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::browser::{Control, PageDigest};
use crate::model::invariant::location_of;
use crate::model::plan::Action;

use super::model::{AuditModel, Screenshot};
use super::moves::{self, filled, form_key, numbered, send};
use super::trial::{Budgeted, Lab, SETTLE_READY};

/// A page state the audit can reach.
#[derive(Debug, Clone)]
pub(super) struct Page {
    /// How to reach it from the start page, in a fresh session.
    pub(super) path: Vec<Action>,
    pub(super) digest: PageDigest,
    pub(super) location: String,
    /// Whether the way to it signs in.
    pub(super) signed_in: bool,
    /// Its text outline, read only for a model to propose rules from.
    pub(super) outline: Option<String>,
    /// Its screenshot for the model's rules, for the first pages, when the model takes images.
    pub(super) screenshot: Option<Screenshot>,
}

#[derive(Debug, Default)]
pub(super) struct Explored {
    pub(super) pages: Vec<Page>,
    /// Every way tried and the location it led to, a state seen before included.
    pub(super) transitions: Vec<(Vec<Action>, String)>,
    /// Why the start page could not be opened, the last time it could not.
    pub(super) unopened: Option<super::trial::Unopened>,
}

/// How many of the first pages explored are shown to the model as screenshots, at most.
const SCREENSHOTS: usize = 3;

impl Explored {
    /// What exploration saw, for the site map: each page with its title and controls, and
    /// each way from one page to another (the last action of the way, in words).
    pub(super) fn seen(
        &self,
    ) -> (
        Vec<crate::model::sitemap::Visit>,
        Vec<crate::model::sitemap::Move>,
    ) {
        let path_of = |location: &str| location.split(['?', '#']).next().unwrap_or("/").to_owned();
        let visits = self
            .pages
            .iter()
            .map(|page| crate::model::sitemap::Visit {
                path: path_of(&page.location),
                signature: None,
                title: Some(page.digest.title.clone()).filter(|t| !t.is_empty()),
                elements: page
                    .digest
                    .controls
                    .iter()
                    .map(|control| crate::model::sitemap::MapElement {
                        role: control.role.clone().unwrap_or_else(|| control.tag.clone()),
                        name: control.called().to_owned(),
                        test_id: None,
                    })
                    .collect(),
            })
            .collect();
        let mut moves = Vec::new();
        for (actions, to) in &self.transitions {
            let Some(last) = actions.last() else { continue };
            // The page the way passed last before its final action.
            let from = self
                .pages
                .iter()
                .filter(|p| p.path.len() < actions.len() && actions.starts_with(&p.path))
                .max_by_key(|p| p.path.len());
            if let Some(from) = from
                && path_of(&from.location) != path_of(to)
            {
                moves.push(crate::model::sitemap::Move {
                    from: path_of(&from.location),
                    action: crate::model::sitemap::action_words(
                        last.kind,
                        last.target.as_ref().map(|t| {
                            t.identity
                                .name
                                .as_deref()
                                .or(t.identity.label.as_deref())
                                .unwrap_or(&t.selector)
                        }),
                    ),
                    to: path_of(to),
                });
            }
        }
        (visits, moves)
    }
}

/// How many links under one parent path are followed (`/products/a`, `/products/b`, …): the
/// rest are taken to be the same page with other data.
const SIBLINGS: usize = 2;

pub(super) async fn explore(lab: &Lab<'_>, spend: &mut Budgeted<'_>) -> Explored {
    let mut explored = Explored::default();
    let mut queue: VecDeque<Vec<Action>> = VecDeque::from([Vec::new()]);
    let mut states = BTreeSet::new();
    let mut tried = Tried::default();
    let budget = spend.budget();
    // The state the session is in now, when it is a page exploration reached.
    let mut current: Option<Vec<Action>> = None;
    while let Some(path) = queue.pop_front() {
        if explored.pages.len() >= budget.pages || spend.exhausted() {
            break;
        }
        let path = numbered(path);
        if reach(lab, &path, current.take(), spend, &mut explored)
            .await
            .is_none()
        {
            continue;
        }
        let Ok(digest) = lab.ready(SETTLE_READY.min(lab.config.ready_timeout)).await else {
            continue;
        };
        current = Some(path.clone());
        // What exploring reached goes on the timeline of edges as it grows.
        spend.reached(lab);
        let location = location_of(&digest.url);
        explored.transitions.push((path.clone(), location.clone()));
        if lab.config.deny.denies_location(&location) || !states.insert(state_key(&digest)) {
            continue;
        }
        lab.watcher.reasoning(&format!(
            "Found {location} ({}): {} controls, {} forms.",
            digest.title,
            digest.controls.len(),
            digest.forms.len()
        ));
        let signed_in = path
            .iter()
            .any(|a| a.value_ref.as_deref() == Some("account.password"));
        // The first move out of a state is tried next, from where the session already is; the
        // others wait their turn, breadth first, each from a fresh session.
        for (n, next) in tried
            .next_moves(lab, &digest, signed_in)
            .into_iter()
            .enumerate()
        {
            let mut longer = path.clone();
            longer.extend(next);
            if n == 0 {
                queue.push_front(longer);
            } else {
                queue.push_back(longer);
            }
        }
        let outline = match lab.model {
            Some(_) => lab.session.snapshot().await.ok().map(|s| s.outline),
            None => None,
        };
        let screenshot = match lab.model {
            Some(model) if model.takes_images() && explored.pages.len() < SCREENSHOTS => {
                screenshot(lab, model, &location).await
            }
            _ => None,
        };
        explored.pages.push(Page {
            path,
            digest,
            location,
            signed_in,
            outline,
            screenshot,
        });
    }
    explored
}

/// The page the session shows, as a screenshot for the model; withheld when the page shows a
/// secret in its text or its fields, which no redactor can take out of pixels. The text is read
/// after the picture is taken, so that what is checked is at least as late as what is sent.
async fn screenshot(lab: &Lab<'_>, model: &AuditModel, location: &str) -> Option<Screenshot> {
    let png = lab.session.screenshot_png().await.ok()?;
    // A page whose text cannot be read is not known to be free of secrets.
    let text = lab.session.shown_text().await.ok()?;
    let secrets: Vec<String> = model
        .redactor()
        .shown_in(&text)
        .into_iter()
        .map(str::to_owned)
        .collect();
    if !secrets.is_empty() {
        lab.watcher.reasoning(&format!(
            "No screenshot of {location} for the model: the page shows {}.",
            secrets.join(", ")
        ));
        return Some(Screenshot::Withheld(secrets));
    }
    match crate::llm::Image::screenshot(png) {
        Ok(image) => Some(Screenshot::Taken(image)),
        Err(why) => {
            lab.watcher.reasoning(&format!(
                "No screenshot of {location} for the model: {why}."
            ));
            None
        }
    }
}

/// Brings the session to the state `path` leads to and observes it: from where it is when
/// `current` is the start of `path` (a state's first child), else from a fresh session.
async fn reach(
    lab: &Lab<'_>,
    path: &[Action],
    current: Option<Vec<Action>>,
    spend: &mut Budgeted<'_>,
    explored: &mut Explored,
) -> Option<crate::model::invariant::Observation> {
    if let Some(current) = current
        && path.len() > current.len()
        && path[..current.len()] == current[..]
    {
        return lab.proceed(&path[current.len()..], &[], spend).await.ok();
    }
    let run = lab.run(path, None, &[], spend, None).await;
    if run.unopened.is_some() {
        explored.unopened = run.unopened;
        return None;
    }
    if run.failed.is_some() {
        return None;
    }
    run.pages.last().cloned()
}

/// A page state: where it is and which controls it shows.
fn state_key(digest: &PageDigest) -> String {
    let location = location_of(&digest.url);
    let path = location.split('?').next().unwrap_or(&location);
    let mut names: Vec<&str> = digest.controls.iter().map(Control::called).collect();
    names.sort_unstable();
    names.dedup();
    format!("{path} {}", names.join("|"))
}

/// What exploration has already tried, so each link and form is tried once.
#[derive(Default)]
struct Tried {
    links: BTreeSet<String>,
    parents: BTreeMap<String, usize>,
    forms: BTreeSet<String>,
    fields: BTreeSet<String>,
}

impl Tried {
    /// The moves out of a page not tried before: its links, its forms, its standalone fields.
    /// Signing in changes what pages show, so links are tried again once signed in.
    fn next_moves(
        &mut self,
        lab: &Lab<'_>,
        digest: &PageDigest,
        signed_in: bool,
    ) -> Vec<Vec<Action>> {
        let mut moves = Vec::new();
        let deny = &lab.config.deny;
        for control in &digest.controls {
            let Some(href) = &control.href else { continue };
            let location = location_of(href);
            if deny.denies_location(&location) || deny.denies_name(control.called()) {
                continue;
            }
            let location = location.split('#').next().unwrap_or(&location).to_owned();
            let key = format!("{signed_in} {location}");
            if self.links.contains(&key) || !self.room_under(&location, signed_in) {
                continue;
            }
            self.links.insert(key);
            moves.push(vec![moves::goto(href)]);
        }
        for form in 0..digest.forms.len() {
            if let Some(submit) = submission(lab, digest, form, &mut self.forms) {
                moves.push(submit);
            }
        }
        for control in digest.controls.iter().filter(|c| c.form.is_none()) {
            if control.is_text_field() && self.fields.insert(control.selector.clone()) {
                let value = moves::usual(control, lab.config, false);
                if let Some(value) = value {
                    moves.push(vec![moves::fill(control, &value), moves::press_enter()]);
                }
            }
        }
        moves
    }

    /// Whether another link under the parent path of `location` may be followed.
    fn room_under(&mut self, location: &str, signed_in: bool) -> bool {
        let path = location.split(['?', '#']).next().unwrap_or(location);
        let parent = match path.trim_end_matches('/').rsplit_once('/') {
            Some((parent, _)) if !parent.is_empty() => format!("{signed_in} {parent}"),
            _ => return true,
        };
        let count = self.parents.entry(parent).or_default();
        *count += 1;
        *count <= SIBLINGS
    }
}

/// A form filled as a person would and sent, when this kind of form was not sent before.
fn submission(
    lab: &Lab<'_>,
    digest: &PageDigest,
    form: usize,
    tried: &mut BTreeSet<String>,
) -> Option<Vec<Action>> {
    let info = &digest.forms[form];
    let fields: Vec<&Control> = digest.fields_of(form);
    // A form that changes something may lead elsewhere from each page it is on (a login form's
    // hidden `next`); a search form leads to the same results from anywhere.
    let from = if info.method == "post" {
        location_of(&digest.url)
    } else {
        String::new()
    };
    if !tried.insert(format!("{from} {}", form_key(info, &fields))) {
        return None;
    }
    filled(lab.config, &fields, None).map(|mut actions| {
        actions.extend(send(&fields));
        actions
    })
}
