//! Bombadil (Antithesis' property-based web UI tester) on the corpus, beside Windup's audit in
//! the efficacy benchmark: each app's `bombadil/spec.ts` states the rules of its `invariants/`,
//! each property named by its invariant's id in camel case, so a violation maps to a seeded bug
//! as a Windup finding does.
//!
//! Bombadil comes from the npm package pinned in `tools/bombadil`, installed there with `npm ci`
//! on first use: only the benchmark needs it, never the test suite. It runs as `bombadil browser
//! test --headless --no-sandbox --time-limit Ns --output-path DIR URL SPEC`, exits 0 when the
//! time ran out, 2 when a property was violated and 1 on an error, and writes `DIR/trace.jsonl`:
//! one line per state, with the action that led to it and the properties it violated.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use crate::efficacy::{Plan, Tool, Trial};
use crate::{App, serve};

/// Where the pinned package is installed.
pub fn project() -> PathBuf {
    let dir = crate::root().join("../../tools/bombadil");
    dir.canonicalize().unwrap_or(dir)
}

/// The copy of the lockfile `npm ci` left, as `cargo xtask` marks its own npm projects: equal
/// to the lockfile, the installed package is the locked one.
const STAMP: &str = "node_modules/.xtask-package-lock.json";

/// Installs the pinned Bombadil with `npm ci` unless it is there as locked, and gives the path
/// of its command.
pub fn install() -> Result<PathBuf, String> {
    let dir = project();
    let lock = std::fs::read(dir.join("package-lock.json"))
        .map_err(|e| format!("{}: {e}", dir.join("package-lock.json").display()))?;
    if std::fs::read(dir.join(STAMP)).ok().as_deref() != Some(&lock[..]) {
        eprintln!(
            "efficacy: installing Bombadil (npm ci in {})",
            dir.display()
        );
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            // The bench's standard output is its table.
            .stdout(std::io::stderr())
            .status()
            .map_err(|e| format!("cannot run npm (is Node.js installed?): {e}"))?;
        if !status.success() {
            return Err(format!("`npm ci` in {} failed ({status})", dir.display()));
        }
        std::fs::write(dir.join(STAMP), &lock).map_err(|e| format!("{STAMP}: {e}"))?;
    }
    Ok(dir.join("node_modules/.bin/bombadil"))
}

/// The installed Bombadil's version, from its package.
pub fn version() -> Option<String> {
    let package = project().join("node_modules/@antithesishq/bombadil/package.json");
    let package: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(package).ok()?).ok()?;
    package["version"].as_str().map(str::to_owned)
}

/// An app's specification for Bombadil.
pub fn spec(app: &App) -> PathBuf {
    app.dir.join("bombadil/spec.ts")
}

/// The Windup invariant a Bombadil property stands for: its name from camel case to the id's
/// kebab case (`scoreAtMostAnswered` is `score-at-most-answered`).
pub fn invariant_id(property: &str) -> String {
    let mut id = String::with_capacity(property.len() + 8);
    for c in property.chars() {
        if c.is_ascii_uppercase() {
            id.push('-');
            id.push(c.to_ascii_lowercase());
        } else {
            id.push(c);
        }
    }
    id
}

/// The property a Windup invariant is in a spec: its id in camel case.
pub fn property_name(invariant: &str) -> String {
    let mut name = String::with_capacity(invariant.len());
    let mut upper = false;
    for c in invariant.chars() {
        match c {
            '-' => upper = true,
            c if upper => {
                name.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => name.push(c),
        }
    }
    name
}

/// What a run's trace says.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    /// The invariants broken (by [`invariant_id`]), each with when it was first, after the run's
    /// start.
    pub broken: BTreeMap<String, Duration>,
    /// States that an action led to.
    pub actions: usize,
    /// Distinct states, by Bombadil's own hash of each.
    pub states: usize,
}

