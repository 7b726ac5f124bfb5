//! No chromedriver or Chromium process outlives the code that started it: not after a normal
//! end, not after a panic, not after the process is killed outright.

mod common;

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::processes_in_group;
use windup::engine::{Browser, BrowserConfig};

const CHILD_ENV: &str = "WINDUP_LIFECYCLE_CHILD";

/// Waits until no live process is left in the group; panics with the survivors otherwise.
fn assert_group_ends(pgid: u32) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = processes_in_group(pgid);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of driver group {pgid} survived: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Starts a browser with one open session on a page, and returns its process group.
async fn browser_with_page() -> (Browser, windup::engine::Session, u32) {
    let browser = Browser::launch(common::browser_config())
        .await
        .expect("chromedriver starts");
    let session = browser.new_session().await.expect("a session opens");
    session.goto("about:blank").await.expect("the page opens");
    let pgid = browser.driver_process_group().expect("a local driver");
    let names: Vec<String> = processes_in_group(pgid)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    assert!(
        names.iter().any(|n| n == "chromedriver") && names.iter().any(|n| n.starts_with("chrom")),
        "the group holds the driver and the browser: {names:?}"
    );
    (browser, session, pgid)
}

#[tokio::test]
async fn dropping_the_browser_ends_driver_and_chromium() {
    let (browser, session, pgid) = browser_with_page().await;
    // Neither closed: the drop alone must clean up.
    drop(session);
    drop(browser);
    assert_group_ends(pgid);
}

#[tokio::test]
async fn closing_the_session_then_the_browser_ends_everything() {
    let (browser, session, pgid) = browser_with_page().await;
    session.close().await.expect("the session closes");
    drop(browser);
    assert_group_ends(pgid);
}

#[test]
fn a_panic_mid_test_leaves_no_browser_behind() {
    let (tx, rx) = std::sync::mpsc::channel();
    let outcome = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        runtime.block_on(async move {
            let (_browser, _session, pgid) = browser_with_page().await;
            tx.send(pgid).expect("the parent listens");
            panic!("a test failing while its browser is open");
        })
    })
    .join();
    assert!(outcome.is_err(), "the thread panicked");
    let pgid = rx.recv().expect("the browser started before the panic");
    assert_group_ends(pgid);
}

#[test]
fn a_killed_test_process_leaves_no_browser_behind() {
    if std::env::var_os(CHILD_ENV).is_some() {
        // The child: start a browser, say which group it is, then wait to be killed.
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(async {
            let (_browser, _session, pgid) = browser_with_page().await;
            println!("windup-driver-group={pgid}");
            std::future::pending::<()>().await;
        });
        return;
    }
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            "a_killed_test_process_leaves_no_browser_behind",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the child test starts");
    let stdout = child.stdout.take().expect("piped");
    let pgid = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|line| {
            // libtest prints the test name before it on the same line.
            let (_, group) = line.split_once("windup-driver-group=")?;
            group.trim().parse::<u32>().ok()
        });
    let Some(pgid) = pgid else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the child never reported its driver group");
    };
    assert!(
        !processes_in_group(pgid).is_empty(),
        "the child's browser runs"
    );
    child.kill().expect("SIGKILL the child");
    child.wait().expect("reap the child");
    assert_group_ends(pgid);
}

#[tokio::test]
async fn a_driver_that_exits_at_start_is_reported_at_once_with_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("chromedriver");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'cannot bind: address in use' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = BrowserConfig {
        chromedriver: Some(fake.clone()),
        ..BrowserConfig::default()
    };
    let started = Instant::now();
    let err = Browser::launch(config)
        .await
        .expect_err("the fake driver exits");
    let message = err.to_string();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "no wait for a dead driver: {message}"
    );
    assert!(
        message.contains(&format!("could not start {}", fake.display())),
        "{message}"
    );
    assert!(message.contains("it exited at start"), "{message}");
    assert!(
        message.contains("cannot bind: address in use"),
        "its log is shown: {message}"
    );
}

#[tokio::test]
async fn a_missing_driver_path_says_where_it_looked() {
    let config = BrowserConfig {
        chromedriver: Some("/nonexistent/chromedriver".into()),
        ..BrowserConfig::default()
    };
    let message = Browser::launch(config)
        .await
        .expect_err("no driver there")
        .to_string();
    assert!(
        message.contains(
            "could not start /nonexistent/chromedriver: there is no executable file there"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_browser_that_dies_under_its_session_is_lost_never_an_unreadable_page() {
    let (browser, session, pgid) = browser_with_page().await;
    let is_browser = |name: &str| name.starts_with("chrom") && name != "chromedriver";
    for (pid, name) in processes_in_group(pgid) {
        if is_browser(&name) {
            let pid = i32::try_from(pid).expect("a pid");
            // SAFETY: kill(2) on one process of the test's own driver group; no memory is touched.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while processes_in_group(pgid)
        .iter()
        .any(|(_, name)| is_browser(name))
    {
        assert!(Instant::now() < deadline, "the browser did not die");
        std::thread::sleep(Duration::from_millis(50));
    }
    // The model planner reads the page for its retry message: a dead browser must not pass for a
    // page that cannot be read now.
    let snapshot = session.snapshot_if_readable().await;
    assert!(
        matches!(&snapshot, Err(err) if err.is_lost()),
        "{snapshot:?}"
    );
    let reset = session.reset().await;
    assert!(matches!(&reset, Err(err) if err.is_lost()), "{reset:?}");
    drop(session);
    drop(browser);
    assert_group_ends(pgid);
}
