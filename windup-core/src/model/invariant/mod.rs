//! Invariants: what must never happen in an app, as data. An invariant is a statement in words,
//! a surface (where it applies) and a [`Predicate`] checked in the browser without any model.
//! They come from three places ([`Source`]): Windup's generic oracles, the user's
//! `invariants/*.yaml`, and (later) a model's proposals.

mod amount;
mod file;
mod nesting;
mod observation;
mod predicate;
#[cfg(test)]
mod tests;

use globset::{Glob, GlobMatcher};
use serde::{Deserialize, Serialize};

pub use amount::{Number, is_negative_money, parse_money, parse_number};
pub use file::{
    Inputs, InvariantError, MAX_WITHIN, discover, load, load_dir, load_dir_with_inputs, parse,
    parse_with_inputs,
};
pub use nesting::MAX_NESTING;
pub use observation::{
    ActionFacts, FailedRequest, Field, Found, Observation, PageEvents, Probe, Reading, location_of,
};
pub use predicate::{Extract, Predicate, PredicateError, VARIABLES, Verdict};

/// Where an invariant came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Built into Windup: true of any correct app.
    Generic,
    /// Written by the user in `invariants/*.yaml`.
    User,
    /// Proposed by a model from the explored pages.
    Model,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Generic => "generic",
            Source::User => "user",
            Source::Model => "model",
        }
    }
}

/// How bad a violation is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Low,
    #[default]
    Medium,
    High,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

/// Where an invariant applies: a glob over the page's location (its path, with `?query` and
/// `#fragment` when present: `/cart`, `/products/*`, `/#/active`), and optionally one page
/// signature.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "SurfaceSpec", into = "SurfaceSpec")]
pub struct Surface {
    pub url: String,
    pub signature: Option<String>,
    matcher: GlobMatcher,
}

impl PartialEq for Surface {
    fn eq(&self, other: &Self) -> bool {
        self.url == other.url && self.signature == other.signature
    }
}

impl Eq for Surface {}

impl Surface {
    /// Everywhere on the target.
    pub fn everywhere() -> Surface {
        Surface::new("**", None).expect("`**` is a glob")
    }

    pub fn new(url: &str, signature: Option<String>) -> Result<Surface, String> {
        let glob = Glob::new(url).map_err(|err| format!("`{url}` is not a URL glob: {err}"))?;
        Ok(Surface {
            url: url.to_owned(),
            signature,
            matcher: glob.compile_matcher(),
        })
    }

    /// Whether a page at `url` (absolute, or a location) with `signature` is on this surface.
    /// The glob is tried on the path alone, then with the query, the fragment, and both.
    pub fn covers(&self, url: &str, signature: Option<&str>) -> bool {
        if let Some(wanted) = &self.signature
            && signature != Some(wanted.as_str())
        {
            return false;
        }
        let location = location_of(url);
        let path_end = location.find(['?', '#']).unwrap_or(location.len());
        let path = &location[..path_end];
        let without_query = match (location.find('?'), location.find('#')) {
            (Some(q), Some(h)) if q < h => format!("{}{}", &location[..q], &location[h..]),
            (Some(_), None) => path.to_owned(),
            _ => location.clone(),
        };
        [path, without_query.as_str(), location.as_str()]
            .iter()
            .any(|candidate| self.matcher.is_match(candidate))
    }
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum SurfaceSpec {
    Url(String),
    Full {
        url: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
}

impl TryFrom<SurfaceSpec> for Surface {
    type Error = String;

    fn try_from(spec: SurfaceSpec) -> Result<Self, Self::Error> {
        match spec {
            SurfaceSpec::Url(url) => Surface::new(&url, None),
            SurfaceSpec::Full { url, signature } => Surface::new(&url, signature),
        }
    }
}

impl From<Surface> for SurfaceSpec {
    fn from(surface: Surface) -> Self {
        match surface.signature {
            None => SurfaceSpec::Url(surface.url),
            Some(signature) => SurfaceSpec::Full {
                url: surface.url,
                signature: Some(signature),
            },
        }
    }
}

/// Something that must never happen, checked in the browser.
///
/// Beside a rule of one page or one step, three bounded forms reach across time, each still
/// data: an obligation (`within`: after a step where `when` holds, `predicate` must hold within
/// that time), a readiness condition (`until`: nothing is checked in a run before it has held),
/// and a transition relation (`transitions`: every step must satisfy one of them; `predicate`
/// is then their disjunction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invariant {
    pub id: String,
    /// The rule in words, as a person states it.
    pub statement: String,
    pub surface: Surface,
    /// A guard: the invariant is checked only where this holds. With `within`, the trigger
    /// that starts the obligation's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Predicate>,
    pub predicate: Predicate,
    pub source: Source,
    #[serde(default)]
    pub severity: Severity,
    /// An obligation's bound: once `when` holds after an action, `predicate` must hold on the
    /// page before this much time has passed since the action.
    #[serde(
        default,
        rename = "within_ms",
        with = "millis",
        skip_serializing_if = "Option::is_none"
    )]
    pub within: Option<std::time::Duration>,
    /// Readiness: in each run, nothing is checked until this has held on one of its pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Predicate>,
    /// The allowed transitions, when the rule is a transition relation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transitions: Vec<Predicate>,
}

