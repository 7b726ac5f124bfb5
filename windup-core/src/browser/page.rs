//! Conditions on the live page: the actionability gate and the postcondition probe. Each is one
//! injected script per poll; the script itself waits for the next DOM change before answering
//! "not yet", so polling follows the page rather than a clock.

use std::time::Instant;

use fantoccini::elements::{Element, ElementRef};
use serde::Deserialize;
use serde_json::{Value, json};

use super::scripts::{self, Script};
use super::{BrowserError, Session};
use crate::model::plan::Identity;

static GATE: Script = Script::new(|| scripts::with_helpers(include_str!("js/gate.js")));
static VERIFY: Script = Script::new(|| {
    scripts::with_selectors(&format!(
        "{}\n{}",
        include_str!("js/structure.js"),
        include_str!("js/verify.js")
    ))
});
static FRAME: Script = Script::new(|| scripts::with_helpers(FRAME_JS));
static COUNT: Script = Script::new(|| {
    scripts::with_helpers("try { return W.query(arguments[0]).length; } catch (e) { return -1; }")
});
static WAIT: Script = Script::new(|| {
    scripts::with_helpers("const done = arguments[0]; W.nextChange(100).then(() => done(null));")
});
use super::ELEMENT_KEY;

/// What an action needs of its element before Windup acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateMode {
    /// Attached and visible (wait_for).
    Visible,
    /// Visible, stable and receiving the pointer (hover); a disabled element can be hovered.
    Hover,
    /// Visible, enabled, stable and receiving the pointer; a hidden checkbox or radio is clicked
    /// through its visible label, as a person would.
    Click,
    /// As `Click`, and an editable text control.
    Fill,
    /// As `Click`, and a `<select>`.
    Select,
    /// As `Click`, and a checkbox or radio (or the label of one).
    Check,
}

impl GateMode {
    fn as_str(self) -> &'static str {
        match self {
            GateMode::Visible => "visible",
            GateMode::Hover => "hover",
            GateMode::Click => "click",
            GateMode::Fill => "fill",
            GateMode::Select => "select",
            GateMode::Check => "check",
        }
    }
}

/// An element that passed the gate, ready to be acted on.
#[derive(Debug, Clone)]
pub struct Actionable {
    /// The element to act on: the match itself, or the visible label of a hidden control.
    pub(crate) element: Element,
    /// A short description of the matched element (`button#buy "Add to cart"`).
    pub described: String,
    /// How many elements the selector matched.
    pub matches: usize,
    /// For checkboxes and radios: whether the control is checked now.
    pub checked: Option<bool>,
    /// For a text field: whether it was empty when it passed, so that typing needs no clear.
    pub(crate) empty: bool,
    /// The element acted on, with how it stands to its pair, when it is not the match (the
    /// label of a hidden control, the control over its label) or the click goes through the pair.
    pub acted: Option<String>,
    /// What the pointer hits at the element's centre when it is the other one of its
    /// label/control pair: the click is then pressed there with the pointer, since WebDriver's
    /// own click would call the hit an interception.
    pub through: Option<String>,
    /// Where the gate tested what a pointer hits (the element's centre, or its pair's): a
    /// pointer sent over BiDi is pressed there.
    pub(crate) point: Option<Point>,
}

/// Why the gate has not passed (yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProbeState {
    Loading,
    Missing,
    Hidden,
    Disabled,
    NotEditable,
    Unstable,
    Covered,
    /// The selector finds an element, but not the one the plan was made for.
    IdentityMismatch,
    InvalidSelector,
    /// The chain stops at a host whose shadow root is closed: no script can look inside.
    ClosedShadow,
    /// A frame of the target's frame chain is not on the page.
    FrameMissing,
    /// The page script failed, for example because the page navigated under it.
    Error,
}

impl ProbeState {
    /// Whether waiting longer cannot change the answer.
    pub fn is_final(self) -> bool {
        matches!(self, ProbeState::InvalidSelector)
    }
}

/// The gate's last answer when it did not pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    pub state: ProbeState,
    /// What was seen, in words: "the element exists but is covered by div#overlay".
    pub detail: String,
}

#[derive(Debug, Deserialize)]
struct GateAnswer {
    status: String,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default)]
    element: Option<Value>,
    #[serde(default)]
    described: Option<String>,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    checked: Option<bool>,
    #[serde(default)]
    empty: bool,
    #[serde(default)]
    origin: Option<String>,
    #[serde(default)]
    acted: Option<String>,
    #[serde(default)]
    through: Option<String>,
    #[serde(default)]
    point: Option<Point>,
}

/// A point of the viewport, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) struct Point {
    pub x: i64,
    pub y: i64,
}

/// The postcondition script's answer: one per check, and the page's URL from the top document.
#[derive(Debug, Deserialize)]
struct Checked {
    answers: Vec<CheckAnswer>,
    #[serde(default)]
    href: Option<String>,
    #[serde(default)]
    structure: Option<Value>,
}

