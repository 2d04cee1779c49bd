//! One row tree for both kinds of profile: every row an ETDump profile or a PyTorch trace
//! can show (method, delegates, plan steps, operators, kernels, trace ops, call-tree
//! nodes) with its name path, kind, instruction id, samples and shapes. `compare` (and
//! later export and the explorer) consume it, so each feature is written once for both.
//!
//! Rows are stored in pre-order (a parent before its children, siblings in profile
//! order); `parent`/`children` are indices into [`RowTree::rows`].

use crate::profile::{
    Delegate, DelegateKind, OperatorKind, OperatorStats, OtherOperator, Profile, RowSource,
};
use crate::stats::Stats;
use crate::trace::{CallNode, TraceProfile};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowKind {
    Method,
    Delegate,
    Step,
    /// An XNNPACK operator, another delegate event, or a non-delegated instruction.
    Operator,
    /// A `native_call_*` event (inside a plan step or a non-delegated instruction).
    Kernel,
    /// A trace op (all calls of one name).
    Op,
    /// A trace call-tree node (all calls reached by one name path, threads merged).
    Node,
    /// An nn.Module of the model (`RowTree::by_module`): its rows summed per run.
    Module,
}

impl RowKind {
    /// The name used in `cpuprof.compare/1` (and later contracts).
    pub fn label(self) -> &'static str {
        match self {
            RowKind::Method => "method",
            RowKind::Delegate => "delegate",
            RowKind::Step => "step",
            RowKind::Operator => "operator",
            RowKind::Kernel => "kernel",
            RowKind::Op => "op",
            RowKind::Node => "node",
            RowKind::Module => "module",
        }
    }
}

/// Which kind of profile a tree came from (a dump and a trace are never compared).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeSource {
    Dump,
    Trace,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub kind: RowKind,
    pub name: String,
    /// Names from the root to this row (this row's name last).
    pub path: Vec<String>,
    /// The delegate's instruction id (also on its steps and operators), or the
    /// non-delegated instruction's.
    pub instruction_id: Option<i32>,
    /// What a row is when its name is not enough to find its partner: the delegate kind
    /// (`cpu_plan`, `xnnpack`, `other`), or an XNNPACK operator's type (its name without
    /// the `#n` numbering).
    pub group: Option<String>,
    pub input_shapes: Option<Vec<Vec<i64>>>,
    pub output_shapes: Option<Vec<Vec<i64>>>,
    /// FLOPs and bytes of one call, from the shapes (`profile::efficiency`): operators
    /// with recorded shapes only.
    pub flops: Option<u64>,
    pub bytes: Option<u64>,
    /// The module the row's nodes lie in (`layers.0.fc`; `""` is the root module), from
    /// the ETRecord: which layer a row belongs to.
    pub module: Option<String>,
    /// The first frame of the row's stack trace (`make.py:83 in forward`).
    pub source_line: Option<String>,
    /// Samples in whole ns (per kept run for dumps, per call for traces) and their summary.
    pub stats: Stats,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub depth: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RowTree {
    pub source_kind: TreeSource,
    /// The input's name as given (dump path, or trace path).
    pub source: String,
    /// Kept runs (dump), or calls of the most-called top-level call-tree node (trace: one
    /// call per iteration of the traced loop, as near to "runs" as a trace gets).
    pub runs: usize,
    pub rows: Vec<Row>,
    pub roots: Vec<usize>,
}

pub use crate::profile::operator_type;

impl RowTree {
    fn new(source_kind: TreeSource, source: String, runs: usize) -> RowTree {
        RowTree {
            source_kind,
            source,
            runs,
            rows: Vec::new(),
            roots: Vec::new(),
        }
    }

    fn push(&mut self, parent: Option<usize>, mut row: Row) -> usize {
        let id = self.rows.len();
        row.parent = parent;
        match parent {
            Some(p) => {
                let mut path = self.rows[p].path.clone();
                path.push(row.name.clone());
                row.path = path;
                row.depth = self.rows[p].depth + 1;
                self.rows[p].children.push(id);
            }
            None => {
                row.path = vec![row.name.clone()];
                row.depth = 0;
                self.roots.push(id);
            }
        }
        self.rows.push(row);
        id
    }

