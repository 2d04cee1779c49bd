//! Two-sided Mann–Whitney U test (Wilcoxon rank-sum) of two independent samples.
//!
//! Method (recorded in every comparison's `method` string):
//! - **Exact** when both samples have at most [`EXACT_MAX_N`] values: the p-value comes
//!   from the exact permutation distribution of A's rank sum given the pooled ranks. With
//!   no ties this is the classic exact null distribution of U (scipy
//!   `mannwhitneyu(method="exact")`); with ties (XNNPACK reports whole microseconds) the
//!   midranks are used and the distribution is the exact one conditional on the observed
//!   ties (scipy `mannwhitneyu(method=PermutationMethod())` when it enumerates every
//!   split). Ranks are doubled so midranks are integers, and the distribution is counted
//!   by dynamic programming over (values taken, rank sum): at most 40 × 20 × 1,600 steps.
//!   p = min(1, 2 · min(P(R ≤ r), P(R ≥ r))).
//! - **Normal approximation** otherwise, with the tie correction of the variance and a
//!   continuity correction of 0.5 (scipy `method="asymptotic", use_continuity=True`).
//!
//! `u_a` is U of sample A: R_A − n_A(n_A + 1)/2 (scipy's `statistic` for `x = A`).

use super::normal::normal_sf;

