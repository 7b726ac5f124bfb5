//! Command-line flags as a [`Layer`] above the environment and the file, checked by the same
//! rules and named in errors as the user typed them (`--workers`).

use super::layer::{BrowserLayer, Layer};
use super::origin::{Origin, Sourced, Written};

/// What a front end's flags set, over the environment and `windup.toml`. Each value goes
/// through the same checks as the file's and the environment's; `None` and `false` leave the
/// setting to them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--workers N`: browser workers (`workers`, `WINDUP_WORKERS`).
    pub workers: Option<usize>,
    /// `--headed`: show the browser window (`headless = false`, `WINDUP_HEADED=1`).
    pub headed: bool,
    /// `--report KIND=PATH,…`: reports to write (`WINDUP_REPORT`).
    pub report: Option<String>,
    /// `--base-url URL`: the site under test (`base_url`, `WINDUP_BASE_URL`).
    pub base_url: Option<String>,
    /// `--browser NAME`: which browser to drive (`browser`, `WINDUP_BROWSER`).
    pub browser: Option<String>,
}

impl Overrides {
    pub(super) fn layer(&self) -> Layer {
        let flag = |flag: &'static str, value: String| Sourced {
            value: value.clone(),
            origin: Origin::Flag { flag, value },
        };
        Layer {
            base_url: self.base_url.clone().map(|url| flag("--base-url", url)),
            workers: self
                .workers
                .map(|n| flag("--workers", n.to_string()).map(Written::Text)),
            browser: BrowserLayer {
                name: self.browser.clone().map(|name| flag("--browser", name)),
                headed: self
                    .headed
                    .then(|| flag("--headed", String::new()).map(|_| Written::Typed(true))),
                ..BrowserLayer::default()
            },
            reports: self.report.clone().map(|spec| flag("--report", spec)),
            ..Layer::default()
        }
    }
}
