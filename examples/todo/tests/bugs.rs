//! Each seeded bug: off, the list behaves; on, it misbehaves in the documented way. The
//! server-side bug is seen in the API's answers; a client-side bug changes the served script
//! (and only the script), which a browser test then sees misbehave.

mod common;

use common::todo;
use reqwest::StatusCode;
use serde_json::json;
use windup_todo::{Bug, BugSet};

#[tokio::test]
async fn long_titles_are_stored_unless_the_bug_is_on() {
    let title = "t".repeat(150);
    let good = todo("none").await;
    let stored = good.post_title(&title).await;
    assert_eq!(stored.status, StatusCode::CREATED);
    assert_eq!(good.titles().await, [title.as_str()]);

    let bad = todo("long-title-500").await;
    let failed = bad.post_title(&title).await;
    assert_eq!(failed.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        failed.body, "Internal Server Error",
        "a bare 500, not a JSON refusal"
    );
    assert!(bad.titles().await.is_empty(), "nothing was stored");
    // Up to 100 characters still works, and validation still refuses over 200 with 422.
    let id = bad.add(&"t".repeat(100)).await;
    let over = bad.post_title(&"t".repeat(201)).await;
    assert_eq!(over.status, StatusCode::UNPROCESSABLE_ENTITY);
    // Renaming goes through the same column.
    let rename = bad.patch(id, json!({ "title": "r".repeat(101) })).await;
    assert_eq!(rename.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(bad.titles().await, ["t".repeat(100)]);
}

#[tokio::test]
async fn clearing_completed_works_on_the_server_with_or_without_its_bug() {
    for bugs in ["none", "clear-completed-throws"] {
        let visitor = todo(bugs).await;
        let done = visitor.add("done").await;
        visitor.add("open").await;
        visitor.complete(done).await;
        let cleared = visitor.clear_completed().await;
        assert_eq!(cleared.status, StatusCode::OK, "{bugs}");
        assert_eq!(
            cleared.json(),
            json!([{ "id": 2, "title": "open", "completed": false }])
        );
        assert_eq!(visitor.titles().await, ["open"], "{bugs}");
    }
}

#[tokio::test]
async fn the_page_is_the_same_whatever_the_bugs() {
    let correct = todo("none").await.page("/").await;
    for bugs in std::iter::once(BugSet::all()).chain(Bug::ALL.map(BugSet::from)) {
        let page = todo(&bugs.to_string()).await.page("/").await;
        assert_eq!(page, correct, "{bugs}");
    }
}

async fn script(bugs: &str) -> String {
    todo(bugs).await.page("/static/todo.js").await
}

#[tokio::test]
async fn each_client_side_bug_changes_the_script_and_only_when_on() {
    let correct = script("none").await;
    for bug in Bug::ALL {
        let changed = script(bug.name()).await;
        assert_eq!(changed != correct, bug.in_script(), "{bug}");
    }
    assert!(!Bug::LongTitle500.in_script());
    let all = script("all").await;
    assert_ne!(all, correct);
    for bug in Bug::ALL {
        assert!(!all.contains(bug.name()), "the script names {bug}");
    }
}

/// The lines of `buggy` that `correct` lacks, and those of `correct` that `buggy` lacks.
fn difference(correct: &str, buggy: &str) -> (Vec<String>, Vec<String>) {
    let lines =
        |text: &str| -> Vec<String> { text.lines().map(|l| l.trim().to_string()).collect() };
    let (correct, buggy) = (lines(correct), lines(buggy));
    let added = buggy
        .iter()
        .filter(|l| !correct.contains(l))
        .cloned()
        .collect();
    let removed = correct
        .iter()
        .filter(|l| !buggy.contains(l))
        .cloned()
        .collect();
    (added, removed)
}

#[tokio::test]
async fn each_client_side_bug_is_the_documented_mistake() {
    let correct = script("none").await;
    let cases: [(&str, &[&str], &[&str]); 5] = [
        (
            "counter-counts-all",
            &["const left = todos.length;"],
            &["const left = todos.filter(function (t) { return !t.completed; }).length;"],
        ),
        ("input-not-cleared", &[], &["newTodo.value = '';"]),
        (
            "active-filter-leaks",
            &["return filter === 'completed' ? todo.completed : true;"],
            &[
                "if (filter === 'active') return !todo.completed;",
                "if (filter === 'completed') return todo.completed;",
                "return true;",
            ],
        ),
        (
            "title-xss",
            &["label.innerHTML = title;"],
            &["label.textContent = title;"],
        ),
        (
            "clear-completed-throws",
            &["if (remaining.cleared.length > 0) newTodo.focus();"],
            &["newTodo.focus();"],
        ),
    ];
    for (bug, added, removed) in cases {
        let (got_added, got_removed) = difference(&correct, &script(bug).await);
        assert_eq!(got_added, added, "{bug}: lines added");
        assert_eq!(got_removed, removed, "{bug}: lines removed");
    }
}

#[tokio::test]
async fn all_bugs_at_once_still_serve_everything() {
    let visitor = todo("all").await;
    for path in ["/", "/static/todo.js", "/static/todo.css", "/api/todos"] {
        visitor.page(path).await;
    }
    let id = visitor.add("short").await;
    visitor.complete(id).await;
    assert_eq!(visitor.clear_completed().await.status, StatusCode::OK);
}
