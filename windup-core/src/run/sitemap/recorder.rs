//! Every run is also collection: the site map reporter gathers the pages a run's scenarios
//! visit and the actions that led from one to the next, and merges them into the project's
//! site map once the run ends (`.windup/sitemap.json`, [`crate::engine::sitemap`]).

use std::collections::HashMap;
use std::path::Path;

use time::OffsetDateTime;

use crate::engine::sitemap::{MapFile, MapFileError};
use crate::model::sitemap::{Move, Visit, action_words};
use crate::run::events::{ActionInfo, Reporter, RunEvent};

/// What a run's scenarios saw, until it is merged into the map.
#[derive(Debug, Default)]
pub struct SiteMapRecorder {
    /// Each scenario's last page and the action done since.
    walks: HashMap<String, Walk>,
    visits: Vec<Visit>,
    moves: Vec<Move>,
}

#[derive(Debug, Default)]
struct Walk {
    at: Option<String>,
    /// The action under way: the executor tells of the page an action led to before it
    /// tells that the action finished.
    current: Option<(crate::model::plan::ActionKind, String)>,
    /// The last action that finished, for a page seen only while the next one waits.
    done: Option<String>,
}

fn words(action: &ActionInfo) -> String {
    action_words(
        action.kind,
        action.name.as_deref().or(action.selector.as_deref()),
    )
}

impl Reporter for SiteMapRecorder {
    fn report(&mut self, event: &RunEvent) {
        match event {
            RunEvent::ScenarioStarted { scenario } => {
                self.walks.insert(scenario.id.clone(), Walk::default());
            }
            RunEvent::ActionStarted { scenario, action } => {
                let walk = self.walks.entry(scenario.clone()).or_default();
                walk.current = Some((action.kind, words(action)));
            }
            RunEvent::ActionFinished {
                scenario, passed, ..
            } => {
                let walk = self.walks.entry(scenario.clone()).or_default();
                let finished = walk.current.take().map(|(_, words)| words);
                walk.done = finished.filter(|_| *passed);
            }
            RunEvent::PageVisited { scenario, page } => {
                self.visits.push(Visit {
                    path: page.path.clone(),
                    signature: Some(page.sig.clone()),
                    ..Visit::default()
                });
                let walk = self.walks.entry(scenario.clone()).or_default();
                // A wait moves nowhere: a page it sees is the last action's doing.
                let action = match &walk.current {
                    Some((kind, words)) if *kind != crate::model::plan::ActionKind::WaitFor => {
                        Some(words.clone())
                    }
                    _ => walk.done.take(),
                };
                if let (Some(from), Some(action)) = (walk.at.take(), action)
                    && from != page.path
                {
                    self.moves.push(Move {
                        from,
                        action,
                        to: page.path.clone(),
                    });
                }
                walk.at = Some(page.path.clone());
            }
            _ => {}
        }
    }
}

impl SiteMapRecorder {
    /// Merges what was seen into the map of the project at `root`, and forgets it.
    pub fn flush(&mut self, root: &Path) -> Result<(), MapFileError> {
        if self.visits.is_empty() {
            return Ok(());
        }
        let at = crate::engine::ledger::started_at(OffsetDateTime::now_utc());
        let visits = std::mem::take(&mut self.visits);
        let moves = std::mem::take(&mut self.moves);
        MapFile::of(root).update(|map| map.observe(&visits, &moves, &at))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::signature::PageVisit;
    use crate::model::plan::ActionKind;

    fn action(kind: ActionKind, name: &str) -> ActionInfo {
        ActionInfo {
            id: "a".to_owned(),
            position: 1,
            of: 1,
            kind,
            selector: None,
            name: Some(name.to_owned()),
        }
    }

    /// The events of one action, in the executor's order: started, the page it led to, finished.
    fn act(recorder: &mut SiteMapRecorder, kind: ActionKind, name: &str, page: Option<&str>) {
        let scenario = "s".to_owned();
        recorder.report(&RunEvent::ActionStarted {
            scenario: scenario.clone(),
            action: action(kind, name),
        });
        if let Some(path) = page {
            visit(recorder, path);
        }
        recorder.report(&RunEvent::ActionFinished {
            scenario,
            action: action(kind, name),
            passed: true,
            duration_ms: 1,
            screenshot: None,
        });
    }

    fn visit(recorder: &mut SiteMapRecorder, path: &str) {
        recorder.report(&RunEvent::PageVisited {
            scenario: "s".to_owned(),
            page: PageVisit {
                path: path.to_owned(),
                sig: format!("sig{path}"),
            },
        });
    }

    #[test]
    fn a_move_is_the_action_that_led_to_the_page() {
        let mut recorder = SiteMapRecorder::default();
        visit(&mut recorder, "/");
        act(
            &mut recorder,
            ActionKind::Click,
            "Products",
            Some("/products"),
        );
        act(
            &mut recorder,
            ActionKind::WaitFor,
            "Crab sticker pack",
            None,
        );
        act(&mut recorder, ActionKind::Click, "Ferris plush", None);
        // A page still loading when the click ended is seen by the wait after it.
        act(
            &mut recorder,
            ActionKind::WaitFor,
            "body",
            Some("/products/ferris-plush"),
        );
        let moves: Vec<(&str, &str, &str)> = recorder
            .moves
            .iter()
            .map(|m| (m.from.as_str(), m.action.as_str(), m.to.as_str()))
            .collect();
        assert_eq!(
            moves,
            [
                ("/", "click \"Products\"", "/products"),
                (
                    "/products",
                    "click \"Ferris plush\"",
                    "/products/ferris-plush"
                ),
            ]
        );
    }
}
