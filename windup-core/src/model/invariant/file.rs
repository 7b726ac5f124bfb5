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
    predicate: String,
    #[serde(default)]
    severity: Option<Severity>,
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
    let error = |line, column, message: String, hint: &str| InvariantError {
        path: path.to_owned(),
        line,
        column,
        message,
        hint: hint.to_owned(),
    };
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
    // `when` is optional: the n-th one written belongs to the n-th item that has one.
    let mut whens = 0;
    for (index, item) in raw.invariants.into_iter().enumerate() {
        let id_line = nth_key_line(text, "id", index).unwrap_or((0, 0)).0;
        if !is_id(&item.id) {
            return Err(error(
                id_line,
                0,
                format!("`{}` is not an invariant id", item.id),
                "use letters, digits, `-`, `_` and `.`, starting with a letter or digit",
            ));
        }
        let surface = surface(item.surface)
            .map_err(|message| error(id_line, 0, message, "write a glob such as /cart or /**"))?;
        let predicate = parse_predicate(text, "predicate", index, &item.predicate, path)?;
        let when = match &item.when {
            Some(when) => {
                whens += 1;
                Some(parse_predicate(text, "when", whens - 1, when, path)?)
            }
            None => None,
        };
        invariants.push(Invariant {
            id: item.id,
            statement: item.statement,
            surface,
            when,
            predicate,
            source: Source::User,
            severity: item.severity.unwrap_or_default(),
        });
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
    Predicate::parse(source).map_err(
        |PredicateError {
             column,
             message,
             hint,
         }| {
            let (line, value_column) = nth_key_line(text, key, index).unwrap_or((0, 0));
            InvariantError {
                path: path.to_owned(),
                line,
                column: if line > 0 && column > 0 {
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
