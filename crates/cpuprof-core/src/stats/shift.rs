//! Hodges–Lehmann estimate of the shift B − A and its distribution-free confidence
//! interval (Moses): the order statistics of the n_A·n_B pairwise differences b_j − a_i
//! cut where the Mann–Whitney null distribution of U puts alpha/2 in each tail.
//!
//! The pairwise differences are never materialised (100k calls per side would make
//! 10^10 of them): the k-th smallest is found by bisection on the value, counting the
//! differences at or below a bound in O(n_A + n_B) over the sorted samples, then snapped
//! to the largest actual difference not above the bound.

use super::mann_whitney::{u_null_cdf, EXACT_MAX_N};
use super::normal::normal_quantile;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShiftEstimate {
    /// Median of the pairwise differences b_j − a_i (same unit as the samples).
    pub shift: f64,
    /// Confidence interval of the shift at level 1 − alpha; None when the counts are too
    /// small for any finite distribution-free interval at that level.
    pub ci: Option<(f64, f64)>,
}

/// Shift of `b` against `a` with a (1 − alpha) interval. None when either is empty or
/// holds a non-finite value.
pub fn hodges_lehmann(a: &[f64], b: &[f64], alpha: f64) -> Option<ShiftEstimate> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable_by(f64::total_cmp);
    b.sort_unstable_by(f64::total_cmp);
    let mn = a.len() as u64 * b.len() as u64;
    let shift = if mn % 2 == 1 {
        kth_sorted(&a, &b, mn.div_ceil(2))
    } else {
        0.5 * (kth_sorted(&a, &b, mn / 2) + kth_sorted(&a, &b, mn / 2 + 1))
    };
    let ci = ci_rank(a.len(), b.len(), alpha)
        .map(|k| (kth_sorted(&a, &b, k), kth_sorted(&a, &b, mn + 1 - k)));
    Some(ShiftEstimate { shift, ci })
}

/// Null distributions of U by sample sizes (P(U ≤ u) for every u).
type CdfCache = std::collections::HashMap<(usize, usize), std::rc::Rc<Vec<f64>>>;

/// The 1-based rank k of the interval's lower end: the largest k with P(U ≤ k − 1) ≤ alpha/2
/// (exact null distribution for counts up to [`EXACT_MAX_N`] per side, else the normal
/// approximation k = floor(mn/2 − z·sqrt(mn(N+1)/12))). None when not even k = 1 qualifies.
pub(crate) fn ci_rank(n_a: usize, n_b: usize, alpha: f64) -> Option<u64> {
    let mn = (n_a * n_b) as u64;
    if !(alpha > 0.0 && alpha < 1.0) {
        return None;
    }
    let k = if n_a <= EXACT_MAX_N && n_b <= EXACT_MAX_N {
        // Rows of one comparison mostly share their counts: count each null distribution once.
        thread_local! {
            static CDFS: std::cell::RefCell<CdfCache> = Default::default();
        }
        let cdf = CDFS.with(|c| {
            c.borrow_mut()
                .entry((n_a, n_b))
                .or_insert_with(|| std::rc::Rc::new(u_null_cdf(n_a, n_b)))
                .clone()
        });
        // P(U ≤ k-1) grows with k; the largest k with P(U ≤ k-1) ≤ alpha/2 (k ≤ mn/2).
        let mut k = 0u64;
        while k < mn / 2 && cdf[k as usize] <= alpha / 2.0 {
            k += 1;
        }
        k
    } else {
        let z = normal_quantile(alpha / 2.0);
        let (m, n) = (n_a as f64, n_b as f64);
        let k = (m * n / 2.0 - z * (m * n * (m + n + 1.0) / 12.0).sqrt()).floor();
        if k < 1.0 {
            0
        } else {
            k as u64
        }
    };
    (k >= 1).then_some(k)
}

/// The k-th smallest (1-based) of the pairwise differences b_j − a_i.
pub fn kth_pairwise_difference(a: &[f64], b: &[f64], k: u64) -> Option<f64> {
    let mn = a.len() as u64 * b.len() as u64;
    if k == 0 || k > mn || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable_by(f64::total_cmp);
    b.sort_unstable_by(f64::total_cmp);
    Some(kth_sorted(&a, &b, k))
}

/// Differences b_j − a_i at or below `t` (a, b sorted ascending). As b_j grows, the set of
/// a_i with b_j − a_i ≤ t can only shrink from the left, so one pointer suffices.
fn count_le(a: &[f64], b: &[f64], t: f64) -> u64 {
    let mut i = 0usize; // first a_i with b_j - a_i <= t
    let mut count = 0u64;
    for &bj in b {
        while i < a.len() && bj - a[i] > t {
            i += 1;
        }
        count += (a.len() - i) as u64;
    }
    count
}

/// The largest actual difference b_j − a_i that is ≤ t (None if none is).
fn largest_le(a: &[f64], b: &[f64], t: f64) -> Option<f64> {
    let mut i = 0usize;
    let mut best: Option<f64> = None;
    for &bj in b {
        while i < a.len() && bj - a[i] > t {
            i += 1;
        }
        if i < a.len() {
            let d = bj - a[i];
            best = Some(best.map_or(d, |x: f64| x.max(d)));
        }
    }
    best
}

fn kth_sorted(a: &[f64], b: &[f64], k: u64) -> f64 {
    let lo_d = b[0] - a[a.len() - 1];
    let hi_d = b[b.len() - 1] - a[0];
    if count_le(a, b, lo_d) >= k {
        return lo_d;
    }
    // Invariant: count_le(lo) < k <= count_le(hi).
    let (mut lo, mut hi) = (lo_d, hi_d);
    for _ in 0..200 {
        let mid = lo + (hi - lo) / 2.0;
        // Adjacent floats, or close enough that at most a few differences lie between
        // (snapping below finds the actual one): ~40 rounds instead of ~60-1000.
        if mid <= lo || mid >= hi || (hi - lo) <= 1e-12 * hi.abs().max(lo.abs()) {
            break;
        }
        if count_le(a, b, mid) >= k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    largest_le(a, b, hi).unwrap_or(hi)
}
