//! The merge of a trace's streams: each stream's current event in a heap, visited in
//! time order; events whose time overflows their clock are counted and reported after.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::super::error::TraceError;
use super::super::intervals::{TraceWarning, WarningLog};
use super::clock::ClockConv;
use super::flat;
use super::stream::{EventPos, StreamCursor, StreamIssue};
use super::{ctf_err, CtfEvent, CtfTrace, StreamFile};

/// Events skipped because their time overflows with their clock.
#[derive(Default)]
pub(super) struct ClockOverflow {
    events: u64,
    /// The first: trace directory, clock in words, raw cycles.
    first: Option<(String, String, u64)>,
}

impl ClockOverflow {
    /// One more event of trace `rel` whose time overflows with `c`.
    #[cold]
    pub(super) fn add(&mut self, rel: &str, c: &ClockConv, cycles: u64) {
        self.events += 1;
        if self.first.is_none() {
            self.first = Some((rel.to_string(), c.describe(), cycles));
        }
    }
}

struct Source<'t> {
    trace: &'t CtfTrace,
    trace_index: usize,
    stream: &'t StreamFile,
    cursor: StreamCursor<'t>,
    cur: Option<EventPos>,
    ts: i64,
}

impl<'t> Source<'t> {
    /// Visit the current event (if any) with `f`, then advance to the next one: whether
    /// there is one.
    #[inline]
    fn visit_then_advance(
        &mut self,
        warnings: &mut WarningLog,
        overflow: &mut ClockOverflow,
        f: &mut impl FnMut(&CtfEvent<'_, 't>),
    ) -> Result<bool, TraceError> {
        if let Some(pos) = self.cur {
            f(&CtfEvent::decoded(
                self.trace,
                self.trace_index,
                &self.stream.rel,
                &self.cursor,
                pos,
                self.ts,
            ));
        }
        self.advance(warnings, overflow)?;
        Ok(self.cur.is_some())
    }

    /// The next event whose time converts to ns (events whose time overflows are
    /// counted in `overflow` and skipped: a 0 or a clamped time would be a silent lie).
    fn advance(
        &mut self,
        warnings: &mut WarningLog,
        overflow: &mut ClockOverflow,
    ) -> Result<(), TraceError> {
        loop {
            let r = self.cursor.next_event();
            if !self.cursor.issues.is_empty() {
                self.drain_issues(warnings);
            }
            self.cur = r.map_err(|m| ctf_err(format!("{}: {m}", self.stream.rel)))?;
            let Some(ev) = &self.cur else {
                return Ok(());
            };
            let Some(c) = self.trace.clocks.get(ev.stream_class) else {
                return Ok(());
            };
            match c.try_to_ns(ev.cycles) {
                Some(ts) => {
                    self.ts = ts;
                    return Ok(());
                }
                None => self.overflowed(c, ev.cycles, overflow),
            }
        }
    }

    #[cold]
    fn overflowed(&self, c: &ClockConv, cycles: u64, overflow: &mut ClockOverflow) {
        overflow.add(&self.trace.rel, c, cycles);
    }

    #[cold]
    fn drain_issues(&mut self, warnings: &mut WarningLog) {
        for issue in self.cursor.issues.drain(..) {
            if let StreamIssue::Packet { kind, message } = issue {
                let s = &self.stream.rel;
                warnings.add(kind, || format!("{s}: {message}"));
            }
        }
    }
}

/// Visit every event of `traces` in time order (ties: trace, then stream file order).
/// Streams are decoded lazily, one current event each. Returns the decoding warnings
/// (discarded events, skipped packets, index disagreements).
pub fn for_each_event(
    traces: &[CtfTrace],
    f: impl FnMut(&CtfEvent<'_, '_>),
) -> Result<Vec<TraceWarning>, TraceError> {
    let mut warnings = WarningLog::default();
    for_each_event_log(traces, None, &mut warnings, f)?;
    Ok(warnings.finish())
}

/// After decoding: an error when a mapped stream file was truncated or rewritten under
/// the decoder (what was decoded is not to be believed).
pub(super) fn check_streams_unchanged(traces: &[CtfTrace]) -> Result<(), TraceError> {
    for s in traces.iter().flat_map(|t| &t.streams) {
        s.data
            .check_unchanged()
            .map_err(|e| ctf_err(format!("{}: {e}", s.rel)))?;
    }
    Ok(())
}

