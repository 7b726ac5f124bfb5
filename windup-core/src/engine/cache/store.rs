//! Opening the sled store: late, briefly, and waiting out other processes that hold it.
//!
//! sled 0.34 takes an exclusive `flock` on `<dir>/db` (fs2 `try_lock_exclusive`) for as long
//! as a `Db` is open — and, after the `Db` is dropped, until its background threads let go of
//! the file. It reports a held lock as `sled::Error::Io` of kind `Other` whose message is
//! `could not acquire lock on "<dir>/db": Os { .., kind: WouldBlock, .. }`; [`is_lock_held`]
//! recognises exactly that, and only that is retried.
//!
//! Before sled's lock, every operation takes Windup's own lock, `<dir>/windup.lock`, waiting
//! for it in `flock` itself, up to the same deadline. That lock is what takes turns between
//! processes (sled's then only contends with the previous holder's lingering threads), and
//! holding it, no other Windup process can be inside sled: a snapshot file that a killed
//! process left half-written (`snap.*.generating`, which sled 0.34 would otherwise pick as the
//! newest snapshot and then refuse to open the store) is a leftover and is removed.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use super::CacheError;

/// The first pause after a busy open.
const FIRST_PAUSE: Duration = Duration::from_millis(2);
/// The longest pause between two attempts.
const MAX_PAUSE: Duration = Duration::from_millis(100);
/// Windup's own lock file inside the store's directory.
const LOCK_FILE: &str = "windup.lock";

/// An open store: hold it for one operation, then [`Store::close`] it.
pub(super) struct Store {
    dir: PathBuf,
    db: sled::Db,
    /// Active entries, one per scenario id and start path.
    pub(super) active: sled::Tree,
    /// Stale entries kept as evidence, keyed by scenario id and a sequence number.
    pub(super) stale: sled::Tree,
    /// Declared last so that it is released after sled, however the store is dropped.
    _lock: DirLock,
}

impl Store {
    /// Opens the store at `dir`, waiting up to `lock_wait` while other processes hold it.
    /// Without `create`, a store that does not exist yet is `None` and nothing is written.
    pub(super) fn open(
        dir: &Path,
        create: bool,
        lock_wait: Duration,
    ) -> Result<Option<Store>, CacheError> {
        if !exists(dir) {
            if !create {
                return Ok(None);
            }
            create_store(dir)?;
        }
        let open_err = |source| CacheError::Open {
            dir: dir.to_owned(),
            source,
        };
        let mut wait = Wait::new(dir, lock_wait);
        let lock = DirLock::acquire(dir, &wait)?;
        remove_unfinished_snapshots(dir).map_err(|err| open_err(sled::Error::Io(err)))?;
        let db = loop {
            match config(dir).open() {
                Ok(db) => break db,
                Err(err) if is_lock_held(&err) => wait.pause()?,
                Err(source) => return Err(open_err(source)),
            }
        };
        let active = db.open_tree("active").map_err(open_err)?;
        let stale = db.open_tree("stale").map_err(open_err)?;
        Ok(Some(Store {
            dir: dir.to_owned(),
            db,
            active,
            stale,
            _lock: lock,
        }))
    }

    /// Makes every write durable, then releases the store for other processes.
    pub(super) fn close(self) -> Result<(), CacheError> {
        let Store {
            dir,
            db,
            active,
            stale,
            _lock,
        } = self;
        let flushed = db.flush();
        drop((active, stale, db));
        drop(_lock);
        flushed.map(drop).map_err(|source| CacheError::Store {
            dir,
            action: "flush",
            source,
        })
    }
}

/// Whether a store has been created at `dir`.
fn exists(dir: &Path) -> bool {
    dir.join("db").is_file()
}

