use std::path::PathBuf;
use std::time::Duration;

use super::*;
use crate::engine::audit::{AuditOutcome, generic_invariants};
use crate::model::invariant::{Severity, Source};
use crate::model::plan::ActionKind;
use crate::run::events::ActionInfo;
use crate::store::{NewFinding, NewRun, NewTest, Phase as StoredPhase};

const RUN: &str = "#A-1001";

fn finding() -> Finding {
    Finding {
        id: "coupon-applies-once-1".to_owned(),
        invariant_id: "coupon-applies-once".to_owned(),
        source: Source::User,
        severity: Severity::High,
        title: "WELCOME10 takes off more than ten percent".to_owned(),
        expected: "WELCOME10 takes off ten percent of the subtotal at most".to_owned(),
        actual: "the discount is 8.00 on a subtotal of 40.00\nafter applying it twice".to_owned(),
        impact: "Customers pay less than the price.".to_owned(),
        steps: vec![
            "go to /cart".to_owned(),
            "fill \"Coupon code\" with \"WELCOME10\"".to_owned(),
            "click \"Apply\" twice".to_owned(),
        ],
        actions: Vec::new(),
        predicate: "money(\"#discount\") <= money(\"#subtotal\") / 10".to_owned(),
        since: None,
        within: None,
        screenshots: Vec::new(),
        attack: "double-submit".to_owned(),
        fingerprint: "f00d".to_owned(),
        found_after_actions: 41,
        found_after: Duration::from_millis(8_200),
    }
}

fn budget() -> Budget {
    Budget {
        time: Duration::from_secs(20),
        steps: 60,
        ..Budget::default()
    }
}

/// An audit as the run layer tells it, phase by phase, with a finding and its test.
fn script() -> Vec<RunEvent> {
    let run_id = || RUN.to_owned();
    let invariant = generic_invariants().remove(0);
    vec![
        RunEvent::AuditStarted {
            run_id: run_id(),
            target: "http://127.0.0.1:4000/".to_owned(),
            seed: 7,
            budget: budget(),
            deny: vec!["**/logout*".to_owned()],
        },
        RunEvent::Phase {
            run_id: run_id(),
            phase: Phase::Explore,
        },
        RunEvent::Reasoning {
            run_id: run_id(),
            text: "Exploring http://127.0.0.1:4000/ within 24 page states.".to_owned(),
        },
        RunEvent::Phase {
            run_id: run_id(),
            phase: Phase::Hypothesize,
        },
        RunEvent::Invariant {
            run_id: run_id(),
            invariant: Box::new(invariant.clone()),
            status: InvariantStatus::Unbroken,
        },
        RunEvent::Invariant {
            run_id: run_id(),
            invariant: Box::new(invariant),
            status: InvariantStatus::Invalid {
                error: "no such function `moneys`".to_owned(),
            },
        },
        RunEvent::Phase {
            run_id: run_id(),
            phase: Phase::Attack,
        },
        RunEvent::AuditAction {
            run_id: run_id(),
            label: "double-submit /cart".to_owned(),
            step: "click \"Apply\"".to_owned(),
            action: ActionInfo {
                id: "a1".to_owned(),
                position: 0,
                of: 0,
                kind: ActionKind::Click,
                selector: Some("#apply".to_owned()),
                name: Some("Apply".to_owned()),
            },
            screenshot: None,
        },
        RunEvent::Finding {
            run_id: run_id(),
            finding: finding(),
        },
        RunEvent::TestWritten {
            run_id: run_id(),
            finding: "coupon-applies-once-1".to_owned(),
            framework: "windup".to_owned(),
            path: PathBuf::from("scenarios/audit/coupon-applies-once-1.yaml"),
            lockfile: PathBuf::from("scenarios/audit/coupon-applies-once-1.plan.json"),
        },
        RunEvent::TestWritten {
            run_id: run_id(),
            finding: "coupon-applies-once-1".to_owned(),
            framework: "playwright".to_owned(),
            path: PathBuf::from("scenarios/audit/coupon-applies-once-1.spec.ts"),
            lockfile: PathBuf::from("scenarios/audit/coupon-applies-once-1.plan.json"),
        },
        RunEvent::Warning {
            message: "an event was not stored: disk full".to_owned(),
        },
        RunEvent::Phase {
            run_id: run_id(),
            phase: Phase::Report,
        },
        RunEvent::AuditDone {
            run_id: run_id(),
            status: "done".to_owned(),
            runtime_ms: 20_100,
            findings: 1,
            actions: 60,
            attacks: 9,
            pages_explored: 3,
            unconfirmed: 0,
            stopped_by: "steps".to_owned(),
            code: Default::default(),
        },
    ]
}

