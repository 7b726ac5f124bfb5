//! The renamed markup: same texts and behaviour, none of the standard ids or test ids.

mod common;

use std::collections::BTreeSet;

use common::{Shopper, attr_after, attr_values, shop, sorted_texts};
use windup_shop::Markup;

/// Walks one shopper through every page and returns each page's HTML.
async fn tour(shopper: &Shopper) -> Vec<(String, String)> {
    let mut pages = Vec::new();
    for path in [
        "/",
        "/products",
        "/products/rust-mug",
        "/cart",
        "/login",
        "/search?q=crab",
    ] {
        pages.push((path.to_string(), shopper.page(path).await));
    }
    shopper.add("rust-mug", "2").await;
    shopper.post("/cart/coupon", &[("code", "WELCOME10")]).await;
    pages.push(("/cart (full)".into(), shopper.page("/cart").await));
    let failed = shopper
        .post("/login", &[("email", "x@y.z"), ("password", "no")])
        .await;
    pages.push(("/login (failed)".into(), failed.body));
    shopper.login().await;
    let checkout = shopper.page("/checkout").await;
    let token = attr_after(&checkout, r#"name="token" value=""#).expect("token");
    pages.push(("/checkout".into(), checkout));
    let invalid = shopper
        .post("/checkout", &[("country", "Germany"), ("token", &token)])
        .await;
    pages.push(("/checkout (invalid)".into(), invalid.body));
    shopper
        .submit_checkout(&token)
        .await
        .assert_redirect("/orders/1001");
    pages.push(("/orders/1001".into(), shopper.page("/orders/1001").await));
    pages.push(("/orders".into(), shopper.page("/orders").await));
    pages
}

fn names(html: &str) -> BTreeSet<String> {
    ["id", "data-testid", "for"]
        .iter()
        .flat_map(|attr| attr_values(html, attr))
        .collect()
}

#[tokio::test]
async fn renamed_markup_keeps_texts_and_drops_every_standard_name() {
    let standard = shop("none", Markup::Standard).await;
    let renamed = shop("none", Markup::Renamed).await;
    let before = tour(&standard).await;
    let after = tour(&renamed).await;

    let standard_names: BTreeSet<String> =
        before.iter().flat_map(|(_, html)| names(html)).collect();
    for expected in [
        "cart-link",
        "cart-count",
        "deal-of-the-day",
        "product-card-rust-mug",
        "add-to-cart",
        "quantity",
        "cart-line-rust-mug",
        "qty-rust-mug",
        "line-total-rust-mug",
        "cart-subtotal",
        "cart-discount",
        "cart-total",
        "coupon",
        "coupon-status",
        "checkout-button",
        "email",
        "password",
        "name",
        "address",
        "country",
        "terms",
        "place-order",
        "checkout-total",
        "order-number",
        "order-total",
        "order-row-1001",
        "search-summary",
    ] {
        assert!(
            standard_names.contains(expected),
            "standard markup lacks {expected}"
        );
    }

    for ((path, standard_html), (_, renamed_html)) in before.iter().zip(&after) {
        let renamed_names = names(renamed_html);
        let shared: Vec<_> = renamed_names.intersection(&standard_names).collect();
        assert!(
            shared.is_empty(),
            "{path}: renamed markup still uses {shared:?}"
        );
        assert_eq!(
            sorted_texts(standard_html),
            sorted_texts(renamed_html),
            "{path}: the visible texts differ"
        );
    }
}

#[tokio::test]
async fn renamed_markup_reorders_the_header_and_checkout_fields() {
    let renamed = shop("none", Markup::Renamed).await;
    let home = renamed.page("/").await;
    assert!(home.contains(r#"<nav class="compact-nav">"#));
    let cart_link = home.rfind(r#"data-testid="basket-link""#).unwrap();
    let search = home.find(r#"aria-label="Search""#).unwrap();
    assert!(cart_link < search, "the search form follows the cart link");

    renamed.login().await;
    renamed.add("rust-mug", "1").await;
    let checkout = renamed.page("/checkout").await;
    let address = checkout
        .find(r#"<label for="street-address">Address</label>"#)
        .unwrap();
    let name = checkout
        .find(r#"<label for="full-name">Full name</label>"#)
        .unwrap();
    assert!(address < name, "Address comes before Full name");
    assert!(checkout.contains(r#"data-testid="submit-order">Place order</button>"#));
}
