//! The explorer's view of a PyTorch operator trace: a call tree per thread (aggregated by
//! name path) where an ETDump has its plan tree, and one operator row per op name with
//! calls, inclusive statistics, self time, shapes and dtypes.

use super::data::{ExplorerData, FindingRow, NodeKind, OpRow, SourceKind, TreeNode};
use super::format;
use crate::profile::Stats;
use crate::trace::{CallNode, TraceProfile};

impl ExplorerData {
    pub fn from_trace(trace: &TraceProfile) -> ExplorerData {
        let top_level: Vec<i64> = trace
            .call_trees
            .iter()
            .flat_map(|t| t.roots.iter().flat_map(|r| r.samples_ns.iter().copied()))
            .collect();
        let mut data = ExplorerData {
            kind: SourceKind::Trace,
            files: vec![format!("{} ({})", trace.trace, trace.format.label())],
            runs: None,
            total_label: "top-level calls".to_string(),
            total: (!top_level.is_empty()).then(|| Stats::from_ns(top_level)),
            ..ExplorerData::default()
        };

        // The top-level calls by op name, over every thread.
        let mut by_op: Vec<(String, Vec<i64>, i64)> = Vec::new();
        for root in trace.call_trees.iter().flat_map(|t| &t.roots) {
            match by_op.iter_mut().find(|(n, _, _)| *n == root.name) {
                Some((_, samples, total)) => {
                    samples.extend(root.samples_ns.iter().copied());
                    *total = total.saturating_add(root.inclusive_ns);
                }
                None => by_op.push((
                    root.name.clone(),
                    root.samples_ns.clone(),
                    root.inclusive_ns,
                )),
            }
        }
        by_op.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        data.top_level = by_op
            .into_iter()
            .map(|(name, samples, total)| (name, Stats::from_ns(samples), total))
            .collect();

        for (thread, tree) in trace.threads.iter().zip(&trace.call_trees) {
            let key = &thread.key;
            let mut info = vec![
                format!("pid {}", key.pid),
                format!(
                    "{}, {} top-level",
                    format::count(thread.calls as usize, "call"),
                    tree.roots.iter().map(|r| r.calls).sum::<u64>()
                ),
            ];
            if let Some(host) = &key.host {
                info.insert(0, host.clone());
            }
            let samples: Vec<i64> = tree
                .roots
                .iter()
                .flat_map(|r| r.samples_ns.iter().copied())
                .collect();
            // Saturating: hostile traces may hold durations near i64::MAX.
            let total_ns = tree
                .roots
                .iter()
                .fold(0i64, |a, r| a.saturating_add(r.inclusive_ns));
            let t = data.push_node(TreeNode {
                name: format!("thread {}", key.tid),
                kind: NodeKind::Other,
                info: info.join(" · "),
                depth: 0,
                parent: None,
                children: Vec::new(),
                stats: Stats::from_ns(samples),
                share: None,
                op_row: None,
                scope: None,
                findings: (0, 0),
                instruction: None,
                row: None,
            });
            data.set_total(t, total_ns);
            for root in &tree.roots {
                push_call(&mut data, t, root, total_ns);
            }
        }

        // Operators by name: the table's rows, each with a tree node for the detail view.
        let total_self = trace
            .ops
            .iter()
            .fold(0i64, |a, o| a.saturating_add(o.self_total_ns.max(0)));
        let ops_root = data.push_node(TreeNode {
            name: "operators by name".to_string(),
            kind: NodeKind::Other,
            info: format!(
                "{} · self time shares",
                format::count(trace.ops.len(), "op")
            ),
            depth: 0,
            parent: None,
            children: Vec::new(),
            stats: Stats::default(),
            share: None,
            op_row: None,
            scope: None,
            findings: (0, 0),
            instruction: None,
            row: None,
        });
        data.set_total(ops_root, total_self);
        for op in &trace.ops {
            let row = data.ops.len();
            let share = if total_self > 0 {
                op.self_total_ns.max(0) as f64 / total_self as f64
            } else {
                0.0
            };
            let info = calls_info(op.calls, op.self_total_ns, op.errors);
            let node = data.push_node(TreeNode {
                name: op.name.clone(),
                kind: NodeKind::Operator,
                info,
                depth: 0,
                parent: Some(ops_root),
                children: Vec::new(),
                stats: op.stats.clone(),
                share: Some(share),
                op_row: Some(row),
                scope: None,
                findings: (0, 0),
                instruction: None,
                row: None,
            });
            data.set_total(node, op.self_total_ns);
            data.ops.push(OpRow {
                name: op.name.clone(),
                delegate: "-".to_string(),
                scope: None,
                step: String::new(),
                stats: op.stats.clone(),
                share,
                share_method: None,
                input_shapes: op
                    .input_shapes
                    .as_ref()
                    .map(|sigs| {
                        sigs.iter()
                            .map(|s| format::shapes(Some(s)))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    })
                    .unwrap_or_default(),
                output_shapes: String::new(),
                self_total: Some(op.self_total_ns as f64 / 1e6),
                dtypes: op
                    .dtypes
                    .as_ref()
                    .map(|sigs| {
                        sigs.iter()
                            .map(|s| s.join(", "))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    })
                    .unwrap_or_default(),
                below_resolution: None,
                failed: op.errors,
                node,
                instances: 0,
                summed_median: None,
                cost: Default::default(),
                rates: crate::profile::efficiency::Rates {
                    gflops: None,
                    gbps: None,
                },
                cost_ms: f64::NAN,
                roofline: None,
            });
        }

        let failed: Vec<String> = trace
            .ops
            .iter()
            .filter(|o| o.errors > 0)
            .map(|o| format!("{} ({})", o.name, o.errors))
            .collect();
        if !failed.is_empty() {
            data.findings.push(FindingRow::plain(
                true,
                "failed_calls",
                format!("calls that exited without an entry: {}", failed.join(", ")),
            ));
        }
        // Unterminated entries are among the importer's warnings.
        for w in &trace.warnings {
            data.findings
                .push(FindingRow::plain(false, w.kind.clone(), w.message.clone()));
        }
        let c = &trace.counts;
        let log = [
            format!("trace: {}", trace.trace),
            format!("format: {}", trace.format.label()),
            format!(
                "{} records, {} operator events, {} other events ignored, {} unused fields, {} malformed",
                c.events, c.op_events, c.ignored_events, c.ignored_fields, c.malformed
            ),
        ];
        data.log = crate::runlog::LogLines::from_lines(log.iter().map(String::as_str));
        crate::views::flame::build::attach(&mut data);
        data
    }
}

