//! The app's scripts counted as they load: every request of the session's pages to the audited
//! origin is held by the browser (WebDriver BiDi's `network.addIntercept`), and a task here
//! answers each. A script, or a page with inline scripts, is fetched here with the request's own
//! headers and cookies, given its edge counters ([`super::coverage`]) and handed to the browser as
//! the response (`network.provideResponse`); every other request goes on as it was
//! (`network.continueRequest`). BiDi cannot yet change a response body the browser fetched
//! itself (w3c/webdriver-bidi#541), so the script is fetched once, here, instead of there.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::bidi::{Link, lock};
use super::coverage::{self, Instrumented, Kind};
use super::covered::CoverageStats;

/// How long fetching one script or page may take.
const FETCH_WITHIN: Duration = Duration::from_secs(30);

/// The task answering the held requests of one session, while it lasts.
#[derive(Debug)]
pub(crate) struct Covering {
    stats: Arc<Mutex<CoverageStats>>,
    /// Every edge seen taken: its script's id and its number.
    reached: HashSet<(String, u32)>,
    task: JoinHandle<()>,
}

impl Covering {
    /// Starts answering the requests `held` brings.
    pub(crate) fn start(link: Link, mut held: mpsc::UnboundedReceiver<Value>) -> Covering {
        let stats: Arc<Mutex<CoverageStats>> = Arc::default();
        let shared = Arc::clone(&stats);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(FETCH_WITHIN)
            .build()
            .unwrap_or_default();
        let cache: Cache = Arc::default();
        let task = tokio::spawn(async move {
            while let Some(request) = held.recv().await {
                let answer = Answer {
                    link: link.clone(),
                    client: client.clone(),
                    stats: Arc::clone(&shared),
                    cache: Arc::clone(&cache),
                };
                tokio::spawn(answer.give(request));
            }
        });
        Covering {
            stats,
            reached: HashSet::new(),
            task,
        }
    }

    pub(crate) fn stats(&self) -> CoverageStats {
        CoverageStats {
            reached: self.reached.len(),
            ..lock(&self.stats).clone()
        }
    }
}

impl Drop for Covering {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Instrumented scripts by the id of their text: the same script loaded by every walk is
/// parsed once.
type Cache = Arc<Mutex<HashMap<String, Arc<Instrumented>>>>;

/// What a held request is, as far as counting goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Script,
    Page,
    Neither,
}

/// Whether a held request fetches a script, a page, or something else: by its destination where
/// the browser says it (`script`, `document`, `iframe`), by its address or `Accept` otherwise.
fn wanted(request: &Value) -> Wanted {
    if request["method"].as_str() != Some("GET") {
        return Wanted::Neither;
    }
    match request["destination"].as_str() {
        Some("script") => Wanted::Script,
        Some("document" | "iframe" | "frame") => Wanted::Page,
        Some(_) => Wanted::Neither,
        None => {
            let url = request["url"].as_str().unwrap_or_default();
            let path = url::Url::parse(url)
                .map(|u| u.path().to_ascii_lowercase())
                .unwrap_or_default();
            if [".js", ".mjs", ".cjs"]
                .iter()
                .any(|end| path.ends_with(end))
            {
                Wanted::Script
            } else if header(request, "accept").is_some_and(|a| a.contains("text/html")) {
                Wanted::Page
            } else {
                Wanted::Neither
            }
        }
    }
}

/// A header of a BiDi request (`[{name, value: {type, value}}]`), by name.
fn header(request: &Value, name: &str) -> Option<String> {
    request["headers"].as_array()?.iter().find_map(|h| {
        let found = h["name"].as_str()?.eq_ignore_ascii_case(name);
        found.then(|| h["value"]["value"].as_str().map(str::to_owned))?
    })
}

/// BiDi cookies as a `Cookie` header's value (`a=1; b=2`); those whose value is not text are
/// left out.
fn cookie_pairs<'a>(cookies: impl Iterator<Item = &'a Value>) -> String {
    let pairs: Vec<String> = cookies
        .filter(|c| c["value"]["type"] == "string")
        .filter_map(|c| {
            Some(format!(
                "{}={}",
                c["name"].as_str()?,
                c["value"]["value"].as_str()?
            ))
        })
        .collect();
    pairs.join("; ")
}

