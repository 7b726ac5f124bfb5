//! Postconditions, checked without any model: polled against the live page until they all hold
//! or the deadline passes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use globset::GlobBuilder;
use serde_json::{Value, json};
use url::Url;

use crate::browser::{BrowserError, QUIET_LOOKS, Session};
use crate::model::invariant::{
    ActionFacts, Observation, PageEvents, Predicate, Probe, VARIABLES, Verdict, location_of,
};
use crate::model::plan::Postcondition;

/// A postcondition that did not hold by the deadline, and what was seen instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    pub condition: Postcondition,
    pub seen: String,
}

impl std::fmt::Display for Unmet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "expected {}: {}", describe(&self.condition), self.seen)
    }
}

/// A postcondition in words: `text_visible "Thank you"`.
pub fn describe(condition: &Postcondition) -> String {
    let described = match condition {
        Postcondition::ElementVisible { selector, .. } => format!("element_visible {selector}"),
        Postcondition::ElementHidden { selector, .. } => format!("element_hidden {selector}"),
        Postcondition::TextVisible { text } => format!("text_visible {text:?}"),
        Postcondition::TextAbsent { text } => format!("text_absent {text:?}"),
        Postcondition::UrlMatches { pattern } => format!("url_matches {pattern}"),
        Postcondition::InputValue {
            selector, value, ..
        } => {
            format!("input_value {selector} = {value:?}")
        }
        Postcondition::Holds { predicate, since } => match since {
            Some(since) => format!("holds {predicate:?} since {since}"),
            None => format!("holds {predicate:?}"),
        },
    };
    match condition.frames() {
        [] => described,
        frames => format!("{described} (in the frame {})", frames.join(" > ")),
    }
}

/// What `holds` postconditions compare with, and what the page did since their action began.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// The page just before the action, when it was read.
    pub before: Option<Observation>,
    /// The page right after earlier actions, by id, for the `since` of a `holds`.
    pub after: BTreeMap<String, Observation>,
    /// The action the conditions follow, for `action.` in a predicate.
    pub action: Option<ActionFacts>,
    /// The page's events since just before the action, gathered across looks: every look
    /// drains them, so each `holds` sees all of them, not only the last look's.
    pub events: PageEvents,
}

/// The page checks of one frame chain, each with the index of its condition.
type CheckGroup<'a> = (&'a [String], Vec<(usize, Value)>);

/// Polls until every condition holds (`Ok(Ok)`) or the deadline passes (`Ok(Err(unmet))`); a
/// `holds` whose predicate cannot be evaluated at all fails at once. `baseline` gathers the
/// page events the looks drain.
pub async fn verify(
    session: &Session,
    base: &Url,
    conditions: &[Postcondition],
    baseline: &mut Baseline,
    deadline: Instant,
) -> Result<Result<(), Vec<Unmet>>, BrowserError> {
    if conditions.is_empty() {
        return Ok(Ok(()));
    }
    let groups = page_groups(conditions);
    let holds = HoldsChecks::new(conditions);
    let mut first = true;
    loop {
        // Each look after the first reads the URL afresh: from the page checks' own answer when
        // they ran on the page itself, else from the driver. The first may take the URL a script
        // reported since the act (the click's own), which is as fresh.
        if !std::mem::take(&mut first) {
            session.forget_seen_url();
        }
        let mut unmet = Vec::new();
        // A failing page check has already waited in the page for its next change.
        let mut waited = false;
        for (frames, checks) in &groups {
            let wire: Vec<Value> = checks.iter().map(|(_, v)| v.clone()).collect();
            let answers = session.check_in(frames, &wire).await?;
            for ((index, _), answer) in checks.iter().zip(answers) {
                if !answer.ok {
                    waited = true;
                    unmet.push(Unmet {
                        condition: conditions[*index].clone(),
                        seen: answer.seen.unwrap_or_else(|| "it does not hold".into()),
                    });
                }
            }
        }
        unmet.splice(0..0, url_unmet(session, base, conditions).await?);
        let settling = Instant::now() < deadline;
        let broken = holds.poll(session, baseline, &mut unmet, settling).await?;
        if unmet.is_empty() {
            return Ok(Ok(()));
        }
        if broken || Instant::now() >= deadline {
            return Ok(Err(unmet));
        }
        if !waited {
            session.wait_for_change().await;
        }
    }
}

/// Whether any of `conditions` is checked by a script in the page itself (not in a frame): the
/// first look of a verification, which waits for a submission on its way out before it checks.
pub fn checks_page(conditions: &[Postcondition]) -> bool {
    conditions
        .iter()
        .any(|condition| condition.frames().is_empty() && page_check(condition).is_some())
}

/// Page checks, one script per frame chain: the page's own first, in one call.
fn page_groups(conditions: &[Postcondition]) -> Vec<CheckGroup<'_>> {
    let mut groups: Vec<CheckGroup<'_>> = Vec::new();
    for (i, condition) in conditions.iter().enumerate() {
        let Some(check) = page_check(condition) else {
            continue;
        };
        let frames = condition.frames();
        match groups.iter_mut().find(|(f, _)| *f == frames) {
            Some((_, checks)) => checks.push((i, check)),
            None => groups.push((frames, vec![(i, check)])),
        }
    }
    groups.sort_by_key(|(frames, _)| !frames.is_empty());
    groups
}

