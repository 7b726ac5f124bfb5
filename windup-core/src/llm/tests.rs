use serde_json::json;

use super::*;

fn prompt() -> Prompt {
    Prompt {
        system: "Answer with a plan.".to_owned(),
        messages: vec![
            Message::text(Role::User, "Buy a mug.".to_owned()),
            Message::text(Role::Assistant, "{\"actions\": []}".to_owned()),
            Message::text(Role::User, "The plan has no actions.".to_owned()),
        ],
    }
}

fn request<'a>(prompt: &'a Prompt, schema: &'a Value) -> Request<'a> {
    Request {
        prompt,
        schema_name: "windup_plan",
        schema,
        max_output_tokens: 1000,
    }
}

#[test]
fn each_provider_asks_for_the_schema_its_own_way() {
    let prompt = prompt();
    let schema = json!({ "type": "object", "properties": {}, "required": [], "additionalProperties": false });
    let request = request(&prompt, &schema);
    insta::assert_json_snapshot!("openai_body", openai::body(&request, "gpt-5-mini", false));
    let compatible = openai::body(&request, "llama3.1", true);
    assert_eq!(compatible["messages"][0]["role"], "system");
    assert_eq!(compatible["max_tokens"], 1000);
    assert!(compatible.get("max_completion_tokens").is_none());
    insta::assert_json_snapshot!("gemini_body", gemini::body(&request));
    insta::assert_json_snapshot!(
        "anthropic_body",
        anthropic::body(&request, "claude-haiku-4-5")
    );
}

#[test]
fn each_provider_is_shown_an_image_its_own_way() {
    // Eight bytes are enough for the shape; the providers' checks are the fake provider's.
    let image = Image {
        png: b"\x89PNG\r\n\x1a\n".to_vec(),
    };
    let data = image.base64();
    assert_eq!(data, "iVBORw0KGgo=");
    let mut message = Message::text(Role::User, "The pages.");
    message.images.push(image);
    let prompt = Prompt {
        system: "Propose rules.".to_owned(),
        messages: vec![message],
    };
    let schema = json!({ "type": "object" });
    let request = request(&prompt, &schema);
    assert_eq!(
        openai::body(&request, "gpt-5-mini", false)["messages"][1]["content"],
        json!([
            { "type": "text", "text": "The pages." },
            { "type": "image_url", "image_url": { "url": format!("data:image/png;base64,{data}") } }
        ])
    );
    assert_eq!(
        gemini::body(&request)["contents"][0]["parts"],
        json!([
            { "text": "The pages." },
            { "inlineData": { "mimeType": "image/png", "data": data } }
        ])
    );
    assert_eq!(
        anthropic::body(&request, "claude-haiku-4-5")["messages"][0]["content"],
        json!([
            { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": data } },
            { "type": "text", "text": "The pages." }
        ])
    );
    // Logs show an image as its size, never its bytes.
    assert_eq!(
        format!("{:?}", prompt.messages[0].images[0]),
        "Image(png, 8 bytes)"
    );
}

#[test]
fn answers_and_usage_are_read_from_each_format() {
    let openai = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5-mini",
        "choices": [{ "index": 0, "message": { "role": "assistant", "content": "{\"actions\":[]}", "refusal": null }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 812, "completion_tokens": 95, "total_tokens": 907 }
    });
    let read = openai::read("openai", openai.to_string().as_bytes()).unwrap();
    assert_eq!(read.text, "{\"actions\":[]}");
    assert_eq!(
        read.usage,
        Usage {
            input_tokens: 812,
            output_tokens: 95
        }
    );
    assert!(!read.truncated);

    let gemini = json!({
        "candidates": [{ "content": { "role": "model", "parts": [{ "text": "{\"actions\":" }, { "text": "[]}" }] }, "finishReason": "MAX_TOKENS", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 700, "candidatesTokenCount": 50, "thoughtsTokenCount": 20, "totalTokenCount": 770 }
    });
    let read = gemini::read(gemini.to_string().as_bytes()).unwrap();
    assert_eq!(read.text, "{\"actions\":[]}");
    assert_eq!(read.usage.output_tokens, 70, "thinking is billed as output");
    assert!(read.truncated);

    let anthropic = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-haiku-4-5",
        "content": [{ "type": "text", "text": "Here it is." }, { "type": "tool_use", "id": "toolu_1", "name": "windup_plan", "input": { "actions": [] } }],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": { "input_tokens": 900, "output_tokens": 40 }
    });
    let read = anthropic::read(anthropic.to_string().as_bytes(), "windup_plan").unwrap();
    assert_eq!(read.text, "{\"actions\":[]}");
    assert_eq!(read.usage.input_tokens, 900);
}

