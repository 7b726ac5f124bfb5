//! JUnit XML for CI parsers (GitHub, GitLab, Jenkins), in the Ant/Surefire shape that the
//! Jenkins xUnit plugin's `junit-10.xsd` describes: one `<testsuites>` holding one
//! `<testsuite>`, one `<testcase>` per scenario, a `<failure>` for each failed scenario and a
//! `<system-out>` with what the run did for the scenario (cache, model calls, screenshot).

use std::path::{Component, Path};

use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

use super::{ScenarioReport, SuiteReport};
use crate::ledger::CacheOutcome;

/// The run as JUnit XML.
pub fn junit(report: &SuiteReport) -> String {
    let name = attribute(&report.name);
    let counts = format!(
        r#"tests="{}" failures="{}" errors="0""#,
        report.scenarios.len(),
        report.failed()
    );
    let time = seconds(report.duration_ms);
    // Optional in the schema: left out rather than written in a form parsers reject.
    let timestamp = timestamp(&report.started_at)
        .map(|at| format!(r#" timestamp="{at}""#))
        .unwrap_or_default();

    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    xml.push_str(&format!(
        "<testsuites name=\"{name}\" {counts} time=\"{time}\">\n"
    ));
    xml.push_str(&format!(
        "  <testsuite name=\"{name}\" {counts} skipped=\"0\" time=\"{time}\"{timestamp}>\n"
    ));
    xml.push_str("    <properties>\n");
    for (key, value) in [
        ("base_url", &report.base_url),
        ("started_at", &report.started_at),
    ] {
        xml.push_str(&format!(
            "      <property name=\"{key}\" value=\"{}\"/>\n",
            attribute(value)
        ));
    }
    xml.push_str("    </properties>\n");
    for scenario in &report.scenarios {
        testcase(&mut xml, scenario, &report.name);
    }
    xml.push_str("  </testsuite>\n</testsuites>\n");
    xml
}

fn testcase(xml: &mut String, scenario: &ScenarioReport, suite: &str) {
    xml.push_str(&format!(
        "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\">\n",
        attribute(&scenario.id),
        attribute(&classname(&scenario.file, suite)),
        seconds(scenario.duration_ms)
    ));
    if !scenario.passed {
        let headline = scenario
            .message
            .as_deref()
            .and_then(|message| message.lines().find(|line| !line.trim().is_empty()))
            .unwrap_or("the scenario failed");
        let class = scenario.failure_class.as_deref().unwrap_or("failure");
        xml.push_str(&format!(
            "      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
            attribute(headline.trim()),
            attribute(class),
            text(&failure_text(scenario))
        ));
    }
    xml.push_str(&format!(
        "      <system-out>{}</system-out>\n",
        text(&system_out(scenario))
    ));
    xml.push_str("    </testcase>\n");
}

/// The failure's body: the step as written, the whole message, the screenshot.
fn failure_text(scenario: &ScenarioReport) -> String {
    let mut lines = Vec::new();
    if let Some(step) = &scenario.failed_step {
        lines.push(format!("step: {step}"));
    }
    if let Some(message) = &scenario.message {
        lines.push(message.trim_end().to_owned());
    }
    if let Some(path) = &scenario.screenshot {
        lines.push(format!("screenshot: {}", path.display()));
    }
    let mut body = lines.join("\n");
    body.push('\n');
    body
}

/// What the run did for the scenario, one fact a line; the screenshot as a Jenkins attachment.
fn system_out(scenario: &ScenarioReport) -> String {
    let mut out = format!(
        "file: {}\ncache: {}\nmodel calls: {}\n",
        scenario.file.display(),
        cache_word(scenario.cache),
        scenario.llm_calls.len()
    );
    for call in &scenario.llm_calls {
        out.push_str(&format!(
            "  {} {}/{}: {} input + {} output tokens, {} ms",
            call.purpose,
            call.provider,
            call.model,
            call.input_tokens,
            call.output_tokens,
            call.latency_ms
        ));
        if let Some(failure) = &call.failure {
            out.push_str(&format!(", no plan: {failure}"));
        }
        out.push('\n');
    }
    if !scenario.llm_calls.is_empty() {
        match scenario.cost_usd {
            Some(cost) => out.push_str(&format!("model cost: ${cost:.4}\n")),
            None => out.push_str("model cost: unpriced\n"),
        }
    }
    if let Some(path) = &scenario.screenshot {
        out.push_str(&format!("[[ATTACHMENT|{}]]\n", path.display()));
    }
    out
}

fn cache_word(outcome: CacheOutcome) -> &'static str {
    match outcome {
        CacheOutcome::Hit => "hit",
        CacheOutcome::Miss => "miss",
        CacheOutcome::Replanned => "replanned",
    }
}

/// The scenario file as a dotted name without extension (`scenarios/checkout.yaml` →
/// `scenarios.checkout`), so that Jenkins groups test cases by directory and file.
fn classname(file: &Path, suite: &str) -> String {
    let parts: Vec<String> = file
        .with_extension("")
        .components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    if parts.is_empty() {
        suite.to_owned()
    } else {
        parts.join(".")
    }
}

/// Milliseconds as seconds with three decimals, the form Surefire writes.
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// RFC 3339 as `YYYY-MM-DDTHH:MM:SS` in UTC: the Ant form, which the stricter JUnit schemas
/// require (no offset, no fraction).
fn timestamp(rfc3339: &str) -> Option<String> {
    let at = OffsetDateTime::parse(rfc3339, &Rfc3339).ok()?;
    at.to_offset(UtcOffset::UTC)
        .format(format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second]"
        ))
        .ok()
}

/// Element content.
fn text(value: &str) -> String {
    escape(value, false)
}

/// A double-quoted attribute value; line breaks and tabs as references, which survive a
/// parser's attribute-value normalization.
fn attribute(value: &str) -> String {
    escape(value, true)
}

/// Markup characters as entities; characters XML 1.0 forbids dropped, since one of them makes
/// a parser reject the whole file.
fn escape(value: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // A literal CR is turned into LF by every parser.
            '\r' => out.push_str("&#13;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            c if allowed_in_xml(c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// XML 1.0's `Char` production (Rust's `char` already excludes the surrogates).
fn allowed_in_xml(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{FFFD}' | '\u{10000}'..)
}
