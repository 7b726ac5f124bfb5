//! A visitor driving a spawned to-do list over HTTP, with its own cookie jar.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use reqwest::StatusCode;
use serde_json::{Value, json};
use windup_todo::{BugSet, RunningTodo, TodoOptions};

/// The visitor keeps the list's cookies itself (the list sets one, its session, and never clears
/// it) rather than through reqwest's `cookies` feature: a feature only these tests turned on made
/// every `cargo run -p cargo-windup` after `cargo test` compile windup-core again.
pub struct Visitor {
    pub app: Arc<RunningTodo>,
    client: reqwest::Client,
    cookies: Mutex<BTreeMap<String, String>>,
}

/// A response, read to the end.
pub struct Answer {
    pub status: StatusCode,
    pub content_type: Option<String>,
    pub set_cookie: Vec<String>,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.body))
    }

    /// The `error` of a JSON refusal.
    pub fn error(&self) -> String {
        self.json()["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {}", self.body))
            .to_string()
    }
}

pub fn client() -> reqwest::Client {
    reqwest::Client::new()
}

pub async fn todo(bugs: &str) -> Visitor {
    let bugs: BugSet = bugs.parse().expect("valid bug list");
    let app = windup_todo::spawn(TodoOptions { bugs })
        .await
        .expect("the list starts");
    Visitor {
        app: Arc::new(app),
        client: client(),
        cookies: Mutex::new(BTreeMap::new()),
    }
}

impl Visitor {
    /// Another visitor (another cookie jar) on the same list server.
    pub fn stranger(&self) -> Visitor {
        Visitor {
            app: Arc::clone(&self.app),
            client: client(),
            cookies: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.app.url(), path)
    }

    async fn read(response: reqwest::Response) -> Answer {
        let status = response.status();
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let set_cookie = response
            .headers()
            .get_all(reqwest::header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .map(str::to_string)
            .collect();
        let body = response.text().await.expect("body");
        Answer {
            status,
            content_type,
            set_cookie,
            body,
        }
    }

    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Answer {
        let mut request = self.client.request(method.clone(), self.url(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let cookie = {
            let jar = self.cookies.lock().unwrap();
            let pairs: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
            pairs.join("; ")
        };
        if !cookie.is_empty() {
            request = request.header(reqwest::header::COOKIE, cookie);
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|err| panic!("{method} {path}: {err}"));
        let answer = Self::read(response).await;
        let mut jar = self.cookies.lock().unwrap();
        for set in &answer.set_cookie {
            let pair = set.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                jar.insert(name.trim().to_owned(), value.to_owned());
            }
        }
        drop(jar);
        answer
    }

    pub async fn get(&self, path: &str) -> Answer {
        self.send(reqwest::Method::GET, path, None).await
    }

    /// GET that must answer 200.
    pub async fn page(&self, path: &str) -> String {
        let answer = self.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "GET {path}: {}", answer.body);
        answer.body
    }

    /// The list as the API answers it.
    pub async fn todos(&self) -> Vec<Value> {
        let answer = self.get("/api/todos").await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
        answer.json().as_array().expect("a list").clone()
    }

    pub async fn titles(&self) -> Vec<String> {
        self.todos()
            .await
            .iter()
            .map(|todo| todo["title"].as_str().expect("a title").to_string())
            .collect()
    }

    pub async fn post_title(&self, title: &str) -> Answer {
        self.send(
            reqwest::Method::POST,
            "/api/todos",
            Some(json!({ "title": title })),
        )
        .await
    }

    /// Adds an item that must be accepted; returns its id.
    pub async fn add(&self, title: &str) -> u64 {
        let answer = self.post_title(title).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.json()["id"].as_u64().expect("an id")
    }

    pub async fn patch(&self, id: u64, body: Value) -> Answer {
        self.send(
            reqwest::Method::PATCH,
            &format!("/api/todos/{id}"),
            Some(body),
        )
        .await
    }

    pub async fn complete(&self, id: u64) {
        let answer = self.patch(id, json!({ "completed": true })).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }

    pub async fn delete(&self, id: u64) -> Answer {
        self.send(reqwest::Method::DELETE, &format!("/api/todos/{id}"), None)
            .await
    }

    pub async fn clear_completed(&self) -> Answer {
        self.send(reqwest::Method::POST, "/api/todos/clear-completed", None)
            .await
    }
}
