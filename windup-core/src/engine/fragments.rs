//! Fragments: reusable sub-flows (log in, add to cart) in `scenarios/fragments/NAME.yaml`,
//! written like scenarios, used from one with the step `use NAME`.
//!
//! A scenario's plan keeps only the reference (`{"type": "use", "use": "login"}`); the fragment's
//! own plan is planned and verified like a scenario's — on the page where it is first used — and
//! cached under its own key, with its own lockfile beside its file. So when the fragment's page
//! changes, it is re-planned once, and every scenario that uses it replays the new plan.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

use time::OffsetDateTime;

use crate::config::{Settings, UpdateMode};
use crate::engine::cache::{CacheEntry, CacheKey, PlanCache};
use crate::engine::ledger;
use crate::engine::lockfile::{self, Written};
use crate::model::plan::Plan;
use crate::model::scenario::{self, Scenario};
use crate::model::steps::StepKind;

/// The directory of fragments, under the scenarios directory.
pub const DIR: &str = "fragments";

/// Where the executor and the planner find fragments' plans.
pub trait FragmentPlans: Send + Sync {
    /// The active plan of fragment `name`.
    fn plan(&self, name: &str) -> Result<Plan, FragmentError>;
    /// The fragment itself, to plan it.
    fn definition(&self, name: &str) -> Result<Scenario, FragmentError>;
    /// Keeps a plan just made for `fragment` (run and verified on the live page).
    fn planned(&self, fragment: &Scenario, plan: &Plan) -> Result<(), FragmentError>;
    /// Every fragment's id and task, for a model's prompt.
    fn catalogue(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// No fragments at all: every `use` fails saying so.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoFragments;

impl FragmentPlans for NoFragments {
    fn plan(&self, name: &str) -> Result<Plan, FragmentError> {
        Err(FragmentError::Unavailable(name.to_owned()))
    }

    fn definition(&self, name: &str) -> Result<Scenario, FragmentError> {
        Err(FragmentError::Unavailable(name.to_owned()))
    }

    fn planned(&self, fragment: &Scenario, _plan: &Plan) -> Result<(), FragmentError> {
        Err(FragmentError::Unavailable(fragment.id.clone()))
    }
}

/// Why a fragment's plan is not there.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FragmentError {
    #[error("fragment {0:?} has no plan yet")]
    NoPlan(String),
    #[error("fragment {name:?} does not exist: create {}, or fix the name in `use`", path.display())]
    Missing { name: String, path: PathBuf },
    #[error("{0}")]
    Invalid(String),
    #[error("fragment {0:?} cannot be used here: this run has no fragment catalogue")]
    Unavailable(String),
    #[error("fragment {name:?}: {message}")]
    Store { name: String, message: String },
}

/// A project's fragments, for one scenario's run.
#[derive(Debug)]
pub struct ProjectFragments {
    dir: PathBuf,
    cache: PlanCache,
    update: UpdateMode,
    /// Whether committed lockfiles seed the cache and new plans are written for review.
    lockfiles: bool,
    /// Fragments whose plan failed in this run: planned again rather than replayed.
    broken: Mutex<BTreeSet<String>>,
    /// Lockfiles of fragment plans this run wrote for review.
    pending: Mutex<Vec<PathBuf>>,
}

impl ProjectFragments {
    pub fn new(settings: &Settings) -> Self {
        Self {
            dir: settings.scenarios_dir.join(DIR),
            cache: PlanCache::new(&settings.root),
            update: settings.update,
            lockfiles: true,
            broken: Mutex::new(BTreeSet::new()),
            pending: Mutex::new(Vec::new()),
        }
    }

    /// The project's fragments with their plans in `cache` alone: no lockfile is read or
    /// written (a bench's scratch cache, which must leave the project as it was).
    pub fn in_cache(settings: &Settings, cache: PlanCache) -> Self {
        Self {
            cache,
            lockfiles: false,
            ..Self::new(settings)
        }
    }

    /// The cache key of a fragment's plan: apart from every scenario's.
    pub fn key(name: &str) -> CacheKey {
        CacheKey::new(format!("fragment:{name}"), "(fragment)")
    }