/// Bytes of one sled log segment in a new store. sled 0.34 writes a page larger than a
/// quarter segment to a separate blob file, and deletes a replaced blob only once its segment
/// fills up — which a store closed after every operation never sees: with the default 512 KiB
/// segments each such write leaked a file and slowed every later open. 2 MiB segments keep
/// pages up to 512 KiB (a leaf of 16 entries of 32 KiB) in the log. sled keeps this setting
/// hidden for its tests, but 0.34 is a finished line, and sled refuses to open a store with
/// another segment size than it was created with, so [`config`] reads it from the store.
const SEGMENT_SIZE: usize = 2 << 20;

/// The sled configuration of the store at `dir`.
pub(super) fn config(dir: &Path) -> sled::Config {
    // No background flusher: every operation flushes before it closes the store, and a
    // flusher thread would only lengthen the time the lock is held.
    sled::Config::new()
        .path(dir)
        .segment_size(created_segment_size(dir).unwrap_or(SEGMENT_SIZE))
        .flush_every_ms(None)
}

/// The segment size sled recorded in the store's `conf` (a line `segment_size: N`), so that
/// stores created before [`SEGMENT_SIZE`] was set keep opening.
fn created_segment_size(dir: &Path) -> Option<usize> {
    let conf = std::fs::read(dir.join("conf")).ok()?;
    String::from_utf8_lossy(&conf)
        .lines()
        .find_map(|line| line.strip_prefix("segment_size: ")?.trim().parse().ok())
}

/// Creates an empty store somewhere private, then renames it into place, so no process ever
/// opens a half-created one (sled writes its `conf` file before it takes its lock, and a
/// `conf` cut short makes the store unopenable).
fn create_store(dir: &Path) -> Result<(), CacheError> {
    let open_err = |source: sled::Error| CacheError::Open {
        dir: dir.to_owned(),
        source,
    };
    let io_err = |err: io::Error| open_err(sled::Error::Io(err));
    let parent = dir.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io_err)?;
    let name = dir.file_name().map_or_else(
        || "cache".to_owned(),
        |name| name.to_string_lossy().into_owned(),
    );
    let private = parent.join(format!(".{name}.new-{}-{}", std::process::id(), nanos()));
    let created = config(&private).open().and_then(|db| db.flush().map(drop));
    if let Err(source) = created {
        let _ = std::fs::remove_dir_all(&private);
        return Err(open_err(source));
    }
    match std::fs::rename(&private, dir) {
        Ok(()) => Ok(()),
        // Another process created it first: use theirs.
        Err(_) if exists(dir) => {
            let _ = std::fs::remove_dir_all(&private);
            Ok(())
        }
        Err(err) => {
            let _ = std::fs::remove_dir_all(&private);
            Err(io_err(err))
        }
    }
}

/// Removes `snap.*.generating` files. sled 0.34 writes a snapshot while it opens a store, as
/// `snap.<lsn>.generating` renamed to `snap.<lsn>` once complete, but when it reads one back it
/// takes the last `snap.*` name in sort order, `.generating` included: a process killed in the
/// middle leaves a file that makes every later open fail with `Corruption`. The previous
/// snapshot is still in place then, so removing the leftover loses nothing.
fn remove_unfinished_snapshots(dir: &Path) -> io::Result<()> {
    for item in std::fs::read_dir(dir)? {
        let path = item?.path();
        let unfinished = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("snap.") && name.ends_with(".generating"));
        if unfinished {
            match std::fs::remove_file(&path) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
                _ => {}
            }
        }
    }
    Ok(())
}

