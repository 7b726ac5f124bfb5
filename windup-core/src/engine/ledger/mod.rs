//! The run ledger: one record per scenario run, listing every model call it made.
//!
//! Records are appended to `<root>/.windup/ledger.jsonl`, one JSON object per line. The
//! file is append-only and safe to share between processes (nextest runs every test in its
//! own process): each record is written with one `write` of the whole line, on a file opened
//! with `O_APPEND`, under an exclusive `flock`. Reading takes a shared lock, skips (and
//! counts) any line that is not a whole record — a line cut short by a killed writer, or one
//! edited by hand — and never fails on content.
//!
//! Costs are not stored: a record keeps token counts only, and [`costs`] prices each call
//! from a dated [`PriceTable`] at the date of its run, so history stays right when prices
//! change and a corrected price corrects every report.
//!
//! A record has no free-form text: `failure_class` and each call's `purpose` must be short
//! class names (`not_actionable`, `plan`), so an error message — and a secret it might
//! quote — can never reach the ledger. [`Ledger::append`] refuses anything else.
//!
//! # Prices
//!
//! [`PriceTable::builtin`] knows a few current models of OpenAI, Gemini and Anthropic. A
//! project adds or corrects prices in `windup-prices.toml` next to `windup.toml`
//! ([`PriceTable::for_project`]); it is committed, unlike `.windup/`, so a team shares one
//! price list:
//!
//! ```toml
//! [[prices]]
//! provider = "openai"
//! model = "gpt-5-mini"
//! effective_from = 2025-08-07   # a TOML date, or the string "2025-08-07"
//! input = 0.25                  # USD per million input tokens
//! output = 2.0                  # USD per million output tokens
//!
//! [[prices]]                    # a local model behind an OpenAI-compatible server is free
//! provider = "openai-compatible"
//! model = "llama3.1:8b"
//! effective_from = 2024-01-01
//! input = 0
//! output = 0
//! ```
//!
//! A model the project lists replaces every built-in entry of that provider and model, so
//! the project's list is the whole truth for it. Several entries of one model with different
//! dates record a price change: a call is priced by the entry in effect on its run's date
//! (UTC). A dated snapshot name (`claude-sonnet-4-5-20250929`, `gpt-4o-mini-2024-07-18`) is
//! priced as its model when the table has no entry for the snapshot itself. A call with no
//! price is counted and named in the report, never costed at $0.

mod prices;
mod report;
#[cfg(test)]
mod tests;

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime, UtcOffset};

pub use prices::{PRICES_FILE, Price, PriceEntry, PriceTable};
pub use report::{CostReport, CostRow, GroupBy, costs};

/// The ledger's place under the project root.
pub const FILE: &str = ".windup/ledger.jsonl";

/// The longest class name (`failure_class`, `purpose`) a record may carry.
const MAX_CLASS_LEN: usize = 40;
/// The longest provider or model name a record may carry.
const MAX_NAME_LEN: usize = 128;

/// One run of one scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Unique across processes; see [`new_run_id`].
    pub run_id: String,
    pub scenario_id: String,
    /// RFC 3339 in UTC; see [`started_at`]. Its date picks the prices of the run's calls.
    pub started_at: String,
    pub duration_ms: u64,
    pub outcome: Outcome,
    /// A short class name (`not_actionable`, `unmet`, `unresolved`, `browser`, `budget`),
    /// only on a failed run; never a message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<String>,
    pub cache: CacheOutcome,
    /// Which re-plan happened; only when `cache` is `replanned`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replan: Option<Replan>,
    #[serde(default)]
    pub llm_calls: Vec<LlmCall>,
    /// Every page the run reached, with its structural signature, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<crate::engine::signature::PageVisit>,
    /// `summary` for the model calls made after a run (a summary, a fix suggestion): a record
    /// that costs, but is not a run.
    #[serde(default, skip_serializing_if = "RecordKind::is_run")]
    pub kind: RecordKind,
}

/// What a ledger record is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecordKind {
    /// A scenario's run.
    #[default]
    Run,
    /// Model calls after a run, about it.
    Summary,
    /// The model calls of an audit (`cargo windup audit --model`): costs, not a scenario run.
    Audit,
    /// The model call of `cargo windup new`: a scenario drafted, not run.
    New,
    /// The model assist of `cargo windup scan`: a source file's routes read.
    Scan,
    /// A run of `cargo windup bench`: it costs, but its plan was thrown away, so it is not one
    /// of the project's runs.
    Bench,
}

