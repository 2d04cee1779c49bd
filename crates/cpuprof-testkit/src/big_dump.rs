//! Big ETDumps for benchmarks: the `Execute` runs of a real fixture, repeated with shifted
//! timestamps until the file reaches a target size, written with the flatbuffers builder.
#![allow(dead_code)]

use crate::etdump_build::{build, BuiltEvent, BuiltProfile, BuiltRun};
use cpuprof_core::etdump::{self, DelegateId};

/// Returns the dump bytes and the number of `Execute` runs in it.
pub fn repeat_execute_runs(source: &[u8], target_bytes: usize) -> (Vec<u8>, usize) {
    let dump = etdump::parse(source).expect("source fixture parses");
    let to_built = |block: &etdump::RunBlock, shift: u64| built_run(&dump, block, |t| t + shift);
    let execute: Vec<&etdump::RunBlock> =
        dump.blocks.iter().filter(|b| b.name == "Execute").collect();
    let span = {
        let evs = dump.block_events(execute[execute.len() - 1]);
        let last_end = evs.iter().map(|e| e.end_ticks).max().unwrap_or(0);
        let first_start = dump
            .block_events(execute[0])
            .iter()
            .map(|e| e.start_ticks)
            .min()
            .unwrap_or(0);
        last_end - first_start + 1_000
    };
    let per_run = source.len() / execute.len().max(1);
    let repeats = target_bytes.div_ceil(per_run.max(1) * execute.len()).max(1);
    let mut runs: Vec<BuiltRun> = dump
        .blocks
        .iter()
        .filter(|b| b.name != "Execute")
        .map(|b| to_built(b, 0))
        .collect();
    for r in 0..repeats {
        for block in &execute {
            runs.push(to_built(block, r as u64 * span));
        }
    }
    let count = repeats * execute.len();
    (build(0, &runs), count)
}

/// [`repeat_execute_runs`] with varied timings: every event of repeat `r` of a run keeps
/// its place but its offset from the run's start (and so its duration) is stretched by
/// `stretch(r)` (nesting is kept), so dumps made with different stretches differ in
/// every sample. Returns the bytes and the number of `Execute` runs.
pub fn repeat_execute_runs_stretched(
    source: &[u8],
    target_bytes: usize,
    stretch: &mut dyn FnMut(usize) -> f64,
) -> (Vec<u8>, usize) {
    let dump = etdump::parse(source).expect("source fixture parses");
    let execute: Vec<&etdump::RunBlock> =
        dump.blocks.iter().filter(|b| b.name == "Execute").collect();
    let bounds = |block: &etdump::RunBlock| {
        let evs = dump.block_events(block);
        let lo = evs.iter().map(|e| e.start_ticks).min().unwrap_or(0);
        let hi = evs.iter().map(|e| e.end_ticks).max().unwrap_or(lo);
        (lo, hi)
    };
    let longest = execute
        .iter()
        .map(|b| {
            let (lo, hi) = bounds(b);
            hi - lo
        })
        .max()
        .unwrap_or(0);
    // Room for a stretch up to 2x.
    let slot = 2 * longest + 1_000;
    let per_run = source.len() / execute.len().max(1);
    let repeats = target_bytes.div_ceil(per_run.max(1) * execute.len()).max(1);
    let mut runs: Vec<BuiltRun> = Vec::new();
    let mut n = 0usize;
    let to_built = |block: &etdump::RunBlock, at: Option<(u64, f64)>| {
        let (lo, _) = bounds(block);
        let place = |t: u64| match at {
            Some((start, f)) => start + ((t - lo) as f64 * f).round() as u64,
            None => t,
        };
        built_run(&dump, block, place)
    };
    for b in dump.blocks.iter().filter(|b| b.name != "Execute") {
        runs.push(to_built(b, None));
    }
    let base = dump.blocks.iter().map(|b| bounds(b).1).max().unwrap_or(0) + 1_000;
    for r in 0..repeats {
        for block in &execute {
            let f = stretch(r).clamp(0.1, 2.0);
            runs.push(to_built(block, Some((base + n as u64 * slot, f))));
            n += 1;
        }
    }
    (build(0, &runs), n)
}

/// `block`'s events as builder input, each timestamp moved by `place`.
fn built_run(
    dump: &etdump::EtDump,
    block: &etdump::RunBlock,
    place: impl Fn(u64) -> u64,
) -> BuiltRun {
    built_run_timed(dump, block, |ev| {
        (place(ev.start_ticks), place(ev.end_ticks))
    })
}

/// `block`'s events as builder input, each with the (start, end) ticks `times` gives it.
pub fn built_run_timed(
    dump: &etdump::EtDump,
    block: &etdump::RunBlock,
    times: impl Fn(&etdump::ProfileEvent) -> (u64, u64),
) -> BuiltRun {
    BuiltRun {
        name: Some(block.name.to_string()),
        bundled_input_index: block.bundled_input_index,
        events: Some(
            dump.block_events(block)
                .iter()
                .map(|ev| {
                    let (start, end) = times(ev);
                    BuiltEvent::Profile(BuiltProfile {
                        name: ev.name.map(|n| dump.names.get(n).to_string()),
                        chain_index: ev.chain_index,
                        instruction_id: ev.instruction_id,
                        delegate_int: match ev.delegate_id {
                            Some(DelegateId::Int(i)) => i,
                            _ => -1,
                        },
                        delegate_str: match ev.delegate_id {
                            Some(DelegateId::Str(s)) => Some(dump.names.get(s).to_string()),
                            _ => None,
                        },
                        metadata: dump.metadata_bytes(ev).map(<[u8]>::to_vec),
                        start,
                        end,
                    })
                })
                .collect(),
        ),
    }
}
