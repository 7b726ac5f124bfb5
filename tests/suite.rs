//! The run layer end to end in real Chromium: a `Suite` with a reporter of the embedder's own
//! receives a passing and a failing scenario's events in order; the embedding examples run; a
//! read-only run that would have to plan exits with its own code.

mod common;

use std::process::Command;
use std::sync::{Arc, Mutex};

use common::{Project, run_in, text};
use windup::{FailureClass, PlanChoice, RunEvent, Selection, Suite};

const BROKEN: &str = "\
task: Find a product that does not exist.
steps:
  - go to /products
  - expect text \"A product nobody sells\"
";

/// Every event of a run, as a reporter received them.
fn recorder() -> (
    Arc<Mutex<Vec<RunEvent>>>,
    impl FnMut(&RunEvent) + Send + 'static,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    (seen, move |event: &RunEvent| {
        sink.lock().unwrap().push(event.clone())
    })
}

/// The events about one scenario, by name.
fn of<'a>(events: &'a [RunEvent], id: &str) -> Vec<&'a RunEvent> {
    events.iter().filter(|e| e.scenario() == Some(id)).collect()
}

/// A scenario's events: started, a plan chosen, actions started and finished in pairs in plan
/// order, and finished last.
fn assert_in_order(events: &[&RunEvent], id: &str) {
    let names: Vec<&str> = events.iter().map(|e| e.name()).collect();
    assert_eq!(names.first(), Some(&"scenario_started"), "{id}: {names:?}");
    assert_eq!(names.get(1), Some(&"plan_chosen"), "{id}: {names:?}");
    assert_eq!(names.last(), Some(&"scenario_finished"), "{id}: {names:?}");
    let mut open: Option<(String, usize)> = None;
    let mut last_position = 0;
    for event in events {
        match event {
            RunEvent::ActionStarted { action, .. } => {
                assert!(open.is_none(), "{id}: an action started inside another");
                assert!(
                    action.position > last_position,
                    "{id}: positions go forward"
                );
                last_position = action.position;
                open = Some((action.id.clone(), action.position));
            }
            RunEvent::ActionFinished { action, .. } => {
                let started = open.take().expect("an action finished that did not start");
                assert_eq!(started, (action.id.clone(), action.position), "{id}");
            }
            _ => {}
        }
    }
    assert!(open.is_none(), "{id}: an action never finished");
    assert!(last_position > 0, "{id}: no action ran: {names:?}");
}

#[tokio::test]
async fn a_reporter_receives_a_passing_and_a_failing_scenario_in_order() {
    let project = Project::with(&["login"]);
    project.write("broken", BROKEN);
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let mut settings = project.settings(false);
    settings.workers = 1;
    let selection = Selection::load(&settings, None, false).unwrap();
    let (seen, reporter) = recorder();
    let finished = Suite::new(settings, shop.url().parse().unwrap())
        .reporter(reporter)
        .run(selection)
        .await
        .unwrap();
    assert_eq!((finished.totals.passed, finished.totals.failed), (1, 1));

    let events = seen.lock().unwrap().clone();
    assert!(
        matches!(
            events.first(),
            Some(RunEvent::SuiteStarted {
                scenarios: 2,
                workers: 1,
                ..
            })
        ),
        "{:?}",
        events.first()
    );
    let last_finished = events
        .iter()
        .rposition(|e| matches!(e, RunEvent::ScenarioFinished { .. }))
        .unwrap();
    let suite_finished = events
        .iter()
        .position(|e| matches!(e, RunEvent::SuiteFinished { .. }))
        .unwrap();
    assert!(suite_finished > last_finished);
    assert!(matches!(
        events[suite_finished],
        RunEvent::SuiteFinished { totals } if totals.passed == 1 && totals.failed == 1
    ));

    // One worker: the scenarios run one after the other, in file order.
    let broken = of(&events, "broken");
    let login = of(&events, "login");
    assert_in_order(&broken, "broken");
    assert_in_order(&login, "login");
    let index = |wanted: &RunEvent| events.iter().position(|e| std::ptr::eq(e, wanted)).unwrap();
    assert!(index(broken.last().unwrap()) < index(login[0]));

    for events in [&broken, &login] {
        assert!(matches!(
            events[1],
            RunEvent::PlanChosen {
                choice: PlanChoice::Planning { replan: false, .. },
                ..
            }
        ));
        assert!(
            events
                .iter()
                .any(|e| matches!(e, RunEvent::PageVisited { page, .. } if page.path == "/" || page.path == "/products")),
            "pages are visited"
        );
    }
    let RunEvent::ScenarioFinished { result, .. } = broken.last().unwrap() else {
        unreachable!()
    };
    let failure = result.failure().expect("the broken scenario failed");
    assert_eq!(failure.class(), FailureClass::Step);
    assert!(
        failure.to_string().contains("A product nobody sells"),
        "{failure}"
    );
    assert!(
        broken
            .iter()
            .any(|e| matches!(e, RunEvent::ActionFinished { passed: false, .. })),
        "the failing action says it failed"
    );
    let RunEvent::ScenarioFinished { result, .. } = login.last().unwrap() else {
        unreachable!()
    };
    assert!(result.passed());

    // Each event is one JSON object, tagged by its name, as a store keeps it.
    for event in &events {
        let json: serde_json::Value = serde_json::from_str(&event.to_json()).unwrap();
        assert_eq!(json["event"], event.name(), "{json}");
    }
    let finished_json: serde_json::Value =
        serde_json::from_str(&broken.last().unwrap().to_json()).unwrap();
    assert_eq!(finished_json["result"]["failure_class"], "step");
    assert_eq!(finished_json["scenario"]["id"], "broken");
}

/// `cargo run --example NAME -- ARGS`, from the repository.
fn example(name: &str, args: &[&str]) -> std::process::Output {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["run", "--offline", "-q", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .args(["--example", name, "--"])
        .args(args)
        .env_remove("CI")
        .output()
        .expect("cargo runs")
}

#[test]
fn the_embedding_examples_run() {
    let project = Project::with(&["login"]);
    let root = project.root().to_str().unwrap();
    let embedded = example("embed_suite", &[root, "login"]);
    let out = text(&embedded);
    assert_eq!(embedded.status.code(), Some(0), "{out}");
    for line in [
        "suite: 1 to run",
        "start login",
        "pass login",
        "done: 1 passed, 0 failed",
    ] {
        assert!(out.lines().any(|l| l == line), "no {line:?} in:\n{out}");
    }
    assert!(out.contains("  login: s1 click"), "{out}");

    let replayed = example("replay_plan", &[]);
    let out = text(&replayed);
    assert_eq!(replayed.status.code(), Some(0), "{out}");
    assert!(out.contains("PASS login (4 actions,"), "{out}");
}

#[tokio::test]
async fn a_read_only_run_that_needs_planning_exits_4() {
    let project = Project::with(&["login"]);
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let output = run_in(
        project.root(),
        &["run", "--base-url", shop.url()],
        &[("CI", "true")],
    );
    let out = text(&output);
    assert_eq!(output.status.code(), Some(4), "{out}");
    assert!(
        out.contains("needs planning (it has no plan yet), and this run is read-only"),
        "{out}"
    );
    assert!(out.contains("0 passed, 1 failed"), "{out}");
}
