//! A user's view: a fresh crate with windup as a path dev-dependency, `cargo windup init`, one
//! scenario against a page the test serves, then `cargo test` and `cargo nextest run`.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::fresh::{self, build_dir, repo};
use common::text;

const PAGE: &str = r#"<!doctype html>
<html lang="en"><head><title>Greeter</title></head>
<body>
  <h1>Greeter</h1>
  <label for="who">Your name</label> <input id="who">
  <button type="button" onclick="document.getElementById('out').textContent = 'Hello, ' + document.getElementById('who').value">Say hello</button>
  <p id="out"></p>
</body></html>"#;

const HELLO: &str = r#"task: Greet Ferris.
steps:
  - fill "Your name" with "Ferris"
  - click "Say hello"
  - expect text "Hello, Ferris"
"#;

const TITLE: &str = r#"task: See the greeter's heading.
steps:
  - expect text "Greeter"
"#;

/// Runs cargo in the fresh crate, sharing this repository's build directory so that windup and
/// its dependencies are not compiled again.
fn cargo(dir: &Path, base_url: &str, args: &[&str]) -> Output {
    let target = build_dir();
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("WINDUP_BASE_URL", base_url)
        .env_remove("CI")
        .output()
        .expect("cargo runs")
}

/// How libtest reported a test: `ok`, `FAILED` or `ignored` (names are padded to align).
fn outcome<'a>(output: &'a str, name: &str) -> Option<&'a str> {
    output.lines().find_map(|line| {
        let rest = line.strip_prefix("test ")?.strip_prefix(name)?;
        let (padding, result) = rest.split_once("... ")?;
        padding.trim().is_empty().then_some(result.trim())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_crate_runs_its_scenarios_under_cargo_test_and_nextest() {
    let (url, server) = fresh::serve(&[("/", PAGE)]).await;
    let dir = fresh::with_windup("greeter");
    let app = dir.path();

    // With default features, a test crate builds none of what only the audit, the server, the
    // scan or scaled screenshots need (docs/architecture.md#features).
    let tree = cargo(
        app,
        &url,
        &[
            "tree",
            "--offline",
            "-e",
            "normal,dev,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ],
    );
    assert!(tree.status.success(), "cargo tree: {}", text(&tree));
    let tree = String::from_utf8_lossy(&tree.stdout).into_owned();
    assert!(tree.contains("windup-core v"), "{tree}");
    for left_out in ["axum", "rusqlite", "tree-sitter", "image"] {
        assert!(
            !tree
                .lines()
                .any(|line| line.starts_with(&format!("{left_out} v"))),
            "a default test crate builds {left_out}:\n{tree}"
        );
    }

    let cli = ["run", "--offline", "-q", "--manifest-path"];
    let manifest = repo().join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let init = [&cli[..], &[manifest, "-p", "cargo-windup", "--", "init"]].concat();
    let first = cargo(app, &url, &init);
    assert!(first.status.success(), "init: {}", text(&first));
    let second = cargo(app, &url, &init);
    assert!(
        text(&second).contains("nothing changed"),
        "init twice: {}",
        text(&second)
    );

    std::fs::remove_file(app.join("scenarios/home.yaml")).unwrap();
    std::fs::write(app.join("scenarios/hello.yaml"), HELLO).unwrap();
    std::fs::write(app.join("scenarios/title.yaml"), TITLE).unwrap();

    let listed = cargo(
        app,
        &url,
        &["test", "--offline", "-q", "--test", "e2e", "--", "--list"],
    );
    let listing = text(&listed);
    assert!(listed.status.success(), "{listing}");
    assert!(
        listing.contains("hello: test") && listing.contains("title: test"),
        "{listing}"
    );

    let tested = cargo(app, &url, &["test", "--offline", "--test", "e2e"]);
    let output = text(&tested);
    assert!(tested.status.success(), "cargo test: {output}");
    assert!(
        outcome(&output, "hello") == Some("ok") && outcome(&output, "title") == Some("ok"),
        "{output}"
    );
    assert!(
        output.contains(
            "windup: a new plan for hello waits for review: scenarios/hello.plan.json.new"
        ),
        "{output}"
    );

    let exact = cargo(
        app,
        &url,
        &[
            "test",
            "--offline",
            "--test",
            "e2e",
            "--",
            "--exact",
            "hello",
        ],
    );
    let output = text(&exact);
    assert!(exact.status.success(), "{output}");
    assert!(
        output.contains("1 passed") && output.contains("1 filtered out"),
        "{output}"
    );

    let nextest = cargo(
        app,
        &url,
        &[
            "nextest",
            "run",
            "--offline",
            "--test",
            "e2e",
            "--no-fail-fast",
        ],
    );
    let output = text(&nextest);
    assert!(nextest.status.success(), "cargo nextest run: {output}");
    assert!(
        output.contains("PASS") && output.contains("hello") && output.contains("2 passed"),
        "{output}"
    );

    // A scenario that does not load is a failing test with its located error; the others run.
    std::fs::write(
        app.join("scenarios/typo.yaml"),
        "task: A typo.\nstpes:\n  - go to /\n",
    )
    .unwrap();
    let typo = cargo(app, &url, &["test", "--offline", "--test", "e2e"]);
    let output = text(&typo);
    assert!(!typo.status.success(), "{output}");
    assert!(
        outcome(&output, "typo") == Some("FAILED") && outcome(&output, "hello") == Some("ok"),
        "{output}"
    );
    assert!(
        output.contains("scenarios/typo.yaml:2:1: unknown key `stpes`"),
        "{output}"
    );
    assert!(output.contains("did you mean `steps`?"), "{output}");
    std::fs::remove_file(app.join("scenarios/typo.yaml")).unwrap();

    // Break the expectation: the test fails, showing the step and why.
    std::fs::write(
        app.join("scenarios/hello.yaml"),
        HELLO.replace("Hello, Ferris", "Goodbye, Ferris"),
    )
    .unwrap();
    // Reports under `cargo test`, asked for in .env.local (read like the environment).
    std::fs::write(
        app.join(".env.local"),
        "WINDUP_REPORT=junit=reports/windup.xml,json=reports/windup.json\n",
    )
    .unwrap();
    let broken = cargo(app, &url, &["test", "--offline", "--test", "e2e"]);
    let output = text(&broken);
    let junit = std::fs::read_to_string(app.join("reports/windup.xml"))
        .unwrap_or_else(|e| panic!("no JUnit report ({e}): {output}"));
    assert!(junit.contains("<testcase name=\"hello\""), "{junit}");
    assert!(junit.contains("<failure"), "{junit}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(app.join("reports/windup.json")).unwrap())
            .unwrap();
    let hello = json["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "hello")
        .expect("hello is in the JSON report");
    assert_eq!(hello["passed"], false);
    assert!(!broken.status.success(), "{output}");
    assert!(outcome(&output, "hello") == Some("FAILED"), "{output}");
    assert!(output.contains("failed at step 3 of 3"), "{output}");
    assert!(
        output.contains("step: expect text \"Goodbye, Ferris\""),
        "{output}"
    );
    assert!(
        output.contains("expected text_visible \"Goodbye, Ferris\": the text is absent"),
        "{output}"
    );
    assert!(output.contains("screenshot: "), "{output}");
    server.abort();
}
