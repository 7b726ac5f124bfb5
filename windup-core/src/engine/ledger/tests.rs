use std::collections::BTreeSet;

use time::macros::{date, datetime};

use super::*;

fn call(provider: &str, model: &str, input_tokens: u64, output_tokens: u64) -> LlmCall {
    LlmCall {
        purpose: "plan".to_owned(),
        provider: provider.to_owned(),
        model: model.to_owned(),
        input_tokens,
        output_tokens,
        latency_ms: 900,
        retry: None,
        failure: None,
    }
}

fn run(scenario: &str, started: &str, cache: CacheOutcome, calls: Vec<LlmCall>) -> RunRecord {
    RunRecord {
        run_id: format!("{scenario}-{started}"),
        scenario_id: scenario.to_owned(),
        started_at: started.to_owned(),
        duration_ms: 1200,
        outcome: Outcome::Passed,
        failure_class: None,
        cache,
        replan: (cache == CacheOutcome::Replanned).then_some(Replan::Full),
        llm_calls: calls,
        pages: Vec::new(),
        kind: Default::default(),
    }
}

/// Prices of made-up models, so the tests do not move when the built-in table does.
fn test_prices() -> PriceTable {
    PriceTable::from_toml_str(
        r#"
        [[prices]]
        provider = "openai"
        model = "mini"
        effective_from = 2025-01-01
        input = 1.0
        output = 4.0

        [[prices]]
        provider = "openai"
        model = "mini"
        effective_from = "2025-03-01"
        input = 0.5
        output = 2.0

        [[prices]]
        provider = "anthropic"
        model = "big"
        effective_from = 2024-06-01
        input = 3
        output = 15
        "#,
    )
    .expect("valid prices")
}

/// A fixed history: three scenarios over three days, hits, misses, a re-plan, an unpriced model.
fn history() -> Vec<RunRecord> {
    vec![
        run(
            "checkout",
            "2025-02-27T09:00:00Z",
            CacheOutcome::Miss,
            vec![call("openai", "mini", 10_000, 1_000)],
        ),
        run(
            "checkout",
            "2025-02-28T09:00:00Z",
            CacheOutcome::Hit,
            vec![],
        ),
        run(
            "login",
            "2025-02-28T23:30:00-02:00", // 2025-03-01 in UTC: the new price applies
            CacheOutcome::Miss,
            vec![call("openai", "mini", 10_000, 1_000)],
        ),
        run(
            "checkout",
            "2025-03-01T10:00:00Z",
            CacheOutcome::Replanned,
            vec![
                call("openai", "mini", 20_000, 2_000),
                call("anthropic", "big", 5_000, 500),
            ],
        ),
        run(
            "search",
            "2025-03-02T08:00:00Z",
            CacheOutcome::Miss,
            vec![call("openai-compatible", "llama3.1:8b", 8_000, 700)],
        ),
        run("login", "2025-03-02T08:05:00Z", CacheOutcome::Hit, vec![]),
    ]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn records_round_trip_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    assert_eq!(ledger.path(), dir.path().join(".windup/ledger.jsonl"));
    assert_eq!(ledger.read().unwrap(), LedgerRead::default(), "no file yet");

    let mut failed = run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Replanned,
        vec![call("openai", "mini", 1, 2), call("anthropic", "big", 3, 4)],
    );
    failed.outcome = Outcome::Failed;
    failed.failure_class = Some("not_actionable".to_owned());
    failed.replan = Some(Replan::FromStep { index: 3 });
    let records = [
        run(
            "checkout",
            "2025-02-28T09:00:00Z",
            CacheOutcome::Hit,
            vec![],
        ),
        failed,
        run(
            "login",
            "2025-03-02T08:00:00.123456789Z",
            CacheOutcome::Miss,
            vec![call("gemini", "gemini-2.5-flash", 5, 6)],
        ),
    ];
    for record in &records {
        ledger.append(record).unwrap();
    }
    let read = ledger.read().unwrap();
    assert_eq!(read.records, records);
    assert_eq!(read.skipped_lines, 0);
    let text = std::fs::read_to_string(ledger.path()).unwrap();
    assert_eq!(text.lines().count(), 3, "one line per record: {text}");
}

