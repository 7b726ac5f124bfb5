use std::collections::HashMap;

use super::file::line_column;
use super::validate::{is_env_name, normalize_origin};
use super::*;

const FULL: &str = r#"base_url = "http://127.0.0.1:8080"
scenarios = "e2e/scenarios"
workers = 2
timeout_ms = 7000
allowed_origins = ["https://Accounts.Example:443/", "http://localhost:9000", "https://accounts.example"]
ignore_tags = ["fails-by-design", "slow"]

[browser]
name = "firefox"
headless = false
webdriver_url = "http://grid:4444"
chromedriver = "/usr/bin/chromedriver"
chrome = "/usr/bin/chromium"
geckodriver = "/usr/local/bin/geckodriver"
firefox = "/usr/bin/firefox-esr"
window = [1440, 1000]
protocol = "bidi"

[llm]
provider = "openai"
model = "gpt-4.1-mini"
base_url = "http://localhost:11434/v1"
api_key_env = "OPENAI_API_KEY"

[accounts.demo]
email = "DEMO_EMAIL"
password = "DEMO_PASSWORD"

[accounts.admin-2]
email = "ADMIN_EMAIL"
"#;

fn no_env(_: &str) -> Option<String> {
    None
}

fn root() -> &'static Path {
    Path::new("proj")
}

fn with_env(toml: Option<&str>, vars: &[(&str, &str)]) -> Result<Settings, ConfigError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Settings::from_parts(root(), toml, &|name| vars.get(name).cloned())
}

fn file_error(toml: &str) -> ConfigError {
    Settings::from_parts(root(), Some(toml), &no_env).expect_err("the file should be rejected")
}

fn env_error(vars: &[(&str, &str)]) -> ConfigError {
    with_env(None, vars).expect_err("the environment should be rejected")
}

fn location(err: &ConfigError) -> (usize, usize) {
    match err {
        ConfigError::File { line, column, .. } => (*line, *column),
        other => panic!("not a file error: {other}"),
    }
}

#[test]
fn defaults_without_a_file() {
    let settings = Settings::from_parts(root(), None, &no_env).unwrap();
    assert_eq!(
        settings,
        Settings {
            root: root().to_owned(),
            base_url: None,
            scenarios_dir: PathBuf::from("proj/scenarios"),
            workers: 1,
            timeout: Duration::from_millis(5000),
            allowed_origins: Vec::new(),
            ignore_tags: Vec::new(),
            exclude: Vec::new(),
            browser: BrowserSettings::default(),
            llm: None,
            accounts: BTreeMap::new(),
            artifacts_dir: PathBuf::from("proj/.windup/artifacts"),
            update: UpdateMode::Auto,
            reports: Reports::default(),
            env_file: Default::default(),
        }
    );
    // An empty file is the defaults too.
    assert_eq!(
        Settings::from_parts(root(), Some(""), &no_env).unwrap(),
        settings
    );
}

