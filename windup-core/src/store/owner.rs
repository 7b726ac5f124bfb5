//! Whether the process that writes a run is still alive.
//!
//! Each store that creates runs holds an exclusive `flock` on a file of its own,
//! `<store>-owners/<token>`, for as long as it is open, and each run records that token (and,
//! for people, the pid). The kernel releases a `flock` when its process dies however it dies,
//! SIGKILL included, so "the lock can be taken" means exactly "the owner is gone". A pid and
//! a process start time (`/proc/<pid>/stat`) would say the same on one Linux host, but not
//! for a store shared between pid namespaces (a container beside its host), where a live
//! writer's pid means nothing to the reader, and not where `/proc` is missing; a lock on a
//! file of the store's own directory works wherever the store's file does.
//!
//! A lock file appears under its token's name only already locked (it is locked under a
//! private name, then linked into place), before the token is written to any run, and it
//! disappears only once its owner is gone: the owner removes it (before closing it) when the
//! store is dropped, and a checker that finds a lock free holds it while it marks the owner's
//! runs interrupted, then removes the file. So a missing lock file means a gone owner too
//! (the directory must not be deleted while audits run), and a free one can be swept away.
//!
//! When anything is uncertain (the file cannot be read, the filesystem has no `flock`), the
//! owner counts as alive: a live run must never be marked interrupted.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The directory of a store's owner locks: beside the store, as its `-wal` file is.
pub(super) fn owners_dir(store: &Path) -> PathBuf {
    let mut name = store.file_name().unwrap_or_default().to_owned();
    name.push("-owners");
    store.with_file_name(name)
}

/// A store's claim on the runs it creates, held until it is dropped.
#[derive(Debug)]
pub(super) struct Owner {
    token: String,
    lock: Held,
}

impl Owner {
    /// Creates and locks a new owner file in `dir`. Returns the lock's path with the error.
    pub(super) fn take(dir: &Path) -> Result<Owner, (PathBuf, io::Error)> {
        std::fs::create_dir_all(dir).map_err(|err| (dir.to_owned(), err))?;
        static TAKEN: AtomicU64 = AtomicU64::new(0);
        loop {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |since| since.as_nanos());
            let n = TAKEN.fetch_add(1, Ordering::Relaxed);
            let token = format!("{}-{nanos:x}-{n}", std::process::id());
            // Locked under a private name, then linked into place: a lock file under its
            // token's name is locked from the moment it exists, so a free one is a dead one.
            let private = dir.join(format!(".{token}.new"));
            let created = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o644)
                .open(&private);
            let file = match created {
                Ok(file) => file,
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err((private, err)),
            };
            let path = dir.join(&token);
            let placed = crate::sys::try_lock_exclusive(&file)
                .and_then(|()| std::fs::hard_link(&private, &path));
            let _ = std::fs::remove_file(&private);
            match placed {
                Ok(()) => {
                    let lock = Held { path, file };
                    return Ok(Owner { token, lock });
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(err) => return Err((path, err)),
            }
        }
    }

    pub(super) fn token(&self) -> &str {
        &self.token
    }

    /// Gives the claim up: the lock file goes, then the lock.
    pub(super) fn release(self) {
        self.lock.remove();
    }
}

/// An owner lock this process holds, and the file it is on.
#[derive(Debug)]
pub(super) struct Held {
    path: PathBuf,
    file: File,
}

impl Held {
    /// Removes the lock file while still holding it, then lets go of it.
    pub(super) fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.file);
    }
}

/// What a run's owner token says about its process.
#[derive(Debug)]
pub(super) enum Liveness {
    /// Alive, or it cannot be told: leave its runs alone.
    Alive,
    /// Gone. Its lock, when its file is still there, is held until it is removed.
    Gone(Option<Held>),
}

/// Whether the owner of `token` is alive, by trying to take its lock.
pub(super) fn check(dir: &Path, token: &str) -> Liveness {
    if !is_token(token) {
        // Not a token this module makes: no process of ours can hold it. Touch no file.
        return Liveness::Gone(None);
    }
    let path = dir.join(token);
    let file = match File::open(&path) {
        Ok(file) => file,
        // Its owner removed it, or a checker did after finding it gone.
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Liveness::Gone(None),
        Err(_) => return Liveness::Alive,
    };
    match crate::sys::try_lock_exclusive(&file) {
        Ok(()) => Liveness::Gone(Some(Held { path, file })),
        Err(_) => Liveness::Alive,
    }
}

/// Removes the lock files of gone owners that no running run names any more (an owner that
/// died after finishing its runs, or before starting one).
pub(super) fn sweep(dir: &Path) {
    let Ok(items) = std::fs::read_dir(dir) else {
        return;
    };
    for item in items.map_while(Result::ok) {
        let name = item.file_name();
        let Some(token) = name.to_str().filter(|name| is_token(name)) else {
            continue;
        };
        if let Liveness::Gone(Some(held)) = check(dir, token) {
            held.remove();
        }
    }
}

/// `pid-hexnanos-n`, as [`Owner::take`] makes them: nothing that could name another path.
fn is_token(token: &str) -> bool {
    (1..=64).contains(&token.len())
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b) || b == b'-')
}
