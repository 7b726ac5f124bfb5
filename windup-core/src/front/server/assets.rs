//! The dashboard's files, built into the binary: it works offline, with no CDN.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::app::{ApiError, App};

/// `(name, content type, bytes)` of every file under `/assets/`.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("dashboard/app.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("dashboard/style.css"),
    ),
    (
        "preact-htm.js",
        "text/javascript; charset=utf-8",
        include_str!("dashboard/vendor/preact-htm.js"),
    ),
];

const INDEX: &str = include_str!("dashboard/index.html");

/// What every page of the dashboard is sent with: no framing by other sites, scripts and
/// styles of this server alone.
const POLICY: &str = "default-src 'self'; img-src 'self' data:; connect-src 'self'; \
     frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// A file of the dashboard: from `assets_dir` when set, else as built in.
async fn body(app: &App, name: &str, built_in: &'static str) -> Result<String, ApiError> {
    match &app.options.assets_dir {
        Some(dir) => tokio::fs::read_to_string(dir.join(name))
            .await
            .map_err(|e| ApiError::not_found(format!("{name} in {}: {e}", dir.display()))),
        None => Ok(built_in.to_owned()),
    }
}

pub(super) async fn index(State(app): State<Arc<App>>) -> Result<Response, ApiError> {
    let page = body(&app, "index.html", INDEX).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, POLICY),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        page,
    )
        .into_response())
}

pub(super) async fn asset(
    State(app): State<Arc<App>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let Some((file, kind, built_in)) = ASSETS.iter().find(|(file, _, _)| *file == name) else {
        return Err(ApiError::not_found(format!("no asset {name}")));
    };
    let path = if *file == "preact-htm.js" {
        "vendor/preact-htm.js"
    } else {
        file
    };
    let text = body(&app, path, built_in).await?;
    Ok((
        [
            (header::CONTENT_TYPE, *kind),
            (header::CACHE_CONTROL, "no-cache"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        text,
    )
        .into_response())
}
