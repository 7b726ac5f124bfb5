//! What counting an app's code saw ([`super::intercept`], the `audit` feature), and what a
//! session answers without that feature.

use std::collections::BTreeMap;

/// What the instrumenting saw: the scripts it counted, and those it could not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoverageStats {
    /// Each instrumented script's id and its edges.
    pub scripts: BTreeMap<String, u32>,
    /// Scripts served as they came because they did not parse: their address and why.
    pub refused: Vec<String>,
    /// Requests that could not be fetched here and went on to the browser's own fetch, their
    /// scripts uncounted.
    pub unfetched: u32,
    /// The distinct edges the session's observations saw taken.
    pub reached: usize,
}

impl CoverageStats {
    /// The edges of every script counted.
    pub fn edges(&self) -> u64 {
        self.scripts.values().map(|&n| u64::from(n)).sum()
    }
}

#[cfg(not(feature = "audit"))]
impl super::Session {
    /// Counting an app's code is part of the `audit` feature; without it, this says so.
    pub async fn cover(&self, _origin: &url::Url) -> Result<(), String> {
        Err("Windup was built without its `audit` feature, which counts an app's code".to_owned())
    }

    /// Nothing is counted without the `audit` feature.
    pub fn coverage(&self) -> Option<CoverageStats> {
        None
    }

    /// Nothing is counted without the `audit` feature.
    pub fn edges_taken(&self) -> std::collections::BTreeSet<(String, u32)> {
        std::collections::BTreeSet::new()
    }
}
