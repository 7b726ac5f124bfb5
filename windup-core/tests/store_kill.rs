//! The audit store across processes: an audit SIGKILLed in the middle of its event stream,
//! and several processes appending to one run at once. Each test re-runs this test binary as
//! its child processes: when `CHILD_ENV` names the test, the test function is the child.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use windup_core::store::{AuditStore, NewRun, RunId, RunStatus, StoredEvent};

const CHILD_ENV: &str = "WINDUP_STORE_CHILD";
const PATH_ENV: &str = "WINDUP_STORE_PATH";
const RUN_ENV: &str = "WINDUP_STORE_RUN";
const WORKER_ENV: &str = "WINDUP_STORE_WORKER";

/// How long a child keeps appending if nobody kills it: it never outlives a lost parent long.
const CHILD_LIFETIME: Duration = Duration::from_secs(60);
/// How long the parent waits for any one thing a child should do.
const DEADLINE: Duration = Duration::from_secs(30);

/// A child process that is killed and reaped however the test ends.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts this test binary as a child that runs only `test`, with `env` set.
fn spawn_child(test: &str, env: &[(&str, String)], stdin: Stdio) -> Reaped {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, test)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (name, value) in env {
        command.env(name, value);
    }
    Reaped(command.spawn().expect("the child test starts"))
}

/// Reads the child's stdout on a thread: each line as it arrives.
fn lines_of(child: &mut Reaped) -> mpsc::Receiver<String> {
    let stdout = child.0.stdout.take().expect("piped stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The value of the first `windup-store NAME=VALUE` line the child prints, waited for.
fn wait_for_report(lines: &mpsc::Receiver<String>, name: &str) -> String {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = lines
            .recv_timeout(left)
            .unwrap_or_else(|err| panic!("the child never reported {name}: {err}"));
        let value = line
            .split_once("windup-store ")
            .and_then(|(_, rest)| rest.strip_prefix(name)?.strip_prefix('='));
        if let Some(value) = value {
            return value.to_owned();
        }
    }
}

fn is_child(test: &str) -> bool {
    std::env::var(CHILD_ENV).is_ok_and(|child| child == test)
}

fn env_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("the parent sets {name}"))
}

fn new_run(seed: u64) -> NewRun {
    NewRun {
        target_url: "http://127.0.0.1:3000/".to_owned(),
        seed,
        budget_json: "{}".to_owned(),
        started_at: "2026-12-01T10:00:00Z".to_owned(),
    }
}

fn status_of(store: &AuditStore, run: &RunId) -> RunStatus {
    store
        .run(run)
        .expect("the run reads")
        .expect("the run exists")
        .summary
        .status
}

/// Every event of a run, read page by page as a late subscriber would.
fn all_events(store: &AuditStore, run: &RunId) -> Vec<StoredEvent> {
    let mut events: Vec<StoredEvent> = Vec::new();
    loop {
        let after = events.last().map_or(0, |event| event.seq);
        let page = store
            .events_since(run, after, 97)
            .expect("a page of events");
        if page.is_empty() {
            return events;
        }
        events.extend(page);
    }
}

/// The lock files left in the store's owners' directory.
fn owner_files(path: &Path) -> Vec<PathBuf> {
    let dir = path.with_file_name("audits.db-owners");
    std::fs::read_dir(dir).map_or_else(
        |_| Vec::new(),
        |items| items.map(|item| item.expect("an entry").path()).collect(),
    )
}

