//! The decoded CpuBackend plan of each delegate, as text lines for the warnings & log
//! view: regions with provider/implementation, nodes, inputs/outputs and scratch bytes;
//! the candidates with their preference rank, eligibility and reason; threads and CPU
//! features; plan-level figures. The raw `CPU_PLAN_CHUNK` log lines stay below.

use serde_json::Value;

use super::format::{bytes, count, duration_ms};
use crate::rows::{Facts, RowKind, RowTree};
use crate::runlog::CpuPlan;

/// One plan, decoded: a heading and its lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanText {
    pub title: String,
    pub lines: Vec<String>,
}

/// The plans of the first method's delegates (the profile's top-level ones), from their
/// rows.
pub fn plans(tree: &RowTree) -> Vec<PlanText> {
    let Some(&root) = tree.roots.first() else {
        return Vec::new();
    };
    tree.rows[root]
        .children
        .iter()
        .map(|&c| &tree.rows[c])
        .filter(|r| r.kind == RowKind::Delegate)
        .filter_map(|d| {
            let Facts::Delegate {
                plan: Some(plan), ..
            } = &d.facts
            else {
                return None;
            };
            Some(PlanText {
                title: format!(
                    "plan of delegate #{} (CpuBackend)",
                    d.instruction_id.unwrap_or_default()
                ),
                lines: plan_lines(plan),
            })
        })
        .collect()
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn opt_bytes(v: Option<u64>) -> String {
    v.map(bytes).unwrap_or_else(|| "-".into())
}

pub fn plan_lines(plan: &CpuPlan) -> Vec<String> {
    let mut out = Vec::new();
    let mut head = vec![format!("policy {}", plan.policy.as_deref().unwrap_or("-"))];
    if let Some(ms) = plan.preparation_ms {
        head.push(format!("prepared in {}", duration_ms(ms)));
    }
    out.push(head.join(" · "));
    out.push(format!(
        "arena {} · private constants {} · shared scratch {} · copied constants {}",
        opt_bytes(plan.activation_arena_bytes),
        opt_bytes(plan.private_constant_bytes),
        opt_bytes(plan.shared_scratch_bytes),
        opt_bytes(plan.copied_constant_bytes)
    ));
    if let Some(ctx) = &plan.selection_context {
        let mut parts = Vec::new();
        if let Some(t) = ctx.threads {
            parts.push(count(t as usize, "thread"));
        }
        if let Some(f) = ctx.avx2_fma {
            parts.push(format!("AVX2+FMA {}", if f { "yes" } else { "no" }));
        }
        for (k, v) in &ctx.extra {
            parts.push(format!("{k} {}", value_text(v)));
        }
        out.push(format!("selection context: {}", parts.join(" · ")));
    }
    if !plan.extra.is_empty() {
        let parts: Vec<String> = plan
            .extra
            .iter()
            .map(|(k, v)| format!("{k} {}", value_text(v)))
            .collect();
        out.push(format!("also: {}", parts.join(" · ")));
    }
    if !plan.preferences.is_empty() {
        let p: Vec<String> = plan.preferences.iter().map(value_text).collect();
        out.push(format!("preferences: {}", p.join(", ")));
    }
    out.push(format!("{}:", count(plan.regions.len(), "region")));
    for (i, r) in plan.regions.iter().enumerate() {
        let io = |v: &[i64]| {
            let s: Vec<String> = v.iter().map(i64::to_string).collect();
            format!("[{}]", s.join(","))
        };
        out.push(format!(
            "  {}. {}  {}/{} · {}: {} · in {} out {} · scratch {}",
            i + 1,
            r.step_name(),
            r.provider,
            r.implementation,
            count(r.nodes.len(), "node"),
            r.nodes.join(", "),
            io(&r.inputs),
            io(&r.outputs),
            opt_bytes(r.scratch_bytes)
        ));
    }
    if !plan.candidates.is_empty() {
        out.push(format!(
            "{} (* chosen; rank, eligible, reason):",
            count(plan.candidates.len(), "candidate")
        ));
        for c in &plan.candidates {
            // The candidate the plan took: the region holding its node has its route.
            let chosen = plan.regions.iter().any(|r| {
                r.provider == c.provider
                    && r.implementation == c.implementation
                    && r.nodes.contains(&c.node)
            });
            out.push(format!(
                "{} {:<16} {}/{} · rank {} · {} · {}",
                if chosen { "*" } else { " " },
                c.node,
                c.provider,
                c.implementation,
                c.preference_rank
                    .map(|r| r.to_string())
                    .unwrap_or_else(|| "-".into()),
                if c.eligible {
                    "eligible"
                } else {
                    "not eligible"
                },
                c.reason
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_decodes_to_its_figures() {
        let plan: CpuPlan = serde_json::from_value(serde_json::json!({
            "regions": [{"provider": "XNNPACK", "implementation": "subgraph",
                          "nodes": ["conv_1", "relu"], "inputs": [0, 1], "outputs": [4],
                          "scratch_bytes": 2048}],
            "preferences": [],
            "policy": "auto_baseline_unknown_cost",
            "preparation_ms": 4.410544,
            "activation_arena_bytes": 228288,
            "private_constant_bytes": 20288,
            "shared_scratch_bytes": 4096,
            "copied_constant_bytes": 0,
            "selection_context": {"threads": 1, "avx2_fma": true},
            "candidates": [{"node": "conv_1", "provider": "ET", "implementation": "registry",
                            "preference_rank": 2, "eligible": false, "reason": "slower"}]
        }))
        .unwrap();
        let lines = plan_lines(&plan);
        assert_eq!(
            lines[0],
            "policy auto_baseline_unknown_cost · prepared in 4.411 ms"
        );
        // 228288 B = 222.9 KiB, 20288 B = 19.8 KiB, 4096 B = 4.0 KiB.
        assert_eq!(
            lines[1],
            "arena 222.9 KiB · private constants 19.8 KiB · shared scratch 4.0 KiB · copied constants 0 B"
        );
        assert_eq!(lines[2], "selection context: 1 thread · AVX2+FMA yes");
        assert!(lines.contains(&"1 region:".to_string()));
        assert!(lines.contains(
            &"  1. XNNPACK/subgraph:conv_1+1  XNNPACK/subgraph · 2 nodes: conv_1, relu · in [0,1] out [4] · scratch 2.0 KiB"
                .to_string()
        ), "{lines:#?}");
        assert!(
            lines.contains(
                &"  conv_1           ET/registry · rank 2 · not eligible · slower".to_string()
            ),
            "{lines:#?}"
        );
        // The region holds conv_1 on XNNPACK/subgraph: that candidate would be marked.
        assert!(lines.iter().any(|l| l.starts_with("1 candidate (* chosen")));
        assert!(!lines.iter().any(|l| l.starts_with("* ")), "{lines:#?}");
    }
}
