//! A timeline in two streamed passes over the file, never holding the decoded dump:
//! the first decodes and collects every run with the profile's own streamed collection,
//! recording where the events of the chosen runs went; the second decodes the file again
//! and walks only the chosen runs, handing each to the caller as it is made. Memory is the
//! collected rows, the chosen runs' placements (8 bytes an event) and what the caller
//! keeps of the runs, not the file.
//!
//! Serves every dump [`crate::profile::stream`] streams, of one method or several (the
//! rows collected over every run, each run's method and warm-up as the whole decode
//! finds them: [`super::RunMethods`]); for any other, [`stream_timeline`] answers
//! `Ok(None)` and the caller decodes the dump whole ([`super::build_timeline`]).

use super::walk::Walker;
use super::{first_warmup, RunMethods, RunSelection, Timeline, TimelineRun};
use crate::etdump::{convert_events_to_ns, EtDumpError, ProfileEvent, TimeUnit};
use crate::profile::BuildError;
use crate::runlog::RunLog;

/// Why a timeline could not be made.
#[derive(Debug)]
pub enum DumpTimelineError {
    /// The dump cannot be decoded.
    Dump(EtDumpError),
    /// It decodes, but no timeline follows (no `Execute` run, too many warm-up runs).
    Build(BuildError),
}

/// The timeline of the dump `bytes` (ticks in `unit`), with the plans of `log` if given;
/// the runs `select` picks are walked and handed to `each` in run order, which returns
/// what the timeline keeps of each (None: its events are let go, as for a run not
/// chosen). `Ok(None)` when the dump's runs are not all of one method.
pub fn stream_timeline(
    bytes: &[u8],
    log: Option<&RunLog>,
    warmup: crate::profile::warmup::Warmup,
    unit: TimeUnit,
    select: &RunSelection,
    each: &mut dyn FnMut(&Timeline, TimelineRun) -> Option<TimelineRun>,
) -> Result<Option<Timeline>, DumpTimelineError> {
    let plan_step_names = crate::profile::build::plan_step_names(log);
    let original_range = select.range.clone();
    // Pass 1: the rows, and where the chosen range's events went.
    let Some(streamed) = crate::profile::stream::decode_and_collect_placed(
        bytes,
        &plan_step_names,
        unit,
        select.range.clone(),
    )
    .map_err(DumpTimelineError::Dump)?
    else {
        return Ok(None);
    };
    let dump = streamed.dump;
    let prepared = streamed.prepared;
    // One collection of every run, as the whole decode makes it.
    let Some((execute_blocks, mut collected)) = prepared.speculative.into_iter().next() else {
        return Err(DumpTimelineError::Build(BuildError::NoExecuteRuns));
    };
    if collected.runs == 0 {
        return Err(DumpTimelineError::Build(BuildError::NoExecuteRuns));
    }
    let placements = collected.placements.take().unwrap_or_default();
    let (warmup, auto) = first_warmup(warmup, log, &collected).map_err(DumpTimelineError::Build)?;
    let runs = collected.runs;
    // Each run's first Method::execute, from the collection: runs not walked are ranked
    // by it too (and each method's cold runs found by it under `auto`).
    let mut execute_ns: Vec<Option<u64>> = vec![None; runs];
    let method_series = &collected.method;
    method_series.durations().for_each_ns(|i, ns| {
        if let Some(slot @ None) = execute_ns.get_mut(method_series.run(i)) {
            *slot = Some(ns);
        }
    });
    let methods = RunMethods::new(&prepared.groups, &execute_blocks, log, warmup, auto, |r| {
        execute_ns.get(r).copied().flatten()
    })
    .map_err(DumpTimelineError::Build)?;
    drop(execute_blocks);
    let mut tl = Timeline {
        warmup: methods.first_warmup,
        methods: methods.names.clone(),
        negative_durations: collected.negative_durations,
        ..Timeline::default()
    };
    let is_warmup = |r: usize| methods.warmup.get(r).copied().unwrap_or(false);
    let select = &within_budget(
        select,
        runs,
        &is_warmup,
        streamed.execute_events,
        &execute_ns,
    );
    tl.partial = select.range != original_range;
    let mut walker = Walker::new(&mut tl, &collected, &dump.names, &dump.metadata);
    // The samples are the bulk of the collection: gone before the second pass.
    drop(collected);
    drop(dump);

    // A run as listed without its events.
    let listed = |index: usize, execute_ns: Option<u64>| TimelineRun {
        index,
        warmup: is_warmup(index),
        method: methods.method.get(index).copied().unwrap_or(0),
        events: Vec::new(),
        execute_ns,
    };
    let execute_of = |index: usize| execute_ns.get(index).copied().flatten();

    // Pass 2: the chosen runs walked as their chunks come; the file was checked whole by
    // pass 1, and the walk stops past the last run chosen.
    let mut run = 0usize;
    // Pass 1 counted the negative durations of every run (`tl.negative_durations`).
    let mut negative = 0usize;
    let mut failed: Option<EtDumpError> = None;
    let mut walk = |chunk: crate::etdump::RunChunk<'_>| -> bool {
        convert_events_to_ns(chunk.events, unit);
        let events: &[ProfileEvent] = chunk.events;
        for block in chunk.blocks.iter().filter(|b| b.name == "Execute") {
            let index = run;
            run += 1;
            let mut kept = listed(index, execute_of(index));
            if select.wants(index, kept.warmup) {
                if !placements.recorded(index) {
                    // Pass 1 saw fewer runs than this one: not the file it read.
                    failed = Some(EtDumpError::Corrupt(
                        "the dump changed between its two readings".to_string(),
                    ));
                    return false;
                }
                kept.events = walker.run_events(
                    &mut tl,
                    chunk.names,
                    &placements,
                    index,
                    &events[block.events.clone()],
                    &mut negative,
                );
                // A walked run's is its events' (as when the dump is decoded whole).
                kept.execute_ns = super::first_execute_ns(&tl, &kept.events);
                let execute_ns = kept.execute_ns;
                kept = each(&tl, kept).unwrap_or_else(|| listed(index, execute_ns));
            }
            tl.runs.push(kept);
        }
        run < select.range.end.min(runs)
    };
    crate::etdump::parse_streamed(bytes, &mut walk).map_err(DumpTimelineError::Dump)?;
    if let Some(e) = failed {
        return Err(DumpTimelineError::Dump(e));
    }
    // Runs past the last one chosen were not decoded again: listed, without events.
    for index in tl.runs.len()..runs {
        tl.runs.push(listed(index, execute_of(index)));
    }
    Ok(Some(tl))
}

