//! The explorer's view of an ETDump profile, read from its row model
//! (`rows::RowTree::from_profile`, built once): the tree (method -> delegates -> plan
//! steps -> operators, the self-time rows), the operator table, findings placed on their
//! nodes, the by-type rows (`groups`) and the decoded plans (`plan_view`).

use std::sync::Arc;

use crate::profile::{ModuleRow, ModuleTotal, OperatorKind, Profile};
use crate::rows::{share_of, Facts, Row, RowKind, RowTree};

use super::data::{
    ExplorerData, FindingRow, MethodModules, NodeKind, OpRow, RunSummary, TreeNode,
    SHAPES_NOT_RECORDED,
};
use super::format;

impl ExplorerData {
    /// An operator or kernel row: its tree node under `parent` and its table row.
    fn push_op(
        &mut self,
        parent: usize,
        id: usize,
        r: &Row,
        method_median: Option<f64>,
        at: Place<'_>,
    ) {
        let Place {
            delegate,
            scope,
            step,
            ..
        } = at;
        let table_row = self.ops.len();
        let parent_median = self.nodes.get(parent).map_or(0.0, |n| n.stats.median());
        let (op_kind, below) = match r.facts {
            Facts::Operator {
                kind,
                below_resolution,
            } => (kind, below_resolution),
            _ => (OperatorKind::Kernel, false),
        };
        let node = self.push_node(TreeNode {
            name: r.name.clone(),
            kind: NodeKind::Operator,
            info: String::new(),
            depth: 0,
            parent: Some(parent),
            children: Vec::new(),
            stats: r.stats.clone(),
            share: Some(r.share.unwrap_or(0.0)),
            op_row: Some(table_row),
            scope,
            findings: (0, 0),
            instruction: at.instruction,
            row: Some(id),
        });
        if let Some(src) = &r.source {
            self.sources.insert(node, src.clone());
        }
        self.ops.push(OpRow {
            name: r.name.clone(),
            delegate: delegate.to_string(),
            scope,
            step: step.to_string(),
            stats: r.stats.clone(),
            share: r.share.unwrap_or(0.0),
            // Under the clock quantum the share of the method is only bounded: 1 µs of it.
            share_method: if below {
                share_of(crate::units::XNNPACK_QUANTUM_MS, method_median)
            } else {
                share_of(r.stats.median(), method_median)
            },
            input_shapes: match (&r.input_shapes, op_kind) {
                // XNNPACK operators carry shapes in their metadata; say when it is absent.
                (None, OperatorKind::Xnnpack) => SHAPES_NOT_RECORDED.into(),
                (s, _) => format::shapes(s.as_ref()),
            },
            output_shapes: format::shapes(r.output_shapes.as_ref()),
            self_total: None,
            dtypes: String::new(),
            below_resolution: below.then_some(parent_median),
            failed: 0,
            node,
            instances: 0,
            summed_median: None,
            cost: r.cost(),
            rates: crate::profile::efficiency::rates(r.cost(), r.stats.median()),
            cost_ms: r.stats.median(),
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
            ..ExplorerData::default()
        };
        let tree = Arc::new(RowTree::from_profile(profile));
        let module_rows = RowTree::modules_of(profile, &tree);
        let several = tree.roots.len() > 1;
        for (k, &root) in tree.roots.iter().enumerate() {
            data.add_method(&tree, root, several.then_some(k));
            // Its module tree, from the module rows: the method row's name and
            // Method::execute, the modules and the rows each holds.
            if let Some(&m) = module_rows.roots.get(k) {
                let mrow = &module_rows.rows[m];
                let execute = match mrow.facts {
                    Facts::Method { timed: false, .. } => None,
                    _ => Some(mrow.stats.median()),
                };
                let (modules, held) = method_modules(&module_rows, m);
                data.add_modules(&mrow.name, execute, &modules, held);
            }
        }
        data.rows = Some(tree);
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
        data.mark_findings();
        // The flame graph and the type groups both only read the tree (the groups'
        // nodes are appended after it, outside it): on a big profile each takes tens of
        // ms, so they are made side by side before the first frame.
        let median = profile.method.as_ref().map(|m| m.median());
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
        data.plans = data
            .rows
            .as_deref()
            .map(super::plan_view::plans)
            .unwrap_or_default();
        data.log = profile.log_lines.clone();
        data
    }
}

impl ExplorerData {
    /// One method's tree, from its rows: Method::execute -> delegates -> steps ->
    /// operators, non-delegated instructions -> kernels, the self-time rows. `several`:
    /// the method's index in a dump of several (its root is named by the method and its
    /// delegates' scopes are prefixed `m2 `).
    fn add_method(&mut self, tree: &RowTree, root: usize, several: Option<usize>) {
        let m = &tree.rows[root];
        let prefix = several.map_or(String::new(), |k| format!("m{} ", k + 1));
        let kept = match m.facts {
            Facts::Method { kept, .. } => kept,
            _ => tree.runs,
        };
        let method_median = Some(m.stats.median());
        let root_node = self.push_node(TreeNode {
            name: if several.is_some() {
                format!("Method::execute · {}", m.name)
            } else {
                m.name.clone()
            },
            kind: NodeKind::Method,
            info: format!("{} kept", format::count(kept, "run")),
            depth: 0,
            parent: None,
            children: Vec::new(),
            stats: m.stats.clone(),
            share: None,
            op_row: None,
            scope: None,
            findings: (0, 0),
            instruction: None,
            row: Some(root),
        });
        for &id in &m.children {
            let r = &tree.rows[id];
            match r.kind {
                RowKind::Delegate => self.add_delegate(tree, id, root_node, &prefix, method_median),
                RowKind::Instruction => {
                    let node = self.push_row(tree, id, root_node, NodeKind::Instruction, None);
                    self.nodes[node].info = format!("instr {}", r.instruction_id.unwrap_or(0));
                    let step = format!("instr {}", r.instruction_id.unwrap_or(0));
                    for &k in &r.children {
                        let at = Place {
                            delegate: "-",
                            scope: None,
                            step: &step,
                            instruction: r.instruction_id,
                        };
                        self.push_op(node, k, &tree.rows[k], method_median, at);
                    }
                }
                _ => {
                    let node = self.push_row(tree, id, root_node, NodeKind::Overhead, None);
                    self.nodes[node].info = "method time outside delegates and operators".into();
                }
            }
        }
    }

