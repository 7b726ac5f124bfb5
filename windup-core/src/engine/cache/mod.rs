//! The plan cache: for each scenario and start page, the active plan with its run stats, and
//! the stale plans it replaced, kept with their failures as evidence.
//!
//! Entries live in a sled store under `.windup/cache/` in the project root (gitignored). sled
//! lets one process at a time open a store, and nextest runs every test in its own process, so
//! each operation takes the store's lock (`windup.lock`, then sled's own), opens the store,
//! does its work, flushes and closes it again. An operation that finds the store held by
//! another process waits for it, up to the lock wait (30 s by default,
//! [`PlanCache::with_lock_wait`]), and only then fails with [`CacheError::Busy`].
//!
//! Each operation changes the store with one sled write — a single insert, or one transaction
//! when it touches several keys — so a process killed in the middle of it leaves every entry
//! either as it was or as it was going to be. What sled 0.34 itself leaves behind when killed
//! while it opens the store is cleaned up before the next open (see `store.rs`).
//!
//! A stored value that is not an entry is reported as [`CacheError::Corrupt`] naming its key,
//! by every operation that reads it (including [`PlanCache::list`]); [`PlanCache::clear`] and
//! [`PlanCache::save`] never read values, so they repair it. An entry written by another cache
//! version is a miss for [`PlanCache::lookup`] and left out of listings until it is replaced.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sled::Transactional;

use crate::model::plan::Plan;

mod error;
mod keys;
mod store;
#[cfg(test)]
mod tests;

pub use error::CacheError;
use store::Store;

/// The cache entry format version this build reads and writes.
pub const CACHE_VERSION: &str = "0.2";

/// How many stale entries are kept per scenario; older evidence is dropped.
pub const STALE_KEPT: usize = 5;

/// How long an operation waits for other processes to release the store by default.
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(30);

/// What a plan is cached for: a scenario, started at a path (and on a page of a structure).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    pub scenario_id: String,
    /// The scenario's start path, as joined to the base URL.
    pub start_path: String,
    /// The start page's structural signature, when known. Entries are stored per scenario id
    /// and start path; a lookup whose signature differs from the entry's is a miss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_sig: Option<String>,
}

impl CacheKey {
    /// The key of a scenario started at `start_path`, with no signature.
    pub fn new(scenario_id: impl Into<String>, start_path: impl Into<String>) -> Self {
        Self {
            scenario_id: scenario_id.into(),
            start_path: start_path.into(),
            start_sig: None,
        }
    }

    /// The same key with the start page's signature, when known.
    pub fn with_start_sig(mut self, start_sig: Option<String>) -> Self {
        self.start_sig = start_sig;
        self
    }
}

/// Whether an entry's plan is the one replays use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    Active,
    /// It failed a replay; kept as evidence only.
    Stale,
}

/// How an entry's plan has fared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryStats {
    pub runs: u64,
    pub passes: u64,
    /// RFC 3339 timestamp of the last recorded run.
    pub last_run: Option<String>,
    /// Wall time of the last recorded run, in milliseconds.
    pub last_ms: Option<u64>,
}

/// One cached plan (docs/cache.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    pub cache_version: String,
    pub key: CacheKey,
    /// The hash of the scenario file the plan was made for; an edited scenario misses.
    pub scenario_hash: String,
    pub plan: Plan,
    pub status: EntryStatus,
    pub stats: EntryStats,
    /// Why the entry turned stale, kept as evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl CacheEntry {
    /// A new active entry with no runs recorded yet.
    pub fn new(key: CacheKey, scenario_hash: impl Into<String>, plan: Plan) -> Self {
        Self {
            cache_version: CACHE_VERSION.to_owned(),
            key,
            scenario_hash: scenario_hash.into(),
            plan,
            status: EntryStatus::Active,
            stats: EntryStats::default(),
            failure: None,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self)
            .expect("an entry has only string keys and plain values, so it always serializes")
    }
}

