//! The Firefox backend: geckodriver (one per session: it serves one at a time),
//! `moz:firefoxOptions`, Firefox's error pages, and a reset through Firefox's own clear-data
//! service in the privileged context, with no DevTools protocol. Nothing outside this module
//! knows any of it.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::backend::{Backend, BackendFuture, Capabilities, Local, Names};
use super::driver::find_executable;
use super::scripts::{self, Script};
use super::{BrowserConfig, BrowserError, Session, SessionPost};

const DRIVER_NAMES: &[&str] = &["geckodriver"];
const BROWSER_NAMES: &[&str] = &["firefox-esr", "firefox"];

/// Firefox's `about:neterror?e=…` codes in Chromium's names, so that a page that did not open
/// says why in the same words whichever browser tried (`Unreachable`).
const NET_ERRORS: &[(&str, &str)] = &[
    ("connectionFailure", "ERR_CONNECTION_REFUSED"),
    ("dnsNotFound", "ERR_NAME_NOT_RESOLVED"),
    ("netTimeout", "ERR_CONNECTION_TIMED_OUT"),
    ("netReset", "ERR_CONNECTION_RESET"),
    ("netInterrupt", "ERR_CONNECTION_CLOSED"),
    ("netOffline", "ERR_INTERNET_DISCONNECTED"),
    ("deniedPortAccess", "ERR_UNSAFE_PORT"),
    ("nssFailure2", "ERR_SSL_PROTOCOL_ERROR"),
    ("nssBadCert", "ERR_CERT_INVALID"),
];

/// Deletes every cookie and all site data (storage, IndexedDB, caches, service workers) of
/// every origin, then calls back: runs in Firefox's privileged context.
const CLEAR_DATA_JS: &str = "const done = arguments[arguments.length - 1]; \
    const flags = Ci.nsIClearDataService; \
    const what = flags.CLEAR_COOKIES | flags.CLEAR_DOM_STORAGES | flags.CLEAR_AUTH_CACHE \
      | flags.CLEAR_AUTH_TOKENS; \
    Services.clearData.deleteData(what, (failed) => done(failed));";

/// Firefox, driven through geckodriver.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Firefox;

impl Backend for Firefox {
    fn names(&self) -> Names {
        Names {
            browser: "Firefox",
            driver: "geckodriver",
        }
    }

    fn driver(&self, config: &BrowserConfig) -> Result<PathBuf, BrowserError> {
        let explicit = config.geckodriver.as_deref();
        let cargo_bin = cargo_bin("geckodriver");
        let fallbacks: Vec<&str> = cargo_bin.iter().filter_map(|p| p.to_str()).collect();
        find_executable(explicit, DRIVER_NAMES, &fallbacks).ok_or_else(|| match explicit {
            Some(path) => BrowserError::DriverStart {
                path: path.to_owned(),
                reason: "there is no executable file there (check WINDUP_GECKODRIVER or \
                         `geckodriver` in windup.toml)"
                    .into(),
            },
            None => BrowserError::DriverNotFound {
                driver: "geckodriver",
                help: "Install Firefox and geckodriver (`cargo windup setup --browser firefox`; \
                       Debian/Ubuntu: `apt-get install firefox-esr` and `cargo install --locked \
                       geckodriver`), set WINDUP_GECKODRIVER to its path",
            },
        })
    }

    fn driver_args(&self, port: u16) -> Vec<String> {
        // The BiDi socket on a port the system picks, so that drivers side by side never ask for
        // the same one; the privileged context is what reset clears site data from.
        vec![
            "--port".into(),
            port.to_string(),
            "--host".into(),
            "127.0.0.1".into(),
            "--websocket-port".into(),
            "0".into(),
            "--allow-system-access".into(),
        ]
    }

    fn browser_binary(&self, config: &BrowserConfig) -> Option<PathBuf> {
        find_executable(config.firefox_binary.as_deref(), BROWSER_NAMES, &[])
    }

    fn one_session_per_driver(&self) -> bool {
        true
    }