#[test]
fn refusals_and_unreadable_answers_are_errors_that_name_the_provider() {
    let refused = json!({
        "choices": [{ "message": { "content": null, "refusal": "I can't help with that." }, "finish_reason": "stop" }],
        "usage": { "prompt_tokens": 812, "completion_tokens": 9, "total_tokens": 821 }
    });
    let err = openai::read("openai", refused.to_string().as_bytes()).unwrap_err();
    assert_eq!(err.class(), "refused");
    assert_eq!(
        err.to_string(),
        "openai refused to answer: I can't help with that; reword the task or hints that led to \
         it, or set another `model` under [llm]"
    );
    let billed = |input_tokens, output_tokens| Usage {
        input_tokens,
        output_tokens,
    };
    assert_eq!(err.usage(), billed(812, 9), "a refusal is billed");

    let blocked = json!({
        "promptFeedback": { "blockReason": "SAFETY" },
        "usageMetadata": { "promptTokenCount": 700, "totalTokenCount": 700 }
    });
    let err = gemini::read(blocked.to_string().as_bytes()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("gemini refused to answer: the prompt was blocked (SAFETY); reword"),
        "{err}"
    );
    assert_eq!(err.usage(), billed(700, 0));
    let stopped = json!({
        "candidates": [{ "finishReason": "PROHIBITED_CONTENT", "index": 0 }],
        "usageMetadata": { "promptTokenCount": 700, "candidatesTokenCount": 3, "thoughtsTokenCount": 40 }
    });
    let err = gemini::read(stopped.to_string().as_bytes()).unwrap_err();
    assert_eq!((err.class(), err.usage()), ("refused", billed(700, 43)));

    let declined = json!({
        "content": [], "stop_reason": "refusal",
        "usage": { "input_tokens": 900, "output_tokens": 4 }
    });
    let err = anthropic::read(declined.to_string().as_bytes(), "windup_plan").unwrap_err();
    assert_eq!((err.class(), err.usage()), ("refused", billed(900, 4)));

    let err = anthropic::read(b"{\"content\": [", "windup_plan").unwrap_err();
    assert_eq!(err.class(), "bad_response");
    assert!(
        err.to_string()
            .starts_with("anthropic sent a response Windup cannot read: not JSON"),
        "{err}"
    );
}

#[test]
fn a_protobuf_duration_is_read_to_the_nanosecond() {
    use std::time::Duration;
    let cases = [
        ("37s", Some(Duration::from_secs(37))),
        ("1.5s", Some(Duration::from_millis(1_500))),
        ("1.2s", Some(Duration::from_millis(1_200))),
        ("0.000000001s", Some(Duration::from_nanos(1))),
        (" 0s ", Some(Duration::ZERO)),
        ("3.000001s", Some(Duration::new(3, 1_000))),
    ];
    for (text, expected) in cases {
        assert_eq!(gemini::duration(text), expected, "{text:?}");
    }
    for bad in [
        "",
        "s",
        "37",
        "-1.5s",
        "1.s",
        ".5s",
        "1.5ms",
        "1,5s",
        "1.0000000001s",
        "+2s",
        "2 s",
        "99999999999999999999s",
    ] {
        assert_eq!(gemini::duration(bad), None, "{bad:?}");
    }
}

