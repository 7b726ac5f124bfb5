use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};

use super::*;

fn temp() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("audits").join("audits.db");
    (dir, path)
}

fn store() -> (tempfile::TempDir, AuditStore) {
    let (dir, path) = temp();
    let store = AuditStore::open(&path).expect("a new store opens");
    (dir, store)
}

fn new_run(seed: u64) -> NewRun {
    NewRun {
        target_url: "http://127.0.0.1:3000/".to_owned(),
        seed,
        budget_json: r#"{"actions":200,"model_calls":5}"#.to_owned(),
        started_at: "2026-12-01T10:00:00Z".to_owned(),
    }
}

fn new_finding(fingerprint: &str) -> NewFinding {
    NewFinding {
        invariant_id: "cart-total-matches-lines".to_owned(),
        severity: "high".to_owned(),
        title: "The cart total ignores the second line".to_owned(),
        expected: "total = 2 x 12.00".to_owned(),
        actual: "total = 12.00".to_owned(),
        impact: "Customers are undercharged".to_owned(),
        steps_json: r#"["go to /products","click \"Add to cart\""]"#.to_owned(),
        screenshots_json: r#"["shots/1.png"]"#.to_owned(),
        action_log_json: r#"[{"type":"click"}]"#.to_owned(),
        fingerprint: fingerprint.to_owned(),
    }
}

fn new_test(framework: Framework, code: &str) -> NewTest {
    NewTest {
        filename: format!("cart-total.{framework}"),
        code: code.to_owned(),
        framework,
    }
}

/// The store's file opened directly, to set up what only a crash or another program leaves.
fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("the file opens in SQLite")
}

fn seqs(events: &[StoredEvent]) -> Vec<u64> {
    events.iter().map(|event| event.seq).collect()
}

fn status_of(store: &AuditStore, run: &RunId) -> RunStatus {
    store
        .run(run)
        .expect("the run reads")
        .expect("the run exists")
        .summary
        .status
}

/// An error's text with the temp directory replaced, for snapshots.
fn message(err: &StoreError, dir: &tempfile::TempDir) -> String {
    err.to_string()
        .replace(&dir.path().display().to_string(), "[DIR]")
}

#[test]
fn ids_print_and_parse_with_or_without_the_hash() {
    assert_eq!(RunId(1001).to_string(), "#A-1001");
    assert_eq!(FindingId(7).to_string(), "#F-7");
    for text in ["#A-1001", "A-1001", "a-1001"] {
        assert_eq!(text.parse::<RunId>().expect(text), RunId(1001));
    }
    for text in ["#F-7", "F-7", "f-7"] {
        assert_eq!(text.parse::<FindingId>().expect(text), FindingId(7));
    }
    for text in [
        "",
        "#",
        "A-",
        "#A-",
        "A1001",
        "#F-1",
        "A-+1",
        "A--1",
        "A-1 ",
        " A-1",
        "##A-1",
        "A-1x",
        "A-99999999999999999999",
    ] {
        assert!(text.parse::<RunId>().is_err(), "{text:?} is not a run id");
    }
    assert!("#A-1".parse::<FindingId>().is_err());
    let err = "run-1".parse::<RunId>().expect_err("not an id");
    assert_eq!(
        err.to_string(),
        "`run-1` is not a run id\n  hint: a run id looks like #A-1001 (the `#` may be left out)"
    );
}

#[test]
fn words_round_trip() {
    for phase in Phase::ALL {
        assert_eq!(Phase::from_word(phase.as_str()), Some(*phase));
    }
    for status in RunStatus::ALL {
        assert_eq!(RunStatus::from_word(status.as_str()), Some(*status));
    }
    for framework in Framework::ALL {
        assert_eq!(
            Framework::from_word(&framework.to_string()),
            Some(*framework)
        );
    }
    assert_eq!(Phase::from_word("Explore"), None);
    assert_eq!(RunStatus::ALL.len(), 6);
}

#[test]
fn the_store_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<AuditStore>();
}

