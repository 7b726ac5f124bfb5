//! Who may use the server and what it may be asked to audit: the token, the `Host` a loopback
//! server answers to, the `Origin` a browser request must come from, and the targets allowed.

use std::net::SocketAddr;

use axum::http::{HeaderMap, header};
use sha2::{Digest, Sha256};
use url::Url;

use crate::model::secret::SecretValue;

/// The origins an audit may be asked for (`http://127.0.0.1:4000`); every other target is
/// refused, so the server cannot be made to reach an address it was not meant to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetPolicy {
    origins: Vec<String>,
}

impl TargetPolicy {
    pub fn from_origins(origins: impl IntoIterator<Item = String>) -> Self {
        let mut policy = TargetPolicy::default();
        for origin in origins {
            policy.allow(&origin);
        }
        policy
    }

    /// Allows an origin (a URL's path is ignored); false when it is no http(s) origin.
    pub fn allow(&mut self, origin: &str) -> bool {
        let Ok(url) = Url::parse(origin) else {
            return false;
        };
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return false;
        }
        let origin = url.origin().ascii_serialization();
        if !self.origins.contains(&origin) {
            self.origins.push(origin);
        }
        true
    }

    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    /// Whether `target`'s origin is allowed.
    pub fn allows(&self, target: &Url) -> bool {
        let origin = target.origin().ascii_serialization();
        self.origins.contains(&origin)
    }
}

/// The checks every API request passes.
#[derive(Debug)]
pub(super) struct Guard {
    /// The token's digest: compared digest to digest, so the time taken says nothing of it.
    token: Option<[u8; 32]>,
    local: SocketAddr,
}

/// A request a guard refuses, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// No token, or the wrong one.
    Token,
    /// A `Host` a loopback server does not answer to (DNS rebinding).
    Host,
    /// A browser request from a page of another origin.
    Origin,
}

/// The WebSocket subprotocol that carries the token from a browser, which cannot set headers
/// on a WebSocket: `windup.bearer.TOKEN`.
pub(super) const TOKEN_PROTOCOL: &str = "windup.bearer.";

