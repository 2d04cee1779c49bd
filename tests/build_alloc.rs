//! The build phase allocates per row and per method, never per event: building a profile
//! of ten times as many runs of the same model makes (almost) no more allocations. A
//! counting global allocator checks it; the few extra are vectors doubling (logarithmic
//! in the runs).

use cpuprof_testkit::etdump_build;

use cpuprof_testkit::counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

use std::sync::atomic::Ordering;

use counting_alloc::{one_at_a_time, ALLOCATIONS, LARGEST};

/// Allocations (and reallocations) made by `build_profile` on `runs` runs of the
/// 3-operator XNNPACK model.
fn build_allocations(runs: usize) -> (usize, usize) {
    let bytes = etdump_build::build(0, &etdump_build::xnnpack_like(runs));
    let dump = cpuprof_tui::etdump::parse(&bytes).expect("generated dump parses");
    let source = cpuprof_tui::profile::ProfileSource {
        etdump: "x.etdp".into(),
        log: None,
    };
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let profile = cpuprof_tui::profile::build_profile(&dump, None, 0, source).expect("builds");
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(profile.runs.kept, runs);
    (made, dump.events.len())
}

#[test]
fn build_allocates_per_row_not_per_event() {
    let _counting = one_at_a_time();
    let (small, small_events) = build_allocations(2_000);
    let (big, big_events) = build_allocations(20_000);
    // 18,000 more runs are ~90,000 more events (5 per run: Method::execute, the
    // delegate call, 3 operators). Per-event allocation would add ~90,000; vectors
    // doubling add a few dozen (log2(10) ~ 3.3 more doublings per growing vector, a
    // handful of such vectors, and thread bookkeeping when the build uses two cores).
    eprintln!("allocations: {small} for 2,000 runs, {big} for 20,000");
    assert!(
        big_events - small_events >= 85_000,
        "{small_events} -> {big_events}"
    );
    assert!(
        big <= small + 200,
        "{small} allocations for 2,000 runs but {big} for 20,000: something allocates per event"
    );
}

/// Allocations made by loading (decoding and collecting, then building) `runs` runs of
/// the 3-operator XNNPACK model from its bytes, the largest single allocation of the
/// load, and the dump's number of profile events (counted on a separate decode).
fn load_allocations(runs: usize) -> (usize, usize, usize) {
    use std::sync::atomic::AtomicBool;
    let bytes = etdump_build::build(0, &etdump_build::xnnpack_like(runs));
    let events = cpuprof_tui::etdump::parse(&bytes)
        .expect("generated dump parses")
        .events
        .len();
    let request = cpuprof_tui::profile::ProfileRequest::new("x.etdp".into(), None, 0);
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    let profile = cpuprof_tui::profile::load_profile_from_bytes(
        &request,
        &bytes,
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .expect("loads");
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    assert_eq!(profile.runs.kept, runs);
    (made, LARGEST.load(Ordering::Relaxed), events)
}

#[test]
fn loading_collects_without_an_event_array() {
    let _counting = one_at_a_time();
    // Once first, for what a first load sets up (thread-locals, lazy tables).
    load_allocations(2_000);
    let (small, _, small_events) = load_allocations(2_000);
    let (big, largest, big_events) = load_allocations(20_000);
    eprintln!(
        "load allocations: {small} for 2,000 runs, {big} for 20,000; largest {largest} bytes"
    );
    assert!(
        big_events - small_events >= 85_000,
        "{small_events} -> {big_events}"
    );
    // Decoding allocates per chunk of runs (a chunk is 2 MiB of file or an eighth of the
    // runs per core) and collection per row: ~90,000 more events may add a few hundred
    // allocations (chunks, vectors doubling), never one per event.
    assert!(
        big <= small + 500,
        "{small} allocations for 2,000 runs but {big} for 20,000: something allocates per event"
    );
    // An array of every event takes 56 bytes an event (5 MB here); the streamed load
    // holds a chunk's events at a time, and samples take 4 bytes an event.
    let array = big_events * std::mem::size_of::<cpuprof_tui::etdump::ProfileEvent>();
    assert_eq!(std::mem::size_of::<cpuprof_tui::etdump::ProfileEvent>(), 56);
    assert!(
        largest < array / 3,
        "an allocation of {largest} bytes while loading {big_events} events: an event array?"
    );
}
