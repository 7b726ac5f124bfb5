//! Tokens, then one small recursive-descent parser per verb.

use super::suggest::closest;
use super::{Expectation, FillValue, ROLES, RoleVerb, StepError, StepKind, VERBS};
use crate::model::plan::key_names;

const GO_TO: &str = "go to /path";
const CLICK: &str = r#"click "NAME" [in "CONTAINER"]"#;
const FILL: &str = r#"fill "FIELD" with "TEXT"` or `fill "FIELD" with account.KEY"#;
const SELECT: &str = r#"select "OPTION" in "FIELD""#;
const CHECK: &str = r#"check "NAME" [in "CONTAINER"]"#;
const UNCHECK: &str = r#"uncheck "NAME" [in "CONTAINER"]"#;
const PRESS: &str = r#"press KEY [in "FIELD"]"#;
const TYPE: &str = r#"type "TEXT" into "FIELD" [in "CONTAINER"]"#;
const FOCUS: &str = r#"focus "NAME" [in "CONTAINER"]"#;
const GO_FORWARD: &str = "go forward";
const WAIT_FOR: &str = r#"wait for "NAME" [in "CONTAINER"]"#;
const USE: &str = "use FRAGMENT";
const HOVER: &str = r#"hover "NAME" [in "CONTAINER"]"#;
const DOUBLE_CLICK: &str = r#"double-click "NAME" [in "CONTAINER"]"#;
const RELOAD: &str = "reload";
const GO_BACK: &str = "go back";

/// Words people reach for instead of a verb, and the verb they mean.
const VERB_SYNONYMS: &[(&str, &str)] = &[
    ("tap", "click"),
    ("hit", "click"),
    ("push", "click"),
    ("follow", "click"),
    ("enter", "fill"),
    ("input", "fill"),
    ("write", "fill"),
    ("visit", "go to"),
    ("open", "go to"),
    ("goto", "go to"),
    ("navigate", "go to"),
    ("browse", "go to"),
    ("choose", "select"),
    ("pick", "select"),
    ("tick", "check"),
    ("untick", "uncheck"),
    ("await", "wait for"),
    ("see", "expect"),
    ("assert", "expect"),
    ("verify", "expect"),
    ("should", "expect"),
    ("include", "use"),
    ("point", "hover"),
    ("mouseover", "hover"),
    ("dblclick", "double-click"),
    ("refresh", "reload"),
    ("back", "go back"),
];

/// Key names people write, and the canonical name they mean.
const KEY_SYNONYMS: &[(&str, &str)] = &[
    ("return", "Enter"),
    ("esc", "Escape"),
    ("del", "Delete"),
    ("spacebar", "Space"),
    ("up", "ArrowUp"),
    ("down", "ArrowDown"),
    ("left", "ArrowLeft"),
    ("right", "ArrowRight"),
    ("pgup", "PageUp"),
    ("pgdn", "PageDown"),
    ("pgdown", "PageDown"),
];

/// The step's first word, which must be a verb.
fn first_word(c: &mut Cursor) -> Result<Token, StepError> {
    let Some(first) = c.next() else {
        return Err(StepError::new(
            1,
            "empty step",
            r#"write one action per step, e.g. `click "Add to cart"`"#,
        ));
    };
    if first.quoted {
        return Err(StepError::new(
            first.column,
            "a step starts with a verb, not with quoted text",
            format!("steps start with one of: {}", VERBS.join(", ")),
        ));
    }
    Ok(first)
}