#[test]
fn gemini_error_details_name_the_wait_and_an_invalid_key() {
    let quota = json!({ "error": { "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "You exceeded your current quota.",
        "details": [
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [] },
            { "@type": "type.googleapis.com/google.rpc.Help", "links": [] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s" }
        ] } });
    let details = gemini::error_details(quota.to_string().as_bytes());
    assert_eq!(
        details.retry_delay,
        Some(std::time::Duration::from_secs(37))
    );
    assert!(!details.key_invalid);

    let key = json!({ "error": { "code": 400, "status": "INVALID_ARGUMENT", "message": "API key not valid. Please pass a valid API key.",
        "details": [
            { "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com",
              "metadata": { "service": "generativelanguage.googleapis.com" } },
            { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": "API key not valid. Please pass a valid API key." }
        ] } });
    let details = gemini::error_details(key.to_string().as_bytes());
    assert!(details.key_invalid);
    assert_eq!(details.retry_delay, None);

    let other = json!({ "error": { "details": [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED" },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "soon" }
    ] } });
    assert_eq!(
        gemini::error_details(other.to_string().as_bytes()),
        Default::default()
    );
    assert_eq!(gemini::error_details(b"<html>"), Default::default());
}

#[test]
fn clients_need_a_key_and_a_model_and_never_show_the_key() {
    let keyed = |provider: Provider| {
        let mut settings = LlmSettings::new(provider);
        if provider == Provider::OpenAi {
            settings.api_key = Some(SecretValue::new("sk-test-123"));
        }
        settings
    };
    let openai = client(&keyed(Provider::OpenAi)).unwrap();
    assert_eq!(
        (openai.provider(), openai.model()),
        ("openai", "gpt-5-mini")
    );

    let err = client(&keyed(Provider::Anthropic)).err().unwrap();
    assert_eq!(
        err.to_string(),
        "anthropic: the API key is missing: set the environment variable ANTHROPIC_API_KEY"
    );
    let mut local = LlmSettings::new(Provider::OpenAiCompatible);
    local.base_url = Some("http://127.0.0.1:11434/v1".to_owned());
    let err = client(&local).err().unwrap();
    assert!(matches!(err, LlmError::MissingModel { .. }), "{err}");
    local.model = Some("llama3.1".to_owned());
    let local = client(&local).expect("a local server needs no key");
    assert_eq!(local.provider(), "openai-compatible");

    assert_eq!(
        format!("{:?}", SecretValue::new("sk-test-123")),
        "SecretValue(<redacted>)"
    );
}

#[test]
fn providers_keep_their_names() {
    let names: Vec<String> = Provider::ALL.iter().map(Provider::to_string).collect();
    assert_eq!(
        names,
        ["openai", "gemini", "anthropic", "openai-compatible"]
    );
    for provider in Provider::ALL {
        assert_eq!(Provider::from_name(provider.as_str()), Some(provider));
    }
    assert_eq!(
        Provider::from_name(" Anthropic "),
        Some(Provider::Anthropic)
    );
    assert_eq!(Provider::from_name("openia"), None);
    assert_eq!(Provider::OpenAi.default_key_env(), Some("OPENAI_API_KEY"));
    assert_eq!(Provider::OpenAiCompatible.default_model(), None);
}

/// A PNG's first bytes, as far as its header: enough for what is read without `images`.
#[cfg(not(feature = "images"))]
fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend(width.to_be_bytes());
    png.extend(height.to_be_bytes());
    png.extend([8, 2, 0, 0, 0]);
    png
}

#[test]
#[cfg(not(feature = "images"))]
fn without_images_a_screenshot_that_fits_is_sent_and_a_larger_one_is_not() {
    let fits = png_header(800, 600);
    assert_eq!(Image::screenshot(fits.clone()).unwrap().png, fits);
    let err = Image::screenshot(png_header(1440, 1000)).unwrap_err();
    assert!(
        err.contains("1440×1000") && err.contains("`images` feature"),
        "{err}"
    );
    let err = Image::screenshot(b"<html>".to_vec()).unwrap_err();
    assert!(err.starts_with("the screenshot is not a PNG"), "{err}");
}
