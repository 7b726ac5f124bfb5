//! Logging in and out with the demo account.

use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;

use crate::Shop;
use crate::html::{self, Header, esc};
use crate::session::SessionId;
use crate::store::authenticate;

#[derive(Debug, Default, Deserialize)]
pub struct LoginQuery {
    #[serde(default)]
    next: String,
}

#[derive(Debug, Default, Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: String,
}

/// `next` when it is a path on this site, so a login link cannot send anyone elsewhere.
pub fn local_path(next: &str) -> Option<&str> {
    let local = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && !next.chars().any(char::is_control);
    local.then_some(next)
}

/// Where to log in before seeing `path`.
pub fn login_redirect(path: &str) -> Redirect {
    Redirect::to(&format!("/login?next={path}"))
}

fn login_page_response(
    shop: &Shop,
    header: &Header,
    status: StatusCode,
    next: &str,
    email: &str,
    error: Option<&str>,
) -> Response {
    let n = shop.names;
    let email_value = if email.is_empty() {
        String::new()
    } else {
        format!(r#" value="{}""#, esc(email))
    };
    let body = format!(
        r#"<h1>Log in</h1>
{error}<form class="stacked" method="post" action="/login">
<input type="hidden" name="next" value="{next}">
<div class="field"><label for="{email_id}">Email</label><input id="{email_id}" name="email" type="email"{email_value}></div>
<div class="field"><label for="{password_id}">Password</label><input id="{password_id}" name="password" type="password"></div>
<button type="submit">Log in</button>
</form>"#,
        error = html::errors(n, error.as_slice()),
        next = esc(next),
        email_id = n.email_id,
        password_id = n.password_id,
    );
    html::respond(status, header, "Log in", &body)
}

pub async fn login_page(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Query(query): Query<LoginQuery>,
) -> Response {
    let header = shop.header(shop.lock().session(&sid.0));
    let next = local_path(&query.next).unwrap_or("/");
    login_page_response(&shop, &header, StatusCode::OK, next, "", None)
}

pub async fn login(
    State(shop): State<Shop>,
    Extension(sid): Extension<SessionId>,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = local_path(&form.next).unwrap_or("/");
    let mut store = shop.lock();
    let session = store.session(&sid.0);
    match authenticate(&form.email, &form.password) {
        Some(user) => {
            session.user = Some(user.to_string());
            Redirect::to(next).into_response()
        }
        None => {
            let header = shop.header(session);
            drop(store);
            login_page_response(
                &shop,
                &header,
                StatusCode::UNPROCESSABLE_ENTITY,
                next,
                form.email.trim(),
                Some("Invalid email or password"),
            )
        }
    }
}

pub async fn logout(State(shop): State<Shop>, Extension(sid): Extension<SessionId>) -> Redirect {
    shop.lock().session(&sid.0).user = None;
    Redirect::to("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_followed() {
        assert_eq!(local_path("/checkout"), Some("/checkout"));
        assert_eq!(local_path("/orders?x=1"), Some("/orders?x=1"));
        assert_eq!(local_path("//evil.example"), None);
        assert_eq!(local_path("https://evil.example"), None);
        assert_eq!(local_path("/\\evil.example"), None);
        assert_eq!(local_path(""), None);
    }
}
