//! The CpuBackend plan report (`CPUPlan::describe` JSON), typed, keeping unknown keys.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CpuPlan {
    pub regions: Vec<PlanRegion>,
    #[serde(default)]
    pub preferences: Vec<Value>,
    #[serde(default)]
    pub policy: Option<String>,
    #[serde(default)]
    pub preparation_ms: Option<f64>,
    #[serde(default)]
    pub activation_arena_bytes: Option<u64>,
    #[serde(default)]
    pub private_constant_bytes: Option<u64>,
    #[serde(default)]
    pub shared_scratch_bytes: Option<u64>,
    #[serde(default)]
    pub copied_constant_bytes: Option<u64>,
    #[serde(default)]
    pub selection_context: Option<SelectionContext>,
    #[serde(default)]
    pub candidates: Vec<PlanCandidate>,
    /// Every other key (xnn_* fields, delegate_io, future additions), in emitted order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CpuPlan {
    /// The threads the plan was made for (its selection context's), when it says.
    pub fn threads(&self) -> Option<u64> {
        self.selection_context.as_ref().and_then(|c| c.threads)
    }
}

/// One plan step (a region run by one provider/implementation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanRegion {
    pub provider: String,
    pub implementation: String,
    pub nodes: Vec<String>,
    #[serde(default)]
    pub inputs: Vec<i64>,
    #[serde(default)]
    pub outputs: Vec<i64>,
    #[serde(default)]
    pub scratch_bytes: Option<u64>,
    /// A step name given by the plan itself, if a future runtime writes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PlanRegion {
    /// The ETDump step event name: the plan's own name when it has one, else
    /// `provider/implementation:first_node[+N]` (formats.md §3.3).
    pub fn step_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let first = self.nodes.first().map(String::as_str).unwrap_or("");
        match self.nodes.len() {
            0 | 1 => format!("{}/{}:{}", self.provider, self.implementation, first),
            n => format!(
                "{}/{}:{}+{}",
                self.provider,
                self.implementation,
                first,
                n - 1
            ),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelectionContext {
    #[serde(default)]
    pub threads: Option<u64>,
    #[serde(default)]
    pub avx2_fma: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanCandidate {
    #[serde(default)]
    pub node: String,
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub implementation: String,
    #[serde(default)]
    pub preference_rank: Option<i64>,
    #[serde(default)]
    pub eligible: bool,
    #[serde(default)]
    pub reason: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
