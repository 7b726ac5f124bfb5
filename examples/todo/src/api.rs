//! The JSON API the page talks to: list, add, change, delete, toggle all, clear completed.
//! Every answer is JSON except a deletion's (204) and the `long-title-500` bug's failure,
//! which is the bare 500 a crashing handler gives.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::App;
use crate::session::SessionId;
use crate::store::{Change, Todo, TodoError};

/// Why a request got no answer but an error.
#[derive(Debug)]
pub enum ApiError {
    /// The body is not the JSON the route expects.
    BadBody(String),
    /// The list refused the change.
    Refused(TodoError),
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        ApiError::BadBody(rejection.body_text())
    }
}

impl From<TodoError> for ApiError {
    fn from(err: TodoError) -> Self {
        ApiError::Refused(err)
    }
}

/// A refusal as the API answers it: a status and `{"error": message}`.
fn refusal(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let err = match self {
            ApiError::BadBody(message) => return refusal(StatusCode::BAD_REQUEST, &message),
            ApiError::Refused(err) => err,
        };
        match err {
            TodoError::EmptyTitle | TodoError::TitleTooLong | TodoError::ListFull => {
                refusal(StatusCode::UNPROCESSABLE_ENTITY, &err.to_string())
            }
            TodoError::NotFound => refusal(StatusCode::NOT_FOUND, &err.to_string()),
            TodoError::ColumnTooNarrow => {
                (StatusCode::INTERNAL_SERVER_ERROR, "Internal Server Error").into_response()
            }
        }
    }
}

type Answer = Result<Response, ApiError>;

/// The id in `/api/todos/{id}`; anything but a number names no item.
fn todo_id(raw: &str) -> Result<u64, TodoError> {
    raw.parse().map_err(|_| TodoError::NotFound)
}

fn list(app: &App, sid: &SessionId) -> Vec<Todo> {
    app.lock().list(&sid.0).todos().to_vec()
}

pub async fn index(State(app): State<App>, Extension(sid): Extension<SessionId>) -> Response {
    Json(list(&app, &sid)).into_response()
}

#[derive(Debug, Deserialize)]
pub struct NewTodo {
    title: String,
}

pub async fn create(
    State(app): State<App>,
    Extension(sid): Extension<SessionId>,
    body: Result<Json<NewTodo>, JsonRejection>,
) -> Answer {
    let Json(new) = body?;
    let todo = app.lock().list(&sid.0).add(&new.title, app.bugs)?;
    Ok((StatusCode::CREATED, Json(todo)).into_response())
}

#[derive(Debug, Deserialize)]
pub struct Patch {
    title: Option<String>,
    completed: Option<bool>,
}

pub async fn update(
    State(app): State<App>,
    Extension(sid): Extension<SessionId>,
    Path(id): Path<String>,
    body: Result<Json<Patch>, JsonRejection>,
) -> Answer {
    let Json(patch) = body?;
    let change = Change {
        title: patch.title,
        completed: patch.completed,
    };
    let id = todo_id(&id)?;
    let todo = app.lock().list(&sid.0).update(id, change, app.bugs)?;
    Ok(Json(todo).into_response())
}

pub async fn delete(
    State(app): State<App>,
    Extension(sid): Extension<SessionId>,
    Path(id): Path<String>,
) -> Answer {
    let id = todo_id(&id)?;
    app.lock().list(&sid.0).remove(id)?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[derive(Debug, Deserialize)]
pub struct ToggleAll {
    completed: bool,
}

pub async fn toggle_all(
    State(app): State<App>,
    Extension(sid): Extension<SessionId>,
    body: Result<Json<ToggleAll>, JsonRejection>,
) -> Answer {
    let Json(toggle) = body?;
    app.lock().list(&sid.0).set_all(toggle.completed);
    Ok(Json(list(&app, &sid)).into_response())
}

pub async fn clear_completed(
    State(app): State<App>,
    Extension(sid): Extension<SessionId>,
) -> Response {
    app.lock().list(&sid.0).clear_completed();
    Json(list(&app, &sid)).into_response()
}
