//! Summary statistics over samples in whole nanoseconds.
//!
//! Percentiles follow numpy's default (linear) rule, as the ExecuTorch Inspector does, so
//! the median of an even count is the mean of the two middle samples. Every figure is
//! computed on the ns (sums exact in integers, interpolation between two whole ns) and
//! made ms once at the end: the median of 31,184 and 31,186 ns is 0.031185 ms, where
//! interpolating between the two ms values gave 0.031184999999999997.

use serde::{Deserialize, Serialize};

use super::samples::{ns_to_ms, Samples};

/// The statistics of one row, over whole-ns samples, kept exact: the ends in ns, the
/// sum in ns, the percentiles in hundredths of a ns (numpy's linear rule between two
/// whole ns at a whole percent lands there), the standard deviation in ns. The methods
/// named as the contract's fields (`median()`, `p90()`, ...) give them in ms, the
/// `cpuprof.profile/1` unit, each rounded once; serialized, they are those ms.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stats {
    pub count: usize,
    pub min_ns: i64,
    pub max_ns: i64,
    /// The sum of the samples, exact.
    pub sum_ns: i128,
    /// The 10th, 50th, 90th and 99th percentiles, in hundredths of a ns.
    pub p10_cns: i128,
    pub median_cns: i128,
    pub p90_cns: i128,
    pub p99_cns: i128,
    /// Population standard deviation (numpy's default ddof=0), in ns.
    pub stddev_ns: f64,
    /// Kept-run samples, in run order.
    pub samples: Samples,
    /// For each sample, the index of its run among all runs (warm-ups included). Empty
    /// when every kept run has a sample (sample i is then from run warmup + i).
    pub runs: Vec<usize>,
    /// Samples of the dropped warm-up runs, in run order (for the per-run view).
    pub warmup_samples: Samples,
}

/// Hundredths of a ns as ms: one division, the exact value rounded once (below 2^53 /
/// 100 ns).
fn cns_to_ms(cns: i128) -> f64 {
    cns as f64 / 1e8
}

impl Stats {
    /// Statistics of `ns` (run order kept). Empty input gives zeros and count 0.
    pub fn from_ns(ns: Vec<i64>) -> Stats {
        Stats::from_ns_with(ns, &mut Vec::new())
    }

    /// Statistics of samples given in ms (a test, a figure read back), rounded to ns.
    pub fn from_ms(ms: &[f64]) -> Stats {
        Stats::from_ns(ms.iter().map(|&v| super::ms_to_ns(v)).collect())
    }

    /// [`Stats::from_ns`] with a scratch buffer the caller may reuse across calls.
    ///
    /// The percentiles need a handful of order statistics, not a sorted copy: they are
    /// selected (`select_nth_unstable`), so every figure is what sorting gives.
    pub fn from_ns_with(ns: Vec<i64>, scratch: &mut Vec<i64>) -> Stats {
        scratch.clear();
        scratch.extend_from_slice(&ns);
        Stats::assemble(ns, |positions| {
            order_statistics(scratch, positions, i64::cmp)
        })
    }

    /// [`Stats::from_ns`] where `keys` are the same samples in a narrower type
    /// (`ns[i] == to_ns(keys[i])`, a non-decreasing map: u32 ns, say). Order statistics
    /// are selected among the keys (`keys` is reordered), which is faster.
    pub fn from_ns_keyed<K: Copy + Ord>(
        ns: Vec<i64>,
        keys: &mut [K],
        to_ns: impl Fn(K) -> i64,
    ) -> Stats {
        debug_assert_eq!(ns.len(), keys.len());
        Stats::assemble(ns, |positions| {
            order_statistics(keys, positions, K::cmp)
                .into_iter()
                .map(to_ns)
                .collect()
        })
    }

