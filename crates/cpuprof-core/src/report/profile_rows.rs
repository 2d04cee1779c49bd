//! A method's rows in `cpuprof.profile/1` (`method`, `delegates`, `other_operators`,
//! `remainder`), written from the row model: one method row of a [`RowTree`] and the
//! rows below it. The objects keep the contract's field names and order (those of the
//! profile's `Delegate`, `PlanStep`, `OperatorStats`, `EventStats`, `OtherOperator` and
//! `MethodProfile`); `profile_json`'s tests check the bytes against their derive on every
//! fixture. Self-time rows (`(overhead)`) are the model's own and not in the contract.

use serde::Serialize;

use crate::profile::{
    ColdRuns, DelegateKind, Finding, LoadTimes, MethodProfile, ModuleTotal, OperatorKind,
    RowSource, RunCounts,
};
use crate::rows::{Facts, Row, RowKind, RowTree};
use crate::runlog::CpuPlan;
use crate::stats::Stats;

/// The rows of method row `method` of `tree`.
#[derive(Clone, Copy)]
pub(super) struct MethodRows<'a> {
    tree: &'a RowTree,
    method: usize,
}

impl<'a> MethodRows<'a> {
    pub(super) fn new(tree: &'a RowTree, method: usize) -> MethodRows<'a> {
        MethodRows { tree, method }
    }

    fn row(&self) -> &'a Row {
        &self.tree.rows[self.method]
    }

    fn children(&self, id: usize) -> impl Iterator<Item = &'a Row> + 'a {
        let rows = &self.tree.rows;
        rows[id].children.iter().map(move |&c| &rows[c])
    }

    /// `Method::execute`'s statistics, when the method has that event.
    pub(super) fn method(&self) -> Option<&'a Stats> {
        match self.row().facts {
            Facts::Method { timed: false, .. } => None,
            _ => Some(&self.row().stats),
        }
    }

    pub(super) fn delegates(&self) -> Vec<DelegateDoc<'a>> {
        self.children(self.method)
            .zip(&self.row().children)
            .filter(|(r, _)| r.kind == RowKind::Delegate)
            .map(|(r, &id)| self.delegate(r, id))
            .collect()
    }

    pub(super) fn other_operators(&self) -> Vec<InstructionDoc<'a>> {
        self.children(self.method)
            .zip(&self.row().children)
            .filter(|(r, _)| r.kind == RowKind::Instruction)
            .map(|(r, &id)| InstructionDoc {
                instruction_id: r.instruction_id.unwrap_or_default(),
                name: &r.name,
                stats: &r.stats,
                kernels: self.children(id).map(event).collect(),
                source: r.source.as_ref(),
            })
            .collect()
    }

    pub(super) fn remainder(&self) -> Option<&'a Stats> {
        self.children(self.method)
            .find(|r| r.facts == Facts::Remainder)
            .map(|r| &r.stats)
    }

    fn delegate(&self, d: &'a Row, id: usize) -> DelegateDoc<'a> {
        let (kind, plan, plan_sequence) = match &d.facts {
            Facts::Delegate {
                backend,
                plan,
                plan_sequence,
            } => (*backend, plan.as_deref(), *plan_sequence),
            _ => (DelegateKind::Other, None, None),
        };
        let mut doc = DelegateDoc {
            instruction_id: d.instruction_id.unwrap_or_default(),
            kind,
            call: &d.stats,
            plan,
            plan_sequence,
            steps: Vec::new(),
            operators: Vec::new(),
            unattributed: Vec::new(),
            source: d.source.as_ref(),
        };
        for (r, &c) in self.children(id).zip(&d.children) {
            match &r.facts {
                Facts::Step {
                    provider,
                    implementation,
                    node_count,
                    nodes,
                } => doc.steps.push(StepDoc {
                    name: &r.name,
                    provider,
                    implementation,
                    nodes,
                    node_count: *node_count,
                    stats: &r.stats,
                    share: r.share.unwrap_or_default(),
                    operators: self.children(c).filter_map(operator).collect(),
                }),
                Facts::Operator { .. } => doc.operators.extend(operator(r)),
                Facts::Unattributed => doc.unattributed.push(event(r)),
                _ => {}
            }
        }
        doc
    }
}

