//! Serving connections: HTTP/1.1 (hyper) with a deadline on every request's head, which also
//! bounds how long a kept-alive connection may sit idle, a graceful end with a deadline, and the
//! HTTP layer's own refusals (a request it cannot read, a URI or headers too large) sent as the
//! API's JSON errors.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// The most header fields a request may carry; past it, 431 `headers_too_large`.
pub(super) const MAX_HEADERS: usize = 100;

/// Accepts connections on `listener` and serves `router` on each until `shutdown` resolves.
/// Then it stops accepting, lets each connection finish the request it is answering for at most
/// `grace`, and drops those a client still holds.
pub(super) async fn serve(
    listener: TcpListener,
    router: Router,
    read_limit: Duration,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) {
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let router = router.clone();
                    connections.spawn(connection(stream, router, read_limit, stopping.clone()));
                }
                Err(err) if is_the_clients(&err) => {}
                // Out of file descriptors or the like: give the connections a moment to end
                // rather than spin on accept.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    stop.send_replace(true);
    let finished = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(grace, finished).await;
    connections.shutdown().await;
}

/// An accept error that is one client's (it went away before it was accepted), not the
/// listener's.
fn is_the_clients(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
    )
}

/// Serves one connection until it closes, or, once the server stops, until it has answered the
/// request it is on.
async fn connection(
    stream: TcpStream,
    router: Router,
    read_limit: Duration,
    mut stopping: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let io = TokioIo::new(JsonRefusals::new(stream));
    let service = TowerToHyperService::new(router);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(read_limit)
        .max_headers(MAX_HEADERS);
    let conn = http.serve_connection(io, service).with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping.wait_for(|stop| *stop) => {}
    }
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}

/// A connection whose HTTP layer's own refusals go out as the API's JSON errors. hyper answers
/// a request it cannot parse by itself, before any route sees it, with a status and an empty
/// body; such an answer is recognised on its way out (a whole head, one of those statuses,
/// `content-length: 0`: the routes never send an empty error) and replaced.
struct JsonRefusals<S> {
    inner: S,
    /// A replacement being written, and how many bytes of hyper's it stands for.
    replacing: Option<Replacement>,
    /// Past a protocol switch the bytes are the WebSocket's, never looked at.
    switched: bool,
}

struct Replacement {
    bytes: Vec<u8>,
    written: usize,
    stands_for: usize,
}

impl<S> JsonRefusals<S> {
    fn new(inner: S) -> Self {
        JsonRefusals {
            inner,
            replacing: None,
            switched: false,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for JsonRefusals<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for JsonRefusals<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.replacing.is_none() && !this.switched {
            if buf.starts_with(b"HTTP/1.1 101 ") {
                this.switched = true;
            } else if let Some(bytes) = as_json(buf) {
                this.replacing = Some(Replacement {
                    bytes,
                    written: 0,
                    stands_for: buf.len(),
                });
            }
        }
        let Some(replacing) = this.replacing.as_mut() else {
            return Pin::new(&mut this.inner).poll_write(cx, buf);
        };
        while replacing.written < replacing.bytes.len() {
            let rest = &replacing.bytes[replacing.written..];
            match ready!(Pin::new(&mut this.inner).poll_write(cx, rest))? {
                0 => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                n => replacing.written += n,
            }
        }
        let stands_for = replacing.stands_for;
        this.replacing = None;
        Poll::Ready(Ok(stands_for))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

/// The JSON answer standing for `written` when it is one of hyper's own bodiless refusals.
fn as_json(written: &[u8]) -> Option<Vec<u8>> {
    let head = written.strip_suffix(b"\r\n\r\n")?;
    let head = std::str::from_utf8(head).ok()?;
    if head.contains("\r\n\r\n") {
        return None;
    }
    let mut lines = head.split("\r\n");
    let status = lines.next()?.strip_prefix("HTTP/1.1 ")?.get(..3)?;
    let empty = lines.any(|line| line.eq_ignore_ascii_case("content-length: 0"));
    let (reason, code, message) = match status {
        "400" => (
            "Bad Request",
            "bad_request",
            "the request is not HTTP/1.1 that this server can read: its request line or a \
             header is malformed"
                .to_owned(),
        ),
        "414" => (
            "URI Too Long",
            "uri_too_long",
            "the request's URI is over 64 KiB".to_owned(),
        ),
        "431" => (
            "Request Header Fields Too Large",
            "headers_too_large",
            format!(
                "the request has more than {MAX_HEADERS} header fields, or its head is too large"
            ),
        ),
        _ => return None,
    };
    if !empty {
        return None;
    }
    let body = json!({ "error": { "code": code, "message": message } }).to_string();
    let answer = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    );
    Some(answer.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bodiless_refusal_of_the_http_layer_is_replaced() {
        let refused = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                        date: Fri, 04 Dec 2026 23:00:00 GMT\r\n\r\n";
        let answer = String::from_utf8(as_json(refused).unwrap()).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 "), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["error"]["code"], "headers_too_large");

        // A route's own answers carry a body, and a response body is never looked into.
        let routed = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n\
                       content-length: 20\r\n\r\n";
        assert_eq!(as_json(routed), None);
        let with_body = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}";
        assert_eq!(as_json(with_body), None);
        let not_refused = b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\n\r\n";
        assert_eq!(as_json(not_refused), None);
        assert_eq!(
            as_json(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n"),
            None
        );
    }
}
