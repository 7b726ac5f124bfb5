//! Plan lockfiles: the reviewable, committed copy of each scenario's active plan, next to it as
//! `scenarios/NAME.plan.json`. A new or changed plan first arrives as `NAME.plan.json.new` and is
//! accepted or rejected in review (`cargo windup review`), or accepted at once with
//! `WINDUP_UPDATE=always` — insta's model.

use std::path::{Path, PathBuf};

use crate::config::UpdateMode;
use crate::model::plan::{Action, Plan, Rules};

const LOCK_EXTENSION: &str = "plan.json";
const PENDING_SUFFIX: &str = ".new";

/// The accepted lockfile of a scenario file: `checkout.yaml` → `checkout.plan.json`.
pub fn lockfile_path(scenario_path: &Path) -> PathBuf {
    scenario_path.with_extension(LOCK_EXTENSION)
}

/// The pending lockfile, waiting for review: `checkout.plan.json.new`.
pub fn pending_path(scenario_path: &Path) -> PathBuf {
    let mut path = lockfile_path(scenario_path).into_os_string();
    path.push(PENDING_SUFFIX);
    PathBuf::from(path)
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LockfileError {
    #[error("cannot read {path}: {source}", path = .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not a valid plan: {reason}; fix it, or delete it and let the scenario be planned again",
        path = .path.display()
    )]
    Invalid { path: PathBuf, reason: String },
    #[error("cannot write {path}: {source}", path = .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no pending plan at {path} to {what}", path = .path.display())]
    NothingPending { path: PathBuf, what: &'static str },
}

/// Reads a plan file, or `None` when there is none.
pub fn read(path: &Path) -> Result<Option<Plan>, LockfileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(LockfileError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    // The account keys a plan may use are the scenario's concern, checked when the plan runs;
    // here every reference the file makes is allowed, and everything else is checked.
    let references: Vec<String> = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("actions").and_then(|a| a.as_array()).cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|action| action.get("value_ref")?.as_str().map(str::to_owned))
        .collect();
    Plan::from_json_str(&text, &Rules::with_account_keys(references))
        .map(Some)
        .map_err(|err| LockfileError::Invalid {
            path: path.to_owned(),
            reason: err.to_string(),
        })
}

/// What happened to a plan after a run made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The same as the accepted lockfile: nothing to review.
    Unchanged,
    /// Written as `NAME.plan.json.new`, waiting for review.
    Pending(PathBuf),
    /// Written straight to `NAME.plan.json` (`WINDUP_UPDATE=always`).
    Accepted(PathBuf),
    /// Not written: updates are off (`WINDUP_UPDATE=no`, or CI).
    Skipped,
}

/// Records a verified plan for review as `mode` says. A plan equal to the accepted one in all but
/// when and by whom it was made changes nothing (and removes a stale pending file).
pub fn record(
    scenario_path: &Path,
    plan: &Plan,
    mode: UpdateMode,
) -> Result<Written, LockfileError> {
    let accepted = lockfile_path(scenario_path);
    let pending = pending_path(scenario_path);
    if let Some(current) = read(&accepted)?
        && same_plan(&current, plan)
    {
        remove_if_present(&pending)?;
        return Ok(Written::Unchanged);
    }
    match mode {
        UpdateMode::No => Ok(Written::Skipped),
        UpdateMode::Always => {
            write(&accepted, plan)?;
            remove_if_present(&pending)?;
            Ok(Written::Accepted(accepted))
        }
        UpdateMode::Auto | UpdateMode::New => {
            write(&pending, plan)?;
            Ok(Written::Pending(pending))
        }
    }
}

/// Whether two plans do the same thing: everything but `generated_by`.
pub fn same_plan(a: &Plan, b: &Plan) -> bool {
    a.plan_version == b.plan_version
        && a.scenario_id == b.scenario_id
        && a.task == b.task
        && a.start_url == b.start_url
        && a.actions.len() == b.actions.len()
        && a.actions
            .iter()
            .zip(&b.actions)
            .all(|(x, y)| same_action(x, y))
}

/// The same action; a lockfile written before actions carried their `step` matches the same
/// action with it.
fn same_action(a: &Action, b: &Action) -> bool {
    let without_step = |action: &Action| Action {
        step: None,
        ..action.clone()
    };
    a.written_step() == b.written_step() && without_step(a) == without_step(b)
}

/// A plan waiting for review.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The `.plan.json.new` file.
    pub path: PathBuf,
    /// The lockfile it would replace.
    pub lockfile: PathBuf,
    pub current: Option<Plan>,
    pub proposed: Plan,
}

