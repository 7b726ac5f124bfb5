//! The report writers against the outside world: the JUnit XML validates against the Jenkins
//! xUnit plugin's JUnit schema, and the HTML report renders in real Chromium without a single
//! network request.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::Rig;
use windup_core::engine::ledger::{CacheOutcome, LlmCall};
use windup_core::run::report::{self, ActionReport, ScenarioReport, SuiteReport};

/// One passing and one failing scenario, with text that needs escaping (and a control
/// character XML forbids); screenshots at the given paths.
fn suite(base_url: &str, film: [PathBuf; 2], failure: PathBuf) -> SuiteReport {
    let [first, second] = film;
    let passing = ScenarioReport {
        id: "browse-catalogue".to_owned(),
        file: PathBuf::from("scenarios/browse.yaml"),
        task: "See the <em>mugs</em> & \"cups\" in the catalogue".to_owned(),
        passed: true,
        failure_class: None,
        message: None,
        failed_step: None,
        screenshot: None,
        duration_ms: 1_480,
        cache: CacheOutcome::Hit,
        actions: vec![
            ActionReport {
                id: "s1".to_owned(),
                kind: "wait_for".to_owned(),
                step: Some("expect text \"Products\"".to_owned()),
                line: Some(3),
                description: "wait_for text_visible \"Products\"".to_owned(),
                selector: Some("body".to_owned()),
                frames: vec![],
                duration_ms: 310,
                screenshot: Some(first.clone()),
            },
            ActionReport {
                id: "s2".to_owned(),
                kind: "wait_for".to_owned(),
                step: Some("expect text \"Rust mug\"".to_owned()),
                line: Some(4),
                description: "wait_for text_visible \"Rust mug\"".to_owned(),
                selector: Some("body".to_owned()),
                frames: vec![],
                duration_ms: 95,
                screenshot: Some(second.clone()),
            },
        ],
        plan: None,
        llm_calls: vec![],
        cost_usd: None,
    };
    let failing = ScenarioReport {
        id: "checkout".to_owned(),
        file: PathBuf::from("scenarios/checkout.yaml"),
        task: "Buy two mugs & pay".to_owned(),
        passed: false,
        failure_class: Some("step".to_owned()),
        message: Some(format!(
            "scenarios/checkout.yaml:9: scenario \"checkout\", action \"email\" (#2 of 2, fill): \
             no <input> named 'Email' & no \"label\"\u{7}\n  page: {base_url}/checkout\n  \
             screenshot: {}",
            failure.display()
        )),
        failed_step: Some("fill \"Email\" with account.email".to_owned()),
        screenshot: Some(failure),
        duration_ms: 5_730,
        cache: CacheOutcome::Miss,
        actions: vec![ActionReport {
            id: "open-mug".to_owned(),
            kind: "click".to_owned(),
            step: None,
            line: None,
            description: "click \"Rust mug\"".to_owned(),
            selector: Some("a[href=\"/products/rust-mug\"]".to_owned()),
            frames: vec![],
            duration_ms: 240,
            screenshot: Some(first),
        }],
        plan: Some(common::plan_file("checkout")),
        llm_calls: vec![LlmCall {
            purpose: "plan".to_owned(),
            provider: "fake".to_owned(),
            model: "fake-1".to_owned(),
            input_tokens: 900,
            output_tokens: 200,
            latency_ms: 700,
            retry: None,
            failure: None,
        }],
        cost_usd: Some(0.004),
    };
    SuiteReport {
        name: "windup <shop> & \"friends\"".to_owned(),
        started_at: "2026-11-30T08:00:00Z".to_owned(),
        duration_ms: 7_210,
        base_url: base_url.to_owned(),
        scenarios: vec![passing, failing],
    }
}

fn xmllint(args: &[&str]) -> std::process::Output {
    match Command::new("xmllint").args(args).output() {
        Ok(output) => output,
        Err(e) => panic!(
            "cannot run xmllint ({e}): install libxml2-utils (apt-get install libxml2-utils) \
             to validate the JUnit report"
        ),
    }
}

