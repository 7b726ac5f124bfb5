//! The step language: explicit steps, one line each, parsed into typed steps.
//!
//! ```text
//! go to PATH                          press KEY [in "FIELD"]
//! type "TEXT" into "FIELD" [in "C"]   focus "NAME" [in "CONTAINER"]
//! click "NAME" [in "CONTAINER"]       wait for "NAME" [in "CONTAINER"]
//! fill "FIELD" [in "C"] with "TEXT"   use FRAGMENT
//! fill "FIELD" [in "C"] with account.KEY
//! select "OPTION" in "FIELD"          expect text "TEXT" | no text "TEXT" | url GLOB
//! check "NAME" [in "CONTAINER"]       expect "FIELD" value "TEXT"
//! uncheck "NAME" [in "CONTAINER"]     expect "NAME" visible | hidden
//! hover "NAME" [in "CONTAINER"]     double-click "NAME" [in "CONTAINER"]
//! reload                              go back | go forward
//! hover "NAME" [in "CONTAINER"]       expect holds "PREDICATE" [since step N]
//! click|check|uncheck|hover ROLE in "CONTAINER"   (a control with no name: `check checkbox in "Buy milk"`)
//! ```
//!
//! Quoted text uses double quotes with `\"` and `\\` escapes; verbs and keywords are
//! case-insensitive. A `holds` predicate may also be single-quoted or bare (`holds.rs`). Parsing knows nothing of pages: resolving names is the planner's job.

mod holds;
mod parse;
pub(crate) mod suggest;
#[cfg(test)]
mod tests;

/// One explicit step of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub kind: StepKind,
    /// The step as written.
    pub text: String,
    /// 1-based line in the scenario file; 0 when unknown.
    pub line: usize,
}

impl Step {
    /// Parses `text`, remembering where it was written.
    pub fn parse(text: &str, line: usize) -> Result<Step, StepError> {
        Ok(Step {
            kind: parse_step(text)?,
            text: text.to_owned(),
            line,
        })
    }
}

/// What a step does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepKind {
    /// `go to PATH`
    GoTo { path: String },
    /// `click "NAME" [in "CONTAINER"]`
    Click {
        name: String,
        within: Option<String>,
    },
    /// `fill "FIELD" [in "CONTAINER"] with "TEXT" | account.KEY`
    Fill {
        field: String,
        within: Option<String>,
        value: FillValue,
    },
    /// `select "OPTION" in "FIELD"`
    Select { option: String, field: String },
    /// `check "NAME" [in "CONTAINER"]`
    Check {
        name: String,
        within: Option<String>,
    },
    /// `uncheck "NAME" [in "CONTAINER"]`
    Uncheck {
        name: String,
        within: Option<String>,
    },
    /// `press KEY [in "FIELD" [in "CONTAINER"]]`, with KEY in the canonical spelling of
    /// [`crate::model::plan::key_names`]: to the focused element, or to the field named (given the
    /// focus first).
    Press {
        key: String,
        field: Option<String>,
        within: Option<String>,
    },
    /// `type "TEXT" into "FIELD" [in "CONTAINER"]`: keys typed one by one after what the field
    /// holds, not sent: text a person leaves pending.
    Type {
        text: String,
        field: String,
        within: Option<String>,
    },
    /// `focus "NAME" [in "CONTAINER"]`: the focus moves to the element, without a click.
    Focus {
        name: String,
        within: Option<String>,
    },
    /// `go forward`: the browser's forward button.
    Forward,
    /// `wait for "NAME" [in "CONTAINER"]`
    WaitFor {
        name: String,
        within: Option<String>,
    },
    /// `use FRAGMENT`
    Use { fragment: String },
    /// `hover "NAME" [in "CONTAINER"]`: the pointer rests on the element (controls that show
    /// on hover).
    Hover {
        name: String,
        within: Option<String>,
    },
    /// `double-click "NAME" [in "CONTAINER"]`: two clicks in quick succession.
    DoubleClick {
        name: String,
        within: Option<String>,
    },
    /// `reload`: the browser's reload button.
    Reload,
    /// `go back`: the browser's back button.
    Back,
    /// `click|check|uncheck|hover ROLE in "CONTAINER"`: a control with no name of its own,
    /// named by what it is and where it is (`check checkbox in "Buy milk"`).
    ByRole {
        verb: RoleVerb,
        role: String,
        within: String,
    },
    /// `expect …`
    Expect(Expectation),
}

