//! Parent/child structure of complete (`X`) events, rebuilt per thread by time
//! containment.
//!
//! Rule: per thread, sort calls by (start ascending, end descending, file order). Walk
//! them with a stack of open candidates; call E becomes a child of the stack top P iff
//! `E.start < P.end` and `E.end <= P.end + tolerance`; otherwise P is popped and the next
//! candidate is tried (PyTorch's `_populate_cpu_children` with tolerance 0). The
//! tolerance, [`CONTAINMENT_TOLERANCE_NS`], is for traces whose timestamps are whole µs
//! (children ending up to 1 µs after the parent by rounding); a trace with ns digits is
//! nested exactly, as `key_averages()` nests it.

use super::intervals::Interval;

/// 1 µs: the tolerance for traces of whole µs.
pub const CONTAINMENT_TOLERANCE_NS: i64 = 1_000;

/// Assign parents and reorder so that each thread's calls are contiguous, in start order,
/// with every parent before its children (the `IntervalSet` invariant).
pub(crate) fn nest_by_containment(
    mut intervals: Vec<Interval>,
    n_threads: usize,
    tolerance_ns: i64,
) -> Vec<Interval> {
    let mut per_thread: Vec<Vec<u32>> = vec![Vec::new(); n_threads];
    for (i, iv) in intervals.iter().enumerate() {
        per_thread[iv.thread as usize].push(i as u32);
    }
    let end = |iv: &Interval| iv.start_ns.saturating_add(iv.dur_ns);
    for ids in &mut per_thread {
        ids.sort_by(|&a, &b| {
            let (x, y) = (&intervals[a as usize], &intervals[b as usize]);
            x.start_ns
                .cmp(&y.start_ns)
                .then(end(y).cmp(&end(x)))
                .then(a.cmp(&b))
        });
    }
    // The new order, thread after thread, is often the file's (one thread, or threads
    // one after another, each in start order, as torch.profiler writes them): then the
    // parents are set in place, with no second copy of the intervals (at 1 GB of trace,
    // ~90 MB not allocated, written and freed).
    let in_place = per_thread
        .iter()
        .flatten()
        .enumerate()
        .all(|(k, &id)| id as usize == k);
    let mut out = Vec::with_capacity(if in_place { 0 } else { intervals.len() });
    let mut stack: Vec<(u32, i64)> = Vec::new(); // (new index, end)
    for ids in per_thread {
        stack.clear();
        for id in ids {
            let iv = intervals[id as usize];
            let e_end = end(&iv);
            while let Some(&(_, p_end)) = stack.last() {
                if iv.start_ns < p_end && e_end <= p_end.saturating_add(tolerance_ns) {
                    break;
                }
                stack.pop();
            }
            let parent = stack.last().map(|&(p, _)| p);
            let new_index = if in_place {
                intervals[id as usize].parent = parent;
                id
            } else {
                out.push(Interval { parent, ..iv });
                out.len() as u32 - 1
            };
            stack.push((new_index, e_end));
        }
    }
    if in_place {
        intervals
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(start: i64, dur: i64) -> Interval {
        Interval {
            thread: 0,
            name: 0,
            start_ns: start,
            dur_ns: dur,
            err: false,
            frame: false,
            inputs: None,
            parent: None,
        }
    }

    #[test]
    fn containment_with_tolerance() {
        // parent [0,100]; child [10,50]; grandchild [20,30]; child ending 0.5 µs late
        // [60,600] is still a child; sibling [1100, 1200] is not.
        let out = nest_by_containment(
            vec![
                iv(1100, 100),
                iv(20, 10),
                iv(0, 100),
                iv(10, 40),
                iv(60, 540),
            ],
            1,
            CONTAINMENT_TOLERANCE_NS,
        );
        let starts: Vec<_> = out.iter().map(|i| (i.start_ns, i.parent)).collect();
        assert_eq!(
            starts,
            vec![
                (0, None),
                (10, Some(0)),
                (20, Some(1)),
                (60, Some(0)),
                (1100, None)
            ]
        );
    }

    #[test]
    fn without_tolerance_a_child_ending_late_is_no_child() {
        let out = nest_by_containment(vec![iv(0, 100), iv(10, 91), iv(20, 80)], 1, 0);
        let parents: Vec<_> = out.iter().map(|i| i.parent).collect();
        assert_eq!(parents, vec![None, None, Some(1)]);
    }

    #[test]
    fn back_to_back_calls_are_siblings() {
        let out = nest_by_containment(vec![iv(0, 10), iv(10, 10), iv(20, 0)], 1, 1_000);
        assert!(out.iter().all(|i| i.parent.is_none()));
    }

    /// Intervals already in the nesting's order (thread after thread, each in start
    /// order: the usual trace) are nested in place, with the parents the copying path
    /// gives the same intervals in another order.
    #[test]
    fn in_place_gives_the_parents_of_the_copy() {
        let mut rng = cpuprof_testkit::rng::XorShift::new(0x2545_f491_4f6c_dd1d);
        let mut ivs = Vec::new();
        for _ in 0..3000 {
            let seed = rng.next_u64();
            ivs.push(Interval {
                thread: (seed % 3) as u32,
                start_ns: ((seed >> 8) % 20_000) as i64,
                dur_ns: ((seed >> 32) % 2_000) as i64,
                ..iv(0, 0)
            });
        }
        let show = |v: &[Interval]| {
            v.iter()
                .map(|i| (i.thread, i.start_ns, i.dur_ns, i.parent))
                .collect::<Vec<_>>()
        };
        for tolerance in [0, CONTAINMENT_TOLERANCE_NS] {
            // Threads interleaved and starts shuffled: the copying path.
            let copied = nest_by_containment(ivs.clone(), 3, tolerance);
            assert!(copied.iter().any(|i| i.parent.is_some()));
            let in_order: Vec<Interval> = copied
                .iter()
                .map(|i| Interval { parent: None, ..*i })
                .collect();
            let in_place = nest_by_containment(in_order, 3, tolerance);
            assert_eq!(show(&in_place), show(&copied));
        }
    }
}