#[test]
fn a_record_line_has_the_documented_shape() {
    let mut record = run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Replanned,
        vec![call("openai", "mini", 1200, 340)],
    );
    record.run_id = "1740823200000000000-4242-0".to_owned();
    record.outcome = Outcome::Failed;
    record.failure_class = Some("unmet".to_owned());
    record.replan = Some(Replan::FromStep { index: 2 });
    record.pages = vec![crate::engine::signature::PageVisit {
        path: "/cart".to_owned(),
        sig: "9c1d".repeat(16),
    }];
    let line = serde_json::to_string(&record).unwrap();
    insta::assert_snapshot!("record_line", line);
    let hit = run("login", "2025-03-01T10:00:00Z", CacheOutcome::Hit, vec![]);
    insta::assert_snapshot!("hit_record_line", serde_json::to_string(&hit).unwrap());
}

#[test]
fn corrupt_and_truncated_lines_are_skipped_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let good = run(
        "checkout",
        "2025-02-28T09:00:00Z",
        CacheOutcome::Hit,
        vec![],
    );
    ledger.append(&good).unwrap();
    let whole = serde_json::to_string(&good).unwrap();
    let undated = whole.replace("2025-02-28T09:00:00Z", "yesterday");
    let mut text = std::fs::read_to_string(ledger.path()).unwrap();
    text.push_str("not json at all\n");
    text.push('\n'); // blank lines are not records, and not damage either
    text.push_str("{\"run_id\": 7}\n");
    text.push_str(&undated);
    text.push('\n');
    text.push_str(&whole[..whole.len() / 2]); // a writer killed mid-line
    std::fs::write(ledger.path(), text).unwrap();

    let read = ledger.read().unwrap();
    assert_eq!(read.records, vec![good.clone()]);
    assert_eq!(read.skipped_lines, 4);

    // The next append starts on a fresh line: only the cut record is lost.
    let next = run("login", "2025-03-01T09:00:00Z", CacheOutcome::Miss, vec![]);
    ledger.append(&next).unwrap();
    let read = ledger.read().unwrap();
    assert_eq!(read.records, vec![good, next]);
    assert_eq!(read.skipped_lines, 4);
}

#[test]
fn invalid_bytes_are_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    std::fs::create_dir_all(dir.path().join(".windup")).unwrap();
    std::fs::write(ledger.path(), b"\xff\xfe\x00garbage\n\x00\x00\x00").unwrap();
    let read = ledger.read().unwrap();
    assert!(read.records.is_empty());
    assert_eq!(read.skipped_lines, 2);
}

#[test]
fn free_text_never_enters_a_record() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    let mut record = run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Miss,
        vec![],
    );
    record.outcome = Outcome::Failed;
    record.failure_class = Some("login failed for demo@example.com with hunter2".to_owned());
    let err = ledger
        .append(&record)
        .expect_err("a message is not a class");
    insta::assert_snapshot!("free_text_failure_class", err.to_string());
    assert!(!ledger.path().exists(), "nothing written");

    let mut record = run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Miss,
        vec![],
    );
    record.llm_calls = vec![call("openai", "mini", 1, 1)];
    record.llm_calls[0].purpose = "Plan: click the button".to_owned();
    assert!(ledger.append(&record).is_err(), "purpose is a class name");

    let record = run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Hit,
        vec![],
    );
    let mut passed_with_class = record.clone();
    passed_with_class.failure_class = Some("unmet".to_owned());
    assert!(ledger.append(&passed_with_class).is_err());
    let mut hit_with_replan = record.clone();
    hit_with_replan.replan = Some(Replan::Full);
    assert!(ledger.append(&hit_with_replan).is_err());
    let mut undated = record;
    undated.started_at = "today".to_owned();
    assert!(ledger.append(&undated).is_err());
    assert!(!ledger.path().exists(), "nothing written");
}

#[test]
fn threads_appending_at_once_never_interleave() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = Ledger::new(dir.path());
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let ledger = &ledger;
            scope.spawn(move || {
                for i in 0..50 {
                    let calls = (0..i % 40)
                        .map(|_| call("openai", "mini", 1000, 100))
                        .collect();
                    let mut record = run(
                        &format!("thread-{thread}"),
                        "2025-03-01T10:00:00Z",
                        CacheOutcome::Miss,
                        calls,
                    );
                    record.run_id = new_run_id();
                    ledger.append(&record).unwrap();
                }
            });
        }
    });
    let read = ledger.read().unwrap();
    assert_eq!(read.records.len(), 200);
    assert_eq!(read.skipped_lines, 0);
    let ids: BTreeSet<&str> = read.records.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(ids.len(), 200, "run ids are unique");
}

