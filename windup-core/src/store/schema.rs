//! Opening a store's file: the connection's settings, and the schema, created or checked.

use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};

use super::StoreError;

/// The schema this build reads and writes, kept in `PRAGMA user_version`.
pub(super) const SCHEMA_VERSION: i64 = 2;

/// `PRAGMA application_id` of an audit store ("WDUP"), so another program's SQLite file is
/// told apart from ours.
const APPLICATION_ID: i64 = 0x5744_5550;

/// How long a statement waits for another connection's write lock before it fails as busy.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The first run's number: `#A-1001`.
pub(super) const FIRST_RUN: i64 = 1001;

/// Version 2 (version 1 without the `queued` status). Ids are integers (`#A-<runs.number>`, `#F-<findings.number>`), AUTOINCREMENT so
/// that no number is ever given twice; the seed is a u64 kept as the i64 of the same bits.
pub(super) const SCHEMA: &str = "
CREATE TABLE runs (
    number          INTEGER PRIMARY KEY AUTOINCREMENT,
    target_url      TEXT NOT NULL,
    seed            INTEGER NOT NULL,
    budget_json     TEXT NOT NULL,
    invariants_json TEXT,
    status          TEXT NOT NULL
        CHECK (status IN ('queued', 'running', 'done', 'stopped', 'interrupted', 'failed')),
    phase           TEXT NOT NULL
        CHECK (phase IN ('explore', 'hypothesize', 'attack', 'report')),
    started_at      TEXT NOT NULL,
    runtime_ms      INTEGER,
    last_seq        INTEGER NOT NULL DEFAULT 0,
    owner_pid       INTEGER NOT NULL,
    owner_token     TEXT NOT NULL
);
CREATE INDEX runs_owned ON runs (owner_token) WHERE status IN ('queued', 'running');
CREATE TABLE events (
    run  INTEGER NOT NULL REFERENCES runs (number),
    seq  INTEGER NOT NULL,
    name TEXT NOT NULL,
    json TEXT NOT NULL,
    at   TEXT NOT NULL,
    PRIMARY KEY (run, seq)
) WITHOUT ROWID;
CREATE TABLE findings (
    number           INTEGER PRIMARY KEY AUTOINCREMENT,
    run              INTEGER NOT NULL REFERENCES runs (number),
    invariant_id     TEXT NOT NULL,
    severity         TEXT NOT NULL,
    title            TEXT NOT NULL,
    expected         TEXT NOT NULL,
    actual           TEXT NOT NULL,
    impact           TEXT NOT NULL,
    steps_json       TEXT NOT NULL,
    screenshots_json TEXT NOT NULL,
    action_log_json  TEXT NOT NULL,
    fingerprint      TEXT NOT NULL,
    UNIQUE (run, fingerprint)
);
CREATE TABLE tests (
    finding   INTEGER NOT NULL REFERENCES findings (number),
    framework TEXT NOT NULL CHECK (framework IN ('windup', 'playwright')),
    filename  TEXT NOT NULL,
    code      TEXT NOT NULL,
    PRIMARY KEY (finding, framework)
) WITHOUT ROWID;
";

/// Version 1 to 2: `runs` gains the `queued` status. A CHECK constraint cannot be altered, so
/// the table is made anew and filled (SQLite's documented way), foreign keys off meanwhile.
const MIGRATE_1_TO_2: &str = "
CREATE TABLE runs_v2 (
    number          INTEGER PRIMARY KEY AUTOINCREMENT,
    target_url      TEXT NOT NULL,
    seed            INTEGER NOT NULL,
    budget_json     TEXT NOT NULL,
    invariants_json TEXT,
    status          TEXT NOT NULL
        CHECK (status IN ('queued', 'running', 'done', 'stopped', 'interrupted', 'failed')),
    phase           TEXT NOT NULL
        CHECK (phase IN ('explore', 'hypothesize', 'attack', 'report')),
    started_at      TEXT NOT NULL,
    runtime_ms      INTEGER,
    last_seq        INTEGER NOT NULL DEFAULT 0,
    owner_pid       INTEGER NOT NULL,
    owner_token     TEXT NOT NULL
);
INSERT INTO runs_v2 SELECT number, target_url, seed, budget_json, invariants_json, status, phase,
    started_at, runtime_ms, last_seq, owner_pid, owner_token FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v2 RENAME TO runs;
CREATE INDEX runs_owned ON runs (owner_token) WHERE status IN ('queued', 'running');
";

/// Opens the store's file, creating it and its schema when new, and sets the connection up:
/// WAL (readers never wait for the writer), `synchronous=NORMAL` (a commit survives a killed
/// process; only a power cut may lose the last ones, never consistency), the busy timeout,
/// foreign keys.
pub(super) fn connect(path: &Path) -> Result<Connection, StoreError> {
    let sql = |action| move |err| StoreError::sql(path, action, err);
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).map_err(|err| open_error(path, err))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sql("set up"))?;
    // Before changing anything in the file: is it ours, and a version this build knows?
    check_identity(&conn, path)?;
    use_wal(&conn, path)?;
    conn.pragma_update(None, "synchronous", "NORMAL")
        .map_err(sql("set up"))?;
    // Foreign keys are off until the schema is made or migrated: a migration rebuilds tables.
    // (The bundled SQLite turns them on by default.)
    conn.pragma_update(None, "foreign_keys", false)
        .map_err(sql("set up"))?;
    create_schema(&mut conn, path)?;
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(sql("set up"))?;
    Ok(conn)
}

