use super::*;

#[test]
fn patterns_are_normal_and_assets_are_not_pages() {
    assert_eq!(normal("users//:id/"), "/users/:id");
    assert_eq!(normal(""), "/");
    assert!(is_asset("/static/shop.css"));
    assert!(!is_asset("/products/:slug") && !is_asset("/"));
}
