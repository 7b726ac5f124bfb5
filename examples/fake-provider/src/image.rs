//! Images in user messages: the media types the fake knows, their base64 payloads and the
//! magic bytes those payloads must start with.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use crate::check;

/// The image media types every wire accepts.
pub(crate) const MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// How many images a request carries, and how many body bytes their base64 payloads take.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Image parts or blocks, well-formed or not.
    pub count: usize,
    /// The length of their inline base64 payloads (zero for an image given by URL).
    pub payload_bytes: usize,
}

impl Tally {
    /// Counts one image whose inline payload, if any, is `payload`.
    pub(crate) fn add(&mut self, payload: Option<&str>) {
        self.count += 1;
        self.payload_bytes += payload.map_or(0, str::len);
    }
}

/// The parts of the messages' array contents (`messages[].content[]`), where the OpenAI and
/// Anthropic wires put their images.
pub(crate) fn content_parts(body: &crate::check::Fields) -> impl Iterator<Item = &Value> {
    body.get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|message| message.get("content")?.as_array())
        .flatten()
}

/// The media type and payload of a `data:<media type>;base64,<payload>` URL.
pub(crate) fn data_url(url: &str) -> Option<(&str, &str)> {
    let (head, payload) = url.strip_prefix("data:")?.split_once(',')?;
    Some((head.strip_suffix(";base64")?, payload))
}

/// Checks that `value` is one of [`MEDIA_TYPES`], naming it `path`; returns it when it is.
pub(crate) fn media_type<'a>(
    value: Option<&'a Value>,
    path: &str,
    problems: &mut Vec<String>,
) -> Option<&'a str> {
    match value.and_then(Value::as_str) {
        Some(media) if MEDIA_TYPES.contains(&media) => Some(media),
        _ => {
            problems.push(format!(
                "{path} must be one of {}, got {}",
                MEDIA_TYPES.join(", "),
                preview(value)
            ));
            None
        }
    }
}

/// Checks that `value` is a base64 string holding an image of type `media` (when known).
pub(crate) fn check_data(
    value: Option<&Value>,
    media: Option<&str>,
    path: &str,
    problems: &mut Vec<String>,
) {
    match value {
        Some(Value::String(data)) => check_payload(data, media, path, problems),
        other => problems.push(format!(
            "{path} must be a non-empty base64 string, got {}",
            check::got(other)
        )),
    }
}

/// Checks that `data` is non-empty standard base64 whose bytes start like a `media` image.
pub(crate) fn check_payload(
    data: &str,
    media: Option<&str>,
    path: &str,
    problems: &mut Vec<String>,
) {
    if data.is_empty() {
        problems.push(format!(
            "{path} must be a non-empty base64 string, got an empty string"
        ));
        return;
    }
    let bytes = match STANDARD.decode(data) {
        Ok(bytes) => bytes,
        Err(err) => {
            problems.push(format!(
                "{path} must be standard base64, but decoding fails: {err}"
            ));
            return;
        }
    };
    let Some(media) = media else {
        return;
    };
    let sniffed = sniff(&bytes);
    if sniffed != Some(media) {
        problems.push(format!(
            "{path} must hold an image of type {media}, but its bytes start like {}",
            sniffed.unwrap_or("no known image type")
        ));
    }
}

/// The media type whose magic bytes `bytes` start with.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF8") {
        Some("image/gif")
    } else if bytes.len() >= 12 && bytes.starts_with(b"RIFF") && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// A value for a message: a string quoted and cut short (payloads are long), other kinds by name.
pub(crate) fn preview(value: Option<&Value>) -> String {
    const LIMIT: usize = 40;
    match value {
        Some(Value::String(s)) if s.chars().count() > LIMIT => {
            let head: String = s.chars().take(LIMIT).collect();
            format!("{head:?}…")
        }
        Some(Value::String(s)) => format!("{s:?}"),
        other => check::got(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(data: &str, media: &str) -> Vec<String> {
        let mut problems = Vec::new();
        check_payload(data, Some(media), "data", &mut problems);
        problems
    }

    #[test]
    fn each_media_type_is_told_by_its_magic_bytes() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Some("image/png"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\x24\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"RIFF\x24\0\0\0WAVE"), None);
        assert_eq!(sniff(b"\x89PNG"), None);
    }

    #[test]
    fn a_payload_must_be_standard_base64_of_the_declared_type() {
        let gif = STANDARD.encode(b"GIF89a\x01\0\x01\0");
        assert_eq!(problems(&gif, "image/gif"), Vec::<String>::new());
        assert_eq!(
            problems(&gif, "image/png"),
            ["data must hold an image of type image/png, but its bytes start like image/gif"]
        );
        assert_eq!(
            problems("", "image/png"),
            ["data must be a non-empty base64 string, got an empty string"]
        );
        let url_safe = base64::engine::general_purpose::URL_SAFE.encode([0xFF, 0xD8, 0xFF, 0xFE]);
        assert!(
            problems(&url_safe, "image/jpeg")[0].starts_with("data must be standard base64"),
            "{url_safe}"
        );
        assert!(problems("R0lGODlh", "image/gif").is_empty());
        assert!(problems("R0lGODlh=", "image/gif")[0].contains("standard base64"));
    }

    #[test]
    fn a_data_url_splits_into_media_type_and_payload() {
        assert_eq!(
            data_url("data:image/png;base64,iVBO"),
            Some(("image/png", "iVBO"))
        );
        assert_eq!(data_url("data:image/png,iVBO"), None);
        assert_eq!(data_url("https://example.com/a.png"), None);
    }

    #[test]
    fn a_long_string_is_cut_short_in_messages() {
        let long = Value::String("A".repeat(100));
        assert_eq!(preview(Some(&long)), format!("{:?}…", "A".repeat(40)));
        assert_eq!(preview(None), "missing");
    }
}
