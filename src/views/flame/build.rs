//! The flame graph of what the explorer shows (`FlameTree::from_explorer`), built once per
//! load on the loader thread (`attach`, called where `ExplorerData` is made) so that `f`
//! only lays out and draws: a 100k-frame trace's graph takes ~20 ms to build, more than
//! a key may take.

use std::sync::Arc;

use super::model::{ms_to_ns, op_type, FlameSource, FlameTree, Frame, FrameKind, OpType};
use crate::app::data::{ExplorerData, NodeKind, SourceKind};
use crate::profile::efficiency::Cost;

/// Build `data`'s flame graph and keep it in `data.flame`.
pub fn attach(data: &mut ExplorerData) {
    data.flame = Some(Arc::new(FlameTree::from_explorer(data)));
}

/// Whether a tree node is a synthesized self-time row (no frame of its own).
fn is_self_time(data: &ExplorerData, id: usize) -> bool {
    data.nodes[id].kind == NodeKind::Overhead
}

impl FlameTree {
    /// The graph of what the explorer shows: a dump's methods (widths: median run, or
    /// the sum over kept runs), a trace's call tree per thread (inclusive time).
    pub fn from_explorer(data: &ExplorerData) -> FlameTree {
        let trace = data.kind == SourceKind::Trace;
        let roots: Vec<usize> = data
            .roots
            .iter()
            .copied()
            // A trace's "operators by name" list is the table's, not the call tree.
            .filter(|&r| {
                !(trace
                    && data.nodes[r].op_row.is_none()
                    && data.nodes[r].name == "operators by name")
            })
            .collect();
        let mut t = FlameTree::empty(
            if trace {
                FlameSource::Trace
            } else {
                FlameSource::Dump
            },
            if trace {
                ["inclusive time, all calls", "inclusive time, all calls"]
            } else {
                ["median run", "sum over kept runs"]
            },
        );
        t.frames.reserve(data.nodes.len() + 1);
        // Names repeat (every run of a layer, every call of an op): type each once.
        let mut types: std::collections::HashMap<&str, Option<OpType>> = Default::default();
        let value = |id: usize| -> [u64; 2] {
            let s = &data.nodes[id].stats;
            // Negative samples (a remainder's) count as none.
            let sum = s
                .samples
                .ns()
                .iter()
                .fold(0u64, |a, &ns| a.saturating_add(ns.max(0) as u64));
            if trace {
                [sum, sum]
            } else {
                [ms_to_ns(s.median()), sum]
            }
        };
        if roots.len() != 1 {
            t.frames.push(Frame {
                label: if trace { "all threads" } else { "all methods" }.into(),
                kind: FrameKind::Root,
                op_type: None,
                parent: None,
                children: Vec::new(),
                values: [0, 0],
                node: None,
                diff: None,
                cost: None,
                depth: 0,
                dup: 0,
            });
        }
        // Depth-first, parents before children (the tree is stored that way too).
        let mut stack: Vec<(usize, Option<u32>)> = roots
            .iter()
            .rev()
            .map(|&r| (r, t.frames.first().map(|_| 0)))
            .collect();
        while let Some((id, parent)) = stack.pop() {
            let n = &data.nodes[id];
            let kind = match n.kind {
                NodeKind::Method => FrameKind::Root,
                NodeKind::Delegate => FrameKind::Delegate,
                NodeKind::Step => FrameKind::Step,
                NodeKind::Operator if trace => FrameKind::Other,
                NodeKind::Operator if n.scope.is_some() => FrameKind::Operator,
                NodeKind::Operator => FrameKind::Kernel,
                _ if parent.is_none() => FrameKind::Root,
                NodeKind::Instruction => FrameKind::Kernel,
                NodeKind::Other | NodeKind::Overhead => FrameKind::Other,
            };
            let label = match (n.kind, n.instruction) {
                _ if trace => n.name.clone(),
                // The folded export's rule (one rule: `units`).
                (NodeKind::Delegate, Some(i)) => crate::units::delegate_name(i),
                (NodeKind::Instruction, Some(i)) if !n.children.is_empty() => {
                    // The event's name in the dump, as the folded export's timeline has it
                    // (the node is named after what it runs).
                    crate::units::instruction_frame("OPERATOR_CALL", i)
                }
                _ => n.name.clone(),
            };
            // Plan steps are named after their nodes (`conv2d+18`), not what they run.
            let op = matches!(
                kind,
                FrameKind::Operator | FrameKind::Kernel | FrameKind::Other
            )
            .then(|| {
                *types
                    .entry(n.name.as_str())
                    .or_insert_with(|| op_type(&n.name))
            })
            .flatten();
            // Several methods: the folded export's `method;Method::execute` frames.
            let parent = match n.name.strip_prefix("Method::execute · ") {
                Some(method) if n.kind == NodeKind::Method => {
                    let m = t.push(parent, method.to_string(), FrameKind::Root, value(id));
                    t.frames[m as usize].node = Some(id);
                    Some(m)
                }
                _ => parent,
            };
            let label = if n.kind == NodeKind::Method {
                "Method::execute".to_string()
            } else {
                label
            };
            let f = t.push(parent, label, kind, value(id));
            t.frames[f as usize].op_type = op;
            t.frames[f as usize].node = Some(id);
            t.frames[f as usize].cost = cost(data, id);
            for &c in n.children.iter().rev() {
                if !is_self_time(data, c) {
                    stack.push((c, Some(f)));
                }
            }
        }
        t.finish();
        t
    }
}

/// FLOPs and bytes of a node: its operator-table row's, else its profile row's (a kernel
/// whose counts come from its shapes).
fn cost(data: &ExplorerData, id: usize) -> Option<Cost> {
    let n = &data.nodes[id];
    let c = match n.op_row.and_then(|r| data.ops.get(r)) {
        Some(op) if op.cost.flops.is_some() || op.cost.bytes.is_some() => op.cost,
        _ => data.rows.as_ref()?.rows.get(n.row?)?.cost(),
    };
    (c.flops.is_some() || c.bytes.is_some()).then_some(c)
}
