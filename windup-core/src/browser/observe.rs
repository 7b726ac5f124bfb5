//! The page as an [`Observation`]: what a set of probes read, the document's status, the texts
//! that show a value gone wrong, and what the page did on its own since the last look (its
//! [`PageEvents`]). One injected script per look.
//!
//! Page events come from an observer script installed into each document (`js/observer.js`).
//! [`Session::watch_page_events`] asks the backend to run it in every new document before the
//! page's own scripts, so that an error thrown while a page loads is seen; where the backend
//! cannot, [`Session::observe`] installs it into the current document the first time it looks,
//! and sees what happens from then on.
//!
//! # Markers
//!
//! Injected markup proves that it ran by calling the global function `__windupMark` with a
//! string; the string appears in [`PageEvents::markers`] of the next observation. The payload
//! form is an element whose event handler calls it, with the value in single quotes:
//!
//! ```html
//! <img src=x onerror="__windupMark('w1x')">
//! ```
//!
//! The value should be letters and digits only (it is recorded as written, up to 300
//! characters). `__windupMark` exists in every document the observer is installed in, frames of
//! the same origin included; it records nothing else and returns nothing.
//!
//! # Events across navigations
//!
//! The buffer is per document. The top document mirrors its undrained events into its
//! `sessionStorage` under the key `__windup_events`, and the observer of the next document of
//! the same origin (in the same tab) takes them over, so the error of a submit handler that
//! navigates away is not lost. Events of a frame's document stay in that document. A buffer holds
//! at most 100 events; later ones are not recorded until it is drained.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::json;

use super::bidi;
use super::scripts::{self, Script};
use super::{BrowserError, Session};
use crate::model::invariant::{Found, Observation, PageEvents, Probe, Reading};

const OBSERVER: &str = include_str!("js/observer.js");

/// The observer alone, as the backend runs it in every new document.
static OBSERVER_INIT: Script =
    Script::new(|| scripts::compact(&format!("{OBSERVER}\nwindupObserver(window);")));
/// The observer, installed into the current document when it is missing.
static OBSERVER_NOW: Script = Script::new(|| {
    scripts::compact(&format!(
        "{OBSERVER}\nwindupObserver(window);\nreturn true;"
    ))
});
const LOOK: &str = include_str!("js/observe.js");
static OBSERVE: Script = Script::new(|| {
    scripts::with_helpers(&format!("{OBSERVER}\n{LOOK}\nreturn look(arguments[0]);"))
});
/// The looks of [`Session::observe_quiet`] in the page itself, one asynchronous script.
static OBSERVE_QUIET: Script = Script::new(|| {
    scripts::with_helpers(&format!(
        "{OBSERVER}\n{LOOK}\n{}",
        include_str!("js/observe_quiet.js")
    ))
});

/// The page-events observer as a script run in every new document, for a runner other than
/// Windup's (a rendered Playwright spec's `addInitScript`).
pub(crate) fn observer_script_source() -> &'static str {
    &OBSERVER_INIT
}

/// The observe script: a function body that reads its probes from `arguments[0]`.
pub(crate) fn observe_script_source() -> &'static str {
    &OBSERVE
}

/// Looks in a row that found the page quiet (none of its own requests in flight, no image still
/// loading, the document loaded) before what it shows is believed: the page updates in the
/// handler of the answer it waited for, after the request itself has ended.
pub const QUIET_LOOKS: u32 = 2;

/// What the observe script answers; `found` is in the order of the probes sent.
#[derive(Debug, Deserialize)]
struct Answer {
    url: String,
    title: String,
    status: u16,
    found: Vec<Vec<Reading>>,
    events: PageEvents,
    broken_texts: Vec<String>,
    negative_amounts: Vec<String>,
    #[serde(default)]
    pending: u32,
    #[serde(default)]
    edges: std::collections::BTreeMap<String, Vec<u32>>,
}

impl Session {
    /// Looks at the page once: the text (or the value) of every visible match of each probe,
    /// through open shadow roots and same-origin frames; a probe whose selector is not valid
    /// CSS finds nothing. The events are those since the previous observation of this page
    /// (or of the page it came from, see the module's docs), drained: the next observation does
    /// not repeat them.
    pub async fn observe(&self, probes: &BTreeSet<Probe>) -> Result<Observation, BrowserError> {
        match self.look(probes).await? {
            Some(page) => Ok(page),
            None => Err(BrowserError::Script {
                during: "observe the page".into(),
                value: "null (the page went before the look answered)".into(),
            }),
        }
    }

    /// One look at the page; `None` when the document went before the look answered (Firefox
    /// answers a script the leaving document ran with `null`).
    async fn look(&self, probes: &BTreeSet<Probe>) -> Result<Option<Observation>, BrowserError> {
        self.leave_frames().await?;
        let wire: Vec<&Probe> = probes.iter().collect();
        let raw = self
            .execute("observe the page", &OBSERVE, vec![json!(wire)])
            .await?;
        if raw.is_null() {
            return Ok(None);
        }
        let answer: Answer = super::snapshot::read_answer("observe the page", raw)?;
        self.observation(answer, wire).map(Some)
    }

    fn observation(&self, answer: Answer, wire: Vec<&Probe>) -> Result<Observation, BrowserError> {
        if answer.found.len() != wire.len() {
            return Err(BrowserError::Script {
                during: "observe the page".into(),
                value: format!("{} answers for {} probes", answer.found.len(), wire.len()),
            });
        }
        let found = wire
            .into_iter()
            .zip(answer.found)
            .map(|(probe, texts)| Found {
                probe: probe.clone(),
                texts,
            })
            .collect();
        #[cfg(feature = "audit")]
        self.reached(&answer.edges);
        Ok(Observation {
            url: answer.url,
            title: answer.title,
            status: answer.status,
            found,
            events: answer.events,
            broken_texts: answer.broken_texts,
            negative_amounts: answer.negative_amounts,
            pending: answer.pending,
            edges: answer.edges,
        })
    }

