//! Statistics below every model: summary statistics of samples ([`Stats`]), the two-sided
//! Mann–Whitney U test, the Hodges–Lehmann shift and ratio with their distribution-free
//! confidence intervals, and the Holm correction across the rows of one comparison.
//!
//! No reader or model is imported here; `profile`, `trace` and `compare` build on it.

mod mann_whitney;
mod multiple;
mod normal;
mod ratio;
mod samples;
mod shift;
mod summary;
mod welch;

pub use mann_whitney::{
    mann_whitney_u, min_attainable_p, normal_p_value, u_null_cdf, MannWhitney, MwMethod,
    EXACT_MAX_N,
};
pub use multiple::holm_adjust;
pub use normal::{normal_quantile, normal_sf};
pub use ratio::{ratio_estimate, RatioEstimate};
pub use samples::{ms_to_ns, ns_to_ms, Samples};
pub use shift::{hodges_lehmann, kth_pairwise_difference, ShiftEstimate};
pub use summary::{percentile_select, percentile_sorted, Stats};
pub use welch::{incomplete_beta, student_two_sided, welch_t, WelchT};
