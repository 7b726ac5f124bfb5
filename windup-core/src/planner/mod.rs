//! Planners turn a scenario into a plan. The offline planner resolves explicit steps against the
//! live page, with no model and no network; the model planner arrives with its own issue.

pub mod offline;

pub use offline::{OfflinePlanner, PlannedRun};