/// One postcondition's answer from the page.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CheckAnswer {
    pub ok: bool,
    #[serde(default)]
    pub seen: Option<String>,
}

impl Session {
    /// Polls the gate for `selector` until it passes or `deadline` comes; the error side is the
    /// last refusal, for the failure message.
    pub async fn wait_actionable(
        &self,
        selector: &str,
        mode: GateMode,
        identity: Option<&Identity>,
        deadline: Instant,
    ) -> Result<Result<Actionable, Probe>, BrowserError> {
        self.wait_actionable_in(&[], selector, mode, identity, deadline)
            .await
    }

    /// As [`Session::wait_actionable`], for an element inside `frames` (outermost first). When it
    /// passes, the session is left inside the innermost frame, where the element can be acted
    /// on; [`Session::leave_frames`] returns to the page.
    pub async fn wait_actionable_in(
        &self,
        frames: &[String],
        selector: &str,
        mode: GateMode,
        identity: Option<&Identity>,
        deadline: Instant,
    ) -> Result<Result<Actionable, Probe>, BrowserError> {
        loop {
            if let Err(probe) = self.enter_frames(frames).await? {
                if Instant::now() >= deadline {
                    return Ok(Err(probe));
                }
                self.leave_frames().await?;
                self.wait_for_change().await;
                continue;
            }
            let answer = self.gate(selector, mode, identity).await?;
            match answer {
                Ok(actionable) => return Ok(Ok(actionable)),
                Err(probe) if probe.state.is_final() || Instant::now() >= deadline => {
                    return Ok(Err(probe));
                }
                Err(_) => {}
            }
        }
    }

    /// One pass of the gate. With an `identity`, only an element that still carries it passes:
    /// a replay never acts on an element other than the one it was planned for.
    pub async fn gate(
        &self,
        selector: &str,
        mode: GateMode,
        identity: Option<&Identity>,
    ) -> Result<Result<Actionable, Probe>, BrowserError> {
        let args = vec![json!(selector), json!(mode.as_str()), json!(identity)];
        let raw = match self.execute_async("actionability check", &GATE, args).await {
            // The document went before the script answered (Firefox answers null then): a
            // navigation under way, not yet.
            Ok(Value::Null) => {
                return Ok(Err(Probe {
                    state: ProbeState::Error,
                    detail: "the page changed while it was being checked (it went before the \
                             check answered)"
                        .to_owned(),
                }));
            }
            Ok(raw) => raw,
            // A script interrupted by a navigation is "not yet", not a failure.
            Err(BrowserError::Command { reason, .. }) => {
                return Ok(Err(Probe {
                    state: ProbeState::Error,
                    detail: format!("the page changed while it was being checked ({reason})"),
                }));
            }
            Err(err) => return Err(err),
        };
        let answer: GateAnswer =
            serde_json::from_value(raw.clone()).map_err(|_| BrowserError::Script {
                during: "actionability check".into(),
                value: raw.to_string(),
            })?;
        if answer.status != "ok" {
            let state = serde_json::from_value(json!(answer.status)).unwrap_or(ProbeState::Error);
            return Ok(Err(Probe {
                state,
                detail: answer.detail.unwrap_or_else(|| answer.status.clone()),
            }));
        }
        if let Some(origin) = &answer.origin {
            self.remember_origin(origin);
        }
        let element = answer
            .element
            .as_ref()
            .and_then(|e| e.get(ELEMENT_KEY))
            .and_then(Value::as_str)
            .ok_or_else(|| BrowserError::Script {
                during: "actionability check".into(),
                value: raw.to_string(),
            })?;
        Ok(Ok(Actionable {
            element: Element::from_element_id(
                self.client.clone(),
                ElementRef::from(element.to_owned()),
            ),
            described: answer.described.unwrap_or_default(),
            matches: answer.count.unwrap_or(1),
            checked: answer.checked,
            empty: answer.empty,
            acted: answer.acted,
            through: answer.through,
            point: answer.point,
        }))
    }

    /// Evaluates page-side postconditions once (after at most one wait for a DOM change).
    pub(crate) async fn check(&self, checks: &[Value]) -> Result<Vec<CheckAnswer>, BrowserError> {
        let answered = self
            .execute_async(
                "postcondition check",
                &VERIFY,
                vec![json!(checks), json!(self.recorded_path())],
            )
            .await;
        // A document replaced under the script fails the command, or (as the script answered
        // from the page that went) gives no answer at all.
        let changed = match answered {
            Ok(Value::Null) => Some("it went before the script answered".to_owned()),
            Ok(_) => None,
            Err(BrowserError::Command { ref reason, .. }) => Some(reason.clone()),
            Err(err) => return Err(err),
        };
        if let Some(reason) = changed {
            let seen = format!("the page changed while it was being checked ({reason})");
            return Ok(checks
                .iter()
                .map(|_| CheckAnswer {
                    ok: false,
                    seen: Some(seen.clone()),
                })
                .collect());
        }
        let raw = answered?;
        let checked: Checked =
            serde_json::from_value(raw.clone()).map_err(|_| BrowserError::Script {
                during: "postcondition check".into(),
                value: raw.to_string(),
            })?;
        if let Some(href) = &checked.href {
            self.saw_page(href, checked.structure);
        }
        Ok(checked.answers)
    }
}

