//! Many processes append to one ledger at once, as nextest's per-test processes do.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use windup_core::engine::ledger::{CacheOutcome, Ledger, LlmCall, Outcome, RunRecord, new_run_id};

const CHILD_ENV: &str = "WINDUP_LEDGER_TEST_CHILD";
const PROCESSES: usize = 8;
const RECORDS_EACH: usize = 200;
const READY: &str = "ledger-child-ready";

/// Record `seq` of process `child`: up to 59 calls, so many lines are longer than PIPE_BUF.
fn record(child: usize, seq: usize, run_id: String) -> RunRecord {
    let calls = (0..seq % 60)
        .map(|i| LlmCall {
            purpose: "plan".to_owned(),
            provider: "openai".to_owned(),
            model: "gpt-4o-mini".to_owned(),
            input_tokens: (child * 1_000_000 + seq * 1_000 + i) as u64,
            output_tokens: i as u64,
            latency_ms: seq as u64,
            retry: None,
            failure: None,
        })
        .collect();
    RunRecord {
        run_id,
        scenario_id: format!("process-{child}"),
        started_at: "2025-03-01T10:00:00Z".to_owned(),
        duration_ms: seq as u64,
        outcome: Outcome::Passed,
        failure_class: None,
        cache: CacheOutcome::Miss,
        replan: None,
        llm_calls: calls,
        pages: Vec::new(),
        kind: Default::default(),
    }
}

/// Child processes, killed and reaped on every path out of the test.
struct Children(Vec<Child>);

impl Drop for Children {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn run_child(dir: &Path, index: usize) {
    let ledger = Ledger::new(dir);
    println!("{READY}");
    std::io::stdout().flush().expect("stdout");
    // Start together: the parent writes one line to every child once all are ready.
    let mut go = String::new();
    std::io::stdin()
        .read_line(&mut go)
        .expect("the start signal");
    for seq in 0..RECORDS_EACH {
        ledger
            .append(&record(index, seq, new_run_id()))
            .expect("append");
    }
}

#[test]
fn eight_processes_append_at_once_and_every_record_is_whole() {
    if let Some(dir) = std::env::var_os(CHILD_ENV) {
        let index = std::env::var("WINDUP_LEDGER_TEST_INDEX")
            .expect("the child's index")
            .parse()
            .expect("a number");
        run_child(Path::new(&dir), index);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut children = Children(Vec::new());
    let mut starts: Vec<ChildStdin> = Vec::new();
    let mut outputs: Vec<BufReader<ChildStdout>> = Vec::new();
    for index in 0..PROCESSES {
        let mut child = Command::new(std::env::current_exe().expect("the test binary"))
            .args([
                "eight_processes_append_at_once_and_every_record_is_whole",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, dir.path())
            .env("WINDUP_LEDGER_TEST_INDEX", index.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the child test starts");
        starts.push(child.stdin.take().expect("piped stdin"));
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        children.0.push(child);
        // libtest prints the test's name before its output, on the same line.
        let ready = (&mut stdout)
            .lines()
            .map_while(Result::ok)
            .any(|line| line.contains(READY));
        assert!(ready, "child {index} never said it was ready");
        outputs.push(stdout);
    }
    for start in &mut starts {
        start.write_all(b"go\n").expect("start a child");
    }
    drop(starts);
    // Keep reading until each child closes its stdout, so libtest's last lines never fail.
    for output in &mut outputs {
        std::io::copy(output, &mut std::io::sink()).expect("the child's output");
    }
    for (index, child) in children.0.iter_mut().enumerate() {
        let status = child.wait().expect("reap the child");
        assert!(status.success(), "child {index} failed: {status}");
    }

    let read = Ledger::new(dir.path()).read().unwrap();
    assert_eq!(read.skipped_lines, 0, "no line is cut or interleaved");
    assert_eq!(read.records.len(), PROCESSES * RECORDS_EACH);
    let text = std::fs::read_to_string(dir.path().join(".windup/ledger.jsonl")).unwrap();
    assert_eq!(text.lines().count(), PROCESSES * RECORDS_EACH);
    assert!(
        text.lines().any(|line| line.len() > 4096),
        "some records are longer than PIPE_BUF"
    );
    let ids: BTreeSet<&str> = read.records.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(ids.len(), PROCESSES * RECORDS_EACH, "run ids are unique");
    let mut seen = BTreeSet::new();
    for found in &read.records {
        let child: usize = found.scenario_id["process-".len()..].parse().unwrap();
        let seq = found.duration_ms as usize;
        assert_eq!(
            found,
            &record(child, seq, found.run_id.clone()),
            "record {seq} of process {child} is whole"
        );
        assert!(seen.insert((child, seq)), "record {seq} of {child} once");
    }
}
