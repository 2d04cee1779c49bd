//! The `Collector`: one method's runs fed one at a time, each event made a sample of its
//! row and each delegate event placed in the step holding it (or deferred to `finish`).

use std::collections::HashSet;

use super::super::classify::{
    classify_framework, parse_operator_name, parse_step_name, FrameworkEvent,
};
use super::super::fast_hash::FastMap;
use super::memo::{InstructionIndex, PositionMemo, RowIndex, RunCounters, Slot};
use super::replay::{Action, Replay, RowCheck};
use super::samples::{Collected, EventRow, Label, Placements, RowKind, Series};
use crate::etdump::{duration_ticks, ByteSpan, DelegateId, NameTable, ProfileEvent};

/// Steps checked before giving up on finding an event's container (steps do not nest;
/// a few allow for overlaps from clock jitter).
const CONTAINER_LOOKBACK: usize = 4;

/// One clock quantum of XNNPACK operator events: their times are whole microseconds laid
/// end to end, so an operator may end (or start) up to 1 µs outside the step holding it.
pub(crate) const XNNPACK_QUANTUM_NS: u64 = 1_000;

struct Pending {
    /// Index of the event in its run.
    event: u32,
    instr: usize,
    label: Label,
    kind: RowKind,
    start: u64,
    end: u64,
    ns: u64,
    metadata: Option<ByteSpan>,
}

struct PlacedStep {
    /// Index of the step event in its run.
    event: u32,
    instr: usize,
    call: u32,
    row: usize,
    start: u64,
    end: u64,
}

/// A delegate event no step contains; placed once every run is seen.
struct Deferred {
    event: u32,
    run: usize,
    instr: usize,
    label: Label,
    kind: RowKind,
    order: u32,
    ns: u64,
    metadata: Option<ByteSpan>,
    nearest_step: Option<usize>,
}

impl Deferred {
    fn of(p: &Pending, run: usize, order: u32, nearest_step: Option<usize>) -> Deferred {
        Deferred {
            event: p.event,
            run,
            instr: p.instr,
            label: p.label,
            kind: p.kind,
            order,
            ns: p.ns,
            metadata: p.metadata,
            nearest_step,
        }
    }
}

/// The collection of one method's runs, fed one run at a time in run order (from a
/// decoded dump, or from chunks of runs as they are decoded: no event array needed).
pub(crate) struct Collector<'p> {
    plan_step_names: &'p HashSet<String>,
    record: bool,
    out: Collected,
    /// With `record`: where each row event went.
    placements: Placements,
    instr_index: InstructionIndex,
    row_index: RowIndex,
    /// (instr, label, order among same-named events of a call) -> the in-step row that
    /// first held that order: where an event whose step is missing in its run belongs.
    order_rows: FastMap<(usize, Label, u32), usize>,
    order_rows_seen: PositionMemo<(usize, Label, u32)>,
    counters: RunCounters<(usize, u32, Label, u32)>,
    /// Per-name classification, computed once per distinct name.
    framework_cache: Vec<Option<FrameworkEvent>>,
    delegate_cache: Vec<Option<RowKind>>,
    pending: Vec<Pending>,
    time_order: Vec<(u64, u32)>,
    /// (instruction, start, call number, event index) of the run's delegate calls.
    calls: Vec<(usize, u64, u32, u32)>,
    steps: Vec<PlacedStep>,
    deferred: Vec<Deferred>,
    /// Instructions that had a step event in some run so far: only their step-less
    /// events need deferring (a plain XNNPACK delegate never pays for it).
    has_step_events: Vec<bool>,
    /// Plans of the last runs collected in full, replayed where a later run repeats
    /// one of them (`replay.rs`).
    replay: Replay,
}

