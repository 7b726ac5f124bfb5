//! Screenshots in user messages: each wire accepts its documented image shape, bills an image a
//! fixed allowance instead of its base64 as text, and rejects a malformed image naming its path.

mod common;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::{PNG, assert_rejected, image_body, png_base64, provider_with, send_body};
use reqwest::StatusCode;
use serde_json::{Value, json};
use windup_fake_provider::{FakeProvider, IMAGE_TOKENS, Reply, Wire};

const WIRES: [Wire; 3] = [Wire::OpenAi, Wire::Gemini, Wire::Anthropic];

fn plan() -> Value {
    json!({ "steps": [{ "action": "click", "target": "#add-to-cart" }] })
}

fn tokens(len: usize) -> u64 {
    (len as u64 / 4).max(1)
}

fn len(body: &Value) -> usize {
    serde_json::to_vec(body).unwrap().len()
}

/// The input tokens the wire's answer reports.
fn input_tokens(wire: Wire, answer: &Value) -> &Value {
    match wire {
        Wire::OpenAi => &answer["usage"]["prompt_tokens"],
        Wire::Gemini => &answer["usageMetadata"]["promptTokenCount"],
        Wire::Anthropic => &answer["usage"]["input_tokens"],
    }
}

#[tokio::test]
async fn each_wire_accepts_a_screenshot_and_bills_it_the_image_allowance() {
    for wire in WIRES {
        let provider = provider_with(Reply::Json(plan())).await;
        let body = image_body(wire);
        let answer = send_body(&provider, wire, &body).await;

        assert_eq!(answer.status, StatusCode::OK, "{wire:?}: {:?}", answer.body);
        let text = match wire {
            Wire::OpenAi => &answer.body["choices"][0]["message"]["content"],
            Wire::Gemini => &answer.body["candidates"][0]["content"]["parts"][0]["text"],
            Wire::Anthropic => &answer.body["content"][0]["input"],
        };
        let expected = match wire {
            Wire::Anthropic => plan(),
            Wire::OpenAi | Wire::Gemini => json!(plan().to_string()),
        };
        assert_eq!(text, &expected, "{wire:?}");
        let text_tokens = tokens(len(&body) - png_base64().len());
        assert_eq!(
            input_tokens(wire, &answer.body),
            &json!(text_tokens + IMAGE_TOKENS),
            "{wire:?}"
        );
        let recorded = &provider.requests()[0];
        assert_eq!(recorded.problems, Vec::<String>::new(), "{wire:?}");
        assert_eq!(recorded.images, 1, "{wire:?}");
        assert_eq!(recorded.body, body);
    }
}

#[tokio::test]
async fn a_text_only_request_carries_no_images() {
    let provider = FakeProvider::start().await.unwrap();
    for wire in WIRES {
        provider.push(Reply::Json(plan()));
        let (answer, len) = common::send(&provider, wire).await;
        assert_eq!(input_tokens(wire, &answer.body), &json!(tokens(len)));
    }
    assert!(provider.requests().iter().all(|r| r.images == 0));
}

#[tokio::test]
async fn every_image_counts_and_one_by_url_keeps_its_url_as_text() {
    let provider = FakeProvider::start().await.unwrap();
    provider.push(Reply::Json(plan()));
    provider.push(Reply::Json(plan()));
    let data = png_base64();

    let mut openai = image_body(Wire::OpenAi);
    openai["messages"][1]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "type": "image_url", "image_url": { "url": "https://example.com/a.png" } }));
    let answer = send_body(&provider, Wire::OpenAi, &openai).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    let expected = tokens(len(&openai) - data.len()) + 2 * IMAGE_TOKENS;
    assert_eq!(answer.body["usage"]["prompt_tokens"], expected);

    let mut anthropic = image_body(Wire::Anthropic);
    let blocks = anthropic["messages"][0]["content"].as_array_mut().unwrap();
    blocks.push(
        json!({ "type": "image", "source": { "type": "url", "url": "https://example.com/a.png" } }),
    );
    blocks.push(json!({
        "type": "image",
        "source": { "type": "base64", "media_type": "image/gif", "data": STANDARD.encode(b"GIF89a") }
    }));
    let answer = send_body(&provider, Wire::Anthropic, &anthropic).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    let payload = data.len() + STANDARD.encode(b"GIF89a").len();
    let expected = tokens(len(&anthropic) - payload) + 3 * IMAGE_TOKENS;
    assert_eq!(answer.body["usage"]["input_tokens"], expected);

    let images: Vec<_> = provider.requests().iter().map(|r| r.images).collect();
    assert_eq!(images, [2, 3]);
}

