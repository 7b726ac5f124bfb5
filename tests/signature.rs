//! Page signatures in real Chromium: the same when only data changes, different when structure
//! changes.

mod common;

use common::{Rig, plan};
use serde_json::json;
use windup_shop::{Markup, ShopOptions};

async fn signature_of(rig: &Rig, path: &str) -> String {
    rig.session
        .goto(&format!("{}{path}", rig.shop.url()))
        .await
        .unwrap();
    let signature = rig.session.signature().await.expect("a signature");
    let snapshot = rig.session.snapshot().await.expect("a snapshot");
    assert_eq!(
        signature,
        windup_core::engine::signature::of(&snapshot),
        "the light structure script and the full snapshot agree on {path}"
    );
    signature
}

#[tokio::test]
async fn data_changes_keep_the_signature_and_structure_changes_do_not() {
    let rig = Rig::start().await;
    let mug = signature_of(&rig, "/products/rust-mug").await;
    assert_eq!(mug.len(), 64, "hex SHA-256: {mug}");
    assert_eq!(
        mug,
        signature_of(&rig, "/products/rust-mug").await,
        "stable"
    );
    assert_eq!(
        mug,
        signature_of(&rig, "/products/ferris-plush").await,
        "another product, same page"
    );

    let add = |slug: &str| {
        json!({ "id": format!("add-{slug}"), "type": "click",
                "target": { "selector": "[data-testid=\"add-to-cart\"]", "identity": { "tag": "button" } },
                "expect": [{ "kind": "url_matches", "pattern": "/cart" }] })
    };
    rig.run(&plan(
        "one-line",
        "/products/rust-mug",
        json!([add("rust-mug")]),
    ))
    .await
    .unwrap_or_else(|f| panic!("{f}"));
    let one_line = signature_of(&rig, "/cart").await;
    for slug in ["ferris-plush", "async-hoodie"] {
        rig.run(&plan(
            "more-lines",
            &format!("/products/{slug}"),
            json!([add(slug)]),
        ))
        .await
        .unwrap_or_else(|f| panic!("{f}"));
    }
    assert_eq!(
        one_line,
        signature_of(&rig, "/cart").await,
        "three cart lines, same page"
    );

    assert_ne!(mug, one_line, "a product page is not the cart");
    assert_ne!(one_line, signature_of(&rig, "/login").await);

    let renamed = Rig::with_shop(ShopOptions {
        markup: Markup::Renamed,
        ..ShopOptions::default()
    })
    .await;
    assert_ne!(
        mug,
        signature_of(&renamed, "/products/rust-mug").await,
        "the same page with its controls reordered"
    );
    renamed.close().await;
    rig.close().await;
}
