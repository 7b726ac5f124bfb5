use std::path::PathBuf;
use std::time::Duration;

/// Why the plan cache could not answer. Every message names the store's directory and says
/// what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// Other processes kept the store locked for longer than the lock wait.
    #[error(
        "the plan cache at {dir} stayed locked by other processes for {waited:.1?}\n  hint: another `cargo windup` or `cargo test` process keeps it busy; let it finish and run again, or find it with `lsof {dir}/db`",
        dir = .dir.display()
    )]
    Busy { dir: PathBuf, waited: Duration },
    /// The store cannot be created or opened for a reason other than the lock.
    #[error(
        "cannot open the plan cache at {dir}: {source}\n  hint: check that the directory is writable; if it is damaged, delete it: the next runs rebuild it from the plan lockfiles",
        dir = .dir.display()
    )]
    Open {
        dir: PathBuf,
        #[source]
        source: sled::Error,
    },
    /// The store opened but reading or writing it failed.
    #[error(
        "cannot {action} the plan cache at {dir}: {source}\n  hint: check free disk space and the directory's permissions; if it is damaged, delete it: the next runs rebuild it from the plan lockfiles",
        dir = .dir.display()
    )]
    Store {
        dir: PathBuf,
        action: &'static str,
        #[source]
        source: sled::Error,
    },
    /// A stored value is not a cache entry.
    #[error(
        "the plan cache at {dir} holds an unreadable entry for {key}: {message}\n  hint: run `cargo windup cache clear {scenario_id}` to drop that scenario's entries; it is planned again on its next run",
        dir = .dir.display()
    )]
    Corrupt {
        dir: PathBuf,
        scenario_id: String,
        /// The entry's place in the store, e.g. `"checkout" at /cart` or `"checkout" stale #3`.
        key: String,
        message: String,
    },
    /// The operation needs an active entry and there is none (never saved, cleared, or stale).
    #[error(
        "the plan cache at {dir} has no active entry for {key}\n  hint: an entry is saved only after a complete, verified run; run the scenario to plan it"
    , dir = .dir.display())]
    NoActiveEntry { dir: PathBuf, key: String },
}
