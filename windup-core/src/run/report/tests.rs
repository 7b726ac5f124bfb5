use std::path::{Path, PathBuf};

use serde_json::json;

use super::actions::description;
use super::thumbnail::{self, Picture};
use super::{ActionReport, ScenarioReport, SuiteReport, html, junit, scenario_report};
use crate::engine::executor::ActionRecord;
use crate::engine::ledger::{CacheOutcome, LlmCall, PriceTable, RetryKind};
use crate::model::plan::{Action, Plan, Rules};
use crate::model::scenario::Scenario;
use crate::run::outcome::{Outcome, RunDetails, ScenarioResult};

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
        step: None,
        line: None,
        description: kind.to_owned(),
        selector: None,
        frames: Vec::new(),
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
fn junit_keeps_tabs_and_carriage_returns_in_text() {
    let mut suite = report(Path::new("artifacts"));
    suite.scenarios[1].message = Some("expected\tone\r\nsaw\u{FDD0} two".to_owned());
    let xml = junit(&suite);
    // quick-junit alone would drop the tab and the carriage return; a stray noncharacter goes.
    assert!(
        xml.contains(
            ">step: fill &quot;Email&quot; with account.email\nexpected\tone&#13;\nsaw two\n"
        ),
        "{xml}"
    );
    assert!(xml.contains("message=\"expected&#9;one\""), "{xml}");
    assert!(
        !xml.contains('\u{FDD0}') && !xml.contains('\u{FDD1}'),
        "{xml}"
    );
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
#[cfg(feature = "images")]
fn html_inlines_screenshots_and_notes_missing_ones() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let page = html(&report(dir.path())).unwrap();

    use base64::Engine as _;
    let uri = format!(
        "src=\"data:image/png;base64,{}\"",
        base64::engine::general_purpose::STANDARD.encode(PNG)
    );
    // The failure screenshot as it was taken; two filmstrip frames as JPEG thumbnails; the
    // fourth file does not exist.
    assert_eq!(page.matches(&uri).count(), 1, "{page}");
    assert_eq!(
        page.matches("src=\"data:image/jpeg;base64,").count(),
        2,
        "{page}"
    );
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

/// Screenshots of the demo shop as the runner takes them (1280 × 900): the busy catalogue, a
/// product page and the empty cart.
#[cfg(feature = "images")]
const SHOTS: [&str; 3] = ["products.png", "product.png", "cart.png"];

fn shot(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/run/report/fixtures")
        .join(name)
}

const STEPS: &str = "task: Put a mug in the cart.\nstart_url: /products/rust-mug\nsteps:\n  \
                     - click \"Add to cart\"\n  - expect url /cart\n";

fn scenario(text: &str) -> Scenario {
    crate::model::scenario::parse(text, Path::new("scenarios/mug.yaml"), Path::new("."))
        .expect("the test scenario is valid")
}

fn plan_of(id: &str, actions: serde_json::Value) -> Plan {
    let value = json!({
        "plan_version": "0.1",
        "scenario_id": id,
        "task": "Put a mug in the cart.",
        "start_url": "/products/rust-mug",
        "generated_by": { "planner": "offline", "at": "2026-12-01T12:19:13.123456789Z" },
        "actions": actions,
    });
    Plan::from_json_str(&value.to_string(), &Rules::default()).expect("the test plan is valid")
}

/// A passed run of `plan`, every action with the same screenshot.
fn ran(plan: Plan, screenshot: Option<PathBuf>) -> ScenarioResult {
    let actions = plan
        .actions
        .iter()
        .map(|action| ActionRecord {
            id: action.id.clone(),
            kind: action.kind,
            duration: std::time::Duration::from_millis(120),
            screenshot: screenshot.clone(),
        })
        .collect();
    ScenarioResult {
        id: plan.scenario_id.clone(),
        started_at: "2026-12-01T12:19:13Z".to_owned(),
        duration: std::time::Duration::from_millis(900),
        outcome: Outcome::Passed {
            actions: plan.actions.len(),
            cache: CacheOutcome::Miss,
            pending: None,
        },
        details: RunDetails {
            plan: Some(plan),
            actions,
            ..RunDetails::default()
        },
    }
}

fn suite_of(scenarios: Vec<ScenarioReport>) -> SuiteReport {
    SuiteReport {
        name: "shop".to_owned(),
        started_at: "2026-12-01T12:19:13.123456789Z".to_owned(),
        duration_ms: 1_000,
        base_url: "http://127.0.0.1:4100".to_owned(),
        scenarios,
    }
}

#[test]
fn html_names_each_action_by_the_step_written_and_its_selector() {
    let scenario = scenario(STEPS);
    let plan = plan_of(
        &scenario.id,
        json!([
            { "id": "s1", "type": "click", "target": { "selector": "[data-testid=\"add-to-cart\"]",
              "identity": { "tag": "button", "name": "Add to cart" } } },
            { "id": "s2", "type": "wait_for",
              "target": { "selector": "body", "identity": { "tag": "body" } },
              "expect": [{ "kind": "url_matches", "pattern": "/cart" }] },
        ]),
    );
    let report = scenario_report(
        &scenario,
        &ran(plan, Some(shot("cart.png"))),
        &PriceTable::default(),
    );
    let [click, wait] = &report.actions[..] else {
        panic!("two actions: {:?}", report.actions)
    };
    assert_eq!(click.step.as_deref(), Some("click \"Add to cart\""));
    assert_eq!(click.line, Some(4));
    assert_eq!(
        click.selector.as_deref(),
        Some("[data-testid=\"add-to-cart\"]")
    );
    assert_eq!(wait.step.as_deref(), Some("expect url /cart"));
    assert_eq!(wait.description, "wait_for url_matches /cart");
    assert_eq!(wait.selector.as_deref(), Some("body"));

    let page = html(&suite_of(vec![report])).unwrap();
    let step = "<code>click &quot;Add to cart&quot;</code> <span class=\"line\">line 4</span>";
    let selector = "<code>[data-testid=&quot;add-to-cart&quot;]</code>";
    // In the filmstrip's captions and in the timings table.
    assert_eq!(page.matches(step).count(), 2, "{page}");
    assert_eq!(page.matches(selector).count(), 2, "{page}");
    assert!(page.contains("<code>expect url /cart</code>"), "{page}");
    assert!(!page.contains(">s1<") && !page.contains(">s2<"), "{page}");
}

#[test]
fn html_says_what_a_model_planned_action_does() {
    let scenario = scenario("task: Put a mug in the cart.\nstart_url: /products/rust-mug\n");
    let plan = plan_of(
        &scenario.id,
        json!([
            { "id": "s1", "type": "fill", "value": "demo@windup.test",
              "target": { "frames": ["iframe#login"], "selector": "#email",
                          "identity": { "tag": "input", "label": "Email" } },
              "expect": [{ "kind": "text_visible", "text": "Welcome" }] },
        ]),
    );
    let report = scenario_report(&scenario, &ran(plan, None), &PriceTable::default());
    let action = &report.actions[0];
    // No steps were written, so not even `s1` names one.
    assert_eq!(action.step, None);
    assert_eq!(
        action.description,
        "fill \"Email\" with \"demo@windup.test\""
    );
    assert_eq!(action.frames, ["iframe#login"]);

    let page = html(&suite_of(vec![report])).unwrap();
    assert!(
        page.contains(
            "<span class=\"planned mono\" title=\"planned, not written\">fill \
                       &quot;Email&quot; with &quot;demo@windup.test&quot;</span>"
        ),
        "{page}"
    );
    assert!(
        page.contains("<code>#email</code> <span class=\"line\">in the frame iframe#login</span>"),
        "{page}"
    );
}

#[test]
fn description_says_what_each_kind_of_action_does() {
    let action = |value: serde_json::Value| -> Action { serde_json::from_value(value).unwrap() };
    let button = json!({ "selector": "#buy", "identity": { "tag": "button", "name": "Buy" } });
    let nameless = json!({ "selector": "form > input", "identity": { "tag": "input" } });
    for (value, described) in [
        (
            json!({ "id": "a", "type": "goto", "url": "/cart" }),
            "goto /cart",
        ),
        (
            json!({ "id": "a", "type": "click", "target": button }),
            "click \"Buy\"",
        ),
        (
            json!({ "id": "a", "type": "hover", "target": nameless }),
            "hover <input>",
        ),
        (
            json!({ "id": "a", "type": "fill", "value": "3", "target": nameless }),
            "fill <input> with \"3\"",
        ),
        (
            json!({ "id": "a", "type": "select", "value": "Germany", "target": button }),
            "select \"Germany\" in \"Buy\"",
        ),
        (
            json!({ "id": "a", "type": "press", "key": "Enter", "target": nameless }),
            "press Enter in <input>",
        ),
        (
            json!({ "id": "a", "type": "use", "use": "log-in" }),
            "use log-in",
        ),
        (
            json!({ "id": "a", "type": "wait_for", "target": button }),
            "wait_for \"Buy\"",
        ),
        (
            json!({ "id": "a", "type": "wait_for", "expect": [
                { "kind": "text_visible", "text": "Thanks" },
                { "kind": "url_matches", "pattern": "/orders/*" } ] }),
            "wait_for text_visible \"Thanks\" and url_matches /orders/*",
        ),
    ] {
        assert_eq!(description(&action(value)), described);
    }
}

#[test]
fn html_shows_the_start_time_as_people_read_it() {
    let page = html(&suite_of(vec![])).unwrap();
    assert!(
        page.contains(
            "<time datetime=\"2026-12-01T12:19:13.123456789Z\">2026-12-01 12:19:13 UTC</time>"
        ),
        "{page}"
    );
    let mut odd = suite_of(vec![]);
    odd.started_at = "2026-11-30T09:15:42.5+01:00".to_owned();
    assert!(
        html(&odd)
            .unwrap()
            .contains(">2026-11-30 08:15:42 UTC</time>")
    );
    odd.started_at = "yesterday".to_owned();
    let page = html(&odd).unwrap();
    assert!(
        page.contains("<dd>yesterday</dd>") && !page.contains("<time"),
        "{page}"
    );
}

#[test]
#[cfg(feature = "images")]
fn a_filmstrip_frame_is_a_small_jpeg_and_a_failure_screenshot_stays_as_taken() {
    let path = shot("products.png");
    let png = std::fs::read(&path).unwrap();
    let Picture::Inline {
        mime,
        data,
        width,
        height,
    } = thumbnail::thumbnail(&path).unwrap()
    else {
        panic!("the screenshot decodes")
    };
    assert_eq!((mime, width, height), ("image/jpeg", 320, 225));
    assert!(data.starts_with(&[0xFF, 0xD8, 0xFF]), "a JPEG");
    // The catalogue is the busiest page: its PNG is 90 KB, its thumbnail about 10.
    assert!(
        data.len() < 16 * 1024 && data.len() * 6 < png.len(),
        "{} bytes",
        data.len()
    );

    assert_eq!(
        thumbnail::full_size(&path).unwrap(),
        Picture::Inline {
            mime: "image/png",
            data: png,
            width: 1280,
            height: 900
        }
    );
    // A frame smaller than a thumbnail keeps its size.
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    let tiny = thumbnail::thumbnail(&dir.path().join("checkout-open.png")).unwrap();
    assert!(
        matches!(
            tiny,
            Picture::Inline {
                width: 1,
                height: 1,
                ..
            }
        ),
        "{tiny:?}"
    );
}

#[test]
fn a_screenshot_that_does_not_decode_shows_as_text() {
    let dir = tempfile::tempdir().unwrap();
    write_shots(dir.path());
    for name in ["checkout-failure.png", "checkout-open.png"] {
        std::fs::write(dir.path().join(name), b"\x89PNG\r\n\x1a\n cut short").unwrap();
    }
    let page = html(&report(dir.path())).unwrap();
    for name in ["checkout-failure.png", "checkout-open.png"] {
        let note = format!(
            "(screenshot cannot be shown: {}: ",
            dir.path().join(name).display()
        );
        assert!(page.contains(&note), "{name}: {page}");
    }
    // The passing scenario's frame still shows.
    assert_eq!(page.matches("<img ").count(), 1, "{page}");
}

#[cfg(feature = "images")]
/// What a report of `actions` actions weighs: 10 per scenario, each after one of the shop's
/// screenshots in turn, one scenario in ten failed with its screenshot full size.
fn weigh(actions: usize) -> (usize, usize) {
    let shots: Vec<PathBuf> = SHOTS.iter().map(|name| shot(name)).collect();
    let scenarios = (0..actions / 10)
        .map(|n| {
            let steps: String = (1..=10)
                .map(|i| format!("  - click \"Step {i}\"\n"))
                .collect();
            let scenario = scenario(&format!("task: Scenario {n}.\nsteps:\n{steps}"));
            let plan = plan_of(
                &scenario.id,
                (1..=10)
                    .map(|i| {
                        json!({ "id": format!("s{i}"), "type": "click", "target": {
                        "selector": format!("[data-testid=\"step-{i}\"]"),
                        "identity": { "tag": "button", "name": format!("Step {i}") } },
                        "expect": [{ "kind": "text_visible", "text": format!("Done {i}") }] })
                    })
                    .collect(),
            );
            let mut result = ran(plan, None);
            for (i, action) in result.details.actions.iter_mut().enumerate() {
                action.screenshot = Some(shots[(n + i) % shots.len()].clone());
            }
            if n % 10 == 0 {
                result.outcome = Outcome::Failed(crate::run::failure::Failure::NoWorkingPlan(
                    "scenarios/mug.yaml:13: the last step failed".to_owned(),
                ));
                result.details.screenshot = Some(shots[n % shots.len()].clone());
            }
            scenario_report(&scenario, &result, &PriceTable::default())
        })
        .collect();
    let suite = suite_of(scenarios);
    let page = html(&suite).unwrap();
    // The same report with each frame inlined as its PNG, as reports were before thumbnails.
    let jpegs: usize = page
        .split("data:image/jpeg;base64,")
        .skip(1)
        .map(|rest| rest.find('"').unwrap())
        .sum();
    let pngs: usize = suite
        .scenarios
        .iter()
        .flat_map(|scenario| &scenario.actions)
        .map(|action| {
            std::fs::metadata(action.screenshot.as_ref().unwrap())
                .unwrap()
                .len()
        })
        .map(|bytes| (bytes as usize).div_ceil(3) * 4)
        .sum();
    (page.len(), page.len() - jpegs + pngs)
}

#[test]
#[cfg(feature = "images")]
fn a_report_of_a_thousand_actions_stays_small_enough_to_open() {
    for (actions, bound) in [(100, 1_500 * 1024), (1_000, 15 * 1024 * 1024)] {
        let (weight, as_png) = weigh(actions);
        println!(
            "{actions} actions: {} KB ({} KB with PNG frames)",
            weight / 1024,
            as_png / 1024
        );
        assert!(weight < bound, "{actions} actions weigh {weight} bytes");
        // Full-size PNG frames would weigh over five times as much.
        assert!(as_png > 5 * weight, "{as_png} against {weight}");
    }
}

#[test]
#[cfg(not(feature = "images"))]
fn without_images_a_frame_is_inlined_as_it_was_taken() {
    let path = shot("cart.png");
    let taken = std::fs::read(&path).unwrap();
    let Picture::Inline {
        mime,
        data,
        width,
        height,
    } = thumbnail::thumbnail(&path).unwrap()
    else {
        panic!("the shop's screenshot inlines");
    };
    assert_eq!((mime, width, height), ("image/png", 1280, 900));
    assert_eq!(data, taken);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cut.png"), b"\x89PNG\r\n\x1a\n cut short").unwrap();
    assert!(matches!(
        thumbnail::thumbnail(&dir.path().join("cut.png")).unwrap(),
        Picture::Undecodable(_)
    ));
    assert_eq!(
        thumbnail::thumbnail(&dir.path().join("gone.png")).unwrap(),
        Picture::Missing
    );
}
