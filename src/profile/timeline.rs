//! Per-event timeline of a dump: for every `Execute` run, each event with its start and
//! duration, attributed to its delegate, plan step and operator by the same keys and step
//! votes the profile uses (`collect.rs`), so the timeline and the aggregated tree agree.
//!
//! The timeline keeps every event of every run (warm-ups included and flagged); callers
//! pick the runs they show. Times are ETDump ticks, which are nanoseconds.

use std::collections::HashSet;

use super::classify::{classify_framework, FrameworkEvent};
use super::collect::{collect_with_placements, Label, RowKind};
use super::fast_hash::FastMap;
use super::shapes::{decode_metadata, Metadata};
use super::BuildError;
use crate::etdump::{DelegateId, EtDump};
use crate::runlog::{CpuPlan, RunLog};

/// What a timeline event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimelineKind {
    /// `Method::execute`.
    Method,
    /// `DELEGATE_CALL` of a delegated instruction.
    DelegateCall,
    /// `OPERATOR_CALL` and the other per-instruction scopes.
    InstructionCall,
    /// A CpuBackend plan step.
    Step,
    /// An XNNPACK operator event (`<op> #<n>`); its start is synthesized by the runtime.
    XnnpackOperator,
    /// A kernel event (`native_call_*`).
    Kernel,
    /// Any other delegate event.
    OtherDelegate,
}

impl TimelineKind {
    /// Order among events starting and ending together: the container first.
    fn rank(self) -> u8 {
        match self {
            TimelineKind::Method => 0,
            TimelineKind::DelegateCall | TimelineKind::InstructionCall => 1,
            TimelineKind::Step => 2,
            _ => 3,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TimelineKind::Method => "method",
            TimelineKind::DelegateCall => "delegate_call",
            TimelineKind::InstructionCall => "instruction_call",
            TimelineKind::Step => "step",
            TimelineKind::XnnpackOperator => "xnnpack_operator",
            TimelineKind::Kernel => "kernel",
            TimelineKind::OtherDelegate => "delegate_event",
        }
    }
}

/// What is common to all samples of one event (one row of the profile).
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineEntry {
    pub name: String,
    pub kind: TimelineKind,
    /// None for `Method::execute`.
    pub instruction_id: Option<i32>,
    /// The instruction is a delegate call (its events belong to a delegate).
    pub in_delegate: bool,
    /// The plan step this event voted for (an index into [`Timeline::entries`]).
    pub step: Option<u32>,
    pub input_shapes: Option<Vec<Vec<i64>>>,
    pub output_shapes: Option<Vec<Vec<i64>>>,
}

/// One event of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineEvent {
    /// Index into [`Timeline::entries`].
    pub entry: u32,
    /// Ticks (ns) on the dump's clock.
    pub start_ns: u64,
    pub dur_ns: u64,
    /// The enclosing event in this run (index into [`TimelineRun::events`]); parents
    /// come before their children.
    pub parent: Option<u32>,
}

