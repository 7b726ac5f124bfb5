//! The terminal: a line per scenario and the totals, in colour where the output is a terminal
//! that wants it (`NO_COLOR`, `CLICOLOR` and `CLICOLOR_FORCE` are honoured), with a progress bar
//! on stderr while a suite of several scenarios runs in a terminal.

use std::io::Write;

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::ledger::CacheOutcome;
use crate::run::events::{Reporter, RunEvent};
use crate::run::outcome::{Outcome, ScenarioResult};

/// What a line is, for its colour and its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Pass,
    Fail,
    /// Said on stderr.
    Error,
    /// Said on stderr, changing no outcome.
    Warning,
}

/// One line (or a block of lines) of the terminal's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub tone: Tone,
    pub text: String,
}

impl Line {
    pub fn new(tone: Tone, text: String) -> Self {
        Self { tone, text }
    }
}

/// What the terminal shows for an event, without colour; the leak scan reads the same text.
pub fn lines(event: &RunEvent) -> Vec<Line> {
    let plain = |text: String| vec![Line::new(Tone::Plain, text)];
    match event {
        RunEvent::SuiteStarted {
            scenarios,
            workers,
            base_url,
            protocol,
            ..
        } => plain(format!(
            "running {} on {} against {base_url} (protocol: {protocol})",
            count(*scenarios, "scenario"),
            count(*workers, "worker")
        )),
        RunEvent::ScenarioUnloadable { file, error } => vec![Line::new(
            Tone::Fail,
            format!("FAIL {}\n  {error}", file.display()),
        )],
        RunEvent::ScenarioFinished { result, .. } => finished(result),
        RunEvent::SuiteFinished { totals } => vec![
            Line::new(
                Tone::Plain,
                format!("finished in {:.1} s", totals.duration_ms as f64 / 1000.0),
            ),
            Line::new(
                Tone::Plain,
                format!("{} passed, {} failed", totals.passed, totals.failed),
            ),
        ],
        RunEvent::ReportWritten { path } => plain(format!("report: {}", path.display())),
        RunEvent::ReportFailed { error } => vec![Line::new(
            Tone::Error,
            format!("error: the report was not written: {error}"),
        )],
        RunEvent::Summary {
            summary,
            suggestions,
            problems,
        } => {
            let mut out: Vec<Line> = suggestions
                .iter()
                .map(|(id, text)| Line::new(Tone::Plain, format!("suggestion for {id}: {text}")))
                .collect();
            out.extend(
                summary
                    .iter()
                    .map(|text| Line::new(Tone::Plain, format!("summary: {text}"))),
            );
            out.extend(
                problems
                    .iter()
                    .map(|problem| Line::new(Tone::Plain, format!("windup: {problem}"))),
            );
            out
        }
        RunEvent::Warning { message } => {
            vec![Line::new(Tone::Warning, format!("windup: {message}"))]
        }
        RunEvent::LeakFound { leak } => vec![Line::new(Tone::Error, format!("error: {leak}"))],
        _ => Vec::new(),
    }
}

fn finished(result: &ScenarioResult) -> Vec<Line> {
    let ms = result.duration.as_millis();
    match &result.outcome {
        Outcome::Passed {
            actions,
            cache,
            pending,
        } => {
            let cache = match cache {
                CacheOutcome::Hit => "replayed",
                CacheOutcome::Miss => "planned",
                CacheOutcome::Replanned => "re-planned",
            };
            let mut out = vec![Line::new(
                Tone::Pass,
                format!(
                    "PASS {} ({}, {cache}, {ms} ms)",
                    result.id,
                    count(*actions, "action")
                ),
            )];
            if let Some(path) = pending {
                out.push(Line::new(
                    Tone::Plain,
                    format!(
                        "  new plan waits for review: {} (cargo windup review)",
                        path.display()
                    ),
                ));
            }
            out
        }
        Outcome::Failed(failure) => vec![Line::new(
            Tone::Fail,
            format!(
                "FAIL {} ({ms} ms)\n  {}",
                result.id,
                failure.to_string().replace('\n', "\n  ")
            ),
        )],
    }
}

/// `1 scenario`, `2 scenarios`.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Writes a line where its tone belongs: stdout for results, stderr for errors and warnings. The
/// first word carries the colour, which anstream drops where the stream is not a terminal that
/// wants it.
pub(crate) fn write_line(line: &Line) {
    let style = match line.tone {
        Tone::Plain => Style::new(),
        Tone::Pass => AnsiColor::Green.on_default(),
        Tone::Fail | Tone::Error => AnsiColor::Red.on_default().bold(),
        Tone::Warning => AnsiColor::Yellow.on_default(),
    };
    // The first word carries the colour (`PASS`, `FAIL`, `error:`); the rest stays plain.
    let (head, rest) = match line.text.split_once(' ') {
        Some((head, rest)) if line.tone != Tone::Plain => (head, format!(" {rest}")),
        _ => (line.text.as_str(), String::new()),
    };
    let text = format!("{style}{head}{style:#}{rest}");
    if matches!(line.tone, Tone::Error | Tone::Warning) {
        let mut err = anstream::stderr();
        let _ = writeln!(err, "{text}");
    } else {
        let mut out = anstream::stdout();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// Prints the run as it goes: stdout for results, stderr for errors and the progress bar.
pub struct Terminal {
    progress: Option<ProgressBar>,
}

impl Terminal {
    pub fn new() -> Self {
        Self { progress: None }
    }

    fn print(&self, line: &Line) {
        match &self.progress {
            Some(bar) => bar.suspend(|| write_line(line)),
            None => write_line(line),
        }
    }
}

impl Default for Terminal {
    fn default() -> Self {
        Self::new()
    }
}

impl Reporter for Terminal {
    fn report(&mut self, event: &RunEvent) {
        if let RunEvent::SuiteFinished { .. } = event
            && let Some(bar) = self.progress.take()
        {
            bar.finish_and_clear();
        }
        for line in lines(event) {
            self.print(&line);
        }
        match event {
            RunEvent::SuiteStarted { scenarios, .. } if *scenarios > 1 => {
                // Drawn only when stderr is a terminal; hidden (and free) otherwise.
                let bar = ProgressBar::with_draw_target(
                    Some(*scenarios as u64),
                    ProgressDrawTarget::stderr(),
                );
                if let Ok(style) =
                    ProgressStyle::with_template("{spinner} [{pos}/{len}] {elapsed} {wide_msg}")
                {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(std::time::Duration::from_millis(120));
                self.progress = Some(bar);
            }
            RunEvent::ScenarioStarted { scenario } => {
                if let Some(bar) = &self.progress {
                    bar.set_message(scenario.id.clone());
                }
            }
            RunEvent::ScenarioFinished { .. } => {
                if let Some(bar) = &self.progress {
                    bar.inc(1);
                }
            }
            _ => {}
        }
    }
}
