//! The build phase allocates per row and per method, never per event: building a profile
//! of ten times as many runs of the same model makes (almost) no more allocations. A
//! counting global allocator checks it; the few extra are vectors doubling (logarithmic
//! in the runs).

#[path = "support/etdump_build.rs"]
mod etdump_build;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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
