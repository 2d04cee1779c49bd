//! Native reader of LTTng CTF trace directories (THAPI `iprof` PyTorch traces): finds
//! the trace directories under a root, parses their TSDL metadata, decodes every data
//! stream lazily and merges the streams in time order with a heap. `lttng_ust_pytorch`
//! op events go through the same pairing as the babeltrace2 text reader; other events
//! are counted and listed as ignored kinds.
//!
//! Layout accepted: a directory holding a `metadata` file, or any root above such
//! directories (`ust/uid/<uid>/64-bit/`, `ust/pid/<proc>-<pid>-<date>/64-bit/`, several
//! sessions): every trace directory found is read and all streams merged. Stream files
//! are every regular, non-hidden file beside `metadata`; `index/<stream>.idx` is used to
//! check the packets and to resynchronise after a damaged packet.
//!
//! Stream files are memory-mapped; each stream is decoded one event at a time (a heap
//! holds each stream's current event), and in `read_dir_intervals` the op events go in
//! batches to a second thread that pairs them, so decoding and pairing overlap.
//!
//! Errors (one line, naming the path relative to the root): no trace directory, an
//! unreadable file, metadata that does not parse, a packet cut short by the end of its
//! file. Warnings (the import goes on): discarded events, undecodable packets (the rest
//! of the packet is skipped), an index that disagrees with the packets.

pub mod decode;
pub mod stream;
pub mod tsdl;
pub mod writer;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use super::detect::TraceFormat;
use super::error::TraceError;
use super::intervals::{IntervalSet, TraceWarning, WarningLog};
use super::model::TraceProfile;
use super::pairing::{OpEventKind, Pairer};
use super::LttngEvent;
use decode::{Leaf, Value};
use stream::{parse_index, EventPos, StreamCursor, StreamIssue};
use tsdl::{Clock, Metadata, Type};

/// Directories deeper than this below the root are not searched.
const MAX_SEARCH_DEPTH: usize = 12;
/// At most this many directories are listed while searching (bounds hostile trees).
const MAX_SEARCH_DIRS: usize = 20_000;

/// One trace directory: its metadata and its stream files, read into memory once.
pub struct CtfTrace {
    /// Path relative to the root given by the user (`ust/uid/0/64-bit`), or `.`.
    pub rel: String,
    pub meta: Metadata,
    pub streams: Vec<StreamFile>,
    /// Per stream class: the clock its event timestamps are mapped to.
    pub clocks: Vec<ClockConv>,
    compiled: stream::Compiled,
}

pub struct StreamFile {
    /// Path relative to the root, for messages.
    pub rel: String,
    pub data: StreamBytes,
    pub index: Option<Vec<stream::IndexEntry>>,
}

/// A stream file's bytes: memory-mapped (no copy, pages shared with the page cache) or,
/// where mapping fails, read into memory.
pub enum StreamBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for StreamBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            StreamBytes::Mapped(m) => m,
            StreamBytes::Read(v) => v,
        }
    }
}

/// Map a stream file read-only, or read it when it cannot be mapped.
fn stream_bytes(path: &Path) -> std::io::Result<StreamBytes> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(StreamBytes::Read(Vec::new()));
    }
    // SAFETY: the map is read-only and private to this import. A finished LTTng trace is
    // not written any more; a file shrunk by another process while we read it would
    // fault (the same hazard as every mmap reader, babeltrace2's included).
    match unsafe { memmap2::MmapOptions::new().populate().map(&file) } {
        Ok(m) => {
            #[cfg(unix)]
            let _ = m.advise(memmap2::Advice::Sequential);
            Ok(StreamBytes::Mapped(m))
        }
        Err(_) => std::fs::read(path).map(StreamBytes::Read),
    }
}

/// A decoded event, borrowed from its stream's current state.
pub struct CtfEvent<'e, 'a> {
    /// Absolute ns (clock offset applied).
    pub ts_ns: i64,
    /// Raw clock cycles.
    pub cycles: u64,
    pub class_name: &'e str,
    pub trace: &'e CtfTrace,
    /// Index of `trace` in the slice given to [`for_each_event`].
    pub trace_index: usize,
    pub stream: &'e str,
    /// Byte offset of the event in its stream file.
    pub offset: u64,
    leaves: &'e [Leaf<'a>],
    pos: EventPos,
}