    /// The statistics of `ns`, given a way to find the values at ascending sorted
    /// positions.
    fn assemble(ns: Vec<i64>, select: impl FnOnce(&[usize]) -> Vec<i64>) -> Stats {
        let n = ns.len();
        if n == 0 {
            return Stats::default();
        }
        // The sum is exact in i128; one division (correctly rounded) makes the mean.
        let sum: i128 = ns.iter().map(|&v| i128::from(v)).sum();
        let mean_ns = sum as f64 / n as f64;
        let var = ns
            .iter()
            .map(|&x| {
                let d = x as f64 - mean_ns;
                d * d
            })
            .sum::<f64>()
            / n as f64;
        // numpy's positions (n - 1) * q / 100 for whole percents q, in integers:
        // lo + num / 100.
        let position = |q: usize| {
            let whole = (n - 1) * q;
            let lo = whole / 100;
            (lo, (lo + 1).min(n - 1), (whole % 100) as i128)
        };
        let qs = [10, 50, 90, 99];
        // Positions (lo, hi) of each percentile, plus the ends.
        let mut positions: Vec<usize> = vec![0, n - 1];
        for &q in &qs {
            let (lo, hi, _) = position(q);
            positions.push(lo);
            positions.push(hi);
        }
        positions.sort_unstable();
        positions.dedup();
        let values = select(&positions);
        let at = |k: usize| values[positions.binary_search(&k).unwrap_or(0)];
        // The interpolation a + (b - a) * num / 100 made exact in integers (times 100).
        let pct = |q: usize| {
            let (lo, hi, num) = position(q);
            i128::from(at(lo)) * (100 - num) + i128::from(at(hi)) * num
        };
        Stats {
            count: n,
            min_ns: at(0),
            max_ns: at(n - 1),
            sum_ns: sum,
            p10_cns: pct(10),
            median_cns: pct(50),
            p90_cns: pct(90),
            p99_cns: pct(99),
            stddev_ns: var.sqrt(),
            samples: Samples::from_ns(ns),
            runs: Vec::new(),
            warmup_samples: Samples::default(),
        }
    }

    /// The median (ms).
    pub fn median(&self) -> f64 {
        cns_to_ms(self.median_cns)
    }

    pub fn p10(&self) -> f64 {
        cns_to_ms(self.p10_cns)
    }

    pub fn p90(&self) -> f64 {
        cns_to_ms(self.p90_cns)
    }

    pub fn p99(&self) -> f64 {
        cns_to_ms(self.p99_cns)
    }

    /// The fastest sample (ms).
    pub fn min(&self) -> f64 {
        ns_to_ms(self.min_ns)
    }

    /// The slowest sample (ms).
    pub fn max(&self) -> f64 {
        ns_to_ms(self.max_ns)
    }

