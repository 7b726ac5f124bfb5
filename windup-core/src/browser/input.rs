//! Pointer actions as WebDriver BiDi's `input.performActions` takes them: a mouse that moves to
//! a point of the viewport and presses. The browser dispatches them as a person's input (trusted
//! events), as Classic's element click does. (Keys go by Classic's send-keys under either
//! protocol: measured faster in both drivers.)

use std::time::Duration;

use serde_json::{Value, json};

use super::page::Point;

/// One step of the mouse.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Mouse {
    /// Moves to a point of the viewport, in CSS pixels.
    To(Point),
    /// Presses and releases the left button.
    Click,
    /// Waits.
    Pause(Duration),
}

/// The actions of a mouse that moves to `point`, then does `then`.
pub(crate) fn mouse_at(point: Point, then: &[Mouse]) -> Value {
    let mut steps = vec![Mouse::To(point)];
    steps.extend_from_slice(then);
    mouse(&steps)
}

/// The actions of a mouse doing `steps`, as one input source.
pub(crate) fn mouse(steps: &[Mouse]) -> Value {
    let mut actions = Vec::with_capacity(steps.len() * 2);
    for step in steps {
        match *step {
            Mouse::To(Point { x, y }) => actions.push(json!({
                "type": "pointerMove", "x": x, "y": y, "origin": "viewport"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mouse_moves_to_a_viewport_point_and_presses_the_left_button() {
        let source = mouse_at(
            Point { x: 10, y: 20 },
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
}