impl TimelineEvent {
    pub fn end_ns(&self) -> u64 {
        self.start_ns.saturating_add(self.dur_ns)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRun {
    /// Index among the dump's `Execute` runs (0-based, warm-ups included).
    pub index: usize,
    pub warmup: bool,
    /// The run's method (run signature group): an index into [`Timeline::methods`].
    pub method: usize,
    /// In tree order: every parent before its children, siblings by start time.
    pub events: Vec<TimelineEvent>,
}

impl TimelineRun {
    /// Duration of the run's first `Method::execute`, if any.
    pub fn method_ns(&self, timeline: &Timeline) -> Option<u64> {
        self.events
            .iter()
            .find(|e| timeline.entries[e.entry as usize].kind == TimelineKind::Method)
            .map(|e| e.dur_ns)
    }

    /// First start and last end of the run's events.
    pub fn span(&self) -> Option<(u64, u64)> {
        let start = self.events.iter().map(|e| e.start_ns).min()?;
        let end = self.events.iter().map(|e| e.end_ns()).max()?;
        Some((start, end))
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timeline {
    pub entries: Vec<TimelineEntry>,
    /// Every `Execute` run in order.
    pub runs: Vec<TimelineRun>,
    /// Number of leading runs flagged as warm-up (per method when there are several).
    pub warmup: usize,
    /// The methods (run signature groups, as in the profile: named by the log, else
    /// `method 1`, ..., with the bundled input when there is one), in order of first run.
    pub methods: Vec<String>,
    /// Events left out because they end before they start (as in the profile).
    pub negative_durations: usize,
    /// Events kept without attribution because no collected row matched them (0 unless
    /// this walk and `collect` disagree; the tests check it).
    pub unmatched_events: usize,
}

impl Timeline {
    pub fn kept_runs(&self) -> impl Iterator<Item = &TimelineRun> {
        self.runs.iter().filter(|r| !r.warmup)
    }

    pub fn entry(&self, event: &TimelineEvent) -> &TimelineEntry {
        &self.entries[event.entry as usize]
    }
}

/// Where an event's samples live in the collected rows.
#[derive(Clone, Copy)]
enum Slot {
    Method,
    DelegateCall(i32),
    InstructionCall(i32, crate::etdump::NameId),
    Row(usize, usize),
    /// A row event with no collected row (cannot happen while this walk and `collect`
    /// agree; kept rather than dropped, and counted, if they ever drift apart).
    Unmatched(i32, Label),
}

/// Build the timeline of `dump`, with the plans of `log` if given (they decide which
/// delegate events are steps, as in [`super::build_profile`]).
pub fn build_timeline(
    dump: &EtDump,
    log: Option<&RunLog>,
    warmup: super::warmup::Warmup,
) -> Result<Timeline, BuildError> {
    let plan_step_names: HashSet<String> = log
        .map(|l| {
            l.sequences
                .iter()
                .filter_map(|s| s.outcome.as_ref().ok())
                .flat_map(|p: &CpuPlan| p.regions.iter().map(|r| r.step_name()))
                .collect()
        })
        .unwrap_or_default();
    // Every Execute block, in order; collect records the row of each row event, so the
    // timeline places events exactly where the statistics counted them.
    let execute_blocks: Vec<usize> = dump
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.name == "Execute")
        .map(|(i, _)| i)
        .collect();
    let mut collected = collect_with_placements(dump, &plan_step_names, &execute_blocks);
    let placements = collected.placements.take().unwrap_or_default();
    if collected.runs == 0 {
        return Err(BuildError::NoExecuteRuns);
    }
    // `log` (the default): the runner log's count when it adds up, else auto.
    let (warmup, _, _) = super::warmup::resolve(warmup, log, collected.runs);
    let auto = warmup == super::warmup::Warmup::Auto;
    // `auto`: the cold leading runs by the profile's rule, over Method::execute (per
    // method when there are several: redone below once the runs are known).
    let warmup = match warmup {
        super::warmup::Warmup::Runs(n) => n,
        super::warmup::Warmup::Auto => super::warmup::auto_warmup(&collected.method.ms()).0,
        super::warmup::Warmup::Stated => 0,
    };
    if warmup >= collected.runs {
        return Err(BuildError::WarmupTooLarge {
            warmup,
            runs: collected.runs,
        });
    }

    // The methods, grouped as the profile groups them; warm-up is per method, as there.
    let groups = super::methods::group_runs(dump);
    let names = super::build::method_names(log, groups.len());
    let mut method_of_block: FastMap<usize, usize> = FastMap::default();
    for (g, group) in groups.iter().enumerate() {
        for &b in &group.blocks {
            method_of_block.insert(b, g);
        }
    }
    let method_names: Vec<String> = groups
        .iter()
        .zip(&names)
        .map(|(g, n)| match g.bundled_input_index {
            Some(b) => format!("{n} (bundled input {b})"),
            None => n.clone(),
        })
        .collect();
    // Runs dropped per method: the first method's as asked (too many is an error, as
    // in the profile), the others' at most all but one (the profile warns about those).
    let drops: Vec<usize> = groups
        .iter()
        .enumerate()
        .map(|(g, grp)| {
            if g == 0 {
                warmup
            } else {
                warmup.min(grp.blocks.len().saturating_sub(1))
            }
        })
        .collect();
    if groups.len() > 1 && !auto && groups[0].blocks.len() <= warmup {
        return Err(BuildError::WarmupTooLarge {
            warmup,
            runs: groups[0].blocks.len(),
        });
    }
    let mut seen_in_method = vec![0usize; groups.len().max(1)];
    let mut tl = Timeline {
        warmup,
        methods: method_names,
        ..Timeline::default()
    };
    // Entries: one per collected row, plus the method and the instruction scopes.
    let mut row_entry: FastMap<(usize, usize), u32> = FastMap::default();
    let label_name = |label: Label| match label {
        Label::Name(n) | Label::DelegateStr(n) => dump.names.get(n).to_string(),
        Label::DelegateInt(i) => i.to_string(),
    };
    for (ii, instr) in collected.instructions.iter().enumerate() {
        for (ri, row) in instr.rows.iter().enumerate() {
            let (input_shapes, output_shapes) = match decode_metadata(
                row.metadata
                    .map(|s| dump.metadata.get(s.start as usize..s.end as usize))
                    .unwrap_or(None),
            ) {
                Metadata::Shapes(s) => (Some(s.inputs), Some(s.outputs)),
                _ => (None, None),
            };
            let kind = match row.kind {
                RowKind::Step => TimelineKind::Step,
                RowKind::XnnpackOperator => TimelineKind::XnnpackOperator,
                RowKind::Kernel => TimelineKind::Kernel,
                RowKind::OtherDelegate => TimelineKind::OtherDelegate,
            };
            row_entry.insert((ii, ri), tl.entries.len() as u32);
            tl.entries.push(TimelineEntry {
                name: label_name(row.label),
                kind,
                instruction_id: Some(instr.instruction_id),
                in_delegate: instr.is_delegate(),
                step: None,
                input_shapes,
                output_shapes,
            });
        }
    }
    // Step votes, resolved once all row entries exist.
    for (ii, instr) in collected.instructions.iter().enumerate() {
        for (ri, row) in instr.rows.iter().enumerate() {
            if row.kind == RowKind::Step || !instr.is_delegate() {
                continue;
            }
            if let Some(step_row) = row.voted_step() {
                let step = row_entry.get(&(ii, step_row)).copied();
                if let Some(&e) = row_entry.get(&(ii, ri)) {
                    tl.entries[e as usize].step = step;
                }
            }
        }
    }
    let is_delegate: FastMap<i32, bool> = collected
        .instructions
        .iter()
        .map(|i| (i.instruction_id, i.is_delegate()))
        .collect();
    // The rows' samples are not needed past here: freed before the per-event walk
    // builds the events (a 1 GB dump: the peak of opening its timeline).
    drop(collected);
    let mut scope_entry: FastMap<(u8, i32, u32), u32> = FastMap::default();
    let mut scope = |tl: &mut Timeline, slot: Slot| -> u32 {
        let (key, name, kind, instr) = match slot {
            Slot::Method => (
                (0, 0, 0),
                "Method::execute".to_string(),
                TimelineKind::Method,
                None,
            ),
            Slot::DelegateCall(i) => (
                (1, i, 0),
                "DELEGATE_CALL".to_string(),
                TimelineKind::DelegateCall,
                Some(i),
            ),
            Slot::InstructionCall(i, n) => (
                (2, i, n.0),
                dump.names.get(n).to_string(),
                TimelineKind::InstructionCall,
                Some(i),
            ),
            Slot::Unmatched(i, label) => {
                let (tag, value) = match label {
                    Label::Name(n) => (3, n.0),
                    Label::DelegateStr(n) => (4, n.0),
                    Label::DelegateInt(v) => (5, v as u32),
                };
                (
                    (tag, i, value),
                    label_name(label),
                    if tag == 3 {
                        TimelineKind::Kernel
                    } else {
                        TimelineKind::OtherDelegate
                    },
                    Some(i),
                )
            }
            Slot::Row(..) => ((6, 0, 0), String::new(), TimelineKind::Kernel, None),
        };
        *scope_entry.entry(key).or_insert_with(|| {
            tl.entries.push(TimelineEntry {
                name,
                kind,
                instruction_id: instr,
                in_delegate: kind == TimelineKind::DelegateCall
                    || (matches!(slot, Slot::Unmatched(..))
                        && instr
                            .and_then(|i| is_delegate.get(&i).copied())
                            .unwrap_or(false)),
                step: None,
                input_shapes: None,
                output_shapes: None,
            });
            (tl.entries.len() - 1) as u32
        })
    };

    // The same blocks and skips as `collect`; row events take the row it recorded.
    for (run, &block_index) in execute_blocks.iter().enumerate() {
        let block = &dump.blocks[block_index];
        let row_slot = |event_index: usize, instruction_id: i32, label: Label| {
            Some(
                placements
                    .get(run, event_index)
                    .map_or(Slot::Unmatched(instruction_id, label), |(i, r)| {
                        Slot::Row(i, r)
                    }),
            )
        };
        let mut events: Vec<TimelineEvent> = Vec::new();
        for (event_index, ev) in dump.block_events(block).iter().enumerate() {
            let Some(dur) = crate::etdump::duration_ticks(ev.start_ticks, ev.end_ticks) else {
                tl.negative_durations += 1;
                continue;
            };
            let slot = match ev.delegate_id {
                None => {
                    let Some(name) = ev.name else { continue };
                    match classify_framework(dump.names.get(name)) {
                        FrameworkEvent::MethodExecute => Some(Slot::Method),
                        _ if ev.chain_index < 0 => None,
                        FrameworkEvent::DelegateCall => Some(Slot::DelegateCall(ev.instruction_id)),
                        FrameworkEvent::InstructionCall => {
                            Some(Slot::InstructionCall(ev.instruction_id, name))
                        }
                        FrameworkEvent::Kernel => {
                            row_slot(event_index, ev.instruction_id, Label::Name(name))
                        }
                    }
                }
                Some(DelegateId::Str(id)) => {
                    row_slot(event_index, ev.instruction_id, Label::DelegateStr(id))
                }
                Some(DelegateId::Int(i)) => {
                    row_slot(event_index, ev.instruction_id, Label::DelegateInt(i))
                }
            };
            let entry = match slot {
                None => continue,
                Some(Slot::Row(ii, ri)) => match row_entry.get(&(ii, ri)) {
                    Some(&e) => e,
                    None => continue,
                },
                Some(s @ Slot::Unmatched(..)) => {
                    tl.unmatched_events += 1;
                    scope(&mut tl, s)
                }
                Some(s) => scope(&mut tl, s),
            };
            events.push(TimelineEvent {
                entry,
                start_ns: ev.start_ticks,
                dur_ns: dur,
                parent: None,
            });
        }
        let events = nest_run(&tl.entries, &is_delegate, events);
        let method = method_of_block.get(&block_index).copied().unwrap_or(0);
        let position = seen_in_method.get(method).copied().unwrap_or(0);
        if let Some(n) = seen_in_method.get_mut(method) {
            *n += 1;
        }
        tl.runs.push(TimelineRun {
            index: run,
            warmup: if groups.len() > 1 {
                position < drops.get(method).copied().unwrap_or(warmup)
            } else {
                run < warmup
            },
            method,
            events,
        });
    }
    if auto && groups.len() > 1 {
        // Each method's own cold leading runs, as the profile drops them.
        for g in 0..groups.len() {
            let ms: Vec<f64> = tl
                .runs
                .iter()
                .filter(|r| r.method == g)
                .filter_map(|r| r.method_ns(&tl))
                .map(|ns| ns as f64 / 1e6)
                .collect();
            let drop = super::warmup::auto_warmup(&ms).0;
            if g == 0 {
                tl.warmup = drop;
            }
            for (k, r) in tl.runs.iter_mut().filter(|r| r.method == g).enumerate() {
                r.warmup = k < drop;
            }
        }
    }
    Ok(tl)
}

/// Containers checked before falling back (see `pick` in `nest_run`).
const CANDIDATE_LOOKBACK: usize = 4;

/// Sort a run's events and give each its parent: method ⊃ delegate call / instruction
/// scope ⊃ plan step (its voted one) ⊃ operator or kernel. When an instruction has
/// several scopes in one run, the one containing the event wins.
fn nest_run(
    entries: &[TimelineEntry],
    is_delegate: &FastMap<i32, bool>,
    mut events: Vec<TimelineEvent>,
) -> Vec<TimelineEvent> {
    events.sort_by(|a, b| {
        a.start_ns
            .cmp(&b.start_ns)
            .then(b.end_ns().cmp(&a.end_ns()))
            .then(
                entries[a.entry as usize]
                    .kind
                    .rank()
                    .cmp(&entries[b.entry as usize].kind.rank()),
            )
    });
    let mut methods: Vec<u32> = Vec::new();
    let mut calls: FastMap<(bool, i32), Vec<u32>> = FastMap::default();
    let mut step_event: FastMap<u32, u32> = FastMap::default();
    for (i, e) in events.iter().enumerate() {
        let entry = &entries[e.entry as usize];
        match entry.kind {
            TimelineKind::Method => methods.push(i as u32),
            TimelineKind::DelegateCall | TimelineKind::InstructionCall => calls
                .entry((
                    entry.kind == TimelineKind::DelegateCall,
                    entry.instruction_id.unwrap_or(-1),
                ))
                .or_default()
                .push(i as u32),
            TimelineKind::Step => {
                step_event.entry(e.entry).or_insert(i as u32);
            }
            _ => {}
        }
    }
    let pick = |cands: &[u32], e: &TimelineEvent| -> Option<u32> {
        let inside = |c: &u32| {
            let p = &events[*c as usize];
            p.start_ns <= e.start_ns && e.end_ns() <= p.end_ns()
        };
        let starts_in = |c: &u32| {
            let p = &events[*c as usize];
            p.start_ns <= e.start_ns && e.start_ns < p.end_ns()
        };
        // Candidates are in start order: look at the few starting last at or before the
        // event (scopes of one instruction do not nest), so a hostile run stays n log n.
        let upto = cands.partition_point(|c| events[*c as usize].start_ns <= e.start_ns);
        let near = &cands[upto.saturating_sub(CANDIDATE_LOOKBACK)..upto];
        near.iter()
            .rev()
            .find(|c| inside(c))
            .or_else(|| near.iter().rev().find(|c| starts_in(c)))
            .or_else(|| near.last())
            .or_else(|| cands.first())
            .copied()
    };
    let mut parents: Vec<Option<u32>> = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let entry = &entries[e.entry as usize];
        let method = || pick(&methods, e).filter(|&m| m as usize != i);
        let instr = entry.instruction_id.unwrap_or(-1);
        let delegate_call = || {
            calls
                .get(&(true, instr))
                .and_then(|c| pick(c, e))
                .or_else(method)
        };
        let parent = match entry.kind {
            TimelineKind::Method => None,
            TimelineKind::DelegateCall | TimelineKind::InstructionCall => method(),
            TimelineKind::Step => delegate_call(),
            _ if is_delegate.get(&instr).copied().unwrap_or(false) => entry
                .step
                .and_then(|s| step_event.get(&s).copied())
                .or_else(delegate_call),
            _ => calls
                .get(&(false, instr))
                .and_then(|c| pick(c, e))
                .or_else(method),
        };
        parents.push(parent);
    }
    // Parents must precede children: a parent sorted after its child (it starts later,
    // e.g. a synthesized operator start before its step) is re-ordered by a stable
    // topological pass that keeps time order otherwise.
    let n = events.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut roots: Vec<u32> = Vec::new();
    for (i, p) in parents.iter().enumerate() {
        match p {
            Some(p) if (*p as usize) != i => children[*p as usize].push(i as u32),
            _ => roots.push(i as u32),
        }
    }
    // Cycles cannot arise (parents are containers of a higher rank), but a visited set
    // keeps the walk total whatever the input.
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut visited = vec![false; n];
    let mut stack: Vec<u32> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut visited[i as usize], true) {
            continue;
        }
        order.push(i);
        stack.extend(children[i as usize].iter().rev());
    }
    for i in 0..n as u32 {
        if !visited[i as usize] {
            order.push(i);
        }
    }
    let mut new_index = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    order
        .iter()
        .map(|&old| {
            let mut e = events[old as usize];
            e.parent = parents[old as usize]
                .map(|p| new_index[p as usize])
                .filter(|&p| p < new_index[old as usize]);
            e
        })
        .collect()
}
