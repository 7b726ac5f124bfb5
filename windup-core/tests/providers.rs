//! Each provider's client against the fake provider server, over real HTTP: the request is
//! well formed for its API, the answer and usage are read, and every fault the server can
//! script ends as it should — retried then answered, or a clear error naming the provider, the
//! status and what to do.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use windup_core::engine::ledger::PriceTable;
use windup_core::llm::{
    self, Called, LlmError, LlmSettings, Message, Prompt, Provider, Request, Role, Usage,
};
use windup_core::model::secret::SecretValue;
use windup_fake_provider::{FakeProvider, Reply, Wire};

const WIRES: [Wire; 3] = [Wire::OpenAi, Wire::Gemini, Wire::Anthropic];

fn settings(wire: Wire, fake: &FakeProvider, retries: u32, timeout: Duration) -> LlmSettings {
    let (provider, root) = match wire {
        Wire::OpenAi => (Provider::OpenAi, "/v1"),
        Wire::Gemini => (Provider::Gemini, "/v1beta"),
        Wire::Anthropic => (Provider::Anthropic, "/v1"),
    };
    let mut settings = LlmSettings::new(provider);
    settings.model = Some("test-model".to_owned());
    settings.base_url = Some(format!("{}{root}", fake.url()));
    settings.api_key = Some(SecretValue::new("test-key-123"));
    settings.limits.retries = retries;
    settings.limits.timeout = timeout;
    settings
}

async fn ask(settings: &LlmSettings) -> Called {
    let client = llm::client(settings).expect("a client");
    let prompt = Prompt {
        system: "Answer with JSON.".to_owned(),
        messages: vec![Message::text(Role::User, "Plan it.".to_owned())],
    };
    let schema = windup_core::model::plan::answer_schema();
    let request = Request {
        prompt: &prompt,
        schema_name: "windup_plan",
        schema: &schema,
        max_output_tokens: 512,
    };
    client.complete(&request).await
}

fn answer() -> Value {
    json!({ "actions": [] })
}

fn well_formed(fake: &FakeProvider) {
    for request in fake.requests() {
        assert!(
            request.problems.is_empty(),
            "{:?} {}: {:?}",
            request.wire,
            request.path,
            request.problems
        );
        let headers = format!("{:?}", request.headers);
        assert!(!headers.contains("test-key-123"), "{headers}");
    }
}

#[tokio::test]
async fn each_provider_answers_through_its_own_wire_format() {
    for wire in WIRES {
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Json(answer()));
        let called = ask(&settings(wire, &fake, 0, Duration::from_secs(5))).await;
        let completion = called.result.unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        assert_eq!(
            serde_json::from_str::<Value>(&completion.text).unwrap(),
            answer()
        );
        assert!(completion.usage.input_tokens > 0 && completion.usage.output_tokens > 0);
        assert_eq!(called.attempts.len(), 1);
        let requests = fake.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].wire, Some(wire));
        well_formed(&fake);
    }
}

#[tokio::test]
async fn a_429_is_retried_after_the_time_retry_after_asks() {
    for wire in WIRES {
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Status {
            status: 429,
            retry_after: Some("1".to_owned()),
            message: "slow down".to_owned(),
        });
        fake.push(Reply::Json(answer()));
        let started = Instant::now();
        let called = ask(&settings(wire, &fake, 3, Duration::from_secs(5))).await;
        assert!(called.result.is_ok(), "{wire:?}: {:?}", called.result);
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "Retry-After honoured"
        );
        let failures: Vec<_> = called.attempts.iter().map(|a| a.failure).collect();
        assert_eq!(failures, [Some("rate_limited"), None], "{wire:?}");
        assert!(called.attempts[1].retried);
        well_formed(&fake);
    }
}

#[tokio::test]
async fn server_errors_and_cut_off_bodies_are_retried() {
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Status {
        status: 500,
        retry_after: None,
        message: "internal".to_owned(),
    });
    fake.push(Reply::Truncated(Box::new(Reply::Json(answer()))));
    fake.push(Reply::Json(answer()));
    let called = ask(&settings(Wire::Anthropic, &fake, 3, Duration::from_secs(5))).await;
    assert!(called.result.is_ok(), "{:?}", called.result);
    let failures: Vec<_> = called.attempts.iter().map(|a| a.failure).collect();
    assert_eq!(failures, [Some("server_error"), Some("connection"), None]);
    well_formed(&fake);
}

