//! The view model of an ETDump profile: method -> delegates -> plan steps -> operators,
//! with findings placed on their nodes, the by-type rows (`groups`) and the decoded plans
//! (`plan_view`).

use crate::profile::{DelegateKind, ModuleRow, ModuleTotal, OperatorStats, Profile, Stats};

use super::data::{
    ExplorerData, FindingRow, MethodModules, NodeKind, OpRow, RunSummary, TreeNode,
    SHAPES_NOT_RECORDED,
};
use super::format;
use super::overhead::overhead;

impl ExplorerData {
    fn push_op(
        &mut self,
        parent: usize,
        op: &OperatorStats,
        method_median: Option<f64>,
        at: Place<'_>,
    ) {
        let Place {
            delegate,
            scope,
            step,
            ..
        } = at;
        let row = self.ops.len();
        let parent_median = self.nodes.get(parent).map_or(0.0, |n| n.stats.median);
        let node = self.push_node(TreeNode {
            name: op.name.clone(),
            kind: NodeKind::Operator,
            info: String::new(),
            depth: 0,
            parent: Some(parent),
            children: Vec::new(),
            stats: op.stats.clone(),
            share: Some(op.share),
            op_row: Some(row),
            scope,
            findings: (0, 0),
            instruction: at.instruction,
            row: at.row,
        });
        if let Some(src) = &op.source {
            self.sources.insert(node, src.clone());
        }
        self.ops.push(OpRow {
            name: op.name.clone(),
            delegate: delegate.to_string(),
            scope,
            step: step.to_string(),
            stats: op.stats.clone(),
            share: op.share,
            // Under the clock quantum the share of the method is only bounded: 1 µs of it.
            share_method: if op.below_resolution() {
                share_of(crate::units::XNNPACK_QUANTUM_MS, method_median)
            } else {
                share_of(op.stats.median, method_median)
            },
            input_shapes: match (&op.input_shapes, op.kind) {
                // XNNPACK operators carry shapes in their metadata; say when it is absent.
                (None, crate::profile::OperatorKind::Xnnpack) => SHAPES_NOT_RECORDED.into(),
                (s, _) => format::shapes(s.as_ref()),
            },
            output_shapes: format::shapes(op.output_shapes.as_ref()),
            self_total: None,
            dtypes: String::new(),
            below_resolution: op.below_resolution().then_some(parent_median),
            failed: 0,
            node,
            instances: 0,
            summed_median: None,
            cost: op.cost(),
            rates: crate::profile::efficiency::rates(op.cost(), op.stats.median),
            cost_ms: op.stats.median,
            roofline: None,
        });
    }

