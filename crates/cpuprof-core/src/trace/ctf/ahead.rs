//! The merge of [`super::merge`] with the streams decoded ahead on a thread of their own:
//! decoding is about half the CPU of a tally, so the merge (and the pairing behind it)
//! no longer waits on it event by event.
//!
//! The decoding thread decodes each stream's events in batches and maps each event to
//! what the merge's caller needs of it (`map`, e.g. the op fields the pairing takes), so
//! the merge thread only orders small records by time and consumes them. It always
//! fills the stream whose decoded events end earliest among those with room, so the
//! merge (which takes events in time order) finds the next batch of a stream ready. Each
//! stream has at most [`QUEUED_PER_STREAM`] batches waiting, of a size that keeps the
//! events in flight under [`EVENTS_IN_FLIGHT`] whatever the stream count, and emptied
//! batches go back to be filled again: memory stays flat, with no allocation per event.
//!
//! What the caller sees is what the serial merge gives: the same events in the same order
//! (ties by trace, then stream file order), the same warnings in the same order (each
//! stream's issues and clock overflows travel with the event they came before and are
//! logged when the merge reaches it) and the same first error (a stream's error ends its
//! batches and is returned when the merge reaches it).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::super::error::TraceError;
use super::super::intervals::WarningLog;
use super::flat::FlatPlan;
use super::merge::{check_streams_unchanged, report_overflow, report_traces_read, ClockOverflow};
use super::stream::{StreamCursor, StreamIssue};
use super::{ctf_err, CtfEvent, CtfTrace};

/// Batches decoded and not yet merged, per stream.
const QUEUED_PER_STREAM: usize = 2;

/// Events decoded and not yet merged, over every stream (a batch has at least
/// [`MIN_BATCH`] events, so very many streams may hold more).
const EVENTS_IN_FLIGHT: usize = 32 * 1024;

const MIN_BATCH: usize = 64;
const MAX_BATCH: usize = 4096;

/// Stream bytes from which decoding ahead would be chosen, were it chosen by size
/// ([`super::ops`] does not: see `decode_ahead`). Decoding ahead costs CPU (each event's
/// record is written, queued and read again) and pays only where the serial merge's
/// thread is the bottleneck and a core is idle for it: on 2 cores with `report --format
/// tally` of 10M events (282 MB) it measured 1.04 s against 1.19 s serial in one session
/// (median of 10), and 1.14-1.68 s (2.2-3.1 s CPU) against 0.89-1.35 s (1.3-1.8 s CPU)
/// serial in a later one (13 interleaved runs, the serial path faster in 12).
pub(super) const AHEAD_MIN_BYTES: u64 = 64 << 20;

/// What happened on a stream before the event of a batch index: what the serial merge
/// logs while advancing to that event.
enum Note {
    Issue(&'static str, String),
    Overflow { stream_class: usize, cycles: u64 },
}

struct Batch<T> {
    /// Each event's time and what `map` made of it.
    events: Vec<(i64, T)>,
    /// In order; the index is that of the event they came before (`events.len()`: the
    /// end of the stream).
    notes: Vec<(usize, Note)>,
    /// Set on the stream's last batch: how it ended.
    end: Option<Result<(), TraceError>>,
}

impl<T> Default for Batch<T> {
    fn default() -> Self {
        Batch {
            events: Vec::new(),
            notes: Vec::new(),
            end: None,
        }
    }
}

impl<T> Batch<T> {
    fn clear(&mut self) {
        self.events.clear();
        self.notes.clear();
        self.end = None;
    }
}

struct State<T> {
    queues: Vec<VecDeque<Batch<T>>>,
    /// The decoder has queued the stream's last batch.
    finished: Vec<bool>,
    spare: Vec<Batch<T>>,
    /// The merge is over (done or failed): the decoder stops.
    stop: bool,
    /// The decoder panicked.
    panicked: Option<String>,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        // A poisoned lock only means a thread panicked holding it; the state is plain.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'g>(&self, g: MutexGuard<'g, State<T>>) -> MutexGuard<'g, State<T>> {
        self.changed.wait(g).unwrap_or_else(|p| p.into_inner())
    }
}

