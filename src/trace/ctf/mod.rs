//! Native reader of LTTng CTF trace directories (THAPI `iprof` PyTorch traces): finds
//! the trace directories under a root, parses their TSDL metadata, decodes every data
//! stream packet by packet and merges the streams in time order with a heap.
//! `lttng_ust_pytorch` op events go through the same pairing as the babeltrace2 text
//! reader; other events are counted and listed as ignored kinds.
//!
//! Where traces are looked for ([`find_trace_dirs`]; README "CTF trace directories"):
//! LTTng's layout only. The root (or a folder directly in it: a folder of sessions) is a
//! trace directory when it holds a `metadata` file that starts like CTF metadata, or an
//! LTTng session when it holds `ust/` or `kernel/`; in a session, `kernel/`,
//! `ust/uid/<uid>/<N>-bit/` and `ust/pid/<proc>-<pid>-<date>/[<N>-bit/]` are the trace
//! directories. Nothing deeper and nothing else is searched, at most
//! [`MAX_SEARCH_ENTRIES`] directory entries are looked at, and no file is opened except
//! the first bytes of a `metadata`. A folder that holds no trace is one error line
//! saying what it holds instead (ETDumps: run `--watch`).
//!
//! Stream files are the regular, non-hidden files beside `metadata` that start with the
//! packet magic (others are a warning and are not read further); `index/<stream>.idx` is
//! used to check the packets and to resynchronise after a damaged packet. Every file is
//! an input of its own to [`crate::input`]: `--max-input-size` applies to each, streams
//! are mapped (guarded against truncation, [`crate::input::map_input`]) and the pages of
//! decoded packets are released behind the decoder, so memory follows the model, not
//! the file sizes.
//!
//! Each stream is decoded one packet, then one event, at a time ([`stream::StreamCursor`];
//! a heap holds each stream's current event), and in `read_dir_intervals` the op events
//! go in batches to a second thread that pairs them, so decoding and pairing overlap
//! ([`ops`]; for `report --format tally`, [`tally_dir`] pairs each call straight into
//! its op's totals: no interval and no sample is kept).
//!
//! Errors (one line, naming the path relative to the root): no trace directory, an
//! unreadable or oversized file, metadata that does not parse or exceeds its budgets, a
//! packet cut short by the end of its file, a file changed while it was read, a clock
//! that puts every event outside the range of i64 ns. Warnings (the import goes on):
//! discarded events, undecodable packets (the rest of the packet is skipped), an index
//! that disagrees with the packets, files beside the metadata that are not streams,
//! events whose time overflows with their clock (skipped, counted), traces found in a
//! folder below the root rather than at it (named).

pub mod decode;
pub mod flat;
mod ops;
pub mod stream;
pub mod tsdl;
pub mod writer;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use super::error::TraceError;
use super::intervals::{TraceWarning, WarningLog};
use super::pairing::OpEventKind;
use super::LttngEvent;
use crate::input::{self, Input};
use decode::{Leaf, Value};
pub use ops::{load_dir, read_dir_intervals, tally_dir, CtfTally};
use stream::{parse_index, EventPos, StreamCursor, StreamIssue};
use tsdl::{Clock, Metadata, Type};

/// Folders of any name below the root that may be LTTng sessions or trace directories
/// (the root may be a folder of sessions, such as `lttng-traces/`). Below a session
/// only LTTng's own layout is followed.
pub const SESSION_SEARCH_LEVELS: usize = 1;
/// At most this many directory entries are looked at while searching (a big folder that
/// holds no trace costs this, not its size).
pub const MAX_SEARCH_ENTRIES: usize = 100_000;
/// At most this many trace directories are read.
pub const MAX_TRACE_DIRS: usize = 1_024;
/// At most this many entries in one trace directory (LTTng writes one stream file per
/// CPU and channel).
pub const MAX_TRACE_DIR_ENTRIES: usize = 16_384;

/// One trace directory: its metadata and its stream files.
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
    /// The file's bytes: mapped (no copy; pages released behind the decoder), or read
    /// where a map cannot be made or guarded.
    pub data: Input,
    pub index: Option<Vec<stream::IndexEntry>>,
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
    /// The fields of an event decoded by its flat plan (then `leaves` has its header
    /// only).
    op: Option<&'e flat::OpFields<'a>>,
}

impl<'a> CtfEvent<'_, 'a> {
    /// The op fields of an event decoded by its flat plan ([`flat::FlatPlan`]).
    pub fn op_fields(&self) -> Option<&flat::OpFields<'a>> {
        self.op
    }

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

