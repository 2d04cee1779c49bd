//! The Chrome/Kineto JSON reader allocates per distinct name, signature, thread and
//! warning kind, and for the growth of the interval array (doubling), never per event:
//! reading a trace of ten times as many events of the same workload makes (almost) no
//! more allocations, and the largest allocation is the model's, not the text's. A
//! counting global allocator checks it (`cpuprof_testkit::counting_alloc`).

use cpuprof_testkit::big_trace;
use cpuprof_testkit::counting_alloc;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

use std::sync::atomic::Ordering;

use counting_alloc::{ALLOCATIONS, LARGEST};
use cpuprof_tui::trace;

/// How a trace is read: through gzip (inflated ahead on another thread), plain on one
/// thread, or plain in two parts on two threads (`trace/chrome/parts.rs`; a big text is
/// read so on a machine with two cores: each part has its tables, a constant per part).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Way {
    Gzip,
    OneThread,
    TwoParts,
}

/// Allocations made reading a trace of `copies` copies of the training fixture's events
/// (plain and through gzip), the largest one, and the op events read.
fn read_allocations(t: &big_trace::TraceTemplate, copies: u64, way: Way) -> (usize, usize, u64) {
    let gz = way == Way::Gzip;
    let mut text = Vec::new();
    t.write(&mut text, copies).unwrap();
    if gz {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut e, &text).unwrap();
        text = e.finish().unwrap();
    }
    let _guard = counting_alloc::one_at_a_time();
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    let set = match way {
        Way::Gzip => {
            trace::read_intervals(&text, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap()
        }
        Way::OneThread => trace::read_chrome_json_cut_at(&text, &[], false).0.unwrap(),
        Way::TwoParts => {
            let (set, merged) =
                trace::read_chrome_json_cut_at(&text, &[text.len() as u64 / 2], true);
            assert_eq!(merged, 1);
            set.unwrap()
        }
    };
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    let largest = LARGEST.load(Ordering::Relaxed);
    (made, largest, set.counts.op_events)
}

#[test]
fn the_json_reader_allocates_per_name_not_per_event() {
    let t = big_trace::TraceTemplate::from_fixture();
    for way in [Way::OneThread, Way::TwoParts, Way::Gzip] {
        let (small, small_largest, small_ops) = read_allocations(&t, 20, way);
        let (big, big_largest, big_ops) = read_allocations(&t, 200, way);
        eprintln!(
            "{way:?}: {small} allocations for {small_ops} op events (largest {small_largest} B), \
             {big} for {big_ops} (largest {big_largest} B)"
        );
        // Every call counted: the op events written (counted in the text, not by the reader).
        assert_eq!(small_ops, 20 * t.op_events as u64);
        assert_eq!(big_ops, 200 * t.op_events as u64);
        // 91,000 more op events (and ~100,000 more events in all). One allocation per
        // event would add ~100,000; the allowance covers the doublings of the interval
        // array and of the nesting's per-thread lists (log2(10) ≈ 3.3 more each) and the
        // sort buffers.
        assert!(
            big <= small + 64,
            "{small} allocations for 20 copies but {big} for 200: something allocates per event"
        );
        // The largest allocation is the model's (the interval arrays), never the text:
        // the 200-copy trace is ~44 MB of JSON.
        let text_bytes = 200 * t.copy_bytes;
        assert!(
            big_largest < text_bytes / 4,
            "largest allocation {big_largest} B for {text_bytes} B of text"
        );
    }
}