/// The persistent plan cache of one project. It holds only the store's path: every operation
/// opens the store, holds it briefly and closes it, so many processes can share it.
#[derive(Debug, Clone)]
pub struct PlanCache {
    dir: PathBuf,
    lock_wait: Duration,
}

impl PlanCache {
    /// The cache of the project whose root is `root`, stored in `root/.windup/cache`.
    pub fn new(root: &Path) -> Self {
        Self::at(&root.join(".windup").join("cache"))
    }

    /// A cache stored in `dir` itself.
    pub fn at(dir: &Path) -> Self {
        Self {
            dir: dir.to_owned(),
            lock_wait: DEFAULT_LOCK_WAIT,
        }
    }

    /// The same cache, waiting at most `lock_wait` for other processes to release the store
    /// before an operation fails with [`CacheError::Busy`].
    pub fn with_lock_wait(mut self, lock_wait: Duration) -> Self {
        self.lock_wait = lock_wait;
        self
    }

    /// The store's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The active entry for the key, if its scenario hash matches (an entry for an edited
    /// scenario is a miss) and, when both have one, so does the start page's signature.
    pub fn lookup(
        &self,
        key: &CacheKey,
        scenario_hash: &str,
    ) -> Result<Option<CacheEntry>, CacheError> {
        let raw = self.read(|store| self.get_raw(&store.active, &keys::active(key)))?;
        let Some(raw) = raw.flatten() else {
            return Ok(None);
        };
        let entry = self.decode(&raw, keys::describe_active(&keys::active(key)))?;
        Ok(entry.filter(|entry| {
            entry.scenario_hash == scenario_hash
                && match (&key.start_sig, &entry.key.start_sig) {
                    (Some(wanted), Some(stored)) => wanted == stored,
                    _ => true,
                }
        }))
    }

    /// Saves (inserts or replaces) the active entry for `entry.key`, as one atomic write. Only
    /// call it after a complete, verified run. The entry is stored as active, in this cache
    /// version, without a failure.
    pub fn save(&self, entry: &CacheEntry) -> Result<(), CacheError> {
        let mut entry = entry.clone();
        entry.cache_version = CACHE_VERSION.to_owned();
        entry.status = EntryStatus::Active;
        entry.failure = None;
        self.write(|store| {
            store
                .active
                .insert(keys::active(&entry.key), entry.to_bytes())
                .map_err(|source| self.store_err("write", source))?;
            Ok(())
        })
    }

    /// Marks the active entry stale with the failure text: it leaves the active entries and
    /// joins the scenario's evidence, of which the newest [`STALE_KEPT`] are kept. One
    /// transaction, so a crash leaves it either active or stale.
    pub fn mark_stale(&self, key: &CacheKey, failure: &str) -> Result<(), CacheError> {
        let active_key = keys::active(key);
        self.update(&active_key, |store| {
            let mut entry = self.active_entry(store, &active_key)?;
            entry.status = EntryStatus::Stale;
            entry.failure = Some(failure.to_owned());
            let prefix = keys::scenario(&key.scenario_id);
            let kept: Vec<Vec<u8>> = store
                .stale
                .scan_prefix(&prefix)
                .keys()
                .map(|item| item.map(|key| key.to_vec()))
                .collect::<Result<_, _>>()
                .map_err(|source| self.store_err("read", source))?;
            let seq = kept
                .last()
                .and_then(|last| keys::stale_seq(last))
                .map_or(0, |seq| seq + 1);
            let new_key = keys::stale(&key.scenario_id, seq);
            let value = entry.to_bytes();
            let dropped = &kept[..(kept.len() + 1).saturating_sub(STALE_KEPT)];
            (&store.active, &store.stale)
                .transaction(|(active, stale)| {
                    active.remove(active_key.as_slice())?;
                    stale.insert(new_key.as_slice(), value.as_slice())?;
                    for old in dropped {
                        stale.remove(old.as_slice())?;
                    }
                    Ok::<(), sled::transaction::ConflictableTransactionError>(())
                })
                .map_err(|err| self.store_err("write", transaction_error(err)))
        })
    }