fn operator(r: &Row) -> Option<OperatorDoc<'_>> {
    let Facts::Operator { kind, .. } = r.facts else {
        return None;
    };
    Some(OperatorDoc {
        name: &r.name,
        kind,
        stats: &r.stats,
        share: r.share.unwrap_or_default(),
        input_shapes: &r.input_shapes,
        output_shapes: &r.output_shapes,
        source: r.source.as_ref(),
        flops: r.flops,
        bytes: r.bytes,
    })
}

fn event(r: &Row) -> EventDoc<'_> {
    EventDoc {
        name: &r.name,
        stats: &r.stats,
        source: r.source.as_ref(),
    }
}

#[derive(Serialize)]
pub(super) struct DelegateDoc<'a> {
    instruction_id: i32,
    kind: DelegateKind,
    call: &'a Stats,
    plan: Option<&'a CpuPlan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan_sequence: Option<usize>,
    steps: Vec<StepDoc<'a>>,
    operators: Vec<OperatorDoc<'a>>,
    unattributed: Vec<EventDoc<'a>>,
    source: Option<&'a RowSource>,
}

#[derive(Serialize)]
struct StepDoc<'a> {
    name: &'a str,
    provider: &'a str,
    implementation: &'a str,
    nodes: &'a [String],
    node_count: usize,
    stats: &'a Stats,
    share: f64,
    operators: Vec<OperatorDoc<'a>>,
}

#[derive(Serialize)]
struct OperatorDoc<'a> {
    name: &'a str,
    kind: OperatorKind,
    stats: &'a Stats,
    share: f64,
    input_shapes: &'a Option<Vec<Vec<i64>>>,
    output_shapes: &'a Option<Vec<Vec<i64>>>,
    source: Option<&'a RowSource>,
    flops: Option<u64>,
    bytes: Option<u64>,
}

#[derive(Serialize)]
struct EventDoc<'a> {
    name: &'a str,
    stats: &'a Stats,
    source: Option<&'a RowSource>,
}

#[derive(Serialize)]
pub(super) struct InstructionDoc<'a> {
    instruction_id: i32,
    name: &'a str,
    stats: &'a Stats,
    kernels: Vec<EventDoc<'a>>,
    source: Option<&'a RowSource>,
}

/// One element of `methods`: the method's own fields around its rows.
#[derive(Serialize)]
pub(super) struct MethodDoc<'a> {
    index: usize,
    name: &'a str,
    bundled_input_index: Option<i32>,
    runs: &'a RunCounts,
    method: Option<&'a Stats>,
    delegates: Vec<DelegateDoc<'a>>,
    other_operators: Vec<InstructionDoc<'a>>,
    remainder: Option<&'a Stats>,
    warnings: &'a [Finding],
    errors: &'a [Finding],
    load: &'a Option<LoadTimes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cold_runs: Option<&'a ColdRuns>,
    modules: &'a [ModuleTotal],
}

impl<'a> MethodDoc<'a> {
    pub(super) fn new(m: &'a MethodProfile, rows: MethodRows<'a>) -> MethodDoc<'a> {
        // Every field named: a field added to `MethodProfile` fails to compile here until
        // it is written (in the place the derive puts it).
        let MethodProfile {
            index,
            name,
            bundled_input_index,
            runs,
            method: _,
            delegates: _,
            other_operators: _,
            remainder: _, // the rows, from the row model
            warnings,
            errors,
            load,
            cold_runs,
            modules,
        } = m;
        MethodDoc {
            index: *index,
            name,
            bundled_input_index: *bundled_input_index,
            runs,
            method: rows.method(),
            delegates: rows.delegates(),
            other_operators: rows.other_operators(),
            remainder: rows.remainder(),
            warnings,
            errors,
            load,
            cold_runs: cold_runs.as_ref(),
            modules,
        }
    }
}