#[test]
fn started_at_is_rfc3339_utc_and_gives_the_utc_date() {
    let text = started_at(datetime!(2025-02-28 23:30:00 -2));
    assert_eq!(text, "2025-03-01T01:30:00Z");
    let record = run("x", &text, CacheOutcome::Hit, vec![]);
    assert_eq!(record.started_on(), Some(date!(2025 - 03 - 01)));
}

#[test]
fn a_price_applies_from_its_date_on() {
    let prices = test_prices();
    let mini = |on| prices.price_for("openai", "mini", on);
    assert_eq!(
        mini(date!(2024 - 12 - 31)),
        None,
        "no price before the first"
    );
    assert_eq!(
        mini(date!(2025 - 01 - 01)),
        Some(Price {
            input: 1.0,
            output: 4.0
        })
    );
    assert_eq!(mini(date!(2025 - 02 - 28)).map(|p| p.input), Some(1.0));
    assert_eq!(mini(date!(2025 - 03 - 01)).map(|p| p.input), Some(0.5));
    assert_eq!(mini(date!(2030 - 01 - 01)).map(|p| p.input), Some(0.5));
    // 1M input at $1 and 1M output at $4, before the change; half that after.
    let big_call = call("openai", "mini", 1_000_000, 1_000_000);
    assert_eq!(prices.cost(&big_call, date!(2025 - 02 - 28)), Some(5.0));
    assert_eq!(prices.cost(&big_call, date!(2025 - 03 - 01)), Some(2.5));
    assert_eq!(
        prices.price_for("OpenAI", "MINI", date!(2025 - 03 - 01)),
        mini(date!(2025 - 03 - 01))
    );
    assert_eq!(
        prices.price_for("gemini", "mini", date!(2025 - 03 - 01)),
        None
    );
}

#[test]
fn a_price_change_reprices_only_the_runs_after_it() {
    let records = history();
    let report = costs(&records, &test_prices(), None, GroupBy::Day);
    let usd: Vec<(&str, f64)> = report
        .rows
        .iter()
        .map(|r| (r.group.as_str(), r.usd))
        .collect();
    // 02-27: 10k in + 1k out at $1/$4. 03-01: login (UTC date) and checkout at $0.5/$2, plus big.
    let before = (10_000.0 * 1.0 + 1_000.0 * 4.0) / 1e6;
    let after = (30_000.0 * 0.5 + 3_000.0 * 2.0 + 5_000.0 * 3.0 + 500.0 * 15.0) / 1e6;
    assert_eq!(usd.len(), 4);
    assert_eq!(usd[0].0, "2025-02-27");
    assert!(close(usd[0].1, before), "{usd:?}");
    assert_eq!((usd[1].0, usd[1].1), ("2025-02-28", 0.0));
    assert_eq!(usd[2].0, "2025-03-01");
    assert!(close(usd[2].1, after), "{usd:?}");
    assert_eq!((usd[3].0, usd[3].1), ("2025-03-02", 0.0));
    assert_eq!(report.rows[3].unpriced_calls, 1);
    assert!(close(report.total.usd, before + after));

    // Correcting a price later corrects every report: nothing was stored.
    let corrected = test_prices().with_overrides(
        PriceTable::from_toml_str(
            "[[prices]]\nprovider = \"openai\"\nmodel = \"mini\"\neffective_from = 2025-01-01\ninput = 2\noutput = 8\n",
        )
        .unwrap(),
    );
    let report = costs(&records, &corrected, None, GroupBy::Day);
    assert!(close(report.rows[0].usd, 2.0 * before));
    let after_corrected = (30_000.0 * 2.0 + 3_000.0 * 8.0 + 5_000.0 * 3.0 + 500.0 * 15.0) / 1e6;
    assert!(
        close(report.rows[2].usd, after_corrected),
        "the override replaced both dates"
    );
}

