//! `cargo windup impact` and `cargo windup run --affected`, as a team uses them: the shop's
//! source and its scenarios in a git repository, the scenarios run once (the ledger says which
//! pages each crossed), then one page's handler edited — impact lists exactly the scenarios
//! that cross that page, and `run --affected HEAD` runs only those.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{run_in, text};

use common::SHOP_SCENARIOS as SCENARIOS;

fn git(root: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=Windup",
            "-c",
            "user.email=windup@example.invalid",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {}", text(&output));
}

/// The shop's source under `shop/` and copies of its scenarios, committed.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shop = repo.join("cargo-windup/shop");
    std::fs::create_dir_all(root.join("shop/src")).unwrap();
    std::fs::copy(shop.join("Cargo.toml"), root.join("shop/Cargo.toml")).unwrap();
    for entry in std::fs::read_dir(shop.join("src")).unwrap().flatten() {
        std::fs::copy(entry.path(), root.join("shop/src").join(entry.file_name())).unwrap();
    }
    std::fs::create_dir_all(root.join("scenarios")).unwrap();
    for name in SCENARIOS {
        for ext in ["yaml", "plan.json"] {
            let from = repo.join(format!("scenarios/{name}.{ext}"));
            if from.exists() {
                std::fs::copy(from, root.join(format!("scenarios/{name}.{ext}"))).unwrap();
            }
        }
    }
    std::fs::write(root.join("windup.toml"), "scenarios = \"scenarios\"\n").unwrap();
    std::fs::write(root.join(".gitignore"), ".windup/\n").unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "the shop"]);
    dir
}

/// The scenario ids of impact's output: its lines that name one.
fn listed(out: &str) -> BTreeSet<String> {
    out.lines()
        .filter_map(|l| l.split_once("  (crosses "))
        .map(|(id, _)| id.to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_page_affects_exactly_the_scenarios_that_cross_it() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = repository();
    let root = project.path();
    let ran = run_in(root, &["run", "--base-url", shop.url()], &[]);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran));

    let none = run_in(root, &["impact"], &[]);
    assert!(text(&none).contains("No file changed."), "{}", text(&none));

    // The order history's handler changes; the order page's, in the same file, does not.
    let orders = root.join("shop/src/orders.rs");
    let source = std::fs::read_to_string(&orders).unwrap();
    assert!(source.contains("You have no orders yet"));
    std::fs::write(
        &orders,
        source.replace("You have no orders yet", "No orders yet"),
    )
    .unwrap();
    let impact = run_in(root, &["impact"], &[]);
    let out = text(&impact);
    assert_eq!(impact.status.code(), Some(0), "{out}");
    assert!(
        out.contains("page /orders changed (shop/src/orders.rs)"),
        "{out}"
    );
    assert!(!out.contains("page /orders/:id"), "{out}");
    assert_eq!(
        listed(&out),
        BTreeSet::from(["order-history".to_owned()]),
        "the only scenario whose runs reached /orders: {out}"
    );
    // Given as a path, the whole file counts: the order page's scenarios too.
    let by_path = run_in(root, &["impact", "shop/src/orders.rs"], &[]);
    let whole = listed(&text(&by_path));
    assert!(whole.contains("order-history"), "{}", text(&by_path));
    assert!(
        whole.contains("checkout-as-demo-user"),
        "it reaches /orders/:id: {}",
        text(&by_path)
    );

    let affected = run_in(
        root,
        &["run", "--affected", "HEAD", "--base-url", shop.url()],
        &[],
    );
    let out = text(&affected);
    assert_eq!(affected.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 scenario(s) cross pages changed since HEAD"),
        "{out}"
    );
    assert!(out.contains("PASS order-history ("), "{out}");
    assert!(out.lines().any(|l| l == "1 passed, 0 failed"), "{out}");

    // A scenario whose own file changed is affected by that alone.
    let search = root.join("scenarios/search.yaml");
    let text_now = std::fs::read_to_string(&search).unwrap();
    std::fs::write(&search, format!("{text_now}# searched twice a day\n")).unwrap();
    let own = run_in(root, &["impact"], &[]);
    assert!(
        text(&own).contains("search  (crosses its own file)"),
        "{}",
        text(&own)
    );
    assert_eq!(
        listed(&text(&own)),
        BTreeSet::from(["order-history".to_owned(), "search".to_owned()])
    );

    let bad = run_in(root, &["impact", "no-such-rev"], &[]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad));
    assert!(
        text(&bad).contains("neither a git revision"),
        "{}",
        text(&bad)
    );
}