    /// Looks at the page until [`QUIET_LOOKS`] looks in a row find it quiet, or `within` has
    /// passed (then the last look is what the page is); the events of every look are kept.
    /// A coupon checked by the server, a list saved, an injected image that fails: what a
    /// person sees once the page has stopped working.
    ///
    /// The looks run in the page, in one script. A page that goes meanwhile (its answer lost
    /// with it) is looked at again from here, look by look, on the page that came.
    pub async fn observe_quiet(
        &self,
        probes: &BTreeSet<Probe>,
        within: Duration,
    ) -> Result<Observation, BrowserError> {
        let deadline = Instant::now() + within;
        match self.observe_quiet_in_page(probes, within).await {
            Ok(Some(page)) => return Ok(page),
            Ok(None) | Err(BrowserError::Command { .. }) => {}
            Err(err) => return Err(err),
        }
        let mut page = self.observe_landed(probes, deadline).await?;
        let mut quiet = u32::from(page.pending == 0);
        while quiet < QUIET_LOOKS && Instant::now() < deadline {
            // A page that was quiet is looked at again soon; one still busy, a little later.
            let pause = if quiet > 0 { 20 } else { 50 };
            tokio::time::sleep(Duration::from_millis(pause)).await;
            let mut next = self.observe_landed(probes, deadline).await?;
            let mut events = std::mem::take(&mut page.events);
            events.absorb(std::mem::take(&mut next.events));
            next.events = events;
            page = next;
            quiet = if page.pending == 0 { quiet + 1 } else { 0 };
        }
        Ok(page)
    }

    /// One look, on the page that stays: a look made while a document goes (its answer lost, or
    /// the command failed) is made again on the page that comes, until `deadline`.
    async fn observe_landed(
        &self,
        probes: &BTreeSet<Probe>,
        deadline: Instant,
    ) -> Result<Observation, BrowserError> {
        loop {
            let went = match self.look(probes).await {
                Ok(Some(page)) => return Ok(page),
                Ok(None) => "it went before the look answered".to_owned(),
                Err(BrowserError::Command { reason, .. }) => reason,
                Err(err) => return Err(err),
            };
            if Instant::now() >= deadline {
                return Err(BrowserError::Command {
                    during: "observe the page".to_owned(),
                    reason: format!("the page kept going until the look's deadline ({went})"),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// [`Session::observe_quiet`]'s looks in the page; `None` when the page went before it
    /// answered, or the looking broke there.
    async fn observe_quiet_in_page(
        &self,
        probes: &BTreeSet<Probe>,
        within: Duration,
    ) -> Result<Option<Observation>, BrowserError> {
        self.leave_frames().await?;
        let wire: Vec<&Probe> = probes.iter().collect();
        let within_ms = u64::try_from(within.as_millis()).unwrap_or(u64::MAX);
        let args = vec![json!(wire), json!(within_ms), json!(QUIET_LOOKS)];
        let raw = self
            .execute_async("observe the page once it is quiet", &OBSERVE_QUIET, args)
            .await?;
        if raw.is_null() || raw.get("failed").is_some() {
            return Ok(None);
        }
        let answer: Answer =
            super::snapshot::read_answer("observe the page once it is quiet", raw)?;
        self.observation(answer, wire).map(Some)
    }

    /// Watches every document of this session from its start: the observer is installed for
    /// new documents where the backend can (Chromium: before the page's own scripts, so errors
    /// during a page load are seen), and into the current one. Calling it again does nothing
    /// more; the observer survives [`Session::reset`] until [`Session::unwatch_page_events`].
    pub async fn watch_page_events(&self) -> Result<(), BrowserError> {
        self.leave_frames().await?;
        if self.watching().is_none() {
            let installed = match &self.bidi {
                Some(channel) => {
                    let refused = |e: bidi::Refusal| BrowserError::Command {
                        during: "watch the page's events from each document's start".to_owned(),
                        reason: e.to_string(),
                    };
                    channel.listen().await.map_err(refused)?;
                    Some(channel.preload(&OBSERVER_INIT).await.map_err(refused)?)
                }
                None => {
                    self.backend()
                        .install_init_script(self, &OBSERVER_INIT)
                        .await?
                }
            };
            *self.watching_lock() = installed;
        }
        self.execute("watch the page's events", &OBSERVER_NOW, vec![])
            .await
            .map(|_| ())
    }

    /// New documents are no longer watched from their start (the observer stands in for
    /// `alert` and `confirm`, which a scenario that does not read page events must meet as they
    /// are). The current document keeps its observer until it is left.
    pub async fn unwatch_page_events(&self) -> Result<(), BrowserError> {
        let Some(id) = self.watching() else {
            return Ok(());
        };
        match &self.bidi {
            Some(channel) => {
                let refused = |e: bidi::Refusal| BrowserError::Command {
                    during: "stop watching new documents".to_owned(),
                    reason: e.to_string(),
                };
                channel.unload(&id).await.map_err(refused)?;
                channel.stop_listening().await.map_err(refused)?;
            }
            None => self.backend().remove_init_script(self, &id).await?,
        }
        *self.watching_lock() = None;
        Ok(())
    }

    fn watching(&self) -> Option<String> {
        self.watching_lock().clone()
    }

    fn watching_lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.watching.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A script that stops the current document's observer, so that nothing it sees afterwards is
/// written to the storage a reset is clearing.
pub(crate) const STOP_OBSERVER_JS: &str =
    "if (window.__windupObserver) window.__windupObserver.stop();";