impl<'a> CtfEvent<'_, 'a> {
    /// A direct field of the stream or event context (`vpid`, `vtid`, ..).
    pub fn context(&self, name: &str) -> Option<Value<'a>> {
        let id = self.trace.meta.name_id(name)?;
        top(&self.leaves[self.pos.ctx_start..self.pos.payload_start], id)
    }
    /// A direct field of the payload (`name`, `overload_name`, ..).
    pub fn payload(&self, name: &str) -> Option<Value<'a>> {
        let id = self.trace.meta.name_id(name)?;
        top(&self.leaves[self.pos.payload_start..], id)
    }
    /// Names and values of the direct context and payload fields, in order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, Value<'a>)> + '_ {
        self.leaves[self.pos.ctx_start..]
            .iter()
            .filter(|l| l.top)
            .map(|l| (self.trace.meta.names[l.name as usize].as_str(), l.value))
    }
}

fn top<'a>(leaves: &[Leaf<'a>], id: u32) -> Option<Value<'a>> {
    leaves
        .iter()
        .find(|l| l.top && l.name == id)
        .map(|l| l.value)
}

fn ctf_err(message: String) -> TraceError {
    TraceError::Ctf(message)
}

/// The trace directories (holding a `metadata` file) at or below `root`, sorted.
pub fn find_trace_dirs(root: &Path) -> Result<Vec<PathBuf>, TraceError> {
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    let mut listed = 0usize;
    while let Some((dir, depth)) = stack.pop() {
        listed += 1;
        if listed > MAX_SEARCH_DIRS {
            break;
        }
        if dir.join("metadata").is_file() {
            found.push(dir);
            continue;
        }
        if depth >= MAX_SEARCH_DEPTH {
            continue;
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if dir == root => {
                return Err(ctf_err(format!("cannot list the directory: {e}")))
            }
            // A subdirectory we may not read is not a trace we can use; others may be.
            Err(_) => continue,
        };
        let mut subs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        subs.sort();
        for s in subs.into_iter().rev() {
            stack.push((s, depth + 1));
        }
    }
    found.sort();
    if found.is_empty() {
        return Err(ctf_err(
            "not a CTF trace directory: no `metadata` file in it or below it".into(),
        ));
    }
    Ok(found)
}

fn rel_to(root: &Path, p: &Path) -> String {
    match p.strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".into(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.display().to_string(),
    }
}

/// Read every trace directory under `root`: metadata parsed, stream files and indexes
/// read. Index problems are the warnings returned.
pub fn open_traces(root: &Path) -> Result<(Vec<CtfTrace>, Vec<TraceWarning>), TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, &mut warnings)?;
    Ok((traces, warnings.finish()))
}

fn open_traces_log(root: &Path, warnings: &mut WarningLog) -> Result<Vec<CtfTrace>, TraceError> {
    let mut traces = Vec::new();
    for dir in find_trace_dirs(root)? {
        let rel = rel_to(root, &dir);
        let meta_path = dir.join("metadata");
        let meta_rel = rel_to(root, &meta_path);
        let bytes = std::fs::read(&meta_path)
            .map_err(|e| ctf_err(format!("{meta_rel}: cannot read: {e}")))?;
        let text = tsdl::metadata_text(&bytes).map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
        let meta = tsdl::parse_metadata(&text).map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
        let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| ctf_err(format!("{rel}: cannot list: {e}")))?
            .filter_map(Result::ok)
            .filter(|e| {
                let n = e.file_name();
                let n = n.to_string_lossy();
                n != "metadata" && !n.starts_with('.')
            })
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        names.sort();
        let mut streams = Vec::new();
        for p in names {
            let srel = rel_to(root, &p);
            let data =
                stream_bytes(&p).map_err(|e| ctf_err(format!("{srel}: cannot read: {e}")))?;
            if data.is_empty() {
                continue;
            }
            let index = read_index(&dir, &p, &srel, data.len() as u64, warnings);
            streams.push(StreamFile {
                rel: srel,
                data,
                index,
            });
        }
        let clocks = (0..meta.streams.len())
            .map(|i| ClockConv::new(stream_clock(&meta, i)))
            .collect();
        let compiled = stream::Compiled::new(&meta);
        traces.push(CtfTrace {
            rel,
            meta,
            streams,
            clocks,
            compiled,
        });
    }
    Ok(traces)
}