/// The overflow warning, or the error when no event had a usable time.
pub(super) fn report_overflow(
    overflow: &ClockOverflow,
    kept: u64,
    warnings: &mut WarningLog,
) -> Result<(), TraceError> {
    let Some((rel, clock, cycles)) = &overflow.first else {
        return Ok(());
    };
    let n = overflow.events;
    let what = format!(
        "{rel}: {clock} puts {n} event time{} outside the range of ns since 1970 that fits 64 bits (years 1678 to 2262; the first at {cycles} cycles)",
        if n == 1 { "" } else { "s" }
    );
    if kept == 0 {
        return Err(ctf_err(format!(
            "{what}, every event of the trace; its clock description is wrong"
        )));
    }
    warnings.add("clock_overflow", || format!("{what}; those events skipped"));
    Ok(())
}

/// Visit every event in time order (as [`for_each_event`]), then check that no mapped
/// file changed meanwhile and report events whose time overflows (an error when that is
/// every event). With `flat` (per trace, per event class), events of classes with a flat
/// plan are decoded by it.
pub(super) fn for_each_event_log<'a>(
    traces: &'a [CtfTrace],
    flat: Option<&'a [Vec<Option<flat::FlatPlan>>]>,
    warnings: &mut WarningLog,
    mut f: impl FnMut(&CtfEvent<'_, 'a>),
) -> Result<(), TraceError> {
    let mut kept = 0u64;
    let mut per_trace = vec![0u64; traces.len()];
    let mut overflow = ClockOverflow::default();
    merge_events(traces, flat, warnings, &mut overflow, FEW_STREAMS, |ev| {
        kept += 1;
        per_trace[ev.trace_index] += 1;
        f(ev)
    })?;
    check_streams_unchanged(traces)?;
    report_traces_read(traces, &per_trace, warnings);
    report_overflow(&overflow, kept, warnings)
}

/// When several trace directories were read, or one found below the root: which, and
/// how many events each gave (`per_trace`, in the order of `traces`).
pub(super) fn report_traces_read(
    traces: &[CtfTrace],
    per_trace: &[u64],
    warnings: &mut WarningLog,
) {
    let n = traces.len();
    let below = traces.iter().any(|t| t.below_root);
    if n == 0 || (n == 1 && !below) {
        return;
    }
    // The kind `traces_below_root` is the one this note had before #44 (JSON consumers
    // may know it); `traces_read` when every trace sits in the root's own layout.
    let kind = if below {
        "traces_below_root"
    } else {
        "traces_read"
    };
    warnings.add(kind, || {
        let s = |k: u64| if k == 1 { "" } else { "s" };
        let list = traces
            .iter()
            .zip(per_trace)
            .take(8)
            .map(|(t, &k)| format!("{} ({k} event{})", t.rel, s(k)))
            .collect::<Vec<_>>()
            .join(", ");
        let rest = if n > 8 {
            format!(", and {} more", n - 8)
        } else {
            String::new()
        };
        let total: u64 = per_trace.iter().sum();
        let all = if n > 1 {
            format!("; {total} event{} in all", s(total))
        } else {
            String::new()
        };
        let dirs = if n == 1 { "y" } else { "ies" };
        if below {
            format!("{n} trace director{dirs} found in folders below the root, read together: {list}{rest}{all}")
        } else {
            format!("{n} trace director{dirs} read together: {list}{rest}{all}")
        }
    });
}

/// The merge: by a scan of the streams' times when there are at most `few` streams
/// ([`merge_few`]), else by a heap; the same order either way.
fn merge_events<'a>(
    traces: &'a [CtfTrace],
    flat: Option<&'a [Vec<Option<flat::FlatPlan>>]>,
    warnings: &mut WarningLog,
    overflow: &mut ClockOverflow,
    few: usize,
    mut f: impl FnMut(&CtfEvent<'_, 'a>),
) -> Result<(), TraceError> {
    let mut sources: Vec<Source<'_>> = Vec::new();
    for (ti, t) in traces.iter().enumerate() {
        for s in &t.streams {
            let mut cursor =
                StreamCursor::new(&t.meta, &t.compiled, &s.data.bytes, s.index.clone());
            if let Some(plans) = flat.and_then(|f| f.get(ti)) {
                cursor = cursor.with_flat_plans(plans);
            }
            sources.push(Source {
                trace: t,
                trace_index: ti,
                stream: s,
                cursor,
                cur: None,
                ts: 0,
            });
        }
    }
    if sources.len() <= few {
        return merge_few(&mut sources, warnings, overflow, f);
    }
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        s.advance(warnings, overflow)?;
        if s.cur.is_some() {
            heap.push(Reverse((s.ts, i)));
        }
    }
    // The stream on top is advanced in place (one sift instead of a pop and a push).
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((_, i)) = *top;
        let s = &mut sources[i];
        if s.visit_then_advance(warnings, overflow, &mut f)? {
            *top = Reverse((s.ts, i));
        } else {
            std::collections::binary_heap::PeekMut::pop(top);
        }
    }
    Ok(())
}

