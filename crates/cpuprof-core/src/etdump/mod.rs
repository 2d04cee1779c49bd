//! ETDump reader: bytes of a size-prefixed `ED00` flatbuffer -> typed runs and profile events.
//!
//! No statistics here; attribution and stats live in `crate::profile`.

mod checked;
mod clock;
mod error;
mod event;
/// flatc output for `assets/schema/etdump.fbs`. Public so tests and benches can build
/// dumps with the flatbuffers builder; not a stable API.
#[allow(clippy::all, unused_imports, dead_code, non_camel_case_types, mismatched_lifetime_syntaxes)]
#[rustfmt::skip]
#[doc(hidden)]
pub mod generated;
mod header;
mod names;
mod reader;
mod shape;
mod stream;

pub use clock::{convert_events_to_ns, duration_ticks, Plausibility, TimeUnit};
pub use error::EtDumpError;
pub use names::{NameId, NameTable};
pub use reader::{parse, parse_checked_only, read_file, shape_coverage};
pub use stream::{parse_streamed, run_count, RunChunk, StreamEnd};

use std::ops::Range;

/// One decoded ETDump file.
#[derive(Debug, Clone, Default)]
pub struct EtDump {
    /// `ETDump.version` (0 when absent, as written by the runtime).
    pub version: u32,
    /// `RunData` blocks in file order (`Default`, then one `Execute` per execution).
    pub blocks: Vec<RunBlock>,
    /// Profile events of every block, in file order; blocks index into it.
    pub events: Vec<ProfileEvent>,
    /// Interned event names and delegate id strings.
    pub names: NameTable,
    /// Pool of all `delegate_debug_metadata` bytes; events hold ranges into it.
    pub metadata: Vec<u8>,
    /// Allocation and debug events: counted, not decoded (the profiler does not use them).
    pub skipped: SkippedEvents,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkippedEvents {
    pub allocation: usize,
    pub debug: usize,
    /// `Event` tables with no member set.
    pub empty: usize,
}

/// One `RunData` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunBlock {
    /// Block name; empty when absent. The names the runtime writes (`Execute`,
    /// `Default`) are not copied: a dump holds one block per run.
    pub name: std::borrow::Cow<'static, str>,
    /// -1 when absent (the schema default).
    pub bundled_input_index: i32,
    /// Range of this block's profile events in `EtDump::events`.
    pub events: Range<usize>,
    pub allocation_events: usize,
    pub debug_events: usize,
}

/// How a profile event is identified: by `name` (framework and kernel events) or by a
/// delegate debug id (events logged by a delegate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelegateId {
    Int(i32),
    Str(NameId),
}

/// One `ProfileEvent`, with schema defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileEvent {
    /// `name`; None when absent (always absent on delegate events).
    pub name: Option<NameId>,
    /// `delegate_debug_id_str` if non-empty, else `delegate_debug_id_int` if not -1.
    pub delegate_id: Option<DelegateId>,
    pub chain_index: i32,
    /// -1 when absent.
    pub instruction_id: i32,
    pub start_ticks: u64,
    pub end_ticks: u64,
    /// Range in `EtDump::metadata`; None when the vector is absent, empty range when
    /// present but zero-length.
    pub metadata: Option<ByteSpan>,
}

/// A range of bytes in `EtDump::metadata` (Copy, unlike `Range`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ByteSpan {
    pub start: u32,
    pub end: u32,
}

impl EtDump {
    pub fn block_events(&self, block: &RunBlock) -> &[ProfileEvent] {
        &self.events[block.events.clone()]
    }

    /// The label the Inspector uses: the delegate id for delegate events, else the name.
    pub fn label(&self, event: &ProfileEvent) -> std::borrow::Cow<'_, str> {
        event_label(&self.names, event)
    }

    pub fn name(&self, event: &ProfileEvent) -> Option<&str> {
        event.name.map(|n| self.names.get(n))
    }

    pub fn metadata_bytes(&self, event: &ProfileEvent) -> Option<&[u8]> {
        event
            .metadata
            .as_ref()
            .map(|r| &self.metadata[r.start as usize..r.end as usize])
    }
}

/// [`EtDump::label`] with the names in `names`.
pub fn event_label<'n>(names: &'n NameTable, event: &ProfileEvent) -> std::borrow::Cow<'n, str> {
    match event.delegate_id {
        Some(DelegateId::Str(id)) => names.get(id).into(),
        Some(DelegateId::Int(i)) => i.to_string().into(),
        None => event.name.map(|n| names.get(n)).unwrap_or("").into(),
    }
}