#[tokio::test]
async fn gemini_accepts_the_snake_case_inline_data() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = image_body(Wire::Gemini);
    body["contents"][0]["parts"][1] =
        json!({ "inline_data": { "mime_type": "image/png", "data": png_base64() } });
    let answer = send_body(&provider, Wire::Gemini, &body).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);
    assert_eq!(provider.requests()[0].images, 1);
}

/// Sends each malformed body to a fresh provider and checks the 400 names `expect`.
async fn assert_all_rejected(wire: Wire, cases: Vec<(Value, &str)>) {
    for (body, expect) in cases {
        let provider = provider_with(Reply::Json(plan())).await;
        let answer = send_body(&provider, wire, &body).await;
        assert_rejected(wire, answer, &provider, expect).await;
    }
}

/// The wire's image body with the value at `pointer` replaced.
fn with(wire: Wire, pointer: &str, value: Value) -> Value {
    let mut body = image_body(wire);
    *body.pointer_mut(pointer).expect("the pointer exists") = value;
    body
}

#[tokio::test]
async fn openai_rejects_malformed_images_naming_the_part() {
    let url = "/messages/1/content/1/image_url/url";
    let jpeg = format!("data:image/jpeg;base64,{}", png_base64());
    let mut developer = image_body(Wire::OpenAi);
    developer["messages"][0]["content"] = developer["messages"][1]["content"].clone();
    developer["messages"][0]["content"]
        .as_array_mut()
        .unwrap()
        .reverse();
    assert_all_rejected(Wire::OpenAi, vec![
        (
            with(Wire::OpenAi, url, json!("data:image/png;base64,iVBOR!w0")),
            "messages[1].content[1].image_url.url must be standard base64, but decoding fails",
        ),
        (
            with(Wire::OpenAi, url, json!(jpeg)),
            "messages[1].content[1].image_url.url must hold an image of type image/jpeg, but its bytes start like image/png",
        ),
        (
            with(Wire::OpenAi, url, json!("data:image/png;base64,")),
            "messages[1].content[1].image_url.url must be a non-empty base64 string, got an empty string",
        ),
        (
            with(Wire::OpenAi, url, json!("data:image/bmp;base64,Qk0=")),
            "messages[1].content[1].image_url.url must be a data URL of one of image/png, image/jpeg, image/gif, image/webp, got one of \"image/bmp\"",
        ),
        (
            with(Wire::OpenAi, url, json!("http://example.com/a.png")),
            "messages[1].content[1].image_url.url must be an https:// URL or a data:<image type>;base64,<data> URL, got \"http://example.com/a.png\"",
        ),
        (
            with(Wire::OpenAi, "/messages/1/content/1/image_url/detail", json!("medium")),
            "messages[1].content[1].image_url.detail must be \"auto\", \"low\" or \"high\", got \"medium\"",
        ),
        (
            with(Wire::OpenAi, "/messages/1/content", json!([])),
            "messages[1].content must be a string or a non-empty array of content parts, got an empty array",
        ),
        (
            developer,
            "messages[0].content[0] must be a text part: only user messages may carry images, got an image_url part in a developer message",
        ),
    ])
    .await;
}

