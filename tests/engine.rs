//! Hand-written plans run in real Chromium against cargo-windup/shop: the whole checkout, every
//! postcondition kind passing and failing, late elements, overlays, disabled buttons, hidden
//! duplicates, and the evidence a failure leaves.

mod common;

use std::time::{Duration, Instant};

use common::{Rig, files_under, plan, plan_file};
use serde_json::json;
use windup_core::browser::Session;
use windup_core::engine::executor::FailureCause;

fn target(selector: &str, tag: &str) -> serde_json::Value {
    json!({ "selector": selector, "identity": { "tag": tag } })
}

/// What a CSS selector matches in document order, seen by the page itself: how many elements,
/// whether the first one shows, and where the first one that shows is (page coordinates).
#[derive(Debug)]
struct Matches {
    count: u64,
    first_shown: bool,
    first_visible_at: Option<(f64, f64)>,
}

async fn matches(session: &Session, selector: &str) -> Matches {
    let script = format!(
        "const all = [...document.querySelectorAll({selector})]; \
         const shown = (e) => e.checkVisibility({{ visibilityProperty: true }}); \
         const first = all.find(shown); \
         const box = first && first.getBoundingClientRect(); \
         return [all.length, all.length > 0 && shown(all[0]), \
                 box ? [box.x + scrollX, box.y + scrollY] : null];",
        selector = json!(selector)
    );
    let answer = session.execute_script(&script).await.unwrap();
    let at = answer[2].as_array().map(|xy| {
        let coordinate = |v: &serde_json::Value| v.as_f64().expect("a number");
        (coordinate(&xy[0]), coordinate(&xy[1]))
    });
    Matches {
        count: answer[0].as_u64().expect("a count"),
        first_shown: answer[1].as_bool().expect("a boolean"),
        first_visible_at: at,
    }
}