/// Reads a `trace.jsonl` written by a run that started at `started`. A line that is not JSON
/// (the last one, cut short when the run was killed) is skipped.
pub fn read_trace(trace: &str, started: SystemTime) -> Outcome {
    let mut outcome = Outcome::default();
    let mut states = std::collections::BTreeSet::new();
    for entry in trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
    {
        if !entry["action"].is_null() {
            outcome.actions += 1;
        }
        if let Some(hash) = entry["state"]["hash_current"].as_u64() {
            states.insert(hash);
        }
        // Timestamps are microseconds since the epoch.
        let at = entry["timestamp"]
            .as_u64()
            .map(|micros| SystemTime::UNIX_EPOCH + Duration::from_micros(micros))
            .and_then(|t| t.duration_since(started).ok())
            .unwrap_or_default();
        let names = entry["violations"].as_array().into_iter().flatten();
        for name in names.filter_map(|v| v["name"].as_str()) {
            outcome.broken.entry(invariant_id(name)).or_insert(at);
        }
    }
    outcome.states = states.len();
    outcome
}

/// Tests `app` with Bombadil (`command`, from [`install`]) once, with all its bugs on or none,
/// for `plan.time`; its output goes under `root`. `plan.seed` only numbers the run: Bombadil's
/// browser test takes no seed.
pub async fn trial(command: &Path, app: &App, bugs_on: bool, plan: Plan, root: &Path) -> Trial {
    let mut trial = Trial::new(app, bugs_on, plan, Tool::Bombadil);
    let bugs = if bugs_on { app.all_bugs() } else { Vec::new() };
    let site = match serve(app, &bugs).await {
        Ok(site) => site,
        Err(err) => {
            trial.error = Some(err.to_string());
            return trial;
        }
    };
    let started = (SystemTime::now(), Instant::now());
    let ended = run(command, &site.url(), &spec(app), plan.time, root).await;
    trial.runtime = started.1.elapsed();
    site.stop().await;
    match std::fs::read_to_string(root.join("trace.jsonl")) {
        Ok(trace) => {
            let outcome = read_trace(&trace, started.0);
            trial.broken = outcome.broken;
            trial.actions = outcome.actions;
            trial.states = outcome.states;
            trial.error = match ended {
                Ok(VIOLATED) if trial.broken.is_empty() => {
                    Some("it exited with 2 (a violation) but its trace names none".to_owned())
                }
                Ok(_) => None,
                Err(err) => Some(err),
            };
        }
        Err(err) => {
            let why = ended.err().unwrap_or_else(|| "it ended".to_owned());
            trial.error = Some(format!("{why}, and left no trace: {err}"));
        }
    }
    trial
}

/// Bombadil's exit code when it found a property violated (0 is the time limit reached).
const VIOLATED: i32 = 2;

/// Runs Bombadil on `url` until its time limit and gives its exit code, or says why it ended
/// otherwise than by the limit or a violation. A run that outlives the limit by a minute is
/// killed, with the browser it started (its own process group).
async fn run(
    command: &Path,
    url: &str,
    spec: &Path,
    time: Duration,
    out: &Path,
) -> Result<i32, String> {
    let _ = std::fs::create_dir_all(out);
    let log = |name: &str| {
        std::fs::File::create(out.join(name))
            .map(Stdio::from)
            .unwrap_or_else(|_| Stdio::null())
    };
    let mut child = tokio::process::Command::new(command)
        .args(["browser", "test", "--headless"])
        // Chromium refuses to start as root without it; the bench opens only its own sites.
        .arg("--no-sandbox")
        .arg("--time-limit")
        .arg(format!("{}s", time.as_secs().max(1)))
        .arg("--output-path")
        .arg(out)
        .arg("--output-path-overwrite")
        .arg(url)
        .arg(spec)
        .stdout(log("stdout.log"))
        .stderr(log("stderr.log"))
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", command.display()))?;
    let waited = tokio::time::timeout(time + Duration::from_secs(60), child.wait()).await;
    let status = match waited {
        Ok(status) => status.map_err(|e| e.to_string())?,
        Err(_) => {
            if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
                // SAFETY: kill(2) with a negative pid signals that process group; no memory is
                // touched.
                unsafe {
                    libc::kill(-pid, libc::SIGKILL);
                }
            }
            let _ = child.wait().await;
            return Err(format!("it did not end {} s after its time limit", 60));
        }
    };
    match status.code() {
        Some(code @ (0 | VIOLATED)) => Ok(code),
        _ => Err(format!("it exited with {status}: {}", last_error(out))),
    }
}

