//! Input actions as WebDriver BiDi's `input.performActions` takes them: a mouse that moves to a
//! point of the viewport or to an element and presses, and a keyboard that types what Classic's
//! Element Send Keys would. The browser dispatches them as a person's input (trusted events), and
//! over the socket they never wait behind a Classic command (docs/browsers.md#webdriver-bidi).

use std::time::Duration;

use serde_json::{Value, json};

use super::page::Point;

/// Where the mouse goes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Aim {
    /// A point of the viewport, in CSS pixels.
    Point(Point),
    /// The centre of an element's part in view, by its BiDi shared id (which is its Classic
    /// element reference, in chromedriver and geckodriver alike).
    Element(String),
}

/// One step of the mouse.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Mouse {
    /// Moves to where `Aim` says.
    To(Aim),
    /// Presses and releases the left button.
    Click,
    /// Waits.
    Pause(Duration),
}

/// The actions of a mouse that moves to `aim`, then does `then`.
pub(crate) fn mouse_at(aim: Aim, then: &[Mouse]) -> Value {
    let mut steps = vec![Mouse::To(aim)];
    steps.extend_from_slice(then);
    mouse(&steps)
}

/// The actions of a mouse doing `steps`, as one input source.
pub(crate) fn mouse(steps: &[Mouse]) -> Value {
    let mut actions = Vec::with_capacity(steps.len() * 2);
    for step in steps {
        match step {
            Mouse::To(Aim::Point(Point { x, y })) => actions.push(json!({
                "type": "pointerMove", "x": x, "y": y, "origin": "viewport"
            })),
            Mouse::To(Aim::Element(id)) => actions.push(json!({
                "type": "pointerMove", "x": 0, "y": 0,
                "origin": { "type": "element", "element": { "sharedId": id } }
            })),
            Mouse::Click => {
                actions.push(json!({ "type": "pointerDown", "button": 0 }));
                actions.push(json!({ "type": "pointerUp", "button": 0 }));
            }
            Mouse::Pause(pause) => actions.push(json!({
                "type": "pause", "duration": u64::try_from(pause.as_millis()).unwrap_or(u64::MAX)
            })),
        }
    }
    json!([{
        "type": "pointer",
        "id": "windup-mouse",
        "parameters": { "pointerType": "mouse" },
        "actions": actions,
    }])
}

/// WebDriver's NULL key: in a string sent as keys, it releases every modifier held.
const NULL: char = '\u{E000}';
const ENTER: char = '\u{E007}';
const TAB: char = '\u{E004}';

/// Whether `key` is a modifier (Shift, Control, Alt, Meta, left or right), which a string of
/// keys holds down until it is sent again, NULL comes, or the string ends.
fn modifier(key: char) -> bool {
    matches!(key, '\u{E008}'..='\u{E00A}' | '\u{E03D}' | '\u{E050}'..='\u{E053}')
}

const SHIFT: char = '\u{E008}';

/// Whether a person types `key` with Shift held, on the US keyboard WebDriver's key tables
/// assume: a capital letter, or the upper sign of a key with two.
fn shifted(key: char) -> bool {
    key.is_ascii_uppercase() || "~!@#$%^&*()_+{}|:\"<>?".contains(key)
}

/// The key actions that type `keys` as Classic's Element Send Keys reads them: each character
/// pressed and released, a shifted one (a capital, `!`, `?` …) with Shift held around it as
/// Send Keys holds it (so the page's events say `shiftKey`), a modifier held until it comes
/// again or NULL releases it, a line break pressed as Enter and a tab as Tab (as chromedriver
/// types them), and every key let go at the end, so that the session's keyboard is left as it
/// was found.
pub(crate) fn keyboard(keys: &str) -> Value {
    let mut actions = Vec::with_capacity(keys.len() * 2);
    let mut held: Vec<char> = Vec::new();
    // Shift pressed for shifted characters (not sent as a key): let go at the first other.
    let mut shifting = false;
    let mut previous = None;
    for typed in keys.chars() {
        let key = match typed {
            // "\r\n" is one line break.
            '\n' if previous == Some('\r') => {
                previous = None;
                continue;
            }
            '\r' | '\n' => ENTER,
            '\t' => TAB,
            key => key,
        };
        previous = Some(typed);
        let shift = shifted(key) && !held.contains(&SHIFT);
        if shift != shifting {
            let way = if shift { "keyDown" } else { "keyUp" };
            actions.push(json!({ "type": way, "value": SHIFT.to_string() }));
            shifting = shift;
        }
        if key == NULL {
            release(&mut held, &mut actions);
        } else if modifier(key) {
            match held.iter().position(|&h| h == key) {
                Some(at) => {
                    held.remove(at);
                    actions.push(json!({ "type": "keyUp", "value": key.to_string() }));
                }
                None => {
                    held.push(key);
                    actions.push(json!({ "type": "keyDown", "value": key.to_string() }));
                }
            }
        } else {
            actions.push(json!({ "type": "keyDown", "value": key.to_string() }));
            actions.push(json!({ "type": "keyUp", "value": key.to_string() }));
        }
    }
    if shifting {
        actions.push(json!({ "type": "keyUp", "value": SHIFT.to_string() }));
    }
    release(&mut held, &mut actions);
    json!([{ "type": "key", "id": "windup-keys", "actions": actions }])
}

