use serde_json::Value;

use super::*;
use crate::engine::ledger::{CacheOutcome, Replan};
use crate::model::plan::Rules;

fn trial(passed: bool, cache: CacheOutcome, ms: u64, calls: usize, usd: Option<f64>) -> Trial {
    Trial {
        passed,
        cache,
        duration_ms: ms,
        llm_calls: calls,
        cost_usd: usd,
        failure: (!passed).then(|| "model answer: invalid_json".to_owned()),
    }
}

fn model() -> BenchPlanner {
    BenchPlanner::Model {
        provider: "openai".to_owned(),
        model: "gpt-5-mini".to_owned(),
    }
}

/// Five generations of about five seconds, ten replays of under one, a mended broken plan.
fn all_met() -> BenchReport {
    let generations = [5200, 4900, 5400, 5100, 5000]
        .map(|ms| trial(true, CacheOutcome::Miss, ms, 1, Some(0.0021)))
        .to_vec();
    let replays = [800, 820, 790, 810, 805, 795, 900, 780, 815, 800]
        .map(|ms| trial(true, CacheOutcome::Hit, ms, 0, Some(0.0)))
        .to_vec();
    let recovery = Recovery {
        action: "a6".to_owned(),
        position: 6,
        of: 10,
        failed_at: Some(6),
        replan: Some(Replan::Full),
        trial: trial(true, CacheOutcome::Replanned, 11_300, 1, Some(0.0021)),
    };
    BenchReport::new(
        "checkout-as-demo-user",
        "http://127.0.0.1:4000/",
        model(),
        generations,
        replays,
        Some(recovery),
        Some(Floor {
            runs_ms: vec![620, 600, 640, 610, 605, 615, 700, 600, 612, 608],
            failure: None,
        }),
    )
}

#[test]
fn a_bench_that_holds_meets_all_five_criteria() {
    let report = all_met();
    assert!(report.met);
    assert_eq!(report.unmet(), Vec::<&str>::new());
    assert_eq!(report.median_generation_ms, Some(5100.0));
    assert_eq!(report.median_replay_ms, Some(802.5));
    assert_eq!(report.median_floor_ms, Some(611.0));
    insta::assert_snapshot!("all_met_table", report.to_string());
}

#[test]
fn the_json_has_the_five_criteria_and_every_figure() {
    let json: Value = serde_json::from_str(&all_met().to_json()).unwrap();
    let names: Vec<&str> = json["criteria"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["generations", "replays", "speed", "cost", "recovery"]
    );
    assert_eq!(json["met"], true);
    assert_eq!(json["planner"]["kind"], "model");
    assert_eq!(json["generations"].as_array().unwrap().len(), 5);
    assert_eq!(json["replays"][0]["llm_calls"], 0);
    assert_eq!(json["recovery"]["replan"]["kind"], "full");
    insta::assert_snapshot!("all_met_json", all_met().to_json());
}