pub(super) fn step(text: &str) -> Result<StepKind, StepError> {
    let mut c = Cursor::new(text)?;
    let first = first_word(&mut c)?;
    let verb = first.text.to_lowercase();
    if let Some(kind) = browser_button(&mut c, &verb)? {
        return Ok(kind);
    }
    if let Some(kind) = keyboard(&mut c, &verb)? {
        return Ok(kind);
    }
    let kind = match verb.as_str() {
        "go" => {
            c.keyword("to", "\"go\"", GO_TO)?;
            let path = c.path()?;
            c.finish(GO_TO)?;
            StepKind::GoTo { path }
        }
        "click" | "check" | "uncheck" | "hover" if c.at_role() => by_role(&mut c, &verb)?,
        "hover" => {
            let name = c.quoted("name", "\"hover\"", HOVER, false)?;
            let within = c.within(HOVER)?;
            c.finish(HOVER)?;
            StepKind::Hover { name, within }
        }
        "click" => {
            let name = c.quoted("name", "\"click\"", CLICK, false)?;
            let within = c.within(CLICK)?;
            c.finish(CLICK)?;
            StepKind::Click { name, within }
        }
        "fill" => fill(&mut c)?,
        "select" => {
            let option = c.quoted("option", "\"select\"", SELECT, false)?;
            c.keyword("in", "the option", SELECT)?;
            let field = c.quoted("field", "\"in\"", SELECT, false)?;
            c.finish(SELECT)?;
            StepKind::Select { option, field }
        }
        "check" => {
            let name = c.quoted("name", "\"check\"", CHECK, false)?;
            let within = c.within(CHECK)?;
            c.finish(CHECK)?;
            StepKind::Check { name, within }
        }
        "uncheck" => {
            let name = c.quoted("name", "\"uncheck\"", UNCHECK, false)?;
            let within = c.within(UNCHECK)?;
            c.finish(UNCHECK)?;
            StepKind::Uncheck { name, within }
        }
        "wait" => {
            c.keyword("for", "\"wait\"", WAIT_FOR)?;
            let name = c.quoted("name", "\"wait for\"", WAIT_FOR, false)?;
            let within = c.within(WAIT_FOR)?;
            c.finish(WAIT_FOR)?;
            StepKind::WaitFor { name, within }
        }
        "use" => {
            let fragment = c.fragment()?;
            c.finish(USE)?;
            StepKind::Use { fragment }
        }
        "expect" => StepKind::Expect(expectation_body(&mut c, "expect ")?),
        _ => return Err(unknown_verb(&first)),
    };
    Ok(kind)
}

/// `press KEY [in "FIELD"]`, `type "TEXT" into "FIELD"` and `focus "NAME"`: what a person does
/// with the keyboard.
fn keyboard(c: &mut Cursor, verb: &str) -> Result<Option<StepKind>, StepError> {
    Ok(Some(match verb {
        "press" => {
            let key = c.key()?;
            let (field, within) = if c.at_keyword("in") {
                c.next();
                let field = c.quoted("field", "\"in\"", PRESS, false)?;
                (Some(field), c.within(PRESS)?)
            } else {
                (None, None)
            };
            c.finish(PRESS)?;
            StepKind::Press { key, field, within }
        }
        "type" => {
            let column = c.column();
            let text = c.quoted("text", "\"type\"", TYPE, true)?;
            if text.is_empty() {
                return Err(StepError::new(
                    column,
                    "nothing to type",
                    "give at least one character (a space counts); to empty a field, write \
                     `fill \"FIELD\" with \"\"`",
                ));
            }
            c.keyword("into", "the text", TYPE)?;
            let field = c.quoted("field", "\"into\"", TYPE, false)?;
            let within = c.within(TYPE)?;
            c.finish(TYPE)?;
            StepKind::Type {
                text,
                field,
                within,
            }
        }
        "focus" => {
            let name = c.quoted("name", "\"focus\"", FOCUS, false)?;
            let within = c.within(FOCUS)?;
            c.finish(FOCUS)?;
            StepKind::Focus { name, within }
        }
        _ => return Ok(None),
    }))
}

/// `go back`, `reload` and `double-click "NAME"`: what a person does with the browser's own
/// buttons, or with a quick double click.
fn browser_button(c: &mut Cursor, verb: &str) -> Result<Option<StepKind>, StepError> {
    Ok(Some(match verb {
        "go" if c.at_keyword("back") => {
            c.next();
            c.finish(GO_BACK)?;
            StepKind::Back
        }
        "go" if c.at_keyword("forward") => {
            c.next();
            c.finish(GO_FORWARD)?;
            StepKind::Forward
        }
        "reload" => {
            c.finish(RELOAD)?;
            StepKind::Reload
        }
        "double-click" => {
            let name = c.quoted("name", "\"double-click\"", DOUBLE_CLICK, false)?;
            let within = c.within(DOUBLE_CLICK)?;
            c.finish(DOUBLE_CLICK)?;
            StepKind::DoubleClick { name, within }
        }
        _ => return Ok(None),
    }))
}

