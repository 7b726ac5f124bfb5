//! The audit in a terminal: a status line while it runs (the phase, the attack being tried, the
//! actions and findings so far), with each reasoning line, finding and written test printed above
//! it as it arrives; the summary at the end is [`summary`] of what [`AuditRun::run`] returned,
//! which knows more than the `done` event (pages, attacks). Where stderr is not a terminal (a
//! pipe, CI) there is no status line, and where stdout is not one there is no colour: plain lines
//! only. `NO_COLOR`, `CLICOLOR` and `CLICOLOR_FORCE` are honoured as the run's
//! [`Terminal`](super::Terminal) honours them.
//!
//! What the audit store kept is shown in the same words: the history of runs ([`history`]) and
//! one run's report ([`stored_run`]).

use std::path::Path;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::terminal::{Line, Tone, count, write_line};
use crate::engine::audit::{Budget, Finding, InvariantStatus, Phase};
use crate::run::audit::AuditFinished;
#[cfg(doc)]
use crate::run::audit::AuditRun;
use crate::run::events::{Reporter, RunEvent};
use crate::run::failure::relative;
use crate::store::{self, AuditStore, RunId, RunReport, RunStatus, RunSummary, StoreError};

/// What the audit view prints for an event, without colour.
pub fn lines(event: &RunEvent) -> Vec<Line> {
    let plain = |text: String| vec![Line::new(Tone::Plain, text)];
    match event {
        RunEvent::AuditStarted {
            run_id,
            target,
            seed,
            budget,
            ..
        } => vec![
            Line::new(
                Tone::Plain,
                format!("auditing {target} as run {run_id}, seed {seed}"),
            ),
            Line::new(Tone::Plain, budget_line(budget)),
        ],
        RunEvent::Phase { phase, .. } => plain(format!("phase {}", phase.as_str())),
        RunEvent::Reasoning { text, .. } => plain(indented(text, "  ")),
        RunEvent::Invariant {
            invariant,
            status: InvariantStatus::Invalid { error },
            ..
        } => vec![invalid(&invariant.id, error)],
        RunEvent::Finding { finding, .. } => vec![live_finding(finding)],
        RunEvent::TestWritten {
            framework,
            path,
            lockfile,
            ..
        } => vec![Line::new(
            Tone::Pass,
            match framework.as_str() {
                "windup" => format!("wrote {} (plan {})", shown(path), shown(lockfile)),
                other => format!("wrote {} (the same test, for {other})", shown(path)),
            },
        )],
        RunEvent::Warning { message } => {
            vec![Line::new(Tone::Warning, format!("windup: {message}"))]
        }
        _ => Vec::new(),
    }
}

/// `budget: 180 s, 2000 actions, 24 pages, walks of 24 actions until it is spent, 12 shrink
/// runs` (or `6 walks of 24 actions`).
pub fn budget_line(budget: &Budget) -> String {
    let walks = match budget.walks {
        Some(walks) => format!(
            "{} of {}",
            count(walks, "walk"),
            count(budget.walk_length, "action")
        ),
        None => format!(
            "walks of {} until it is spent",
            count(budget.walk_length, "action")
        ),
    };
    format!(
        "budget: {}, {}, {}, {walks}, {}",
        seconds(budget.time),
        count(budget.steps, "action"),
        count(budget.pages, "page"),
        count(budget.shrink_runs, "shrink run"),
    )
}

/// How much of the budget an audit used (and how much past it, proving what it saw within it),
/// and what its walks covered.
fn budget_used(outcome: &crate::engine::audit::AuditOutcome) -> String {
    let past = if outcome.overrun >= Duration::from_millis(100) {
        format!(
            " ({} of it past the budget, proving what was seen within it)",
            runtime(outcome.overrun)
        )
    } else {
        String::new()
    };
    format!(
        "  used {}{past} of {} and {} of {}; the walks met {} and made {} in them",
        runtime(outcome.runtime),
        seconds(outcome.budget.time),
        outcome.actions,
        count(outcome.budget.steps, "action"),
        count(outcome.coverage.states, "distinct state"),
        count(outcome.coverage.moves, "distinct move"),
    )
}

