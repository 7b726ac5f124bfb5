//! The routes: what each request must carry, what it answers, and the errors, all JSON with a
//! stable `code` (docs/server.md).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Value, json};
use time::OffsetDateTime;
use url::Url;

use super::app::{ApiError, App};
use super::runs::{StartError, Stopped};
use super::{assets, stream};
use crate::engine::audit::Budget;
use crate::model::excerpt::cut;
use crate::run::audit::AuditRun;
use crate::store::{FindingId, Framework, NewRun, RunId, RunReport, RunSummary};

/// The stream's subprotocol, which the dashboard offers.
const PROTOCOL: &str = "windup.v1";

pub(super) fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{name}", get(assets::asset))
        .route("/audit", post(start))
        .route("/audits", get(list))
        .route("/audit/{id}", get(report))
        .route("/audit/{id}/stream", get(subscribe))
        .route("/audit/{id}/stop", post(stop))
        .route("/audit/{id}/files/{name}", get(file))
        .route("/findings/{id}/test", get(download))
        .fallback(|| async { ApiError::not_found("no such route: see docs/server.md") })
        .layer(axum::middleware::map_response(json_errors))
        .with_state(app)
}

/// Every error answered as JSON of the one documented shape, the framework's own included: a
/// method a route does not take (405, which had no body), an extractor's rejection (a query
/// string, a path that is no UTF-8, a stream request without its upgrade headers: plain text).
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (parts, body) = response.into_parts();
    let said = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let said = String::from_utf8_lossy(&said);
    let message = match said.trim() {
        "" => status
            .canonical_reason()
            .unwrap_or("the request was refused")
            .to_owned(),
        text => cut(text, 300),
    };
    let code = match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::URI_TOO_LONG => "uri_too_long",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UPGRADE_REQUIRED => "upgrade_required",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "headers_too_large",
        status if status.is_server_error() => "internal",
        _ => "refused",
    };
    let mut answer = ApiError::new(status, code, message).into_response();
    for name in [header::ALLOW, header::WWW_AUTHENTICATE] {
        if let Some(value) = parts.headers.get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}

/// `POST /audit`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StartAudit {
    target_url: String,
    seed: Option<u64>,
    budget: Option<BudgetAsked>,
    /// Invariants as `invariants/*.yaml` writes them, one object each.
    invariants: Option<Vec<Value>>,
    /// An `[accounts.NAME]` of windup.toml to log in with.
    account: Option<String>,
    /// Whether the model of `[llm]` takes part.
    model: Option<bool>,
    deny: Option<Vec<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetAsked {
    steps: Option<usize>,
    time_s: Option<u64>,
    pages: Option<usize>,
    walks: Option<usize>,
    walk_length: Option<usize>,
    shrink_runs: Option<usize>,
}

async fn start(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    app.admit_change(&headers)?;
    let limit = app.options.read_limit;
    let bytes = tokio::time::timeout(limit, axum::body::to_bytes(body, app.options.max_body))
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                format!(
                    "the body did not arrive within {} s: send it whole, at once",
                    limit.as_secs_f32()
                ),
            )
        })?
        .map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("the body is over {} bytes", app.options.max_body),
            )
        })?;
    let asked = parse_body(&bytes)?;
    let (new, audit) = prepare(&app, asked)?;
    let run = app.runs.start(&new, audit).map_err(|err| match err {
        StartError::Store(err) => ApiError::store(err),
        StartError::Full => ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "queue_full",
            format!(
                "{} audits wait already for the {} that may run at once: try again when one has \
                 ended, or start the server with a larger --max-queued",
                app.options.max_queued, app.options.max_running
            ),
        ),
    })?;
    let body = json!({
        "run_id": run.slug(),
        "status": "queued",
        "stream": format!("/audit/{}/stream", run.slug()),
    });
    Ok((StatusCode::ACCEPTED, axum::Json(body)).into_response())
}

