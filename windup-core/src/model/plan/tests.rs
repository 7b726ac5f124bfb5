use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::*;

fn target(selector: &str, tag: &str, role: Option<&str>, name: Option<&str>) -> Option<Target> {
    Some(Target {
        frames: Vec::new(),
        selector: selector.to_owned(),
        identity: Identity {
            tag: tag.to_owned(),
            role: role.map(str::to_owned),
            name: name.map(str::to_owned),
            label: None,
            within: None,
        },
    })
}

fn action(id: &str, kind: ActionKind) -> Action {
    Action::new(id, kind)
}

#[test]
fn an_action_knows_the_step_it_carries_out() {
    let mut named = action("a1", ActionKind::Click);
    assert_eq!(named.written_step(), None);
    named.step = Some(3);
    assert_eq!(named.written_step(), Some(3));
    // A plan written before actions carried their step says it in the id.
    assert_eq!(action("s2", ActionKind::Click).written_step(), Some(2));
    for other in ["s0", "s01", "s+1", "s", "open-cart", "1"] {
        assert_eq!(
            action(other, ActionKind::Click).written_step(),
            None,
            "{other}"
        );
    }
    let text =
        r#"{"id":"s1","type":"click","step":1,"target":{"selector":"b","identity":{"tag":"b"}}}"#;
    let read: Action = serde_json::from_str(text).unwrap();
    assert_eq!(read.step, Some(1));
    assert!(
        serde_json::to_string(&action("s1", ActionKind::Click))
            .unwrap()
            .find("step")
            .is_none()
    );
}

/// A full checkout: every action type and every postcondition kind.
fn checkout() -> Plan {
    let text = |t: &str| Postcondition::TextVisible { text: t.to_owned() };
    Plan {
        plan_version: PLAN_VERSION.to_owned(),
        scenario_id: "checkout-as-demo-user".to_owned(),
        task: "Buy one Rust mug as the demo user and confirm the order.".to_owned(),
        start_url: "/".to_owned(),
        generated_by: GeneratedBy {
            planner: crate::model::plan::PlannerKind::Llm,
            provider: Some("anthropic".to_owned()),
            model: Some("claude-sonnet".to_owned()),
            at: "2025-06-01T12:00:00Z".to_owned(),
        },
        actions: vec![
            Action {
                use_fragment: Some("accept-cookies".to_owned()),
                ..action("a1", ActionKind::Use)
            },
            Action {
                url: Some("/products".to_owned()),
                expect: vec![Postcondition::UrlMatches {
                    pattern: "/products".to_owned(),
                }],
                ..action("a2", ActionKind::Goto)
            },
            Action {
                target: target(
                    "[data-testid=\"add-rust-mug\"]",
                    "button",
                    Some("button"),
                    Some("Add to cart"),
                ),
                expect: vec![text("Added to cart")],
                ..action("a3", ActionKind::Click)
            },
            Action {
                target: target("#cart-link", "a", Some("link"), Some("Cart (1)")),
                ..action("a4", ActionKind::Click)
            },
            Action {
                target: target("input[name=\"email\"]", "input", Some("textbox"), None),
                value_ref: Some("account.email".to_owned()),
                ..action("a5", ActionKind::Fill)
            },
            Action {
                target: target("#password", "input", None, None),
                value_ref: Some("account.password".to_owned()),
                expect: vec![Postcondition::InputValue {
                    frames: Vec::new(),
                    selector: "#quantity".to_owned(),
                    value: "1".to_owned(),
                }],
                ..action("a6", ActionKind::Fill)
            },
            Action {
                target: target("#coupon", "input", Some("textbox"), Some("Coupon")),
                value: Some("RUST10".to_owned()),
                ..action("a7", ActionKind::Fill)
            },
            Action {
                target: target("#coupon", "input", Some("textbox"), Some("Coupon")),
                key: Some("Enter".to_owned()),
                ..action("a8", ActionKind::Press)
            },
            Action {
                target: target(
                    "select[name=\"shipping\"]",
                    "select",
                    Some("combobox"),
                    None,
                ),
                value: Some("Express".to_owned()),
                ..action("a9", ActionKind::Select)
            },
            Action {
                target: target(
                    "#terms",
                    "input",
                    Some("checkbox"),
                    Some("I accept the terms"),
                ),
                ..action("a10", ActionKind::Check)
            },
            Action {
                target: target("#newsletter", "input", Some("checkbox"), None),
                ..action("a11", ActionKind::Uncheck)
            },
            Action {
                target: target("[data-testid=\"order-summary\"]", "section", None, None),
                timeout_ms: Some(10_000),
                ..action("a12", ActionKind::WaitFor)
            },
            Action {
                target: target(
                    "button[type=\"submit\"]",
                    "button",
                    Some("button"),
                    Some("Place order"),
                ),
                expect: vec![
                    text("Thank you for your order"),
                    Postcondition::TextAbsent {
                        text: "Payment failed".to_owned(),
                    },
                    Postcondition::UrlMatches {
                        pattern: "/orders/*".to_owned(),
                    },
                    Postcondition::ElementVisible {
                        frames: Vec::new(),
                        selector: "[data-testid=\"order-number\"]".to_owned(),
                    },
                    Postcondition::ElementHidden {
                        frames: Vec::new(),
                        selector: ".spinner".to_owned(),
                    },
                    Postcondition::Holds {
                        predicate: "count('.order-line') == 1 && errors.size() == 0".to_owned(),
                        since: None,
                    },
                    Postcondition::Holds {
                        predicate: "money('.total') <= before.money('.total')".to_owned(),
                        since: Some("a2".to_owned()),
                    },
                ],
                timeout_ms: Some(30_000),
                ..action("a13", ActionKind::Click)
            },
        ],
    }
}

fn rules() -> Rules {
    Rules::with_account_keys(["email", "password"])
}

fn checkout_json() -> Value {
    serde_json::to_value(checkout()).unwrap()
}