/// How much of the app's own code the audit ran, or why it could not count it; nothing when
/// asked not to count it.
fn code_reached(code: &crate::engine::audit::CodeCoverage) -> Option<String> {
    match &code.off {
        Some(why) if why.starts_with("asked not to") => return None,
        Some(why) => return Some(format!("  the app's code was not counted: {why}")),
        None if code.scripts == 0 && code.edges == 0 && code.over_time.is_empty() => return None,
        None => {}
    }
    let share = match code.edges {
        0 => String::new(),
        edges => format!(" ({:.1}%)", 100.0 * code.reached as f64 / edges as f64),
    };
    let uncounted = match code.uncounted {
        0 => String::new(),
        n => format!(
            "; {} not counted (see docs/audit.md#coverage)",
            count(n, "script")
        ),
    };
    let curve: Vec<String> = code
        .over_time
        .iter()
        .map(|&(at, reached)| format!("{reached} at {:.1} s", at as f64 / 1000.0))
        .collect();
    let curve = match curve.len() {
        0 => String::new(),
        n if n <= 6 => format!("; over time: {}", curve.join(", ")),
        n => format!(
            "; over time: {}, … {}",
            curve[..3].join(", "),
            curve[n - 2..].join(", ")
        ),
    };
    let steered = match code.prefixes {
        0 => String::new(),
        n => format!(
            "; {n} walk prefix{} kept for reaching new edges, {} started from one",
            if n == 1 { "" } else { "es" },
            count(code.from_prefix, "walk")
        ),
    };
    Some(format!(
        "  the app's code: {} of {} reached{share} in {}{uncounted}{steered}{curve}",
        code.reached,
        count(code.edges as usize, "edge"),
        count(code.scripts, "script"),
    ))
}

/// The end of an audit: what it found and did, why it stopped, and where it is kept.
pub fn summary(finished: &AuditFinished) -> Vec<Line> {
    let outcome = &finished.outcome;
    let mut out = vec![
        Line::new(Tone::Plain, String::new()),
        Line::new(
            Tone::Plain,
            format!(
                "{}, {}, {}, {} in {}; stopped: {}",
                count(outcome.findings.len(), "finding"),
                count(outcome.actions, "action"),
                count(outcome.attacks, "attack"),
                count(outcome.pages_explored, "page"),
                runtime(outcome.runtime),
                why_stopped(&outcome.stopped_by)
            ),
        ),
    ];
    if let Some(reason) = &outcome.stop_reason {
        out.push(Line::new(Tone::Plain, format!("  {reason}")));
    }
    out.push(Line::new(Tone::Plain, budget_used(outcome)));
    if let Some(code) = code_reached(&outcome.code) {
        out.push(Line::new(Tone::Plain, code));
    }
    if outcome.model_calls > 0 {
        out.push(Line::new(
            Tone::Plain,
            format!(
                "  the model: {}, ${:.4}; {} vetoed by its judge, kept as evidence",
                count(outcome.model_calls as usize, "call"),
                outcome.model_usd,
                count(outcome.vetoed.len(), "violation")
            ),
        ));
        for vetoed in &outcome.vetoed {
            out.push(Line::new(
                Tone::Plain,
                format!("    {}: {}", vetoed.invariant_id, vetoed.reason),
            ));
        }
    }
    if outcome.unconfirmed > 0 {
        out.push(Line::new(
            Tone::Plain,
            format!(
                "  {} seen once did not reproduce from a fresh session and are not counted",
                count(outcome.unconfirmed, "violation")
            ),
        ));
    }
    for (invariant, status) in &outcome.invariants {
        if let InvariantStatus::Invalid { error } = status {
            out.push(invalid(&invariant.id, error));
        }
    }
    out.push(Line::new(
        Tone::Plain,
        format!(
            "stored as {} in {}; see it again: {}",
            finished.run_id,
            shown(&finished.store),
            show_command(&finished.run_id)
        ),
    ));
    out
}

/// `cargo windup audit show A-1001`: without the `#`, which a shell reads as a comment.
pub fn show_command(run: &RunId) -> String {
    let id = run.to_string();
    format!("cargo windup audit show {}", id.trim_start_matches('#'))
}

/// The runs of a store, newest first, one line each under a header.
pub fn history(runs: &[RunSummary]) -> Vec<Line> {
    let header = [
        "id", "status", "phase", "target", "started", "runtime", "findings", "seed",
    ];
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|run| {
            vec![
                run.id.to_string(),
                run.status.to_string(),
                run.phase.to_string(),
                crate::model::excerpt::cut(&run.target_url, 60),
                whole_seconds(&run.started_at),
                run.runtime_ms
                    .map_or_else(|| "-".to_owned(), |ms| runtime(Duration::from_millis(ms))),
                run.findings.to_string(),
                run.seed.to_string(),
            ]
        })
        .collect();
    table(&header, &rows, &[5, 6, 7])
        .into_iter()
        .map(|text| Line::new(Tone::Plain, text))
        .collect()
}