/// The body as exactly one JSON object of the expected shape: 400 when it is no JSON or has
/// anything after the object, 422 naming the field (`body` when it is JSON but no object).
fn parse_body(bytes: &Bytes) -> Result<StartAudit, ApiError> {
    let not_json = |inner: serde_json::Error| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_json",
            format!("the body is not one JSON object: {inner}"),
        )
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        // Serde would read an array as the object's fields in order: only an object is taken.
        let kind = match serde_json::from_slice::<Value>(bytes).map_err(not_json)? {
            Value::Array(_) => "an array",
            Value::String(_) => "a string",
            Value::Number(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::Null => "null",
            Value::Object(_) => "an object",
        };
        return Err(ApiError::invalid(
            "body",
            format!("body: a JSON object is expected, not {kind}"),
        ));
    }
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let asked = match serde_path_to_error::deserialize::<_, StartAudit>(&mut json) {
        Ok(asked) => asked,
        Err(err) => {
            let path = err.path().to_string();
            let inner = err.into_inner();
            if inner.is_syntax() || inner.is_eof() {
                return Err(not_json(inner));
            }
            let field = if path == "." {
                field_named(&inner.to_string())
            } else {
                path
            };
            return Err(ApiError::invalid(&field, format!("{field}: {inner}")));
        }
    };
    // Nothing but white space may follow the object.
    json.end().map_err(not_json)?;
    Ok(asked)
}

/// The field a serde message names (`missing field `target_url``), else the body.
fn field_named(message: &str) -> String {
    message
        .split('`')
        .nth(1)
        .filter(|_| message.contains("field"))
        .unwrap_or("body")
        .to_owned()
}

/// The run to record and the audit to run, once every field is checked.
fn prepare(app: &App, asked: StartAudit) -> Result<(NewRun, AuditRun), ApiError> {
    let target = Url::parse(asked.target_url.trim())
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.host_str().is_some())
        .ok_or_else(|| {
            ApiError::invalid(
                "target_url",
                "target_url must be an http(s) URL, like http://127.0.0.1:4000/",
            )
        })?;
    if crate::run::audit::carries_credentials(&target) {
        return Err(ApiError::invalid(
            "target_url",
            crate::run::audit::CREDENTIALS_IN_TARGET,
        ));
    }
    if !app.options.targets.allows(&target) {
        let allowed = app.options.targets.origins().join(", ");
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "target_not_allowed",
            format!(
                "{} may not be audited by this server; the allowed origins are: {}. Start the \
                 server with --allow-target to add one",
                target.origin().ascii_serialization(),
                if allowed.is_empty() { "none" } else { &allowed }
            ),
        )
        .field("target_url"));
    }
    let budget = budget(asked.budget)?;
    let settings = &app.options.settings;
    let mut audit = AuditRun::new(settings.clone(), target.clone())
        .seed(asked.seed.unwrap_or(1))
        .budget(budget)
        .with_model(asked.model.unwrap_or(false))
        .frames(app.options.frames)
        .store(app.options.store.clone())
        .deny(&asked.deny.unwrap_or_default())
        .map_err(|err| ApiError::invalid("deny", err.to_string()))?;
    let dir = settings.root.join("invariants");
    if dir.is_dir() {
        audit = audit.invariants_dir(dir);
    }
    if let Some(invariants) = asked.invariants {
        audit = audit.invariants(invariants_of(invariants)?);
    }
    if let Some(account) = asked.account {
        if !settings.accounts.contains_key(&account) {
            return Err(ApiError::invalid(
                "account",
                format!(
                    "there is no [accounts.{}] in windup.toml",
                    cut(&account, 100)
                ),
            ));
        }
        audit = audit.account(account);
    }
    let new = NewRun {
        target_url: target.to_string(),
        seed: asked.seed.unwrap_or(1),
        budget_json: serde_json::to_string(&budget).unwrap_or_else(|_| "{}".to_owned()),
        started_at: crate::engine::ledger::started_at(OffsetDateTime::now_utc()),
    };
    Ok((new, audit))
}