    /// Rows of an ETDump profile: `Method::execute`, its delegates (steps, operators,
    /// kernels, unattributed events) and non-delegated instructions (their kernels).
    /// A profile of several methods (run signatures) has one method row per group, named
    /// by the method (`encode`, `method 2`, with its bundled input when it has one), so
    /// every path starts with the method; one method keeps the single `Method::execute`
    /// root. A method row's `group` is its signature (its children's identities), which
    /// compare pairs methods by when their names differ.
    pub fn from_profile(profile: &Profile) -> RowTree {
        let mut t = RowTree::new(
            TreeSource::Dump,
            profile.source.etdump.clone(),
            profile.runs.kept,
        );
        if profile.methods.len() > 1 {
            for m in &profile.methods {
                let mut name = m.name.clone();
                if let Some(b) = m.bundled_input_index {
                    name.push_str(&format!(" (bundled input {b})"));
                }
                t.push_method(
                    &name,
                    m.method.clone().unwrap_or_default(),
                    &m.delegates,
                    &m.other_operators,
                    m.bundled_input_index,
                );
            }
        } else {
            t.push_method(
                "Method::execute",
                profile.method.clone().unwrap_or_default(),
                &profile.delegates,
                &profile.other_operators,
                profile.methods.first().and_then(|m| m.bundled_input_index),
            );
        }
        t
    }

    fn push_method(
        &mut self,
        name: &str,
        stats: Stats,
        delegates: &[Delegate],
        other_operators: &[OtherOperator],
        bundled_input_index: Option<i32>,
    ) {
        let t = self;
        let method = t.push(None, row(RowKind::Method, name, None, stats));
        for d in delegates {
            let mut drow = row(
                RowKind::Delegate,
                &crate::units::delegate_name(d.instruction_id),
                Some(d.instruction_id),
                d.call.clone(),
            );
            drow.group = Some(
                match d.kind {
                    DelegateKind::CpuPlan => "cpu_plan",
                    DelegateKind::Xnnpack => "xnnpack",
                    DelegateKind::Other => "other",
                }
                .to_string(),
            );
            let di = t.push(Some(method), with_source(drow, d.source.as_ref()));
            for s in &d.steps {
                let si = t.push(
                    Some(di),
                    row(
                        RowKind::Step,
                        &s.name,
                        Some(d.instruction_id),
                        s.stats.clone(),
                    ),
                );
                for op in &s.operators {
                    t.push(Some(si), op_row(op, d.instruction_id));
                }
            }
            for op in &d.operators {
                t.push(Some(di), op_row(op, d.instruction_id));
            }
            for ev in &d.unattributed {
                t.push(
                    Some(di),
                    with_source(
                        row(
                            RowKind::Operator,
                            &ev.name,
                            Some(d.instruction_id),
                            ev.stats.clone(),
                        ),
                        ev.source.as_ref(),
                    ),
                );
            }
        }
        for o in other_operators {
            let oi = t.push(
                Some(method),
                with_source(
                    row(
                        RowKind::Operator,
                        &o.name,
                        Some(o.instruction_id),
                        o.stats.clone(),
                    ),
                    o.source.as_ref(),
                ),
            );
            for k in &o.kernels {
                t.push(
                    Some(oi),
                    with_source(
                        row(
                            RowKind::Kernel,
                            &k.name,
                            Some(o.instruction_id),
                            k.stats.clone(),
                        ),
                        k.source.as_ref().or(o.source.as_ref()),
                    ),
                );
            }
        }
        // The method's signature: what it calls (delegates by instruction id, other
        // instructions by name and id) and its bundled input.
        let mut sig: Vec<String> = delegates
            .iter()
            .map(|d| format!("delegate {}", d.instruction_id))
            .chain(
                other_operators
                    .iter()
                    .map(|o| format!("{} {}", o.name, o.instruction_id)),
            )
            .collect();
        if let Some(b) = bundled_input_index {
            sig.push(format!("bundled input {b}"));
        }
        t.rows[method].group = Some(sig.join("\u{1}"));
    }

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

