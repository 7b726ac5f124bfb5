use super::*;
use crate::model::plan::Identity;

fn translated(source: &str) -> String {
    cel::translate(&Predicate::parse(source).expect("it parses")).expect("it translates")
}

#[test]
fn predicates_translate_into_the_runtime_s_cel() {
    assert_eq!(
        translated(r#"money("[data-testid=cart-subtotal]") == sum(moneys(".line"))"#),
        r#"cel.eq(now.read("money", "[data-testid=cart-subtotal]"), cel.sum(now.read("moneys", ".line")))"#
    );
    assert_eq!(
        translated("count('li') == before.count('li') + 1 && size(errors) == 0"),
        r#"cel.and(() => cel.eq(now.read("count", "li"), cel.add(before.read("count", "li"), 1)), () => cel.eq(cel.size(now.errors), 0))"#
    );
    assert_eq!(
        translated("before.url != url"),
        "!cel.eq(before.url, now.url)"
    );
    let all = translated(r#"texts(".todo label").all(t, t != "")"#);
    assert!(
        all.starts_with("((range: unknown) => { let v___result__: any = true;")
            || all.contains("for (const v_t of cel.items(range))"),
        "{all}"
    );
    assert!(
        all.ends_with(r#"})(now.read("texts", ".todo label"))"#),
        "{all}"
    );
    assert_eq!(
        translated("action.value in texts('li')"),
        r#"cel.in(cel.select(action, "value"), now.read("texts", "li"))"#
    );
}

#[test]
fn what_the_runtime_cannot_check_is_said() {
    let err = cel::translate(&Predicate::parse("type(url) == type('')").unwrap()).unwrap_err();
    assert!(err.to_string().contains("`type`"), "{err}");
}

fn target(selector: &str, name: &str) -> Option<Target> {
    Some(Target {
        frames: Vec::new(),
        selector: selector.to_owned(),
        identity: Identity {
            tag: "button".to_owned(),
            name: Some(name.to_owned()),
            ..Identity::default()
        },
    })
}

fn cart_plan() -> Plan {
    let mut add = Action::new("a1", ActionKind::Click);
    add.target = target(r#"form[action="/cart/add"] button"#, "Add to cart");
    let mut again = Action::new("a2", ActionKind::Goto);
    again.url = Some("/".to_owned());
    let mut email = Action::new("a3", ActionKind::Fill);
    email.target = target("#email", "Email");
    email.value_ref = Some("account.email".to_owned());
    let mut last = add.clone();
    last.id = "a4".to_owned();
    last.expect = vec![Postcondition::Holds {
        predicate:
            r#"money("[data-testid=cart-subtotal]") == sum(moneys("[data-testid^=line-total-]"))
  && count(".line") >= before.count(".line")"#
                .to_owned(),
        since: None,
    }];
    Plan {
        plan_version: crate::model::plan::PLAN_VERSION.to_owned(),
        scenario_id: "cart-subtotal-1".to_owned(),
        task: "Regression for an audit finding".to_owned(),
        start_url: "/".to_owned(),
        generated_by: crate::model::plan::GeneratedBy {
            planner: crate::model::plan::PlannerKind::Audit,
            provider: None,
            model: None,
            at: "2026-12-02T00:00:00Z".to_owned(),
        },
        actions: vec![add, again, email, last],
    }
}

static ACCOUNT: std::sync::LazyLock<BTreeMap<String, String>> =
    std::sync::LazyLock::new(|| [("email".to_owned(), "SHOP_EMAIL".to_owned())].into());

fn context() -> SpecContext<'static> {
    SpecContext {
        base_url: "http://127.0.0.1:8080",
        account: &ACCOUNT,
        header: vec!["Found by `cargo windup audit`: the subtotal".to_owned()],
    }
}

/// The test itself, without the runtime every spec carries.
fn body(spec: &str) -> &str {
    &spec[spec.find("\ntest(").expect("a test")..]
}

#[test]
fn a_plan_renders_as_one_playwright_test() {
    let spec = render(&cart_plan(), &context()).expect("it renders");
    assert!(spec.starts_with("// Found by `cargo windup audit`: the subtotal\n"));
    assert!(spec.contains("import { test, expect, type Page } from '@playwright/test';"));
    assert!(
        spec.contains(
            r#"const BASE_URL = process.env.WINDUP_BASE_URL ?? "http://127.0.0.1:8080";"#
        )
    );
    assert!(!spec.contains("__OBSERVE"), "the page scripts are in it");
    assert!(!spec.contains("demo@"), "no account value in it");
    insta::assert_snapshot!(body(&spec));
}

#[test]
fn a_plan_the_spec_cannot_state_is_refused_with_its_action() {
    let mut plan = cart_plan();
    plan.actions[2].value_ref = Some("account.token".to_owned());
    let err = render(&plan, &context()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "action a3: account.token names no key of the account in windup.toml"
    );
    let mut plan = cart_plan();
    plan.actions[1] = Action::new("a2", ActionKind::Use);
    assert_eq!(
        render(&plan, &context()).unwrap_err().to_string(),
        "action a2: a fragment has no Playwright form"
    );
}

#[test]
fn a_person_s_moves_render_as_playwright_s_own() {
    let mut plan = cart_plan();
    let field = target(".new-todo", "New todo");
    let mut typed = Action::new("a1", ActionKind::Type);
    typed.target = field.clone();
    typed.value = Some(" a".to_owned());
    let mut focus = Action::new("a2", ActionKind::Focus);
    focus.target = field.clone();
    let mut escape = Action::new("a3", ActionKind::Press);
    escape.target = field;
    escape.key = Some("Shift+Tab".to_owned());
    let forward = Action::new("a4", ActionKind::Forward);
    plan.actions.splice(0..3, [typed, focus, escape, forward]);
    let spec = render(&plan, &context()).expect("it renders");
    let field = r#"page.locator(".new-todo").filter({ visible: true }).first()"#;
    for line in [
        format!(r#"await {field}.pressSequentially(" a");"#),
        format!("await {field}.focus();"),
        format!(r#"await {field}.press("Shift+Tab");"#),
        "await page.goForward();".to_owned(),
    ] {
        assert!(spec.contains(&line), "{line} in\n{}", body(&spec));
    }
}
