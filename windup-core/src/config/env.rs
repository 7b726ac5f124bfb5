//! The `WINDUP_*` variables (and `CI`) into a [`Layer`], unchecked: the rules are the
//! validator's, the same as for the file and the flags.

use super::layer::{BrowserLayer, Layer, LlmLayer};
use super::origin::{Origin, Sourced, Written};

/// The environment's layer; `env` yields only non-empty values.
pub(super) fn read(env: &dyn Fn(&str) -> Option<String>) -> Layer {
    let var = |var: &'static str| {
        env(var).map(|value| Sourced {
            value: value.clone(),
            origin: Origin::Env { var, value },
        })
    };
    Layer {
        base_url: var("WINDUP_BASE_URL"),
        workers: text(var("WINDUP_WORKERS")),
        browser: BrowserLayer {
            name: var("WINDUP_BROWSER"),
            headed: text(var("WINDUP_HEADED")),
            webdriver_url: var("WINDUP_WEBDRIVER_URL"),
            chromedriver: var("WINDUP_CHROMEDRIVER"),
            chrome: var("WINDUP_CHROME"),
            geckodriver: var("WINDUP_GECKODRIVER"),
            firefox: var("WINDUP_FIREFOX"),
            window: None,
            protocol: var("WINDUP_PROTOCOL"),
        },
        llm: LlmLayer {
            provider: var("WINDUP_LLM"),
            model: var("WINDUP_MODEL"),
            ..LlmLayer::default()
        },
        reports: var("WINDUP_REPORT"),
        update: var("WINDUP_UPDATE"),
        ci: env("CI").is_some_and(|value| {
            !matches!(value.trim().to_ascii_lowercase().as_str(), "false" | "0")
        }),
        ..Layer::default()
    }
}

/// A variable's text, for a setting the file writes typed.
fn text<T>(value: Option<Sourced<String>>) -> Option<Sourced<Written<T>>> {
    value.map(|value| value.map(Written::Text))
}