/// Lets go of every modifier held, the last pressed first.
fn release(held: &mut Vec<char>, actions: &mut Vec<Value>) {
    while let Some(key) = held.pop() {
        actions.push(json!({ "type": "keyUp", "value": key.to_string() }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mouse_moves_to_a_viewport_point_and_presses_the_left_button() {
        let source = mouse_at(
            Aim::Point(Point { x: 10, y: 20 }),
            &[
                Mouse::Click,
                Mouse::Pause(Duration::from_millis(100)),
                Mouse::Click,
            ],
        );
        assert_eq!(source[0]["parameters"]["pointerType"], "mouse");
        let kinds: Vec<&str> = source[0]["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .map(|a| a["type"].as_str().unwrap_or_default())
            .collect();
        assert_eq!(
            kinds,
            [
                "pointerMove",
                "pointerDown",
                "pointerUp",
                "pause",
                "pointerDown",
                "pointerUp"
            ]
        );
        assert_eq!(source[0]["actions"][0]["origin"], "viewport");
        assert_eq!(source[0]["actions"][0]["x"], 10);
        assert_eq!(source[0]["actions"][3]["duration"], 100);
    }

    #[test]
    fn the_mouse_moves_to_an_element_by_its_shared_id() {
        let source = mouse_at(Aim::Element("f.1.d.2.e.3".to_owned()), &[Mouse::Click]);
        assert_eq!(
            source[0]["actions"][0],
            json!({
                "type": "pointerMove", "x": 0, "y": 0,
                "origin": { "type": "element", "element": { "sharedId": "f.1.d.2.e.3" } }
            })
        );
    }

    fn typed(keys: &str) -> Vec<String> {
        keyboard(keys)[0]["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .map(|a| {
                let value = a["value"].as_str().unwrap_or_default();
                let name = match value {
                    "\u{E009}" => "Control".to_owned(),
                    "\u{E008}" => "Shift".to_owned(),
                    "\u{E007}" => "Enter".to_owned(),
                    "\u{E004}" => "Tab".to_owned(),
                    "\u{E003}" => "Backspace".to_owned(),
                    other => other.to_owned(),
                };
                let way = if a["type"] == "keyDown" { "down" } else { "up" };
                format!("{name} {way}")
            })
            .collect()
    }

    #[test]
    fn keys_are_typed_as_send_keys_reads_them() {
        assert_eq!(typed("hé"), ["h down", "h up", "é down", "é up"]);
        // Select all, let go, then Backspace: the keys that empty a field.
        assert_eq!(
            typed("\u{E009}a\u{E000}\u{E003}"),
            [
                "Control down",
                "a down",
                "a up",
                "Control up",
                "Backspace down",
                "Backspace up"
            ]
        );
        // A modifier is held until the end, and then let go.
        assert_eq!(
            typed("\u{E008}\u{E004}"),
            ["Shift down", "Tab down", "Tab up", "Shift up"]
        );
        // Sent again, a modifier is let go.
        assert_eq!(
            typed("\u{E008}a\u{E008}b"),
            ["Shift down", "a down", "a up", "Shift up", "b down", "b up"]
        );
        assert_eq!(
            typed("a\nb\r\n\t"),
            [
                "a down",
                "a up",
                "Enter down",
                "Enter up",
                "b down",
                "b up",
                "Enter down",
                "Enter up",
                "Tab down",
                "Tab up"
            ]
        );
        assert_eq!(keyboard("x")[0]["type"], "key");
        // A shifted character is typed with Shift held, as Send Keys types it: held across a
        // run of them, let go before the next other key and at the end.
        assert_eq!(
            typed("aBC!d?"),
            [
                "a down",
                "a up",
                "Shift down",
                "B down",
                "B up",
                "C down",
                "C up",
                "! down",
                "! up",
                "Shift up",
                "d down",
                "d up",
                "Shift down",
                "? down",
                "? up",
                "Shift up"
            ]
        );
        // Under a Shift sent as a key, no second one is pressed.
        assert_eq!(
            typed("\u{E008}A"),
            ["Shift down", "A down", "A up", "Shift up"]
        );
    }
}
