//! The explorer's view of a PyTorch operator trace: a call tree per thread (aggregated by
//! name path) where an ETDump has its plan tree, and one operator row per op name with
//! calls, inclusive statistics, self time, shapes and dtypes.

use std::sync::Arc;

use super::data::{ExplorerData, FindingRow, NodeKind, OpRow, SourceKind, TreeNode};
use super::format;
use crate::profile::Stats;
use crate::rows::{Facts, RowKind, RowTree};
use crate::trace::TraceProfile;

impl ExplorerData {
    /// The view of a trace, read from its row model (`RowTree::from_trace`, built once):
    /// a node per thread with its call tree, then "operators by name", the table's rows.
    pub fn from_trace(trace: &TraceProfile) -> ExplorerData {
        let tree = Arc::new(RowTree::from_trace(trace));
        let threads: Vec<usize> = tree
            .roots
            .iter()
            .copied()
            .filter(|&r| tree.rows[r].kind == RowKind::Scope)
            .collect();
        let top_level: Vec<i64> = threads
            .iter()
            .flat_map(|&t| tree.rows[t].stats.samples.ns().iter().copied())
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
        for &root in threads.iter().flat_map(|&t| &tree.rows[t].children) {
            let r = &tree.rows[root];
            let inclusive = call_facts(&r.facts).2;
            match by_op.iter_mut().find(|(n, _, _)| *n == r.name) {
                Some((_, samples, total)) => {
                    samples.extend(r.stats.samples.ns().iter().copied());
                    *total = total.saturating_add(inclusive);
                }
                None => by_op.push((r.name.clone(), r.stats.samples.ns().to_vec(), inclusive)),
            }
        }
        by_op.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        data.top_level = by_op
            .into_iter()
            .map(|(name, samples, total)| (name, Stats::from_ns(samples), total))
            .collect();

        for &thread in &threads {
            let r = &tree.rows[thread];
            let Facts::Thread {
                key,
                calls,
                top_level_calls,
                total_ns,
            } = &r.facts
            else {
                continue;
            };
            let mut info = vec![
                format!("pid {}", key.pid),
                format!(
                    "{}, {} top-level",
                    format::count(*calls as usize, "call"),
                    top_level_calls
                ),
            ];
            if let Some(host) = &key.host {
                info.insert(0, host.to_string());
            }
            let t = data.push_node(TreeNode {
                name: r.name.clone(),
                kind: NodeKind::Other,
                info: info.join(" · "),
                depth: 0,
                parent: None,
                children: Vec::new(),
                stats: r.stats.clone(),
                share: None,
                op_row: None,
                scope: None,
                findings: (0, 0),
                instruction: None,
                row: Some(thread),
            });
            data.set_total(t, *total_ns);
            // Depth-first, siblings in order, without recursion (trees may be deep).
            let mut stack: Vec<(usize, usize)> = r.children.iter().rev().map(|&c| (c, t)).collect();
            while let Some((id, parent)) = stack.pop() {
                let c = &tree.rows[id];
                let (calls, errors, inclusive, self_ns) = call_facts(&c.facts);
                let node = data.push_node(TreeNode {
                    name: c.name.clone(),
                    kind: NodeKind::Operator,
                    info: calls_info(calls, self_ns, errors),
                    depth: 0,
                    parent: Some(parent),
                    children: Vec::new(),
                    stats: c.stats.clone(),
                    share: c.share,
                    op_row: None,
                    scope: None,
                    findings: (0, 0),
                    instruction: None,
                    row: Some(id),
                });
                data.set_total(node, inclusive);
                stack.extend(c.children.iter().rev().map(|&k| (k, node)));
            }
        }

        // Operators by name: the table's rows, each with a tree node for the detail view.
        let ops: Vec<usize> = tree
            .roots
            .iter()
            .copied()
            .filter(|&r| tree.rows[r].kind == RowKind::Op)
            .collect();
        let total_self = ops.iter().fold(0i64, |a, &o| match &tree.rows[o].facts {
            Facts::Op { self_ns, .. } => a.saturating_add((*self_ns).max(0)),
            _ => a,
        });
        let ops_root = data.push_node(TreeNode {
            name: "operators by name".to_string(),
            kind: NodeKind::Other,
            info: format!("{} · self time shares", format::count(ops.len(), "op")),
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
        for &id in &ops {
            let op = &tree.rows[id];
            let Facts::Op {
                calls,
                errors,
                self_ns,
                shapes,
                dtypes,
                ..
            } = &op.facts
            else {
                continue;
            };
            let row = data.ops.len();
            let share = op.share.unwrap_or(0.0);
            let node = data.push_node(TreeNode {
                name: op.name.clone(),
                kind: NodeKind::Operator,
                info: calls_info(*calls, *self_ns, *errors),
                depth: 0,
                parent: Some(ops_root),
                children: Vec::new(),
                stats: op.stats.clone(),
                share: Some(share),
                op_row: Some(row),
                scope: None,
                findings: (0, 0),
                instruction: None,
                row: Some(id),
            });
            data.set_total(node, *self_ns);
            data.ops.push(OpRow {
                name: op.name.clone(),
                delegate: "-".to_string(),
                scope: None,
                step: String::new(),
                stats: op.stats.clone(),
                share,
                share_method: None,
                input_shapes: shapes
                    .as_ref()
                    .map(|sigs| {
                        sigs.iter()
                            .map(|s| format::shapes(Some(s)))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    })
                    .unwrap_or_default(),
                output_shapes: String::new(),
                self_total: Some(*self_ns as f64 / 1e6),
                dtypes: dtypes
                    .as_ref()
                    .map(|sigs| {
                        sigs.iter()
                            .map(|s| s.join(", "))
                            .collect::<Vec<_>>()
                            .join(" | ")
                    })
                    .unwrap_or_default(),
                below_resolution: None,
                failed: *errors,
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
        data.rows = Some(tree);

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

/// A call-tree node's (calls, failed calls, inclusive ns, self ns).
fn call_facts(f: &Facts) -> (u64, u64, i64, i64) {
    match f {
        Facts::Call {
            calls,
            errors,
            inclusive_ns,
            self_ns,
        } => (*calls, *errors, *inclusive_ns, *self_ns),
        _ => (0, 0, 0, 0),
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