    /// The mean (ms): the exact sum divided once.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let (sum, n) = (self.sum_ns, self.count as f64);
        if sum.unsigned_abs() < 1 << 53 {
            // Exact operands: the nearest double to sum / (n * 10^6) when n * 10^6 is
            // exact too.
            sum as f64 / (n * 1e6)
        } else {
            sum as f64 / n / 1e6
        }
    }

    /// The population standard deviation (ms).
    pub fn stddev(&self) -> f64 {
        self.stddev_ns / 1e6
    }

    pub fn with_runs(mut self, runs: Vec<usize>) -> Stats {
        self.runs = runs;
        self
    }

    pub fn with_warmup(mut self, warmup: Vec<i64>) -> Stats {
        self.warmup_samples = Samples::from_ns(warmup);
        self
    }

    /// The contract's form: the figures in ms.
    fn doc(&self) -> StatsDoc<'_> {
        StatsDoc {
            count: self.count,
            median: self.median(),
            min: self.min(),
            max: self.max(),
            mean: self.mean(),
            p10: self.p10(),
            p90: self.p90(),
            p99: self.p99(),
            stddev: self.stddev(),
            samples: &self.samples,
            runs: &self.runs,
            warmup_samples: &self.warmup_samples,
        }
    }

    /// The sum of several rows' medians (ms), exact: the hundredths of ns added as
    /// integers and made ms once (adding the ms doubles prints 0.014779000000000002 for
    /// 0.014779).
    pub fn median_sum<'a>(rows: impl IntoIterator<Item = &'a Stats>) -> f64 {
        cns_to_ms(rows.into_iter().map(|s| s.median_cns).sum())
    }

    /// The sum of several rows' means (ms). Rows over the same number of samples (the
    /// usual case: the kept runs) share the divisor, so the sum is the exact total over
    /// one division; otherwise the means are added as doubles.
    pub fn mean_sum(rows: &[&Stats]) -> f64 {
        let counted = || rows.iter().filter(|s| s.count > 0);
        let Some(n) = counted().next().map(|s| s.count) else {
            return 0.0;
        };
        let sum: i128 = counted().map(|s| s.sum_ns).sum();
        if counted().all(|s| s.count == n) && sum.unsigned_abs() < 1 << 53 {
            sum as f64 / (n as f64 * 1e6)
        } else {
            counted().map(|s| s.mean()).sum()
        }
    }

    /// The sum of the kept samples, in ms.
    pub fn total(&self) -> f64 {
        self.samples.total_ns() as f64 / 1e6
    }

    /// The sum of the kept samples, in ns.
    pub fn total_ns(&self) -> i128 {
        self.samples.total_ns()
    }
}

/// `Stats` as `cpuprof.profile/1` writes it (figures in ms).
#[derive(Serialize)]
struct StatsDoc<'a> {
    count: usize,
    median: f64,
    min: f64,
    max: f64,
    mean: f64,
    p10: f64,
    p90: f64,
    p99: f64,
    stddev: f64,
    samples: &'a Samples,
    #[serde(skip_serializing_if = "no_runs")]
    runs: &'a [usize],
    #[serde(skip_serializing_if = "no_samples")]
    warmup_samples: &'a Samples,
}

fn no_runs(runs: &&[usize]) -> bool {
    runs.is_empty()
}

fn no_samples(s: &&Samples) -> bool {
    s.is_empty()
}

impl Serialize for Stats {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.doc().serialize(s)
    }
}

/// `Stats` read back from `cpuprof.profile/1`: the exact figures again from the ms
/// (each was one rounding of an exact value, which the nearest integer undoes), the sum
/// from the samples.
#[derive(Deserialize)]
struct StatsIn {
    count: usize,
    median: f64,
    min: f64,
    max: f64,
    p10: f64,
    p90: f64,
    p99: f64,
    stddev: f64,
    samples: Samples,
    #[serde(default)]
    runs: Vec<usize>,
    #[serde(default)]
    warmup_samples: Samples,
}

impl<'de> Deserialize<'de> for Stats {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = StatsIn::deserialize(d)?;
        let cns = |ms: f64| (ms * 1e8).round() as i128;
        Ok(Stats {
            count: i.count,
            min_ns: super::ms_to_ns(i.min),
            max_ns: super::ms_to_ns(i.max),
            sum_ns: i.samples.total_ns(),
            p10_cns: cns(i.p10),
            median_cns: cns(i.median),
            p90_cns: cns(i.p90),
            p99_cns: cns(i.p99),
            stddev_ns: i.stddev * 1e6,
            samples: i.samples,
            runs: i.runs,
            warmup_samples: i.warmup_samples,
        })
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