#[test]
fn costs_group_by_scenario_since_a_date() {
    let report = costs(
        &history(),
        &test_prices(),
        Some(date!(2025 - 02 - 28)),
        GroupBy::Scenario,
    );
    let groups: Vec<(&str, usize, usize, usize, usize, usize)> = report
        .rows
        .iter()
        .map(|r| {
            (
                r.group.as_str(),
                r.runs,
                r.hits,
                r.misses,
                r.replans,
                r.llm_calls,
            )
        })
        .collect();
    assert_eq!(
        groups,
        vec![
            ("checkout", 2, 1, 0, 1, 2),
            ("login", 2, 1, 1, 0, 1),
            ("search", 1, 0, 1, 0, 1),
        ]
    );
    assert_eq!(report.total.runs, 5, "the 02-27 run is before --since");
    assert_eq!(
        (report.total.hits, report.total.misses, report.total.replans),
        (2, 2, 1)
    );
    assert_eq!(report.total.llm_calls, 4);
    assert_eq!(report.total.input_tokens, 10_000 + 20_000 + 5_000 + 8_000);
    assert_eq!(report.total.output_tokens, 1_000 + 2_000 + 500 + 700);
    let checkout = (20_000.0 * 0.5 + 2_000.0 * 2.0 + 5_000.0 * 3.0 + 500.0 * 15.0) / 1e6;
    assert!(close(report.rows[0].usd, checkout));
    let sum: f64 = report.rows.iter().map(|r| r.usd).sum();
    assert!(close(report.total.usd, sum));
}

#[test]
fn costs_group_by_model() {
    let report = costs(&history(), &test_prices(), None, GroupBy::Model);
    let groups: Vec<(&str, usize, usize, usize)> = report
        .rows
        .iter()
        .map(|r| (r.group.as_str(), r.runs, r.llm_calls, r.unpriced_calls))
        .collect();
    assert_eq!(
        groups,
        vec![
            ("(no model calls)", 2, 0, 0),
            ("anthropic/big", 1, 1, 0),
            ("openai-compatible/llama3.1:8b", 1, 1, 1),
            ("openai/mini", 3, 3, 0),
        ]
    );
    assert_eq!(
        report.total.runs, 6,
        "a run with two models is one run in the total"
    );
    let big = (5_000.0 * 3.0 + 500.0 * 15.0) / 1e6;
    assert!(close(report.rows[1].usd, big));
}

#[test]
fn unpriced_calls_are_counted_and_named_never_free() {
    let report = costs(&history(), &test_prices(), None, GroupBy::Scenario);
    assert_eq!(report.total.unpriced_calls, 1);
    assert_eq!(report.unpriced_models, ["openai-compatible/llama3.1:8b"]);
    let search = report.rows.iter().find(|r| r.group == "search").unwrap();
    assert_eq!((search.llm_calls, search.unpriced_calls), (1, 1));
    let text = report.to_string();
    assert!(
        text.contains(
            "Not in USD (marked + or ?): 1 model call with no known price \
             (openai-compatible/llama3.1:8b); add its price to windup-prices.toml."
        ),
        "{text}"
    );

    // Once priced (a local model is free), the note goes away.
    let free = test_prices().with_overrides(
        PriceTable::from_toml_str(
            "[[prices]]\nprovider = \"openai-compatible\"\nmodel = \"llama3.1:8b\"\neffective_from = 2024-01-01\ninput = 0\noutput = 0\n",
        )
        .unwrap(),
    );
    let report = costs(&history(), &free, None, GroupBy::Scenario);
    assert_eq!(report.total.unpriced_calls, 0);
    assert!(!report.to_string().contains("no known price"));
}

#[test]
fn undated_records_are_left_out_and_said() {
    let mut records = history();
    records[0].started_at = "last tuesday".to_owned();
    let report = costs(&records, &test_prices(), None, GroupBy::Scenario);
    assert_eq!(report.undated_runs, 1);
    assert_eq!(report.total.runs, 5);
    assert!(
        report
            .to_string()
            .contains("Left out: 1 run with no valid start time.")
    );
}

