use super::*;

const T1: &str = "2026-12-01T10:00:00Z";
const T2: &str = "2026-12-02T10:00:00Z";

fn visit(path: &str, signature: &str) -> Visit {
    Visit {
        path: path.to_owned(),
        signature: Some(signature.to_owned()),
        ..Visit::default()
    }
}

fn element(role: &str, name: &str) -> MapElement {
    MapElement {
        role: role.to_owned(),
        name: name.to_owned(),
        test_id: None,
    }
}

fn route(pattern: &str, file: &str) -> Route {
    Route {
        pattern: pattern.to_owned(),
        file: file.to_owned(),
        ..Route::default()
    }
}

fn patterns(map: &SiteMap) -> Vec<&str> {
    let mut all: Vec<&str> = map.pages.iter().map(|p| p.pattern.as_str()).collect();
    all.sort_unstable();
    all
}

#[test]
fn ids_collapse_and_siblings_of_one_structure_become_one_slug_page() {
    let mut map = SiteMap::default();
    map.observe(
        &[
            visit("/", "home"),
            visit("/products/rust-mug", "product"),
            visit("/products/ferris-plush?ref=home#top", "product"),
            visit("/orders/1042", "order"),
            visit("/orders/7", "order"),
            visit("/about", "text"),
            visit("/terms/", "text"),
            visit("/products/featured", "grid"),
        ],
        &[],
        T1,
    );
    assert_eq!(
        patterns(&map),
        [
            "/",
            "/about",
            "/orders/:id",
            "/products/:slug",
            "/products/featured",
            "/terms"
        ]
    );
    let product = map.page("/products/:slug").unwrap();
    assert_eq!(
        product.examples,
        ["/products/rust-mug", "/products/ferris-plush"]
    );
    assert_eq!(map.pattern_of("/products/teapot"), "/products/:slug");
    assert_eq!(map.pattern_of("/products/featured"), "/products/featured");
    assert_eq!(map.pattern_of("/users/3f2a9c1e-77aa"), "/users/:id");
}

#[test]
fn execution_wins_over_static_and_a_route_gone_from_the_source_goes_stale() {
    let mut map = SiteMap::default();
    map.scanned(
        "",
        &[
            Route {
                elements: vec![element("button", "Buy")],
                ..route("/products/:slug", "src/main.rs")
            },
            route("/admin", "src/main.rs"),
        ],
        Some("abc123"),
        T1,
    );
    assert_eq!(map.page("/admin").unwrap().source(), Source::Static);
    map.observe(
        &[Visit {
            title: Some("Rust mug".to_owned()),
            elements: vec![element("button", "Add to cart")],
            ..visit("/products/rust-mug", "product")
        }],
        &[],
        T2,
    );
    let product = map.page("/products/:slug").unwrap();
    assert_eq!(product.source(), Source::Execution, "seen by a browser");
    assert_eq!(product.elements, [element("button", "Add to cart")]);
    assert_eq!(product.claims.len(), 2, "both claims kept");
    // A later scan without /admin: its static claim goes stale; a scan's elements never
    // replace what a browser saw.
    map.scanned(
        "",
        &[Route {
            elements: vec![element("button", "Buy")],
            ..route("/products/:slug", "src/main.rs")
        }],
        Some("def456"),
        T2,
    );
    let admin = map.page("/admin").unwrap();
    assert!(admin.stale());
    assert_eq!(admin.source(), Source::Static);
    assert!(!map.page("/products/:slug").unwrap().stale());
    assert_eq!(
        map.page("/products/:slug").unwrap().elements,
        [element("button", "Add to cart")]
    );
    assert_eq!(map.last_scan_sha.as_deref(), Some("def456"));
    // Seen again by a run, a stale page is live again.
    map.scanned("", &[route("/admin", "src/main.rs")], None, T2);
    assert!(!map.page("/admin").unwrap().stale());
}

#[test]
fn moves_become_transitions_between_patterns_and_follow_a_renamed_page() {
    let mut map = SiteMap::default();
    map.observe(
        &[visit("/", "home"), visit("/products/rust-mug", "product")],
        &[Move {
            from: "/".to_owned(),
            action: "click \"Rust mug\"".to_owned(),
            to: "/products/rust-mug".to_owned(),
        }],
        T1,
    );
    map.observe(&[visit("/products/ferris-plush", "product")], &[], T2);
    assert_eq!(map.transitions.len(), 1);
    let transition = &map.transitions[0];
    assert_eq!(
        (transition.from.as_str(), transition.to.as_str()),
        ("/", "/products/:slug")
    );
    assert_eq!(transition.source(), Source::Execution);
    map.observe(
        &[],
        &[Move {
            from: "/".to_owned(),
            action: "click \"Rust mug\"".to_owned(),
            to: "/products/rust-mug".to_owned(),
        }],
        T2,
    );
    assert_eq!(map.transitions.len(), 1, "the same way once");
    assert_eq!(map.transitions[0].claims[0].last_seen, T2);
}

