//! Hodges–Lehmann estimate of the ratio B / A and its distribution-free interval: the
//! median of the n_A·n_B pairwise ratios b_j / a_i, and the interval between the k-th
//! smallest and the k-th largest of them, k cut where the Mann–Whitney null distribution
//! of U puts alpha/2 in each tail (the rank `shift` uses: on a log scale this is the
//! Moses interval of the shift of log b against log a).
//!
//! Why a ratio: a duration is positive, so its change is a factor. The estimate and the
//! interval come from the same order statistics of the same ratios, so the interval
//! always holds the estimate, and a ratio is never below 0: a change is never below
//! −100%.
//!
//! Zeros (a duration under the clock quantum reads 0): b_j / 0 is +∞ for b_j > 0, and a
//! pair of two zeros is a ratio of 1 (no change seen). An interval end at +∞ cannot be
//! given, nor one at 0 (a ratio of 0 is a B sample under the quantum: the samples cannot
//! bound the fall): the interval is then absent, never invented. The estimate itself is
//! absent when it would be +∞.
//!
//! The ratios are never materialised: the k-th smallest is found by bisection on the bits
//! of a non-negative f64 (which order as the values do), counting the ratios at or below
//! a bound in O(n_A + n_B); the smallest bound with at least k ratios at or below it is
//! itself one of the ratios, so the answer is exact (at most 64 rounds).

use super::shift::ci_rank;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioEstimate {
    /// Median of the pairwise ratios b_j / a_i (finite, ≥ 0).
    pub ratio: f64,
    /// Interval of the ratio at level 1 − alpha, ends finite and above 0; None when the
    /// counts are too small for a distribution-free interval at that level, or when an
    /// end would be 0 or +∞.
    pub ci: Option<(f64, f64)>,
}

/// Ratio of `b` against `a` with a (1 − alpha) interval. None when either side is empty,
/// holds a negative or non-finite value, or when the estimate is +∞ (most of A is 0).
pub fn ratio_estimate(a: &[f64], b: &[f64], alpha: f64) -> Option<RatioEstimate> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| !(x.is_finite() && *x >= 0.0)) {
        return None;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let r = Ratios::new(&a, &b);
    let mn = a.len() as u64 * b.len() as u64;
    let ratio = if mn % 2 == 1 {
        r.kth(mn.div_ceil(2))
    } else {
        0.5 * (r.kth(mn / 2) + r.kth(mn / 2 + 1))
    };
    if !ratio.is_finite() {
        return None;
    }
    let ci = ci_rank(a.len(), b.len(), alpha)
        .map(|k| (r.kth(k), r.kth(mn + 1 - k)))
        .filter(|&(lo, hi)| lo > 0.0 && hi.is_finite());
    Some(RatioEstimate { ratio, ci })
}

/// The pairwise ratios of two sorted non-negative samples.
struct Ratios<'a> {
    /// The positive values of A, ascending.
    a_pos: &'a [f64],
    b: &'a [f64],
    /// Pairs of a zero in A with a zero in B: ratio 1.
    zero_pairs: u64,
}

impl<'a> Ratios<'a> {
    fn new(a: &'a [f64], b: &'a [f64]) -> Self {
        let za = a.partition_point(|&x| x == 0.0);
        let zb = b.partition_point(|&x| x == 0.0);
        Ratios {
            a_pos: &a[za..],
            b,
            zero_pairs: za as u64 * zb as u64,
        }
    }

    /// Ratios at or below `t` (finite, ≥ 0). For a_i > 0 the ratio b_j / a_i grows with
    /// b_j and shrinks as a_i grows (IEEE division is monotone in both), so the count of
    /// b_j with b_j / a_i ≤ t only grows with i: one pointer.
    fn count_le(&self, t: f64) -> u64 {
        let mut j = 0usize;
        let mut count = 0u64;
        for &ai in self.a_pos {
            while j < self.b.len() && self.b[j] / ai <= t {
                j += 1;
            }
            count += j as u64;
        }
        if t >= 1.0 {
            count += self.zero_pairs;
        }
        count
    }

    /// The k-th smallest ratio (1-based); +∞ when fewer than k ratios are finite.
    fn kth(&self, k: u64) -> f64 {
        if self.count_le(f64::MAX) < k {
            return f64::INFINITY;
        }
        // Smallest t (by bits: non-negative floats order as their bits) with at least k
        // ratios at or below it.
        let (mut lo, mut hi) = (0u64, f64::MAX.to_bits());
        if self.count_le(0.0) >= k {
            return 0.0;
        }
        // Invariant: count_le(lo) < k <= count_le(hi).
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.count_le(f64::from_bits(mid)) >= k {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        f64::from_bits(hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over the materialised ratios, with the same conventions.
    fn brute(a: &[f64], b: &[f64], k: u64) -> f64 {
        let mut r: Vec<f64> = Vec::new();
        for &x in a {
            for &y in b {
                r.push(match (x == 0.0, y == 0.0) {
                    (true, true) => 1.0,
                    (true, false) => f64::INFINITY,
                    _ => y / x,
                });
            }
        }
        r.sort_by(f64::total_cmp);
        r[k as usize - 1]
    }

    #[test]
    fn kth_ratio_equals_brute_force() {
        let a = [0.0, 1.0, 2.0, 2.0, 3.5];
        let b = [0.0, 0.5, 2.0, 4.0];
        let mut a_s = a.to_vec();
        let mut b_s = b.to_vec();
        a_s.sort_by(f64::total_cmp);
        b_s.sort_by(f64::total_cmp);
        let r = Ratios::new(&a_s, &b_s);
        for k in 1..=20 {
            let (x, y) = (r.kth(k), brute(&a, &b, k));
            assert!(x == y, "k {k}: {x} vs {y}");
        }
    }

    #[test]
    fn estimate_sits_in_its_interval_and_above_zero() {
        // 8 against 8: B = 1.5 A exactly; every ratio b_j/a_i, median 1.5 · (median of
        // a_j/a_i) = 1.5.
        let a: Vec<f64> = (1..=8).map(|i| 10.0 + i as f64).collect();
        let b: Vec<f64> = a.iter().map(|x| x * 1.5).collect();
        let e = ratio_estimate(&a, &b, 0.05).unwrap();
        assert!((e.ratio - 1.5).abs() < 1e-12);
        let (lo, hi) = e.ci.unwrap();
        assert!(lo > 0.0 && lo <= e.ratio && e.ratio <= hi);
        // 2 against 2: no distribution-free 95% interval exists.
        assert!(ratio_estimate(&[1.0, 2.0], &[3.0, 4.0], 0.05)
            .unwrap()
            .ci
            .is_none());
        // Negative samples are not durations.
        assert!(ratio_estimate(&[-1.0, 2.0], &[3.0], 0.05).is_none());
    }
}