/// A stream as the decoding thread reads it.
struct Ahead<'a> {
    trace: &'a CtfTrace,
    trace_index: usize,
    rel: &'a str,
    cursor: StreamCursor<'a>,
    /// The time of the last event decoded (the serial merge keeps it for an event
    /// whose stream class has no clock).
    ts: i64,
    done: bool,
}

impl<'a> Ahead<'a> {
    /// Decodes up to `cap` events into `b` (as many calls of the serial merge's
    /// `advance`), each mapped by `map`, and sets `b.end` when the stream ends or fails.
    fn fill<T>(
        &mut self,
        b: &mut Batch<T>,
        cap: usize,
        map: &(dyn Fn(&CtfEvent<'_, 'a>) -> T + Sync),
    ) {
        while b.events.len() < cap {
            let r = self.cursor.next_event();
            if !self.cursor.issues.is_empty() {
                for issue in self.cursor.issues.drain(..) {
                    if let StreamIssue::Packet { kind, message } = issue {
                        b.notes.push((b.events.len(), Note::Issue(kind, message)));
                    }
                }
            }
            let pos = match r {
                Ok(Some(pos)) => pos,
                Ok(None) => {
                    b.end = Some(Ok(()));
                    break;
                }
                Err(m) => {
                    b.end = Some(Err(ctf_err(format!("{}: {m}", self.rel))));
                    break;
                }
            };
            if let Some(c) = self.trace.clocks.get(pos.stream_class) {
                match c.try_to_ns(pos.cycles) {
                    Some(ts) => self.ts = ts,
                    None => {
                        let note = Note::Overflow {
                            stream_class: pos.stream_class,
                            cycles: pos.cycles,
                        };
                        b.notes.push((b.events.len(), note));
                        continue;
                    }
                }
            }
            let ev = CtfEvent::decoded(
                self.trace,
                self.trace_index,
                self.rel,
                &self.cursor,
                pos,
                self.ts,
            );
            b.events.push((self.ts, map(&ev)));
        }
        self.done = b.end.is_some();
    }
}

/// The decoding thread: fills batches until every stream is done or the merge stops.
fn decode_ahead<'a, T>(
    shared: &Shared<T>,
    mut streams: Vec<Ahead<'a>>,
    cap: usize,
    map: &(dyn Fn(&CtfEvent<'_, 'a>) -> T + Sync),
) {
    loop {
        let (k, mut batch) = {
            let mut st = shared.lock();
            loop {
                if st.stop {
                    return;
                }
                // The stream with room whose decoded events end earliest.
                let next = (0..streams.len())
                    .filter(|&k| !streams[k].done && st.queues[k].len() < QUEUED_PER_STREAM)
                    .min_by_key(|&k| (streams[k].ts, k));
                match next {
                    Some(k) => break (k, st.spare.pop().unwrap_or_default()),
                    None if streams.iter().all(|s| s.done) => return,
                    None => st = shared.wait(st),
                }
            }
        };
        streams[k].fill(&mut batch, cap, map);
        let mut st = shared.lock();
        st.queues[k].push_back(batch);
        st.finished[k] = streams[k].done;
        drop(st);
        shared.changed.notify_all();
    }
}

/// A stream as the merge reads it: the batch it takes events from.
struct Source<'a, T> {
    trace: &'a CtfTrace,
    trace_index: usize,
    /// Events handed to the caller (for the note of what each trace gave).
    events: u64,
    rel: &'a str,
    batch: Option<Batch<T>>,
    /// Index in `batch` of the next event, and of the next note.
    next: usize,
    note: usize,
    /// Index in `batch` of the current event.
    cur: Option<usize>,
    /// Its time.
    ts: i64,
}

