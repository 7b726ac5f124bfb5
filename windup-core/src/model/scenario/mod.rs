//! Scenarios: the YAML files users write, loaded into checked [`Scenario`]s.
//!
//! ```yaml
//! id: checkout-as-demo-user        # default: the path under the scenarios dir, no extension
//! task: Buy one Rust mug as the demo user and confirm the order.
//! start_url: /
//! account: demo
//! hints: ["The cart is in the header"]
//! steps:
//!   - go to /products
//!   - click "Add to cart" in "Rust mug"
//! expect:
//!   - text "Thank you for your order"
//! tags: [smoke]
//! ```
//!
//! Every error is located (file, line, column) and carries a hint; unknown keys are errors,
//! because a typo must never be silently ignored.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::model::located::located;
use crate::model::steps::suggest::{closest, parse_unknown_field};
use crate::model::steps::{Expectation, Step, StepError, StepKind, check_since, parse_expectation};

mod locate;
#[cfg(test)]
mod tests;

use locate::{Items, Part, Position, list_items};

/// A loaded, checked scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    /// Unique within the suite; names the test.
    pub id: String,
    /// What a person wants done, in one sentence.
    pub task: String,
    /// A path joined to the base URL.
    pub start_url: String,
    /// The account in `windup.toml`'s `[accounts]` whose values `account.KEY` refers to.
    pub account: Option<String>,
    pub hints: Vec<String>,
    /// Explicit steps, planned without a model; empty when the scenario has none.
    pub steps: Vec<Step>,
    /// What must hold at the end.
    pub expect: Vec<ScenarioExpectation>,
    pub tags: Vec<String>,
    /// The file, as given to [`load`].
    pub path: PathBuf,
    /// Lowercase hex SHA-256 of the file's bytes: editing a scenario changes it.
    pub hash: String,
}

/// One item of a scenario's `expect:` list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioExpectation {
    pub expectation: Expectation,
    /// The item as written.
    pub text: String,
    /// 1-based line in the file; 0 when unknown.
    pub line: usize,
}

/// A scenario that cannot be used, located like a compiler error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", located(.path, *.line, *.column, .message, .hint))]
pub struct ScenarioError {
    pub path: PathBuf,
    /// 1-based; 0 when the problem is not on one line (an unreadable file, a derived id).
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub column: usize,
    pub message: String,
    /// What to do about it; may be empty.
    pub hint: String,
}

/// The keys a scenario may have, in the order the format lists them.
const KEYS: &[&str] = &[
    "id",
    "task",
    "start_url",
    "account",
    "hints",
    "steps",
    "expect",
    "tags",
];

impl Scenario {
    /// The plan rules for this scenario's plans: the account keys its steps may reference.
    pub fn plan_rules(&self) -> crate::model::plan::Rules {
        if self.account.is_none() {
            return crate::model::plan::Rules::without_account();
        }
        crate::model::plan::Rules::with_account_keys(
            self.steps
                .iter()
                .filter_map(|step| step.kind.account_key().map(str::to_owned)),
        )
    }
}

/// Loads and checks one scenario file. `root` is the scenarios directory, for the default id.
pub fn load(path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
    let bytes = std::fs::read(path).map_err(|err| ScenarioError {
        path: path.to_owned(),
        line: 0,
        column: 0,
        message: format!("cannot read the scenario: {err}"),
        hint: "check that the file exists and is readable".to_owned(),
    })?;
    parse_bytes(&bytes, path, root)
}

/// [`load`], from the file's bytes.
fn parse_bytes(bytes: &[u8], path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::str::from_utf8(bytes).map_err(|err| not_utf8(bytes, &err, path))?;
    parse(text, path, root)
}

