use std::path::Path;

use super::*;

fn page(url: &str, found: &[(&str, Field, &[&str])]) -> Observation {
    Observation {
        url: url.to_owned(),
        found: found
            .iter()
            .map(|(selector, field, texts)| Found {
                probe: Probe {
                    selector: (*selector).to_owned(),
                    field: *field,
                },
                texts: texts.iter().map(|t| (*t).into()).collect(),
            })
            .collect(),
        ..Observation::default()
    }
}

fn check(source: &str, now: &Observation) -> Verdict {
    Predicate::parse(source)
        .expect("the predicate parses")
        .check(now, None, None)
}

#[test]
fn a_state_predicate_reads_counts_numbers_and_money() {
    let cart = page(
        "http://shop.test/cart",
        &[
            (".total", Field::Text, &["Total: $45.00"]),
            (".line-total", Field::Text, &["$15.00", "$30.00"]),
            (".qty", Field::Value, &["1", "2"]),
        ],
    );
    assert_eq!(
        check(r#"money(".total") == sum(moneys(".line-total"))"#, &cart),
        Verdict::Holds
    );
    assert_eq!(
        check(r#"inputs(".qty").all(q, int(q) >= 1)"#, &cart),
        Verdict::Holds
    );
    let wrong = page(
        "http://shop.test/cart",
        &[
            (".total", Field::Text, &["Total: $30.00"]),
            (".line-total", Field::Text, &["$15.00", "$30.00"]),
        ],
    );
    match check(r#"money(".total") == sum(moneys(".line-total"))"#, &wrong) {
        Verdict::Violated { seen } => assert_eq!(
            seen,
            [
                r#"money(".total") = 3000"#,
                r#"moneys(".line-total") = [1500, 3000]"#
            ]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rules_for_a_list_app_we_did_not_write() {
    let todo = page(
        "http://todo.test/#/active",
        &[
            (".todo-count strong", Field::Text, &["2"]),
            (
                ".todo-list li:not(.completed)",
                Field::Text,
                &["Buy milk", "Walk"],
            ),
            (".todo-list li.completed", Field::Text, &[]),
            (".new-todo", Field::Value, &[""]),
            (".todo-list li", Field::Text, &["Buy milk", "Walk"]),
        ],
    );
    // The counter shows the number of unchecked items.
    assert_eq!(
        check(
            r#"number(".todo-count strong") == count(".todo-list li:not(.completed)")"#,
            &todo
        ),
        Verdict::Holds
    );
    // A filter shows exactly the items in that state.
    assert_eq!(
        check(
            r##"hash != "#/active" || count(".todo-list li.completed") == 0"##,
            &todo
        ),
        Verdict::Holds
    );
    // Adding an item grows the list by one and clears the input.
    let before = page(
        "http://todo.test/#/active",
        &[
            (".todo-list li", Field::Text, &["Buy milk"]),
            (".new-todo", Field::Value, &["Walk"]),
        ],
    );
    let grows = Predicate::parse(
        r#"count(".todo-list li") == before.count(".todo-list li") + 1 && input(".new-todo") == """#,
    )
    .expect("parses");
    assert!(grows.is_transition());
    let press = ActionFacts {
        kind: "press".to_owned(),
        key: "Enter".to_owned(),
        ..ActionFacts::default()
    };
    assert_eq!(
        grows.check(&todo, Some(&before), Some(&press)),
        Verdict::Holds
    );
    assert!(matches!(
        grows.check(&before, Some(&before), Some(&press)),
        Verdict::Violated { .. }
    ));
    // Without a before, a transition predicate says nothing.
    assert!(matches!(
        grows.check(&todo, None, None),
        Verdict::NotApplicable { .. }
    ));
}

#[test]
fn the_line_total_is_price_times_quantity() {
    let line = page(
        "http://shop.test/cart",
        &[
            (".price", Field::Text, &["$4.50"]),
            (".qty", Field::Value, &["3"]),
            (".line-total", Field::Text, &["$13.50"]),
        ],
    );
    assert_eq!(
        check(
            r#"money(".price") * int(input(".qty")) == money(".line-total")"#,
            &line
        ),
        Verdict::Holds
    );
}

/// `max` and `min` are CEL's: the parser let predicates name them, and the environment once did
/// not declare them, so every such predicate was "broken" (the Playwright runtime's differential
/// test found it).
#[test]
fn max_and_min_take_arguments_or_a_list() {
    let now = page(
        "http://shop.test/cart",
        &[(".line", Field::Text, &["$40.00", "$4.99"])],
    );
    for source in [
        r#"max(moneys(".line")) == 4000 && min(moneys(".line")) == 499"#,
        "max(1, 3, 2) == 3 && min(2, 1) == 1",
    ] {
        assert_eq!(check(source, &now), Verdict::Holds, "{source}");
    }
}

#[test]
fn a_missing_element_makes_a_scalar_predicate_not_applicable() {
    let empty = page("http://shop.test/", &[(".total", Field::Text, &[])]);
    assert!(matches!(
        check(r#"money(".total") > 0"#, &empty),
        Verdict::NotApplicable { .. }
    ));
    // A count of nothing is zero, not "not applicable".
    assert!(matches!(
        check(r#"count(".total") == 1"#, &empty),
        Verdict::Violated { .. }
    ));
}

#[test]
fn page_events_are_variables() {
    let mut broken = page("http://shop.test/", &[]);
    broken
        .events
        .errors
        .push("TypeError: x is undefined".to_owned());
    broken.events.failed_requests.push(FailedRequest {
        method: "POST".to_owned(),
        url: "http://shop.test/api".to_owned(),
        status: 500,
    });
    assert!(matches!(
        check("size(errors) == 0", &broken),
        Verdict::Violated { .. }
    ));
    assert!(matches!(
        check("failed_requests.all(r, r.status < 500)", &broken),
        Verdict::Violated { .. }
    ));
    assert_eq!(check("size(markers) == 0", &broken), Verdict::Holds);
}

#[test]
fn a_predicate_names_only_what_a_page_has() {
    let cases = [
        ("count(.row) == 1", "takes one CSS selector"),
        ("count('.a') ==", "does not parse"),
        ("count(selector) == 1", "takes one CSS selector"),
        ("count('') == 1", "takes one CSS selector"),
        ("total == 3", "`total` is not something a page has"),
        (
            "before.total == 3",
            "`before.total` is not something a page had",
        ),
        ("x.count('.a') == 1", "only `before.` may come before it"),
        ("length(texts('.a')) == 1", "`length` is not a function"),
    ];
    for (source, wanted) in cases {
        let err = Predicate::parse(source).expect_err(source);
        assert!(err.message.contains(wanted), "{source}: {}", err.message);
        assert!(!err.hint.is_empty(), "{source}");
    }
    for (source, column) in [
        ("count('.a') == total", 16),
        ("total", 1),
        ("1 == 2 && x", 11),
    ] {
        let err = Predicate::parse(source).expect_err("unknown");
        assert_eq!(err.column, column, "{source}");
    }
}

#[test]
fn a_type_error_is_a_broken_invariant_not_a_violation() {
    let page = page("http://shop.test/", &[(".a", Field::Text, &["x"])]);
    assert!(matches!(
        check("text('.a') + 1 == 2", &page),
        Verdict::Broken { .. }
    ));
    assert!(matches!(
        check("count('.a')", &page),
        Verdict::Broken { .. }
    ));
}

#[test]
fn surfaces_match_path_query_and_fragment() {
    let cart = Surface::new("/cart", None).unwrap();
    assert!(cart.covers("http://shop.test/cart", None));
    assert!(cart.covers("http://shop.test/cart?coupon=x", None));
    assert!(!cart.covers("http://shop.test/carts", None));
    let active = Surface::new("/#/active", None).unwrap();
    assert!(active.covers("http://todo.test/#/active", None));
    assert!(!active.covers("http://todo.test/#/completed", None));
    let everywhere = Surface::everywhere();
    assert!(everywhere.covers("http://todo.test/", None));
    let products = Surface::new("/products/*", Some("sig".to_owned())).unwrap();
    assert!(products.covers("http://shop.test/products/mug", Some("sig")));
    assert!(!products.covers("http://shop.test/products/mug", Some("other")));
}

#[test]
fn a_guard_makes_an_invariant_not_applicable() {
    let text = r##"
invariants:
  - id: active-shows-unchecked
    statement: The Active filter shows only unchecked items
    surface: "/**"
    when: hash == "#/active"
    predicate: count(".todo-list li.completed") == 0
    severity: high
"##;
    let invariants = parse(text, Path::new("invariants/todo.yaml")).expect("parses");
    assert_eq!(invariants.len(), 1);
    let rule = &invariants[0];
    assert_eq!(rule.source, Source::User);
    assert_eq!(rule.severity, Severity::High);
    let all = page(
        "http://todo.test/#/",
        &[(".todo-list li.completed", Field::Text, &["done"])],
    );
    assert!(matches!(
        rule.check(&all, None, None, None),
        Verdict::NotApplicable { .. }
    ));
    let active = Observation {
        url: "http://todo.test/#/active".to_owned(),
        ..all
    };
    assert!(matches!(
        rule.check(&active, None, None, None),
        Verdict::Violated { .. }
    ));
}

#[test]
fn file_errors_are_located() {
    let text = "invariants:\n  - id: a\n    statement: A\n    predicate: count('.a') == nope\n";
    let err = parse(text, Path::new("invariants/x.yaml")).expect_err("unknown name");
    assert_eq!((err.line, err.column), (4, 31));
    assert!(
        err.to_string()
            .starts_with("invariants/x.yaml:4:31: predicate: `nope` is not something"),
        "{err}"
    );
    let text = "invariants:\n  - id: a\n    statment: A\n    predicate: 'true'\n";
    let err = parse(text, Path::new("invariants/x.yaml")).expect_err("typo");
    assert_eq!(err.line, 3, "{err}");
    assert!(err.message.contains("statment"), "{err}");
    let text = "invariants:\n  - id: 'a b'\n    statement: A\n    predicate: 'true'\n";
    let err = parse(text, Path::new("x.yaml")).expect_err("bad id");
    assert_eq!(err.line, 2);
}

#[test]
fn an_invariant_round_trips_through_json() {
    let text = "invariants:\n  - id: a\n    statement: A\n    surface: {url: /cart, signature: s1}\n    predicate: count('.a') >= 0\n";
    let invariants = parse(text, Path::new("x.yaml")).expect("parses");
    let json = serde_json::to_string(&invariants).expect("serializes");
    let back: Vec<Invariant> = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, invariants);
}

#[test]
fn a_file_may_name_inputs_a_tester_knows() {
    let text = "inputs:\n  Coupon code: WELCOME10\n  Card: [4242, 4000]\n";
    let (invariants, inputs) = parse_with_inputs(text, Path::new("x.yaml")).expect("parses");
    assert!(invariants.is_empty());
    assert_eq!(
        inputs,
        [
            (
                "Card".to_owned(),
                vec!["4242".to_owned(), "4000".to_owned()]
            ),
            ("Coupon code".to_owned(), vec!["WELCOME10".to_owned()]),
        ]
    );
}

#[test]
fn the_todo_demo_s_invariants_load() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/todo/invariants/todo.yaml");
    let invariants = load(&path).unwrap_or_else(|err| panic!("{err}"));
    assert!(invariants.len() >= 6);
    assert!(invariants.iter().any(Invariant::is_transition));
}

#[test]
fn negation_and_minus_are_operators_of_the_language() {
    let page = page(
        "http://shop.test/",
        &[(".banner", Field::Text, &[]), (".qty", Field::Text, &["2"])],
    );
    assert_eq!(
        check(r#"!visible(".banner") && -number(".qty") == -2"#, &page),
        Verdict::Holds
    );
}

/// Predicates of every shape as deep as [`MAX_NESTING`] allows.
fn nested(shape: &str, n: usize) -> String {
    match shape {
        "brackets" => format!("{}1{} == 1", "(".repeat(n), ")".repeat(n)),
        "lists" => format!("size({}1{}) == 1", "[".repeat(n), "]".repeat(n)),
        "maps" => format!("size({}1{}) == 1", "{1: ".repeat(n), "}".repeat(n)),
        "calls" => format!("{}1{} == 1", "int(".repeat(n), ")".repeat(n)),
        "sums" => format!("1{} == 1", " + 1".repeat(n)),
        "ands" => format!("true{}", " && true".repeat(n)),
        "members" => format!("url{} == ''", ".size()".repeat(n)),
        "negations" => format!("{}true", "!".repeat(n)),
        "conditions" => format!("{}1 == 1", "true ? true : ".repeat(n)),
        _ => unreachable!("{shape}"),
    }
}

/// Past the limit a predicate is refused, saying the limit, before any parser recurses; at the
/// limit it parses, and is checked on a tokio worker's 2 MiB of stack in this (unoptimized)
/// build. A shape that overflowed would abort this test's process.
#[test]
fn nesting_is_bounded_and_what_the_bound_takes_fits_a_worker_stack() {
    const SHAPES: [&str; 9] = [
        "brackets",
        "lists",
        "maps",
        "calls",
        "sums",
        "ands",
        "members",
        "negations",
        "conditions",
    ];
    for shape in SHAPES {
        let deepest = (1..)
            .take_while(|n| super::nesting::check(&nested(shape, *n), MAX_NESTING).is_ok())
            .last()
            .unwrap_or_else(|| panic!("{shape}: not even one level is taken"));
        let refused = Predicate::parse(&nested(shape, deepest + 1)).unwrap_err();
        assert!(
            refused.message.contains("nests more than 24 deep"),
            "{shape}: {refused:?}"
        );
        let source = nested(shape, deepest);
        let checked = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let predicate =
                    Predicate::parse(&source).unwrap_or_else(|e| panic!("{source}: {e:?}"));
                predicate.check(&Observation::default(), None, None)
            })
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{shape}: the check failed"));
        assert!(
            !matches!(checked, Verdict::Broken { .. }) || shape == "members",
            "{shape}: {checked:?}"
        );
    }
    // The repro of a dozen brackets that aborted a debug server: refused or parsed, never fatal.
    assert!(Predicate::parse("((((((((((((1))))))))))))").is_ok());
    let deep = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let refused = Predicate::parse(&deep).unwrap_err();
    assert_eq!(refused.column, 25, "{refused:?}");
}

#[test]
fn an_invariants_file_nested_without_end_is_an_error_not_an_overflow() {
    let file = |surface: String| {
        format!(
            "invariants:\n  - id: deep\n    statement: s\n    surface: {surface}\n    predicate: \
             \"true\"\n"
        )
    };
    for (shape, text) in [
        (
            "10,000 lists",
            file(format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))),
        ),
        (
            "10,000 maps",
            file(format!("{}{}", "{a: ".repeat(10_000), "}".repeat(10_000))),
        ),
        (
            "120 lists",
            file(format!("{}{}", "[".repeat(120), "]".repeat(120))),
        ),
        (
            "120 maps",
            file(format!("{}{}", "{a: ".repeat(120), "}".repeat(120))),
        ),
    ] {
        let err = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || parse(&text, Path::new("invariants/deep.yaml")).unwrap_err())
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{shape}: the reader failed instead of answering"));
        let shown = err.to_string();
        assert!(
            shown.starts_with("invariants/deep.yaml:"),
            "{shape}: {shown}"
        );
        assert_ne!(err.line, 0, "{shape}: {shown}");
        // Measured before libyaml scans the text, whose time grows with the square of it.
        let measured = shown.contains("more than 128 levels deep");
        assert_eq!(measured, shape.starts_with("10,000"), "{shape}: {shown}");
    }
}

#[test]
fn a_checkbox_reads_as_a_bool_and_its_text_as_text() {
    let todos = Observation {
        found: vec![
            Found {
                probe: Probe {
                    selector: ".toggle".to_owned(),
                    field: Field::Value,
                },
                texts: vec![Reading::Checked(true), Reading::Checked(false)],
            },
            Found {
                probe: Probe {
                    selector: ".note".to_owned(),
                    field: Field::Value,
                },
                texts: vec!["true".into()],
            },
        ],
        ..Observation::default()
    };
    for holds in [
        r#"input(".toggle") == true && input(".toggle")"#,
        r#"inputs(".toggle") == [true, false]"#,
        r#"inputs(".toggle").filter(c, !c).size() == 1"#,
        // A text field holding "true" is text.
        r#"input(".note") == "true" && input(".note").startsWith("t")"#,
    ] {
        assert_eq!(check(holds, &todos), Verdict::Holds, "{holds}");
    }
    assert!(
        matches!(
            check(r#"input(".toggle") == "true""#, &todos),
            Verdict::Violated { .. }
        ),
        "a bool is no string"
    );
}

const DESK: &str = r##"invariants:
  - id: saving-confirms
    statement: Saving shows a confirmation within 2 s
    when: action.kind == "click"
    within: 2s
    predicate: text("#saved") == "Saved"
  - id: pager
    statement: A step keeps the page or moves it by one
    transitions:
      - number(".page") == before.number(".page")
      - number(".page") == before.number(".page") + 1
  - id: counter
    statement: Once signed in, the counter counts
    until: visible(".signed-in")
    predicate: number(".count") == count(".unread")
"##;

#[test]
fn rules_across_time_are_read_from_a_file_and_round_trip() {
    let rules = parse(DESK, Path::new("desk.yaml")).expect("parses");
    assert_eq!(rules[0].within, Some(std::time::Duration::from_secs(2)));
    assert_eq!(
        rules[0].when.as_ref().map(Predicate::source),
        Some(r#"action.kind == "click""#)
    );
    assert_eq!(rules[1].transitions.len(), 2);
    assert_eq!(
        rules[1].predicate.source(),
        r#"(number(".page") == before.number(".page")) || (number(".page") == before.number(".page") + 1)"#
    );
    assert!(rules[1].is_transition());
    assert_eq!(
        rules[2].until.as_ref().map(Predicate::source),
        Some(r#"visible(".signed-in")"#)
    );
    assert!(rules[2].probes().iter().any(|p| p.selector == ".signed-in"));
    let json = serde_json::to_string(&rules).expect("serializes");
    assert!(json.contains(r#""within_ms":2000"#), "{json}");
    let back: Vec<Invariant> = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back, rules);
}

#[test]
fn a_step_no_allowed_transition_explains_says_what_each_said() {
    let rules = parse(DESK, Path::new("desk.yaml")).expect("parses");
    let pager = &rules[1];
    let on = |n: &str| page("http://desk.test/", &[(".page", Field::Text, &[n])]);
    assert_eq!(
        pager.check(&on("3"), None, Some(&on("2")), None),
        Verdict::Holds
    );
    assert_eq!(
        pager.check(&on("2"), None, Some(&on("2")), None),
        Verdict::Holds
    );
    match pager.check(&on("4"), None, Some(&on("2")), None) {
        Verdict::Violated { seen } => {
            assert_eq!(seen[0], "no allowed transition explains this step");
            assert_eq!(
                seen[1],
                r#"transition 1 `number(".page") == before.number(".page")` false"#
            );
            assert!(
                seen.contains(&r#"number(".page") = 4"#.to_owned()),
                "{seen:?}"
            );
            assert!(
                seen.contains(&r#"before.number(".page") = 2"#.to_owned()),
                "{seen:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Where the page shows no page number, no transition can be read: nothing is said.
    let elsewhere = page("http://desk.test/about", &[]);
    assert!(matches!(
        pager.check(&elsewhere, None, Some(&on("2")), None),
        Verdict::NotApplicable { .. }
    ));
}

#[test]
fn readiness_holds_once_its_condition_does() {
    let rules = parse(DESK, Path::new("desk.yaml")).expect("parses");
    let counter = &rules[2];
    let landing = page("http://desk.test/", &[]);
    let signed_in = page(
        "http://desk.test/",
        &[(".signed-in", Field::Text, &["Inbox"])],
    );
    assert_eq!(counter.ready(&landing, None, None), Ok(false));
    assert_eq!(counter.ready(&signed_in, None, None), Ok(true));
    assert_eq!(
        rules[0].ready(&landing, None, None),
        Ok(true),
        "no condition: always ready"
    );
}

#[test]
fn rules_across_time_that_cannot_be_used_are_located_errors() {
    let cases: [(&str, usize, &str); 6] = [
        (
            "invariants:\n  - id: a\n    statement: A\n    within: 2s\n    predicate: 'true'\n",
            4,
            "within: an obligation needs `when:`",
        ),
        (
            "invariants:\n  - id: a\n    statement: A\n    when: 'true'\n    within: soon\n    predicate: 'true'\n",
            5,
            "within: `soon` is not a time",
        ),
        (
            "invariants:\n  - id: a\n    statement: A\n    when: 'true'\n    within: 2h\n    predicate: 'true'\n",
            5,
            "within: `2h` is not between 1 ms and 60 s",
        ),
        (
            "invariants:\n  - id: a\n    statement: A\n",
            2,
            "`a` needs one of `predicate` or `transitions`",
        ),
        (
            "invariants:\n  - id: a\n    statement: A\n    transitions:\n      - 'true'\n      - count('.a') == nope\n",
            6,
            "transitions: `nope` is not something",
        ),
        (
            "invariants:\n  - id: a\n    statement: A\n    until: nope\n    predicate: 'true'\n",
            4,
            "until: `nope` is not something",
        ),
    ];
    for (text, line, message) in cases {
        let err = parse(text, Path::new("x.yaml")).expect_err(text);
        assert_eq!(err.line, line, "{err}");
        assert!(err.message.starts_with(message), "{err}");
    }
    let text = "invariants:\n  - id: a\n    statement: A\n    transitions:\n      - 'true'\n      - count('.a') == nope\n";
    let err = parse(text, Path::new("x.yaml")).expect_err("unknown name");
    assert_eq!((err.line, err.column), (6, 24), "{err}");
}
