//! `invariants/*.yaml`: the user's invariants, reviewable like scenarios, read with errors
//! located like a compiler's.
//!
//! ```yaml
//! invariants:
//!   - id: cart-total
//!     statement: The cart total is the sum of its lines
//!     surface: /cart
//!     predicate: money(".total") == sum(moneys(".line-total"))
//! inputs:                      # values a tester knows the app accepts, by field
//!   Coupon code: WELCOME10
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{Invariant, Predicate, PredicateError, Severity, Source, Surface};
use crate::model::located::located;

/// An invariants file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", located(.path, *.line, *.column, .message, .hint))]
pub struct InvariantError {
    pub path: PathBuf,
    /// 1-based; 0 when not on one line.
    pub line: usize,
    /// 1-based; 0 when unknown.
    pub column: usize,
    pub message: String,
    pub hint: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    invariants: Vec<RawInvariant>,
    #[serde(default)]
    inputs: BTreeMap<String, OneOrMany>,
}

/// One value or a list of them; numbers and booleans are read as the text they are written as.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(Scalar),
    Many(Vec<Scalar>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Number(serde_yaml::Number),
    Flag(bool),
}

impl Scalar {
    fn text(self) -> String {
        match self {
            Scalar::Text(text) => text,
            Scalar::Number(number) => number.to_string(),
            Scalar::Flag(flag) => flag.to_string(),
        }
    }
}

/// Values a tester knows a field accepts, by the field's name or label.
pub type Inputs = Vec<(String, Vec<String>)>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInvariant {
    id: String,
    statement: String,
    #[serde(default)]
    surface: Option<serde_yaml::Value>,
    #[serde(default)]
    when: Option<String>,
    #[serde(default)]
    predicate: Option<String>,
    #[serde(default)]
    severity: Option<Severity>,
    /// An obligation's bound, as `2s` or `1500ms`.
    #[serde(default)]
    within: Option<String>,
    #[serde(default)]
    until: Option<String>,
    #[serde(default)]
    transitions: Option<Vec<String>>,
}

/// The longest an obligation may wait: a walk stands still while it does.
pub const MAX_WITHIN: std::time::Duration = std::time::Duration::from_secs(60);

/// How many items before the current one wrote each optional key: the n-th `when:` written
/// belongs to the n-th item that has one.
#[derive(Default)]
struct Written {
    when: usize,
    until: usize,
    within: usize,
    transitions: usize,
}

