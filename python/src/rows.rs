//! The rows of a profile as the Inspector's DataFrame columns (plus ours), from the typed
//! profile: one row per event of the `Execute` block, as `profile_inspector` pairs them.

use cpuprof_tui::profile::{Delegate, DelegateKind, OperatorStats, Profile, RowSource};
use cpuprof_tui::stats::Stats;
use cpuprof_tui::trace::TraceProfile;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

/// node name → (`nn_module_stack` key → [module path, module type]), as the Inspector's.
type Hierarchy = BTreeMap<String, BTreeMap<String, [String; 2]>>;

#[derive(Default)]
pub struct Table {
    event_block_name: Vec<String>,
    event_name: Vec<String>,
    raw: Vec<Vec<f64>>,
    p10: Vec<f64>,
    p50: Vec<f64>,
    p90: Vec<f64>,
    avg: Vec<f64>,
    min: Vec<f64>,
    max: Vec<f64>,
    op_types: Vec<Vec<String>>,
    delegate_debug_identifier: Vec<Option<String>>,
    stack_traces: Vec<Option<BTreeMap<String, String>>>,
    module_hierarchy: Vec<Option<Hierarchy>>,
    is_delegated_op: Vec<bool>,
    delegate_backend_name: Vec<Option<String>>,
    instruction_id: Vec<Option<i64>>,
    delegate: Vec<Option<String>>,
    step: Vec<Option<String>>,
    shapes: Vec<Option<String>>,
    flops: Vec<Option<u64>>,
    bytes: Vec<Option<u64>>,
    module: Vec<Option<String>>,
    source_line: Vec<Option<String>>,
    /// Our method (group of runs of one signature) the row belongs to; None for the
    /// `Default` block.
    method: Vec<Option<String>>,
    /// The method the rows pushed now belong to.
    current_method: Option<String>,
}

/// What a row is beyond its name and numbers.
#[derive(Default)]
struct Extra<'a> {
    instruction_id: Option<i64>,
    delegated: bool,
    backend: Option<String>,
    delegate: Option<String>,
    step: Option<&'a str>,
    op: Option<&'a OperatorStats>,
    source: Option<&'a RowSource>,
    debug_identifier: Option<&'a str>,
}

impl Table {
    fn push(&mut self, block: &str, name: &str, s: &Stats, x: Extra<'_>) {
        self.event_block_name.push(block.to_string());
        self.event_name.push(name.to_string());
        self.raw.push(s.samples.to_ms());
        self.p10.push(s.p10);
        self.p50.push(s.median);
        self.p90.push(s.p90);
        self.avg.push(s.mean);
        self.min.push(s.min);
        self.max.push(s.max);
        let src = x.source;
        // An XNNPACK operator's source is its delegate's nodes: the Inspector gives it none.
        let own = src.filter(|r| !r.through_delegate);
        self.op_types
            .push(own.map(|r| r.op_types.clone()).unwrap_or_default());
        self.delegate_debug_identifier
            .push(x.debug_identifier.map(str::to_string));
        // As the Inspector: per node of the row's own (an XNNPACK operator's are its
        // delegate's nodes: none), the whole stack trace and the module stack, keyed by the
        // node's name with the `_` the Inspector appends (its goldens' `nodes`).
        self.stack_traces
            .push(own.filter(|r| !r.stack_traces.is_empty()).map(|r| {
                let traces = r.stack_traces.iter();
                traces.map(|(n, t)| (format!("{n}_"), t.clone())).collect()
            }));
        self.module_hierarchy
            .push(own.filter(|r| !r.module_stacks.is_empty()).map(|r| {
                r.module_stacks
                    .iter()
                    .map(|(node, frames)| {
                        let stack = frames
                            .iter()
                            .map(|[k, p, t]| (k.clone(), [p.clone(), t.clone()]));
                        (format!("{node}_"), stack.collect())
                    })
                    .collect()
            }));
        self.is_delegated_op.push(x.delegated);
        self.delegate_backend_name.push(x.backend);
        self.instruction_id.push(x.instruction_id);
        self.delegate.push(x.delegate);
        self.step.push(x.step.map(str::to_string));
        self.shapes.push(x.op.and_then(shapes_text));
        self.flops.push(x.op.and_then(|o| o.flops));
        self.bytes.push(x.op.and_then(|o| o.bytes));
        self.module
            .push(src.and_then(|r| r.module_label()).map(str::to_string));
        self.source_line.push(src.and_then(|r| r.file_line.clone()));
        self.method.push(self.current_method.clone());
    }

    pub fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("event_block_name", self.event_block_name)?;
        d.set_item("event_name", self.event_name)?;
        d.set_item("raw", self.raw)?;
        d.set_item("p10", self.p10)?;
        d.set_item("p50", self.p50)?;
        d.set_item("p90", self.p90)?;
        d.set_item("avg", self.avg)?;
        d.set_item("min", self.min)?;
        d.set_item("max", self.max)?;
        d.set_item("op_types", self.op_types)?;
        d.set_item("delegate_debug_identifier", self.delegate_debug_identifier)?;
        d.set_item("stack_traces", self.stack_traces)?;
        d.set_item("module_hierarchy", self.module_hierarchy)?;
        d.set_item("is_delegated_op", self.is_delegated_op)?;
        d.set_item("delegate_backend_name", self.delegate_backend_name)?;
        d.set_item("instruction_id", self.instruction_id)?;
        d.set_item("delegate", self.delegate)?;
        d.set_item("step", self.step)?;
        d.set_item("shapes", self.shapes)?;
        d.set_item("flops", self.flops)?;
        d.set_item("bytes", self.bytes)?;
        d.set_item("module", self.module)?;
        d.set_item("source_line", self.source_line)?;
        d.set_item("method", self.method)?;
        Ok(d)
    }
}

