//! A finding's regression test as a Playwright spec (`.spec.ts`), rendered from the same pinned
//! plan as the Windup scenario: deterministic, no model in it. The page is read by Windup's own
//! page scripts, embedded in the spec, so a `holds` reads the values Windup's replay reads; the
//! predicate's CEL becomes JavaScript over the spec's runtime (`cel`).
//!
//! What the spec does differently, by Playwright's design: an action acts on the first visible
//! match of its selector once Playwright finds it actionable (Windup also checks the element is
//! what the plan was made for), and a `>>>` shadow chain becomes Playwright's `>>` (its CSS
//! engine sees through open shadow roots). Account values come from the environment variables
//! `windup.toml` names for them, never from the spec.

mod cel;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::invariant::{Predicate, Probe};
use crate::model::plan::{Action, ActionKind, Plan, Postcondition, Target};

pub use cel::Untranslatable;

const RUNTIME: &str = include_str!("runtime.ts");

/// Why a plan has no Playwright spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unrenderable {
    #[error("action {action}: {why}")]
    Action { action: String, why: String },
    #[error("action {action}: {source}")]
    Predicate {
        action: String,
        #[source]
        source: Untranslatable,
    },
}

/// What the spec needs besides the plan.
#[derive(Debug, Clone)]
pub struct SpecContext<'a> {
    /// The URL the plan's paths are joined to when `WINDUP_BASE_URL` is not set.
    pub base_url: &'a str,
    /// The account's key → the name of the environment variable holding its value.
    pub account: &'a BTreeMap<String, String>,
    /// Comment lines for the spec's header.
    pub header: Vec<String>,
}

/// The plan as a Playwright spec.
pub fn render(plan: &Plan, context: &SpecContext<'_>) -> Result<String, Unrenderable> {
    let mut out = String::new();
    for line in &context.header {
        for part in line.lines() {
            let _ = writeln!(out, "// {part}");
        }
    }
    let _ = writeln!(
        out,
        "// Rendered by Windup from the plan {}.plan.json: no model, the same every time.\n\
         // Run it with `WINDUP_BASE_URL=http://… npx playwright test` (and the account's \
         variables set).\n",
        plan.scenario_id
    );
    out.push_str(&prelude(context.base_url));
    let _ = writeln!(
        out,
        "\ntest({}, async ({{ page }}) => {{",
        json(&format!("{}: {}", plan.scenario_id, plan.task))
    );
    out.push_str("  await page.addInitScript({ content: OBSERVER });\n");
    let _ = writeln!(
        out,
        "  await page.goto(new URL({}, BASE_URL).href);",
        json(&plan.start_url)
    );
    let afters = since_probes(plan);
    for (index, action) in plan.actions.iter().enumerate() {
        step(&mut out, plan, index, &afters, context).map_err(|why| match why {
            Failure::Action(why) => Unrenderable::Action {
                action: action.id.clone(),
                why,
            },
            Failure::Predicate(source) => Unrenderable::Predicate {
                action: action.id.clone(),
                source,
            },
        })?;
    }
    out.push_str("});\n");
    Ok(out)
}

const ACCOUNT: &str = "
/** An account value, from the environment variable windup.toml names for it. */
function account(key: string, variable: string): string {
  const value = process.env[variable];
  if (!value) throw new Error(`set ${variable}: it holds the account's ${key}`);
  return value;
}
";

/// What every spec starts with: the imports, `BASE_URL`, and the runtime with Windup's page
/// scripts in it (`reader`, `holds`, `settled`, `cel`, `account`, `urlGlob`).
pub fn prelude(base_url: &str) -> String {
    format!(
        "import {{ test, expect, type Page }} from '@playwright/test';\n\n\
         const BASE_URL = process.env.WINDUP_BASE_URL ?? {};\n\n{}{ACCOUNT}",
        json(base_url),
        runtime()
    )
}

/// A predicate as the JavaScript a spec checks it with: an expression of `now`, `before` (each
/// a `reader` of one look at the page) and `action`.
pub fn translate_predicate(predicate: &Predicate) -> Result<String, Untranslatable> {
    cel::translate(predicate)
}

