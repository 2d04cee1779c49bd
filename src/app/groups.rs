//! Operators grouped by type: one row per XNNPACK operator type (the name without its
//! ` #N` instance number) and per kernel, answering "is it the GEMMs or the
//! convolutions?". A group row's median is the median over runs of its instances' time
//! in each run (when they are one method's, one sample a run), else the sum of their
//! medians, marked `Σ`; its share is of the method. Built once per profile, beside the
//! operator rows.

use std::collections::BTreeMap;

use super::data::{ExplorerData, NodeKind, OpRow, TreeNode};
use crate::profile::Stats;

/// `Fully Connected (NC, F32) GEMM #13` -> `Fully Connected (NC, F32) GEMM`; names
/// without an instance number (kernels) are their own type. The one rule, shared with
/// the answer line (`crate::summary`) and the row tree.
pub fn op_type(name: &str) -> &str {
    crate::rows::operator_type(name)
}

/// The group rows of `data.ops`, largest first is up to the table's sort; each with a
/// tree node of its own (not in the tree: `roots` does not list it) for the detail pane.
pub fn build(data: &mut ExplorerData, method_median: Option<f64>) {
    let built = compute(data, method_median);
    built.apply(data);
}

/// The group rows of `data.ops` and their tree nodes, not yet in `data` (so they can be
/// made beside other work reading `data`, such as the flame graph).
pub struct Groups {
    /// To append to `data.nodes`: the group rows' `node`s index them from there.
    nodes: Vec<TreeNode>,
    rows: Vec<OpRow>,
}

impl Groups {
    pub fn apply(self, data: &mut ExplorerData) {
        debug_assert!(self.rows.iter().all(|g| g.node >= data.nodes.len()));
        data.nodes.extend(self.nodes);
        data.groups = self.rows;
    }
}

/// What [`build`] adds to `data`.
pub fn compute(data: &ExplorerData, method_median: Option<f64>) -> Groups {
    let mut nodes = Vec::new();
    let mut by_type: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, op) in data.ops.iter().enumerate() {
        by_type
            .entry(op_type(&op.name).to_string())
            .or_default()
            .push(i);
    }
    let mut groups = Vec::with_capacity(by_type.len());
    for (name, members) in by_type {
        let ops: Vec<&OpRow> = members.iter().map(|&i| &data.ops[i]).collect();
        let summed: f64 = ops.iter().map(|o| o.stats.median()).sum();
        // Per-type sums of FLOPs and bytes and the rate over the instances that have
        // them (the answer line's rule, `summary::group_by_type`).
        let sums = crate::summary::group_by_type(
            ops.iter().map(|o| crate::summary::Unit {
                name: &o.name,
                ms: o.stats.median(),
                cost: o.cost,
            }),
            None,
        );
        let (cost, rates) = match sums.first() {
            Some(g) => (
                crate::profile::efficiency::Cost {
                    flops: g.flops,
                    bytes: g.bytes,
                },
                g.rates(),
            ),
            None => (Default::default(), rates_none()),
        };
        let all_counted = ops
            .iter()
            .all(|o| o.cost.flops.is_some() && o.cost.bytes.is_some());
        // The median of the group's time per run when its instances are one method's
        // and have one sample in the same runs; else (told by a `Σ` in the cell) the sum
        // of their medians, which is not the median of any run.
        let per_run = if one_method(data, &ops) {
            per_run_sums(&ops)
        } else {
            None
        };
        let (stats, summed_median) = match per_run {
            Some(s) => (s, None),
            None => (Stats::from_ms(&[summed]), Some(summed)),
        };
        let shown = summed_median.unwrap_or(stats.median());
        let mut delegates: Vec<&str> = ops.iter().map(|o| o.delegate.as_str()).collect();
        delegates.sort_unstable();
        delegates.dedup();
        let mut steps: Vec<&str> = ops.iter().map(|o| o.step.as_str()).collect();
        steps.sort_unstable();
        steps.dedup();
        let step = match steps.as_slice() {
            [one] => one.to_string(),
            many => format!("{} steps", many.len()),
        };
        let share_method = match method_median {
            Some(m) if m > 0.0 => Some(shown / m),
            _ => None,
        };
        let scope = {
            let mut s: Vec<Option<usize>> = ops.iter().map(|o| o.scope).collect();
            s.dedup();
            if s.len() == 1 {
                s[0]
            } else {
                None
            }
        };
        let info = format!(
            "{} · {}sum of medians {}{}",
            super::format::count(ops.len(), "instance"),
            if summed_median.is_none() {
                format!("median per run {} · ", super::format::duration_ms(shown))
            } else {
                String::new()
            },
            super::format::duration_ms(summed),
            share_method
                .map(|s| format!(
                    " · {} of Method::execute",
                    crate::units::share_of_sum(s, shown, ops.len(), method_median)
                ))
                .unwrap_or_default()
        );
        // A node outside the tree, for the detail pane.
        let node = data.nodes.len() + nodes.len();
        nodes.push(TreeNode {
            name: name.clone(),
            kind: NodeKind::Operator,
            info,
            depth: 0,
            parent: None,
            children: Vec::new(),
            stats: stats.clone(),
            share: None,
            op_row: None,
            scope,
            findings: (0, 0),
            instruction: None,
            row: None,
        });
        groups.push(OpRow {
            name,
            delegate: delegates.join(" "),
            scope,
            step,
            stats,
            share: f64::NAN,
            // A sum of 0 (every instance under the quantum): the share is a bound.
            share_method: match method_median {
                Some(m) if summed == 0.0 && m > 0.0 => {
                    Some(ops.len() as f64 * crate::units::XNNPACK_QUANTUM_MS / m)
                }
                _ => share_method,
            },
            input_shapes: String::new(),
            output_shapes: String::new(),
            self_total: None,
            dtypes: String::new(),
            below_resolution: (summed == 0.0).then_some(method_median).flatten(),
            failed: 0,
            node,
            instances: ops.len(),
            summed_median,
            cost,
            rates,
            cost_ms: if all_counted { summed } else { f64::NAN },
            roofline: None,
        });
    }
    Groups {
        nodes,
        rows: groups,
    }
}

