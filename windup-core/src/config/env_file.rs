//! `.env.local`: variables for local runs, read once with the settings. The environment wins
//! over the file; the values may be secrets, so nothing here ever shows one.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file next to windup.toml that holds secret values for local runs.
pub const ENV_FILE: &str = ".env.local";

/// Why `.env.local` could not be read.
#[derive(Debug, thiserror::Error)]
#[error(
    "{path}: {message}; fix the line (KEY=value, one per line, # for comments) or remove the file"
)]
pub struct EnvFileError {
    pub path: PathBuf,
    pub message: String,
}

/// `.env.local`'s variables, read once with the settings; the environment wins over them.
#[derive(Default, Clone, PartialEq, Eq)]
pub struct EnvFile {
    vars: BTreeMap<String, String>,
}

/// The names only: the values are secrets.
impl fmt::Debug for EnvFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.vars.keys()).finish()
    }
}

impl EnvFile {
    /// Reads `ROOT/.env.local`; a missing file is empty.
    pub fn load(root: &Path) -> Result<Self, EnvFileError> {
        let path = root.join(ENV_FILE);
        let iter = match dotenvy::from_path_iter(&path) {
            Ok(iter) => iter,
            Err(dotenvy::Error::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self::default());
            }
            Err(err) => {
                return Err(EnvFileError {
                    path,
                    message: err.to_string(),
                });
            }
        };
        let mut vars = BTreeMap::new();
        for item in iter {
            let (key, value) = item.map_err(|err| EnvFileError {
                path: path.clone(),
                message: describe(&err),
            })?;
            vars.insert(key, value);
        }
        Ok(Self { vars })
    }

    /// The same variables and `name` set to `value`, as if the file held it: for a front end
    /// that knows a value the project does not configure (the demo shop's public account).
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_owned(), value.to_owned());
        self
    }

    /// A variable as the file holds it, whatever the environment says.
    pub fn in_file(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// A variable from the environment, else from the file.
    pub fn var(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .or_else(|| self.vars.get(name).cloned())
    }
}

/// dotenvy's parse errors name the line; never echo the line's text, which may hold a value.
fn describe(err: &dotenvy::Error) -> String {
    match err {
        dotenvy::Error::LineParse(_, index) => {
            format!("cannot parse the line at byte {index}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_env_file_fills_in_what_the_environment_lacks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(ENV_FILE),
            "# local secrets\nWINDUP_TEST_SECRET_A=from-file\nexport WINDUP_TEST_SECRET_B=\"quoted value\"\n",
        )
        .unwrap();
        let env = EnvFile::load(dir.path()).unwrap();
        assert_eq!(
            env.var("WINDUP_TEST_SECRET_A").as_deref(),
            Some("from-file")
        );
        assert_eq!(
            env.var("WINDUP_TEST_SECRET_B").as_deref(),
            Some("quoted value")
        );
        assert_eq!(env.var("WINDUP_TEST_SECRET_MISSING"), None);
        assert_eq!(
            format!("{env:?}"),
            "{\"WINDUP_TEST_SECRET_A\", \"WINDUP_TEST_SECRET_B\"}",
            "names, never values"
        );
        assert!(
            EnvFile::load(&dir.path().join("nowhere"))
                .unwrap()
                .vars
                .is_empty()
        );

        std::fs::write(
            dir.path().join(ENV_FILE),
            "GOOD=1\nthis is not a line = 'x\n",
        )
        .unwrap();
        let err = EnvFile::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(".env.local: cannot parse"), "{err}");
        assert!(!err.contains("this is not"), "never echo a line: {err}");
    }
}
