//! One pass over the `Execute` runs: every event becomes a sample of a row keyed by
//! (instruction, label, occurrence within the run), and every non-step event inside a
//! delegate votes for the step whose interval contains it. Nothing is dropped: rows keep
//! the run index of each sample so warm-ups can be split off later.

use std::collections::HashSet;

use super::classify::{classify_framework, parse_operator_name, parse_step_name, FrameworkEvent};
use super::fast_hash::FastMap;
use crate::etdump::{
    duration_ticks, ByteSpan, DelegateId, EtDump, NameId, NameTable, ProfileEvent,
};

/// Durations of one row in whole ns: `u32` while every sample fits (4.29 s), widened to
/// `u64` by the first one that does not. Milliseconds (`ns as f64 / 1e6`, bit for bit what
/// [`duration_ms`] gives) are made only when statistics are computed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Durations {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Durations {
    fn default() -> Self {
        Durations::Narrow(Vec::new())
    }
}

impl Durations {
    pub fn len(&self) -> usize {
        match self {
            Durations::Narrow(v) => v.len(),
            Durations::Wide(v) => v.len(),
        }
    }

    fn widen(&mut self) -> &mut Vec<u64> {
        if let Durations::Narrow(v) = self {
            *self = Durations::Wide(v.iter().map(|&x| u64::from(x)).collect());
        }
        match self {
            Durations::Wide(v) => v,
            Durations::Narrow(_) => unreachable!("widened above"),
        }
    }

    fn insert(&mut self, at: usize, ns: u64) {
        match (self, u32::try_from(ns)) {
            (Durations::Narrow(v), Ok(n)) => v.insert(at, n),
            (d, _) => d.widen().insert(at, ns),
        }
    }

    fn push(&mut self, ns: u64) {
        match (self, u32::try_from(ns)) {
            (Durations::Narrow(v), Ok(n)) => v.push(n),
            (d, _) => d.widen().push(ns),
        }
    }

    /// Samples `range` in ms, in order.
    pub fn ms(&self, range: std::ops::Range<usize>) -> Vec<f64> {
        match self {
            Durations::Narrow(v) => v[range].iter().map(|&n| ns_to_ms(u64::from(n))).collect(),
            Durations::Wide(v) => v[range].iter().map(|&n| ns_to_ms(n)).collect(),
        }
    }

    /// Calls `f(i, ms)` for every sample in order.
    pub fn for_each_ms(&self, mut f: impl FnMut(usize, f64)) {
        match self {
            Durations::Narrow(v) => {
                for (i, &n) in v.iter().enumerate() {
                    f(i, ns_to_ms(u64::from(n)))
                }
            }
            Durations::Wide(v) => {
                for (i, &n) in v.iter().enumerate() {
                    f(i, ns_to_ms(n))
                }
            }
        }
    }
}

/// Samples of one event over all runs, with the run index of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Series {
    ns: Durations,
    /// Run index of each sample; `None` while sample i is from run i (one sample per run
    /// from the first run, in order: the usual case, which then stores no run indexes).
    runs: Option<Vec<u32>>,
}

impl Series {
    fn with_capacity(n: usize) -> Self {
        Series {
            ns: Durations::Narrow(Vec::with_capacity(n)),
            runs: None,
        }
    }

    pub fn push(&mut self, run: usize, ns: u64) {
        let n = self.ns.len();
        match &mut self.runs {
            None if run == n => {}
            None => {
                let mut runs: Vec<u32> = (0..n as u32).collect();
                runs.push(run as u32);
                self.runs = Some(runs);
            }
            Some(runs) => runs.push(run as u32),
        }
        self.ns.push(ns);
    }

    /// Insert a sample of `run` (which has none yet) at its place in run order.
    fn insert(&mut self, run: usize, ns: u64) {
        let at = self.partition_runs(run);
        if self.runs.is_none() && at == self.ns.len() && run == at {
            self.ns.push(ns);
            return;
        }
        let n = self.ns.len() as u32;
        let runs = self.runs.get_or_insert_with(|| (0..n).collect());
        runs.insert(at, run as u32);
        self.ns.insert(at, ns);
        // A sample filling the only gap makes the row dense again.
        if runs.len() == runs.last().map_or(0, |&r| r as usize + 1) {
            self.runs = None;
        }
    }

