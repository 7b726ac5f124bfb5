//! The list behaves correctly with no bugs switched on: the API, sessions and bounds.

mod common;

use common::todo;
use reqwest::{Method, StatusCode};
use serde_json::json;
use windup_todo::{Bug, BugSet, MAX_SESSIONS, MAX_TITLE_CHARS, MAX_TODOS, TodoOptions};

#[tokio::test]
async fn spawn_gives_a_base_url_without_trailing_slash() {
    let running = windup_todo::spawn(TodoOptions::default()).await.unwrap();
    let url = running.url().to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert!(!url.ends_with('/'));
    assert_eq!(
        running.addr().port().to_string(),
        url.rsplit(':').next().unwrap()
    );
    let body = reqwest::get(format!("{url}/")).await.unwrap().text().await;
    assert!(body.unwrap().contains("<h1>todos</h1>"));
}

#[test]
fn options_default_to_no_bugs() {
    let opts = TodoOptions::default();
    assert!(opts.bugs.is_empty());
    assert!(Bug::ALL.iter().all(|bug| !opts.bugs.contains(*bug)));
}

#[test]
fn bug_sets_parse_and_reject_unknown_names() {
    let all: BugSet = "all".parse().unwrap();
    assert!(Bug::ALL.iter().all(|bug| all.contains(*bug)));
    assert!("none".parse::<BugSet>().unwrap().is_empty());
    let some: BugSet = "counter-counts-all, long-title-500".parse().unwrap();
    assert!(some.contains(Bug::CounterCountsAll));
    assert!(some.contains(Bug::LongTitle500));
    assert!(!some.contains(Bug::TitleXss));
    assert_eq!(some.iter().count(), 2);
    let err = "title-xss,typo".parse::<BugSet>().unwrap_err().to_string();
    assert!(err.contains("`typo`"), "{err}");
    assert!(
        err.contains(
            "all, none, counter-counts-all, input-not-cleared, active-filter-leaks, title-xss, \
             clear-completed-throws, long-title-500"
        ),
        "{err}"
    );
}

#[tokio::test]
async fn the_first_visit_sets_an_http_only_session_cookie_once() {
    let visitor = todo("none").await;
    let first = visitor.get("/").await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.set_cookie.len(), 1, "{:?}", first.set_cookie);
    let cookie = &first.set_cookie[0];
    assert!(cookie.starts_with("todo_session="), "{cookie}");
    for attribute in ["Path=/", "HttpOnly", "SameSite=Lax"] {
        assert!(cookie.contains(attribute), "{cookie} lacks {attribute}");
    }
    assert!(visitor.get("/api/todos").await.set_cookie.is_empty());
    assert!(visitor.get("/").await.set_cookie.is_empty());

    let stranger = visitor.stranger();
    for path in ["/static/todo.js", "/static/todo.css"] {
        let answer = stranger.get(path).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert!(answer.set_cookie.is_empty(), "{path} made a session");
    }
}

#[tokio::test]
async fn items_are_added_changed_and_deleted() {
    let visitor = todo("none").await;
    assert!(visitor.todos().await.is_empty());
    let created = visitor.post_title("  Buy milk  ").await;
    assert_eq!(created.status, StatusCode::CREATED);
    assert_eq!(
        created.json(),
        json!({ "id": 1, "title": "Buy milk", "completed": false })
    );
    let second = visitor.add("Walk the dog").await;

    let done = visitor.patch(1, json!({ "completed": true })).await;
    assert_eq!(done.status, StatusCode::OK);
    assert_eq!(
        done.json(),
        json!({ "id": 1, "title": "Buy milk", "completed": true })
    );
    let renamed = visitor
        .patch(second, json!({ "title": " Walk the cat " }))
        .await;
    assert_eq!(renamed.json()["title"], "Walk the cat");
    assert_eq!(renamed.json()["completed"], false);
    assert_eq!(visitor.titles().await, ["Buy milk", "Walk the cat"]);

    let deleted = visitor.delete(1).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert!(deleted.body.is_empty());
    assert_eq!(visitor.delete(1).await.status, StatusCode::NOT_FOUND);
    assert_eq!(visitor.titles().await, ["Walk the cat"]);
    assert_eq!(visitor.add("Third").await, 3, "ids are never reused");
}

#[tokio::test]
async fn toggle_all_and_clear_completed_answer_the_list() {
    let visitor = todo("none").await;
    for title in ["a", "b", "c"] {
        visitor.add(title).await;
    }
    let all = visitor
        .send(
            Method::POST,
            "/api/todos/toggle-all",
            Some(json!({ "completed": true })),
        )
        .await;
    assert_eq!(all.status, StatusCode::OK);
    let list = all.json();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|t| t["completed"] == true)
    );
    visitor.patch(2, json!({ "completed": false })).await;

    let cleared = visitor.clear_completed().await;
    assert_eq!(cleared.status, StatusCode::OK);
    assert_eq!(
        cleared.json(),
        json!([{ "id": 2, "title": "b", "completed": false }])
    );
    assert_eq!(visitor.titles().await, ["b"]);
    let again = visitor.clear_completed().await;
    assert_eq!(
        again.json(),
        json!([{ "id": 2, "title": "b", "completed": false }])
    );
}

