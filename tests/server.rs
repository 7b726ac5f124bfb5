//! `cargo windup serve`'s API over real HTTP and WebSocket, against the shop with every seeded
//! bug: an audit started, streamed, reported, listed, its tests downloaded in both dialects and
//! stopped; late and reconnecting subscribers get every event once, in order; a restarted
//! server shows the same run; and what the server must refuse, it refuses.

mod common;

use std::time::Duration;

use common::serve::{Ended, Served, Subscriber, browsers_left, has, names, seqs, target};
use serde_json::{Value, json};
use windup_core::front::server::{ServeError, Server};
use windup_core::model::secret::SecretValue;

/// One test at a time in this process: `cargo test` runs a binary's tests on threads, and a test
/// that checks no browser is left under the process must not see another test's.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Long enough for an audit of the shop to find its first bug on a busy machine.
const PATIENCE: Duration = Duration::from_secs(240);

fn tests_written(events: &[Value]) -> usize {
    events.iter().filter(|e| e["event"] == "test").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_audit_is_streamed_reported_listed_downloaded_stopped_and_replayed_after_a_restart() {
    let _serial = SERIAL.lock().await;
    let served = Served::start().await;
    let run = served
        .start_audit(json!({ "target_url": target(&served.shop), "budget": { "time_s": 600 } }))
        .await;
    let mut live = Subscriber::connect(&served.ws(&format!("/audit/{run}/stream")), &[])
        .await
        .expect("the stream opens");
    // Until the first finding's test is written in both dialects.
    let ended = live
        .follow(PATIENCE, |events| tests_written(events) >= 2)
        .await;
    assert_eq!(ended, Ended::Enough, "{:#?}", names(&live.events));
    let (status, stopping) = served.post(&format!("/audit/{run}/stop"), "", &[]).await;
    assert_eq!(
        (status, stopping["status"].as_str()),
        (202, Some("stopping"))
    );
    assert_eq!(live.follow(PATIENCE, |_| false).await, Ended::Closed);
    let events = live.events.clone();
    let n = events.len() as u64;
    assert_eq!(
        seqs(&events),
        (1..=n).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    assert!(events[0]["text"].as_str().unwrap().starts_with("Queued"));
    for name in [
        "audit_started",
        "phase",
        "reason",
        "invariant",
        "action",
        "finding",
        "test",
    ] {
        assert!(has(&events, name), "no {name}: {:#?}", names(&events));
    }
    let last = events.last().unwrap();
    assert_eq!(
        (last["event"].as_str(), last["status"].as_str()),
        (Some("done"), Some("stopped"))
    );
    let action = events.iter().find(|e| e["event"] == "action").unwrap();
    assert!(
        action["step"].as_str().is_some_and(|s| !s.is_empty()),
        "{action}"
    );
    // The preview's frames are served.
    let frame = events
        .iter()
        .find_map(|e| e["screenshot"].as_str())
        .expect("a frame of the browser");
    let name = frame.rsplit('/').next().unwrap();
    let picture = reqwest::get(served.at(&format!("/audit/{run}/files/{name}")))
        .await
        .unwrap();
    assert_eq!(picture.status(), 200);
    assert_eq!(picture.headers()["content-type"], "image/jpeg");
    assert!(browsers_left().is_empty(), "{:?}", browsers_left());

    // The report, the history and the tests, from the store.
    let (status, report) = served.get(&format!("/audit/{run}")).await;
    assert_eq!(status, 200);
    assert_eq!(report["status"], "stopped");
    assert_eq!(report["events"], n);
    let finding = &report["findings"][0];
    let frameworks: Vec<&str> = finding["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["framework"].as_str().unwrap())
        .collect();
    assert_eq!(frameworks, ["windup", "playwright"]);
    let (status, list) = served.get("/audits").await;
    assert_eq!(status, 200);
    assert_eq!(list["audits"][0]["run_id"], run.as_str());
    assert_eq!(list["targets"][0], served.shop.url());
    let id = finding["id"].as_str().unwrap();
    let scenario = reqwest::get(served.at(&format!("/findings/{id}/test")))
        .await
        .unwrap();
    assert_eq!(scenario.status(), 200);
    assert!(
        scenario.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(".yaml")
    );
    let scenario = scenario.text().await.unwrap();
    assert!(
        scenario.contains("plan_version"),
        "the scenario and its plan: {scenario}"
    );
    let spec = reqwest::get(served.at(&format!("/findings/{id}/test?framework=playwright")))
        .await
        .unwrap();
    assert!(
        spec.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(".spec.ts")
    );
    assert!(spec.text().await.unwrap().contains("@playwright/test"));

    // A late subscriber gets the same stream; one that reconnects gets the rest, once.
    let replay = stream_all(&served, &run, 0).await;
    assert_eq!(replay, events);
    let rest = stream_all(&served, &run, n / 2).await;
    assert_eq!(rest, events[(n / 2) as usize..]);
    let (status, again) = served.post(&format!("/audit/{run}/stop"), "", &[]).await;
    assert_eq!(
        (status, again["error"]["code"].as_str()),
        (409, Some("not_running"))
    );

    // A restarted server over the same store shows the same run.
    let (shop, project) = served.stop().await;
    let served = Served::over(shop, project, |_| {}).await;
    assert_eq!(served.get(&format!("/audit/{run}")).await.1, report);
    assert_eq!(stream_all(&served, &run, 0).await, events);
    served.stop().await;
}

/// Every event of a finished run after `after`, the stream closed by the server.
async fn stream_all(served: &Served, run: &str, after: u64) -> Vec<Value> {
    let url = served.ws(&format!("/audit/{run}/stream?after={after}"));
    let mut subscriber = Subscriber::connect(&url, &[])
        .await
        .expect("the stream opens");
    assert_eq!(subscriber.follow(PATIENCE, |_| false).await, Ended::Closed);
    subscriber.events
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_subscribers_get_every_event_in_order_and_a_queued_run_can_be_stopped() {
    let _serial = SERIAL.lock().await;
    let shop = windup_shop::spawn(windup_shop::ShopOptions {
        bugs: windup_shop::BugSet::all(),
        ..Default::default()
    })
    .await
    .unwrap();
    // One audit runs, one may wait.
    let served = Served::over(shop, common::Project::with(&[]), |options| {
        options.max_queued = 1;
    })
    .await;
    let budget = json!({ "time_s": 15, "pages": 4, "walks": 1 });
    let asked = json!({ "target_url": target(&served.shop), "budget": budget });
    let first = served.start_audit(asked.clone()).await;
    let second = served.start_audit(asked.clone()).await;
    // The queue is full: a third is refused, and recorded nowhere.
    let (code, full) = served.post("/audit", &asked.to_string(), &[]).await;
    assert_eq!(code, 429, "{full}");
    assert_eq!(full["error"]["code"], "queue_full", "{full}");
    let (_, listed) = served.get("/audits").await;
    assert_eq!(
        listed["audits"].as_array().map(Vec::len),
        Some(2),
        "{listed}"
    );
    // One audit at a time: the second waits.
    let (_, list) = served.get("/audits").await;
    let status = |id: &str| {
        list["audits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["run_id"] == id)
            .map(|a| a["status"].as_str().unwrap().to_owned())
    };
    assert_eq!(status(&second).as_deref(), Some("queued"));
    let mut subscribers = Vec::new();
    for _ in 0..20 {
        let url = served.ws(&format!("/audit/{first}/stream"));
        subscribers.push(
            Subscriber::connect(&url, &[])
                .await
                .expect("a stream opens"),
        );
    }
    // The check below sees a running audit's browser, so it would see one left behind.
    assert!(
        !browsers_left().is_empty(),
        "the first audit's browser runs"
    );
    let (code, stopped) = served.post(&format!("/audit/{second}/stop"), "", &[]).await;
    assert_eq!((code, stopped["status"].as_str()), (200, Some("stopped")));
    let followed = futures::future::join_all(
        subscribers
            .iter_mut()
            .map(|s| s.follow(PATIENCE, |_| false)),
    )
    .await;
    assert!(followed.iter().all(|e| *e == Ended::Closed));
    let first_events = &subscribers[0].events;
    let n = first_events.len() as u64;
    assert!(n > 10, "{:#?}", names(first_events));
    assert_eq!(seqs(first_events), (1..=n).collect::<Vec<_>>());
    assert_eq!(first_events.last().unwrap()["event"], "done");
    for subscriber in &subscribers {
        assert_eq!(
            &subscriber.events, first_events,
            "every subscriber, the same stream"
        );
    }
    // The queued run never ran: its stream is its queueing and its stop.
    let never = stream_all(&served, &second, 0).await;
    let words: Vec<&str> = never.iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(words, ["reason", "done"], "{never:#?}");
    assert_eq!(never[1]["status"], "stopped");
    assert!(browsers_left().is_empty(), "{:?}", browsers_left());
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_server_must_refuse_it_refuses() {
    let _serial = SERIAL.lock().await;
    let served = Served::start().await;
    let evil = [("origin", "http://evil.example")];
    let body = json!({ "target_url": target(&served.shop) }).to_string();
    let shop = target(&served.shop);
    let refused = |what: &'static str, body: String, headers: Vec<(&'static str, &'static str)>| {
        let served = &served;
        async move {
            let (status, answer) = served.post("/audit", &body, &headers).await;
            let message = answer["error"]["message"].as_str().unwrap_or("");
            assert!(!message.is_empty(), "{what}: {answer}");
            (
                status,
                answer["error"]["code"].as_str().unwrap_or("").to_owned(),
            )
        }
    };
    let code = |status: u16, code: &str| (status, code.to_owned());
    assert_eq!(
        refused("a cross-origin POST", body.clone(), evil.to_vec()).await,
        code(403, "forbidden_origin")
    );
    let elsewhere = json!({ "target_url": "http://169.254.169.254/latest/" });
    assert_eq!(
        refused("a disallowed target", elsewhere.to_string(), vec![]).await,
        code(403, "target_not_allowed")
    );
    assert_eq!(
        refused("no JSON", "{nope".to_owned(), vec![]).await,
        code(400, "bad_json")
    );
    // A password in the target is refused, and kept nowhere: not in an answer, not in the store.
    let password = "hunter2-in-the-url";
    let with_password =
        target(&served.shop).replacen("http://", &format!("http://:{password}@"), 1);
    for asked in [
        with_password.clone(),
        with_password.replacen("://:", "://admin:", 1),
    ] {
        let (status, answer) = served
            .post("/audit", &json!({ "target_url": asked }).to_string(), &[])
            .await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(answer["error"]["field"], "target_url", "{answer}");
        assert!(!answer.to_string().contains(password), "{answer}");
    }
    let (_, listed) = served.get("/audits").await;
    assert!(!listed.to_string().contains(password), "{listed}");
    for file in walk(served.project.root()) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(password),
            "{} holds the password",
            file.display()
        );
    }
    // The framework's own refusals are JSON of the same shape, with a code.
    let client = reqwest::Client::new();
    for (what, request, status, code) in [
        (
            "a method no route takes",
            client.delete(served.at("/audits")),
            405,
            "method_not_allowed",
        ),
        (
            "a bad query string",
            client.get(served.at("/audit/A-1001/stream?after=many")),
            400,
            "bad_request",
        ),
        (
            "a path that is no UTF-8",
            client.get(served.at("/audit/%FF%FE")),
            400,
            "bad_request",
        ),
        (
            "a stream without its upgrade",
            client.get(served.at("/audit/A-1001/stream")),
            400,
            "bad_request",
        ),
    ] {
        let answer = request.send().await.unwrap();
        assert_eq!(answer.status(), status, "{what}");
        let text = answer.text().await.unwrap();
        let json: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text:?}"));
        assert_eq!(json["error"]["code"], code, "{what}: {json}");
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}: {json}"
        );
    }
    // Exactly one object: nothing after it, and no array read as its fields in order.
    for trailing in [format!("{body} x"), format!("{body}{{\"x\":1}}")] {
        assert_eq!(
            refused("data after the object", trailing, vec![]).await,
            code(400, "bad_json")
        );
    }
    let (status, array) = served
        .post("/audit", &json!([shop, 1]).to_string(), &[])
        .await;
    assert_eq!(status, 422, "{array}");
    assert_eq!(array["error"]["field"], "body", "{array}");
    assert!(
        array["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("not an array")),
        "{array}"
    );
    let typed = json!({ "target_url": shop, "budget": { "steps": "many" } });
    assert_eq!(
        refused("a field of the wrong type", typed.to_string(), vec![]).await,
        code(422, "invalid_field")
    );
    assert_eq!(
        refused("a missing field", "{}".to_owned(), vec![]).await,
        code(422, "invalid_field")
    );
    let broken = json!({ "target_url": shop, "invariants": [
        { "id": "x", "statement": "s", "surface": "/", "predicate": "count(" }
    ] });
    assert_eq!(
        refused(
            "an invariant that does not parse",
            broken.to_string(),
            vec![]
        )
        .await,
        code(422, "invalid_field")
    );
    // A predicate nested past the limit is refused before any parser recurses (one a dozen deep
    // used to overflow a worker's stack and abort the whole server).
    let deep = format!("{}1{} == 1", "(".repeat(40), ")".repeat(40));
    let too_deep = json!({ "target_url": shop, "invariants": [
        { "id": "deep", "statement": "s", "surface": "/", "predicate": deep }
    ] });
    let (status, answer) = served.post("/audit", &too_deep.to_string(), &[]).await;
    assert_eq!(status, 422, "{answer}");
    assert_eq!(answer["error"]["field"], "invariants", "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("nests more than 24 deep"),
        "the depth and the limit are named: {answer}"
    );
    // What an answer quotes from the request is cut.
    let long = "x".repeat(60_000);
    for (what, body) in [
        (
            "a long account",
            json!({ "target_url": shop, "account": long }),
        ),
        (
            "a long unknown field",
            json!({ "target_url": shop, long.as_str(): 1 }),
        ),
    ] {
        let (status, answer) = served.post("/audit", &body.to_string(), &[]).await;
        assert_eq!(status, 422, "{what}: {answer}");
        let text = answer.to_string();
        assert!(text.len() < 1500, "{what}: {} bytes", text.len());
        assert!(text.contains("characters in all"), "{what}: {text}");
    }
    assert_eq!(
        refused("a body too large", "x".repeat(70 * 1024), vec![]).await,
        code(413, "payload_too_large")
    );
    assert_eq!(
        refused(
            "a rebinding host",
            body.clone(),
            vec![("host", "evil.example")]
        )
        .await,
        code(403, "forbidden_host")
    );
    let (_, missing) = served.post("/audit", "{}", &[]).await;
    assert_eq!(missing["error"]["field"], "target_url");
    let (_, typed) = served
        .post(
            "/audit",
            &json!({ "target_url": "x", "budget": { "steps": "many" } }).to_string(),
            &[],
        )
        .await;
    assert_eq!(typed["error"]["field"], "budget.steps");
    for path in [
        "/audit/A-9999",
        "/audit/nonsense",
        "/findings/F-9999/test",
        "/no-such-route",
    ] {
        let (status, answer) = served.get(path).await;
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (404, Some("not_found")),
            "{path}"
        );
    }
    assert_eq!(
        Subscriber::connect(&served.ws("/audit/A-9999/stream"), &[])
            .await
            .err(),
        Some(404)
    );
    assert_eq!(
        Subscriber::connect(&served.ws("/audit/A-9999/stream"), &evil)
            .await
            .err(),
        Some(403),
        "a stream opened from another origin"
    );
    assert_eq!(
        served.get("/audits").await.1["audits"],
        json!([]),
        "nothing was started"
    );
    served.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_loopback_the_server_wants_its_token_on_every_request_and_stream() {
    let _serial = SERIAL.lock().await;
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let project = common::Project::with(&[]);
    let settings = project.settings_with(&format!("base_url = \"{}\"\n", shop.url()), &|_| None);
    let mut options = windup_core::front::server::ServeOptions::new(settings);
    options.bind = "0.0.0.0:0".parse().unwrap();
    let refused = Server::bind(options.clone()).await.err();
    assert!(
        matches!(refused, Some(ServeError::NoToken { .. })),
        "{refused:?}"
    );
    assert!(refused.unwrap().to_string().contains("WINDUP_SERVE_TOKEN"));

    let served = Served::over(shop, project, |options| {
        options.bind = "0.0.0.0:0".parse().unwrap();
        options.token = Some(SecretValue::new("t0ken-for-tests"));
    })
    .await;
    let port = served.addr.port();
    let url = |path: &str| format!("http://127.0.0.1:{port}{path}");
    let client = reqwest::Client::new();
    let without = client.get(url("/audits")).send().await.unwrap();
    assert_eq!(without.status(), 401);
    assert_eq!(without.headers()["www-authenticate"], "Bearer");
    let wrong = client
        .get(url("/audits"))
        .bearer_auth("guess")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let with = client
        .get(url("/audits"))
        .bearer_auth("t0ken-for-tests")
        .send()
        .await
        .unwrap();
    assert_eq!(with.status(), 200);
    let post = client.post(url("/audit")).body("{}").send().await.unwrap();
    assert_eq!(post.status(), 401, "a start without the token");
    // The dashboard's files carry no data: they load, so that it can ask for the token.
    assert_eq!(client.get(url("/")).send().await.unwrap().status(), 200);
    let ws = format!("ws://127.0.0.1:{port}/audit/A-9999/stream");
    assert_eq!(Subscriber::connect(&ws, &[]).await.err(), Some(401));
    let bearer = [("authorization", "Bearer t0ken-for-tests")];
    assert_eq!(
        Subscriber::connect(&ws, &bearer).await.err(),
        Some(404),
        "past the token"
    );
    let protocol = [(
        "sec-websocket-protocol",
        "windup.v1, windup.bearer.t0ken-for-tests",
    )];
    assert_eq!(
        Subscriber::connect(&ws, &protocol).await.err(),
        Some(404),
        "as a browser sends it"
    );
    served.stop().await;
}

/// Every file under `dir`: the store, its write-ahead log, the files written.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// Bound to another loopback address, the server answers to the address it prints, and still
/// refuses a name that was pointed at it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bound_to_another_loopback_address_the_printed_url_works() {
    let _serial = SERIAL.lock().await;
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let served = Served::over(shop, common::Project::with(&[]), |options| {
        options.bind = "127.0.0.2:0".parse().unwrap();
    })
    .await;
    assert!(
        served.url.starts_with("http://127.0.0.2:"),
        "{}",
        served.url
    );
    let (status, listed) = served.get("/audits").await;
    assert_eq!(status, 200, "{listed}");
    let page = reqwest::get(served.at("/")).await.unwrap();
    assert_eq!(page.status(), 200, "the dashboard");
    let rebinding = reqwest::Client::new()
        .get(served.at("/audits"))
        .header("host", format!("evil.example:{}", served.addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(rebinding.status(), 403);
}

/// A client that never finishes its request does not hold the server up: asked to stop, it is
/// done within the grace it gives connections, not when the client goes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_request_does_not_keep_the_server_from_stopping() {
    use tokio::io::AsyncWriteExt;
    let _serial = SERIAL.lock().await;
    let served = Served::start().await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut client = tokio::net::TcpStream::connect(served.addr).await.unwrap();
        let head = format!(
            "POST /audit HTTP/1.1\r\nHost: {}\r\nContent-Length: 100\r\n\r\n{{\"target",
            served.addr
        );
        client.write_all(head.as_bytes()).await.unwrap();
        held.push(client);
    }
    // And one that has sent half its headers.
    let mut slow = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    slow.write_all(b"GET /audits HTTP/1.1\r\nHo").await.unwrap();
    held.push(slow);
    let stopped = tokio::time::timeout(std::time::Duration::from_secs(5), served.stop()).await;
    assert!(
        stopped.is_ok(),
        "the server still runs 5 s after it was asked to stop, held by {} clients",
        held.len()
    );
}