/// `checkout_json()` with the value at `pointer` replaced (or removed, for `None`).
fn edited(pointer: &str, new: Option<Value>) -> Value {
    let mut value = checkout_json();
    let (parent, last) = pointer.rsplit_once('/').unwrap();
    match value.pointer_mut(parent).unwrap() {
        Value::Object(map) => match new {
            Some(new) => {
                map.insert(last.to_owned(), new);
            }
            None => {
                map.remove(last).expect("edited a field that exists");
            }
        },
        Value::Array(items) => {
            let index: usize = last.parse().unwrap();
            match new {
                Some(new) => items[index] = new,
                None => {
                    items.remove(index);
                }
            }
        }
        other => panic!("cannot edit inside {other}"),
    }
    value
}

fn read_err(value: &Value) -> PlanError {
    Plan::from_json_str(&value.to_string(), &rules()).expect_err("the plan should be rejected")
}

fn validate_err(plan: &Plan) -> PlanError {
    validate(plan, &rules()).expect_err("the plan should be rejected")
}

/// Asserts exactly one problem, breaking `rule`, whose line contains every one of `parts`.
fn assert_one(err: &PlanError, rule: Rule, parts: &[&str]) {
    let problems = err.problems();
    assert_eq!(problems.len(), 1, "expected one problem, got:\n{err}");
    assert_eq!(problems[0].rule, rule, "{err}");
    let line = problems[0].to_string();
    for part in parts {
        assert!(line.contains(part), "{line:?} should contain {part:?}");
    }
    assert!(err.to_string().contains(&line), "Display lists the problem");
}

// ---------------------------------------------------------------- round trip and schema file

#[test]
fn checkout_plan_round_trips_unchanged() {
    let plan = checkout();
    validate(&plan, &rules()).unwrap();
    let json = plan.to_json_pretty();
    assert!(json.ends_with("}\n"));
    let read = Plan::from_json_str(&json, &rules()).unwrap();
    assert_eq!(read, plan);
    assert_eq!(read.to_json_pretty(), json);
}

#[test]
fn plan_json_keeps_a_stable_key_order() {
    let json = checkout().to_json_pretty();
    let top: Vec<usize> = [
        "\"plan_version\"",
        "\"scenario_id\"",
        "\"task\"",
        "\"start_url\"",
        "\"generated_by\"",
        "\"actions\"",
    ]
    .iter()
    .map(|k| json.find(k).unwrap())
    .collect();
    assert!(top.windows(2).all(|w| w[0] < w[1]), "{json}");
    assert!(
        json.contains("{\n          \"kind\": \"url_matches\",\n          \"pattern\""),
        "{json}"
    );
}

fn schema() -> Value {
    serde_json::from_str(PLAN_SCHEMA).unwrap()
}

fn property_names(schema: &Value, pointer: &str) -> BTreeSet<String> {
    schema
        .pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no properties at {pointer}"))
        .keys()
        .cloned()
        .collect()
}

fn names(fields: &[(&str, bool)]) -> BTreeSet<String> {
    fields.iter().map(|(f, _)| (*f).to_owned()).collect()
}

#[test]
fn schema_is_draft_2020_12_and_compiles() {
    let schema = schema();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["properties"]["plan_version"]["const"], PLAN_VERSION);
    assert!(schema::problems(&checkout_json()).is_empty());
}

#[test]
fn sanitizer_knows_exactly_the_schema_field_names() {
    use sanitize::*;
    let schema = schema();
    assert_eq!(names(PLAN_FIELDS), property_names(&schema, "/properties"));
    assert_eq!(
        names(GENERATED_BY_FIELDS),
        property_names(&schema, "/$defs/generated_by/properties")
    );
    assert_eq!(
        names(ACTION_FIELDS),
        property_names(&schema, "/$defs/action/properties")
    );
    assert_eq!(
        names(TARGET_FIELDS),
        property_names(&schema, "/$defs/target/properties")
    );
    assert_eq!(
        names(IDENTITY_FIELDS),
        property_names(&schema, "/$defs/identity/properties")
    );
    for (kind, fields) in POSTCONDITION_FIELDS {
        let mut expected: BTreeSet<String> = fields.iter().map(|f| (*f).to_owned()).collect();
        expected.insert("kind".to_owned());
        assert_eq!(
            expected,
            property_names(&schema, &format!("/$defs/{kind}/properties"))
        );
    }
    // Required in the schema is exactly "not optional" in the sanitizer.
    for (pointer, fields) in [
        ("/required", PLAN_FIELDS),
        ("/$defs/generated_by/required", GENERATED_BY_FIELDS),
        ("/$defs/action/required", ACTION_FIELDS),
        ("/$defs/target/required", TARGET_FIELDS),
        ("/$defs/identity/required", IDENTITY_FIELDS),
    ] {
        let required: BTreeSet<String> =
            serde_json::from_value(schema.pointer(pointer).unwrap().clone()).unwrap();
        let not_optional: BTreeSet<String> = fields
            .iter()
            .filter(|(_, opt)| !opt)
            .map(|(f, _)| (*f).to_owned())
            .collect();
        assert_eq!(required, not_optional, "{pointer}");
    }
}

#[test]
fn schema_enums_match_the_types() {
    let schema = schema();
    let types: Vec<&str> = ActionKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        schema["$defs"]["action"]["properties"]["type"]["enum"],
        json!(types)
    );
    for kind in ActionKind::ALL {
        let wire: ActionKind = serde_json::from_value(json!(kind.as_str())).unwrap();
        assert_eq!(wire, kind);
    }
    assert_eq!(
        schema["$defs"]["postcondition"]["properties"]["kind"]["enum"],
        json!(Postcondition::KINDS)
    );
    for condition in &checkout().actions[12].expect {
        assert_eq!(
            serde_json::to_value(condition).unwrap()["kind"],
            condition.kind()
        );
    }
}

// ---------------------------------------------------------------- schema violations

#[test]
fn schema_rejects_missing_required_field() {
    let err = read_err(&edited("/actions/2/type", None));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a3" (#3): schema: /actions/2: "type" is a required property; add it"#],
    );
    let err = read_err(&edited("/actions/2/target/identity/tag", None));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a3" (#3): schema: /actions/2/target/identity: "tag" is a required"#],
    );
}

