//! No driver or browser process (chromedriver and Chromium, geckodriver and Firefox) outlives the
//! code that started it: not after a normal end, not after a panic, not after the process is
//! killed outright.

mod common;

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::processes_in_group;
use windup_core::browser::BrowserKind;
use windup_core::{browser::Browser, browser::BrowserConfig};

const CHILD_ENV: &str = "WINDUP_LIFECYCLE_CHILD";

/// Waits until no live process is left in any of the groups; panics with the survivors otherwise.
fn assert_groups_end(groups: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left: Vec<_> = groups.iter().flat_map(|g| processes_in_group(*g)).collect();
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of driver groups {groups:?} survived: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether a process name is the browser's (or one of its helpers'), not its driver's.
fn is_browser(kind: BrowserKind, name: &str) -> bool {
    match kind {
        BrowserKind::Chromium => name.starts_with("chrom") && name != "chromedriver",
        BrowserKind::Firefox => name.starts_with("firefox"),
    }
}

/// A browser of `kind` with one open session on a page, and the process groups of its drivers:
/// the browser's own, and the session's when the kind gives each session a driver.
struct Opened {
    browser: Browser,
    session: windup_core::browser::Session,
    groups: Vec<u32>,
    /// The group the browser process runs in.
    browser_group: u32,
}

async fn browser_with_page(kind: BrowserKind) -> Opened {
    let config = BrowserConfig {
        kind,
        ..common::browser_config()
    };
    let browser = Browser::launch(config)
        .await
        .unwrap_or_else(|e| panic!("{kind}'s driver starts: {e}"));
    let session = browser.new_session().await.expect("a session opens");
    session.goto("about:blank").await.expect("the page opens");
    let mut groups = vec![browser.driver_process_group().expect("a local driver")];
    groups.extend(session.driver_process_group());
    let browser_group = *groups.last().expect("a group");
    let names: Vec<String> = processes_in_group(browser_group)
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    let driver = kind.names().driver.to_ascii_lowercase();
    assert!(
        names.contains(&driver) && names.iter().any(|n| is_browser(kind, n)),
        "the group holds the driver and the browser: {names:?}"
    );
    Opened {
        browser,
        session,
        groups,
        browser_group,
    }
}

#[tokio::test]
async fn dropping_the_browser_ends_driver_and_browser() {
    for kind in common::browsers() {
        let opened = browser_with_page(kind).await;
        // Neither closed: the drop alone must clean up.
        drop(opened.session);
        drop(opened.browser);
        assert_groups_end(&opened.groups);
    }
}

#[tokio::test]
async fn closing_the_session_then_the_browser_ends_everything() {
    for kind in common::browsers() {
        let opened = browser_with_page(kind).await;
        opened.session.close().await.expect("the session closes");
        drop(opened.browser);
        assert_groups_end(&opened.groups);
    }
}

#[test]
fn a_panic_mid_test_leaves_no_browser_behind() {
    for kind in common::browsers() {
        let (tx, rx) = std::sync::mpsc::channel();
        let outcome = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime");
            runtime.block_on(async move {
                let _opened = {
                    let opened = browser_with_page(kind).await;
                    tx.send(opened.groups.clone()).expect("the parent listens");
                    opened
                };
                panic!("a test failing while its browser is open");
            })
        })
        .join();
        assert!(outcome.is_err(), "the thread panicked");
        let groups = rx.recv().expect("the browser started before the panic");
        assert_groups_end(&groups);
    }
}

#[test]
fn a_killed_test_process_leaves_no_browser_behind() {
    if let Some(kind) = std::env::var_os(CHILD_ENV) {
        // The child: start a browser, say which groups it has, then wait to be killed.
        let kind: BrowserKind = kind.to_string_lossy().parse().expect("a browser kind");
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(async {
            let opened = browser_with_page(kind).await;
            let groups: Vec<String> = opened.groups.iter().map(u32::to_string).collect();
            println!("windup-driver-groups={}", groups.join(","));
            std::future::pending::<()>().await;
        });
        return;
    }
    for kind in common::browsers() {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "a_killed_test_process_leaves_no_browser_behind",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, kind.as_str())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the child test starts");
        let stdout = child.stdout.take().expect("piped");
        let groups: Option<Vec<u32>> = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find_map(|line| {
                // libtest prints the test name before it on the same line.
                let (_, groups) = line.split_once("windup-driver-groups=")?;
                groups.trim().split(',').map(|g| g.parse().ok()).collect()
            });
        let Some(groups) = groups else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the child never reported its driver groups ({kind})");
        };
        assert!(
            groups.iter().any(|g| !processes_in_group(*g).is_empty()),
            "the child's browser runs"
        );
        // Its scratch folder (profiles, driver log), seen while it lives, outlives it, and the
        // next browser removes it (a test launching one meanwhile may be first: any next
        // browser cleans up after a dead owner).
        let left = scratch_folders_of(child.id());
        assert!(!left.is_empty(), "the child has a scratch folder ({kind})");
        child.kill().expect("SIGKILL the child");
        child.wait().expect("reap the child");
        assert_groups_end(&groups);
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(async {
            let next = windup_core::browser::Browser::launch(common::browser_config())
                .await
                .expect("the next browser starts");
            assert!(
                left.iter().all(|folder| !folder.exists()),
                "the killed child's folders stay: {left:?} ({kind})"
            );
            drop(next);
        });
    }
}

/// The scratch folders whose owner marker names process `pid`.
fn scratch_folders_of(pid: u32) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(std::env::temp_dir())
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| {
            std::fs::read_to_string(path.join("windup-owner"))
                .is_ok_and(|owner| owner.split_whitespace().next() == Some(&pid.to_string()))
        })
        .collect()
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
    for kind in common::browsers() {
        let opened = browser_with_page(kind).await;
        let group = opened.browser_group;
        for (pid, name) in processes_in_group(group) {
            if is_browser(kind, &name) {
                let pid = i32::try_from(pid).expect("a pid");
                // SAFETY: kill(2) on one process of the test's own driver group; no memory is
                // touched.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while processes_in_group(group)
            .iter()
            .any(|(_, name)| is_browser(kind, name))
        {
            assert!(Instant::now() < deadline, "the browser did not die");
            std::thread::sleep(Duration::from_millis(50));
        }
        // The model planner reads the page for its retry message: a dead browser must not pass
        // for a page that cannot be read now.
        let snapshot = opened.session.snapshot_if_readable().await;
        assert!(
            matches!(&snapshot, Err(err) if err.is_lost()),
            "{kind}: {snapshot:?}"
        );
        let reset = opened.session.reset().await;
        assert!(
            matches!(&reset, Err(err) if err.is_lost()),
            "{kind}: {reset:?}"
        );
        drop(opened.session);
        drop(opened.browser);
        assert_groups_end(&opened.groups);
    }
}