    fn gone_messages(&self) -> &'static [&'static str] {
        // geckodriver's first answer once Firefox has died; `invalid session id` comes after.
        &["Failed to decode response from marionette"]
    }

    fn capabilities(&self, config: &BrowserConfig, local: Option<Local<'_>>) -> Capabilities {
        let mut args: Vec<String> = Vec::new();
        if config.headless {
            args.push("-headless".into());
        }
        args.push(format!("--width={}", config.window_width));
        args.push(format!("--height={}", config.window_height));
        let mut options = json!({});
        if let Some(local) = local {
            // A remote browser keeps its profile and executable where its grid puts them.
            if let Some(profile) = local.profile {
                args.push("-profile".into());
                args.push(profile.display().to_string());
            }
            if let Some(binary) = local.binary {
                options["binary"] = json!(binary);
            }
        }
        options["args"] = json!(args);
        options["prefs"] = Value::Object(prefs().collect());
        let mut caps = Capabilities::new();
        caps.insert("browserName".into(), json!("firefox"));
        caps.insert("moz:firefoxOptions".into(), options);
        caps
    }

    fn session_help(&self) -> &'static str {
        "Check that Firefox is installed and that geckodriver supports its version (`firefox \
         --version`, `geckodriver --version`), or set WINDUP_FIREFOX to the browser's path"
    }

    fn navigation_error(&self, message: &str) -> Option<String> {
        neterror_code(message)
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
            match clear_all_site_data(session).await {
                Ok(()) => Ok(()),
                // A grid's geckodriver refuses the privileged context unless it was started with
                // --allow-system-access, which no capability can ask for: then what WebDriver
                // alone can do.
                Err(BrowserError::Command { .. }) if !session.local => {
                    session.clear_through_webdriver(origins).await
                }
                Err(err) => Err(err),
            }
        })
    }
}

/// Preferences for a test browser on a closed network: nothing phones home, nothing updates,
/// no first-run pages. geckodriver adds its own recommended automation preferences.
fn prefs() -> impl Iterator<Item = (String, Value)> {
    [
        ("app.update.disabledForTesting", json!(true)),
        ("browser.shell.checkDefaultBrowser", json!(false)),
        ("browser.startup.homepage_override.mstone", json!("ignore")),
        ("datareporting.policy.dataSubmissionEnabled", json!(false)),
        ("toolkit.telemetry.reportingpolicy.firstRun", json!(false)),
        ("network.captive-portal-service.enabled", json!(false)),
        ("network.connectivity-service.enabled", json!(false)),
        ("browser.safebrowsing.malware.enabled", json!(false)),
        ("browser.safebrowsing.phishing.enabled", json!(false)),
        ("browser.safebrowsing.downloads.enabled", json!(false)),
        ("extensions.update.enabled", json!(false)),
        ("media.autoplay.default", json!(5)),
        ("media.volume_scale", json!("0.0")),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
}

/// What the page just opened is. A Firefox error page is an `about:neterror` or
/// `about:certerror` document; its `e=` code is given in Chromium's names.
static OPENED: Script = Script::new(|| {
    let codes: serde_json::Map<String, Value> = NET_ERRORS
        .iter()
        .map(|(firefox, chromium)| ((*firefox).to_owned(), json!(chromium)))
        .collect();
    scripts::opened(&format!(
        "(() => {{ const uri = document.documentURI || ''; \
           if (uri.startsWith('about:certerror')) return 'ERR_CERT_INVALID'; \
           if (!uri.startsWith('about:neterror')) return null; \
           const code = new URLSearchParams(uri.slice(uri.indexOf('?') + 1)).get('e') || ''; \
           return {}[code] || ('ERR_FAILED (' + code + ')'); }})()",
        Value::Object(codes)
    ))
});

/// The error code in a geckodriver message such as
/// `Reached error page: about:neterror?e=connectionFailure&u=…`, in Chromium's names.
fn neterror_code(message: &str) -> Option<String> {
    if message.contains("about:certerror") {
        return Some("ERR_CERT_INVALID".into());
    }
    let query = message.split("about:neterror?").nth(1)?;
    let code = query
        .split(['&', ' ', '\n'])
        .find_map(|pair| pair.strip_prefix("e="))?;
    Some(
        NET_ERRORS
            .iter()
            .find(|(firefox, _)| *firefox == code)
            .map_or_else(|| format!("ERR_FAILED ({code})"), |(_, c)| (*c).to_owned()),
    )
}

/// `$CARGO_HOME/bin/NAME`, else `~/.cargo/bin/NAME`: where `cargo install` puts geckodriver.
fn cargo_bin(name: &str) -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    Some(home.join("bin").join(name))
}

