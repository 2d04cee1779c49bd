//! Decoding straight into collection: the dump's chunks of runs come from
//! [`crate::etdump::parse_streamed`] in run order and each run is collected as it comes
//! (run signature, row placement, compact samples), so no event array is ever made.
//!
//! This serves the usual dump, whose `Execute` runs all have the first one's signature
//! (one method, one group): the same rows, in the same order, as collecting the decoded
//! dump. Anything else (runs of several signatures, which may regroup once every run is
//! seen) stops the stream; the caller then decodes the dump whole
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

/// The fields of an event that make a run's signature (see `methods::group_runs`): the
/// first run's, compared with each run's as they come (cheaper than `SigEvent`s).
type FirstEvent = (Option<NameId>, Option<DelegateId>, i32);

/// Decodes `bytes` and collects its `Execute` runs, ticks read in `unit`; `Ok(None)`
/// when the runs are not all of the first run's signature (decode the dump whole then).
pub(crate) fn decode_and_collect(
    bytes: &[u8],
    plan_step_names: &HashSet<String>,
    unit: TimeUnit,
) -> Result<Option<Streamed>, EtDumpError> {
    decode_and_collect_inner(bytes, plan_step_names, unit, None)
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
    decode_and_collect_inner(bytes, plan_step_names, unit, Some(placed))
}

fn decode_and_collect_inner(
    bytes: &[u8],
    plan_step_names: &HashSet<String>,
    unit: TimeUnit,
    placed: Option<std::ops::Range<usize>>,
) -> Result<Option<Streamed>, EtDumpError> {
    // Rows of the first run reserve a sample per run; at most one per 16 bytes of file
    // in all (an event takes more), so a lying run count cannot make it balloon.
    let runs = crate::etdump::run_count(bytes);
    let mut collector = Collector::new(plan_step_names, placed.is_some(), runs, bytes.len() / 16);
    if let Some(runs) = placed {
        collector.record_only(runs);
    }
    let mut side = EtDump::default();
    let mut first: Option<(i32, Vec<FirstEvent>)> = None;
    // The runs by signature, as `methods::group_runs` makes them: the first run's, then
    // those with lost events.
    let mut groups: Vec<(Vec<SigEvent>, i32, Vec<usize>)> = Vec::new();
    let mut signer = Signer::new(0);
    let mut lossy_group: std::collections::HashMap<Vec<SigEvent>, usize> =
        std::collections::HashMap::new();
    let mut execute: Vec<usize> = Vec::new();
    let mut resolution = ResolutionStep::default();
    let mut plausibility = Plausibility::default();
    let mut execute_events = 0usize;
    let mut each = |chunk: crate::etdump::RunChunk<'_>| -> bool {
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
                continue;
            }
            let sig = |ev: &ProfileEvent| (ev.name, ev.delegate_id, ev.instruction_id);
            match &first {
                None => {
                    first = Some((block.bundled_input_index, evs.iter().map(sig).collect()));
                    let full = evs.iter().map(|ev| signer.event(chunk.names, ev)).collect();
                    groups.push((full, block.bundled_input_index, vec![index]));
                }
                Some((bundled, like)) => {
                    let alike = *bundled == block.bundled_input_index
                        && like.len() == evs.len()
                        && like.iter().zip(evs).all(|(s, ev)| *s == sig(ev));
                    if alike {
                        groups[0].2.push(index);
                    } else {
                        // Not the first run's events: the same method with a few delegate
                        // or kernel events lost (what `methods::group_runs` merges), else
                        // another method, which the caller groups from the dump decoded
                        // whole.
                        let lossy: Vec<SigEvent> =
                            evs.iter().map(|ev| signer.event(chunk.names, ev)).collect();
                        if *bundled != block.bundled_input_index
                            || !lost_delegate_events(&lossy, &groups[0].0)
                        {
                            return false;
                        }
                        // By a map, not a scan of the groups: a dump of many variants
                        // stays linear here.
                        match lossy_group.get(&lossy) {
                            Some(&g) => groups[g].2.push(index),
                            None => {
                                lossy_group.insert(lossy.clone(), groups.len());
                                groups.push((lossy, *bundled, vec![index]));
                            }
                        }
                    }
                }
            }
            execute.push(index);
            execute_events += evs.len();
            plausibility.execute_run(chunk.names, evs);
            collector.run(chunk.names, evs);
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
    // One method: every run in one group once the runs with lost events are merged, as
    // grouping the decoded dump would do; else the caller groups the dump decoded whole.
    let groups = merge_groups(groups);
    if groups.len() > 1 {
        return Ok(None);
    }
    let prepared = Prepared {
        execute_runs: execute.len(),
        groups,
        speculative: Some((execute, collector.finish())),
        loads: load_times(&side),
        resolution_step: resolution.step(),
    };
    Ok(Some(Streamed {
        dump: side,
        prepared,
        plausibility,
        execute_events,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timeline of a few runs places only their events: the placements of the other
    /// runs are never kept (8 bytes an event of the whole file otherwise).
    #[test]
    fn placements_only_for_the_runs_asked() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/cpu/wide_browse.etdp");
        let bytes = std::fs::read(path).unwrap();
        let names = HashSet::new();
        let placed = |runs: std::ops::Range<usize>| {
            let s = decode_and_collect_placed(&bytes, &names, TimeUnit::Ns, runs)
                .unwrap()
                .unwrap();
            let (_, collected) = s.prepared.speculative.unwrap();
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

    fn streams(rel: &str) -> bool {
        let path = format!("{}/fixtures/{rel}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(path).unwrap();
        decode_and_collect(&bytes, &HashSet::new(), TimeUnit::Ns)
            .unwrap()
            .is_some()
    }

    /// Runs with a few delegate events lost are the method's runs (the grouping merges
    /// them): such a dump is streamed, not decoded whole. Two methods are not.
    #[test]
    fn runs_with_lost_events_stream_two_methods_do_not() {
        // Step events dropped in two runs (fixtures/cpu-faults/README.md).
        assert!(streams("cpu-faults/cnn2_drop_step.etdp"));
        assert!(streams("cpu/wide_browse.etdp"));
        // Two and three methods in one dump (real, executorch 1.5.1).
        assert!(!streams("real/two_method.etdp"));
        assert!(!streams("etrecord/three_method.etdp"));
    }
}
