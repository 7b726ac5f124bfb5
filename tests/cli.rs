//! `cargo windup` end to end: the demo, run with a filter, and the documented exit codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{Project, run_in, text};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo windup ARGS` from the repository root, through cargo (built already by the test run).
fn windup(args: &[&str], env: &[(&str, &str)]) -> Output {
    run_in(&repo(), args, env)
}

/// `cargo windup ARGS` in another directory.
fn windup_in(dir: &std::path::Path, args: &[&str]) -> Output {
    run_in(dir, args, &[])
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_takes_the_browser_from_the_line_and_names_a_wrong_one() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let url = shop.url().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        windup(
            &["run", "search", "--base-url", &url, "--browser", "firefox"],
            // Firefox's driver is nowhere: the run must ask for geckodriver, not chromedriver.
            &[("WINDUP_GECKODRIVER", "/nonexistent/geckodriver")],
        )
    })
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(
        out.contains("could not start /nonexistent/geckodriver"),
        "{out}"
    );
    assert!(out.contains("WINDUP_GECKODRIVER"), "{out}");

    let url = shop.url().to_owned();
    let output = tokio::task::spawn_blocking(move || {
        windup(
            &["run", "search", "--base-url", &url, "--browser", "firefox"],
            &[],
        )
    })
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS search ("), "{out}");

    let wrong = windup(&["run", "--browser", "safari"], &[]);
    let out = text(&wrong);
    assert_eq!(wrong.status.code(), Some(2), "{out}");
    assert!(
        out.contains("--browser: unknown browser \"safari\": Windup drives chromium and firefox"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_takes_the_browser_from_the_line() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = Project::with(&[]);
    let dir = project.dir.path().to_owned();
    let url = shop.url().to_owned();
    let audit = move |env: Vec<(&'static str, &'static str)>, browser: &'static str| {
        let (dir, url) = (dir.clone(), url.clone());
        tokio::task::spawn_blocking(move || {
            let args = [
                "audit",
                &url,
                "--browser",
                browser,
                "--steps",
                "12",
                "--time",
                "60s",
                "--walks",
                "1",
                "--no-tests",
            ];
            run_in(&dir, &args, &env)
        })
    };
    // Firefox's driver is nowhere: the audit must ask for geckodriver, not chromedriver.
    let output = audit(
        vec![("WINDUP_GECKODRIVER", "/nonexistent/geckodriver")],
        "firefox",
    )
    .await
    .unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(
        out.contains("could not start /nonexistent/geckodriver"),
        "{out}"
    );

    let output = audit(Vec::new(), "firefox").await.unwrap();
    let out = text(&output);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "the audit ran in Firefox: {out}"
    );
    assert!(out.contains("actions"), "{out}");

    let output = audit(Vec::new(), "safari").await.unwrap();
    let out = text(&output);
    assert_eq!(output.status.code(), Some(2), "{out}");
    assert!(
        out.contains("--browser: unknown browser \"safari\": Windup drives chromium and firefox"),
        "{out}"
    );
}

#[test]
fn exit_codes_say_what_went_wrong() {
    let no_url = windup(&["run"], &[]);
    assert_eq!(no_url.status.code(), Some(2), "{}", text(&no_url));
    assert!(text(&no_url).contains("no base URL"), "{}", text(&no_url));

    // Where there is no windup.toml at all, say so, and how to make one.
    let bare = tempfile::tempdir().unwrap();
    let no_config = windup_in(bare.path(), &["run"]);
    let out = text(&no_config);
    assert_eq!(no_config.status.code(), Some(2), "{out}");
    assert!(out.contains("no windup.toml found in"), "{out}");
    assert!(out.contains("run `cargo windup init`"), "{out}");

    // Flags go through the rules windup.toml does, and the error names the flag.
    let too_many = windup(
        &["run", "-j", "999", "--base-url", "http://127.0.0.1:9"],
        &[],
    );
    assert_eq!(too_many.status.code(), Some(2), "{}", text(&too_many));
    assert!(text(&too_many).contains("--workers"), "{}", text(&too_many));

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

/// What a machine's package manager would run to install Chromium, as the demo says it.
fn chromium_install_words() -> &'static str {
    if Path::new("/usr/bin/apt-get").exists() {
        "install them with `apt-get update && apt-get install -y chromium chromium-driver`, or \
         run the demo again with --yes to let it do that"
    } else {
        "--yes"
    }
}

