//! A finding's regression test in its second dialect: the Playwright spec the audit writes
//! beside the Windup scenario, type-checked by `tsc --noEmit` and run by Playwright with the
//! system's Chromium, against the shop with its bug (it fails) and without (it passes). Then the
//! spec's predicate runtime against Windup's own: the same predicates over the same page
//! readings give the same verdicts. The npm tools are those of `tools/playwright`, installed
//! with `npm ci` the first time (CI does it beforehand).

mod common;

use std::time::Duration;

use common::npm::{playwright, spec_dir, type_check};

use windup_core::engine::audit::playwright::{prelude, translate_predicate};
use windup_core::engine::audit::{Finding, TestPlace, write_test};
use windup_core::model::invariant::{
    Field, Found, Observation, PageEvents, Predicate, Probe, Severity, Source, Verdict,
};
use windup_core::model::plan::{Action, ActionKind, Identity, Target};
use windup_shop::BugSet;

fn click(id: &str, selector: &str, name: &str) -> Action {
    let mut action = Action::new(id, ActionKind::Click);
    action.target = Some(Target {
        frames: Vec::new(),
        selector: selector.to_owned(),
        identity: Identity {
            tag: "button".to_owned(),
            role: Some("button".to_owned()),
            name: Some(name.to_owned()),
            ..Identity::default()
        },
    });
    action
}

/// The shop's cart-total finding as the audit proves it (the shrunk actions of
/// `cart-subtotal-is-sum-of-lines` from the audit of the shop with every bug).
fn cart_finding() -> Finding {
    let add = r#"form[action="/cart/add"] button[type="submit"]"#;
    let mut home = Action::new("x2", ActionKind::Goto);
    home.url = Some("/".to_owned());
    Finding {
        id: "cart-subtotal-is-sum-of-lines-1".to_owned(),
        invariant_id: "cart-subtotal-is-sum-of-lines".to_owned(),
        source: Source::User,
        severity: Severity::High,
        title: "Broken by the same submission twice".to_owned(),
        expected: "The cart's subtotal is the sum of its line totals".to_owned(),
        actual: "money(\"[data-testid=cart-subtotal]\") = 1200".to_owned(),
        impact: "The app breaks a rule its team wrote down.".to_owned(),
        steps: vec!["click \"Add to cart\"".to_owned()],
        actions: vec![
            click("x1", add, "Add to cart"),
            home,
            click("x3", add, "Add to cart"),
        ],
        predicate:
            r#"money("[data-testid=cart-subtotal]") == sum(moneys("[data-testid^=line-total-]"))"#
                .to_owned(),
        since: None,
        within: None,
        screenshots: Vec::new(),
        attack: "the same submission twice".to_owned(),
        fingerprint: "f".to_owned(),
        found_after_actions: 3,
        found_after: Duration::from_secs(1),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shop_finding_s_spec_type_checks_fails_on_the_bug_and_passes_without() {
    let specs = spec_dir();
    let root = tempfile::tempdir().unwrap();
    let test = write_test(
        &cart_finding(),
        &TestPlace {
            dir: specs.path(),
            root: root.path(),
            start_url: "/",
            base_url: "http://127.0.0.1:1",
            account: None,
            account_keys: &Default::default(),
            note: "run A-1, seed 1",
        },
    )
    .expect("the test is written");
    let spec = test.spec.expect("the plan has a Playwright spec").path;
    assert_eq!(
        spec,
        specs.path().join("cart-subtotal-is-sum-of-lines-1.spec.ts")
    );
    let checked = type_check(std::slice::from_ref(&spec));
    assert!(
        checked.status.success(),
        "tsc --noEmit: {}",
        common::text(&checked)
    );

    let buggy = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: BugSet::all(),
        ..Default::default()
    })
    .await
    .unwrap();
    let failed = playwright(specs.path(), buggy.url());
    let output = common::text(&failed);
    assert!(
        !failed.status.success(),
        "it passed on the buggy shop: {output}"
    );
    assert!(
        output.contains("expected holds") && output.contains("it is false: money("),
        "it fails saying what it read: {output}"
    );

    let correct = windup_shop::spawn(windup_shop::ShopOptions::default())
        .await
        .unwrap();
    let passed = playwright(specs.path(), correct.url());
    let output = common::text(&passed);
    assert!(
        passed.status.success(),
        "it failed on the correct shop: {output}"
    );
    assert!(output.contains("1 passed"), "{output}");
}

