//! The explorer's source-agnostic view model, built once per loaded profile (on the
//! worker thread). An ETDump profile fills it from its plan tree; a PyTorch trace can fill
//! the same structures from its call tree.

use crate::profile::efficiency::{Cost, Rates};
use crate::profile::Stats;

use super::column::Column;

/// The input-shapes cell of an XNNPACK operator whose event carried no shape metadata.
pub const SHAPES_NOT_RECORDED: &str = "shapes not recorded";

/// What a tree node stands for (drives its label and icon, not its behaviour).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Method,
    Delegate,
    Step,
    Operator,
    /// A non-delegated instruction (`OPERATOR_CALL`, its kernels below it).
    Instruction,
    /// A synthesized self-time row: a delegate's `(overhead)` (its time outside its
    /// steps or operators) or a method's `(remainder)`. A flame graph shows it as the
    /// parent's uncovered width, not as a frame.
    Overhead,
    /// An unattributed event, a call-tree frame, a list's heading.
    Other,
}

impl NodeKind {
    pub fn tag(self) -> &'static str {
        match self {
            NodeKind::Method => "method",
            NodeKind::Delegate => "delegate",
            NodeKind::Step => "step",
            NodeKind::Operator => "op",
            NodeKind::Instruction | NodeKind::Overhead | NodeKind::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    pub name: String,
    pub kind: NodeKind,
    /// Short facts shown after the name (instruction id, kind, policy, threads, nodes):
    /// display text only, never parsed (the facts are the typed fields).
    pub info: String,
    /// The instruction id of a delegate call or a non-delegated instruction (also on
    /// what lies below it in the program's tree).
    pub instruction: Option<i32>,
    /// The profile's row (`ExplorerData::rows`) this node shows, where there is one: its
    /// shapes, FLOPs and bytes, module and source.
    pub row: Option<usize>,
    pub depth: usize,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub stats: Stats,
    /// Share of the parent's median (0..1), when the parent has a time.
    pub share: Option<f64>,
    /// The operator-table row this node is, if it is an operator.
    pub op_row: Option<usize>,
    /// Index of the delegate (in `ExplorerData::scopes`) this node belongs to.
    pub scope: Option<usize>,
    /// Findings about this node or below it: (errors, warnings). The tree marks them.
    pub findings: (usize, usize),
}

/// One operator-table row.
#[derive(Debug, Clone, PartialEq)]
pub struct OpRow {
    pub name: String,
    /// Short delegate label (`d1`: instruction id 1), `-` outside delegates.
    pub delegate: String,
    pub scope: Option<usize>,
    pub step: String,
    pub stats: Stats,
    /// Share of the parent row (plan step, delegate or instruction), 0..1.
    pub share: f64,
    /// Share of `Method::execute` (ETDump), 0..1; None where the method has no time. For
    /// a row under the clock quantum (`below_resolution`), the upper bound of its share.
    pub share_method: Option<f64>,
    pub input_shapes: String,
    pub output_shapes: String,
    /// Total self time in ms (traces), None where it is not known.
    pub self_total: Option<f64>,
    /// Input dtypes (traces), empty where not known.
    pub dtypes: String,
    /// Some(parent median) for an XNNPACK operator under the 1 µs clock quantum: its
    /// times read `<1 µs` and its share is an upper bound.
    pub below_resolution: Option<f64>,
    /// Failed calls (traces): the count column shows calls and failures as the tally.
    pub failed: u64,
    /// The tree node showing this operator.
    pub node: usize,
    /// A group row (`app::groups`): how many operators it sums; 0 for an operator.
    pub instances: usize,
    /// A group row without per-run sums (instances of several methods, or not one sample
    /// in the same runs): the sum of its instances' medians, shown as its median marked
    /// `Σ`. None for a group whose stats are its time per run (their median is shown).
    pub summed_median: Option<f64>,
    /// FLOPs and bytes of one call (`profile::efficiency`); a group row's: the sums over
    /// its instances that have them.
    pub cost: Cost,
    /// Achieved GFLOP/s and GB/s at the median (a group's: over its instances with the
    /// counts, `summary::TypeGroup::rates`).
    pub rates: Rates,
    /// The time `cost` is done in (the median; a group's summed median when every
    /// instance has both counts, else NaN): the roofline's time.
    pub cost_ms: f64,
    /// On the roofline of `--peak` (filled when the profile is installed with a peak).
    pub roofline: Option<crate::profile::efficiency::Roofline>,
}

impl OpRow {
    /// The median the table shows and sorts by (a group's is its summed median).
    pub fn shown_median(&self) -> f64 {
        self.summed_median.unwrap_or(self.stats.median())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingRow {
    pub error: bool,
    pub kind: String,
    pub message: String,
    /// The delegate concerned (`delegate #1`: instruction id), when known.
    pub delegate: Option<String>,
    /// The tree node it is about (the step or operator named, else its delegate).
    pub node: Option<usize>,
}

impl FindingRow {
    /// A finding not tied to a delegate or a node (traces, load problems).
    pub fn plain(error: bool, kind: impl Into<String>, message: impl Into<String>) -> Self {
        FindingRow {
            error,
            kind: kind.into(),
            message: message.into(),
            delegate: None,
            node: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub total: usize,
    pub dropped: usize,
    pub kept: usize,
    /// Cold leading runs by the `auto` warm-up rule (`profile::warmup`).
    pub cold: usize,
    /// How the warm-up was chosen when the user did not give a count
    /// (`3 cold runs dropped (auto) · 0 keeps all`, `profile::WarmupRule::text`).
    pub warmup_text: Option<String>,
    /// A dump of several methods: the counts above are `methods[0]`'s (what the warm-up
    /// keys step); the header shows this method's. None for one method.
    pub several: Option<SeveralMethods>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SeveralMethods {
    /// The method the header shows: the one with the most runs (the first of them), not
    /// a constant method run once before the real work.
    pub shown: String,
    /// Its runs: kept, warm-up dropped, all.
    pub kept: usize,
    pub dropped: usize,
    pub total: usize,
    /// Its `Method::execute` (median, min, max in ms), when it has samples.
    pub execute: Option<(f64, f64, f64)>,
    pub methods: usize,
    /// `Execute` runs of every method (warm-ups included).
    pub all_runs: usize,
}

/// Where the data came from; decides which table columns exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SourceKind {
    #[default]
    Etdump,
    Trace,
}

impl SourceKind {
    pub fn columns(self) -> &'static [Column] {
        match self {
            SourceKind::Etdump => &Column::ETDUMP,
            SourceKind::Trace => &Column::TRACE,
        }
    }

    /// The columns with the roofline's when the machine's peaks are known.
    pub fn columns_with(self, peak: bool) -> &'static [Column] {
        match self {
            SourceKind::Etdump if peak => &Column::ETDUMP_PEAK,
            _ => self.columns(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ExplorerData {
    pub kind: SourceKind,
    /// Input files, for the header.
    pub files: Vec<String>,
    /// Traces: the top-level calls of every thread by op name (their per-call stats and
    /// total ns), the longest total first: the header gives a median per op, never one
    /// across different ops.
    pub top_level: Vec<(String, Stats, i64)>,
    /// Traces: each tree node's total time in ms (its calls' inclusive time summed; an
    /// operator-by-name node's self time), indexed like `nodes`; the share beside it is
    /// of the parent's total. Empty for dumps.
    pub node_totals: Vec<Option<f64>>,
    /// The ETRecord and program the profile read (file names), for the modules view.
    pub model_files: Option<crate::profile::ModelFiles>,
    pub runs: Option<RunSummary>,
    /// The top-level latency (ETDump: `Method::execute`), with its label.
    pub total_label: String,
    pub total: Option<Stats>,
    /// Flattened tree, parents before children; roots in `roots`.
    pub nodes: Vec<TreeNode>,
    pub roots: Vec<usize>,
    pub ops: Vec<OpRow>,
    /// `ops` grouped by operator type (`app::groups`; empty for traces, whose table is
    /// by name already).
    pub groups: Vec<OpRow>,
    /// Scopes the operator table can be limited to (ETDump: delegates), by label.
    pub scopes: Vec<String>,
    pub findings: Vec<FindingRow>,
    /// The decoded CpuBackend plans (ETDump), shown above the raw log.
    pub plans: Vec<super::plan_view::PlanText>,
    pub log: crate::runlog::LogLines,
    /// The row model the tree was read from (a dump's or a trace's): the nodes' `row`s
    /// index it; watch mode compares two runs on it.
    pub rows: Option<std::sync::Arc<crate::rows::RowTree>>,
    /// What a node runs in the model (ETDump read with an ETRecord), by node index:
    /// the detail pane's module chain and source line.
    pub sources: std::collections::HashMap<usize, crate::profile::RowSource>,
    /// The nn.Module tree of each method (ETDump read with an ETRecord): the modules view
    /// (`m`). Empty without an ETRecord.
    pub modules: Vec<MethodModules>,
    /// The flame graph of this tree (`f`), built on the loader thread
    /// (`flame_build::attach`); `None` where data was made by hand (`f` builds it then).
    pub flame: Option<std::sync::Arc<crate::views::flame::model::FlameTree>>,
}

/// One method's module tree, as `report --by-module` lays it out (the profile's
/// `modules[]`), with the tree node of every module row.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodModules {
    /// The method's name (`forward`, `prefill + decode`).
    pub method: String,
    /// The median of its `Method::execute` (ms).
    pub execute: Option<f64>,
    /// Pre-order, as the profile has them.
    pub modules: Vec<crate::profile::ModuleTotal>,
    /// For each module, for each of its rows, the tree node showing that row.
    pub row_nodes: Vec<Vec<Option<usize>>>,
}

impl ExplorerData {
    /// An operator-table row's delegate in words, from its scope (`delegate #1`, with
    /// several methods `delegate m2 #1`); a type group over several delegates lists their
    /// short labels (`delegates d1 d2`); `-` outside delegates.
    pub fn delegate_text(&self, op: &OpRow) -> String {
        match op.scope.and_then(|s| self.scopes.get(s)) {
            Some(label) => format!("delegate {label}"),
            None if op.instances > 0 && op.delegate != "-" => format!("delegates {}", op.delegate),
            None => op.delegate.clone(),
        }
    }

    pub fn error_count(&self) -> usize {
        self.findings.iter().filter(|f| f.error).count()
    }

    pub fn warning_count(&self) -> usize {
        self.findings.iter().filter(|f| !f.error).count()
    }

    /// Count each finding on its node and every ancestor (the tree's marks).
    pub(crate) fn mark_findings(&mut self) {
        for f in &self.findings {
            let mut at = f.node;
            while let Some(i) = at {
                let Some(n) = self.nodes.get_mut(i) else {
                    break;
                };
                if f.error {
                    n.findings.0 += 1;
                } else {
                    n.findings.1 += 1;
                }
                at = n.parent;
            }
        }
    }

    pub(crate) fn push_node(&mut self, mut node: TreeNode) -> usize {
        let id = self.nodes.len();
        match node.parent {
            Some(p) => {
                node.depth = self.nodes[p].depth + 1;
                self.nodes[p].children.push(id);
            }
            None => {
                node.depth = 0;
                self.roots.push(id);
            }
        }
        self.nodes.push(node);
        id
    }
}
