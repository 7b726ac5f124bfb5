//! Replays one plan file in a real browser, with the engine alone: no scenario, no cache, no
//! model — the executor runs the plan's actions and checks their postconditions.
//!
//! `cargo run --example replay_plan [PLAN]` (default: scenarios/login.plan.json, against the demo
//! shop it starts).

use std::path::PathBuf;
use std::process::ExitCode;

use windup::Settings;
use windup::engine::{Browser, Executor, NoValues, Rules, exec_options};

#[tokio::main]
async fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = std::env::args()
        .nth(1)
        .map_or_else(|| root.join("scenarios/login.plan.json"), PathBuf::from);
    let text = std::fs::read_to_string(&path).expect("a readable plan file");
    let plan = match windup::Plan::from_json_str(&text, &Rules::default()) {
        Ok(plan) => plan,
        Err(err) => {
            eprintln!("{}: {err}", path.display());
            return ExitCode::from(2);
        }
    };
    let settings = Settings::load(&root).expect("windup.toml loads");
    let shop = windup_shop::spawn(Default::default())
        .await
        .expect("the demo shop starts on loopback");
    let base_url = shop.url().parse().expect("the shop's URL");
    let browser = Browser::launch(settings.browser_config())
        .await
        .expect("chromedriver starts");
    let session = browser.new_session().await.expect("a browser session");
    let options = exec_options(&settings, &base_url);
    let replayed = Executor::new(&session, &options, &NoValues)
        .run(&plan)
        .await;
    let _ = session.close().await;
    match replayed {
        Ok(run) => {
            println!(
                "PASS {} ({} actions, {} ms)",
                plan.scenario_id,
                run.actions.len(),
                run.duration.as_millis()
            );
            ExitCode::SUCCESS
        }
        Err(failure) => {
            println!("FAIL {failure}");
            ExitCode::from(1)
        }
    }
}
