//! Summary statistics over samples in milliseconds.
//!
//! Percentiles follow numpy's default (linear) rule, as the ExecuTorch Inspector does, so
//! the median of an even count is the mean of the two middle samples.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Stats {
    pub count: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub p10: f64,
    pub p90: f64,
    pub p99: f64,
    /// Population standard deviation (numpy's default ddof=0).
    pub stddev: f64,
    /// Kept-run samples, in run order.
    pub samples: super::Samples,
    /// For each sample, the index of its run among all runs (warm-ups included). Empty
    /// when every kept run has a sample (sample i is then from run warmup + i).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<usize>,
    /// Samples of the dropped warm-up runs, in run order (for the per-run view).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warmup_samples: Vec<f64>,
}

impl Stats {
    /// Statistics of `samples` (run order kept). Empty input gives zeros and count 0.
    pub fn from_samples(samples: Vec<f64>) -> Stats {
        Stats::from_samples_with(samples, &mut Vec::new())
    }

    /// [`Stats::from_samples`] with a scratch buffer the caller may reuse across calls.
    ///
    /// The percentiles need a handful of order statistics, not a sorted copy: they are
    /// selected (`select_nth_unstable_by` under `f64::total_cmp`, a total order in which
    /// equal means bit-identical), so every figure is bit for bit what sorting gives.
    pub fn from_samples_with(samples: Vec<f64>, scratch: &mut Vec<f64>) -> Stats {
        scratch.clear();
        scratch.extend_from_slice(&samples);
        Stats::assemble(samples, |positions| {
            order_statistics(scratch, positions, f64::total_cmp)
        })
    }

    /// [`Stats::from_samples`] for samples made from integer keys by a non-decreasing
    /// map: `samples[i] == to_value(keys[i])` (e.g. whole ns and `ns as f64 / 1e6`).
    /// Order statistics are selected among the keys (`keys` is reordered), which is faster
    /// than among floats; a non-decreasing map sends the k-th smallest key to the k-th
    /// smallest sample, so every figure is bit for bit what sorting the samples gives.
    pub fn from_samples_keyed<K: Copy + Ord>(
        samples: Vec<f64>,
        keys: &mut [K],
        to_value: impl Fn(K) -> f64,
    ) -> Stats {
        debug_assert_eq!(samples.len(), keys.len());
        Stats::assemble(samples, |positions| {
            order_statistics(keys, positions, K::cmp)
                .into_iter()
                .map(to_value)
                .collect()
        })
    }

    /// The statistics of `samples`, given a way to find the values at ascending sorted
    /// positions.
    fn assemble(samples: Vec<f64>, select: impl FnOnce(&[usize]) -> Vec<f64>) -> Stats {
        let n = samples.len();
        if n == 0 {
            return Stats::default();
        }
        let mean = samples.iter().sum::<f64>() / n as f64;
        let var = samples.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        let qs = [10.0, 50.0, 90.0, 99.0];
        // Positions (lo, hi) of each percentile, plus the ends.
        let mut positions: Vec<usize> = vec![0, n - 1];
        for &q in &qs {
            let (lo, hi, _) = percentile_position(n, q);
            positions.push(lo);
            positions.push(hi);
        }
        positions.sort_unstable();
        positions.dedup();
        let values = select(&positions);
        let at = |k: usize| values[positions.binary_search(&k).unwrap_or(0)];
        let pct = |q: f64| {
            let (lo, hi, frac) = percentile_position(n, q);
            lerp(at(lo), at(hi), frac)
        };
        Stats {
            count: n,
            median: pct(50.0),
            min: at(0),
            max: at(n - 1),
            mean,
            p10: pct(10.0),
            p90: pct(90.0),
            p99: pct(99.0),
            stddev: var.sqrt(),
            samples: samples.into(),
            runs: Vec::new(),
            warmup_samples: Vec::new(),
        }
    }

    pub fn with_runs(mut self, runs: Vec<usize>) -> Stats {
        self.runs = runs;
        self
    }

    pub fn with_warmup(mut self, warmup: Vec<f64>) -> Stats {
        self.warmup_samples = warmup;
        self
    }

    pub fn total(&self) -> f64 {
        self.samples.iter().sum()
    }
}

/// numpy.percentile(..., method="linear") on already sorted, non-empty data.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    debug_assert!(n > 0);
    let (lo, hi, frac) = percentile_position(n, q);
    lerp(sorted[lo], sorted[hi], frac)
}

/// numpy.percentile(..., method="linear") of non-empty `values`, which are reordered
/// (selection, not a sort: bit for bit [`percentile_sorted`] of the sorted values).
pub fn percentile_select(values: &mut [f64], q: f64) -> f64 {
    let n = values.len();
    debug_assert!(n > 0);
    let (lo, hi, frac) = percentile_position(n, q);
    let v = order_statistics(values, &[lo, hi], f64::total_cmp);
    lerp(v[0], v[v.len() - 1], frac)
}

/// The two sorted positions a percentile lies between, and how far between.
fn percentile_position(n: usize, q: f64) -> (usize, usize, f64) {
    let pos = (n - 1) as f64 * q / 100.0;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    (lo, hi, pos - lo as f64)
}