/// Sends `request` on a new connection and reads until the server closes it: the status and the
/// JSON body of its one answer.
async fn raw(addr: std::net::SocketAddr, request: &[u8]) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut client = tokio::net::TcpStream::connect(addr).await.unwrap();
    // A server may answer, and close, before it has read all of a request too large.
    let _ = client.write_all(request).await;
    let mut answer = Vec::new();
    let read = client.read_to_end(&mut answer);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(30), read).await;
    let answer = String::from_utf8_lossy(&answer);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no answer: {answer:?}"));
    let json = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {answer:?}"));
    (status, json)
}

/// What the HTTP layer refuses before any route reads the request is still the API's JSON error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_http_layer_cannot_read_is_answered_in_json() {
    let _serial = SERIAL.lock().await;
    let served = Served::start().await;
    let host = format!("Host: {}\r\n", served.addr);
    let long_uri = format!("GET /audits?{} HTTP/1.1\r\n{host}\r\n", "a".repeat(70_000));
    let many_headers = format!(
        "GET /audits HTTP/1.1\r\n{host}{}\r\n",
        (0..150)
            .map(|i| format!("x-{i}: {i}\r\n"))
            .collect::<String>()
    );
    let huge_header = format!(
        "GET /audits HTTP/1.1\r\n{host}x-big: {}\r\n\r\n",
        "b".repeat(600_000)
    );
    for (what, request, status, code) in [
        ("a URI over 64 KiB", long_uri, 414, "uri_too_long"),
        ("150 header fields", many_headers, 431, "headers_too_large"),
        ("a 600 KB header", huge_header, 431, "headers_too_large"),
        (
            "no HTTP at all",
            "HELLO THERE\r\n\r\n".to_owned(),
            400,
            "bad_request",
        ),
    ] {
        let (got, json) = raw(served.addr, request.as_bytes()).await;
        assert_eq!(
            (got, json["error"]["code"].as_str()),
            (status, Some(code)),
            "{what}: {json}"
        );
        assert!(
            json["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{what}: {json}"
        );
    }
    let (status, _) = served.get("/audits").await;
    assert_eq!(status, 200, "the server still serves");
    served.stop().await;
}

