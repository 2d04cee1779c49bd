//! The one row model: every row an ETDump profile or a PyTorch trace can show (method,
//! delegates, plan steps, operators, kernels, non-delegated instructions, the self-time
//! rows, trace ops and call-tree nodes) with its kind, name path, instruction id, typed
//! facts, shapes, source, cost and statistics over whole-ns samples. Built once per
//! profile (`from_profile`, `dump.rs`) or trace (`from_trace`, `trace.rs`); the explorer's
//! tree and table, compare, fleet, watch mode and the reports read it. A profile read with
//! an ETRecord has its module trees as rows too (`modules_of`, `modules.rs`).
//!
//! Rows are stored in pre-order (a parent before its children, siblings in profile
//! order); `parent`/`children` are indices into [`RowTree::rows`].

mod dump;
mod modules;
pub mod overhead;
mod trace;

pub use dump::share_of;

use std::sync::Arc;

use crate::profile::{DelegateKind, OperatorKind, RowSource};
use crate::runlog::CpuPlan;
use crate::stats::Stats;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowKind {
    Method,
    Delegate,
    Step,
    /// An XNNPACK operator, another delegate event, or an unattributed delegate event.
    Operator,
    /// A `native_call_*` event (inside a plan step or a non-delegated instruction).
    Kernel,
    /// A non-delegated instruction (`OPERATOR_CALL`), its kernels below it.
    Instruction,
    /// A self-time row, derived from its parent and siblings: a delegate's `(overhead)`
    /// (its time outside its steps or operators) or a method's `(remainder)`. Compare
    /// and fleet pair the measured rows only.
    Overhead,
    /// A trace op (all calls of one name).
    Op,
    /// A trace's thread: its call tree below it.
    Scope,
    /// A trace call-tree node: all calls reached by one name path on its thread (threads
    /// merged in `RowTree::merged_threads`).
    Node,
    /// An nn.Module of the model (`RowTree::by_module`): its rows summed per run.
    Module,
}

impl RowKind {
    /// The name used in `cpuprof.compare/1` and `cpuprof.fleet/1`. A non-delegated
    /// instruction is an `operator` there (the contracts named it so before the model
    /// told the two apart; contracts are extended, never renamed).
    pub fn label(self) -> &'static str {
        match self {
            RowKind::Method => "method",
            RowKind::Delegate => "delegate",
            RowKind::Step => "step",
            RowKind::Operator | RowKind::Instruction => "operator",
            RowKind::Kernel => "kernel",
            RowKind::Overhead => "overhead",
            RowKind::Op => "op",
            RowKind::Scope => "scope",
            RowKind::Node => "node",
            RowKind::Module => "module",
        }
    }

    /// An operator as the contracts and the comparison tables count it: a delegate's
    /// operator or a non-delegated instruction.
    pub fn is_operator(self) -> bool {
        matches!(self, RowKind::Operator | RowKind::Instruction)
    }
}

