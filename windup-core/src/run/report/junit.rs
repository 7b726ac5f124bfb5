//! JUnit XML for CI parsers (GitHub, GitLab, Jenkins), written with `quick-junit` (nextest's own
//! writer) in the Ant/Surefire shape that the Jenkins xUnit plugin's `junit-10.xsd` describes:
//! one `<testsuites>` holding one `<testsuite>`, one `<testcase>` per scenario, a `<failure>` for
//! each failed scenario and a `<system-out>` with what the run did for the scenario (cache, model
//! calls, screenshot).

use std::path::{Component, Path};
use std::time::Duration;

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

use super::{ScenarioReport, SuiteReport};
use crate::engine::ledger::CacheOutcome;

/// quick-junit drops tabs and carriage returns along with ANSI escapes; these noncharacters stand
/// in for them until the XML is written, and then become what a parser reads back as the same.
const TAB: char = '\u{FDD0}';
const CR: char = '\u{FDD1}';

/// The run as JUnit XML.
pub fn junit(report: &SuiteReport) -> String {
    let mut suite = TestSuite::new(xml(&report.name));
    suite.set_time(Duration::from_millis(report.duration_ms));
    // quick-junit's own timestamp has an offset and a fraction, which the stricter JUnit
    // schemas reject: the Ant form goes in as a plain attribute, left out if the time is odd.
    if let Some(at) = timestamp(&report.started_at) {
        suite.extra.insert("timestamp".into(), at.into());
    }
    suite.add_properties([
        Property::new("base_url", xml(&report.base_url)),
        Property::new("started_at", xml(&report.started_at)),
    ]);
    suite.add_test_cases(
        report
            .scenarios
            .iter()
            .map(|scenario| testcase(scenario, &report.name)),
    );
    let mut run = Report::new(xml(&report.name));
    run.set_time(Duration::from_millis(report.duration_ms));
    run.add_test_suite(suite);
    let written = run
        .to_string()
        .expect("quick-junit writes to memory, which cannot fail");
    as_every_reader_reads(&written)
}

fn testcase(scenario: &ScenarioReport, suite: &str) -> TestCase {
    let status = if scenario.passed {
        TestCaseStatus::success()
    } else {
        let headline = scenario
            .message
            .as_deref()
            .and_then(|message| message.lines().find(|line| !line.trim().is_empty()))
            .unwrap_or("the scenario failed");
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status
            .set_message(xml(headline.trim()))
            .set_type(xml(scenario.failure_class.as_deref().unwrap_or("failure")))
            .set_description(xml(&failure_text(scenario)));
        status
    };
    let mut case = TestCase::new(xml(&scenario.id), status);
    case.set_classname(xml(&classname(&scenario.file, suite)))
        .set_time(Duration::from_millis(scenario.duration_ms))
        .set_system_out(xml(&system_out(scenario)));
    case
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

/// A value for quick-junit: tabs and carriage returns as their stand-ins; noncharacters (the
/// stand-ins among them, and the two XML 1.0 forbids) dropped, as they carry nothing readable.
fn xml(value: &str) -> String {
    value
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(TAB),
            '\r' => Some(CR),
            '\u{FDD0}'..='\u{FDEF}' | '\u{FFFE}' | '\u{FFFF}' => None,
            c => Some(c),
        })
        .collect()
}

/// quick-junit's XML as every JUnit reader reads it alike. A tab or line break written as is in
/// an attribute is read as a space, and a carriage return anywhere as a line feed, so these become
/// character references; and the `skipped` count on `<testsuites>`, a quick-junit extension that
/// the Jenkins xUnit plugin's schema rejects, is left out.
fn as_every_reader_reads(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let (mut in_tag, mut in_value) = (false, false);
    for c in written.chars() {
        // Text and attribute values have `<`, `>` and `"` escaped: these are markup.
        match c {
            '<' => in_tag = true,
            '"' if in_tag => in_value = !in_value,
            '>' if !in_value => in_tag = false,
            _ => {}
        }
        match c {
            TAB if in_value => out.push_str("&#9;"),
            TAB => out.push('\t'),
            CR => out.push_str("&#13;"),
            '\n' if in_value => out.push_str("&#10;"),
            c => out.push(c),
        }
    }
    leave_out_root_skipped(&mut out);
    out
}

fn leave_out_root_skipped(xml: &mut String) {
    let Some(root) = xml.find("<testsuites ") else {
        return;
    };
    let tag_end = root + xml[root..].find('>').unwrap_or(xml.len() - root);
    let Some(at) = xml[root..tag_end].find(" skipped=\"") else {
        return;
    };
    let start = root + at;
    let value = start + " skipped=\"".len();
    if let Some(close) = xml[value..tag_end].find('"') {
        xml.replace_range(start..value + close + 1, "");
    }
}
