//! Each seeded bug: off, the shop behaves; on, it misbehaves in the documented way.

mod common;

use common::{attr_after, standard, testid_text};
use reqwest::StatusCode;

#[tokio::test]
async fn negative_quantity_is_clamped_unless_the_bug_is_on() {
    let good = standard("none").await;
    good.add("rust-mug", "-3").await;
    let body = good.page("/cart").await;
    assert!(body.contains(r#"id="qty-rust-mug" name="qty" type="number" value="1""#));
    assert_eq!(testid_text(&body, "cart-total").as_deref(), Some("$12.00"));
    good.post("/cart/update", &[("slug", "rust-mug"), ("qty", "-2")])
        .await;
    let body = good.page("/cart").await;
    assert_eq!(
        testid_text(&body, "line-total-rust-mug").as_deref(),
        Some("$12.00")
    );

    let bad = standard("negative-quantity").await;
    bad.add("ferris-plush", "1").await;
    bad.add("rust-mug", "-3").await;
    let body = bad.page("/cart").await;
    assert!(body.contains(r#"id="qty-rust-mug" name="qty" type="number" value="-3""#));
    assert_eq!(
        testid_text(&body, "line-total-rust-mug").as_deref(),
        Some("-$36.00")
    );
    assert_eq!(testid_text(&body, "cart-total").as_deref(), Some("-$11.50"));
    bad.post("/cart/update", &[("slug", "ferris-plush"), ("qty", "-1")])
        .await;
    let body = bad.page("/cart").await;
    assert_eq!(
        testid_text(&body, "line-total-ferris-plush").as_deref(),
        Some("-$24.50")
    );
}

#[tokio::test]
async fn coupon_twice_is_refused_unless_the_bug_is_on() {
    let good = standard("none").await;
    good.add("async-hoodie", "1").await;
    good.post("/cart/coupon", &[("code", "WELCOME10")]).await;
    good.post("/cart/coupon", &[("code", "welcome10")]).await;
    let body = good.page("/cart").await;
    assert!(body.contains("Coupon already applied"));
    assert_eq!(
        testid_text(&body, "cart-discount").as_deref(),
        Some("-$4.50")
    );
    assert_eq!(testid_text(&body, "cart-total").as_deref(), Some("$40.50"));

    let bad = standard("coupon-twice").await;
    bad.add("async-hoodie", "1").await;
    bad.post("/cart/coupon", &[("code", "WELCOME10")]).await;
    bad.post("/cart/coupon", &[("code", "welcome10")]).await;
    let body = bad.page("/cart").await;
    assert!(!body.contains("Coupon already applied"));
    assert_eq!(
        testid_text(&body, "cart-discount").as_deref(),
        Some("-$9.00")
    );
    assert_eq!(testid_text(&body, "cart-total").as_deref(), Some("$36.00"));
}

async fn total_and_line_sum(bugs: &str) -> (String, String) {
    let shop = standard(bugs).await;
    shop.add("ferris-plush", "1").await;
    shop.add("rust-mug", "2").await;
    let body = shop.page("/cart").await;
    let lines = ["line-total-ferris-plush", "line-total-rust-mug"]
        .map(|id| testid_text(&body, id).unwrap());
    assert_eq!(lines, ["$24.50", "$24.00"]);
    (
        testid_text(&body, "cart-total").unwrap(),
        "$48.50".to_string(),
    )
}

#[tokio::test]
async fn cart_total_is_the_sum_of_lines_unless_the_bug_is_on() {
    let (total, sum) = total_and_line_sum("none").await;
    assert_eq!(total, sum);
    let (total, sum) = total_and_line_sum("cart-total").await;
    assert_ne!(total, sum);
    assert_eq!(total, "$36.50");
}

#[tokio::test]
async fn search_query_is_escaped_unless_the_bug_is_on() {
    let query = "/search?q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E";
    let good = standard("none").await;
    let body = good.page(query).await;
    assert!(body.contains(r#"Results for "&lt;img src=x onerror=alert(1)&gt;""#));
    assert!(!body.contains("<img src=x"));

    let bad = standard("search-xss").await;
    let body = bad.page(query).await;
    assert!(body.contains(r#"Results for "<img src=x onerror=alert(1)>""#));
}

async fn orders_after_posting_one_token_twice(bugs: &str) -> (usize, StatusCode, bool) {
    let shop = standard(bugs).await;
    shop.login().await;
    shop.add("rust-mug", "1").await;
    let checkout = shop.page("/checkout").await;
    let locks_button = checkout.contains("data-lock-submit");
    let token = attr_after(&checkout, r#"name="token" value=""#).unwrap();
    let first = shop.submit_checkout(&token).await;
    let second = shop.submit_checkout(&token).await;
    if first.status == StatusCode::SEE_OTHER {
        assert_eq!(first.location.as_deref(), Some("/orders/1001"));
    }
    (shop.order_count().await, second.status, locks_button)
}

#[tokio::test]
async fn one_token_makes_one_order_unless_double_submit_is_on() {
    let (orders, second, locks) = orders_after_posting_one_token_twice("none").await;
    assert_eq!(orders, 1);
    assert_eq!(
        second,
        StatusCode::SEE_OTHER,
        "the repeat lands on the existing order"
    );
    assert!(locks, "the script disables the Place order button");

    let (orders, _, locks) = orders_after_posting_one_token_twice("double-submit").await;
    assert_eq!(orders, 2);
    assert!(!locks);
}

#[tokio::test]
async fn checkout_redirects_unless_back_resubmit_is_on() {
    let good = standard("none").await;
    good.login().await;
    good.add("rust-mug", "1").await;
    let token = good.checkout_token().await;
    good.submit_checkout(&token)
        .await
        .assert_redirect("/orders/1001");

    let bad = standard("back-resubmit").await;
    bad.login().await;
    bad.add("rust-mug", "1").await;
    let token = bad.checkout_token().await;
    let page = bad.submit_checkout(&token).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.location.is_none());
    assert!(page.body.contains("Thank you for your order"));
    assert!(page.body.contains(r#"data-testid="order-number">#1001<"#));
    // Reloading the confirmation posts the same form again, and that makes another order.
    let again = bad.submit_checkout(&token).await;
    assert!(again.body.contains(r#"data-testid="order-number">#1002<"#));
    assert_eq!(bad.order_count().await, 2);
}

#[tokio::test]
async fn all_bugs_at_once_still_serve_every_page() {
    let shop = standard("all").await;
    shop.login().await;
    shop.add("rust-mug", "2").await;
    for path in [
        "/",
        "/products",
        "/products/rust-mug",
        "/cart",
        "/checkout",
        "/orders",
        "/search?q=a",
    ] {
        shop.page(path).await;
    }
}
