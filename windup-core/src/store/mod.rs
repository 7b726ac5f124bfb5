//! The audit store: runs, their findings, the tests generated for them, and each run's event
//! stream, in one SQLite file, so that a dashboard can be rebuilt from the store alone after
//! a refresh or a restart.
//!
//! The store keeps plain data and JSON text; what the JSON means is the audit's business.
//! Many processes may open one store at once: SQLite's WAL lets readers read while one writer
//! writes, and a writer that finds another one busy waits for it (up to a few seconds, then
//! [`StoreError::Busy`]). Every change is one transaction, so a process killed at any moment
//! leaves the file consistent and every change it committed readable.
//!
//! A run's events are numbered 1, 2, 3, … in the order they were stored, with no gap, the
//! number given inside the transaction that stores the event, so concurrent writers never
//! share or skip one. A subscriber that arrives late reads [`AuditStore::events_since`] the
//! last `seq` it has, page by page, then follows the live stream from there.
//!
//! A run stays `running` (or `queued`, from [`AuditStore::queue_run`] until
//! [`AuditStore::start_run`]) until [`AuditStore::finish_run`]. When the process writing it goes
//! away without finishing it, the run becomes `interrupted`: the next time any process opens
//! the store (or calls [`AuditStore::mark_interrupted`]), or at once when the store that
//! created it is dropped. How a gone process is told from a live one is in `owner.rs`.

mod error;
mod ids;
mod owner;
mod records;
mod schema;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub use error::StoreError;
pub use ids::{FindingId, RunId};
use owner::{Liveness, Owner};
pub use records::{
    Finding, Framework, NewFinding, NewRun, NewTest, Phase, RunReport, RunStatus, RunSummary,
    StoredEvent, Test,
};

/// An open audit store. It can be shared between threads; each process opens its own.
///
/// The runs it creates belong to it: dropping it marks those still running `interrupted`.
#[derive(Debug)]
pub struct AuditStore {
    path: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Debug)]
struct Inner {
    conn: Connection,
    /// Taken when this store creates its first run.
    owner: Option<Owner>,
}

/// The columns of a [`RunSummary`], read by [`summary_of`].
const SUMMARY: &str = "r.number, r.target_url, r.status, r.phase, r.started_at, r.runtime_ms, \
     (SELECT count(*) FROM findings f WHERE f.run = r.number), r.last_seq, r.seed";

/// The columns of a [`Finding`], read by [`finding_of`].
const FINDING: &str = "SELECT number, run, invariant_id, severity, title, expected, actual, \
     impact, steps_json, screenshots_json, action_log_json, fingerprint FROM findings";

/// The columns of a [`Test`], read by [`test_of`]; a finding's Windup test first.
const TEST: &str = "SELECT t.finding, t.framework, t.filename, t.code FROM tests t";
const TEST_ORDER: &str = "ORDER BY t.finding, t.framework = 'playwright'";