#[test]
fn a_full_file() {
    let settings = Settings::from_parts(root(), Some(FULL), &no_env).unwrap();
    assert_eq!(
        settings.base_url.as_ref().map(Url::as_str),
        Some("http://127.0.0.1:8080/")
    );
    assert_eq!(settings.scenarios_dir, Path::new("proj/e2e/scenarios"));
    assert_eq!(settings.workers, 2);
    assert_eq!(settings.timeout, Duration::from_millis(7000));
    assert_eq!(
        settings.allowed_origins,
        ["https://accounts.example", "http://localhost:9000"]
    );
    assert_eq!(settings.ignore_tags, ["fails-by-design", "slow"]);
    assert_eq!(
        settings.browser,
        BrowserSettings {
            kind: BrowserKind::Firefox,
            headless: false,
            webdriver_url: Some("http://grid:4444".to_owned()),
            chromedriver: Some(PathBuf::from("/usr/bin/chromedriver")),
            chrome: Some(PathBuf::from("/usr/bin/chromium")),
            geckodriver: Some(PathBuf::from("/usr/local/bin/geckodriver")),
            firefox: Some(PathBuf::from("/usr/bin/firefox-esr")),
            window: (1440, 1000),
            protocol: Protocol::Bidi,
        }
    );
    assert_eq!(
        settings.llm,
        Some(LlmSettings {
            provider: Provider::OpenAi,
            model: Some("gpt-4.1-mini".to_owned()),
            base_url: Some("http://localhost:11434/v1".to_owned()),
            api_key_env: Some("OPENAI_API_KEY".to_owned()),
            api_key: None,
            images: None,
            limits: LlmLimits::default(),
        })
    );
    let demo = &settings.accounts["demo"];
    assert_eq!(demo["email"], "DEMO_EMAIL");
    assert_eq!(demo["password"], "DEMO_PASSWORD");
    assert_eq!(settings.accounts["admin-2"]["email"], "ADMIN_EMAIL");

    let browser = settings.browser_config();
    assert!(!browser.headless);
    assert_eq!((browser.window_width, browser.window_height), (1440, 1000));
    assert_eq!(browser.webdriver_url.as_deref(), Some("http://grid:4444"));
    assert_eq!(
        browser.chromedriver.as_deref(),
        Some(Path::new("/usr/bin/chromedriver"))
    );
    assert_eq!(
        browser.chrome_binary.as_deref(),
        Some(Path::new("/usr/bin/chromium"))
    );
    assert_eq!(
        browser.startup_timeout,
        BrowserConfig::default().startup_timeout
    );
}

#[test]
fn each_env_override() {
    let base = |vars: &[(&str, &str)]| with_env(Some(FULL), vars).unwrap();
    assert_eq!(
        base(&[("WINDUP_BASE_URL", "https://staging.example/app/")])
            .base_url
            .unwrap()
            .as_str(),
        "https://staging.example/app/"
    );
    assert_eq!(
        base(&[("WINDUP_WEBDRIVER_URL", "http://other:4444")])
            .browser
            .webdriver_url
            .as_deref(),
        Some("http://other:4444")
    );
    assert_eq!(
        base(&[("WINDUP_PROTOCOL", "classic")]).browser.protocol,
        Protocol::Classic,
        "the environment over the file's bidi"
    );
    assert_eq!(
        with_env(None, &[]).unwrap().browser.protocol,
        Protocol::Classic,
        "the default"
    );
    let err = with_env(None, &[("WINDUP_PROTOCOL", "cdp")])
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("WINDUP_PROTOCOL: unknown protocol \"cdp\"")
            && err.contains("use \"auto\", \"bidi\" or \"classic\""),
        "{err}"
    );
    for (value, headless) in [
        ("1", false),
        ("true", false),
        ("YES", false),
        ("0", true),
        ("false", true),
        ("no", true),
    ] {
        let settings = with_env(None, &[("WINDUP_HEADED", value)]).unwrap();
        assert_eq!(settings.browser.headless, headless, "WINDUP_HEADED={value}");
    }
    assert_eq!(base(&[("WINDUP_WORKERS", "8")]).workers, 8);
    assert_eq!(
        base(&[("WINDUP_CHROMEDRIVER", "/opt/cd")])
            .browser
            .chromedriver,
        Some(PathBuf::from("/opt/cd"))
    );
    assert_eq!(
        base(&[("WINDUP_CHROME", "/opt/chrome")]).browser.chrome,
        Some(PathBuf::from("/opt/chrome"))
    );
    assert_eq!(
        base(&[("WINDUP_BROWSER", "Firefox")]).browser.kind,
        BrowserKind::Firefox
    );
    assert_eq!(
        base(&[("WINDUP_GECKODRIVER", "/opt/gd")])
            .browser
            .geckodriver,
        Some(PathBuf::from("/opt/gd"))
    );
    assert_eq!(
        base(&[("WINDUP_FIREFOX", "/opt/ff")]).browser.firefox,
        Some(PathBuf::from("/opt/ff"))
    );
    let llm = base(&[
        ("WINDUP_LLM", "Anthropic"),
        ("WINDUP_MODEL", "claude-sonnet"),
    ])
    .llm
    .unwrap();
    assert_eq!(llm.provider, Provider::Anthropic);
    assert_eq!(llm.model.as_deref(), Some("claude-sonnet"));
    assert_eq!(llm.api_key_env.as_deref(), Some("OPENAI_API_KEY"));
    let llm = with_env(None, &[("WINDUP_LLM", "gemini")])
        .unwrap()
        .llm
        .unwrap();
    assert_eq!(llm, LlmSettings::new(Provider::Gemini));
    for (value, mode) in [
        ("auto", UpdateMode::Auto),
        ("new", UpdateMode::New),
        ("Always", UpdateMode::Always),
        ("no", UpdateMode::No),
    ] {
        assert_eq!(base(&[("WINDUP_UPDATE", value)]).update, mode);
        assert_eq!(mode.as_str(), value.to_ascii_lowercase());
    }
    // Empty values count as unset.
    assert_eq!(
        base(&[("WINDUP_WORKERS", ""), ("WINDUP_HEADED", " ")]).workers,
        2
    );
}

