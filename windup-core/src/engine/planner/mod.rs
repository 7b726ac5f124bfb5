//! Planners turn a scenario into a plan. The offline planner resolves explicit steps against the
//! live page, with no model and no network; the model planner plans a scenario that has only a
//! task, with one model call (and bounded retries) per plan.

pub mod llm;
pub mod offline;
pub mod prompt;

pub use offline::{OfflinePlanner, PlannedRun};