impl<'p> Collector<'p> {
    /// `runs`: how many runs will be fed (an upper bound is fine): rows of the first run
    /// reserve room for that many samples, `reserve_budget` samples in all (at most the
    /// events to come, so reserving never holds more than the samples would).
    pub(crate) fn new(
        plan_step_names: &'p HashSet<String>,
        record: bool,
        runs: usize,
        reserve_budget: usize,
    ) -> Self {
        Collector {
            plan_step_names,
            record,
            out: Collected::default(),
            placements: Placements::default(),
            instr_index: InstructionIndex::default(),
            // Runs of one method mostly repeat the previous run's keys in the same order,
            // so the hashed maps are looked up only where a run differs (`PositionMemo`).
            row_index: RowIndex {
                capacity: runs,
                reserve_budget,
                ..RowIndex::default()
            },
            order_rows: FastMap::default(),
            order_rows_seen: PositionMemo::default(),
            counters: RunCounters::default(),
            framework_cache: Vec::new(),
            delegate_cache: Vec::new(),
            pending: Vec::new(),
            time_order: Vec::new(),
            calls: Vec::new(),
            steps: Vec::new(),
            deferred: Vec::new(),
            has_step_events: Vec::new(),
            replay: Replay::default(),
        }
    }

    /// With `record`: place only the events of the runs in `runs` (a timeline of a few
    /// runs of a big dump); the rows are collected from every run as before.
    pub(crate) fn record_only(&mut self, runs: std::ops::Range<usize>) {
        self.placements.only(runs);
    }

    /// Every run collected in full (the replay's differential tests).
    #[cfg(test)]
    pub(super) fn replay_off(&mut self) {
        self.replay.off = true;
    }

    /// How many runs were replayed so far.
    #[cfg(test)]
    pub(super) fn replayed(&self) -> usize {
        self.replay.replayed
    }