pub(super) fn expectation(text: &str) -> Result<Expectation, StepError> {
    let mut c = Cursor::new(text)?;
    if c.at_keyword("expect") {
        c.next();
    }
    if c.peek().is_none() {
        return Err(StepError::new(
            c.column(),
            "empty expectation",
            format!("write one of: {}", expectation_forms("")),
        ));
    }
    expectation_body(&mut c, "")
}

/// `click|check|uncheck|hover ROLE in "CONTAINER"`: a control with no name of its own.
fn by_role(c: &mut Cursor, verb: &str) -> Result<StepKind, StepError> {
    let verb = match verb {
        "click" => RoleVerb::Click,
        "check" => RoleVerb::Check,
        "uncheck" => RoleVerb::Uncheck,
        _ => RoleVerb::Hover,
    };
    let usage = format!(r#"{} ROLE in "CONTAINER""#, verb.as_str());
    let role = c.next().map(|t| t.text.to_lowercase()).unwrap_or_default();
    let Some(within) = c.within(&usage)? else {
        return Err(StepError::new(
            c.column(),
            format!(
                "a {role} named by its role needs `in \"CONTAINER\"`, the text of the row or section it is in"
            ),
            format!(
                r#"write `{} {role} in "…"` naming what is next to it, e.g. `check checkbox in "Buy milk"`; or quote the {role}'s own name"#,
                verb.as_str()
            ),
        ));
    };
    c.finish(&usage)?;
    Ok(StepKind::ByRole { verb, role, within })
}

fn fill(c: &mut Cursor) -> Result<StepKind, StepError> {
    let field = c.quoted("field", "\"fill\"", FILL, false)?;
    let within = c.within(FILL)?;
    if !c.at_keyword("with") {
        let (message, column) = match c.peek() {
            Some(token) => (
                format!("expected \"with\" after the field, found {}", token.raw),
                token.column,
            ),
            None => ("fill needs \"with\" and a value".to_owned(), c.column()),
        };
        return Err(StepError::new(
            column,
            message,
            format!("write it as `{FILL}`"),
        ));
    }
    c.next();
    let value = match c.next() {
        Some(token) if token.quoted => FillValue::Text(token.text),
        Some(token) => match strip_prefix_ignore_case(&token.text, "account.") {
            Some(key) if is_name(key) => FillValue::Account(key.to_owned()),
            Some(_) => {
                return Err(StepError::new(
                    token.column,
                    format!("invalid account key in {}", token.raw),
                    "account keys use letters, digits, `_` and `-`, e.g. `account.email`",
                ));
            }
            None => {
                return Err(StepError::new(
                    token.column,
                    format!(
                        "expected quoted text or account.KEY after \"with\", found {}",
                        token.raw
                    ),
                    format!(
                        "quote literal text (`fill \"FIELD\" with \"{}\"`) or name an account key (`with account.email`)",
                        escape(&token.text)
                    ),
                ));
            }
        },
        None => {
            return Err(StepError::new(
                c.column(),
                "expected quoted text or account.KEY after \"with\"",
                format!("write it as `{FILL}`"),
            ));
        }
    };
    if c.at_keyword("in") {
        let column = c.column();
        return Err(StepError::new(
            column,
            "\"in\" must come right after the field",
            r#"write it as `fill "FIELD" in "CONTAINER" with "TEXT"`"#,
        ));
    }
    c.finish(FILL)?;
    Ok(StepKind::Fill {
        field,
        within,
        value,
    })
}

fn expectation_forms(prefix: &str) -> String {
    [
        r#"text "TEXT""#,
        r#"no text "TEXT""#,
        "url GLOB",
        r#""FIELD" value "TEXT""#,
        r#""NAME" visible"#,
        r#""NAME" hidden"#,
        r#"holds "PREDICATE""#,
    ]
    .iter()
    .map(|form| format!("`{prefix}{form}`"))
    .collect::<Vec<_>>()
    .join(", ")
}

fn expectation_body(c: &mut Cursor, prefix: &str) -> Result<Expectation, StepError> {
    let forms = || format!("write one of: {}", expectation_forms(prefix));
    let Some(token) = c.next() else {
        return Err(StepError::new(
            c.column(),
            format!("expected what to expect after \"{}\"", prefix.trim()),
            forms(),
        ));
    };
    let text_usage = format!(r#"{prefix}text "TEXT""#);
    let expectation = if token.quoted {
        if token.text.trim().is_empty() {
            return Err(StepError::new(
                token.column,
                "the name is empty",
                "write the name a person sees on the page",
            ));
        }
        let name = token.text;
        match c.next() {
            Some(word) if !word.quoted && word.text.eq_ignore_ascii_case("value") => {
                let usage = format!(r#"{prefix}"FIELD" value "TEXT""#);
                let value = c.quoted("value", "\"value\"", &usage, true)?;
                Expectation::Value { field: name, value }
            }
            Some(word) if !word.quoted && word.text.eq_ignore_ascii_case("visible") => {
                Expectation::Visible(name)
            }
            Some(word) if !word.quoted && word.text.eq_ignore_ascii_case("hidden") => {
                Expectation::Hidden(name)
            }
            other => {
                let column = other.as_ref().map_or(c.column(), |t| t.column);
                return Err(StepError::new(
                    column,
                    format!(
                        "expected \"value\", \"visible\" or \"hidden\" after the name \"{name}\""
                    ),
                    format!(
                        "write `{prefix}\"{0}\" visible`, `{prefix}\"{0}\" hidden` or `{prefix}\"{0}\" value \"TEXT\"`; for text on the page write `{prefix}text \"{0}\"`",
                        escape(&name)
                    ),
                ));
            }
        }
    } else {
        match token.text.to_lowercase().as_str() {
            "text" => Expectation::Text(c.quoted("text", "\"text\"", &text_usage, false)?),
            "no" => {
                let usage = format!(r#"{prefix}no text "TEXT""#);
                c.keyword("text", "\"no\"", &usage)?;
                Expectation::NoText(c.quoted("text", "\"no text\"", &usage, false)?)
            }
            "url" => Expectation::Url(c.glob(prefix)?),
            other => {
                let mut hint = forms();
                if let Some(near) = closest(other, &["text", "no", "url", "holds"]) {
                    hint.push_str(&format!("; did you mean `{near}`?"));
                }
                return Err(StepError::new(
                    token.column,
                    format!("unknown expectation {}", token.raw),
                    hint,
                ));
            }
        }
    };
    let usage = match &expectation {
        Expectation::Text(_) => text_usage,
        Expectation::NoText(_) => format!(r#"{prefix}no text "TEXT""#),
        Expectation::Url(_) => format!("{prefix}url GLOB"),
        Expectation::Value { .. } => format!(r#"{prefix}"FIELD" value "TEXT""#),
        Expectation::Visible(_) => format!(r#"{prefix}"NAME" visible"#),
        Expectation::Hidden(_) => format!(r#"{prefix}"NAME" hidden"#),
        Expectation::Holds { .. } => format!(r#"{prefix}holds "PREDICATE""#),
    };
    c.finish(&usage)?;
    Ok(expectation)
}

fn unknown_verb(token: &Token) -> StepError {
    let word = token.text.to_lowercase();
    let single: Vec<&str> = VERBS
        .iter()
        .map(|v| v.split(' ').next().unwrap_or(v))
        .collect();
    let suggestion = VERB_SYNONYMS
        .iter()
        .find(|(synonym, _)| *synonym == word)
        .map(|(_, verb)| *verb)
        .or_else(|| {
            closest(&word, &single)
                .and_then(|first| VERBS.iter().copied().find(|v| v.starts_with(first)))
        });
    let mut hint = format!("steps start with one of: {}", VERBS.join(", "));
    if let Some(verb) = suggestion {
        hint.push_str(&format!("; did you mean `{verb}`?"));
    }
    StepError::new(
        token.column,
        format!("unknown step verb \"{}\"", token.text),
        hint,
    )
}

impl StepError {
    fn new(column: usize, message: impl Into<String>, hint: impl Into<String>) -> Self {
        StepError {
            message: message.into(),
            column,
            hint: hint.into(),
        }
    }
}

/// A word or a quoted text, located in the step.
#[derive(Debug, Clone)]
struct Token {
    /// The word, or the quoted text with escapes resolved.
    text: String,
    quoted: bool,
    /// 1-based, in characters.
    column: usize,
    /// As written, for messages: `Buy` or `"Buy"`.
    raw: String,
}

struct Cursor {
    tokens: Vec<Token>,
    pos: usize,
    /// The column just after the last character, where a missing word is reported.
    end: usize,
}

impl Cursor {
    fn new(text: &str) -> Result<Self, StepError> {
        let chars: Vec<char> = text.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if chars[i].is_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            if chars[i] == '"' {
                let text = quoted_at(&chars, &mut i)?;
                tokens.push(Token {
                    text,
                    quoted: true,
                    column: start + 1,
                    raw: chars[start..i].iter().collect(),
                });
            } else {
                while i < chars.len() && !chars[i].is_whitespace() && chars[i] != '"' {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                tokens.push(Token {
                    text: word.clone(),
                    quoted: false,
                    column: start + 1,
                    raw: format!("`{word}`"),
                });
            }
        }
        let end = chars
            .iter()
            .rposition(|c| !c.is_whitespace())
            .map_or(1, |last| last + 2);
        Ok(Cursor {
            tokens,
            pos: 0,
            end,
        })
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    /// Where the next token starts, or the end of the step.
    fn column(&self) -> usize {
        self.peek().map_or(self.end, |t| t.column)
    }

    /// Whether the next token is an unquoted role word (`checkbox`), naming a control by role.
    fn at_role(&self) -> bool {
        self.peek()
            .is_some_and(|t| !t.quoted && ROLES.iter().any(|r| t.text.eq_ignore_ascii_case(r)))
    }

    fn at_keyword(&self, keyword: &str) -> bool {
        self.peek()
            .is_some_and(|t| !t.quoted && t.text.eq_ignore_ascii_case(keyword))
    }

    fn keyword(&mut self, keyword: &str, after: &str, usage: &str) -> Result<(), StepError> {
        if self.at_keyword(keyword) {
            self.next();
            return Ok(());
        }
        let message = match self.peek() {
            Some(token) => format!("expected \"{keyword}\" after {after}, found {}", token.raw),
            None => format!("expected \"{keyword}\" after {after}"),
        };
        Err(StepError::new(
            self.column(),
            message,
            format!("write it as `{usage}`"),
        ))
    }

    /// A quoted text; `what` names it in messages (`name`, `field`, …).
    fn quoted(
        &mut self,
        what: &str,
        after: &str,
        usage: &str,
        allow_empty: bool,
    ) -> Result<String, StepError> {
        match self.peek() {
            Some(token) if token.quoted => {
                let token = token.clone();
                if !allow_empty && token.text.trim().is_empty() {
                    return Err(StepError::new(
                        token.column,
                        format!("the {what} is empty"),
                        format!("write the {what} a person sees on the page, e.g. `{usage}`"),
                    ));
                }
                self.pos += 1;
                Ok(token.text)
            }
            Some(token) => {
                let words = self.unquoted_run();
                Err(StepError::new(
                    token.column,
                    format!(
                        "expected a quoted {what} after {after}, found {}",
                        token.raw
                    ),
                    format!(
                        "put the {what} in double quotes, e.g. \"{}\"; the step reads `{usage}`",
                        escape(&words)
                    ),
                ))
            }
            None => Err(StepError::new(
                self.end,
                format!("expected a quoted {what} after {after}"),
                format!("write it as `{usage}`"),
            )),
        }
    }

    /// The unquoted words from here up to the next keyword: what the user probably meant to quote.
    fn unquoted_run(&self) -> String {
        self.tokens[self.pos..]
            .iter()
            .take_while(|t| {
                !t.quoted
                    && !["in", "with", "value", "visible", "hidden"]
                        .iter()
                        .any(|k| t.text.eq_ignore_ascii_case(k))
            })
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// An optional `in "CONTAINER"`.
    fn within(&mut self, usage: &str) -> Result<Option<String>, StepError> {
        if !self.at_keyword("in") {
            return Ok(None);
        }
        self.next();
        self.quoted("container", "\"in\"", usage, false).map(Some)
    }

    fn path(&mut self) -> Result<String, StepError> {
        let Some(token) = self.next() else {
            return Err(StepError::new(
                self.end,
                "expected a path after \"go to\"",
                format!("write it as `{GO_TO}`"),
            ));
        };
        let path = token.text;
        if path.starts_with('/') {
            return Ok(path);
        }
        let lower = path.to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            return Err(StepError::new(
                token.column,
                format!("\"go to\" takes a path, not a full URL: {}", token.raw),
                "write the path, e.g. `go to /products`; the base URL comes from windup.toml or WINDUP_BASE_URL",
            ));
        }
        Err(StepError::new(
            token.column,
            format!("the path must start with \"/\", found {}", token.raw),
            format!("write it as `go to /{}`", path.trim_start_matches('/')),
        ))
    }

    fn glob(&mut self, prefix: &str) -> Result<String, StepError> {
        match self.next() {
            Some(token) if !token.text.trim().is_empty() => Ok(token.text),
            other => Err(StepError::new(
                other.map_or(self.end, |t| t.column),
                "expected a URL pattern after \"url\"",
                format!("write it as `{prefix}url /orders/*`; `*` matches any characters"),
            )),
        }
    }

    fn key(&mut self) -> Result<String, StepError> {
        let keys = key_names().join(", ");
        let Some(token) = self.next() else {
            return Err(StepError::new(
                self.end,
                "expected a key after \"press\"",
                format!("write it as `press Enter`; keys: {keys}"),
            ));
        };
        if let Some(key) = key_names()
            .iter()
            .find(|k| k.eq_ignore_ascii_case(&token.text))
        {
            return Ok((*key).to_owned());
        }
        let lower = token.text.to_lowercase();
        let suggestion = KEY_SYNONYMS
            .iter()
            .find(|(synonym, _)| *synonym == lower)
            .map(|(_, key)| *key)
            .or_else(|| closest(&token.text, key_names()));
        let mut hint = format!("use one of {keys}");
        if let Some(key) = suggestion {
            hint.push_str(&format!("; did you mean `{key}`?"));
        }
        Err(StepError::new(
            token.column,
            format!("unknown key {} for \"press\"", token.raw),
            hint,
        ))
    }

    fn fragment(&mut self) -> Result<String, StepError> {
        match self.next() {
            Some(token) if is_name(&token.text) => Ok(token.text),
            Some(token) => Err(StepError::new(
                token.column,
                format!("invalid fragment name {}", token.raw),
                "fragment names use letters, digits, `_` and `-`, e.g. `use accept-cookies`",
            )),
            None => Err(StepError::new(
                self.end,
                "expected a fragment name after \"use\"",
                "write it as `use FRAGMENT`, e.g. `use accept-cookies`",
            )),
        }
    }

    /// Nothing may follow a complete step.
    fn finish(&self, usage: &str) -> Result<(), StepError> {
        match self.peek() {
            None => Ok(()),
            Some(token) => Err(StepError::new(
                token.column,
                format!("unexpected {} after the end of the step", token.raw),
                format!("write it as `{usage}`; put each action on its own line"),
            )),
        }
    }
}

/// Reads a quoted text starting at the opening quote `chars[*i]`; leaves `*i` after the closing one.
fn quoted_at(chars: &[char], i: &mut usize) -> Result<String, StepError> {
    let open = *i;
    let unterminated = || {
        StepError::new(
            open + 1,
            "unterminated quote",
            "close the text with `\"`; write `\\\"` for a quote inside it",
        )
    };
    let mut text = String::new();
    *i += 1;
    loop {
        match chars.get(*i) {
            None => return Err(unterminated()),
            Some('"') => {
                *i += 1;
                return Ok(text);
            }
            Some('\\') => match chars.get(*i + 1) {
                Some(&c @ ('"' | '\\')) => {
                    text.push(c);
                    *i += 2;
                }
                Some(other) => {
                    return Err(StepError::new(
                        *i + 1,
                        format!("unknown escape `\\{other}` in quoted text"),
                        "only `\\\"` (a quote) and `\\\\` (a backslash) are escapes; write `\\\\` for a backslash",
                    ));
                }
                None => return Err(unterminated()),
            },
            Some(&c) => {
                text.push(c);
                *i += 1;
            }
        }
    }
}

/// Fragment names and account keys: `[A-Za-z0-9_-]+`.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// Text as it would be written between double quotes.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}
