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

use std::fmt;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::steps::suggest::{closest, parse_unknown_field};
use crate::steps::{Expectation, Step, StepError, parse_expectation};

mod locate;
#[cfg(test)]
mod tests;

use locate::{key_position, list_items};

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

/// The compiler-style rendering shared by scenario and configuration errors.
pub(crate) fn located(
    path: &Path,
    line: usize,
    column: usize,
    message: &str,
    hint: &str,
) -> String {
    Located {
        path,
        line,
        column,
        message,
        hint,
    }
    .to_string()
}

/// `path:line:column: message` then `  hint: …`.
struct Located<'a> {
    path: &'a Path,
    line: usize,
    column: usize,
    message: &'a str,
    hint: &'a str,
}

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}", self.line)?;
            if self.column > 0 {
                write!(f, ":{}", self.column)?;
            }
        }
        write!(f, ": {}", self.message)?;
        if !self.hint.is_empty() {
            write!(f, "\n  hint: {}", self.hint)?;
        }
        Ok(())
    }
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
    pub fn plan_rules(&self) -> crate::plan::Rules {
        if self.account.is_none() {
            return crate::plan::Rules::without_account();
        }
        crate::plan::Rules::with_account_keys(
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
    let text = std::str::from_utf8(&bytes).map_err(|err| ScenarioError {
        path: path.to_owned(),
        line: 0,
        column: 0,
        message: format!("the scenario is not UTF-8 text: {err}"),
        hint: "save the file as UTF-8".to_owned(),
    })?;
    parse(text, path, root)
}

/// [`load`], from text already read (the hash is of the text's bytes).
pub fn parse(text: &str, path: &Path, root: &Path) -> Result<Scenario, ScenarioError> {
    let at = |line: usize, column: usize, message: String, hint: String| ScenarioError {
        path: path.to_owned(),
        line,
        column,
        message,
        hint,
    };
    let raw = match serde_yaml::from_str::<Option<RawScenario>>(text) {
        Ok(Some(raw)) => raw,
        Ok(None) => {
            return Err(at(
                1,
                1,
                "the scenario is empty".to_owned(),
                "a scenario needs at least a `task:`, e.g. `task: Add a mug to the cart`, and usually `steps:`".to_owned(),
            ));
        }
        Err(err) => return Err(yaml_error(&err, text, path)),
    };

    let key_at = |key: &str| key_position(text, key).unwrap_or((1, 1));

    let Some(task) = raw.task else {
        return Err(at(
            1,
            1,
            "missing `task`".to_owned(),
            "say in one sentence what a person wants done, e.g. `task: Add a mug to the cart`"
                .to_owned(),
        ));
    };
    if task.trim().is_empty() {
        let (line, column) = key_at("task");
        return Err(at(
            line,
            column,
            "`task` is empty".to_owned(),
            "say in one sentence what a person wants done, e.g. `task: Add a mug to the cart`"
                .to_owned(),
        ));
    }

    let id = match raw.id {
        Some(id) => {
            if !is_valid_id(&id) {
                let (line, column) = key_at("id");
                return Err(at(
                    line,
                    column,
                    format!("invalid id {id:?}"),
                    ID_RULE.to_owned(),
                ));
            }
            id
        }
        None => {
            let id = default_id(path, root);
            if !is_valid_id(&id) {
                return Err(at(
                    0,
                    0,
                    format!("the file name gives the invalid id {id:?}"),
                    format!("set `id:` in the file or rename it; {ID_RULE}"),
                ));
            }
            id
        }
    };

    let start_url = raw.start_url.unwrap_or_else(|| "/".to_owned());
    if !start_url.starts_with('/') {
        let (line, column) = key_at("start_url");
        let lower = start_url.to_ascii_lowercase();
        let hint = if lower.starts_with("http://") || lower.starts_with("https://") {
            "write only the path, e.g. `start_url: /products`; the base URL comes from windup.toml or WINDUP_BASE_URL"
        } else {
            "write a path that starts with `/`, e.g. `start_url: /products`"
        };
        return Err(at(
            line,
            column,
            format!("`start_url` must be a path starting with \"/\", found {start_url:?}"),
            hint.to_owned(),
        ));
    }

    if let Some(account) = &raw.account
        && !is_account_name(account)
    {
        let (line, column) = key_at("account");
        return Err(at(
            line,
            column,
            format!("invalid account name {account:?}"),
            "name an account of windup.toml's [accounts] (letters, digits, `_` and `-`), e.g. `account: demo`".to_owned(),
        ));
    }

    let tags = raw.tags.unwrap_or_default();
    let tag_lines = list_items(text, "tags");
    for (index, tag) in tags.iter().enumerate() {
        if tag.is_empty() || tag.chars().any(char::is_whitespace) {
            let (line, column) = tag_lines.start(index);
            return Err(at(
                line,
                column,
                format!("invalid tag {tag:?}"),
                "tags are single words such as `smoke` or `slow`".to_owned(),
            ));
        }
    }

    let step_lines = list_items(text, "steps");
    let mut steps = Vec::new();
    for (index, written) in raw.steps.unwrap_or_default().into_iter().enumerate() {
        let line = step_lines.line(index);
        match Step::parse(&written, line) {
            Ok(step) => {
                if let Some(key) = step.kind.account_key()
                    && raw.account.is_none()
                {
                    let column = find_ignore_case(&written, "account.").map_or(1, |c| c + 1);
                    let (line, column) = step_lines.locate(index, &written, column);
                    return Err(at(
                        line,
                        column,
                        format!(
                            "`account.{key}` needs an account, but the scenario sets no `account:` in `{written}`"
                        ),
                        "add `account: NAME` naming an account of windup.toml's [accounts], or fill literal text".to_owned(),
                    ));
                }
                steps.push(step);
            }
            Err(err) => return Err(item_error(&err, &written, index, &step_lines, path)),
        }
    }

    let expect_lines = list_items(text, "expect");
    let mut expect = Vec::new();
    for (index, written) in raw.expect.unwrap_or_default().into_iter().enumerate() {
        match parse_expectation(&written) {
            Ok(expectation) => expect.push(ScenarioExpectation {
                expectation,
                line: expect_lines.line(index),
                text: written,
            }),
            Err(err) => return Err(item_error(&err, &written, index, &expect_lines, path)),
        }
    }

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

fn item_error(
    err: &StepError,
    written: &str,
    index: usize,
    items: &locate::Items,
    path: &Path,
) -> ScenarioError {
    let (line, column) = items.locate(index, written, err.column);
    ScenarioError {
        path: path.to_owned(),
        line,
        column,
        message: if written.trim().is_empty() {
            err.message.clone()
        } else {
            format!("{} in `{}`", err.message, written.trim())
        },
        hint: err.hint.clone(),
    }
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

fn yaml_error(err: &serde_yaml::Error, text: &str, path: &Path) -> ScenarioError {
    let (mut line, mut column) = err.location().map_or((0, 0), |l| (l.line(), l.column()));
    let full = strip_locations(&err.to_string());

    let (message, hint) = if let Some((key, expected)) = parse_unknown_field(&full) {
        let mut hint = format!("a scenario's keys are: {}", KEYS.join(", "));
        if let Some(near) = closest(&key, &expected) {
            hint.push_str(&format!("; did you mean `{near}`?"));
        }
        (format!("unknown key `{key}`"), hint)
    } else if let Some(key) = backticked(&full).filter(|_| full.starts_with("duplicate field")) {
        if let Some(position) = locate::nth_key_position(text, &key, 1) {
            (line, column) = position;
        }
        (
            format!("`{key}` appears more than once"),
            "keep one; each key may appear once".to_owned(),
        )
    } else if let Some((key, rest)) = split_key_path(&full) {
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
    } else {
        (
            format!("invalid YAML: {full}"),
            "check the indentation and quoting here or on the line before; quote a value that contains `: ` or starts with `\"`, `[` or `{`".to_owned(),
        )
    };
    ScenarioError {
        path: path.to_owned(),
        line,
        column,
        message,
        hint,
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

fn backticked(message: &str) -> Option<String> {
    let (_, rest) = message.split_once('`')?;
    let (word, _) = rest.split_once('`')?;
    Some(word.to_owned())
}

/// Removes serde_yaml's ` at line N column M` (the location is reported separately).
fn strip_locations(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(start) = rest.find(" at line ") {
        out.push_str(&rest[..start]);
        let after = &rest[start + " at line ".len()..];
        let digits = after.trim_start_matches(|c: char| c.is_ascii_digit());
        match digits.strip_prefix(" column ") {
            Some(col) if digits.len() < after.len() => {
                rest = col.trim_start_matches(|c: char| c.is_ascii_digit());
            }
            _ => {
                out.push_str(" at line ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
