//! From a proven violation to a finding and its regression test: a scenario under
//! `scenarios/audit/` and its pinned plan lockfile, whose final expectation is the invariant —
//! what must hold, not what the page showed — so it fails while the bug is there and passes once
//! it is fixed, replayed by `cargo test` at no cost.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::model::invariant::{Invariant, Severity, Source};
use crate::model::plan::{
    Action, ActionKind, GeneratedBy, PLAN_VERSION, Plan, PlannerKind, Postcondition,
};

use super::Finding;

/// What the judge proved, for [`finding`].
pub(super) struct Proven<'a> {
    pub(super) number: usize,
    pub(super) invariant: &'a Invariant,
    pub(super) actions: &'a [Action],
    pub(super) since: Option<String>,
    pub(super) seen: Vec<String>,
    pub(super) attack: &'a str,
    pub(super) fingerprint: &'a str,
    pub(super) first_seen: (usize, Duration),
}

pub(super) fn finding(proven: Proven<'_>) -> Finding {
    let Proven {
        number,
        invariant,
        actions,
        since,
        seen,
        attack,
        fingerprint,
        first_seen,
    } = proven;
    Finding {
        id: format!("{}-{number}", invariant.id),
        invariant_id: invariant.id.clone(),
        source: invariant.source,
        severity: invariant.severity,
        title: title(invariant, attack),
        expected: expected(invariant),
        actual: seen.join("; "),
        impact: impact(invariant),
        steps: actions.iter().map(describe).collect(),
        actions: actions.to_vec(),
        predicate: invariant.predicate.source().to_owned(),
        since,
        within: invariant.within,
        screenshots: Vec::new(),
        attack: attack.to_owned(),
        fingerprint: fingerprint.to_owned(),
        found_after_actions: first_seen.0,
        found_after: first_seen.1,
    }
}

/// The rule as stated, and what decides it: the predicate, with its trigger and bound for an
/// obligation.
fn expected(invariant: &Invariant) -> String {
    let predicate = invariant.predicate.source();
    match (invariant.within, &invariant.when) {
        (Some(within), Some(when)) => format!(
            "{} ({predicate}, within {} of a step where {})",
            invariant.statement,
            humantime::format_duration(within),
            when.source()
        ),
        _ => format!("{} ({predicate})", invariant.statement),
    }
}

fn title(invariant: &Invariant, attack: &str) -> String {
    let rule = invariant.statement.trim_end_matches('.');
    format!("Broken by {attack}: {rule}")
}

fn impact(invariant: &Invariant) -> String {
    match invariant.id.as_str() {
        "no-server-error" => "A person doing this gets an error page, and what they did may be lost.",
        "no-uncaught-exception" => "The page's script stopped half-way: what a person sees may no longer be what the app holds.",
        "no-broken-value" => "A person is shown a value the app failed to compute.",
        super::oracles::MARKUP_RAN => "Anyone who can get text into the page can run script in other people's sessions (cross-site scripting).",
        super::oracles::NEGATIVE_AMOUNT => "A person can turn an amount negative, and may pay less than nothing.",
        super::oracles::DUPLICATE_RECORD => "A person who clicks twice, reloads or goes back gets the same thing done twice (a second order, a second payment).",
        _ => match invariant.source {
            Source::User => "The app breaks a rule its team wrote down.",
            _ => "The app breaks a rule it should keep.",
        },
    }
    .to_owned()
}

/// An action in words, for a finding's steps and the audit's feed.
pub fn describe(action: &Action) -> String {
    let name = action
        .target
        .as_ref()
        .map(|t| {
            t.identity
                .name
                .clone()
                .or_else(|| t.identity.label.clone())
                .unwrap_or_else(|| t.selector.clone())
        })
        .unwrap_or_default();
    match action.kind {
        ActionKind::Goto => format!("go to {}", action.url.as_deref().unwrap_or("/")),
        ActionKind::Fill => match (&action.value, &action.value_ref) {
            (_, Some(reference)) => format!("fill {name:?} with {reference}"),
            (value, None) => format!("fill {name:?} with {:?}", value.as_deref().unwrap_or("")),
        },
        ActionKind::Select => format!(
            "select {:?} in {name:?}",
            action.value.as_deref().unwrap_or("")
        ),
        ActionKind::Press => match &action.target {
            Some(_) => format!("press {} in {name:?}", action.key.as_deref().unwrap_or("")),
            None => format!("press {}", action.key.as_deref().unwrap_or("")),
        },
        ActionKind::Type => format!(
            "type {:?} into {name:?}",
            action.value.as_deref().unwrap_or("")
        ),
        ActionKind::Reload => "reload".to_owned(),
        ActionKind::Back => "go back".to_owned(),
        ActionKind::Forward => "go forward".to_owned(),
        ActionKind::DoubleClick => format!("double-click {name:?}"),
        kind => format!("{} {name:?}", kind.as_str().replace('_', " ")),
    }
}

