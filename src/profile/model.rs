//! The profile model. Its serde form *is* the `profile.json` contract
//! (`cpuprof.profile/1`): extend it, never rename fields.

use serde::{Deserialize, Serialize};

use super::Stats;
use crate::runlog::{CpuPlan, LogLine};

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
    pub log_lines: Vec<LogLine>,
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
    /// Every method load of the dump (one per `Default` block with load-time events), in
    /// order. Two methods with identical run signatures are one profile (as the Inspector
    /// groups them), but each keeps its load here (a `merged_methods` warning says so).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub loads: Vec<LoadTimes>,
    /// Which rule chose the warm-up count (given, the runner log's, or auto) and the
    /// header line that says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup_rule: Option<super::warmup::WarmupRule>,
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
            && self.stats.median < XNNPACK_QUANTUM_MS
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delegate {
    pub instruction_id: i32,
    pub kind: DelegateKind,
    /// The `DELEGATE_CALL` event over kept runs.
    pub call: Stats,
    pub plan: Option<CpuPlan>,
    /// Index of the log's chunk sequence this plan came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_sequence: Option<usize>,
    pub steps: Vec<PlanStep>,
    pub operators: Vec<OperatorStats>,
    pub unattributed: Vec<EventStats>,
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventStats {
    pub name: String,
    pub stats: Stats,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OtherOperator {
    pub instruction_id: i32,
    pub name: String,
    pub stats: Stats,
    /// The kernel events (`native_call_*`) recorded inside this instruction.
    #[serde(default)]
    pub kernels: Vec<EventStats>,
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
