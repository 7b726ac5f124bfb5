//! The self-contained HTML report: one file that opens anywhere and makes no request of any
//! kind. The style is inline, every screenshot is inlined as a data URI (filmstrip frames as
//! small thumbnails), and a Content-Security-Policy forbids the network in case anything slipped
//! through.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

use super::thumbnail::{self, Picture};
use super::{ActionReport, ScenarioReport, SuiteReport};
use crate::engine::ledger::CacheOutcome;

/// Each filmstrip frame's thumbnail, by the screenshot's path.
type Frames<'a> = HashMap<&'a Path, Picture>;

/// No network at all: only data-URI images and the inline style and script.
const CSP: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; \
                   script-src 'unsafe-inline'";

const STYLE: &str = r#"
:root {
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa; --bg: #ffffff;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--panel); color: var(--fg); line-height: 1.5;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
    "Noto Sans", "Liberation Sans", sans-serif;
}
main, header.summary > .inner { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
header.summary { background: var(--bg); border-bottom: 1px solid var(--line); padding: 24px 0; }
.brand { margin: 0; color: var(--muted); font-size: 13px; text-transform: uppercase;
  letter-spacing: .06em; }
h1 { margin: 4px 0 12px; font-size: 28px; }
h2 { margin: 0; font-size: 20px; display: flex; align-items: center; gap: 10px;
  flex-wrap: wrap; }
h2 .mono { font-size: 17px; font-weight: 600; }
h3 { margin: 20px 0 8px; font-size: 15px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas,
  "Liberation Mono", monospace; font-size: 13px; }
.counts { margin: 0 0 16px; display: flex; gap: 8px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 999px; font-weight: 600;
  font-size: 13px; border: 1px solid transparent; white-space: nowrap; }
.badge.pass { color: var(--pass); background: var(--pass-bg); border-color: var(--pass); }
.badge.fail { color: var(--fail); background: var(--fail-bg); border-color: var(--fail); }
.badge.none { color: var(--muted); background: var(--panel); border-color: var(--line); }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr));
  gap: 8px 24px; margin: 0; }