fn not_utf8(bytes: &[u8], err: &std::str::Utf8Error, path: &Path) -> ScenarioError {
    let (line, column) = locate::invalid_utf8(bytes, err);
    let start = err.valid_up_to();
    let end = err.error_len().map_or(bytes.len(), |len| start + len);
    let hex: Vec<String> = bytes[start..end]
        .iter()
        .map(|b| format!("0x{b:02X}"))
        .collect();
    let problem = match (err.error_len(), hex.len()) {
        (None, _) => format!("the file ends inside a character ({})", hex.join(" ")),
        (Some(_), 1) => format!("byte {} is not valid UTF-8", hex[0]),
        (Some(_), _) => format!("bytes {} are not valid UTF-8", hex.join(" ")),
    };
    ScenarioError {
        path: path.to_owned(),
        line,
        column,
        message: format!("the scenario is not UTF-8 text: {problem}"),
        hint: "save the file as UTF-8".to_owned(),
    }
}

/// [`load`], from text already read (the hash is of the text's bytes).
pub fn parse(text: &str, path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
    let source = Source { text, path };
    let raw = source.read_raw()?;
    let task = source.check_task(raw.task)?;
    let id = source.check_id(raw.id, root)?;
    let start_url = source.check_start_url(raw.start_url)?;
    source.check_account(raw.account.as_deref())?;
    let tags = source.check_tags(raw.tags.unwrap_or_default())?;
    let steps = source.parse_steps(raw.steps.unwrap_or_default(), raw.account.is_some())?;
    let expect = source.parse_expectations(raw.expect.unwrap_or_default(), steps.len())?;
    Ok(Scenario {
        id,
        task,
        start_url,
        account: raw.account,
        hints: raw.hints.unwrap_or_default(),
        steps,
        expect,
        tags,
        path: path.to_owned(),
        hash: sha256_hex(text.as_bytes()),
    })
}

const DEPTH_HINT: &str = "a scenario is a few keys and lists: write steps one per line, not inside \
     nested brackets";

const TASK_HINT: &str =
    "say in one sentence what a person wants done, e.g. `task: Add a mug to the cart`";

/// The scenario's text and its file: what every check reads and every error names.
struct Source<'a> {
    text: &'a str,
    path: &'a Path,
}