/// Whether a browser sends `cookie` (as BiDi's storage lists it) with a request to `url`: its
/// domain is the host's or one the host is under, its path is the request's or above it, and a
/// secure one goes over HTTPS only (RFC 6265, 5.4).
fn sent_to(cookie: &Value, url: &url::Url) -> bool {
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let domain = cookie["domain"].as_str().unwrap_or_default();
    let domain = domain.trim_start_matches('.').to_ascii_lowercase();
    let domain_matches = host == domain || host.ends_with(&format!(".{domain}"));
    let path = cookie["path"].as_str().unwrap_or("/");
    let asked = url.path();
    let path_matches = asked == path
        || (asked.starts_with(path)
            && (path.ends_with('/') || asked[path.len()..].starts_with('/')));
    let secure_matches = cookie["secure"] != true || url.scheme() == "https";
    !domain.is_empty() && domain_matches && path_matches && secure_matches
}

/// The headers not to send on, nor to hand back: the body's length and encoding change here,
/// and the client speaks its own connection.
const HOP: &[&str] = &[
    "accept-encoding",
    "connection",
    "content-encoding",
    "content-length",
    "host",
    "keep-alive",
    "transfer-encoding",
];

/// One held request and what answers it.
struct Answer {
    link: Link,
    client: reqwest::Client,
    stats: Arc<Mutex<CoverageStats>>,
    cache: Cache,
}