/// `index/<stream>.idx` when present and consistent (sorted, inside the file).
fn read_index(
    dir: &Path,
    stream: &Path,
    srel: &str,
    file_len: u64,
    warnings: &mut WarningLog,
) -> Option<Vec<stream::IndexEntry>> {
    let name = stream.file_name()?;
    let mut idx_name = name.to_os_string();
    idx_name.push(".idx");
    let path = dir.join("index").join(idx_name);
    let bytes = std::fs::read(&path).ok()?;
    let checked = parse_index(&bytes).and_then(|entries| {
        let mut prev_end = 0u64;
        for (i, e) in entries.iter().enumerate() {
            let end = e.offset.checked_add(e.packet_size / 8);
            if e.offset < prev_end
                || e.packet_size % 8 != 0
                || e.content_size > e.packet_size
                || end.is_none_or(|end| end > file_len)
            {
                return Err(format!("entry {i} does not fit the stream file"));
            }
            prev_end = end.unwrap_or(0);
        }
        Ok(entries)
    });
    match checked {
        Ok(e) => Some(e),
        Err(why) => {
            warnings.add("index_invalid", || {
                format!("{srel}: index file not used ({why}); packets read from their headers")
            });
            None
        }
    }
}

/// The clock a stream class's event timestamps are mapped to.
fn stream_clock(meta: &Metadata, stream_class: usize) -> Clock {
    let mut found = None;
    if let Some(h) = meta.streams.get(stream_class).and_then(|s| s.event_header) {
        let mut todo = vec![h];
        let mut seen = 0;
        while let Some(t) = todo.pop() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            match &meta.types[t as usize] {
                Type::Int(i) if i.clock.is_some() => {
                    found = i.clock;
                    break;
                }
                Type::Struct { fields, .. } => todo.extend(fields.iter().map(|f| f.ty)),
                Type::Variant { options, .. } => todo.extend(options.iter().map(|f| f.ty)),
                _ => {}
            }
        }
    }
    let idx = found.map_or(0, usize::from);
    meta.clocks.get(idx).cloned().unwrap_or(Clock {
        name: "cycles".into(),
        freq: 1_000_000_000,
        offset_s: 0,
        offset: 0,
    })
}

/// Absolute ns of `cycles`: offset_s seconds plus (offset + cycles) / freq, floored.
pub fn cycles_to_ns(c: &Clock, cycles: u64) -> i64 {
    let cyc = i128::from(c.offset) + i128::from(cycles);
    let ns = if c.freq == 1_000_000_000 {
        cyc
    } else {
        (cyc * 1_000_000_000).div_euclid(i128::from(c.freq))
    };
    let total = i128::from(c.offset_s) * 1_000_000_000 + ns;
    total.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// A clock with its cycles-to-ns conversion; a 1 GHz clock (LTTng's monotonic) adds a
/// precomputed base in i64.
pub struct ClockConv {
    pub clock: Clock,
    base_1ghz: Option<i64>,
}

impl ClockConv {
    pub fn new(clock: Clock) -> ClockConv {
        let base = i128::from(clock.offset_s) * 1_000_000_000 + i128::from(clock.offset);
        let base_1ghz = (clock.freq == 1_000_000_000)
            .then(|| i64::try_from(base).ok())
            .flatten();
        ClockConv { clock, base_1ghz }
    }

    #[inline]
    pub fn to_ns(&self, cycles: u64) -> i64 {
        if let (Some(b), Ok(c)) = (self.base_1ghz, i64::try_from(cycles)) {
            if let Some(ns) = b.checked_add(c) {
                return ns;
            }
        }
        cycles_to_ns(&self.clock, cycles)
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

impl Source<'_> {
    fn advance(&mut self, warnings: &mut WarningLog) -> Result<(), TraceError> {
        let r = self.cursor.next_event();
        if !self.cursor.issues.is_empty() {
            self.drain_issues(warnings);
        }
        self.cur = r.map_err(|m| ctf_err(format!("{}: {m}", self.stream.rel)))?;
        if let Some(ev) = &self.cur {
            if let Some(c) = self.trace.clocks.get(ev.stream_class) {
                self.ts = c.to_ns(ev.cycles);
            }
        }
        Ok(())
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
    for_each_event_log(traces, &mut warnings, f)?;
    Ok(warnings.finish())
}

fn for_each_event_log<'a>(
    traces: &'a [CtfTrace],
    warnings: &mut WarningLog,
    mut f: impl FnMut(&CtfEvent<'_, 'a>),
) -> Result<(), TraceError> {
    let mut sources: Vec<Source<'_>> = Vec::new();
    for (ti, t) in traces.iter().enumerate() {
        for s in &t.streams {
            sources.push(Source {
                trace: t,
                trace_index: ti,
                stream: s,
                cursor: StreamCursor::new(&t.meta, &t.compiled, &s.data, s.index.clone()),
                cur: None,
                ts: 0,
            });
        }
    }
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, s) in sources.iter_mut().enumerate() {
        s.advance(warnings)?;
        if s.cur.is_some() {
            heap.push(Reverse((s.ts, i)));
        }
    }
    // The stream on top is advanced in place (one sift instead of a pop and a push).
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((_, i)) = *top;
        let s = &mut sources[i];
        if let Some(pos) = s.cur {
            let ev = CtfEvent {
                ts_ns: s.ts,
                cycles: pos.cycles,
                class_name: &s.trace.meta.events[pos.class].name,
                trace: s.trace,
                trace_index: s.trace_index,
                stream: &s.stream.rel,
                offset: pos.offset,
                leaves: &s.cursor.leaves,
                pos,
            };
            f(&ev);
        }
        s.advance(warnings)?;
        if s.cur.is_some() {
            *top = Reverse((s.ts, i));
        } else {
            std::collections::binary_heap::PeekMut::pop(top);
        }
    }
    Ok(())
}

