//! The page: TodoMVC's markup and class names, its own script and stylesheet, nothing remote.

mod common;

use common::todo;
use reqwest::StatusCode;

#[tokio::test]
async fn the_page_has_the_todomvc_markup() {
    let visitor = todo("none").await;
    let page = visitor.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        page.content_type.as_deref(),
        Some("text/html; charset=utf-8")
    );
    let body = page.body;
    for fragment in [
        r#"<html lang="en">"#,
        "<title>todos</title>",
        r#"<section class="todoapp">"#,
        r#"<header class="header">"#,
        "<h1>todos</h1>",
        r#"<input class="new-todo" placeholder="What needs to be done?" autofocus>"#,
        r#"<section class="main" hidden>"#,
        r#"<input id="toggle-all" class="toggle-all" type="checkbox">"#,
        r#"<label for="toggle-all">Mark all as complete</label>"#,
        r#"<ul class="todo-list"></ul>"#,
        r#"<footer class="footer" hidden>"#,
        r#"<span class="todo-count"><strong>0</strong> items left</span>"#,
        r#"<ul class="filters">"#,
        r##"<li><a href="#/" class="selected">All</a></li>"##,
        r##"<li><a href="#/active">Active</a></li>"##,
        r##"<li><a href="#/completed">Completed</a></li>"##,
        r#"<button class="clear-completed" hidden>Clear completed</button>"#,
        r#"<p class="error" role="alert" hidden></p>"#,
        r#"<link rel="stylesheet" href="/static/todo.css">"#,
        r#"<script src="/static/todo.js" defer></script>"#,
    ] {
        assert!(body.contains(fragment), "the page lacks {fragment}");
    }
    assert!(
        !body.contains("<form"),
        "adding is by Enter in the input, no form"
    );
    assert!(!body.contains("<button type=\"submit\""));
}

#[tokio::test]
async fn nothing_is_loaded_from_elsewhere() {
    let visitor = todo("none").await;
    let body = visitor.page("/").await;
    for remote in ["http://", "https://", "//cdn", "src=\"//"] {
        assert!(!body.contains(remote), "the page loads {remote}");
    }
    let script = visitor.page("/static/todo.js").await;
    assert!(!script.contains("http"), "the script reaches outside");
}

#[tokio::test]
async fn the_script_and_stylesheet_are_served_from_the_binary() {
    let visitor = todo("none").await;
    let js = visitor.get("/static/todo.js").await;
    assert_eq!(js.status, StatusCode::OK);
    assert_eq!(
        js.content_type.as_deref(),
        Some("text/javascript; charset=utf-8")
    );
    for needle in [
        "'/api/todos'",
        "'/api/todos/clear-completed'",
        "'/api/todos/toggle-all'",
        "'#/active'",
        "'#/completed'",
        "'selected'",
        "label.textContent = title",
        "' item left' : ' items left'",
        "newTodo.value = ''",
    ] {
        assert!(js.body.contains(needle), "the script lacks {needle}");
    }
    assert!(!js.body.contains("innerHTML"));
    assert!(!js.body.contains("//>"), "markers are rendered away");

    let css = visitor.get("/static/todo.css").await;
    assert_eq!(css.status, StatusCode::OK);
    assert_eq!(css.content_type.as_deref(), Some("text/css; charset=utf-8"));
    assert!(css.body.contains(".todo-list .destroy"));
    assert!(css.body.contains("[hidden] { display: none !important; }"));
    assert!(
        !css.body.contains(":hover .destroy"),
        "the delete button is always shown, not only on hover"
    );
}