dl.facts dt { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav.index ol { margin: 16px 0 0; padding: 0; list-style: none; display: flex;
  flex-wrap: wrap; gap: 6px 16px; }
nav.index a { color: inherit; }
section.scenario { background: var(--bg); border: 1px solid var(--line);
  border-left: 6px solid var(--pass); border-radius: 8px; margin: 24px 0; padding: 20px 24px; }
section.scenario.failed { border-left-color: var(--fail); }
.task { margin: 6px 0 16px; font-size: 16px; }
.failure { background: var(--fail-bg); border: 1px solid #ffcecb; border-radius: 6px;
  padding: 4px 16px 16px; margin-top: 16px; }
.failure h3 { color: var(--fail); }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: 12px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.failure pre { background: var(--bg); }
figure { margin: 0; }
figure.shot img { max-width: min(100%, 960px); height: auto; border: 1px solid var(--line);
  border-radius: 4px; display: block; margin-top: 12px; }
figcaption { color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.missing { color: var(--muted); font-style: italic; margin: 8px 0; }
ol.filmstrip { list-style: none; margin: 0; padding: 0 0 8px; display: flex; gap: 12px;
  overflow-x: auto; }
ol.filmstrip li { flex: 0 0 180px; }
ol.filmstrip img { width: 180px; height: auto; border: 1px solid var(--line);
  border-radius: 4px; display: block; background: var(--panel); }
ol.filmstrip .missing { width: 180px; min-height: 100px; border: 1px dashed var(--line);
  border-radius: 4px; padding: 8px; font-size: 12px; overflow-wrap: anywhere; }
ol.filmstrip figcaption b { display: block; color: var(--fg); font-weight: 600; }
ol.filmstrip figcaption code { display: block; }
.planned { color: var(--muted); font-style: italic; }
.line { color: var(--muted); font-size: 12px; white-space: nowrap; }
table.timings { border-collapse: collapse; width: 100%; font-size: 14px; }
table.timings th, table.timings td { text-align: left; padding: 4px 10px;
  border-bottom: 1px solid var(--line); }
table.timings th { color: var(--muted); font-weight: 600; }
table.timings .num { text-align: right; font-variant-numeric: tabular-nums;
  white-space: nowrap; }
table.timings td.bar { width: 40%; }
table.timings td.bar span { display: block; height: 8px; border-radius: 4px;
  background: #8c959f; min-width: 2px; }
ul.calls { margin: 0; padding-left: 20px; }
details.plan { margin-top: 20px; }
details.plan summary { cursor: pointer; color: var(--muted); font-weight: 600; }
details.plan pre { margin-top: 8px; }
.empty { color: var(--muted); margin: 0; }
"#;

/// The run as one self-contained HTML file, filmstrip frames as small JPEG thumbnails and each
/// failure's screenshot full size. A screenshot file that is gone or does not decode shows as
/// text; any other failure to read one is an error naming the file.
pub fn html(report: &SuiteReport) -> io::Result<String> {
    let paths: Vec<&Path> = report
        .scenarios
        .iter()
        .flat_map(|scenario| &scenario.actions)
        .filter_map(|action| action.screenshot.as_deref())
        .collect();
    let frames = thumbnail::thumbnails(&paths)?;
    let passed = report.passed();
    let failed = report.failed();
    let mut page = String::new();
    page.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push_str(&format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
    ));
    page.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    // An empty data-URI icon, so the browser does not go looking for /favicon.ico.
    page.push_str("<link rel=\"icon\" href=\"data:,\">\n");
    page.push_str(&format!(
        "<title>{} — {passed} passed, {failed} failed</title>\n",
        escape(&report.name)
    ));
    page.push_str(&format!("<style>{STYLE}</style>\n</head>\n<body>\n"));

    // Failures first; otherwise the run's order (the sort is stable).
    let mut scenarios: Vec<(usize, &ScenarioReport)> =
        report.scenarios.iter().enumerate().collect();
    scenarios.sort_by_key(|(_, scenario)| scenario.passed);

    summary(&mut page, report, &scenarios);
    page.push_str("<main>\n");
    for (index, scenario) in &scenarios {
        scenario_section(&mut page, *index, scenario, &frames)?;
    }
    page.push_str("</main>\n</body>\n</html>\n");
    Ok(page)
}

fn summary(page: &mut String, report: &SuiteReport, scenarios: &[(usize, &ScenarioReport)]) {
    let passed = report.passed();
    let failed = report.failed();
    page.push_str("<header class=\"summary\"><div class=\"inner\">\n");
    page.push_str("<p class=\"brand\">Windup report</p>\n");
    page.push_str(&format!("<h1>{}</h1>\n", escape(&report.name)));
    page.push_str(&format!(
        "<p class=\"counts\"><span class=\"badge {}\">{passed} passed</span> \
         <span class=\"badge {}\">{failed} failed</span></p>\n",
        if passed > 0 { "pass" } else { "none" },
        if failed > 0 { "fail" } else { "none" },
    ));
    facts(
        page,
        &[
            ("Duration", escape(&duration(report.duration_ms))),
            ("Started at", started_at(&report.started_at)),
            (
                "Base URL",
                format!("<span class=\"mono\">{}</span>", escape(&report.base_url)),
            ),
            ("Model cost", escape(&total_cost(report))),
        ],
    );
    if !scenarios.is_empty() {
        page.push_str("<nav class=\"index\"><ol>\n");
        for (index, scenario) in scenarios {
            page.push_str(&format!(
                "<li>{} <a href=\"#scenario-{index}\">{}</a></li>\n",
                badge(scenario.passed),
                escape(&scenario.id)
            ));
        }
        page.push_str("</ol></nav>\n");
    }
    page.push_str("</div></header>\n");
}

fn scenario_section(
    page: &mut String,
    index: usize,
    scenario: &ScenarioReport,
    frames: &Frames,
) -> io::Result<()> {
    page.push_str(&format!(
        "<section class=\"scenario {}\" id=\"scenario-{index}\" data-scenario=\"{}\">\n",
        if scenario.passed { "passed" } else { "failed" },
        escape(&scenario.id)
    ));
    page.push_str(&format!(
        "<h2>{} <span class=\"mono\">{}</span></h2>\n",
        badge(scenario.passed),
        escape(&scenario.id)
    ));
    page.push_str(&format!(
        "<p class=\"task\">{}</p>\n",
        escape(&scenario.task)
    ));
    let cost = match (scenario.llm_calls.is_empty(), scenario.cost_usd) {
        (true, _) => "none".to_owned(),
        (false, Some(cost)) => dollars(cost),
        (false, None) => "unpriced".to_owned(),
    };
    facts(
        page,
        &[
            (
                "File",
                format!(
                    "<span class=\"mono\">{}</span>",
                    escape(&scenario.file.display().to_string())
                ),
            ),
            ("Duration", escape(&duration(scenario.duration_ms))),
            ("Cache", escape(cache_word(scenario.cache))),
            ("Model calls", scenario.llm_calls.len().to_string()),
            ("Model cost", escape(&cost)),
        ],
    );

    if !scenario.passed {
        failure(page, scenario)?;
    }
    if !scenario.llm_calls.is_empty() {
        model_calls(page, scenario);
    }
    filmstrip(page, &scenario.actions, frames);
    timings(page, &scenario.actions);
    if let Some(plan) = &scenario.plan {
        let json = serde_json::to_string_pretty(plan)
            .expect("a plan holds only plain values, so it always serializes");
        page.push_str(&format!(
            "<details class=\"plan\"><summary>Plan ({} actions)</summary><pre>{}</pre></details>\n",
            plan.actions.len(),
            escape(&json)
        ));
    }
    page.push_str("</section>\n");
    Ok(())
}

fn failure(page: &mut String, scenario: &ScenarioReport) -> io::Result<()> {
    page.push_str("<div class=\"failure\">\n");
    let class = scenario.failure_class.as_deref().unwrap_or("failure");
    page.push_str(&format!("<h3>Failed ({})</h3>\n", escape(class)));
    if let Some(step) = &scenario.failed_step {
        page.push_str(&format!("<p>Step: <code>{}</code></p>\n", escape(step)));
    }
    if let Some(message) = &scenario.message {
        page.push_str(&format!("<pre>{}</pre>\n", escape(message.trim_end())));
    }
    if let Some(path) = &scenario.screenshot {
        page.push_str("<figure class=\"shot\">");
        page.push_str(&image(
            &thumbnail::full_size(path)?,
            path,
            &format!("The page when {} failed", scenario.id),
        ));
        page.push_str(&format!(
            "<figcaption>{}</figcaption></figure>\n",
            escape(&path.display().to_string())
        ));
    }
    page.push_str("</div>\n");
    Ok(())
}

fn model_calls(page: &mut String, scenario: &ScenarioReport) {
    page.push_str("<h3>Model calls</h3>\n<ul class=\"calls\">\n");
    for call in &scenario.llm_calls {
        let mut line = format!(
            "{} — {}/{}: {} input + {} output tokens, {}",
            call.purpose,
            call.provider,
            call.model,
            call.input_tokens,
            call.output_tokens,
            duration(call.latency_ms)
        );
        if let Some(failure) = &call.failure {
            line.push_str(&format!(", no plan: {failure}"));
        }
        page.push_str(&format!("<li>{}</li>\n", escape(&line)));
    }
    page.push_str("</ul>\n");
}

/// The screenshot after each action, in order, small, with the action under it.
fn filmstrip(page: &mut String, actions: &[ActionReport], frames: &Frames) {
    if !actions.iter().any(|action| action.screenshot.is_some()) {
        return;
    }
    page.push_str("<h3>Filmstrip</h3>\n<ol class=\"filmstrip\">\n");
    for action in actions {
        page.push_str(&format!(
            "<li data-action=\"{}\"><figure>",
            escape(&action.id)
        ));
        match &action.screenshot {
            Some(path) => {
                let alt = format!(
                    "After {}",
                    action.step.as_ref().unwrap_or(&action.description)
                );
                let picture = frames.get(path.as_path()).unwrap_or(&Picture::Missing);
                page.push_str(&image(picture, path, &alt));
            }
            None => page.push_str("<p class=\"missing\">(no screenshot)</p>"),
        }
        page.push_str(&format!(
            "<figcaption><b>{}</b>{} · {}</figcaption></figure></li>\n",
            step(action),
            selector(action),
            escape(&duration(action.duration_ms))
        ));
    }
    page.push_str("</ol>\n");
}

fn timings(page: &mut String, actions: &[ActionReport]) {
    page.push_str("<h3>Action timings</h3>\n");
    if actions.is_empty() {
        page.push_str("<p class=\"empty\">No action ran.</p>\n");
        return;
    }
    let longest = actions
        .iter()
        .map(|a| a.duration_ms)
        .max()
        .unwrap_or(0)
        .max(1);
    page.push_str(
        "<table class=\"timings\"><thead><tr><th class=\"num\">#</th><th>Step</th>\
         <th>Selector</th><th class=\"num\">Duration</th><th></th></tr></thead><tbody>\n",
    );
    for (number, action) in actions.iter().enumerate() {
        let share = action.duration_ms.saturating_mul(100) / longest;
        page.push_str(&format!(
            "<tr data-action=\"{}\"><td class=\"num\">{}</td><td>{}</td><td>{}</td>\
             <td class=\"num\">{}</td><td class=\"bar\"><span style=\"width:{share}%\"></span></td></tr>\n",
            escape(&action.id),
            number + 1,
            step(action),
            selector(action),
            escape(&duration(action.duration_ms))
        ));
    }
    page.push_str("</tbody></table>\n");
}

/// The step as the author wrote it, with its line; or, for a planned action, what it does.
fn step(action: &ActionReport) -> String {
    match &action.step {
        Some(step) => {
            let line = action
                .line
                .map(|line| format!(" <span class=\"line\">line {line}</span>"))
                .unwrap_or_default();
            format!("<code>{}</code>{line}", escape(step))
        }
        None => format!(
            "<span class=\"planned mono\" title=\"planned, not written\">{}</span>",
            escape(&action.description)
        ),
    }
}

/// The element's selector and the frames it is in; a dash when the action has no element.
fn selector(action: &ActionReport) -> String {
    let Some(selector) = &action.selector else {
        return "<span class=\"planned\">—</span>".to_owned();
    };
    let mut html = format!("<code>{}</code>", escape(selector));
    if !action.frames.is_empty() {
        html.push_str(&format!(
            " <span class=\"line\">in the frame {}</span>",
            escape(&action.frames.join(" > "))
        ));
    }
    html
}

/// A screenshot inlined as a data URI, or a note saying why it cannot be shown.
fn image(picture: &Picture, path: &Path, alt: &str) -> String {
    let path = escape(&path.display().to_string());
    match picture {
        Picture::Inline {
            mime,
            data,
            width,
            height,
        } => format!(
            "<img src=\"data:{mime};base64,{}\" width=\"{width}\" height=\"{height}\" alt=\"{}\">",
            STANDARD.encode(data),
            escape(alt)
        ),
        Picture::Missing => format!("<p class=\"missing\">(screenshot missing: {path})</p>"),
        Picture::Undecodable(why) => format!(
            "<p class=\"missing\">(screenshot cannot be shown: {path}: {})</p>",
            escape(why)
        ),
    }
}

/// The start time as people read it, in UTC, with the machine value in `datetime`.
fn started_at(rfc3339: &str) -> String {
    let readable = OffsetDateTime::parse(rfc3339, &Rfc3339)
        .ok()
        .and_then(|at| {
            at.to_offset(UtcOffset::UTC)
                .format(format_description!(
                    "[year]-[month]-[day] [hour]:[minute]:[second] UTC"
                ))
                .ok()
        });
    match readable {
        Some(readable) => format!("<time datetime=\"{}\">{readable}</time>", escape(rfc3339)),
        None => escape(rfc3339),
    }
}

/// A definition list of label and (already escaped) HTML.
fn facts(page: &mut String, items: &[(&str, String)]) {
    page.push_str("<dl class=\"facts\">\n");
    for (label, value) in items {
        page.push_str(&format!("<div><dt>{label}</dt><dd>{value}</dd></div>\n"));
    }
    page.push_str("</dl>\n");
}

fn badge(passed: bool) -> &'static str {
    if passed {
        "<span class=\"badge pass\">passed</span>"
    } else {
        "<span class=\"badge fail\">failed</span>"
    }
}

fn cache_word(outcome: CacheOutcome) -> &'static str {
    match outcome {
        CacheOutcome::Hit => "hit",
        CacheOutcome::Miss => "miss",
        CacheOutcome::Replanned => "replanned",
    }
}