impl AuditStore {
    /// Opens the store at `path`, creating it (and its directory) when missing, and marks
    /// `interrupted` every run whose process is gone.
    pub fn open(path: &Path) -> Result<AuditStore, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::Open {
                path: path.to_owned(),
                source,
            })?;
        }
        let conn = schema::connect(path)?;
        let store = AuditStore {
            path: path.to_owned(),
            inner: Mutex::new(Inner { conn, owner: None }),
        };
        store.mark_interrupted()?;
        Ok(store)
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Marks `interrupted` every running run whose process is gone, and returns them. A
    /// long-lived reader (a dashboard) calls it now and then; [`AuditStore::open`] calls it.
    pub fn mark_interrupted(&self) -> Result<Vec<RunId>, StoreError> {
        let sql = |err| StoreError::sql(&self.path, "mark interrupted runs", err);
        let inner = self.lock();
        let own = inner.owner.as_ref().map(|owner| owner.token().to_owned());
        let tokens: Vec<String> = inner
            .conn
            .prepare_cached(
                "SELECT DISTINCT owner_token FROM runs WHERE status IN ('queued', 'running')",
            )
            .and_then(|mut stmt| stmt.query_map([], |row| row.get(0))?.collect())
            .map_err(sql)?;
        let dir = owner::owners_dir(&self.path);
        let mut marked = Vec::new();
        for token in tokens
            .into_iter()
            .filter(|token| Some(token) != own.as_ref())
        {
            let Liveness::Gone(held) = owner::check(&dir, &token) else {
                continue;
            };
            let runs: Vec<i64> = inner
                .conn
                .prepare_cached(
                    "UPDATE runs SET status = 'interrupted' \
                     WHERE status IN ('queued', 'running') AND owner_token = ?1 \
                     RETURNING number",
                )
                .and_then(|mut stmt| stmt.query_map([&token], |row| row.get(0))?.collect())
                .map_err(sql)?;
            marked.extend(runs.into_iter().map(RunId));
            // Only now that its runs are marked: the next checker finds no file, and agrees.
            if let Some(held) = held {
                held.remove();
            }
        }
        owner::sweep(&dir);
        marked.sort();
        Ok(marked)
    }

    /// Starts a run: `running`, in the explore phase, owned by this store. Its id is the next
    /// in the store's sequence.
    pub fn create_run(&self, run: &NewRun) -> Result<RunId, StoreError> {
        self.insert_run(run, RunStatus::Running)
    }

    /// Records a run that waits for its turn: `queued`, owned by this store, until
    /// [`AuditStore::start_run`] (or a stop, or the end of this store's process).
    pub fn queue_run(&self, run: &NewRun) -> Result<RunId, StoreError> {
        self.insert_run(run, RunStatus::Queued)
    }

    /// Turns a queued run `running`, owned by this store from now on. False when the run is
    /// no longer queued (it was stopped, or its process went away).
    pub fn start_run(&self, run: &RunId) -> Result<bool, StoreError> {
        let mut inner = self.lock();
        let token = self.owner_token(&mut inner)?;
        let changed = inner
            .conn
            .execute(
                "UPDATE runs SET status = 'running', owner_pid = ?2, owner_token = ?3 \
                 WHERE number = ?1 AND status = 'queued'",
                params![run.0, std::process::id(), token],
            )
            .map_err(|err| StoreError::sql(&self.path, "start a queued run", err))?;
        if changed == 0
            && !run_exists(&inner.conn, run)
                .map_err(|err| StoreError::sql(&self.path, "start a queued run", err))?
        {
            return Err(self.unknown_run(run));
        }
        Ok(changed == 1)
    }

    /// Stops a run that has not started: `stopped`, with no runtime. False when it is not
    /// queued (it started, or ended).
    pub fn stop_queued(&self, run: &RunId) -> Result<bool, StoreError> {
        let changed = self
            .lock()
            .conn
            .execute(
                "UPDATE runs SET status = 'stopped' WHERE number = ?1 AND status = 'queued'",
                [run.0],
            )
            .map_err(|err| StoreError::sql(&self.path, "stop a queued run", err))?;
        Ok(changed == 1)
    }

    /// This store's owner token, taken on first use.
    fn owner_token(&self, inner: &mut Inner) -> Result<String, StoreError> {
        if inner.owner.is_none() {
            let taken = Owner::take(&owner::owners_dir(&self.path));
            inner.owner = Some(taken.map_err(|(lock, source)| StoreError::Owner {
                path: self.path.clone(),
                lock,
                source,
            })?);
        }
        Ok(inner
            .owner
            .as_ref()
            .map_or_else(String::new, |owner| owner.token().to_owned()))
    }

    fn insert_run(&self, run: &NewRun, status: RunStatus) -> Result<RunId, StoreError> {
        self.check_json("the run's budget_json", &run.budget_json)?;
        self.check_time("the run's started_at", &run.started_at)?;
        let mut inner = self.lock();
        let token = self.owner_token(&mut inner)?;
        let number = inner
            .conn
            .query_row(
                "INSERT INTO runs (target_url, seed, budget_json, status, phase, started_at, \
                 owner_pid, owner_token) VALUES (?1, ?2, ?3, ?4, 'explore', ?5, ?6, ?7) \
                 RETURNING number",
                params![
                    run.target_url,
                    i64::from_ne_bytes(run.seed.to_ne_bytes()),
                    run.budget_json,
                    status,
                    run.started_at,
                    std::process::id(),
                    token,
                ],
                |row| row.get(0),
            )
            .map_err(|err| StoreError::sql(&self.path, "create a run", err))?;
        Ok(RunId(number))
    }

    /// Records the phase a run has reached.
    pub fn set_phase(&self, run: &RunId, phase: Phase) -> Result<(), StoreError> {
        self.update_run(
            run,
            "set a run's phase",
            "UPDATE runs SET phase = ?2 WHERE number = ?1",
            &phase,
        )
    }

    /// Records the invariants a run checks, as JSON.
    pub fn set_invariants(&self, run: &RunId, invariants_json: &str) -> Result<(), StoreError> {
        self.check_json("the run's invariants_json", invariants_json)?;
        self.update_run(
            run,
            "set a run's invariants",
            "UPDATE runs SET invariants_json = ?2 WHERE number = ?1",
            &invariants_json,
        )
    }

    /// Ends a run with how it ended and how long it ran.
    pub fn finish_run(
        &self,
        run: &RunId,
        status: RunStatus,
        runtime_ms: u64,
    ) -> Result<(), StoreError> {
        if matches!(status, RunStatus::Running | RunStatus::Queued) {
            return Err(StoreError::FinishedAsRunning {
                path: self.path.clone(),
                run: run.to_string(),
            });
        }
        let changed = self
            .lock()
            .conn
            .execute(
                "UPDATE runs SET status = ?2, runtime_ms = ?3 WHERE number = ?1",
                params![run.0, status, to_i64(runtime_ms)],
            )
            .map_err(|err| StoreError::sql(&self.path, "finish a run", err))?;
        self.known_run(run, changed)
    }

    /// Appends an event to a run's stream and returns its `seq`: 1 for the first, then one
    /// more than the last, whatever other processes append at the same time.
    pub fn append_event(&self, run: &RunId, name: &str, json: &str) -> Result<u64, StoreError> {
        self.check_json(&format!("the `{name}` event"), json)?;
        let at = now();
        let sql = |err| StoreError::sql(&self.path, "append an event", err);
        let mut inner = self.lock();
        let tx = inner
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        let seq: Option<i64> = tx
            .query_row(
                "UPDATE runs SET last_seq = last_seq + 1 WHERE number = ?1 RETURNING last_seq",
                [run.0],
                |row| row.get(0),
            )
            .optional()
            .map_err(sql)?;
        let Some(seq) = seq else {
            return Err(self.unknown_run(run));
        };
        let Some(number) = u64::try_from(seq).ok().filter(|&number| number > 0) else {
            return Err(StoreError::Corrupt {
                path: self.path.clone(),
                detail: format!("run {run} counts {seq} events"),
            });
        };
        tx.execute(
            "INSERT INTO events (run, seq, name, json, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![run.0, seq, name, json, at],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(number)
    }

    /// The events of a run after `after_seq`, in order, at most `limit` of them: from the
    /// start with 0, and on from the last one a reader has.
    pub fn events_since(
        &self,
        run: &RunId,
        after_seq: u64,
        limit: usize,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let sql = |err| StoreError::sql(&self.path, "read a run's events", err);
        let inner = self.lock();
        let events: Vec<StoredEvent> = inner
            .conn
            .prepare_cached(
                "SELECT seq, name, json, at FROM events WHERE run = ?1 AND seq > ?2 \
                 ORDER BY seq LIMIT ?3",
            )
            .and_then(|mut stmt| {
                stmt.query_map(
                    params![run.0, to_i64(after_seq), to_i64(limit as u64)],
                    |row| {
                        Ok(StoredEvent {
                            seq: unsigned(row, 0)?,
                            name: row.get(1)?,
                            json: row.get(2)?,
                            at: row.get(3)?,
                        })
                    },
                )?
                .collect()
            })
            .map_err(sql)?;
        if events.is_empty() && !run_exists(&inner.conn, run).map_err(sql)? {
            return Err(self.unknown_run(run));
        }
        Ok(events)
    }

    /// Records a finding of a run. A finding whose fingerprint the run has already recorded is
    /// not recorded again: its id is returned.
    pub fn add_finding(&self, run: &RunId, finding: &NewFinding) -> Result<FindingId, StoreError> {
        self.check_json("the finding's steps_json", &finding.steps_json)?;
        self.check_json("the finding's screenshots_json", &finding.screenshots_json)?;
        self.check_json("the finding's action_log_json", &finding.action_log_json)?;
        let sql = |err| StoreError::sql(&self.path, "add a finding", err);
        let mut inner = self.lock();
        let tx = inner
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        if !run_exists(&tx, run).map_err(sql)? {
            return Err(self.unknown_run(run));
        }
        // Looked up first, in the same transaction: an INSERT that conflicted would still use
        // up a number, and ids would skip.
        let existing: Option<i64> = tx
            .query_row(
                "SELECT number FROM findings WHERE run = ?1 AND fingerprint = ?2",
                params![run.0, finding.fingerprint],
                |row| row.get(0),
            )
            .optional()
            .map_err(sql)?;
        if let Some(number) = existing {
            return Ok(FindingId(number));
        }
        let f = finding;
        let number = tx
            .query_row(
                "INSERT INTO findings (run, invariant_id, severity, title, expected, actual, \
                 impact, steps_json, screenshots_json, action_log_json, fingerprint) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING number",
                params![
                    run.0,
                    f.invariant_id,
                    f.severity,
                    f.title,
                    f.expected,
                    f.actual,
                    f.impact,
                    f.steps_json,
                    f.screenshots_json,
                    f.action_log_json,
                    f.fingerprint
                ],
                |row| row.get(0),
            )
            .map_err(sql)?;
        tx.commit().map_err(sql)?;
        Ok(FindingId(number))
    }

    /// Records the test generated for a finding in a framework, replacing an earlier one.
    pub fn add_test(&self, finding: &FindingId, test: &NewTest) -> Result<(), StoreError> {
        let sql = |err| StoreError::sql(&self.path, "add a test", err);
        let mut inner = self.lock();
        let tx = inner
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        if !schema::exists(&tx, "SELECT 1 FROM findings WHERE number = ?1", finding.0)
            .map_err(sql)?
        {
            return Err(StoreError::UnknownFinding {
                path: self.path.clone(),
                finding: finding.to_string(),
            });
        }
        tx.execute(
            "INSERT INTO tests (finding, framework, filename, code) VALUES (?1, ?2, ?3, ?4) \
             ON CONFLICT (finding, framework) \
             DO UPDATE SET filename = excluded.filename, code = excluded.code",
            params![finding.0, test.framework, test.filename, test.code],
        )
        .map_err(sql)?;
        tx.commit().map_err(sql)
    }

    /// The tests generated for a finding, its Windup test first.
    pub fn tests_of(&self, finding: &FindingId) -> Result<Vec<Test>, StoreError> {
        self.query(
            "read a finding's tests",
            &format!("{TEST} WHERE t.finding = ?1 {TEST_ORDER}"),
            finding.0,
            test_of,
        )
    }

    /// The test generated for a finding in one framework, if any.
    pub fn test(
        &self,
        finding: &FindingId,
        framework: Framework,
    ) -> Result<Option<Test>, StoreError> {
        let tests = self.tests_of(finding)?;
        Ok(tests.into_iter().find(|test| test.framework == framework))
    }

    /// Where a run stands, if the store has it.
    pub fn status(&self, run: &RunId) -> Result<Option<RunStatus>, StoreError> {
        self.lock()
            .conn
            .query_row(
                "SELECT status FROM runs WHERE number = ?1",
                [run.0],
                |row| row.get(0),
            )
            .optional()
            .map_err(|err| StoreError::sql(&self.path, "read a run's status", err))
    }

    /// The latest `limit` runs, newest first.
    pub fn runs(&self, limit: usize) -> Result<Vec<RunSummary>, StoreError> {
        self.query(
            "list the runs",
            &format!("SELECT {SUMMARY} FROM runs r ORDER BY r.number DESC LIMIT ?1"),
            to_i64(limit as u64),
            summary_of,
        )
    }

    /// A run with its findings and tests, if the store has it.
    pub fn run(&self, run: &RunId) -> Result<Option<RunReport>, StoreError> {
        let sql = |err| StoreError::sql(&self.path, "read a run", err);
        let mut inner = self.lock();
        // One read transaction: the run, its findings and its tests as of one moment.
        let tx = inner.conn.transaction().map_err(sql)?;
        let found = tx
            .query_row(
                &format!(
                    "SELECT {SUMMARY}, r.invariants_json, r.budget_json FROM runs r \
                     WHERE r.number = ?1"
                ),
                [run.0],
                |row| Ok((summary_of(row)?, row.get(9)?, row.get(10)?)),
            )
            .optional()
            .map_err(sql)?;
        let Some((summary, invariants_json, budget_json)) = found else {
            return Ok(None);
        };
        let findings = rows(
            &tx,
            &format!("{FINDING} WHERE run = ?1 ORDER BY number"),
            run.0,
            finding_of,
        )
        .map_err(sql)?;
        let tests = rows(
            &tx,
            &format!(
                "{TEST} JOIN findings f ON f.number = t.finding WHERE f.run = ?1 {TEST_ORDER}"
            ),
            run.0,
            test_of,
        )
        .map_err(sql)?;
        Ok(Some(RunReport {
            summary,
            invariants_json,
            budget_json,
            findings,
            tests,
        }))
    }

    /// A finding, if the store has it.
    pub fn finding(&self, finding: &FindingId) -> Result<Option<Finding>, StoreError> {
        let found = self.query(
            "read a finding",
            &format!("{FINDING} WHERE number = ?1"),
            finding.0,
            finding_of,
        )?;
        Ok(found.into_iter().next())
    }

    /// Checks the whole file (SQLite's `integrity_check`): a damaged one is
    /// [`StoreError::Corrupt`] with what was found.
    pub fn check_integrity(&self) -> Result<(), StoreError> {
        match schema::integrity(&self.lock().conn, &self.path)? {
            None => Ok(()),
            Some(detail) => Err(StoreError::Corrupt {
                path: self.path.clone(),
                detail,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while the connection was held left no transaction open (it rolled back as
        // it was dropped), so the connection is still good.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `sql` with one parameter and reads every row with `read`.
    fn query<T>(
        &self,
        action: &'static str,
        sql: &str,
        param: i64,
        read: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        rows(&self.lock().conn, sql, param, read)
            .map_err(|err| StoreError::sql(&self.path, action, err))
    }

    /// Runs an UPDATE of one run by number (`?1`) with one value (`?2`).
    fn update_run(
        &self,
        run: &RunId,
        action: &'static str,
        sql: &str,
        value: &dyn rusqlite::ToSql,
    ) -> Result<(), StoreError> {
        let changed = self
            .lock()
            .conn
            .execute(sql, params![run.0, value])
            .map_err(|err| StoreError::sql(&self.path, action, err))?;
        self.known_run(run, changed)
    }

    fn known_run(&self, run: &RunId, changed: usize) -> Result<(), StoreError> {
        if changed == 0 {
            return Err(self.unknown_run(run));
        }
        Ok(())
    }

    fn unknown_run(&self, run: &RunId) -> StoreError {
        StoreError::UnknownRun {
            path: self.path.clone(),
            run: run.to_string(),
        }
    }

    fn check_json(&self, what: &str, text: &str) -> Result<(), StoreError> {
        serde_json::from_str::<serde::de::IgnoredAny>(text)
            .map(drop)
            .map_err(|err| self.invalid(what, "JSON text", err.to_string()))
    }

    fn check_time(&self, what: &str, text: &str) -> Result<(), StoreError> {
        OffsetDateTime::parse(text, &Rfc3339)
            .map(drop)
            .map_err(|err| self.invalid(what, "an RFC 3339 time", format!("`{text}`: {err}")))
    }

    fn invalid(&self, what: &str, expected: &'static str, detail: String) -> StoreError {
        StoreError::Invalid {
            path: self.path.clone(),
            what: what.to_owned(),
            expected,
            detail,
        }
    }
}

impl Drop for AuditStore {
    fn drop(&mut self) {
        let inner = self.inner.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(owner) = inner.owner.take() {
            // Best effort: if this fails, the lock file is gone all the same, and the next
            // open marks the runs.
            let _ = inner.conn.execute(
                "UPDATE runs SET status = 'interrupted' \
                 WHERE status IN ('queued', 'running') AND owner_token = ?1",
                [owner.token()],
            );
            owner.release();
        }
    }
}

fn run_exists(conn: &Connection, run: &RunId) -> rusqlite::Result<bool> {
    schema::exists(conn, "SELECT 1 FROM runs WHERE number = ?1", run.0)
}

fn rows<T>(
    conn: &Connection,
    sql: &str,
    param: i64,
    read: fn(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    conn.prepare_cached(sql)?
        .query_map([param], read)?
        .collect()
}

fn summary_of(row: &Row<'_>) -> rusqlite::Result<RunSummary> {
    Ok(RunSummary {
        id: RunId(row.get(0)?),
        target_url: row.get(1)?,
        status: row.get(2)?,
        phase: row.get(3)?,
        started_at: row.get(4)?,
        runtime_ms: match row.get::<_, Option<i64>>(5)? {
            Some(_) => Some(unsigned(row, 5)?),
            None => None,
        },
        findings: usize::try_from(unsigned(row, 6)?).unwrap_or(usize::MAX),
        events: unsigned(row, 7)?,
        seed: u64::from_ne_bytes(row.get::<_, i64>(8)?.to_ne_bytes()),
    })
}

fn finding_of(row: &Row<'_>) -> rusqlite::Result<Finding> {
    Ok(Finding {
        id: FindingId(row.get(0)?),
        run: RunId(row.get(1)?),
        invariant_id: row.get(2)?,
        severity: row.get(3)?,
        title: row.get(4)?,
        expected: row.get(5)?,
        actual: row.get(6)?,
        impact: row.get(7)?,
        steps_json: row.get(8)?,
        screenshots_json: row.get(9)?,
        action_log_json: row.get(10)?,
        fingerprint: row.get(11)?,
    })
}

fn test_of(row: &Row<'_>) -> rusqlite::Result<Test> {
    Ok(Test {
        finding: FindingId(row.get(0)?),
        framework: row.get(1)?,
        filename: row.get(2)?,
        code: row.get(3)?,
    })
}

/// A column that holds a count or a duration: never negative, unless the file was damaged.
fn unsigned(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(index)?;
    u64::try_from(value).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(index, value))
}

/// A count or duration as SQLite's integer; none that Windup meets is past `i64::MAX`.
fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Now, RFC 3339 in UTC.
fn now() -> String {
    OffsetDateTime::now_utc()
        .format(&Rfc3339)
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_owned())
}