fn budget(asked: Option<BudgetAsked>) -> Result<Budget, ApiError> {
    let defaults = Budget::default();
    let Some(asked) = asked else {
        return Ok(defaults);
    };
    let at_least_one = |value: Option<usize>, name: &str, default: usize| match value {
        Some(0) => Err(ApiError::invalid(
            &format!("budget.{name}"),
            format!("budget.{name} must be at least 1"),
        )),
        Some(n) => Ok(n),
        None => Ok(default),
    };
    let time = match asked.time_s {
        Some(0) => {
            return Err(ApiError::invalid(
                "budget.time_s",
                "budget.time_s must be at least 1",
            ));
        }
        Some(s) => Duration::from_secs(s),
        None => defaults.time,
    };
    Ok(Budget {
        steps: at_least_one(asked.steps, "steps", defaults.steps)?,
        time,
        pages: at_least_one(asked.pages, "pages", defaults.pages)?,
        walks: asked.walks.or(defaults.walks),
        walk_length: at_least_one(asked.walk_length, "walk_length", defaults.walk_length)?,
        shrink_runs: asked.shrink_runs.unwrap_or(defaults.shrink_runs),
    })
}

/// Invariants given inline, read as an `invariants/*.yaml` file would be, every error named.
fn invariants_of(given: Vec<Value>) -> Result<Vec<crate::model::invariant::Invariant>, ApiError> {
    let yaml = serde_yaml::to_string(&json!({ "invariants": given }))
        .map_err(|e| ApiError::invalid("invariants", format!("invariants: {e}")))?;
    crate::model::invariant::parse(&yaml, std::path::Path::new("invariants"))
        .map_err(|err| ApiError::invalid("invariants", err.to_string()))
}

fn run_id(text: &str) -> Result<RunId, ApiError> {
    text.parse().map_err(|_| {
        ApiError::not_found(format!("no audit {text:?}: an audit id looks like A-1001"))
    })
}

async fn list(State(app): State<Arc<App>>, headers: HeaderMap) -> Result<Response, ApiError> {
    app.admit(&headers)?;
    let runs = app.read(|store| store.runs(100)).await?;
    let runs: Vec<Value> = runs.iter().map(summary_json).collect();
    let targets = app.options.targets.origins();
    Ok(axum::Json(json!({ "audits": runs, "targets": targets })).into_response())
}

fn summary_json(run: &RunSummary) -> Value {
    json!({
        "run_id": run.id.slug(),
        "target_url": run.target_url,
        "status": run.status.as_str(),
        "phase": run.phase.as_str(),
        "started_at": run.started_at,
        "runtime_ms": run.runtime_ms,
        "findings": run.findings,
        "events": run.events,
        "seed": run.seed,
    })
}

async fn report(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    app.admit(&headers)?;
    let run = run_id(&id)?;
    let found = app.read(move |store| store.run(&run)).await?;
    let report = found.ok_or_else(|| ApiError::not_found(format!("no audit {id}")))?;
    Ok(axum::Json(report_json(&report)).into_response())
}

/// A stored run as the dashboard hydrates it: its summary, budget, invariants, findings with
/// their tests' downloads and screenshots' addresses.
fn report_json(report: &RunReport) -> Value {
    let run = report.summary.id.slug();
    let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    let findings: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let tests: Vec<Value> = report
                .tests
                .iter()
                .filter(|t| t.finding == finding.id)
                .map(|t| {
                    json!({
                        "framework": t.framework.as_str(),
                        "filename": t.filename,
                        "download": format!(
                            "/findings/{}/test?framework={}",
                            finding.id.slug(),
                            t.framework.as_str()
                        ),
                    })
                })
                .collect();
            let screenshots: Vec<String> =
                serde_json::from_str::<Vec<PathBuf>>(&finding.screenshots_json)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|p| p.file_name().and_then(|n| n.to_str()))
                    .map(|name| format!("/audit/{run}/files/{name}"))
                    .collect();
            json!({
                "id": finding.id.slug(),
                "invariant_id": finding.invariant_id,
                "severity": finding.severity,
                "title": finding.title,
                "expected": finding.expected,
                "actual": finding.actual,
                "impact": finding.impact,
                "steps": parse(&finding.steps_json),
                "screenshots": screenshots,
                "fingerprint": finding.fingerprint,
                "tests": tests,
            })
        })
        .collect();
    let mut body = summary_json(&report.summary);
    body["budget"] = parse(&report.budget_json);
    body["invariants"] = report.invariants_json.as_deref().map_or(Value::Null, parse);
    body["findings"] = Value::from(findings);
    body
}

