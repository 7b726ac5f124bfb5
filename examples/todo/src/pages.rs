//! The one HTML page, its stylesheet and script, and the answer for everything else.

use axum::extract::{OriginalUri, State};
use axum::http::StatusCode;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{Html, IntoResponse, Response};
use serde_json::json;

use crate::App;

/// The page: the same for every bug set; the script fills it in from the API.
pub const PAGE: &str = include_str!("../static/index.html");
const CSS: &str = include_str!("../static/todo.css");

const NOT_FOUND: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Not found · todos</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/todo.css">
</head>
<body>
<section class="todoapp">
<header class="header"><h1>todos</h1></header>
<p class="notice">Sorry, there is nothing here. <a href="/">Back to the list</a></p>
</section>
</body>
</html>
"#;

pub async fn home() -> Response {
    ([(CACHE_CONTROL, "no-cache")], Html(PAGE)).into_response()
}

pub async fn css() -> Response {
    (
        [
            (CONTENT_TYPE, "text/css; charset=utf-8"),
            (CACHE_CONTROL, "no-cache"),
        ],
        CSS,
    )
        .into_response()
}

pub async fn js(State(app): State<App>) -> Response {
    (
        [
            (CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (CACHE_CONTROL, "no-cache"),
        ],
        app.script.to_string(),
    )
        .into_response()
}

/// An unknown API route answers JSON like the rest of the API; any other path, a page.
pub async fn not_found(OriginalUri(uri): OriginalUri) -> Response {
    if uri.path().starts_with("/api/") {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "error": "No such route" })),
        )
            .into_response();
    }
    (StatusCode::NOT_FOUND, Html(NOT_FOUND)).into_response()
}