impl Answer {
    async fn give(self, params: Value) {
        let id = params["request"]["request"].clone();
        let url = params["request"]["url"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let wanted = wanted(&params["request"]);
        let provided = match wanted {
            Wanted::Neither => None,
            _ => {
                self.fetched(&params["request"], &params["context"], wanted)
                    .await
            }
        };
        if let Some(mut response) = provided {
            response["request"] = id.clone();
            match self.link.command("network.provideResponse", response).await {
                Ok(_) => return,
                // The browser would not take it: the request goes on as it was, uncounted.
                Err(refused) => lock(&self.stats)
                    .refused
                    .push(format!("{url}: the browser refused the answer: {refused}")),
            }
        } else if wanted != Wanted::Neither {
            lock(&self.stats).unfetched += 1;
        }
        let continued = self
            .link
            .command("network.continueRequest", json!({ "request": id }))
            .await;
        // A request the page no longer wants (it navigated on) is gone: nothing to answer. One
        // the browser still holds but would not let go on fails, rather than hang the page.
        if let Err(super::bidi::Refusal::Error { error, .. }) = continued
            && error != "no such request"
        {
            let _ = self
                .link
                .command("network.failRequest", json!({ "request": id }))
                .await;
        }
    }

    /// The response to hand the browser: fetched here and, when it is a script or a page,
    /// counted; `None` when it could not be fetched (the browser then fetches it itself).
    /// `context` is the page that asked for it.
    async fn fetched(&self, request: &Value, context: &Value, wanted: Wanted) -> Option<Value> {
        let url = request["url"].as_str()?;
        let mut sent = self.client.get(url);
        for h in request["headers"].as_array().into_iter().flatten() {
            let (Some(name), Some(value)) = (h["name"].as_str(), h["value"]["value"].as_str())
            else {
                continue;
            };
            if !name.starts_with(':') && !HOP.contains(&name.to_ascii_lowercase().as_str()) {
                sent = sent.header(name, value);
            }
        }
        if header(request, "cookie").is_none()
            && let Some(cookies) = self.cookies(request, context).await
        {
            sent = sent.header("cookie", cookies);
        }
        let response = sent.send().await.ok()?;
        let status = response.status();
        let mut headers: Vec<(String, String)> = Vec::new();
        for (name, value) in response.headers() {
            if !HOP.contains(&name.as_str()) {
                headers.push((
                    name.to_string(),
                    value.to_str().unwrap_or_default().to_owned(),
                ));
            }
        }
        let content_type = response
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let body = response.bytes().await.ok()?;
        let counted = match (status.is_success(), std::str::from_utf8(&body)) {
            (true, Ok(text)) => self.counted(url, text, wanted, &content_type).await,
            _ => None,
        };
        let body = match counted {
            Some(text) => {
                // An instrumented page's inline scripts no longer have the hashes its policy names.
                headers.retain(|(name, _)| !name.starts_with("content-security-policy"));
                json!({ "type": "string", "value": text })
            }
            None => json!({
                "type": "base64",
                "value": base64::engine::general_purpose::STANDARD.encode(&body),
            }),
        };
        let headers: Vec<Value> = headers
            .into_iter()
            .map(|(name, value)| json!({ "name": name, "value": { "type": "string", "value": value } }))
            .collect();
        Some(json!({
            "statusCode": status.as_u16(),
            "reasonPhrase": status.canonical_reason().unwrap_or(""),
            "headers": headers,
            "body": body,
        }))
    }

    /// The `Cookie` header the browser would send with a request that names none: the cookies
    /// the request lists, else those the browser keeps for its address (`storage.getCookies`;
    /// chromedriver tells a held request's cookies nowhere, and a page fetched without them
    /// would start a new session, its answer's cookie replacing the browser's).
    async fn cookies(&self, request: &Value, context: &Value) -> Option<String> {
        let listed = cookie_pairs(request["cookies"].as_array().into_iter().flatten());
        if !listed.is_empty() {
            return Some(listed);
        }
        let url = url::Url::parse(request["url"].as_str()?).ok()?;
        let partition = json!({ "partition": { "type": "context", "context": context.as_str()? } });
        let kept = self
            .link
            .command("storage.getCookies", partition)
            .await
            .ok()?;
        let mut sent: Vec<&Value> = (kept["cookies"].as_array().into_iter().flatten())
            .filter(|cookie| sent_to(cookie, &url))
            .collect();
        // The longer paths first, as a browser sends them.
        sent.sort_by_key(|cookie| std::cmp::Reverse(cookie["path"].as_str().map_or(0, str::len)));
        let sent = cookie_pairs(sent.into_iter());
        (!sent.is_empty()).then_some(sent)
    }

    /// The text with its counters, when it is a script or a page that has them.
    async fn counted(
        &self,
        url: &str,
        text: &str,
        wanted: Wanted,
        content_type: &str,
    ) -> Option<String> {
        let script = content_type.contains("javascript") || content_type.contains("ecmascript");
        match wanted {
            Wanted::Script if script || content_type.is_empty() => {
                let id = coverage::script_id(text);
                if let Some(done) = lock(&self.cache).get(&id) {
                    return Some(done.code.clone());
                }
                let owned = text.to_owned();
                let instrumented = tokio::task::spawn_blocking(move || {
                    coverage::instrument(&owned, Kind::Unknown)
                })
                .await
                .ok()?;
                match instrumented {
                    Ok(done) => {
                        lock(&self.stats)
                            .scripts
                            .insert(done.id.clone(), done.edges);
                        let code = done.code.clone();
                        lock(&self.cache).insert(id, Arc::new(done));
                        Some(code)
                    }
                    Err(why) => {
                        lock(&self.stats).refused.push(format!("{url}: {why}"));
                        None
                    }
                }
            }
            Wanted::Page if content_type.contains("text/html") => {
                let owned = text.to_owned();
                let (page, scripts) =
                    tokio::task::spawn_blocking(move || coverage::instrument_html(&owned))
                        .await
                        .ok()?
                        .ok()?;
                let mut stats = lock(&self.stats);
                for script in scripts {
                    stats.scripts.insert(script.id, script.edges);
                }
                Some(page)
            }
            _ => None,
        }
    }
}

impl super::Session {
    /// Counts the edges of the scripts `origin` serves to this session's pages from now on: each
    /// script is instrumented as it loads, and every observation reads the edges taken since the
    /// last. Why it cannot, when the session speaks Classic (network interception is BiDi's) or
    /// the browser refuses to hold requests.
    pub async fn cover(&self, origin: &url::Url) -> Result<(), String> {
        let Some(channel) = self.bidi.as_ref() else {
            return Err(
                "the session speaks WebDriver Classic, which cannot change a script as it \
                        loads (coverage needs BiDi's network interception: protocol \"auto\" or \
                        \"bidi\")"
                    .to_owned(),
            );
        };
        if lock(&self.covering).is_some() {
            return Ok(());
        }
        let held = channel
            .intercept(origin)
            .await
            .map_err(|refused| format!("the browser would not hold requests: {refused}"))?;
        *lock(&self.covering) = Some(Covering::start(channel.link(), held));
        Ok(())
    }

