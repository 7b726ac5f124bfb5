//! The script: replies served first in, first out, errors, refusals, rate limits that name their
//! wait, invalid keys, delays, truncation, exhaustion; and the record's redaction and arrival
//! times, and the server's shutdown.

mod common;

use std::time::{Duration, Instant};

use common::send;
use reqwest::StatusCode;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use windup_fake_provider::{FakeProvider, Reply, Wire};

const WIRES: [Wire; 3] = [Wire::OpenAi, Wire::Gemini, Wire::Anthropic];

async fn start() -> FakeProvider {
    FakeProvider::start()
        .await
        .expect("the fake provider starts")
}

fn rate_limited() -> Reply {
    Reply::Status {
        status: 429,
        retry_after: Some("7".to_owned()),
        message: "slow down".to_owned(),
    }
}

#[tokio::test]
async fn replies_are_served_first_in_first_out_across_wires() {
    let provider = start().await;
    for n in 0..3 {
        provider.push(Reply::Json(json!({ "n": n })));
    }
    assert_eq!(provider.pending(), 3);

    let (openai, _) = send(&provider, Wire::OpenAi).await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    let (anthropic, _) = send(&provider, Wire::Anthropic).await;

    assert_eq!(
        openai.body["choices"][0]["message"]["content"],
        r#"{"n":0}"#
    );
    assert_eq!(
        gemini.body["candidates"][0]["content"]["parts"][0]["text"],
        r#"{"n":1}"#
    );
    assert_eq!(anthropic.body["content"][0]["input"], json!({ "n": 2 }));
    assert_eq!(provider.pending(), 0);
    let wires: Vec<_> = provider.requests().iter().map(|r| r.wire).collect();
    assert_eq!(wires, WIRES.map(Some));
}

#[tokio::test]
async fn a_status_reply_sets_retry_after_and_the_error_shape_of_each_wire() {
    let provider = start().await;
    for _ in WIRES {
        provider.push(rate_limited());
    }
    let (openai, _) = send(&provider, Wire::OpenAi).await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    let (anthropic, _) = send(&provider, Wire::Anthropic).await;

    for answer in [&openai, &gemini, &anthropic] {
        assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(answer.headers["retry-after"], "7");
    }
    assert_eq!(openai.body["error"]["message"], "slow down");
    assert_eq!(openai.body["error"]["code"], "rate_limit_exceeded");
    assert_eq!(
        gemini.body["error"],
        json!({ "code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED" })
    );
    assert_eq!(anthropic.body["type"], "error");
    assert_eq!(
        anthropic.body["error"],
        json!({ "type": "rate_limit_error", "message": "slow down" })
    );
}

#[tokio::test]
async fn a_status_reply_without_retry_after_sends_no_such_header() {
    let provider = start().await;
    provider.push(Reply::Status {
        status: 529,
        retry_after: None,
        message: "Overloaded".to_owned(),
    });
    let (answer, _) = send(&provider, Wire::Anthropic).await;
    assert_eq!(answer.status.as_u16(), 529);
    assert!(!answer.headers.contains_key("retry-after"));
    assert_eq!(answer.body["error"]["type"], "overloaded_error");
}

#[tokio::test]
async fn a_slow_reply_arrives_after_its_delay() {
    let provider = start().await;
    let delay = Duration::from_millis(300);
    provider.push(Reply::Slow(
        delay,
        Box::new(Reply::Json(json!({ "ok": true }))),
    ));

    let started = Instant::now();
    let (answer, _) = send(&provider, Wire::Gemini).await;
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.body["candidates"][0]["content"]["parts"][0]["text"],
        r#"{"ok":true}"#
    );
}

#[tokio::test]
async fn a_request_with_nothing_scripted_gets_a_500() {
    let provider = start().await;
    let (answer, _) = send(&provider, Wire::OpenAi).await;
    assert_eq!(answer.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        answer.body["error"]["message"],
        "the fake provider has no scripted reply left"
    );
    assert_eq!(provider.requests()[0].problems, Vec::<String>::new());
}

