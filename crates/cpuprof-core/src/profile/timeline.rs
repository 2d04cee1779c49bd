//! Per-event timeline of a dump: for every `Execute` run, each event with its start and
//! duration, attributed to its delegate, plan step and operator by the same keys and step
//! votes the profile uses (`collect.rs`), so the timeline and the aggregated tree agree.
//!
//! The timeline lists every `Execute` run (warm-ups included and flagged); the runs a
//! [`RunSelection`] picks carry their events, the others only their index, method and
//! warm-up flag. Times are ETDump ticks, which are nanoseconds.
//!
//! `walk` is the per-event walk both builders share; `stream` builds a timeline in two
//! streamed passes over the file (collect, then walk the chosen runs), never holding the
//! decoded dump, for the usual dump of one method; [`build_timeline`] walks a decoded dump.

mod stream;
mod walk;

use std::ops::Range;

use super::collect::collect_with_placements;
use super::fast_hash::FastMap;
use super::BuildError;
use crate::etdump::EtDump;
use crate::runlog::RunLog;

pub use stream::{stream_timeline, DumpTimelineError};

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
    /// In tree order: every parent before its children, siblings by start time. Empty
    /// for a run the timeline's [`RunSelection`] left out.
    pub events: Vec<TimelineEvent>,
    /// Duration of the run's first `Method::execute`, known also for a run without its
    /// events (from the collection), so runs can be ranked without walking them.
    pub execute_ns: Option<u64>,
}

impl TimelineRun {
    /// Duration of the run's first `Method::execute`, if any.
    pub fn method_ns(&self, timeline: &Timeline) -> Option<u64> {
        self.execute_ns
            .or_else(|| first_execute_ns(timeline, &self.events))
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
    /// this walk and `collect` disagree; the tests check it), in the runs walked.
    pub unmatched_events: usize,
    /// Some runs the selection wanted are left without their events, to keep within its
    /// `max_events` (a window of runs around its `center` carries them).
    pub partial: bool,
}

/// The runs of a timeline that carry their events: by index among the `Execute` runs
/// (warm-ups included), and whether warm-ups are wanted. Memory follows the runs chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSelection {
    pub range: Range<usize>,
    pub include_warmup: bool,
    /// At most about this many events: when the runs wanted hold more (on average),
    /// only a window of consecutive wanted runs carries its events, around `center` (a run
    /// index), else around the run closest to the median `Method::execute`. Streamed
    /// timelines only (a dump decoded whole is in memory anyway).
    pub max_events: Option<usize>,
    pub center: Option<usize>,
}

impl RunSelection {
    /// Every run, warm-ups included.
    pub fn all() -> RunSelection {
        RunSelection {
            range: 0..usize::MAX,
            include_warmup: true,
            max_events: None,
            center: None,
        }
    }

    /// `range`, warm-ups or not, every run in it.
    pub fn runs(range: Range<usize>, include_warmup: bool) -> RunSelection {
        RunSelection {
            range,
            include_warmup,
            ..RunSelection::all()
        }
    }

    /// The kept runs (what the explorer's timeline steps through).
    pub fn kept() -> RunSelection {
        RunSelection {
            include_warmup: false,
            ..RunSelection::all()
        }
    }

    pub fn wants(&self, run: usize, warmup: bool) -> bool {
        self.range.contains(&run) && (self.include_warmup || !warmup)
    }
}

/// Duration of the first `Method::execute` among `events`.
fn first_execute_ns(timeline: &Timeline, events: &[TimelineEvent]) -> Option<u64> {
    events
        .iter()
        .find(|e| timeline.entries[e.entry as usize].kind == TimelineKind::Method)
        .map(|e| e.dur_ns)
}

/// The position among `lengths` (runs' `Method::execute`) of the run closest to their
/// median (the lower middle one for an even count; the first of equals): the run a
/// timeline opens on.
pub fn median_position(lengths: &[u64]) -> Option<usize> {
    if lengths.is_empty() {
        return None;
    }
    let mut sorted = lengths.to_vec();
    let mid = (sorted.len() - 1) / 2;
    let median = *sorted.select_nth_unstable(mid).1;
    (0..lengths.len()).min_by_key(|&p| lengths[p].abs_diff(median))
}

impl Timeline {
    pub fn kept_runs(&self) -> impl Iterator<Item = &TimelineRun> {
        self.runs.iter().filter(|r| !r.warmup)
    }

    pub fn entry(&self, event: &TimelineEvent) -> &TimelineEntry {
        &self.entries[event.entry as usize]
    }
}