/// Every pending plan under `dir`, sorted by path.
pub fn pending(dir: &Path) -> Result<Vec<Pending>, LockfileError> {
    let mut found = Vec::new();
    collect_pending(dir, &mut found)?;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn collect_pending(dir: &Path, found: &mut Vec<Pending>) -> Result<(), LockfileError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(LockfileError::Read {
                path: dir.to_owned(),
                source,
            });
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_pending(&path, found)?;
            continue;
        }
        let name = path.to_string_lossy();
        if let Some(lockfile) = name.strip_suffix(PENDING_SUFFIX)
            && lockfile.ends_with(LOCK_EXTENSION)
        {
            let lockfile = PathBuf::from(lockfile);
            let proposed = read(&path)?.ok_or_else(|| LockfileError::NothingPending {
                path: path.clone(),
                what: "review",
            })?;
            found.push(Pending {
                current: read(&lockfile)?,
                path,
                lockfile,
                proposed,
            });
        }
    }
    Ok(())
}

/// Accepts a pending plan: it becomes the lockfile.
pub fn accept(pending: &Path) -> Result<PathBuf, LockfileError> {
    let lockfile = lockfile_for_pending(pending, "accept")?;
    std::fs::rename(pending, &lockfile).map_err(|source| LockfileError::Write {
        path: lockfile.clone(),
        source,
    })?;
    Ok(lockfile)
}

/// Rejects a pending plan: it is deleted, the lockfile stays as it was.
pub fn reject(pending: &Path) -> Result<(), LockfileError> {
    lockfile_for_pending(pending, "reject")?;
    std::fs::remove_file(pending).map_err(|source| LockfileError::Write {
        path: pending.to_owned(),
        source,
    })
}

fn lockfile_for_pending(pending: &Path, what: &'static str) -> Result<PathBuf, LockfileError> {
    let name = pending.to_string_lossy();
    match name.strip_suffix(PENDING_SUFFIX) {
        Some(lockfile) if pending.is_file() => Ok(PathBuf::from(lockfile)),
        _ => Err(LockfileError::NothingPending {
            path: pending.to_owned(),
            what,
        }),
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a plan.
fn write(path: &Path, plan: &Plan) -> Result<(), LockfileError> {
    let error = |source| LockfileError::Write {
        path: path.to_owned(),
        source,
    };
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, plan.to_json_pretty()).map_err(error)?;
    std::fs::rename(&temporary, path).map_err(error)
}

fn remove_if_present(path: &Path) -> Result<(), LockfileError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(LockfileError::Write {
            path: path.to_owned(),
            source,
        }),
    }
}

/// What changed between an accepted plan and a proposed one, action by action, for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanDiff {
    pub lines: Vec<DiffLine>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    Same(String),
    Removed(String),
    Added(String),
}

impl PlanDiff {
    /// Compares the plans' start and actions; each action is one line: its id, type, selector,
    /// value or reference, and postconditions.
    pub fn between(current: Option<&Plan>, proposed: &Plan) -> Self {
        let old: Vec<String> = current.map(summary).unwrap_or_default();
        let new = summary(proposed);
        Self {
            lines: diff_lines(&old, &new),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|l| matches!(l, DiffLine::Same(_)))
    }
}

impl std::fmt::Display for PlanDiff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for line in &self.lines {
            match line {
                DiffLine::Same(text) => writeln!(f, "  {text}")?,
                DiffLine::Removed(text) => writeln!(f, "- {text}")?,
                DiffLine::Added(text) => writeln!(f, "+ {text}")?,
            }
        }
        Ok(())
    }
}

fn summary(plan: &Plan) -> Vec<String> {
    let mut lines = vec![format!("start {}", plan.start_url)];
    lines.extend(plan.actions.iter().map(action_line));
    lines
}

fn action_line(action: &Action) -> String {
    let mut line = format!("{} {}", action.id, action.kind);
    if let Some(target) = &action.target {
        line.push_str(&format!(" {}", target.selector));
        let identity = &target.identity;
        if let Some(name) = identity.name.as_ref().or(identity.label.as_ref()) {
            line.push_str(&format!(
                " ({} {name:?})",
                identity.role.as_deref().unwrap_or(&identity.tag)
            ));
        }
    }
    if let Some(url) = &action.url {
        line.push_str(&format!(" {url}"));
    }
    if let Some(value) = &action.value {
        line.push_str(&format!(" = {value:?}"));
    }
    if let Some(reference) = &action.value_ref {
        line.push_str(&format!(" = {reference}"));
    }
    if let Some(key) = &action.key {
        line.push_str(&format!(" {key}"));
    }
    if !action.expect.is_empty() {
        let expects: Vec<String> = action
            .expect
            .iter()
            .map(crate::engine::verifier::describe)
            .collect();
        line.push_str(&format!(" ⇒ {}", expects.join(", ")));
    }
    line
}