/// The `.yaml`/`.yml` files under `dir`, sorted; none when it does not exist.
pub fn discover(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if !dir.is_dir() {
        return Ok(files);
    }
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                pending.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// Every invariant in the files under `dir`; every file's errors, or an id used twice.
pub fn load_dir(dir: &Path) -> Result<Vec<Invariant>, Vec<InvariantError>> {
    load_dir_with_inputs(dir).map(|(invariants, _)| invariants)
}

/// Every invariant and every known input in the files under `dir`.
pub fn load_dir_with_inputs(dir: &Path) -> Result<(Vec<Invariant>, Inputs), Vec<InvariantError>> {
    let files = discover(dir).map_err(|err| {
        vec![InvariantError {
            path: dir.to_owned(),
            line: 0,
            column: 0,
            message: format!("cannot read the invariants directory: {err}"),
            hint: "check the path given to --invariants".to_owned(),
        }]
    })?;
    let mut all = Vec::new();
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    let mut seen: BTreeMap<String, PathBuf> = BTreeMap::new();
    for file in files {
        match load_with_inputs(&file) {
            Ok((invariants, known)) => {
                inputs.extend(known);
                for invariant in invariants {
                    if let Some(first) = seen.get(&invariant.id) {
                        errors.push(InvariantError {
                            path: file.clone(),
                            line: 0,
                            column: 0,
                            message: format!(
                                "the id `{}` is already used in {}",
                                invariant.id,
                                first.display()
                            ),
                            hint: "give every invariant its own id".to_owned(),
                        });
                        continue;
                    }
                    seen.insert(invariant.id.clone(), file.clone());
                    all.push(invariant);
                }
            }
            Err(error) => errors.push(error),
        }
    }
    if errors.is_empty() {
        Ok((all, inputs))
    } else {
        Err(errors)
    }
}

/// The invariants of one file.
pub fn load(path: &Path) -> Result<Vec<Invariant>, InvariantError> {
    load_with_inputs(path).map(|(invariants, _)| invariants)
}

fn load_with_inputs(path: &Path) -> Result<(Vec<Invariant>, Inputs), InvariantError> {
    let text = std::fs::read_to_string(path).map_err(|err| InvariantError {
        path: path.to_owned(),
        line: 0,
        column: 0,
        message: format!("cannot read the file: {err}"),
        hint: "an invariants file is UTF-8 YAML".to_owned(),
    })?;
    parse_with_inputs(&text, path)
}

/// The invariants written in `text` (the file at `path`).
pub fn parse(text: &str, path: &Path) -> Result<Vec<Invariant>, InvariantError> {
    parse_with_inputs(text, path).map(|(invariants, _)| invariants)
}

/// The invariants and the known inputs written in `text`.
pub fn parse_with_inputs(
    text: &str,
    path: &Path,
) -> Result<(Vec<Invariant>, Inputs), InvariantError> {
    let error = |line, column, message, hint| InvariantError::at(path, line, column, message, hint);
    if let Some(at) = crate::model::yaml_depth::too_deep(text) {
        return Err(error(
            at.line,
            at.column,
            at.message(),
            "an invariants file is a list of {id, statement, predicate, …}: nest predicates \
             with brackets inside their text, not the YAML",
        ));
    }
    let raw: RawFile = serde_yaml::from_str(text).map_err(|err| {
        let (line, column) = err.location().map_or((0, 0), |l| (l.line(), l.column()));
        let message = err.to_string();
        let message = message.split(" at line ").next().unwrap_or(&message);
        error(
            line,
            column,
            message.to_owned(),
            "a file holds `invariants:`, a list of {id, statement, surface, when, predicate, \
             severity}, and `inputs:`, values by field name",
        )
    })?;
    let mut invariants = Vec::with_capacity(raw.invariants.len());
    let mut written = Written::default();
    for (index, item) in raw.invariants.into_iter().enumerate() {
        invariants.push(invariant(text, path, index, item, &mut written)?);
    }
    let inputs = raw
        .inputs
        .into_iter()
        .map(|(field, values)| match values {
            OneOrMany::One(value) => (field, vec![value.text()]),
            OneOrMany::Many(values) => (field, values.into_iter().map(Scalar::text).collect()),
        })
        .collect();
    Ok((invariants, inputs))
}

/// The `index`-th item of the file, checked.
fn invariant(
    text: &str,
    path: &Path,
    index: usize,
    item: RawInvariant,
    written: &mut Written,
) -> Result<Invariant, InvariantError> {
    let error = |line, column, message, hint| InvariantError::at(path, line, column, message, hint);
    let id_line = nth_key_line(text, "id", index).unwrap_or((0, 0)).0;
    if !is_id(&item.id) {
        return Err(error(
            id_line,
            0,
            format!("`{}` is not an invariant id", item.id),
            "use letters, digits, `-`, `_` and `.`, starting with a letter or digit",
        ));
    }
    let surface = surface(item.surface.clone())
        .map_err(|message| error(id_line, 0, message, "write a glob such as /cart or /**"))?;
    let when = optional(text, "when", &mut written.when, item.when.as_deref(), path)?;
    let until = optional(
        text,
        "until",
        &mut written.until,
        item.until.as_deref(),
        path,
    )?;
    let (predicate, transitions) =
        rule(text, path, index, &item, written).map_err(|e| e.or_line(id_line))?;
    let within = match &item.within {
        Some(within) => {
            let line = nth_key_line(text, "within", nth(&mut written.within)).unwrap_or((0, 0));
            Some(
                obligation(within, when.is_some(), transitions.is_empty()).map_err(
                    |(message, hint)| error(line.0, line.1, format!("within: {message}"), hint),
                )?,
            )
        }
        None => None,
    };
    let mut invariant = Invariant::new(
        item.id,
        item.statement,
        surface,
        when,
        predicate,
        Source::User,
        item.severity.unwrap_or_default(),
    );
    invariant.within = within;
    invariant.until = until;
    invariant.transitions = transitions;
    Ok(invariant)
}

/// The next of a count: the n-th optional key written belongs to the n-th item that has one.
fn nth(count: &mut usize) -> usize {
    *count += 1;
    *count - 1
}

/// An optional predicate under `key`, the `count`-th of its kind in the file.
fn optional(
    text: &str,
    key: &str,
    count: &mut usize,
    source: Option<&str>,
    path: &Path,
) -> Result<Option<Predicate>, InvariantError> {
    source
        .map(|source| parse_predicate(text, key, nth(count), source, path))
        .transpose()
}

/// What the rule says: one predicate, or a transition relation and its disjunction.
fn rule(
    text: &str,
    path: &Path,
    index: usize,
    item: &RawInvariant,
    written: &mut Written,
) -> Result<(Predicate, Vec<Predicate>), InvariantError> {
    match (&item.predicate, &item.transitions) {
        (Some(predicate), None) => Ok((
            parse_predicate(
                text,
                "predicate",
                index - written.transitions,
                predicate,
                path,
            )?,
            Vec::new(),
        )),
        (None, Some(transitions)) => {
            relation(text, path, nth(&mut written.transitions), transitions)
        }
        (Some(_), Some(_)) | (None, None) => Err(InvariantError {
            path: path.to_owned(),
            line: 0,
            column: 0,
            message: format!("`{}` needs one of `predicate` or `transitions`", item.id),
            hint: "a rule is one predicate, or a list of allowed transitions every step must \
                   satisfy"
                .to_owned(),
        }),
    }
}

/// An obligation's bound, read: a time of at most [`MAX_WITHIN`], on a rule with a trigger.
fn obligation(
    within: &str,
    triggered: bool,
    one_predicate: bool,
) -> Result<std::time::Duration, (String, &'static str)> {
    let bound = humantime::parse_duration(within.trim()).map_err(|err| {
        (
            format!("`{within}` is not a time: {err}"),
            "write a time such as 2s or 1500ms",
        )
    })?;
    if bound.is_zero() || bound > MAX_WITHIN {
        return Err((
            format!(
                "`{within}` is not between 1 ms and {} s",
                MAX_WITHIN.as_secs()
            ),
            "an obligation waits a short, bounded time: a walk stands still while it does",
        ));
    }
    if !triggered {
        return Err((
            "an obligation needs `when:`, the trigger that starts its clock".to_owned(),
            "write when: with the step that starts it, such as action.kind == \"click\"",
        ));
    }
    if !one_predicate {
        return Err((
            "a transition relation cannot be an obligation".to_owned(),
            "write the obligation as its own rule with one predicate",
        ));
    }
    Ok(bound)
}

/// A transition relation: each allowed transition parsed, and their disjunction, which is the
/// rule's predicate (what a regression test holds).
fn relation(
    text: &str,
    path: &Path,
    nth: usize,
    transitions: &[String],
) -> Result<(Predicate, Vec<Predicate>), InvariantError> {
    let key = nth_key_line(text, "transitions", nth).unwrap_or((0, 0)).0;
    if transitions.is_empty() {
        return Err(InvariantError {
            path: path.to_owned(),
            line: key,
            column: 0,
            message: "transitions: the list is empty".to_owned(),
            hint: "list the transitions a step may make, one predicate each".to_owned(),
        });
    }
    let mut parsed = Vec::with_capacity(transitions.len());
    for (n, transition) in transitions.iter().enumerate() {
        let at = list_item_line(text, key, n);
        parsed.push(parse_located(transition, at, "transitions", path)?);
    }
    let either = transitions
        .iter()
        .map(|t| format!("({})", t.trim()))
        .collect::<Vec<_>>()
        .join(" || ");
    let either = parse_located(&either, Some((key, 0)), "transitions", path)?;
    Ok((either, parsed))
}

/// The line of the `item`-th entry of the list under the key on line `key` (1-based), and the
/// column its value starts at.
fn list_item_line(text: &str, key: usize, item: usize) -> Option<(usize, usize)> {
    let indent = |line: &str| line.len() - line.trim_start().len();
    let key_indent = indent(text.lines().nth(key.checked_sub(1)?)?);
    text.lines()
        .enumerate()
        .skip(key)
        .take_while(|(_, line)| line.trim().is_empty() || indent(line) > key_indent)
        .filter(|(_, line)| line.trim_start().starts_with("- "))
        .nth(item)
        .map(|(n, line)| {
            let value = line.trim_start()[2..].trim_start();
            let quoted = usize::from(value.starts_with(['"', '\'']));
            (
                n + 1,
                line.chars().count() - value.chars().count() + 1 + quoted,
            )
        })
}

fn surface(spec: Option<serde_yaml::Value>) -> Result<Surface, String> {
    match spec {
        None => Ok(Surface::everywhere()),
        Some(value) => serde_yaml::from_value(value)
            .map_err(|err| format!("the surface is not a URL glob or {{url, signature}}: {err}")),
    }
}

fn parse_predicate(
    text: &str,
    key: &str,
    index: usize,
    source: &str,
    path: &Path,
) -> Result<Predicate, InvariantError> {
    parse_located(source, nth_key_line(text, key, index), key, path)
}

/// Parses a predicate whose value starts at `at` (line, column) in the file.
fn parse_located(
    source: &str,
    at: Option<(usize, usize)>,
    key: &str,
    path: &Path,
) -> Result<Predicate, InvariantError> {
    Predicate::parse(source).map_err(
        |PredicateError {
             column,
             message,
             hint,
         }| {
            let (line, value_column) = at.unwrap_or((0, 0));
            InvariantError {
                path: path.to_owned(),
                line,
                column: if line > 0 && column > 0 && value_column > 0 {
                    value_column + column - 1
                } else {
                    0
                },
                message: format!("{key}: {message}"),
                hint,
            }
        },
    )
}

impl InvariantError {
    fn at(path: &Path, line: usize, column: usize, message: String, hint: &str) -> Self {
        InvariantError {
            path: path.to_owned(),
            line,
            column,
            message,
            hint: hint.to_owned(),
        }
    }

    /// The error placed on `line` when it knows no line of its own.
    fn or_line(mut self, line: usize) -> Self {
        if self.line == 0 {
            self.line = line;
        }
        self
    }
}

/// The line of the `index`-th `key:` of the file's items, and the column its value starts at
/// (after an opening quote).
fn nth_key_line(text: &str, key: &str, index: usize) -> Option<(usize, usize)> {
    let prefix = format!("{key}:");
    text.lines()
        .enumerate()
        .filter_map(|(n, line)| {
            let trimmed = line.trim_start();
            let item = trimmed.strip_prefix("- ").unwrap_or(trimmed);
            let rest = item.strip_prefix(&prefix)?;
            let value = rest.trim_start();
            let quoted = usize::from(value.starts_with(['"', '\'']));
            let column = line.chars().count() - value.chars().count() + 1 + quoted;
            Some((n + 1, column))
        })
        .nth(index)
}

fn is_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
