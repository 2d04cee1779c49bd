//! Decoding a dump chunk by chunk, without an event array: contiguous chunks of runs are
//! decoded on every core, a few chunks ahead of the caller, and handed to it in run
//! order, their names and metadata already in the dump's tables. Each chunk's events are
//! dropped once the caller has taken them in, and the mapped pages behind the decoder
//! are released as [`super::parse`] releases them, so memory holds a few chunks, not the
//! file.
//!
//! The verdict on a file is [`super::parse`]'s: the same checked decoder reads the same
//! runs, and the first error in run order is the one reported.

use std::ops::Range;
use std::sync::{Condvar, Mutex};

use super::checked::{self, Cursor, Limits};
use super::header::check_header;
use super::reader::{
    decode_chunk, metadata_base, rebase, Decoder, Part, CHUNKS_PER_THREAD, PARALLEL_MIN_BYTES,
};
use super::{EtDumpError, NameId, NameTable, ProfileEvent, RunBlock, SkippedEvents};

/// Bytes of file per chunk of runs (about half of it in decoded events).
const CHUNK_BYTES: usize = 2 << 20;

/// Chunks decoded ahead of the caller, per decoding thread.
const AHEAD_PER_THREAD: usize = 2;

/// One chunk of runs, in run order.
pub struct RunChunk<'a> {
    /// Index of the chunk's first block among all the dump's blocks.
    pub first_block: usize,
    /// The chunk's blocks; their event ranges index `events`.
    pub blocks: &'a [RunBlock],
    /// The chunk's profile events (names in `names`, metadata spans in `metadata`).
    pub events: &'a mut [ProfileEvent],
    /// The dump's names so far (every name of this chunk and the ones before).
    pub names: &'a NameTable,
    /// The dump's metadata pool so far.
    pub metadata: &'a [u8],
}

/// What a streamed dump holds besides its runs' events.
#[derive(Debug, Default)]
pub struct StreamEnd {
    pub version: u32,
    /// Number of `RunData` blocks.
    pub blocks: usize,
    pub names: NameTable,
    pub metadata: Vec<u8>,
    pub skipped: SkippedEvents,
}

/// The number of `RunData` blocks the dump says it has (0 when its root is unreadable;
/// the decoder then reports why).
pub fn run_count(bytes: &[u8]) -> usize {
    let Ok(buf) = check_header(bytes) else {
        return 0;
    };
    let mut cur = Cursor::new(buf, Limits::for_buffer(buf.len()));
    checked::root(&mut cur)
        .ok()
        .and_then(|r| r.run_data)
        .map_or(0, |r| r.len() / 4)
}

/// Decodes `bytes` (a whole `.etdp` file), handing `each` every chunk of runs in order.
/// `each` returns false to stop: the result is then `Ok(None)`.
pub fn parse_streamed(
    bytes: &[u8],
    each: &mut dyn FnMut(RunChunk<'_>) -> bool,
) -> Result<Option<StreamEnd>, EtDumpError> {
    let buf = check_header(bytes)?;
    let limits = Limits::for_buffer(buf.len());
    let mut root_cur = Cursor::new(buf, limits);
    let root = checked::root(&mut root_cur).map_err(|b| b.into_error("ETDump"))?;
    let mut end = StreamEnd {
        version: root.version,
        ..StreamEnd::default()
    };
    let Some(runs) = root.run_data else {
        return Ok(Some(end));
    };
    let first_element = runs.start;
    let count = runs.len() / 4;
    if count == 0 {
        return Ok(Some(end));
    }
    let threads = if buf.len() >= PARALLEL_MIN_BYTES {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(count)
    } else {
        1
    };
    let pieces = (buf.len() / CHUNK_BYTES)
        .max(if threads == 1 {
            1
        } else {
            threads * CHUNKS_PER_THREAD
        })
        .clamp(1, count);
    let chunks: Vec<Range<usize>> = (0..pieces)
        .map(|t| count * t / pieces..count * (t + 1) / pieces)
        .collect();
    let shared = Shared {
        state: Mutex::new(State {
            next: 0,
            consumed: 0,
            stop: false,
            ready: (0..pieces).map(|_| None).collect(),
            spare: Vec::new(),
        }),
        changed: Condvar::new(),
    };
    let decode = |k: usize| -> Result<Part, EtDumpError> {
        let range = chunks[k].clone();
        // The events go into a vector the caller is done with (its pages are already
        // faulted in and it has room for a chunk like the last), or a new one that grows
        // as they come: no counting pass over the chunk first, no fresh pages per chunk.
        let events = shared.lock().spare.pop().unwrap_or_default();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            decode_chunk(
                buf,
                limits,
                first_element,
                range,
                &mut [],
                events,
                Decoder::Shapes,
            )
        }))
        .unwrap_or_else(|panic| {
            Err(EtDumpError::Corrupt(format!(
                "internal error while decoding: {}",
                crate::threads::panic_message(&*panic)
            )))
        })
    };
    let ahead = threads * AHEAD_PER_THREAD;
    let worker = || loop {
        let k = {
            let mut st = shared.lock();
            loop {
                if st.stop || st.next == pieces {
                    return;
                }
                if st.next < st.consumed + ahead {
                    break;
                }
                st = shared.wait(st);
            }
            st.next += 1;
            st.next - 1
        };
        let part = decode(k);
        shared.lock().ready[k] = Some(part);
        shared.changed.notify_all();
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(worker);
        }
        let result = consume(&shared, pieces, ahead, &decode, &mut end, each);
        shared.lock().stop = true;
        shared.changed.notify_all();
        result.map(|finished| finished.then_some(end))
    })
}