/// The last line of a run's standard error that says ERROR, or its last line.
fn last_error(out: &Path) -> String {
    let text = std::fs::read_to_string(out.join("stderr.log")).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines
        .iter()
        .rev()
        .find(|l| l.contains("ERROR"))
        .or(lines.last())
        .map(|l| (*l).to_owned())
        .unwrap_or_else(|| "nothing on standard error".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_property_name_is_its_invariant_id_in_camel_case_and_back() {
        assert_eq!(
            invariant_id("scoreAtMostAnswered"),
            "score-at-most-answered"
        );
        assert_eq!(
            property_name("every-contact-has-a-name-and-an-email"),
            "everyContactHasANameAndAnEmail"
        );
        assert_eq!(
            invariant_id("everyContactHasANameAndAnEmail"),
            "every-contact-has-a-name-and-an-email"
        );
        assert_eq!(invariant_id("noServerError"), "no-server-error");
    }

    #[test]
    fn the_trace_gives_each_violated_property_once_with_its_first_time_and_the_actions() {
        let started = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let at = |ms: u64| 1_000_000_000 + ms * 1_000;
        let trace = [
            format!(r#"{{"timestamp":{},"action":null,"state":{{"hash_current":7}},"violations":[]}}"#, at(0)),
            format!(
                r#"{{"timestamp":{},"action":"Back","state":{{"hash_current":8}},"violations":[{{"name":"backForwardKeepsAnswers","violation":{{}}}}]}}"#,
                at(1_500)
            ),
            format!(
                r#"{{"timestamp":{},"action":{{"PressKey":{{"code":27}}}},"state":{{"hash_current":7}},"violations":[{{"name":"backForwardKeepsAnswers"}},{{"name":"noUncaughtException"}}]}}"#,
                at(2_000)
            ),
            // A run killed while it wrote its last line.
            r#"{"timestamp":12,"act"#.to_owned(),
        ]
        .join("\n");
        let outcome = read_trace(&trace, started);
        assert_eq!(outcome.actions, 2);
        assert_eq!(outcome.states, 2);
        assert_eq!(
            outcome.broken,
            BTreeMap::from([
                (
                    "back-forward-keeps-answers".to_owned(),
                    Duration::from_millis(1_500)
                ),
                (
                    "no-uncaught-exception".to_owned(),
                    Duration::from_millis(2_000)
                ),
            ])
        );
    }

    #[test]
    fn every_app_has_a_spec_with_a_property_for_each_of_its_invariants() {
        for app in crate::apps().expect("the corpus reads") {
            let spec = std::fs::read_to_string(spec(&app)).expect("the app has a Bombadil spec");
            let rules = std::fs::read_dir(app.invariants())
                .expect("invariants/")
                .flatten()
                .map(|f| std::fs::read_to_string(f.path()).expect("an invariant file"))
                .collect::<Vec<_>>()
                .join("\n");
            let ids = rules
                .lines()
                .filter_map(|l| l.trim().strip_prefix("- id: "))
                .collect::<Vec<_>>();
            assert!(ids.len() >= app.bugs.len(), "{}", app.name);
            for id in ids
                .iter()
                .chain(["no-uncaught-exception", "no-server-error"].iter())
            {
                let name = property_name(id);
                assert!(
                    spec.contains(&format!("export const {name} ="))
                        || spec.contains(&format!(" {name} }}"))
                        || spec.contains(&format!(" {name},")),
                    "{}: no property {name} for {id}",
                    app.name
                );
            }
        }
    }
}
