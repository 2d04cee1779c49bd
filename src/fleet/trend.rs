//! The step change of one row along ordered profiles: of every split of the sequence into
//! before (the first k profiles) and after (the rest), the one whose pooled samples
//! differ the most by a Mann–Whitney test (smallest p; between p-values that underflow,
//! the larger standardized U) among the splits that change the pooled median by at
//! least `min_change` percent (a weaker split with a larger change is taken over a
//! stronger one below the threshold). Its p-value is multiplied by the number of splits tried
//! (Bonferroni: the split was chosen as the best of them) before the caller corrects
//! over rows (Holm).

use super::ranks::RankedPool;
use super::FleetRow;
use crate::stats::percentile_select;

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Profile index where the new level starts.
    pub at: usize,
    pub before: f64,
    pub after: f64,
    pub delta_pct: f64,
    /// Bonferroni-adjusted over the splits (not yet over rows).
    pub p_value: f64,
}

/// `seq`: (profile index, row) in order. None with fewer than two profiles or no split
/// reaching `min_change`.
pub fn step_change(seq: &[(usize, &FleetRow)], min_change: f64) -> Option<Step> {
    let k = seq.len();
    if k < 2 {
        return None;
    }
    let ns: Vec<Vec<u64>> = seq
        .iter()
        .map(|(_, r)| r.samples.iter_ns().collect())
        .collect();
    let pool = RankedPool::new(ns.iter().map(Vec::as_slice).collect());
    let mut tests: Vec<(usize, super::ranks::Test)> = (1..k)
        .filter_map(|s| pool.test(|g| g < s).map(|t| (s, t)))
        .collect();
    tests.sort_by(|a, b| {
        a.1.p_value
            .total_cmp(&b.1.p_value)
            .then(b.1.strength.total_cmp(&a.1.strength))
            .then(a.0.cmp(&b.0))
    });
    let splits = (k - 1) as f64;
    let median_ms = |v: &[Vec<u64>]| -> f64 {
        let mut ms: Vec<f64> = v.iter().flatten().map(|&n| n as f64 / 1e6).collect();
        if ms.is_empty() {
            return 0.0;
        }
        percentile_select(&mut ms, 50.0)
    };
    for (s, t) in tests {
        let before = median_ms(&ns[..s]);
        let after = median_ms(&ns[s..]);
        if before <= 0.0 {
            continue;
        }
        let delta_pct = (after - before) / before * 100.0;
        if delta_pct.abs() >= min_change {
            return Some(Step {
                at: seq[s].0,
                before,
                after,
                delta_pct,
                p_value: (t.p_value * splits).min(1.0),
            });
        }
    }
    None
}