/// Firefox's clear-data service, run in the privileged (chrome) context, then back to the page.
async fn clear_all_site_data(session: &Session) -> Result<(), BrowserError> {
    set_context(session, "chrome").await?;
    let cleared = session
        .execute_async("clear cookies and site data", CLEAR_DATA_JS, vec![])
        .await;
    set_context(session, "content").await?;
    match cleared? {
        Value::Number(n) if n.as_u64() == Some(0) => Ok(()),
        other => Err(BrowserError::Command {
            during: "clear cookies and site data".into(),
            reason: format!("Firefox's clear-data service answered {other}"),
        }),
    }
}

/// geckodriver's `moz/context`: `chrome` (privileged) or `content` (the page).
async fn set_context(session: &Session, context: &'static str) -> Result<(), BrowserError> {
    session
        .client
        .issue_cmd(SessionPost {
            path: "moz/context",
            body: json!({ "context": context }),
        })
        .await
        .map_err(|e| BrowserError::command(format!("switch to the {context} context"), e))?;
    session
        .privileged
        .store(context == "chrome", std::sync::atomic::Ordering::SeqCst);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn args(caps: &Capabilities) -> Vec<&str> {
        caps["moz:firefoxOptions"]["args"]
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
            binary: Some(Path::new("/usr/bin/firefox-esr")),
        };
        let caps = Firefox.capabilities(&config, Some(local));
        assert_eq!(caps["browserName"], "firefox");
        assert_eq!(caps["moz:firefoxOptions"]["binary"], "/usr/bin/firefox-esr");
        let local_args = args(&caps);
        let profile = local_args
            .iter()
            .position(|a| *a == "-profile")
            .expect("-profile");
        assert_eq!(local_args[profile + 1], "/tmp/windup-profile");
        assert!(local_args.contains(&"-headless"));
        assert!(local_args.contains(&"--width=1280"));
        assert_eq!(
            caps["moz:firefoxOptions"]["prefs"]["app.update.disabledForTesting"],
            true
        );

        let remote = Firefox.capabilities(&config, None);
        assert!(remote["moz:firefoxOptions"].get("binary").is_none());
        assert!(!args(&remote).contains(&"-profile"));
    }

    #[test]
    fn a_network_error_is_read_from_geckodriver_s_message_in_chromium_s_names() {
        let refused = "unknown error: Reached error page: \
                       about:neterror?e=connectionFailure&u=http%3A//127.0.0.1%3A1/&c=UTF-8";
        assert_eq!(
            neterror_code(refused).as_deref(),
            Some("ERR_CONNECTION_REFUSED")
        );
        let dns = "Reached error page: about:neterror?e=dnsNotFound&u=http%3A//nowhere.invalid/";
        assert_eq!(neterror_code(dns).as_deref(), Some("ERR_NAME_NOT_RESOLVED"));
        let odd = "Reached error page: about:neterror?e=somethingNew&u=x";
        assert_eq!(
            neterror_code(odd).as_deref(),
            Some("ERR_FAILED (somethingNew)")
        );
        assert_eq!(neterror_code("no such element"), None);
    }

    #[test]
    fn a_missing_configured_driver_names_its_setting() {
        let config = BrowserConfig {
            geckodriver: Some("/nonexistent/geckodriver".into()),
            ..BrowserConfig::default()
        };
        let message = Firefox
            .driver(&config)
            .expect_err("no driver there")
            .to_string();
        assert!(message.contains("WINDUP_GECKODRIVER"), "{message}");
    }
}
