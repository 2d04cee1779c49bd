//! Native reader of LTTng CTF trace directories (THAPI `iprof` PyTorch traces): finds
//! the trace directories under a root, parses their TSDL metadata, decodes every data
//! stream packet by packet and merges the streams in time order with a heap.
//! `lttng_ust_pytorch` op events go through the same pairing as the babeltrace2 text
//! reader; other events are counted and listed as ignored kinds.
//!
//! Where traces are looked for ([`find_trace_dirs`]; docs/formats.md, "LTTng CTF trace
//! directories"): as babeltrace2 finds them, every folder at or below the root that holds a `metadata`
//! file starting like CTF metadata (a session's `kernel/` and `ust/...`, rotation chunks,
//! `archives/<chunk>/...`, a folder of sessions), bounded: [`MAX_SEARCH_DEPTH`] levels,
//! [`MAX_SEARCH_ENTRIES`] directory entries, [`MAX_TRACE_DIRS`] traces, and no file is
//! opened except the first bytes of a `metadata`. When several are read (or one below
//! where a session's layout puts it) a `traces_read` warning names each with its event
//! count. A folder that holds no trace is one error line saying what it holds instead
//! (ETDumps: run `--watch`).
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
//! events whose time overflows with their clock (skipped, counted), the traces read
//! (named with their event counts), metadata attributes this reader does not know.

mod clock;
pub mod decode;
pub mod flat;
mod merge;
mod open;
mod ops;
mod search;
pub mod stream;
pub mod tsdl;

use std::path::Path;

use super::error::TraceError;
use super::intervals::{TraceWarning, WarningLog};
use super::pairing::OpEventKind;
use super::LttngEvent;
use crate::input::Input;
pub use clock::{cycles_to_ns, cycles_to_ns_checked, ClockConv};
use decode::{Leaf, Value};
pub use merge::for_each_event;
use merge::for_each_event_log;
pub use open::open_traces;
use open::open_traces_log;
pub use ops::{load_dir, read_dir_intervals, tally_dir, CtfTally};
pub use search::{
    find_trace_dirs, trace_files, MAX_SEARCH_DEPTH, MAX_SEARCH_ENTRIES, MAX_TRACE_DIRS,
    MAX_TRACE_DIR_ENTRIES,
};
use stream::EventPos;
use tsdl::Metadata;

/// One trace directory: its metadata and its stream files.
pub struct CtfTrace {
    /// Path relative to the root given by the user (`ust/uid/0/64-bit`), or `.`.
    pub rel: String,
    /// Found in a folder below the root rather than where LTTng's layout puts a
    /// session's traces (a folder of sessions, rotation chunks): named when read.
    pub below_root: bool,
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

impl<'e, 'a> CtfEvent<'e, 'a> {
    /// The event `cursor` has just decoded at `pos`, of stream file `stream` of `trace`
    /// (the `trace_index`th), at `ts_ns`.
    #[inline]
    fn decoded(
        trace: &'e CtfTrace,
        trace_index: usize,
        stream: &'e str,
        cursor: &'e stream::StreamCursor<'a>,
        pos: EventPos,
        ts_ns: i64,
    ) -> Self {
        CtfEvent {
            ts_ns,
            cycles: pos.cycles,
            class_name: &trace.meta.events[pos.class].name,
            trace,
            trace_index,
            stream,
            offset: pos.offset,
            leaves: &cursor.leaves,
            pos,
            op: pos.flat.then_some(&cursor.op),
        }
    }
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
pub fn read_op_events(
    root: &Path,
    limit: u64,
) -> Result<(Vec<LttngEvent>, Vec<TraceWarning>), TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, limit, &mut warnings)?;
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
            vpid: ev
                .context("vpid")
                .and_then(|v| v.as_i64())
                .or_else(|| ev.trace.meta.env_int("vpid"))
                .unwrap_or(-1),
            vtid: ev.context("vtid").and_then(|v| v.as_i64()).unwrap_or(-1),
            name: text(ev.payload("name")).unwrap_or_default().into_owned(),
            overload_name: text(ev.payload("overload_name")).map(|c| c.into_owned()),
            line: n,
        });
    })?;
    Ok((out, warnings.finish()))
}