    /// The module tree of a dump's rows, for comparing layers: under each method row, one
    /// `module` row per nn.Module (nested by path), whose samples are the per-run sums of
    /// the delegate calls and non-delegated kernels placed in it or below (each row
    /// once; a delegate spanning modules sits at their common ancestor). Runs are summed
    /// up to the fewest samples among the summed rows (a row that missed runs would
    /// otherwise shift the sums). Rows without a module are left out.
    pub fn by_module(&self) -> RowTree {
        let mut t = RowTree::new(self.source_kind, self.source.clone(), self.runs);
        for &root in &self.roots {
            let m = &self.rows[root];
            let mi = t.push(None, row(RowKind::Method, &m.name, None, m.stats.clone()));
            t.rows[mi].group = m.group.clone();
            // Module path -> summed samples and how many rows were summed.
            let mut sums: Vec<(String, Vec<i64>)> = Vec::new();
            let mut add = |path: &str, samples: &[i64]| {
                let at = match sums.iter().position(|(p, _)| p == path) {
                    Some(i) => i,
                    None => {
                        sums.push((path.to_string(), samples.to_vec()));
                        return;
                    }
                };
                let acc = &mut sums[at].1;
                acc.truncate(samples.len());
                for (a, s) in acc.iter_mut().zip(samples) {
                    *a = a.saturating_add(*s);
                }
            };
            for id in self.descendants(root) {
                let r = &self.rows[id];
                let counted = match r.kind {
                    RowKind::Delegate => true,
                    RowKind::Kernel => r
                        .parent
                        .is_some_and(|p| self.rows[p].kind == RowKind::Operator),
                    _ => false,
                };
                let Some(module) = r.module.as_deref().filter(|_| counted) else {
                    continue;
                };
                for p in module_ancestry(module) {
                    add(p, r.stats.samples.ns());
                }
            }
            // Parents before children: by path depth, then first appearance.
            let mut order: Vec<usize> = (0..sums.len()).collect();
            order.sort_by_key(|&i| module_depth(&sums[i].0));
            let mut placed: Vec<(String, usize)> = Vec::new();
            for i in order {
                let (path, samples) = &sums[i];
                let parent = module_parent(path)
                    .and_then(|pp| placed.iter().find(|(p, _)| p == pp).map(|(_, id)| *id))
                    .unwrap_or(mi);
                let name = if path.is_empty() {
                    "(root)"
                } else {
                    path.as_str()
                };
                let mut r = row(RowKind::Module, name, None, Stats::from_ns(samples.clone()));
                r.module = Some(path.clone());
                let id = t.push(Some(parent), r);
                placed.push((path.clone(), id));
            }
        }
        t
    }

    /// Every row below `id`, in pre-order.
    fn descendants(&self, id: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.rows[id].children.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.rows[i].children.iter().rev().copied());
        }
        out
    }

    /// Rows in pre-order with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Row)> {
        self.rows.iter().enumerate()
    }
}

struct MergedNode {
    name: String,
    samples: Vec<i64>,
    children: Vec<MergedNode>,
}

/// `layers.0.fc` -> `["", "layers", "layers.0", "layers.0.fc"]` (the root first).
fn module_ancestry(path: &str) -> Vec<&str> {
    let mut out = vec![""];
    if path.is_empty() {
        return out;
    }
    for (i, c) in path.char_indices() {
        if c == '.' {
            out.push(&path[..i]);
        }
    }
    out.push(path);
    out
}

fn module_parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    Some(path.rsplit_once('.').map_or("", |(p, _)| p))
}

fn module_depth(path: &str) -> usize {
    if path.is_empty() {
        0
    } else {
        1 + path.matches('.').count()
    }
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

fn row(kind: RowKind, name: &str, instruction_id: Option<i32>, stats: Stats) -> Row {
    Row {
        kind,
        name: name.to_string(),
        path: Vec::new(),
        instruction_id,
        group: None,
        input_shapes: None,
        output_shapes: None,
        flops: None,
        bytes: None,
        module: None,
        source_line: None,
        stats,
        parent: None,
        children: Vec::new(),
        depth: 0,
    }
}

fn op_row(op: &OperatorStats, instruction_id: i32) -> Row {
    let kind = match op.kind {
        OperatorKind::Kernel => RowKind::Kernel,
        OperatorKind::Xnnpack | OperatorKind::Delegate => RowKind::Operator,
    };
    let mut r = row(kind, &op.name, Some(instruction_id), op.stats.clone());
    if op.kind == OperatorKind::Xnnpack {
        r.group = Some(operator_type(&op.name).to_string());
    }
    r.input_shapes = op.input_shapes.clone();
    r.output_shapes = op.output_shapes.clone();
    r.flops = op.flops;
    r.bytes = op.bytes;
    with_source(r, op.source.as_ref())
}

/// `r` with the module and source line of `source`.
fn with_source(mut r: Row, source: Option<&RowSource>) -> Row {
    if let Some(s) = source {
        r.module = s.module.clone();
        r.source_line = s.source_line.clone();
    }
    r
}

impl Row {
    /// FLOPs and bytes per call.
    pub fn cost(&self) -> crate::profile::efficiency::Cost {
        crate::profile::efficiency::Cost {
            flops: self.flops,
            bytes: self.bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_type_strips_numbering_only() {
        assert_eq!(
            operator_type("Convolution (NHWC, F32) IGEMM #3"),
            "Convolution (NHWC, F32) IGEMM"
        );
        assert_eq!(operator_type("Add (ND) #12"), "Add (ND)");
        assert_eq!(operator_type("native_call_neg.out"), "native_call_neg.out");
        assert_eq!(operator_type("odd #"), "odd #");
        assert_eq!(operator_type("odd #x1"), "odd #x1");
    }
}