    /// Sums of rows' medians and means are the exact decimal: 0.1 ms + 0.2 ms is 0.3 ms
    /// (the doubles add to 0.30000000000000004); 14,779 ns over three medians (one a
    /// half ns) is 0.014779 ms.
    #[test]
    fn sums_of_medians_and_means_are_exact() {
        let a = Stats::from_ns(vec![100_000, 100_000]);
        let b = Stats::from_ns(vec![199_999, 200_001]);
        assert_ne!(a.median() + b.median(), 0.3, "the doubles' sum is off");
        assert_eq!(Stats::median_sum([&a, &b]), 0.3);
        assert_eq!(Stats::mean_sum(&[&a, &b]), 0.3);
        // Medians 4,000.5 + 6,779 + 3,999.5 ns = 14,779 ns.
        let c = Stats::from_ns(vec![4_000, 4_001]);
        let d = Stats::from_ns(vec![6_779, 6_779]);
        let e = Stats::from_ns(vec![3_999, 4_000]);
        assert_eq!(Stats::median_sum([&c, &d, &e]), 0.014779);
        assert_eq!(Stats::mean_sum(&[&c, &d, &e]), 0.014779);
        // Different counts: the means' doubles added (1/3 ms + 1 ms).
        let f = Stats::from_ns(vec![0, 0, 1_000_000]);
        let g = Stats::from_ns(vec![1_000_000]);
        assert_eq!(Stats::mean_sum(&[&f, &g]), 1.0 / 3.0 + 1.0);
        assert_eq!(Stats::mean_sum(&[]), 0.0);
        assert_eq!(Stats::median_sum([]), 0.0);
    }

    #[test]
    fn median_of_even_count_is_mean_of_middle_two() {
        let s = Stats::from_ns(vec![4_000_000, 1_000_000, 3_000_000, 2_000_000]);
        assert_eq!(s.median(), 2.5);
        assert_eq!(s.min(), 1.0);
        assert_eq!(s.max(), 4.0);
        assert_eq!(s.mean(), 2.5);
    }

    #[test]
    fn a_median_between_two_ns_is_the_exact_decimal() {
        // numpy.percentile([0.031184, 0.031186], 50) prints 0.031184999999999997 (the
        // interpolation done on ms); on the ns it is 31,185 ns: 0.031185.
        let s = Stats::from_ns(vec![31_184, 31_186]);
        assert_eq!(s.median().to_string(), "0.031185");
        assert_eq!(s.mean().to_string(), "0.031185");
        let s = Stats::from_ns(vec![1, 2]);
        assert_eq!(s.median().to_string(), "0.0000015");
    }

    /// The figures are kept exact in integers: `numpy.percentile([1, 2, 4, 10], [10, 50,
    /// 90, 99])` prints 1.3, 3.0, 8.2, 9.82 (positions 0.3, 1.5, 2.7, 2.97): 130, 300,
    /// 820 and 982 hundredths of a ns; the sum 17 ns.
    #[test]
    fn figures_are_exact_integers_of_ns() {
        let s = Stats::from_ns(vec![10, 1, 4, 2]);
        assert_eq!(
            (s.p10_cns, s.median_cns, s.p90_cns, s.p99_cns),
            (130, 300, 820, 982)
        );
        assert_eq!((s.min_ns, s.max_ns, s.sum_ns), (1, 10, 17));
        assert_eq!(s.median(), 3e-6);
        assert_eq!(s.mean(), 4.25e-6);
    }