/// Finds a frame element by its selector chain in the current document. Arguments: the
/// selector, then the WebDriver callback.
const FRAME_JS: &str = "const [selector, done] = arguments;
const frame = W.query(selector).find((el) => (el.tagName === 'IFRAME' || el.tagName === 'FRAME') && W.isVisible(el));
(frame ? Promise.resolve({ status: 'ok', element: frame, described: W.describe(frame) })
  : W.nextChange(100).then(() => ({ status: 'missing' }))).then(done, (e) => done({ status: 'error', detail: String(e) }));";

impl Session {
    /// Enters the frames of a chain, outermost first, from the page itself. A frame that is
    /// not there (yet) is a probe naming it; the session is then somewhere along the chain.
    pub(crate) async fn enter_frames(
        &self,
        frames: &[String],
    ) -> Result<Result<(), Probe>, BrowserError> {
        self.leave_frames().await?;
        if frames.is_empty() {
            return Ok(Ok(()));
        }
        for (depth, selector) in frames.iter().enumerate() {
            let answer = match self
                .execute_async("find a frame", &FRAME, vec![json!(selector)])
                .await
            {
                Ok(answer) => answer,
                Err(BrowserError::Command { reason, .. }) => {
                    return Ok(Err(Probe {
                        state: ProbeState::FrameMissing,
                        detail: format!(
                            "the frame {selector} changed while it was looked for ({reason})"
                        ),
                    }));
                }
                Err(err) => return Err(err),
            };
            self.in_frame(true);
            let element = answer
                .get("element")
                .and_then(|e| e.get(ELEMENT_KEY))
                .and_then(Value::as_str);
            let Some(element) = element else {
                let within = match depth {
                    0 => "on the page".to_owned(),
                    _ => format!("inside the frame {}", frames[depth - 1]),
                };
                return Ok(Err(Probe {
                    state: ProbeState::FrameMissing,
                    detail: format!("the frame {selector} is not {within}"),
                }));
            };
            let frame =
                Element::from_element_id(self.client.clone(), ElementRef::from(element.to_owned()));
            frame
                .enter_frame()
                .await
                .map_err(|e| BrowserError::command(format!("enter the frame {selector}"), e))?;
        }
        Ok(Ok(()))
    }

    /// Back to the page itself from inside frames; nothing to do when the session is there.
    pub async fn leave_frames(&self) -> Result<(), BrowserError> {
        if !self.in_frame(false) {
            return Ok(());
        }
        self.client
            .issue_cmd(super::SessionPost {
                // Switch To Frame with a null id: back to the top-level browsing context.
                path: "frame",
                body: json!({ "id": null }),
            })
            .await
            .map(|_| ())
            .map_err(|e| BrowserError::command("return to the page from a frame", e))
    }

    /// Evaluates postconditions once inside `frames` (none: the page itself), then returns to
    /// the page. A frame that is not there fails every check with its name.
    pub(crate) async fn check_in(
        &self,
        frames: &[String],
        checks: &[Value],
    ) -> Result<Vec<CheckAnswer>, BrowserError> {
        if frames.is_empty() {
            self.leave_frames().await?;
            return self.check(checks).await;
        }
        let answers = match self.enter_frames(frames).await? {
            Ok(()) => self.check(checks).await,
            Err(probe) => Ok(checks
                .iter()
                .map(|_| CheckAnswer {
                    ok: false,
                    seen: Some(probe.detail.clone()),
                })
                .collect()),
        };
        self.leave_frames().await?;
        answers
    }

    /// How many elements a plan selector (a `>>>` chain) matches inside `frames` now, at once;
    /// the error side says why it cannot be counted (not a valid selector, no such frame).
    pub async fn count_matches(
        &self,
        frames: &[String],
        selector: &str,
    ) -> Result<Result<usize, String>, BrowserError> {
        if let Err(probe) = self.enter_frames(frames).await? {
            self.leave_frames().await?;
            return Ok(Err(probe.detail));
        }
        let counted = self
            .execute("count a selector's matches", &COUNT, vec![json!(selector)])
            .await;
        self.leave_frames().await?;
        Ok(match counted?.as_i64() {
            Some(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            _ => Err(format!("{selector} is not a valid CSS selector")),
        })
    }

    /// Waits in the page for the next DOM change, at most 100 ms; navigation ends it early.
    pub(crate) async fn wait_for_change(&self) {
        // A navigation interrupting the wait is itself the change being waited for.
        let _ = self.execute_async("wait for a change", &WAIT, vec![]).await;
    }
}