/// The URL conditions that do not hold now; the URL is read once (or taken from this look's page
/// checks), and only when one is asked.
async fn url_unmet(
    session: &Session,
    base: &Url,
    conditions: &[Postcondition],
) -> Result<Vec<Unmet>, BrowserError> {
    let mut unmet = Vec::new();
    let mut current = None;
    for condition in conditions {
        let Postcondition::UrlMatches { pattern } = condition else {
            continue;
        };
        let url = match &current {
            Some(url) => url,
            None => current.insert(session.url_now().await?),
        };
        if let Err(seen) = url_matches(pattern, url, base) {
            unmet.push(Unmet {
                condition: condition.clone(),
                seen,
            });
        }
    }
    Ok(unmet)
}

/// The `holds` conditions of one verification, with everything they read from the page.
struct HoldsChecks<'a> {
    checks: Vec<(
        &'a Postcondition,
        Result<Predicate, String>,
        Option<&'a str>,
    )>,
    probes: BTreeSet<Probe>,
    /// Looks in a row that found the page quiet: no request of its own in flight, loaded.
    quiet: std::cell::Cell<u32>,
}

impl<'a> HoldsChecks<'a> {
    fn new(conditions: &'a [Postcondition]) -> Self {
        let mut checks = Vec::new();
        let mut probes = BTreeSet::new();
        for condition in conditions {
            let Postcondition::Holds { predicate, since } = condition else {
                continue;
            };
            let parsed = Predicate::parse(predicate).map_err(|err| err.to_string());
            if let Ok(parsed) = &parsed {
                probes.extend(parsed.probes());
            }
            checks.push((condition, parsed, since.as_deref()));
        }
        Self {
            checks,
            probes,
            quiet: std::cell::Cell::new(0),
        }
    }

    /// Looks at the page once and checks every predicate; `true` when one cannot be evaluated
    /// at all, so waiting is pointless. While `settling`, a predicate that holds on a page not
    /// yet quiet is looked at again: an answer on its way may still break it.
    async fn poll(
        &self,
        session: &Session,
        baseline: &mut Baseline,
        unmet: &mut Vec<Unmet>,
        settling: bool,
    ) -> Result<bool, BrowserError> {
        if self.checks.is_empty() {
            return Ok(false);
        }
        let mut now = match session.observe(&self.probes).await {
            Ok(now) => now,
            // A script interrupted by a navigation is "not yet".
            Err(BrowserError::Command { reason, .. }) => {
                for (condition, ..) in &self.checks {
                    unmet.push(Unmet {
                        condition: (*condition).clone(),
                        seen: format!("the page changed while it was read ({reason})"),
                    });
                }
                return Ok(false);
            }
            Err(err) => return Err(err),
        };
        baseline.events.absorb(std::mem::take(&mut now.events));
        now.events = baseline.events.clone();
        let quiet = if now.pending == 0 {
            self.quiet.get() + 1
        } else {
            0
        };
        self.quiet.set(quiet);
        let mut broken = false;
        for (condition, predicate, since) in &self.checks {
            let seen = match holds(predicate, *since, &now, baseline) {
                Ok(()) if settling && quiet < QUIET_LOOKS => format!(
                    "it holds so far, but the page is not quiet yet ({} of its own requests or \
                     its loading still going on)",
                    now.pending
                ),
                Ok(()) => continue,
                Err((seen, at_once)) => {
                    broken |= at_once;
                    seen
                }
            };
            unmet.push(Unmet {
                condition: (*condition).clone(),
                seen,
            });
        }
        Ok(broken)
    }
}

/// Whether one predicate holds on `now`; the error side says why not, and whether it never can.
fn holds(
    predicate: &Result<Predicate, String>,
    since: Option<&str>,
    now: &Observation,
    baseline: &Baseline,
) -> Result<(), (String, bool)> {
    let predicate = predicate.as_ref().map_err(|err| {
        (
            format!("it is not a predicate Windup can check: {err}"),
            true,
        )
    })?;
    let compared = match since {
        Some(id) => Some(baseline.after.get(id).ok_or_else(|| {
            (
                format!(
                    "it compares with the page right after action {id:?}, which was not read \
                     in this run (did that action run before this one?)"
                ),
                true,
            )
        })?),
        None => baseline.before.as_ref(),
    };
    match predicate.check(now, compared, baseline.action.as_ref()) {
        Verdict::Holds => Ok(()),
        Verdict::Violated { seen } => {
            let mut seen = seen;
            seen.extend(variables_read(predicate.source(), now));
            Err((
                match seen.as_slice() {
                    [] => "it is false".to_owned(),
                    _ => format!("it is false: {}", seen.join("; ")),
                },
                false,
            ))
        }
        Verdict::NotApplicable { why } => Err((format!("it does not apply: {why}"), false)),
        Verdict::Broken { error } => Err((format!("it cannot be evaluated: {error}"), true)),
    }
}