#[tokio::test]
async fn recorded_headers_hide_every_api_key() {
    let provider = start().await;
    for _ in WIRES {
        provider.push(Reply::Json(json!({})));
    }
    for wire in WIRES {
        send(&provider, wire).await;
    }
    let recorded = provider.requests();
    let debug = format!("{recorded:?}");
    for key in [
        common::OPENAI_KEY,
        common::GEMINI_KEY,
        common::ANTHROPIC_KEY,
    ] {
        assert!(!debug.contains(key), "{key} leaked into {debug}");
    }
    let header = |i: usize, name: &str| {
        recorded[i]
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(header(0, "authorization").as_deref(), Some("<redacted>"));
    assert_eq!(header(1, "x-goog-api-key").as_deref(), Some("<redacted>"));
    assert_eq!(header(2, "x-api-key").as_deref(), Some("<redacted>"));
    assert_eq!(
        header(2, "anthropic-version").as_deref(),
        Some("2023-06-01")
    );
    assert_eq!(
        header(0, "content-type").as_deref(),
        Some("application/json")
    );
}

/// Sends a well-formed OpenAI request over a raw connection and reads until the server closes.
async fn raw_exchange(provider: &FakeProvider) -> (String, Vec<u8>) {
    let addr = provider.url().trim_start_matches("http://").to_owned();
    let mut stream = TcpStream::connect(&addr).await.expect("connects");
    let body = serde_json::to_vec(&common::openai_body()).unwrap();
    let head = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        common::OPENAI_KEY,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let mut received = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut received))
        .await
        .expect("the server closes the connection")
        .expect("reads");
    let split = received
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a complete head");
    let head = String::from_utf8(received[..split].to_vec()).unwrap();
    (head, received[split + 4..].to_vec())
}

fn content_length(head: &str) -> usize {
    head.lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("a content-length header")
}

// On the multi-threaded runtime the server's flush races the end of the body for real.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_reply_announces_the_whole_body_and_sends_half() {
    let provider = start().await;
    let reply = Reply::Json(json!({ "steps": [{ "action": "click", "target": "#buy" }] }));
    provider.push(reply.clone());
    provider.push(Reply::Truncated(Box::new(reply)));

    // The same reply in full over reqwest, for its length.
    let (full, _) = send(&provider, Wire::OpenAi).await;
    let full_len = full.body.to_string().len();

    let (head, body) = raw_exchange(&provider).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert_eq!(content_length(&head), full_len);
    assert_eq!(
        body.len(),
        full_len / 2,
        "{}",
        String::from_utf8_lossy(&body)
    );
}

#[tokio::test]
async fn a_client_reading_a_truncated_reply_gets_an_error() {
    let provider = start().await;
    provider.push(Reply::Truncated(Box::new(rate_limited())));
    let response = reqwest::Client::new()
        .post(format!("{}{}", provider.url(), common::path(Wire::Gemini)))
        .header("x-goog-api-key", common::GEMINI_KEY)
        .json(&common::gemini_body())
        .send()
        .await
        .expect("the head arrives whole");
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(response.headers()["retry-after"], "7");
    assert!(response.bytes().await.is_err(), "the body must fall short");
}