fn rates_none() -> crate::profile::efficiency::Rates {
    crate::profile::efficiency::Rates {
        gflops: None,
        gbps: None,
    }
}

/// Whether every row is in one method's tree (the runs of two methods are not one run).
fn one_method(data: &ExplorerData, ops: &[&OpRow]) -> bool {
    let root = |mut i: usize| {
        while let Some(p) = data.nodes.get(i).and_then(|n| n.parent) {
            i = p;
        }
        i
    };
    let mut roots = ops.iter().map(|o| root(o.node));
    let first = roots.next();
    roots.all(|r| Some(r) == first)
}

/// Per-run totals of a group when every instance has one sample per kept run (the same
/// runs, each once): the group's time in each run, with its warm-up runs likewise.
fn per_run_sums(ops: &[&OpRow]) -> Option<Stats> {
    let first = ops.first()?;
    let n = first.stats.samples.len();
    let w = first.stats.warmup_samples.len();
    // A call repeated in a run lists that run twice: its samples are not one per run.
    let once_each = first.stats.runs.windows(2).all(|r| r[0] < r[1]);
    if n == 0
        || !once_each
        || ops.iter().any(|o| {
            o.stats.samples.len() != n
                || o.stats.warmup_samples.len() != w
                || o.stats.runs != first.stats.runs
        })
    {
        return None;
    }
    let sum = |f: &dyn Fn(&OpRow) -> &[i64], len: usize| -> Vec<i64> {
        (0..len)
            .map(|i| ops.iter().fold(0i64, |t, o| t.saturating_add(f(o)[i])))
            .collect()
    };
    let kept = sum(&|o: &OpRow| o.stats.samples.ns(), n);
    let warm = sum(&|o: &OpRow| o.stats.warmup_samples.ns(), w);
    Some(
        Stats::from_ns(kept)
            .with_runs(first.stats.runs.clone())
            .with_warmup(warm),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpuprof_testkit::sample;

    #[test]
    fn types_drop_the_instance_number_only() {
        assert_eq!(
            op_type("Fully Connected (NC, F32) GEMM #13"),
            "Fully Connected (NC, F32) GEMM"
        );
        assert_eq!(op_type("native_call_cumsum.out"), "native_call_cumsum.out");
        assert_eq!(op_type("weird #x"), "weird #x");
        assert_eq!(op_type("trailing #"), "trailing #");
    }

    /// The sample: IGEMM #1 (0.20) and #2 (0.22) make one group of 2; every other name
    /// is alone. Medians are base × 1.075: (0.20 + 0.22) × 1.075 = 0.4515 ms, of a method
    /// median of 1.075 ms: 42.0%.
    #[test]
    fn the_sample_groups_its_two_convolutions() {
        let d = ExplorerData::from_profile(&sample::profile());
        assert_eq!(d.groups.len(), 6);
        let conv = d
            .groups
            .iter()
            .find(|g| g.name == "Convolution (NHWC, F32) IGEMM")
            .unwrap();
        assert_eq!(conv.instances, 2);
        // Its median is the median of its per-run sums, not a sum of medians.
        assert_eq!(conv.summed_median, None);
        assert!((conv.share_method.unwrap() - 0.42).abs() < 1e-9);
        assert_eq!(conv.delegate, "d1");
        assert_eq!(conv.step, "XNNPACK/subgraph:conv2d+2");
        // Per-run sums: the same run factors, so the per-run median is 0.42 × 1.075 too.
        assert!((conv.stats.median() - 0.4515).abs() < 1e-9);
        assert_eq!(d.nodes[conv.node].name, "Convolution (NHWC, F32) IGEMM");
        assert!(!d.roots.contains(&conv.node));
    }

    /// Made side by side in `from_profile`: the flame graph is the one of the finished
    /// data, and every group row's node (appended after the tree) is that group's.
    #[test]
    fn groups_and_flame_made_side_by_side_are_those_of_the_finished_data() {
        let d = ExplorerData::from_profile(&sample::profile());
        let whole = crate::views::flame::model::FlameTree::from_explorer(&d);
        assert_eq!(d.flame.as_deref(), Some(&whole));
        assert!(!d.groups.is_empty());
        for g in &d.groups {
            assert_eq!(d.nodes[g.node].name, g.name);
            assert!(!d.roots.contains(&g.node));
        }
    }
}