/// Up to this many streams are merged by [`merge_few`], more by a heap.
const FEW_STREAMS: usize = 8;

/// [`merge_events`] for a few streams (one per CPU of a small machine): the next event
/// is the least of their current times found by a scan of them, in merge order, so
/// that the first of equal times wins as in the heap's order (time, then place). Events
/// of a few streams come interleaved one by one, where the heap's sift mispredicts at
/// each level; the scan's comparisons become conditional moves.
fn merge_few<'a>(
    sources: &mut [Source<'a>],
    warnings: &mut WarningLog,
    overflow: &mut ClockOverflow,
    mut f: impl FnMut(&CtfEvent<'_, 'a>),
) -> Result<(), TraceError> {
    // The current time of each stream with an event, in merge order; `at[k]` is the
    // stream of `times[k]`. A stream that ends is removed, the order kept.
    let mut times: Vec<i64> = Vec::with_capacity(sources.len());
    let mut at: Vec<usize> = Vec::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        s.advance(warnings, overflow)?;
        if s.cur.is_some() {
            times.push(s.ts);
            at.push(i);
        }
    }
    while !times.is_empty() {
        let mut k = 0;
        let mut least = times[0];
        for (j, &t) in times.iter().enumerate().skip(1) {
            let less = t < least;
            k = if less { j } else { k };
            least = if less { t } else { least };
        }
        let s = &mut sources[at[k]];
        if s.visit_then_advance(warnings, overflow, &mut f)? {
            times[k] = s.ts;
        } else {
            times.remove(k);
            at.remove(k);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use cpuprof_testkit::ctf_writer::{CtfWriter, WriteEvent, WriterConfig};

    use super::super::open::open_traces_log;
    use super::*;

    /// Both merges visit the events in the order (time, stream in merge order, place in
    /// its stream), the order worked out here from what was written: streams with
    /// runs of equal times within and across them, some streams empty or short.
    #[test]
    fn both_merges_give_time_then_stream_order() {
        let mut rng = cpuprof_testkit::rng::XorShift::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_u64();
        for streams in [1usize, 2, 3, 4, 8, 9, 13] {
            let dir = tempfile::tempdir().unwrap();
            let mut w = CtfWriter::new(WriterConfig {
                streams,
                ..WriterConfig::default()
            });
            // (cycles, stream, place in the stream)
            let mut written: Vec<(u64, usize, usize)> = Vec::new();
            for stream in 0..streams {
                // Stream 1 holds nothing; the others up to 600 events.
                let n = if stream == 1 {
                    0
                } else {
                    (next() % 600) as usize
                };
                let mut ts = 1_000 + next() % 50;
                for k in 0..n {
                    ts += next() % 3; // 0: a tie with the event before
                    w.event(
                        stream,
                        ts,
                        WriteEvent::Op {
                            entry: true,
                            vpid: 1,
                            vtid: 2,
                            name: "aten::mm",
                            overload: "",
                        },
                    );
                    written.push((ts, stream, k));
                }
            }
            w.finish(dir.path()).unwrap();
            let mut log = WarningLog::default();
            let traces = open_traces_log(dir.path(), u64::MAX, &mut log).unwrap();
            // Stream files are read in the order the directory listing is sorted in
            // (`blocking-channel_10` before `_2`): merge order is that order.
            let place: Vec<usize> = traces[0]
                .streams
                .iter()
                .map(|s| s.rel.rsplit('_').next().unwrap().parse().unwrap())
                .collect();
            let order_of = |stream: usize| place.iter().position(|&p| p == stream).unwrap();
            let mut keyed: Vec<(u64, usize, usize)> = written
                .iter()
                .map(|&(ts, stream, k)| (ts, order_of(stream), k))
                .collect();
            keyed.sort_unstable();
            let want: Vec<(u64, usize)> = keyed.iter().map(|&(ts, o, _)| (ts, place[o])).collect();
            for few in [0, usize::MAX] {
                let mut got = Vec::new();
                let mut overflow = ClockOverflow::default();
                merge_events(&traces, None, &mut log, &mut overflow, few, |ev| {
                    let stream: usize = ev.stream.rsplit('_').next().unwrap().parse().unwrap();
                    got.push((ev.cycles, stream));
                })
                .unwrap();
                assert_eq!(got, want, "{streams} streams, few = {few}");
            }
        }
    }
}
