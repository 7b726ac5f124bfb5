//! Sessions: the `shop_session` cookie, created on first visit.

use axum::extract::{Request, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use crate::Shop;

pub const COOKIE_NAME: &str = "shop_session";

/// The visitor's session id, put into request extensions by [`layer`].
#[derive(Debug, Clone)]
pub struct SessionId(pub String);

fn cookie_value<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// Finds or creates the visitor's session and sets the cookie when it is new.
pub async fn layer(State(shop): State<Shop>, mut request: Request, next: Next) -> Response {
    let (id, created) = shop
        .lock()
        .ensure_session(cookie_value(request.headers(), COOKIE_NAME));
    request.extensions_mut().insert(SessionId(id.clone()));
    let mut response = next.run(request).await;
    if created {
        let cookie = format!("{COOKIE_NAME}={id}; Path=/; HttpOnly; SameSite=Lax");
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(SET_COOKIE, value);
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_session_cookie_among_others() {
        let mut headers = HeaderMap::new();
        headers.append(
            COOKIE,
            HeaderValue::from_static("theme=dark; shop_session=abc-1"),
        );
        assert_eq!(cookie_value(&headers, COOKIE_NAME), Some("abc-1"));
        assert_eq!(cookie_value(&headers, "missing"), None);
    }
}
