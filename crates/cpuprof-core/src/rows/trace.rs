//! The rows of a PyTorch trace: one `op` row per op name, then one `scope` row per thread
//! with its call tree as `node` rows; and the same call trees with the threads merged
//! (`merged_threads`), which compare and fleet pair.

use std::collections::{HashMap, HashSet};

use super::{row, Facts, Row, RowKind, RowTree, TreeSource};
use crate::stats::Stats;
use crate::trace::{CallNode, ThreadKey, TraceProfile};

impl RowTree {
    /// Rows of a PyTorch trace: one `op` row per op name (all calls, in the tally's
    /// order; its share is of all ops' self time), then per thread a `scope` row (its
    /// top-level calls' samples) holding its call tree as `node` rows (all calls reached
    /// by one name path on that thread; a node's share is of its parent's total).
    pub fn from_trace(trace: &TraceProfile) -> RowTree {
        RowTree::trace_rows(trace, true)
    }

    /// The `op` rows and the `scope` rows of a trace without the call trees below the
    /// threads: what the reports read (`cpuprof.trace/1`, its CSV, the tally), which write
    /// no call tree.
    pub fn trace_ops(trace: &TraceProfile) -> RowTree {
        RowTree::trace_rows(trace, false)
    }

    fn trace_rows(trace: &TraceProfile, call_trees: bool) -> RowTree {
        // As many "runs" as the most-called top-level name has calls, threads merged.
        let mut top: HashMap<&str, usize> = HashMap::new();
        for root in trace.call_trees.iter().flat_map(|t| &t.roots) {
            *top.entry(&*root.name).or_insert(0) += root.samples_ns.len();
        }
        let runs = top.values().copied().max().unwrap_or(0);
        let mut t = RowTree::new(TreeSource::Trace, trace.trace.clone(), runs);
        let total_self = trace
            .ops
            .iter()
            .fold(0i64, |a, o| a.saturating_add(o.self_total_ns.max(0)));
        for op in &trace.ops {
            let mut r = row(RowKind::Op, &op.name, None, op.stats.clone());
            // One shape list when the op always saw the same inputs.
            if let Some([only]) = op.input_shapes.as_deref() {
                r.input_shapes = Some(only.clone());
            }
            r.facts = Facts::Op {
                calls: op.calls,
                errors: op.errors,
                inclusive_ns: op.inclusive_total_ns,
                outer_ns: op.inclusive_outer_total_ns,
                self_ns: op.self_total_ns,
                shapes: op.input_shapes.clone(),
                dtypes: op.dtypes.clone(),
            };
            r.share = Some(if total_self > 0 {
                op.self_total_ns.max(0) as f64 / total_self as f64
            } else {
                0.0
            });
            t.push(None, r);
        }
        // A thread's calls by its key: a thread whose calls are all Python frames (left
        // out without `--python-frames`) has a call tree and no calls.
        let calls: HashMap<&ThreadKey, u64> =
            trace.threads.iter().map(|t| (&t.key, t.calls)).collect();
        let with_tree: HashSet<&ThreadKey> = trace.call_trees.iter().map(|t| &t.thread).collect();
        // Every thread without a call tree (none in a model built from intervals), after.
        let bare = trace
            .threads
            .iter()
            .filter(|th| !with_tree.contains(&th.key))
            .map(|th| (&th.key, &[][..]));
        let trees = trace
            .call_trees
            .iter()
            .map(|tree| (&tree.thread, tree.roots.as_slice()))
            .chain(bare);
        for (key, roots) in trees {
            let samples: Vec<i64> = roots
                .iter()
                .flat_map(|r| r.samples_ns.iter().copied())
                .collect();
            // Saturating: hostile traces may hold durations near i64::MAX.
            let total_ns = roots
                .iter()
                .fold(0i64, |a, r| a.saturating_add(r.inclusive_ns));
            let mut scope = row(
                RowKind::Scope,
                &format!("thread {}", key.tid),
                None,
                Stats::from_ns(samples),
            );
            scope.facts = Facts::Thread {
                key: key.clone(),
                calls: calls.get(key).copied().unwrap_or(0),
                top_level_calls: roots.iter().map(|r| r.calls).sum(),
                total_ns,
            };
            let s = t.push(None, scope);
            if !call_trees {
                continue;
            }
            // Depth-first, siblings in order, without recursion (trees may be deep).
            let mut stack: Vec<(&CallNode, usize, i64)> =
                roots.iter().rev().map(|r| (r, s, total_ns)).collect();
            while let Some((call, parent, parent_ns)) = stack.pop() {
                let mut r = row(
                    RowKind::Node,
                    &call.name,
                    None,
                    Stats::from_ns(call.samples_ns.clone()),
                );
                r.facts = Facts::Call {
                    calls: call.calls,
                    errors: call.errors,
                    inclusive_ns: call.inclusive_ns,
                    self_ns: call.self_ns,
                };
                r.share = (parent_ns > 0).then(|| call.inclusive_ns as f64 / parent_ns as f64);
                let id = t.push(Some(parent), r);
                stack.extend(
                    call.children
                        .iter()
                        .rev()
                        .map(|c| (c, id, call.inclusive_ns)),
                );
            }
        }
        t
    }

