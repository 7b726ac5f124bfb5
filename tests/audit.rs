//! The audit end to end in real Chromium, against both demo apps with their seeded bugs and
//! against their correct twins.

mod common;

use std::path::Path;

use common::Project;
use windup::engine::config::Settings;
use windup::{AuditFinished, AuditRun, Budget};

/// A project whose `[accounts.demo]` is the shop's public demo account.
fn shop_settings(project: &Project) -> Settings {
    let toml = "[accounts.demo]\nemail = \"SHOP_DEMO_EMAIL\"\npassword = \"SHOP_DEMO_PASSWORD\"\n";
    let mut settings = project.settings_with(toml, &|_| None);
    settings.env_file = settings
        .env_file
        .clone()
        .with("SHOP_DEMO_EMAIL", windup_shop::DEMO_EMAIL)
        .with("SHOP_DEMO_PASSWORD", windup_shop::DEMO_PASSWORD);
    settings
}

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

async fn audit_shop(bugs: &str, seed: u64) -> (Project, AuditFinished) {
    let shop = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: bugs.parse().unwrap(),
        ..Default::default()
    })
    .await
    .unwrap();
    let project = Project::with(&[]);
    let settings = shop_settings(&project);
    let finished = AuditRun::new(settings, shop.url().parse().unwrap())
        .seed(seed)
        .invariants_dir(repo("examples/shop/invariants"))
        .account("demo")
        .reporter({
            let t0 = std::time::Instant::now();
            move |e: &windup::RunEvent| {
                eprintln!("{:>6.1}s {}", t0.elapsed().as_secs_f64(), e.to_json())
            }
        })
        .run()
        .await
        .unwrap();
    drop(shop);
    (project, finished)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_shop_with_every_bug() {
    let started = std::time::Instant::now();
    let (_project, finished) = audit_shop("all", 7).await;
    let outcome = &finished.outcome;
    eprintln!(
        "took {:?}; {} actions, {} attacks, {} pages, stopped by {}",
        started.elapsed(),
        outcome.actions,
        outcome.attacks,
        outcome.pages_explored,
        outcome.stopped_by
    );
    for finding in &outcome.findings {
        eprintln!(
            "FINDING {} [{}] {}\n  {}\n  steps: {:?}",
            finding.id, finding.attack, finding.title, finding.actual, finding.steps
        );
    }
    let _ = Budget::default();
    assert!(!outcome.findings.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_todo_app_with_every_bug() {
    let todo = windup_todo::spawn(windup_todo::TodoOptions {
        bugs: "all".parse().unwrap(),
    })
    .await
    .unwrap();
    let project = Project::with(&[]);
    let settings = project.settings_with("", &|_| None);
    let started = std::time::Instant::now();
    let finished = AuditRun::new(settings, todo.url().parse().unwrap())
        .seed(7)
        .invariants_dir(repo("examples/todo/invariants"))
        .reporter({
            let t0 = std::time::Instant::now();
            move |e: &windup::RunEvent| {
                eprintln!("{:>6.1}s {}", t0.elapsed().as_secs_f64(), e.to_json())
            }
        })
        .run()
        .await
        .unwrap();
    let outcome = &finished.outcome;
    eprintln!(
        "took {:?}; {} actions, {} attacks, {} pages, stopped by {}",
        started.elapsed(),
        outcome.actions,
        outcome.attacks,
        outcome.pages_explored,
        outcome.stopped_by
    );
    for finding in &outcome.findings {
        eprintln!(
            "FINDING {} [{}]\n  {}\n  steps: {:?}",
            finding.id, finding.attack, finding.actual, finding.steps
        );
    }
}
