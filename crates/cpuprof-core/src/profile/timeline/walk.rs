//! The per-event walk both timeline builders share: one entry per collected row (the
//! profile's rows, with their shapes and voted steps), the scopes (method, delegate call,
//! instruction scope) as they are met, and each run's events placed on the row
//! `collect` put them in, then nested.

use super::{Timeline, TimelineEntry, TimelineEvent, TimelineKind};
use crate::etdump::{DelegateId, NameId, NameTable, ProfileEvent};
use crate::profile::classify::{classify_framework, FrameworkEvent};
use crate::profile::collect::{Collected, Label, Placements, RowKind};
use crate::profile::fast_hash::FastMap;
use crate::profile::shapes::{decode_metadata, Metadata};

/// Where an event's samples live in the collected rows.
#[derive(Clone, Copy)]
enum Slot {
    Method,
    DelegateCall(i32),
    InstructionCall(i32, NameId),
    Row(usize, usize),
    /// A row event with no collected row (cannot happen while this walk and `collect`
    /// agree; kept rather than dropped, and counted, if they ever drift apart).
    Unmatched(i32, Label),
}

/// What the walk of each run needs from the collected rows, which can be dropped once
/// this is made (their samples are the bulk of a big dump's collection).
pub(super) struct Walker {
    /// The entry of each collected (instruction, row).
    row_entry: FastMap<(usize, usize), u32>,
    /// The entries of the scopes met so far.
    scope_entry: FastMap<(u8, i32, u32), u32>,
    is_delegate: FastMap<i32, bool>,
}

impl Walker {
    /// One entry per collected row pushed onto `tl.entries` (names in `names`, shapes in
    /// the `metadata` pool of the dump they were collected from), steps resolved.
    pub(super) fn new(
        tl: &mut Timeline,
        collected: &Collected,
        names: &NameTable,
        metadata: &[u8],
    ) -> Walker {
        let mut row_entry: FastMap<(usize, usize), u32> = FastMap::default();
        for (ii, instr) in collected.instructions.iter().enumerate() {
            for (ri, row) in instr.rows.iter().enumerate() {
                let (input_shapes, output_shapes) = match decode_metadata(
                    row.metadata
                        .map(|s| metadata.get(s.start as usize..s.end as usize))
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
                    name: label_name(names, row.label),
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
        let is_delegate = collected
            .instructions
            .iter()
            .map(|i| (i.instruction_id, i.is_delegate()))
            .collect();
        Walker {
            row_entry,
            scope_entry: FastMap::default(),
            is_delegate,
        }
    }

    /// The entry of a scope, made the first time it is met.
    fn scope(&mut self, tl: &mut Timeline, names: &NameTable, slot: Slot) -> u32 {
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
                names.get(n).to_string(),
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
                    label_name(names, label),
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
        let is_delegate = &self.is_delegate;
        *self.scope_entry.entry(key).or_insert_with(|| {
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
    }

    /// The events of `Execute` run `run` (its `events`, names in `names`), each on the row
    /// `placements` recorded, nested. Events that end before they start are counted in
    /// `negative` and left out (as in the profile).
    pub(super) fn run_events(
        &mut self,
        tl: &mut Timeline,
        names: &NameTable,
        placements: &Placements,
        run: usize,
        events: &[ProfileEvent],
        negative: &mut usize,
    ) -> Vec<TimelineEvent> {
        let row_slot = |event_index: usize, instruction_id: i32, label: Label| {
            Some(
                placements
                    .get(run, event_index)
                    .map_or(Slot::Unmatched(instruction_id, label), |(i, r)| {
                        Slot::Row(i, r)
                    }),
            )
        };
        let mut out: Vec<TimelineEvent> = Vec::new();
        for (event_index, ev) in events.iter().enumerate() {
            let Some(dur) = crate::etdump::duration_ticks(ev.start_ticks, ev.end_ticks) else {
                *negative += 1;
                continue;
            };
            let slot = match ev.delegate_id {
                None => {
                    let Some(name) = ev.name else { continue };
                    match classify_framework(names.get(name)) {
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
                Some(Slot::Row(ii, ri)) => match self.row_entry.get(&(ii, ri)) {
                    Some(&e) => e,
                    None => continue,
                },
                Some(s @ Slot::Unmatched(..)) => {
                    tl.unmatched_events += 1;
                    self.scope(tl, names, s)
                }
                Some(s) => self.scope(tl, names, s),
            };
            out.push(TimelineEvent {
                entry,
                start_ns: ev.start_ticks,
                dur_ns: dur,
                parent: None,
            });
        }
        nest_run(&tl.entries, &self.is_delegate, out)
    }
}

fn label_name(names: &NameTable, label: Label) -> String {
    match label {
        Label::Name(n) | Label::DelegateStr(n) => names.get(n).to_string(),
        Label::DelegateInt(i) => i.to_string(),
    }
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
