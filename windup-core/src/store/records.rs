//! What the store keeps, as plain data: what a caller hands in (`New*`) and what it reads back.

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

use super::{FindingId, RunId};

/// An enum stored as one of a few words: `as_str`, `Display`, and SQLite conversions that
/// refuse any other word (the schema's CHECK constraints refuse them too).
macro_rules! stored_words {
    ($name:ident { $($variant:ident => $word:literal),+ $(,)? }) => {
        impl $name {
            /// Every value, in order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The word the store and the dashboard use.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }

            /// The value a word stands for.
            pub fn from_word(word: &str) -> Option<$name> {
                match word {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                Ok(ToSqlOutput::from(self.as_str()))
            }
        }

        impl FromSql for $name {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                let word = value.as_str()?;
                $name::from_word(word).ok_or_else(|| {
                    FromSqlError::Other(
                        format!("`{word}` is not a {}", stringify!($name)).into(),
                    )
                })
            }
        }
    };
}

/// The phase an audit run is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    Explore,
    Hypothesize,
    Attack,
    Report,
}

stored_words!(Phase {
    Explore => "explore",
    Hypothesize => "hypothesize",
    Attack => "attack",
    Report => "report",
});

/// Where an audit run stands: running, or how it ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RunStatus {
    /// Waiting for its turn (a server runs a few audits at a time).
    Queued,
    Running,
    /// It finished its work.
    Done,
    /// Someone stopped it.
    Stopped,
    /// Its process went away without finishing it (a crash, a kill, a power cut).
    Interrupted,
    /// It ended on an error.
    Failed,
}

stored_words!(RunStatus {
    Queued => "queued",
    Running => "running",
    Done => "done",
    Stopped => "stopped",
    Interrupted => "interrupted",
    Failed => "failed",
});

/// What a generated regression test is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Framework {
    /// A Windup scenario with a pinned plan.
    Windup,
    /// A Playwright spec rendered from the same action log.
    Playwright,
}

stored_words!(Framework {
    Windup => "windup",
    Playwright => "playwright",
});

/// A run to start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRun {
    pub target_url: String,
    /// The seed of the run's random walks, so that it can be run again.
    pub seed: u64,
    /// The run's budgets, as JSON.
    pub budget_json: String,
    /// When it started, RFC 3339.
    pub started_at: String,
}

/// A finding to record. Fields ending in `_json` hold JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewFinding {
    pub invariant_id: String,
    pub severity: String,
    pub title: String,
    pub expected: String,
    pub actual: String,
    pub impact: String,
    /// The steps that reproduce it.
    pub steps_json: String,
    pub screenshots_json: String,
    pub action_log_json: String,
    /// What makes two findings the same: one run records a fingerprint once.
    pub fingerprint: String,
}

/// A regression test generated for a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTest {
    pub filename: String,
    pub code: String,
    pub framework: Framework,
}

/// One event of a run's stream, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Its place in the run's stream: 1, 2, 3, … with no gap.
    pub seq: u64,
    /// The event's name (its `event` tag).
    pub name: String,
    /// The event, as JSON.
    pub json: String,
    /// When the store received it, RFC 3339 (UTC).
    pub at: String,
}

/// A run, as a list of runs shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSummary {
    pub id: RunId,
    pub target_url: String,
    pub status: RunStatus,
    pub phase: Phase,
    pub started_at: String,
    /// How long it ran, once finished (not known for a run that was interrupted).
    pub runtime_ms: Option<u64>,
    /// How many findings it recorded.
    pub findings: usize,
    /// How many events its stream holds: the `seq` of the last one.
    pub events: u64,
    pub seed: u64,
}

/// A run with everything it found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub summary: RunSummary,
    /// The invariants it checked, as JSON, once set.
    pub invariants_json: Option<String>,
    pub budget_json: String,
    /// Its findings, in the order they were recorded.
    pub findings: Vec<Finding>,
    /// The tests generated for its findings, by finding, then framework.
    pub tests: Vec<Test>,
}

/// A recorded finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub id: FindingId,
    pub run: RunId,
    pub invariant_id: String,
    pub severity: String,
    pub title: String,
    pub expected: String,
    pub actual: String,
    pub impact: String,
    pub steps_json: String,
    pub screenshots_json: String,
    pub action_log_json: String,
    pub fingerprint: String,
}

/// A generated test of a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Test {
    pub finding: FindingId,
    pub filename: String,
    pub code: String,
    pub framework: Framework,
}