/// A finding's regression test, written.
#[derive(Debug, Clone, Serialize)]
pub struct EmittedTest {
    /// The scenario file, and its plan lockfile beside it.
    pub scenario: PathBuf,
    pub lockfile: PathBuf,
    /// The scenario as written, then the plan.
    pub code: String,
    pub plan: String,
    /// `windup`.
    pub framework: String,
    /// The same test as a Playwright spec beside them, or why there is none.
    pub spec: Result<EmittedSpec, String>,
}

/// A finding's test as a Playwright spec: `<id>.spec.ts`, and what it holds.
#[derive(Debug, Clone, Serialize)]
pub struct EmittedSpec {
    pub path: PathBuf,
    #[serde(skip)]
    pub code: String,
}

/// Where and how a finding's regression test is written.
#[derive(Debug, Clone)]
pub struct TestPlace<'a> {
    /// The directory the files go to (`scenarios/audit`), and the scenarios directory the
    /// scenario id is relative to.
    pub dir: &'a Path,
    pub root: &'a Path,
    /// The path the test starts on, and the URL a Playwright spec joins paths to by default.
    pub start_url: &'a str,
    pub base_url: &'a str,
    /// The account the plan's references read, and its key → the name of the environment
    /// variable holding the value.
    pub account: Option<&'a str>,
    pub account_keys: &'a std::collections::BTreeMap<String, String>,
    /// A line for the test's header (the run and seed).
    pub note: &'a str,
}

/// Writes `finding`'s regression scenario and pinned plan, and the Playwright spec rendered from
/// the same plan, at `place`. A plan the spec cannot state leaves the spec out, saying why.
pub fn write_test(finding: &Finding, place: &TestPlace<'_>) -> std::io::Result<EmittedTest> {
    std::fs::create_dir_all(place.dir)?;
    let scenario = place.dir.join(format!("{}.yaml", finding.id));
    let id = crate::model::scenario::default_id(&scenario, place.root);
    let task = format!(
        "Regression for an audit finding: {}",
        finding
            .expected
            .split(" (")
            .next()
            .unwrap_or(&finding.expected)
    );
    let plan = regression_plan(finding, &id, &task, place.start_url);
    let code = scenario_yaml(
        finding,
        &id,
        &task,
        place.start_url,
        place.account,
        place.note,
    );
    let plan_json = plan.to_json_pretty();
    std::fs::write(&scenario, &code)?;
    let lockfile = crate::engine::lockfile::lockfile_path(&scenario);
    std::fs::write(&lockfile, &plan_json)?;
    let context = super::playwright::SpecContext {
        base_url: place.base_url,
        account: place.account_keys,
        header: header(finding, place.note)
            .into_iter()
            .chain(["It fails while the bug is there; once fixed it passes.".to_owned()])
            .collect(),
    };
    let spec = match super::playwright::render(&plan, &context) {
        Ok(code) => {
            let path = place.dir.join(format!("{}.spec.ts", finding.id));
            std::fs::write(&path, &code)?;
            Ok(EmittedSpec { path, code })
        }
        Err(why) => Err(why.to_string()),
    };
    Ok(EmittedTest {
        scenario,
        lockfile,
        code,
        plan: plan_json,
        framework: "windup".to_owned(),
        spec,
    })
}

/// The lines both dialects of a regression test open with; each adds how it is kept.
fn header(finding: &Finding, note: &str) -> [String; 4] {
    [
        format!("Found by `cargo windup audit` ({note}): {}", finding.title),
        format!("Expected: {}", finding.expected),
        format!("Actual: {}", finding.actual),
        format!("Steps found: {}", finding.steps.join("; ")),
    ]
}