/// The page variables a predicate names, with their values on `page`, for a failure message:
/// `errors = ["Uncaught TypeError: …"]`.
fn variables_read(source: &str, page: &Observation) -> Vec<String> {
    let named = |name: &str| {
        source.match_indices(name).any(|(at, _)| {
            let before = source[..at].chars().next_back();
            let after = source[at + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !word(before) && !word(after) && before != Some('.')
        })
    };
    let list = |items: &[String]| format!("{items:?}");
    VARIABLES
        .iter()
        .filter(|name| **name != "action" && named(name))
        .map(|name| {
            let value = match *name {
                "url" => format!("{:?}", page.url),
                "path" | "hash" => format!("{:?}", location_of(&page.url)),
                "title" => format!("{:?}", page.title),
                "status" => page.status.to_string(),
                "errors" => list(&page.events.errors),
                "console_errors" => list(&page.events.console_errors),
                "dialogs" => list(&page.events.dialogs),
                "markers" => list(&page.events.markers),
                "broken_texts" => list(&page.broken_texts),
                "negative_amounts" => list(&page.negative_amounts),
                _ => {
                    let requests: Vec<String> = page
                        .events
                        .failed_requests
                        .iter()
                        .map(|r| format!("{} {} {}", r.method, r.url, r.status))
                        .collect();
                    list(&requests)
                }
            };
            format!("{name} = {value}")
        })
        .collect()
}

/// Adds the events of one look to those gathered before it.
fn page_check(condition: &Postcondition) -> Option<Value> {
    Some(match condition {
        Postcondition::ElementVisible { selector, .. } => {
            json!({ "kind": "element_visible", "selector": selector })
        }
        Postcondition::ElementHidden { selector, .. } => {
            json!({ "kind": "element_hidden", "selector": selector })
        }
        Postcondition::TextVisible { text } => json!({ "kind": "text_visible", "text": text }),
        Postcondition::TextAbsent { text } => json!({ "kind": "text_absent", "text": text }),
        Postcondition::InputValue {
            selector, value, ..
        } => {
            json!({ "kind": "input_value", "selector": selector, "value": value })
        }
        Postcondition::UrlMatches { .. } | Postcondition::Holds { .. } => return None,
    })
}

/// Matches a URL glob: against the whole URL when the pattern has a scheme, else against the
/// path, then the path with its query. `*` stays within one path segment; `**` crosses them.
pub fn url_matches(pattern: &str, url: &Url, base: &Url) -> Result<(), String> {
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|err| format!("the pattern is not a valid glob ({err})"))?
        .compile_matcher();
    let shown = if url.origin() == base.origin() {
        match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        }
    } else {
        url.as_str().to_owned()
    };
    let matched = if pattern.contains("://") {
        glob.is_match(url.as_str())
    } else {
        url.origin() == base.origin()
            && (glob.is_match(url.path())
                || url
                    .query()
                    .is_some_and(|q| glob.is_match(format!("{}?{q}", url.path()))))
    };
    if matched {
        Ok(())
    } else {
        Err(format!("the URL is {shown}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(pattern: &str, url: &str) -> bool {
        let base = Url::parse("http://127.0.0.1:8080/").unwrap();
        url_matches(pattern, &Url::parse(url).unwrap(), &base).is_ok()
    }

    #[test]
    fn path_globs_match_within_segments() {
        assert!(check("/orders/*", "http://127.0.0.1:8080/orders/1001"));
        assert!(check("/orders/*", "http://127.0.0.1:8080/orders/1001?x=1"));
        assert!(!check(
            "/orders/*",
            "http://127.0.0.1:8080/orders/1001/edit"
        ));
        assert!(check(
            "/orders/**",
            "http://127.0.0.1:8080/orders/1001/edit"
        ));
        assert!(check("/cart", "http://127.0.0.1:8080/cart"));
        assert!(!check("/cart", "http://127.0.0.1:8080/checkout"));
    }

    #[test]
    fn queries_match_when_the_pattern_names_them() {
        assert!(check("/search?q=mug", "http://127.0.0.1:8080/search?q=mug"));
        assert!(check("/search*", "http://127.0.0.1:8080/search?q=mug"));
        assert!(!check(
            "/search?q=mug",
            "http://127.0.0.1:8080/search?q=tee"
        ));
    }

    #[test]
    fn another_origin_never_matches_a_path_pattern() {
        assert!(!check("/cart", "http://evil.example/cart"));
        assert!(check("http://evil.example/*", "http://evil.example/cart"));
    }

    #[test]
    fn a_mismatch_says_what_the_url_was() {
        let base = Url::parse("http://127.0.0.1:8080/").unwrap();
        let url = Url::parse("http://127.0.0.1:8080/login?next=/checkout").unwrap();
        assert_eq!(
            url_matches("/checkout", &url, &base),
            Err("the URL is /login?next=/checkout".into())
        );
        assert!(
            url_matches("/[", &url, &base)
                .unwrap_err()
                .starts_with("the pattern is not a valid glob")
        );
    }
}