/// Where a directory sits in LTTng's layout while searching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The root (0) or a folder in it: a trace directory, a session, or (the root only,
    /// see [`SESSION_SEARCH_LEVELS`]) a folder of those.
    Free(usize),
    /// `ust/`: `uid/`, `pid/`.
    Ust,
    UidList,
    /// `ust/uid/<uid>/`: `<N>-bit/` trace directories.
    Uid,
    PidList,
    /// `ust/pid/<proc>-<pid>-<date>/`: a trace directory, or `<N>-bit/` ones.
    Pid,
    /// `kernel/`, `<N>-bit/`: must hold the metadata.
    Trace,
}

/// What a directory search found.
#[derive(Default)]
struct Search {
    /// Trace directories, with their depth in free folders (0: the root or its session).
    found: Vec<(PathBuf, usize)>,
    /// Things where a metadata file belongs that are not one ("X/metadata is a FIFO").
    problems: Vec<String>,
    /// Whether a problem sits where LTTng's layout puts a trace (not in a free folder).
    layout_problem: bool,
    entries: usize,
    stopped: bool,
}

/// What a file that is not a regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

/// Whether the first bytes of the regular file `path` look like CTF metadata
/// (packetized, or TSDL text).
fn looks_like_metadata(path: &Path) -> bool {
    let mut head = Vec::with_capacity(256);
    let read = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 256), &mut head));
    read.is_ok() && tsdl::looks_like_metadata(&head)
}

impl Search {
    /// Subdirectories of `dir` (symlinks to directories followed), sorted by name;
    /// counts the entries looked at and stops at [`MAX_SEARCH_ENTRIES`].
    fn subdirs(&mut self, dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            if self.entries >= MAX_SEARCH_ENTRIES {
                self.stopped = true;
                break;
            }
            self.entries += 1;
            let Ok(entry) = entry else { continue };
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => entry.path().is_dir(),
                _ => false,
            };
            if is_dir {
                out.push((
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// `dir/metadata`: Some(true) CTF metadata (a trace directory), Some(false)
    /// something that is not (noted as a problem), None nothing there.
    fn metadata_at(&mut self, root: &Path, dir: &Path, in_layout: bool) -> Option<bool> {
        let path = dir.join("metadata");
        let problem = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {
                if looks_like_metadata(&path) {
                    return Some(true);
                }
                format!(
                    "{} is not CTF metadata (neither packetized, magic 0x75D11D57, nor TSDL text)",
                    rel_to(root, &path)
                )
            }
            Ok(m) => format!(
                "{} is {}, not a CTF metadata file (not opened)",
                rel_to(root, &path),
                kind_of(&m)
            ),
            Err(_) if std::fs::symlink_metadata(&path).is_ok() => {
                format!("{} is a symbolic link to nothing", rel_to(root, &path))
            }
            Err(_) => return None,
        };
        self.problems.push(problem);
        self.layout_problem |= in_layout;
        Some(false)
    }

    fn visit(&mut self, root: &Path, dir: &Path, level: Level) -> std::io::Result<()> {
        if self.stopped || self.found.len() >= MAX_TRACE_DIRS {
            return Ok(());
        }
        let free_depth = match level {
            Level::Free(d) => Some(d),
            _ => None,
        };
        if matches!(level, Level::Free(_) | Level::Pid | Level::Trace) {
            match self.metadata_at(root, dir, free_depth.is_none()) {
                Some(true) => {
                    self.found
                        .push((dir.to_path_buf(), free_depth.unwrap_or(0)));
                    return Ok(());
                }
                Some(false) if level == Level::Trace => return Ok(()),
                _ => {}
            }
        }
        if level == Level::Trace {
            return Ok(());
        }
        let subs = self.subdirs(dir)?;
        match level {
            Level::Free(d) => {
                let session = subs.iter().any(|(n, _)| n == "ust" || n == "kernel");
                for (name, path) in &subs {
                    let next = match name.as_str() {
                        // A session's traces count as found where the session is.
                        "ust" => Level::Ust,
                        "kernel" => Level::Trace,
                        _ if !session && d < SESSION_SEARCH_LEVELS => Level::Free(d + 1),
                        _ => continue,
                    };
                    let before = self.found.len();
                    // Only the root must be listable: a folder below it that we may not
                    // read is not a trace we can use.
                    let _ = self.visit(root, path, next);
                    for f in &mut self.found[before..] {
                        f.1 = f.1.max(d);
                    }
                }
            }
            Level::Ust => {
                for (name, path) in &subs {
                    let next = match name.as_str() {
                        "uid" => Level::UidList,
                        "pid" => Level::PidList,
                        _ => continue,
                    };
                    let _ = self.visit(root, path, next);
                }
            }
            Level::UidList | Level::PidList => {
                let next = if level == Level::UidList {
                    Level::Uid
                } else {
                    Level::Pid
                };
                for (_, path) in &subs {
                    let _ = self.visit(root, path, next);
                }
            }
            Level::Uid | Level::Pid => {
                for (name, path) in &subs {
                    if name.ends_with("-bit") {
                        let _ = self.visit(root, path, Level::Trace);
                    }
                }
            }
            Level::Trace => {}
        }
        Ok(())
    }
}

/// What a folder that holds no trace holds instead, judged by names only (nothing is
/// opened): ETDumps in it or one level down, else a count of files and folders.
fn describe_folder(root: &Path) -> String {
    let is_dump = |p: &Path| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("etdp") || e.eq_ignore_ascii_case("etdump"))
    };
    let (mut files, mut dirs, mut dumps, mut dumps_below) = (0usize, 0usize, 0usize, 0usize);
    let mut budget = MAX_SEARCH_ENTRIES;
    let mut subdirs = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root) {
        for e in rd.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                dirs += 1;
                subdirs.push(p);
            } else {
                files += 1;
                dumps += usize::from(is_dump(&p));
            }
        }
    }
    for d in subdirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            dumps_below += usize::from(is_dump(&e.path()));
        }
    }
    let shown = root.display();
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if dumps > 0 {
        format!(
            "it holds {dumps} ETDump{} (.etdp): open one by naming the file, or follow the folder as dumps land with `cpuprof-tui --watch {shown}`",
            s(dumps)
        )
    } else if dumps_below > 0 {
        format!(
            "its subfolders hold {dumps_below} ETDump{} (.etdp): open one by naming the file, or follow them as they land with `cpuprof-tui --watch {shown} --recursive`",
            s(dumps_below)
        )
    } else {
        format!(
            "it holds {files} file{} and {dirs} folder{}",
            s(files),
            s(dirs)
        )
    }
}

