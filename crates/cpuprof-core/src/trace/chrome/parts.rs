//! Every core on one big trace: the text cut into parts where an event seems to start
//! (`}` `,` `{"`, whitespace between), each part scanned on a thread of its own into a
//! builder of its own, the builders merged in the order of the text.
//!
//! A guess is used only once it is proved. The scan of the part before a cut stops at
//! the first element of the event array that starts at or after the cut; when that
//! element starts exactly at the cut, the cut is an element's start in the serial scan
//! too, in the same place of the document (the event array, inside the top object or
//! bare, as the text's first byte says), and the next part's scan, which began there,
//! is the serial scan's own from there on. Its builder is merged when the merge is
//! exact (names, threads and signatures renumbered in the order the serial scan would
//! have met them; no warning, string id or error in it, whose text or number depends on
//! what came before). Otherwise the text from where the scan stopped to the next cut is
//! scanned again on this thread with the builder so far, and the next part is tried. So the result is the serial scan's, whatever
//! the text (a string holding `}, {"` makes a wrong guess, which costs time only): the
//! property tests in `tests/it/trace_parts.rs` cut texts everywhere.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};

use super::document::{read_document, read_from_event, Within};
use super::scan::{Scan, Scanner, BUFFER_BYTES};
use super::{finish, Builder};
use crate::trace::error::TraceError;
use crate::trace::intervals::IntervalSet;

/// Texts smaller than this are scanned on one thread.
const MIN_PART_BYTES: u64 = 4 << 20;

/// At most this many parts (threads).
const MAX_PARTS: usize = 8;

/// How far past a cut the start of an event is looked for.
const LOOK_AHEAD: usize = 64 << 10;

/// Text that threads read from any offset on, at once.
trait Source: Sync {
    fn len(&self) -> u64;
    fn read_from(&self, at: u64) -> Box<dyn Read + Send + '_>;
}

/// Text held in memory.
struct Bytes<'b>(&'b [u8]);

impl Source for Bytes<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_from(&self, at: u64) -> Box<dyn Read + Send + '_> {
        Box::new(&self.0[(at as usize).min(self.0.len())..])
    }
}

/// A reader that fails once `abandon` is set (a part whose scan is no longer wanted
/// stops at its next refill).
struct Abandonable<'a> {
    inner: Box<dyn Read + Send + 'a>,
    abandon: &'a AtomicBool,
}

impl Read for Abandonable<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.abandon.load(Ordering::Relaxed) {
            return Err(io::Error::other("abandoned"));
        }
        self.inner.read(buf)
    }
}

/// How many parts a text of `len` bytes is cut into, on up to `threads` threads (0: one
/// per core).
fn part_count(len: u64, threads: usize) -> usize {
    let cores = match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    cores
        .min(MAX_PARTS)
        .min((len / MIN_PART_BYTES).max(1) as usize)
}

/// Chrome JSON in memory, scanned in parts when it is big and there are cores for them.
pub(super) fn read_bytes_in_parts(bytes: &[u8]) -> (Builder, Scan<()>) {
    let n = part_count(bytes.len() as u64, 0);
    let hints: Vec<u64> = (1..n as u64)
        .map(|k| bytes.len() as u64 * k / n as u64)
        .collect();
    read_in_parts(&Bytes(bytes), &hints, true)
}

/// [`super::read_chrome_json`] with the text cut at `hints` (snapped to the next place
/// that looks like an event's start when `snap`, else used as they are): the same
/// result whatever the cuts; and how many parts were merged (not scanned again). For
/// the tests.
pub(crate) fn read_chrome_json_cut_at(
    bytes: &[u8],
    hints: &[u64],
    snap: bool,
) -> (Result<IntervalSet, TraceError>, usize) {
    let (b, scanned) = read_in_parts(&Bytes(bytes), hints, snap);
    let merged = b.merged_parts;
    (finish(b, scanned, &mut |_| None), merged)
}

