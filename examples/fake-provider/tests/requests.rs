//! Each wire answers a well-formed request in the real API's shape, and rejects a malformed one
//! with the real API's error shape, recording what was wrong and keeping the queued reply.

mod common;

use common::{assert_rejected, provider_with, send, send_body, send_raw};
use reqwest::StatusCode;
use serde_json::{Value, json};
use windup_fake_provider::{FakeProvider, Reply, Wire};

fn plan() -> Value {
    json!({ "steps": [{ "action": "click", "target": "#add-to-cart" }] })
}

fn tokens(len: usize) -> u64 {
    (len as u64 / 4).max(1)
}

#[tokio::test]
async fn openai_answers_a_well_formed_request_with_a_chat_completion() {
    let provider = provider_with(Reply::Json(plan())).await;
    let (answer, len) = send(&provider, Wire::OpenAi).await;

    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    let text = plan().to_string();
    let b = &answer.body;
    assert_eq!(b["object"], "chat.completion");
    assert!(b["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert!(b["created"].is_u64());
    assert_eq!(b["model"], "gpt-4o-2024-08-06");
    assert_eq!(b["choices"][0]["index"], 0);
    assert_eq!(
        b["choices"][0]["message"],
        json!({ "role": "assistant", "content": text, "refusal": null })
    );
    assert_eq!(b["choices"][0]["finish_reason"], "stop");
    let (input, output) = (tokens(len), tokens(text.len()));
    assert_eq!(
        b["usage"],
        json!({ "prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output })
    );

    let recorded = provider.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].wire, Some(Wire::OpenAi));
    assert_eq!(recorded[0].path, "/v1/chat/completions");
    assert_eq!(recorded[0].body, common::openai_body());
    assert_eq!(recorded[0].problems, Vec::<String>::new());
    assert_eq!(provider.pending(), 0);
}

#[tokio::test]
async fn gemini_answers_a_well_formed_request_with_one_candidate() {
    let provider = provider_with(Reply::Json(plan())).await;
    let (answer, len) = send(&provider, Wire::Gemini).await;

    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    let text = plan().to_string();
    let b = &answer.body;
    assert_eq!(
        b["candidates"][0],
        json!({
            "content": { "role": "model", "parts": [{ "text": text }] },
            "finishReason": "STOP",
            "index": 0
        })
    );
    let (input, output) = (tokens(len), tokens(text.len()));
    assert_eq!(
        b["usageMetadata"],
        json!({ "promptTokenCount": input, "candidatesTokenCount": output, "totalTokenCount": input + output })
    );
    assert_eq!(b["modelVersion"], common::GEMINI_MODEL);
    let recorded = &provider.requests()[0];
    assert_eq!(recorded.wire, Some(Wire::Gemini));
    assert_eq!(recorded.problems, Vec::<String>::new());
}

#[tokio::test]
async fn gemini_accepts_the_snake_case_spelling_and_the_openapi_schema_field() {
    let provider = provider_with(Reply::Json(plan())).await;
    let body = json!({
        "system_instruction": { "parts": [{ "text": "Plan." }] },
        "contents": [{ "role": "user", "parts": [{ "text": "Go." }] }],
        "generation_config": {
            "response_mime_type": "application/json",
            "response_schema": { "type": "OBJECT", "properties": { "steps": { "type": "ARRAY" } } }
        }
    });
    let answer = send_body(&provider, Wire::Gemini, &body).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    assert_eq!(provider.requests()[0].problems, Vec::<String>::new());
}

#[tokio::test]
async fn anthropic_answers_a_well_formed_request_with_the_forced_tool_call() {
    let provider = provider_with(Reply::Json(plan())).await;
    let (answer, len) = send(&provider, Wire::Anthropic).await;

    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    let b = &answer.body;
    assert_eq!(b["type"], "message");
    assert_eq!(b["role"], "assistant");
    assert_eq!(b["model"], "claude-sonnet-4-5");
    assert!(b["id"].as_str().is_some_and(|id| !id.is_empty()));
    let block = &b["content"][0];
    assert_eq!(b["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(block["type"], "tool_use");
    assert!(block["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(block["name"], "submit_plan");
    assert_eq!(block["input"], plan());
    assert_eq!(b["stop_reason"], "tool_use");
    assert_eq!(b["stop_sequence"], Value::Null);
    assert_eq!(
        b["usage"],
        json!({ "input_tokens": tokens(len), "output_tokens": tokens(plan().to_string().len()) })
    );
    assert_eq!(provider.requests()[0].problems, Vec::<String>::new());
}

#[tokio::test]
async fn anthropic_answers_text_and_non_objects_with_a_text_block() {
    let provider = FakeProvider::start().await.unwrap();
    provider.push(Reply::Text("not json {".to_owned()));
    provider.push(Reply::Json(json!([1, 2])));

    for expected in ["not json {", "[1,2]"] {
        let (answer, _) = send(&provider, Wire::Anthropic).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(
            answer.body["content"],
            json!([{ "type": "text", "text": expected }])
        );
        assert_eq!(answer.body["stop_reason"], "end_turn");
    }
}

#[tokio::test]
async fn openai_and_gemini_carry_text_replies_verbatim() {
    let provider = FakeProvider::start().await.unwrap();
    provider.push(Reply::Text("```json\n{}".to_owned()));
    provider.push(Reply::Text("{\"steps\":".to_owned()));

    let (openai, _) = send(&provider, Wire::OpenAi).await;
    assert_eq!(
        openai.body["choices"][0]["message"]["content"],
        "```json\n{}"
    );
    let (gemini, _) = send(&provider, Wire::Gemini).await;
    assert_eq!(
        gemini.body["candidates"][0]["content"]["parts"][0]["text"],
        "{\"steps\":"
    );
}

#[tokio::test]
async fn openai_rejects_a_request_without_its_bearer_key() {
    let provider = provider_with(Reply::Json(plan())).await;
    let answer = send_raw(
        &provider,
        "/v1/chat/completions",
        &[],
        &common::openai_body(),
    )
    .await;
    assert_rejected(Wire::OpenAi, answer, &provider, "authorization header").await;
}

#[tokio::test]
async fn openai_rejects_a_response_format_that_is_not_json_schema() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::openai_body();
    body["response_format"] = json!({ "type": "json_object" });
    let answer = send_body(&provider, Wire::OpenAi, &body).await;
    assert_rejected(
        Wire::OpenAi,
        answer,
        &provider,
        "response_format.type must be \"json_schema\", got \"json_object\"",
    )
    .await;
}

#[tokio::test]
async fn openai_rejects_a_strict_schema_with_an_open_object() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::openai_body();
    let items =
        &mut body["response_format"]["json_schema"]["schema"]["properties"]["steps"]["items"];
    items
        .as_object_mut()
        .unwrap()
        .remove("additionalProperties");
    let answer = send_body(&provider, Wire::OpenAi, &body).await;
    assert_rejected(
        Wire::OpenAi,
        answer,
        &provider,
        "In context=('properties', 'steps', 'items'), 'additionalProperties' is required to be supplied and to be false.",
    )
    .await;
}

#[tokio::test]
async fn openai_rejects_a_strict_schema_whose_required_misses_a_property() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::openai_body();
    body["response_format"]["json_schema"]["schema"]["properties"]["steps"]["items"]["required"] =
        json!(["action"]);
    let answer = send_body(&provider, Wire::OpenAi, &body).await;
    assert_rejected(Wire::OpenAi, answer, &provider, "Missing 'target'.").await;
}

#[tokio::test]
async fn openai_rejects_unsupported_roles_and_bad_names_together() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::openai_body();
    body["messages"][1]["role"] = json!("tool");
    body["response_format"]["json_schema"]["name"] = json!("a plan");
    let answer = send_body(&provider, Wire::OpenAi, &body).await;
    assert_rejected(Wire::OpenAi, answer, &provider, "messages[1].role").await;
    let problems = &provider.requests()[0].problems;
    assert!(
        problems.iter().any(|p| p.contains("json_schema.name")),
        "{problems:?}"
    );
}

#[tokio::test]
async fn gemini_rejects_a_request_without_response_mime_type() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::gemini_body();
    body["generationConfig"]
        .as_object_mut()
        .unwrap()
        .remove("responseMimeType");
    let answer = send_body(&provider, Wire::Gemini, &body).await;
    assert_rejected(
        Wire::Gemini,
        answer,
        &provider,
        "generationConfig.responseMimeType must be \"application/json\", got missing",
    )
    .await;
}

#[tokio::test]
async fn gemini_rejects_both_schemas_at_once_and_a_missing_key() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::gemini_body();
    body["generationConfig"]["responseSchema"] = json!({ "type": "OBJECT" });
    let answer = send_raw(&provider, &common::path(Wire::Gemini), &[], &body).await;
    assert_rejected(Wire::Gemini, answer, &provider, "x-goog-api-key").await;
    let problems = &provider.requests()[0].problems;
    assert!(
        problems.iter().any(|p| p.contains("only one of")),
        "{problems:?}"
    );
}