/// A client gets `read_limit` to send a request's head and its body, and a kept-alive
/// connection as long to send its next request; past it the server lets the connection go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_or_idle_client_is_let_go_after_the_read_limit() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let _serial = SERIAL.lock().await;
    let shop = windup_shop::spawn(Default::default()).await.unwrap();
    let served = Served::over(shop, common::Project::with(&[]), |options| {
        options.read_limit = std::time::Duration::from_secs(1);
    })
    .await;
    // Each connection must be closed by the server, well within this deadline.
    let deadline = std::time::Duration::from_secs(20);
    let closed = |mut client: tokio::net::TcpStream| async move {
        let mut seen = Vec::new();
        let read = tokio::time::timeout(deadline, client.read_to_end(&mut seen)).await;
        assert!(
            read.is_ok(),
            "the server still holds the connection after {deadline:?}"
        );
        String::from_utf8_lossy(&seen).into_owned()
    };

    let mut half_head = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    half_head
        .write_all(b"GET /audits HTTP/1.1\r\nHo")
        .await
        .unwrap();
    let seen = closed(half_head).await;
    assert!(
        !seen.contains(" 200 "),
        "half a head is never answered: {seen}"
    );

    let mut half_body = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let head = format!(
        "POST /audit HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"target",
        served.addr
    );
    half_body.write_all(head.as_bytes()).await.unwrap();
    let seen = closed(half_body).await;
    assert!(seen.starts_with("HTTP/1.1 408 "), "{seen}");
    assert!(seen.contains("\"code\":\"request_timeout\""), "{seen}");

    let mut idle = tokio::net::TcpStream::connect(served.addr).await.unwrap();
    let request = format!("GET /audits HTTP/1.1\r\nHost: {}\r\n\r\n", served.addr);
    idle.write_all(request.as_bytes()).await.unwrap();
    let seen = closed(idle).await;
    assert!(
        seen.starts_with("HTTP/1.1 200 "),
        "the request is answered first: {seen}"
    );

    let (status, _) = served.get("/audits").await;
    assert_eq!(status, 200, "the server still serves");
    served.stop().await;
}
