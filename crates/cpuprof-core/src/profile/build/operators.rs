//! Delegates (their plan steps and the operators under each) and the other operators,
//! made into the profile's records by `Builder`.

use std::collections::HashMap;

use super::super::classify::parse_step_name;
use super::super::collect::{EventRow, InstructionData, RowKind};
use super::super::model::*;
use super::super::shapes::{decode_metadata, Metadata};
use super::super::Stats;
use super::Builder;
use crate::runlog::CpuPlan;

impl Builder<'_> {
    pub(super) fn delegate(
        &mut self,
        instr: &InstructionData,
        plan: Option<(usize, &CpuPlan)>,
    ) -> Delegate {
        let id = instr.instruction_id;
        let call = self.stats(&instr.delegate_call);
        let repeated = self.kept > 0 && call.count > self.kept && call.count % self.kept == 0;
        if !repeated {
            self.check_count("DELEGATE_CALL", Some(id), call.count);
        }
        self.expected_in_delegate = (call.count > self.kept).then_some(call.count);
        let delegate = self.delegate_body(instr, plan, call);
        self.expected_in_delegate = None;
        delegate
    }

    fn delegate_body(
        &mut self,
        instr: &InstructionData,
        plan: Option<(usize, &CpuPlan)>,
        call: Stats,
    ) -> Delegate {
        let id = instr.instruction_id;
        let has_steps = instr.rows.iter().any(|r| r.kind == RowKind::Step);
        let kind = if has_steps || plan.is_some() {
            DelegateKind::CpuPlan
        } else if instr
            .rows
            .iter()
            .any(|r| r.kind == RowKind::XnnpackOperator)
        {
            DelegateKind::Xnnpack
        } else {
            DelegateKind::Other
        };
        let mut delegate = Delegate {
            instruction_id: id,
            kind,
            call,
            plan: plan.map(|(_, p)| std::sync::Arc::new(p.clone())),
            plan_sequence: plan.map(|(k, _)| k),
            steps: Vec::new(),
            operators: Vec::new(),
            unattributed: Vec::new(),
            source: None,
        };
        if kind != DelegateKind::CpuPlan {
            let parent = delegate.call.median();
            delegate.operators = instr
                .rows
                .iter()
                .map(|r| self.operator(r, id, parent))
                .collect();
            return delegate;
        }

        // Step rows in the order the plan lists them (or in order of appearance).
        let step_rows: Vec<usize> = (0..instr.rows.len())
            .filter(|&i| instr.rows[i].kind == RowKind::Step)
            .collect();
        let mut used = vec![false; instr.rows.len()];
        let mut steps: Vec<(PlanStep, Option<usize>)> = Vec::new();
        match plan {
            Some((_, p)) => {
                // Step rows by (name, occurrence), and how often each name came so far in
                // the plan: both maps keep large plans linear.
                let by_name: HashMap<(String, u32), usize> = step_rows
                    .iter()
                    .map(|&i| ((self.label(&instr.rows[i]), instr.rows[i].occurrence), i))
                    .collect();
                let mut seen: HashMap<String, u32> = HashMap::new();
                for region in &p.regions {
                    let name = region.step_name();
                    let occurrence = seen.entry(name.clone()).or_insert(0);
                    let row = by_name.get(&(name.clone(), *occurrence)).copied();
                    *occurrence += 1;
                    if let Some(i) = row {
                        used[i] = true;
                    }
                    let stats = row
                        .map(|i| self.stats(&instr.rows[i].series))
                        .unwrap_or_default();
                    steps.push((
                        PlanStep {
                            name,
                            provider: region.provider.clone(),
                            implementation: region.implementation.clone(),
                            nodes: region.nodes.clone(),
                            node_count: region.nodes.len(),
                            stats,
                            share: 0.0,
                            operators: Vec::new(),
                        },
                        row,
                    ));
                }
            }
            None => {
                for &i in &step_rows {
                    used[i] = true;
                    let name = self.label(&instr.rows[i]);
                    let parsed = parse_step_name(&name);
                    steps.push((
                        PlanStep {
                            provider: parsed
                                .as_ref()
                                .map(|s| s.provider.clone())
                                .unwrap_or_default(),
                            implementation: parsed
                                .as_ref()
                                .map(|s| s.implementation.clone())
                                .unwrap_or_default(),
                            nodes: parsed
                                .as_ref()
                                .map(|s| vec![s.first_node.clone()])
                                .unwrap_or_default(),
                            node_count: parsed.as_ref().map_or(0, |s| s.node_count),
                            stats: self.stats(&instr.rows[i].series),
                            share: 0.0,
                            operators: Vec::new(),
                            name,
                        },
                        Some(i),
                    ));
                }
            }
        }
        let step_of_row: HashMap<usize, usize> = steps
            .iter()
            .enumerate()
            .filter_map(|(j, (_, row))| row.map(|r| (r, j)))
            .collect();
        // Events inside a step go under it; the rest are unattributed, never dropped.
        for (i, row) in instr.rows.iter().enumerate() {
            if row.kind == RowKind::Step {
                if !used[i] {
                    let name = self.label(row);
                    let stats = self.stats(&row.series);
                    self.check_count(&name, Some(id), stats.count);
                    delegate.unattributed.push(EventStats {
                        name,
                        stats,
                        source: None,
                    });
                }
                continue;
            }
            let step = row.voted_step().and_then(|s| step_of_row.get(&s).copied());
            match step {
                Some(s) => {
                    let parent = steps[s].0.stats.median();
                    let op = self.operator(row, id, parent);
                    steps[s].0.operators.push(op);
                }
                None => {
                    let op = self.operator(row, id, 0.0);
                    delegate.unattributed.push(EventStats {
                        name: op.name,
                        stats: op.stats,
                        source: None,
                    });
                }
            }
        }
        for (step, _) in &mut steps {
            step.share = share(step.stats.median(), delegate.call.median());
        }
        delegate.steps = steps.into_iter().map(|(s, _)| s).collect();
        self.check_plan(&delegate);
        delegate
    }

    fn check_plan(&mut self, delegate: &Delegate) {
        let id = delegate.instruction_id;
        for step in &delegate.steps {
            if step.stats.count == 0 {
                let mut f = Finding::new(
                    "step_missing",
                    format!("plan step {:?} has no event in any kept run", step.name),
                );
                f.event = Some(step.name.clone());
                f.instruction_id = Some(id);
                self.errors.push(f);
                continue;
            }
            self.check_count(&step.name, Some(id), step.stats.count);
            let has_xnnpack_ops = step
                .operators
                .iter()
                .any(|o| o.kind == OperatorKind::Xnnpack);
            if step.provider == "XNNPACK" && !has_xnnpack_ops {
                let mut f = Finding::new(
                    "xnnpack_operator_events_missing",
                    format!(
                        "XNNPACK step {:?} (delegate at instruction {id}) has no XNNPACK operator events",
                        step.name
                    ),
                );
                f.event = Some(step.name.clone());
                f.instruction_id = Some(id);
                self.errors.push(f);
            }
        }
    }

    fn operator(
        &mut self,
        row: &EventRow,
        instruction_id: i32,
        parent_median: f64,
    ) -> OperatorStats {
        let name = self.label(row);
        let stats = self.stats(&row.series);
        self.check_count(&name, Some(instruction_id), stats.count);
        let kind = match row.kind {
            RowKind::XnnpackOperator => OperatorKind::Xnnpack,
            RowKind::Kernel => OperatorKind::Kernel,
            _ => OperatorKind::Delegate,
        };
        let metadata = row
            .metadata
            .map(|span| &self.dump.metadata[span.start as usize..span.end as usize]);
        let (input_shapes, output_shapes) = match decode_metadata(metadata) {
            Metadata::Shapes(s) => (Some(s.inputs), Some(s.outputs)),
            Metadata::Empty => (None, None),
            Metadata::Malformed(why) => {
                let mut f = Finding::new(
                    "malformed_operator_metadata",
                    format!("metadata of {name:?} is not the shape JSON ({why}); reported without shapes"),
                );
                f.event = Some(name.clone());
                f.instruction_id = Some(instruction_id);
                self.warnings.push(f);
                (None, None)
            }
        };
        let cost = super::super::efficiency::operator_cost(
            &name,
            input_shapes.as_deref(),
            output_shapes.as_deref(),
        );
        OperatorStats {
            share: share(stats.median(), parent_median),
            name,
            kind,
            stats,
            input_shapes,
            output_shapes,
            flops: cost.flops,
            bytes: cost.bytes,
            source: None,
        }
    }

    pub(super) fn other_operators(&mut self, instr: &InstructionData) -> Vec<OtherOperator> {
        let id = instr.instruction_id;
        let kernels: Vec<EventStats> = instr
            .rows
            .iter()
            .map(|r| {
                let name = self.label(r);
                let stats = self.stats(&r.series);
                self.check_count(&name, Some(id), stats.count);
                EventStats {
                    name,
                    stats,
                    source: None,
                }
            })
            .collect();
        if instr.instruction_calls.is_empty() {
            // Kernel events without an enclosing instruction scope: report them as they are.
            return kernels
                .into_iter()
                .map(|k| OtherOperator {
                    instruction_id: id,
                    name: k.name.clone(),
                    stats: k.stats.clone(),
                    kernels: vec![k],
                    source: None,
                })
                .collect();
        }
        let mut out = Vec::new();
        for (name, series) in &instr.instruction_calls {
            let call_name = self.dump.names.get(*name);
            let stats = self.stats(series);
            self.check_count(call_name, Some(id), stats.count);
            // The kernel name says what the instruction did; OPERATOR_CALL does not.
            let display = match kernels.as_slice() {
                [only] if call_name == "OPERATOR_CALL" => only.name.clone(),
                _ => call_name.to_string(),
            };
            out.push(OtherOperator {
                instruction_id: id,
                name: display,
                stats,
                kernels: if out.is_empty() {
                    kernels.clone()
                } else {
                    Vec::new()
                },
                source: None,
            });
        }
        out
    }
}

fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}
