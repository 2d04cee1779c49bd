//! A counting global allocator for the tests that measure what code allocates: how many
//! allocations (and reallocations), the largest one, and the live heap with its peak. A
//! test binary installs [`Counting`] as its allocator. The counters are global: a test
//! holds [`one_at_a_time`] while it measures.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The allocator: a test binary installs it as its own with
/// `#[global_allocator] static GLOBAL: Counting = Counting;` (a library cannot: every
/// binary linking it would count).
pub struct Counting;

/// Allocations and reallocations made.
pub static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
/// The largest single allocation (or reallocation) requested, in bytes.
pub static LARGEST: AtomicUsize = AtomicUsize::new(0);
/// Bytes allocated and not freed.
pub static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The highest `LIVE` since it was last reset.
pub static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    LARGEST.fetch_max(bytes, Ordering::Relaxed);
    let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The old block is live until the new one is made: count the new one first.
        grew(new_size);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Held while a test measures: the counters are shared by the binary's tests.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// Peak live heap while `make` runs (above the live heap when it starts), and what it
/// returns; `LARGEST` is reset too.
pub fn peak_of<T>(make: impl FnOnce() -> T) -> (usize, T) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    let out = make();
    (PEAK.load(Ordering::Relaxed) - base, out)
}