#[test]
fn each_criterion_fails_on_its_own_figures() {
    let mut report = all_met();
    // Two bad answers of five: only the generations fall short.
    for generation in &mut report.generations[..2] {
        *generation = trial(false, CacheOutcome::Miss, 5000, 1, Some(0.0021));
    }
    let judged = rejudge(&report);
    assert_eq!(judged.unmet(), ["generations"]);
    assert!(
        judged.criteria[0]
            .measured
            .starts_with("3 of 5 valid and passed (4 needed); failed: model answer: invalid_json"),
        "{}",
        judged.criteria[0].measured
    );

    // A replay that called a model fails the replays, and costs what it cost.
    let mut report = all_met();
    report.replays[3] = trial(true, CacheOutcome::Replanned, 800, 1, Some(0.002));
    assert_eq!(rejudge(&report).unmet(), ["replays", "cost"]);

    // An unpriced call makes the replays' cost unknown: `?`, not $0.
    report.replays[3].cost_usd = None;
    let judged = rejudge(&report);
    assert!(
        judged.criteria[3]
            .measured
            .starts_with("replays ? (1 model call)")
    );

    // Replays that take more than twice what the browser needs for the same flow: slow,
    // however much faster than generating they are.
    let report = replays_of(all_met(), 1300);
    let judged = rejudge(&report);
    assert_eq!(judged.unmet(), ["speed"]);
    assert_eq!(
        judged.criteria[2].measured,
        "median replay 1.30 s, the browser's floor for the same flow 0.61 s: 2.13× (at most 2×); \
         3.9× faster than generating"
    );
    // The same replays on a machine twice as slow, floor and all: as fast as they can be.
    let mut slow = report.clone();
    if let Some(floor) = &mut slow.floor {
        floor.runs_ms.iter_mut().for_each(|ms| *ms *= 2);
    }
    assert!(rejudge(&slow).met);

    // A flow WebDriver alone cannot carry out has no floor: generating is the yardstick then.
    let mut report = replays_of(all_met(), 1300);
    report.floor = Some(Floor {
        runs_ms: Vec::new(),
        failure: Some("action a2: todo-app >>> li is in a frame or a shadow root".to_owned()),
    });
    let judged = rejudge(&report);
    assert_eq!(judged.unmet(), ["speed"]);
    assert_eq!(
        judged.criteria[2].measured,
        "no floor (action a2: todo-app >>> li is in a frame or a shadow root); median replay \
         1.30 s, median generation 5.10 s: 3.9× faster (5× needed)"
    );

    // A provider that cannot re-plan.
    let mut report = all_met();
    if let Some(recovery) = &mut report.recovery {
        recovery.trial = trial(false, CacheOutcome::Replanned, 6000, 1, Some(0.0021));
    }
    let judged = rejudge(&report);
    assert_eq!(judged.unmet(), ["recovery"]);
    insta::assert_snapshot!("recovery_unmet_table", judged.to_string());
}

#[test]
fn with_no_plan_that_passed_there_is_nothing_to_replay_or_break() {
    let generations = (0..5)
        .map(|_| trial(false, CacheOutcome::Miss, 300, 1, None))
        .collect();
    let report = BenchReport::new(
        "mugs",
        "http://127.0.0.1:4000/",
        BenchPlanner::Offline,
        generations,
        Vec::new(),
        None,
        None,
    );
    assert_eq!(
        report.unmet(),
        ["generations", "replays", "speed", "cost", "recovery"]
    );
    assert_eq!(
        report.criteria[4].measured,
        "no generation passed: no plan to break"
    );
}

#[test]
fn the_middle_action_with_a_target_is_broken() {
    let plan = crate::model::plan::Plan::from_json_str(
        &serde_json::json!({
            "plan_version": "0.1", "scenario_id": "s", "task": "t", "start_url": "/",
            "generated_by": { "planner": "hand", "at": "2026-11-30T00:00:00Z" },
            "actions": [
                { "id": "a1", "type": "goto", "url": "/cart" },
                { "id": "a2", "type": "click", "target": { "selector": "#one", "identity": { "tag": "button" } } },
                { "id": "a3", "type": "click", "target": { "selector": "#two", "identity": { "tag": "button" } } },
                { "id": "a4", "type": "click", "target": { "selector": "#three", "identity": { "tag": "button" } },
                  "expect": [{ "kind": "url_matches", "pattern": "/done" }] }
            ]
        })
        .to_string(),
        &Rules::default(),
    )
    .unwrap();
    let (position, broken) = break_one_selector(&plan).unwrap();
    assert_eq!(position, 3, "of #one, #two, #three: #two, the third action");
    let selectors: Vec<&str> = broken
        .actions
        .iter()
        .filter_map(|a| a.target.as_ref().map(|t| t.selector.as_str()))
        .collect();
    assert_eq!(selectors, ["#one", BROKEN_SELECTOR, "#three"]);
    assert_eq!(
        break_one_selector(&plan),
        break_one_selector(&plan),
        "the same plan breaks the same way"
    );
}

/// The report with every replay taking `ms`.
fn replays_of(mut report: BenchReport, ms: u64) -> BenchReport {
    for replay in &mut report.replays {
        replay.duration_ms = ms;
    }
    report
}

/// The report judged again from its figures.
fn rejudge(report: &BenchReport) -> BenchReport {
    BenchReport::new(
        &report.scenario,
        &report.base_url,
        report.planner.clone(),
        report.generations.clone(),
        report.replays.clone(),
        report.recovery.clone(),
        report.floor.clone(),
    )
}