#[tokio::test]
async fn gemini_rejects_a_path_without_generate_content() {
    let provider = provider_with(Reply::Json(plan())).await;
    let answer = send_raw(
        &provider,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        &common::headers(Wire::Gemini),
        &common::gemini_body(),
    )
    .await;
    assert_rejected(Wire::Gemini, answer, &provider, "\"streamGenerateContent\"").await;
}

#[tokio::test]
async fn anthropic_rejects_a_tool_choice_naming_an_unknown_tool() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::anthropic_body();
    body["tool_choice"]["name"] = json!("submit");
    let answer = send_body(&provider, Wire::Anthropic, &body).await;
    assert_rejected(
        Wire::Anthropic,
        answer,
        &provider,
        "tool_choice.name must name one of the tools (submit_plan), got \"submit\"",
    )
    .await;
}

#[tokio::test]
async fn anthropic_rejects_a_wrong_version_and_an_assistant_first_message() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = common::anthropic_body();
    body["messages"] = json!([
        { "role": "assistant", "content": "Hi." },
        { "role": "user", "content": [{ "type": "text", "text": "Go." }] }
    ]);
    body["max_tokens"] = json!(0);
    let headers = [
        ("x-api-key", common::ANTHROPIC_KEY.to_owned()),
        ("anthropic-version", "2024-01-01".to_owned()),
    ];
    let answer = send_raw(&provider, "/v1/messages", &headers, &body).await;
    assert_rejected(Wire::Anthropic, answer, &provider, "anthropic-version").await;
    let problems = &provider.requests()[0].problems;
    assert_eq!(
        problems,
        &[
            "the anthropic-version header must be 2023-06-01, got \"2024-01-01\"",
            "max_tokens must be a positive integer, got 0",
            "messages[0] must be a user message",
        ]
    );
}

#[tokio::test]
async fn a_body_that_is_not_json_is_recorded_as_null() {
    let provider = provider_with(Reply::Json(plan())).await;
    let response = reqwest::Client::new()
        .post(format!("{}/v1/messages", provider.url()))
        .header("x-api-key", "k")
        .header("anthropic-version", "2023-06-01")
        .body("model=claude")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let recorded = &provider.requests()[0];
    assert_eq!(recorded.body, Value::Null);
    assert_eq!(
        recorded.problems,
        ["the request body must be a JSON object"]
    );
}

#[tokio::test]
async fn an_unknown_path_is_recorded_without_a_wire() {
    let provider = provider_with(Reply::Json(plan())).await;
    let answer = send_raw(&provider, "/v1/completions", &[], &json!({})).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    let recorded = &provider.requests()[0];
    assert_eq!(recorded.wire, None);
    assert_eq!(recorded.path, "/v1/completions");
    assert_eq!(
        recorded.problems,
        ["no provider API is served at POST /v1/completions"]
    );
    assert_eq!(provider.pending(), 1);
}