    /// Collects the next run: its `events`, names resolved in `names`.
    pub(crate) fn run(&mut self, names: &NameTable, events: &[ProfileEvent]) {
        if self.out.runs == 1 {
            self.row_index.capacity = 0;
        }
        let run = self.out.runs;
        if self.record {
            self.placements.start_run(events.len());
        }
        let placements = self.record.then_some(&mut self.placements);
        if self.replay.apply(&mut self.out, run, events, placements) {
            self.out.runs += 1;
            return;
        }
        let Collector {
            plan_step_names,
            record,
            out,
            placements,
            instr_index,
            row_index,
            order_rows,
            order_rows_seen,
            counters,
            framework_cache,
            delegate_cache,
            pending,
            time_order,
            calls,
            steps,
            deferred,
            has_step_events,
            replay,
        } = self;
        let record = *record;
        if framework_cache.len() < names.len() {
            framework_cache.resize(names.len(), None);
            delegate_cache.resize(names.len(), None);
        }
        let run = out.runs;
        out.runs += 1;
        counters.start_run();
        row_index.memo.start_run();
        order_rows_seen.start_run();
        pending.clear();
        calls.clear();
        steps.clear();
        replay.begin(events);
        let mut replayable = true;
        let mut repeated = 0;
        for (event_index, ev) in events.iter().enumerate() {
            let Some(ns) = duration_ticks(ev.start_ticks, ev.end_ticks) else {
                replayable = false;
                out.negative_durations += 1;
                if out.negative_examples.len() < 3 {
                    out.negative_examples.push(format!(
                        "{:?} in run {run} (start {} > end {})",
                        crate::etdump::event_label(names, ev),
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
                        replay.set(event_index, Action::Ignored);
                        continue;
                    };
                    let class = *framework_cache[name.0 as usize]
                        .get_or_insert_with(|| classify_framework(names.get(name)));
                    if class == FrameworkEvent::MethodExecute {
                        out.method.push(run, ns);
                        replay.set(event_index, Action::Method);
                        continue;
                    }
                    if ev.chain_index < 0 {
                        out.ignored_events += 1;
                        replay.set(event_index, Action::Ignored);
                        continue;
                    }
                    let instr = instr_index.get(out, ev);
                    match class {
                        FrameworkEvent::DelegateCall => {
                            out.instructions[instr].delegate_call.push(run, ns);
                            calls.push((instr, ev.start_ticks, 0, event_index as u32));
                            let instr = instr as u32;
                            replay.set(event_index, Action::DelegateCall { instr });
                            continue;
                        }
                        FrameworkEvent::InstructionCall => {
                            let calls = &mut out.instructions[instr].instruction_calls;
                            let index = match calls.iter().position(|(n, _)| *n == name) {
                                Some(k) => k,
                                None => {
                                    calls.push((name, Series::default()));
                                    calls.len() - 1
                                }
                            };
                            calls[index].1.push(run, ns);
                            let (instr, index) = (instr as u32, index as u32);
                            replay.set(event_index, Action::InstructionCall { instr, index });
                            continue;
                        }
                        _ => (Label::Name(name), RowKind::Kernel),
                    }
                }
                Some(DelegateId::Str(id)) => {
                    let kind = *delegate_cache[id.0 as usize]
                        .get_or_insert_with(|| delegate_row_kind(names.get(id), plan_step_names));
                    (Label::DelegateStr(id), kind)
                }
                Some(DelegateId::Int(i)) => (Label::DelegateInt(i), RowKind::OtherDelegate),
            };
            let instr = instr_index.get(out, ev);
            pending.push(Pending {
                event: event_index as u32,
                instr,
                label,
                kind,
                start: ev.start_ticks,
                end: ev.end_ticks,
                ns,
                metadata: ev.metadata,
            });
        }
        // Delegate calls of this run, numbered per instruction: a delegate called twice
        // in one run gives its steps and operators a second sample in the same rows.
        calls.sort_unstable();
        for i in 0..calls.len() {
            if i > 0 && calls[i - 1].0 == calls[i].0 {
                calls[i].2 = calls[i - 1].2 + 1;
                out.repeated_calls += 1;
                repeated += 1;
            }
        }
        // (call number, partition point of (instr, start) in `calls` that gave it).
        let call_of = |instr: usize, start: u64| -> (u32, u32) {
            let upto = calls.partition_point(|c| (c.0, c.1) <= (instr, start));
            let call = match upto.checked_sub(1).map(|i| calls[i]) {
                Some((i, _, n, _)) if i == instr => n,
                _ => 0,
            };
            (call, upto as u32)
        };
        let row_plan =
            |p: &Pending, row: usize, at_call| RowCheck::new(p.event, p.instr, row, at_call);
        // Children end before their parents and are stored first: time order (stable)
        // makes occurrence numbers follow execution order.
        // (start, index): sorting these is a stable sort of `pending` by start, without
        // moving the (larger) pending events. The previous run's order usually fits this
        // run too: with as many events, it is a permutation of this run's indexes, and
        // the one permutation putting the (distinct) pairs in increasing order is the
        // sorted order, so it is checked in one pass and sorted only when it fails.
        if time_order.len() == pending.len() {
            for entry in time_order.iter_mut() {
                entry.0 = pending[entry.1 as usize].start;
            }
        } else {
            time_order.clear();
            time_order.extend(pending.iter().enumerate().map(|(i, p)| (p.start, i as u32)));
        }
        if !time_order.is_sorted() {
            time_order.sort_unstable();
        }
        let in_time_order = || time_order.iter().map(|&(_, i)| &pending[i as usize]);
        for p in in_time_order().filter(|p| p.kind == RowKind::Step) {
            let at_call = call_of(p.instr, p.start);
            let call = at_call.0;
            let occ = counters.next((p.instr, call, p.label, u32::MAX));
            if has_step_events.len() <= p.instr {
                has_step_events.resize(p.instr + 1, false);
            }
            if !has_step_events[p.instr] {
                has_step_events[p.instr] = true;
                replay.forget();
            }
            let row = row_for(out, row_index, p, Slot::StepOccurrence(occ));
            out.instructions[p.instr].rows[row].series.push(run, p.ns);
            if record {
                placements.set(run, p.event as usize, p.instr, row);
            }
            let event = p.event;
            replay.set(event as usize, Action::Row(row_plan(p, row, at_call)));
            steps.push(PlacedStep {
                event,
                instr: p.instr,
                call,
                row,
                start: p.start,
                end: p.end,
            });
        }
        steps.sort_unstable_by_key(|s| (s.instr, s.call, s.start));
        // (key, target, first, upto) of the previous event: see `upto` below.
        let mut cursor: Option<((usize, u32), u64, usize, usize)> = None;
        for p in in_time_order().filter(|p| p.kind != RowKind::Step) {
            let at_call = call_of(p.instr, p.start);
            let call = at_call.0;
            let order = counters.next((p.instr, call, p.label, u32::MAX - 1));
            let tol = if p.kind == RowKind::XnnpackOperator {
                XNNPACK_QUANTUM_NS
            } else {
                0
            };
            let key = (p.instr, call);
            let target = p.start.saturating_add(tol);
            let within = |s: &PlacedStep| (s.instr, s.call, s.start) <= (p.instr, call, target);
            // Steps are sorted, so `within` holds on a prefix: `upto` is its end. Events
            // come in time order, so with the previous event's key and a target no smaller
            // than its target, that prefix only grows: it is extended from there.
            let (first, upto) = match cursor {
                Some((k, t, first, mut upto)) if k == key && target >= t => {
                    while steps.get(upto).is_some_and(within) {
                        upto += 1;
                    }
                    (first, upto)
                }
                _ => (
                    steps.partition_point(|s| (s.instr, s.call) < key),
                    steps.partition_point(within),
                ),
            };
            cursor = Some((key, target, first, upto));
            let has_steps = steps.get(first).is_some_and(|s| (s.instr, s.call) == key);
            if !has_steps {
                // An event in a call with no step event, of an instruction that had steps
                // in an earlier run: its step is missing in this run, so it is placed
                // after every run is seen.
                let had_steps = has_step_events.get(p.instr).copied().unwrap_or(false);
                if had_steps {
                    deferred.push(Deferred::of(p, run, order, None));
                    replayable = false;
                } else {
                    let row = row_for(out, row_index, p, Slot::Order(order));
                    out.instructions[p.instr].rows[row].series.push(run, p.ns);
                    if record {
                        placements.set(run, p.event as usize, p.instr, row);
                    }
                    replay.set(p.event as usize, Action::Row(row_plan(p, row, at_call)));
                }
                continue;
            }
            // Exact containment first; only then within one clock quantum, so an
            // operator ending where the next step starts stays in its own step.
            // The candidates, latest first: steps[lo..upto] reversed.
            let lo = upto.saturating_sub(CONTAINER_LOOKBACK + 1).max(first);
            let holds = |k: &usize| steps[*k].start <= p.start && p.end <= steps[*k].end;
            let near = |k: &usize| p.end <= steps[*k].end.saturating_add(tol);
            let container = match (lo..upto).rev().find(holds) {
                Some(k) => Some((k, true)),
                None => (lo..upto).rev().find(near).map(|k| (k, false)),
            };
            match container {
                Some((k, exact)) => {
                    let step = &steps[k];
                    let j = counters.next((p.instr, call, p.label, step.row as u32));
                    let row = row_for(out, row_index, p, Slot::InStep(step.row as u32, j));
                    let key = (p.instr, p.label, order);
                    // A key the previous run had at this place is in the map already.
                    order_rows_seen.get(key, || {
                        order_rows.entry(key).or_insert(row);
                        0
                    });
                    if record {
                        placements.set(run, p.event as usize, p.instr, row);
                    }
                    let r = &mut out.instructions[p.instr].rows[row];
                    r.series.push(run, p.ns);
                    r.vote(step.row);
                    let check =
                        row_plan(p, row, at_call).in_step((lo, upto, k), exact, tol, step.row);
                    replay.set(p.event as usize, Action::Row(check));
                }
                None => {
                    // The nearest step of the same call: the last one starting before the
                    // event or the first one after it, whichever is closer in time.
                    let last = steps[first..].partition_point(|s| (s.instr, s.call) == key) + first;
                    let before = steps[first..upto].last();
                    let after = steps[upto..last].first();
                    let gap_before = before.map(|s| p.start.saturating_sub(s.end));
                    let gap_after = after.map(|s| s.start.saturating_sub(p.end));
                    let nearest = match (gap_before, gap_after) {
                        (Some(b), Some(a)) if a < b => after,
                        (Some(_), _) => before,
                        _ => after,
                    };
                    deferred.push(Deferred::of(p, run, order, nearest.map(|s| s.row)));
                    replayable = false;
                }
            }
        }
        replay.end(
            time_order.iter().map(|&(_, i)| pending[i as usize].event),
            calls.iter().map(|c| c.3),
            steps.iter().map(|s| s.event),
            repeated,
            replayable,
        );
    }

    /// The rows of every run fed.
    pub(crate) fn finish(self) -> Collected {
        let Collector {
            record,
            mut out,
            mut placements,
            mut row_index,
            order_rows,
            deferred,
            ..
        } = self;
        // Events no step contains. When their step event is missing in that run, they belong
        // to the in-step row that holds the same order elsewhere (and has no sample in this
        // run); otherwise they get a row of their own, placed under the nearest step.
        for d in &deferred {
            let home = order_rows
                .get(&(d.instr, d.label, d.order))
                .copied()
                .filter(|&row| !out.instructions[d.instr].rows[row].series.has_run(d.run));
            match home {
                Some(row) => {
                    if record {
                        placements.set(d.run, d.event as usize, d.instr, row);
                    }
                    out.instructions[d.instr].rows[row]
                        .series
                        .insert(d.run, d.ns);
                }
                None => {
                    let p = Pending {
                        event: d.event,
                        instr: d.instr,
                        label: d.label,
                        kind: d.kind,
                        start: 0,
                        end: 0,
                        ns: d.ns,
                        metadata: d.metadata,
                    };
                    let row = row_for(&mut out, &mut row_index, &p, Slot::Order(d.order));
                    if record {
                        placements.set(d.run, d.event as usize, d.instr, row);
                    }
                    let r = &mut out.instructions[d.instr].rows[row];
                    r.series.push(d.run, d.ns);
                    if let Some(step) = d.nearest_step {
                        r.vote(step);
                        out.nearest_step_events += 1;
                    }
                }
            }
        }
        // Sorted by instruction id; placements follow the instructions to their new index.
        let mut order: Vec<usize> = (0..out.instructions.len()).collect();
        order.sort_by_key(|&i| out.instructions[i].instruction_id);
        let mut new_index = vec![0; order.len()];
        for (new, &old) in order.iter().enumerate() {
            new_index[old] = new;
        }
        out.instructions.sort_by_key(|i| i.instruction_id);
        if record {
            placements.renumber(&new_index);
            out.placements = Some(placements);
        }
        out
    }
}

fn row_for(out: &mut Collected, index: &mut RowIndex, p: &Pending, slot: Slot) -> usize {
    let rows = &mut out.instructions[p.instr].rows;
    let key = (p.instr, p.label, slot);
    let map = &mut index.map;
    let capacity = if index.reserve_budget >= index.capacity {
        index.capacity
    } else {
        0
    };
    let budget = &mut index.reserve_budget;
    index.memo.get(key, || {
        *map.entry(key).or_insert_with(|| {
            let occurrence = match slot {
                Slot::StepOccurrence(n) | Slot::InStep(_, n) | Slot::Order(n) => n,
            };
            *budget -= capacity;
            rows.push(EventRow {
                label: p.label,
                occurrence,
                kind: p.kind,
                series: Series::with_capacity(capacity),
                metadata: p.metadata,
                step_votes: Vec::new(),
            });
            rows.len() - 1
        })
    })
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