#[test]
fn the_cost_table_reads_well() {
    let prices = test_prices();
    let by_scenario = costs(&history(), &prices, None, GroupBy::Scenario);
    insta::assert_snapshot!("costs_by_scenario", by_scenario.to_string());
    let by_model = costs(&history(), &prices, None, GroupBy::Model);
    insta::assert_snapshot!("costs_by_model", by_model.to_string());
    let by_day = costs(
        &history(),
        &prices,
        Some(date!(2025 - 03 - 01)),
        GroupBy::Day,
    );
    insta::assert_snapshot!("costs_by_day_since", by_day.to_string());
    let none = costs(
        &history(),
        &prices,
        Some(date!(2026 - 01 - 01)),
        GroupBy::Day,
    );
    assert_eq!(none.to_string(), "No runs recorded since 2026-01-01.\n");
}

#[test]
fn tiny_costs_never_read_as_zero() {
    let records = [run(
        "checkout",
        "2025-03-01T10:00:00Z",
        CacheOutcome::Miss,
        vec![call("openai", "mini", 10, 1)],
    )];
    let report = costs(&records, &test_prices(), None, GroupBy::Scenario);
    assert!(report.total.usd > 0.0);
    assert!(report.to_string().contains("<0.0001"), "{report}");
}

#[test]
fn group_by_parses_the_cli_words() {
    assert_eq!("scenario".parse(), Ok(GroupBy::Scenario));
    assert_eq!("model".parse(), Ok(GroupBy::Model));
    assert_eq!("day".parse(), Ok(GroupBy::Day));
    assert_eq!(
        "week".parse::<GroupBy>(),
        Err("cannot group costs by `week`: use scenario, model or day".to_owned())
    );
}

#[test]
fn the_builtin_table_prices_each_provider() {
    let prices = PriceTable::builtin();
    assert!(prices.entries().len() >= 9);
    let today = date!(2025 - 11 - 01);
    for (provider, model) in [
        ("openai", "gpt-4o-mini"),
        ("openai", "gpt-5-mini"),
        ("gemini", "gemini-2.5-flash"),
        ("anthropic", "claude-sonnet-4-5"),
    ] {
        let price = prices.price_for(provider, model, today);
        assert!(
            price.is_some_and(|p| p.input > 0.0 && p.output > p.input),
            "{provider}/{model}"
        );
    }
    // A dated snapshot name is priced as its model.
    assert_eq!(
        prices.price_for("anthropic", "claude-sonnet-4-5-20250929", today),
        prices.price_for("anthropic", "claude-sonnet-4-5", today)
    );
    assert_eq!(
        prices.price_for("openai", "gpt-4o-mini-2024-07-18", today),
        prices.price_for("openai", "gpt-4o-mini", today)
    );
    assert_eq!(
        prices.price_for("openai", "gpt-4o-mini-preview", today),
        None
    );
    assert_eq!(
        prices.price_for("openai-compatible", "llama3.1:8b", today),
        None
    );
}

#[test]
fn project_prices_replace_a_model_and_add_others() {
    let dir = tempfile::tempdir().unwrap();
    let builtin = PriceTable::for_project(dir.path()).unwrap();
    assert_eq!(
        builtin,
        PriceTable::builtin(),
        "no file: the built-in prices"
    );
    std::fs::write(
        dir.path().join(PRICES_FILE),
        r#"
[[prices]]
provider = "openai"
model = "gpt-4o-mini"
effective_from = 2020-01-01
input = 9
output = 9

[[prices]]
provider = "openai-compatible"
model = "qwen2.5"
effective_from = 2024-01-01
input = 0
output = 0
"#,
    )
    .unwrap();
    let prices = PriceTable::for_project(dir.path()).unwrap();
    let on = date!(2025 - 11 - 01);
    assert_eq!(
        prices
            .price_for("openai", "gpt-4o-mini", on)
            .map(|p| p.input),
        Some(9.0)
    );
    assert_eq!(
        prices
            .price_for("openai-compatible", "qwen2.5", on)
            .map(|p| p.input),
        Some(0.0)
    );
    assert_eq!(
        prices.price_for("anthropic", "claude-haiku-4-5", on),
        builtin.price_for("anthropic", "claude-haiku-4-5", on),
        "other models keep their built-in prices"
    );
}

