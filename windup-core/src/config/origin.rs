//! Where a setting's value came from, so that a rule checked once can name the file's line and
//! column, the variable or the flag that gave the value it refuses.

use std::path::Path;

use super::ConfigError;

/// The source of one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Origin {
    /// `windup.toml`, 1-based line and column (in characters).
    File { line: usize, column: usize },
    /// An environment variable (or `.env.local`), with the value as set.
    Env { var: &'static str, value: String },
    /// A command-line flag, with the value as given.
    Flag { flag: &'static str, value: String },
}

impl Origin {
    /// How this source writes `key` set to `value` (a TOML value): `` `workers = 2` ``,
    /// `WINDUP_WORKERS=2`, `--workers 2`.
    pub(super) fn example(&self, key: &str, value: &str) -> String {
        match self {
            Origin::File { .. } => format!("`{key} = {value}`"),
            Origin::Env { var, .. } => format!("{var}={}", value.trim_matches('"')),
            Origin::Flag { flag, .. } => format!("{flag} {}", value.trim_matches('"')),
        }
    }

    /// The error for a value from here; `file` is the path of `windup.toml`.
    pub(super) fn error(
        &self,
        file: &Path,
        message: impl Into<String>,
        hint: impl Into<String>,
    ) -> ConfigError {
        let (message, hint) = (message.into(), hint.into());
        match self {
            Origin::File { line, column } => ConfigError::File {
                path: file.to_owned(),
                line: *line,
                column: *column,
                message,
                hint,
            },
            Origin::Env { var, value } => ConfigError::Env {
                var: (*var).to_owned(),
                value: value.clone(),
                message,
                hint,
            },
            Origin::Flag { flag, value } => ConfigError::Flag {
                flag: (*flag).to_owned(),
                value: value.clone(),
                message,
                hint,
            },
        }
    }
}

/// A value with its origin.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sourced<T> {
    pub(super) value: T,
    pub(super) origin: Origin,
}

impl<T> Sourced<T> {
    pub(super) fn map<U>(self, f: impl FnOnce(T) -> U) -> Sourced<U> {
        Sourced {
            value: f(self.value),
            origin: self.origin,
        }
    }
}

/// A value as its source wrote it: TOML has types, the environment and flags only text.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Written<T> {
    Typed(T),
    Text(String),
}
