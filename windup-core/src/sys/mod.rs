//! The operating system beneath the stores: advisory whole-file locks, one way for all of them
//! (the plan cache's directory lock, the audit store's owner files, the run ledger).
//!
//! They are std's `File::lock` family (`flock(2)` on Linux and macOS): held by an open file,
//! released when it is unlocked or closed, or when its process dies. A blocking wait that a
//! signal interrupts is resumed, which std leaves to its caller.

use std::fs::{File, TryLockError};
use std::io;

/// Takes `file`'s exclusive lock, waiting for whoever holds it.
pub(crate) fn lock_exclusive(file: &File) -> io::Result<()> {
    resumed(|| file.lock())
}

/// Takes a shared lock on `file` (others may read beside it), waiting for a writer.
pub(crate) fn lock_shared(file: &File) -> io::Result<()> {
    resumed(|| file.lock_shared())
}

/// Takes `file`'s exclusive lock if nobody holds it; an error of kind
/// [`io::ErrorKind::WouldBlock`] when somebody does.
pub(crate) fn try_lock_exclusive(file: &File) -> io::Result<()> {
    resumed(|| match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(io::ErrorKind::WouldBlock.into()),
        Err(TryLockError::Error(err)) => Err(err),
    })
}

/// A lock taken on a borrowed file, let go when dropped (closing the file would too).
#[derive(Debug)]
pub(crate) struct Held<'a>(&'a File);

impl<'a> Held<'a> {
    /// `file`'s exclusive lock, waited for.
    pub(crate) fn exclusive(file: &'a File) -> io::Result<Self> {
        lock_exclusive(file).map(|()| Held(file))
    }

    /// A shared lock on `file`, waited for.
    pub(crate) fn shared(file: &'a File) -> io::Result<Self> {
        lock_shared(file).map(|()| Held(file))
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // Nothing to do about a failure here: the lock goes with the file at the latest.
        let _ = self.0.unlock();
    }
}

/// Runs `op` again for as long as a signal interrupts it.
fn resumed(mut op: impl FnMut() -> io::Result<()>) -> io::Result<()> {
    loop {
        match op() {
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            done => return done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two open files of one lock file: flock locks belong to the open file, so the two
    /// contend as two processes would.
    fn two_handles() -> (tempfile::TempDir, File, File) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("windup.lock");
        let open = || {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .expect("the lock file opens")
        };
        let (one, other) = (open(), open());
        (dir, one, other)
    }

    #[test]
    fn an_exclusive_lock_keeps_everyone_else_out_until_it_is_let_go() {
        let (_dir, one, other) = two_handles();
        let held = Held::exclusive(&one).expect("the lock is free");
        let busy = try_lock_exclusive(&other).expect_err("the lock is held");
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        drop(held);
        try_lock_exclusive(&other).expect("free once let go");
        let busy = try_lock_exclusive(&one).expect_err("now the other holds it");
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        drop(other);
        lock_exclusive(&one).expect("free once its file is closed");
    }

    #[test]
    fn shared_locks_sit_beside_each_other_but_not_beside_a_writer() {
        let (_dir, one, other) = two_handles();
        let reading = Held::shared(&one).expect("free");
        let beside = Held::shared(&other).expect("readers share");
        drop(beside);
        let busy = try_lock_exclusive(&other).expect_err("a reader holds it");
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        drop(reading);
        try_lock_exclusive(&other).expect("free once the reader is done");
    }

    #[test]
    fn a_wait_ends_when_the_holder_lets_go() {
        let (_dir, one, other) = two_handles();
        let held = Held::exclusive(&one).expect("free");
        let waiter = std::thread::spawn(move || lock_exclusive(&other).map(|()| other));
        // The waiter is blocked in the kernel until the lock goes.
        drop(held);
        let other = waiter
            .join()
            .expect("the waiter ends")
            .expect("it gets the lock");
        let busy = try_lock_exclusive(&one).expect_err("the waiter holds it now");
        assert_eq!(busy.kind(), io::ErrorKind::WouldBlock);
        drop(other);
    }
}
