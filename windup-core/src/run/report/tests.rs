use std::path::{Path, PathBuf};

use serde_json::json;

use super::{ActionReport, ScenarioReport, SuiteReport, html, junit};
use crate::ledger::{CacheOutcome, LlmCall, RetryKind};
use crate::plan::{Plan, Rules};

/// A 1×1 transparent PNG, chunk CRCs included.
const PNG: [u8; 67] = [
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

const MESSAGE: &str = "scenarios/checkout.yaml:7: scenario \"checkout\", action \"email\" \
     (#2 of 3, fill): no <input> labelled \"Email\" & 'Name'\u{1b}[31m\u{0}\n  page: /checkout\n  \
     screenshot: artifacts/checkout-failure.png";

fn plan(id: &str) -> Plan {
    let value = json!({
        "plan_version": "0.1",
        "scenario_id": id,
        "task": format!("test {id}"),
        "start_url": "/products",
        "generated_by": { "planner": "hand", "at": "2026-11-30T00:00:00Z" },
        "actions": [{
            "id": "heading",
            "type": "wait_for",
            "target": { "selector": "h1", "identity": { "tag": "h1" } },
            "expect": [{ "kind": "text_visible", "text": "Products" }]
        }],
    });
    Plan::from_json_str(&value.to_string(), &Rules::default()).expect("the test plan is valid")
}

fn action(id: &str, kind: &str, duration_ms: u64, screenshot: Option<PathBuf>) -> ActionReport {
    ActionReport {
        id: id.to_owned(),
        kind: kind.to_owned(),
        duration_ms,
        screenshot,
    }
}

/// One passing and one failing scenario, in that order; screenshots under `shots`.
fn report(shots: &Path) -> SuiteReport {
    let passing = ScenarioReport {
        id: "browse-catalogue".to_owned(),
        file: PathBuf::from("scenarios/browse.yaml"),
        task: "Open the catalogue and see the <b>mugs</b>".to_owned(),
        passed: true,
        failure_class: None,
        message: None,
        failed_step: None,
        screenshot: None,
        duration_ms: 1_234,
        cache: CacheOutcome::Hit,
        actions: vec![action(
            "heading",
            "wait_for",
            87,
            Some(shots.join("browse-heading.png")),
        )],
        plan: Some(plan("browse-catalogue")),
        llm_calls: vec![],
        cost_usd: None,
    };
    let failing = ScenarioReport {
        id: "checkout".to_owned(),
        file: PathBuf::from("scenarios/checkout.yaml"),
        task: "Buy two mugs & pay".to_owned(),
        passed: false,
        failure_class: Some("step".to_owned()),
        message: Some(MESSAGE.to_owned()),
        failed_step: Some("fill \"Email\" with account.email".to_owned()),
        screenshot: Some(shots.join("checkout-failure.png")),
        duration_ms: 61_005,
        cache: CacheOutcome::Replanned,
        actions: vec![
            action("open", "click", 412, Some(shots.join("checkout-open.png"))),
            action("email", "fill", 5_003, Some(shots.join("gone.png"))),
        ],
        plan: Some(plan("checkout")),
        llm_calls: vec![
            LlmCall {
                purpose: "plan".to_owned(),
                provider: "fake".to_owned(),
                model: "fake-1".to_owned(),
                input_tokens: 1_200,
                output_tokens: 310,
                latency_ms: 950,
                retry: None,
                failure: Some("plan_failed".to_owned()),
            },
            LlmCall {
                purpose: "replan".to_owned(),
                provider: "fake".to_owned(),
                model: "fake-1".to_owned(),
                input_tokens: 1_500,
                output_tokens: 280,
                latency_ms: 1_020,
                retry: Some(RetryKind::Semantic),
                failure: None,
            },
        ],
        cost_usd: Some(0.0123),
    };
    SuiteReport {
        name: "shop".to_owned(),
        started_at: "2026-11-30T09:15:42.5+01:00".to_owned(),
        duration_ms: 62_500,
        base_url: "http://127.0.0.1:4100".to_owned(),
        scenarios: vec![passing, failing],
    }
}

#[test]
fn junit_snapshot() {
    let xml = junit(&report(Path::new("artifacts")));
    insta::assert_snapshot!("junit", xml);
}

#[test]
fn junit_escapes_markup_and_drops_what_xml_forbids() {
    let xml = junit(&report(Path::new("artifacts")));
    assert!(
        xml.contains("no &lt;input&gt; labelled &quot;Email&quot; &amp; &apos;Name&apos;"),
        "{xml}"
    );
    assert!(!xml.contains('\u{1b}') && !xml.contains('\u{0}'), "{xml}");
    // The headline is one line of the message; its other lines are in the failure's text.
    assert!(
        xml.contains("message=\"scenarios/checkout.yaml:7: scenario"),
        "{xml}"
    );
    assert!(xml.contains("  page: /checkout\n"), "{xml}");
    assert!(
        xml.contains("[[ATTACHMENT|artifacts/checkout-failure.png]]"),
        "{xml}"
    );
}

#[test]
fn junit_timestamp_is_utc_without_offset() {
    let xml = junit(&report(Path::new("artifacts")));
    assert!(xml.contains(" timestamp=\"2026-11-30T08:15:42\""), "{xml}");

    let mut odd = report(Path::new("artifacts"));
    odd.started_at = "yesterday".to_owned();
    assert!(!junit(&odd).contains("timestamp="));
}

#[test]
fn junit_escapes_line_breaks_in_attributes() {
    let mut suite = report(Path::new("artifacts"));
    suite.name = "a\tb\r\nc".to_owned();
    let xml = junit(&suite);
    assert!(xml.contains("name=\"a&#9;b&#13;&#10;c\""), "{xml}");
}

#[test]
fn html_forbids_the_network_and_requests_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let suite = report(dir.path());
    let page = html(&suite).unwrap();

    assert!(
        page.contains(
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        ),
        "{page}"
    );
    // The base URL is the only user text here with a URL in it.
    let rest = page.replace(&suite.base_url, "");
    for remote in ["http://", "https://", "src=\"//", "href=\"//", "url("] {
        assert!(!rest.contains(remote), "the report refers to {remote}");
    }
    assert!(!page.contains("<link rel=\"stylesheet\""));
    assert!(!page.contains("<script src"));
}

