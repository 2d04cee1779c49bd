//! The step change of one row along ordered profiles. The profiles are the units: a
//! profile's samples are one device's runs at one commit, not independent draws of the
//! commit's time, so pooling them would read one slow device as a change. A split falls
//! only between two distinct values of the order key (never between two profiles of one
//! commit); of those, the one whose before and after profile medians differ the most by
//! Welch's t test (smallest p; ties: the larger |t|, then the earlier split) among the
//! splits that change the pooled median by at least `min_change` percent (a weaker split
//! with a larger change is taken over a stronger one below the threshold). Its p-value
//! is multiplied by the number of splits tried (Bonferroni: the split was chosen as the
//! best of them) before the caller corrects over rows (Holm). A device effect spread
//! over the commits is variance on both sides of every split, never a change.

use super::FleetRow;

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Profile index where the new level starts.
    pub at: usize,
    /// The pooled medians before and after (ms).
    pub before: f64,
    pub after: f64,
    pub delta_pct: f64,
    /// Bonferroni-adjusted over the splits (not yet over rows).
    pub p_value: f64,
}

/// `seq`: (profile index, row) in order; `levels`: the order key's value of each, as a
/// rank (equal for equal values, non-decreasing). None with fewer than two values of the
/// key, fewer than two profiles on either side of every split, or no split reaching
/// `min_change`.
pub fn step_change(seq: &[(usize, &FleetRow)], levels: &[usize], min_change: f64) -> Option<Step> {
    let k = seq.len();
    if k < 2 || levels.len() != k {
        return None;
    }
    let medians: Vec<f64> = seq.iter().map(|(_, r)| r.median).collect();
    let ns: Vec<Vec<u64>> = seq
        .iter()
        .map(|(_, r)| r.samples.iter_ns().collect())
        .collect();
    // A side's variance is never taken below the clock step's (q²/12): XNNPACK's whole
    // µs make medians tie, and a side of tied medians has no spread to divide by.
    let step = ns
        .iter()
        .flatten()
        .fold(0u64, |g, &x| if g == 1 { 1 } else { gcd(g, x) });
    let floor = (step as f64 / 1e6).powi(2) / 12.0;
    // Splits: before = the first s profiles, where the key's value changes at s.
    let splits: Vec<usize> = (1..k).filter(|&s| levels[s] != levels[s - 1]).collect();
    if splits.is_empty() {
        return None;
    }
    // Prefix sums of the medians (about their mean, for precision) and their squares.
    let centre = medians.iter().sum::<f64>() / k as f64;
    let mut sum = vec![0.0; k + 1];
    let mut sq = vec![0.0; k + 1];
    for (i, m) in medians.iter().enumerate() {
        let d = m - centre;
        sum[i + 1] = sum[i] + d;
        sq[i + 1] = sq[i] + d * d;
    }
    let side = |from: usize, to: usize| {
        let n = (to - from) as f64;
        let s = sum[to] - sum[from];
        let mean = s / n;
        let var = if n > 1.0 {
            ((sq[to] - sq[from]) - s * mean).max(0.0) / (n - 1.0)
        } else {
            0.0
        };
        let var = var.max(floor);
        (to - from, mean, var)
    };
    let mut tests: Vec<(usize, crate::stats::WelchT)> = splits
        .iter()
        .filter_map(|&s| {
            let (n1, m1, v1) = side(0, s);
            let (n2, m2, v2) = side(s, k);
            crate::stats::welch_t(n1, m1, v1, n2, m2, v2).map(|t| (s, t))
        })
        .collect();
    tests.sort_by(|a, b| {
        a.1.p_value
            .total_cmp(&b.1.p_value)
            .then(b.1.t.abs().total_cmp(&a.1.t.abs()))
            .then(a.0.cmp(&b.0))
    });
    let tried = splits.len() as f64;
    let split_medians = SplitMedians::new(&ns);
    for (s, t) in tests {
        let (before, after) = split_medians.at(s);
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
                p_value: (t.p_value * tried).min(1.0),
            });
        }
    }
    None
}