/// Lines as plain output shows them, each prefixed by its stream.
fn rendered(lines: &[Line]) -> String {
    lines
        .iter()
        .map(|line| match line.tone {
            Tone::Error | Tone::Warning => format!("[stderr] {}", line.text),
            _ => line.text.clone(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn an_audit_in_plain_lines() {
    let all: Vec<Line> = script().iter().flat_map(lines).collect();
    let text = rendered(&all);
    assert!(!text.contains('\u{1b}'), "no escape codes: {text}");
    insta::assert_snapshot!("plain_audit", text);
}

#[test]
fn the_summary_says_what_was_found_why_it_stopped_and_where_it_is() {
    let mut finished = AuditFinished {
        run_id: RUN.parse().expect("a run id"),
        outcome: AuditOutcome {
            findings: vec![finding()],
            invariants: Vec::new(),
            pages_explored: 3,
            actions: 60,
            attacks: 5,
            unconfirmed: 2,
            vetoed: Vec::new(),
            model_calls: 0,
            model_usd: 0.0,
            stopped_by: "steps".to_owned(),
            stop_reason: None,
            budget: Default::default(),
            coverage: Default::default(),
            code: Default::default(),
            unusable: None,
            runtime: Duration::from_millis(20_140),
            overrun: Duration::ZERO,
            seen: Default::default(),
        },
        tests: Vec::new(),
        store: PathBuf::from(".windup/audits.sqlite"),
    };
    insta::assert_snapshot!("summary", rendered(&summary(&finished)));
    // A finding seen near the end of the time budget was proven past it, and the summary says so.
    let late = &mut finished;
    late.outcome.stopped_by = "time".to_owned();
    late.outcome.budget.time = Duration::from_secs(15);
    late.outcome.runtime = Duration::from_millis(20_140);
    late.outcome.overrun = Duration::from_millis(5_100);
    let text = rendered(&summary(late));
    assert!(
        text.contains(
            "used 20.1 s (5.1 s of it past the budget, proving what was seen within it) of 15 s"
        ),
        "{text}"
    );
    // The app's code it reached, and how the coverage strategy steered by it.
    late.outcome.code = crate::engine::audit::CodeCoverage {
        reached: 90,
        edges: 120,
        scripts: 2,
        over_time: vec![(1_000, 40), (9_000, 90)],
        prefixes: 12,
        from_prefix: 4,
        ..Default::default()
    };
    let text = rendered(&summary(late));
    assert!(
        text.contains(
            "the app's code: 90 of 120 edges reached (75.0%) in 2 scripts; 12 walk prefixes kept \
             for reaching new edges, 4 walks started from one; over time: 40 at 1.0 s, 90 at 9.0 s"
        ),
        "{text}"
    );
}

#[test]
fn a_budget_in_one_line() {
    assert_eq!(
        budget_line(&Budget::default()),
        "budget: 180 s, 2000 actions, 24 pages, walks of 24 actions until it is spent, 12 shrink \
         runs"
    );
    let odd = Budget {
        time: Duration::from_millis(1_500),
        steps: 1,
        walks: Some(6),
        ..Budget::default()
    };
    assert!(budget_line(&odd).starts_with("budget: 1.5 s, 1 action, "));
    assert!(budget_line(&odd).contains(", 6 walks of 24 actions, "));
}

#[test]
fn times_are_shown_to_the_second() {
    assert_eq!(
        whole_seconds("2026-12-01T16:40:34.395587853Z"),
        "2026-12-01T16:40:34Z"
    );
    assert_eq!(
        whole_seconds("2026-12-01T16:40:34+01:00"),
        "2026-12-01T16:40:34+01:00"
    );
    assert_eq!(
        whole_seconds("2026-12-01T16:40:34.5+01:00"),
        "2026-12-01T16:40:34+01:00"
    );
}

#[test]
fn the_command_to_see_a_run_again_has_no_hash() {
    let run: RunId = RUN.parse().expect("a run id");
    assert_eq!(show_command(&run), "cargo windup audit show A-1001");
}

/// A store with one finished run holding one finding and its test, and one run still going.
fn stored() -> (tempfile::TempDir, AuditStore, RunId) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = AuditStore::open(&dir.path().join("audits.sqlite")).expect("the store opens");
    let run = store
        .create_run(&NewRun {
            target_url: "http://127.0.0.1:4000/".to_owned(),
            seed: 7,
            budget_json: serde_json::to_string(&budget()).expect("json"),
            started_at: "2026-12-01T10:00:00Z".to_owned(),
        })
        .expect("a run");
    let f = finding();
    let id = store
        .add_finding(
            &run,
            &NewFinding {
                invariant_id: f.invariant_id.clone(),
                severity: "high".to_owned(),
                title: f.title.clone(),
                expected: f.expected.clone(),
                actual: f.actual.clone(),
                impact: f.impact.clone(),
                steps_json: serde_json::to_string(&f.steps).expect("json"),
                screenshots_json: "[]".to_owned(),
                action_log_json: "[]".to_owned(),
                fingerprint: f.fingerprint.clone(),
            },
        )
        .expect("a finding");
    store
        .add_test(
            &id,
            &NewTest {
                filename: "scenarios/audit/coupon-applies-once-1.yaml".to_owned(),
                code: "task: x".to_owned(),
                framework: store::Framework::Windup,
            },
        )
        .expect("a test");
    for event in script() {
        store
            .append_event(&run, event.name(), &event.to_json())
            .expect("an event");
    }
    store.set_phase(&run, StoredPhase::Report).expect("phase");
    store
        .finish_run(&run, RunStatus::Done, 20_100)
        .expect("finished");
    (dir, store, run)
}

#[test]
fn a_stored_run_shows_its_findings_and_tests() {
    let (_dir, store, run) = stored();
    let shown = stored_run(&store, &run)
        .expect("the store answers")
        .expect("the run is there");
    insta::assert_snapshot!("stored_run", rendered(&shown));
    let unknown: RunId = "A-9999".parse().expect("a run id");
    assert!(stored_run(&store, &unknown).expect("answers").is_none());
}

#[test]
fn the_history_is_a_table_newest_first() {
    let (_dir, store, _run) = stored();
    store
        .create_run(&NewRun {
            target_url: "http://localhost:3000/".to_owned(),
            seed: 1,
            budget_json: "{}".to_owned(),
            started_at: "2026-12-01T11:00:00.123456789Z".to_owned(),
        })
        .expect("a second run");
    let runs = store.runs(20).expect("the runs");
    insta::assert_snapshot!("history", rendered(&history(&runs)));
}

#[test]
fn a_long_target_is_cut_in_the_history() {
    let (_dir, store, _run) = stored();
    let long = format!("http://localhost:3000/{}", "a".repeat(60_000));
    store
        .create_run(&NewRun {
            target_url: long,
            seed: 1,
            budget_json: "{}".to_owned(),
            started_at: "2026-12-01T11:00:00Z".to_owned(),
        })
        .expect("a run with a long target");
    let lines = history(&store.runs(20).expect("the runs"));
    let widest = lines.iter().map(|l| l.text.chars().count()).max();
    assert!(widest.is_some_and(|w| w < 200), "{widest:?}");
    assert!(rendered(&lines).contains("(60022 characters in all)"));
}
