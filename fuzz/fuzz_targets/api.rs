//! The audit server's request decoding, over a real connection: the HTTP layer, the routes, the
//! guards and `POST /audit`'s body down to its invariants' predicates.
//!
//! Input: the request line without its version (`POST /audit`), then header lines, then an
//! empty line and the body. The target adds `Host`, `Content-Length` and `Connection: close`
//! itself (a wrong length would only make the server wait for bytes that never come).
//!
//! Every answer must come, must not be a 5xx, and an error must be the API's JSON shape. One
//! origin may be audited, so a good body starts an audit; the audit's browser is a remote
//! WebDriver on a port nobody listens on, so it fails at once and no browser is started.

#![no_main]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use windup_core::config::Settings;
use windup_core::front::server::{ServeOptions, Server, TargetPolicy};

/// The origin the server may audit.
const TARGET: &str = "http://127.0.0.1:9";

/// How long the server waits for a request's head and body.
const READ_LIMIT: Duration = Duration::from_secs(2);

fuzz_target!(|data: &[u8]| {
    let server = server();
    let request = request(data, server);
    let answer = exchange(server, &request);
    check(&request, &answer);
});

/// The request `data` describes, as bytes on the wire.
fn request(data: &[u8], server: SocketAddr) -> Vec<u8> {
    let (head, body) = match find(data, b"\n\n") {
        Some(at) => (&data[..at], &data[at + 2..]),
        None => (data, &[][..]),
    };
    let mut lines = head.split(|b| *b == b'\n').map(strip_cr);
    let line = lines.next().unwrap_or_default();
    let mut wire = Vec::with_capacity(data.len() + 128);
    wire.extend_from_slice(line);
    wire.extend_from_slice(b" HTTP/1.1\r\n");
    // An empty line would end the head early and send what follows as a second request.
    for header in lines.filter(|line| !line.is_empty()) {
        let name = header.split(|b| *b == b':').next().unwrap_or_default();
        let name = String::from_utf8_lossy(name).trim().to_ascii_lowercase();
        if [
            "host",
            "content-length",
            "transfer-encoding",
            "connection",
            "expect",
        ]
        .contains(&name.as_str())
        {
            continue;
        }
        wire.extend_from_slice(header);
        wire.extend_from_slice(b"\r\n");
    }
    wire.extend_from_slice(format!("Host: {server}\r\n").as_bytes());
    wire.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    wire.extend_from_slice(b"Connection: close\r\n\r\n");
    wire.extend_from_slice(body);
    wire
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Sends the request and reads the answer to its end, or only its head when the connection
/// became a WebSocket.
fn exchange(server: SocketAddr, request: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(server).expect("the server accepts a connection");
    stream
        .set_read_timeout(Some(READ_LIMIT * 5))
        .expect("a read timeout can be set");
    // The server may answer, and close, before it has read everything (a head too large).
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionReset => break,
            // libFuzzer's timer (SIGALRM, for -timeout) interrupts a waiting read.
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => panic!("no answer within {:?}: {err}", READ_LIMIT * 5),
        }
        if answer.starts_with(b"HTTP/1.1 101") && find(&answer, b"\r\n\r\n").is_some() {
            break;
        }
    }
    answer
}

/// The answer's rules: it came, it is no server error, and an error is `{"error": {"code", …}}`.
fn check(request: &[u8], answer: &[u8]) {
    let shown = || {
        format!(
            "request:\n{}\nanswer:\n{}",
            String::from_utf8_lossy(&request[..request.len().min(2000)]),
            String::from_utf8_lossy(&answer[..answer.len().min(2000)])
        )
    };
    let Some(end) = find(answer, b"\r\n\r\n") else {
        panic!("no whole answer\n{}", shown());
    };
    let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status\n{}", shown()));
    assert!(status < 500, "a server error\n{}", shown());
    if status < 400 || request.starts_with(b"HEAD ") {
        return;
    }
    let mut body = answer[end + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    let json: serde_json::Value = serde_json::from_slice(&body)
        .unwrap_or_else(|err| panic!("an error that is no JSON ({err})\n{}", shown()));
    assert!(
        json["error"]["code"].is_string() && json["error"]["message"].is_string(),
        "an error without its code and message\n{}",
        shown()
    );
}

/// A chunked body's bytes.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(at) = find(body, b"\r\n") {
        let size = std::str::from_utf8(&body[..at])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next()?.trim(), 16).ok())
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let chunk = &body[at + 2..];
        out.extend_from_slice(&chunk[..size.min(chunk.len())]);
        body = chunk.get(size + 2..).unwrap_or_default();
    }
    out
}

/// The server, started once for the whole run on a runtime of its own.
fn server() -> SocketAddr {
    static SERVER: OnceLock<SocketAddr> = OnceLock::new();
    *SERVER.get_or_init(|| {
        let root = project();
        let toml = "[browser]\nwebdriver_url = \"http://127.0.0.1:1\"\n";
        let settings =
            Settings::from_parts(&root, Some(toml), &|_| None).expect("the settings are good");
        let mut options = ServeOptions::new(settings);
        options.bind = SocketAddr::from(([127, 0, 0, 1], 0));
        options.targets = TargetPolicy::from_origins([TARGET.to_owned()]);
        options.read_limit = READ_LIMIT;
        options.max_queued = 4;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let server = runtime
            .block_on(Server::bind(options))
            .expect("the server binds to loopback");
        let addr = server.local_addr();
        std::thread::spawn(move || {
            // Served until the fuzzer exits; the process's end stops it.
            let _ = runtime.block_on(server.serve(std::future::pending()));
        });
        addr
    })
}

/// A project folder of this process's own, under the fuzz crate's target directory; the folders
/// of runs that have ended are removed.
fn project() -> PathBuf {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/api-projects");
    if let Ok(entries) = std::fs::read_dir(&base) {
        for entry in entries.flatten() {
            let pid = entry.file_name().to_string_lossy().parse::<u32>().ok();
            let alive = pid.is_some_and(|pid| PathBuf::from(format!("/proc/{pid}")).exists());
            if !alive {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let root = base.join(std::process::id().to_string());
    std::fs::create_dir_all(&root).expect("the fuzz target directory is writable");
    root
}