/// The shrunk actions, numbered again, the last one expecting the invariant.
fn regression_plan(finding: &Finding, id: &str, task: &str, start_url: &str) -> Plan {
    let mut actions = finding.actions.clone();
    let mut since = None;
    for (n, action) in actions.iter_mut().enumerate() {
        let new_id = format!("a{}", n + 1);
        if finding.since.as_deref() == Some(action.id.as_str()) {
            since = Some(new_id.clone());
        }
        action.id = new_id;
        action.expect.clear();
        action.step = None;
    }
    if let Some(last) = actions.last_mut() {
        last.expect.push(Postcondition::Holds {
            predicate: finding.predicate.clone(),
            since,
        });
        // An obligation's bound is the last step's: its predicate must hold within it.
        if let Some(within) = finding.within {
            last.timeout_ms = Some(u64::try_from(within.as_millis()).unwrap_or(u64::MAX));
        }
    }
    Plan {
        plan_version: PLAN_VERSION.to_owned(),
        scenario_id: id.to_owned(),
        task: task.to_owned(),
        start_url: start_url.to_owned(),
        generated_by: GeneratedBy {
            planner: PlannerKind::Audit,
            provider: None,
            model: None,
            at: crate::engine::ledger::started_at(time::OffsetDateTime::now_utc()),
        },
        actions,
    }
}

fn scenario_yaml(
    finding: &Finding,
    id: &str,
    task: &str,
    start_url: &str,
    account: Option<&str>,
    note: &str,
) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    // A value of several lines (a predicate written as a block) stays inside the comment.
    let comment = |s: &str| s.lines().collect::<Vec<_>>().join("\n#   ");
    let mut yaml: String = header(finding, note)
        .iter()
        .map(|line| format!("# {}\n", comment(line)))
        .collect();
    yaml.push_str(
        "# It fails while the bug is there; once fixed it passes, and `cargo test` keeps it so.\n\
         # The plan beside it is pinned: review it like any lockfile.\n",
    );
    yaml.push_str(&format!("id: {}\n", quote(id)));
    yaml.push_str(&format!("task: {}\n", quote(task)));
    yaml.push_str(&format!("start_url: {}\n", quote(start_url)));
    if let Some(account) = account {
        yaml.push_str(&format!("account: {account}\n"));
    }
    if finding.since.is_none() {
        // The step language reads a predicate on one line; CEL reads a newline as a space.
        let one_line = finding.predicate.replace(['\r', '\n'], " ");
        let holds = format!("holds {}", quote(&one_line));
        yaml.push_str(&format!("expect:\n  - {}\n", quote(&holds)));
    }
    let severity = match finding.severity {
        Severity::Critical | Severity::High => "severity-high",
        _ => "severity-medium",
    };
    yaml.push_str(&format!("tags: [audit, {severity}]\n"));
    yaml
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regression_scenario_parses_whatever_its_finding_says() {
        let finding = Finding {
            id: "add-grows-1".to_owned(),
            invariant_id: "add-grows".to_owned(),
            source: Source::User,
            severity: Severity::High,
            title: "Broken by a walk".to_owned(),
            expected: "Adding grows the list (count(\"li\") ==\n  before.count(\"li\") + 1)"
                .to_owned(),
            actual: "input = \"*x\"\n&y: z".to_owned(),
            impact: String::new(),
            steps: vec![
                "fill \"New\" with \"*\"".to_owned(),
                "press Enter".to_owned(),
            ],
            actions: Vec::new(),
            predicate: "count(\"li\") ==\n  before.count(\"li\") + 1".to_owned(),
            since: None,
            within: None,
            screenshots: Vec::new(),
            attack: "a walk".to_owned(),
            fingerprint: String::new(),
            found_after_actions: 0,
            found_after: Duration::ZERO,
        };
        let yaml = scenario_yaml(
            &finding,
            "audit/add-grows-1",
            "Regression",
            "/",
            None,
            "#A-1",
        );
        let parsed = crate::model::scenario::parse(
            &yaml,
            Path::new("scenarios/audit/add-grows-1.yaml"),
            Path::new("scenarios"),
        );
        assert!(parsed.is_ok(), "{yaml}\n{parsed:?}");
    }
}