impl StepKind {
    /// The verb as the step language spells it (`go to`, `click`, …).
    pub fn verb(&self) -> &'static str {
        match self {
            StepKind::GoTo { .. } => "go to",
            StepKind::Click { .. } => "click",
            StepKind::Fill { .. } => "fill",
            StepKind::Select { .. } => "select",
            StepKind::Check { .. } => "check",
            StepKind::Uncheck { .. } => "uncheck",
            StepKind::Press { .. } => "press",
            StepKind::WaitFor { .. } => "wait for",
            StepKind::Use { .. } => "use",
            StepKind::Expect(_) => "expect",
            StepKind::Hover { .. } => "hover",
            StepKind::DoubleClick { .. } => "double-click",
            StepKind::Reload => "reload",
            StepKind::Back => "go back",
            StepKind::Type { .. } => "type",
            StepKind::Focus { .. } => "focus",
            StepKind::Forward => "go forward",
            StepKind::ByRole { verb, .. } => verb.as_str(),
        }
    }

    /// The account key a `fill … with account.KEY` step reads, if any.
    pub fn account_key(&self) -> Option<&str> {
        match self {
            StepKind::Fill {
                value: FillValue::Account(key),
                ..
            } => Some(key),
            _ => None,
        }
    }
}

/// What a step that names a control by its role does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleVerb {
    Click,
    Check,
    Uncheck,
    Hover,
}

impl RoleVerb {
    pub fn as_str(self) -> &'static str {
        match self {
            RoleVerb::Click => "click",
            RoleVerb::Check => "check",
            RoleVerb::Uncheck => "uncheck",
            RoleVerb::Hover => "hover",
        }
    }
}

/// The roles a step may name a control by when it has no name, as ARIA spells them.
pub const ROLES: &[&str] = &[
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "textbox",
    "combobox",
    "option",
    "tab",
    "menuitem",
    "slider",
    "searchbox",
    "spinbutton",
];

/// What a `fill` step types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillValue {
    /// Literal text.
    Text(String),
    /// A key of the scenario's account, e.g. `email` for `account.email`.
    Account(String),
}

/// What must hold on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// `text "TEXT"`: the text is visible.
    Text(String),
    /// `no text "TEXT"`: the text is not visible.
    NoText(String),
    /// `url GLOB`: the current URL matches the glob.
    Url(String),
    /// `"FIELD" value "TEXT"`: the field holds exactly this value.
    Value { field: String, value: String },
    /// `"NAME" visible`
    Visible(String),
    /// `"NAME" hidden`
    Hidden(String),
    /// `holds "PREDICATE" [since step N]`: the predicate is true of the page. `before.` in it
    /// reads the page right after step `since`; without one (only at the end of a scenario),
    /// the page just before the last step.
    Holds {
        predicate: crate::model::invariant::Predicate,
        since: Option<usize>,
    },
}

/// Why a step could not be read, where in the step, and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StepError {
    pub message: String,
    /// 1-based (in characters) within the step text.
    pub column: usize,
    /// What to write instead; may be empty.
    pub hint: String,
}

/// The verbs a step may start with, as written.
pub const VERBS: &[&str] = &[
    "go to",
    "click",
    "fill",
    "select",
    "check",
    "uncheck",
    "press",
    "wait for",
    "use",
    "expect",
    "hover",
    "double-click",
    "reload",
    "go back",
    "go forward",
    "type",
    "focus",
];

/// Checks that the `since step N` of a `holds` expectation names a step before step `before`
/// (1-based): the expectation's own step, or the last step for a scenario's `expect:` item.
pub fn check_since(
    expectation: &Expectation,
    written: &str,
    before: usize,
) -> Result<(), StepError> {
    holds::check_since(expectation, written, before)
}

/// Parses one step line, e.g. `click "Add to cart" in "Rust mug"`.
pub fn parse_step(text: &str) -> Result<StepKind, StepError> {
    match holds::start(text, holds::Place::Step) {
        Some(start) => holds::parse(text, start, holds::Place::Step).map(StepKind::Expect),
        None => parse::step(text),
    }
}

/// A scenario-level `expect:` item: the same forms without the leading `expect ` (`text "…"`,
/// `no text "…"`, `url GLOB`, `"FIELD" value "…"`, `"NAME" visible|hidden`,
/// `holds "PREDICATE"`); a leading `expect ` is tolerated.
pub fn parse_expectation(text: &str) -> Result<Expectation, StepError> {
    match holds::start(text, holds::Place::End) {
        Some(start) => holds::parse(text, start, holds::Place::End),
        None => parse::expectation(text),
    }
}
