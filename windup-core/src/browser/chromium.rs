//! The Chromium backend: chromedriver, `goog:chromeOptions`, Chromium's error page and a reset
//! through chromedriver's DevTools endpoint. Nothing outside this module knows any of it.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::backend::{Backend, BackendFuture, Capabilities, Local, Names};
use super::driver::find_executable;
use super::scripts::{self, Script};
use super::{BrowserConfig, BrowserError, Session, SessionPost};

/// What the page just opened is; Chromium's error page is a `chrome-error:` document that shows
/// its network error code.
static OPENED: Script = Script::new(|| {
    scripts::opened(
        "(location.href.startsWith('chrome-error:') \
          ? ((document.querySelector('.error-code') || {}).innerText || 'ERR_FAILED').trim() \
          : null)",
    )
});

/// Chromium flags for headless runs as root on a closed network (docs/browsers.md).
const FLAGS: &[&str] = &[
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-crash-reporter",
    "--disable-breakpad",
    "--password-store=basic",
    // Background work a test browser never needs; each costs CPU on small machines.
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-client-side-phishing-detection",
    "--disable-hang-monitor",
    "--disable-domain-reliability",
    "--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,CalculateNativeWinOcclusion",
    "--metrics-recording-only",
    "--mute-audio",
    // One renderer per site, reused across scenarios, instead of a new process per navigation.
    "--process-per-site",
];

const DRIVER_NAMES: &[&str] = &["chromedriver"];
/// Where Debian's and Fedora's packages put chromedriver when it is not on PATH.
const DRIVER_FALLBACKS: &[&str] = &["/usr/lib/chromium/chromedriver", "/usr/bin/chromedriver"];
const BROWSER_NAMES: &[&str] = &["chromium", "chromium-browser", "google-chrome", "chrome"];

/// Chromium, driven through chromedriver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Chromium;

impl Backend for Chromium {
    fn names(&self) -> Names {
        Names {
            browser: "Chromium",
            driver: "ChromeDriver",
        }
    }

    fn driver(&self, config: &BrowserConfig) -> Result<PathBuf, BrowserError> {
        let explicit = config.chromedriver.as_deref();
        find_executable(explicit, DRIVER_NAMES, DRIVER_FALLBACKS).ok_or_else(|| match explicit {
            Some(path) => BrowserError::DriverStart {
                path: path.to_owned(),
                reason: "there is no executable file there (check WINDUP_CHROMEDRIVER or \
                         `chromedriver` in windup.toml)"
                    .into(),
            },
            None => BrowserError::DriverNotFound {
                driver: "chromedriver",
                help: "Install Chromium and its driver (Debian/Ubuntu: `apt-get install chromium \
                       chromium-driver`), set WINDUP_CHROMEDRIVER to its path",
            },
        })
    }

    fn driver_args(&self, port: u16) -> Vec<String> {
        vec![format!("--port={port}"), "--allowed-ips=127.0.0.1".into()]
    }

    fn browser_binary(&self, config: &BrowserConfig) -> Option<PathBuf> {
        find_executable(config.chrome_binary.as_deref(), BROWSER_NAMES, &[])
    }

    fn capabilities(&self, config: &BrowserConfig, local: Option<Local<'_>>) -> Capabilities {
        let mut args: Vec<String> = FLAGS.iter().map(|f| (*f).to_owned()).collect();
        if config.headless {
            args.push("--headless".into());
        }
        args.push(format!(
            "--window-size={},{}",
            config.window_width, config.window_height
        ));
        let mut options = json!({});
        if let Some(local) = local {
            // A remote browser keeps its profile and executable where its grid puts them.
            if let Some(profile) = local.profile {
                args.push(format!("--user-data-dir={}", profile.display()));
            }
            if let Some(binary) = local.binary {
                options["binary"] = json!(binary);
            }
        }
        options["args"] = json!(args);
        let mut caps = Capabilities::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert("goog:chromeOptions".into(), options);
        caps
    }

    fn session_help(&self) -> &'static str {
        "Check that Chromium is installed and matches chromedriver's version (`chromium \
         --version`, `chromedriver --version`), or set WINDUP_CHROME to the browser's path"
    }

    fn navigation_error(&self, message: &str) -> Option<String> {
        net_error_code(message)
    }

    fn opened_js(&self) -> &'static str {
        &OPENED
    }

    fn clear_browsing_data<'a>(
        &'a self,
        session: &'a Session,
        origins: Vec<String>,
    ) -> BackendFuture<'a, Result<(), BrowserError>> {
        Box::pin(async move {
            match clear_through_devtools(session, &origins).await {
                // A remote WebDriver may refuse DevTools commands (Selenium Grid passes them
                // through; some cloud grids do not): then what WebDriver alone can do.
                Err(BrowserError::Command { .. }) if !session.local => {
                    session.clear_through_webdriver(origins).await
                }
                cleared => cleared,
            }
        })
    }

    fn install_init_script<'a>(
        &'a self,
        session: &'a Session,
        js: &'a str,
    ) -> BackendFuture<'a, Result<Option<String>, BrowserError>> {
        Box::pin(async move {
            let params = json!({ "source": js });
            match cdp(session, "Page.addScriptToEvaluateOnNewDocument", params).await {
                Ok(answer) => Ok(Some(
                    answer["identifier"].as_str().unwrap_or_default().to_owned(),
                )),
                // A remote WebDriver may not pass DevTools commands through.
                Err(BrowserError::Command { .. }) if !session.local => Ok(None),
                Err(err) => Err(err),
            }
        })
    }

    fn remove_init_script<'a>(
        &'a self,
        session: &'a Session,
        id: &'a str,
    ) -> BackendFuture<'a, Result<(), BrowserError>> {
        Box::pin(async move {
            let params = json!({ "identifier": id });
            cdp(session, "Page.removeScriptToEvaluateOnNewDocument", params)
                .await
                .map(|_| ())
        })
    }

    fn slow_network<'a>(
        &'a self,
        session: &'a Session,
        latency: Option<std::time::Duration>,
    ) -> BackendFuture<'a, Result<bool, BrowserError>> {
        Box::pin(Chromium::emulate_latency(session, latency))
    }
}

