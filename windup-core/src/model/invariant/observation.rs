//! What the page showed at one moment, as the browser extracted it for a set of probes: plain
//! data, so a predicate is checked (and a finding explained) without the browser.

use serde::{Deserialize, Serialize};

/// What a predicate asks the page for: the text, or the input value, of every visible element
/// matching a CSS selector (open shadow roots and same-origin frames seen through).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Probe {
    pub selector: String,
    pub field: Field,
}

/// Which property of the matches a probe reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Field {
    /// The rendered text (`innerText`), trimmed, runs of white space as one space.
    Text,
    /// The current value of an input, select or text area as its text; whether a checkbox or
    /// radio is checked, as a bool.
    Value,
    /// Whether the match holds the focus (the element a key pressed now goes to), as a bool.
    Focus,
}

/// One probe's answer: what every visible match held, in document order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    #[serde(flatten)]
    pub probe: Probe,
    pub texts: Vec<Reading>,
}

/// What one match held: a text (an element's, or a field's value), or a bool (whether a
/// checkbox or radio is checked, whether the element holds the focus). On the wire a JSON
/// string or a bool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reading {
    Checked(bool),
    Text(String),
}

impl Reading {
    /// As text: a checkbox's state as `true` or `false`.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Reading::Text(text) => std::borrow::Cow::Borrowed(text),
            Reading::Checked(checked) => std::borrow::Cow::Owned(checked.to_string()),
        }
    }
}

impl From<&str> for Reading {
    fn from(text: &str) -> Self {
        Reading::Text(text.to_owned())
    }
}

impl From<String> for Reading {
    fn from(text: String) -> Self {
        Reading::Text(text)
    }
}

impl std::fmt::Display for Reading {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reading::Text(text) => write!(f, "{text:?}"),
            Reading::Checked(checked) => write!(f, "{checked}"),
        }
    }
}

/// The page at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Observation {
    pub url: String,
    pub title: String,
    /// The HTTP status of the document, when the browser tells it; 0 when unknown.
    pub status: u16,
    pub found: Vec<Found>,
    /// What happened in the page since the previous observation.
    pub events: PageEvents,
    /// Visible texts that show a value gone wrong in rendering: `NaN`, `undefined`, `null`,
    /// `[object Object]`.
    pub broken_texts: Vec<String>,
    /// Visible texts that show a negative amount of money (`-$5.00`).
    pub negative_amounts: Vec<String>,
    /// The page's own requests (fetch, XHR) still waiting for an answer, and one more while
    /// the document itself is loading (until its load event).
    pub pending: u32,
    /// The edges of the app's instrumented scripts taken since the previous observation, by
    /// script id (docs/audit.md#coverage); empty when coverage is off.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub edges: std::collections::BTreeMap<String, Vec<u32>>,
}

impl Observation {
    /// What `probe` found, if it was asked.
    pub fn texts(&self, probe: &Probe) -> Option<&[Reading]> {
        self.found
            .iter()
            .find(|found| &found.probe == probe)
            .map(|found| found.texts.as_slice())
    }

    /// The URL's path, with its `#fragment` when it has one (`/#/active`), as surfaces match it.
    pub fn location(&self) -> String {
        location_of(&self.url)
    }
}

/// The path of `url` followed by its `?query` and `#fragment` when present; `url` itself when
/// it is not absolute.
pub fn location_of(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => {
            let mut location = parsed.path().to_owned();
            if let Some(query) = parsed.query() {
                location.push('?');
                location.push_str(query);
            }
            if let Some(fragment) = parsed.fragment() {
                location.push('#');
                location.push_str(fragment);
            }
            location
        }
        Err(_) => url.to_owned(),
    }
}

/// What the page did on its own: the signs of a broken app that no assertion names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageEvents {
    /// Uncaught exceptions and unhandled promise rejections, as their messages.
    pub errors: Vec<String>,
    /// What the page wrote with `console.error`.
    pub console_errors: Vec<String>,
    /// Dialogs the page opened (`alert: text`, `confirm: text`, `prompt: text`).
    pub dialogs: Vec<String>,
    /// The page's own requests (same origin) that failed or answered 4xx/5xx.
    pub failed_requests: Vec<FailedRequest>,
    /// Markers set by injected markup that ran: the value each injection carried.
    pub markers: Vec<String>,
}

impl PageEvents {
    pub fn is_empty(&self) -> bool {
        self == &PageEvents::default()
    }

    /// Adds the events of a later look after these.
    pub fn absorb(&mut self, later: PageEvents) {
        self.errors.extend(later.errors);
        self.console_errors.extend(later.console_errors);
        self.dialogs.extend(later.dialogs);
        self.failed_requests.extend(later.failed_requests);
        self.markers.extend(later.markers);
    }
}

/// A request of the page that did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRequest {
    pub method: String,
    pub url: String,
    /// The HTTP status; 0 for a network failure.
    pub status: u16,
}

/// The action a transition predicate is checked around, as `action.kind`, `action.target`,
/// `action.value`, `action.key`, `action.url` (empty when the action has none) and
/// `action.typed`: what was typed into fields by this action and the fills just before it (a
/// form's values, at its submit).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ActionFacts {
    pub kind: String,
    pub target: String,
    pub value: String,
    pub key: String,
    pub url: String,
    pub typed: Vec<String>,
}