/// Visits every event of `traces` in time order, as [`super::merge`]'s
/// `for_each_event_log` does with `flat`, the streams decoded ahead on a second thread:
/// `map` runs there on each event, and `f` here on what it made of each, in order.
pub(super) fn for_each_event_ahead<'a, T: Send>(
    traces: &'a [CtfTrace],
    flat: &'a [Vec<Option<FlatPlan>>],
    warnings: &mut WarningLog,
    map: &(dyn Fn(&CtfEvent<'_, 'a>) -> T + Sync),
    mut f: impl FnMut(&T),
) -> Result<(), TraceError> {
    let mut ahead = Vec::new();
    let mut sources = Vec::new();
    for (ti, t) in traces.iter().enumerate() {
        for s in &t.streams {
            let mut cursor =
                StreamCursor::new(&t.meta, &t.compiled, &s.data.bytes, s.index.clone());
            if let Some(plans) = flat.get(ti) {
                cursor = cursor.with_flat_plans(plans);
            }
            ahead.push(Ahead {
                trace: t,
                trace_index: ti,
                rel: &s.rel,
                cursor,
                ts: 0,
                done: false,
            });
            sources.push(Source {
                trace: t,
                trace_index: ti,
                events: 0,
                rel: &s.rel,
                batch: None,
                next: 0,
                note: 0,
                cur: None,
                ts: 0,
            });
        }
    }
    let n = sources.len();
    let cap = (EVENTS_IN_FLIGHT / (n * QUEUED_PER_STREAM).max(1)).clamp(MIN_BATCH, MAX_BATCH);
    let shared = Shared {
        state: Mutex::new(State {
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            finished: vec![false; n],
            spare: Vec::new(),
            stop: false,
            panicked: None,
        }),
        changed: Condvar::new(),
    };
    let mut kept = 0u64;
    let mut overflow = ClockOverflow::default();
    let merged = std::thread::scope(|scope| {
        let shared = &shared;
        scope.spawn(move || {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                decode_ahead(shared, ahead, cap, map)
            }));
            if let Err(panic) = run {
                shared.lock().panicked = Some(crate::threads::panic_message(&*panic));
                shared.changed.notify_all();
            }
        });
        // Stops the decoder however the merge ends (a panic in `f` too: the scope
        // joins the decoder before it unwinds further, so it must not be left waiting).
        let _stop = StopOnDrop(shared);
        let mut merge = Merge {
            shared,
            sources: &mut sources,
            warnings,
            overflow: &mut overflow,
        };
        merge.run(&mut |item| {
            kept += 1;
            f(item)
        })
    });
    merged?;
    check_streams_unchanged(traces)?;
    let mut per_trace = vec![0u64; traces.len()];
    for s in &sources {
        per_trace[s.trace_index] += s.events;
    }
    report_traces_read(traces, &per_trace, warnings);
    report_overflow(&overflow, kept, warnings)
}

struct StopOnDrop<'s, T>(&'s Shared<T>);

impl<T> Drop for StopOnDrop<'_, T> {
    fn drop(&mut self) {
        self.0.lock().stop = true;
        self.0.changed.notify_all();
    }
}

struct Merge<'m, 'a, T> {
    shared: &'m Shared<T>,
    sources: &'m mut [Source<'a, T>],
    warnings: &'m mut WarningLog,
    overflow: &'m mut ClockOverflow,
}

impl<T> Merge<'_, '_, T> {
    fn run(&mut self, f: &mut dyn FnMut(&T)) -> Result<(), TraceError> {
        let mut heap = BinaryHeap::with_capacity(self.sources.len());
        for i in 0..self.sources.len() {
            self.advance(i)?;
            let s = &self.sources[i];
            if s.cur.is_some() {
                heap.push(Reverse((s.ts, i)));
            }
        }
        // The stream on top is advanced in place (one sift instead of a pop and a push).
        while let Some(mut top) = heap.peek_mut() {
            let Reverse((_, i)) = *top;
            let s = &mut self.sources[i];
            if let (Some(k), Some(b)) = (s.cur, &s.batch) {
                f(&b.events[k].1);
                s.events += 1;
            }
            self.advance(i)?;
            let s = &self.sources[i];
            if s.cur.is_some() {
                *top = Reverse((s.ts, i));
            } else {
                std::collections::binary_heap::PeekMut::pop(top);
            }
        }
        Ok(())
    }