/// The suite's model cost, saying so when part of it is unknown.
fn total_cost(report: &SuiteReport) -> String {
    let calls: usize = report.scenarios.iter().map(|s| s.llm_calls.len()).sum();
    if calls == 0 {
        return "none (no model calls)".to_owned();
    }
    let priced: f64 = report.scenarios.iter().filter_map(|s| s.cost_usd).sum();
    let unpriced = report
        .scenarios
        .iter()
        .any(|s| !s.llm_calls.is_empty() && s.cost_usd.is_none());
    let calls = if calls == 1 {
        "1 call".to_owned()
    } else {
        format!("{calls} calls")
    };
    if unpriced {
        format!("{} + unpriced calls ({calls})", dollars(priced))
    } else {
        format!("{} ({calls})", dollars(priced))
    }
}

fn dollars(amount: f64) -> String {
    format!("${amount:.4}")
}

/// A duration as a person reads it: `840 ms`, `3.2 s`, `2 min 5 s`.
fn duration(ms: u64) -> String {
    match ms {
        0..1_000 => format!("{ms} ms"),
        1_000..60_000 => format!("{:.1} s", ms as f64 / 1000.0),
        _ => format!("{} min {} s", ms / 60_000, ms % 60_000 / 1000),
    }
}

/// Text for HTML content and double-quoted attributes. Control characters other than tab, line
/// feed and carriage return are dropped: HTML forbids them and they carry nothing readable.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}