#[tokio::test]
async fn retries_are_bounded_and_the_error_says_what_to_do() {
    let fake = FakeProvider::start().await.unwrap();
    for _ in 0..3 {
        fake.push(Reply::Status {
            status: 503,
            retry_after: Some("0".to_owned()),
            message: "overloaded".to_owned(),
        });
    }
    let called = ask(&settings(Wire::Gemini, &fake, 2, Duration::from_secs(5))).await;
    let err = called.result.unwrap_err();
    assert_eq!(called.attempts.len(), 3);
    assert_eq!(
        err.to_string(),
        "gemini answered HTTP 503 (after 3 attempts): overloaded; the provider is failing; try \
         again later"
    );
    assert_eq!(fake.pending(), 0);
}

#[tokio::test]
async fn a_refused_key_is_not_retried() {
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Status {
        status: 401,
        retry_after: None,
        message: "invalid x-api-key".to_owned(),
    });
    fake.push(Reply::Json(answer()));
    let called = ask(&settings(Wire::Anthropic, &fake, 3, Duration::from_secs(5))).await;
    let err = called.result.unwrap_err();
    assert_eq!(called.attempts.len(), 1);
    assert_eq!(
        err.to_string(),
        "anthropic answered HTTP 401: invalid x-api-key; the API key is not valid: set the \
         environment variable ANTHROPIC_API_KEY to a valid key (or `api_key_env` under [llm] to \
         the variable that holds one)"
    );
    assert_eq!(fake.pending(), 1, "the next reply was never asked for");
}

#[tokio::test]
async fn a_retry_after_beyond_the_limit_is_not_waited_for() {
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Status {
        status: 429,
        retry_after: Some("3600".to_owned()),
        message: "quota exceeded".to_owned(),
    });
    let started = Instant::now();
    let called = ask(&settings(Wire::OpenAi, &fake, 3, Duration::from_secs(5))).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let err = called.result.unwrap_err();
    assert_eq!(err.class(), "rate_limited");
    assert!(
        err.to_string()
            .ends_with("the provider asks to wait 3600s; try again then, or raise your rate limit"),
        "{err}"
    );
}

#[tokio::test]
async fn a_slow_answer_times_out_then_the_retry_is_answered() {
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::Slow(
        Duration::from_secs(3),
        Box::new(Reply::Json(answer())),
    ));
    fake.push(Reply::Json(answer()));
    let called = ask(&settings(
        Wire::OpenAi,
        &fake,
        1,
        Duration::from_millis(500),
    ))
    .await;
    assert!(called.result.is_ok(), "{:?}", called.result);
    assert_eq!(called.attempts[0].failure, Some("timeout"));

    fake.push(Reply::Slow(
        Duration::from_secs(3),
        Box::new(Reply::Json(answer())),
    ));
    let called = ask(&settings(
        Wire::OpenAi,
        &fake,
        0,
        Duration::from_millis(500),
    ))
    .await;
    let err = called.result.unwrap_err();
    assert!(matches!(err, LlmError::Timeout { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with("openai did not answer within 500ms; raise `timeout_ms` under [llm]"),
        "{text}"
    );
}

#[tokio::test]
async fn an_answer_that_is_not_json_is_passed_on_as_text() {
    for wire in WIRES {
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Text("{\"actions\": [".to_owned()));
        let called = ask(&settings(wire, &fake, 0, Duration::from_secs(5))).await;
        let completion = called.result.unwrap_or_else(|e| panic!("{wire:?}: {e}"));
        assert_eq!(completion.text, "{\"actions\": [", "{wire:?}");
    }
}

