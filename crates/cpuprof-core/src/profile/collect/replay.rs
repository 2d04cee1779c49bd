//! Earlier runs' collection, replayed: runs of one method mostly repeat one of a few
//! earlier runs event for event, and where every decision the collector made for that run
//! still holds for this one (same events, same time order, same delegate calls and the
//! same containing steps), this run's samples go into the same rows without classifying,
//! sorting or looking anything up again. Each decision is re-checked with the comparisons
//! that made it, so a replayed run fills exactly the rows collecting it would; a run that
//! no plan fits is collected in full (and becomes a plan for the runs after it).

use super::samples::{Collected, Placements};
use crate::etdump::{duration_ticks, DelegateId, NameId, ProfileEvent};

/// Runs with more events than this are not recorded: a plan holds ~75 bytes an event and
/// recording ~80, so with `PLANS` plans and a spare the plans take ~30 MB at most.
const MAX_PLAN_EVENTS: usize = 1 << 16;

/// Plans kept. Runs may alternate between a few patterns: two events starting within a
/// clock tick of each other come in either order (seen in CpuBackend dumps).
const PLANS: usize = 4;

/// After this many runs in a row that no plan fitted, only every `RETRY`-th run is
/// recorded (and plans tried on it and on the run after it), so a dump whose runs never
/// repeat pays for recording on one run in `RETRY`.
const RETRY: usize = 8;

/// What decides how an event is collected, apart from its times.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Shape {
    name: Option<NameId>,
    delegate_id: Option<DelegateId>,
    instruction_id: i32,
    chained: bool,
}

impl Shape {
    #[inline(always)]
    fn of(ev: &ProfileEvent) -> Shape {
        Shape {
            name: ev.name,
            delegate_id: ev.delegate_id,
            instruction_id: ev.instruction_id,
            chained: ev.chain_index >= 0,
        }
    }
}

/// What the collector did with one event of the run being recorded.
#[derive(Clone, Copy)]
pub(super) enum Action {
    /// Not decided (yet): a run with one left is not replayed.
    Unset,
    Ignored,
    Method,
    DelegateCall {
        instr: u32,
    },
    InstructionCall {
        instr: u32,
        index: u32,
    },
    Row(RowCheck),
}

/// A row event: where its sample went and what placed it there, re-checked in time
/// order when a plan is tried.
#[derive(Clone, Copy)]
pub(super) struct RowCheck {
    /// Within a quantum of the containing step (0: exactly), with `container`.
    tol: u64,
    event: u32,
    instr: u32,
    row: u32,
    /// The event's delegate call number, and the partition point of (instruction, start)
    /// in the run's sorted calls that gave it.
    call: u32,
    call_upto: u32,
    /// `NO_STEP`: a step event, or one in a call without steps of an instruction that
    /// had none (so far: plans are forgotten when an instruction has its first step).
    /// Else the event is contained in `steps[container]` (sorted steps of the run),
    /// chosen among `steps[lo..upto]` (`upto`: the partition point of steps starting by
    /// the event's start + `tol`), exactly or within `tol`; `step_row` is that step's
    /// row (the vote).
    container: u32,
    lo: u32,
    upto: u32,
    step_row: u32,
    exact: bool,
}

const NO_STEP: u32 = u32::MAX;

impl RowCheck {
    /// Row event `event` of instruction `instr` went to `row`, in call `call` (found at
    /// partition point `call_upto` of the calls); not placed in a step.
    pub(super) fn new(event: u32, instr: usize, row: usize, (call, call_upto): (u32, u32)) -> Self {
        RowCheck {
            tol: 0,
            event,
            instr: instr as u32,
            row: row as u32,
            call,
            call_upto,
            container: NO_STEP,
            lo: 0,
            upto: 0,
            step_row: 0,
            exact: false,
        }
    }

    /// Placed in `steps[container]` of `steps[lo..upto]` (see the fields).
    pub(super) fn in_step(
        self,
        (lo, upto, container): (usize, usize, usize),
        exact: bool,
        tol: u64,
        step_row: usize,
    ) -> Self {
        RowCheck {
            tol,
            container: container as u32,
            lo: lo as u32,
            upto: upto as u32,
            step_row: step_row as u32,
            exact,
            ..self
        }
    }
}