    /// Records a run of the active entry's plan: one more run, one more pass if it passed,
    /// and when (`at`, RFC 3339) and how long (`ms`); a start signature in `key` replaces the
    /// entry's, as the start page looks now. Read and write happen within one open of the
    /// store, so concurrent processes never lose each other's runs.
    pub fn record_run(
        &self,
        key: &CacheKey,
        passed: bool,
        at: &str,
        ms: u64,
    ) -> Result<(), CacheError> {
        let active_key = keys::active(key);
        self.update(&active_key, |store| {
            let mut entry = self.active_entry(store, &active_key)?;
            entry.stats.runs += 1;
            if passed {
                entry.stats.passes += 1;
            }
            entry.stats.last_run = Some(at.to_owned());
            entry.stats.last_ms = Some(ms);
            if key.start_sig.is_some() {
                entry.key.start_sig.clone_from(&key.start_sig);
            }
            store
                .active
                .insert(active_key.as_slice(), entry.to_bytes())
                .map_err(|source| self.store_err("write", source))?;
            Ok(())
        })
    }

    /// Every entry, for `cache ls`: by scenario id, each scenario's active entries (by start
    /// path) before its stale ones (newest first).
    pub fn list(&self) -> Result<Vec<CacheEntry>, CacheError> {
        self.entries(&[])
    }

    /// One scenario's entries, for `cache show`, in the order of [`PlanCache::list`].
    pub fn get(&self, scenario_id: &str) -> Result<Vec<CacheEntry>, CacheError> {
        self.entries(&keys::scenario(scenario_id))
    }

    /// Removes every entry, or one scenario's, active and stale; returns how many. Values are
    /// not read, so this also removes entries that cannot be read.
    pub fn clear(&self, scenario_id: Option<&str>) -> Result<usize, CacheError> {
        let prefix = scenario_id.map(keys::scenario).unwrap_or_default();
        let removed = self.read_write(false, |store| {
            let mut doomed = (Vec::new(), Vec::new());
            for (tree, doomed) in [
                (&store.active, &mut doomed.0),
                (&store.stale, &mut doomed.1),
            ] {
                for key in tree.scan_prefix(&prefix).keys() {
                    doomed.push(key.map_err(|source| self.store_err("read", source))?);
                }
            }
            let removed = doomed.0.len() + doomed.1.len();
            (&store.active, &store.stale)
                .transaction(|(active, stale)| {
                    for key in &doomed.0 {
                        active.remove(key)?;
                    }
                    for key in &doomed.1 {
                        stale.remove(key)?;
                    }
                    Ok::<(), sled::transaction::ConflictableTransactionError>(())
                })
                .map_err(|err| self.store_err("clear", transaction_error(err)))?;
            Ok(removed)
        })?;
        Ok(removed.unwrap_or(0))
    }

    fn entries(&self, prefix: &[u8]) -> Result<Vec<CacheEntry>, CacheError> {
        let raw = self.read(|store| {
            let read = |tree: &sled::Tree| -> Result<Vec<(sled::IVec, sled::IVec)>, CacheError> {
                tree.scan_prefix(prefix)
                    .collect::<Result<_, _>>()
                    .map_err(|source| self.store_err("read", source))
            };
            Ok((read(&store.active)?, read(&store.stale)?))
        })?;
        let Some((active, stale)) = raw else {
            return Ok(Vec::new());
        };
        let mut entries = Vec::with_capacity(active.len() + stale.len());
        for (key, value) in &active {
            if let Some(entry) = self.decode(value, keys::describe_active(key))? {
                entries.push((entry, 0));
            }
        }
        for (key, value) in &stale {
            if let Some(entry) = self.decode(value, keys::describe_stale(key))? {
                let seq = keys::stale_seq(key).unwrap_or(0);
                entries.push((entry, u64::MAX - seq));
            }
        }
        entries.sort_by(|(a, a_rank), (b, b_rank)| {
            (
                &a.key.scenario_id,
                a.status == EntryStatus::Stale,
                a_rank,
                &a.key.start_path,
            )
                .cmp(&(
                    &b.key.scenario_id,
                    b.status == EntryStatus::Stale,
                    b_rank,
                    &b.key.start_path,
                ))
        });
        Ok(entries.into_iter().map(|(entry, _)| entry).collect())
    }