/// One page reading, for both runtimes: probes and what each found.
struct Reading {
    url: &'static str,
    found: Vec<(&'static str, Field, Vec<&'static str>)>,
    events: PageEvents,
    negative_amounts: Vec<&'static str>,
}

impl Reading {
    fn observation(&self) -> Observation {
        Observation {
            url: self.url.to_owned(),
            title: "Cart".to_owned(),
            status: 200,
            found: self
                .found
                .iter()
                .map(|(selector, field, texts)| Found {
                    probe: Probe {
                        selector: (*selector).to_owned(),
                        field: *field,
                    },
                    texts: texts.iter().map(|t| (*t).into()).collect(),
                })
                .collect(),
            events: self.events.clone(),
            broken_texts: Vec::new(),
            negative_amounts: self
                .negative_amounts
                .iter()
                .map(|t| (*t).to_owned())
                .collect(),
            pending: 0,
            edges: Default::default(),
        }
    }

    /// The observe script's answer with the same content, and its probes.
    fn seen(&self) -> (String, String) {
        let probes: Vec<_> = self
            .found
            .iter()
            .map(|(selector, field, _)| Probe {
                selector: (*selector).to_owned(),
                field: *field,
            })
            .collect();
        let seen = serde_json::json!({
            "url": self.url, "title": "Cart", "status": 200,
            "found": self.found.iter().map(|(_, _, texts)| texts.clone()).collect::<Vec<_>>(),
            "events": self.events, "broken_texts": [], "negative_amounts": self.negative_amounts,
            "pending": 0,
        });
        (seen.to_string(), serde_json::to_string(&probes).unwrap())
    }
}

fn cart(subtotal: &'static str, lines: Vec<&'static str>) -> Reading {
    Reading {
        url: "http://127.0.0.1:8080/cart?coupon=1#top",
        found: vec![
            ("#subtotal", Field::Text, vec![subtotal]),
            (".line", Field::Text, lines),
            ("#qty", Field::Value, vec!["2"]),
            (".missing", Field::Text, vec![]),
        ],
        events: PageEvents::default(),
        negative_amounts: vec![],
    }
}

fn verdict(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Holds => "holds",
        Verdict::Violated { .. } => "violated",
        Verdict::NotApplicable { .. } => "not-applicable",
        Verdict::Broken { .. } => "broken",
    }
}