/// One recorded run, compiled for checking and replaying.
#[derive(Default)]
struct Plan {
    shapes: Vec<Shape>,
    /// Framework events with a sample (`Method`, `DelegateCall`, `InstructionCall`), in
    /// event order, and how many were ignored.
    others: Vec<(u32, Action)>,
    ignored: usize,
    rows: Vec<RowCheck>,
    /// (event, instruction) of the delegate calls by (instruction, start); (event,
    /// instruction, call) of the step events by (instruction, call, start).
    calls: Vec<(u32, u32)>,
    steps: Vec<(u32, u32, u32)>,
    repeated_calls: usize,
    /// When it last served (recorded or replayed): the least recent one is replaced.
    used: u64,
}

/// The keys of a run's sorted calls and steps, gathered once per check.
#[derive(Default)]
struct Keys {
    calls: Vec<(u32, u64)>,
    /// ((instruction, call, start), end).
    steps: Vec<((u32, u32, u64), u64)>,
}

#[derive(Default)]
pub(super) struct Replay {
    /// The run being recorded (empty when it is not).
    shapes: Vec<Shape>,
    actions: Vec<Action>,
    /// Plans of earlier runs, at most `PLANS`; a plan's buffers kept for the next one.
    plans: Vec<Plan>,
    spare: Plan,
    keys: Keys,
    clock: u64,
    /// Runs in a row that no plan fitted.
    misses: usize,
    /// The last run became a plan.
    fresh: bool,
    /// True: nothing is recorded or replayed (every run collected in full).
    pub(super) off: bool,
    /// Runs collected by replaying a plan.
    pub(super) replayed: usize,
}

impl Replay {
    /// Whether this run is one to record (see `RETRY`).
    fn recording(&self) -> bool {
        !self.off && (self.misses < RETRY || self.misses % RETRY == 0)
    }

    /// Starts recording the run of `events`.
    pub(super) fn begin(&mut self, events: &[ProfileEvent]) {
        self.shapes.clear();
        self.actions.clear();
        if self.recording() && events.len() <= MAX_PLAN_EVENTS {
            self.shapes.extend(events.iter().map(Shape::of));
            self.actions.resize(events.len(), Action::Unset);
        }
    }

    /// What event `i` of the run being recorded did.
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize, action: Action) {
        if let Some(a) = self.actions.get_mut(i) {
            *a = action;
        }
    }

    /// An instruction had its first step event: plans that placed its events as having
    /// no steps no longer hold (the run being recorded made that choice knowing it).
    pub(super) fn forget(&mut self) {
        self.plans.clear();
    }

    /// Ends recording: the run's orders (event indexes), and its count of calls beyond
    /// the first of their instruction. `replayable` is false when the run had an event
    /// a plan cannot stand for (a negative duration, an event placed after every run).
    pub(super) fn end(
        &mut self,
        time_order: impl Iterator<Item = u32>,
        calls: impl Iterator<Item = u32>,
        steps: impl Iterator<Item = u32>,
        repeated_calls: usize,
        replayable: bool,
    ) {
        self.misses += 1;
        if !replayable || self.actions.is_empty() {
            return;
        }
        let mut plan = std::mem::take(&mut self.spare);
        let orders = (time_order, calls, steps);
        if !plan.compile(&self.actions, orders, repeated_calls) {
            self.spare = plan;
            return;
        }
        std::mem::swap(&mut plan.shapes, &mut self.shapes);
        self.clock += 1;
        plan.used = self.clock;
        self.fresh = true;
        if self.plans.len() < PLANS {
            self.plans.push(plan);
        } else if let Some(lru) = self.plans.iter_mut().min_by_key(|p| p.used) {
            self.spare = std::mem::replace(lru, plan);
        }
    }

    /// Collects `events` as run `run` when a plan fits them, the most recently used
    /// first; false, with nothing changed, when none does.
    pub(super) fn apply(
        &mut self,
        out: &mut Collected,
        run: usize,
        events: &[ProfileEvent],
        placements: Option<&mut Placements>,
    ) -> bool {
        // Plans are tried where a run is recorded, and on the run after a new plan.
        let fresh = std::mem::take(&mut self.fresh);
        if !(fresh || self.recording()) || self.plans.is_empty() {
            return false;
        }
        let mut order: [usize; PLANS] = std::array::from_fn(|k| k);
        let order = &mut order[..self.plans.len()];
        order.sort_unstable_by_key(|&k| std::cmp::Reverse(self.plans[k].used));
        let keys = &mut self.keys;
        let Some(&k) = order.iter().find(|&&k| self.plans[k].fits(events, keys)) else {
            return false;
        };
        self.plans[k].collect(out, run, events, placements);
        self.clock += 1;
        self.plans[k].used = self.clock;
        self.misses = 0;
        self.replayed += 1;
        true
    }
}

