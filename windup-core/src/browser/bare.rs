//! WebDriver's own commands with none of Windup's care: no gate, no identity, no postcondition,
//! no look at the page. Each waits for its element as code written by hand against WebDriver
//! does (a find every 10 ms until it is there), then acts with the driver's own click and
//! send-keys. This is the floor of a flow: what the browser needs to carry it out, measured by
//! the bench beside a replay of the same plan.

use std::time::Duration;

use fantoccini::Locator;
use fantoccini::elements::{Element, ElementRef};

use super::keys::Key;
use super::{BrowserError, ELEMENT_KEY, Session};

/// One step of a flow, carried out by WebDriver alone.
#[derive(Debug, Clone, Copy)]
pub enum Bare<'a> {
    /// Opens an absolute URL.
    Open(&'a str),
    /// Clicks the first element the CSS selector finds.
    Click(&'a str),
    /// Clicks a checkbox or radio unless it is `checked` already; a hidden one through its label.
    Check {
        selector: &'a str,
        checked: bool,
    },
    /// Clears a field (`clear`) and types into it.
    Fill {
        selector: &'a str,
        text: &'a str,
        clear: bool,
    },
    /// Picks an option of a list by its label, else its value.
    Select {
        selector: &'a str,
        option: &'a str,
    },
    /// Presses a key in an element, or in whatever has the focus.
    Press {
        selector: Option<&'a str>,
        key: Key,
    },
    /// Moves the pointer over an element.
    Hover(&'a str),
    /// Waits for an element.
    Find(&'a str),
    Back,
    Forward,
    Reload,
}

impl Session {
    /// Carries out `step` with WebDriver's own commands, an element waited for at most `within`.
    pub async fn bare(&self, step: Bare<'_>, within: Duration) -> Result<(), BrowserError> {
        let failed = |what: &str| {
            let what = what.to_owned();
            move |e: fantoccini::error::CmdError| BrowserError::command(what, e)
        };
        match step {
            Bare::Open(url) => self.client.goto(url).await.map_err(failed("open")),
            Bare::Click(selector) => self
                .find_bare(selector, within)
                .await?
                .click()
                .await
                .map_err(failed(selector)),
            Bare::Check { selector, checked } => self.check_bare(selector, checked, within).await,
            Bare::Fill {
                selector,
                text,
                clear,
            } => {
                let element = self.find_bare(selector, within).await?;
                if clear {
                    element.clear().await.map_err(failed(selector))?;
                }
                element.send_keys(text).await.map_err(failed(selector))
            }
            Bare::Select { selector, option } => {
                let element = self.find_bare(selector, within).await?;
                match element.select_by_label(option).await {
                    Ok(()) => Ok(()),
                    Err(_) => element
                        .select_by_value(option)
                        .await
                        .map_err(failed(selector)),
                }
            }
            Bare::Press { selector, key } => {
                let element = match selector {
                    Some(selector) => self.find_bare(selector, within).await?,
                    None => self
                        .client
                        .active_element()
                        .await
                        .map_err(failed("press"))?,
                };
                element
                    .send_keys(&key.keys())
                    .await
                    .map_err(failed("press"))
            }
            Bare::Hover(selector) => self.hover_bare(selector, within).await,
            Bare::Find(selector) => self.find_bare(selector, within).await.map(|_| ()),
            Bare::Back => self.client.back().await.map_err(failed("back")),
            Bare::Forward => self.client.forward().await.map_err(failed("forward")),
            Bare::Reload => self.client.refresh().await.map_err(failed("reload")),
        }
    }

    /// Clicks a checkbox or radio unless it is `checked` already; one that cannot be clicked (a
    /// hidden control) through its first label, as code written by hand clicks it.
    async fn check_bare(
        &self,
        selector: &str,
        checked: bool,
        within: Duration,
    ) -> Result<(), BrowserError> {
        let failed = |e| BrowserError::command(format!("check {selector}"), e);
        let element = self.find_bare(selector, within).await?;
        if element.is_selected().await.map_err(failed)? == checked {
            return Ok(());
        }
        match element.click().await {
            Err(err) if err.is_element_not_interactable() => {
                let label = self
                    .client
                    .execute(
                        "return arguments[0].labels && arguments[0].labels[0];",
                        vec![serde_json::to_value(&element).unwrap_or_default()],
                    )
                    .await
                    .map_err(failed)?;
                let Some(id) = label.get(ELEMENT_KEY).and_then(|id| id.as_str()) else {
                    return Err(BrowserError::Command {
                        during: format!("check {selector}"),
                        reason: "it cannot be clicked, and it has no label".to_owned(),
                    });
                };
                Element::from_element_id(self.client.clone(), ElementRef::from(id.to_owned()))
                    .click()
                    .await
                    .map_err(failed)
            }
            clicked => clicked.map_err(failed),
        }
    }

    /// Moves the pointer over an element.
    async fn hover_bare(&self, selector: &str, within: Duration) -> Result<(), BrowserError> {
        let element = self.find_bare(selector, within).await?;
        self.move_to(element, &format!("hover {selector}")).await
    }

    /// The first element `selector` finds, looked for every 10 ms for at most `within`.
    async fn find_bare(&self, selector: &str, within: Duration) -> Result<Element, BrowserError> {
        self.client
            .wait()
            .at_most(within)
            .every(Duration::from_millis(10))
            .for_element(Locator::Css(selector))
            .await
            .map_err(|e| BrowserError::command(format!("find {selector}"), e))
    }
}