impl RecordKind {
    fn is_run(&self) -> bool {
        *self == RecordKind::Run
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    Failed,
}

/// What the plan cache did for the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheOutcome {
    /// A cached plan replayed.
    Hit,
    /// No plan: the scenario was planned.
    Miss,
    /// A cached plan failed and the scenario was planned again.
    Replanned,
}

/// How a failed replay was planned again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Replan {
    /// The verified prefix was kept; planning restarted at action `index` (0-based).
    FromStep { index: usize },
    /// The whole scenario was planned again.
    Full,
}

/// One model call, as the provider reported its usage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmCall {
    /// A short class name: `plan`, `replan`, `summary`, `suggest`, …
    pub purpose: String,
    pub provider: String,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub latency_ms: u64,
    /// When the call repeated an earlier one: after a failure in transit, or after an answer
    /// that was not a working plan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryKind>,
    /// Why the call gave no usable plan, as a class (`rate_limited`, `server_error`,
    /// `timeout`, `connection`, `bad_response`, `invalid_plan`, `plan_failed`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

/// Which of the two bounded retry levels a call belonged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RetryKind {
    /// The same request again, after a 429, a 5xx, a timeout or a dropped connection.
    Transient,
    /// A new request carrying the problems of the previous answer.
    Semantic,
}

impl RunRecord {
    /// The UTC date the run started on, when `started_at` is RFC 3339.
    pub fn started_on(&self) -> Option<Date> {
        OffsetDateTime::parse(&self.started_at, &Rfc3339)
            .ok()
            .map(|at| at.to_offset(UtcOffset::UTC).date())
    }

    /// Checks what [`Ledger::append`] requires.
    pub fn validate(&self) -> Result<(), RecordProblem> {
        if self.run_id.is_empty() || self.run_id.chars().any(char::is_control) {
            return Err(RecordProblem::BadId("run_id"));
        }
        if self.scenario_id.is_empty() || self.scenario_id.chars().any(char::is_control) {
            return Err(RecordProblem::BadId("scenario_id"));
        }
        if self.started_on().is_none() {
            return Err(RecordProblem::BadTime(self.started_at.clone()));
        }
        if let Some(class) = &self.failure_class {
            if self.outcome == Outcome::Passed {
                return Err(RecordProblem::ClassOnPass);
            }
            check_class("failure_class", class)?;
        }
        if self.replan.is_some() && self.cache != CacheOutcome::Replanned {
            return Err(RecordProblem::ReplanWithoutReplanned);
        }
        for call in &self.llm_calls {
            check_class("purpose", &call.purpose)?;
            check_name("provider", &call.provider)?;
            check_name("model", &call.model)?;
            if let Some(failure) = &call.failure {
                check_class("failure", failure)?;
            }
        }
        Ok(())
    }
}

/// Why a record may not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordProblem {
    #[error("`{0}` must be non-empty, without control characters")]
    BadId(&'static str),
    #[error("`started_at` {0:?} is not an RFC 3339 time")]
    BadTime(String),
    #[error("a passed run has no `failure_class`")]
    ClassOnPass,
    #[error("`replan` is only for a run whose cache outcome is `replanned`")]
    ReplanWithoutReplanned,
    #[error(
        "`{0}` must be a class name such as `not_actionable` (a-z, 0-9, _; at most \
         {MAX_CLASS_LEN} characters), not free text"
    )]
    NotAClass(&'static str),
    #[error("`{0}` must be a name without spaces, at most {MAX_NAME_LEN} characters")]
    NotAName(&'static str),
    #[error("it does not serialize: {0}")]
    Unserializable(String),
}

/// A class name: lowercase ASCII letters, digits and `_`, short.
fn check_class(field: &'static str, value: &str) -> Result<(), RecordProblem> {
    let ok = !value.is_empty()
        && value.len() <= MAX_CLASS_LEN
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(RecordProblem::NotAClass(field))
    }
}