#[test]
fn schema_rejects_wrong_type() {
    let err = read_err(&edited("/actions/11/timeout_ms", Some(json!("soon"))));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a12" (#12): schema: /actions/11/timeout_ms: "soon" is not of type "integer""#],
    );
}

#[test]
fn schema_rejects_unknown_action_type() {
    // `drag` is not an action type (`hover` was, before it became one).
    let err = read_err(&edited("/actions/2/type", Some(json!("drag"))));
    assert_one(
        &err,
        Rule::Schema,
        &[
            r#"action "a3" (#3): schema: /actions/2/type: "drag""#,
            "\"wait_for\"",
        ],
    );
}

#[test]
fn unknown_field_is_rejected_in_a_plan_file_and_dropped_from_model_output() {
    let value = edited(
        "/actions/3/reason",
        Some(json!("the cart is in the header")),
    );
    let err = read_err(&value);
    assert_one(
        &err,
        Rule::Schema,
        &[
            r#"action "a4" (#4): schema: /actions/3: Additional properties are not allowed ('reason' was unexpected); remove it"#,
        ],
    );
    assert_eq!(parse_model_output(value, &rules()).unwrap(), checkout());
}

#[test]
fn schema_rejects_bad_value_ref_pattern() {
    let err = read_err(&edited("/actions/4/value_ref", Some(json!("password"))));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a5" (#5): schema: /actions/4/value_ref: "password" does not match"#],
    );
}

#[test]
fn schema_rejects_timeout_out_of_range() {
    let err = read_err(&edited("/actions/1/timeout_ms", Some(json!(0))));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a2" (#2): schema: /actions/1/timeout_ms: 0 is less than the minimum of 1"#],
    );
    let err = read_err(&edited("/actions/1/timeout_ms", Some(json!(120_001))));
    assert_one(
        &err,
        Rule::Schema,
        &[
            r#"action "a2" (#2): schema: /actions/1/timeout_ms: 120001"#,
            "120000",
        ],
    );
    let plan = Plan::from_json_str(
        &edited("/actions/1/timeout_ms", Some(json!(120_000))).to_string(),
        &rules(),
    );
    assert_eq!(plan.unwrap().actions[1].timeout_ms, Some(120_000));
}

#[test]
fn schema_rejects_empty_actions() {
    let err = read_err(&edited("/actions", Some(json!([]))));
    assert_one(
        &err,
        Rule::Schema,
        &["plan: schema: /actions: [] has less than 1 item"],
    );
}

#[test]
fn schema_rejects_wrong_plan_version() {
    let err = read_err(&edited("/plan_version", Some(json!("0.2"))));
    assert_one(
        &err,
        Rule::Schema,
        &["plan: schema: /plan_version: ", "\"0.1\""],
    );
}

#[test]
fn schema_rejects_bad_postcondition_kind() {
    let value = edited("/actions/2/expect/0/kind", Some(json!("text_present")));
    let err = read_err(&value);
    assert_one(
        &err,
        Rule::Schema,
        &[
            r#"action "a3" (#3): schema: /actions/2/expect/0/kind: "text_present""#,
            "\"text_visible\"",
        ],
    );
}

#[test]
fn schema_rejects_postcondition_missing_its_field() {
    let err = read_err(&edited("/actions/12/expect/0/text", None));
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a13" (#13): schema: /actions/12/expect/0: "text" is a required property"#],
    );
    // A field of another kind is not a substitute.
    let err = read_err(&edited(
        "/actions/12/expect/2",
        Some(json!({"kind": "url_matches", "selector": "/orders/*"})),
    ));
    let message = err.to_string();
    assert!(
        message.contains(
            r#"action "a13" (#13): schema: /actions/12/expect/2: "pattern" is a required property"#
        ),
        "{message}"
    );
    assert!(message.contains("'selector' was unexpected"), "{message}");
}

#[test]
fn a_fractional_timeout_is_located_at_its_action() {
    // Draft 2020-12 counts 5000.0 as an integer; the plan types do not.
    let err = read_err(&edited("/actions/11/timeout_ms", Some(json!(5000.0))));
    assert_one(
        &err,
        Rule::Shape,
        &[
            r#"action "a12" (#12): does not fit the plan types: invalid type: floating point `5000.0`, expected u64"#,
        ],
    );
    // The sanitizer turns it into a whole number.
    let value = edited("/actions/11/timeout_ms", Some(json!(10_000.0)));
    assert_eq!(parse_model_output(value, &rules()).unwrap(), checkout());
}

