use super::*;

fn s(text: &str) -> String {
    text.to_owned()
}

fn within(text: &str) -> Option<String> {
    Some(s(text))
}

#[test]
fn every_step_form_parses() {
    let cases: Vec<(&str, StepKind)> = vec![
        ("go to /", StepKind::GoTo { path: s("/") }),
        (
            "go to /products?q=mug#top",
            StepKind::GoTo {
                path: s("/products?q=mug#top"),
            },
        ),
        (
            r#"click "Add to cart""#,
            StepKind::Click {
                name: s("Add to cart"),
                within: None,
            },
        ),
        (
            r#"click "Add to cart" in "Rust mug""#,
            StepKind::Click {
                name: s("Add to cart"),
                within: within("Rust mug"),
            },
        ),
        (
            r#"fill "Email" with "ada@example.com""#,
            StepKind::Fill {
                field: s("Email"),
                within: None,
                value: FillValue::Text(s("ada@example.com")),
            },
        ),
        (
            r#"fill "Coupon" with """#,
            StepKind::Fill {
                field: s("Coupon"),
                within: None,
                value: FillValue::Text(s("")),
            },
        ),
        (
            "fill \"Email\" with account.email",
            StepKind::Fill {
                field: s("Email"),
                within: None,
                value: FillValue::Account(s("email")),
            },
        ),
        (
            r#"fill "Password" in "Sign in" with account.pass-word_2"#,
            StepKind::Fill {
                field: s("Password"),
                within: within("Sign in"),
                value: FillValue::Account(s("pass-word_2")),
            },
        ),
        (
            r#"select "Express" in "Shipping""#,
            StepKind::Select {
                option: s("Express"),
                field: s("Shipping"),
            },
        ),
        (
            r#"check "I agree""#,
            StepKind::Check {
                name: s("I agree"),
                within: None,
            },
        ),
        (
            r#"check "Gift wrap" in "Options""#,
            StepKind::Check {
                name: s("Gift wrap"),
                within: within("Options"),
            },
        ),
        (
            r#"uncheck "Newsletter""#,
            StepKind::Uncheck {
                name: s("Newsletter"),
                within: None,
            },
        ),
        (
            r#"uncheck "Newsletter" in "Footer""#,
            StepKind::Uncheck {
                name: s("Newsletter"),
                within: within("Footer"),
            },
        ),
        (
            "press Enter",
            StepKind::Press {
                key: s("Enter"),
                field: None,
                within: None,
            },
        ),
        (
            "press arrowdown",
            StepKind::Press {
                key: s("ArrowDown"),
                field: None,
                within: None,
            },
        ),
        (
            r#"press Escape in "New todo""#,
            StepKind::Press {
                key: s("Escape"),
                field: s("New todo").into(),
                within: None,
            },
        ),
        (
            r#"press shift+tab in "Title" in "Row 2""#,
            StepKind::Press {
                key: s("Shift+Tab"),
                field: s("Title").into(),
                within: within("Row 2"),
            },
        ),
        (
            r#"type " a" into "New todo""#,
            StepKind::Type {
                text: s(" a"),
                field: s("New todo"),
                within: None,
            },
        ),
        (
            r#"focus "Search" in "Header""#,
            StepKind::Focus {
                name: s("Search"),
                within: within("Header"),
            },
        ),
        ("go forward", StepKind::Forward),
        ("Go Forward", StepKind::Forward),
        (
            r#"press "Tab""#,
            StepKind::Press {
                key: s("Tab"),
                field: None,
                within: None,
            },
        ),
        (
            r#"wait for "Order confirmed""#,
            StepKind::WaitFor {
                name: s("Order confirmed"),
                within: None,
            },
        ),
        (
            r#"wait for "Total" in "Cart""#,
            StepKind::WaitFor {
                name: s("Total"),
                within: within("Cart"),
            },
        ),
        (
            "use accept-cookies",
            StepKind::Use {
                fragment: s("accept-cookies"),
            },
        ),
        (
            r#"expect text "Thank you""#,
            StepKind::Expect(Expectation::Text(s("Thank you"))),
        ),
        (
            r#"expect no text "Error""#,
            StepKind::Expect(Expectation::NoText(s("Error"))),
        ),
        (
            "expect url /orders/*",
            StepKind::Expect(Expectation::Url(s("/orders/*"))),
        ),
        (
            r#"expect url "/search?q=*""#,
            StepKind::Expect(Expectation::Url(s("/search?q=*"))),
        ),
        (
            r#"expect "Quantity" value "2""#,
            StepKind::Expect(Expectation::Value {
                field: s("Quantity"),
                value: s("2"),
            }),
        ),
        (
            r#"expect "Coupon" value """#,
            StepKind::Expect(Expectation::Value {
                field: s("Coupon"),
                value: s(""),
            }),
        ),
        (
            r#"expect "Cart" visible"#,
            StepKind::Expect(Expectation::Visible(s("Cart"))),
        ),
        (
            r#"expect "Spinner" hidden"#,
            StepKind::Expect(Expectation::Hidden(s("Spinner"))),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_step(text), Ok(expected), "step: {text}");
    }
}