/// A refusal stays an error, and what the provider billed for it reaches the ledger.
#[tokio::test]
async fn a_refusal_is_an_error_whose_tokens_reach_the_ledger() {
    for wire in WIRES {
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::Refusal {
            message: "I can't help with that.".to_owned(),
            input_tokens: 321,
            output_tokens: 7,
        });
        let settings = settings(wire, &fake, 3, Duration::from_secs(5));
        let called = ask(&settings).await;
        let Err(err) = &called.result else {
            panic!("{wire:?}: a refusal is no answer")
        };
        assert_eq!(err.class(), "refused", "{wire:?}: {err}");
        let provider = settings.provider.as_str();
        let text = err.to_string();
        assert!(
            text.starts_with(&format!("{provider} refused to answer: "))
                && text.ends_with(
                    "; reword the task or hints that led to it, or set another `model` under [llm]"
                ),
            "{text}"
        );
        let billed = Usage {
            input_tokens: 321,
            output_tokens: 7,
        };
        assert_eq!(
            called.attempts.len(),
            1,
            "{wire:?}: a refusal is not retried"
        );
        assert_eq!(called.attempts[0].usage, billed, "{wire:?}");
        assert_eq!(called.attempts[0].failure, Some("refused"));

        let client = llm::client(&settings).unwrap();
        let mut calls = Vec::new();
        let prices = PriceTable::default();
        windup_core::engine::planner::llm::record(
            &*client, &prices, "plan", &called, None, &mut calls,
        );
        let ledger: Vec<(u64, u64, Option<&str>)> = calls
            .iter()
            .map(|c| (c.input_tokens, c.output_tokens, c.failure.as_deref()))
            .collect();
        assert_eq!(ledger, [(321, 7, Some("refused"))], "{wire:?}");
        well_formed(&fake);
    }
}

/// Gemini names its wait in the 429's body (`RetryInfo.retryDelay`), not in `Retry-After`.
#[tokio::test]
async fn gemini_s_retry_info_is_waited_for_before_the_retry() {
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::RateLimited {
        retry_delay: "1.2s".to_owned(),
    });
    fake.push(Reply::Json(answer()));
    let called = ask(&settings(Wire::Gemini, &fake, 3, Duration::from_secs(5))).await;
    assert!(called.result.is_ok(), "{:?}", called.result);
    let failures: Vec<_> = called.attempts.iter().map(|a| a.failure).collect();
    assert_eq!(failures, [Some("rate_limited"), None]);
    let requests = fake.requests();
    let gap = requests[1].received - requests[0].received;
    // The first backoff alone is 0.5 s.
    assert!(gap >= Duration::from_millis(1_200), "retried after {gap:?}");
    well_formed(&fake);

    // A wait over the cap `Retry-After` has (60 s) is not made; the error says how long.
    fake.push(Reply::RateLimited {
        retry_delay: "3600.5s".to_owned(),
    });
    let started = Instant::now();
    let called = ask(&settings(Wire::Gemini, &fake, 3, Duration::from_secs(5))).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(called.attempts.len(), 1);
    let err = called.result.unwrap_err();
    assert!(
        err.to_string()
            .ends_with("the provider asks to wait 3601s; try again then, or raise your rate limit"),
        "{err}"
    );
}

/// A key the provider does not know: said as such, naming the variable it came from, once.
#[tokio::test]
async fn an_invalid_key_says_so_and_names_its_variable() {
    let mut messages = Vec::new();
    for wire in WIRES {
        let fake = FakeProvider::start().await.unwrap();
        fake.push(Reply::InvalidKey);
        fake.push(Reply::Json(answer()));
        let called = ask(&settings(wire, &fake, 3, Duration::from_secs(5))).await;
        let err = called.result.unwrap_err();
        assert_eq!(called.attempts.len(), 1, "{wire:?}: not retried");
        assert_eq!(
            fake.pending(),
            1,
            "{wire:?}: the next reply was never asked for"
        );
        assert!(
            !format!("{err} {err:?}").contains("test-key-123"),
            "{err:?}"
        );
        messages.push(err.to_string());
    }
    insta::assert_snapshot!("invalid_key_messages", messages.join("\n"));

    // The variable `api_key_env` names is the one to check.
    let fake = FakeProvider::start().await.unwrap();
    fake.push(Reply::InvalidKey);
    let mut settings = settings(Wire::Gemini, &fake, 0, Duration::from_secs(5));
    settings.api_key_env = Some("TEAM_GEMINI_KEY".to_owned());
    let err = ask(&settings).await.result.unwrap_err();
    assert!(
        err.to_string()
            .contains("set the environment variable TEAM_GEMINI_KEY to a valid key"),
        "{err}"
    );
}