/// numpy's lerp form: exact at the ends and symmetric.
fn lerp(a: f64, b: f64, frac: f64) -> f64 {
    if frac >= 0.5 {
        b - (b - a) * (1.0 - frac)
    } else {
        a + (b - a) * frac
    }
}

/// The values at `positions` (ascending, distinct or not) of `values` as if it were
/// sorted by `cmp`; `values` is reordered. Each selection runs on the part right of the
/// previous one, so a few order statistics cost a few linear passes.
fn order_statistics<T: Copy>(
    values: &mut [T],
    positions: &[usize],
    cmp: impl Fn(&T, &T) -> std::cmp::Ordering + Copy,
) -> Vec<T> {
    let mut out = Vec::with_capacity(positions.len());
    let mut from = 0;
    let mut last: Option<(usize, T)> = None;
    for &p in positions {
        if let Some((lp, lv)) = last {
            if lp == p {
                out.push(lv);
                continue;
            }
        }
        // Everything left of `from` is <= everything from `from` on.
        let rest = &mut values[from..];
        let v = if p == from {
            // The smallest of the rest: one scan, no partition.
            let k = (0..rest.len())
                .min_by(|&a, &b| cmp(&rest[a], &rest[b]))
                .unwrap_or(0);
            rest.swap(0, k);
            rest[0]
        } else {
            *rest.select_nth_unstable_by(p - from, cmp).1
        };
        out.push(v);
        last = Some((p, v));
        from = p + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_count_is_mean_of_middle_two() {
        let s = Stats::from_samples(vec![4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.median, 2.5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 4.0);
        assert_eq!(s.mean, 2.5);
    }

    #[test]
    fn percentiles_match_numpy_linear_rule() {
        // numpy.percentile([1..10], [10, 90, 99]) = 1.9, 9.1, 9.91 (hand-checked:
        // positions 0.9, 8.1, 8.91 on 0-based sorted data).
        let s = Stats::from_samples((1..=10).map(f64::from).collect());
        assert!((s.p10 - 1.9).abs() < 1e-12);
        assert!((s.p90 - 9.1).abs() < 1e-12);
        assert!((s.p99 - 9.91).abs() < 1e-12);
        assert_eq!(s.median, 5.5);
        // population stddev of 1..10 = sqrt(8.25)
        assert!((s.stddev - 8.25f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn single_sample_and_empty() {
        let s = Stats::from_samples(vec![0.25]);
        assert_eq!((s.median, s.p10, s.p99, s.stddev), (0.25, 0.25, 0.25, 0.0));
        let e = Stats::from_samples(vec![]);
        assert_eq!(e.count, 0);
    }

    #[test]
    fn samples_keep_run_order() {
        let s = Stats::from_samples(vec![3.0, 1.0, 2.0]);
        assert_eq!(s.samples, vec![3.0, 1.0, 2.0]);
        assert_eq!(s.median, 2.0);
    }

    /// The figures of `samples` the slow way: a full sort, then numpy's rule.
    fn by_sorting(samples: &[f64]) -> [u64; 6] {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        [
            sorted[0],
            sorted[n - 1],
            percentile_sorted(&sorted, 10.0),
            percentile_sorted(&sorted, 50.0),
            percentile_sorted(&sorted, 90.0),
            percentile_sorted(&sorted, 99.0),
        ]
        .map(f64::to_bits)
    }

    fn figures(s: &Stats) -> [u64; 6] {
        [s.min, s.max, s.p10, s.median, s.p90, s.p99].map(f64::to_bits)
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// Selection gives bit for bit what sorting gives, ties, signed zeros and all.
        #[test]
        fn selection_is_sorting(samples in proptest::collection::vec(
            proptest::prop_oneof![
                (-3i32..4).prop_map(f64::from),
                proptest::num::f64::NORMAL,
                proptest::strategy::Just(-0.0),
            ],
            1..300,
        )) {
            let s = Stats::from_samples(samples.clone());
            proptest::prop_assert_eq!(figures(&s), by_sorting(&samples));
            proptest::prop_assert_eq!(&s.samples, &samples);
            let mut copy = samples.clone();
            proptest::prop_assert_eq!(
                percentile_select(&mut copy, 37.5).to_bits(),
                {
                    let mut sorted = samples.clone();
                    sorted.sort_by(f64::total_cmp);
                    percentile_sorted(&sorted, 37.5).to_bits()
                }
            );
        }

        /// Keys (whole ns) selected then mapped to ms give what sorting the ms gives.
        #[test]
        fn keyed_selection_is_sorting(ns in proptest::collection::vec(
            proptest::prop_oneof![0u32..50, proptest::num::u32::ANY],
            1..300,
        )) {
            let ms: Vec<f64> = ns.iter().map(|&n| n as f64 / 1e6).collect();
            let mut keys = ns.clone();
            let s = Stats::from_samples_keyed(ms.clone(), &mut keys, |n| n as f64 / 1e6);
            proptest::prop_assert_eq!(figures(&s), by_sorting(&ms));
            let plain = Stats::from_samples(ms.clone());
            proptest::prop_assert_eq!(s, plain);
        }
    }
}