#[test]
fn verbs_and_keywords_are_case_insensitive_and_spacing_is_free() {
    let cases: Vec<(&str, StepKind)> = vec![
        ("  Go   TO   /cart  ", StepKind::GoTo { path: s("/cart") }),
        (
            "CLICK \"Buy\"   IN \"Mug\"",
            StepKind::Click {
                name: s("Buy"),
                within: within("Mug"),
            },
        ),
        (
            "Fill \"Email\" WITH Account.email",
            StepKind::Fill {
                field: s("Email"),
                within: None,
                value: FillValue::Account(s("email")),
            },
        ),
        (
            "PRESS escape",
            StepKind::Press {
                key: s("Escape"),
                field: None,
                within: None,
            },
        ),
        (
            "Wait For \"Done\"",
            StepKind::WaitFor {
                name: s("Done"),
                within: None,
            },
        ),
        (
            "EXPECT No Text \"Oops\"",
            StepKind::Expect(Expectation::NoText(s("Oops"))),
        ),
        (
            "expect \"Menu\" VISIBLE",
            StepKind::Expect(Expectation::Visible(s("Menu"))),
        ),
        (
            "\tclick\t\"Buy\"",
            StepKind::Click {
                name: s("Buy"),
                within: None,
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_step(text), Ok(expected), "step: {text:?}");
    }
}

#[test]
fn quoted_text_keeps_escapes_spaces_and_unicode() {
    assert_eq!(
        parse_step(r#"click "Say \"hi\"""#),
        Ok(StepKind::Click {
            name: s(r#"Say "hi""#),
            within: None,
        })
    );
    assert_eq!(
        parse_step(r#"fill "Path" with "C:\\temp\\""#),
        Ok(StepKind::Fill {
            field: s("Path"),
            within: None,
            value: FillValue::Text(s(r"C:\temp\")),
        })
    );
    assert_eq!(
        parse_step(r#"expect text "  two  spaces — ünïcode ""#),
        Ok(StepKind::Expect(Expectation::Text(s(
            "  two  spaces — ünïcode "
        ))))
    );
    // Keywords inside quotes are text.
    assert_eq!(
        parse_step(r#"click "in" in "with""#),
        Ok(StepKind::Click {
            name: s("in"),
            within: within("with"),
        })
    );
}

#[test]
fn scenario_expectations_parse_with_or_without_expect() {
    let cases = [
        (r#"text "Thank you""#, Expectation::Text(s("Thank you"))),
        (
            r#"expect text "Thank you""#,
            Expectation::Text(s("Thank you")),
        ),
        (r#"No Text "Error""#, Expectation::NoText(s("Error"))),
        ("url /orders/*", Expectation::Url(s("/orders/*"))),
        (
            r#""Qty" value "1""#,
            Expectation::Value {
                field: s("Qty"),
                value: s("1"),
            },
        ),
        (r#""Cart" visible"#, Expectation::Visible(s("Cart"))),
        (r#"EXPECT "Cart" hidden"#, Expectation::Hidden(s("Cart"))),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_expectation(text), Ok(expected), "expectation: {text}");
    }
}

#[test]
fn step_remembers_text_and_line() {
    let step = Step::parse("press Enter", 7).unwrap();
    assert_eq!(step.text, "press Enter");
    assert_eq!(step.line, 7);
    assert_eq!(step.kind.verb(), "press");
    let fill = parse_step("fill \"Email\" with account.email").unwrap();
    assert_eq!(fill.account_key(), Some("email"));
}

/// (step, message, column, a fragment the hint must contain)
#[test]
fn errors_say_what_where_and_what_to_write() {
    let cases = [
        ("", "empty step", 1, "one action per step"),
        ("   ", "empty step", 1, "one action per step"),
        (
            r#"tap "Buy""#,
            r#"unknown step verb "tap""#,
            1,
            "did you mean `click`?",
        ),
        (
            r#"  clikc "Buy""#,
            r#"unknown step verb "clikc""#,
            3,
            "did you mean `click`?",
        ),
        (
            "goto /cart",
            r#"unknown step verb "goto""#,
            1,
            "did you mean `go to`?",
        ),
        (
            "dance",
            r#"unknown step verb "dance""#,
            1,
            "steps start with one of: go to, click, fill, select, check, uncheck, press, wait for, use, expect",
        ),
        (
            r#""Buy" click"#,
            "a step starts with a verb, not with quoted text",
            1,
            "go to, click",
        ),
        (r#"click "Buy"#, "unterminated quote", 7, "close the text"),
        (
            r#"click "Buy" in "Mug"#,
            "unterminated quote",
            16,
            "close the text",
        ),
        (
            r#"click "a\tb""#,
            r"unknown escape `\t` in quoted text",
            9,
            r"write `\\` for a backslash",
        ),
        (
            r#"fill "Email" "ada@example.com""#,
            r#"expected "with" after the field, found "ada@example.com""#,
            14,
            "with account.KEY",
        ),
        (
            r#"fill "Email""#,
            r#"fill needs "with" and a value"#,
            13,
            r#"fill "FIELD" with "TEXT""#,
        ),
        (
            r#"fill "Email" with"#,
            r#"expected quoted text or account.KEY after "with""#,
            18,
            "account.KEY",
        ),
        (
            "fill \"Email\" with ada",
            r#"expected quoted text or account.KEY after "with", found `ada`"#,
            19,
            r#"with "ada""#,
        ),
        (
            "fill \"Email\" with account.",
            "invalid account key in `account.`",
            19,
            "account.email",
        ),
        (
            r#"fill "Email" with "x" in "Form""#,
            r#""in" must come right after the field"#,
            23,
            r#"fill "FIELD" in "CONTAINER" with "TEXT""#,
        ),
        (
            "press Return",
            r#"unknown key `Return` for "press""#,
            7,
            "did you mean `Enter`?",
        ),
        (
            "press Entr",
            r#"unknown key `Entr` for "press""#,
            7,
            "use one of Enter, Tab, Escape",
        ),
        ("press", r#"expected a key after "press""#, 6, "press Enter"),
        (
            r#"click "Buy" now"#,
            "unexpected `now` after the end of the step",
            13,
            "put each action on its own line",
        ),
        (
            r#"click "Buy" "Now""#,
            r#"unexpected "Now" after the end of the step"#,
            13,
            r#"click "NAME" [in "CONTAINER"]"#,
        ),
        (
            "click Add to cart",
            "expected a quoted name after \"click\", found `Add`",
            7,
            r#""Add to cart""#,
        ),
        (
            "click",
            r#"expected a quoted name after "click""#,
            6,
            "write it as",
        ),
        (r#"click """#, "the name is empty", 7, "a person sees"),
        (
            r#"click "Buy" in"#,
            r#"expected a quoted container after "in""#,
            15,
            "CONTAINER",
        ),
        (
            "go /cart",
            r#"expected "to" after "go", found `/cart`"#,
            4,
            "go to /path",
        ),
        (
            "go to cart",
            r#"the path must start with "/", found `cart`"#,
            7,
            "go to /cart",
        ),
        (
            "go to https://shop.example/cart",
            r#""go to" takes a path, not a full URL: `https://shop.example/cart`"#,
            7,
            "WINDUP_BASE_URL",
        ),
        (
            "go to",
            r#"expected a path after "go to""#,
            6,
            "go to /path",
        ),
        (
            r#"select "Express""#,
            r#"expected "in" after the option"#,
            17,
            r#"select "OPTION" in "FIELD""#,
        ),
        (
            r#"wait "Done""#,
            r#"expected "for" after "wait", found "Done""#,
            6,
            "wait for",
        ),
        (
            "use",
            r#"expected a fragment name after "use""#,
            4,
            "use FRAGMENT",
        ),
        (
            "use a/b",
            "invalid fragment name `a/b`",
            5,
            "letters, digits",
        ),
        (
            "expect",
            r#"expected what to expect after "expect""#,
            7,
            "`expect text \"TEXT\"`",
        ),
        (
            r#"expect txt "Hi""#,
            "unknown expectation `txt`",
            8,
            "did you mean `text`?",
        ),
        (
            r#"expect "Cart""#,
            r#"expected "value", "visible" or "hidden" after the name "Cart""#,
            14,
            r#"expect text "Cart""#,
        ),
        (
            "expect url",
            r#"expected a URL pattern after "url""#,
            11,
            "/orders/*",
        ),
        (
            r#"expect text """#,
            "the text is empty",
            13,
            "a person sees",
        ),
        (
            r#"expect no "Oops""#,
            r#"expected "text" after "no", found "Oops""#,
            11,
            r#"expect no text "TEXT""#,
        ),
        (
            r#"expect "Cart" visible now"#,
            "unexpected `now` after the end of the step",
            23,
            r#"expect "NAME" visible"#,
        ),
    ];
    let mut mismatches = Vec::new();
    for (text, message, column, hint) in cases {
        match parse_step(text) {
            Ok(kind) => mismatches.push(format!("{text:?} parsed as {kind:?}")),
            Err(err) => {
                if err.message != message || err.column != column || !err.hint.contains(hint) {
                    mismatches.push(format!(
                        "{text:?}: got {:?} at {} (hint {:?}); want {message:?} at {column} (hint with {hint:?})",
                        err.message, err.column, err.hint
                    ));
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn expectation_errors() {
    let err = parse_expectation("  ").unwrap_err();
    assert_eq!(err.message, "empty expectation");
    let err = parse_expectation("txt \"Hi\"").unwrap_err();
    assert_eq!(err.message, "unknown expectation `txt`");
    assert_eq!(err.column, 1);
    assert!(err.hint.contains("`text \"TEXT\"`"), "{}", err.hint);
    assert!(!err.hint.contains("`expect "), "{}", err.hint);
    let err = parse_expectation("\"Cart\" shown").unwrap_err();
    assert_eq!(err.column, 8);
    let err = parse_expectation("expect").unwrap_err();
    assert_eq!(err.message, "empty expectation");
}

#[test]
fn error_display_is_the_message() {
    let err = parse_step("tap \"Buy\"").unwrap_err();
    assert_eq!(err.to_string(), r#"unknown step verb "tap""#);
    insta::assert_snapshot!("unknown_verb_hint", err.hint);
    let err = parse_step("press Return").unwrap_err();
    insta::assert_snapshot!("unknown_key_hint", err.hint);
}

#[test]
fn hover_and_controls_named_by_their_role_parse() {
    let cases = [
        (
            r#"hover "Buy milk""#,
            StepKind::Hover {
                name: s("Buy milk"),
                within: None,
            },
        ),
        (
            r#"hover "Delete" in "Buy milk""#,
            StepKind::Hover {
                name: s("Delete"),
                within: within("Buy milk"),
            },
        ),
        (
            r#"check checkbox in "Buy milk""#,
            StepKind::ByRole {
                verb: RoleVerb::Check,
                role: s("checkbox"),
                within: s("Buy milk"),
            },
        ),
        (
            r#"Uncheck Switch in "Dark mode""#,
            StepKind::ByRole {
                verb: RoleVerb::Uncheck,
                role: s("switch"),
                within: s("Dark mode"),
            },
        ),
        (
            r#"click button in "Q3 report""#,
            StepKind::ByRole {
                verb: RoleVerb::Click,
                role: s("button"),
                within: s("Q3 report"),
            },
        ),
        (
            r#"hover link in "Docs""#,
            StepKind::ByRole {
                verb: RoleVerb::Hover,
                role: s("link"),
                within: s("Docs"),
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_step(text).unwrap(), expected, "{text}");
    }
    // A quoted word is a name, never a role.
    assert_eq!(
        parse_step(r#"click "button""#).unwrap(),
        StepKind::Click {
            name: s("button"),
            within: None
        }
    );
    assert_eq!(
        parse_step(r#"check checkbox in "Buy milk""#)
            .unwrap()
            .verb(),
        "check"
    );
}

#[test]
fn a_role_without_a_container_or_a_hover_without_a_name_is_located() {
    let err = parse_step("check checkbox").unwrap_err();
    assert!(err.message.contains("needs `in \"CONTAINER\"`"), "{err:?}");
    assert!(err.hint.contains(r#"check checkbox in "…""#), "{err:?}");
    assert_eq!(err.column, 15);

    let err = parse_step(r#"click button in "Row" now"#).unwrap_err();
    assert_eq!(err.column, 23, "{err:?}");

    let err = parse_step("hover Buy milk").unwrap_err();
    assert!(
        err.message
            .contains("expected a quoted name after \"hover\""),
        "{err:?}"
    );
    assert!(err.hint.contains(r#""Buy milk""#), "{err:?}");

    let err = parse_step("mouseover \"Buy milk\"").unwrap_err();
    assert!(err.hint.contains("did you mean `hover`?"), "{err:?}");
}

#[test]
fn double_click_reload_and_back_parse() {
    assert_eq!(
        parse_step(r#"double-click "Place order""#),
        Ok(StepKind::DoubleClick {
            name: "Place order".to_owned(),
            within: None
        })
    );
    assert_eq!(parse_step("reload"), Ok(StepKind::Reload));
    assert_eq!(parse_step("Go back"), Ok(StepKind::Back));
    let err = parse_step("reload now").unwrap_err();
    assert!(err.hint.contains("reload"), "{err:?}");
    let err = parse_step("refresh").unwrap_err();
    assert!(err.hint.contains("did you mean `reload`?"), "{err:?}");
}

fn holds(source: &str, since: Option<usize>) -> Expectation {
    Expectation::Holds {
        predicate: crate::model::invariant::Predicate::parse(source).expect("the predicate parses"),
        since,
    }
}

#[test]
fn a_holds_predicate_is_written_in_double_or_single_quotes_or_bare() {
    let cases = [
        (
            r#"expect holds "count('.row') == 2""#,
            "count('.row') == 2",
            None,
        ),
        (
            r#"expect holds 'count(".row") == 2'"#,
            r#"count(".row") == 2"#,
            None,
        ),
        (
            r#"expect holds count(".row") == 2"#,
            r#"count(".row") == 2"#,
            None,
        ),
        (
            r#"expect holds "text(\".x\") == \"a\\\\b\"""#,
            r#"text(".x") == "a\\b""#,
            None,
        ),
        (
            r#"expect holds 'text(".x") == \'it\''"#,
            r#"text(".x") == 'it'"#,
            None,
        ),
        // A quoted text that does not end the step is part of a bare predicate.
        (
            r#"expect holds "a" in texts(".tag")"#,
            r#""a" in texts(".tag")"#,
            None,
        ),
        (r#"  EXPECT   HOLDS   "true"  "#, "true", None),
        (
            r#"expect holds "count('.row') == before.count('.row') + 1" since step 2"#,
            "count('.row') == before.count('.row') + 1",
            Some(2),
        ),
        (
            r#"expect holds count('.row') > before.count('.row') SINCE Step 1"#,
            "count('.row') > before.count('.row')",
            Some(1),
        ),
    ];
    for (text, source, since) in cases {
        assert_eq!(
            parse_step(text),
            Ok(StepKind::Expect(holds(source, since))),
            "{text}"
        );
    }
    // At the end of a scenario, with or without `expect`, `before.` is the page before the
    // last step.
    for text in [
        r#"holds "count('.row') == before.count('.row') + 1""#,
        r#"expect holds "count('.row') == before.count('.row') + 1""#,
    ] {
        assert_eq!(
            parse_expectation(text),
            Ok(holds("count('.row') == before.count('.row') + 1", None)),
            "{text}"
        );
    }
}

#[test]
fn a_holds_step_that_does_not_parse_is_located_in_the_step_with_the_predicate_s_hint() {
    let cases = [
        (
            "expect holds",
            "expected a predicate after `holds`",
            13,
            "expect holds \"count('.row') == number('.count')\"",
        ),
        (
            r#"expect holds "count('.row' == 2""#,
            "the predicate does not parse",
            32,
            "write a CEL expression",
        ),
        (
            r#"expect holds "rows == 2""#,
            "`rows` is not something a page has",
            15,
            "count/visible",
        ),
        // CEL places a call at its parenthesis.
        (
            r#"expect holds 'text(".a") == foo(".b")'"#,
            "`foo` is not a function of the predicate language",
            32,
            "sum(LIST)",
        ),
        (
            r#"expect holds "count('.row') > before.count('.row')""#,
            "`before.` in an `expect holds` step needs `since step N`",
            15,
            "since step 2",
        ),
        (
            r#"expect holds "count('.row') > before.count('.row')" since 2"#,
            "`since` needs `step N`",
            53,
            "since step N",
        ),
        (
            r#"expect holds "count('.row') > before.count('.row')" since step two"#,
            "`two` is not a step number",
            64,
            "an earlier step",
        ),
    ];
    for (text, message, column, hint) in cases {
        let err = parse_step(text).expect_err(text);
        assert!(err.message.starts_with(message), "{text}: {err:?}");
        assert_eq!(err.column, column, "{text}: {err:?}");
        assert!(err.hint.contains(hint), "{text}: {err:?}");
    }
    let err = parse_expectation("hold \"true\"").unwrap_err();
    assert!(err.hint.contains("did you mean `holds`?"), "{err:?}");
    let err = parse_expectation("holds \"before.nope == 1\"").unwrap_err();
    assert_eq!(err.message, "`before.nope` is not something a page had");
    insta::assert_snapshot!(
        "holds_needs_since_hint",
        parse_step(cases[4].0).unwrap_err().hint
    );
}

#[test]
fn since_must_name_an_earlier_step() {
    let step = parse_step(r#"expect holds "count('.r') > before.count('.r')" since step 3"#)
        .expect("parses");
    let StepKind::Expect(expectation) = step else {
        panic!("{step:?}");
    };
    let written = r#"expect holds "count('.r') > before.count('.r')" since step 3"#;
    assert_eq!(check_since(&expectation, written, 4), Ok(()));
    let err = check_since(&expectation, written, 3).unwrap_err();
    assert_eq!(
        err.message,
        "`since step 3` does not name a step before this one"
    );
    assert_eq!(
        (err.column, err.hint.as_str()),
        (49, "name one of steps 1 to 2")
    );
    let err = check_since(&expectation, written, 1).unwrap_err();
    assert!(err.message.contains("no step comes before this"), "{err:?}");
}