/// Columns padded to their widest cell; the columns in `right` aligned right.
fn table(header: &[&str], rows: &[Vec<String>], right: &[usize]) -> Vec<String> {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, &width))| {
                if right.contains(&i) {
                    format!("{cell:>width$}")
                } else {
                    format!("{cell:<width$}")
                }
            })
            .collect();
        padded.join("  ").trim_end().to_owned()
    };
    let mut out = vec![line(header.to_vec())];
    out.extend(
        rows.iter()
            .map(|row| line(row.iter().map(String::as_str).collect())),
    );
    out
}

/// Events read back from the end of a run's stream to find its `done`.
const TAIL: u64 = 16;

/// A stored run's report: its summary, each finding and the files of its tests; `None` when
/// the store has no such run.
pub fn stored_run(store: &AuditStore, run: &RunId) -> Result<Option<Vec<Line>>, StoreError> {
    let Some(report) = store.run(run)? else {
        return Ok(None);
    };
    let after = report.summary.events.saturating_sub(TAIL);
    let events = store.events_since(run, after, TAIL as usize)?;
    let done = events
        .iter()
        .rev()
        .find(|event| event.name == "done")
        .and_then(|event| serde_json::from_str::<serde_json::Value>(&event.json).ok());
    Ok(Some(report_lines(&report, done.as_ref())))
}

/// A stored run in words; `done` is its `done` event, when it has one.
fn report_lines(report: &RunReport, done: Option<&serde_json::Value>) -> Vec<Line> {
    let run = &report.summary;
    let plain = |text: String| Line::new(Tone::Plain, text);
    let ran = run.runtime_ms.map_or_else(
        || "runtime unknown".to_owned(),
        |ms| format!("ran {}", runtime(Duration::from_millis(ms))),
    );
    let mut out = vec![
        plain(format!(
            "audit {} of {}: {}",
            run.id, run.target_url, run.status
        )),
        plain(format!(
            "  started {}, {ran}, seed {}, phase {}",
            whole_seconds(&run.started_at),
            run.seed,
            run.phase
        )),
    ];
    if let Some(budget) = budget_of(&report.budget_json) {
        out.push(plain(format!("  {}", budget_line(&budget))));
    }
    let mut what = count(run.findings, "finding");
    if let Some(actions) = done.and_then(|d| d["actions"].as_u64()) {
        what.push_str(&format!(", {}", count(actions as usize, "action")));
    }
    for (key, noun) in [("attacks", "attack"), ("pages_explored", "page")] {
        if let Some(n) = done.and_then(|d| d[key].as_u64()) {
            what.push_str(&format!(", {}", count(n as usize, noun)));
        }
    }
    if let Some(stopped) = done.and_then(|d| d["stopped_by"].as_str()) {
        what.push_str(&format!("; stopped: {}", why_stopped(stopped)));
    } else if run.status == RunStatus::Running {
        what.push_str("; still running");
    }
    out.push(plain(format!("  {what}")));
    for finding in &report.findings {
        out.push(plain(String::new()));
        out.push(stored_finding(finding, report));
    }
    out
}

/// The budget a run was given, from its JSON (`time` in milliseconds).
fn budget_of(json: &str) -> Option<Budget> {
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let number = |key: &str| {
        value
            .get(key)
            .and_then(serde_json::Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    Some(Budget {
        steps: number("steps")?,
        time: Duration::from_millis(value.get("time")?.as_u64()?),
        pages: number("pages")?,
        walks: number("walks"),
        walk_length: number("walk_length")?,
        shrink_runs: number("shrink_runs")?,
    })
}

fn live_finding(finding: &Finding) -> Line {
    let details = FindingText {
        head: format!("finding {}: {}", finding.id, finding.title),
        severity: finding.severity.as_str(),
        expected: &finding.expected,
        actual: &finding.actual,
        impact: &finding.impact,
        steps: &finding.steps,
    };
    Line::new(Tone::Fail, details.render())
}

fn stored_finding(finding: &store::Finding, report: &RunReport) -> Line {
    let steps: Vec<String> = serde_json::from_str(&finding.steps_json).unwrap_or_default();
    let mut text = FindingText {
        head: format!("finding {}: {}", finding.id, finding.title),
        severity: &finding.severity,
        expected: &finding.expected,
        actual: &finding.actual,
        impact: &finding.impact,
        steps: &steps,
    }
    .render();
    let tests: Vec<String> = report
        .tests
        .iter()
        .filter(|test| test.finding == finding.id)
        .map(|test| format!("    {} ({})", test.filename, test.framework))
        .collect();
    if tests.is_empty() {
        text.push_str("\n  tests: none written");
    } else {
        text.push_str("\n  tests:\n");
        text.push_str(&tests.join("\n"));
    }
    Line::new(Tone::Fail, text)
}

/// A finding as both the live view and a stored report show it.
struct FindingText<'a> {
    head: String,
    severity: &'a str,
    expected: &'a str,
    actual: &'a str,
    impact: &'a str,
    steps: &'a [String],
}

impl FindingText<'_> {
    fn render(&self) -> String {
        let mut text = format!("{}\n  severity: {}", self.head, self.severity);
        for (label, value) in [
            ("expected", self.expected),
            ("actual", self.actual),
            ("impact", self.impact),
        ] {
            if !value.is_empty() {
                text.push_str(&format!(
                    "\n  {label}: {}",
                    indented(value, "    ").trim_start()
                ));
            }
        }
        if !self.steps.is_empty() {
            text.push_str("\n  steps:");
            for (n, step) in self.steps.iter().enumerate() {
                text.push_str(&format!("\n    {}. {step}", n + 1));
            }
        }
        text
    }
}