#[test]
fn the_spec_s_runtime_gives_windup_s_verdicts() {
    let failing = PageEvents {
        errors: vec!["Uncaught TypeError: x".to_owned()],
        failed_requests: vec![windup_core::model::invariant::FailedRequest {
            method: "POST".to_owned(),
            url: "http://127.0.0.1:8080/api".to_owned(),
            status: 500,
        }],
        markers: vec!["m1".to_owned()],
        ..PageEvents::default()
    };
    let mut broken = cart("1.234,50 €", vec!["$1,000.00", "234,50 €", "free"]);
    broken.events = failing;
    broken.negative_amounts = vec!["-$5.00"];
    let readings = [
        cart("$45.00", vec!["$40.00", "$5.00"]),
        cart("$45.00", vec!["$40.00", "$4.99"]),
        broken,
        cart("(12.30)", vec!["−5,00 €", "CHF 1'234.5"]),
    ];
    let predicates = [
        r##"money("#subtotal") == sum(moneys(".line"))"##,
        r##"moneys(".line").all(m, m > 0) && size(texts(".line")) >= 2"##,
        r##"moneys(".line").exists(m, m < 0) || money("#subtotal") / 100 > 40"##,
        r##"moneys(".line").map(m, m * 2).filter(m, m > 900) == [8000, 1000]"##,
        r##"number("#qty") + 1 == 3 && input("#qty") == "2" && int(input("#qty")) * 2 == 4"##,
        r##"text(".missing") == "" || count(".line") == 2"##,
        r##"count(".line") == 3 && text(".missing") == """##,
        r##"size(errors) == 0 && failed_requests.all(r, r.status < 500) && size(markers) == 0"##,
        r##"size(negative_amounts) == 0 || negative_amounts[0] == -500"##,
        r##"path == "/cart" && hash == "#top" && url.contains("coupon=1") && "m1" in markers"##,
        r##"texts(".line").exists(t, t.startsWith("$") && t.endsWith("0")) && title.matches("^C")"##,
        r##"max(moneys(".line")) - min(moneys(".line")) > 0 ? visible(".line") : !visible(".line")"##,
        r##"texts(".line")[0] == "$40.00" && {"a": 1}["a"] == 1"##,
        r##"number(".line") == 40"##,
        r##"money("#subtotal") % 7 == 3 && double(count(".line")) / 2.0 == 1.0"##,
    ];
    let mut expected = Vec::new();
    let mut cases = String::new();
    for (p, source) in predicates.iter().enumerate() {
        let predicate = Predicate::parse(source).unwrap_or_else(|e| panic!("{source}: {e}"));
        let js = translate_predicate(&predicate).unwrap_or_else(|e| panic!("{source}: {e}"));
        for (r, reading) in readings.iter().enumerate() {
            let rust = verdict(&predicate.check(&reading.observation(), None, None));
            let (seen, probes) = reading.seen();
            expected.push(format!("{p}/{r} {rust}"));
            cases.push_str(&format!(
                "  out.push(`{p}/{r} ${{run(() => {{ const now = reader({seen}, {probes}); \
                 const before = now; const action = {{}} as any; return {js}; }})}}`);\n"
            ));
        }
    }
    let specs = spec_dir();
    let file = specs.path().join("verdicts.spec.ts");
    let body = format!(
        "{}\nfunction run(check: () => unknown): string {{\n  try {{\n    const value = check();\n    \
         return value === true ? 'holds' : value === false ? 'violated' : 'broken';\n  }} catch (error) {{\n    \
         return error instanceof NotApplicable ? 'not-applicable' : 'broken';\n  }}\n}}\n\n\
         test('verdicts', () => {{\n  const out: string[] = [];\n{cases}  console.log('VERDICTS ' + JSON.stringify(out));\n  \
         void holds; void settled; void urlGlob; void account; void expect;\n}});\n",
        prelude("http://127.0.0.1:8080")
    );
    std::fs::write(&file, body).unwrap();
    let checked = type_check(std::slice::from_ref(&file));
    assert!(checked.status.success(), "tsc: {}", common::text(&checked));
    let ran = playwright(specs.path(), "http://127.0.0.1:8080");
    let output = common::text(&ran);
    assert!(ran.status.success(), "{output}");
    let line = output
        .lines()
        .find_map(|l| l.strip_prefix("VERDICTS "))
        .unwrap_or_else(|| panic!("no verdicts: {output}"));
    let got: Vec<String> = serde_json::from_str(line).unwrap();
    let differ: Vec<String> = expected
        .iter()
        .zip(&got)
        .filter(|(a, b)| a != b)
        .map(|(windup, spec)| {
            let p: usize = windup.split('/').next().unwrap().parse().unwrap();
            format!("{} — Windup: {windup}, spec: {spec}", predicates[p])
        })
        .collect();
    assert_eq!(got.len(), expected.len(), "{output}");
    assert!(
        differ.is_empty(),
        "the runtimes disagree:\n{}",
        differ.join("\n")
    );
    // Not every case holds: the readings exercise every verdict.
    for kind in ["holds", "violated", "not-applicable"] {
        assert!(
            expected.iter().any(|e| e.ends_with(kind)),
            "no case is {kind}: {expected:?}"
        );
    }
}