/// Whether `upto` is the partition point of `len` sorted items under `below` (true on a
/// prefix of them).
#[inline(always)]
fn splits(upto: usize, len: usize, below: impl Fn(usize) -> bool) -> bool {
    (upto == 0 || below(upto - 1)) && (upto == len || !below(upto))
}

impl Plan {
    /// Compiles the recorded run's actions and orders (event indexes: row events in time
    /// order, calls and steps sorted); false when the run cannot be a plan (an event
    /// left undecided, or orders that do not match the actions).
    fn compile(
        &mut self,
        actions: &[Action],
        (time_order, calls, steps): (
            impl Iterator<Item = u32>,
            impl Iterator<Item = u32>,
            impl Iterator<Item = u32>,
        ),
        repeated_calls: usize,
    ) -> bool {
        self.others.clear();
        self.rows.clear();
        self.calls.clear();
        self.steps.clear();
        self.ignored = 0;
        self.repeated_calls = repeated_calls;
        let mut row_events = 0;
        for (i, action) in actions.iter().enumerate() {
            match action {
                Action::Unset => return false,
                Action::Ignored => self.ignored += 1,
                Action::Row(_) => row_events += 1,
                other => self.others.push((i as u32, *other)),
            }
        }
        let action = |i: u32| actions.get(i as usize).copied().unwrap_or(Action::Unset);
        for i in calls {
            let Action::DelegateCall { instr } = action(i) else {
                return false;
            };
            self.calls.push((i, instr));
        }
        for i in steps {
            let Action::Row(r) = action(i) else {
                return false;
            };
            self.steps.push((i, r.instr, r.call));
        }
        for i in time_order {
            let Action::Row(r) = action(i) else {
                return false;
            };
            let in_range = r.container == NO_STEP || (r.lo <= r.container && r.container < r.upto);
            if r.event != i || !in_range {
                return false;
            }
            self.rows.push(r);
        }
        // Every row event once, and every position `fits` reads within its order.
        let (n_calls, n_steps) = (self.calls.len() as u32, self.steps.len() as u32);
        row_events == self.rows.len()
            && self
                .rows
                .iter()
                .all(|r| r.call_upto <= n_calls && (r.container == NO_STEP || r.upto <= n_steps))
    }