impl Source<'_> {
    fn error(&self, (line, column): Position, message: String, hint: &str) -> ScenarioError {
        ScenarioError {
            path: self.path.to_owned(),
            line,
            column,
            message,
            hint: hint.to_owned(),
        }
    }

    fn has_key(&self, key: &str) -> bool {
        locate::find(self.text, Part::Key { key, occurrence: 0 }).is_some()
    }

    /// Where the value of top-level `key` starts; its key when the value cannot be found.
    fn value_at(&self, key: &str) -> Position {
        locate::find(self.text, Part::Value(key))
            .or_else(|| locate::find(self.text, Part::Key { key, occurrence: 0 }))
            .unwrap_or((1, 1))
    }

    fn read_raw(&self) -> Result<RawScenario, ScenarioError> {
        if let Some(at) = crate::model::yaml_depth::too_deep(self.text) {
            return Err(self.error((at.line, at.column), at.message(), DEPTH_HINT));
        }
        match serde_yaml::from_str::<Option<RawScenario>>(self.text) {
            Ok(Some(raw)) => Ok(raw),
            Ok(None) => Err(self.error(
                (1, 1),
                "the scenario is empty".to_owned(),
                "a scenario needs at least a `task:`, e.g. `task: Add a mug to the cart`, and usually `steps:`",
            )),
            Err(err) => Err(yaml_error(&err, self)),
        }
    }

    fn check_task(&self, task: Option<String>) -> Result<String, ScenarioError> {
        match task {
            Some(task) if !task.trim().is_empty() => Ok(task),
            // `task:` with no value reads as none: point at it rather than call it missing.
            None if !self.has_key("task") => {
                Err(self.error((1, 1), "missing `task`".to_owned(), TASK_HINT))
            }
            _ => Err(self.error(
                self.value_at("task"),
                "`task` is empty".to_owned(),
                TASK_HINT,
            )),
        }
    }

    fn check_id(&self, id: Option<String>, root: &Path) -> Result<String, ScenarioError> {
        match id {
            Some(id) if is_valid_id(&id) => Ok(id),
            Some(id) => Err(self.error(self.value_at("id"), format!("invalid id {id:?}"), ID_RULE)),
            None => {
                let id = default_id(self.path, root);
                if is_valid_id(&id) {
                    return Ok(id);
                }
                Err(self.error(
                    (0, 0),
                    format!("the file name gives the invalid id {id:?}"),
                    &format!("set `id:` in the file or rename it; {ID_RULE}"),
                ))
            }
        }
    }

    fn check_start_url(&self, start_url: Option<String>) -> Result<String, ScenarioError> {
        let start_url = start_url.unwrap_or_else(|| "/".to_owned());
        if start_url.starts_with('/') {
            return Ok(start_url);
        }
        let lower = start_url.to_ascii_lowercase();
        let hint = if lower.starts_with("http://") || lower.starts_with("https://") {
            "write only the path, e.g. `start_url: /products`; the base URL comes from windup.toml or WINDUP_BASE_URL"
        } else {
            "write a path that starts with `/`, e.g. `start_url: /products`"
        };
        Err(self.error(
            self.value_at("start_url"),
            format!("`start_url` must be a path starting with \"/\", found {start_url:?}"),
            hint,
        ))
    }

    fn check_account(&self, account: Option<&str>) -> Result<(), ScenarioError> {
        match account {
            Some(account) if !is_account_name(account) => Err(self.error(
                self.value_at("account"),
                format!("invalid account name {account:?}"),
                "name an account of windup.toml's [accounts] (letters, digits, `_` and `-`), e.g. `account: demo`",
            )),
            _ => Ok(()),
        }
    }

    fn check_tags(&self, tags: Vec<String>) -> Result<Vec<String>, ScenarioError> {
        let invalid = tags
            .iter()
            .position(|tag| tag.is_empty() || tag.chars().any(char::is_whitespace));
        let Some(index) = invalid else {
            return Ok(tags);
        };
        let at = locate::find(self.text, Part::Item("tags", index))
            .unwrap_or_else(|| self.value_at("tags"));
        Err(self.error(
            at,
            format!("invalid tag {:?}", tags[index]),
            "tags are single words such as `smoke` or `slow`",
        ))
    }

    fn parse_steps(
        &self,
        written: Vec<String>,
        has_account: bool,
    ) -> Result<Vec<Step>, ScenarioError> {
        let items = list_items(self.text, "steps", written.len());
        let mut steps = Vec::with_capacity(written.len());
        for (index, written) in written.into_iter().enumerate() {
            let step = Step::parse(&written, items.line(index))
                .map_err(|err| self.item_error(&err, &written, index, &items))?;
            if let StepKind::Expect(expectation) = &step.kind {
                check_since(expectation, &written, index + 1)
                    .map_err(|err| self.item_error(&err, &written, index, &items))?;
            }
            if let Some(key) = step.kind.account_key()
                && !has_account
            {
                let column = find_ignore_case(&written, "account.").map_or(1, |c| c + 1);
                return Err(self.error(
                    items.locate(index, &written, column),
                    format!(
                        "`account.{key}` needs an account, but the scenario sets no `account:` in `{written}`"
                    ),
                    "add `account: NAME` naming an account of windup.toml's [accounts], or fill literal text",
                ));
            }
            steps.push(step);
        }
        Ok(steps)
    }

    fn parse_expectations(
        &self,
        written: Vec<String>,
        steps: usize,
    ) -> Result<Vec<ScenarioExpectation>, ScenarioError> {
        let items = list_items(self.text, "expect", written.len());
        let mut expect = Vec::with_capacity(written.len());
        for (index, written) in written.into_iter().enumerate() {
            let expectation = parse_expectation(&written)
                .and_then(|e| check_since(&e, &written, steps).map(|()| e))
                .map_err(|err| self.item_error(&err, &written, index, &items))?;
            expect.push(ScenarioExpectation {
                expectation,
                line: items.line(index),
                text: written,
            });
        }
        Ok(expect)
    }

    fn item_error(
        &self,
        err: &StepError,
        written: &str,
        index: usize,
        items: &Items,
    ) -> ScenarioError {
        let message = if written.trim().is_empty() {
            err.message.clone()
        } else {
            format!("{} in `{}`", err.message, written.trim())
        };
        self.error(items.locate(index, written, err.column), message, &err.hint)
    }
}

