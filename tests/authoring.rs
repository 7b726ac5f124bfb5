//! `cargo windup new` against the shop, as a user runs it: after a run has put pages in the
//! site map, an instruction with a password typed into it becomes a scenario — with the fake
//! provider, one with explicit steps that passes on its first run; with no model, a scaffold
//! that loads. Either way the password is in `.env.local` and nowhere else: not in any other
//! file of the project, not in a prompt, not in the output.

mod common;

use std::path::Path;

use common::{Project, files_under, run_in, text};
use serde_json::json;
use windup_core::engine::sitemap::MapFile;
use windup_fake_provider::{FakeProvider, Reply};

const INSTRUCTION: &str =
    "log in as the demo user and check my past orders, password demo-password-123";
const PASSWORD: &str = "demo-password-123";

/// A project whose site map a run of `browse-catalogue` filled, against the shop at `url`.
fn mapped_project(url: &str, toml: &str) -> Project {
    let project = Project::with(&["browse-catalogue"]);
    std::fs::write(
        project.root().join("windup.toml"),
        format!("scenarios = \"scenarios\"\n{toml}"),
    )
    .unwrap();
    let output = run_in(project.root(), &["run", "--base-url", url], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let map = MapFile::of(project.root()).read().unwrap();
    assert!(map.page("/products").is_some(), "{:#?}", map.pages);
    project
}

/// Every file of the project but `.env.local` that holds the password.
fn files_with_the_password(root: &Path) -> Vec<String> {
    files_under(root)
        .into_iter()
        .filter(|path| !path.ends_with(".env.local"))
        .filter(|path| {
            std::fs::read(path)
                .map(|bytes| String::from_utf8_lossy(&bytes).contains(PASSWORD))
                .unwrap_or(false)
        })
        .map(|path| path.display().to_string())
        .collect()
}

fn assert_moved_out(root: &Path) {
    let env = std::fs::read_to_string(root.join(".env.local")).unwrap();
    assert_eq!(env, format!("DEMO_PASSWORD={PASSWORD}\n"));
    let toml = std::fs::read_to_string(root.join("windup.toml")).unwrap();
    assert!(
        toml.contains("[accounts.demo]\npassword = \"DEMO_PASSWORD\"\n"),
        "{toml}"
    );
    assert_eq!(files_with_the_password(root), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_model_new_writes_explicit_steps_that_pass_on_their_first_run() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let llm = format!(
        "[llm]\nprovider = \"openai\"\nmodel = \"gpt-5-mini\"\nbase_url = \"{}/v1\"\n",
        fake.url()
    );
    let project = mapped_project(shop.url(), &llm);
    fake.push(Reply::Json(json!({
        "name": "past-orders",
        "task": "Log in as the demo user and check my past orders.",
        "start_url": "/orders",
        "steps": [
            "fill \"Email\" with \"demo@windup.test\"",
            "fill \"Password\" with account.password",
            "click \"Log in\" in \"Password\"",
        ],
        "expect": ["url /orders", "text \"Your orders\""],
    })));
    let key = [("OPENAI_API_KEY", "fake-key-for-tests")];
    let written = run_in(project.root(), &["new", INSTRUCTION], &key);
    let out = text(&written);
    assert_eq!(written.status.code(), Some(0), "{out}");
    assert!(
        out.contains("Wrote scenarios/past-orders.yaml (drafted by the model"),
        "{out}"
    );
    assert!(out.contains("DEMO_PASSWORD in .env.local"), "{out}");

    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "one call");
    let body = requests[0].body.to_string();
    assert!(!body.contains(PASSWORD), "the prompt: {body}");
    assert!(
        body.contains("Instruction: log in as the demo user and check my past orders"),
        "{body}"
    );
    assert!(body.contains("account.password"), "{body}");
    assert!(
        body.contains("Known pages of the site") && body.contains("/products"),
        "{body}"
    );

    let scenario =
        std::fs::read_to_string(project.root().join("scenarios/past-orders.yaml")).unwrap();
    assert!(scenario.contains("account: demo\n"), "{scenario}");
    assert!(
        scenario.contains("- fill \"Password\" with account.password\n"),
        "{scenario}"
    );

    let ran = run_in(
        project.root(),
        &["run", "past-orders", "--base-url", shop.url()],
        &[],
    );
    let ran_out = text(&ran);
    assert_eq!(ran.status.code(), Some(0), "{ran_out}");
    assert!(ran_out.contains("PASS past-orders ("), "{ran_out}");
    assert!(!out.contains(PASSWORD) && !ran_out.contains(PASSWORD));
    assert_moved_out(project.root());

    // Never over a file that is there: the same name again is refused, the file unchanged.
    let again = run_in(
        project.root(),
        &["new", "--no-model", "--name", "past-orders", INSTRUCTION],
        &key,
    );
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(
        text(&again).contains("never written over"),
        "{}",
        text(&again)
    );
    assert_eq!(
        std::fs::read_to_string(project.root().join("scenarios/past-orders.yaml")).unwrap(),
        scenario
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_model_new_writes_a_scaffold_that_loads() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = mapped_project(shop.url(), "");
    let written = run_in(project.root(), &["new", INSTRUCTION], &[]);
    let out = text(&written);
    assert_eq!(written.status.code(), Some(0), "{out}");
    assert!(
        out.contains("(a scaffold from the site map, to finish)"),
        "{out}"
    );
    assert!(!out.contains(PASSWORD), "{out}");
    let dir = project.root().join("scenarios");
    let path = dir.join("log-in-as-the-demo-user.yaml");
    let scenario = windup_core::model::scenario::load(&path, &dir)
        .unwrap_or_else(|e| panic!("the scaffold loads: {e}"));
    assert_eq!(
        scenario.task,
        "Log in as the demo user and check my past orders."
    );
    assert_eq!(scenario.account.as_deref(), Some("demo"));
    assert_eq!(
        scenario.start_url, "/",
        "no known page shares the task's words"
    );
    assert_moved_out(project.root());

    // The page an instruction names is where its scaffold starts, with the steps runs took there.
    let named = run_in(
        project.root(),
        &["new", "--name", "catalogue", "look at the products"],
        &[],
    );
    assert_eq!(named.status.code(), Some(0), "{}", text(&named));
    let path = dir.join("catalogue.yaml");
    let scenario = windup_core::model::scenario::load(&path, &dir).unwrap();
    assert_eq!(scenario.start_url, "/products");
    assert_eq!(scenario.account, None, "no credential, no account");
    let yaml = std::fs::read_to_string(&path).unwrap();
    assert!(yaml.contains("#   - click \"Ferris plush\"\n"), "{yaml}");
    assert_eq!(
        files_with_the_password(project.root()),
        Vec::<String>::new()
    );
}
