use std::io;
use std::path::{Path, PathBuf};

use rusqlite::ErrorCode;

/// Why the audit store could not answer. Every message names the store's file and says what
/// to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store's directory or file cannot be created or opened.
    #[error(
        "cannot open the audit store at {path}: {source}\n  hint: check that its directory exists or can be created, and that the file is writable",
        path = .path.display()
    )]
    Open {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The file is not an audit store: not SQLite at all, or another program's database.
    #[error(
        "{path} is not a Windup audit store ({why})\n  hint: point Windup at its audit store, or move this file aside: a new, empty store is created in its place",
        path = .path.display()
    )]
    NotAStore { path: PathBuf, why: String },
    /// The file is an audit store, but damaged.
    #[error(
        "the audit store at {path} is damaged: {detail}\n  hint: move it aside together with its -wal and -shm files (a new store is created in its place); `sqlite3 {path} .recover` may save what it held",
        path = .path.display()
    )]
    Corrupt { path: PathBuf, detail: String },
    /// The store was written by a newer Windup, with a schema this build does not know.
    #[error(
        "the audit store at {path} has schema version {found}; this Windup reads versions up to {supported}\n  hint: upgrade Windup, or point this one at another store",
        path = .path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// Another process held the store's write lock for longer than the busy timeout.
    #[error(
        "the audit store at {path} stayed locked by another process while trying to {action}\n  hint: another audit or dashboard is writing to it; let it finish and try again",
        path = .path.display()
    )]
    Busy { path: PathBuf, action: &'static str },
    /// Reading or writing the store failed for another reason.
    #[error(
        "cannot {action} in the audit store at {path}: {source}\n  hint: check free disk space and the file's permissions",
        path = .path.display()
    )]
    Sql {
        path: PathBuf,
        action: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    /// The lock that marks a run's process as alive cannot be created.
    #[error(
        "cannot create the owner lock {lock} of a new run in the audit store at {path}: {source}\n  hint: the directory beside the store must be writable",
        path = .path.display(), lock = .lock.display()
    )]
    Owner {
        path: PathBuf,
        lock: PathBuf,
        #[source]
        source: io::Error,
    },
    /// No run with that id in this store.
    #[error(
        "the audit store at {path} has no run {run}\n  hint: list the store's runs to find its id",
        path = .path.display()
    )]
    UnknownRun { path: PathBuf, run: String },
    /// No finding with that id in this store.
    #[error(
        "the audit store at {path} has no finding {finding}\n  hint: a finding's id comes from the run report that lists it",
        path = .path.display()
    )]
    UnknownFinding { path: PathBuf, finding: String },
    /// A value to store is not what its field holds (JSON text, an RFC 3339 time).
    #[error(
        "not stored in the audit store at {path}: {what} is not {expected}: {detail}\n  hint: this is a bug in the caller: pass {expected}",
        path = .path.display()
    )]
    Invalid {
        path: PathBuf,
        what: String,
        expected: &'static str,
        detail: String,
    },
    /// A run cannot be finished as still running.
    #[error(
        "cannot finish run {run} in the audit store at {path} as `running`\n  hint: finish it as done, stopped, interrupted or failed",
        path = .path.display()
    )]
    FinishedAsRunning { path: PathBuf, run: String },
    /// Text that is not a run or finding id.
    #[error(
        "`{text}` is not a {kind} id\n  hint: a {kind} id looks like {example} (the `#` may be left out)"
    )]
    BadId {
        text: String,
        kind: &'static str,
        example: &'static str,
    },
}

impl StoreError {
    /// Classifies a SQLite error of `action` on the store at `path`: a busy lock, a damaged
    /// file and a file that is not a database each get their own variant and hint.
    pub(super) fn sql(path: &Path, action: &'static str, source: rusqlite::Error) -> StoreError {
        let path = path.to_owned();
        match source.sqlite_error_code() {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                StoreError::Busy { path, action }
            }
            Some(ErrorCode::DatabaseCorrupt) => StoreError::Corrupt {
                path,
                detail: source.to_string(),
            },
            Some(ErrorCode::NotADatabase) => StoreError::NotAStore {
                path,
                why: source.to_string(),
            },
            _ => match source {
                // A stored value of the wrong type or range: written by hand or damaged.
                rusqlite::Error::FromSqlConversionFailure(..)
                | rusqlite::Error::IntegralValueOutOfRange(..)
                | rusqlite::Error::InvalidColumnType(..)
                | rusqlite::Error::Utf8Error(..) => StoreError::Corrupt {
                    path,
                    detail: format!("an unreadable value while trying to {action}: {source}"),
                },
                source => StoreError::Sql {
                    path,
                    action,
                    source,
                },
            },
        }
    }
}