#[tokio::test]
async fn the_whole_checkout_runs_and_the_order_is_in_the_history() {
    let rig = Rig::start().await;
    let run = rig
        .run(&plan_file("checkout"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(run.actions.len(), 12);
    assert!(
        run.final_url.contains("/orders/"),
        "ends on the order page: {}",
        run.final_url
    );

    let history = plan(
        "history",
        "/orders",
        json!([{
            "id": "orders", "type": "wait_for", "target": target("h1", "h1"),
            "expect": [
                { "kind": "text_visible", "text": "Your orders" },
                { "kind": "element_visible", "selector": "[data-testid^=\"order-row-\"]" },
                { "kind": "text_absent", "text": "You have no orders yet" }
            ]
        }]),
    );
    rig.run(&history).await.unwrap_or_else(|f| panic!("{f}"));
    rig.close().await;
}

/// One action on the mug's page that carries the given postcondition.
fn on_mug_page(id: &str, expect: serde_json::Value, timeout_ms: u64) -> windup::Plan {
    plan(
        id,
        "/products/rust-mug",
        json!([{
            "id": "look", "type": "wait_for", "target": target("h1", "h1"),
            "timeout_ms": timeout_ms, "expect": [expect]
        }]),
    )
}

#[tokio::test]
async fn every_postcondition_kind_passes_when_it_holds() {
    let rig = Rig::start().await;
    let holds = [
        json!({ "kind": "element_visible", "selector": "[data-testid=\"add-to-cart\"]" }),
        json!({ "kind": "element_hidden", "selector": ".mobile-nav [data-testid=\"cart-link\"]" }),
        json!({ "kind": "text_visible", "text": "Rust mug" }),
        json!({ "kind": "text_absent", "text": "Out of stock" }),
        json!({ "kind": "url_matches", "pattern": "/products/*" }),
        json!({ "kind": "input_value", "selector": "#quantity", "value": "1" }),
    ];
    for (i, expect) in holds.into_iter().enumerate() {
        let kind = expect["kind"].as_str().unwrap().to_owned();
        rig.run(&on_mug_page(&format!("holds-{i}"), expect, 2000))
            .await
            .unwrap_or_else(|f| panic!("{kind} should hold: {f}"));
    }
    rig.close().await;
}

#[tokio::test]
async fn every_postcondition_kind_fails_with_what_was_seen() {
    let rig = Rig::start().await;
    let cases = [
        (
            json!({ "kind": "element_visible", "selector": "[data-testid=\"no-such-thing\"]" }),
            "expected element_visible [data-testid=\"no-such-thing\"]: no element matches the selector",
        ),
        (
            json!({ "kind": "element_hidden", "selector": "[data-testid=\"add-to-cart\"]" }),
            "is visible",
        ),
        (
            json!({ "kind": "text_visible", "text": "Unicorn saddle" }),
            "expected text_visible \"Unicorn saddle\": the text is absent from the visible page (headline: \"Rust mug\")",
        ),
        (
            json!({ "kind": "text_absent", "text": "Rust mug" }),
            "the text is shown in",
        ),
        (
            json!({ "kind": "url_matches", "pattern": "/cart" }),
            "expected url_matches /cart: the URL is /products/rust-mug",
        ),
        (
            json!({ "kind": "input_value", "selector": "#quantity", "value": "5" }),
            "expected input_value #quantity = \"5\": the value of input#quantity",
        ),
    ];
    for (i, (expect, said)) in cases.into_iter().enumerate() {
        let id = format!("fails-{i}");
        let started = Instant::now();
        let failure = rig.fail(&on_mug_page(&id, expect, 400)).await;
        let message = failure.to_string();
        assert!(
            message.contains(said),
            "message {message:?} should contain {said:?}"
        );
        assert!(
            message.contains("action \"look\" (#1 of 1, wait_for h1)"),
            "{message}"
        );
        assert!(matches!(failure.cause, FailureCause::Unmet(_)), "{message}");
        // It polled to the deadline rather than failing at once.
        assert!(started.elapsed() >= Duration::from_millis(400), "{message}");
    }
    rig.close().await;
}

#[tokio::test]
async fn waits_for_an_element_that_appears_after_a_second_and_a_half() {
    let rig = Rig::start().await;
    let deal = |timeout_ms: u64| {
        plan(
            &format!("deal-{timeout_ms}"),
            "/",
            json!([
                { "id": "see-deal", "type": "click", "target": target("[data-testid=\"deal-link\"]", "a"),
                  "timeout_ms": timeout_ms,
                  "expect": [{ "kind": "url_matches", "pattern": "/products/ferris-plush" }] }
            ]),
        )
    };
    let started = Instant::now();
    rig.run(&deal(5000)).await.unwrap_or_else(|f| panic!("{f}"));
    assert!(
        started.elapsed() >= Duration::from_millis(1500),
        "the deal cannot be clicked before it exists"
    );

    let failure = rig.fail(&deal(500)).await;
    assert!(
        failure
            .to_string()
            .contains("no element matches the selector (waited"),
        "{failure}"
    );
    rig.close().await;
}

#[tokio::test]
async fn waits_for_an_overlay_to_go_then_clicks_what_it_covered() {
    let rig = Rig::start().await;
    let coupon_then_checkout = |timeout_ms: u64| {
        plan(
            &format!("overlay-{timeout_ms}"),
            "/products/rust-mug",
            json!([
                { "id": "add", "type": "click", "target": target("[data-testid=\"add-to-cart\"]", "button"),
                  "expect": [{ "kind": "url_matches", "pattern": "/cart" }] },
                { "id": "code", "type": "fill", "target": target("#coupon", "input"), "value": "WELCOME10" },
                { "id": "apply", "type": "click", "target": target("form[action=\"/cart/coupon\"] button", "button"),
                  "expect": [{ "kind": "element_visible", "selector": "[data-testid=\"busy-overlay\"]" }] },
                { "id": "checkout", "type": "click", "target": target("[data-testid=\"checkout-button\"]", "a"),
                  "timeout_ms": timeout_ms,
                  "expect": [{ "kind": "url_matches", "pattern": "/login*" }] }
            ]),
        )
    };
    let failure = rig.fail(&coupon_then_checkout(300)).await;
    let message = failure.to_string();
    assert!(
        message.contains("is covered by div#busy-overlay"),
        "a short deadline shows what covers the link: {message}"
    );
    rig.session.reset().await.expect("reset");

    rig.run(&coupon_then_checkout(5000))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    rig.close().await;
}

#[tokio::test]
async fn a_button_that_stays_disabled_fails_naming_it() {
    let rig = Rig::start().await;
    let poster = plan(
        "disabled",
        "/products/lifetime-poster",
        json!([{ "id": "buy-poster", "type": "click",
                 "target": target("[data-testid=\"add-to-cart\"]", "button"), "timeout_ms": 1000,
                 "expect": [{ "kind": "url_matches", "pattern": "/cart" }] }]),
    );
    let started = Instant::now();
    let failure = rig.fail(&poster).await;
    let message = failure.to_string();
    assert!(
        started.elapsed() >= Duration::from_millis(1000),
        "it waited for the button"
    );
    assert!(
        message.contains(
            "action \"buy-poster\" (#1 of 1, click [data-testid=\"add-to-cart\"]): the element \
             button[data-testid=\"add-to-cart\"] \"Add to cart\" is disabled (waited"
        ),
        "{message}"
    );
    assert!(message.contains("/products/lifetime-poster"), "{message}");
    rig.close().await;
}

#[tokio::test]
async fn acts_on_the_visible_match_when_a_hidden_one_comes_first() {
    let rig = Rig::start().await;
    rig.session
        .goto(&format!("{}/products", rig.shop.url()))
        .await
        .unwrap();
    // The premise: the selector's first match in document order is the hidden mobile link.
    let found = matches(&rig.session, "[data-testid=\"cart-link\"]").await;
    assert!(found.count > 1 && !found.first_shown, "{found:?}");

    let to_cart = plan(
        "hidden-first",
        "/products",
        json!([{ "id": "cart", "type": "click", "target": target("[data-testid=\"cart-link\"]", "a"),
                 "timeout_ms": 2000,
                 "expect": [{ "kind": "url_matches", "pattern": "/cart" }, { "kind": "text_visible", "text": "Your cart" }] }]),
    );
    rig.run(&to_cart).await.unwrap_or_else(|f| panic!("{f}"));
    rig.close().await;
}

#[tokio::test]
async fn a_failure_leaves_a_screenshot_and_the_page_it_was_on() {
    let rig = Rig::start().await;
    let broken = plan(
        "evidence",
        "/cart",
        json!([{ "id": "missing-button", "type": "click",
                 "target": target("#does-not-exist", "button"), "timeout_ms": 300,
                 "expect": [{ "kind": "url_matches", "pattern": "/checkout" }] }]),
    );
    let failure = rig.fail(&broken).await;
    let shot = failure.screenshot.clone().expect("a screenshot path");
    let bytes = std::fs::read(&shot).expect("the screenshot exists");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "it is a PNG");
    assert!(shot.starts_with(rig.artifacts.path()));
    assert_eq!(files_under(rig.artifacts.path()), vec![shot.clone()]);
    let message = failure.to_string();
    assert!(
        message.contains(&format!("screenshot: {}", shot.display())),
        "{message}"
    );
    assert!(
        message.contains(&format!("page: {}/cart", rig.shop.url())),
        "{message}"
    );
    rig.close().await;
}

#[tokio::test]
async fn press_check_uncheck_and_select_do_what_a_person_would() {
    let rig = Rig::start().await;
    let search = plan(
        "search",
        "/",
        json!([
            { "id": "query", "type": "fill", "target": target("input[name=\"q\"]", "input"), "value": "mug" },
            { "id": "submit", "type": "press", "key": "Enter",
              "expect": [{ "kind": "url_matches", "pattern": "/search?q=mug" },
                         { "kind": "text_visible", "text": "Rust mug" },
                         { "kind": "text_absent", "text": "Ferris plush" }] }
        ]),
    );
    rig.run(&search).await.unwrap_or_else(|f| panic!("{f}"));

    rig.run(&plan_file("checkout"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    let toggles = plan(
        "toggles",
        "/products/rust-mug",
        json!([
            { "id": "add", "type": "click", "target": target("[data-testid=\"add-to-cart\"]", "button") },
            { "id": "go", "type": "goto", "url": "/checkout",
              "expect": [{ "kind": "text_visible", "text": "Checkout" }] },
            { "id": "on", "type": "check", "target": target("#terms", "input"),
              "expect": [{ "kind": "input_value", "selector": "#terms", "value": "checked" }] },
            { "id": "on-again", "type": "check", "target": target("#terms", "input"),
              "expect": [{ "kind": "input_value", "selector": "#terms", "value": "checked" }] },
            { "id": "off", "type": "uncheck", "target": target("#terms", "input"),
              "expect": [{ "kind": "input_value", "selector": "#terms", "value": "unchecked" }] },
            { "id": "country", "type": "select", "target": target("#country", "select"), "value": "Japan",
              "expect": [{ "kind": "input_value", "selector": "#country", "value": "Japan" }] }
        ]),
    );
    rig.run(&toggles).await.unwrap_or_else(|f| panic!("{f}"));

    let no_option = plan(
        "no-option",
        "/checkout",
        json!([{ "id": "mars", "type": "select", "target": target("#country", "select"), "value": "Mars",
                 "expect": [{ "kind": "input_value", "selector": "#country", "value": "Mars" }] }]),
    );
    let failure = rig.fail(&no_option).await;
    assert!(
        failure
            .to_string()
            .contains("has no option labelled or valued \"Mars\""),
        "{failure}"
    );
    rig.close().await;
}

#[tokio::test]
async fn reset_forgets_the_cart_and_the_login() {
    let rig = Rig::start().await;
    rig.run(&plan_file("checkout"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    rig.session
        .execute_script("localStorage.setItem('k', 'v'); sessionStorage.setItem('k', 'v');")
        .await
        .unwrap();
    rig.session.reset().await.expect("reset");
    assert_eq!(
        rig.session.current_url().await.unwrap().as_str(),
        "about:blank"
    );

    let fresh = plan(
        "fresh",
        "/orders",
        json!([{ "id": "asked-to-log-in", "type": "wait_for", "target": target("h1", "h1"),
                 "expect": [{ "kind": "url_matches", "pattern": "/login*" },
                            { "kind": "text_visible", "text": "Log in" }] }]),
    );
    rig.run(&fresh).await.unwrap_or_else(|f| panic!("{f}"));
    let storage = rig
        .session
        .execute_script("return [localStorage.length, sessionStorage.length, document.cookie];")
        .await
        .unwrap();
    assert_eq!(storage[0], 0, "local storage is empty");
    assert_eq!(storage[1], 0, "session storage is empty");
    rig.close().await;
}

#[tokio::test]
async fn refuses_to_leave_the_scenario_origin() {
    let rig = Rig::start().await;
    let away = plan(
        "away",
        "/",
        json!([{ "id": "elsewhere", "type": "goto", "url": "http://127.0.0.2:9/steal",
                 "expect": [{ "kind": "text_visible", "text": "anything" }] }]),
    );
    let failure = rig.fail(&away).await;
    assert!(matches!(failure.cause, FailureCause::Refused(_)));
    assert!(
        failure
            .to_string()
            .contains("refusing to open http://127.0.0.2:9/steal"),
        "{failure}"
    );
    assert!(
        failure
            .url
            .as_deref()
            .is_some_and(|u| u.starts_with(rig.shop.url())),
        "it never left"
    );
    rig.close().await;
}

#[tokio::test]
async fn a_page_that_never_loads_fails_clearly() {
    let mut rig = Rig::start().await;
    // A port nothing listens on, as the scenario's own origin.
    let closed = common::closed_port();
    let port = closed.port();
    rig.options.base_url = format!("http://127.0.0.1:{port}").parse().unwrap();
    let failure = rig
        .fail(&plan(
            "unreachable",
            "/",
            json!([{ "id": "h", "type": "wait_for", "target": target("h1", "h1"), "timeout_ms": 300,
            "expect": [{ "kind": "text_visible", "text": "x" }] }]),
        ))
        .await;
    let message = failure.to_string();
    assert!(message.contains("opening the start page"), "{message}");
    assert!(message.contains("ERR_CONNECTION_REFUSED"), "{message}");
    rig.close().await;
}

#[tokio::test]
async fn a_driver_that_dies_mid_run_is_an_error_not_a_panic() {
    let rig = Rig::start().await;
    let pgid = rig.browser.driver_process_group().expect("a local driver") as i32;
    // SAFETY: signals the process group of the driver this test started, nothing else.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    let failure = rig.fail(&plan_file("checkout")).await;
    assert!(
        matches!(failure.cause, FailureCause::Browser(_)),
        "{failure}"
    );
    assert!(
        failure.to_string().contains("opening the start page"),
        "{failure}"
    );
    assert!(failure.screenshot.is_none());
}

#[tokio::test]
async fn the_snapshot_names_elements_as_a_person_would() {
    let rig = Rig::start().await;
    rig.run(&plan_file("checkout"))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    rig.session
        .goto(&format!("{}/products/rust-mug", rig.shop.url()))
        .await
        .unwrap();
    let snapshot = rig.session.snapshot().await.expect("a snapshot");
    assert!(snapshot.url.ends_with("/products/rust-mug"));
    let add = snapshot
        .elements
        .iter()
        .find(|e| e.test_id.as_deref() == Some("add-to-cart"))
        .expect("the add-to-cart button");
    assert_eq!(add.tag, "button");
    assert_eq!(add.role.as_deref(), Some("button"));
    assert_eq!(add.name.as_deref(), Some("Add to cart"));
    assert!(add.visible && add.enabled);
    assert_eq!(add.selectors[0], "[data-testid=\"add-to-cart\"]");
    let quantity = snapshot
        .elements
        .iter()
        .find(|e| e.label.as_deref() == Some("Quantity"))
        .expect("the quantity field");
    assert_eq!(quantity.role.as_deref(), Some("spinbutton"));
    assert_eq!(quantity.selectors[0], "#quantity");
    let search = snapshot
        .elements
        .iter()
        .find(|e| e.placeholder.as_deref() == Some("Search products"))
        .expect("the search box");
    assert_eq!(search.name.as_deref(), Some("Search"));
    let cart_links: Vec<_> = snapshot
        .elements
        .iter()
        .filter(|e| e.test_id.as_deref() == Some("cart-link"))
        .collect();
    assert_eq!(cart_links.len(), 2);
    assert_eq!(
        cart_links.iter().map(|e| e.visible).collect::<Vec<_>>(),
        vec![false, true],
        "the mobile link is hidden, the desktop one visible"
    );
    // Every selector offered leads the executor to its element: the only match, or the first
    // visible one (the executor acts on the first visible match).
    for element in &snapshot.elements {
        for selector in &element.selectors {
            let found = matches(&rig.session, selector).await;
            assert!(found.count > 0, "{selector} matches nothing");
            if found.count == 1 {
                continue;
            }
            assert!(
                element.visible,
                "{selector} matches {} elements but its element is hidden",
                found.count
            );
            let (x, y) = found.first_visible_at.expect("a visible match");
            assert!(
                (x - element.bounds.x).abs() <= 1.0 && (y - element.bounds.y).abs() <= 1.0,
                "{selector}: the first visible match is at ({x}, {y}), the element at {:?}",
                element.bounds
            );
        }
    }
    assert!(
        snapshot.outline.contains("heading \"Rust mug\" [level 1]"),
        "{}",
        snapshot.outline
    );
    assert!(
        snapshot.outline.contains("button \"Add to cart\""),
        "{}",
        snapshot.outline
    );
    assert!(
        snapshot.outline.contains("Signed in as demo@windup.test"),
        "{}",
        snapshot.outline
    );
    rig.close().await;
}

#[tokio::test]
async fn a_moving_element_is_not_clicked_until_it_stops() {
    use windup_core::browser::{GateMode, ProbeState};
    let rig = Rig::start().await;
    rig.session
        .goto(&format!("{}/products/rust-mug", rig.shop.url()))
        .await
        .unwrap();
    rig.session
        .execute_script(
            "const style = document.createElement('style');
             style.id = 'wobble';
             style.textContent = '@keyframes wobble { from { transform: translateX(0) } to { transform: translateX(200px) } }\
               [data-testid=\"add-to-cart\"] { animation: wobble 300ms linear infinite alternate; }';
             document.head.appendChild(style);",
        )
        .await
        .unwrap();
    let selector = "[data-testid=\"add-to-cart\"]";
    let deadline = Instant::now() + Duration::from_millis(500);
    let probe = rig
        .session
        .wait_actionable(selector, GateMode::Click, None, deadline)
        .await
        .unwrap()
        .expect_err("a wobbling button is never stable");
    assert_eq!(probe.state, ProbeState::Unstable, "{probe:?}");
    assert!(probe.detail.contains("is still moving"), "{probe:?}");

    rig.session
        .execute_script("document.getElementById('wobble').remove();")
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_millis(2000);
    let ready = rig
        .session
        .wait_actionable(selector, GateMode::Click, None, deadline)
        .await
        .unwrap()
        .expect("a still button passes the gate");
    assert!(ready.described.contains("Add to cart"));
    rig.close().await;
}

#[tokio::test]
async fn a_replay_never_acts_on_an_element_that_is_not_the_planned_one() {
    let rig = Rig::start().await;
    // Planned on a product page, where this selector found "Add to cart"; on the cart page the
    // same selector finds the "Update" button of a line.
    let stale = plan(
        "stale-selector",
        "/products/rust-mug",
        json!([
            { "id": "add", "type": "click", "target": target("[data-testid=\"add-to-cart\"]", "button"),
              "expect": [{ "kind": "url_matches", "pattern": "/cart" }] },
            { "id": "buy-again", "type": "click", "timeout_ms": 500,
              "target": { "selector": "main form button",
                          "identity": { "tag": "button", "role": "button", "name": "Add to cart" } },
              "expect": [{ "kind": "url_matches", "pattern": "/cart" }] }
        ]),
    );
    let failure = rig.fail(&stale).await;
    let message = failure.to_string();
    assert!(
        message.contains(
            "the selector now finds button \"Update\", not the button \"Add to cart\" the plan was made for"
        ),
        "{message}"
    );
    match &failure.cause {
        FailureCause::NotActionable { probe, .. } => {
            assert_eq!(
                probe.state,
                windup_core::browser::ProbeState::IdentityMismatch
            )
        }
        other => panic!("expected an identity mismatch, got {other:?}"),
    }
    let quantity = rig
        .session
        .execute_script("return document.querySelector('#qty-rust-mug').value")
        .await
        .unwrap();
    assert_eq!(quantity, "1", "nothing was clicked");

    // Data may change under an identity: a count in a name is not a different element.
    let counted = plan(
        "counted",
        "/cart",
        json!([{ "id": "cart", "type": "click",
                 "target": { "selector": "[data-testid=\"cart-link\"]",
                             "identity": { "tag": "a", "role": "link", "name": "Cart (0)" } },
                 "expect": [{ "kind": "url_matches", "pattern": "/cart" }] }]),
    );
    rig.run(&counted).await.unwrap_or_else(|f| panic!("{f}"));
    rig.close().await;
}
