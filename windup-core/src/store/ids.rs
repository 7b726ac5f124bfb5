use std::fmt;
use std::str::FromStr;

use super::StoreError;

/// A run of an audit, `#A-1001`: numbered in order within its store, from 1001.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RunId(pub(super) i64);

/// A finding of an audit, `#F-1`: unique within its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FindingId(pub(super) i64);

impl RunId {
    /// The id as a URL or a file name spells it: `A-1001`.
    pub fn slug(&self) -> String {
        format!("A-{}", self.0)
    }
}

impl FindingId {
    /// The id as a URL spells it: `F-1`.
    pub fn slug(&self) -> String {
        format!("F-{}", self.0)
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#A-{}", self.0)
    }
}

impl fmt::Display for FindingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#F-{}", self.0)
    }
}

/// `#A-1001`, `A-1001` or `a-1001` (a `#` is awkward in shells and URLs): the number after
/// `letter-`, if the text is exactly that.
fn parse_id(text: &str, letter: char) -> Option<i64> {
    let rest = text.strip_prefix('#').unwrap_or(text);
    let mut chars = rest.chars();
    let first = chars.next()?;
    if !first.eq_ignore_ascii_case(&letter) || chars.next()? != '-' {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

impl FromStr for RunId {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_id(text, 'A')
            .map(RunId)
            .ok_or_else(|| StoreError::BadId {
                text: text.to_owned(),
                kind: "run",
                example: "#A-1001",
            })
    }
}

impl FromStr for FindingId {
    type Err = StoreError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        parse_id(text, 'F')
            .map(FindingId)
            .ok_or_else(|| StoreError::BadId {
                text: text.to_owned(),
                kind: "finding",
                example: "#F-1",
            })
    }
}
