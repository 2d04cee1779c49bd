//! The profile model: what the dump reader builds, and the shape of the `profile.json`
//! contract (`cpuprof.profile/1`): extend it, never rename fields. Its rows go on to the
//! row model (`rows::RowTree`), which every output reads; `profile.json`'s writer takes
//! the document's own fields from here and the rows from the row model, byte for byte
//! this derive (`report::profile_json`'s tests).

use serde::{Deserialize, Serialize};

use super::Stats;
use crate::runlog::{CpuPlan, LogLines};

pub const PROFILE_SCHEMA: &str = "cpuprof.profile/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub schema: String,
    pub unit: String,
    pub source: ProfileSource,
    pub runs: RunCounts,
    /// `Method::execute` over kept runs.
    pub method: Option<Stats>,
    pub delegates: Vec<Delegate>,
    pub other_operators: Vec<OtherOperator>,
    /// Method time not covered by delegates and other operators (per kept run).
    #[serde(default)]
    pub remainder: Option<Stats>,
    /// Load-time events of the `Default` block.
    #[serde(default)]
    pub load: Option<LoadTimes>,
    pub warnings: Vec<Finding>,
    pub errors: Vec<Finding>,
    /// Runner log lines, for the log view (not part of profile.json).
    #[serde(skip)]
    pub log_lines: LogLines,
    /// Every group of runs with one signature (one method, or one bundled input), in
    /// order of first appearance. The top-level fields describe `methods[0]`.
    #[serde(default)]
    pub methods: Vec<MethodProfile>,
    /// The clock resolution assumed when reading durations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// Cold leading runs found by the `auto` warm-up rule in the first method (whether or
    /// not they were dropped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_runs: Option<ColdRuns>,
    /// The nn.Module tree of `methods[0]` with inclusive times (from the ETRecord; empty
    /// without one).
    #[serde(default)]
    pub modules: Vec<ModuleTotal>,
    /// The ETRecord and program read with the dump, when there were any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_files: Option<ModelFiles>,
    /// Every method load of the dump (one per `Default` block with load-time events), in
    /// order. Two methods with identical run signatures are one profile (as the Inspector
    /// groups them), but each keeps its load here (a `merged_methods` warning says so).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<LoadTimes>,
    /// Which rule chose the warm-up count (given, the runner log's, or auto) and the
    /// header line that says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_rule: Option<super::warmup::WarmupRule>,
    /// A dump of several methods: what it holds (the top-level fields describe
    /// `methods[0]`; each method's own are in `methods`). None for one method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dump: Option<DumpMethods>,
}

/// `profile.json` `dump` (#43): the methods and `Execute` runs of a dump of several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DumpMethods {
    pub methods: usize,
    /// Runs of every method, warm-ups included.
    pub runs_total: usize,
    pub runs_kept: usize,
    /// Index in `methods` of the method the top-level fields describe (always 0).
    pub top_level_method: usize,
}

impl DumpMethods {
    pub fn of(methods: &[MethodProfile]) -> Option<DumpMethods> {
        (methods.len() > 1).then(|| DumpMethods {
            methods: methods.len(),
            runs_total: methods.iter().map(|m| m.runs.total).sum(),
            runs_kept: methods.iter().map(|m| m.runs.kept).sum(),
            top_level_method: 0,
        })
    }
}

/// One group of `Execute` runs with one signature: a method (or a method on one bundled
/// input), profiled on its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodProfile {
    pub index: usize,
    /// The method name when the runner log says it, else `method 1`, `method 2`, ...
    pub name: String,
    pub bundled_input_index: Option<i32>,
    pub runs: RunCounts,
    pub method: Option<Stats>,
    pub delegates: Vec<Delegate>,
    pub other_operators: Vec<OtherOperator>,
    pub remainder: Option<Stats>,
    pub warnings: Vec<Finding>,
    pub errors: Vec<Finding>,
    #[serde(default)]
    pub load: Option<LoadTimes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold_runs: Option<ColdRuns>,
    /// This method's nn.Module tree with inclusive times (from the ETRecord).
    #[serde(default)]
    pub modules: Vec<ModuleTotal>,
}

/// Clock resolution assumed per kind of event (ms).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// XNNPACK operator events: whole microseconds.
    pub xnnpack_operator_ms: f64,
    /// Every other event: the dump's tick (ns), or the largest unit all its durations are
    /// whole multiples of, up to 1 µs.
    pub other_ms: f64,
    /// XNNPACK operators whose median is below one quantum (shown as `<1 µs`).
    pub operators_below_resolution: usize,
}

