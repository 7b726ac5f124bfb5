//! The same plans, the same results, over either protocol: the shop's scenarios replay from their
//! committed lockfiles (read-only, as in CI) in each browser, once over WebDriver Classic and once
//! over BiDi, and every scenario comes to the same outcome, cache outcome and number of actions;
//! the run's header says which protocol the sessions spoke.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};

use common::SHOP_SCENARIOS;
use windup::{RunEvent, Selection, Settings, Suite};
use windup_core::browser::{BrowserKind, Protocol};

/// Each scenario's id, whether it passed, its cache outcome and its actions, in id order; and the
/// protocol the header named.
async fn run(
    root: &Path,
    url: &str,
    kind: BrowserKind,
    protocol: Protocol,
) -> (Vec<String>, String) {
    let toml = std::fs::read_to_string(root.join("windup.toml")).expect("windup.toml");
    let env = |name: &str| match name {
        "WINDUP_BROWSER" => Some(kind.as_str().to_owned()),
        "WINDUP_PROTOCOL" => Some(protocol.as_str().to_owned()),
        "CI" => Some("true".to_owned()),
        _ => None,
    };
    let settings = Settings::from_parts(root, Some(&toml), &env).expect("the settings are valid");
    let selection = Selection::load(&settings, None, false).expect("the scenarios load");
    let header = Arc::new(Mutex::new(String::new()));
    let heard = Arc::clone(&header);
    let finished = Suite::new(settings, url.parse().expect("the shop's URL"))
        .reporter(move |event: &RunEvent| {
            if let RunEvent::SuiteStarted { protocol, .. } = event {
                heard.lock().unwrap().clone_from(protocol);
            }
        })
        .run(selection)
        .await
        .unwrap_or_else(|e| panic!("{kind} over {}: the suite runs: {e}", protocol.as_str()));
    let mut results: Vec<String> = finished
        .results
        .iter()
        .map(|(scenario, result)| {
            format!(
                "{} passed={} cache={:?} actions={}",
                scenario.id,
                result.passed(),
                result.cache(),
                result.details.actions.len()
            )
        })
        .collect();
    results.sort();
    let protocol = header.lock().unwrap().clone();
    (results, protocol)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shops_scenarios_replay_alike_over_classic_and_bidi_in_each_browser() {
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the shop starts");
    let project = common::shop_project();
    for kind in common::browsers() {
        let (classic, said) = run(project.path(), shop.url(), kind, Protocol::Classic).await;
        assert_eq!(said, "classic", "{kind}");
        assert_eq!(classic.len(), SHOP_SCENARIOS.len(), "{kind}: {classic:#?}");
        let (bidi, said) = run(project.path(), shop.url(), kind, Protocol::Bidi).await;
        assert_eq!(said, "bidi", "{kind}");
        assert_eq!(
            bidi, classic,
            "{kind}: the same results over BiDi as over Classic"
        );
        let passed = classic.iter().filter(|r| r.contains("passed=true")).count();
        assert_eq!(passed, SHOP_SCENARIOS.len(), "{kind}: {classic:#?}");
    }
}