/// The pooled medians (ms) before and after every split, each in O(log N): the samples'
/// positions in the sorted pool, counted in two Fenwick trees (before: the first `s`
/// groups; after: the rest), filled as the split moves.
struct SplitMedians {
    /// (before, after) medians for split s at index s − 1.
    at: Vec<(f64, f64)>,
}

impl SplitMedians {
    fn new(groups: &[Vec<u64>]) -> SplitMedians {
        let mut tagged: Vec<(u64, usize)> = groups
            .iter()
            .enumerate()
            .flat_map(|(g, v)| v.iter().map(move |&x| (x, g)))
            .collect();
        tagged.sort_unstable();
        let n = tagged.len();
        let sorted: Vec<u64> = tagged.iter().map(|t| t.0).collect();
        // Positions of each group's samples in the sorted pool.
        let mut positions: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
        for (pos, &(_, g)) in tagged.iter().enumerate() {
            positions[g].push(pos);
        }
        let mut before = Fenwick::new(n);
        let mut after = Fenwick::full(n);
        let mut at = Vec::with_capacity(groups.len().saturating_sub(1));
        for group in positions.iter().take(groups.len().saturating_sub(1)) {
            for &pos in group {
                before.add(pos, 1);
                after.add(pos, -1);
            }
            at.push((median_of(&before, &sorted), median_of(&after, &sorted)));
        }
        SplitMedians { at }
    }

    fn at(&self, split: usize) -> (f64, f64) {
        self.at[split - 1]
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// numpy's median (the linear rule) of the samples counted in `tree`, in ms; 0 when none.
fn median_of(tree: &Fenwick, sorted: &[u64]) -> f64 {
    let c = tree.total;
    if c == 0 {
        return 0.0;
    }
    let ms = |k: usize| sorted[tree.kth(k)] as f64 / 1e6;
    if c % 2 == 1 {
        ms(c / 2)
    } else {
        crate::stats::percentile_sorted(&[ms(c / 2 - 1), ms(c / 2)], 50.0)
    }
}

/// Counts of positions 0..n with prefix sums and the k-th counted position.
struct Fenwick {
    tree: Vec<i64>,
    total: usize,
}

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick {
            tree: vec![0; n + 1],
            total: 0,
        }
    }

