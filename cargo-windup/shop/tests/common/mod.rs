//! A shopper driving a spawned shop over HTTP, with its own cookie jar.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Mutex;

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use windup_shop::{BugSet, Markup, RunningShop, ShopOptions};

/// The shopper keeps the shop's cookies itself (name and value; the shop sets no domain or
/// path) rather than through reqwest's `cookies` feature: a feature only these tests turned on
/// made every `cargo run -p cargo-windup` after `cargo test` compile windup-core again.
pub struct Shopper {
    pub shop: RunningShop,
    client: reqwest::Client,
    cookies: Mutex<BTreeMap<String, String>>,
}

/// A response, read to the end.
pub struct Page {
    pub status: StatusCode,
    pub location: Option<String>,
    pub body: String,
}

impl Page {
    pub fn assert_redirect(&self, to: &str) {
        assert_eq!(self.status, StatusCode::SEE_OTHER, "{}", self.body);
        assert_eq!(self.location.as_deref(), Some(to));
    }
}

pub async fn shop(bugs: &str, markup: Markup) -> Shopper {
    let bugs: BugSet = bugs.parse().expect("valid bug list");
    let shop = windup_shop::spawn(ShopOptions { bugs, markup })
        .await
        .expect("shop starts");
    Shopper::new(shop)
}

pub async fn standard(bugs: &str) -> Shopper {
    shop(bugs, Markup::Standard).await
}

impl Shopper {
    pub fn new(shop: RunningShop) -> Self {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client");
        Shopper {
            shop,
            client,
            cookies: Mutex::new(BTreeMap::new()),
        }
    }

    /// Someone else on the same shop: a client that sends no cookies.
    pub fn stranger(&self) -> reqwest::Client {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.shop.url(), path)
    }

    /// Sends a request with the jar's cookies, and keeps the cookies the answer sets (the shop
    /// sets one, its session, and never clears it).
    async fn send(&self, request: reqwest::RequestBuilder) -> Page {
        let cookie = {
            let jar = self.cookies.lock().unwrap();
            jar.iter()
                .map(|(name, value)| format!("{name}={value}"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let request = if cookie.is_empty() {
            request
        } else {
            request.header(COOKIE, cookie)
        };
        let response = request.send().await.expect("the shop answers");
        for set in response.headers().get_all(SET_COOKIE) {
            let set = set.to_str().expect("an ASCII cookie");
            let pair = set.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').expect("name=value");
            let mut jar = self.cookies.lock().unwrap();
            jar.insert(name.trim().to_owned(), value.to_owned());
        }
        Self::read(response).await
    }

    async fn read(response: reqwest::Response) -> Page {
        let status = response.status();
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = response.text().await.expect("body");
        Page {
            status,
            location,
            body,
        }
    }

    pub async fn get(&self, path: &str) -> Page {
        self.send(self.client.get(self.url(path))).await
    }

    /// GET that must answer 200.
    pub async fn page(&self, path: &str) -> String {
        let page = self.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "GET {path}: {}", page.body);
        page.body
    }

    pub async fn post(&self, path: &str, form: &[(&str, &str)]) -> Page {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form)
            .finish();
        let request = self
            .client
            .post(self.url(path))
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(body);
        self.send(request).await
    }

    pub async fn add(&self, slug: &str, qty: &str) {
        self.post("/cart/add", &[("slug", slug), ("qty", qty)])
            .await
            .assert_redirect("/cart");
    }

    pub async fn login(&self) {
        self.post(
            "/login",
            &[
                ("email", "demo@windup.test"),
                ("password", "demo-password-123"),
                ("next", "/"),
            ],
        )
        .await
        .assert_redirect("/");
    }

    /// Renders the checkout page and returns its one-time token.
    pub async fn checkout_token(&self) -> String {
        let body = self.page("/checkout").await;
        attr_after(&body, r#"name="token" value=""#).expect("checkout token")
    }

    pub async fn submit_checkout(&self, token: &str) -> Page {
        self.post(
            "/checkout",
            &[
                ("name", "Ada Lovelace"),
                ("address", "12 Analytical Row"),
                ("country", "Portugal"),
                ("terms", "yes"),
                ("token", token),
            ],
        )
        .await
    }

    /// How many orders the order history lists.
    pub async fn order_count(&self) -> usize {
        let body = self.page("/orders").await;
        body.matches(r#"<tr data-testid="order-row-"#).count()
    }
}

/// The text between `prefix` and the next double quote.
pub fn attr_after(html: &str, prefix: &str) -> Option<String> {
    let start = html.find(prefix)? + prefix.len();
    let end = html[start..].find('"')?;
    Some(html[start..start + end].to_string())
}

/// The inner text of the element carrying `data-testid="{id}"`.
pub fn testid_text(html: &str, id: &str) -> Option<String> {
    let marker = format!(r#"data-testid="{id}""#);
    let start = html.find(&marker)?;
    let open_end = html[start..].find('>')? + start + 1;
    let close = html[open_end..].find('<')? + open_end;
    Some(html[open_end..close].to_string())
}

/// Every value of `attr="…"` in `html` (the attribute name must follow a space).
pub fn attr_values(html: &str, attr: &str) -> Vec<String> {
    let needle = format!(r#" {attr}=""#);
    let mut values = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        if let Some(end) = rest.find('"') {
            values.push(rest[..end].to_string());
        }
    }
    values
}

/// The visible text nodes of a page, sorted, so markup order does not matter.
pub fn sorted_texts(html: &str) -> Vec<String> {
    let mut texts = Vec::new();
    let mut current = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                in_tag = true;
                texts.push(std::mem::take(&mut current));
            }
            '>' => in_tag = false,
            c if !in_tag => current.push(c),
            _ => {}
        }
    }
    texts.push(current);
    let mut texts: Vec<String> = texts
        .into_iter()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    texts.sort();
    texts
}