/// Largest per-side count for which the exact distribution is used.
pub const EXACT_MAX_N: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MwMethod {
    /// Exact distribution, no ties.
    Exact,
    /// Exact distribution conditional on the observed ties.
    ExactTies,
    /// Normal approximation, tie- and continuity-corrected.
    Normal,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MannWhitney {
    pub u_a: f64,
    pub p_value: f64,
    pub method: MwMethod,
}

/// The test of `a` against `b`; None when either is empty or holds a NaN.
pub fn mann_whitney_u(a: &[f64], b: &[f64]) -> Option<MannWhitney> {
    let (n_a, n_b) = (a.len(), b.len());
    if n_a == 0 || n_b == 0 || a.iter().chain(b).any(|x| x.is_nan()) {
        return None;
    }
    // Pool, sort, assign doubled midranks (integers: first + last rank of a tie group).
    let mut pooled: Vec<(f64, bool)> = a
        .iter()
        .map(|&x| (x, true))
        .chain(b.iter().map(|&x| (x, false)))
        .collect();
    pooled.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
    let n = pooled.len();
    let mut rank2 = vec![0u64; n];
    let mut tie_term = 0.0f64; // sum of t^3 - t over tie groups
    let mut i = 0;
    while i < n {
        let mut j = i + 1;
        while j < n && pooled[j].0 == pooled[i].0 {
            j += 1;
        }
        // 1-based ranks i+1 ..= j; midrank doubled = (i+1) + j.
        let r2 = (i + 1 + j) as u64;
        rank2[i..j].fill(r2);
        let t = (j - i) as f64;
        tie_term += t * t * t - t;
        i = j;
    }
    let r_a2: u64 = pooled
        .iter()
        .zip(&rank2)
        .filter(|(p, _)| p.1)
        .map(|(_, &r)| r)
        .sum();
    let u_a = r_a2 as f64 / 2.0 - (n_a * (n_a + 1)) as f64 / 2.0;
    let has_ties = tie_term > 0.0;

    if n_a <= EXACT_MAX_N && n_b <= EXACT_MAX_N {
        let dist = rank_sum_distribution(&rank2, n_a);
        let total: f64 = dist.iter().sum();
        let idx = r_a2 as usize;
        let le: f64 = dist[..=idx.min(dist.len() - 1)].iter().sum();
        let ge: f64 = dist[idx.min(dist.len())..].iter().sum();
        let p = (2.0 * le.min(ge) / total).min(1.0);
        return Some(MannWhitney {
            u_a,
            p_value: p,
            method: if has_ties {
                MwMethod::ExactTies
            } else {
                MwMethod::Exact
            },
        });
    }

    let p = normal_p_value(u_a, n_a, n_b, tie_term);
    Some(MannWhitney {
        u_a,
        p_value: p,
        method: MwMethod::Normal,
    })
}

/// Number of ways to choose `k` of the values whose doubled ranks are `rank2`, by doubled
/// rank sum (index = sum). Counts stay below C(40, 20) ≈ 1.4e11, exact in f64.
fn rank_sum_distribution(rank2: &[u64], k: usize) -> Vec<f64> {
    let max_sum: usize = {
        let mut r: Vec<u64> = rank2.to_vec();
        r.sort_unstable_by(|x, y| y.cmp(x));
        r.iter().take(k).sum::<u64>() as usize
    };
    let width = max_sum + 1;
    // dp[c * width + s]: subsets of size c with sum s.
    let mut dp = vec![0.0f64; (k + 1) * width];
    dp[0] = 1.0;
    let mut reach = 0usize; // largest sum reachable so far
    for (i, &r) in rank2.iter().enumerate() {
        let r = r as usize;
        let top = (i + 1).min(k);
        for c in (1..=top).rev() {
            let (lower, upper) = dp.split_at_mut(c * width);
            let prev = &lower[(c - 1) * width..c * width];
            let cur = &mut upper[..width];
            let hi = reach.min(max_sum.saturating_sub(r));
            for s in 0..=hi {
                let v = prev[s];
                if v != 0.0 {
                    cur[s + r] += v;
                }
            }
        }
        reach = (reach + r).min(max_sum);
    }
    dp[k * width..].to_vec()
}

/// P(U ≤ u) for u = 0, 1, …, n_a·n_b under the null, without ties (exact counting; used
/// for the confidence interval of the shift).
pub fn u_null_cdf(n_a: usize, n_b: usize) -> Vec<f64> {
    // Doubled ranks 2, 4, …, 2N; U = R − n_a(n_a+1)/2, so doubled sums step by 2.
    let rank2: Vec<u64> = (1..=(n_a + n_b) as u64).map(|r| 2 * r).collect();
    let dist = rank_sum_distribution(&rank2, n_a);
    let total: f64 = dist.iter().sum();
    let offset = n_a * (n_a + 1);
    let mut out = Vec::with_capacity(n_a * n_b + 1);
    let mut acc = 0.0;
    for u in 0..=n_a * n_b {
        acc += dist.get(offset + 2 * u).copied().unwrap_or(0.0);
        out.push(acc / total);
    }
    out
}

/// The smallest two-sided p-value any data can give with these counts: both samples fully
/// separated, 2 / C(n_a + n_b, n_a) (exact test, no ties). When this exceeds alpha, no
/// change can be detected at all: the verdict is `too_few_samples`.
pub fn min_attainable_p(n_a: usize, n_b: usize) -> f64 {
    if n_a == 0 || n_b == 0 {
        return 1.0;
    }
    // C(n, k) in log space is enough: only the comparison with alpha matters, and for
    // small counts (where it does) the product below is exact.
    let k = n_a.min(n_b);
    let n = n_a + n_b;
    let mut c = 1.0f64;
    for i in 0..k {
        c = c * (n - i) as f64 / (i + 1) as f64;
        if c > 1e300 {
            return 0.0;
        }
    }
    (2.0 / c).min(1.0)
}

/// The two-sided p-value of `u_a` (the U of a sample of `n_a` against `n_b`) by the
/// normal approximation with tie correction (`tie_term` = sum of t^3 - t over tie
/// groups) and continuity correction; 1 when every value ties.
pub fn normal_p_value(u_a: f64, n_a: usize, n_b: usize, tie_term: f64) -> f64 {
    let (fa, fb) = (n_a as f64, n_b as f64);
    let fnn = fa + fb;
    let mu = fa * fb / 2.0;
    let var = fa * fb / 12.0 * ((fnn + 1.0) - tie_term / (fnn * (fnn - 1.0)));
    if var <= 0.0 {
        1.0
    } else {
        let u = u_a.max(fa * fb - u_a);
        let z = (u - mu - 0.5) / var.sqrt();
        (2.0 * normal_sf(z)).min(1.0)
    }
}