struct State {
    /// The next chunk no thread has taken yet.
    next: usize,
    /// Chunks the caller has taken in.
    consumed: usize,
    stop: bool,
    ready: Vec<Option<Result<Part, EtDumpError>>>,
    /// Event vectors of chunks the caller has taken in, emptied, to decode into again
    /// (at most one per chunk in flight).
    spare: Vec<Vec<ProfileEvent>>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A poisoned lock only means a thread panicked holding it; the state is plain.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn wait<'a>(&self, g: std::sync::MutexGuard<'a, State>) -> std::sync::MutexGuard<'a, State> {
        self.changed.wait(g).unwrap_or_else(|p| p.into_inner())
    }
}

/// The caller's side: takes the chunks in order, moves their names and metadata into
/// `end` and hands them to `each`. Ok(false) when `each` stopped. While the next chunk
/// is not ready it decodes one itself (that one, or the next no thread has taken within
/// the look-ahead): decoding costs about twice what `each` does with a chunk, so a
/// caller that only waited would leave a core idle.
fn consume(
    shared: &Shared,
    pieces: usize,
    ahead: usize,
    decode: &(dyn Fn(usize) -> Result<Part, EtDumpError> + Sync),
    end: &mut StreamEnd,
    each: &mut dyn FnMut(RunChunk<'_>) -> bool,
) -> Result<bool, EtDumpError> {
    for k in 0..pieces {
        let part = {
            let mut st = shared.lock();
            loop {
                if let Some(p) = st.ready[k].take() {
                    break p;
                }
                if st.next == k {
                    st.next += 1;
                    drop(st);
                    break decode(k);
                }
                if st.next < pieces && st.next < k + ahead {
                    let later = st.next;
                    st.next += 1;
                    drop(st);
                    let part = decode(later);
                    st = shared.lock();
                    st.ready[later] = Some(part);
                    continue;
                }
                st = shared.wait(st);
            }
        }?;
        let Part {
            blocks,
            overflow: mut events,
            names,
            metadata,
            skipped,
            ..
        } = part;
        if k == 0 {
            end.names = names;
            end.metadata = metadata;
        } else {
            // The names re-interned in order give the ids `parse` gives them.
            let remap: Vec<NameId> = (0..names.len())
                .map(|i| end.names.intern(names.get(NameId(i as u32))))
                .collect();
            let meta_base = metadata_base(&end.metadata, &metadata)?;
            end.metadata.extend_from_slice(&metadata);
            for ev in &mut events {
                *ev = rebase(ev, &remap, meta_base);
            }
        }
        end.skipped.allocation += skipped.allocation;
        end.skipped.debug += skipped.debug;
        end.skipped.empty += skipped.empty;
        let go_on = each(RunChunk {
            first_block: end.blocks,
            blocks: &blocks,
            events: &mut events,
            names: &end.names,
            metadata: &end.metadata,
        });
        end.blocks += blocks.len();
        events.clear();
        {
            let mut st = shared.lock();
            st.consumed = k + 1;
            st.spare.push(events);
        }
        shared.changed.notify_all();
        if !go_on {
            return Ok(false);
        }
    }
    Ok(true)
}
