//! The keys a plan may press, by the names of the step language, and pressing them.

use fantoccini::key::Key as WebDriverKey;

use super::{BrowserError, Session};

/// The step language's key names and the WebDriver keys they press, together.
const KEYS: &[(&str, &[WebDriverKey])] = &[
    ("Enter", &[WebDriverKey::Enter]),
    ("Tab", &[WebDriverKey::Tab]),
    ("Escape", &[WebDriverKey::Escape]),
    ("Backspace", &[WebDriverKey::Backspace]),
    ("Delete", &[WebDriverKey::Delete]),
    ("Space", &[WebDriverKey::Space]),
    ("ArrowUp", &[WebDriverKey::Up]),
    ("ArrowDown", &[WebDriverKey::Down]),
    ("ArrowLeft", &[WebDriverKey::Left]),
    ("ArrowRight", &[WebDriverKey::Right]),
    ("Home", &[WebDriverKey::Home]),
    ("End", &[WebDriverKey::End]),
    ("PageUp", &[WebDriverKey::PageUp]),
    ("PageDown", &[WebDriverKey::PageDown]),
    // WebDriver holds a modifier down until the end of the keys sent with it.
    ("Shift+Tab", &[WebDriverKey::Shift, WebDriverKey::Tab]),
];

/// A key Windup can press (`Enter`, `ArrowDown`, `Shift+Tab`, …).
#[derive(Debug, Clone, Copy)]
pub struct Key {
    name: &'static str,
    codes: &'static [WebDriverKey],
}

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Key {}

impl Key {
    /// The key a plan names, if Windup can press it.
    pub fn named(name: &str) -> Option<Key> {
        KEYS.iter()
            .find(|(known, _)| *known == name)
            .map(|&(name, codes)| Key { name, codes })
    }

    /// Its name in the step language.
    pub fn name(self) -> &'static str {
        self.name
    }

    /// What WebDriver's send-keys is given for it.
    pub(crate) fn keys(self) -> String {
        self.codes.iter().map(|&code| char::from(code)).collect()
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl Session {
    /// Presses `key` in the element that has the focus, as a person would: over BiDi the key
    /// actions go to it as they are, else Classic's send-keys goes to the element it names.
    pub async fn press(&self, key: Key) -> Result<(), BrowserError> {
        self.forget_seen_url();
        if let Some(channel) = self.socket() {
            let pressed = channel.perform(super::input::keyboard(&key.keys())).await;
            self.settle(std::time::Instant::now() + super::SETTLE_WITHIN)
                .await;
            return pressed.map_err(|refusal| refusal.during(&format!("press {key}")));
        }
        let focused = self
            .client
            .active_element()
            .await
            .map_err(|e| BrowserError::command("find the focused element", e))?;
        let pressed = focused.send_keys(&key.keys()).await;
        self.settle(std::time::Instant::now() + super::SETTLE_WITHIN)
            .await;
        pressed.map_err(|e| BrowserError::command(format!("press {key}"), e))
    }

    /// Presses `key` in an element that passed the gate, giving it the focus first when it
    /// does not have it (as Playwright's `press` does).
    pub async fn press_in(
        &self,
        element: &super::Actionable,
        key: Key,
    ) -> Result<(), BrowserError> {
        self.forget_seen_url();
        self.focus(element).await?;
        self.send_keys(
            element,
            &key.keys(),
            &format!("press {key} in {}", element.described),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_a_plan_may_name_can_be_pressed() {
        for name in crate::model::plan::key_names() {
            let key = Key::named(name).unwrap_or_else(|| panic!("{name} has no WebDriver key"));
            assert_eq!(key.name(), *name);
        }
        assert!(Key::named("F13").is_none());
        assert!(
            Key::named("enter").is_none(),
            "key names are case-sensitive"
        );
    }
}