#[tokio::test]
async fn openai_lets_other_roles_send_only_text_parts() {
    let provider = provider_with(Reply::Json(plan())).await;
    let mut body = image_body(Wire::OpenAi);
    body["messages"][0]["content"] = json!([{ "type": "text", "text": "Plan the scenario." }]);
    let answer = send_body(&provider, Wire::OpenAi, &body).await;
    assert_eq!(answer.status, StatusCode::OK, "{:?}", answer.body);

    provider.push(Reply::Json(plan()));
    let mut assistant = image_body(Wire::OpenAi);
    assistant["messages"][0] = json!({ "role": "assistant", "content": [{ "type": "refusal" }] });
    let answer = send_body(&provider, Wire::OpenAi, &assistant).await;
    assert_rejected(
        Wire::OpenAi,
        answer,
        &provider,
        "messages[0].content[0].type must be \"text\", got \"refusal\"",
    )
    .await;
}

#[tokio::test]
async fn gemini_rejects_malformed_images_naming_the_part() {
    let inline = "/contents/0/parts/1/inlineData";
    let mut system = image_body(Wire::Gemini);
    system["systemInstruction"]["parts"] = system["contents"][0]["parts"].clone();
    let mut both = image_body(Wire::Gemini);
    both["contents"][0]["parts"][1]["text"] = json!("A screenshot.");
    assert_all_rejected(Wire::Gemini, vec![
        (
            both,
            "contents[0].parts[1] must hold exactly one of text and inlineData, got both",
        ),
        (
            system,
            "systemInstruction.parts[1] must be a text part, got inlineData",
        ),
        (
            with(Wire::Gemini, &format!("{inline}/data"), json!("")),
            "contents[0].parts[1].inlineData.data must be a non-empty base64 string, got an empty string",
        ),
        (
            with(Wire::Gemini, &format!("{inline}/data"), json!("iVBORw0KGgo")),
            "contents[0].parts[1].inlineData.data must be standard base64, but decoding fails",
        ),
        (
            with(Wire::Gemini, &format!("{inline}/data"), json!(STANDARD.encode(b"GIF89a"))),
            "contents[0].parts[1].inlineData.data must hold an image of type image/png, but its bytes start like image/gif",
        ),
        (
            with(Wire::Gemini, &format!("{inline}/mimeType"), json!("application/pdf")),
            "contents[0].parts[1].inlineData.mimeType must be one of image/png, image/jpeg, image/gif, image/webp, got \"application/pdf\"",
        ),
        (
            with(Wire::Gemini, inline, json!("iVBOR")),
            "contents[0].parts[1].inlineData must be an object, got a string",
        ),
    ])
    .await;
}

#[tokio::test]
async fn anthropic_rejects_malformed_images_naming_the_block() {
    let source = "/messages/0/content/1/source";
    let mut assistant = image_body(Wire::Anthropic);
    let image = assistant["messages"][0]["content"][1].clone();
    let messages = assistant["messages"].as_array_mut().unwrap();
    messages.push(json!({ "role": "assistant", "content": [image] }));
    messages.push(json!({ "role": "user", "content": "Go on." }));
    let webp = STANDARD.encode([b"RIFF\x24\0\0\0WEBPVP8 ".as_slice(), &PNG].concat());
    assert_all_rejected(Wire::Anthropic, vec![
        (
            assistant,
            "messages[1].content[0] must not be an image block: only user messages may carry images",
        ),
        (
            with(Wire::Anthropic, &format!("{source}/data"), json!(webp)),
            "messages[0].content[1].source.data must hold an image of type image/png, but its bytes start like image/webp",
        ),
        (
            with(Wire::Anthropic, &format!("{source}/data"), json!("iVBORw0KGgo=A")),
            "messages[0].content[1].source.data must be standard base64, but decoding fails",
        ),
        (
            with(Wire::Anthropic, &format!("{source}/media_type"), json!("png")),
            "messages[0].content[1].source.media_type must be one of image/png, image/jpeg, image/gif, image/webp, got \"png\"",
        ),
        (
            with(Wire::Anthropic, &format!("{source}/type"), json!("file")),
            "messages[0].content[1].source.type must be \"base64\" or \"url\", got \"file\"",
        ),
        (
            with(Wire::Anthropic, source, json!({ "type": "url", "url": 7 })),
            "messages[0].content[1].source.url must be an http:// or https:// URL, got a number",
        ),
        (
            with(Wire::Anthropic, source, Value::Null),
            "messages[0].content[1].source must be an object, got null",
        ),
    ])
    .await;
}