fn push_call(data: &mut ExplorerData, parent: usize, call: &CallNode, parent_ns: i64) {
    let info = calls_info(call.calls, call.self_ns, call.errors);
    let id = data.push_node(TreeNode {
        name: call.name.clone(),
        kind: NodeKind::Operator,
        info,
        depth: 0,
        parent: Some(parent),
        children: Vec::new(),
        stats: Stats::from_ns(call.samples_ns.clone()),
        share: (parent_ns > 0).then(|| call.inclusive_ns as f64 / parent_ns as f64),
        op_row: None,
        scope: None,
        findings: (0, 0),
        instruction: None,
        row: None,
    });
    data.set_total(id, call.inclusive_ns);
    for child in &call.children {
        push_call(data, id, child, call.inclusive_ns);
    }
}

impl ExplorerData {
    /// Node `id`'s total time (`node_totals`), from whole ns.
    fn set_total(&mut self, id: usize, ns: i64) {
        if self.node_totals.len() <= id {
            self.node_totals.resize(id + 1, None);
        }
        self.node_totals[id] = Some(ns as f64 / 1e6);
    }
}

/// `10 calls · self 117 µs[ · 1 failed]`.
fn calls_info(calls: u64, self_ns: i64, errors: u64) -> String {
    let mut info = format!(
        "{} · self {}",
        format::count(calls as usize, "call"),
        format::duration_ms(self_ns as f64 / 1e6)
    );
    if errors > 0 {
        info.push_str(&format!(" · {errors} failed"));
    }
    info
}