    /// Whether every decision recorded for the plan's run holds for `events`.
    fn fits(&self, events: &[ProfileEvent], keys: &mut Keys) -> bool {
        if events.len() != self.shapes.len() {
            return false;
        }
        let same = events.iter().zip(&self.shapes).all(|(ev, shape)| {
            Shape::of(ev) == *shape && duration_ticks(ev.start_ticks, ev.end_ticks).is_some()
        });
        if !same {
            return false;
        }
        let ev = |i: u32| &events[i as usize];
        keys.calls.clear();
        keys.calls.extend(
            self.calls
                .iter()
                .map(|&(i, instr)| (instr, ev(i).start_ticks)),
        );
        keys.steps.clear();
        keys.steps
            .extend(self.steps.iter().map(|&(i, instr, call)| {
                let e = ev(i);
                ((instr, call, e.start_ticks), e.end_ticks)
            }));
        let (calls, steps) = (&keys.calls, &keys.steps);
        // The partition checks below take these for granted. Strictly for steps: steps
        // starting together are in whatever order sorting left them. (The tests isolate
        // neither: swapping a delegate's calls keeps every call number, and tied steps
        // reorder only with the time order, but in unstable sorts of more than 20 steps.)
        if !calls.is_sorted() || !steps.windows(2).all(|w| w[0].0 < w[1].0) {
            return false;
        }
        let mut last: Option<(u64, u32)> = None;
        self.rows.iter().all(|r| {
            let p = ev(r.event);
            // The time order: (start, index) increasing.
            let at = (p.start_ticks, r.event);
            if last.is_some_and(|last| last >= at) {
                return false;
            }
            last = Some(at);
            let key = (r.instr, p.start_ticks);
            if !splits(r.call_upto as usize, calls.len(), |k| calls[k] <= key) {
                return false;
            }
            if r.container == NO_STEP {
                return true;
            }
            let tol = r.tol;
            let target = (r.instr, r.call, p.start_ticks.saturating_add(tol));
            let (lo, upto, c) = (r.lo as usize, r.upto as usize, r.container as usize);
            if !splits(upto, steps.len(), |k| steps[k].0 <= target) {
                return false;
            }
            let holds = |k: usize| steps[k].0 .2 <= p.start_ticks && p.end_ticks <= steps[k].1;
            let near = |k: usize| p.end_ticks <= steps[k].1.saturating_add(tol);
            if r.exact {
                holds(c) && !(c + 1..upto).any(holds)
            } else {
                !(lo..upto).any(holds) && near(c) && !(c + 1..upto).any(near)
            }
        })
    }

    /// Collects `events` (which the plan fits) as run `run`.
    fn collect(
        &self,
        out: &mut Collected,
        run: usize,
        events: &[ProfileEvent],
        mut placements: Option<&mut Placements>,
    ) {
        let ns = |i: u32| {
            let ev = &events[i as usize];
            duration_ticks(ev.start_ticks, ev.end_ticks).unwrap_or(0)
        };
        out.ignored_events += self.ignored;
        for &(i, action) in &self.others {
            match action {
                Action::Method => out.method.push(run, ns(i)),
                Action::DelegateCall { instr } => out.instructions[instr as usize]
                    .delegate_call
                    .push(run, ns(i)),
                Action::InstructionCall { instr, index } => out.instructions[instr as usize]
                    .instruction_calls[index as usize]
                    .1
                    .push(run, ns(i)),
                Action::Ignored | Action::Row(_) | Action::Unset => {}
            }
        }
        // Row events in time order, as collecting pushes them: a row holding two samples
        // of one run (a delegate called twice) has them in the same order.
        for r in &self.rows {
            let row = &mut out.instructions[r.instr as usize].rows[r.row as usize];
            row.series.push(run, ns(r.event));
            if r.container != NO_STEP {
                row.vote(r.step_row as usize);
            }
            if let Some(placements) = placements.as_deref_mut() {
                placements.set(run, r.event as usize, r.instr as usize, r.row as usize);
            }
        }
        out.repeated_calls += self.repeated_calls;
    }
}

#[cfg(test)]
mod tests {
    //! Replaying must never change what is collected: every dump here is collected with
    //! replay and with every run collected in full, and the two must be equal (rows,
    //! samples in order, votes, counts and the row of every event). The mutated dumps
    //! keep each event's shape while moving its times, so a plan's recorded decisions
    //! (time order, calls, containing steps) stop holding in some runs: those runs must
    //! be collected in full.
    use std::collections::HashSet;

    use proptest::prelude::*;

    use super::super::{Collected, Collector, Label};
    use super::{MAX_PLAN_EVENTS, RETRY};
    use crate::etdump::{self, DelegateId, EtDump, NameId, NameTable, ProfileEvent};