    pub fn len(&self) -> usize {
        self.ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ns.len() == 0
    }

    /// Run index of sample `i`.
    pub fn run(&self, i: usize) -> usize {
        match &self.runs {
            None => i,
            Some(r) => r[i] as usize,
        }
    }

    /// Number of samples from runs before `run` (runs are in increasing order).
    pub fn partition_runs(&self, run: usize) -> usize {
        match &self.runs {
            None => run.min(self.ns.len()),
            Some(r) => r.partition_point(|&x| (x as usize) < run),
        }
    }

    fn has_run(&self, run: usize) -> bool {
        match &self.runs {
            None => run < self.ns.len(),
            Some(r) => r.binary_search(&(run as u32)).is_ok(),
        }
    }

    /// Run indexes of samples `range`.
    pub fn runs(&self, range: std::ops::Range<usize>) -> Vec<usize> {
        match &self.runs {
            None => range.collect(),
            Some(r) => r[range].iter().map(|&x| x as usize).collect(),
        }
    }

    pub fn durations(&self) -> &Durations {
        &self.ns
    }

    /// Every sample in ms, in run order.
    pub fn ms(&self) -> Vec<f64> {
        self.ns.ms(0..self.ns.len())
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
        !self.delegate_call.is_empty() || self.rows.iter().any(|r| r.kind != RowKind::Kernel)
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
    /// Delegate calls beyond the first of their instruction within a run.
    pub repeated_calls: usize,
    /// Delegate events outside every step, placed under the nearest step.
    pub nearest_step_events: usize,
    /// With [`collect_with_placements`]: the row of every row event, keyed by (index of
    /// its block in `dump.blocks`, its index among that block's events), so a timeline
    /// places each event exactly where the statistics counted it.
    pub placements: Option<FastMap<(u32, u32), (usize, usize)>>,
}

/// Duration in ms with the Inspector's rule for 32-bit tick wrap-around.
pub(crate) fn duration_ms(start: u64, end: u64) -> Option<f64> {
    duration_ticks(start, end).map(ns_to_ms)
}

/// Whole ns as ms: the one conversion every sample goes through.
#[inline]
pub(crate) fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Steps checked before giving up on finding an event's container (steps do not nest;
/// a few allow for overlaps from clock jitter).
const CONTAINER_LOOKBACK: usize = 4;

/// One clock quantum of XNNPACK operator events: their times are whole microseconds laid
/// end to end, so an operator may end (or start) up to 1 µs outside the step holding it.
pub(crate) const XNNPACK_QUANTUM_NS: u64 = 1_000;

/// Where an event sits, which is what tells same-named events of one run apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    /// A step event: its occurrence among same-named steps of the delegate call.
    StepOccurrence(u32),
    /// An event contained in a step: (step row, occurrence among same-named events in it).
    InStep(u32, u32),
    /// Anything else: occurrence among same-named events of the call.
    Order(u32),
}

struct Pending {
    /// (block, event index in the block): where the event came from.
    origin: (u32, u32),
    instr: usize,
    label: Label,
    kind: RowKind,
    start: u64,
    end: u64,
    ns: u64,
    metadata: Option<ByteSpan>,
}

struct PlacedStep {
    instr: usize,
    call: u32,
    row: usize,
    start: u64,
    end: u64,
}

/// A delegate event no step contains; placed once every run is seen.
struct Deferred {
    origin: (u32, u32),
    run: usize,
    instr: usize,
    label: Label,
    kind: RowKind,
    order: u32,
    ns: u64,
    metadata: Option<ByteSpan>,
    nearest_step: Option<usize>,
}

/// `plan_step_names`: step names from decoded plans, so steps are recognised even when a
/// plan names them in a form our parser does not know. `blocks`: indexes (into
/// `dump.blocks`) of the `Execute` runs of one method, in order.
pub(crate) fn collect(
    dump: &EtDump,
    plan_step_names: &HashSet<String>,
    blocks: &[usize],
) -> Collected {
    collect_inner(dump, plan_step_names, blocks, false)
}

/// [`collect`], also recording the row of every row event (`Collected::placements`).
pub(crate) fn collect_with_placements(
    dump: &EtDump,
    plan_step_names: &HashSet<String>,
    blocks: &[usize],
) -> Collected {
    collect_inner(dump, plan_step_names, blocks, true)
}