/// Every `*.yaml` / `*.yml` under `root`, recursively, sorted; skips a top-level `fragments/`
/// directory and hidden files and directories.
pub fn discover(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    walk(root, true, &mut found)?;
    found.sort();
    Ok(found)
}

fn walk(dir: &Path, top: bool, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || (top && name == "fragments") {
            continue;
        }
        let path = entry.path();
        let mut file_type = entry.file_type()?;
        if file_type.is_symlink() {
            // A linked file counts; a linked directory is not followed (it could loop).
            file_type = std::fs::metadata(&path)?.file_type();
            if file_type.is_dir() {
                continue;
            }
        }
        if file_type.is_dir() {
            walk(&path, false, found)?;
        } else if file_type.is_file()
            && matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            )
        {
            found.push(path);
        }
    }
    Ok(())
}

/// The id a scenario gets without `id:`: its path under `root`, without extension, `/`-separated.
pub fn default_id(path: &Path, root: &Path) -> String {
    let path = normal_components(&path.with_extension(""));
    let root = normal_components(root);
    let relative = if path.len() > root.len() && path.starts_with(&root) {
        &path[root.len()..]
    } else {
        &path[path.len().saturating_sub(1)..]
    };
    relative.join("/")
}

fn normal_components(path: &Path) -> Vec<String> {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect()
}

const ID_RULE: &str = "ids start with a letter, digit or `_`, continue with letters, digits, `_`, `.`, `/` or `-`, and have at most 128 characters";

/// `^[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}$`
fn is_valid_id(id: &str) -> bool {
    let mut chars = id.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    (first.is_ascii_alphanumeric() || first == '_')
        && id.len() <= 128
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-'))
}

fn is_account_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Character index of `needle` (ASCII) in `haystack`, ignoring ASCII case.
fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    let lower = haystack.to_ascii_lowercase();
    let byte = lower.find(needle)?;
    Some(haystack[..byte].chars().count())
}

/// The raw shape, before any check.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScenario {
    id: Option<String>,
    task: Option<String>,
    start_url: Option<String>,
    account: Option<String>,
    hints: Option<Vec<String>>,
    steps: Option<Vec<String>>,
    expect: Option<Vec<String>>,
    tags: Option<Vec<String>>,
}

fn yaml_error(err: &serde_yaml::Error, source: &Source<'_>) -> ScenarioError {
    let full = strip_locations(&err.to_string());
    if full.contains("more than one document") {
        return match locate::second_document(source.text) {
            Ok(at) => source.error(
                at,
                "a second YAML document starts here; a scenario file holds one".to_owned(),
                "remove the `---` or `...` line, or move the second scenario to a file of its own",
            ),
            Err(err) => yaml_error(&err, source),
        };
    }
    let (message, hint) = yaml_message(&full);
    // serde_yaml marks a duplicate key at its mapping's start; the second occurrence is the one.
    let at = duplicate_key(&full)
        .and_then(|key| {
            locate::find(
                source.text,
                Part::Key {
                    key: &key,
                    occurrence: 1,
                },
            )
        })
        .unwrap_or_else(|| locate::yaml_error(err, source.text));
    source.error(at, message, &hint)
}