    /// The view of an ETDump profile: method -> delegates -> plan steps -> operators.
    pub fn from_profile(profile: &Profile) -> ExplorerData {
        let mut data = ExplorerData {
            files: std::iter::once(profile.source.etdump.clone())
                .chain(profile.source.log.clone())
                .collect(),
            runs: Some(RunSummary {
                total: profile.runs.total,
                dropped: profile.runs.warmup_dropped,
                kept: profile.runs.kept,
                cold: profile.cold_runs.as_ref().map_or(0, |c| c.count),
                warmup_text: profile
                    .warmup_rule
                    .as_ref()
                    .filter(|r| r.rule != "given")
                    .map(|r| r.text.clone()),
                several: several_methods(profile),
            }),
            total_label: "Method::execute".to_string(),
            total: profile.method.clone(),
            model_files: profile.model_files.clone(),
            rows: Some(std::sync::Arc::new(crate::rows::RowTree::from_profile(
                profile,
            ))),
            ..ExplorerData::default()
        };
        // The profile's rows come in the tree's order (`RowTree::from_profile`), less the
        // synthesized self-time nodes: a cursor walks them beside the nodes.
        let mut cursor = 0usize;
        if profile.methods.len() > 1 {
            // One tree root per method (run signature).
            for (k, m) in profile.methods.iter().enumerate() {
                let mut root_name = format!("Method::execute · {}", m.name);
                if let Some(b) = m.bundled_input_index {
                    root_name.push_str(&format!(" (bundled input {b})"));
                }
                data.add_method(
                    &mut cursor,
                    &MethodPart {
                        root_name,
                        scope_prefix: format!("m{} ", k + 1),
                        kept: m.runs.kept,
                        warmup: m.runs.warmup_dropped,
                        method: m.method.as_ref(),
                        delegates: &m.delegates,
                        other_operators: &m.other_operators,
                        remainder: m.remainder.as_ref(),
                    },
                );
                let execute = m.method.as_ref().map(|s| s.median);
                data.add_modules(&m.name, execute, &m.modules);
            }
        } else {
            data.add_method(
                &mut cursor,
                &MethodPart {
                    root_name: "Method::execute".to_string(),
                    scope_prefix: String::new(),
                    kept: profile.runs.kept,
                    warmup: profile.runs.warmup_dropped,
                    method: profile.method.as_ref(),
                    delegates: &profile.delegates,
                    other_operators: &profile.other_operators,
                    remainder: profile.remainder.as_ref(),
                },
            );
            let name = profile
                .methods
                .first()
                .map_or("method 1", |m| m.name.as_str());
            let execute = profile.method.as_ref().map(|s| s.median);
            data.add_modules(name, execute, &profile.modules);
        }
        data.findings = profile
            .errors
            .iter()
            .map(|f| (true, f, ""))
            .chain(profile.warnings.iter().map(|f| (false, f, "")))
            .chain(profile.methods.iter().skip(1).flat_map(|m| {
                let errors = m.errors.iter().map(move |f| (true, f, m.name.as_str()));
                errors.chain(m.warnings.iter().map(move |f| (false, f, m.name.as_str())))
            }))
            .map(|(error, f, method)| {
                let mut delegate = f.instruction_id.map(crate::units::delegate_name);
                let node = finding_node(&data, delegate.as_deref(), f.event.as_deref());
                // Without an instruction id, the delegate of the node it names.
                if delegate.is_none() {
                    delegate = node
                        .and_then(|n| data.nodes[n].scope)
                        .and_then(|s| data.scopes.get(s))
                        .map(|label| format!("delegate {label}"));
                }
                FindingRow {
                    error,
                    kind: f.kind.clone(),
                    message: if method.is_empty() {
                        f.message.clone()
                    } else {
                        format!("{method}: {}", f.message)
                    },
                    node,
                    delegate,
                }
            })
            .collect();
        data.check_rows();
        data.mark_findings();
        // The flame graph and the type groups both only read the tree (the groups'
        // nodes are appended after it, outside it): on a big profile each takes tens of
        // ms, so they are made side by side before the first frame.
        let median = profile.method.as_ref().map(|m| m.median);
        let (flame, groups) = std::thread::scope(|scope| {
            let flame = scope.spawn(|| crate::views::flame::model::FlameTree::from_explorer(&data));
            let groups = super::groups::compute(&data, median);
            let flame = flame
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (flame, groups)
        });
        groups.apply(&mut data);
        data.flame = Some(std::sync::Arc::new(flame));
        data.plans = super::plan_view::plans(profile);
        data.log = profile.log_lines.clone();
        data
    }
}

/// The parts of one method profile the tree is built from.
struct MethodPart<'a> {
    root_name: String,
    scope_prefix: String,
    kept: usize,
    /// Warm-up runs dropped (a row's sample i is from run `warmup + i` when it has all).
    warmup: usize,
    method: Option<&'a crate::profile::Stats>,
    delegates: &'a [crate::profile::Delegate],
    other_operators: &'a [crate::profile::OtherOperator],
    remainder: Option<&'a crate::profile::Stats>,
}