fn collect_inner(
    dump: &EtDump,
    plan_step_names: &HashSet<String>,
    blocks: &[usize],
    record: bool,
) -> Collected {
    let reserve_budget = blocks
        .iter()
        .filter_map(|&b| dump.blocks.get(b))
        .map(|b| b.events.len())
        .sum();
    let mut collector = Collector::new(plan_step_names, record, blocks.len(), reserve_budget);
    for (block_index, block) in blocks
        .iter()
        .filter_map(|&b| dump.blocks.get(b).map(|block| (b as u32, block)))
    {
        collector.run(&dump.names, block_index, dump.block_events(block));
    }
    collector.finish()
}

/// The collection of one method's runs, fed one run at a time in run order (from a
/// decoded dump, or from chunks of runs as they are decoded: no event array needed).
pub(crate) struct Collector<'p> {
    plan_step_names: &'p HashSet<String>,
    record: bool,
    out: Collected,
    placed: Vec<((u32, u32), usize, usize)>,
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
    calls: Vec<(usize, u64, u32)>,
    steps: Vec<PlacedStep>,
    deferred: Vec<Deferred>,
    /// Instructions that had a step event in some run so far: only their step-less
    /// events need deferring (a plain XNNPACK delegate never pays for it).
    has_step_events: Vec<bool>,
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
            placed: Vec::new(),
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
        }
    }

    /// Collects the next run: the events of block `block_index` (its index in the
    /// dump's blocks, for placements), names resolved in `names`.
    pub(crate) fn run(&mut self, names: &NameTable, block_index: u32, events: &[ProfileEvent]) {
        let Collector {
            plan_step_names,
            record,
            out,
            placed,
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
        } = self;
        let record = *record;
        if framework_cache.len() < names.len() {
            framework_cache.resize(names.len(), None);
            delegate_cache.resize(names.len(), None);
        }
        let run = out.runs;
        out.runs += 1;
        if run == 1 {
            row_index.capacity = 0;
        }
        counters.start_run();
        row_index.memo.start_run();
        order_rows_seen.start_run();
        pending.clear();
        calls.clear();
        steps.clear();
        for (event_index, ev) in events.iter().enumerate() {
            let Some(ns) = duration_ticks(ev.start_ticks, ev.end_ticks) else {
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
                        continue;
                    };
                    let class = *framework_cache[name.0 as usize]
                        .get_or_insert_with(|| classify_framework(names.get(name)));
                    if class == FrameworkEvent::MethodExecute {
                        out.method.push(run, ns);
                        continue;
                    }
                    if ev.chain_index < 0 {
                        out.ignored_events += 1;
                        continue;
                    }
                    let instr = instr_index.get(out, ev);
                    match class {
                        FrameworkEvent::DelegateCall => {
                            out.instructions[instr].delegate_call.push(run, ns);
                            calls.push((instr, ev.start_ticks, 0));
                            continue;
                        }
                        FrameworkEvent::InstructionCall => {
                            let calls = &mut out.instructions[instr].instruction_calls;
                            match calls.iter_mut().find(|(n, _)| *n == name) {
                                Some((_, s)) => s.push(run, ns),
                                None => {
                                    let mut s = Series::default();
                                    s.push(run, ns);
                                    calls.push((name, s));
                                }
                            }
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
                origin: (block_index, event_index as u32),
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
            }
        }
        let call_of = |instr: usize, start: u64| -> u32 {
            let upto = calls.partition_point(|c| (c.0, c.1) <= (instr, start));
            match upto.checked_sub(1).map(|i| calls[i]) {
                Some((i, _, n)) if i == instr => n,
                _ => 0,
            }
        };
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
            let call = call_of(p.instr, p.start);
            let occ = counters.next((p.instr, call, p.label, u32::MAX));
            if has_step_events.len() <= p.instr {
                has_step_events.resize(p.instr + 1, false);
            }
            has_step_events[p.instr] = true;
            let row = row_for(out, row_index, p, Slot::StepOccurrence(occ));
            out.instructions[p.instr].rows[row].series.push(run, p.ns);
            if record {
                placed.push((p.origin, p.instr, row));
            }
            steps.push(PlacedStep {
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
            let call = call_of(p.instr, p.start);
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
                    deferred.push(Deferred {
                        origin: p.origin,
                        run,
                        instr: p.instr,
                        label: p.label,
                        kind: p.kind,
                        order,
                        ns: p.ns,
                        metadata: p.metadata,
                        nearest_step: None,
                    });
                } else {
                    let row = row_for(out, row_index, p, Slot::Order(order));
                    out.instructions[p.instr].rows[row].series.push(run, p.ns);
                    if record {
                        placed.push((p.origin, p.instr, row));
                    }
                }
                continue;
            }
            // Exact containment first; only then within one clock quantum, so an
            // operator ending where the next step starts stays in its own step.
            let candidates = || steps[first..upto].iter().rev().take(CONTAINER_LOOKBACK + 1);
            let container = candidates()
                .find(|s| s.start <= p.start && p.end <= s.end)
                .or_else(|| candidates().find(|s| p.end <= s.end.saturating_add(tol)));
            match container {
                Some(step) => {
                    let j = counters.next((p.instr, call, p.label, step.row as u32));
                    let row = row_for(out, row_index, p, Slot::InStep(step.row as u32, j));
                    let key = (p.instr, p.label, order);
                    // A key the previous run had at this place is in the map already.
                    order_rows_seen.get(key, || {
                        order_rows.entry(key).or_insert(row);
                        0
                    });
                    if record {
                        placed.push((p.origin, p.instr, row));
                    }
                    let r = &mut out.instructions[p.instr].rows[row];
                    r.series.push(run, p.ns);
                    vote(r, step.row);
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
                    deferred.push(Deferred {
                        origin: p.origin,
                        run,
                        instr: p.instr,
                        label: p.label,
                        kind: p.kind,
                        order,
                        ns: p.ns,
                        metadata: p.metadata,
                        nearest_step: nearest.map(|s| s.row),
                    });
                }
            }
        }
    }

    /// The rows of every run fed.
    pub(crate) fn finish(self) -> Collected {
        let Collector {
            record,
            mut out,
            mut placed,
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
                        placed.push((d.origin, d.instr, row));
                    }
                    out.instructions[d.instr].rows[row]
                        .series
                        .insert(d.run, d.ns);
                }
                None => {
                    let p = Pending {
                        origin: d.origin,
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
                        placed.push((d.origin, d.instr, row));
                    }
                    let r = &mut out.instructions[d.instr].rows[row];
                    r.series.push(d.run, d.ns);
                    if let Some(step) = d.nearest_step {
                        vote(r, step);
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
            out.placements = Some(
                placed
                    .into_iter()
                    .map(|(origin, instr, row)| (origin, (new_index[instr], row)))
                    .collect(),
            );
        }
        out
    }
}

