//! Finding an element by the name a person would use: accessible name, label, visible text,
//! placeholder, title, alt or test id, optionally within a container. Used by the offline planner
//! to turn explicit steps into actions with stable selectors.

use std::time::Instant;

use serde::Deserialize;
use serde_json::json;

use super::{BrowserError, Session};
use crate::plan::Identity;

const COMMON_JS: &str = include_str!("js/common.js");
const RESOLVE_JS: &str = include_str!("js/resolve.js");

/// What a step wants to do with the element it names; it decides which elements qualify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Links, buttons, any interactive element, and labels.
    Click,
    /// Text inputs, text areas and editable regions.
    Fill,
    /// `<select>` lists.
    Select,
    /// Checkboxes and radio buttons (acted on through their label when they are hidden).
    Check,
    /// Any form field, for checking its value.
    Field,
    /// Any element, by its text too (wait for, expect visible).
    Find,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Click => "click",
            Purpose::Fill => "fill",
            Purpose::Select => "select",
            Purpose::Check => "check",
            Purpose::Field => "field",
            Purpose::Find => "find",
        }
    }
}

/// A named element, found once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The most stable selector that leads the executor to it.
    pub selector: String,
    pub identity: Identity,
    pub described: String,
}

/// Why a name did not resolve to exactly one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// Nothing matches; `known` lists names that are on the page, to help fix the step.
    Missing { known: Vec<String> },
    /// Several elements match; each with a selector that would find it.
    Ambiguous { candidates: Vec<(String, String)> },
}

#[derive(Debug, Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default)]
    identity: Option<Identity>,
    #[serde(default)]
    described: Option<String>,
    #[serde(default)]
    known: Vec<String>,
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    detail: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Candidate {
    described: String,
    selector: String,
}

impl Session {
    /// Resolves `name` (within `within`, when given) to one element, waiting for it to appear
    /// until `deadline`. An ambiguity is answered at once: waiting does not make it go away.
    pub async fn resolve(
        &self,
        name: &str,
        within: Option<&str>,
        purpose: Purpose,
        deadline: Instant,
    ) -> Result<Result<Resolved, Unresolved>, BrowserError> {
        let script = format!("{COMMON_JS}\n{RESOLVE_JS}");
        let query = json!({ "name": name, "within": within, "purpose": purpose.as_str() });
        loop {
            let raw = match self
                .execute_async("find an element by name", &script, vec![query.clone()])
                .await
            {
                Ok(raw) => raw,
                // The page navigated under the script: look again.
                Err(BrowserError::Command { .. }) if Instant::now() < deadline => continue,
                Err(err) => return Err(err),
            };
            let answer: Answer =
                serde_json::from_value(raw.clone()).map_err(|_| BrowserError::Script {
                    during: "find an element by name".into(),
                    value: raw.to_string(),
                })?;
            match answer.status.as_str() {
                "ok" => {
                    return match (answer.selector, answer.identity) {
                        (Some(selector), Some(identity)) => Ok(Ok(Resolved {
                            selector,
                            identity,
                            described: answer.described.unwrap_or_default(),
                        })),
                        _ => Err(BrowserError::Script {
                            during: "find an element by name".into(),
                            value: raw.to_string(),
                        }),
                    };
                }
                "ambiguous" => {
                    let candidates = answer
                        .candidates
                        .into_iter()
                        .map(|c| (c.described, c.selector))
                        .collect();
                    return Ok(Err(Unresolved::Ambiguous { candidates }));
                }
                "missing" if Instant::now() >= deadline => {
                    return Ok(Err(Unresolved::Missing {
                        known: answer.known,
                    }));
                }
                "missing" => {}
                _ => {
                    return Err(BrowserError::Script {
                        during: "find an element by name".into(),
                        value: answer.detail.unwrap_or_else(|| raw.to_string()),
                    });
                }
            }
        }
    }
}