#[test]
fn runs_are_numbered_from_1001_in_order_and_read_back() {
    let (_dir, store) = store();
    let first = store.create_run(&new_run(u64::MAX)).expect("create");
    let second = store.create_run(&new_run(7)).expect("create");
    assert_eq!(
        (first.to_string(), second.to_string()),
        ("#A-1001".into(), "#A-1002".into())
    );

    let report = store.run(&first).expect("read").expect("the run");
    assert_eq!(
        report.summary,
        RunSummary {
            id: first,
            target_url: "http://127.0.0.1:3000/".to_owned(),
            status: RunStatus::Running,
            phase: Phase::Explore,
            started_at: "2026-12-01T10:00:00Z".to_owned(),
            runtime_ms: None,
            findings: 0,
            events: 0,
            seed: u64::MAX,
        }
    );
    assert_eq!(report.budget_json, r#"{"actions":200,"model_calls":5}"#);
    assert_eq!(report.invariants_json, None);
    assert!(report.findings.is_empty() && report.tests.is_empty());
    assert_eq!(store.run(&RunId(999)).expect("read"), None);
}

#[test]
fn phase_invariants_and_finish_are_recorded() {
    let (_dir, store) = store();
    let run = store.create_run(&new_run(1)).expect("create");
    for phase in Phase::ALL {
        store.set_phase(&run, *phase).expect("set phase");
        assert_eq!(
            store.run(&run).expect("read").expect("run").summary.phase,
            *phase
        );
    }
    store
        .set_invariants(&run, r#"[{"id":"cart-total-matches-lines"}]"#)
        .expect("set invariants");
    store
        .finish_run(&run, RunStatus::Done, 61_500)
        .expect("finish");
    let report = store.run(&run).expect("read").expect("run");
    assert_eq!(
        report.invariants_json.as_deref(),
        Some(r#"[{"id":"cart-total-matches-lines"}]"#)
    );
    assert_eq!(report.summary.status, RunStatus::Done);
    assert_eq!(report.summary.runtime_ms, Some(61_500));
    for status in [
        RunStatus::Stopped,
        RunStatus::Interrupted,
        RunStatus::Failed,
    ] {
        store.finish_run(&run, status, 1).expect("finish");
        assert_eq!(status_of(&store, &run), status);
    }
    let err = store
        .finish_run(&run, RunStatus::Running, 1)
        .expect_err("running is not an end");
    assert!(matches!(err, StoreError::FinishedAsRunning { .. }), "{err}");
}

#[test]
fn operations_on_an_unknown_run_or_finding_say_so() {
    let (dir, store) = store();
    let nobody = RunId(4242);
    let errors = [
        store.set_phase(&nobody, Phase::Attack).expect_err("phase"),
        store.set_invariants(&nobody, "[]").expect_err("invariants"),
        store
            .finish_run(&nobody, RunStatus::Done, 1)
            .expect_err("finish"),
        store
            .append_event(&nobody, "phase", "{}")
            .expect_err("append"),
        store.events_since(&nobody, 0, 10).expect_err("events"),
        store
            .add_finding(&nobody, &new_finding("x"))
            .expect_err("finding"),
    ];
    for err in &errors {
        assert!(matches!(err, StoreError::UnknownRun { .. }), "{err}");
    }
    insta::assert_snapshot!("unknown_run", message(&errors[0], &dir));
    let err = store
        .add_test(&FindingId(9), &new_test(Framework::Windup, "x"))
        .expect_err("no such finding");
    insta::assert_snapshot!("unknown_finding", message(&err, &dir));
    assert_eq!(store.finding(&FindingId(9)).expect("read"), None);
    assert!(store.tests_of(&FindingId(9)).expect("read").is_empty());
    assert_eq!(
        store
            .events_since(&store.create_run(&new_run(1)).expect("create"), 0, 10)
            .expect("read"),
        []
    );
}

#[test]
fn what_is_not_json_or_a_time_is_refused() {
    let (dir, store) = store();
    let mut bad = new_run(1);
    bad.budget_json = "{budget".to_owned();
    let err = store.create_run(&bad).expect_err("not JSON");
    insta::assert_snapshot!("budget_not_json", message(&err, &dir));
    let mut bad = new_run(1);
    bad.started_at = "yesterday".to_owned();
    let err = store.create_run(&bad).expect_err("not a time");
    assert!(matches!(err, StoreError::Invalid { .. }), "{err}");
    assert!(err.to_string().contains("`yesterday`"), "{err}");

    let run = store.create_run(&new_run(1)).expect("create");
    let err = store
        .append_event(&run, "phase", "{")
        .expect_err("not JSON");
    assert!(
        err.to_string()
            .contains("the `phase` event is not JSON text"),
        "{err}"
    );
    assert!(store.set_invariants(&run, "").is_err());
    let mut finding = new_finding("f");
    finding.action_log_json = "[1,".to_owned();
    assert!(store.add_finding(&run, &finding).is_err());
    assert_eq!(
        store.events_since(&run, 0, 10).expect("read"),
        [],
        "nothing was stored"
    );
}

#[test]
fn events_are_numbered_per_run_without_gaps_and_resume_after_a_seq() {
    let (_dir, store) = store();
    let run = store.create_run(&new_run(1)).expect("create");
    let other = store.create_run(&new_run(2)).expect("create");
    for n in 1..=25u64 {
        let seq = store
            .append_event(&run, "attack_action", &format!(r#"{{"n":{n}}}"#))
            .expect("append");
        assert_eq!(seq, n);
    }
    assert_eq!(
        store.append_event(&other, "phase", "{}").expect("append"),
        1
    );

    let all = store.events_since(&run, 0, 100).expect("read");
    assert_eq!(seqs(&all), (1..=25).collect::<Vec<_>>());
    for event in &all {
        assert_eq!(event.name, "attack_action");
        assert_eq!(event.json, format!(r#"{{"n":{}}}"#, event.seq));
        OffsetDateTime::parse(&event.at, &Rfc3339).expect("an RFC 3339 time");
    }
    // Paging from where the reader is: no gap, no duplicate.
    let mut read = Vec::new();
    let mut after = 0;
    loop {
        let page = store.events_since(&run, after, 7).expect("read a page");
        assert!(page.len() <= 7);
        let Some(last) = page.last() else { break };
        after = last.seq;
        read.extend(page);
    }
    assert_eq!(read, all);
    assert_eq!(
        seqs(&store.events_since(&run, 20, 100).expect("read")),
        [21, 22, 23, 24, 25]
    );
    assert_eq!(store.events_since(&run, 25, 100).expect("read"), []);
    assert_eq!(store.events_since(&run, u64::MAX, 100).expect("read"), []);
    assert_eq!(store.events_since(&run, 0, 0).expect("read"), []);
    assert_eq!(
        seqs(&store.events_since(&other, 0, 100).expect("read")),
        [1]
    );
    assert_eq!(
        store.run(&run).expect("read").expect("run").summary.events,
        25
    );
}

#[test]
fn findings_are_numbered_across_the_store_and_recorded_once_per_fingerprint() {
    let (_dir, store) = store();
    let run = store.create_run(&new_run(1)).expect("create");
    let other = store.create_run(&new_run(2)).expect("create");
    let first = store.add_finding(&run, &new_finding("fp-1")).expect("add");
    let second = store.add_finding(&run, &new_finding("fp-2")).expect("add");
    let again = store
        .add_finding(&run, &new_finding("fp-1"))
        .expect("add again");
    let elsewhere = store
        .add_finding(&other, &new_finding("fp-1"))
        .expect("add");
    assert_eq!(first.to_string(), "#F-1");
    assert_eq!(second.to_string(), "#F-2");
    assert_eq!(
        again, first,
        "the same fingerprint in the same run is one finding"
    );
    assert_eq!(elsewhere.to_string(), "#F-3", "another run records it too");

    let finding = store.finding(&first).expect("read").expect("the finding");
    let expected = new_finding("fp-1");
    assert_eq!(
        finding,
        Finding {
            id: first,
            run,
            invariant_id: expected.invariant_id,
            severity: expected.severity,
            title: expected.title,
            expected: expected.expected,
            actual: expected.actual,
            impact: expected.impact,
            steps_json: expected.steps_json,
            screenshots_json: expected.screenshots_json,
            action_log_json: expected.action_log_json,
            fingerprint: expected.fingerprint,
        }
    );
    let report = store.run(&run).expect("read").expect("run");
    assert_eq!(report.summary.findings, 2);
    let ids: Vec<_> = report.findings.iter().map(|f| f.id).collect();
    assert_eq!(ids, [first, second]);
    assert_eq!(
        store.runs(10).expect("list")[0].findings,
        1,
        "the other run, newest first"
    );
}

#[test]
fn tests_are_kept_per_finding_and_framework() {
    let (_dir, store) = store();
    let run = store.create_run(&new_run(1)).expect("create");
    let finding = store.add_finding(&run, &new_finding("fp")).expect("add");
    let unrelated = store.add_finding(&run, &new_finding("fp-2")).expect("add");
    assert_eq!(store.test(&finding, Framework::Windup).expect("read"), None);
    store
        .add_test(
            &finding,
            &new_test(Framework::Playwright, "test('total', …)"),
        )
        .expect("add");
    store
        .add_test(&finding, &new_test(Framework::Windup, "steps: [old]"))
        .expect("add");
    store
        .add_test(&finding, &new_test(Framework::Windup, "steps: [new]"))
        .expect("replace");
    let tests = store.tests_of(&finding).expect("read");
    let frameworks: Vec<_> = tests.iter().map(|t| t.framework).collect();
    assert_eq!(frameworks, [Framework::Windup, Framework::Playwright]);
    assert_eq!(
        store.test(&finding, Framework::Windup).expect("read"),
        Some(Test {
            finding,
            filename: "cart-total.windup".to_owned(),
            code: "steps: [new]".to_owned(),
            framework: Framework::Windup,
        })
    );
    assert!(store.tests_of(&unrelated).expect("read").is_empty());
    assert_eq!(store.run(&run).expect("read").expect("run").tests, tests);
}

#[test]
fn runs_list_newest_first_up_to_a_limit() {
    let (_dir, store) = store();
    let ids: Vec<_> = (0..5)
        .map(|seed| store.create_run(&new_run(seed)).expect("create"))
        .collect();
    let listed: Vec<_> = store.runs(3).expect("list").iter().map(|r| r.id).collect();
    assert_eq!(listed, [ids[4], ids[3], ids[2]]);
    assert_eq!(store.runs(100).expect("list").len(), 5);
    assert!(store.runs(0).expect("list").is_empty());
}

#[test]
fn everything_is_there_after_reopening() {
    let (_dir, path) = temp();
    let (run, finding) = {
        let store = AuditStore::open(&path).expect("open");
        let run = store.create_run(&new_run(3)).expect("create");
        store
            .append_event(&run, "phase", r#"{"phase":"explore"}"#)
            .expect("append");
        let finding = store.add_finding(&run, &new_finding("fp")).expect("add");
        store
            .add_test(&finding, &new_test(Framework::Windup, "x"))
            .expect("add");
        store.finish_run(&run, RunStatus::Done, 10).expect("finish");
        (run, finding)
    };
    let store = AuditStore::open(&path).expect("reopen");
    let report = store.run(&run).expect("read").expect("run");
    assert_eq!(report.summary.status, RunStatus::Done);
    assert_eq!(report.findings[0].id, finding);
    assert_eq!(report.tests.len(), 1);
    assert_eq!(seqs(&store.events_since(&run, 0, 10).expect("read")), [1]);
    let next = store.create_run(&new_run(4)).expect("create");
    assert_eq!(next.to_string(), "#A-1002");
    store.check_integrity().expect("whole");
}

#[test]
fn threads_with_their_own_connections_get_distinct_consecutive_seqs() {
    const THREADS: usize = 4;
    const EACH: u64 = 150;
    let (_dir, path) = temp();
    let store = AuditStore::open(&path).expect("open");
    let run = store.create_run(&new_run(1)).expect("create");
    let barrier = Arc::new(Barrier::new(THREADS));
    let handles: Vec<_> = (0..THREADS)
        .map(|thread| {
            let (path, barrier) = (path.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                let store = AuditStore::open(&path).expect("open in a thread");
                barrier.wait();
                (0..EACH)
                    .map(|i| {
                        let json = format!(r#"{{"thread":{thread},"i":{i}}}"#);
                        store
                            .append_event(&run, "attack_action", &json)
                            .expect("append")
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut all = BTreeSet::new();
    for handle in handles {
        let got = handle.join().expect("the thread finished");
        assert!(
            got.windows(2).all(|w| w[0] < w[1]),
            "a thread's seqs rise: {got:?}"
        );
        for seq in got {
            assert!(all.insert(seq), "seq {seq} was given twice");
        }
    }
    let total = THREADS as u64 * EACH;
    assert_eq!(all, (1..=total).collect::<BTreeSet<_>>());
    let stored = store.events_since(&run, 0, usize::MAX).expect("read");
    assert_eq!(seqs(&stored), (1..=total).collect::<Vec<_>>());
}

#[test]
fn one_store_shared_by_threads_numbers_events_in_order() {
    let (_dir, store) = store();
    let store = Arc::new(store);
    let run = store.create_run(&new_run(1)).expect("create");
    let handles: Vec<_> = (0..3)
        .map(|_| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                for _ in 0..50 {
                    store.append_event(&run, "e", "{}").expect("append");
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().expect("the thread finished");
    }
    let stored = store.events_since(&run, 0, 1000).expect("read");
    assert_eq!(seqs(&stored), (1..=150).collect::<Vec<_>>());
}

#[test]
fn many_connections_create_a_new_store_at_once() {
    const THREADS: usize = 6;
    // A few rounds: the window in which the store is half-created is short.
    for round in 0..8 {
        let (_dir, path) = temp();
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                let (path, barrier) = (path.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    let store = AuditStore::open(&path).expect("open a new store");
                    let run = store.create_run(&new_run(1)).expect("create");
                    store.finish_run(&run, RunStatus::Done, 1).expect("finish");
                    run
                })
            })
            .collect();
        let runs: BTreeSet<_> = handles
            .into_iter()
            .map(|handle| handle.join().expect("the thread finished"))
            .collect();
        let expected = (1001..1001 + THREADS as i64).map(RunId).collect();
        assert_eq!(runs, expected, "round {round}");
    }
}

#[test]
fn a_run_of_a_live_store_stays_running_and_becomes_interrupted_when_it_is_dropped() {
    let (_dir, path) = temp();
    let writer = AuditStore::open(&path).expect("open");
    let run = writer.create_run(&new_run(1)).expect("create");
    let finished = writer.create_run(&new_run(2)).expect("create");
    writer
        .finish_run(&finished, RunStatus::Done, 5)
        .expect("finish");

    let reader = AuditStore::open(&path).expect("a second open");
    assert_eq!(
        status_of(&reader, &run),
        RunStatus::Running,
        "its owner is alive"
    );
    assert_eq!(reader.mark_interrupted().expect("check"), []);
    assert_eq!(
        writer.mark_interrupted().expect("check"),
        [],
        "a store never marks its own"
    );

    drop(writer);
    assert_eq!(status_of(&reader, &run), RunStatus::Interrupted);
    assert_eq!(
        status_of(&reader, &finished),
        RunStatus::Done,
        "a finished run stays"
    );
    let owners = std::fs::read_dir(owner::owners_dir(&path)).expect("the owners' directory");
    assert_eq!(owners.count(), 0, "the owner's lock file is gone");
}

/// Inserts a running run owned by `token`, as a process that died would have left it.
fn orphan(path: &Path, token: &str) -> RunId {
    let conn = raw(path);
    conn.query_row(
        "INSERT INTO runs (target_url, seed, budget_json, status, phase, started_at, owner_pid, \
         owner_token) VALUES ('http://x/', 1, '{}', 'running', 'attack', '2026-12-01T10:00:00Z', \
         1, ?1) RETURNING number",
        [token],
        |row| row.get(0),
    )
    .map(RunId)
    .expect("an orphan run")
}

#[test]
fn runs_of_a_gone_owner_are_interrupted_on_open() {
    let (_dir, path) = temp();
    drop(AuditStore::open(&path).expect("create the store"));
    let owners = owner::owners_dir(&path);
    std::fs::create_dir_all(&owners).expect("the owners' directory");
    // A lock file whose process died (nobody holds its lock), one whose file is gone, and a
    // token that is not one: each owner is gone. The last must not make the store touch a file.
    std::fs::write(owners.join("1-abc-0"), "").expect("a dead owner's lock file");
    std::fs::write(owners.join("3-aaa-0"), "").expect("one that no run names");
    let outside = path.with_file_name("outside");
    std::fs::write(&outside, "keep me").expect("a file outside");
    let dead = orphan(&path, "1-abc-0");
    let vanished = orphan(&path, "2-def-0");
    let strange = orphan(&path, "../outside");
    // And a live one: this process holds its lock.
    let live = AuditStore::open(&path).expect("open");
    let running = live.create_run(&new_run(1)).expect("create");

    let store = AuditStore::open(&path).expect("reopen");
    for run in [dead, vanished, strange] {
        assert_eq!(status_of(&store, &run), RunStatus::Interrupted, "{run}");
    }
    assert_eq!(status_of(&store, &running), RunStatus::Running);
    assert!(
        !owners.join("1-abc-0").exists(),
        "the dead owner's lock file is cleaned up"
    );
    assert!(
        !owners.join("3-aaa-0").exists(),
        "a lock file no run names is swept"
    );
    let left: Vec<_> = std::fs::read_dir(&owners)
        .expect("the owners' directory")
        .map(|item| item.expect("an entry").file_name())
        .collect();
    assert_eq!(
        left.len(),
        1,
        "only the live owner's lock is left: {left:?}"
    );
    assert_eq!(
        std::fs::read_to_string(&outside).expect("still there"),
        "keep me"
    );
    assert_eq!(store.mark_interrupted().expect("check again"), []);
}

#[test]
fn a_file_that_is_not_a_store_is_named_in_the_error() {
    let (dir, path) = temp();
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(
        &path,
        b"this is a text file, not a database, though it is long enough to look like one"
            .repeat(20),
    )
    .expect("write");
    let err = AuditStore::open(&path).expect_err("not SQLite");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err:?}");
    insta::assert_snapshot!("not_sqlite", message(&err, &dir));
    let bytes = std::fs::read(&path).expect("read");
    assert!(
        bytes.starts_with(b"this is a text file"),
        "the file is left as it was"
    );

    let other = dir.path().join("other.db");
    raw(&other)
        .execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');")
        .expect("another program's database");
    let err = AuditStore::open(&other).expect_err("not ours");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err:?}");
    assert!(err.to_string().contains("another program"), "{err}");

    let err = AuditStore::open(dir.path()).expect_err("a directory");
    assert!(
        err.to_string().contains(&dir.path().display().to_string()),
        "{err}"
    );
}

#[test]
fn a_store_of_a_newer_schema_is_refused() {
    let (dir, path) = temp();
    drop(AuditStore::open(&path).expect("create"));
    raw(&path)
        .pragma_update(None, "user_version", schema::SCHEMA_VERSION + 1)
        .expect("bump the version");
    let err = AuditStore::open(&path).expect_err("newer");
    insta::assert_snapshot!("newer_schema", message(&err, &dir));
}

#[test]
fn a_damaged_store_is_named_in_the_error() {
    let (dir, path) = temp();
    {
        let store = AuditStore::open(&path).expect("create");
        let run = store.create_run(&new_run(1)).expect("create");
        for n in 0..400 {
            let json = format!(r#"{{"n":{n},"pad":"{}"}}"#, "x".repeat(200));
            store
                .append_event(&run, "attack_action", &json)
                .expect("append");
        }
    }
    // Everything after the first page (the schema) overwritten: the tables are garbage.
    let mut bytes = std::fs::read(&path).expect("read");
    assert!(bytes.len() > 8 * 4096, "{} bytes", bytes.len());
    for byte in &mut bytes[4096..] {
        *byte = 0x5a;
    }
    std::fs::write(&path, &bytes).expect("damage it");
    let err = match AuditStore::open(&path) {
        Err(err) => err,
        Ok(store) => store.check_integrity().expect_err("damaged"),
    };
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    let text = message(&err, &dir);
    assert!(
        text.starts_with("the audit store at [DIR]/audits/audits.db is damaged"),
        "{text}"
    );
    assert!(text.contains("move it aside"), "{text}");
}

#[test]
fn a_queued_run_starts_once_and_a_stop_before_its_turn_keeps_it_from_starting() {
    let (_dir, store) = store();
    let first = store.queue_run(&new_run(1)).expect("queue");
    assert_eq!(status_of(&store, &first), RunStatus::Queued);
    store
        .append_event(&first, "queued", "{}")
        .expect("a queued run has a stream");
    assert!(store.start_run(&first).expect("start"));
    assert_eq!(status_of(&store, &first), RunStatus::Running);
    assert!(!store.start_run(&first).expect("again"), "it started once");
    assert!(
        !store.stop_queued(&first).expect("stop"),
        "it is not queued"
    );

    let second = store.queue_run(&new_run(2)).expect("queue");
    assert!(store.stop_queued(&second).expect("stop"));
    assert!(
        !store.start_run(&second).expect("start"),
        "a stopped run stays"
    );
    assert_eq!(status_of(&store, &second), RunStatus::Stopped);
    let err = store
        .finish_run(&first, RunStatus::Queued, 1)
        .expect_err("finished as queued");
    assert!(matches!(err, StoreError::FinishedAsRunning { .. }), "{err}");
    let err = store.start_run(&RunId(99)).expect_err("no such run");
    assert!(err.to_string().contains("#A-99"), "{err}");
}

#[test]
fn a_queued_run_whose_store_goes_away_is_interrupted() {
    let (_dir, path) = temp();
    let server = AuditStore::open(&path).expect("open");
    let queued = server.queue_run(&new_run(1)).expect("queue");
    drop(server);
    let store = AuditStore::open(&path).expect("reopen");
    assert_eq!(status_of(&store, &queued), RunStatus::Interrupted);
}

#[test]
fn a_version_1_store_is_migrated_and_keeps_its_runs_events_findings_and_numbers() {
    let (_dir, path) = temp();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let v1 = schema::SCHEMA.replace("'queued', ", "").replace(
        "CREATE INDEX runs_owned ON runs (owner_token) WHERE status IN ('running')",
        "CREATE INDEX runs_running ON runs (owner_token) WHERE status = 'running'",
    );
    {
        let conn = raw(&path);
        conn.execute_batch(&v1).expect("the version 1 schema");
        conn.execute_batch(
            "INSERT INTO sqlite_sequence (name, seq) VALUES ('runs', 1004); \
             INSERT INTO runs (number, target_url, seed, budget_json, status, phase, started_at, \
             last_seq, owner_pid, owner_token) VALUES (1003, 'http://x/', 7, '{}', 'done', \
             'report', '2026-12-01T10:00:00Z', 1, 1, 't'); \
             INSERT INTO events (run, seq, name, json, at) VALUES (1003, 1, 'phase', '{}', \
             '2026-12-01T10:00:00Z'); \
             PRAGMA application_id = 1464096080; PRAGMA user_version = 1;",
        )
        .expect("a version 1 store with a run");
        let check: String = conn
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'runs'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(!check.contains("queued"), "{check}");
    }
    let store = AuditStore::open(&path).expect("a version 1 store opens");
    let old = RunId(1003);
    assert_eq!(status_of(&store, &old), RunStatus::Done);
    assert_eq!(seqs(&store.events_since(&old, 0, 10).unwrap()), [1]);
    let queued = store
        .queue_run(&new_run(1))
        .expect("queued runs are known now");
    assert_eq!(queued, RunId(1005), "no number is given twice");
    let version: i64 = raw(&path)
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 2);
    let foreign_keys: bool = store
        .lock()
        .conn
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert!(
        foreign_keys,
        "foreign keys are on again after the migration"
    );
    store.check_integrity().expect("whole");
}
