//! The page snapshot: one injected script that returns the interactive elements and a compact
//! outline. It feeds the offline planner, the model prompt, the page signature and the site map.

use serde::{Deserialize, Serialize};

use super::scripts::{self, Script};
use super::{BrowserError, Session};

static SNAPSHOT: Script = Script::new(|| scripts::with_selectors(include_str!("js/snapshot.js")));

/// What a page offers a person, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageSnapshot {
    pub url: String,
    pub title: String,
    pub elements: Vec<ElementInfo>,
    /// An accessibility-style outline: landmarks, headings, controls and short texts, indented.
    pub outline: String,
}

/// One interactive element of a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElementInfo {
    pub tag: String,
    pub role: Option<String>,
    /// Accessible name: aria-labelledby, aria-label, label, alt, text, title or placeholder.
    pub name: Option<String>,
    pub label: Option<String>,
    pub test_id: Option<String>,
    pub placeholder: Option<String>,
    pub input_type: Option<String>,
    /// Selectors that find exactly this element, most stable first; the last is structural.
    pub selectors: Vec<String>,
    pub visible: bool,
    pub enabled: bool,
    #[serde(rename = "box")]
    pub bounds: ElementBox,
}

/// An element's box in page coordinates (CSS pixels).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ElementBox {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Session {
    /// Takes a snapshot of the current page.
    pub async fn snapshot(&self) -> Result<PageSnapshot, BrowserError> {
        self.page_script("page snapshot", &SNAPSHOT).await
    }

    /// A snapshot when the page can be read now, `None` when it cannot (it navigated under the
    /// script, or the script answered oddly). A lost browser is still an error.
    pub async fn snapshot_if_readable(&self) -> Result<Option<PageSnapshot>, BrowserError> {
        match self.snapshot().await {
            Ok(page) => Ok(Some(page)),
            Err(err) if err.is_lost() => Err(err),
            Err(_) => Ok(None),
        }
    }

    /// Runs one of Windup's page scripts (made with [`scripts`]) and reads its answer as `T`.
    pub(crate) async fn page_script<T: serde::de::DeserializeOwned>(
        &self,
        during: &str,
        script: &str,
    ) -> Result<T, BrowserError> {
        self.page_script_with(during, script, vec![]).await
    }

    /// As [`Session::page_script`], with arguments for the script.
    pub(crate) async fn page_script_with<T: serde::de::DeserializeOwned>(
        &self,
        during: &str,
        script: &str,
        args: Vec<serde_json::Value>,
    ) -> Result<T, BrowserError> {
        let raw = self.execute(during, script, args).await?;
        read_answer(during, raw)
    }
}

/// A page script's answer read as `T`; one that is not says what it was, shortened.
pub(crate) fn read_answer<T: serde::de::DeserializeOwned>(
    during: &str,
    raw: serde_json::Value,
) -> Result<T, BrowserError> {
    serde_json::from_value(raw.clone()).map_err(|err| BrowserError::Script {
        during: during.into(),
        value: format!(
            "{err}: {}",
            crate::model::excerpt::cut(&raw.to_string(), 300)
        ),
    })
}
