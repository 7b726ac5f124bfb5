//! What every handler shares: the server's state, and the error answer every route gives.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use tokio::sync::watch;

use super::ServeOptions;
use super::guard::{Guard, Refusal};
use super::runs::Runs;
use crate::model::excerpt::cut;
use crate::store::{AuditStore, StoreError};

/// What every handler shares.
pub(super) struct App {
    pub(super) options: ServeOptions,
    pub(super) local: SocketAddr,
    pub(super) store: Arc<AuditStore>,
    pub(super) runs: Runs,
    guard: Guard,
    /// Turns true when the server stops: streams end.
    pub(super) closing: watch::Sender<bool>,
}

impl App {
    pub(super) fn new(options: ServeOptions, local: SocketAddr, store: Arc<AuditStore>) -> Self {
        let guard = Guard::new(options.token.as_ref(), local);
        let runs = Runs::new(Arc::clone(&store), options.max_running, options.max_queued);
        App {
            options,
            local,
            store,
            runs,
            guard,
            closing: watch::channel(false).0,
        }
    }

    pub(super) fn close(&self) {
        self.closing.send_replace(true);
    }

    pub(super) fn admit(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        self.guard.admit(headers).map_err(ApiError::refused)
    }

    /// `admit`, and for a browser, the server's own origin.
    pub(super) fn admit_change(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        self.admit(headers)?;
        self.guard.same_origin(headers).map_err(ApiError::refused)
    }

    /// Runs a store call off the async threads.
    pub(super) async fn read<T: Send + 'static>(
        self: &Arc<Self>,
        call: impl FnOnce(&AuditStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || call(&store))
            .await
            .map_err(|e| ApiError::internal(format!("a store read ended abruptly: {e}")))?
            .map_err(ApiError::store)
    }
}

/// An error answer: `{"error": {"code", "message", "field"?}}`.
#[derive(Debug)]
pub(super) struct ApiError {
    status: StatusCode,
    code: &'static str,
    message: String,
    field: Option<String>,
}

impl ApiError {
    pub(super) fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
        }
    }

    pub(super) fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub(super) fn invalid(field: &str, message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_field", message).field(field)
    }

    pub(super) fn internal(message: String) -> Self {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    pub(super) fn refused(refusal: Refusal) -> Self {
        match refusal {
            Refusal::Token => ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "this server wants its token: send `Authorization: Bearer TOKEN` (or, for a \
                 stream, the subprotocol `windup.bearer.TOKEN`)",
            ),
            Refusal::Host => ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_host",
                "a loopback server answers only to localhost and loopback addresses (127.0.0.1, \
                 [::1]) at its port",
            ),
            Refusal::Origin => ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "a request from a page of another origin is refused: use the dashboard this \
                 server serves",
            ),
        }
    }

    pub(super) fn store(err: StoreError) -> Self {
        match err {
            StoreError::UnknownRun { run, .. } => ApiError::not_found(format!("no audit {run}")),
            StoreError::UnknownFinding { finding, .. } => {
                ApiError::not_found(format!("no finding {finding}"))
            }
            StoreError::BadId { .. } => ApiError::not_found(err.to_string()),
            other => ApiError::internal(other.to_string()),
        }
    }

    pub(super) fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        // What a message or a field name quotes from the request is cut.
        let mut error = json!({ "code": self.code, "message": cut(&self.message, 1000) });
        if let Some(field) = self.field {
            error["field"] = json!(cut(&field, 200));
        }
        let mut response = (self.status, axum::Json(json!({ "error": error }))).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        if self.status == StatusCode::REQUEST_TIMEOUT {
            // The rest of the body is never read: the connection cannot carry another request.
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}
