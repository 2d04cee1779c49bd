//! What collecting makes: the samples of a row (`Durations` in whole ns, `Series` with
//! the run of each), the rows and instructions holding them, and `Collected`.

use crate::etdump::{duration_ticks, ByteSpan, NameId};

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

    #[inline]
    fn push(&mut self, ns: u64) {
        match (self, u32::try_from(ns)) {
            (Durations::Narrow(v), Ok(n)) => v.push(n),
            (d, _) => d.widen().push(ns),
        }
    }

    /// Samples `range` in ns, in order (a duration past i64, 292 years, saturates).
    pub fn ns(&self, range: std::ops::Range<usize>) -> Vec<i64> {
        match self {
            Durations::Narrow(v) => v[range].iter().map(|&n| i64::from(n)).collect(),
            Durations::Wide(v) => v[range].iter().map(|&n| wide_ns(n)).collect(),
        }
    }

    /// Calls `f(i, ns)` for every sample in order.
    pub fn for_each_ns(&self, mut f: impl FnMut(usize, u64)) {
        match self {
            Durations::Narrow(v) => {
                for (i, &n) in v.iter().enumerate() {
                    f(i, u64::from(n))
                }
            }
            Durations::Wide(v) => {
                for (i, &n) in v.iter().enumerate() {
                    f(i, n)
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
    pub(super) fn with_capacity(n: usize) -> Self {
        Series {
            ns: Durations::Narrow(Vec::with_capacity(n)),
            runs: None,
        }
    }

    /// One more sample (of run `run`, at or after every run so far): once per event.
    #[inline]
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
    pub(super) fn insert(&mut self, run: usize, ns: u64) {
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

    pub(super) fn has_run(&self, run: usize) -> bool {
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
        self.ns
            .ns(0..self.ns.len())
            .into_iter()
            .map(crate::stats::ns_to_ms)
            .collect()
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
    /// One more run in which step row `step` contained this event.
    pub(super) fn vote(&mut self, step: usize) {
        match self.step_votes.iter_mut().find(|v| v.0 == step) {
            Some(v) => v.1 += 1,
            None => self.step_votes.push((step, 1)),
        }
    }

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
    /// With [`collect_with_placements`](super::collect_with_placements): the row of every
    /// row event, by its run and its index among that run's events, so a timeline places
    /// each event exactly where the statistics counted it.
    pub placements: Option<Placements>,
}

/// Where each row event went: (instruction, row) by (run, index of the event in its
/// run). Dense: one slot per event of every run recorded (8 bytes), so placing and finding
/// are an index each (a hash map of every row event took ~60 bytes an event). Runs outside
/// `wanted` get no slots: a timeline of a few runs of a big dump holds only theirs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Placements {
    /// The runs recorded; every run when None.
    wanted: Option<std::ops::Range<usize>>,
    /// Where each run's events lie in `slots` (an empty range for a run not recorded).
    runs: Vec<(usize, usize)>,
    /// (instruction, row) of each event; `NOT_PLACED` for an event without a row.
    slots: Vec<(u32, u32)>,
}

const NOT_PLACED: (u32, u32) = (u32::MAX, u32::MAX);

impl Placements {
    /// Record only the runs in `runs` (by their index among the runs fed).
    pub(super) fn only(&mut self, runs: std::ops::Range<usize>) {
        self.wanted = Some(runs);
    }

    /// Room for the next run's `events`, none placed yet.
    pub(super) fn start_run(&mut self, events: usize) {
        let run = self.runs.len();
        let kept = self.wanted.as_ref().is_none_or(|w| w.contains(&run));
        let start = self.slots.len();
        let end = start + if kept { events } else { 0 };
        self.runs.push((start, end));
        self.slots.resize(end, NOT_PLACED);
    }

    /// Event `event` of run `run` (started) went to `row` of instruction `instr` (kept
    /// only when the run is recorded).
    #[inline]
    pub(super) fn set(&mut self, run: usize, event: usize, instr: usize, row: usize) {
        let (start, end) = self.runs[run];
        if start + event < end {
            self.slots[start + event] = (instr as u32, row as u32);
        }
    }

    /// Instruction indexes renumbered: `new_index[old]`.
    pub(super) fn renumber(&mut self, new_index: &[usize]) {
        for slot in self.slots.iter_mut().filter(|s| **s != NOT_PLACED) {
            slot.0 = new_index[slot.0 as usize] as u32;
        }
    }

    /// The (instruction, row) of event `event` of run `run`, if it went to a row (None
    /// too for a run not recorded).
    pub fn get(&self, run: usize, event: usize) -> Option<(usize, usize)> {
        let &(start, end) = self.runs.get(run)?;
        let slot = *self.slots[start..end].get(event)?;
        (slot != NOT_PLACED).then_some((slot.0 as usize, slot.1 as usize))
    }

    /// Whether run `run`'s events were recorded.
    pub fn recorded(&self, run: usize) -> bool {
        self.wanted.as_ref().is_none_or(|w| w.contains(&run)) && run < self.runs.len()
    }
}

/// Duration in ms with the Inspector's rule for 32-bit tick wrap-around.
pub(crate) fn duration_ms(start: u64, end: u64) -> Option<f64> {
    duration_ticks(start, end).map(ns_to_ms)
}

/// Whole ns as ms (`stats::ns_to_ms` for an unsigned duration).
#[inline]
pub(crate) fn ns_to_ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// An unsigned duration as a sample: past i64 (292 years) it saturates.
#[inline]
pub(crate) fn wide_ns(ns: u64) -> i64 {
    i64::try_from(ns).unwrap_or(i64::MAX)
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
    fn placements_are_found_by_run_and_event_only_within_the_run() {
        let mut p = Placements::default();
        p.start_run(2);
        p.start_run(3);
        p.set(0, 1, 4, 7);
        p.set(1, 0, 2, 5);
        p.set(1, 2, 4, 8);
        assert_eq!(p.get(0, 0), None, "an event without a row");
        assert_eq!(p.get(0, 1), Some((4, 7)));
        // Event 2 of run 0 would be run 1's first slot: not run 0's.
        assert_eq!(p.get(0, 2), None);
        assert_eq!(
            (p.get(1, 0), p.get(1, 2), p.get(1, 3)),
            (Some((2, 5)), Some((4, 8)), None)
        );
        assert_eq!(p.get(2, 0), None, "a run never started");
        // Instructions renumbered (0 <-> 2, 4 -> 1); unplaced slots stay unplaced.
        p.renumber(&[2, 3, 0, 4, 1]);
        assert_eq!(
            (p.get(0, 1), p.get(1, 0), p.get(0, 0)),
            (Some((1, 7)), Some((0, 5)), None)
        );
    }

    #[test]
    fn placements_of_runs_not_wanted_take_no_slots() {
        let mut p = Placements::default();
        p.only(1..2);
        for events in [4, 3, 5] {
            p.start_run(events);
        }
        // Only run 1's 3 events have slots; a set in runs 0 and 2 is dropped, not written
        // into a neighbour's slots.
        assert_eq!(p.slots.len(), 3);
        p.set(0, 0, 9, 9);
        p.set(1, 1, 2, 3);
        p.set(2, 0, 9, 9);
        assert_eq!(
            (p.get(0, 0), p.get(1, 1), p.get(2, 0)),
            (None, Some((2, 3)), None)
        );
        assert_eq!((p.get(1, 0), p.get(1, 2)), (None, None));
        assert_eq!(
            (p.recorded(0), p.recorded(1), p.recorded(2), p.recorded(3)),
            (false, true, false, false)
        );
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
