//! One pass over the `Execute` runs: every event becomes a sample of a row keyed by
//! (instruction, label, occurrence within the run), and every non-step event inside a
//! delegate votes for the step whose interval contains it. Nothing is dropped: rows keep
//! the run index of each sample so warm-ups can be split off later.
//!
//! `samples` holds what is collected, `memo` the per-run memos and indexes, `collector`
//! the pass itself; the entry points over a decoded dump are here.

mod collector;
mod memo;
mod replay;
mod samples;

use std::collections::HashSet;

use crate::etdump::EtDump;

pub(crate) use collector::Collector;
pub(crate) use samples::{
    duration_ms, wide_ns, Collected, Durations, EventRow, InstructionData, Label, Placements,
    RowKind, Series,
};

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
    for block in blocks.iter().filter_map(|&b| dump.blocks.get(b)) {
        collector.run(&dump.names, dump.block_events(block));
    }
    collector.finish()
}