/// The runtime with Windup's page scripts in it.
fn runtime() -> String {
    RUNTIME
        .replace(
            "__OBSERVER__",
            &json(crate::browser::observer_script_source()),
        )
        .replace(
            "__OBSERVE__",
            &json(crate::browser::observe_script_source()),
        )
}

enum Failure {
    Action(String),
    Predicate(Untranslatable),
}

/// For each action a later `holds … since` compares with: what to read right after it.
fn since_probes(plan: &Plan) -> BTreeMap<String, BTreeSet<Probe>> {
    let mut afters: BTreeMap<String, BTreeSet<Probe>> = BTreeMap::new();
    for action in &plan.actions {
        for condition in &action.expect {
            if let Postcondition::Holds {
                predicate,
                since: Some(since),
            } = condition
                && let Ok(parsed) = Predicate::parse(predicate)
            {
                afters
                    .entry(since.clone())
                    .or_default()
                    .extend(parsed.probes());
            }
        }
    }
    afters
}

fn step(
    out: &mut String,
    plan: &Plan,
    index: usize,
    afters: &BTreeMap<String, BTreeSet<Probe>>,
    context: &SpecContext<'_>,
) -> Result<(), Failure> {
    let action = &plan.actions[index];
    let id = js_name(&action.id);
    let _ = writeln!(out, "\n  // {}: {}", action.id, described(action));
    // A transition compares with the page just before the action: read it first.
    let mut holds = Vec::new();
    for condition in &action.expect {
        if let Postcondition::Holds { predicate, since } = condition {
            let parsed = Predicate::parse(predicate)
                .map_err(|e| Failure::Action(format!("the predicate does not parse: {e}")))?;
            let probes = probes_js(&parsed.probes());
            let before = match since {
                Some(since) => format!("after_{}", js_name(since)),
                None if parsed.reads_before() => {
                    let name = format!("before_{id}_{}", holds.len());
                    let _ = writeln!(out, "  const {name} = await settled(page, {probes});");
                    name
                }
                None => "null".to_owned(),
            };
            holds.push((predicate.clone(), parsed, probes, before));
        }
    }
    let _ = writeln!(out, "  {}", act(action, context).map_err(Failure::Action)?);
    for condition in &action.expect {
        if let Some(line) = element_condition(condition) {
            let _ = writeln!(out, "  {line}");
        }
    }
    let facts = serde_json::to_string(&crate::model::plan::action_facts(&plan.actions, index))
        .unwrap_or_default();
    for (source, parsed, probes, before) in holds {
        let js = cel::translate(&parsed).map_err(Failure::Predicate)?;
        // An obligation is a bounded poll: the step's own time, not the default.
        let bound = action
            .timeout_ms
            .map(|ms| format!(", {ms}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  await holds(page, {}, {probes}, {before}, {facts},\n    (now, before, action) => {js}{bound});",
            json(&source)
        );
    }
    if let Some(probes) = afters.get(&action.id) {
        let _ = writeln!(
            out,
            "  const after_{id} = await settled(page, {});",
            probes_js(probes)
        );
    }
    Ok(())
}

/// The action as one Playwright statement.
fn act(action: &Action, context: &SpecContext<'_>) -> Result<String, String> {
    let element = || {
        action
            .target
            .as_ref()
            .map(locator)
            .ok_or_else(|| format!("a {} needs a target", action.kind))
    };
    let value = || -> Result<String, String> {
        match (&action.value, &action.value_ref) {
            (_, Some(reference)) => {
                let key = reference.strip_prefix("account.").unwrap_or(reference);
                let variable = context.account.get(key).ok_or_else(|| {
                    format!("{reference} names no key of the account in windup.toml")
                })?;
                Ok(format!("account({}, {})", json(key), json(variable)))
            }
            (Some(value), None) => Ok(json(value)),
            (None, None) => Ok(json("")),
        }
    };
    Ok(match action.kind {
        ActionKind::Goto => format!(
            "await page.goto(new URL({}, BASE_URL).href);",
            json(action.url.as_deref().unwrap_or("/"))
        ),
        ActionKind::Click => format!("await {}.click();", element()?),
        ActionKind::DoubleClick => format!("await {}.dblclick();", element()?),
        ActionKind::Hover => format!("await {}.hover();", element()?),
        ActionKind::Fill => format!("await {}.fill({});", element()?, value()?),
        ActionKind::Select => format!(
            "await {}.selectOption({{ label: {} }});",
            element()?,
            value()?
        ),
        ActionKind::Check => format!("await {}.check();", element()?),
        ActionKind::Uncheck => format!("await {}.uncheck();", element()?),
        ActionKind::Press => {
            let key = json(action.key.as_deref().unwrap_or("Enter"));
            match &action.target {
                Some(target) => format!("await {}.press({key});", locator(target)),
                None => format!("await page.keyboard.press({key});"),
            }
        }
        ActionKind::WaitFor => format!("await expect({}).toBeVisible();", element()?),
        ActionKind::Reload => "await page.reload();".to_owned(),
        ActionKind::Back => "await page.goBack();".to_owned(),
        ActionKind::Forward => "await page.goForward();".to_owned(),
        ActionKind::Type => format!("await {}.pressSequentially({});", element()?, value()?),
        ActionKind::Focus => format!("await {}.focus();", element()?),
        ActionKind::Use => return Err("a fragment has no Playwright form".to_owned()),
    })
}

/// The first visible match of a target's selector, in its frames.
fn locator(target: &Target) -> String {
    first_visible(&target.frames, &target.selector)
}

fn first_visible(frames: &[String], selector: &str) -> String {
    format!(
        "{}.filter({{ visible: true }}).first()",
        matches(frames, selector)
    )
}

/// Every match of `selector` in the document the frames lead to.
fn matches(frames: &[String], selector: &str) -> String {
    let mut js = "page".to_owned();
    for frame in frames {
        let _ = write!(js, ".frameLocator({})", json(&playwright_selector(frame)));
    }
    let _ = write!(js, ".locator({})", json(&playwright_selector(selector)));
    js
}

fn playwright_selector(selector: &str) -> String {
    selector.replace(">>>", ">>")
}

/// The postconditions Playwright states itself; `holds` has its own lines.
fn element_condition(condition: &Postcondition) -> Option<String> {
    let element = first_visible;
    Some(match condition {
        Postcondition::ElementVisible { frames, selector } => {
            format!("await expect({}).toBeVisible();", element(frames, selector))
        }
        Postcondition::ElementHidden { frames, selector } => format!(
            "await expect({}.filter({{ visible: true }})).toHaveCount(0);",
            matches(frames, selector)
        ),
        Postcondition::TextVisible { text } => format!(
            "await expect(page.getByText({}).filter({{ visible: true }}).first()).toBeVisible();",
            json(text)
        ),
        Postcondition::TextAbsent { text } => format!(
            "await expect(page.getByText({}).filter({{ visible: true }})).toHaveCount(0);",
            json(text)
        ),
        Postcondition::UrlMatches { pattern } => {
            format!("await expect(page).toHaveURL(urlGlob({}));", json(pattern))
        }
        Postcondition::InputValue {
            frames,
            selector,
            value,
        } => format!(
            "await expect({}).toHaveValue({});",
            element(frames, selector),
            json(value)
        ),
        Postcondition::Holds { .. } => return None,
    })
}

fn probes_js(probes: &BTreeSet<Probe>) -> String {
    serde_json::to_string(&probes.iter().collect::<Vec<_>>()).unwrap_or_default()
}

/// An action id as part of a JavaScript name.
fn js_name(id: &str) -> String {
    id.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

fn described(action: &Action) -> String {
    let name = action
        .target
        .as_ref()
        .and_then(|t| t.identity.name.clone())
        .map(|name| format!(" {name:?}"))
        .unwrap_or_default();
    let what = match action.kind {
        ActionKind::Goto => format!(" {}", action.url.as_deref().unwrap_or("/")),
        _ => name,
    };
    format!("{}{what}", action.kind).replace('\n', " ")
}

fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

#[cfg(test)]
mod tests;
