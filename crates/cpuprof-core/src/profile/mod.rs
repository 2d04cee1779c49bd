//! Profiling pipeline: attribute ETDump events to delegates, plan steps and operators,
//! drop warm-up runs, compute statistics and checks. Pure functions over reader output.

mod build;
mod classify;
mod collect;
pub mod efficiency;
mod fast_hash;
mod load;
mod methods;
mod model;
mod model_files;
mod plan_match;
mod shapes;
pub mod source;
mod stats;
mod stream;
mod timeline;
pub mod warmup;

pub use build::{build_profile, build_profile_with, BuildError};
pub use classify::{operator_type, parse_operator_name, parse_step_name, StepName};
pub use load::{
    check_openable, default_log_for, load_profile, load_profile_from_bytes,
    load_profile_from_input, load_profile_observed, read_dump, unchanged_or, Decoded, EmbeddedDump,
    LoadError, LoadPhase, LoadProgress, ProfileRequest, ReadOptions, DEMO,
};
pub use model::*;
pub use model_files::{
    default_etrecord_for, default_program_for, model_file_given_as_dump, model_input_paths,
    ModelFileArgs,
};
pub use shapes::{decode_metadata, Metadata, Shapes};
pub use stats::{percentile_sorted, Stats};
pub use timeline::{
    build_timeline, median_position, stream_timeline, DumpTimelineError, RunSelection, Timeline,
    TimelineEntry, TimelineEvent, TimelineKind, TimelineRun,
};
