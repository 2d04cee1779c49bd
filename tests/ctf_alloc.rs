//! The CTF tally allocates per op, per thread and per packet, never per event: tallying
//! a trace of ten times as many events of the same workload makes (almost) no more
//! allocations. A counting global allocator checks it.

use cpuprof_testkit::counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

use std::sync::atomic::Ordering;

use counting_alloc::ALLOCATIONS;
use cpuprof_testkit::ctf_writer as writer;
use cpuprof_tui::trace::ctf;

/// Packets of a written trace, from its index files (16-byte header, 72-byte entries).
fn packets(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("index"))
        .unwrap()
        .flatten()
        .map(|e| (e.metadata().unwrap().len() as usize - 16) / 72)
        .sum()
}

/// Allocations made by `tally_dir` on a written trace of `events` op events, with the
/// trace's packet count and the calls it tallied.
fn tally_allocations(events: usize) -> (usize, usize, u64) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ust/uid/1000/64-bit");
    let cfg = writer::WriterConfig {
        streams: 4,
        packet_size: 16 * 1024,
        ..writer::WriterConfig::default()
    };
    let truth = writer::write_workload(&dir, cfg, events, 8).unwrap();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let t = ctf::tally_dir(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let calls: u64 = t.tally.rows.iter().map(|r| r.calls).sum();
    // The tally counted what the writer wrote (independent truth: its closed calls).
    assert_eq!(calls, truth.len() as u64);
    (made, packets(&dir), calls)
}

#[test]
fn the_ctf_tally_allocates_per_packet_not_per_event() {
    let (small, small_packets, small_calls) = tally_allocations(20_000);
    let (big, big_packets, big_calls) = tally_allocations(200_000);
    eprintln!(
        "allocations: {small} for {small_calls} calls in {small_packets} packets, \
         {big} for {big_calls} calls in {big_packets} packets"
    );
    // 180,000 more events in ~10x the packets. One allocation per event would add
    // 180,000; the allowance is 4 per extra packet (the index entries and the packet's
    // warnings are the only per-packet growth) and 100 for vectors doubling and the
    // pairing thread's batches (a fixed few, recycled).
    assert!(
        big_calls >= 89_000 + small_calls,
        "{small_calls} -> {big_calls}"
    );
    let allowance = 4 * (big_packets - small_packets) + 100;
    assert!(
        big <= small + allowance,
        "{small} allocations for 20,000 events but {big} for 200,000 \
         ({} more packets): something allocates per event",
        big_packets - small_packets
    );
}