#[test]
fn the_demo_says_when_the_browser_is_missing_and_how_to_install_it() {
    // No terminal to ask (stdin is not one) and no --yes: the demo says the exact commands and
    // stops instead of installing, or waiting at a prompt.
    let output = windup(
        &["demo"],
        &[
            ("WINDUP_CHROMEDRIVER", "/nonexistent/chromedriver"),
            ("WINDUP_CHROME", "/nonexistent/chromium"),
        ],
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(
        out.contains("missing here: Chromium and ChromeDriver."),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "Chromium and ChromeDriver missing: {}",
            chromium_install_words()
        )),
        "{out}"
    );
}

#[test]
fn the_audit_demo_takes_only_its_own_flags_and_needs_a_browser() {
    let mixed = windup(&["demo", "--audit", "--workers", "2"], &[]);
    assert_eq!(mixed.status.code(), Some(2), "{}", text(&mixed));
    assert!(
        text(&mixed).contains("'--audit' cannot be used with '--workers <WORKERS>'"),
        "{}",
        text(&mixed)
    );
    let output = windup(
        &["demo", "--audit"],
        &[("WINDUP_CHROMEDRIVER", "/nonexistent/chromedriver")],
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(3), "{out}");
    assert!(out.contains(chromium_install_words()), "{out}");
}

#[test]
fn review_shows_each_pending_plan_and_accepts_or_rejects_it() {
    let project = Project::with(&[]);
    let dir = &project.dir;
    let scenarios = project.root().join("scenarios");
    let plan = std::fs::read_to_string(repo().join("tests/fixtures/checkout.plan.json")).unwrap();
    for name in ["accepted", "rejected"] {
        std::fs::write(
            scenarios.join(format!("{name}.yaml")),
            "task: Buy.\nsteps: [go to /]\n",
        )
        .unwrap();
        std::fs::write(scenarios.join(format!("{name}.plan.json.new")), &plan).unwrap();
    }
    // No terminal and no choice given: it says what to do, and changes nothing.
    let refused = windup_in(dir.path(), &["review"]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused));
    assert!(
        text(&refused).contains("2 plans wait for review"),
        "{}",
        text(&refused)
    );

    let accepted = windup_in(dir.path(), &["review", "--accept-all"]);
    let out = text(&accepted);
    assert_eq!(accepted.status.code(), Some(0), "{out}");
    assert!(
        out.contains("new plan scenarios/accepted.plan.json (checkout-as-demo-user by hand):"),
        "{out}"
    );
    assert!(
        out.contains("+ place-order click [data-testid=\"place-order\"] (button \"Place order\")"),
        "{out}"
    );
    assert!(out.contains("2 accepted, 0 rejected, 0 skipped"), "{out}");
    assert!(scenarios.join("accepted.plan.json").is_file());
    assert!(!scenarios.join("accepted.plan.json.new").exists());

    std::fs::write(
        scenarios.join("rejected.plan.json.new"),
        plan.replace("Germany", "Japan"),
    )
    .unwrap();
    let rejected = windup_in(dir.path(), &["review", "--reject-all"]);
    let out = text(&rejected);
    assert!(
        out.contains("changed plan scenarios/rejected.plan.json"),
        "{out}"
    );
    assert!(
        out.contains("- country select #country (combobox \"Country\") = \"Germany\""),
        "{out}"
    );
    assert!(
        out.contains("+ country select #country (combobox \"Country\") = \"Japan\""),
        "{out}"
    );
    assert!(out.contains("0 accepted, 1 rejected, 0 skipped"), "{out}");
    assert_eq!(
        std::fs::read_to_string(scenarios.join("rejected.plan.json")).unwrap(),
        plan,
        "kept"
    );

    let nothing = windup_in(dir.path(), &["review"]);
    assert!(
        text(&nothing).contains("no plans to review"),
        "{}",
        text(&nothing)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_and_costs_show_what_runs_did() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let url = shop.url().to_owned();
    let project = Project::with(&[]);
    let dir = &project.dir;
    let scenarios = project.root().join("scenarios");
    std::fs::copy(
        repo().join("scenarios/login.yaml"),
        scenarios.join("login.yaml"),
    )
    .unwrap();
    let root = dir.path().to_owned();
    let run = |args: Vec<String>| {
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            windup_in(&root, &args)
        })
    };
    let owned = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();

    let first = run(owned(&["run", "--base-url", &url])).await.unwrap();
    assert!(
        text(&first).contains("PASS login (4 actions, planned,"),
        "{}",
        text(&first)
    );
    assert!(
        text(&first).contains("new plan waits for review: scenarios/login.plan.json.new"),
        "{}",
        text(&first)
    );
    let second = run(owned(&["run", "--base-url", &url])).await.unwrap();
    assert!(
        text(&second).contains("PASS login (4 actions, replayed,"),
        "{}",
        text(&second)
    );

    let listed = run(owned(&["cache", "ls"])).await.unwrap();
    assert!(
        text(&listed).contains("login")
            && text(&listed).contains("active")
            && text(&listed).contains("2 runs, 2 passes"),
        "{}",
        text(&listed)
    );
    let shown = run(owned(&["cache", "show", "login"])).await.unwrap();
    assert!(
        text(&shown).contains("s1 click a[href=\"/login\"] (link \"Log in\")"),
        "{}",
        text(&shown)
    );

    let costs = run(owned(&["costs", "--by", "scenario"])).await.unwrap();
    let line = text(&costs)
        .lines()
        .find(|l| l.starts_with("login"))
        .map(str::to_owned)
        .unwrap_or_default();
    let columns: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(
        &columns[..5],
        &["login", "2", "1", "1", "0"],
        "runs, hits, misses, replans: {}",
        text(&costs)
    );

    let cleared = run(owned(&["cache", "clear"])).await.unwrap();
    assert!(
        text(&cleared).contains("removed 1 cached plans"),
        "{}",
        text(&cleared)
    );
    let empty = run(owned(&["cache", "ls"])).await.unwrap();
    assert!(
        text(&empty).contains("the plan cache is empty"),
        "{}",
        text(&empty)
    );
}