#[test]
fn junit_validates_against_the_jenkins_junit_schema() {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit.xsd");
    let schema = schema.to_str().expect("a UTF-8 path");
    let dir = tempfile::tempdir().unwrap();
    let shot = |name: &str| dir.path().join(name);
    let report = suite(
        "http://127.0.0.1:4100",
        [shot("a.png"), shot("b.png")],
        shot("failure.png"),
    );
    let xml = report::junit(&report);
    let file = dir.path().join("junit.xml");
    std::fs::write(&file, &xml).unwrap();

    let output = xmllint(&["--noout", "--schema", schema, file.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "the JUnit XML does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(xml.contains(r#"tests="2" failures="1""#), "{xml}");
    assert!(!xml.contains('\u{7}'), "{xml}");

    // The check can fail: a testsuite without its required counts is rejected.
    let broken = dir.path().join("broken.xml");
    std::fs::write(
        &broken,
        "<?xml version=\"1.0\"?>\n<testsuites><testsuite name=\"x\"/></testsuites>\n",
    )
    .unwrap();
    let output = xmllint(&["--noout", "--schema", schema, broken.to_str().unwrap()]);
    assert!(
        !output.status.success(),
        "xmllint accepted an invalid report"
    );
}

#[tokio::test]
async fn html_renders_in_chromium_with_no_network_request() {
    let rig = Rig::start().await;
    let dir = tempfile::tempdir().unwrap();
    let shop = rig.shop.url().to_string();
    let shot = |name: &str| dir.path().join(name);

    rig.session
        .goto(&format!("{shop}/products"))
        .await
        .expect("the products page opens");
    rig.session.screenshot(&shot("products.png")).await.unwrap();
    rig.session
        .goto(&format!("{shop}/cart"))
        .await
        .expect("the cart opens");
    rig.session.screenshot(&shot("cart.png")).await.unwrap();

    let report = suite(
        &shop,
        [shot("products.png"), shot("cart.png")],
        shot("cart.png"),
    );
    let html = report::html(&report).expect("the screenshots are readable");
    let file = dir.path().join("report.html");
    std::fs::write(&file, &html).unwrap();
    let url = format!("file://{}", file.display());
    rig.session.goto(&url).await.expect("the report opens");

    let check = |script: &'static str| {
        let session = &rig.session;
        async move {
            session
                .execute_script(script)
                .await
                .unwrap_or_else(|e| panic!("{script}: {e}"))
        }
    };
    assert_eq!(
        check("return performance.getEntriesByType('resource').map(e => e.name);").await,
        serde_json::json!([]),
        "the report made requests"
    );
    assert_eq!(
        check("return document.images.length;").await,
        serde_json::json!(4),
        "the failure screenshot and three filmstrip frames"
    );
    assert_eq!(
        check(
            "return Array.from(document.images)
                .filter(i => !(i.complete && i.naturalWidth > 0))
                .map(i => i.alt);"
        )
        .await,
        serde_json::json!([]),
        "images that did not render"
    );
    // Filmstrip frames as small JPEG thumbnails of the 1280-pixel screenshots; the failure's
    // screenshot as it was taken.
    assert_eq!(
        check(
            "return Array.from(document.images).map(i => i.closest('.filmstrip')
                ? ['frame', i.src.split(';')[0], i.naturalWidth <= 320, i.src.length < 24 * 1024]
                : ['failure', i.src.split(';')[0], i.naturalWidth]);"
        )
        .await,
        serde_json::json!([
            ["failure", "data:image/png", 1280],
            ["frame", "data:image/jpeg", true, true],
            ["frame", "data:image/jpeg", true, true],
            ["frame", "data:image/jpeg", true, true],
        ]),
        "the images' kinds, sizes and weights"
    );
    assert_eq!(
        check(
            "return Array.from(document.querySelectorAll('section.passed table.timings tbody tr'))
                .map(r => r.cells[1].innerText + ' | ' + r.cells[2].innerText);"
        )
        .await,
        serde_json::json!([
            "expect text \"Products\" line 3 | body",
            "expect text \"Rust mug\" line 4 | body",
        ]),
        "each action by the step written and its selector"
    );
    assert_eq!(
        check("return document.querySelector('header.summary time').dateTime;").await,
        serde_json::json!("2026-11-30T08:00:00Z"),
        "the start time's machine value"
    );
    assert_eq!(
        check(
            "return Array.from(document.querySelectorAll('section.scenario'))
                .map(s => s.dataset.scenario);"
        )
        .await,
        serde_json::json!(["checkout", "browse-catalogue"]),
        "the failure comes first"
    );
    assert_eq!(
        check(
            "const plan = document.querySelector('section.failed details.plan');
             return plan && !plan.open && plan.querySelector('pre').textContent
                 .includes('\"scenario_id\": \"checkout-as-demo-user\"');"
        )
        .await,
        serde_json::json!(true),
        "the plan, as pretty JSON, collapsed"
    );
    let summary = check("return document.querySelector('header.summary').innerText;").await;
    let summary = summary.as_str().expect("text");
    assert!(summary.contains("1 passed"), "{summary}");
    assert!(summary.contains("1 failed"), "{summary}");
    assert!(summary.contains("windup <shop> & \"friends\""), "{summary}");
    assert!(summary.contains("2026-11-30 08:00:00 UTC"), "{summary}");

    let rendered = dir.path().join("rendered.png");
    rig.session.screenshot(&rendered).await.unwrap();
    let png = std::fs::read(&rendered).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert!(
        png.len() > 8 * 1024,
        "a rendered page, not a blank one: {} bytes",
        png.len()
    );

    rig.close().await;
}

