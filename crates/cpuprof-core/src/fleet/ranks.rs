//! Mann–Whitney tests of unions of sample groups against the rest, with the pooled ranks
//! computed once: a row's samples across all profiles are ranked a single time, and each
//! test (one profile against the others, the profiles before a split against those
//! after) is its groups' rank sums. Large sides use the normal approximation with the
//! tie and continuity corrections of `stats::mann_whitney_u`; when both sides have at
//! most `EXACT_MAX_N` samples the test is `stats::mann_whitney_u` itself (exact).

use crate::stats::{mann_whitney_u, EXACT_MAX_N};

/// The pooled ranks of some groups of samples (whole ns).
#[derive(Debug, Clone)]
pub struct RankedPool<'a> {
    groups: Vec<&'a [u64]>,
    /// Sum of doubled midranks per group.
    rank2_sum: Vec<u64>,
    n: usize,
    /// Sum of t³ − t over tie groups of the pool.
    tie_term: f64,
}

/// One test: its two-sided p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    pub p_value: f64,
}

impl<'a> RankedPool<'a> {
    pub fn new(groups: Vec<&'a [u64]>) -> RankedPool<'a> {
        let mut pooled: Vec<(u64, u32)> = groups
            .iter()
            .enumerate()
            .flat_map(|(g, s)| s.iter().map(move |&v| (v, g as u32)))
            .collect();
        pooled.sort_unstable();
        let n = pooled.len();
        let mut rank2_sum = vec![0u64; groups.len()];
        let mut tie_term = 0.0f64;
        let mut i = 0;
        while i < n {
            let mut j = i + 1;
            while j < n && pooled[j].0 == pooled[i].0 {
                j += 1;
            }
            let r2 = (i + 1 + j) as u64;
            for &(_, g) in &pooled[i..j] {
                rank2_sum[g as usize] += r2;
            }
            let t = (j - i) as f64;
            tie_term += t * t * t - t;
            i = j;
        }
        RankedPool {
            groups,
            rank2_sum,
            n,
            tie_term,
        }
    }

    /// The two-sided test of the groups `in_a` (true) against the others; None when a
    /// side is empty.
    pub fn test(&self, in_a: impl Fn(usize) -> bool) -> Option<Test> {
        let (mut n_a, mut r_a2) = (0usize, 0u64);
        for g in 0..self.groups.len() {
            if in_a(g) {
                n_a += self.groups[g].len();
                r_a2 += self.rank2_sum[g];
            }
        }
        let n_b = self.n - n_a;
        if n_a == 0 || n_b == 0 {
            return None;
        }
        let fa = n_a as f64;
        let u_a = r_a2 as f64 / 2.0 - fa * (fa + 1.0) / 2.0;
        if n_a <= EXACT_MAX_N && n_b <= EXACT_MAX_N {
            let side = |a: bool| -> Vec<f64> {
                (0..self.groups.len())
                    .filter(|&g| in_a(g) == a)
                    .flat_map(|g| self.groups[g].iter().map(|&v| v as f64))
                    .collect()
            };
            let mw = mann_whitney_u(&side(true), &side(false))?;
            return Some(Test {
                p_value: mw.p_value,
            });
        }
        Some(Test {
            p_value: crate::stats::normal_p_value(u_a, n_a, n_b, self.tie_term),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pooled-rank test equals `mann_whitney_u` on the two sides, in both regimes.
    #[test]
    fn same_p_as_the_direct_test() {
        let g: Vec<Vec<u64>> = (0..6u64)
            .map(|k| {
                (0..15u64)
                    .map(|i| 1000 + (i * 37 + k * 11) % 50 + k * 3)
                    .collect()
            })
            .collect();
        let refs: Vec<&[u64]> = g.iter().map(Vec::as_slice).collect();
        let pool = RankedPool::new(refs);
        for split in 1..6 {
            let a: Vec<f64> = g[..split].concat().iter().map(|&v| v as f64).collect();
            let b: Vec<f64> = g[split..].concat().iter().map(|&v| v as f64).collect();
            let want = mann_whitney_u(&a, &b).unwrap().p_value;
            let got = pool.test(|i| i < split).unwrap().p_value;
            assert!(
                (want - got).abs() <= 1e-12 * want.max(1e-300),
                "{split}: {want} vs {got}"
            );
        }
        // One group of 15 against 15 (exact) .. one against the other 75 (normal).
        let small = RankedPool::new(vec![&g[0], &g[1]]);
        let a: Vec<f64> = g[0].iter().map(|&v| v as f64).collect();
        let b: Vec<f64> = g[1].iter().map(|&v| v as f64).collect();
        assert_eq!(
            small.test(|i| i == 0).unwrap().p_value,
            mann_whitney_u(&a, &b).unwrap().p_value
        );
        assert!(pool.test(|_| true).is_none());
    }
}