/// A provider or model name: printable, no spaces, bounded.
fn check_name(field: &'static str, value: &str) -> Result<(), RecordProblem> {
    let ok = !value.is_empty()
        && value.len() <= MAX_NAME_LEN
        && !value.chars().any(|c| c.is_whitespace() || c.is_control());
    if ok {
        Ok(())
    } else {
        Err(RecordProblem::NotAName(field))
    }
}

/// A duration in whole milliseconds, as records and reports keep it.
pub fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `at` as a record's `started_at`: RFC 3339 in UTC.
pub fn started_at(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(&Rfc3339)
        .unwrap_or_else(|_| at.unix_timestamp().to_string())
}

/// A run id unique across processes: the time in nanoseconds, the process id and a
/// per-process counter (`1736942400123456789-4242-0`).
pub fn new_run_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let count = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{nanos}-{}-{count}", std::process::id())
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    #[error("cannot {action} the ledger {path}: {source}", path = .path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("run {run_id} of scenario {scenario_id} was not recorded: {problem}")]
    InvalidRecord {
        run_id: String,
        scenario_id: String,
        problem: RecordProblem,
    },
    #[error(
        "{origin}, line {line}: {message}; a [[prices]] entry has provider, model, \
         effective_from (YYYY-MM-DD), input and output (USD per million tokens)"
    )]
    Prices {
        origin: String,
        line: usize,
        message: String,
    },
    #[error("cannot read the price table {path}: {source}", path = .path.display())]
    PricesIo { path: PathBuf, source: io::Error },
}

/// What [`Ledger::read`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LedgerRead {
    /// The whole records, in file order.
    pub records: Vec<RunRecord>,
    /// Lines that were not a whole record (cut short, corrupt, or undated); not fatal.
    pub skipped_lines: usize,
}

/// The append-only run ledger of one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger {
    path: PathBuf,
}

impl Ledger {
    /// The ledger of the project at `root`: `root/.windup/ledger.jsonl`.
    pub fn new(root: &Path) -> Self {
        Ledger::at(&root.join(FILE))
    }

    /// A ledger in the file at `path`.
    pub fn at(path: &Path) -> Self {
        Ledger {
            path: path.to_owned(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `record` as one line, atomically with respect to other writers.
    pub fn append(&self, record: &RunRecord) -> Result<(), LedgerError> {
        let invalid = |problem: RecordProblem| LedgerError::InvalidRecord {
            run_id: record.run_id.clone(),
            scenario_id: record.scenario_id.clone(),
            problem,
        };
        record.validate().map_err(invalid)?;
        let mut line = serde_json::to_vec(record)
            .map_err(|err| invalid(RecordProblem::Unserializable(err.to_string())))?;
        line.push(b'\n');

        let io_error = |action, source| LedgerError::Io {
            action,
            path: self.path.clone(),
            source,
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| io_error("create the directory of", e))?;
        }
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&self.path)
            .map_err(|e| io_error("open", e))?;
        let lock = crate::sys::Held::exclusive(&file).map_err(|e| io_error("lock", e))?;
        // A writer killed mid-line left no newline: start a fresh line so only its record is lost.
        let len = file.metadata().map_err(|e| io_error("inspect", e))?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            file.read_exact_at(&mut last, len - 1)
                .map_err(|e| io_error("read", e))?;
            if last[0] != b'\n' {
                line.insert(0, b'\n');
            }
        }
        (&file)
            .write_all(&line)
            .map_err(|e| io_error("append to", e))?;
        drop(lock);
        Ok(())
    }

    /// Every whole record, in file order; a missing file is an empty ledger.
    pub fn read(&self) -> Result<LedgerRead, LedgerError> {
        let io_error = |action, source| LedgerError::Io {
            action,
            path: self.path.clone(),
            source,
        };
        let file = match File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(LedgerRead::default()),
            Err(err) => return Err(io_error("open", err)),
        };
        // A shared lock: never read a line while a writer is halfway through it.
        let lock = crate::sys::Held::shared(&file).map_err(|e| io_error("lock", e))?;
        let mut read = LedgerRead::default();
        let mut reader = BufReader::new(&file);
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .map_err(|e| io_error("read", e))?;
            if n == 0 {
                break;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<RunRecord>(&line) {
                Ok(record) if record.started_on().is_some() => read.records.push(record),
                _ => read.skipped_lines += 1,
            }
        }
        drop(lock);
        Ok(read)
    }
}
