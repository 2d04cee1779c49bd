//! Decoding straight into collection: the dump's chunks of runs come from
//! [`crate::etdump::parse_streamed`] in run order and each run is collected as it comes
//! (run signature, row placement, compact samples), so no event array is ever made.
//!
//! Each run goes to the collector of its method: the methods met so far are told apart
//! by their runs' signatures (the usual dump has one), a run with a few delegate events
//! lost goes to the method it is a lossy copy of, and at the end the grouping's own
//! merge must give the runs each method collected: the same rows, in the same order, as
//! collecting the decoded dump. Anything else (a method's lossy run seen before a whole
//! one, more than [`MAX_METHODS`] methods) stops the stream or drops its result; the caller then decodes the dump whole
//! ([`crate::etdump::parse`]) and builds from it.

use std::collections::HashSet;

use super::build::{load_times, Prepared, ResolutionStep};
use super::collect::Collector;
use super::methods::{lost_delegate_events, merge_groups, SigEvent, Signer};
use crate::etdump::{
    convert_events_to_ns, DelegateId, EtDump, EtDumpError, NameId, Plausibility, ProfileEvent,
    RunBlock, TimeUnit,
};

/// A dump decoded and collected in one pass.
pub(crate) struct Streamed {
    /// The dump without its `Execute` runs' events: names, metadata pool, skipped
    /// counts, and its other blocks (`Default`, ...) with their events.
    pub dump: EtDump,
    pub prepared: Prepared,
    /// The implausible-duration checks over every `Execute` run.
    pub plausibility: Plausibility,
    /// Events of the `Execute` runs.
    pub execute_events: usize,
}

/// The fields of an event that make a run's signature (see `methods::group_runs`): a
/// method's first run's, compared with each run's as they come (cheaper than
/// `SigEvent`s).
type FirstEvent = (Option<NameId>, Option<DelegateId>, i32);