/// Windup's exclusive lock on a store, released when dropped (or when its process dies).
struct DirLock(#[allow(dead_code)] File);

impl DirLock {
    /// Takes the lock, waiting in the kernel's queue until the deadline. Waiting in `flock`
    /// rather than polling wakes a waiter as soon as the holder lets go, which keeps many
    /// processes that take turns on the store from starving one another.
    fn acquire(dir: &Path, wait: &Wait<'_>) -> Result<DirLock, CacheError> {
        let io_err = |err| CacheError::Open {
            dir: dir.to_owned(),
            source: sled::Error::Io(err),
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK_FILE))
            .map_err(io_err)?;
        match crate::sys::try_lock_exclusive(&file) {
            Ok(()) => return Ok(DirLock(file)),
            Err(err) if err.kind() == io::ErrorKind::WouldBlock => {}
            Err(err) => return Err(io_err(err)),
        }
        // A helper thread blocks in flock so that this wait can end at the deadline. If it
        // does, the helper's late lock is released at once: the send fails and drops the file.
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("windup-cache-lock".to_owned())
            .spawn(move || {
                let locked = crate::sys::lock_exclusive(&file).map(|()| file);
                let _ = tx.send(locked);
            })
            .map_err(io_err)?;
        match rx.recv_timeout(wait.left()) {
            Ok(Ok(file)) => Ok(DirLock(file)),
            Ok(Err(err)) => Err(io_err(err)),
            Err(_) => Err(wait.busy()),
        }
    }
}

/// One operation's wait for the store: its backoff and its deadline.
struct Wait<'a> {
    dir: &'a Path,
    started: Instant,
    backoff: Backoff,
}

impl<'a> Wait<'a> {
    fn new(dir: &'a Path, limit: Duration) -> Self {
        let started = Instant::now();
        Self {
            dir,
            started,
            backoff: Backoff::new(started, limit, seed()),
        }
    }

    /// Sleeps before the next attempt, or fails once the deadline has passed.
    fn pause(&mut self) -> Result<(), CacheError> {
        let pause = self
            .backoff
            .pause(Instant::now())
            .ok_or_else(|| self.busy())?;
        std::thread::sleep(pause);
        Ok(())
    }

    /// The time left until the deadline.
    fn left(&self) -> Duration {
        self.backoff
            .deadline
            .saturating_duration_since(Instant::now())
    }

    fn busy(&self) -> CacheError {
        CacheError::Busy {
            dir: self.dir.to_owned(),
            waited: self.started.elapsed(),
        }
    }
}

/// Whether `err` is sled 0.34 saying that another open file holds the store's lock.
pub(super) fn is_lock_held(err: &sled::Error) -> bool {
    let sled::Error::Io(err) = err else {
        return false;
    };
    if err.kind() != io::ErrorKind::Other {
        return false;
    }
    let message = err.to_string();
    message.starts_with("could not acquire lock on ") && message.contains("kind: WouldBlock")
}

/// Pauses between attempts to open a busy store: doubling from [`FIRST_PAUSE`] up to
/// [`MAX_PAUSE`], each drawn between half and all of that ("equal jitter") so that processes
/// that collided once do not collide again, and never past the deadline.
#[derive(Debug)]
pub(super) struct Backoff {
    ceiling: Duration,
    deadline: Instant,
    state: u64,
}

impl Backoff {
    pub(super) fn new(now: Instant, limit: Duration, seed: u64) -> Self {
        Self {
            ceiling: FIRST_PAUSE,
            deadline: now + limit,
            state: seed,
        }
    }

    /// The pause before the next attempt, or `None` once the deadline has passed.
    pub(super) fn pause(&mut self, now: Instant) -> Option<Duration> {
        let left = self.deadline.checked_duration_since(now)?;
        if left.is_zero() {
            return None;
        }
        let half = self.ceiling / 2;
        let span = u64::try_from((self.ceiling - half).as_nanos()).unwrap_or(u64::MAX);
        let pause = half + Duration::from_nanos(self.next_random() % span.saturating_add(1));
        self.ceiling = (self.ceiling * 2).min(MAX_PAUSE);
        Some(pause.min(left))
    }

    /// splitmix64: good enough to spread processes apart, and needs no dependency.
    fn next_random(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A seed that differs between processes and between calls.
fn seed() -> u64 {
    nanos() ^ (u64::from(std::process::id()) << 32)
}

fn nanos() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64)
}