#[test]
fn bad_price_tables_say_where_and_what() {
    let unknown_key = PriceTable::from_toml_str(
        "[[prices]]\nprovider = \"openai\"\nmodel = \"m\"\neffective_from = 2025-01-01\ninput = 1\noutput = 1\ncurrency = \"EUR\"\n",
    )
    .unwrap_err();
    insta::assert_snapshot!("prices_unknown_key", unknown_key.to_string());

    let negative = PriceTable::from_toml_str(
        "[[prices]]\nprovider = \"openai\"\nmodel = \"m\"\neffective_from = 2025-01-01\ninput = 1\noutput = 1\n\n[[prices]]\nprovider = \"openai\"\nmodel = \"n\"\neffective_from = 2025-01-01\ninput = -1\noutput = 1\n",
    )
    .unwrap_err();
    insta::assert_snapshot!("prices_negative", negative.to_string());

    let duplicate = PriceTable::from_toml_str(
        "[[prices]]\nprovider = \"openai\"\nmodel = \"m\"\neffective_from = 2025-01-01\ninput = 1\noutput = 1\n\n[[prices]]\nprovider = \"OpenAI\"\nmodel = \"m\"\neffective_from = \"2025-01-01\"\ninput = 2\noutput = 2\n",
    )
    .unwrap_err();
    insta::assert_snapshot!("prices_duplicate", duplicate.to_string());

    let bad_date = PriceTable::from_toml_str(
        "[[prices]]\nprovider = \"openai\"\nmodel = \"m\"\neffective_from = \"March\"\ninput = 1\noutput = 1\n",
    )
    .unwrap_err();
    insta::assert_snapshot!("prices_bad_date", bad_date.to_string());

    let missing = PriceTable::from_toml_str("[[prices]]\nprovider = \"openai\"\nmodel = \"m\"\n")
        .unwrap_err();
    insta::assert_snapshot!("prices_missing_field", missing.to_string());

    assert_eq!(
        PriceTable::from_toml_str("").unwrap(),
        PriceTable::default()
    );
}

#[test]
fn run_ids_are_unique_and_carry_the_process() {
    let ids: BTreeSet<String> = (0..1000).map(|_| new_run_id()).collect();
    assert_eq!(ids.len(), 1000);
    let id = new_run_id();
    let parts: Vec<&str> = id.split('-').collect();
    assert_eq!(parts.len(), 3, "{id}");
    assert_eq!(parts[1], std::process::id().to_string());
}

#[test]
fn summary_records_cost_but_are_not_runs() {
    let mut records = history();
    let before = costs(&records, &test_prices(), None, GroupBy::Model);
    let mut summary = run(
        "(suite)",
        "2025-03-02T10:00:00Z",
        CacheOutcome::Hit,
        vec![call("openai", "mini", 1000, 100)],
    );
    summary.kind = super::RecordKind::Summary;
    records.push(summary);
    let after = costs(&records, &test_prices(), None, GroupBy::Model);
    assert_eq!(after.total.runs, before.total.runs);
    assert_eq!(after.total.hits, before.total.hits);
    assert_eq!(after.total.llm_calls, before.total.llm_calls + 1);
    assert!(after.total.usd > before.total.usd);
    let line = serde_json::to_string(&records[records.len() - 1]).unwrap();
    assert!(line.ends_with(",\"kind\":\"summary\"}"), "{line}");
    assert!(!serde_json::to_string(&records[0]).unwrap().contains("kind"));
}

#[test]
fn an_audit_s_calls_cost_beside_the_runs_under_the_audit_s_name() {
    let mut records = history();
    let before = costs(&records, &test_prices(), None, GroupBy::Scenario);
    let mut audit = run(
        "audit #A-1001",
        "2025-03-02T10:00:00Z",
        CacheOutcome::Miss,
        vec![
            call("openai", "mini", 1000, 100),
            call("openai", "mini", 2000, 200),
        ],
    );
    audit.kind = super::RecordKind::Audit;
    records.push(audit);
    let after = costs(&records, &test_prices(), None, GroupBy::Scenario);
    assert_eq!(
        after.total.runs, before.total.runs,
        "an audit is not a scenario run"
    );
    assert_eq!(after.total.llm_calls, before.total.llm_calls + 2);
    let row = after
        .rows
        .iter()
        .find(|r| r.group == "audit #A-1001")
        .expect("the audit has its row");
    assert_eq!(row.llm_calls, 2);
    assert!(row.usd > 0.0);
    let line = serde_json::to_string(&records[records.len() - 1]).unwrap();
    assert!(line.ends_with(",\"kind\":\"audit\"}"), "{line}");
}