#[test]
fn the_file_round_trips_in_a_stable_order_and_refuses_another_version() {
    let mut map = SiteMap::default();
    map.observe(&[visit("/b", "x"), visit("/a", "y")], &[], T1);
    map.assist_seen
        .insert("sha256:aa".to_owned(), "[]".to_owned());
    let text = map.to_json();
    assert!(text.find("\"/a\"").unwrap() < text.find("\"/b\"").unwrap());
    let read = SiteMap::parse(&text, "sitemap.json").unwrap();
    assert_eq!(read.to_json(), text);
    let err = SiteMap::parse("{\"map_version\":\"9\"}", "sitemap.json").unwrap_err();
    assert!(err.to_string().contains("version 9"), "{err}");
    let err = SiteMap::parse("not json", "sitemap.json").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("sitemap.json is not a site map"),
        "{err}"
    );
}

#[test]
fn an_action_is_named_by_what_a_person_sees_never_a_value() {
    use crate::model::plan::ActionKind;
    assert_eq!(
        action_words(ActionKind::Click, Some("Add to cart")),
        "click \"Add to cart\""
    );
    assert_eq!(
        action_words(ActionKind::Fill, Some("Email")),
        "fill \"Email\""
    );
    assert_eq!(action_words(ActionKind::Goto, Some("/cart")), "go to");
    assert_eq!(action_words(ActionKind::Back, None), "go back");
    assert_eq!(action_words(ActionKind::Press, None), "press");
}

/// A shop of six pages: home links to products and the cart, a product to the cart, the cart
/// to checkout, checkout to the orders; an admin page the scan found and nothing links to.
fn shop() -> SiteMap {
    let mut map = SiteMap::default();
    let step = |from: &str, action: &str, to: &str| Move {
        from: from.to_owned(),
        action: action.to_owned(),
        to: to.to_owned(),
    };
    map.observe(
        &[
            visit("/", "home"),
            Visit {
                title: Some("Your orders".to_owned()),
                elements: vec![element("link", "Order #1042")],
                ..visit("/orders", "orders")
            },
            visit("/products/1", "product"),
            visit("/cart", "cart"),
            visit("/checkout", "checkout"),
        ],
        &[
            step("/", "click \"Rust mug\"", "/products/1"),
            step("/products/1", "click \"Add to cart\"", "/cart"),
            step("/cart", "click \"Checkout\"", "/checkout"),
            step("/checkout", "click \"Place order\"", "/orders"),
        ],
        T1,
    );
    map.scanned("", &[route("/admin", "src/admin.rs")], None, T1);
    map
}

#[test]
fn a_slice_reaches_three_moves_and_puts_the_tasks_pages_first() {
    let map = shop();
    let from_home = map.slice("check my past orders", "/", SLICE_CHARS).unwrap();
    let pages: Vec<&str> = from_home
        .lines()
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    assert_eq!(
        pages,
        ["/", "/products/:id", "/cart", "/checkout"],
        "the nearest first; /orders is four moves away and /admin has no way in: {from_home}"
    );
    let from_cart = map
        .slice("check my past orders", "/cart", SLICE_CHARS)
        .unwrap();
    let first = from_cart.lines().next().unwrap();
    assert_eq!(
        first, "- /orders (seen) \"Your orders\"; shows link \"Order #1042\"",
        "{from_cart}"
    );
    assert!(from_home.contains("- /cart (seen); click \"Checkout\" → /checkout\n"));
}

#[test]
fn a_slice_keeps_to_its_budget_and_leaves_stale_pages_out() {
    let mut map = shop();
    let whole = map.slice("buy a mug", "/", SLICE_CHARS).unwrap();
    let short = map.slice("buy a mug", "/", 60).unwrap();
    assert!(short.len() <= 60 && short.lines().count() < whole.lines().count());
    // Only a scan knows these pages: each is one move from the start.
    let mut scanned = SiteMap::default();
    scanned.scanned(
        "",
        &[
            route("/", "app/page.tsx"),
            route("/orders", "app/orders/page.tsx"),
        ],
        None,
        T1,
    );
    let slice = scanned.slice("my orders", "/", SLICE_CHARS).unwrap();
    assert!(slice.starts_with("- /orders (in the source)\n"), "{slice}");
    scanned.scanned("", &[route("/", "app/page.tsx")], None, T2);
    let slice = scanned.slice("my orders", "/", SLICE_CHARS).unwrap();
    assert!(!slice.contains("/orders"), "gone from the source: {slice}");
    map.pages.clear();
    assert_eq!(map.slice("anything", "/", SLICE_CHARS), None);
}

#[test]
fn task_terms_leave_common_words_out_and_match_stems() {
    assert_eq!(
        terms("Log in and check my past Orders!"),
        ["orders", "past"]
    );
    let map = shop();
    let orders = map.page("/orders").unwrap();
    assert_eq!(orders.score(&terms("my order history")), 1);
    assert_eq!(orders.score(&terms("see the catalogue")), 0);
}