/// Build the timeline of `dump`, with the plans of `log` if given (they decide which
/// delegate events are steps, as in [`super::build_profile`]); the runs `select` picks
/// carry their events.
pub fn build_timeline(
    dump: &EtDump,
    log: Option<&RunLog>,
    warmup: super::warmup::Warmup,
    select: &RunSelection,
) -> Result<Timeline, BuildError> {
    let plan_step_names = super::build::plan_step_names(log);
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
    let (warmup, auto) = first_warmup(warmup, log, &collected)?;

    // The methods, grouped as the profile groups them; warm-up is per method, as there.
    let groups = super::methods::group_runs(dump);
    let mut tl = Timeline {
        warmup,
        ..Timeline::default()
    };
    // The rows' samples are not needed past here: freed before the per-event walk
    // builds the events (a 1 GB dump: the peak of opening its timeline).
    let mut walker = walk::Walker::new(&mut tl, &collected, &dump.names, &dump.metadata);
    drop(collected);
    // The same blocks and skips as `collect`; row events take the row it recorded.
    let mut negative = 0;
    for (run, &block_index) in execute_blocks.iter().enumerate() {
        let block = &dump.blocks[block_index];
        let events = walker.run_events(
            &mut tl,
            &dump.names,
            &placements,
            run,
            dump.block_events(block),
            &mut negative,
        );
        let execute_ns = first_execute_ns(&tl, &events);
        tl.runs.push(TimelineRun {
            index: run,
            warmup: false,
            method: 0,
            events,
            execute_ns,
        });
    }
    tl.negative_durations = negative;
    let methods = RunMethods::new(&groups, &execute_blocks, log, warmup, auto, |r| {
        tl.runs[r].method_ns(&tl)
    })?;
    methods.apply(&mut tl);
    // Warm-up is known only now (each method's cold runs): the runs not chosen let go
    // of their events.
    for r in tl.runs.iter_mut() {
        if !select.wants(r.index, r.warmup) {
            r.events = Vec::new();
        }
    }
    Ok(tl)
}

/// Each `Execute` run's method and whether it is a warm-up run, as the profile groups the
/// runs and drops each method's warm-ups: the first method's `warmup` as asked (or its
/// own cold runs under `auto`), the others' at most all but one.
pub(super) struct RunMethods {
    /// By run.
    pub method: Vec<usize>,
    pub warmup: Vec<bool>,
    /// The first method's warm-up runs.
    pub first_warmup: usize,
    /// The methods' names (with their bundled input).
    pub names: Vec<String>,
}

impl RunMethods {
    /// For the runs of `execute_blocks` (block indexes, in run order) grouped as
    /// `groups`; `execute_ns` is each run's first `Method::execute` (for `auto`).
    pub(super) fn new(
        groups: &[super::methods::RunGroup],
        execute_blocks: &[usize],
        log: Option<&RunLog>,
        warmup: usize,
        auto: bool,
        execute_ns: impl Fn(usize) -> Option<u64>,
    ) -> Result<RunMethods, BuildError> {
        let runs = execute_blocks.len();
        let mut method_of_block: FastMap<usize, usize> = FastMap::default();
        for (g, group) in groups.iter().enumerate() {
            for &b in &group.blocks {
                method_of_block.insert(b, g);
            }
        }
        let method: Vec<usize> = execute_blocks
            .iter()
            .map(|b| method_of_block.get(b).copied().unwrap_or(0))
            .collect();
        let names = super::build::method_names(log, groups.len())
            .into_iter()
            .zip(groups)
            .map(|(n, g)| match g.bundled_input_index {
                Some(b) => format!("{n} (bundled input {b})"),
                None => n,
            })
            .collect();
        let mut out = RunMethods {
            method,
            warmup: (0..runs).map(|r| r < warmup).collect(),
            first_warmup: warmup,
            names,
        };
        if groups.len() <= 1 {
            return Ok(out);
        }
        if !auto && groups[0].blocks.len() <= warmup {
            return Err(BuildError::WarmupTooLarge {
                warmup,
                runs: groups[0].blocks.len(),
            });
        }
        // Runs dropped per method: the first method's as asked (too many is an error, as
        // in the profile), the others' at most all but one (the profile warns about
        // those); under `auto`, each method's own cold leading runs.
        for (g, group) in groups.iter().enumerate() {
            let of_g = || (0..runs).filter(|&r| out.method[r] == g);
            let drop = if auto {
                let ms: Vec<f64> = of_g()
                    .filter_map(&execute_ns)
                    .map(|ns| ns as f64 / 1e6)
                    .collect();
                super::warmup::auto_warmup(&ms).0
            } else if g == 0 {
                warmup
            } else {
                warmup.min(group.blocks.len().saturating_sub(1))
            };
            if g == 0 {
                out.first_warmup = drop;
            }
            for (k, r) in of_g().enumerate() {
                out.warmup[r] = k < drop;
            }
        }
        Ok(out)
    }

    /// Sets the timeline's warm-up, method names and each run's method and warm-up flag.
    pub(super) fn apply(self, tl: &mut Timeline) {
        tl.warmup = self.first_warmup;
        tl.methods = self.names;
        for (r, run) in tl.runs.iter_mut().enumerate() {
            run.method = self.method.get(r).copied().unwrap_or(0);
            run.warmup = self.warmup.get(r).copied().unwrap_or(false);
        }
    }
}

/// The warm-up runs of the first method, and whether they were chosen by the automatic
/// rule: `log` (the default) takes the runner log's count when it adds up, else auto;
/// auto takes the cold leading runs by the profile's rule over `Method::execute`.
fn first_warmup(
    requested: super::warmup::Warmup,
    log: Option<&RunLog>,
    collected: &super::collect::Collected,
) -> Result<(usize, bool), BuildError> {
    use super::warmup::Warmup;
    let (warmup, _, _) = super::warmup::resolve(requested, log, collected.runs);
    let auto = warmup == Warmup::Auto;
    let warmup = match warmup {
        Warmup::Runs(n) => n,
        Warmup::Auto => super::warmup::auto_warmup(&collected.method.ms()).0,
        Warmup::Stated => 0,
    };
    if warmup >= collected.runs {
        return Err(BuildError::WarmupTooLarge {
            warmup,
            runs: collected.runs,
        });
    }
    Ok((warmup, auto))
}