impl ExplorerData {
    /// One method's tree: Method::execute -> delegates -> steps -> operators.
    fn add_method(&mut self, cursor: &mut usize, part: &MethodPart<'_>) {
        let data = self;
        let mut next_row = || {
            *cursor += 1;
            Some(*cursor - 1)
        };
        let method_median = part.method.map(|s| s.median);
        let root = data.push_node(TreeNode {
            name: part.root_name.clone(),
            kind: NodeKind::Method,
            info: format!("{} kept", format::count(part.kept, "run")),
            depth: 0,
            parent: None,
            children: Vec::new(),
            stats: part.method.cloned().unwrap_or_default(),
            share: None,
            op_row: None,
            scope: None,
            findings: (0, 0),
            instruction: None,
            row: next_row(),
        });
        for delegate in part.delegates {
            let instruction = Some(delegate.instruction_id);
            let scope = data.scopes.len();
            let label = format!("{}#{}", part.scope_prefix, delegate.instruction_id);
            // `d1`; with several methods `m2d1` (method 2, instruction 1).
            let short = format!(
                "{}d{}",
                part.scope_prefix.trim_end(),
                delegate.instruction_id
            );
            data.scopes.push(label.clone());
            let kind = match delegate.kind {
                DelegateKind::CpuPlan => "CpuBackend",
                DelegateKind::Xnnpack => "XNNPACK",
                DelegateKind::Other => "other",
            };
            let mut info = vec![format!("instr {}", delegate.instruction_id), kind.into()];
            if let Some(plan) = &delegate.plan {
                if let Some(policy) = &plan.policy {
                    info.push(policy.clone());
                }
                if let Some(threads) = plan.selection_context.as_ref().and_then(|c| c.threads) {
                    info.push(format::count(threads as usize, "thread"));
                }
            } else if delegate.kind == DelegateKind::CpuPlan {
                info.push("no plan".into());
            }
            let d = data.push_node(TreeNode {
                name: format!("delegate {label}"),
                kind: NodeKind::Delegate,
                info: info.join(" · "),
                depth: 0,
                parent: Some(root),
                children: Vec::new(),
                stats: delegate.call.clone(),
                share: share_of(delegate.call.median, method_median),
                op_row: None,
                scope: Some(scope),
                findings: (0, 0),
                instruction,
                row: next_row(),
            });
            if let Some(src) = &delegate.source {
                data.sources.insert(d, src.clone());
            }
            for step in &delegate.steps {
                let nodes = step.node_count.max(step.nodes.len());
                let s = data.push_node(TreeNode {
                    name: step.name.clone(),
                    kind: NodeKind::Step,
                    info: format!(
                        "{}/{} · {} node{}",
                        step.provider,
                        step.implementation,
                        nodes,
                        if nodes == 1 { "" } else { "s" }
                    ),
                    depth: 0,
                    parent: Some(d),
                    children: Vec::new(),
                    stats: step.stats.clone(),
                    share: Some(step.share),
                    op_row: None,
                    scope: Some(scope),
                    findings: (0, 0),
                    instruction,
                    row: next_row(),
                });
                for op in &step.operators {
                    let at = Place {
                        delegate: &short,
                        scope: Some(scope),
                        step: &step.name,
                        instruction,
                        row: next_row(),
                    };
                    data.push_op(s, op, method_median, at);
                }
            }
            for op in &delegate.operators {
                let at = Place {
                    delegate: &short,
                    scope: Some(scope),
                    step: "",
                    instruction,
                    row: next_row(),
                };
                data.push_op(d, op, method_median, at);
            }
            let parts: Vec<&Stats> = if delegate.steps.is_empty() {
                delegate.operators.iter().map(|o| &o.stats).collect()
            } else {
                delegate.steps.iter().map(|s| &s.stats).collect()
            };
            if let Some(over) = overhead(&delegate.call, &parts, part.warmup, part.kept) {
                let what = if delegate.steps.is_empty() {
                    "its operators"
                } else {
                    "its plan steps"
                };
                data.push_node(TreeNode {
                    name: "(overhead)".into(),
                    kind: NodeKind::Overhead,
                    info: format!("delegate time outside {what}: copy-in/out, dispatch"),
                    depth: 0,
                    parent: Some(d),
                    children: Vec::new(),
                    share: share_of(over.stats.median, Some(over.call_per_run_median)),
                    stats: over.stats,
                    op_row: None,
                    scope: Some(scope),
                    findings: (0, 0),
                    instruction,
                    row: None,
                });
            }
            for ev in &delegate.unattributed {
                data.push_node(TreeNode {
                    name: ev.name.clone(),
                    kind: NodeKind::Other,
                    info: "unattributed".into(),
                    depth: 0,
                    parent: Some(d),
                    children: Vec::new(),
                    stats: ev.stats.clone(),
                    share: share_of(ev.stats.median, Some(delegate.call.median)),
                    op_row: None,
                    scope: Some(scope),
                    findings: (0, 0),
                    instruction,
                    row: next_row(),
                });
            }
        }
        for other in part.other_operators {
            let instruction = Some(other.instruction_id);
            let o = data.push_node(TreeNode {
                name: other.name.clone(),
                kind: NodeKind::Instruction,
                info: format!("instr {}", other.instruction_id),
                depth: 0,
                parent: Some(root),
                children: Vec::new(),
                stats: other.stats.clone(),
                share: share_of(other.stats.median, method_median),
                op_row: None,
                scope: None,
                findings: (0, 0),
                instruction,
                row: next_row(),
            });
            if let Some(src) = &other.source {
                data.sources.insert(o, src.clone());
            }
            for k in &other.kernels {
                let op = OperatorStats {
                    name: k.name.clone(),
                    kind: crate::profile::OperatorKind::Kernel,
                    stats: k.stats.clone(),
                    share: share_of(k.stats.median, Some(other.stats.median)).unwrap_or(0.0),
                    input_shapes: None,
                    output_shapes: None,
                    flops: None,
                    bytes: None,
                    source: k.source.clone(),
                };
                let step = format!("instr {}", other.instruction_id);
                let at = Place {
                    delegate: "-",
                    scope: None,
                    step: &step,
                    instruction,
                    row: next_row(),
                };
                data.push_op(o, &op, method_median, at);
            }
        }
        if let Some(rem) = part.remainder {
            data.push_node(TreeNode {
                name: "(remainder)".into(),
                kind: NodeKind::Overhead,
                info: "method time outside delegates and operators".into(),
                depth: 0,
                parent: Some(root),
                children: Vec::new(),
                stats: rem.clone(),
                share: share_of(rem.median, method_median),
                op_row: None,
                scope: None,
                findings: (0, 0),
                instruction: None,
                row: None,
            });
        }
    }
}