fn digest(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl Guard {
    pub(super) fn new(token: Option<&SecretValue>, local: SocketAddr) -> Self {
        Guard {
            token: token.map(|t| digest(t.expose())),
            local,
        }
    }

    /// Checks the host, and the token when one is set (a `Bearer` header, or the WebSocket
    /// subprotocol).
    pub(super) fn admit(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.host(headers)?;
        let Some(expected) = self.token else {
            return Ok(());
        };
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let protocol = headers
            .get_all(header::SEC_WEBSOCKET_PROTOCOL)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .find_map(|p| p.strip_prefix(TOKEN_PROTOCOL));
        match bearer.or(protocol) {
            Some(given) if digest(given.trim()) == expected => Ok(()),
            _ => Err(Refusal::Token),
        }
    }

    /// On a loopback bind, the `Host` must be a loopback name of this port: `localhost`, or a
    /// loopback address (the one bound to among them, whichever of 127.0.0.0/8 it is). A page of
    /// another site whose name was pointed at 127.0.0.1 sends its own name.
    fn host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        if !self.local.ip().is_loopback() {
            return Ok(());
        }
        let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
            return Err(Refusal::Host);
        };
        let port = self.local.port();
        let name = match host.rsplit_once(':') {
            Some((name, given)) if !name.is_empty() && !given.contains(']') => {
                (given == port.to_string()).then_some(name)
            }
            // No port: the scheme's own, 80.
            _ => (port == 80).then_some(host),
        };
        let loopback = |name: &str| {
            name == "localhost"
                || name
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        };
        if name.is_some_and(loopback) {
            Ok(())
        } else {
            Err(Refusal::Host)
        }
    }

    /// A request that changes something, or opens a stream: when a browser sends it (with an
    /// `Origin`), it must come from the server's own pages.
    pub(super) fn same_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            // Not a browser's cross-site request: browsers always send it on those.
            return Ok(());
        };
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
        let origin = origin.to_str().unwrap_or("");
        match host {
            Some(host) if origin == format!("http://{host}") => Ok(()),
            _ => Err(Refusal::Origin),
        }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(name.clone(), HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn a_loopback_server_answers_only_to_loopback_names_of_its_port() {
        let guard = Guard::new(None, "127.0.0.1:7357".parse().unwrap());
        for host in ["127.0.0.1:7357", "localhost:7357", "[::1]:7357"] {
            assert_eq!(
                guard.admit(&headers(&[(header::HOST, host)])),
                Ok(()),
                "{host}"
            );
        }
        for host in [
            "evil.example:7357",
            "127.0.0.1:80",
            "localhost",
            "10.0.0.1:7357",
            "[::2]:7357",
            "127.0.0.1.evil.example:7357",
        ] {
            let refused = guard.admit(&headers(&[(header::HOST, host)]));
            assert_eq!(refused, Err(Refusal::Host), "{host}");
        }
        assert_eq!(guard.admit(&HeaderMap::new()), Err(Refusal::Host));
        // Bound to another loopback address, the server answers to the URL it prints.
        let other = Guard::new(None, "127.0.0.2:7357".parse().unwrap());
        for host in ["127.0.0.2:7357", "localhost:7357"] {
            assert_eq!(
                other.admit(&headers(&[(header::HOST, host)])),
                Ok(()),
                "{host}"
            );
        }
        let v6 = Guard::new(None, "[::1]:80".parse().unwrap());
        for host in ["[::1]", "localhost", "[::1]:80"] {
            assert_eq!(
                v6.admit(&headers(&[(header::HOST, host)])),
                Ok(()),
                "{host}"
            );
        }
    }

    #[test]
    fn a_token_comes_as_a_bearer_header_or_a_websocket_subprotocol() {
        let token = SecretValue::new("s3cret-token");
        let guard = Guard::new(Some(&token), "0.0.0.0:7357".parse().unwrap());
        let bearer = headers(&[(header::AUTHORIZATION, "Bearer s3cret-token")]);
        assert_eq!(guard.admit(&bearer), Ok(()));
        let protocol = headers(&[(
            header::SEC_WEBSOCKET_PROTOCOL,
            "windup.v1, windup.bearer.s3cret-token",
        )]);
        assert_eq!(guard.admit(&protocol), Ok(()));
        for wrong in [
            headers(&[(header::AUTHORIZATION, "Bearer s3cret")]),
            headers(&[(header::AUTHORIZATION, "s3cret-token")]),
            HeaderMap::new(),
        ] {
            assert_eq!(guard.admit(&wrong), Err(Refusal::Token));
        }
    }

    #[test]
    fn a_browser_request_must_come_from_the_servers_own_origin() {
        let guard = Guard::new(None, "127.0.0.1:7357".parse().unwrap());
        let own = headers(&[
            (header::HOST, "127.0.0.1:7357"),
            (header::ORIGIN, "http://127.0.0.1:7357"),
        ]);
        assert_eq!(guard.same_origin(&own), Ok(()));
        let other = headers(&[
            (header::HOST, "127.0.0.1:7357"),
            (header::ORIGIN, "http://evil.example"),
        ]);
        assert_eq!(guard.same_origin(&other), Err(Refusal::Origin));
        let tool = headers(&[(header::HOST, "127.0.0.1:7357")]);
        assert_eq!(guard.same_origin(&tool), Ok(()), "curl sends no Origin");
    }

    #[test]
    fn only_the_allowed_origins_may_be_audited() {
        let mut policy = TargetPolicy::from_origins(["http://127.0.0.1:4000/shop".to_owned()]);
        assert!(!policy.allow("ftp://example.com"));
        assert!(policy.allow("https://staging.example.com"));
        assert_eq!(
            policy.origins(),
            ["http://127.0.0.1:4000", "https://staging.example.com"]
        );
        let allowed = |url: &str| policy.allows(&Url::parse(url).unwrap());
        assert!(allowed("http://127.0.0.1:4000/cart?x=1"));
        assert!(!allowed("http://127.0.0.1:4001/"));
        assert!(!allowed("http://169.254.169.254/latest/meta-data"));
        assert!(
            !allowed("http://localhost:4000/"),
            "a name is its own origin"
        );
    }
}
