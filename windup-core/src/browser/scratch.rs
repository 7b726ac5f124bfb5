//! A browser's scratch folder in the temporary directory (its sessions' profiles, the driver's
//! log): removed with the [`super::Browser`], and, when the process that owned it was killed,
//! by the next Windup process that starts a browser. A folder is Windup's only if it holds the
//! owner marker Windup writes in it, naming the owning process and when that process started,
//! so that a process id used again is not taken for the owner.

use std::path::Path;

const PREFIX: &str = "windup-browser-";
const OWNER: &str = "windup-owner";

/// A new scratch folder, marked as this process's, after removing those of processes gone.
pub(super) fn create() -> std::io::Result<tempfile::TempDir> {
    sweep(&std::env::temp_dir());
    let dir = tempfile::Builder::new().prefix(PREFIX).tempdir()?;
    std::fs::write(dir.path().join(OWNER), owner_line(std::process::id()))?;
    Ok(dir)
}

/// Removes the scratch folders in `temp` whose owner no longer runs; the number removed.
/// Where processes cannot be looked up (no /proc), nothing is removed.
pub(super) fn sweep(temp: &Path) -> usize {
    if started(std::process::id()).is_none() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return 0;
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let named_so = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(PREFIX));
        if !named_so {
            continue;
        }
        // A folder without the marker is another program's, or one being made right now.
        let Ok(owner) = std::fs::read_to_string(entry.path().join(OWNER)) else {
            continue;
        };
        if !runs(&owner) && std::fs::remove_dir_all(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// `PID START`: the process and when it started, in clock ticks since boot.
fn owner_line(pid: u32) -> String {
    format!("{pid} {}\n", started(pid).unwrap_or_default())
}

/// Whether the owner a marker names still runs: the same process id, started at the same time.
fn runs(marker: &str) -> bool {
    let mut words = marker.split_whitespace();
    let (Some(pid), Some(start)) = (words.next(), words.next()) else {
        // Unreadable: leave it, rather than remove a live browser's profile.
        return true;
    };
    match (pid.parse::<u32>(), start.parse::<u64>()) {
        (Ok(pid), Ok(start)) => started(pid) == Some(start),
        _ => true,
    }
}

/// When process `pid` started (field 22 of /proc/PID/stat), if it runs.
fn started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state …`: the name may hold spaces and parentheses, so count after the last.
    let after = &stat[stat.rfind(')')? + 2..];
    after.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(temp: &Path, name: &str, marker: Option<&str>) -> std::path::PathBuf {
        let dir = temp.join(name);
        std::fs::create_dir_all(dir.join("profile-x")).unwrap();
        if let Some(marker) = marker {
            std::fs::write(dir.join(OWNER), marker).unwrap();
        }
        dir
    }

    #[test]
    fn only_the_marked_folders_of_processes_gone_are_removed() {
        let temp = tempfile::tempdir().unwrap();
        let mine = folder(
            temp.path(),
            "windup-browser-mine",
            Some(&owner_line(std::process::id())),
        );
        // A process that has ended: its id, with a start time it never had.
        let gone = folder(temp.path(), "windup-browser-gone", Some("4194303 1\n"));
        let reused = folder(
            temp.path(),
            "windup-browser-reused",
            Some(&format!("{} 1\n", std::process::id())),
        );
        let unmarked = folder(temp.path(), "windup-browser-unmarked", None);
        let garbled = folder(temp.path(), "windup-browser-garbled", Some("what"));
        let other = folder(temp.path(), "someone-else", Some("4194303 1\n"));
        assert_eq!(sweep(temp.path()), 2);
        assert!(mine.exists() && unmarked.exists() && garbled.exists() && other.exists());
        assert!(!gone.exists() && !reused.exists());
    }

    #[test]
    fn a_new_folder_is_marked_as_this_process_s() {
        let dir = create().unwrap();
        let marker = std::fs::read_to_string(dir.path().join(OWNER)).unwrap();
        assert!(
            marker.starts_with(&format!("{} ", std::process::id())),
            "{marker}"
        );
        assert!(runs(&marker));
    }
}