/// A lookup whose answer for a key never changes once made, memoised by position: the
/// k-th lookup of a run is answered without hashing when the previous run's k-th lookup
/// had the same key (runs of one method repeat their keys in order).
struct PositionMemo<K> {
    prev: Vec<(K, usize)>,
    cur: Vec<(K, usize)>,
}

impl<K> Default for PositionMemo<K> {
    fn default() -> Self {
        PositionMemo {
            prev: Vec::new(),
            cur: Vec::new(),
        }
    }
}

impl<K: Copy + Eq> PositionMemo<K> {
    fn start_run(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
    }

    #[inline(always)]
    fn get(&mut self, key: K, lookup: impl FnOnce() -> usize) -> usize {
        let value = match self.prev.get(self.cur.len()) {
            Some(&(k, v)) if k == key => v,
            _ => lookup(),
        };
        self.cur.push((key, value));
        value
    }
}

/// Occurrence counters that restart every run: `next(key)` is how many times `key` came
/// before in this run. While a run repeats the previous run's keys in order, the answers
/// are the previous run's; at the first difference the keys so far are replayed into the
/// map, which answers from then on.
struct RunCounters<K> {
    map: FastMap<K, u32>,
    prev: Vec<(K, u32)>,
    cur: Vec<(K, u32)>,
    replaying: bool,
}

impl<K> Default for RunCounters<K> {
    fn default() -> Self {
        RunCounters {
            map: FastMap::default(),
            prev: Vec::new(),
            cur: Vec::new(),
            replaying: true,
        }
    }
}