#[test]
fn ci_makes_updates_read_only() {
    for value in ["true", "1", "yes", "github-actions"] {
        assert_eq!(
            with_env(None, &[("CI", value)]).unwrap().update,
            UpdateMode::No,
            "CI={value}"
        );
    }
    for value in ["", "false", "0", "FALSE"] {
        assert_eq!(
            with_env(None, &[("CI", value)]).unwrap().update,
            UpdateMode::Auto,
            "CI={value}"
        );
    }
    // An explicit WINDUP_UPDATE wins over CI.
    assert_eq!(
        with_env(None, &[("CI", "true"), ("WINDUP_UPDATE", "new")])
            .unwrap()
            .update,
        UpdateMode::New
    );
}

#[test]
fn unknown_key_names_the_closest() {
    let err = file_error("scenarios = \"s\"\nworkrs = 2\n");
    assert_eq!(location(&err), (2, 1));
    insta::assert_snapshot!("unknown_key", err.to_string());
    let err = file_error("[browser]\nheadless = true\n  windw = [800, 600]\n");
    assert_eq!(location(&err), (3, 3));
    assert!(err.to_string().contains("did you mean `window`?"), "{err}");
    let err = file_error("[llm]\nprovider = \"openai\"\nmodle = \"x\"\n");
    assert!(err.to_string().contains("did you mean `model`?"), "{err}");
}