#[tokio::test]
async fn dropping_the_provider_stops_the_server() {
    let provider = start().await;
    let addr = provider.url().trim_start_matches("http://").to_owned();
    TcpStream::connect(&addr)
        .await
        .expect("serving while alive");
    drop(provider);

    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if TcpStream::connect(&addr).await.is_err() {
            break;
        }
        assert!(Instant::now() < deadline, "still accepting at {addr}");
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn a_refusal_is_billed_in_each_wires_own_shape() {
    let provider = start().await;
    for _ in WIRES {
        provider.push(Reply::Refusal {
            message: "I can't help with that.".to_owned(),
            input_tokens: 321,
            output_tokens: 7,
        });
    }
    let (openai, _) = send(&provider, Wire::OpenAi).await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    let (anthropic, _) = send(&provider, Wire::Anthropic).await;
    for answer in [&openai, &gemini, &anthropic] {
        assert_eq!(answer.status, StatusCode::OK);
    }

    let message = &openai.body["choices"][0]["message"];
    assert_eq!(message["refusal"], "I can't help with that.");
    assert_eq!(message["content"], json!(null));
    assert_eq!(
        openai.body["usage"],
        json!({ "prompt_tokens": 321, "completion_tokens": 7, "total_tokens": 328 })
    );

    assert_eq!(gemini.body["promptFeedback"]["blockReason"], "SAFETY");
    assert!(gemini.body.get("candidates").is_none(), "a blocked prompt");
    assert_eq!(
        gemini.body["usageMetadata"],
        json!({ "promptTokenCount": 321, "candidatesTokenCount": 7, "totalTokenCount": 328 })
    );

    assert_eq!(anthropic.body["stop_reason"], "refusal");
    assert_eq!(
        anthropic.body["content"],
        json!([{ "type": "text", "text": "I can't help with that." }])
    );
    assert_eq!(
        anthropic.body["usage"],
        json!({ "input_tokens": 321, "output_tokens": 7 })
    );
}

#[tokio::test]
async fn a_blocked_prompt_with_no_output_reports_only_its_prompt() {
    let provider = common::provider_with(Reply::Refusal {
        message: String::new(),
        input_tokens: 50,
        output_tokens: 0,
    })
    .await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    assert_eq!(
        gemini.body["usageMetadata"],
        json!({ "promptTokenCount": 50, "totalTokenCount": 50 })
    );
}

#[tokio::test]
async fn a_rate_limit_names_its_wait_in_the_body_where_gemini_does() {
    let provider = start().await;
    for _ in WIRES {
        provider.push(Reply::RateLimited {
            retry_delay: "1.2s".to_owned(),
        });
    }
    let (openai, _) = send(&provider, Wire::OpenAi).await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    let (anthropic, _) = send(&provider, Wire::Anthropic).await;
    for answer in [&openai, &gemini, &anthropic] {
        assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(!answer.headers.contains_key("retry-after"), "the body only");
    }
    assert_eq!(gemini.body["error"]["status"], "RESOURCE_EXHAUSTED");
    let details = gemini.body["error"]["details"].as_array().unwrap();
    let kinds: Vec<&str> = details
        .iter()
        .map(|d| d["@type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "type.googleapis.com/google.rpc.QuotaFailure",
            "type.googleapis.com/google.rpc.Help",
            "type.googleapis.com/google.rpc.RetryInfo"
        ]
    );
    assert_eq!(details[2]["retryDelay"], "1.2s");
    assert_eq!(
        details[0]["violations"][0]["quotaDimensions"]["model"],
        common::GEMINI_MODEL
    );
    assert_eq!(openai.body["error"]["code"], "rate_limit_exceeded");
    assert_eq!(anthropic.body["error"]["type"], "rate_limit_error");
}

#[tokio::test]
async fn an_invalid_key_is_answered_as_each_provider_does() {
    let provider = start().await;
    for _ in WIRES {
        provider.push(Reply::InvalidKey);
    }
    let (openai, _) = send(&provider, Wire::OpenAi).await;
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    let (anthropic, _) = send(&provider, Wire::Anthropic).await;

    assert_eq!(openai.status, StatusCode::UNAUTHORIZED);
    assert_eq!(openai.body["error"]["code"], "invalid_api_key");
    assert_eq!(gemini.status, StatusCode::BAD_REQUEST);
    assert_eq!(gemini.body["error"]["status"], "INVALID_ARGUMENT");
    assert_eq!(
        gemini.body["error"]["message"],
        "API key not valid. Please pass a valid API key."
    );
    assert_eq!(
        gemini.body["error"]["details"][0]["reason"],
        "API_KEY_INVALID"
    );
    assert_eq!(anthropic.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        anthropic.body["error"],
        json!({ "type": "authentication_error", "message": "invalid x-api-key" })
    );
    for (answer, key) in [
        (&openai, common::OPENAI_KEY),
        (&gemini, common::GEMINI_KEY),
        (&anthropic, common::ANTHROPIC_KEY),
    ] {
        assert!(!answer.body.to_string().contains(key), "{key} echoed");
    }
}

#[tokio::test]
async fn each_request_is_recorded_with_when_it_arrived() {
    let provider = start().await;
    let delay = Duration::from_millis(300);
    provider.push(Reply::Slow(delay, Box::new(Reply::Json(json!({})))));
    provider.push(Reply::Json(json!({})));
    let before = Instant::now();
    send(&provider, Wire::OpenAi).await;
    let answered = Instant::now();
    send(&provider, Wire::Anthropic).await;
    let recorded = provider.requests();
    assert!(before <= recorded[0].received);
    assert!(
        recorded[0].received + delay <= answered,
        "received before the reply's delay"
    );
    assert!(answered <= recorded[1].received);
}
