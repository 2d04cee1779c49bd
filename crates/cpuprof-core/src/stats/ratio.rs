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
    a.sort_unstable_by(f64::total_cmp);
    b.sort_unstable_by(f64::total_cmp);
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

/// The pairwise ratios of two sorted non-negative samples, each held as its distinct
/// values with their counts (durations repeat: a clock quantum, a dump of repeated runs),
/// so counting costs O(distinct values), not O(samples).
struct Ratios {
    /// The distinct positive values of A, ascending, with their counts.
    a_pos: Vec<(f64, u64)>,
    /// The distinct values of B, ascending ...
    b: Vec<f64>,
    /// ... and `b_before[j]`: how many samples of B lie below `b[j]` (`b_before[len]`:
    /// all of them).
    b_before: Vec<u64>,
    /// Pairs of a zero in A with a zero in B: ratio 1.
    zero_pairs: u64,
}

/// Distinct values of a sorted slice with their counts.
fn runs(sorted: &[f64]) -> Vec<(f64, u64)> {
    let mut out: Vec<(f64, u64)> = Vec::new();
    for &x in sorted {
        match out.last_mut() {
            Some((v, n)) if v.to_bits() == x.to_bits() => *n += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

/// Ratios at or below a bound: counted with their multiplicity, and as distinct
/// (value of A, value of B) pairs (what listing them would take).
#[derive(Debug, Clone, Copy)]
struct Count {
    ratios: u64,
    pairs: u64,
}

impl Ratios {
    fn new(a: &[f64], b: &[f64]) -> Self {
        let za = a.partition_point(|&x| x == 0.0);
        let zb = b.partition_point(|&x| x == 0.0);
        let b_runs = runs(b);
        let mut b_before = Vec::with_capacity(b_runs.len() + 1);
        let mut seen = 0u64;
        for &(_, n) in &b_runs {
            b_before.push(seen);
            seen += n;
        }
        b_before.push(seen);
        Ratios {
            a_pos: runs(&a[za..]),
            b: b_runs.into_iter().map(|(v, _)| v).collect(),
            b_before,
            zero_pairs: za as u64 * zb as u64,
        }
    }

    /// Ratios at or below `t` (finite, ≥ 0). For a_i > 0 the ratio b_j / a_i grows with
    /// b_j and shrinks as a_i grows (IEEE division is monotone in both), so the count of
    /// b_j with b_j / a_i ≤ t only grows with i: one pointer.
    fn count_le(&self, t: f64) -> Count {
        let mut j = 0usize;
        let mut count = Count {
            ratios: 0,
            pairs: 0,
        };
        for &(ai, na) in &self.a_pos {
            while j < self.b.len() && self.b[j] / ai <= t {
                j += 1;
            }
            count.ratios += na * self.b_before[j];
            count.pairs += j as u64;
        }
        if t >= 1.0 {
            count.ratios += self.zero_pairs;
            count.pairs += 1;
        }
        count
    }

    /// The k-th smallest ratio (1-based); +∞ when fewer than k ratios are finite.
    fn kth(&self, k: u64) -> f64 {
        // Few enough distinct pairs in the window to list: a few per value.
        let few = 4 * (self.a_pos.len() + self.b.len()) as u64 + 64;
        self.kth_listing_below(k, few)
    }

    /// [`Self::kth`], bisecting until at most `few` distinct pairs are left between the
    /// bounds, whose ratios are then listed and the one wanted found (0: bisect to the
    /// end).
    fn kth_listing_below(&self, k: u64, few: u64) -> f64 {
        let c_max = self.count_le(f64::MAX);
        if c_max.ratios < k {
            return f64::INFINITY;
        }
        let c_zero = self.count_le(0.0);
        if c_zero.ratios >= k {
            return 0.0;
        }
        // Smallest t (by bits: non-negative floats order as their bits) with at least k
        // ratios at or below it.
        let (mut lo, mut hi) = (0u64, f64::MAX.to_bits());
        // Invariant: c_lo = count_le(lo) < k <= count_le(hi) = c_hi.
        let (mut c_lo, mut c_hi) = (c_zero, c_max);
        while hi - lo > 1 {
            if c_hi.pairs - c_lo.pairs <= few {
                return self.kth_between(f64::from_bits(lo), f64::from_bits(hi), k - c_lo.ratios);
            }
            let mid = lo + (hi - lo) / 2;
            let c = self.count_le(f64::from_bits(mid));
            if c.ratios >= k {
                (hi, c_hi) = (mid, c);
            } else {
                (lo, c_lo) = (mid, c);
            }
        }
        f64::from_bits(hi)
    }

    /// The j-th smallest (1-based) of the ratios in (lo, hi]: each distinct pair listed
    /// once with its multiplicity (the same divisions as [`Self::count_le`], so the same
    /// values), the pairs of zeros as ratios of 1.
    fn kth_between(&self, lo: f64, hi: f64, j: u64) -> f64 {
        let mut listed: Vec<(f64, u64)> = Vec::new();
        let (mut from, mut to) = (0usize, 0usize);
        for &(ai, na) in &self.a_pos {
            while from < self.b.len() && self.b[from] / ai <= lo {
                from += 1;
            }
            while to < self.b.len() && self.b[to] / ai <= hi {
                to += 1;
            }
            listed.extend((from..to).map(|q| {
                let nb = self.b_before[q + 1] - self.b_before[q];
                (self.b[q] / ai, na * nb)
            }));
        }
        if lo < 1.0 && 1.0 <= hi && self.zero_pairs > 0 {
            listed.push((1.0, self.zero_pairs));
        }
        listed.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        let mut seen = 0u64;
        for (r, n) in listed {
            seen += n;
            if seen >= j {
                return r;
            }
        }
        // Unreachable while the counts hold (j ratios lie in the window); the bound is
        // then the smallest with enough ratios at or below it.
        hi
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

    /// Listing the last few ratios gives what bisecting to the end gives, and both what
    /// sorting every ratio gives, on samples with ties, zeros and sizes where the
    /// listing starts after many rounds or at once.
    #[test]
    fn listing_the_window_equals_bisection_and_brute_force() {
        let mut rng = cpuprof_testkit::rng::XorShift::new(0x9E37_79B9_7F4A_7C15);
        let mut next = |n: u64| rng.below(n);
        for round in 0..60 {
            let (n, m) = (1 + next(40) as usize, 1 + next(40) as usize);
            let sample = |next: &mut dyn FnMut(u64) -> u64, len: usize| -> Vec<f64> {
                (0..len)
                    .map(|_| match next(10) {
                        0 => 0.0,
                        1 => 1.0,
                        _ => next(5000) as f64 / 1e6 + if round % 2 == 0 { 0.0 } else { 0.1 },
                    })
                    .collect()
            };
            let mut a = sample(&mut next, n);
            let mut b = sample(&mut next, m);
            a.sort_by(f64::total_cmp);
            b.sort_by(f64::total_cmp);
            let r = Ratios::new(&a, &b);
            let mn = (n * m) as u64;
            for k in [1, 2, mn / 3 + 1, mn.div_ceil(2), mn / 2 + 1, mn - 1, mn] {
                let k = k.clamp(1, mn);
                let want = brute(&a, &b, k);
                for few in [0, 1, 7, 50, u64::MAX] {
                    let got = r.kth_listing_below(k, few);
                    assert!(
                        got.to_bits() == want.to_bits(),
                        "round {round} k {k} few {few}: {got} vs {want}"
                    );
                }
                assert_eq!(r.kth(k).to_bits(), want.to_bits());
            }
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