/// What the `auto` warm-up rule finds in `Method::execute`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColdRuns {
    /// Leading runs the rule calls cold.
    pub count: usize,
    /// Whether they were dropped (`--warmup auto`).
    pub dropped: bool,
    pub reason: String,
}

impl OperatorStats {
    /// An XNNPACK operator whose median is under the 1 µs clock quantum: its time is not
    /// 0 but unknown below 1 µs.
    pub fn below_resolution(&self) -> bool {
        self.kind == OperatorKind::Xnnpack
            && self.stats.count > 0
            && self.stats.median() < XNNPACK_QUANTUM_MS
    }
}

/// The clock quantum of XNNPACK operator events (ms).
pub const XNNPACK_QUANTUM_MS: f64 = 0.001;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSource {
    pub etdump: String,
    pub log: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCounts {
    pub total: usize,
    pub warmup_dropped: usize,
    pub kept: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelegateKind {
    /// A CpuBackend delegate (plan steps), with or without a decodable plan.
    CpuPlan,
    /// A plain XNNPACK delegate: operators directly under the call.
    Xnnpack,
    Other,
}

impl DelegateKind {
    /// The kind as every text output names it (the explorer's tree, `report`).
    pub fn label(self) -> &'static str {
        match self {
            DelegateKind::CpuPlan => "CpuBackend",
            DelegateKind::Xnnpack => "XNNPACK",
            DelegateKind::Other => "other",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delegate {
    pub instruction_id: i32,
    pub kind: DelegateKind,
    /// The `DELEGATE_CALL` event over kept runs.
    pub call: Stats,
    /// Shared with the row model's delegate row (`rows::Facts::Delegate`).
    pub plan: Option<std::sync::Arc<CpuPlan>>,
    /// Index of the log's chunk sequence this plan came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_sequence: Option<usize>,
    pub steps: Vec<PlanStep>,
    pub operators: Vec<OperatorStats>,
    pub unattributed: Vec<EventStats>,
    /// What the delegate call runs in the model (from the ETRecord), null when unknown.
    #[serde(default)]
    pub source: Option<RowSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanStep {
    pub name: String,
    pub provider: String,
    pub implementation: String,
    /// Node names from the plan; without a plan only the first node is known.
    pub nodes: Vec<String>,
    /// Node count (from the plan, or from the `+N` suffix of the step name).
    #[serde(default)]
    pub node_count: usize,
    pub stats: Stats,
    /// Share of the delegate call's median (0..1).
    #[serde(default)]
    pub share: f64,
    pub operators: Vec<OperatorStats>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    /// An XNNPACK operator event (`<op> #<n>`).
    Xnnpack,
    /// A portable kernel event (`native_call_*`).
    Kernel,
    /// Any other delegate event.
    Delegate,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperatorStats {
    pub name: String,
    pub kind: OperatorKind,
    pub stats: Stats,
    /// Share of the parent's median (step, or delegate call without a plan).
    #[serde(default)]
    pub share: f64,
    pub input_shapes: Option<Vec<Vec<i64>>>,
    pub output_shapes: Option<Vec<Vec<i64>>>,
    /// Where the operator comes from in the model (an XNNPACK operator: its delegate's
    /// nodes, `through_delegate`), null when unknown.
    #[serde(default)]
    pub source: Option<RowSource>,
    /// Floating-point operations of one call, from the shapes (`profile::efficiency`);
    /// null when the shapes are missing or no rule applies.
    #[serde(default)]
    pub flops: Option<u64>,
    /// Bytes of the inputs and outputs of one call, at the element type of the name;
    /// null when the shapes or the type are missing.
    #[serde(default)]
    pub bytes: Option<u64>,
}

impl OperatorStats {
    /// FLOPs and bytes per call.
    pub fn cost(&self) -> super::efficiency::Cost {
        super::efficiency::Cost {
            flops: self.flops,
            bytes: self.bytes,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventStats {
    pub name: String,
    pub stats: Stats,
    #[serde(default)]
    pub source: Option<RowSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherOperator {
    pub instruction_id: i32,
    pub name: String,
    pub stats: Stats,
    /// The kernel events (`native_call_*`) recorded inside this instruction.
    #[serde(default)]
    pub kernels: Vec<EventStats>,
    #[serde(default)]
    pub source: Option<RowSource>,
}

/// The export-time files read beside the dump.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelFiles {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etrecord: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
}

/// What a row runs in the model, from the ETRecord: the edge program's nodes that carry
/// the row's debug handles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowSource {
    /// The debug handles of the row (`debug_handle_map`, or the delegate's own map).
    pub debug_handles: Vec<u64>,
    /// Node names, in graph order.
    pub nodes: Vec<String>,
    /// One per node, as the Inspector lists them (`aten.flip.default`).
    pub op_types: Vec<String>,
    /// The innermost module path of each distinct module, in node order (`layers.0.fc`;
    /// `""` is the root module).
    pub modules: Vec<String>,
    /// The deepest module every node lies in (the row's place in the module tree).
    #[serde(default)]
    pub module: Option<String>,
    /// The first frame of the first node's stack trace (`make.py:83 in forward`).
    pub source_line: Option<String>,
    /// `path/to/make.py:83` of that frame.
    #[serde(default)]
    pub file_line: Option<String>,
    /// An operator inside a delegate whose own events the ETRecord does not map (XNNPACK):
    /// these are the delegate's nodes, not the operator's.
    #[serde(default)]
    pub through_delegate: bool,
    /// Each node's `nn_module_stack` (key, module path, module type), as the Inspector's
    /// `module_hierarchy` (node name first; not in profile.json). Shared, not copied,
    /// when a delegate's source is given to each of its operators.
    #[serde(skip)]
    pub module_stacks: std::sync::Arc<[(String, Vec<[String; 3]>)]>,
    /// Each node's whole stack trace text, as the Inspector's `stack_traces` (node name
    /// first; not in profile.json). Shared like `module_stacks`.
    #[serde(skip)]
    pub stack_traces: std::sync::Arc<[(String, String)]>,
    /// Where `debug_handle_map` lists a handle more often than the ETRecord reader keeps
    /// (`etrecord::FullCounts`): how many `op_types` entries the Inspector has beyond
    /// `op_types`, and its last one (not in profile.json).
    #[serde(skip)]
    pub op_types_past_cap: Option<(u64, String)>,
    /// A delegate call's backend as `delegate_map` names it (`XnnpackBackend`; empty where
    /// the entry has no name), where the map has the call (not in profile.json).
    #[serde(skip)]
    pub backend: Option<String>,
}

impl RowSource {
    /// The module chain shown for a row: `layers.0.fc` or `(root)`.
    pub fn module_label(&self) -> Option<&str> {
        self.module
            .as_deref()
            .map(|m| if m.is_empty() { "(root)" } else { m })
    }
}

/// One nn.Module with the time of the rows whose nodes lie in it or below.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleTotal {
    /// Dotted path (`layers.0.fc`); `""` is the root module.
    pub path: String,
    /// The module class (`torch.nn.modules.linear.Linear`).
    #[serde(rename = "type")]
    pub ty: String,
    /// Depth in the tree (the root is 0).
    pub depth: usize,
    /// Index of the parent in the same list (pre-order), None for the root.
    pub parent: Option<usize>,
    /// Sum over the kept runs' medians of the kernel and delegate rows with a node in
    /// this module or below, each row counted once (ms).
    pub median_total: f64,
    /// The same with means (the Inspector's `find_total_for_module`).
    pub mean_total: f64,
    /// `median_total` over the median of `Method::execute` (0..1).
    pub share: f64,
    /// The part of `median_total` from rows that also have nodes outside this module
    /// (a delegate spanning modules): not attributable to this module alone (ms).
    pub median_not_attributable: f64,
    /// Rows placed here: every node of the row lies in this module or below, and no
    /// single child holds them all.
    pub rows: Vec<ModuleRow>,
}

/// A row of a module (a delegate call or a kernel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModuleRow {
    /// `delegate` or `kernel`.
    pub kind: String,
    pub name: String,
    pub instruction_id: i32,
    pub median: f64,
    pub mean: f64,
    /// Its nodes lie in several child modules: the split between them is unknown.
    pub spans_children: bool,
}

/// A warning or error found while profiling (never a crash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: String,
    pub message: String,
    /// The event or step concerned, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instruction_id: Option<i32>,
}

impl Finding {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Finding {
            kind: kind.to_string(),
            message: message.into(),
            event: None,
            instruction_id: None,
        }
    }
}

/// Durations of the load-time events (ms), when the dump has them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LoadTimes {
    pub method_init: Option<f64>,
    pub program_load_method: Option<f64>,
}
