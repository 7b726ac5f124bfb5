//! `cargo windup` end to end: the demo, run with a filter, and the documented exit codes.

use std::path::PathBuf;
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo windup ARGS` from the repository root, through cargo (built already by the test run).
fn windup(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command
        .args(["run", "--offline", "-q", "-p", "cargo-windup", "--"])
        .args(args)
        .current_dir(repo())
        .env_remove("CI")
        .env_remove("WINDUP_BASE_URL");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("cargo runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn the_demo_prints_a_line_per_scenario_and_a_summary() {
    let output = windup(&["demo"], &[]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    for id in [
        "browse-catalogue",
        "checkout-as-demo-user",
        "coupon",
        "deal-of-the-day",
        "search",
    ] {
        assert!(out.contains(&format!("PASS {id} (")), "{id}: {out}");
    }
    assert!(
        !out.contains("buy-out-of-stock-poster"),
        "ignored by default: {out}"
    );
    assert!(out.lines().any(|l| l == "10 passed, 0 failed"), "{out}");
}

#[test]
fn the_demo_fails_when_a_scenario_fails() {
    let output = windup(&["demo", "--include-ignored", "--workers", "1"], &[]);
    let out = text(&output);
    assert_eq!(output.status.code(), Some(1), "{out}");
    assert!(out.contains("FAIL buy-out-of-stock-poster"), "{out}");
    assert!(out.contains("step: click \"Add to cart\""), "{out}");
    assert!(out.contains("is disabled"), "{out}");
    assert!(out.lines().any(|l| l == "10 passed, 1 failed"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_takes_a_filter_and_a_base_url() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let url = shop.url().to_owned();
    let output =
        tokio::task::spawn_blocking(move || windup(&["run", "search", "--base-url", &url], &[]))
            .await
            .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS search ("), "{out}");
    assert!(out.lines().any(|l| l == "1 passed, 0 failed"), "{out}");
}

#[test]
fn exit_codes_say_what_went_wrong() {
    let no_url = windup(&["run"], &[]);
    assert_eq!(no_url.status.code(), Some(2), "{}", text(&no_url));
    assert!(text(&no_url).contains("no base URL"), "{}", text(&no_url));

    // As `cargo windup …`, cargo passes the subcommand's name first; it is skipped.
    let as_cargo_subcommand = windup(&["windup", "--version"], &[]);
    assert_eq!(
        as_cargo_subcommand.status.code(),
        Some(0),
        "{}",
        text(&as_cargo_subcommand)
    );
    assert!(
        text(&as_cargo_subcommand).contains("cargo windup 0.1.0"),
        "{}",
        text(&as_cargo_subcommand)
    );

    let usage = windup(&["frobnicate"], &[]);
    assert_eq!(usage.status.code(), Some(2), "{}", text(&usage));

    let no_driver = windup(
        &["run", "search", "--base-url", "http://127.0.0.1:9"],
        &[("WINDUP_CHROMEDRIVER", "/nonexistent/chromedriver")],
    );
    assert_eq!(no_driver.status.code(), Some(3), "{}", text(&no_driver));
    assert!(
        text(&no_driver).contains("could not start /nonexistent/chromedriver"),
        "{}",
        text(&no_driver)
    );
}

#[test]
fn the_demo_says_when_the_browser_is_missing_and_how_to_install_it() {
    // No terminal to ask and no --yes: the demo explains and stops instead of installing.
    let output = windup(
        &["demo"],
        &[("WINDUP_CHROMEDRIVER", "/nonexistent/chromedriver")],
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(out.contains("missing here: ChromeDriver."), "{out}");
    assert!(
        out.contains("run `cargo windup setup`, or `cargo windup demo --yes`"),
        "{out}"
    );
}