/// The trace directories (holding CTF `metadata`) at `root` or in LTTng's layout below
/// it (see the module doc), sorted. Err: one line saying what was found instead.
pub fn find_trace_dirs(root: &Path) -> Result<Vec<PathBuf>, TraceError> {
    search_trace_dirs(root).map(|(dirs, _)| dirs)
}

/// [`find_trace_dirs`], and the note to give when traces were found in folders below
/// the root (a folder of sessions) rather than at it.
fn search_trace_dirs(root: &Path) -> Result<(Vec<PathBuf>, Option<String>), TraceError> {
    let mut search = Search::default();
    if let Err(e) = search.visit(root, root, Level::Free(0)) {
        return Err(ctf_err(format!(
            "cannot list the directory: {}",
            input::io_message(&e)
        )));
    }
    if search.found.is_empty() || search.layout_problem {
        if let Some(first) = search.problems.first() {
            let n = search.problems.len();
            let more = if n > 1 {
                format!(" (and {} more like it)", n - 1)
            } else {
                String::new()
            };
            return Err(ctf_err(format!("{first}{more}")));
        }
        let stopped = if search.stopped {
            format!(" (stopped after looking at {MAX_SEARCH_ENTRIES} entries)")
        } else {
            String::new()
        };
        return Err(ctf_err(format!(
            "not a CTF trace directory: no LTTng trace in it (a `metadata` file, or a session's `ust/` or `kernel/`, in it or in a folder directly in it){stopped}; {}",
            describe_folder(root)
        )));
    }
    let below: Vec<String> = search
        .found
        .iter()
        .filter(|(_, depth)| *depth > 0)
        .map(|(d, _)| rel_to(root, d))
        .collect();
    let mut found: Vec<PathBuf> = search.found.into_iter().map(|(d, _)| d).collect();
    found.sort();
    let note = (!below.is_empty()).then(|| {
        let n = below.len();
        let list = below.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
        let rest = if n > 8 {
            format!(", and {} more", n - 8)
        } else {
            String::new()
        };
        format!(
            "{n} trace director{} found in folders below the root, read together: {list}{rest}",
            if n == 1 { "y" } else { "ies" }
        )
    });
    Ok((found, note))
}