/// `len` bytes of a regular file from byte `start` on (after a byte-order mark), read
/// in parts on up to `threads` threads (0: one per core; `pread`: no shared file
/// position).
#[cfg(unix)]
pub(crate) fn read_chrome_file(
    file: &std::fs::File,
    start: u64,
    len: u64,
    threads: usize,
) -> Result<IntervalSet, TraceError> {
    let text = FileText { file, start, len };
    let n = part_count(len, threads);
    let hints: Vec<u64> = (1..n as u64).map(|k| len * k / n as u64).collect();
    let (b, scanned) = read_in_parts(&text, &hints, true);
    finish(b, scanned, &mut |_| None)
}

/// `len` bytes of a regular file from byte `start` on (one thread here).
#[cfg(not(unix))]
pub(crate) fn read_chrome_file(
    file: &std::fs::File,
    start: u64,
    len: u64,
    _threads: usize,
) -> Result<IntervalSet, TraceError> {
    use std::io::{Seek, SeekFrom};
    let mut file = file;
    file.seek(SeekFrom::Start(start))
        .map_err(|e| TraceError::Io(e.to_string()))?;
    let mut reader = file.take(len);
    super::read_chrome_json_from(&mut reader, &mut |_| None)
}

#[cfg(unix)]
struct FileText<'f> {
    file: &'f std::fs::File,
    start: u64,
    len: u64,
}

#[cfg(unix)]
impl Source for FileText<'_> {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_from(&self, at: u64) -> Box<dyn Read + Send + '_> {
        Box::new(FileAt {
            file: self.file,
            pos: self.start + at.min(self.len),
            end: self.start + self.len,
        })
    }
}

/// A window of a file read with `pread`.
#[cfg(unix)]
struct FileAt<'f> {
    file: &'f std::fs::File,
    pos: u64,
    end: u64,
}