    /// The fragment's plan failed: its cached entry turns stale with `evidence`, and for the
    /// rest of this run it is planned again where it is used.
    pub fn broken(&self, name: &str, evidence: &str) -> Result<(), FragmentError> {
        self.broken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_owned());
        match self.cache.mark_stale(&Self::key(name), evidence) {
            Ok(()) | Err(crate::engine::cache::CacheError::NoActiveEntry { .. }) => Ok(()),
            Err(err) => Err(FragmentError::Store {
                name: name.to_owned(),
                message: err.to_string(),
            }),
        }
    }

    /// Fragment lockfiles written for review during this run.
    pub fn pending(&self) -> Vec<PathBuf> {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl FragmentPlans for ProjectFragments {
    fn plan(&self, name: &str) -> Result<Plan, FragmentError> {
        let fragment = self.definition(name)?;
        let broken = self
            .broken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(name);
        if broken {
            return Err(FragmentError::NoPlan(name.to_owned()));
        }
        let store = |message: String| FragmentError::Store {
            name: name.to_owned(),
            message,
        };
        if let Some(entry) = self
            .cache
            .lookup(&Self::key(name), &fragment.hash)
            .map_err(|err| store(err.to_string()))?
        {
            return Ok(entry.plan);
        }
        if !self.lockfiles {
            return Err(FragmentError::NoPlan(name.to_owned()));
        }
        // A cold cache is seeded from the lockfile, as for scenarios.
        match lockfile::read(&lockfile::lockfile_path(&fragment.path)) {
            Ok(Some(plan)) if plan.scenario_id == fragment.id && plan.task == fragment.task => {
                Ok(plan)
            }
            Ok(_) => Err(FragmentError::NoPlan(name.to_owned())),
            Err(err) => Err(store(err.to_string())),
        }
    }

    fn definition(&self, name: &str) -> Result<Scenario, FragmentError> {
        let path = self.dir.join(format!("{name}.yaml"));
        if !path.is_file() {
            return Err(FragmentError::Missing {
                name: name.to_owned(),
                path,
            });
        }
        let fragment = scenario::load(&path, &self.dir)
            .map_err(|err| FragmentError::Invalid(err.to_string()))?;
        if fragment.id != name {
            return Err(FragmentError::Invalid(format!(
                "{}: a fragment is named by its file, so its `id:` must be {name:?} or left out",
                path.display()
            )));
        }
        if fragment.steps.is_empty() {
            return Err(FragmentError::Invalid(format!(
                "{}: a fragment needs explicit `steps:`",
                path.display()
            )));
        }
        if let Some(step) = fragment
            .steps
            .iter()
            .find(|step| matches!(step.kind, StepKind::Use { .. }))
        {
            return Err(FragmentError::Invalid(format!(
                "{}:{}: a fragment cannot use another fragment ({})",
                path.display(),
                step.line,
                step.text
            )));
        }
        Ok(fragment)
    }

    fn planned(&self, fragment: &Scenario, plan: &Plan) -> Result<(), FragmentError> {
        let name = fragment.id.as_str();
        let store = |message: String| FragmentError::Store {
            name: name.to_owned(),
            message,
        };
        let key = Self::key(name);
        self.cache
            .save(&CacheEntry::new(key.clone(), &fragment.hash, plan.clone()))
            .and_then(|()| {
                let at = ledger::started_at(OffsetDateTime::now_utc());
                self.cache.record_run(&key, true, &at, 0)
            })
            .map_err(|err| store(err.to_string()))?;
        let written = if self.lockfiles {
            lockfile::record(&fragment.path, plan, self.update)
                .map_err(|err| store(err.to_string()))?
        } else {
            Written::Skipped
        };
        if let Written::Pending(path) = written {
            self.pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(path);
        }
        self.broken
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
        Ok(())
    }

    fn catalogue(&self) -> Vec<(String, String)> {
        let Ok(files) = scenario::discover(&self.dir) else {
            return Vec::new();
        };
        files
            .iter()
            .filter_map(|path| scenario::load(path, &self.dir).ok())
            .map(|fragment| (fragment.id, fragment.task))
            .collect()
    }
}