    /// The `op` rows, in the tally's order (inclusive total descending, then name).
    pub fn ops(&self) -> impl Iterator<Item = &Row> + '_ {
        self.roots
            .iter()
            .map(|&r| &self.rows[r])
            .filter(|r| r.kind == RowKind::Op)
    }

    /// The threads of a trace that made calls (`scope` rows; Python frames aside without
    /// `--python-frames`), in the trace's order.
    pub fn threads(&self) -> impl Iterator<Item = &Row> + '_ {
        self.roots
            .iter()
            .map(|&r| &self.rows[r])
            .filter(|r| matches!(r.facts, Facts::Thread { calls, .. } if calls > 0))
    }

    /// The trace's rows with its threads' call trees merged by name path (thread ids
    /// differ between two recordings of the same program, call paths do not): the `op`
    /// rows, then the merged `node` rows as roots, samples in thread order. What compare
    /// and fleet pair. A tree without `scope` rows is returned as it is.
    pub fn merged_threads(&self) -> RowTree {
        if !self.rows.iter().any(|r| r.kind == RowKind::Scope) {
            return self.clone();
        }
        let mut merged: Vec<MergedNode> = Vec::new();
        for &root in &self.roots {
            if self.rows[root].kind != RowKind::Scope {
                continue;
            }
            for &c in &self.rows[root].children {
                self.merge_into(&mut merged, c, 0);
            }
        }
        let mut t = RowTree::new(self.source_kind, self.source.clone(), self.runs);
        for &root in &self.roots {
            let r = &self.rows[root];
            if r.kind == RowKind::Op {
                t.push(
                    None,
                    super::Row {
                        children: Vec::new(),
                        ..r.clone()
                    },
                );
            }
        }
        fn push_nodes(t: &mut RowTree, parent: Option<usize>, nodes: Vec<MergedNode>) {
            for n in nodes {
                let id = t.push(
                    parent,
                    row(RowKind::Node, &n.name, None, Stats::from_ns(n.samples)),
                );
                push_nodes(t, Some(id), n.children);
            }
        }
        push_nodes(&mut t, None, merged);
        t
    }

    fn merge_into(&self, level: &mut Vec<MergedNode>, id: usize, depth: usize) {
        let node = &self.rows[id];
        let idx = match level.iter().position(|m| m.name == node.name) {
            Some(i) => i,
            None => {
                level.push(MergedNode {
                    name: node.name.clone(),
                    samples: Vec::new(),
                    children: Vec::new(),
                });
                level.len() - 1
            }
        };
        let m = &mut level[idx];
        m.samples.extend_from_slice(node.stats.samples.ns());
        // The trace model already bounds depth; this keeps recursion bounded here too.
        if depth < crate::trace::MAX_TREE_DEPTH {
            for &c in &node.children {
                self.merge_into(&mut m.children, c, depth + 1);
            }
        }
    }
}

struct MergedNode {
    name: String,
    samples: Vec<i64>,
    children: Vec<MergedNode>,
}
