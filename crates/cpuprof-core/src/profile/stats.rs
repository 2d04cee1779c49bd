pub use crate::stats::{percentile_sorted, Stats};