    /// Moves source `i` to its next event (`cur` None at its end), logging the notes
    /// on the way; waits for the decoder when its batch is used up.
    fn advance(&mut self, i: usize) -> Result<(), TraceError> {
        loop {
            if self.sources[i].batch.is_none() {
                let b = take(self.shared, i)?;
                let s = &mut self.sources[i];
                (s.batch, s.next, s.note) = (Some(b), 0, 0);
            }
            let s = &mut self.sources[i];
            let Some(b) = &mut s.batch else {
                continue;
            };
            while let Some((at, note)) = b.notes.get(s.note) {
                if *at != s.next {
                    break;
                }
                match note {
                    Note::Issue(kind, message) => {
                        let rel = s.rel;
                        self.warnings.add(kind, || format!("{rel}: {message}"));
                    }
                    Note::Overflow {
                        stream_class,
                        cycles,
                    } => {
                        if let Some(c) = s.trace.clocks.get(*stream_class) {
                            self.overflow.add(&s.trace.rel, c, *cycles);
                        }
                    }
                }
                s.note += 1;
            }
            if let Some((ts, _)) = b.events.get(s.next) {
                (s.cur, s.ts) = (Some(s.next), *ts);
                s.next += 1;
                return Ok(());
            }
            s.cur = None;
            match b.end.take() {
                Some(end) => return end,
                None => {
                    let mut used = s.batch.take().expect("a batch");
                    used.clear();
                    self.shared.lock().spare.push(used);
                }
            }
        }
    }
}

/// The next batch of source `i`, waiting for the decoder.
fn take<T>(shared: &Shared<T>, i: usize) -> Result<Batch<T>, TraceError> {
    let mut st = shared.lock();
    loop {
        if let Some(b) = st.queues[i].pop_front() {
            drop(st);
            // The decoder may have been waiting for this room.
            shared.changed.notify_all();
            return Ok(b);
        }
        if let Some(message) = &st.panicked {
            return Err(ctf_err(format!("internal error while decoding: {message}")));
        }
        if st.finished[i] {
            // Its last batch was taken: cannot happen (the end is kept), but an
            // empty end is the truthful answer.
            return Ok(Batch {
                end: Some(Ok(())),
                ..Batch::default()
            });
        }
        st = shared.wait(st);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::*;
    use crate::trace::ctf::flat::OpFieldIds;
    use crate::trace::ctf::merge::for_each_event_log;
    use crate::trace::ctf::open_traces;
    use crate::trace::ctf::writer::{write_workload, WriterConfig};

    /// A written trace of about `events` op events over 4 streams and 8 threads.
    fn written(events: usize) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = WriterConfig {
            streams: 4,
            packet_size: 1024,
            ..WriterConfig::default()
        };
        write_workload(&tmp.path().join("ust/uid/1/64-bit"), cfg, events, 8).unwrap();
        tmp
    }

    fn plans(traces: &[CtfTrace]) -> Vec<Vec<Option<FlatPlan>>> {
        traces
            .iter()
            .map(|t| t.compiled.flat_plans(&t.meta, &OpFieldIds::of(&t.meta)))
            .collect()
    }

    #[test]
    fn events_come_in_the_serial_merges_order() {
        let tmp = written(20_000);
        let (traces, _) = open_traces(tmp.path(), crate::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
        let plans = plans(&traces);
        let key = |ev: &CtfEvent<'_, '_>| (ev.ts_ns, ev.stream.to_string(), ev.offset);
        let mut serial = Vec::new();
        let mut log = WarningLog::default();
        for_each_event_log(&traces, Some(&plans), &mut log, |ev| serial.push(key(ev))).unwrap();
        let mut ahead = Vec::new();
        let mut log = WarningLog::default();
        for_each_event_ahead(&traces, &plans, &mut log, &key, |k| ahead.push(k.clone())).unwrap();
        // Every event of the 4 streams, each stream's in file order.
        assert!(serial.len() >= 20_000, "{}", serial.len());
        assert_eq!(ahead, serial);
    }

    #[test]
    fn a_panic_in_the_consumer_does_not_leave_the_decoder_waiting() {
        // Over 4 times the events in flight: the decoder waits for room long before
        // the end.
        let tmp = written(4 * EVENTS_IN_FLIGHT);
        let (done_tx, done_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let (traces, _) =
                open_traces(tmp.path(), crate::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
            let plans = plans(&traces);
            let mut seen = 0;
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut log = WarningLog::default();
                let _ = for_each_event_ahead(&traces, &plans, &mut log, &|ev| ev.ts_ns, |_| {
                    seen += 1;
                    // Past the first batches: the decoder has filled every queue.
                    assert!(seen < 1_000, "the consumer fails");
                });
            }));
            let _ = done_tx.send(run.is_err());
        });
        // A decoder left waiting would keep the scope (and this thread) from ending.
        let panicked = done_rx.recv_timeout(Duration::from_secs(60));
        assert_eq!(panicked, Ok(true));
    }
}