fn shapes_text(o: &OperatorStats) -> Option<String> {
    let list = |v: &Vec<Vec<i64>>| {
        v.iter()
            .map(|s| format!("{s:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (&o.input_shapes, &o.output_shapes) {
        (None, None) => None,
        (i, out) => Some(format!(
            "{} -> {}",
            i.as_ref().map(list).unwrap_or_default(),
            out.as_ref().map(list).unwrap_or_default()
        )),
    }
}

/// The Inspector's backend name for a delegate: known (as to the Inspector) only from the
/// model files, so only when the delegate's source was read from an ETRecord.
fn backend(d: &Delegate) -> Option<String> {
    d.source.as_ref()?;
    Some(match d.kind {
        DelegateKind::Xnnpack => "XnnpackBackend".to_string(),
        DelegateKind::CpuPlan => "CpuBackend".to_string(),
        DelegateKind::Other => d.kind.label().to_string(),
    })
}

/// Every method's rows (one `Execute` block each, as the Inspector's frame lists each
/// block): `Method::execute`, each delegate's call, plan steps and operators, and each
/// other operator with its kernels; the `method` column names the method.
pub fn dump_rows(p: &Profile) -> Table {
    let mut t = Table::default();
    // The `Default` block: the load-time events, one sample each.
    if let Some(load) = &p.load {
        for (name, v) in [
            ("Method::init", load.method_init),
            ("Program::load_method", load.program_load_method),
        ] {
            if let Some(v) = v {
                let one = Stats::from_ms(&[v]);
                let x = Extra {
                    instruction_id: Some(0),
                    ..Extra::default()
                };
                t.push("Default", name, &one, x);
            }
        }
    }
    if p.methods.is_empty() {
        method_rows(&mut t, p.method.as_ref(), &p.delegates, &p.other_operators);
    }
    for m in &p.methods {
        t.current_method = Some(m.name.clone());
        method_rows(&mut t, m.method.as_ref(), &m.delegates, &m.other_operators);
    }
    t
}

/// One method's `Execute` rows.
fn method_rows(
    t: &mut Table,
    method: Option<&Stats>,
    delegates: &[Delegate],
    other_operators: &[cpuprof_tui::profile::OtherOperator],
) {
    const BLOCK: &str = "Execute";
    if let Some(m) = method {
        t.push(BLOCK, "Method::execute", m, Extra::default());
    }
    for d in delegates {
        let id = Some(d.instruction_id as i64);
        let short = Some(cpuprof_tui::units::delegate_short(d.instruction_id));
        for o in &d.operators {
            t.push(
                BLOCK,
                &o.name,
                &o.stats,
                Extra {
                    instruction_id: id,
                    delegated: true,
                    backend: backend(d),
                    delegate: short.clone(),
                    op: Some(o),
                    source: o.source.as_ref(),
                    debug_identifier: Some(&o.name),
                    ..Extra::default()
                },
            );
        }
        for s in &d.steps {
            t.push(
                BLOCK,
                &s.name,
                &s.stats,
                Extra {
                    instruction_id: id,
                    delegated: true,
                    backend: backend(d),
                    delegate: short.clone(),
                    step: Some(&s.name),
                    debug_identifier: Some(&s.name),
                    ..Extra::default()
                },
            );
            for o in &s.operators {
                t.push(
                    BLOCK,
                    &o.name,
                    &o.stats,
                    Extra {
                        instruction_id: id,
                        delegated: true,
                        backend: backend(d),
                        delegate: short.clone(),
                        step: Some(&s.name),
                        op: Some(o),
                        source: o.source.as_ref(),
                        debug_identifier: Some(&o.name),
                    },
                );
            }
        }
        for e in &d.unattributed {
            t.push(
                BLOCK,
                &e.name,
                &e.stats,
                Extra {
                    instruction_id: id,
                    delegated: true,
                    backend: backend(d),
                    delegate: short.clone(),
                    source: e.source.as_ref(),
                    debug_identifier: Some(&e.name),
                    ..Extra::default()
                },
            );
        }
        t.push(
            BLOCK,
            "DELEGATE_CALL",
            &d.call,
            Extra {
                instruction_id: id,
                backend: backend(d),
                delegate: short,
                source: d.source.as_ref(),
                ..Extra::default()
            },
        );
    }
    for o in other_operators {
        let id = Some(o.instruction_id as i64);
        for k in &o.kernels {
            t.push(
                BLOCK,
                &k.name,
                &k.stats,
                Extra {
                    instruction_id: id,
                    source: k.source.as_ref(),
                    ..Extra::default()
                },
            );
        }
        t.push(
            BLOCK,
            "OPERATOR_CALL",
            &o.stats,
            Extra {
                instruction_id: id,
                source: o.source.as_ref(),
                ..Extra::default()
            },
        );
    }
}

/// A trace's operators (the tally's rows): block `trace`, inclusive times per call.
pub fn trace_rows(p: &TraceProfile) -> Table {
    let mut t = Table::default();
    for op in &p.ops {
        t.push("trace", &op.name, &op.stats, Extra::default());
    }
    t
}