    fn fixture(name: &str) -> EtDump {
        let path = format!(
            "{}/fixtures/{name}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        );
        etdump::read_file(std::path::Path::new(&path)).unwrap()
    }

    /// Collected with and without replay, and the runs replayed.
    fn collect_both(dump: &EtDump) -> (Collected, Collected, usize) {
        let steps = HashSet::new();
        let blocks: Vec<usize> = (0..dump.blocks.len())
            .filter(|&b| dump.blocks[b].name == "Execute")
            .collect();
        let mut replayed = 0;
        let mut collect = |replay: bool| {
            let mut c = Collector::new(&steps, true, blocks.len(), dump.events.len());
            if !replay {
                c.replay_off();
            }
            for &b in &blocks {
                c.run(&dump.names, dump.block_events(&dump.blocks[b]));
            }
            if replay {
                replayed = c.replayed();
            }
            c.finish()
        };
        let with = collect(true);
        let without = collect(false);
        (with, without, replayed)
    }

    const DUMPS: [&str; 6] = [
        "cpu/cnn2_basic.etdp",
        "cpu/mlp_w0_t1.etdp",
        "cpu/wide_browse.etdp",
        "real/mlp_xnnpack.etdp",
        "real/cnn_portable.etdp",
        "real/multi_delegate.etdp",
    ];

    #[test]
    fn replayed_runs_collect_what_full_collection_does() {
        for name in DUMPS {
            let dump = fixture(name);
            let runs = dump.blocks.iter().filter(|b| b.name == "Execute").count();
            let (with, without, replayed) = collect_both(&dump);
            assert!(with == without, "{name}: replay changed the collection");
            assert_eq!(with.runs, runs, "{name}");
            // Every run after the first two repeats its predecessor in these dumps (one
            // method, steady timings): the replay must serve them, or it is dead code.
            if runs > 2 {
                assert!(
                    replayed >= runs - 2,
                    "{name}: {replayed} of {runs} replayed"
                );
            }
        }
    }

    /// A change to one event that keeps its shape: new times from a small move, another
    /// event's times (ties, other containers, another order), or an end before the start.
    #[derive(Debug, Clone)]
    enum Edit {
        Shift {
            at: usize,
            by: i64,
        },
        TimesOf {
            at: usize,
            from: usize,
        },
        EndOf {
            at: usize,
            from: usize,
        },
        Reversed {
            at: usize,
        },
        /// Another event's name, delegate id, instruction and chain (a changed shape).
        ShapeOf {
            at: usize,
            from: usize,
        },
    }

    fn edit() -> impl Strategy<Value = Edit> {
        let by = prop_oneof![
            Just(1i64),
            Just(-1),
            Just(999),
            Just(1_000),
            Just(1_001),
            Just(-1_000),
            -200_000i64..200_000,
        ];
        prop_oneof![
            (any::<usize>(), by).prop_map(|(at, by)| Edit::Shift { at, by }),
            (any::<usize>(), any::<usize>()).prop_map(|(at, from)| Edit::TimesOf { at, from }),
            (any::<usize>(), any::<usize>()).prop_map(|(at, from)| Edit::EndOf { at, from }),
            any::<usize>().prop_map(|at| Edit::Reversed { at }),
            (any::<usize>(), any::<usize>()).prop_map(|(at, from)| Edit::ShapeOf { at, from }),
        ]
    }

    /// Applies `edits`, each within one `Execute` run (the one `at` picks): `at` and
    /// `from` are events of that run.
    fn apply(dump: &mut EtDump, edits: &[Edit]) {
        let runs: Vec<std::ops::Range<usize>> = dump
            .blocks
            .iter()
            .filter(|b| b.name == "Execute" && !b.events.is_empty())
            .map(|b| b.events.clone())
            .collect();
        let within = |at: usize, other: usize| {
            let run = &runs[at % runs.len()];
            let pick = |k: usize| run.start + k % run.len();
            (pick(at / runs.len()), pick(other))
        };
        let shift = |t: u64, by: i64| t.saturating_add_signed(by);
        for e in edits {
            let ev = &dump.events;
            let (at, start, end) = match *e {
                Edit::Shift { at, by } => {
                    let (at, _) = within(at, 0);
                    (
                        at,
                        shift(ev[at].start_ticks, by),
                        shift(ev[at].end_ticks, by),
                    )
                }
                Edit::TimesOf { at, from } => {
                    let (at, from) = within(at, from);
                    (at, ev[from].start_ticks, ev[from].end_ticks)
                }
                Edit::EndOf { at, from } => {
                    let (at, from) = within(at, from);
                    (at, ev[at].start_ticks, ev[from].end_ticks)
                }
                Edit::Reversed { at } => {
                    let (at, _) = within(at, 0);
                    (at, ev[at].end_ticks, ev[at].start_ticks)
                }
                Edit::ShapeOf { at, from } => {
                    let (at, from) = within(at, from);
                    let from = ev[from];
                    let to = &mut dump.events[at];
                    to.name = from.name;
                    to.delegate_id = from.delegate_id;
                    to.instruction_id = from.instruction_id;
                    to.chain_index = from.chain_index;
                    continue;
                }
            };
            dump.events[at].start_ticks = start;
            dump.events[at].end_ticks = end;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn replay_equals_full_collection_on_moved_times(
            which in 0usize..DUMPS.len(),
            edits in proptest::collection::vec(edit(), 1..12),
        ) {
            let mut dump = fixture(DUMPS[which]);
            apply(&mut dump, &edits);
            let (with, without, _) = collect_both(&dump);
            prop_assert!(with == without, "{}: replay changed the collection", DUMPS[which]);
        }
    }

    /// Synthetic runs, one delegate instruction (`INSTR`): steps are `s*` (plan step
    /// names), `x*` plain delegate events (placed exactly), `op #n` XNNPACK operators
    /// (placed within a clock quantum of 1,000).
    struct Runs {
        names: NameTable,
    }

    const INSTR: i32 = 1;

    impl Runs {
        fn new() -> Runs {
            Runs {
                names: NameTable::default(),
            }
        }

        fn call(&mut self, start: u64, end: u64) -> ProfileEvent {
            let name = Some(self.names.intern("DELEGATE_CALL"));
            event(name, None, start, end)
        }

        fn delegate(&mut self, label: &str, start: u64, end: u64) -> ProfileEvent {
            let id = DelegateId::Str(self.names.intern(label));
            event(None, Some(id), start, end)
        }

        /// Collected with and without replay, and the runs replayed.
        fn collect(&self, runs: &[&[ProfileEvent]]) -> (Collected, Collected, usize) {
            let steps: HashSet<String> = ["s", "s0", "s1", "s2"].map(String::from).into();
            let mut replayed = 0;
            let mut collect = |replay: bool| {
                let mut c = Collector::new(&steps, true, runs.len(), 1 << 10);
                if !replay {
                    c.replay_off();
                }
                for events in runs {
                    c.run(&self.names, events);
                }
                if replay {
                    replayed = c.replayed();
                }
                c.finish()
            };
            let with = collect(true);
            (with, collect(false), replayed)
        }

        /// The row each event of run 1 went to, collecting `[a, b]` in full.
        fn rows_of_second(
            &self,
            a: &[ProfileEvent],
            b: &[ProfileEvent],
        ) -> Vec<Option<(usize, usize)>> {
            let (_, full, _) = self.collect(&[a, b]);
            let placements = full.placements.unwrap();
            (0..b.len()).map(|i| placements.get(1, i)).collect()
        }

        /// `changed` differs from `base` by times only, and moves at least one event to
        /// another row: after `base` twice (the second replayed), no plan may fit
        /// `changed`, and the collection must be the full one's.
        fn check(&self, base: &[ProfileEvent], changed: &[ProfileEvent]) {
            assert_ne!(
                self.rows_of_second(base, base),
                self.rows_of_second(base, changed),
                "the case must change where some event goes"
            );
            let (with, without, replayed) = self.collect(&[base, base, changed, base, changed]);
            assert!(with == without, "replay changed the collection");
            // base replays base; changed is collected in full and becomes a plan; then
            // each is replayed by its own plan.
            assert_eq!(replayed, 3, "a plan fitted a run whose decisions differ");
        }
    }

    fn event(
        name: Option<NameId>,
        delegate_id: Option<DelegateId>,
        start: u64,
        end: u64,
    ) -> ProfileEvent {
        ProfileEvent {
            name,
            delegate_id,
            chain_index: 0,
            instruction_id: INSTR,
            start_ticks: start,
            end_ticks: end,
            metadata: None,
        }
    }

    #[test]
    fn a_run_with_every_kind_of_event_replays() {
        // Method::execute, an OPERATOR_CALL, a kernel (its own row), a named event outside
        // every chain (ignored), and a delegate call with a step holding an operator.
        let mut r = Runs::new();
        let named = |r: &mut Runs, name: &str, chain: i32, start: u64, end: u64| {
            let mut e = event(Some(r.names.intern(name)), None, start, end);
            e.chain_index = chain;
            e.instruction_id = if chain < 0 { -1 } else { 2 };
            e
        };
        let run = [
            named(&mut r, "native_call_add", 0, 10, 20),
            named(&mut r, "OPERATOR_CALL", 0, 5, 25),
            named(&mut r, "stray", -1, 30, 40),
            r.delegate("op #1", 150, 300),
            r.delegate("s0", 100, 400),
            r.call(50, 1_000),
            named(&mut r, "Method::execute", -1, 0, 1_100),
        ];
        let (with, without, replayed) = r.collect(&[&run, &run, &run]);
        assert!(with == without, "replay changed the collection");
        assert_eq!(replayed, 2);
        assert_eq!(without.ignored_events, 3);
        assert_eq!(without.method.len(), 3);
    }

    #[test]
    fn a_later_step_that_now_holds_the_event_takes_it() {
        // s1 starts inside s0 (clock jitter) but ends before x does: x is in s0. Once s1
        // ends after x, both hold it and the later one, s1, takes it (only the exact
        // containment check tells: times, orders and candidate steps are unchanged).
        let mut r = Runs::new();
        let base = [
            r.delegate("x", 170, 300),
            r.delegate("s0", 100, 400),
            r.delegate("s1", 160, 200),
            r.call(0, 1_000),
        ];
        let mut changed = base;
        changed[2].end_ticks = 350;
        r.check(&base, &changed);
    }

    #[test]
    fn a_step_starting_with_the_event_becomes_a_candidate() {
        // s1 starts after x: not a candidate, s0 holds x. Once s1 starts on x's tick
        // (stored after x, so the time order is the same), it is a candidate, holds x,
        // and being later takes it: only the partition of the steps tells.
        let mut r = Runs::new();
        let base = [
            r.delegate("x", 170, 300),
            r.delegate("s0", 100, 400),
            r.delegate("s1", 180, 350),
            r.call(0, 1_000),
        ];
        let mut changed = base;
        changed[2].start_ticks = 170;
        r.check(&base, &changed);
    }

    #[test]
    fn an_operator_held_exactly_leaves_the_step_it_was_near() {
        // `op #1` ends 1 tick after s0 and starts before s1: no step holds it exactly,
        // the latest step within a quantum (s1) takes it. Once s0 ends with it, s0 holds
        // it exactly and takes it.
        let mut r = Runs::new();
        let base = [
            r.delegate("op #1", 395, 401),
            r.delegate("s0", 100, 400),
            r.delegate("s1", 400, 900),
            r.call(0, 1_000),
        ];
        let mut changed = base;
        changed[1].end_ticks = 401;
        r.check(&base, &changed);
    }

    #[test]
    fn same_named_events_that_swap_order_swap_rows() {
        // Two `x` in one step: the first in time is occurrence 0. Swapping their times
        // (durations 50 and 70) swaps which row each sample goes to.
        let mut r = Runs::new();
        let base = [
            r.delegate("x", 150, 200),
            r.delegate("x", 250, 320),
            r.delegate("s0", 100, 400),
            r.call(0, 1_000),
        ];
        let mut changed = base;
        changed.swap(0, 1); // both `x`: the shapes are unchanged
        r.check(&base, &changed);
    }

    #[test]
    fn a_step_that_changes_delegate_call_changes_occurrence() {
        // Step `s` runs once in each of two calls of the delegate: occurrence 0 of call 0
        // and of call 1. When the second call starts after the second `s`, both are in
        // call 0 (occurrences 0 and 1): only the calls' partition tells.
        let mut r = Runs::new();
        let base = [
            r.delegate("s", 100, 400),
            r.call(0, 1_000),
            r.delegate("s", 2_100, 2_400),
            r.call(2_000, 3_000),
        ];
        let mut changed = base;
        changed[3].start_ticks = 2_200;
        r.check(&base, &changed);
    }

    #[test]
    fn plans_are_forgotten_when_an_instruction_first_has_steps() {
        // Run A: `x` in a call with no step (its own row). Run B: the same call has a
        // step holding `x`. Run A again: `x`'s step is now missing in that run, so it is
        // placed with B's `x` after every run; A's plan must not place it as before.
        let mut r = Runs::new();
        let a = [r.delegate("x", 150, 300), r.call(0, 1_000)];
        let b = [
            r.delegate("x", 150, 300),
            r.delegate("s0", 100, 400),
            r.call(0, 1_000),
        ];
        let (with, without, replayed) = r.collect(&[&a, &a, &b, &a]);
        assert!(with == without, "replay changed the collection");
        assert_eq!(replayed, 1);
        let x = r.names.find("x").map(DelegateId::Str);
        let x_rows = without.instructions[0].rows.iter().filter(
            |row| matches!(row.label, Label::DelegateStr(id) if Some(DelegateId::Str(id)) == x),
        );
        // Runs 0 and 1 in x's own row; runs 2 and 3 in the in-step row.
        let runs: Vec<Vec<usize>> = x_rows
            .map(|row| row.series.runs(0..row.series.len()))
            .collect();
        assert_eq!(runs, vec![vec![0, 1], vec![2, 3]]);
    }

    #[test]
    fn runs_longer_than_a_plan_are_collected_in_full() {
        // A run of more events than a plan holds is never recorded (bounded memory);
        // one of exactly that many is.
        let mut r = Runs::new();
        let run = |r: &mut Runs, n: usize| {
            let mut events: Vec<ProfileEvent> = (0..n as u64 - 2)
                .map(|i| r.delegate("x", 110 + i, 111 + i))
                .collect();
            events.push(r.delegate("s0", 100, 110 + n as u64));
            events.push(r.call(0, 200 + n as u64));
            events
        };
        for (n, replays) in [(MAX_PLAN_EVENTS + 1, 0), (MAX_PLAN_EVENTS, 2)] {
            let events = run(&mut r, n);
            let (with, without, replayed) = r.collect(&[&events, &events, &events]);
            assert!(with == without);
            assert_eq!(replayed, replays, "runs of {n} events");
        }
    }

    #[test]
    fn replay_resumes_after_runs_that_never_repeat() {
        // 20 runs of 1, 2, ... 20 `x` (no plan fits any), then 20 alike: after `RETRY`
        // misses only every `RETRY`-th run is recorded, so at most that many of the
        // repeating runs are collected in full before replay resumes.
        let mut r = Runs::new();
        let run = |r: &mut Runs, n: u64| {
            let mut events: Vec<ProfileEvent> = (0..n)
                .map(|i| r.delegate("x", 110 + 10 * i, 115 + 10 * i))
                .collect();
            events.push(r.delegate("s0", 100, 400));
            events.push(r.call(0, 1_000));
            events
        };
        let mut runs: Vec<Vec<ProfileEvent>> = (1..=20).map(|n| run(&mut r, n)).collect();
        runs.extend((0..20).map(|_| run(&mut r, 3)));
        let refs: Vec<&[ProfileEvent]> = runs.iter().map(Vec::as_slice).collect();
        let (with, without, replayed) = r.collect(&refs);
        assert!(with == without);
        assert!((20 - RETRY..20).contains(&replayed), "{replayed} replayed");
    }
}
