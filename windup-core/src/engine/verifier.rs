//! Postconditions, checked without any model: polled against the live page until they all hold
//! or the deadline passes.

use std::time::Instant;

use globset::GlobBuilder;
use serde_json::{Value, json};
use url::Url;

use crate::browser::{BrowserError, Session};
use crate::plan::Postcondition;

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
    };
    match condition.frames() {
        [] => described,
        frames => format!("{described} (in the frame {})", frames.join(" > ")),
    }
}

/// The page checks of one frame chain, each with the index of its condition.
type CheckGroup<'a> = (&'a [String], Vec<(usize, Value)>);

/// Polls until every condition holds (`Ok(Ok)`) or the deadline passes (`Ok(Err(unmet))`).
pub async fn verify(
    session: &Session,
    base: &Url,
    conditions: &[Postcondition],
    deadline: Instant,
) -> Result<Result<(), Vec<Unmet>>, BrowserError> {
    if conditions.is_empty() {
        return Ok(Ok(()));
    }
    // Page checks, one script per frame chain: the page's own first, in one call.
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
    loop {
        let mut unmet = Vec::new();
        let url_conditions = conditions.iter().filter_map(|c| match c {
            Postcondition::UrlMatches { pattern } => Some((c, pattern)),
            _ => None,
        });
        let mut current = None;
        for (condition, pattern) in url_conditions {
            let url = match &current {
                Some(url) => url,
                None => current.insert(session.current_url().await?),
            };
            if let Err(seen) = url_matches(pattern, url, base) {
                unmet.push(Unmet {
                    condition: condition.clone(),
                    seen,
                });
            }
        }
        let url_failed = !unmet.is_empty();
        for (frames, checks) in &groups {
            let wire: Vec<Value> = checks.iter().map(|(_, v)| v.clone()).collect();
            let answers = session.check_in(frames, &wire).await?;
            for ((index, _), answer) in checks.iter().zip(answers) {
                if !answer.ok {
                    unmet.push(Unmet {
                        condition: conditions[*index].clone(),
                        seen: answer.seen.unwrap_or_else(|| "it does not hold".into()),
                    });
                }
            }
        }
        if unmet.is_empty() {
            return Ok(Ok(()));
        }
        if Instant::now() >= deadline {
            return Ok(Err(unmet));
        }
        if url_failed && groups.is_empty() {
            session.wait_for_change().await;
        }
    }
}

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
        Postcondition::UrlMatches { .. } => return None,
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