impl<K: Copy + Eq + std::hash::Hash> RunCounters<K> {
    fn start_run(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clear();
        if !self.map.is_empty() {
            self.map.clear();
        }
        self.replaying = true;
    }

    #[inline(always)]
    fn next(&mut self, key: K) -> u32 {
        if self.replaying {
            if let Some(&(k, v)) = self.prev.get(self.cur.len()) {
                if k == key {
                    self.cur.push((key, v));
                    return v;
                }
            }
            self.replaying = false;
            for &(k, _) in &self.cur {
                *self.map.entry(k).or_insert(0) += 1;
            }
        }
        let c = self.map.entry(key).or_insert(0);
        let v = *c;
        *c += 1;
        self.cur.push((key, v));
        v
    }
}

/// (instruction, label, slot) -> row index within the instruction.
#[derive(Default)]
struct RowIndex {
    /// Samples a new row reserves room for (one per run, for rows of the first run while
    /// `reserve_budget` lasts; 0 afterwards): rows then never grow by copying.
    capacity: usize,
    /// Samples left to reserve: at most the group's event count, so reserving never
    /// holds more than the samples themselves would.
    reserve_budget: usize,
    map: FastMap<(usize, Label, Slot), usize>,
    memo: PositionMemo<(usize, Label, Slot)>,
}

/// Instruction id -> index in `Collected::instructions`: ids are small in practice, so
/// a table serves them; others go through a map.
#[derive(Default)]
struct InstructionIndex {
    table: Vec<u32>,
    map: FastMap<i32, usize>,
}

/// Instruction ids below this are looked up in a table.
const INSTRUCTION_TABLE_MAX: i32 = 1 << 16;

impl InstructionIndex {
    fn get(&mut self, out: &mut Collected, ev: &ProfileEvent) -> usize {
        let id = ev.instruction_id;
        let mut create = || {
            out.instructions.push(InstructionData {
                instruction_id: id,
                ..Default::default()
            });
            out.instructions.len() - 1
        };
        if (0..INSTRUCTION_TABLE_MAX).contains(&id) {
            let slot = id as usize;
            if self.table.len() <= slot {
                self.table.resize(slot + 1, u32::MAX);
            }
            if self.table[slot] == u32::MAX {
                self.table[slot] = create() as u32;
            }
            self.table[slot] as usize
        } else {
            *self.map.entry(id).or_insert_with(create)
        }
    }
}

fn vote(row: &mut EventRow, step: usize) {
    match row.step_votes.iter_mut().find(|v| v.0 == step) {
        Some(v) => v.1 += 1,
        None => row.step_votes.push((step, 1)),
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

    #[test]
    fn series_store_no_runs_while_dense() {
        let mut s = Series::default();
        s.push(0, 5);
        s.push(1, 7);
        assert_eq!(s.runs, None);
        // Run 2 has no sample: from here the run of each sample is kept.
        s.push(3, 9);
        assert_eq!(s.runs.as_deref(), Some(&[0, 1, 3][..]));
        assert_eq!(s.partition_runs(2), 2);
        assert!(!s.has_run(2) && s.has_run(3));
        // The missing sample placed afterwards makes the row dense again.
        s.insert(2, 8);
        assert_eq!(s.runs, None);
        assert_eq!(s.ms(), vec![5e-6, 7e-6, 8e-6, 9e-6]);
        assert_eq!(s.runs(1..4), vec![1, 2, 3]);
        // A row starting after run 0 is not dense.
        let mut late = Series::default();
        late.push(1, 3);
        assert_eq!(late.runs(0..1), vec![1]);
        assert_eq!(late.partition_runs(1), 0);
    }

    #[test]
    fn durations_widen_past_u32() {
        let mut s = Series::default();
        s.push(0, 4_000_000_000);
        assert!(matches!(s.durations(), Durations::Narrow(_)));
        // 5 s does not fit in u32 ns (4.29 s): the row widens, keeping what it had.
        s.push(1, 5_000_000_000);
        assert!(matches!(s.durations(), Durations::Wide(_)));
        s.insert(2, 1);
        assert_eq!(s.ms(), vec![4000.0, 5000.0, 1e-6]);
        // ms are `ns as f64 / 1e6`, as `duration_ms` makes them.
        assert_eq!(Some(s.ms()[1]), duration_ms(0, 5_000_000_000));
    }
}