/// Decodes `bytes` and collects its `Execute` runs, ticks read in `unit`; `Ok(None)`
/// when the runs are not all of the first run's signature (decode the dump whole then).
/// `observe` is handed each chunk of runs before its ticks are converted (see
/// [`super::load::Decoded`]); `Ok(None)` leaves it with the runs so far.
pub(crate) fn decode_and_collect(
    bytes: &[u8],
    plan_step_names: &HashSet<String>,
    unit: TimeUnit,
    observe: &mut (dyn FnMut(super::load::Decoded<'_>) + Send),
) -> Result<Option<Streamed>, EtDumpError> {
    decode_and_collect_inner(bytes, plan_step_names, unit, None, observe)
}

/// [`decode_and_collect`], also recording where each event of the `Execute` runs in
/// `placed` (by their index among the `Execute` runs) went (`Collected::placements`):
/// the first pass of a streamed timeline.
pub(crate) fn decode_and_collect_placed(
    bytes: &[u8],
    plan_step_names: &HashSet<String>,
    unit: TimeUnit,
    placed: std::ops::Range<usize>,
) -> Result<Option<Streamed>, EtDumpError> {
    decode_and_collect_inner(bytes, plan_step_names, unit, Some(placed), &mut |_| {})
}

fn decode_and_collect_inner(
    bytes: &[u8],
    plan_step_names: &HashSet<String>,
    unit: TimeUnit,
    placed: Option<std::ops::Range<usize>>,
    observe: &mut (dyn FnMut(super::load::Decoded<'_>) + Send),
) -> Result<Option<Streamed>, EtDumpError> {
    // Rows of the first run reserve a sample per run; at most one per 16 bytes of file
    // in all (an event takes more), so a lying run count cannot make it balloon.
    let runs = crate::etdump::run_count(bytes);
    let timeline = placed.is_some();
    let mut first_collector = Collector::new(plan_step_names, timeline, runs, bytes.len() / 16);
    if let Some(runs) = placed {
        first_collector.record_only(runs);
    }
    let mut side = EtDump::default();
    // The index in the dump of each of `side`'s blocks.
    let mut side_at: Vec<usize> = Vec::new();
    // One per method (a signature first seen whole): its signature, the runs it collects
    // (its own and those of its runs with lost events) and its collector.
    let mut methods: Vec<Method> = Vec::new();
    // A method's collector, by index; a timeline's runs all go to the first (its rows
    // are collected over every run, as `timeline::build_timeline` collects them).
    let mut collectors: Vec<Collector> = vec![first_collector];
    // The method of the last run, tried first: runs of one method come in streaks.
    let mut last = 0usize;
    // The runs by signature, as `methods::group_runs` makes them: the methods' own, then
    // those with lost events (with the method that collects them).
    let mut groups: Vec<(Vec<SigEvent>, i32, Vec<usize>)> = Vec::new();
    let mut signer = Signer::new(0);
    let mut lossy_group: std::collections::HashMap<(i32, Vec<SigEvent>), (usize, usize)> =
        std::collections::HashMap::new();
    let mut execute: Vec<usize> = Vec::new();
    let mut resolution = ResolutionStep::default();
    let mut plausibility = Plausibility::default();
    let mut execute_events = 0usize;
    let mut each = |chunk: crate::etdump::RunChunk<'_>| -> bool {
        observe(super::load::Decoded::Runs {
            blocks: chunk.blocks,
            events: chunk.events,
            names: chunk.names,
        });
        convert_events_to_ns(chunk.events, unit);
        let events: &[ProfileEvent] = chunk.events;
        for (i, block) in chunk.blocks.iter().enumerate() {
            let evs = &events[block.events.clone()];
            resolution.events(chunk.names, evs);
            let index = chunk.first_block + i;
            if block.name != "Execute" {
                let at = side.events.len();
                side.events.extend_from_slice(evs);
                side.blocks.push(RunBlock {
                    events: at..side.events.len(),
                    ..block.clone()
                });
                side_at.push(index);
                continue;
            }
            let bundled = block.bundled_input_index;
            let whole = |m: &Method| m.is(bundled, evs);
            let m = if methods.get(last).is_some_and(whole) {
                groups[methods[last].group].2.push(index);
                last
            } else if let Some(m) = methods.iter().position(whole) {
                groups[methods[m].group].2.push(index);
                m
            } else {
                // Not a method's whole signature: one with a few delegate or kernel
                // events lost (what `methods::group_runs` merges), else a new method.
                let sig: Vec<SigEvent> =
                    evs.iter().map(|ev| signer.event(chunk.names, ev)).collect();
                // By a map, not a scan of the groups: a dump of many variants stays
                // linear here.
                let key = (bundled, sig);
                if let Some(&(g, m)) = lossy_group.get(&key) {
                    groups[g].2.push(index);
                    m
                } else if let Some(m) = methods.iter().position(|m| {
                    m.bundled == bundled && lost_delegate_events(&key.1, &groups[m.group].0)
                }) {
                    lossy_group.insert(key.clone(), (groups.len(), m));
                    groups.push((key.1, bundled, vec![index]));
                    m
                } else {
                    // A new method. Past a few, the dump is decoded whole (a hostile one
                    // may have a signature a run).
                    if methods.len() == MAX_METHODS {
                        return false;
                    }
                    let collector = if timeline || methods.is_empty() {
                        0
                    } else {
                        collectors.push(Collector::new(
                            plan_step_names,
                            false,
                            0,
                            bytes.len() / 16,
                        ));
                        collectors.len() - 1
                    };
                    methods.push(Method {
                        first: evs
                            .iter()
                            .map(|ev| (ev.name, ev.delegate_id, ev.instruction_id))
                            .collect(),
                        bundled,
                        group: groups.len(),
                        blocks: Vec::new(),
                        collector,
                    });
                    groups.push((key.1, bundled, vec![index]));
                    methods.len() - 1
                }
            };
            last = m;
            methods[m].blocks.push(index);
            execute.push(index);
            execute_events += evs.len();
            plausibility.execute_run(chunk.names, evs);
            collectors[methods[m].collector].run(chunk.names, evs);
        }
        true
    };
    let Some(end) = crate::etdump::parse_streamed(bytes, &mut each)? else {
        return Ok(None);
    };
    side.version = end.version;
    side.names = end.names;
    side.metadata = end.metadata;
    side.skipped = end.skipped;
    // The grouping's own merge of runs with lost events must give the runs each method
    // collected; else the caller groups the dump decoded whole.
    let groups = merge_groups(groups);
    if groups.len() != methods.len()
        || !groups
            .iter()
            .all(|g| methods.iter().any(|m| m.blocks == g.blocks))
    {
        return Ok(None);
    }
    let speculative = if timeline {
        // One collection of every run (`collectors` holds only the first).
        collectors
            .into_iter()
            .map(|c| (execute.clone(), c.finish()))
            .collect()
    } else {
        methods
            .into_iter()
            .zip(collectors)
            .map(|(m, c)| (m.blocks, c.finish()))
            .collect()
    };
    let prepared = Prepared {
        execute_runs: execute.len(),
        groups,
        speculative,
        loads: load_times(&side, Some(&side_at)),
        resolution_step: resolution.step(),
    };
    Ok(Some(Streamed {
        dump: side,
        prepared,
        plausibility,
        execute_events,
    }))
}

/// Methods collected while streaming at most (more: the dump is decoded whole).
const MAX_METHODS: usize = 16;

/// A method met while streaming.
struct Method {
    /// The fields of its first run's events that make a signature (cheaper to compare
    /// than `SigEvent`s).
    first: Vec<FirstEvent>,
    bundled: i32,
    /// Its own signature's group in the grouping's list.
    group: usize,
    /// The runs it collects, by block index.
    blocks: Vec<usize>,
    /// Its collector in the list of collectors.
    collector: usize,
}

impl Method {
    /// Whether a run of `events` has this method's whole signature.
    fn is(&self, bundled: i32, events: &[ProfileEvent]) -> bool {
        self.bundled == bundled
            && self.first.len() == events.len()
            && self
                .first
                .iter()
                .zip(events)
                .all(|(s, ev)| *s == (ev.name, ev.delegate_id, ev.instruction_id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeline of a few runs places only their events: the placements of the other
    /// runs are never kept (8 bytes an event of the whole file otherwise).
    #[test]
    fn placements_only_for_the_runs_asked() {
        let path = concat!(
            concat!(env!("CARGO_MANIFEST_DIR"), "/../.."),
            "/fixtures/cpu/wide_browse.etdp"
        );
        let bytes = std::fs::read(path).unwrap();
        let names = HashSet::new();
        let placed = |runs: std::ops::Range<usize>| {
            let s = decode_and_collect_placed(&bytes, &names, TimeUnit::Ns, runs)
                .unwrap()
                .unwrap();
            let (_, collected) = s.prepared.speculative.into_iter().next().unwrap();
            collected.placements.unwrap()
        };
        let all = placed(0..usize::MAX);
        let two = placed(3..5);
        assert!((0..35).all(|r| all.recorded(r)));
        assert_eq!(
            (0..35).filter(|&r| two.recorded(r)).collect::<Vec<_>>(),
            vec![3, 4]
        );
        // The runs asked for: the same rows as when every run is placed.
        for run in 0..35 {
            for event in 0..64 {
                let want = if (3..5).contains(&run) {
                    all.get(run, event)
                } else {
                    None
                };
                assert_eq!(two.get(run, event), want, "run {run} event {event}");
            }
        }
        assert!((0..64).any(|e| two.get(3, e).is_some()));
    }
}

#[cfg(test)]
mod lossy_tests {
    use super::*;

    fn want_groups(dump: &EtDump) -> Vec<super::super::methods::RunGroup> {
        super::super::methods::group_runs(dump)
    }

    fn streams(rel: &str) -> bool {
        let path = format!(
            "{}/fixtures/{rel}",
            concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
        );
        let bytes = std::fs::read(path).unwrap();
        decode_and_collect(&bytes, &HashSet::new(), TimeUnit::Ns, &mut |_| {})
            .unwrap()
            .is_some()
    }

    /// Runs with a few delegate events lost are the method's runs (the grouping merges
    /// them): such a dump is streamed, not decoded whole; so are dumps of several
    /// methods, each collected as its runs come.
    #[test]
    fn runs_with_lost_events_and_several_methods_stream() {
        // Step events dropped in two runs (fixtures/cpu-faults/README.md).
        assert!(streams("cpu-faults/cnn2_drop_step.etdp"));
        assert!(streams("cpu/wide_browse.etdp"));
        // Two and three methods in one dump (real, executorch 1.5.1).
        assert!(streams("real/two_method.etdp"));
        assert!(streams("etrecord/three_method.etdp"));
    }

    /// Each method streamed is the method built from the dump decoded whole, on every
    /// fixture of several methods; a timeline's pass collects every run once and finds
    /// the same methods.
    #[test]
    fn several_methods_streamed_equal_the_whole_decode() {
        for rel in ["real/two_method.etdp", "etrecord/three_method.etdp"] {
            let path = format!(
                "{}/fixtures/{rel}",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
            );
            let bytes = std::fs::read(&path).unwrap();
            let names = HashSet::new();
            let streamed = decode_and_collect(&bytes, &names, TimeUnit::Ns, &mut |_| {})
                .unwrap()
                .unwrap();
            assert!(streamed.prepared.groups.len() >= 2, "{rel}");
            assert_eq!(
                streamed.prepared.speculative.len(),
                streamed.prepared.groups.len()
            );
            let source = || crate::profile::ProfileSource {
                etdump: rel.into(),
                log: None,
            };
            let got = super::super::build::assemble_profile(
                &streamed.dump,
                None,
                super::super::warmup::Warmup::Runs(0),
                source(),
                &names,
                streamed.prepared,
            )
            .unwrap();
            let dump = crate::etdump::parse(&bytes).unwrap();
            let want = crate::profile::build_profile(&dump, None, 0, source()).unwrap();
            assert_eq!(got, want, "{rel}");
            // A timeline's pass: one collection of every run, the methods still told.
            let placed = decode_and_collect_placed(&bytes, &names, TimeUnit::Ns, 0..usize::MAX)
                .unwrap()
                .unwrap();
            assert_eq!(placed.prepared.speculative.len(), 1, "{rel}");
            assert_eq!(placed.prepared.groups, want_groups(&dump), "{rel}");
        }
    }

    /// A run as observed: block name, bundled input, (name, instruction, start, end).
    type ObservedRun = (String, i32, Vec<(Option<String>, i32, u64, u64)>);

    /// A load hands its observer every run of the dump in order, each event as
    /// `etdump::parse` decodes it (after a `Restart`, the runs before it forgotten), then
    /// `End` with the debug events counted.
    #[test]
    fn an_observed_load_hands_over_every_run_as_decoded() {
        use crate::profile::{load_profile_observed, Decoded, ProfileRequest};
        use std::sync::atomic::AtomicBool;
        for rel in [
            "real/mlp_xnnpack.etdp",
            "real/two_method.etdp",
            "real/mlp_portable_debugbuf.etdp",
            "wild/cond_branches.etdp",
        ] {
            let path = format!(
                "{}/fixtures/{rel}",
                concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
            );
            let bytes = std::fs::read(&path).unwrap();
            let mut runs: Vec<ObservedRun> = Vec::new();
            let mut ended = None;
            let mut observe = |d: Decoded<'_>| match d {
                Decoded::Runs {
                    blocks,
                    events,
                    names,
                } => {
                    for b in blocks {
                        let evs = events[b.events.clone()]
                            .iter()
                            .map(|e| {
                                let n = e.name.map(|n| names.get(n).to_string());
                                (n, e.instruction_id, e.start_ticks, e.end_ticks)
                            })
                            .collect();
                        runs.push((b.name.to_string(), b.bundled_input_index, evs));
                    }
                }
                Decoded::Restart => runs.clear(),
                Decoded::End { debug_events } => ended = Some(debug_events),
            };
            let request = ProfileRequest::new(path.clone().into(), None, 0);
            load_profile_observed(
                &request,
                &bytes,
                &mut |_| {},
                &AtomicBool::new(false),
                &mut observe,
            )
            .unwrap();
            let dump = crate::etdump::parse(&bytes).unwrap();
            let want: Vec<_> = dump
                .blocks
                .iter()
                .map(|b| {
                    let evs = dump
                        .block_events(b)
                        .iter()
                        .map(|e| {
                            let n = e.name.map(|n| dump.names.get(n).to_string());
                            (n, e.instruction_id, e.start_ticks, e.end_ticks)
                        })
                        .collect();
                    (b.name.to_string(), b.bundled_input_index, evs)
                })
                .collect();
            assert_eq!(runs, want, "{rel}");
            assert_eq!(ended, Some(dump.skipped.debug), "{rel}");
        }
    }
}