fn text(v: Option<Value<'_>>) -> Option<std::borrow::Cow<'_, str>> {
    match v? {
        Value::S(b) => Some(match std::str::from_utf8(b) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => String::from_utf8_lossy(b),
        }),
        _ => None,
    }
}

/// The op events of a CTF directory, in time order (for tests and tools).
pub fn read_op_events(root: &Path) -> Result<(Vec<LttngEvent>, Vec<TraceWarning>), TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, &mut warnings)?;
    let mut out = Vec::new();
    let mut n = 0usize;
    for_each_event_log(&traces, &mut warnings, |ev| {
        n += 1;
        let Some(kind) = OpEventKind::of_event(ev.class_name) else {
            return;
        };
        out.push(LttngEvent {
            ts_ns: ev.ts_ns,
            kind,
            host: ev.trace.meta.env_str("hostname").map(str::to_string),
            vpid: ev.context("vpid").and_then(|v| v.as_i64()).unwrap_or(-1),
            vtid: ev.context("vtid").and_then(|v| v.as_i64()).unwrap_or(-1),
            name: text(ev.payload("name")).unwrap_or_default().into_owned(),
            overload_name: text(ev.payload("overload_name")).map(|c| c.into_owned()),
            line: n,
        });
    })?;
    Ok((out, warnings.finish()))
}

/// An op event on its way from the decoding thread to the pairing thread.
struct OpRec<'a> {
    kind: OpEventKind,
    ts: i64,
    trace: u32,
    pid: i64,
    tid: i64,
    name: &'a [u8],
    overload: Option<&'a [u8]>,
    ordinal: u64,
}

const BATCH: usize = 4096;

fn utf8(b: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(b) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(b),
    }
}

