//! Profiling pipeline: attribute ETDump events to delegates, plan steps and operators,
//! drop warm-up runs, compute statistics and checks. Pure functions over reader output.

mod model;
mod stats;

pub use model::*;
pub use stats::{percentile_sorted, Stats};
mod load;
pub use load::{
    default_log_for, load_profile, EmbeddedDump, LoadError, LoadPhase, LoadProgress,
    ProfileRequest, DEMO,
};