    /// Every position counted once (built in O(n)).
    fn full(n: usize) -> Fenwick {
        let mut tree = vec![1i64; n + 1];
        tree[0] = 0;
        for i in 1..=n {
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                tree[j] += tree[i];
            }
        }
        Fenwick { tree, total: n }
    }

    fn add(&mut self, pos: usize, delta: i64) {
        self.total = (self.total as i64 + delta) as usize;
        let mut i = pos + 1;
        while i < self.tree.len() {
            self.tree[i] += delta;
            i += i & i.wrapping_neg();
        }
    }

    /// The position of the k-th (0-based) counted position; k < total.
    fn kth(&self, k: usize) -> usize {
        let n = self.tree.len() - 1;
        let mut pos = 0usize;
        let mut rest = k as i64 + 1;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] < rest {
                pos = next;
                rest -= self.tree[next];
            }
            step >>= 1;
        }
        // The largest prefix holding at most k counts ends just before the k-th.
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Stats;
    use crate::rows::RowKind;

    fn row(ns: &[u64]) -> FleetRow {
        let ms: Vec<f64> = ns.iter().map(|&n| n as f64 / 1e6).collect();
        let stats = Stats::from_ms(&ms);
        FleetRow::of_stats(
            RowKind::Operator,
            vec!["op".into()],
            &stats,
            super::super::Samples::from_ms(&ms),
        )
    }

    /// A farm of 4 devices x 10 commits, 10 samples a profile, known truth: device 1 is
    /// 1.5x slower at every commit; with `regress`, every device is 1.3x slower from
    /// commit 6 on. A few % of noise per profile and per sample (a fixed LCG). Profiles in
    /// commit order, the devices of a commit in `devices` order.
    fn farm(regress: bool, devices: [usize; 4]) -> (Vec<FleetRow>, Vec<usize>) {
        let mut x: u64 = 12345;
        let mut noise = |pct: f64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            1.0 + pct / 100.0 * (((x >> 33) as f64 / (1u64 << 31) as f64) * 2.0 - 1.0)
        };
        let mut rows = Vec::new();
        let mut levels = Vec::new();
        for c in 0..10 {
            for &d in &devices {
                let mut base = 100_000.0 * if d == 1 { 1.5 } else { 1.0 };
                if regress && c >= 6 {
                    base *= 1.3;
                }
                base *= noise(3.0);
                let ns: Vec<u64> = (0..10).map(|_| (base * noise(1.0)) as u64).collect();
                rows.push(row(&ns));
                levels.push(c);
            }
        }
        (rows, levels)
    }

    const ORDERS: [[usize; 4]; 4] = [[0, 1, 2, 3], [1, 0, 2, 3], [3, 2, 1, 0], [0, 2, 3, 1]];

    #[test]
    fn a_slow_device_is_no_change() {
        for devices in ORDERS {
            let (rows, levels) = farm(false, devices);
            let seq: Vec<(usize, &FleetRow)> = rows.iter().enumerate().collect();
            let step = step_change(&seq, &levels, 5.0);
            assert!(
                step.as_ref().is_none_or(|s| s.p_value > 0.05),
                "{devices:?}: {step:?}"
            );
        }
    }

    #[test]
    fn a_regression_is_found_at_its_commit_whatever_the_device_order() {
        for devices in ORDERS {
            let (rows, levels) = farm(true, devices);
            let seq: Vec<(usize, &FleetRow)> = rows.iter().enumerate().collect();
            let step = step_change(&seq, &levels, 5.0).unwrap();
            // The first profile of commit 6.
            assert_eq!(step.at, 6 * 4, "{devices:?}: {step:?}");
            assert!(step.p_value <= 0.05, "{step:?}");
            assert!(step.delta_pct > 20.0 && step.delta_pct < 40.0, "{step:?}");
        }
    }

    /// The largest jump lies between two profiles of one key value: the only split
    /// allowed is between the values.
    #[test]
    fn no_split_inside_a_value_of_the_key() {
        let ns = |v: u64| vec![v, v + 10, v + 20, v + 5];
        let rows: Vec<FleetRow> = [100_000, 101_000, 150_000, 151_000, 150_500, 149_000]
            .iter()
            .map(|&v| row(&ns(v)))
            .collect();
        let seq: Vec<(usize, &FleetRow)> = rows.iter().enumerate().collect();
        let levels = [0, 0, 0, 1, 1, 1];
        if let Some(step) = step_change(&seq, &levels, 0.0) {
            assert_eq!(step.at, 3, "{step:?}");
        }
        // One value of the key: no split at all.
        assert!(step_change(&seq, &[0; 6], 0.0).is_none());
    }

    /// The split medians equal sorting each side's pooled samples.
    #[test]
    fn split_medians_equal_sorting() {
        let groups: Vec<Vec<u64>> = (0..7u64)
            .map(|g| {
                (0..(3 + g as usize % 4))
                    .map(|i| (i as u64 * 7919 + g * 104_729) % 1000)
                    .collect()
            })
            .collect();
        let m = SplitMedians::new(&groups);
        let median = |v: &[Vec<u64>]| {
            let mut ms: Vec<f64> = v.iter().flatten().map(|&n| n as f64 / 1e6).collect();
            crate::stats::percentile_select(&mut ms, 50.0)
        };
        for s in 1..groups.len() {
            assert_eq!(
                m.at(s),
                (median(&groups[..s]), median(&groups[s..])),
                "split {s}"
            );
        }
    }
}