    /// A delegate's node, `delegate #1` (`m2 #1` in the second method of several), and
    /// what lies below it.
    fn add_delegate(
        &mut self,
        tree: &RowTree,
        id: usize,
        parent: usize,
        prefix: &str,
        method_median: Option<f64>,
    ) {
        let d = &tree.rows[id];
        let iid = d.instruction_id.unwrap_or(0);
        let scope = self.scopes.len();
        let label = format!("{prefix}#{iid}");
        // `d1`; with several methods `m2d1` (method 2, instruction 1).
        let short = format!("{}d{iid}", prefix.trim_end());
        self.scopes.push(label.clone());
        let mut info = vec![format!("instr {iid}")];
        if let Facts::Delegate { backend, plan, .. } = &d.facts {
            info.push(
                match backend {
                    crate::profile::DelegateKind::CpuPlan => "CpuBackend",
                    crate::profile::DelegateKind::Xnnpack => "XNNPACK",
                    crate::profile::DelegateKind::Other => "other",
                }
                .into(),
            );
            if let Some(plan) = plan {
                info.extend(plan.policy.clone());
                info.extend(plan.threads().map(|t| format::count(t as usize, "thread")));
            } else if *backend == crate::profile::DelegateKind::CpuPlan {
                info.push("no plan".into());
            }
        }
        let dn = self.push_row(tree, id, parent, NodeKind::Delegate, Some(scope));
        self.nodes[dn].name = format!("delegate {label}");
        self.nodes[dn].info = info.join(" · ");
        for &c in &d.children {
            let r = &tree.rows[c];
            match (r.kind, &r.facts) {
                (
                    RowKind::Step,
                    Facts::Step {
                        provider,
                        implementation,
                        node_count,
                        nodes: listed,
                    },
                ) => {
                    // The more of the count its name gives and the nodes the plan lists.
                    let nodes = (*node_count).max(listed.len());
                    let s = self.push_row(tree, c, dn, NodeKind::Step, Some(scope));
                    self.nodes[s].info = format!(
                        "{provider}/{implementation} · {nodes} node{}",
                        if nodes == 1 { "" } else { "s" }
                    );
                    for &o in &r.children {
                        let at = Place {
                            delegate: &short,
                            scope: Some(scope),
                            step: &r.name,
                            instruction: d.instruction_id,
                        };
                        self.push_op(s, o, &tree.rows[o], method_median, at);
                    }
                }
                (RowKind::Overhead, Facts::DelegateOverhead { steps }) => {
                    let what = if *steps {
                        "its plan steps"
                    } else {
                        "its operators"
                    };
                    let o = self.push_row(tree, c, dn, NodeKind::Overhead, Some(scope));
                    self.nodes[o].info =
                        format!("delegate time outside {what}: copy-in/out, dispatch");
                }
                (_, Facts::Unattributed) => {
                    let u = self.push_row(tree, c, dn, NodeKind::Other, Some(scope));
                    self.nodes[u].info = "unattributed".into();
                    // The detail pane shows no model source for an unattributed event.
                    self.sources.remove(&u);
                }
                _ => {
                    let at = Place {
                        delegate: &short,
                        scope: Some(scope),
                        step: "",
                        instruction: d.instruction_id,
                    };
                    self.push_op(dn, c, r, method_median, at);
                }
            }
        }
    }