/// Every file the CTF reader opens for `root`: each trace directory's `metadata`, the
/// files beside it, and its `index/` files (for `-o`: all of them are inputs). Empty
/// when `root` holds no trace.
pub fn trace_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in find_trace_dirs(root).unwrap_or_default() {
        for d in [dir.clone(), dir.join("index")] {
            if let Ok(rd) = std::fs::read_dir(&d) {
                out.extend(
                    rd.flatten()
                        .take(MAX_TRACE_DIR_ENTRIES)
                        .map(|e| e.path())
                        .filter(|p| p.is_file()),
                );
            }
        }
    }
    out
}

fn rel_to(root: &Path, p: &Path) -> String {
    match p.strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".into(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.display().to_string(),
    }
}

/// Read every trace directory under `root`: metadata parsed, stream files mapped and
/// indexes read. Index problems and skipped files are the warnings returned.
pub fn open_traces(root: &Path) -> Result<(Vec<CtfTrace>, Vec<TraceWarning>), TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, &mut warnings)?;
    Ok((traces, warnings.finish()))
}

/// Whether the packet header starts with a `magic` field (then every stream file does).
fn header_has_magic(meta: &Metadata) -> bool {
    match meta.packet_header.map(|t| &meta.types[t as usize]) {
        Some(Type::Struct { fields, .. }) => fields.first().is_some_and(|f| f.name == "magic"),
        _ => false,
    }
}

fn starts_with_packet_magic(bytes: &[u8]) -> bool {
    let m = stream::PACKET_MAGIC as u32;
    bytes.len() >= 4 && (bytes[..4] == m.to_le_bytes() || bytes[..4] == m.to_be_bytes())
}