    /// Written as the contract's ms and read back, every figure is the same integer
    /// (the ms were one rounding of each): the serde form round-trips.
    #[test]
    fn the_contract_form_round_trips() {
        let samples: Vec<i64> = (0..1000)
            .map(|i| (i * 7919 % 100_003) as i64 + 31_184)
            .collect();
        let s = Stats::from_ns(samples)
            .with_runs((5..1005).collect())
            .with_warmup(vec![9, 8]);
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.starts_with("{\"count\":1000,\"median\":"), "{text}");
        let back: Stats = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn percentiles_match_numpy_linear_rule() {
        // numpy.percentile([1..10], [10, 90, 99]) = 1.9, 9.1, 9.91 (hand-checked:
        // positions 0.9, 8.1, 8.91 on 0-based sorted data).
        let s = Stats::from_ms(&(1..=10).map(f64::from).collect::<Vec<_>>());
        assert!((s.p10() - 1.9).abs() < 1e-12);
        assert!((s.p90() - 9.1).abs() < 1e-12);
        assert!((s.p99() - 9.91).abs() < 1e-12);
        assert_eq!(s.median(), 5.5);
        // population stddev of 1..10 = sqrt(8.25)
        assert!((s.stddev() - 8.25f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn single_sample_and_empty() {
        let s = Stats::from_ms(&[0.25]);
        assert_eq!(
            (s.median(), s.p10(), s.p99(), s.stddev()),
            (0.25, 0.25, 0.25, 0.0)
        );
        let e = Stats::from_ns(vec![]);
        assert_eq!(e.count, 0);
    }

    #[test]
    fn samples_keep_run_order() {
        let s = Stats::from_ns(vec![3, 1, 2]);
        assert_eq!(s.samples.ns(), [3, 1, 2]);
        assert_eq!(s.median(), 2e-6);
    }

    /// numpy's rule the slow way, on ns (a full sort, exact rationals): the percentile
    /// at `q` times 10^6 * 100 * (n - 1), as an integer, so no rounding enters.
    fn exact_percentile_scaled(sorted: &[i64], q: u32) -> i128 {
        let n = sorted.len() as i128;
        // pos = (n - 1) * q / 100 = lo + num / 100
        let whole = (n - 1) * i128::from(q);
        let lo = (whole / 100) as usize;
        let num = whole % 100;
        let hi = (lo + 1).min(sorted.len() - 1);
        i128::from(sorted[lo]) * (100 - num) + i128::from(sorted[hi]) * num
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        /// Every figure is within one rounding of the exact rational value (sorting,
        /// interpolation in integers), and the samples keep their order.
        #[test]
        fn figures_are_the_exact_values_rounded(ns in proptest::collection::vec(
            proptest::prop_oneof![
                (-3i64..4),
                (0i64..5_000_000_000),
                (-1_000_000i64..1_000_000),
            ],
            1..300,
        )) {
            let s = Stats::from_ns(ns.clone());
            let mut sorted = ns.clone();
            sorted.sort_unstable();
            proptest::prop_assert_eq!(s.min(), sorted[0] as f64 / 1e6);
            proptest::prop_assert_eq!(s.max(), sorted[sorted.len() - 1] as f64 / 1e6);
            for (q, got) in [(10, s.p10()), (50, s.median()), (90, s.p90()), (99, s.p99())] {
                // Exact below 2^53 (the scaled value converts without rounding).
                let want = exact_percentile_scaled(&sorted, q) as f64 / 1e8;
                proptest::prop_assert_eq!(got, want, "p{}", q);
            }
            let mean = ns.iter().map(|&v| i128::from(v)).sum::<i128>() as f64
                / ns.len() as f64 / 1e6;
            proptest::prop_assert!((s.mean() - mean).abs() <= mean.abs() * 4e-16 + 1e-18);
            proptest::prop_assert_eq!(s.samples.ns(), &ns[..]);
        }

        /// Keys (u32 ns) selected then widened give what the ns give.
        #[test]
        fn keyed_selection_is_plain_selection(ns in proptest::collection::vec(
            proptest::prop_oneof![0u32..50, proptest::num::u32::ANY],
            1..300,
        )) {
            let wide: Vec<i64> = ns.iter().map(|&n| i64::from(n)).collect();
            let mut keys = ns.clone();
            let s = Stats::from_ns_keyed(wide.clone(), &mut keys, i64::from);
            proptest::prop_assert_eq!(s, Stats::from_ns(wide));
        }

        /// Selection among f64 (for values that are not durations) is sorting.
        #[test]
        fn float_selection_is_sorting(values in proptest::collection::vec(
            proptest::prop_oneof![(-3i32..4).prop_map(f64::from), proptest::num::f64::NORMAL],
            1..300,
        )) {
            let mut copy = values.clone();
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            proptest::prop_assert_eq!(
                percentile_select(&mut copy, 37.5).to_bits(),
                percentile_sorted(&sorted, 37.5).to_bits()
            );
        }
    }
}