/// (file, line, column, message)
#[test]
fn each_validation_error_is_located() {
    let cases = [
        (
            "base_url = \"ftp://example.com\"\n",
            1,
            12,
            "`base_url` must be an http(s) URL, found \"ftp://example.com\"",
        ),
        (
            "base_url = \"localhost:8080\"\n",
            1,
            12,
            "`base_url` must be an http(s) URL, found \"localhost:8080\"",
        ),
        (
            "base_url = \"not a url\"\n",
            1,
            12,
            "`base_url` is not a URL (relative URL without a base): \"not a url\"",
        ),
        ("scenarios = \"\"\n", 1, 13, "`scenarios` is empty"),
        (
            "# comment\nworkers = 0\n",
            2,
            11,
            "`workers` must be from 1 to 64, found 0",
        ),
        (
            "workers = 65\n",
            1,
            11,
            "`workers` must be from 1 to 64, found 65",
        ),
        (
            "timeout_ms = 0\n",
            1,
            14,
            "`timeout_ms` must be from 1 to 120000, found 0",
        ),
        (
            "timeout_ms = 120001\n",
            1,
            14,
            "`timeout_ms` must be from 1 to 120000, found 120001",
        ),
        (
            "allowed_origins = [\"https://a.example\", \"https://b.example/login\"]\n",
            1,
            41,
            "`allowed_origins`: \"https://b.example/login\" has a path, query or fragment; an origin is scheme, host and port only",
        ),
        (
            "allowed_origins = [\"file:///tmp\"]\n",
            1,
            20,
            "`allowed_origins`: \"file:///tmp\" is not an http(s) origin",
        ),
        (
            "ignore_tags = [\"two words\"]\n",
            1,
            16,
            "`ignore_tags`: invalid tag \"two words\"",
        ),
        (
            "[browser]\nwindow = [10, 900]\n",
            2,
            10,
            "`window` must be [width, height] with width 320 to 7680 and height 240 to 4320",
        ),
        (
            "[browser]\nwindow = [1280]\n",
            2,
            10,
            "`window` must be [width, height] with width 320 to 7680 and height 240 to 4320",
        ),
        (
            "[browser]\nwebdriver_url = \"grid:4444\"\n",
            2,
            17,
            "`webdriver_url` must be an http(s) URL, found \"grid:4444\"",
        ),
        ("[browser]\nchrome = \"\"\n", 2, 10, "`chrome` is empty"),
        (
            "[llm]\nprovider = \"opnai\"\n",
            2,
            12,
            "unknown provider \"opnai\"",
        ),
        ("[llm]\nmodel = \"m\"\n", 1, 1, "[llm] has no `provider`"),
        (
            "[llm]\nprovider = \"openai-compatible\"\n",
            1,
            1,
            "provider \"openai-compatible\" needs `base_url`",
        ),
        (
            "[llm]\nprovider = \"openai\"\napi_key_env = \"sk-123\"\n",
            3,
            15,
            "`api_key_env` must be the name of an environment variable",
        ),
        (
            "[accounts.demo]\nemail = \"ada@example.com\"\n",
            2,
            9,
            "`email` in [accounts.demo] must be the name of an environment variable",
        ),
        (
            "[accounts.demo]\n2fa = \"DEMO_2FA\"\n",
            2,
            1,
            "invalid account key \"2fa\" in [accounts.demo]",
        ),
        (
            "[accounts.\"a b\"]\nemail = \"E\"\n",
            1,
            11,
            "invalid account name \"a b\"",
        ),
        (
            "workers = \"two\"\n",
            1,
            11,
            "`workers`: expected a whole number, found a string",
        ),
        (
            "[browser]\nheadless = \"yes\"\n",
            2,
            12,
            "`headless`: expected true or false, found a string",
        ),
        (
            "[accounts.demo]\npassword = 123456\n",
            2,
            12,
            "`password`: expected a string, found an integer",
        ),
        (
            "workers = [\n",
            1,
            12,
            "invalid TOML: unclosed array, expected `]`",
        ),
    ];
    let mut mismatches = Vec::new();
    for (toml, line, column, message) in cases {
        match Settings::from_parts(root(), Some(toml), &no_env) {
            Ok(_) => mismatches.push(format!("{toml:?} was accepted")),
            Err(ConfigError::File {
                line: l,
                column: c,
                message: m,
                hint,
                path,
            }) => {
                if (l, c, m.as_str()) != (line, column, message) || hint.is_empty() {
                    mismatches.push(format!(
                        "{toml:?}: got {l}:{c} {m:?}; want {line}:{column} {message:?}"
                    ));
                }
                assert_eq!(path, Path::new("proj/windup.toml"));
            }
            Err(other) => mismatches.push(format!("{toml:?}: {other}")),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn validation_error_messages() {
    insta::assert_snapshot!(
        "workers_out_of_range",
        file_error("workers = 0\n").to_string()
    );
    let err = file_error("[accounts.demo]\npassword = \"hunter2!\"\n").to_string();
    assert!(
        !err.contains("hunter2"),
        "a secret must never be echoed: {err}"
    );
    insta::assert_snapshot!("secret_instead_of_env_name", err);
    let err = file_error("[llm]\nprovider = \"openai\"\napi_key_env = \"sk-live-123\"\n");
    assert!(!err.to_string().contains("sk-live"), "{err}");
    insta::assert_snapshot!(
        "bad_provider",
        file_error("[llm]\nprovider = \"anthropik\"\n").to_string()
    );
    insta::assert_snapshot!(
        "syntax_error",
        file_error("base_url = http://x\n").to_string()
    );
}

/// (variable, value, a fragment of the message)
#[test]
fn each_bad_env_value_names_the_variable() {
    let cases = [
        (
            "WINDUP_BASE_URL",
            "localhost:8080",
            "must be an http(s) URL",
        ),
        (
            "WINDUP_WEBDRIVER_URL",
            "ws://grid",
            "must be an http(s) URL",
        ),
        ("WINDUP_HEADED", "maybe", "expected 1, true or yes"),
        ("WINDUP_WORKERS", "0", "from 1 to 64"),
        ("WINDUP_WORKERS", "two", "from 1 to 64"),
        ("WINDUP_WORKERS", "-1", "from 1 to 64"),
        ("WINDUP_LLM", "openia", "unknown provider"),
        ("WINDUP_LLM", "openai-compatible", "needs `base_url`"),
        ("WINDUP_MODEL", "gpt", "no LLM provider"),
        ("WINDUP_UPDATE", "yes", "expected auto, new, always or no"),
    ];
    for (var, value, fragment) in cases {
        let err = env_error(&[(var, value)]);
        let ConfigError::Env {
            var: named,
            value: shown,
            message,
            hint,
        } = &err
        else {
            panic!("{var}={value}: not an env error: {err}");
        };
        assert_eq!((named.as_str(), shown.as_str()), (var, value));
        assert!(message.contains(fragment), "{var}={value}: {err}");
        assert!(!hint.is_empty());
        assert!(err.to_string().starts_with(&format!("{var}: ")), "{err}");
    }
    insta::assert_snapshot!(
        "bad_env_workers",
        env_error(&[("WINDUP_WORKERS", "lots")]).to_string()
    );
    let err = env_error(&[("WINDUP_LLM", "openia")]);
    assert!(err.to_string().contains("did you mean `openai`?"), "{err}");
}

#[test]
fn load_reads_the_file_when_present() {
    let dir = tempfile::tempdir().unwrap();
    // No file: the defaults (the process environment may add overrides, so compare the file's part).
    let settings = Settings::load(dir.path()).unwrap();
    assert_eq!(settings.root, dir.path());
    assert_eq!(settings.scenarios_dir, dir.path().join("scenarios"));
    std::fs::write(
        dir.path().join(FILE_NAME),
        "scenarios = \"e2e\"\nworkrs = 3\n",
    )
    .unwrap();
    let err = Settings::load(dir.path()).unwrap_err();
    assert_eq!(location(&err), (2, 1));
    assert!(
        err.to_string().starts_with(&format!(
            "{}:2:1: unknown key `workrs`",
            dir.path().join(FILE_NAME).display()
        )),
        "{err}"
    );
    std::fs::write(dir.path().join(FILE_NAME), "scenarios = \"e2e\"\n").unwrap();
    assert_eq!(
        Settings::load(dir.path()).unwrap().scenarios_dir,
        dir.path().join("e2e")
    );
}

#[test]
fn helpers() {
    assert!(is_env_name("DEMO_EMAIL") && is_env_name("_x1"));
    assert!(!is_env_name("1X") && !is_env_name("A-B") && !is_env_name(""));
    assert_eq!(line_column("a\nbé c", 6), (2, 4));
    assert_eq!(line_column("abc", 99), (1, 4));
    assert_eq!(
        normalize_origin("HTTPS://Example.COM:443").unwrap(),
        "https://example.com"
    );
    assert_eq!(
        normalize_origin("http://example.com:8080/").unwrap(),
        "http://example.com:8080"
    );
}

#[test]
fn llm_limits_and_the_key_are_read_once() {
    let toml = "[llm]\nprovider = \"anthropic\"\nmax_calls_per_scenario = 2\nmax_usd_per_run = 0.25\nmax_calls_per_audit = 7\nmax_usd_per_audit = 0.5\ntimeout_ms = 1500\nsemantic_retries = 0\n";
    let env = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| " sk-ant-test ".to_owned());
    let settings = Settings::from_parts(Path::new("proj"), Some(toml), &env).unwrap();
    let llm = settings.llm.unwrap();
    assert_eq!(
        llm.api_key,
        Some(crate::model::secret::SecretValue::new("sk-ant-test"))
    );
    assert_eq!(
        format!("{llm:?}").matches("sk-ant-test").count(),
        0,
        "{llm:?}"
    );
    assert_eq!(
        llm.limits,
        LlmLimits {
            max_calls_per_scenario: 2,
            max_usd_per_run: 0.25,
            max_calls_per_audit: 7,
            max_usd_per_audit: 0.5,
            timeout: Duration::from_millis(1500),
            semantic_retries: 0,
            ..LlmLimits::default()
        }
    );

    let bad = "[llm]\nprovider = \"openai\"\nmax_usd_per_scenario = -1.0\n";
    let err = Settings::from_parts(Path::new("proj"), Some(bad), &|_: &str| None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("windup.toml:3:"), "{text}");
    assert!(
        text.contains("`max_usd_per_scenario` must be a number of US dollars"),
        "{text}"
    );
    let bad = "[llm]\nprovider = \"openai\"\nretries = 11\n";
    let err = Settings::from_parts(Path::new("proj"), Some(bad), &|_: &str| None).unwrap_err();
    assert!(
        err.to_string()
            .contains("`retries` must be from 0 to 10, found 11"),
        "{err}"
    );
}

#[test]
fn reports_are_kind_equals_path() {
    let env = |name: &str| {
        (name == "WINDUP_REPORT").then(|| "junit=out/w.xml, html=/tmp/w.html".to_owned())
    };
    let settings = Settings::from_parts(root(), None, &env).unwrap();
    assert_eq!(
        settings.reports,
        Reports {
            junit: Some(PathBuf::from("proj/out/w.xml")),
            json: None,
            html: Some(PathBuf::from("/tmp/w.html")),
        }
    );
    let err = Reports::parse("xml=a.xml", root()).unwrap_err();
    assert_eq!(
        err,
        "unknown report \"xml\"; the kinds are junit, json and html"
    );
    assert!(
        Reports::parse("junit", root())
            .unwrap_err()
            .contains("is not KIND=PATH")
    );
    let bad = |name: &str| (name == "WINDUP_REPORT").then(|| "pdf=x".to_owned());
    let err = Settings::from_parts(root(), None, &bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("WINDUP_REPORT"), "{err}");
}

fn with_flags(
    toml: Option<&str>,
    vars: &[(&str, &str)],
    overrides: &Overrides,
) -> Result<Settings, ConfigError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    Settings::from_sources(root(), toml, &|name| vars.get(name).cloned(), overrides)
}

fn workers(n: usize) -> Overrides {
    Overrides {
        workers: Some(n),
        ..Overrides::default()
    }
}

/// One rule, three sources: the message is the same, the origin and the example differ.
#[test]
fn the_same_rule_names_each_source() {
    let file = file_error("# workers\nworkers = 999\n");
    let env = env_error(&[("WINDUP_WORKERS", "999")]);
    let flag = with_flags(None, &[], &workers(999)).expect_err("--workers 999");
    let message = |err: &ConfigError| match err {
        ConfigError::File { message, .. }
        | ConfigError::Env { message, .. }
        | ConfigError::Flag { message, .. } => message.clone(),
        other => panic!("not a validation error: {other}"),
    };
    assert_eq!(message(&file), "`workers` must be from 1 to 64, found 999");
    assert_eq!(message(&env), message(&file));
    assert_eq!(message(&flag), message(&file));
    assert_eq!(location(&file), (2, 11));
    assert_eq!(
        flag,
        ConfigError::Flag {
            flag: "--workers".to_owned(),
            value: "999".to_owned(),
            message: message(&file),
            hint: "each worker is one browser; 1 to 4 suits most machines, e.g. --workers 2"
                .to_owned(),
        }
    );
    insta::assert_snapshot!("workers_from_file", file.to_string());
    insta::assert_snapshot!("workers_from_env", env.to_string());
    insta::assert_snapshot!("workers_from_flag", flag.to_string());
}

#[test]
fn flags_are_checked_like_the_file() {
    for n in [0, 65, 999, usize::MAX] {
        let err = with_flags(Some("workers = 2\n"), &[], &workers(n)).expect_err("refused");
        assert!(
            err.to_string()
                .starts_with("--workers: `workers` must be from 1 to 64, found "),
            "--workers {n}: {err}"
        );
    }
    assert_eq!(with_flags(None, &[], &workers(64)).unwrap().workers, 64);

    let base_url = Overrides {
        base_url: Some("localhost:8080".to_owned()),
        ..Overrides::default()
    };
    let err = with_flags(None, &[], &base_url).unwrap_err().to_string();
    insta::assert_snapshot!("base_url_from_flag", err);

    let report = Overrides {
        report: Some("pdf=out.pdf".to_owned()),
        ..Overrides::default()
    };
    let err = with_flags(None, &[("WINDUP_REPORT", "junit=a.xml")], &report).unwrap_err();
    assert!(
        matches!(&err, ConfigError::Flag { flag, .. } if flag == "--report"),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("--report: unknown report \"pdf\""),
        "{err}"
    );
}

#[test]
fn a_flag_wins_over_the_environment_and_the_file() {
    let toml = "base_url = \"http://file.example\"\nworkers = 2\n[browser]\nheadless = true\n";
    let env = [
        ("WINDUP_BASE_URL", "http://env.example"),
        ("WINDUP_WORKERS", "3"),
        ("WINDUP_HEADED", "0"),
        ("WINDUP_REPORT", "junit=env.xml"),
    ];
    let none = with_flags(Some(toml), &env, &Overrides::default()).unwrap();
    assert_eq!(none.workers, 3, "the environment over the file");
    assert_eq!(none.base_url.unwrap().as_str(), "http://env.example/");
    assert!(none.browser.headless);
    assert_eq!(none.reports.junit, Some(PathBuf::from("proj/env.xml")));

    let overrides = Overrides {
        workers: Some(4),
        headed: true,
        report: Some("html=flag.html".to_owned()),
        base_url: Some("http://flag.example".to_owned()),
        browser: Some("firefox".to_owned()),
    };
    let settings = with_flags(Some(toml), &env, &overrides).unwrap();
    assert_eq!(settings.browser.kind, BrowserKind::Firefox);
    assert_eq!(settings.workers, 4);
    assert!(!settings.browser.headless);
    assert_eq!(settings.base_url.unwrap().as_str(), "http://flag.example/");
    assert_eq!(
        settings.reports,
        Reports {
            html: Some(PathBuf::from("proj/flag.html")),
            ..Reports::default()
        }
    );
    // No flag given: the environment and the file decide, as without overrides.
    assert_eq!(
        with_flags(Some(toml), &env, &Overrides::default()).unwrap(),
        with_env(Some(toml), &env).unwrap()
    );
}

#[test]
fn a_rule_across_keys_names_the_source_that_broke_it() {
    let toml = "[llm]\nprovider = \"openai\"\n";
    let err = with_env(Some(toml), &[("WINDUP_LLM", "openai-compatible")]).unwrap_err();
    assert!(
        matches!(&err, ConfigError::Env { var, .. } if var == "WINDUP_LLM"),
        "{err}"
    );
    insta::assert_snapshot!("compatible_without_base_url_from_env", err.to_string());
    // The environment supplies the provider the file's [llm] table lacks.
    let llm = with_env(Some("[llm]\nmodel = \"m\"\n"), &[("WINDUP_LLM", "gemini")])
        .unwrap()
        .llm
        .unwrap();
    assert_eq!(
        (llm.provider, llm.model.as_deref()),
        (Provider::Gemini, Some("m"))
    );
}

#[test]
fn screenshots_go_to_the_hosted_models_unless_the_file_says_otherwise() {
    let llm = |toml: &str| {
        Settings::from_parts(root(), Some(toml), &no_env)
            .expect("valid settings")
            .llm
            .expect("an [llm] section")
    };
    assert!(llm("[llm]\nprovider = \"anthropic\"\n").takes_images());
    assert!(!llm("[llm]\nprovider = \"gemini\"\nimages = false\n").takes_images());
    let local =
        "[llm]\nprovider = \"openai-compatible\"\nbase_url = \"http://localhost:11434/v1\"\n";
    assert!(
        !llm(local).takes_images(),
        "a local model may read text alone"
    );
    assert!(llm(&format!("{local}images = true\n")).takes_images());
    let err = file_error("[llm]\nprovider = \"openai\"\nimages = \"yes\"\n");
    assert_eq!(location(&err), (3, 10));
    assert!(
        err.to_string()
            .contains("write `true` or `false` without quotes"),
        "{err}"
    );
}

#[test]
fn excluded_directories_are_under_the_scenarios_directory() {
    let settings = Settings::from_parts(
        root(),
        Some("exclude = [\"dashboard/\", \"admin\"]\n"),
        &no_env,
    )
    .expect("valid settings");
    assert_eq!(
        settings.exclude,
        [PathBuf::from("dashboard"), PathBuf::from("admin")]
    );
    for outside in ["../elsewhere", "/abs", ""] {
        let err = file_error(&format!("exclude = [{outside:?}]\n"));
        assert!(
            err.to_string()
                .contains("is not a directory under the scenarios directory"),
            "{outside}: {err}"
        );
    }
}

#[test]
fn the_browser_is_named_in_short_or_in_its_table_and_an_unknown_one_is_refused() {
    let short = Settings::from_parts(root(), Some("browser = \"firefox\"\n"), &no_env).unwrap();
    assert_eq!(short.browser.kind, BrowserKind::Firefox);
    let table = "[browser]\nname = \"chromium\"\nheadless = false\n";
    let settings = Settings::from_parts(root(), Some(table), &no_env).unwrap();
    assert_eq!(settings.browser.kind, BrowserKind::Chromium);
    assert!(!settings.browser.headless);

    let err = Settings::from_parts(root(), Some("browser = \"safari\"\n"), &no_env)
        .unwrap_err()
        .to_string();
    assert!(err.contains("windup.toml:1:"), "{err}");
    assert!(
        err.contains("unknown browser \"safari\": Windup drives chromium and firefox"),
        "{err}"
    );
    assert!(err.contains("`browser = \"firefox\"`"), "{err}");
    let env = |name: &str| (name == "WINDUP_BROWSER").then(|| "edge".to_owned());
    let err = Settings::from_parts(root(), None, &env)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("WINDUP_BROWSER: unknown browser"), "{err}");
    assert!(err.contains("WINDUP_BROWSER=firefox"), "{err}");
    // The table still names its unknown keys.
    let err = Settings::from_parts(root(), Some("[browser]\nnmae = \"firefox\"\n"), &no_env)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unknown key `nmae`"), "{err}");
    assert!(err.contains("did you mean `name`?"), "{err}");
}

#[test]
fn a_configuration_nested_without_end_is_an_error_not_an_overflow() {
    for (shape, toml) in [
        (
            "10,000 arrays",
            format!("workers = {}1{}\n", "[".repeat(10_000), "]".repeat(10_000)),
        ),
        (
            "10,000 inline tables",
            format!(
                "workers = {}1{}\n",
                "{a = ".repeat(10_000),
                "}".repeat(10_000)
            ),
        ),
        (
            "10,000 dotted keys",
            format!("{} = 1\n", vec!["a"; 10_000].join(".")),
        ),
    ] {
        let err = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || file_error(&toml).to_string())
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("{shape}: the reader failed instead of answering"));
        assert!(err.contains("windup.toml"), "{shape}: {err}");
    }
}
