//! Secrets by reference, end to end through `cargo windup run`: account values come from
//! `.env.local`, scenarios log in with them (planned offline, and by a model through the fake
//! provider), and afterwards no file Windup wrote and no request a model received holds a value.
//! A scenario built to leak — a secret typed into a field whose text the failure then reports —
//! is caught by the leak scan, which names where it found it.

mod common;

use common::{Project, files_under, run_in, text};
use serde_json::json;
use windup_fake_provider::{FakeProvider, Reply};

const EMAIL: &str = "demo@windup.test";
const PASSWORD: &str = "demo-password-123";

fn project(fake: &FakeProvider) -> Project {
    let project = Project::with(&[]);
    std::fs::write(
        project.root().join("windup.toml"),
        format!(
            "scenarios = \"scenarios\"\n\n[llm]\nprovider = \"openai\"\nmodel = \"gpt-5-mini\"\n\
             base_url = \"{}/v1\"\n\n[accounts.demo]\nemail = \"WINDUP_SECRET_TEST_EMAIL\"\n\
             password = \"WINDUP_SECRET_TEST_PASSWORD\"\n",
            fake.url()
        ),
    )
    .unwrap();
    std::fs::write(
        project.root().join(".env.local"),
        format!(
            "# local secrets, never committed\nWINDUP_SECRET_TEST_EMAIL={EMAIL}\n\
             WINDUP_SECRET_TEST_PASSWORD=\"{PASSWORD}\"\nOPENAI_API_KEY=fake-key-for-tests\n"
        ),
    )
    .unwrap();
    project
}

fn login_answer() -> serde_json::Value {
    let action = |id: &str,
                  kind: &str,
                  selector: Option<&str>,
                  tag: &str,
                  extra: serde_json::Value| {
        let mut action = json!({
            "id": id, "type": kind, "target": null, "value": null, "value_ref": null, "url": null,
            "key": null, "use": null, "expect": [], "timeout_ms": null,
        });
        if let Some(selector) = selector {
            action["target"] = json!({ "selector": selector,
                "identity": { "tag": tag, "role": null, "name": null, "label": null } });
        }
        for (key, value) in extra.as_object().unwrap() {
            action[key] = value.clone();
        }
        action
    };
    json!({ "actions": [
        action("a1", "goto", None, "", json!({ "url": "/login" })),
        action("a2", "fill", Some("#email"), "input", json!({ "value_ref": "account.email" })),
        action("a3", "fill", Some("#password"), "input", json!({ "value_ref": "account.password" })),
        action("a4", "click", Some("form[action=\"/login\"] button[type=\"submit\"]"), "button",
            json!({ "expect": [{ "kind": "text_visible", "text": "Log out" }] })),
    ]})
}

async fn run(project: &Project, shop: &windup_shop::RunningShop) -> std::process::Output {
    let url = shop.url().to_owned();
    let dir = project.root().to_owned();
    tokio::task::spawn_blocking(move || run_in(&dir, &["run", "--base-url", &url], &[]))
        .await
        .unwrap()
}

#[tokio::test]
async fn logging_in_with_secrets_leaves_no_value_anywhere() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = project(&fake);
    project.write(
        "login-steps",
        "task: Log in as the demo user.\naccount: demo\nsteps:\n  - click \"Log in\"\n  \
         - fill \"Email\" with account.email\n  - fill \"Password\" with account.password\n  \
         - click \"Log in\" in \"Password\"\nexpect:\n  - text \"Log out\"\n",
    );
    project.write(
        "login-model",
        "task: Log in with the demo account.\naccount: demo\nexpect:\n  - text \"Log out\"\n",
    );
    fake.push(Reply::Json(login_answer()));

    let output = run(&project, &shop).await;
    let out = text(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
    assert!(!out.contains("secret leak"), "{out}");

    // The scenarios ran signed in, and the model planned one of them.
    assert_eq!(fake.requests().len(), 1);
    let prompts = files_under(&project.root().join(".windup/prompts"));
    assert_eq!(prompts.len(), 1, "the prompt is kept: {prompts:?}");

    for secret in [EMAIL, PASSWORD, "fake-key-for-tests"] {
        assert!(!out.contains(secret), "{secret} in the output");
        for request in fake.requests() {
            assert!(
                !request.body.to_string().contains(secret),
                "{secret} in a prompt"
            );
        }
        for file in files_under(project.root()) {
            if file.ends_with(".env.local") {
                continue;
            }
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{secret} in {}",
                file.display()
            );
        }
    }
}

#[tokio::test]
async fn a_scenario_built_to_leak_is_caught_by_the_leak_scan() {
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let fake = FakeProvider::start().await.unwrap();
    let project = project(&fake);
    project.write(
        "leaky",
        "task: Type the password where it shows.\naccount: demo\nstart_url: /products\nsteps:\n  \
         - fill \"Search\" with account.password\n  - expect \"Search\" value \"nothing\"\n",
    );
    let output = run(&project, &shop).await;
    let out = text(&output);
    assert_eq!(output.status.code(), Some(6), "{out}");
    assert!(
        out.contains(
            "error: secret leak: the value of accounts.demo.password is in the run's output"
        ),
        "{out}"
    );
    assert!(out.contains("FAIL leaky"), "{out}");
    let password_leaks = out.matches("secret leak").count();
    assert!(password_leaks >= 1, "{out}");
    assert_eq!(fake.requests().len(), 0);
}
