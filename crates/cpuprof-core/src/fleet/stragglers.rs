//! Stragglers: per op, the ranks (hosts, processes or threads of one trace, or the trace
//! profiles of a fleet) whose calls of that op are slower or faster than the others'.
//! Nothing new is tested here: every rank becomes a fleet profile of one shared model
//! whose rows are its ops (per-call durations as samples), and [`super::analyse`] finds
//! the outliers by its rules (robust z ≥ 3.5 of the rank's median call against the
//! ranks' median, at least `min_change` percent, Mann–Whitney of its calls against the
//! pooled calls of the others, Holm over every candidate of every op).
//!
//! A straggler is slow per call. A rank that makes more calls of an op (more work, not
//! slower work) shows in the breakdown's `Calls`, not here.

use super::analysis::{analyse, AnalysisOptions};
use super::{FleetProfile, FleetRow, Samples};
use crate::rows::{RowKind, RowTree};

/// One op of one rank that stands out.
#[derive(Debug, Clone, PartialEq)]
pub struct Straggler {
    pub op: String,
    /// Index into the ranks given.
    pub rank: usize,
    /// The rank's median call (ms).
    pub median: f64,
    /// The median over the ranks of their median calls (ms).
    pub ranks_median: f64,
    pub z: f64,
    /// Holm-adjusted over every candidate of every op.
    pub p_value: f64,
    /// The rank's calls of the op (successful ones: the samples tested).
    pub calls: usize,
    /// How many ranks have calls of the op.
    pub ranks: usize,
}

/// The `op` rows of one trace's row model (`RowTree::trace_ops`), as the fleet keeps rows.
pub fn op_rows(tree: &RowTree) -> Vec<FleetRow> {
    tree.ops()
        .filter(|o| o.stats.count > 0)
        .map(|o| {
            let samples = Samples::from_ns(o.stats.samples.ns());
            FleetRow::of_stats(RowKind::Op, vec![o.name.clone()], &o.stats, samples)
        })
        .collect()
}

/// The stragglers among `ranks` (each given by its op rows), sorted by op name then rank.
/// `by` and `order` of `opts` are not used.
pub fn stragglers(ranks: Vec<Vec<FleetRow>>, opts: &AnalysisOptions) -> Vec<Straggler> {
    const MODEL: &str = "ops";
    let profiles: Vec<FleetProfile> = ranks
        .into_iter()
        .enumerate()
        .map(|(i, rows)| FleetProfile {
            id: i.to_string(),
            path: String::new(),
            meta: Default::default(),
            model: Some(MODEL.to_string()),
            kind: Some("trace"),
            runs: 0,
            method: None,
            error: None,
            warnings: Vec::new(),
            rows,
        })
        .collect();
    let opts = AnalysisOptions {
        by: None,
        order: None,
        ..opts.clone()
    };
    let fleet = analyse(profiles, opts);
    let mut out: Vec<Straggler> = Vec::new();
    for g in &fleet.groups {
        for r in &g.rows {
            for o in &r.outliers {
                let calls = fleet.profiles[o.profile]
                    .rows
                    .iter()
                    .find(|x| x.name == r.name)
                    .map_or(0, |x| x.count);
                out.push(Straggler {
                    op: r.name.clone(),
                    rank: o.profile,
                    median: o.median,
                    ranks_median: r.median_of_medians,
                    z: o.z,
                    p_value: o.p_value,
                    calls,
                    ranks: r.medians.len(),
                });
            }
        }
    }
    out.sort_by(|a, b| a.op.cmp(&b.op).then(a.rank.cmp(&b.rank)));
    out
}

/// The stragglers of a fleet: its trace profiles that loaded (any model: ranks of one
/// job may differ in their call trees but share their ops), compared op by op. `rank` of
/// each is an index into `profiles`. Fewer than three such profiles: none.
pub fn fleet_stragglers(profiles: &[FleetProfile], opts: &AnalysisOptions) -> Vec<Straggler> {
    let picked: Vec<usize> = profiles
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind == Some("trace") && p.error.is_none())
        .map(|(i, _)| i)
        .collect();
    if picked.len() < 3 {
        return Vec::new();
    }
    let ranks = picked
        .iter()
        .map(|&i| {
            profiles[i]
                .rows
                .iter()
                .filter(|r| r.kind == RowKind::Op)
                .cloned()
                .collect()
        })
        .collect();
    let mut out = stragglers(ranks, opts);
    for s in &mut out {
        s.rank = picked[s.rank];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rank of `n` calls of `op`, each `ns` long (plus `spread` · i % 7 ns).
    fn rank(op: &str, ns: u64, spread: u64) -> Vec<FleetRow> {
        let samples: Vec<u64> = (0..20).map(|i| ns + spread * (i % 7)).collect();
        let ms: Vec<f64> = samples.iter().map(|&v| v as f64 / 1e6).collect();
        let s = crate::stats::Stats::from_ms(&ms);
        vec![FleetRow::of_stats(
            RowKind::Op,
            vec![op.into()],
            &s,
            Samples::U64(samples),
        )]
    }

    /// The fleet's rule when every other rank has the same median (MAD 0): the scale is
    /// 1.253314 · mean absolute deviation = 1.253314 · d / n for one rank off by d, so its
    /// z is n / 1.253314: 3.19 for 4 ranks (below 3.5: not flagged), 3.99 for 5.
    #[test]
    fn with_identical_other_ranks_five_are_needed() {
        let opts = AnalysisOptions::default();
        let four: Vec<Vec<FleetRow>> = (0..4)
            .map(|i| rank("mm", if i == 2 { 30_000 } else { 10_000 }, 10))
            .collect();
        assert_eq!(stragglers(four, &opts), Vec::new());
        let five: Vec<Vec<FleetRow>> = (0..5)
            .map(|i| rank("mm", if i == 2 { 30_000 } else { 10_000 }, 10))
            .collect();
        let s = stragglers(five, &opts);
        assert_eq!(s.len(), 1);
        assert_eq!(
            (s[0].op.as_str(), s[0].rank, s[0].calls, s[0].ranks),
            ("mm", 2, 20, 5)
        );
        assert!((s[0].z - 5.0 / 1.253314).abs() < 1e-9, "{}", s[0].z);
        // Four ranks that differ a little among themselves (MAD > 0): found.
        let four: Vec<Vec<FleetRow>> = (0..4u64)
            .map(|i| rank("mm", if i == 2 { 30_000 } else { 10_000 + 30 * i }, 10))
            .collect();
        assert_eq!(stragglers(four, &opts).len(), 1);
    }
}