fn invalid(id: &str, error: &str) -> Line {
    Line::new(
        Tone::Warning,
        format!("windup: the invariant {id} cannot be checked on this app: {error}"),
    )
}

/// Why an audit stopped, in words.
fn why_stopped(stopped_by: &str) -> String {
    match stopped_by {
        "done" => "nothing left to try".to_owned(),
        "steps" => "the step budget ran out".to_owned(),
        "time" => "the time budget ran out".to_owned(),
        "stopped" => "stopped on request".to_owned(),
        "model" => "a budget of the model".to_owned(),
        other => other.to_owned(),
    }
}

/// Every line of `text` after `indent`.
fn indented(text: &str, indent: &str) -> String {
    text.lines()
        .map(|line| format!("{indent}{line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A budget's time: `90 s`, or `1.5 s` when it has a fraction.
fn seconds(time: Duration) -> String {
    if time.subsec_millis() == 0 {
        format!("{} s", time.as_secs())
    } else {
        runtime(time)
    }
}

/// An RFC 3339 time without its fraction of a second: `2026-12-01T16:40:34Z`.
fn whole_seconds(at: &str) -> String {
    let Some((head, rest)) = at.split_once('.') else {
        return at.to_owned();
    };
    let zone = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    format!("{head}{zone}")
}

/// How long something ran: `20.1 s`.
fn runtime(time: Duration) -> String {
    format!("{:.1} s", time.as_secs_f64())
}

fn shown(path: &Path) -> String {
    relative(path).display().to_string()
}

/// Prints lines as the view does: results on stdout, warnings on stderr, colour where wanted.
pub fn print(lines: &[Line]) {
    for line in lines {
        write_line(line);
    }
}

/// Prints an audit as it goes (see the module's documentation).
pub struct AuditView {
    status: Option<ProgressBar>,
    phase: Phase,
    attack: String,
    actions: usize,
    findings: usize,
}

impl AuditView {
    pub fn new() -> Self {
        Self {
            status: None,
            phase: Phase::Explore,
            attack: String::new(),
            actions: 0,
            findings: 0,
        }
    }

    /// The status line, drawn only where stderr is a terminal.
    fn start_status(&mut self) {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if bar.is_hidden() {
            return;
        }
        if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(120));
        self.status = Some(bar);
        self.update_status();
    }

    fn update_status(&self) {
        let Some(bar) = &self.status else {
            return;
        };
        let mut message = self.phase.as_str().to_owned();
        if !self.attack.is_empty() {
            message.push_str(&format!(" · {}", self.attack));
        }
        message.push_str(&format!(
            " · {} · {}",
            count(self.actions, "action"),
            count(self.findings, "finding")
        ));
        bar.set_message(message);
    }

    fn end_status(&mut self) {
        if let Some(bar) = self.status.take() {
            bar.finish_and_clear();
        }
    }

    fn print(&self, line: &Line) {
        match &self.status {
            Some(bar) => bar.suspend(|| write_line(line)),
            None => write_line(line),
        }
    }
}

impl Default for AuditView {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for AuditView {
    fn drop(&mut self) {
        self.end_status();
    }
}

impl Reporter for AuditView {
    fn report(&mut self, event: &RunEvent) {
        if let RunEvent::AuditDone { .. } = event {
            self.end_status();
        }
        for line in lines(event) {
            self.print(&line);
        }
        match event {
            RunEvent::AuditStarted { .. } => self.start_status(),
            RunEvent::Phase { phase, .. } => self.phase = *phase,
            RunEvent::AuditAction { label, .. } => {
                self.actions += 1;
                self.attack.clone_from(label);
            }
            RunEvent::Finding { .. } => self.findings += 1,
            _ => return,
        }
        self.update_status();
    }
}

#[cfg(test)]
mod tests;