/// What a row of a kind knows beyond the common fields (display facts of the profile,
/// never parsed back from text).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Facts {
    #[default]
    None,
    /// A method: its kept runs, the warm-up runs dropped before them, and whether it has
    /// a `Method::execute` time (its statistics are empty otherwise).
    Method {
        kept: usize,
        warmup: usize,
        timed: bool,
    },
    /// A delegate call: its backend and, for a CpuBackend delegate, the plan found for it
    /// in the runner log (shared with the profile) and the log's chunk sequence it came
    /// from.
    Delegate {
        backend: DelegateKind,
        plan: Option<Arc<CpuPlan>>,
        plan_sequence: Option<usize>,
    },
    /// A plan step: the provider and implementation that ran it, the graph nodes its name
    /// counts, and the nodes the plan lists for it (without a plan, the first only).
    Step {
        provider: String,
        implementation: String,
        node_count: usize,
        nodes: Vec<String>,
    },
    /// An operator or a kernel: what recorded it, and whether its median is under the
    /// XNNPACK clock quantum (its times read `<1 µs`).
    Operator {
        kind: OperatorKind,
        below_resolution: bool,
    },
    /// A delegate event no step or operator claims.
    Unattributed,
    /// A delegate's `(overhead)`: its time outside its plan steps (`steps`) or operators.
    DelegateOverhead { steps: bool },
    /// A method's `(remainder)`: its time outside delegates and operators.
    Remainder,
    /// A trace op: its calls, failed calls (exits without an entry), total inclusive time
    /// (every successful call's, nested calls of the same op included, as
    /// `key_averages()` counts), the same without calls nested in a call of the same op
    /// (`outer_ns`), total self time, and every distinct input signature (first seen
    /// first; None where the source has none). Its fastest and slowest call are its
    /// samples' (`Row::min_max_ns`).
    Op {
        calls: u64,
        errors: u64,
        inclusive_ns: i64,
        outer_ns: i64,
        self_ns: i64,
        shapes: Option<Vec<Vec<Vec<i64>>>>,
        dtypes: Option<Vec<Vec<String>>>,
    },
    /// A trace's thread: its key, its calls, its top-level calls and their total time.
    Thread {
        key: crate::trace::ThreadKey,
        calls: u64,
        top_level_calls: u64,
        total_ns: i64,
    },
    /// A call-tree node: its calls, failed calls, inclusive and self time in total.
    Call {
        calls: u64,
        errors: u64,
        inclusive_ns: i64,
        self_ns: i64,
    },
    /// An nn.Module of a method with the Inspector's totals (`RowTree::modules_of`): its
    /// class; the sums of the medians and of the means (ms) of the rows with a node in it
    /// or below, each row once (`find_total_for_module`); the median sum's share of the
    /// method's median; the part of it from rows that also have nodes outside the module
    /// (ms); and the rows placed in it.
    Module {
        ty: String,
        median_total: f64,
        mean_total: f64,
        share: f64,
        not_attributable: f64,
        rows: Vec<ModuleMember>,
    },
}