/// A file SQLite cannot open at all (a directory, no permission).
fn open_error(path: &Path, err: rusqlite::Error) -> StoreError {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => {
            StoreError::sql(path, "open the store", err)
        }
        _ => StoreError::Open {
            path: path.to_owned(),
            source: std::io::Error::other(err),
        },
    }
}

/// Fails unless the file is empty, or an audit store of a schema this build reads.
fn check_identity(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let sql = |err| StoreError::sql(path, "read the store's header", err);
    // One statement, so one snapshot: another process may be creating the store right now.
    let (application_id, version, tables): (i64, i64, i64) = conn
        .query_row(
            "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_master) \
             FROM pragma_application_id a, pragma_user_version v",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .map_err(sql)?;
    let not_ours = |why: &str| StoreError::NotAStore {
        path: path.to_owned(),
        why: why.to_owned(),
    };
    if application_id != APPLICATION_ID && (application_id != 0 || tables > 0) {
        return Err(not_ours("a SQLite database of another program"));
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    Ok(())
}

/// Switches the file to WAL once (the mode is kept in the file). Several processes opening a
/// new store at once may find the switch busy: it is retried until the busy timeout.
fn use_wal(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    loop {
        let mode = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0));
        match mode {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(StoreError::Open {
                    path: path.to_owned(),
                    source: std::io::Error::other(format!(
                        "its file system cannot hold a WAL journal (SQLite kept `{mode}`); \
                         put the store on a local disk"
                    )),
                });
            }
            Err(err)
                if matches!(err.sqlite_error_code(), Some(ErrorCode::DatabaseBusy))
                    && Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(err) => return Err(StoreError::sql(path, "switch to WAL", err)),
        }
    }
}

/// Creates the schema in a new store, in one transaction that also reads the version, so
/// that of several processes creating one store at once exactly one does.
fn create_schema(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let sql = |err| StoreError::sql(path, "create the schema", err);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(sql)?;
    let version: i64 = tx
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(sql)?;
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    if version > SCHEMA_VERSION {
        return Err(StoreError::NewerSchema {
            path: path.to_owned(),
            found: version,
            supported: SCHEMA_VERSION,
        });
    }
    if version == 1 {
        // The numbers given so far, deleted runs' too, so that none is given again.
        let given: i64 = tx
            .query_row(
                "SELECT seq FROM sqlite_sequence WHERE name = 'runs'",
                [],
                |row| row.get(0),
            )
            .optional()
            .map_err(sql)?
            .unwrap_or(FIRST_RUN - 1);
        tx.execute_batch(MIGRATE_1_TO_2).map_err(sql)?;
        tx.execute(
            "UPDATE sqlite_sequence SET seq = max(seq, ?1) WHERE name = 'runs'",
            [given],
        )
        .map_err(sql)?;
        tx.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT 'runs', ?1 \
             WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'runs')",
            [given],
        )
        .map_err(sql)?;
    } else {
        tx.execute_batch(SCHEMA).map_err(sql)?;
        // AUTOINCREMENT continues from the largest number it has given: the first run is 1001.
        tx.execute(
            "INSERT INTO sqlite_sequence (name, seq) VALUES ('runs', ?1)",
            [FIRST_RUN - 1],
        )
        .map_err(sql)?;
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(sql)?;
    }
    let broken: Option<String> = tx
        .query_row(
            "SELECT \"table\" FROM pragma_foreign_key_check",
            [],
            |row| row.get(0),
        )
        .optional()
        .map_err(sql)?;
    if let Some(table) = broken {
        return Err(StoreError::Corrupt {
            path: path.to_owned(),
            detail: format!("a row of `{table}` refers to a run that is not there"),
        });
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(sql)?;
    tx.commit().map_err(sql)
}

/// `PRAGMA integrity_check`: `None` when the file is whole, else what SQLite found.
pub(super) fn integrity(conn: &Connection, path: &Path) -> Result<Option<String>, StoreError> {
    let mut problems = Vec::new();
    conn.pragma_query(None, "integrity_check", |row| {
        problems.push(row.get::<_, String>(0)?);
        Ok(())
    })
    .map_err(|err| StoreError::sql(path, "check the store's integrity", err))?;
    let whole = problems.len() == 1 && problems[0] == "ok";
    Ok((!whole).then(|| problems.join("; ")))
}

/// Whether a row exists for `sql` with `param`.
pub(super) fn exists(conn: &Connection, sql: &str, param: i64) -> Result<bool, rusqlite::Error> {
    conn.query_row(sql, [param], |_| Ok(()))
        .optional()
        .map(|found| found.is_some())
}
