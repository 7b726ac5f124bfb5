pub use windup_core::*;