#[tokio::test]
async fn blank_and_too_long_titles_are_refused_with_a_message() {
    let visitor = todo("none").await;
    for blank in ["", "   ", "\t\u{a0}\u{feff}"] {
        let answer = visitor.post_title(blank).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{blank:?}");
        assert_eq!(answer.error(), "A to-do needs a title");
    }
    let too_long = visitor.post_title(&"x".repeat(MAX_TITLE_CHARS + 1)).await;
    assert_eq!(too_long.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        too_long
            .content_type
            .as_deref()
            .unwrap()
            .starts_with("application/json"),
        "{:?}",
        too_long.content_type
    );
    assert_eq!(too_long.error(), "A title can have at most 200 characters");
    // Characters, not bytes, and counted after trimming.
    let longest = format!("  {}  ", "ü".repeat(MAX_TITLE_CHARS));
    let id = visitor.add(&longest).await;
    assert_eq!(
        visitor.todos().await[0]["title"],
        "ü".repeat(MAX_TITLE_CHARS)
    );

    let rename = visitor.patch(id, json!({ "title": "y".repeat(201) })).await;
    assert_eq!(rename.status, StatusCode::UNPROCESSABLE_ENTITY);
    let blank = visitor
        .patch(id, json!({ "title": " ", "completed": true }))
        .await;
    assert_eq!(blank.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        visitor.todos().await[0]["completed"],
        false,
        "nothing changed"
    );
}

#[tokio::test]
async fn a_title_between_100_and_200_characters_is_stored() {
    let visitor = todo("none").await;
    let title = "a fairly long title ".repeat(8);
    assert_eq!(title.trim().chars().count(), 159);
    visitor.add(&title).await;
    assert_eq!(visitor.titles().await, [title.trim()]);
    let id = visitor.add("short").await;
    let rename = visitor.patch(id, json!({ "title": "r".repeat(150) })).await;
    assert_eq!(rename.status, StatusCode::OK);
}

#[tokio::test]
async fn malformed_requests_get_json_errors() {
    let visitor = todo("none").await;
    let no_title = visitor
        .send(Method::POST, "/api/todos", Some(json!({ "name": "x" })))
        .await;
    assert_eq!(no_title.status, StatusCode::BAD_REQUEST);
    assert!(!no_title.error().is_empty());
    let not_json = visitor.send(Method::POST, "/api/todos", None).await;
    assert_eq!(not_json.status, StatusCode::BAD_REQUEST);
    assert!(!not_json.error().is_empty());
    for path in ["/api/todos/abc", "/api/todos/99"] {
        let answer = visitor
            .send(Method::PATCH, path, Some(json!({ "completed": true })))
            .await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(answer.error(), "No such to-do");
    }
    let unknown = visitor.get("/api/nothing").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert_eq!(unknown.error(), "No such route");
    let page = visitor.get("/nothing").await;
    assert_eq!(page.status, StatusCode::NOT_FOUND);
    assert!(page.body.contains("Sorry, there is nothing here."));
}

#[tokio::test]
async fn each_visitor_has_their_own_list() {
    let alice = todo("none").await;
    let alice_item = alice.add("Alice's secret").await;
    let bob = alice.stranger();
    assert!(bob.todos().await.is_empty());
    bob.add("Bob's errand").await;
    // Bob's ids name only Bob's items: Alice's stays as it was.
    assert_eq!(
        bob.delete(alice_item + 5).await.status,
        StatusCode::NOT_FOUND
    );
    bob.complete(alice_item).await;
    bob.clear_completed().await;
    assert_eq!(alice.titles().await, ["Alice's secret"]);
    assert_eq!(alice.todos().await[0]["completed"], false);
    assert!(bob.todos().await.is_empty());

    // Without a cookie, every request is a new visitor.
    let anonymous = reqwest::Client::new();
    let answer = anonymous.get(alice.url("/api/todos")).send().await.unwrap();
    assert!(answer.headers().contains_key(reqwest::header::SET_COOKIE));
    assert_eq!(answer.text().await.unwrap(), "[]");
}

#[tokio::test]
async fn a_list_holds_at_most_500_items() {
    let visitor = todo("none").await;
    for i in 0..MAX_TODOS {
        visitor.add(&format!("item {i}")).await;
    }
    let full = visitor.post_title("one too many").await;
    assert_eq!(full.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(full.error(), "The list is full: it holds at most 500 items");
    assert_eq!(visitor.todos().await.len(), MAX_TODOS);
    assert_eq!(visitor.delete(1).await.status, StatusCode::NO_CONTENT);
    visitor.add("room again").await;
}

#[tokio::test]
async fn the_least_recently_used_session_is_forgotten_past_the_bound() {
    let first = todo("none").await;
    first.add("remembered for a while").await;
    let anonymous = reqwest::Client::new();
    for _ in 0..MAX_SESSIONS {
        let answer = anonymous.get(first.url("/api/todos")).send().await.unwrap();
        assert!(answer.headers().contains_key(reqwest::header::SET_COOKIE));
    }
    let answer = first.get("/api/todos").await;
    assert_eq!(answer.json(), json!([]), "the first session was forgotten");
    assert_eq!(answer.set_cookie.len(), 1, "and a new one began");
}