#[cfg(unix)]
impl Read for FileAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let want = buf.len().min((self.end - self.pos) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// Where the text's event array lies, from its first byte; `None`: no trace (the serial
/// scan reports it).
fn within(src: &dyn Source) -> Option<Within> {
    let mut head = [0u8; 4096];
    let n = src.read_from(0).read(&mut head).ok()?;
    match head[..n].iter().find(|b| !b.is_ascii_whitespace())? {
        b'{' => Some(Within::TopObject),
        b'[' => Some(Within::BareArray),
        _ => None,
    }
}

/// The first place at or after `from` (within [`LOOK_AHEAD`]) that looks like the start
/// of an event: the `{` of `}` `,` `{"`, whitespace allowed between them.
fn event_start_after(src: &dyn Source, from: u64) -> Option<u64> {
    let mut window = vec![0u8; LOOK_AHEAD];
    let mut got = 0;
    let mut r = src.read_from(from);
    while got < window.len() {
        match r.read(&mut window[got..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    let w = &window[..got];
    let after_ws = |mut i: usize| {
        while w.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let mut i = 0;
    while let Some(close) = memchr::memchr(b'}', &w[i..]).map(|c| c + i) {
        i = close + 1;
        let comma = after_ws(close + 1);
        if w.get(comma) != Some(&b',') {
            continue;
        }
        let open = after_ws(comma + 1);
        if w.get(open) == Some(&b'{') && w.get(after_ws(open + 1)) == Some(&b'"') {
            return Some(from + open as u64);
        }
    }
    None
}

/// The scan of one part: the builder, how it ended.
type Scanned = (Builder, Scan<()>);

/// The scan of the part from `start` (an element of the event array, `within` the
/// document there) to the first element at or after `stop`, into `b`.
fn scan_part(
    src: &dyn Source,
    start: u64,
    mut b: Builder,
    within: Within,
    abandon: &AtomicBool,
) -> Scanned {
    let mut reader = Abandonable {
        inner: src.read_from(start),
        abandon,
    };
    let mut s = Scanner::at(&mut reader, BUFFER_BYTES, start);
    let scanned = read_from_event(&mut s, &mut b, within);
    (b, scanned)
}

/// The serial scan's builder and ending, the text read in parts cut at `hints`.
fn read_in_parts(src: &dyn Source, hints: &[u64], snap: bool) -> Scanned {
    let mut cuts: Vec<u64> = hints
        .iter()
        .filter_map(|&h| {
            if snap {
                event_start_after(src, h)
            } else {
                Some(h)
            }
        })
        .filter(|&c| c > 0 && c < src.len())
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let within = within(src);
    let abandon = AtomicBool::new(false);
    let whole = |stop: u64| {
        let mut reader = Abandonable {
            inner: src.read_from(0),
            abandon: &AtomicBool::new(false),
        };
        let mut s = Scanner::at(&mut reader, BUFFER_BYTES, 0);
        let mut b = Builder::new(stop);
        let scanned = read_document(&mut s, &mut b);
        (b, scanned)
    };
    let Some(within) = within.filter(|_| !cuts.is_empty()) else {
        return whole(u64::MAX);
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = cuts
            .iter()
            .enumerate()
            .map(|(i, &start)| {
                let stop = cuts.get(i + 1).copied().unwrap_or(u64::MAX);
                let abandon = &abandon;
                scope.spawn(move || scan_part(src, start, Builder::new(stop), within, abandon))
            })
            .collect();
        let (mut b, mut scanned) = whole(cuts[0]);
        for (i, handle) in handles.into_iter().enumerate() {
            let at = match (b.stopped_at, &scanned) {
                (Some(at), Ok(())) => at,
                // The scan ended (at the end of the text, or failing) before the cut.
                _ => break,
            };
            let merged = match handle.join() {
                Ok((part, Ok(()))) if at == cuts[i] => b.absorb(part),
                _ => false,
            };
            if !merged {
                // This thread scans the part again, up to the next cut.
                b.stop_at = cuts.get(i + 1).copied().unwrap_or(u64::MAX);
                b.stopped_at = None;
                (b, scanned) = scan_part(src, at, b, within, &AtomicBool::new(false));
            }
        }
        abandon.store(true, Ordering::Relaxed);
        (b, scanned)
    })
}

impl Builder {
    /// Whether `other`, the scan of the text right after this one's, merges exactly: as
    /// if this builder had read it.
    fn can_absorb(&self, other: &Builder) -> bool {
        let new_kinds = other
            .ignored_kinds
            .keys()
            .filter(|k| !self.ignored_kinds.contains_key(*k))
            .count();
        other.warnings.is_empty()
            && other.string_ids.is_empty()
            && self.ignored_kinds.len() + new_kinds <= 64
    }

    /// Merge `other` (the scan of the text right after this one's) when it merges
    /// exactly; false (nothing changed) when it does not.
    fn absorb(&mut self, other: Builder) -> bool {
        if !self.can_absorb(&other) {
            return false;
        }
        // Moved, not copied: a part's names are this builder's now.
        let names: Vec<u32> = other
            .names
            .names
            .into_iter()
            .map(|n| self.names.id_owned(n))
            .collect();
        let threads: Vec<u32> = other
            .threads
            .threads
            .iter()
            .map(|t| self.threads.id(None, t.pid, t.tid))
            .collect();
        let mut inputs = Vec::with_capacity(other.inputs.len());
        for (sig, flat) in other.inputs.into_iter().zip(other.flat_inputs) {
            let candidates = self
                .input_ids
                .entry(super::args::flat_hash(&flat))
                .or_default();
            let found = candidates
                .iter()
                .copied()
                .find(|&id| self.flat_inputs[id as usize] == flat);
            inputs.push(found.unwrap_or_else(|| {
                let id = self.inputs.len() as u32;
                self.inputs.push(sig);
                self.flat_inputs.push(flat);
                candidates.push(id);
                id
            }));
        }
        self.intervals.reserve_exact(other.intervals.len());
        self.intervals
            .extend(other.intervals.into_iter().map(|iv| super::Interval {
                thread: threads[iv.thread as usize],
                name: names[iv.name as usize],
                inputs: iv.inputs.map(|i| inputs[i as usize]),
                ..iv
            }));
        for (kind, n) in other.ignored_kinds {
            *self.ignored_kinds.entry(kind).or_insert(0) += n;
        }
        let (c, o) = (&mut self.counts, other.counts);
        c.events += o.events;
        c.op_events += o.op_events;
        c.ignored_events += o.ignored_events;
        c.ignored_fields += o.ignored_fields;
        c.malformed += o.malformed;
        self.sub_us_starts |= other.sub_us_starts;
        self.saw_events_array |= other.saw_events_array;
        if other.host.is_some() {
            self.host = other.host;
        }
        self.stopped_at = other.stopped_at;
        self.merged_parts += 1;
        true
    }
}
