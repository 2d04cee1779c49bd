//! The rows of a PyTorch trace: one `op` row per op name, then the call tree with the
//! threads' trees merged by name path.

use super::{row, RowKind, RowTree, TreeSource};
use crate::stats::Stats;
use crate::trace::{CallNode, TraceProfile};

impl RowTree {
    /// Rows of a PyTorch trace: one `op` row per op name (all calls), then the call tree
    /// as `node` rows, the threads' trees merged by name path (thread ids differ between
    /// two recordings of the same program, call paths do not).
    pub fn from_trace(trace: &TraceProfile) -> RowTree {
        let mut merged: Vec<MergedNode> = Vec::new();
        for tree in &trace.call_trees {
            for root in &tree.roots {
                merge_into(&mut merged, root, 0);
            }
        }
        let runs = merged.iter().map(|n| n.samples.len()).max().unwrap_or(0);
        let mut t = RowTree::new(TreeSource::Trace, trace.trace.clone(), runs);
        for op in &trace.ops {
            let mut r = row(RowKind::Op, &op.name, None, op.stats.clone());
            // One shape list when the op always saw the same inputs.
            if let Some([only]) = op.input_shapes.as_deref() {
                r.input_shapes = Some(only.clone());
            }
            t.push(None, r);
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
}

struct MergedNode {
    name: String,
    samples: Vec<i64>,
    children: Vec<MergedNode>,
}

fn merge_into(level: &mut Vec<MergedNode>, node: &CallNode, depth: usize) {
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
    m.samples.extend_from_slice(&node.samples_ns);
    // The trace model already bounds depth; this keeps recursion bounded here too.
    if depth < crate::trace::MAX_TREE_DEPTH {
        for c in &node.children {
            merge_into(&mut m.children, c, depth + 1);
        }
    }
}
