//! Finding an element by the name a person would use: accessible name, label, visible text,
//! placeholder, title, alt or test id, optionally within a container. Used by the offline planner
//! to turn explicit steps into actions with stable selectors.

use std::time::Instant;

use serde::Deserialize;
use serde_json::{Value, json};

use super::scripts::{self, Script};
use super::{BrowserError, Session};
use crate::model::plan::Identity;

static RESOLVE: Script = Script::new(|| scripts::with_selectors(include_str!("js/resolve.js")));

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
    /// Any element, by its text too, to move the pointer over.
    Hover,
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
            Purpose::Hover => "hover",
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
    /// The frames it is in, outermost first (empty: the page itself).
    pub frames: Vec<String>,
}

/// Why a name did not resolve to exactly one element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// Nothing matches; `known` lists names that are on the page, to help fix the step, and
    /// `closed` custom elements whose closed shadow roots no script can look into.
    Missing {
        known: Vec<String>,
        closed: Vec<String>,
    },
    /// Several elements match; each with a selector that would find it.
    Ambiguous { candidates: Vec<(String, String)> },
}

/// How a step names the element it acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming<'a> {
    /// What a person calls it: accessible name, label, text, placeholder, title, alt, test id.
    Name(&'a str),
    /// What it is, for a control with no name (`checkbox`), found inside a container.
    Role(&'a str),
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
    closed: Vec<String>,
    #[serde(default)]
    candidates: Vec<Candidate>,
    #[serde(default)]
    rank: Option<u32>,
    #[serde(default)]
    frames: Vec<FrameInfo>,
    #[serde(default)]
    detail: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Candidate {
    described: String,
    selector: String,
}

#[derive(Debug, Clone, Deserialize)]
struct FrameInfo {
    selector: String,
    name: String,
}

/// Ranks from here up are matches that do not show (resolve.js's `HIDDEN`).
const HIDDEN_RANK: u32 = 100;

/// Frames are searched this deep (a frame in a frame in a frame).
const MAX_FRAME_DEPTH: usize = 3;

/// One document's answer: where it is (its frame chain and the frames' names) and what it said.
struct Found {
    frames: Vec<String>,
    names: Vec<String>,
    answer: Answer,
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
        self.find(Naming::Name(name), within, purpose, deadline)
            .await
    }

    /// Resolves an element by its name or, for a control with no name, its role inside
    /// `within`; in the page, its open shadow roots and its frames.
    pub async fn find(
        &self,
        naming: Naming<'_>,
        within: Option<&str>,
        purpose: Purpose,
        deadline: Instant,
    ) -> Result<Result<Resolved, Unresolved>, BrowserError> {
        let (name, role) = match naming {
            Naming::Name(name) => (Some(name), None),
            Naming::Role(role) => (None, Some(role)),
        };
        let query =
            json!({ "name": name, "role": role, "within": within, "purpose": purpose.as_str() });
        loop {
            let found = self.search(&query).await?;
            if let Some(resolved) = pick(found, Instant::now() >= deadline)? {
                return Ok(resolved);
            }
        }
    }

    /// Asks every document of the page (the page, then its frames, breadth first) once.
    async fn search(&self, query: &Value) -> Result<Vec<Found>, BrowserError> {
        let script: &str = &RESOLVE;
        let mut found = Vec::new();
        let mut queue = std::collections::VecDeque::from([(Vec::new(), Vec::new())]);
        while let Some((frames, names)) = queue.pop_front() {
            let top = frames.is_empty();
            if !top && self.enter_frames(&frames).await?.is_err() {
                continue;
            }
            let mut query = query.clone();
            query["wait"] = json!(top);
            let raw = match self
                .execute_async("find an element by name", script, vec![query])
                .await
            {
                Ok(raw) => raw,
                // The page navigated under the script: that document is looked at next time.
                Err(BrowserError::Command { .. }) => continue,
                Err(err) => {
                    self.leave_frames().await?;
                    return Err(err);
                }
            };
            let answer: Answer =
                serde_json::from_value(raw.clone()).map_err(|_| BrowserError::Script {
                    during: "find an element by name".into(),
                    value: raw.to_string(),
                })?;
            if answer.status == "error" {
                self.leave_frames().await?;
                return Err(BrowserError::Script {
                    during: "find an element by name".into(),
                    value: answer.detail.unwrap_or_else(|| raw.to_string()),
                });
            }
            if frames.len() < MAX_FRAME_DEPTH {
                for frame in &answer.frames {
                    let mut chain = frames.clone();
                    chain.push(frame.selector.clone());
                    let mut named = names.clone();
                    named.push(frame.name.clone());
                    queue.push_back((chain, named));
                }
            }
            found.push(Found {
                frames,
                names,
                answer,
            });
        }
        self.leave_frames().await?;
        Ok(found)
    }
}

/// The answer across documents: the best-ranked matches win (exact before loose, usable before
/// hidden); one match is the element, several an ambiguity. `None`: nothing yet, look again.
fn pick(
    found: Vec<Found>,
    last_look: bool,
) -> Result<Option<Result<Resolved, Unresolved>>, BrowserError> {
    let matched = |f: &Found| matches!(f.answer.status.as_str(), "ok" | "ambiguous");
    let best = found
        .iter()
        .filter(|f| matched(f))
        .filter_map(|f| f.answer.rank)
        .min();
    let Some(best) = best else {
        if !last_look {
            return Ok(None);
        }
        let mut known = Vec::new();
        let mut closed = Vec::new();
        for f in found {
            for name in f.answer.known {
                if !known.contains(&name) && known.len() < 15 {
                    known.push(name);
                }
            }
            closed.extend(f.answer.closed);
        }
        return Ok(Some(Err(Unresolved::Missing { known, closed })));
    };
    let mut winners: Vec<Found> = found
        .into_iter()
        .filter(|f| matched(f) && f.answer.rank == Some(best))
        .collect();
    // Several matches none of which shows yet (a panel still sliding in, and its hidden twin):
    // one of them may show, and then it is the one meant.
    let several = winners.len() > 1 || winners.iter().any(|f| f.answer.status == "ambiguous");
    if best >= HIDDEN_RANK && several && !last_look {
        return Ok(None);
    }
    if winners.len() == 1 && winners[0].answer.status == "ok" {
        let Found { frames, answer, .. } = winners.remove(0);
        return match (answer.selector, answer.identity) {
            (Some(selector), Some(identity)) => Ok(Some(Ok(Resolved {
                selector,
                identity,
                described: answer.described.unwrap_or_default(),
                frames,
            }))),
            _ => Err(BrowserError::Script {
                during: "find an element by name".into(),
                value: "an answer without a selector or identity".into(),
            }),
        };
    }
    let mut candidates = Vec::new();
    for f in winners {
        let place = match f.names.last() {
            Some(name) => format!(" (in the frame {name:?})"),
            None => String::new(),
        };
        if f.answer.status == "ok" {
            candidates.push((
                format!("{}{place}", f.answer.described.unwrap_or_default()),
                f.answer.selector.unwrap_or_default(),
            ));
        }
        for c in f.answer.candidates {
            candidates.push((format!("{}{place}", c.described), c.selector));
        }
    }
    candidates.truncate(10);
    Ok(Some(Err(Unresolved::Ambiguous { candidates })))
}