/// `select` narrowed to a window of consecutive wanted runs when the runs it wants hold
/// more than its `max_events` (by the average events of a run): around its `center`, else
/// around the wanted run closest to the median `Method::execute` (`execute_ns` per run).
fn within_budget(
    select: &RunSelection,
    runs: usize,
    is_warmup: &dyn Fn(usize) -> bool,
    events: usize,
    execute_ns: &[Option<u64>],
) -> RunSelection {
    let Some(budget) = select.max_events else {
        return select.clone();
    };
    let wanted: Vec<usize> = (0..runs)
        .filter(|&r| select.wants(r, is_warmup(r)))
        .collect();
    let per_run = (events / runs.max(1)).max(1);
    let fit = (budget / per_run).max(1);
    if wanted.len() <= fit {
        return select.clone();
    }
    let at = match select.center {
        Some(c) => wanted.partition_point(|&r| r < c).min(wanted.len() - 1),
        None => {
            let lengths: Vec<u64> = wanted
                .iter()
                .map(|&r| execute_ns.get(r).copied().flatten().unwrap_or(0))
                .collect();
            super::median_position(&lengths).unwrap_or(0)
        }
    };
    let lo = at.saturating_sub(fit / 2).min(wanted.len() - fit);
    RunSelection {
        range: wanted[lo]..wanted[lo + fit - 1] + 1,
        ..select.clone()
    }
}
