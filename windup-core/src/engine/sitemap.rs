//! The site map's file, `.windup/sitemap.json`: read whole, changed under an exclusive lock and
//! written whole (a temporary file renamed over it), so that runs in many processes at once
//! each add what they saw and none loses another's.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::model::sitemap::{SiteMap, SiteMapError};

/// Where the map is kept, under the project root.
pub const MAP_FILE: &str = ".windup/sitemap.json";

/// Why the map could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapFileError {
    #[error(transparent)]
    Map(#[from] SiteMapError),
    #[error("the site map {}: cannot {action}: {source}", path.display())]
    Io {
        path: PathBuf,
        action: &'static str,
        source: std::io::Error,
    },
}

/// A project's site map file.
#[derive(Debug, Clone)]
pub struct MapFile {
    path: PathBuf,
}

impl MapFile {
    /// The map of the project at `root`.
    pub fn of(root: &Path) -> Self {
        MapFile {
            path: root.join(MAP_FILE),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn io(&self, action: &'static str) -> impl FnOnce(std::io::Error) -> MapFileError + '_ {
        move |source| MapFileError::Io {
            path: self.path.clone(),
            action,
            source,
        }
    }

    /// The map as it is now; an empty one when there is none yet.
    pub fn read(&self) -> Result<SiteMap, MapFileError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(SiteMap::parse(&text, &self.path.display().to_string())?),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(SiteMap::default()),
            Err(err) => Err(self.io("read it")(err)),
        }
    }

    /// Changes the map with `change`, no other process reading or writing it meanwhile; the map
    /// as written.
    pub fn update(&self, change: impl FnOnce(&mut SiteMap)) -> Result<SiteMap, MapFileError> {
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(self.io("make its directory"))?;
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.path.with_extension("lock"))
            .map_err(self.io("open its lock"))?;
        // Held until `lock` is dropped: closing the file releases it, a crash too.
        lock.lock().map_err(self.io("lock it"))?;
        let mut map = self.read()?;
        change(&mut map);
        let temporary = self
            .path
            .with_extension(format!("json.{}", std::process::id()));
        let mut file = File::create(&temporary).map_err(self.io("write it"))?;
        file.write_all(map.to_json().as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(self.io("write it"))?;
        std::fs::rename(&temporary, &self.path).map_err(self.io("replace it"))?;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sitemap::{Source, Visit};

    #[test]
    fn updates_from_many_writers_at_once_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let writers: Vec<_> = (0..8)
            .map(|writer| {
                let file = MapFile::of(dir.path());
                std::thread::spawn(move || {
                    for n in 0..10 {
                        let visit = Visit {
                            path: format!("/w{writer}/p{n}"),
                            ..Visit::default()
                        };
                        file.update(|map| map.observe(&[visit], &[], "2026-12-02T10:00:00Z"))
                            .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        let map = MapFile::of(dir.path()).read().unwrap();
        assert_eq!(map.pages.len(), 80, "no update lost");
        assert!(map.pages.iter().all(|p| p.source() == Source::Execution));
        let left: Vec<_> = std::fs::read_dir(dir.path().join(".windup"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let mut left = left;
        left.sort();
        assert_eq!(
            left,
            ["sitemap.json", "sitemap.lock"],
            "no temporary file left"
        );
    }

    #[test]
    fn a_missing_map_is_empty_and_a_broken_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let file = MapFile::of(dir.path());
        assert!(file.read().unwrap().pages.is_empty());
        std::fs::create_dir_all(dir.path().join(".windup")).unwrap();
        std::fs::write(file.path(), "{ nope").unwrap();
        let err = file.read().unwrap_err().to_string();
        assert!(err.contains("sitemap.json is not a site map"), "{err}");
        assert!(err.contains("delete it"), "{err}");
        assert!(
            file.update(|_| {}).is_err(),
            "a broken map is never overwritten"
        );
    }
}
