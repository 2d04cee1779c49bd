//! One pass over the `Execute` runs: every event becomes a sample of a row keyed by
//! (instruction, label, occurrence within the run), and every non-step event inside a
//! delegate votes for the step whose interval contains it. Nothing is dropped: rows keep
//! the run index of each sample so warm-ups can be split off later.

use std::collections::HashSet;

use super::classify::{classify_framework, parse_operator_name, parse_step_name, FrameworkEvent};
use super::fast_hash::FastMap;
use crate::etdump::{ByteSpan, DelegateId, EtDump, NameId, ProfileEvent};

/// Samples of one event over all runs, with the run index of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Series {
    pub runs: Vec<u32>,
    pub ms: Vec<f64>,
}

impl Series {
    fn push(&mut self, run: usize, ms: f64) {
        self.runs.push(run as u32);
        self.ms.push(ms);
    }
}

/// How an event is identified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Label {
    Name(NameId),
    DelegateStr(NameId),
    DelegateInt(i32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RowKind {
    /// A CpuBackend plan step event.
    Step,
    /// An XNNPACK operator event `<op> #<n>`.
    XnnpackOperator,
    /// A named (non-delegate) kernel event such as `native_call_*`.
    Kernel,
    /// Any other delegate event.
    OtherDelegate,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EventRow {
    pub label: Label,
    /// 0 for the first event with this label in a run of this instruction, 1 for the
    /// second, ...
    pub occurrence: u32,
    pub kind: RowKind,
    pub series: Series,
    /// Metadata of the first event of this row.
    pub metadata: Option<ByteSpan>,
    /// (step row index, number of runs in which that step contained this event).
    pub step_votes: Vec<(usize, u32)>,
}

impl EventRow {
    /// The step that contained this event most often (ties: the earlier step).
    pub fn voted_step(&self) -> Option<usize> {
        self.step_votes
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|v| v.0)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct InstructionData {
    pub instruction_id: i32,
    pub delegate_call: Series,
    /// `OPERATOR_CALL` (and other instruction scopes) by name.
    pub instruction_calls: Vec<(NameId, Series)>,
    pub rows: Vec<EventRow>,
}

impl InstructionData {
    pub fn is_delegate(&self) -> bool {
        !self.delegate_call.ms.is_empty() || self.rows.iter().any(|r| r.kind != RowKind::Kernel)
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Collected {
    /// Number of `Execute` blocks.
    pub runs: usize,
    pub method: Series,
    /// Sorted by instruction id.
    pub instructions: Vec<InstructionData>,
    /// Events whose end precedes their start (and no 32-bit wrap explains it).
    pub negative_durations: usize,
    /// The first few of them, described.
    pub negative_examples: Vec<String>,
    /// Framework events outside instructions other than `Method::execute`.
    pub ignored_events: usize,
}

/// Duration in ms with the Inspector's rule for 32-bit tick wrap-around.
pub(crate) fn duration_ms(start: u64, end: u64) -> Option<f64> {
    const U32_MAX: u64 = u32::MAX as u64;
    let ticks = if end >= start {
        end - start
    } else if start <= U32_MAX && end <= U32_MAX {
        (U32_MAX - start) + end
    } else {
        return None;
    };
    Some(ticks as f64 / 1e6)
}

/// Steps checked before giving up on finding an event's container (steps do not nest;
/// a few allow for overlaps from clock jitter).
const CONTAINER_LOOKBACK: usize = 4;

struct Placed {
    instr: usize,
    row: usize,
    start: u64,
    end: u64,
}

/// `plan_step_names`: step names from decoded plans, so steps are recognised even when a
/// plan names them in a form our parser does not know.
pub(crate) fn collect(dump: &EtDump, plan_step_names: &HashSet<String>) -> Collected {
    let mut out = Collected::default();
    let mut instr_index: FastMap<i32, usize> = FastMap::default();
    let mut row_index: FastMap<(usize, Label, u32), usize> = FastMap::default();
    let mut occurrences: FastMap<(usize, Label), u32> = FastMap::default();
    // Per-name classification, computed once per distinct name.
    let mut framework_cache: Vec<Option<FrameworkEvent>> = vec![None; dump.names.len()];
    let mut delegate_cache: Vec<Option<RowKind>> = vec![None; dump.names.len()];
    let mut steps_in_run: Vec<Placed> = Vec::new();
    let mut inside_in_run: Vec<Placed> = Vec::new();

    let execute_blocks = dump.blocks.iter().filter(|b| b.name == "Execute");
    for (run, block) in execute_blocks.enumerate() {
        out.runs += 1;
        occurrences.clear();
        steps_in_run.clear();
        inside_in_run.clear();
        for ev in dump.block_events(block) {
            let Some(ms) = duration_ms(ev.start_ticks, ev.end_ticks) else {
                out.negative_durations += 1;
                if out.negative_examples.len() < 3 {
                    out.negative_examples.push(format!(
                        "{:?} in run {run} (start {} > end {})",
                        dump.label(ev),
                        ev.start_ticks,
                        ev.end_ticks
                    ));
                }
                continue;
            };
            let (label, kind) = match ev.delegate_id {
                None => {
                    let Some(name) = ev.name else {
                        out.ignored_events += 1;
                        continue;
                    };
                    let class = *framework_cache[name.0 as usize]
                        .get_or_insert_with(|| classify_framework(dump.names.get(name)));
                    if class == FrameworkEvent::MethodExecute {
                        out.method.push(run, ms);
                        continue;
                    }
                    if ev.chain_index < 0 {
                        out.ignored_events += 1;
                        continue;
                    }
                    let instr = instruction(&mut out, &mut instr_index, ev);
                    match class {
                        FrameworkEvent::DelegateCall => {
                            out.instructions[instr].delegate_call.push(run, ms);
                            continue;
                        }
                        FrameworkEvent::InstructionCall => {
                            let calls = &mut out.instructions[instr].instruction_calls;
                            match calls.iter_mut().find(|(n, _)| *n == name) {
                                Some((_, s)) => s.push(run, ms),
                                None => {
                                    let mut s = Series::default();
                                    s.push(run, ms);
                                    calls.push((name, s));
                                }
                            }
                            continue;
                        }
                        _ => (Label::Name(name), RowKind::Kernel),
                    }
                }
                Some(DelegateId::Str(id)) => {
                    let kind = *delegate_cache[id.0 as usize].get_or_insert_with(|| {
                        delegate_row_kind(dump.names.get(id), plan_step_names)
                    });
                    (Label::DelegateStr(id), kind)
                }
                Some(DelegateId::Int(i)) => (Label::DelegateInt(i), RowKind::OtherDelegate),
            };
            let instr = instruction(&mut out, &mut instr_index, ev);
            let occ = occurrences.entry((instr, label)).or_insert(0);
            let occurrence = *occ;
            *occ += 1;
            let rows = &mut out.instructions[instr].rows;
            let row = *row_index
                .entry((instr, label, occurrence))
                .or_insert_with(|| {
                    rows.push(EventRow {
                        label,
                        occurrence,
                        kind,
                        series: Series::default(),
                        metadata: ev.metadata,
                        step_votes: Vec::new(),
                    });
                    rows.len() - 1
                });
            rows[row].series.push(run, ms);
            let placed = Placed {
                instr,
                row,
                start: ev.start_ticks,
                end: ev.end_ticks,
            };
            if kind == RowKind::Step {
                steps_in_run.push(placed);
            } else {
                inside_in_run.push(placed);
            }
        }
        // Steps of one delegate call follow each other: sorted by (instruction, start),
        // the container is among the last steps starting at or before the event. Looking
        // back a bounded number keeps a hostile run with many steps linear-logarithmic.
        steps_in_run.sort_unstable_by_key(|s| (s.instr, s.start));
        for p in &inside_in_run {
            let upto = steps_in_run.partition_point(|s| (s.instr, s.start) <= (p.instr, p.start));
            let container = steps_in_run[..upto]
                .iter()
                .rev()
                .take(CONTAINER_LOOKBACK)
                .take_while(|s| s.instr == p.instr)
                .find(|s| p.end <= s.end);
            if let Some(step) = container {
                let votes = &mut out.instructions[p.instr].rows[p.row].step_votes;
                match votes.iter_mut().find(|v| v.0 == step.row) {
                    Some(v) => v.1 += 1,
                    None => votes.push((step.row, 1)),
                }
            }
        }
    }
    out.instructions.sort_by_key(|i| i.instruction_id);
    out
}

fn delegate_row_kind(label: &str, plan_step_names: &HashSet<String>) -> RowKind {
    if plan_step_names.contains(label) {
        RowKind::Step
    } else if parse_operator_name(label).is_some() {
        RowKind::XnnpackOperator
    } else if parse_step_name(label).is_some() {
        RowKind::Step
    } else {
        RowKind::OtherDelegate
    }
}

fn instruction(out: &mut Collected, index: &mut FastMap<i32, usize>, ev: &ProfileEvent) -> usize {
    *index.entry(ev.instruction_id).or_insert_with(|| {
        out.instructions.push(InstructionData {
            instruction_id: ev.instruction_id,
            ..Default::default()
        });
        out.instructions.len() - 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_rules() {
        assert_eq!(duration_ms(1_000, 2_500), Some(0.0015));
        assert_eq!(duration_ms(7, 7), Some(0.0));
        // 32-bit wrap as the Inspector computes it: (2^32 - 1 - start) + end, no +1.
        assert_eq!(duration_ms(4_294_967_000, 704), Some((295.0 + 704.0) / 1e6));
        assert_eq!(duration_ms(5_000_000_000, 10), None);
    }
}