#[test]
fn schema_errors_are_all_collected() {
    let mut value = edited("/actions/1/timeout_ms", Some(json!(0)));
    value["actions"][5]["type"] = json!("tap");
    value["start_url"] = json!(7);
    let err = read_err(&value);
    let lines: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].starts_with("plan: schema: /start_url: 7"), "{err}");
    assert!(
        lines[1].starts_with(r#"action "a2" (#2): schema: /actions/1/timeout_ms"#),
        "{err}"
    );
    assert!(
        lines[2].starts_with(r#"action "a6" (#6): schema: /actions/5/type"#),
        "{err}"
    );
    insta::assert_snapshot!("schema_errors_collected", err.to_string());
}

#[test]
fn json_syntax_errors_give_line_and_column() {
    let err = Plan::from_json_str(
        "{\n  \"plan_version\": \"0.1\",\n  \"task\" \"x\"\n}",
        &rules(),
    )
    .unwrap_err();
    assert_eq!(
        err,
        PlanError::Syntax {
            line: 3,
            column: 10,
            message: "expected `:`".to_owned()
        }
    );
    insta::assert_snapshot!("syntax_error", err.to_string());
}

// ---------------------------------------------------------------- semantic rules

#[test]
fn element_actions_need_a_target() {
    for kind in ActionKind::ALL.into_iter().filter(|k| k.needs_target()) {
        let mut plan = checkout();
        // A kind the checkout has no action of (hover) gets one of its own.
        let index = match plan.actions.iter().position(|a| a.kind == kind) {
            Some(index) => index,
            None => {
                let mut added = action("h1", kind);
                if kind == ActionKind::Type {
                    added.value = Some("a".to_owned());
                }
                plan.actions.insert(1, added);
                1
            }
        };
        plan.actions[index].target = None;
        let id = &plan.actions[index].id;
        let err = validate_err(&plan);
        assert_one(
            &err,
            Rule::TargetRequired,
            &[&format!(
                "action {id:?} (#{}, {kind}): needs a target because {kind} acts on an element",
                index + 1
            )],
        );
    }
}

#[test]
fn press_may_go_to_the_focused_element() {
    let mut plan = checkout();
    plan.actions[7].target = None;
    validate(&plan, &rules()).unwrap();
}

#[test]
fn fill_needs_exactly_one_of_value_or_value_ref() {
    let mut plan = checkout();
    plan.actions[4].value = Some("demo@example.com".to_owned());
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::FillValue,
        &[r#"action "a5" (#5, fill): needs exactly one of value or value_ref, found both"#],
    );
    insta::assert_snapshot!("fill_both", err.to_string());

    let mut plan = checkout();
    plan.actions[4].value_ref = None;
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::FillValue,
        &[r#"action "a5" (#5, fill): needs exactly one of value or value_ref, found neither"#],
    );
}

#[test]
fn select_needs_a_value() {
    let mut plan = checkout();
    plan.actions[8].value = None;
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::SelectValue,
        &[r#"action "a9" (#9, select): needs "value": the option to choose"#],
    );
}

#[test]
fn goto_needs_a_url_that_is_a_path_or_http_url() {
    let mut plan = checkout();
    plan.actions[1].url = None;
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::GotoUrl,
        &[r#"action "a2" (#2, goto): needs "url""#],
    );

    for bad in [
        "products",
        "javascript:alert(1)",
        "//evil.example/",
        "/\\evil.example",
        "ftp://host/x",
        "/a\nb",
    ] {
        let mut plan = checkout();
        plan.actions[1].url = Some(bad.to_owned());
        let err = validate_err(&plan);
        assert_one(
            &err,
            Rule::GotoUrl,
            &[r#"action "a2" (#2, goto): url "#, "is neither a path"],
        );
    }
    for good in [
        "/",
        "/products?page=2",
        "https://shop.example/cart",
        "http://127.0.0.1:8080/",
    ] {
        let mut plan = checkout();
        plan.actions[1].url = Some(good.to_owned());
        validate(&plan, &rules()).unwrap();
    }
}

#[test]
fn start_url_is_a_path_or_http_url() {
    let mut plan = checkout();
    plan.start_url = "index.html".to_owned();
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::StartUrl,
        &[r#"plan: start_url "index.html" is neither a path"#],
    );
    plan.start_url = "https://shop.example/".to_owned();
    validate(&plan, &rules()).unwrap();
}

#[test]
fn press_needs_a_known_key() {
    let mut plan = checkout();
    plan.actions[7].key = None;
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::PressKey,
        &[r#"action "a8" (#8, press): needs "key""#, "Enter, Tab"],
    );

    plan.actions[7].key = Some("Return".to_owned());
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::PressKey,
        &[r#"action "a8" (#8, press): key "Return" is not a known key name"#],
    );
    insta::assert_snapshot!("press_unknown_key", err.to_string());

    for key in key_names() {
        plan.actions[7].key = Some((*key).to_owned());
        validate(&plan, &rules()).unwrap();
    }
}

#[test]
fn use_needs_a_fragment() {
    let mut plan = checkout();
    plan.actions[0].use_fragment = None;
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::UseFragment,
        &[r#"action "a1" (#1, use): needs "use""#],
    );
}

#[test]
fn fields_that_do_not_belong_to_the_type_are_errors() {
    let mut plan = checkout();
    plan.actions[2].url = Some("/cart".to_owned());
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::ForeignField,
        &[r#"action "a3" (#3, click): "url" does not belong on a click action; remove it"#],
    );
    insta::assert_snapshot!("foreign_field", err.to_string());

    type Edit = fn(&mut Action);
    let cases: [(usize, Edit, &str); 5] = [
        (1, |a| a.target = target("a", "a", None, None), "target"),
        (
            8,
            |a| a.value_ref = Some("account.email".to_owned()),
            "value_ref",
        ),
        (9, |a| a.value = Some("yes".to_owned()), "value"),
        (4, |a| a.key = Some("Enter".to_owned()), "key"),
        (7, |a| a.use_fragment = Some("login".to_owned()), "use"),
    ];
    for (index, edit, field) in cases {
        let mut plan = checkout();
        edit(&mut plan.actions[index]);
        let err = validate_err(&plan);
        assert_one(
            &err,
            Rule::ForeignField,
            &[&format!("\"{field}\" does not belong on a")],
        );
    }
}

#[test]
fn value_ref_needs_an_allowed_account_key() {
    let err =
        Plan::from_json_str(&checkout().to_json_pretty(), &Rules::without_account()).unwrap_err();
    assert_eq!(err.problems().len(), 2, "{err}");
    assert!(err.problems().iter().all(|p| p.rule == Rule::ValueRef));
    let first = err.problems()[0].to_string();
    assert!(
        first.starts_with(r#"action "a5" (#5, fill): value_ref "account.email" needs an account, but the scenario has none"#),
        "{first}"
    );

    let err = validate(&checkout(), &Rules::with_account_keys(["email"])).unwrap_err();
    assert_one(
        &err,
        Rule::ValueRef,
        &[
            r#"action "a6" (#6, fill): value_ref "account.password" names an account key the scenario does not allow; use one of account.email"#,
        ],
    );
    insta::assert_snapshot!("value_ref_not_allowed", err.to_string());

    // Either spelling of the allowed key works.
    validate(
        &checkout(),
        &Rules::with_account_keys(["account.email", "password"]),
    )
    .unwrap();

    // A malformed reference in a plan built in code is reported once, by the rule.
    let mut plan = checkout();
    plan.actions[4].value_ref = Some("email".to_owned());
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::ValueRef,
        &[r#"action "a5" (#5, fill): value_ref "email" is not of the form account.KEY"#],
    );
}

#[test]
fn action_ids_are_unique() {
    let mut plan = checkout();
    plan.actions[5].id = "a3".to_owned();
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::DuplicateId,
        &[
            r#"action "a3" (#6, fill): id "a3" is already used by action #3; give every action its own id"#,
        ],
    );
}

#[test]
fn final_action_carries_expect_or_is_a_use() {
    let mut plan = checkout();
    plan.actions[12].expect.clear();
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::FinalExpect,
        &[r#"action "a13" (#13, click): the final action must carry "expect""#],
    );
    insta::assert_snapshot!("final_expect", err.to_string());

    plan.actions.push(Action {
        use_fragment: Some("log-out".to_owned()),
        ..action("a14", ActionKind::Use)
    });
    validate(&plan, &rules()).unwrap();
}

#[test]
fn plan_version_must_be_supported() {
    let mut plan = checkout();
    plan.plan_version = "0.2".to_owned();
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::PlanVersion,
        &[r#"plan: plan_version "0.2" is not supported (this build reads "0.1")"#],
    );
}

#[test]
fn validate_applies_the_schema_to_plans_built_in_code() {
    let mut plan = checkout();
    plan.actions[2].id = "a 3".to_owned();
    plan.actions[3].timeout_ms = Some(0);
    let err = validate_err(&plan);
    let lines: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(r#"action "a 3" (#3): schema: /actions/2/id: "a 3" does not match"#),
        "{err}"
    );
    assert!(
        lines[1].starts_with(r#"action "a4" (#4): schema: /actions/3/timeout_ms: 0"#),
        "{err}"
    );
}

#[test]
fn semantic_problems_are_all_collected_in_order() {
    let mut plan = checkout();
    plan.start_url = "home".to_owned();
    plan.actions[2].url = Some("/cart".to_owned());
    plan.actions[4].value = Some("x".to_owned());
    plan.actions[7].key = Some("F5".to_owned());
    plan.actions[12].expect.clear();
    let json = plan.to_json_pretty();
    let err = Plan::from_json_str(&json, &rules()).unwrap_err();
    let rules_broken: Vec<Rule> = err.problems().iter().map(|p| p.rule).collect();
    assert_eq!(
        rules_broken,
        [
            Rule::StartUrl,
            Rule::ForeignField,
            Rule::FillValue,
            Rule::PressKey,
            Rule::FinalExpect
        ]
    );
    assert_eq!(err, validate_err(&plan));
    insta::assert_snapshot!("semantic_errors_collected", err.to_string());
}

// ---------------------------------------------------------------- sanitizer

/// A one-action model plan around `action`.
fn model_plan(action: Value) -> Value {
    json!({
        "plan_version": "0.1",
        "scenario_id": "s",
        "task": "t",
        "start_url": "/",
        "generated_by": {"planner": "llm", "at": "2025-06-01T12:00:00Z"},
        "actions": [action],
    })
}

#[test]
fn sanitizer_normalizes_actions() {
    let t = json!({"selector": "#go", "identity": {"tag": "button"}});
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "type case and separators",
            json!({"id": "a1", "type": "WaitFor", "target": t}),
            json!({"id": "a1", "type": "wait_for", "target": t}),
        ),
        (
            "type with dash",
            json!({"id": "a1", "type": "wait-for", "target": t}),
            json!({"id": "a1", "type": "wait_for", "target": t}),
        ),
        (
            "type with space and capitals",
            json!({"id": "a1", "type": " Wait For ", "target": t}),
            json!({"id": "a1", "type": "wait_for", "target": t}),
        ),
        (
            "unknown type is left for the schema",
            json!({"id": "a1", "type": "Drag"}),
            json!({"id": "a1", "type": "Drag"}),
        ),
        (
            "strings trimmed, tag lower-cased",
            json!({"id": " a1 ", "type": "click", "target": {"selector": " #go\n", "identity": {"tag": " BUTTON ", "name": " Go "}}}),
            json!({"id": "a1", "type": "click", "target": t.clone().tap(|t| t["identity"]["name"] = json!("Go"))}),
        ),
        (
            "numeric id and timeout strings",
            json!({"id": 7, "type": "click", "target": t, "timeout_ms": " 5000 "}),
            json!({"id": "7", "type": "click", "target": t, "timeout_ms": 5000}),
        ),
        (
            "whole float timeout",
            json!({"id": "a1", "type": "click", "target": t, "timeout_ms": 2500.0}),
            json!({"id": "a1", "type": "click", "target": t, "timeout_ms": 2500}),
        ),
        (
            "bad timeout is left for the schema",
            json!({"id": "a1", "type": "click", "target": t, "timeout_ms": "soon"}),
            json!({"id": "a1", "type": "click", "target": t, "timeout_ms": "soon"}),
        ),
        (
            "null optional fields removed",
            json!({"id": "a1", "type": "click", "target": t, "value": null, "value_ref": null, "url": null, "key": null, "use": null, "expect": null, "timeout_ms": null}),
            json!({"id": "a1", "type": "click", "target": t}),
        ),
        (
            "null identity fields removed",
            json!({"id": "a1", "type": "click", "target": {"selector": "#go", "identity": {"tag": "button", "role": null, "name": null, "label": null}}}),
            json!({"id": "a1", "type": "click", "target": t}),
        ),
        (
            "unknown fields dropped at every level",
            json!({"id": "a1", "type": "click", "reason": "why", "target": {"selector": "#go", "xpath": "//b", "identity": {"tag": "button", "class": "btn"}}, "expect": [{"kind": "text_visible", "text": "Done", "confidence": 0.9}]}),
            json!({"id": "a1", "type": "click", "target": t, "expect": [{"kind": "text_visible", "text": "Done"}]}),
        ),
        (
            "camelCase field names",
            json!({"id": "a1", "type": "fill", "target": t, "valueRef": "account.email", "timeoutMs": 100}),
            json!({"id": "a1", "type": "fill", "target": t, "value_ref": "account.email", "timeout_ms": 100}),
        ),
        (
            "postcondition kinds",
            json!({"id": "a1", "type": "click", "target": t, "expect": [
                {"kind": "TextVisible", "text": "A"},
                {"kind": "url-matches", "pattern": "/x"},
                {"kind": "Element Hidden", "selector": ".s"},
                {"Kind": "INPUT_VALUE", "selector": "#q", "value": 3},
            ]}),
            json!({"id": "a1", "type": "click", "target": t, "expect": [
                {"kind": "text_visible", "text": "A"},
                {"kind": "url_matches", "pattern": "/x"},
                {"kind": "element_hidden", "selector": ".s"},
                {"kind": "input_value", "selector": "#q", "value": "3"},
            ]}),
        ),
        (
            "a known kind keeps only its own fields",
            json!({"id": "a1", "type": "click", "target": t, "expect": [{"kind": "url_matches", "pattern": "/x", "text": "stray"}]}),
            json!({"id": "a1", "type": "click", "target": t, "expect": [{"kind": "url_matches", "pattern": "/x"}]}),
        ),
        (
            "a lone postcondition becomes a list; an empty list goes",
            json!({"id": "a1", "type": "click", "target": t, "expect": {"kind": "text_visible", "text": "A"}}),
            json!({"id": "a1", "type": "click", "target": t, "expect": [{"kind": "text_visible", "text": "A"}]}),
        ),
        (
            "empty expect removed",
            json!({"id": "a1", "type": "use", "use": "login", "expect": []}),
            json!({"id": "a1", "type": "use", "use": "login"}),
        ),
        (
            "key names",
            json!({"id": "a1", "type": "press", "key": "arrow-down"}),
            json!({"id": "a1", "type": "press", "key": "ArrowDown"}),
        ),
        (
            "numeric fill value",
            json!({"id": "a1", "type": "fill", "target": t, "value": 2}),
            json!({"id": "a1", "type": "fill", "target": t, "value": "2"}),
        ),
    ];
    for (name, input, expected) in cases {
        let out = sanitize(model_plan(input));
        assert_eq!(out["actions"][0], expected, "case: {name}");
    }
}

trait Tap: Sized {
    fn tap(self, f: impl FnOnce(&mut Self)) -> Self;
}

impl Tap for Value {
    fn tap(mut self, f: impl FnOnce(&mut Self)) -> Self {
        f(&mut self);
        self
    }
}

#[test]
fn sanitizer_normalizes_the_plan_level() {
    let input = json!({
        "planVersion": 0.1,
        "scenario_id": " s ",
        "task": "t\n",
        "start_url": " / ",
        "generated_by": {"planner": "LLM", "provider": null, "model": " m ", "at": "2025", "cost": 3},
        "notes": "dropped",
        "actions": {"id": "a1", "type": "use", "use": "login"},
    });
    let expected = json!({
        "plan_version": "0.1",
        "scenario_id": "s",
        "task": "t",
        "start_url": "/",
        "generated_by": {"planner": "llm", "model": "m", "at": "2025"},
        "actions": [{"id": "a1", "type": "use", "use": "login"}],
    });
    assert_eq!(sanitize(input), expected);
    // Values that are not a plan are returned as they are.
    for value in [json!(null), json!(3), json!("plan"), json!([1, 2])] {
        assert_eq!(sanitize(value.clone()), value);
    }
}

#[test]
fn model_output_is_sanitized_then_checked() {
    let mut value = checkout_json();
    value["actions"][11]["type"] = json!("WaitFor");
    value["actions"][11]["timeout_ms"] = json!("10000");
    value["actions"][12]["expect"][0]["kind"] = json!("Text-Visible");
    value["actions"][2]["value"] = Value::Null;
    value["actions"][2]["explanation"] = json!("adds the mug");
    assert_eq!(parse_model_output(value, &rules()).unwrap(), checkout());

    // What the sanitizer cannot fix is still reported by the schema, located.
    let mut value = checkout_json();
    value["actions"][1]["timeout_ms"] = json!("-5");
    let err = parse_model_output(value, &rules()).unwrap_err();
    assert_one(
        &err,
        Rule::Schema,
        &[r#"action "a2" (#2): schema: /actions/1/timeout_ms: "-5""#],
    );

    // And the semantic rules still apply.
    let mut value = checkout_json();
    value["actions"][4]["value"] = json!("me@example.com");
    let err = parse_model_output(value, &rules()).unwrap_err();
    assert_one(
        &err,
        Rule::FillValue,
        &[r#"action "a5" (#5, fill)"#, "found both"],
    );
}

// ---------------------------------------------------------------- never panics

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn value(&mut self, depth: usize) -> Value {
        const WORDS: &[&str] = &[
            "",
            " ",
            "0.1",
            "0",
            "-1",
            "120001",
            "5000",
            "1e400",
            "account.email",
            "account.",
            "WaitFor",
            "wait-for",
            "CLICK",
            "Text Visible",
            "url_matches",
            "/",
            "//x",
            "http://",
            "https://h/",
            "javascript:x",
            "Enter",
            "é",
            "\u{0}",
            "a\u{301}",
            "🦀",
            "null",
            "plan_version",
            "actions",
            "type",
            "kind",
            "expect",
            "target",
            "identity",
            "tag",
            "id",
            "value",
            "value_ref",
            "timeout_ms",
            "selector",
            "use",
            "url",
            "key",
            "text",
            "pattern",
            "generated_by",
            "planner",
            "at",
            "start_url",
            "task",
            "scenario_id",
        ];
        let leaf = depth == 0 || self.below(3) == 0;
        match self.below(if leaf { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(self.below(2) == 0),
            2 => match self.below(4) {
                0 => json!(self.next() as i64),
                1 => json!(self.next()),
                2 => json!(f64::from_bits(self.next()).clamp(-1e300, 1e300)),
                _ => json!(self.below(130_000)),
            },
            3 | 4 => Value::String(self.pick(WORDS).to_owned()),
            5 => Value::Array((0..self.below(4)).map(|_| self.value(depth - 1)).collect()),
            _ => Value::Object(
                (0..self.below(6))
                    .map(|_| (self.pick(WORDS).to_owned(), self.value(depth - 1)))
                    .collect(),
            ),
        }
    }

    /// A copy of `base` with one subtree replaced by a random value.
    fn graft(&mut self, base: &Value) -> Value {
        let mut pointer = String::new();
        let mut node = base;
        while self.below(4) != 0 {
            let (segment, child) = match node {
                Value::Object(map) if !map.is_empty() => {
                    let (key, child) = map.iter().nth(self.below(map.len())).unwrap();
                    (key.clone(), child)
                }
                Value::Array(items) if !items.is_empty() => {
                    let index = self.below(items.len());
                    (index.to_string(), &items[index])
                }
                _ => break,
            };
            pointer = format!("{pointer}/{segment}");
            node = child;
        }
        let mut out = base.clone();
        *out.pointer_mut(&pointer).unwrap() = self.value(3);
        out
    }
}

/// Reads `text` both ways; whatever is accepted must satisfy every rule and round-trip.
fn read_both_ways(text: &str) {
    let rules = rules();
    if let Ok(plan) = Plan::from_json_str(text, &rules) {
        accepted(&plan, &rules);
    }
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        read_model_output(value);
    }
}

fn read_model_output(value: Value) {
    let rules = rules();
    if let Ok(plan) = parse_model_output(value, &rules) {
        accepted(&plan, &rules);
    }
}

fn accepted(plan: &Plan, rules: &Rules) {
    if let Err(err) = validate(plan, rules) {
        panic!("accepted a plan that validate rejects: {err}");
    }
    let json = plan.to_json_pretty();
    assert_eq!(&Plan::from_json_str(&json, rules).unwrap(), plan);
}

/// A short compact plan keeps the number of cases (bytes × edits) affordable.
fn short_plan_json() -> String {
    let mut plan = checkout();
    plan.actions.drain(5..12);
    let json = serde_json::to_string(&plan).unwrap();
    Plan::from_json_str(&json, &rules()).unwrap();
    json
}

#[test]
fn every_truncation_is_handled() {
    let json = short_plan_json();
    let bytes = json.as_bytes();
    for end in 0..bytes.len() {
        read_both_ways(&String::from_utf8_lossy(&bytes[..end]));
    }
}

#[test]
fn every_byte_mutation_is_handled() {
    let json = short_plan_json();
    let bytes = json.as_bytes();
    for at in 0..bytes.len() {
        for replacement in [b'"', b'{', b']', b',', b'0', b'x', 0xFF] {
            let mut mutated = bytes.to_vec();
            mutated[at] = replacement;
            read_both_ways(&String::from_utf8_lossy(&mutated));
        }
        let mut deleted = bytes.to_vec();
        deleted.remove(at);
        read_both_ways(&String::from_utf8_lossy(&deleted));
    }
}

#[test]
fn arbitrary_json_values_are_handled() {
    let mut generator = Gen(0x5EED_CAFE_F00D_0001);
    let base = checkout_json();
    for _ in 0..3000 {
        let value = generator.value(5);
        read_both_ways(&value.to_string());
        read_model_output(value);
        let grafted = generator.graft(&base);
        read_both_ways(&grafted.to_string());
        read_model_output(grafted);
    }
}

#[test]
fn deeply_nested_input_is_an_error_not_a_crash() {
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    assert!(matches!(
        Plan::from_json_str(&deep, &rules()),
        Err(PlanError::Syntax { .. })
    ));
    let mut value = json!("leaf");
    for _ in 0..100 {
        value = json!({"actions": [value]});
    }
    assert!(parse_model_output(value, &rules()).is_err());
}

#[test]
fn targets_in_frames_and_shadow_roots_and_hover_actions_read_and_round_trip() {
    let value = json!({
        "plan_version": "0.1", "scenario_id": "pay", "task": "Pay.", "start_url": "/",
        "generated_by": { "planner": "offline", "at": "2026-12-01T00:00:00Z" },
        "actions": [
            { "id": "s1", "type": "hover", "target": {
                "selector": "todo-list >>> li:nth-of-type(2)",
                "identity": { "tag": "li", "role": "listitem", "within": "Buy milk" } } },
            { "id": "s2", "type": "fill", "value": "4242", "target": {
                "frames": ["iframe#pay", "iframe[title=\"Card\"]"],
                "selector": "card-field >>> input#number",
                "identity": { "tag": "input", "role": "textbox", "name": "Card number" } },
              "expect": [
                { "kind": "input_value", "frames": ["iframe#pay"], "selector": "#number", "value": "4242" },
                { "kind": "element_visible", "selector": "todo-list >>> li" }
              ] }
        ]
    });
    let plan = Plan::from_json_str(&value.to_string(), &rules()).unwrap();
    let fill = &plan.actions[1];
    assert_eq!(plan.actions[0].kind, ActionKind::Hover);
    assert_eq!(
        fill.target.as_ref().unwrap().frames,
        ["iframe#pay", "iframe[title=\"Card\"]"]
    );
    assert_eq!(fill.expect[0].frames(), ["iframe#pay"]);
    assert!(fill.expect[1].frames().is_empty());
    assert_eq!(
        plan.actions[0]
            .target
            .as_ref()
            .unwrap()
            .identity
            .within
            .as_deref(),
        Some("Buy milk")
    );
    let again = Plan::from_json_str(&plan.to_json_pretty(), &rules()).unwrap();
    assert_eq!(again, plan);
    // A target on the page itself writes no frames, as plans always did.
    assert!(!checkout().to_json_pretty().contains("frames"));
    assert!(!checkout().to_json_pretty().contains("within"));
}

#[test]
fn a_selector_chain_with_an_empty_part_is_refused_and_frames_are_never_empty() {
    let mut plan = checkout();
    plan.actions[2].target.as_mut().unwrap().selector = "todo-app >>> ".to_owned();
    let err = validate_err(&plan);
    assert_one(
        &err,
        Rule::Selector,
        &[r#"selector "todo-app >>> " has an empty part around ">>>""#],
    );

    let err = read_err(&edited("/actions/2/target/frames", Some(json!([]))));
    assert_one(&err, Rule::Schema, &["/actions/2/target/frames"]);
}

// ---------------------------------------------------------------- holds

fn with_holds(predicate: &str, since: Option<&str>) -> Plan {
    let mut plan = checkout();
    plan.actions[12].expect = vec![Postcondition::Holds {
        predicate: predicate.to_owned(),
        since: since.map(str::to_owned),
    }];
    plan
}

#[test]
fn a_holds_predicate_must_parse_and_name_only_what_a_page_has() {
    validate(
        &with_holds("count('.row') == before.count('.row') + 1", None),
        &rules(),
    )
    .expect("a transition predicate");
    let err = validate_err(&with_holds("count('.row' == 2", None));
    assert_one(
        &err,
        Rule::Predicate,
        &[
            r#"action "a13" (#13, click): holds "count('.row' == 2" at column "#,
            "the predicate does not parse",
            "write a CEL expression",
        ],
    );
    insta::assert_snapshot!("holds_does_not_parse", err.to_string());
    let err = validate_err(&with_holds("rows == 2", None));
    assert_one(
        &err,
        Rule::Predicate,
        &[r#"holds "rows == 2" at column 1: `rows` is not something a page has"#],
    );
}

#[test]
fn since_names_an_earlier_action_and_needs_a_before() {
    validate(
        &with_holds("count('.r') > before.count('.r')", Some("a1")),
        &rules(),
    )
    .expect("since the first action");
    for since in ["a13", "a99", ""] {
        let err = validate_err(&with_holds("count('.r') > before.count('.r')", Some(since)));
        assert!(
            err.problems()
                .iter()
                .any(|p| p.rule == Rule::Since && p.message.contains("not the id of an earlier")),
            "{since}: {err}"
        );
    }
    let err = validate_err(&with_holds("count('.r') > 1", Some("a2")));
    assert_one(
        &err,
        Rule::Since,
        &[r#"holds "count('.r') > 1" has since "a2" but reads nothing of before."#],
    );
    insta::assert_snapshot!(
        "holds_since_later",
        validate_err(&with_holds("count('.r') > before.count('.r')", Some("a13"))).to_string()
    );
}

#[test]
fn the_schema_knows_holds_and_the_sanitizer_tidies_it() {
    let holds = |condition: Value| edited("/actions/12/expect", Some(json!([condition])));
    let err = read_err(&holds(json!({ "kind": "holds" })));
    assert!(
        err.to_string()
            .contains("\"predicate\" is a required property"),
        "{err}"
    );
    let err = read_err(&holds(
        json!({ "kind": "holds", "predicate": "true", "frames": ["#f"] }),
    ));
    assert!(err.to_string().contains("Additional properties"), "{err}");
    let plan = Plan::from_json_str(
        &holds(json!({ "kind": "holds", "predicate": "count('.r') > 0" })).to_string(),
        &rules(),
    )
    .expect("a holds without since");
    assert_eq!(
        plan.actions[12].expect,
        [Postcondition::Holds {
            predicate: "count('.r') > 0".to_owned(),
            since: None
        }]
    );
    assert_eq!(
        sanitize::sanitize(
            json!({ "actions": [{ "id": "a1", "type": "wait_for", "expect": [
                { "Kind": "Holds", "predicate": " count('.r') > 0 ", "since": null, "why": "x" }
            ]}]})
        )["actions"][0]["expect"],
        json!([{ "kind": "holds", "predicate": "count('.r') > 0" }])
    );
}

#[test]
fn a_plan_nested_without_end_is_an_error_not_an_overflow() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let mut cases = vec![("10,000 arrays".to_owned(), deep(10_000))];
    for pointer in [
        "/task",
        "/actions",
        "/actions/0/target",
        "/actions/0/expect",
        "/extra",
    ] {
        let nested: Value = serde_json::from_str(&deep(120)).unwrap();
        let plan = if pointer == "/extra" {
            let mut plan = checkout_json();
            plan["extra"] = nested;
            plan
        } else {
            edited(pointer, Some(nested))
        };
        cases.push((format!("120 arrays at {pointer}"), plan.to_string()));
    }
    for (shape, text) in cases {
        let outcome = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let trusted = Plan::from_json_str(&text, &rules()).map(drop);
                let from_model = serde_json::from_str(&text)
                    .map(|value| parse_model_output(value, &rules()).map(drop));
                (trusted, from_model)
            })
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{shape}: the reader failed instead of answering"));
        let (trusted, from_model) = outcome;
        let err = trusted.expect_err(&shape);
        assert!(!err.to_string().is_empty(), "{shape}");
        // A model's plan loses the fields it should not have: only the extra one is sanitized away.
        if let Ok(from_model) = from_model {
            assert_eq!(from_model.is_ok(), shape.ends_with("/extra"), "{shape}");
        }
    }
}

#[test]
fn an_action_reads_as_typed_what_the_fills_before_it_typed() {
    let actions: Vec<Action> = serde_json::from_value(serde_json::json!([
        { "id": "a1", "type": "goto", "url": "/cart" },
        { "id": "a2", "type": "fill", "value": "-3" },
        { "id": "a3", "type": "select", "value": "Germany" },
        { "id": "a4", "type": "click" },
        { "id": "a5", "type": "click" }
    ]))
    .expect("actions");
    let submit = action_facts(&actions, 3);
    assert_eq!(submit.kind, "click");
    assert_eq!(submit.typed, ["-3", "Germany"]);
    // A fill types its own value, after the fills before it; a click after a click typed none.
    assert_eq!(action_facts(&actions, 2).typed, ["-3", "Germany"]);
    assert!(action_facts(&actions, 4).typed.is_empty());
    assert_eq!(action_facts(&actions, 0).url, "/cart");
}