/// The reader stage for a CTF directory: op events paired into intervals.
pub fn read_dir_intervals(root: &Path) -> Result<IntervalSet, TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, &mut warnings)?;
    // Per trace: name ids of the fields the pairing needs, and a counter per event class.
    struct Ids {
        vpid: Option<u32>,
        vtid: Option<u32>,
        name: Option<u32>,
        overload: Option<u32>,
        host: Option<String>,
        ignored: Vec<u64>,
    }
    let mut ids: Vec<Ids> = traces
        .iter()
        .map(|t| Ids {
            vpid: t.meta.name_id("vpid"),
            vtid: t.meta.name_id("vtid"),
            name: t.meta.name_id("name"),
            overload: t.meta.name_id("overload_name"),
            host: t.meta.env_str("hostname").map(str::to_string),
            ignored: vec![0; t.meta.events.len()],
        })
        .collect();
    let kinds: Vec<Vec<Option<OpEventKind>>> = traces
        .iter()
        .map(|t| {
            t.meta
                .events
                .iter()
                .map(|e| OpEventKind::of_event(&e.name))
                .collect()
        })
        .collect();
    let hosts: Vec<Option<String>> = ids.iter().map(|i| i.host.clone()).collect();
    let mut counts = super::ImportCounts::default();
    let mut missing_ctx = 0u64;
    let mut no_name = 0u64;
    // Two stages on two threads: this one decodes and merges the streams, the other
    // pairs op events (string interning is about half the work). Batches go through a
    // bounded channel and come back empty for reuse, so memory stays flat.
    let mut decoded = Ok(());
    let paired = std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<OpRec<'_>>>(4);
        let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<OpRec<'_>>>();
        let hosts = &hosts;
        let worker = scope.spawn(move || {
            let mut pairer = Pairer::default();
            for mut batch in rx {
                for r in &batch {
                    let name = utf8(r.name);
                    let overload = r.overload.map(utf8);
                    pairer.event(
                        r.kind,
                        r.ts,
                        hosts[r.trace as usize].as_deref(),
                        r.pid,
                        r.tid,
                        &name,
                        overload.as_deref().unwrap_or(""),
                        r.ordinal as usize,
                    );
                }
                batch.clear();
                let _ = back_tx.send(batch);
            }
            pairer
        });
        let mut batch: Vec<OpRec<'_>> = Vec::with_capacity(BATCH);
        decoded = for_each_event_log(&traces, &mut warnings, |ev| {
            counts.events += 1;
            let ti = ev.trace_index;
            let Some(kind) = kinds[ti][ev.pos.class] else {
                ids[ti].ignored[ev.pos.class] += 1;
                counts.ignored_events += 1;
                return;
            };
            let id = &ids[ti];
            let (mut pid, mut tid, mut name, mut overload) = (None, None, None, None);
            for l in &ev.leaves[ev.pos.ctx_start..] {
                if !l.top {
                    continue;
                }
                let n = Some(l.name);
                if n == id.vpid {
                    pid = l.value.as_i64();
                } else if n == id.vtid {
                    tid = l.value.as_i64();
                } else if n == id.name {
                    name = Some(l.value);
                } else if n == id.overload {
                    overload = Some(l.value);
                } else {
                    counts.ignored_fields += 1;
                }
            }
            let Some(Value::S(name)) = name else {
                no_name += 1;
                counts.malformed += 1;
                return;
            };
            if pid.is_none() || tid.is_none() {
                missing_ctx += 1;
            }
            batch.push(OpRec {
                kind,
                ts: ev.ts_ns,
                trace: ti as u32,
                pid: pid.unwrap_or(-1),
                tid: tid.unwrap_or(-1),
                name,
                overload: match overload {
                    Some(Value::S(o)) => Some(o),
                    _ => None,
                },
                ordinal: counts.events,
            });
            if batch.len() == BATCH {
                let next = back_rx
                    .try_recv()
                    .unwrap_or_else(|_| Vec::with_capacity(BATCH));
                let _ = tx.send(std::mem::replace(&mut batch, next));
            }
        });
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        drop(tx);
        worker.join()
    });
    decoded?;
    let mut pairer =
        paired.map_err(|_| TraceError::Ctf("internal error: the pairing thread stopped".into()))?;
    if no_name > 0 {
        warnings.add("malformed", || {
            format!("{no_name} op events without a `name` string field; skipped")
        });
    }
    if missing_ctx > 0 {
        warnings.add("missing_context", || {
            format!("{missing_ctx} op events without vpid/vtid context; put on thread -1")
        });
    }
    let mut ignored: Vec<(String, u64)> = Vec::new();
    for (t, id) in traces.iter().zip(&ids) {
        for (e, &n) in t.meta.events.iter().zip(&id.ignored) {
            if n == 0 {
                continue;
            }
            match ignored.iter_mut().find(|(k, _)| *k == e.name) {
                Some((_, c)) => *c += n,
                None => ignored.push((e.name.clone(), n)),
            }
        }
    }
    if !ignored.is_empty() {
        ignored.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let total: u64 = ignored.iter().map(|(_, n)| n).sum();
        let list = ignored
            .iter()
            .map(|(k, n)| format!("{k} ({n})"))
            .collect::<Vec<_>>()
            .join(", ");
        warnings.add("ignored_events", || {
            format!("{total} events of other kinds ignored: {list}")
        });
    }
    if pairer.counts.op_events == 0 {
        return Err(TraceError::NoEvents(format!(
            "{} events in {} trace director{}, none of them lttng_ust_pytorch:op_entry/op_exit",
            counts.events,
            traces.len(),
            if traces.len() == 1 { "y" } else { "ies" }
        )));
    }
    counts.op_events = pairer.counts.op_events;
    pairer.counts = counts;
    let mut set = pairer.finish();
    // The pairing names positions `line N`; in a CTF trace N is the event's ordinal.
    for w in &mut set.warnings {
        if let Some(rest) = w.message.strip_prefix("line ") {
            w.message = format!("event {rest}");
        }
    }
    let mut all = warnings.finish();
    all.append(&mut set.warnings);
    set.warnings = all;
    set.format = Some(TraceFormat::CtfDir);
    Ok(set)
}

/// Import a CTF trace directory into the trace model.
pub fn load_dir(root: &Path) -> Result<TraceProfile, TraceError> {
    read_dir_intervals(root).map(|set| TraceProfile::build(set, &root.display().to_string()))
}