#[derive(Debug, Deserialize)]
struct StreamQuery {
    after: Option<u64>,
}

async fn subscribe(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<StreamQuery>,
    upgrade: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    app.admit_change(&headers)?;
    let run = run_id(&id)?;
    // The run must exist; a finished one streams what it stored, then closes.
    if app.read(move |store| store.status(&run)).await?.is_none() {
        return Err(ApiError::not_found(format!("no audit {id}")));
    }
    let seat = match app.runs.live(&run) {
        Some(live) => Some(
            stream::Seat::take(live, app.options.max_subscribers).ok_or_else(|| {
                ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_subscribers",
                    format!(
                        "audit {id} has {} streams open already; close one",
                        app.options.max_subscribers
                    ),
                )
            })?,
        ),
        None => None,
    };
    // A browser that offers subprotocols (the dashboard: `windup.v1`, and its token as
    // `windup.bearer.TOKEN`) must be answered with one of them.
    let upgrade = upgrade.protocols([PROTOCOL]);
    let after = query.after.unwrap_or(0);
    Ok(upgrade
        .max_message_size(64 * 1024)
        .on_upgrade(move |socket| stream::follow(app, run, after, seat, socket)))
}

async fn stop(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    app.admit_change(&headers)?;
    let run = run_id(&id)?;
    let stopped = app.runs.stop(&run).map_err(ApiError::store)?;
    let (status, word) = match stopped {
        Stopped::BeforeItStarted => (StatusCode::OK, "stopped"),
        Stopped::Stopping => (StatusCode::ACCEPTED, "stopping"),
        Stopped::AlreadyOver(status) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "not_running",
                format!("audit {id} is not running: it is {status}"),
            ));
        }
    };
    Ok((
        status,
        axum::Json(json!({ "run_id": run.slug(), "status": word })),
    )
        .into_response())
}

async fn file(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path((id, name)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    app.admit(&headers)?;
    let run = run_id(&id)?;
    let kind = match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("png") => "image/png",
        Some("jpg") => "image/jpeg",
        _ => return Err(ApiError::not_found(format!("no file {name}"))),
    };
    let plain = !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if !plain {
        return Err(ApiError::not_found(format!("no file {name}")));
    }
    let path = crate::run::audit::run_artifacts(&app.options.settings, &run).join(&name);
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|_| ApiError::not_found(format!("audit {id} has no file {name}")))?;
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "private, max-age=3600"),
        ],
        bytes,
    )
        .into_response())
}

#[derive(Debug, Deserialize)]
struct DownloadQuery {
    framework: Option<String>,
}

async fn download(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(query): Query<DownloadQuery>,
) -> Result<Response, ApiError> {
    app.admit(&headers)?;
    let finding: FindingId = id.parse().map_err(|_| {
        ApiError::not_found(format!("no finding {id:?}: a finding id looks like F-1"))
    })?;
    let framework = match query.framework.as_deref() {
        None => Framework::Windup,
        Some(word) => Framework::from_word(word).ok_or_else(|| {
            ApiError::invalid("framework", "framework must be windup or playwright")
        })?,
    };
    let test = app
        .read(move |store| {
            if store.finding(&finding)?.is_none() {
                return Ok(Err(ApiError::not_found(format!(
                    "no finding {}",
                    finding.slug()
                ))));
            }
            Ok(store.test(&finding, framework)?.ok_or_else(|| {
                ApiError::not_found(format!(
                    "finding {} has no {framework} test",
                    finding.slug()
                ))
            }))
        })
        .await??;
    let name = std::path::Path::new(&test.filename)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("test.txt")
        .to_owned();
    let disposition = format!("attachment; filename=\"{}\"", name.replace('"', ""));
    let kind = match framework {
        Framework::Windup => "application/yaml; charset=utf-8",
        Framework::Playwright => "application/typescript; charset=utf-8",
    };
    Ok((
        [
            (header::CONTENT_TYPE, kind.to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        test.code,
    )
        .into_response())
}
