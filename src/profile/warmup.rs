//! Warm-up: a fixed number of leading runs, or `auto`, which finds the cold leading runs
//! from the `Method::execute` durations.
//!
//! The `auto` rule (documented in README):
//! - with fewer than 4 runs nothing is dropped (too few to tell cold from warm);
//! - at most the first quarter of the runs (`n / 4`) can be dropped; the other runs are
//!   the *reference*: their median `m` and median absolute deviation `MAD`;
//! - a run is *cold* when it is slower than `m + max(3 × 1.4826 × MAD, 0.1 × m)`: three
//!   robust standard deviations, and at least 10 % above the median (a quantised clock
//!   can give a MAD of 0);
//! - the runs up to and including the last cold run among the first quarter are dropped
//!   (cold starts decay over a few runs and a warming run can be briefly fast).

use std::fmt;
use std::str::FromStr;

use crate::stats::percentile_select;

/// Robust standard deviations above the median for a cold run.
pub const COLD_MADS: f64 = 3.0;
/// A cold run is at least this fraction above the median.
pub const COLD_MIN_EXCESS: f64 = 0.1;
/// At most `runs / COLD_MAX_FRACTION_DIV` leading runs are dropped.
pub const COLD_MAX_FRACTION_DIV: usize = 4;

/// `--warmup N` or `--warmup auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Warmup {
    Runs(usize),
    Auto,
}

impl Default for Warmup {
    fn default() -> Self {
        Warmup::Runs(0)
    }
}

impl Warmup {
    /// The fixed number of runs (0 for `auto`, which decides per method when building).
    pub fn runs(self) -> usize {
        match self {
            Warmup::Runs(n) => n,
            Warmup::Auto => 0,
        }
    }

    pub fn is_auto(self) -> bool {
        self == Warmup::Auto
    }
}

impl FromStr for Warmup {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Warmup::Auto);
        }
        s.parse::<usize>()
            .map(Warmup::Runs)
            .map_err(|_| format!("{s:?} is neither a number of runs nor `auto`"))
    }
}

impl fmt::Display for Warmup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warmup::Runs(n) => write!(f, "{n}"),
            Warmup::Auto => f.write_str("auto"),
        }
    }
}

/// Leading cold runs of `method_ms` (`Method::execute` per run, in run order) by the rule
/// above, and a sentence saying why.
pub fn auto_warmup(method_ms: &[f64]) -> (usize, String) {
    let n = method_ms.len();
    if n < 4 {
        return (
            0,
            format!("{n} run(s): too few to tell cold runs from warm ones"),
        );
    }
    let cap = n / COLD_MAX_FRACTION_DIV;
    // Medians by selection: bit for bit the medians of the sorted values.
    let mut reference: Vec<f64> = method_ms[cap..].to_vec();
    let median = percentile_select(&mut reference, 50.0);
    let mut dev: Vec<f64> = reference.iter().map(|x| (x - median).abs()).collect();
    let mad = percentile_select(&mut dev, 50.0);
    let threshold = median + (COLD_MADS * 1.4826 * mad).max(COLD_MIN_EXCESS * median);
    let cold = method_ms[..cap]
        .iter()
        .rposition(|&x| x > threshold)
        .map_or(0, |i| i + 1);
    let us = |ms: f64| crate::units::duration_ms(ms);
    let why = if cold == 0 {
        format!(
            "no run among the first {cap} of {n} has Method::execute above {} (median {} of the later runs + max(3 MAD, 10%))",
            us(threshold),
            us(median)
        )
    } else {
        format!(
            "Method::execute of the first {cold} run(s) reaches {} against a median of {} over the later runs (cold above {}: median + max(3 MAD, 10%), at most {cap} of {n} runs)",
            us(method_ms[..cold].iter().copied().fold(f64::MIN, f64::max)),
            us(median),
            us(threshold)
        )
    };
    (cold, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!("auto".parse::<Warmup>(), Ok(Warmup::Auto));
        assert_eq!("3".parse::<Warmup>(), Ok(Warmup::Runs(3)));
        assert!("-1".parse::<Warmup>().is_err());
    }

    #[test]
    fn rule_by_hand() {
        // 8 runs: cap 2; reference runs 2..8 = [10,11,10,12,10,11]: sorted
        // [10,10,10,11,11,12], median 10.5, deviations [.5,.5,.5,.5,.5,1.5] -> MAD 0.5;
        // threshold 10.5 + max(3*1.4826*0.5 = 2.2239, 1.05) = 12.7239. Run 0 (30) and
        // run 1 (12.8) are above it: 2 dropped.
        let x = [30.0, 12.8, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 2);
        // Only run 0 above: run 1 = 12.7 < 12.7239.
        let x = [30.0, 12.7, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 1);
        // A cold run after a fast one still counts (last cold run within the cap).
        let x = [10.0, 30.0, 10.0, 11.0, 10.0, 12.0, 10.0, 11.0];
        assert_eq!(auto_warmup(&x).0, 2);
        // Flat: nothing. Too few runs: nothing.
        assert_eq!(auto_warmup(&[1.0; 10]).0, 0);
        assert_eq!(auto_warmup(&[9.0, 1.0, 1.0]).0, 0);
    }
}