    /// Notes the edges an observation saw taken.
    pub(crate) fn reached(&self, edges: &BTreeMap<String, Vec<u32>>) {
        if edges.is_empty() {
            return;
        }
        if let Some(covering) = lock(&self.covering).as_mut() {
            for (script, numbers) in edges {
                for &number in numbers {
                    covering.reached.insert((script.clone(), number));
                }
            }
        }
    }

    /// What counting the edges saw so far; `None` when [`Self::cover`] was not asked or failed.
    pub fn coverage(&self) -> Option<CoverageStats> {
        lock(&self.covering).as_ref().map(Covering::stats)
    }

    /// Every edge the session's observations saw taken, by its script's id and its number: what
    /// two runs reached together, as lcov files are merged. Empty when nothing was counted.
    pub fn edges_taken(&self) -> BTreeSet<(String, u32)> {
        lock(&self.covering)
            .as_ref()
            .map(|covering| covering.reached.iter().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, url: &str, destination: Option<&str>, accept: &str) -> Value {
        let mut request = json!({
            "method": method,
            "url": url,
            "headers": [{ "name": "Accept", "value": { "type": "string", "value": accept } }],
        });
        if let Some(destination) = destination {
            request["destination"] = json!(destination);
        }
        request
    }

    #[test]
    fn the_cookies_a_browser_keeps_are_sent_where_it_would_send_them() {
        let cookie = |name: &str, domain: &str, path: &str, secure: bool| {
            json!({ "name": name, "value": { "type": "string", "value": "v" },
                    "domain": domain, "path": path, "secure": secure })
        };
        let url = |u: &str| url::Url::parse(u).expect("a URL");
        let page = url("http://shop.example:8080/cart/items");
        assert!(sent_to(&cookie("s", "shop.example", "/", false), &page));
        assert!(sent_to(&cookie("s", ".example", "/cart", false), &page));
        assert!(sent_to(
            &cookie("s", "shop.example", "/cart/", false),
            &page
        ));
        assert!(!sent_to(&cookie("s", "other.example", "/", false), &page));
        assert!(
            !sent_to(&cookie("s", "op.example", "/", false), &page),
            "not a suffix of a label"
        );
        assert!(!sent_to(&cookie("s", "shop.example", "/car", false), &page));
        assert!(
            !sent_to(&cookie("s", "shop.example", "/", true), &page),
            "secure: HTTPS only"
        );
        assert!(sent_to(
            &cookie("s", "shop.example", "/", true),
            &url("https://shop.example/")
        ));
        let kept = [
            cookie("a", "shop.example", "/", false),
            json!({ "name": "b", "value": { "type": "base64", "value": "AAE=" } }),
            cookie("c", "shop.example", "/", false),
        ];
        assert_eq!(cookie_pairs(kept.iter()), "a=v; c=v");
    }

    #[test]
    fn scripts_and_pages_are_told_by_destination_or_else_by_address_and_accept() {
        let page = "text/html,application/xhtml+xml";
        assert_eq!(
            wanted(&request("GET", "http://a/x", Some("script"), "*/*")),
            Wanted::Script
        );
        assert_eq!(
            wanted(&request("GET", "http://a/", Some("document"), page)),
            Wanted::Page
        );
        assert_eq!(
            wanted(&request("GET", "http://a/f", Some("iframe"), page)),
            Wanted::Page
        );
        assert_eq!(
            wanted(&request("GET", "http://a/api", Some(""), "*/*")),
            Wanted::Neither
        );
        assert_eq!(
            wanted(&request("GET", "http://a/s.css", Some("style"), "*/*")),
            Wanted::Neither
        );
        assert_eq!(
            wanted(&request("POST", "http://a/", Some("document"), page)),
            Wanted::Neither
        );
        assert_eq!(
            wanted(&request("GET", "http://a/m.MJS?v=1", None, "*/*")),
            Wanted::Script
        );
        assert_eq!(
            wanted(&request("GET", "http://a/about", None, page)),
            Wanted::Page
        );
        assert_eq!(
            wanted(&request(
                "GET",
                "http://a/api/items",
                None,
                "application/json"
            )),
            Wanted::Neither
        );
    }
}