#[test]
fn audit_arguments_are_checked_before_anything_runs() {
    let project = Project::with(&[]);
    let dir = project.dir.path();

    let not_a_url = windup_in(dir, &["audit", "not-a-url"]);
    let out = text(&not_a_url);
    assert_eq!(not_a_url.status.code(), Some(2), "{out}");
    assert!(
        out.contains("invalid value 'not-a-url' for '<URL>'"),
        "{out}"
    );
    let not_http = windup_in(dir, &["audit", "ftp://127.0.0.1/"]);
    assert_eq!(not_http.status.code(), Some(2), "{}", text(&not_http));
    assert!(
        text(&not_http).contains("not an http(s) URL"),
        "{}",
        text(&not_http)
    );

    // A password in the target is refused before anything runs or is stored, and never echoed.
    let with_password = windup_in(dir, &["audit", "http://admin:hunter2@127.0.0.1:9/"]);
    let out = text(&with_password);
    assert_eq!(with_password.status.code(), Some(2), "{out}");
    assert!(out.contains("carries a user name or password"), "{out}");
    assert!(!out.contains("hunter2"), "{out}");
    assert!(!dir.join(".windup/audits.sqlite").exists(), "{out}");

    let bad_time = windup_in(dir, &["audit", "--time", "abc"]);
    let out = text(&bad_time);
    assert_eq!(bad_time.status.code(), Some(2), "{out}");
    assert!(out.contains("for '--time <DURATION>'"), "{out}");
    assert!(out.contains("like 90s, 2m or 1m30s"), "{out}");

    // The walks are set from the command line, as `POST /audit` sets them.
    let help = windup_in(dir, &["audit", "--help"]);
    let out = text(&help);
    assert!(
        out.contains("--walks <N>") && out.contains("--walk-length <N>"),
        "{out}"
    );
    assert!(out.contains("--strategy <STRATEGY>"), "{out}");
    let strategy = windup_in(
        dir,
        &["audit", "--strategy", "greedy", "http://127.0.0.1:9/"],
    );
    let out = text(&strategy);
    assert_eq!(strategy.status.code(), Some(2), "{out}");
    assert!(
        out.contains("use novelty (the default), coverage or uniform"),
        "{out}"
    );
    for flag in ["--walks", "--walk-length"] {
        let zero = windup_in(dir, &["audit", flag, "0", "http://127.0.0.1:9/"]);
        let out = text(&zero);
        assert_eq!(zero.status.code(), Some(2), "{out}");
        assert!(out.contains("must be at least 1"), "{flag}: {out}");
    }

    // Every broken file is reported, located, before a browser starts (there is no app at :9).
    let invariants = dir.join("invariants");
    std::fs::create_dir_all(&invariants).unwrap();
    std::fs::write(
        invariants.join("cart.yaml"),
        "invariants:\n  - id: total\n    statement: The total is right\n    surface: /cart\n    predicate: money(\"#total\") ==\n",
    )
    .unwrap();
    std::fs::write(
        invariants.join("typo.yaml"),
        "invariants:\n  - id: x\n    statment: typo\n",
    )
    .unwrap();
    // Sixty brackets deep used to overflow the stack and abort; now it is refused, located.
    std::fs::write(
        invariants.join("deep.yaml"),
        format!(
            "invariants:\n  - id: deep\n    statement: s\n    surface: /\n    predicate: \"{}1{} == 1\"\n",
            "(".repeat(60),
            ")".repeat(60)
        ),
    )
    .unwrap();
    let broken = windup_in(
        dir,
        &["audit", "http://127.0.0.1:9/", "--invariants", "invariants"],
    );
    let out = text(&broken);
    assert_eq!(broken.status.code(), Some(2), "{out}");
    assert!(
        out.contains("the invariants cannot be used (3 errors)"),
        "{out}"
    );
    assert!(out.contains("invariants/deep.yaml:5:"), "{out}");
    assert!(
        out.contains("the predicate nests more than 24 deep"),
        "{out}"
    );
    assert!(out.contains("invariants/cart.yaml:5:"), "{out}");
    assert!(out.contains("invariants/typo.yaml:3:5: "), "{out}");
    assert!(out.contains("unknown field `statment`"), "{out}");
}