    /// The active entry under `key`, which must exist and be readable.
    fn active_entry(&self, store: &Store, key: &[u8]) -> Result<CacheEntry, CacheError> {
        let place = keys::describe_active(key);
        let missing = || CacheError::NoActiveEntry {
            dir: self.dir.clone(),
            key: place.1.clone(),
        };
        let raw = self.get_raw(&store.active, key)?.ok_or_else(missing)?;
        self.decode(&raw, place.clone())?.ok_or_else(missing)
    }

    fn get_raw(&self, tree: &sled::Tree, key: &[u8]) -> Result<Option<sled::IVec>, CacheError> {
        tree.get(key)
            .map_err(|source| self.store_err("read", source))
    }

    /// Reads a stored value: `None` for an entry of another cache version, an error naming
    /// the key for anything that is not an entry.
    fn decode(
        &self,
        raw: &[u8],
        (scenario_id, key): (String, String),
    ) -> Result<Option<CacheEntry>, CacheError> {
        let corrupt = |message: String| CacheError::Corrupt {
            dir: self.dir.clone(),
            scenario_id: scenario_id.clone(),
            key: key.clone(),
            message,
        };
        let value: Value =
            serde_json::from_slice(raw).map_err(|err| corrupt(format!("not JSON ({err})")))?;
        match value.get("cache_version").and_then(Value::as_str) {
            Some(CACHE_VERSION) => {}
            Some(_) => return Ok(None),
            None => return Err(corrupt("no cache_version".to_owned())),
        }
        CacheEntry::deserialize(&value)
            .map(Some)
            .map_err(|err| corrupt(format!("not a cache entry ({err})")))
    }

    /// Runs `f` on the store if it exists; `None` when there is none.
    fn read<T>(
        &self,
        f: impl FnOnce(&Store) -> Result<T, CacheError>,
    ) -> Result<Option<T>, CacheError> {
        self.read_write(false, f)
    }

    /// Runs `f` on the store, creating it first when there is none.
    fn write<T>(&self, f: impl FnOnce(&Store) -> Result<T, CacheError>) -> Result<T, CacheError> {
        let done = self.read_write(true, f)?;
        Ok(done.expect("a store opened with create always exists"))
    }

    /// Runs `f` on an existing store; without one there is no active entry under `key`.
    fn update(
        &self,
        key: &[u8],
        f: impl FnOnce(&Store) -> Result<(), CacheError>,
    ) -> Result<(), CacheError> {
        self.read_write(false, f)?
            .ok_or_else(|| CacheError::NoActiveEntry {
                dir: self.dir.clone(),
                key: keys::describe_active(key).1,
            })
    }

    fn read_write<T>(
        &self,
        create: bool,
        f: impl FnOnce(&Store) -> Result<T, CacheError>,
    ) -> Result<Option<T>, CacheError> {
        let Some(store) = Store::open(&self.dir, create, self.lock_wait)? else {
            return Ok(None);
        };
        let done = f(&store);
        let closed = store.close();
        let done = done?;
        closed?;
        Ok(Some(done))
    }

    fn store_err(&self, action: &'static str, source: sled::Error) -> CacheError {
        CacheError::Store {
            dir: self.dir.clone(),
            action,
            source,
        }
    }
}

fn transaction_error(err: sled::transaction::TransactionError) -> sled::Error {
    match err {
        sled::transaction::TransactionError::Abort(err)
        | sled::transaction::TransactionError::Storage(err) => err,
    }
}
