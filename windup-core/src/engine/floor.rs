//! The floor of a plan: the same flow carried out by WebDriver's own commands alone
//! ([`Bare`]), with no gate, no identity check, no postcondition and no look at the page. It is
//! what the browser and its driver need for the flow on this machine, and the bench judges a
//! replay's time against it (docs/cli.md#cargo-windup-bench): a replay can be no faster than the
//! browser, and should cost little more.

use std::time::{Duration, Instant};

use crate::browser::{Bare, Key, Session};
use crate::engine::executor::{ExecOptions, ValueSource};
use crate::model::plan::{Action, ActionKind, Plan};

/// Carries out `plan` on `session` by WebDriver's own commands, from its start page; the time it
/// took. An action WebDriver alone cannot carry out (an element in a frame or a shadow root, a
/// fragment) or that fails is an error naming it.
pub async fn floor(
    session: &Session,
    options: &ExecOptions,
    values: &dyn ValueSource,
    plan: &Plan,
) -> Result<Duration, String> {
    let start = url(options, &plan.start_url)?;
    let started = Instant::now();
    session
        .bare(Bare::Open(&start), options.default_timeout)
        .await
        .map_err(|e| format!("the start page: {e}"))?;
    for action in &plan.actions {
        let within = action
            .timeout_ms
            .map_or(options.default_timeout, Duration::from_millis);
        let value = match (&action.value, &action.value_ref) {
            (Some(value), _) => Some(value.clone()),
            (None, Some(reference)) => values
                .resolve(reference)
                .map(|secret| secret.expose().to_owned()),
            (None, None) => None,
        };
        let opened = match action.kind {
            ActionKind::Goto => Some(url(options, action.url.as_deref().unwrap_or("/"))?),
            _ => None,
        };
        let step = bare(action, value.as_deref(), opened.as_deref())
            .map_err(|why| format!("action {}: {why}", action.id))?;
        let times = if action.kind == ActionKind::DoubleClick {
            2
        } else {
            1
        };
        for _ in 0..times {
            session
                .bare(step, within)
                .await
                .map_err(|e| format!("action {}: {e}", action.id))?;
        }
    }
    Ok(started.elapsed())
}

/// A URL of the plan, resolved against the base URL.
fn url(options: &ExecOptions, raw: &str) -> Result<String, String> {
    options
        .base_url
        .join(raw)
        .map(String::from)
        .map_err(|e| format!("{raw:?} is not a valid URL ({e})"))
}

/// The WebDriver step for `action`, its value and the URL it opens already resolved.
fn bare<'a>(
    action: &'a Action,
    value: Option<&'a str>,
    opened: Option<&'a str>,
) -> Result<Bare<'a>, String> {
    let selector = || -> Result<&'a str, String> {
        let target = action.target.as_ref().ok_or("it has no target")?;
        if !target.frames.is_empty() || target.selector.contains(">>>") {
            return Err(format!(
                "{} is in a frame or a shadow root, which WebDriver's own find cannot reach",
                target.selector
            ));
        }
        Ok(&target.selector)
    };
    let text = || value.ok_or_else(|| "it has no value".to_owned());
    Ok(match action.kind {
        ActionKind::Goto => Bare::Open(opened.unwrap_or_default()),
        ActionKind::Click | ActionKind::DoubleClick => Bare::Click(selector()?),
        ActionKind::Fill => Bare::Fill {
            selector: selector()?,
            text: text()?,
            clear: true,
        },
        ActionKind::Type => Bare::Fill {
            selector: selector()?,
            text: text()?,
            clear: false,
        },
        ActionKind::Select => Bare::Select {
            selector: selector()?,
            option: text()?,
        },
        ActionKind::Check | ActionKind::Uncheck => Bare::Check {
            selector: selector()?,
            checked: action.kind == ActionKind::Check,
        },
        ActionKind::Press => {
            let name = action.key.as_deref().ok_or("it has no key")?;
            Bare::Press {
                selector: action.target.as_ref().map(|_| selector()).transpose()?,
                key: Key::named(name).ok_or_else(|| format!("{name:?} is not a key"))?,
            }
        }
        ActionKind::Hover => Bare::Hover(selector()?),
        ActionKind::Focus | ActionKind::WaitFor => Bare::Find(selector()?),
        ActionKind::Back => Bare::Back,
        ActionKind::Forward => Bare::Forward,
        ActionKind::Reload => Bare::Reload,
        ActionKind::Use => return Err("a fragment's actions are not in the plan".to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::Target;

    fn targeted(kind: ActionKind, selector: &str) -> Action {
        let mut action = Action::new("a", kind);
        action.target = Some(Target {
            frames: Vec::new(),
            selector: selector.to_owned(),
            identity: Default::default(),
        });
        action
    }

    #[test]
    fn each_action_is_one_webdriver_step_and_what_webdriver_cannot_reach_is_said() {
        let fill = targeted(ActionKind::Fill, "#email");
        assert!(matches!(
            bare(&fill, Some("a@b"), None),
            Ok(Bare::Fill {
                selector: "#email",
                text: "a@b",
                clear: true
            })
        ));
        assert_eq!(bare(&fill, None, None).unwrap_err(), "it has no value");
        let uncheck = targeted(ActionKind::Uncheck, "#terms");
        assert!(matches!(
            bare(&uncheck, None, None),
            Ok(Bare::Check { checked: false, .. })
        ));
        let shadow = targeted(ActionKind::Click, "todo-app >>> li");
        assert!(
            bare(&shadow, None, None)
                .unwrap_err()
                .contains("shadow root")
        );
        let fragment = Action::new("b", ActionKind::Use);
        assert!(bare(&fragment, None, None).is_err());
    }
}
