#![allow(dead_code)]
//! A `cargo windup serve` server in the test's process, over a project whose one allowed target
//! is a shop with every seeded bug, and clients for its HTTP API and its streams.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::{self, Message};
use windup_core::front::server::{ServeOptions, Server};
use windup_shop::{BugSet, RunningShop, ShopOptions};

use super::Project;

/// A shop, a project that may audit it, and a server over the project's store.
#[allow(dead_code)]
pub struct Served {
    pub shop: RunningShop,
    pub project: Project,
    pub url: String,
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

#[allow(dead_code)]
impl Served {
    /// A loopback server on a free port, one audit at a time.
    pub async fn start() -> Served {
        let shop = windup_shop::spawn(ShopOptions {
            bugs: BugSet::all(),
            ..Default::default()
        })
        .await
        .expect("the shop starts");
        let project = Project::with(&[]);
        Served::over(shop, project, |_| {}).await
    }

    /// A server for `project` and `shop`, its options changed by `change`.
    pub async fn over(
        shop: RunningShop,
        project: Project,
        change: impl FnOnce(&mut ServeOptions),
    ) -> Served {
        let toml = format!("base_url = \"{}\"\n", shop.url());
        let settings = project.settings_with(&toml, &|_| None);
        let mut options = ServeOptions::new(settings);
        options.bind = SocketAddr::from(([127, 0, 0, 1], 0));
        options.frames = Duration::from_millis(300);
        change(&mut options);
        let server = Server::bind(options).await.expect("the server binds");
        let addr = server.local_addr();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            server.serve(shutdown).await.expect("the server serves");
        });
        Served {
            shop,
            project,
            url: format!("http://{addr}"),
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    pub fn at(&self, path: &str) -> String {
        format!("{}{path}", self.url)
    }

    pub fn ws(&self, path: &str) -> String {
        format!("ws://{}{path}", self.addr)
    }

    /// Stops the server: its audits stop, their browsers close, then it returns.
    pub async fn stop(mut self) -> (RunningShop, Project) {
        self.shutdown().await;
        let shop = self.shop;
        let project = self.project;
        (shop, project)
    }

    async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("the server task ends");
        }
    }

    /// Starts an audit of the shop; its run id.
    pub async fn start_audit(&self, body: Value) -> String {
        let response = reqwest::Client::new()
            .post(self.at("/audit"))
            .json(&body)
            .send()
            .await
            .expect("POST /audit");
        assert_eq!(response.status(), 202, "{:?}", response.text().await);
        let answer: Value = response.json().await.unwrap();
        answer["run_id"].as_str().unwrap().to_owned()
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = reqwest::get(self.at(path)).await.expect("a GET");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: &str, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut request = reqwest::Client::new()
            .post(self.at(path))
            .body(body.to_owned());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.expect("a POST");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

/// The shop's URL as a target: its origin with a slash.
pub fn target(shop: &RunningShop) -> String {
    format!("{}/", shop.url())
}

/// A stream's client: the events it got, in order.
pub struct Subscriber {
    socket: tokio_tungstenite::WebSocketStream<
        tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>,
    >,
    pub events: Vec<Value>,
}

/// How a stream ended for its subscriber.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// The server closed it normally: the run is over.
    Closed,
    /// The condition held first.
    Enough,
}

impl Subscriber {
    /// Connects with the subprotocol a dashboard offers, and `headers`; the refusal's status
    /// when the server answers the upgrade with an error.
    pub async fn connect(url: &str, headers: &[(&'static str, &str)]) -> Result<Subscriber, u16> {
        let mut request = url.into_client_request().unwrap();
        request.headers_mut().insert(
            "sec-websocket-protocol",
            HeaderValue::from_static("windup.v1"),
        );
        for (name, value) in headers {
            request
                .headers_mut()
                .insert(*name, HeaderValue::from_str(value).unwrap());
        }
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(Subscriber {
                socket,
                events: Vec::new(),
            }),
            Err(tungstenite::Error::Http(response)) => Err(response.status().as_u16()),
            Err(err) => panic!("the stream could not be opened: {err}"),
        }
    }

    /// Reads events until the server closes the stream or `enough` holds of them, within
    /// `limit`.
    pub async fn follow(&mut self, limit: Duration, enough: impl Fn(&[Value]) -> bool) -> Ended {
        let deadline = Instant::now() + limit;
        loop {
            if enough(&self.events) {
                return Ended::Enough;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let next = tokio::time::timeout(left, self.socket.next())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "the stream went quiet for {limit:?}: {:#?}",
                        names(&self.events)
                    )
                });
            match next {
                Some(Ok(Message::Text(text))) => self
                    .events
                    .push(serde_json::from_str(&text).expect("an event is JSON")),
                Some(Ok(Message::Close(frame))) => {
                    let code = frame.map(|f| u16::from(f.code));
                    assert_eq!(code, Some(1000), "a normal close");
                    return Ended::Closed;
                }
                Some(Ok(_)) => {}
                None => panic!("the stream ended without a close"),
                Some(Err(err)) => panic!("the stream failed: {err}"),
            }
        }
    }

    /// Leaves without waiting for the end.
    pub async fn leave(mut self) {
        let _ = self.socket.close(None).await;
    }
}

/// Each event's name and seq, for messages.
pub fn names(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| format!("{} {}", e["seq"], e["event"].as_str().unwrap_or("?")))
        .collect()
}

/// The events' seqs.
pub fn seqs(events: &[Value]) -> Vec<u64> {
    events.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

/// Whether an event of this name is among them.
pub fn has(events: &[Value], name: &str) -> bool {
    events.iter().any(|e| e["event"] == name)
}

/// The processes that descend from this one and still run: a driver, its watchdog, a browser.
/// None may outlive an audit that has ended.
pub fn browsers_left() -> Vec<String> {
    let me = std::process::id();
    // pid -> (parent, name), for every live process.
    let mut table = std::collections::HashMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`; comm may hold spaces, so read around its parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let mut rest = stat[close + 2..].split_whitespace();
        let state = rest.next().unwrap_or("");
        let ppid: u32 = rest.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        if state != "Z" {
            table.insert(pid, (ppid, stat[open + 1..close].to_owned()));
        }
    }
    let descends = |mut pid: u32| {
        for _ in 0..64 {
            match table.get(&pid) {
                Some((parent, _)) if *parent == me => return true,
                Some((parent, _)) if *parent > 1 => pid = *parent,
                _ => return false,
            }
        }
        false
    };
    table
        .iter()
        .filter(|(pid, _)| **pid != me && descends(**pid))
        .map(|(pid, (_, name))| format!("{name} ({pid})"))
        .collect()
}