#[test]
fn html_lists_failures_first() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let page = html(&report(dir.path())).unwrap();
    let failing = page
        .find("data-scenario=\"checkout\"")
        .expect("the failing scenario has a section");
    let passing = page
        .find("data-scenario=\"browse-catalogue\"")
        .expect("the passing scenario has a section");
    assert!(failing < passing, "the failure comes first");
    assert!(page.contains("1 passed</span>") && page.contains("1 failed</span>"));
}

#[test]
fn html_inlines_screenshots_and_notes_missing_ones() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let page = html(&report(dir.path())).unwrap();

    use base64::Engine as _;
    let uri = format!(
        "src=\"data:image/png;base64,{}\"",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    );
    // Failure screenshot, two filmstrip frames; the fourth file does not exist.
    assert_eq!(page.matches(&uri).count(), 3, "{page}");
    let gone = dir.path().join("gone.png");
    assert!(
        page.contains(&format!("(screenshot missing: {})", gone.display())),
        "{page}"
    );
}

#[test]
fn html_escapes_user_text() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let page = html(&report(dir.path())).unwrap();
    assert!(page.contains("see the &lt;b&gt;mugs&lt;/b&gt;"));
    assert!(page.contains("Buy two mugs &amp; pay"));
    assert!(page.contains("no &lt;input&gt; labelled &quot;Email&quot; &amp; &#39;Name&#39;"));
    assert!(!page.contains('\u{1b}') && !page.contains('\u{0}'));
    assert!(page.contains("<details class=\"plan\">"));
    assert!(page.contains("&quot;scenario_id&quot;: &quot;checkout&quot;"));
}

#[test]
fn html_fails_on_an_unreadable_screenshot_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    // A directory where a screenshot should be: not missing, unreadable.
    std::fs::create_dir(dir.path().join("gone.png")).unwrap();
    let err = html(&report(dir.path())).unwrap_err();
    assert!(err.to_string().contains("gone.png"), "{err}");
}

fn write_shots(dir: &Path) {
    for name in [
        "browse-heading.png",
        "checkout-failure.png",
        "checkout-open.png",
    ] {
        std::fs::write(dir.join(name), PNG).unwrap();
    }
}