/// The whole path: `cargo windup run --report junit=…,json=…,html=…` on a real suite with a
/// passing and a failing scenario writes all three, with the filmstrip, and the JUnit validates.
#[tokio::test]
async fn cargo_windup_run_writes_every_report() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = common::Project::with(&["search"]);
    project.write(
        "broken",
        "task: Find a mug that does not exist.\nstart_url: /products\nsteps:\n  - fill \"Search\" with \"mug\"\n  - press Enter\n  - expect text \"Unicorn mug\"\n",
    );
    // The failing expectation fails at its deadline: keep it short.
    std::fs::write(
        project.root().join("windup.toml"),
        "scenarios = \"scenarios\"\ntimeout_ms = 1500\n",
    )
    .unwrap();
    let url = shop.url().to_owned();
    let dir = project.root().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        common::run_in(
            &dir,
            &[
                "run",
                "--base-url",
                &url,
                "--report",
                "junit=out/windup.xml,json=out/windup.json,html=out/windup.html",
            ],
            &[],
        )
    })
    .await
    .unwrap();
    let out = common::text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(
        out.contains("report: out/windup.html") || out.contains("windup.html"),
        "{out}"
    );

    let root = project.root().join("out");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("windup.json")).unwrap()).unwrap();
    let scenarios = json["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 2);
    let broken = scenarios.iter().find(|s| s["id"] == "broken").unwrap();
    assert_eq!(broken["passed"], false);
    assert!(
        broken["failed_step"]
            .as_str()
            .unwrap()
            .starts_with("expect text \"Unicorn mug\""),
        "{broken}"
    );
    assert!(Path::new(broken["screenshot"].as_str().unwrap()).is_file());
    let search = scenarios.iter().find(|s| s["id"] == "search").unwrap();
    assert_eq!(search["passed"], true);
    let actions = search["actions"].as_array().unwrap();
    assert!(!actions.is_empty());
    assert!(
        actions.iter().all(|a| a["screenshot"]
            .as_str()
            .is_some_and(|p| Path::new(p).is_file())),
        "the filmstrip: {search}"
    );
    assert!(search["plan"]["actions"].is_array());

    let html = std::fs::read_to_string(root.join("windup.html")).unwrap();
    // The filmstrips as JPEG thumbnails, each a fraction of its PNG; the failure full size.
    let frames: Vec<usize> = html
        .split("data:image/jpeg;base64,")
        .skip(1)
        .map(|rest| rest.find('"').unwrap())
        .collect();
    let filmed = scenarios
        .iter()
        .flat_map(|s| s["actions"].as_array().unwrap())
        .filter(|a| a["screenshot"].is_string())
        .count();
    assert!(filmed >= actions.len(), "{json}");
    assert_eq!(frames.len(), filmed, "the filmstrips inlined");
    let lightest = actions
        .iter()
        .map(|a| {
            std::fs::metadata(a["screenshot"].as_str().unwrap())
                .unwrap()
                .len()
        })
        .min()
        .unwrap() as usize;
    assert!(
        frames.iter().all(|&frame| frame < lightest),
        "each thumbnail weighs less than the lightest screenshot ({lightest} bytes): {frames:?}"
    );
    assert_eq!(
        html.matches("data:image/png;base64,").count(),
        1,
        "the failure inlined"
    );
    assert!(
        html.contains("<code>fill &quot;Search&quot; with &quot;mug&quot;</code>"),
        "the step as written"
    );
    assert_eq!(
        actions[0]["step"], "fill \"Search\" with \"mug\"",
        "{search}"
    );
    assert!(html.find("broken").unwrap() < html.rfind("search").unwrap());

    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit.xsd");
    let junit = root.join("windup.xml");
    let check = xmllint(&[
        "--noout",
        "--schema",
        schema.to_str().unwrap(),
        junit.to_str().unwrap(),
    ]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