/// The entries beside `dir/metadata` that may be streams: (path, type with symlinks
/// followed), sorted; `index/`, the metadata and hidden files left out.
fn trace_dir_entries(
    dir: &Path,
    rel: &str,
) -> Result<Vec<(PathBuf, Option<std::fs::Metadata>)>, TraceError> {
    let listing = std::fs::read_dir(dir)
        .map_err(|e| ctf_err(format!("{rel}: cannot list: {}", input::io_message(&e))))?;
    let mut out = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name == "metadata" || name == "index" || name.starts_with('.') {
            continue;
        }
        if out.len() >= MAX_TRACE_DIR_ENTRIES {
            return Err(ctf_err(format!(
                "{rel}: more than {MAX_TRACE_DIR_ENTRIES} entries beside the metadata; not an LTTng trace directory"
            )));
        }
        let path = e.path();
        let meta = std::fs::metadata(&path).ok();
        out.push((path, meta));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

fn open_traces_log(root: &Path, warnings: &mut WarningLog) -> Result<Vec<CtfTrace>, TraceError> {
    let (dirs, note) = search_trace_dirs(root)?;
    if let Some(note) = note {
        warnings.add("traces_below_root", || note);
    }
    let mut traces = Vec::new();
    for dir in dirs {
        let rel = rel_to(root, &dir);
        let meta_path = dir.join("metadata");
        let meta_rel = rel_to(root, &meta_path);
        let meta = {
            let read =
                input::read_input(&meta_path).map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
            let text = tsdl::metadata_text(&read.bytes)
                .map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
            tsdl::parse_metadata(&text).map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?
        };
        let magic = header_has_magic(&meta);
        let mut streams = Vec::new();
        for (p, file_meta) in trace_dir_entries(&dir, &rel)? {
            let srel = rel_to(root, &p);
            let Some(m) = file_meta else {
                warnings.add("not_a_stream", || {
                    format!("{srel} is a symbolic link to nothing; skipped")
                });
                continue;
            };
            if m.is_dir() {
                continue;
            }
            if !m.is_file() {
                let what = kind_of(&m);
                warnings.add("not_a_stream", || {
                    format!("{srel} is {what}, not a stream file; not opened")
                });
                continue;
            }
            if m.len() == 0 {
                continue;
            }
            let data = input::map_input(&p).map_err(|e| ctf_err(format!("{srel}: {e}")))?;
            if magic && !starts_with_packet_magic(&data.bytes) {
                let len = data.bytes.len();
                warnings.add("not_a_stream", || {
                    format!(
                        "{srel}: not a CTF stream file ({len} bytes, not starting with the packet magic 0xC1FC1FC1); skipped"
                    )
                });
                continue;
            }
            let index = read_index(&dir, &p, &srel, data.bytes.len() as u64, warnings);
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
    let unusable = |why: String, warnings: &mut WarningLog| {
        warnings.add("index_invalid", || {
            format!("{srel}: index file not used ({why}); packets read from their headers")
        });
        None
    };
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {}
        // Never opened: a FIFO would block the import.
        Ok(m) => return unusable(format!("it is {}", kind_of(&m)), warnings),
        Err(_) => return None,
    }
    let read = match input::read_input(&path) {
        Ok(r) => r,
        Err(e) => return unusable(e.to_string(), warnings),
    };
    let checked = parse_index(&read.bytes).and_then(|entries| {
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
        Err(why) => unusable(why, warnings),
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

/// Absolute ns of `cycles`: offset_s seconds plus (offset + cycles) / freq, floored;
/// clamped to the i64 range (see [`cycles_to_ns_checked`]).
pub fn cycles_to_ns(c: &Clock, cycles: u64) -> i64 {
    let total = exact_ns(c, cycles);
    total.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// [`cycles_to_ns`], or None when the time lies outside the i64 ns range (years 1678 to
/// 2262): a clock whose frequency or offset does not describe its cycles.
pub fn cycles_to_ns_checked(c: &Clock, cycles: u64) -> Option<i64> {
    i64::try_from(exact_ns(c, cycles)).ok()
}

fn exact_ns(c: &Clock, cycles: u64) -> i128 {
    let cyc = i128::from(c.offset) + i128::from(cycles);
    let ns = if c.freq == 1_000_000_000 {
        cyc
    } else {
        // |cyc| < 2^65 and 1e9 < 2^30: no i128 overflow.
        (cyc * 1_000_000_000).div_euclid(i128::from(c.freq.max(1)))
    };
    i128::from(c.offset_s) * 1_000_000_000 + ns
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
        self.try_to_ns(cycles)
            .unwrap_or_else(|| cycles_to_ns(&self.clock, cycles))
    }

    /// The time in ns, or None when it overflows i64 ([`cycles_to_ns_checked`]).
    #[inline]
    pub fn try_to_ns(&self, cycles: u64) -> Option<i64> {
        if let (Some(b), Ok(c)) = (self.base_1ghz, i64::try_from(cycles)) {
            if let Some(ns) = b.checked_add(c) {
                return Some(ns);
            }
        }
        cycles_to_ns_checked(&self.clock, cycles)
    }

    /// The clock in words, for messages.
    fn describe(&self) -> String {
        let c = &self.clock;
        format!(
            "clock `{}` (freq {} Hz, offset_s {}, offset {} cycles)",
            c.name, c.freq, c.offset_s, c.offset
        )
    }
}

/// Events skipped because their time overflows with their clock.
#[derive(Default)]
struct ClockOverflow {
    events: u64,
    /// The first: trace directory, clock in words, raw cycles.
    first: Option<(String, String, u64)>,
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
        overflow.events += 1;
        if overflow.first.is_none() {
            overflow.first = Some((self.trace.rel.clone(), c.describe(), cycles));
        }
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
fn check_streams_unchanged(traces: &[CtfTrace]) -> Result<(), TraceError> {
    for s in traces.iter().flat_map(|t| &t.streams) {
        s.data
            .check_unchanged()
            .map_err(|e| ctf_err(format!("{}: {e}", s.rel)))?;
    }
    Ok(())
}

/// The overflow warning, or the error when no event had a usable time.
fn report_overflow(
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
fn for_each_event_log<'a>(
    traces: &'a [CtfTrace],
    flat: Option<&'a [Vec<Option<flat::FlatPlan>>]>,
    warnings: &mut WarningLog,
    mut f: impl FnMut(&CtfEvent<'_, 'a>),
) -> Result<(), TraceError> {
    let mut kept = 0u64;
    let mut overflow = ClockOverflow::default();
    merge_events(traces, flat, warnings, &mut overflow, |ev| {
        kept += 1;
        f(ev)
    })?;
    check_streams_unchanged(traces)?;
    report_overflow(&overflow, kept, warnings)
}

fn merge_events<'a>(
    traces: &'a [CtfTrace],
    flat: Option<&'a [Vec<Option<flat::FlatPlan>>]>,
    warnings: &mut WarningLog,
    overflow: &mut ClockOverflow,
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
                op: pos.flat.then_some(&s.cursor.op),
            };
            f(&ev);
        }
        s.advance(warnings, overflow)?;
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
    for_each_event_log(&traces, None, &mut warnings, |ev| {
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
