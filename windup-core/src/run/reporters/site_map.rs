//! Every run is also collection: the site map reporter gathers the pages a run's scenarios
//! visit and the actions that led from one to the next, and merges them into the project's
//! site map once the run ends (`.windup/sitemap.json`, [`crate::mapfile`]).

use std::collections::HashMap;
use std::path::Path;

use time::OffsetDateTime;

use crate::events::{ActionInfo, Reporter, RunEvent};
use crate::mapfile::{MapFile, MapFileError};
use crate::sitemap::{Move, Visit, action_words};

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
    action: Option<String>,
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
            RunEvent::ActionFinished {
                scenario,
                action,
                passed: true,
                ..
            } => {
                self.walks.entry(scenario.clone()).or_default().action = Some(words(action));
            }
            RunEvent::PageVisited { scenario, page } => {
                self.visits.push(Visit {
                    path: page.path.clone(),
                    signature: Some(page.sig.clone()),
                    ..Visit::default()
                });
                let walk = self.walks.entry(scenario.clone()).or_default();
                if let (Some(from), Some(action)) = (walk.at.take(), walk.action.take())
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
        let at = crate::ledger::started_at(OffsetDateTime::now_utc());
        let visits = std::mem::take(&mut self.visits);
        let moves = std::mem::take(&mut self.moves);
        MapFile::of(root).update(|map| map.observe(&visits, &moves, &at))?;
        Ok(())
    }
}
