//! The page digest: what a person could do on a page (links, buttons, fields, and the forms they
//! belong to), for the audit's exploration and attacks. One injected script.

use serde::{Deserialize, Serialize};

use super::scripts::{self, Script};
use super::{BrowserError, Session};

static DIGEST: Script = Script::new(|| scripts::with_selectors(include_str!("js/digest.js")));
static SHOWN: Script = Script::new(|| scripts::with_helpers(include_str!("js/shown.js")));

/// What a page offers, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageDigest {
    pub url: String,
    pub title: String,
    pub controls: Vec<Control>,
    pub forms: Vec<FormInfo>,
    /// Elements beyond controls a person can act on: they listen for a click, a double click,
    /// a key or the pointer, show a pointer cursor, or reveal hidden controls when hovered.
    #[serde(default)]
    pub actables: Vec<Control>,
    /// A plain element to click to leave a field (a heading, a paragraph).
    #[serde(default)]
    pub background: Option<Control>,
    /// The selector of the element that has the focus, when one has.
    #[serde(default)]
    pub focused: Option<String>,
}

/// One control a person could use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    pub tag: String,
    pub role: Option<String>,
    /// Accessible name.
    pub name: Option<String>,
    pub label: Option<String>,
    pub input_type: Option<String>,
    /// The `name` attribute of a form field.
    pub field: Option<String>,
    /// The most stable selector that finds exactly this control.
    pub selector: String,
    pub enabled: bool,
    /// Where a same-origin link leads (absolute).
    pub href: Option<String>,
    /// A link to another origin.
    pub off_origin: bool,
    /// The index in [`PageDigest::forms`] of the form it belongs to.
    pub form: Option<usize>,
    /// Whether clicking it submits its form.
    pub submits: bool,
    pub checked: Option<bool>,
    /// A list's option labels.
    pub options: Vec<String>,
    pub min: Option<String>,
    pub max: Option<String>,
    pub required: bool,
    /// What it listens for, of what a person does: `click`, `dblclick`, `key`, `hover`.
    #[serde(default)]
    pub listens: Vec<String>,
    /// Whether it has the focus.
    #[serde(default)]
    pub focused: bool,
    /// For a field a person types in: whether it is empty.
    #[serde(default)]
    pub empty: Option<bool>,
    /// Whether hovering it shows controls hidden until then.
    #[serde(default)]
    pub reveals: bool,
}

/// A form of the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormInfo {
    pub selector: String,
    /// Where it is sent (absolute).
    pub action: String,
    /// `get` or `post`.
    pub method: String,
}

impl PageDigest {
    /// The controls of its `form`th form, its button among them.
    pub fn fields_of(&self, form: usize) -> Vec<&Control> {
        self.controls
            .iter()
            .filter(|c| c.form == Some(form))
            .collect()
    }
}

impl Control {
    /// Whether a person types into it.
    pub fn is_text_field(&self) -> bool {
        match self.tag.as_str() {
            "textarea" => true,
            "input" => matches!(
                self.input_type.as_deref(),
                Some(
                    "text"
                        | "email"
                        | "search"
                        | "number"
                        | "tel"
                        | "url"
                        | "password"
                        | "date"
                        | ""
                ) | None
            ),
            _ => self.role.as_deref() == Some("textbox"),
        }
    }

    /// Whether it listens for `what` a person does (`click`, `dblclick`, `key`, `hover`).
    pub fn listens_for(&self, what: &str) -> bool {
        self.listens.iter().any(|l| l == what)
    }

    /// Whether it is a checkbox or a radio button.
    pub fn is_toggle(&self) -> bool {
        self.checked.is_some()
    }

    /// What a person calls it: its name, label, field name or selector.
    pub fn called(&self) -> &str {
        self.name
            .as_deref()
            .or(self.label.as_deref())
            .or(self.field.as_deref())
            .unwrap_or(&self.selector)
    }
}

impl Session {
    /// The digest of the current page.
    pub async fn digest(&self) -> Result<PageDigest, BrowserError> {
        self.page_script("page digest", &DIGEST).await
    }

    /// Every text a screenshot of the page could show: what it renders (open shadow roots and
    /// same-origin frames included) and the values in its fields, except passwords. What a
    /// cross-origin frame or a canvas shows is not in it.
    pub async fn shown_text(&self) -> Result<String, BrowserError> {
        self.page_script("page text", &SHOWN).await
    }
}
