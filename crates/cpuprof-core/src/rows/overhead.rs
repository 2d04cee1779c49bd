//! A delegate's `(overhead)` row: the time of its call that none of its children (its
//! plan steps, or its operators) covers, run by run: copy-in/out, dispatch, waiting.
//!
//! A row lists the run of each sample only when some kept run has none (`Stats::runs`
//! empty: sample i is from run `warmup + i`), which is the usual case on a real dump, so
//! the runs are made explicit here before the call and its children are matched.

use std::collections::BTreeMap;

use crate::stats::Stats;

/// The overhead's samples, and the median of the call's time per run (the overhead's
/// share is of that: a call repeated in a run counts once per run, as its overhead).
pub struct Overhead {
    pub stats: Stats,
    pub call_per_run_median: f64,
}

/// The sum of `s`'s kept samples in each run (a call repeated in a run adds up).
fn per_run(s: &Stats, warmup: usize) -> BTreeMap<usize, i64> {
    let mut sums = BTreeMap::new();
    for (i, &ns) in s.samples.ns().iter().enumerate() {
        let run = if s.runs.is_empty() {
            warmup + i
        } else {
            match s.runs.get(i) {
                Some(&r) => r,
                None => continue,
            }
        };
        // Saturating: a damaged dump's durations may be near i64::MAX.
        let sum = sums.entry(run).or_insert(0i64);
        *sum = sum.saturating_add(ns);
    }
    sums
}

/// The call's time outside `parts` in each kept run where the call and every part were
/// seen (a run that lost a child's event is left out rather than counted as overhead);
/// warm-up runs likewise when every row has one sample per warm-up run. None without
/// parts, without a run where all were seen, or when the children cover the call
/// exactly in every run.
pub fn overhead(call: &Stats, parts: &[&Stats], warmup: usize, kept: usize) -> Option<Overhead> {
    if parts.is_empty() || call.samples.is_empty() {
        return None;
    }
    let calls = per_run(call, warmup);
    let sums: Vec<BTreeMap<usize, i64>> = parts.iter().map(|p| per_run(p, warmup)).collect();
    let mut runs = Vec::with_capacity(calls.len());
    let mut rest = Vec::with_capacity(calls.len());
    for (&run, &total) in &calls {
        let covered = sums
            .iter()
            .try_fold(0i64, |sum, p| Some(sum.saturating_add(*p.get(&run)?)));
        if let Some(covered) = covered {
            runs.push(run);
            rest.push(total.saturating_sub(covered));
        }
    }
    if rest.is_empty() || rest.iter().all(|&r| r == 0) {
        return None;
    }
    // Warm-up samples carry no run index: matched only when every row has one sample
    // per warm-up run.
    let one_each = |s: &Stats| s.warmup_samples.len() == warmup;
    let warm: Vec<i64> = if one_each(call) && parts.iter().all(|p| one_each(p)) {
        (0..warmup)
            .map(|i| {
                let covered = parts
                    .iter()
                    .fold(0i64, |sum, p| sum.saturating_add(p.warmup_samples.ns()[i]));
                call.warmup_samples.ns()[i].saturating_sub(covered)
            })
            .collect()
    } else {
        Vec::new()
    };
    let runs = if runs.len() == kept && runs.first() == Some(&warmup) {
        Vec::new()
    } else {
        runs
    };
    let call_totals: Vec<i64> = calls.values().copied().collect();
    Some(Overhead {
        stats: Stats::from_ns(rest).with_runs(runs).with_warmup(warm),
        call_per_run_median: Stats::from_ns(call_totals).median(),
    })
}

#[cfg(test)]
mod tests {
    use super::overhead;
    use crate::stats::Stats;

    /// A damaged dump's durations near i64::MAX: sums saturate instead of overflowing
    /// (a flipped byte in `profile_props` made one). Run 0: the call's i64::MAX less
    /// two parts of i64::MAX each (their sum saturates at i64::MAX): 0. Run 1: i64::MAX
    /// less 1 and 2.
    #[test]
    fn durations_near_the_limit_saturate() {
        let max = i64::MAX;
        let call = Stats::from_ns(vec![max, max]);
        let a = Stats::from_ns(vec![max, 1]);
        let b = Stats::from_ns(vec![max, 2]);
        let o = overhead(&call, &[&a, &b], 0, 2).expect("an overhead");
        let mut rest = o.stats.samples.ns().to_vec();
        rest.sort_unstable();
        assert_eq!(rest, vec![0, max - 3]);
    }
}