impl Chromium {
    /// DevTools' network emulation: extra latency on every answer, none when `latency` is
    /// `None`; `false` when a remote WebDriver refuses DevTools commands.
    async fn emulate_latency(
        session: &Session,
        latency: Option<std::time::Duration>,
    ) -> Result<bool, BrowserError> {
        match Chromium::set_latency(session, latency).await {
            Ok(()) => Ok(true),
            Err(BrowserError::Command { .. }) if !session.local => Ok(false),
            Err(err) => Err(err),
        }
    }

    async fn set_latency(
        session: &Session,
        latency: Option<std::time::Duration>,
    ) -> Result<(), BrowserError> {
        let ms = latency.map_or(0, |l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX));
        if latency.is_some() {
            cdp(session, "Network.enable", json!({})).await?;
        }
        let params = json!({
            "offline": false,
            "latency": ms,
            "downloadThroughput": -1,
            "uploadThroughput": -1,
        });
        cdp(session, "Network.emulateNetworkConditions", params).await?;
        Ok(())
    }
}

/// Every cookie, and the storage of each of `origins`, through DevTools.
async fn clear_through_devtools(session: &Session, origins: &[String]) -> Result<(), BrowserError> {
    cdp(session, "Network.clearBrowserCookies", json!({})).await?;
    for origin in origins {
        let params = json!({ "origin": origin, "storageTypes": "all" });
        cdp(session, "Storage.clearDataForOrigin", params).await?;
    }
    Ok(())
}

/// The `ERR_…` code in a chromedriver error such as `unknown error: net::ERR_CONNECTION_REFUSED`.
fn net_error_code(message: &str) -> Option<String> {
    let rest = message.split("net::").nth(1)?;
    let code: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    code.starts_with("ERR_").then_some(code)
}

/// A Chrome DevTools command through chromedriver's `goog/cdp/execute` endpoint.
async fn cdp(session: &Session, cmd: &'static str, params: Value) -> Result<Value, BrowserError> {
    session
        .client
        .issue_cmd(SessionPost {
            path: "goog/cdp/execute",
            body: json!({ "cmd": cmd, "params": params }),
        })
        .await
        .map_err(|e| BrowserError::command(cmd, e))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn args(caps: &Capabilities) -> Vec<&str> {
        caps["goog:chromeOptions"]["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("a string"))
            .collect()
    }

    #[test]
    fn a_local_session_gets_its_profile_and_binary_a_remote_one_neither() {
        let config = BrowserConfig::default();
        let local = Local {
            profile: Some(Path::new("/tmp/windup-profile")),
            binary: Some(Path::new("/usr/bin/chromium")),
        };
        let caps = Chromium.capabilities(&config, Some(local));
        assert_eq!(caps["browserName"], "chrome");
        assert_eq!(caps["goog:chromeOptions"]["binary"], "/usr/bin/chromium");
        let local_args = args(&caps);
        assert!(local_args.contains(&"--user-data-dir=/tmp/windup-profile"));
        assert!(local_args.contains(&"--headless"));
        assert!(local_args.contains(&"--window-size=1280,900"));

        let remote = Chromium.capabilities(&config, None);
        assert!(remote["goog:chromeOptions"].get("binary").is_none());
        assert!(
            !args(&remote)
                .iter()
                .any(|a| a.starts_with("--user-data-dir"))
        );
    }

    #[test]
    fn a_headed_run_drops_only_the_headless_flag() {
        let headed = BrowserConfig {
            headless: false,
            ..BrowserConfig::default()
        };
        let caps = Chromium.capabilities(&headed, None);
        assert!(!args(&caps).contains(&"--headless"));
        assert!(args(&caps).contains(&"--no-sandbox"));
    }

    #[test]
    fn a_network_error_code_is_read_from_chromedriver_s_message() {
        let message = "unknown error: net::ERR_CONNECTION_REFUSED\n  (Session info: chrome=156.0)";
        assert_eq!(
            net_error_code(message).as_deref(),
            Some("ERR_CONNECTION_REFUSED")
        );
        assert_eq!(net_error_code("unknown error: net::something"), None);
        assert_eq!(net_error_code("no such element"), None);
    }

    #[test]
    fn a_missing_configured_driver_names_its_setting() {
        let config = BrowserConfig {
            chromedriver: Some("/nonexistent/chromedriver".into()),
            ..BrowserConfig::default()
        };
        let message = Chromium
            .driver(&config)
            .expect_err("no driver there")
            .to_string();
        assert!(message.contains("WINDUP_CHROMEDRIVER"), "{message}");
    }
}