#[test]
fn an_audit_of_an_app_it_cannot_reach_fails_with_the_reason_and_keeps_the_run() {
    let project = Project::with(&[]);
    let dir = project.root();
    let closed = common::closed_port();
    let url = format!("http://127.0.0.1:{}/", closed.port());
    let out = windup_in(dir, &["audit", &url, "--time", "60s"]);
    let said = text(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("error: the audit could not use the app"),
        "{said}"
    );
    assert!(said.contains("could not be opened"), "{said}");
    assert!(!said.contains("0 findings"), "{said}");
    let listed = text(&windup_in(dir, &["audits"]));
    assert!(listed.contains("failed"), "{listed}");
}

#[test]
fn audits_and_audit_show_read_the_store() {
    let project = Project::with(&[]);
    let dir = project.dir.path();
    let none = windup_in(dir, &["audits"]);
    assert_eq!(none.status.code(), Some(0), "{}", text(&none));
    assert!(text(&none).contains("no audits yet"), "{}", text(&none));
    assert!(
        !dir.join(".windup/audits.sqlite").exists(),
        "looking creates no store"
    );

    let unknown = windup_in(dir, &["audit", "show", "A-9999"]);
    let out = text(&unknown);
    assert_eq!(unknown.status.code(), Some(2), "{out}");
    assert!(out.contains("no audit #A-9999"), "{out}");
    assert!(out.contains("`cargo windup audits` lists"), "{out}");

    let not_an_id = windup_in(dir, &["audit", "show", "1001"]);
    assert_eq!(not_an_id.status.code(), Some(2), "{}", text(&not_an_id));
    assert!(
        text(&not_an_id).contains("looks like #A-1001"),
        "{}",
        text(&not_an_id)
    );

    let help = windup_in(dir, &["audit", "--help"]);
    let out = text(&help);
    assert_eq!(help.status.code(), Some(0), "{out}");
    for both in [
        "cargo windup audit [OPTIONS] <URL>",
        "cargo windup audit <COMMAND>",
        "show",
    ] {
        assert!(out.contains(both), "{both}: {out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_from_the_command_line_is_stored_and_shown_again() {
    let todo = windup_todo::spawn(Default::default()).await.unwrap();
    let url = format!("{}/", todo.url());
    let target = url.clone();
    let project = Project::with(&[]);
    let root = project.dir.path().to_owned();
    let started = std::time::Instant::now();
    let output = {
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            windup_in(&root, &["audit", &url, "--time", "20s", "--steps", "60"])
        })
        .await
        .unwrap()
    };
    drop(todo);
    let out = text(&output);
    eprintln!("the audit took {:?}", started.elapsed());
    // Plain output: piped, so no status line and no colour.
    assert!(!out.contains('\u{1b}'), "{out}");
    assert!(out.lines().any(|l| l == "phase explore"), "{out}");
    assert!(out.contains("budget: 20 s, 60 actions, "), "{out}");
    let summary = out
        .lines()
        .find(|l| l.contains(" actions, ") && l.contains("; stopped: "))
        .unwrap_or_else(|| panic!("no summary line: {out}"));
    let findings: usize = summary
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the summary starts with the findings: {summary}"));
    let printed = out.lines().filter(|l| l.starts_with("finding ")).count();
    assert_eq!(findings, printed, "{out}");
    let code = if findings == 0 { 0 } else { 1 };
    assert_eq!(output.status.code(), Some(code), "{out}");
    assert!(
        out.contains("stored as #A-1001 in .windup/audits.sqlite; see it again: cargo windup audit show A-1001"),
        "{out}"
    );

    let listed = windup_in(&root, &["audits"]);
    let out = text(&listed);
    assert_eq!(listed.status.code(), Some(0), "{out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("#A-1001 "))
        .unwrap_or_else(|| panic!("the run is listed: {out}"));
    assert!(row.contains(" done ") && row.contains(&target), "{row}");

    let shown = windup_in(&root, &["audit", "show", "A-1001"]);
    let out = text(&shown);
    assert_eq!(shown.status.code(), Some(0), "{out}");
    assert!(
        out.starts_with(&format!("audit #A-1001 of {target}: done\n")),
        "{out}"
    );
    assert!(out.contains("budget: 20 s, 60 actions, "), "{out}");
    assert!(out.contains(&format!("{} finding", findings)), "{out}");
    assert_eq!(out.matches("\nfinding #F-").count(), findings, "{out}");
}

#[test]
fn serve_refuses_to_start_open_without_a_token_on_a_taken_port_or_for_a_bad_target() {
    let project = Project::with(&[]);
    let dir = project.dir.path();
    let open = run_in(
        dir,
        &["serve", "--bind", "0.0.0.0:0"],
        &[("WINDUP_SERVE_TOKEN", "")],
    );
    let out = text(&open);
    assert_eq!(open.status.code(), Some(2), "{out}");
    assert!(out.contains("without a token"), "{out}");
    assert!(out.contains("set WINDUP_SERVE_TOKEN"), "{out}");

    let bad = windup_in(dir, &["serve", "--allow-target", "ftp://127.0.0.1/"]);
    let out = text(&bad);
    assert_eq!(bad.status.code(), Some(2), "{out}");
    assert!(out.contains("is not an http(s) origin"), "{out}");

    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let busy = windup_in(dir, &["serve", "--bind", &address]);
    let out = text(&busy);
    assert_eq!(busy.status.code(), Some(2), "{out}");
    assert!(
        out.contains(&format!("cannot listen on {address}")),
        "{out}"
    );
}

/// Ctrl-C stops `cargo windup serve` within its grace whatever a client holds; a second Ctrl-C
/// quits at once, even with a grace that would wait ten minutes.
#[test]
fn serve_stops_on_ctrl_c_whatever_a_client_holds_and_quits_on_a_second() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};

    let binary = common::cargo_windup();
    for (grace, presses, code) in [("2s", 1, 0), ("600s", 2, 130)] {
        let project = Project::with(&[]);
        let mut child = Command::new(&binary)
            .args(["serve", "--bind", "127.0.0.1:0", "--grace", grace])
            .current_dir(project.dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cargo-windup starts");
        let (lines, said) = mpsc::channel::<String>();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = lines.send(line);
                }
            });
        }
        let mut seen = Vec::new();
        let mut wait_for = |wanted: &str| -> String {
            let deadline = Instant::now() + Duration::from_secs(60);
            while let Some(left) = deadline.checked_duration_since(Instant::now()) {
                match said.recv_timeout(left) {
                    Ok(line) if line.contains(wanted) => return line,
                    Ok(line) => seen.push(line),
                    Err(_) => break,
                }
            }
            panic!("no line with {wanted:?} in {seen:?}")
        };
        let printed = wait_for("the dashboard is at http://");
        let address = printed
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.strip_suffix('/'))
            .expect("an address")
            .to_owned();
        let mut held = std::net::TcpStream::connect(&address).unwrap();
        let half_sent =
            format!("POST /audit HTTP/1.1\r\nHost: {address}\r\nContent-Length: 99\r\n\r\n{{");
        held.write_all(half_sent.as_bytes()).unwrap();
        let interrupt = || {
            // SAFETY: kill(2) with SIGINT on the child this test started and has not reaped.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        };
        let pressed = Instant::now();
        interrupt();
        if presses == 2 {
            wait_for("Ctrl-C again to quit at once");
            interrupt();
        }
        let deadline = pressed + Duration::from_secs(8);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let Some(status) = status else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("--grace {grace}: still serving 8 s after Ctrl-C, held by a half-sent request");
        };
        assert_eq!(
            status.code(),
            Some(code),
            "--grace {grace}, {presses} Ctrl-C"
        );
        drop(held);
    }
}