    /// The node of row `id` under `parent`: its name, statistics, share, instruction and
    /// source (its facts line is the caller's).
    fn push_row(
        &mut self,
        tree: &RowTree,
        id: usize,
        parent: usize,
        kind: NodeKind,
        scope: Option<usize>,
    ) -> usize {
        let r = &tree.rows[id];
        let node = self.push_node(TreeNode {
            name: r.name.clone(),
            kind,
            info: String::new(),
            depth: 0,
            parent: Some(parent),
            children: Vec::new(),
            stats: r.stats.clone(),
            share: r.share,
            op_row: None,
            scope,
            findings: (0, 0),
            instruction: r.instruction_id,
            row: Some(id),
        });
        if let Some(src) = &r.source {
            self.sources.insert(node, src.clone());
        }
        node
    }
}

/// For each module row below method row `method` of `modules` (`RowTree::modules_of`),
/// in pre-order, the dump's rows it holds (row ids; None where not found).
/// The module tree of method row `method` of `modules` (`RowTree::modules_of`), as the
/// modules view lists it: each module from its row's `Facts::Module`, in the rows' order
/// (pre-order, as the profile's `modules[]`), and for each, the dump's row ids of the
/// rows it holds.
fn method_modules(modules: &RowTree, method: usize) -> (Vec<ModuleTotal>, Vec<Vec<Option<usize>>>) {
    let first = method + 1;
    let ids = first..first + modules.descendant_count(method);
    let mut totals = Vec::with_capacity(ids.len());
    let mut held = Vec::with_capacity(ids.len());
    for id in ids {
        let r = &modules.rows[id];
        let Facts::Module {
            ty,
            median_total,
            mean_total,
            share,
            not_attributable,
            rows,
        } = &r.facts
        else {
            continue;
        };
        totals.push(ModuleTotal {
            path: r.module.clone().unwrap_or_default(),
            ty: ty.clone(),
            depth: r.depth - 1,
            parent: r.parent.filter(|&p| p != method).map(|p| p - first),
            median_total: *median_total,
            mean_total: *mean_total,
            share: *share,
            median_not_attributable: *not_attributable,
            rows: rows
                .iter()
                .map(|m| ModuleRow {
                    kind: if m.kind == RowKind::Delegate {
                        "delegate"
                    } else {
                        "kernel"
                    }
                    .to_string(),
                    name: m.name.clone(),
                    instruction_id: m.instruction_id,
                    median: m.median,
                    mean: m.mean,
                    spans_children: m.spans_children,
                })
                .collect(),
        });
        held.push(rows.iter().map(|m| m.row).collect());
    }
    (totals, held)
}

impl ExplorerData {
    /// The module tree of the method just added (the last root), each module's rows
    /// shown by the tree nodes of the rows it holds (`held`: the dump's row ids, from its
    /// module rows).
    fn add_modules(
        &mut self,
        name: &str,
        execute: Option<f64>,
        modules: &[ModuleTotal],
        held: Vec<Vec<Option<usize>>>,
    ) {
        if self.roots.is_empty() || modules.is_empty() {
            return;
        }
        let node_of_row: std::collections::HashMap<usize, usize> = self
            .nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| n.row.map(|r| (r, i)))
            .collect();
        let row_nodes = held
            .into_iter()
            .map(|rows| {
                rows.into_iter()
                    .map(|r| r.and_then(|r| node_of_row.get(&r).copied()))
                    .collect()
            })
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
            .map(|s| (s.median(), s.min(), s.max())),
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
}