/// A row a module holds (a delegate call or a non-delegated kernel): its row in the
/// dump's tree (`RowTree::from_profile`) where found, and the figures the module sums.
#[derive(Debug, Clone, PartialEq)]
pub struct ModuleMember {
    pub row: Option<usize>,
    /// `Delegate` or `Kernel`.
    pub kind: RowKind,
    pub name: String,
    pub instruction_id: i32,
    /// Median and mean over the kept runs (ms).
    pub median: f64,
    pub mean: f64,
    /// Its nodes lie in several child modules: the split between them is unknown.
    pub spans_children: bool,
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
    /// The delegate's instruction id (also on its steps and operators), or the
    /// non-delegated instruction's.
    pub instruction_id: Option<i32>,
    /// What a row is when its name is not enough to find its partner: the delegate kind
    /// (`cpu_plan`, `xnnpack`, `other`), or an XNNPACK operator's type (its name without
    /// the `#n` numbering).
    pub group: Option<String>,
    /// The kind's own facts.
    pub facts: Facts,
    /// Its share of its parent's time (0..1) where the profile or the model knows it: a
    /// step's or operator's of its parent, a delegate's or instruction's of the method's
    /// median, a self-time row's of its parent's time per run.
    pub share: Option<f64>,
    pub input_shapes: Option<Vec<Vec<i64>>>,
    pub output_shapes: Option<Vec<Vec<i64>>>,
    /// FLOPs and bytes of one call, from the shapes (`profile::efficiency`): operators
    /// with recorded shapes only.
    pub flops: Option<u64>,
    pub bytes: Option<u64>,
    /// The row's own place in the model (ETRecord): nodes, module chain, stack frame.
    pub source: Option<RowSource>,
    /// The module the row's nodes lie in (`layers.0.fc`; `""` is the root module): its
    /// own source's, or for a kernel of a non-delegated instruction, the instruction's.
    pub module: Option<String>,
    /// The first frame of the row's stack trace (`make.py:83 in forward`), taken as
    /// `module` is.
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
                row.depth = self.rows[p].depth + 1;
                self.rows[p].children.push(id);
            }
            None => {
                row.depth = 0;
                self.roots.push(id);
            }
        }
        self.rows.push(row);
        id
    }

    /// Every row below `id`, in pre-order.
    pub(crate) fn descendants(&self, id: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.rows[id].children.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.rows[i].children.iter().rev().copied());
        }
        out
    }

    /// How many rows lie below `id` (pre-order: they follow it).
    pub fn descendant_count(&self, id: usize) -> usize {
        let depth = self.rows[id].depth;
        self.rows[id + 1..]
            .iter()
            .take_while(|r| r.depth > depth)
            .count()
    }

    /// The tree without its self-time rows (`RowKind::Overhead`): the measured rows,
    /// which fleet pairs across profiles.
    pub fn measured(self) -> RowTree {
        let mut new_id: Vec<Option<usize>> = Vec::with_capacity(self.rows.len());
        let mut rows: Vec<Row> = Vec::with_capacity(self.rows.len());
        for r in self.rows {
            // Parents come first: a dropped row's children are dropped with it.
            let parent = match r.parent {
                Some(p) => match new_id.get(p).copied().flatten() {
                    Some(np) => Some(np),
                    None => {
                        new_id.push(None);
                        continue;
                    }
                },
                None => None,
            };
            if r.kind == RowKind::Overhead {
                new_id.push(None);
                continue;
            }
            new_id.push(Some(rows.len()));
            rows.push(Row {
                parent,
                children: Vec::new(),
                ..r
            });
        }
        let roots = self.roots.iter().filter_map(|&r| new_id[r]).collect();
        for i in 0..rows.len() {
            if let Some(p) = rows[i].parent {
                rows[p].children.push(i);
            }
        }
        RowTree {
            rows,
            roots,
            ..self
        }
    }

    /// The operator and kernel rows of delegate row `d` (`Facts::Operator`): its steps'
    /// operators, then its own, in order; no self-time or unattributed rows.
    pub fn delegate_operators(&self, d: usize) -> impl Iterator<Item = &Row> + '_ {
        let rows = &self.rows;
        rows[d]
            .children
            .iter()
            .flat_map(move |c| match rows[*c].kind {
                RowKind::Step => rows[*c].children.as_slice(),
                _ => std::slice::from_ref(c),
            })
            .map(move |&i| &rows[i])
            .filter(|r| matches!(r.facts, Facts::Operator { .. }))
    }

    /// Names from the root to row `id` (its name last). Made on demand: a deep call tree
    /// would otherwise hold depth² names.
    pub fn path(&self, id: usize) -> Vec<String> {
        let mut out = Vec::with_capacity(self.rows[id].depth + 1);
        let mut at = Some(id);
        while let Some(i) = at {
            out.push(self.rows[i].name.clone());
            at = self.rows[i].parent.filter(|&p| p < i);
        }
        out.reverse();
        out
    }

    /// Rows in pre-order with their ids.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Row)> {
        self.rows.iter().enumerate()
    }
}

/// A row of `kind` with nothing but its name, instruction id and statistics.
pub(crate) fn row(kind: RowKind, name: &str, instruction_id: Option<i32>, stats: Stats) -> Row {
    Row {
        kind,
        name: name.to_string(),
        instruction_id,
        group: None,
        facts: Facts::None,
        share: None,
        input_shapes: None,
        output_shapes: None,
        flops: None,
        bytes: None,
        source: None,
        module: None,
        source_line: None,
        stats,
        parent: None,
        children: Vec::new(),
        depth: 0,
    }
}

impl Row {
    /// The shortest and the longest sample (whole ns); None without samples (a trace op
    /// whose every call failed).
    pub fn min_max_ns(&self) -> Option<(i64, i64)> {
        let ns = self.stats.samples.ns();
        Some((*ns.iter().min()?, *ns.iter().max()?))
    }

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