/// An optional duration as whole milliseconds.
mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub(super) fn serialize<S: Serializer>(
        value: &Option<Duration>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(d) => s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

impl Invariant {
    /// A rule of one page or one step: `predicate` wherever `when` holds on `surface`.
    pub fn new(
        id: impl Into<String>,
        statement: impl Into<String>,
        surface: Surface,
        when: Option<Predicate>,
        predicate: Predicate,
        source: Source,
        severity: Severity,
    ) -> Invariant {
        Invariant {
            id: id.into(),
            statement: statement.into(),
            surface,
            when,
            predicate,
            source,
            severity,
            within: None,
            until: None,
            transitions: Vec::new(),
        }
    }

    /// Whether it compares the page before and after an action (or reads the action), rather
    /// than the state alone.
    pub fn is_transition(&self) -> bool {
        self.predicate.is_transition()
            || self.when.as_ref().is_some_and(Predicate::is_transition)
            || self.until.as_ref().is_some_and(Predicate::is_transition)
    }

    /// Everything the page must be asked for to check it, guard and readiness included.
    pub fn probes(&self) -> std::collections::BTreeSet<Probe> {
        let mut probes = self.predicate.probes();
        for other in self.when.iter().chain(&self.until) {
            probes.extend(other.probes());
        }
        probes
    }

    /// Checks it on a page: not applicable off its surface or where its guard is false.
    pub fn check(
        &self,
        now: &Observation,
        signature: Option<&str>,
        before: Option<&Observation>,
        action: Option<&ActionFacts>,
    ) -> Verdict {
        if let Err(verdict) = self.applies(now, signature, before, action) {
            return verdict;
        }
        match self.predicate.check(now, before, action) {
            Verdict::Violated { seen } if !self.transitions.is_empty() => Verdict::Violated {
                seen: self.unexplained(now, before, action, seen),
            },
            verdict => verdict,
        }
    }

    /// Whether the rule speaks on this page: on its surface, and its guard (an obligation's
    /// trigger) true; else the verdict that says why not.
    pub fn applies(
        &self,
        now: &Observation,
        signature: Option<&str>,
        before: Option<&Observation>,
        action: Option<&ActionFacts>,
    ) -> Result<(), Verdict> {
        if !self.surface.covers(&now.url, signature) {
            return Err(Verdict::NotApplicable {
                why: format!(
                    "{} is not on its surface {}",
                    now.location(),
                    self.surface.url
                ),
            });
        }
        if let Some(when) = &self.when {
            match when.check(now, before, action) {
                Verdict::Holds => {}
                Verdict::Violated { .. } => {
                    return Err(Verdict::NotApplicable {
                        why: format!("its guard `{}` is false here", when.source()),
                    });
                }
                other => return Err(other),
            }
        }
        Ok(())
    }

    /// Whether its readiness condition holds on this page (always, without one); a condition
    /// that cannot be evaluated is the invariant's error.
    pub fn ready(
        &self,
        now: &Observation,
        before: Option<&Observation>,
        action: Option<&ActionFacts>,
    ) -> Result<bool, String> {
        match self
            .until
            .as_ref()
            .map(|until| until.check(now, before, action))
        {
            None | Some(Verdict::Holds) => Ok(true),
            Some(Verdict::Broken { error }) => Err(format!("until: {error}")),
            Some(_) => Ok(false),
        }
    }

    /// What a step no allowed transition explains showed: each transition and what it said,
    /// then every value read.
    fn unexplained(
        &self,
        now: &Observation,
        before: Option<&Observation>,
        action: Option<&ActionFacts>,
        seen: Vec<String>,
    ) -> Vec<String> {
        let said = self.transitions.iter().enumerate().map(|(n, transition)| {
            let verdict = match transition.check(now, before, action) {
                Verdict::Holds => "holds".to_owned(),
                Verdict::Violated { .. } => "false".to_owned(),
                Verdict::NotApplicable { why } => format!("does not apply ({why})"),
                Verdict::Broken { error } => format!("cannot be evaluated ({error})"),
            };
            format!("transition {} `{}` {verdict}", n + 1, transition.source())
        });
        let mut out = vec!["no allowed transition explains this step".to_owned()];
        out.extend(said);
        out.extend(seen);
        out
    }
}