/// What a serde_yaml error (its locations removed) means for a scenario, and what to do.
fn yaml_message(full: &str) -> (String, String) {
    if let Some((key, expected)) = parse_unknown_field(full) {
        let mut hint = format!("a scenario's keys are: {}", KEYS.join(", "));
        if let Some(near) = closest(&key, &expected) {
            hint.push_str(&format!("; did you mean `{near}`?"));
        }
        (format!("unknown key `{key}`"), hint)
    } else if let Some(key) = duplicate_key(full) {
        (
            format!("`{key}` appears more than once"),
            "keep one; each key may appear once".to_owned(),
        )
    } else if let Some((key, rest)) = split_key_path(full) {
        let hint = if rest.contains("invalid type: map") && key != "task" {
            format!(
                "an item containing `: ` must be quoted in YAML: wrap it in single quotes, e.g. `- 'expect text \"Total: 5\"'`; {}",
                key_hint(key)
            )
        } else {
            key_hint(key).to_owned()
        };
        (format!("`{key}`: {rest}"), hint)
    } else if full.contains("expected struct RawScenario") {
        (
            "a scenario is a mapping of keys (`task:`, `steps:`, …)".to_owned(),
            format!("start lines with one of: {}", KEYS.join(", ")),
        )
    } else if full.starts_with("control characters are not allowed") {
        (
            "invalid YAML: control characters are not allowed".to_owned(),
            "delete the invisible character here; an editor that shows control characters helps"
                .to_owned(),
        )
    } else {
        (
            format!("invalid YAML: {full}"),
            "check the indentation and quoting here or on the line before; quote a value that contains `: ` or starts with `\"`, `[` or `{`".to_owned(),
        )
    }
}

fn key_hint(key: &str) -> &'static str {
    match key {
        "id" => "`id` is text such as `checkout/guest`",
        "task" => "`task` is one sentence saying what a person wants done",
        "start_url" => "`start_url` is a path such as `/products`",
        "account" => "`account` names an account of windup.toml's [accounts]",
        "hints" => "`hints` is a list of strings, one `- ` item per line",
        "steps" => "`steps` is a list of strings, one `- ` item per line",
        "expect" => "`expect` is a list of strings, one `- ` item per line",
        "tags" => "`tags` is a list of words, e.g. `tags: [smoke]`",
        _ => "check the value's type",
    }
}

/// Splits `steps[1]: invalid type: …` into (`steps`, `invalid type: …`) for the known keys.
fn split_key_path(message: &str) -> Option<(&'static str, &str)> {
    let (head, rest) = message.split_once(": ")?;
    let key = head.split('[').next()?;
    KEYS.iter().find(|k| **k == key).map(|k| (*k, rest))
}

/// The key of serde_yaml's ``duplicate field `key` ``.
fn duplicate_key(message: &str) -> Option<String> {
    backticked(message).filter(|_| message.starts_with("duplicate field"))
}

fn backticked(message: &str) -> Option<String> {
    let (_, rest) = message.split_once('`')?;
    let (word, _) = rest.split_once('`')?;
    Some(word.to_owned())
}

/// Removes serde_yaml's ` at line N column M` and ` at position N` (the location is reported
/// separately).
fn strip_locations(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(start) = rest.find(" at ") {
        out.push_str(&rest[..start]);
        let after = &rest[start + " at ".len()..];
        match after_location(after) {
            Some(tail) => rest = tail,
            None => {
                out.push_str(" at ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text after a leading `line N column M` or `position N`.
fn after_location(text: &str) -> Option<&str> {
    match text.strip_prefix("line ") {
        Some(line) => after_number(after_number(line)?.strip_prefix(" column ")?),
        None => after_number(text.strip_prefix("position ")?),
    }
}

/// The text after the digits `text` starts with; none when it starts with none.
fn after_number(text: &str) -> Option<&str> {
    let rest = text.trim_start_matches(|c: char| c.is_ascii_digit());
    (rest.len() < text.len()).then_some(rest)
}