/// The child of the kill test: an audit that appends events until it is killed.
fn appending_audit() {
    let store = AuditStore::open(Path::new(&env_var(PATH_ENV))).expect("open");
    let run = store.create_run(&new_run(1)).expect("create a run");
    println!("windup-store run={run}");
    let started = Instant::now();
    let mut i = 0u64;
    while started.elapsed() < CHILD_LIFETIME {
        i += 1;
        // A larger event now and then, so that a kill may land in a multi-page write.
        let pad = "x".repeat(if i.is_multiple_of(16) { 6000 } else { 40 });
        let json = format!(r#"{{"i":{i},"pad":"{pad}"}}"#);
        let seq = store
            .append_event(&run, "attack_action", &json)
            .expect("append");
        assert_eq!(seq, i);
    }
}

#[test]
fn a_killed_audit_leaves_its_run_interrupted_and_every_event_readable() {
    const TEST: &str = "a_killed_audit_leaves_its_run_interrupted_and_every_event_readable";
    if is_child(TEST) {
        appending_audit();
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("audits.db");
    for round in 0..3u64 {
        let mut child = spawn_child(
            TEST,
            &[(PATH_ENV, path.display().to_string())],
            Stdio::null(),
        );
        let lines = lines_of(&mut child);
        let run: RunId = wait_for_report(&lines, "run").parse().expect("a run id");
        assert_eq!(run.to_string(), format!("#A-{}", 1001 + round));

        // While the child lives, opening the store leaves its run alone.
        let watcher = AuditStore::open(&path).expect("open beside the live audit");
        assert_eq!(
            status_of(&watcher, &run),
            RunStatus::Running,
            "round {round}"
        );
        assert_eq!(watcher.mark_interrupted().expect("check"), []);

        let wanted = 50 + round * 37;
        let deadline = Instant::now() + DEADLINE;
        let mut seen = 0;
        while seen < wanted {
            assert!(
                Instant::now() < deadline,
                "round {round}: only {seen} events appeared"
            );
            seen += watcher.events_since(&run, seen, 1000).expect("poll").len() as u64;
            std::thread::sleep(Duration::from_millis(2));
        }
        let pid = libc::pid_t::try_from(child.0.id()).expect("a pid");
        // SAFETY: kill takes plain integers; the pid is our own child's, not yet reaped.
        assert_eq!(
            unsafe { libc::kill(pid, libc::SIGKILL) },
            0,
            "SIGKILL the audit"
        );
        let status = child.0.wait().expect("reap the audit");
        assert_eq!(
            status.signal(),
            Some(libc::SIGKILL),
            "round {round}: the audit {status}"
        );
        drop(watcher);

        let store = AuditStore::open(&path).expect("the store opens after the kill");
        assert_eq!(
            status_of(&store, &run),
            RunStatus::Interrupted,
            "round {round}"
        );
        store.check_integrity().expect("the file is whole");
        let events = all_events(&store, &run);
        let n = events.len() as u64;
        assert!(
            n >= wanted,
            "round {round}: {n} events, {wanted} were seen before the kill"
        );
        for (event, seq) in events.iter().zip(1..) {
            assert_eq!(event.seq, seq, "round {round}: contiguous from 1");
            assert!(
                event.json.starts_with(&format!(r#"{{"i":{seq},"pad":"#)),
                "{}",
                event.json
            );
        }
        let summary = store.run(&run).expect("read").expect("the run").summary;
        assert_eq!(summary.events, n, "the run's count matches its stream");
        assert_eq!(
            owner_files(&path),
            Vec::<PathBuf>::new(),
            "the dead audit's lock is gone"
        );
        println!("round {round}: killed after {n} events");
    }
}

#[test]
fn processes_appending_to_one_run_get_distinct_consecutive_seqs() {
    const TEST: &str = "processes_appending_to_one_run_get_distinct_consecutive_seqs";
    const WORKERS: u64 = 4;
    const EACH: u64 = 250;
    if is_child(TEST) {
        let store = AuditStore::open(Path::new(&env_var(PATH_ENV))).expect("open");
        let run: RunId = env_var(RUN_ENV).parse().expect("a run id");
        let worker = env_var(WORKER_ENV);
        println!("windup-store ready=1");
        let mut go = String::new();
        std::io::stdin()
            .read_line(&mut go)
            .expect("the parent says go");
        for i in 0..EACH {
            let json = format!(r#"{{"worker":{worker},"i":{i}}}"#);
            store
                .append_event(&run, "attack_action", &json)
                .expect("append");
        }
        return;
    }
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("audits.db");
    let store = AuditStore::open(&path).expect("open");
    let run = store.create_run(&new_run(1)).expect("create a run");
    let env = |worker: u64| {
        [
            (PATH_ENV, path.display().to_string()),
            (RUN_ENV, run.to_string()),
            (WORKER_ENV, worker.to_string()),
        ]
    };
    // Their output is read to the end (kept open), so that no child writes to a closed pipe.
    let mut children: Vec<(Reaped, mpsc::Receiver<String>)> = (0..WORKERS)
        .map(|worker| {
            let mut child = spawn_child(TEST, &env(worker), Stdio::piped());
            let lines = lines_of(&mut child);
            wait_for_report(&lines, "ready");
            (child, lines)
        })
        .collect();
    // All are open and waiting: let them go together.
    for (child, _) in &mut children {
        let stdin = child.0.stdin.as_mut().expect("piped stdin");
        stdin.write_all(b"go\n").expect("say go");
    }
    for (worker, (child, _)) in children.iter_mut().enumerate() {
        let status = child.0.wait().expect("reap the worker");
        assert!(status.success(), "worker {worker} failed: {status}");
    }

    let events = all_events(&store, &run);
    let seqs: Vec<u64> = events.iter().map(|event| event.seq).collect();
    assert_eq!(seqs, (1..=WORKERS * EACH).collect::<Vec<_>>());
    // Each worker's events are stored in the order it appended them.
    let mut next: BTreeMap<u64, u64> = BTreeMap::new();
    for event in &events {
        let value: serde_json::Value = serde_json::from_str(&event.json).expect("JSON");
        let worker = value["worker"].as_u64().expect("a worker");
        let i = value["i"].as_u64().expect("an index");
        let expected = next.entry(worker).or_insert(0);
        assert_eq!(i, *expected, "worker {worker}'s events in order");
        *expected += 1;
    }
    assert_eq!(next, (0..WORKERS).map(|w| (w, EACH)).collect());
    assert_eq!(
        status_of(&store, &run),
        RunStatus::Running,
        "the parent still owns it"
    );
}