/// A line diff by longest common subsequence; plans are short, so quadratic is fine.
fn diff_lines(old: &[String], new: &[String]) -> Vec<DiffLine> {
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            out.push(DiffLine::Same(old[i].clone()));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push(DiffLine::Removed(old[i].clone()));
            i += 1;
        } else {
            out.push(DiffLine::Added(new[j].clone()));
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::plan::{ActionKind, GeneratedBy, Identity, Postcondition, Target};

    fn plan(button: &str) -> Plan {
        let mut click = Action::new("s1", ActionKind::Click);
        click.target = Some(Target {
            frames: Vec::new(),
            selector: format!("[data-testid=\"{button}\"]"),
            identity: Identity {
                tag: "button".into(),
                role: Some("button".into()),
                name: Some("Add to cart".into()),
                label: None,
                within: None,
            },
        });
        let mut password = Action::new("s2", ActionKind::Fill);
        password.target = Some(Target {
            frames: Vec::new(),
            selector: "#password".into(),
            identity: Identity {
                tag: "input".into(),
                ..Identity::default()
            },
        });
        password.value_ref = Some("account.password".into());
        password.expect = vec![Postcondition::UrlMatches {
            pattern: "/cart".into(),
        }];
        Plan {
            plan_version: "0.1".into(),
            scenario_id: "checkout".into(),
            task: "Buy a mug.".into(),
            start_url: "/".into(),
            generated_by: GeneratedBy {
                planner: crate::model::plan::PlannerKind::Offline,
                provider: None,
                model: None,
                at: "2026-11-30T00:00:00Z".into(),
            },
            actions: vec![click, password],
        }
    }

    fn scenario_in(dir: &Path) -> PathBuf {
        let path = dir.join("checkout.yaml");
        std::fs::write(&path, "task: Buy a mug.\n").unwrap();
        path
    }

    #[test]
    fn paths_sit_next_to_the_scenario() {
        let scenario = Path::new("scenarios/shop/checkout.yaml");
        assert_eq!(
            lockfile_path(scenario),
            Path::new("scenarios/shop/checkout.plan.json")
        );
        assert_eq!(
            pending_path(scenario),
            Path::new("scenarios/shop/checkout.plan.json.new")
        );
    }

    #[test]
    fn a_new_plan_waits_for_review_then_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = scenario_in(dir.path());
        let written = record(&scenario, &plan("add"), UpdateMode::Auto).unwrap();
        assert_eq!(written, Written::Pending(pending_path(&scenario)));
        assert!(!lockfile_path(&scenario).exists());

        let waiting = pending(dir.path()).unwrap();
        assert_eq!(waiting.len(), 1);
        assert_eq!(waiting[0].current, None);
        assert_eq!(waiting[0].proposed, plan("add"));
        accept(&waiting[0].path).unwrap();
        assert_eq!(read(&lockfile_path(&scenario)).unwrap(), Some(plan("add")));
        assert!(pending(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn an_unchanged_plan_writes_nothing_and_a_changed_one_shows_its_diff() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = scenario_in(dir.path());
        record(&scenario, &plan("add"), UpdateMode::Always).unwrap();
        let mut again = plan("add");
        again.generated_by.at = "2026-12-01T00:00:00Z".into();
        assert_eq!(
            record(&scenario, &again, UpdateMode::Auto).unwrap(),
            Written::Unchanged
        );

        record(&scenario, &plan("buy-now"), UpdateMode::Auto).unwrap();
        let waiting = pending(dir.path()).unwrap();
        let diff = PlanDiff::between(waiting[0].current.as_ref(), &waiting[0].proposed);
        assert!(!diff.is_empty());
        insta::assert_snapshot!("lockfile_diff", diff.to_string());
        reject(&waiting[0].path).unwrap();
        assert_eq!(
            read(&lockfile_path(&scenario)).unwrap(),
            Some(plan("add")),
            "kept"
        );
    }

    #[test]
    fn read_only_mode_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = scenario_in(dir.path());
        assert_eq!(
            record(&scenario, &plan("add"), UpdateMode::No).unwrap(),
            Written::Skipped
        );
        assert!(
            std::fs::read_dir(dir.path()).unwrap().count() == 1,
            "only the scenario"
        );
    }

    #[test]
    fn a_broken_lockfile_says_how_to_recover() {
        let dir = tempfile::tempdir().unwrap();
        let scenario = scenario_in(dir.path());
        std::fs::write(lockfile_path(&scenario), "{ \"plan_version\": \"0.1\" }").unwrap();
        let err = read(&lockfile_path(&scenario)).unwrap_err().to_string();
        assert!(err.contains("is not a valid plan"), "{err}");
        assert!(
            err.contains("delete it and let the scenario be planned again"),
            "{err}"
        );
        assert!(matches!(
            accept(&pending_path(&scenario)),
            Err(LockfileError::NothingPending { .. })
        ));
    }
}