impl ExplorerData {
    /// The module tree of the method just added (the last root), its rows found in the
    /// tree: a delegate call is its delegate node, a kernel the kernel under its
    /// instruction.
    fn add_modules(&mut self, name: &str, execute: Option<f64>, modules: &[ModuleTotal]) {
        let Some(&root) = self.roots.last() else {
            return;
        };
        if modules.is_empty() {
            return;
        }
        let node_of = |r: &ModuleRow| -> Option<usize> {
            let top = self.nodes[root].children.iter().copied().find(|&c| {
                let n = &self.nodes[c];
                let kind = if r.kind == "delegate" {
                    NodeKind::Delegate
                } else {
                    NodeKind::Instruction
                };
                n.kind == kind && n.instruction == Some(r.instruction_id)
            })?;
            if r.kind == "delegate" {
                return Some(top);
            }
            self.nodes[top]
                .children
                .iter()
                .copied()
                .find(|&c| self.nodes[c].name == r.name)
        };
        let row_nodes = modules
            .iter()
            .map(|m| m.rows.iter().map(node_of).collect())
            .collect();
        self.modules.push(MethodModules {
            method: name.to_string(),
            execute,
            modules: modules.to_vec(),
            row_nodes,
        });
    }
}

/// The header's method of a dump of several: the one with the most runs (the first of
/// them). None for one method.
fn several_methods(profile: &Profile) -> Option<super::data::SeveralMethods> {
    if profile.methods.len() < 2 {
        return None;
    }
    let shown = profile
        .methods
        .iter()
        .rev()
        .max_by_key(|m| m.runs.total)
        .expect("several methods");
    Some(super::data::SeveralMethods {
        shown: shown.name.clone(),
        kept: shown.runs.kept,
        dropped: shown.runs.warmup_dropped,
        total: shown.runs.total,
        execute: shown
            .method
            .as_ref()
            .filter(|s| s.count > 0)
            .map(|s| (s.median, s.min, s.max)),
        methods: profile.methods.len(),
        all_runs: profile.methods.iter().map(|m| m.runs.total).sum(),
    })
}

/// The node a finding is about: the node named `event` inside `delegate` (a step or an
/// operator), else the delegate itself, else a node named `event` anywhere.
fn finding_node(data: &ExplorerData, delegate: Option<&str>, event: Option<&str>) -> Option<usize> {
    let d = delegate.and_then(|name| data.nodes.iter().position(|n| n.name == name));
    let within = |id: usize, root: usize| {
        let mut at = Some(id);
        while let Some(i) = at {
            if i == root {
                return true;
            }
            at = data.nodes[i].parent;
        }
        false
    };
    if let Some(ev) = event {
        let named = data
            .nodes
            .iter()
            .enumerate()
            .find(|(i, n)| n.name == ev && d.is_none_or(|root| within(*i, root)));
        if let Some((i, _)) = named {
            return Some(i);
        }
    }
    d
}

/// Where an operator node sits: its delegate's short label (`d1`, `-` outside one) and
/// scope, its plan step (or instruction), its instruction id and its row in the
/// profile's rows.
#[derive(Clone, Copy)]
struct Place<'a> {
    delegate: &'a str,
    scope: Option<usize>,
    step: &'a str,
    instruction: Option<i32>,
    row: Option<usize>,
}

impl ExplorerData {
    /// Keep a node's row only where it is that row (same name; a method's or delegate's
    /// row is named differently): a tree built in another order loses the link rather
    /// than showing another row's facts.
    fn check_rows(&mut self) {
        let Some(rows) = self.rows.clone() else {
            return;
        };
        for n in &mut self.nodes {
            let ok = n.row.and_then(|r| rows.rows.get(r)).is_some_and(|r| {
                use crate::rows::RowKind as R;
                match (n.kind, r.kind) {
                    (NodeKind::Method, R::Method) => true,
                    (NodeKind::Delegate, R::Delegate) => r.instruction_id == n.instruction,
                    (NodeKind::Step, R::Step)
                    | (NodeKind::Operator, R::Operator | R::Kernel)
                    | (NodeKind::Instruction, R::Operator)
                    | (NodeKind::Other, R::Operator) => r.name == n.name,
                    _ => false,
                }
            });
            if !ok {
                n.row = None;
            }
        }
    }
}

fn share_of(part: f64, whole: Option<f64>) -> Option<f64> {
    match whole {
        Some(w) if w > 0.0 && part.is_finite() => Some(part / w),
        _ => None,
    }
}
