//! A checked decoder for the tables of an ETDump that the profiler reads (`ETDump`,
//! `RunData`, `Event`, `ProfileEvent`): every read is bounds- and alignment-checked as it
//! is made, with exactly the rules of the flatbuffers crate's verifier (alignment relative
//! to the start of the size-prefixed buffer, vtable soffset and length, vector ranges,
//! UTF-8 and the null terminator of strings, the same table and apparent-size budgets),
//! so the verdict is the verifier's while the buffer is walked only once.
//!
//! Sub-tables we do not decode (`allocators`, `allocation_event`, `debug_event`) are
//! handed to the verifier itself. Nothing here uses the generated accessors.
//!
//! `tests/it/etdump_checked.rs` compares verdicts with the verifier on mutated dumps.

use std::borrow::Cow;
use std::ops::Range;

use flatbuffers::{
    ErrorTraceDetail, ForwardsUOffset, InvalidFlatbuffer, Vector, Verifiable, Verifier,
    VerifierOptions,
};

use super::generated::etdump as fb;
use super::EtDumpError;

/// Budgets scaled to the buffer: the verifier's default cap of 1M tables rejects real
/// dumps of a few tens of MB (two tables per event). A genuine buffer cannot hold more
/// tables than `len / 4` (each starts with a 4-byte soffset; flatcc and flatc share
/// vtables, never tables), so the cap only trips on offsets that revisit the same tables,
/// which is how a small malicious file would make decoding slow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    pub max_tables: usize,
    /// Bytes touched, counting shared vtables once per table: about 2x the buffer in
    /// genuine dumps.
    pub max_apparent_size: usize,
}

impl Limits {
    pub fn for_buffer(buf_len: usize) -> Self {
        Limits {
            max_tables: buf_len / 4 + 1024,
            max_apparent_size: buf_len.saturating_mul(16).saturating_add(1 << 20),
        }
    }

    /// The same budgets for the flatbuffers verifier (sub-tables, tests).
    pub fn verifier_options(self) -> VerifierOptions {
        VerifierOptions {
            max_depth: 64,
            max_tables: self.max_tables,
            max_apparent_size: self.max_apparent_size,
            ignore_missing_null_terminator: false,
        }
    }
}

/// One step of the path to a problem.
#[derive(Debug)]
pub(crate) enum Seg {
    Field(Cow<'static, str>),
    Index(usize),
}

/// A problem found while decoding: the verifier's error (for its message) and where,
/// innermost step first. Boxed: the happy path carries one pointer.
#[derive(Debug)]
pub(crate) struct Bad {
    err: InvalidFlatbuffer,
    trail: Vec<Seg>,
}

pub(crate) type CheckResult<T> = Result<T, Box<Bad>>;

impl Bad {
    #[cold]
    fn new(err: InvalidFlatbuffer) -> Box<Bad> {
        // An error from the verifier itself (sub-tables) carries its own trace.
        let trail = match &err {
            InvalidFlatbuffer::MissingRequiredField { error_trace, .. }
            | InvalidFlatbuffer::InconsistentUnion { error_trace, .. }
            | InvalidFlatbuffer::Utf8Error { error_trace, .. }
            | InvalidFlatbuffer::MissingNullTerminator { error_trace, .. }
            | InvalidFlatbuffer::Unaligned { error_trace, .. }
            | InvalidFlatbuffer::RangeOutOfBounds { error_trace, .. }
            | InvalidFlatbuffer::SignedOffsetOutOfBounds { error_trace, .. } => error_trace
                .as_ref()
                .iter()
                .map(|d| match d {
                    ErrorTraceDetail::TableField { field_name, .. } => {
                        Seg::Field(field_name.clone())
                    }
                    ErrorTraceDetail::VectorElement { index, .. } => Seg::Index(*index),
                    ErrorTraceDetail::UnionVariant { variant, .. } => {
                        Seg::Field(format!("<{variant}>").into())
                    }
                })
                .collect(),
            _ => Vec::new(),
        };
        Box::new(Bad { err, trail })
    }

    /// A reader error raised while decoding (the metadata pool overflowing).
    #[cold]
    pub fn from_etdump_error(e: EtDumpError) -> Box<Bad> {
        let text = match e {
            EtDumpError::Corrupt(m) | EtDumpError::NotEtDump(m) | EtDumpError::Io(m) => m,
            other => other.to_string(),
        };
        Box::new(Bad {
            err: InvalidFlatbuffer::MissingRequiredField {
                required: text.into(),
                error_trace: Default::default(),
            },
            trail: vec![Seg::Field("<pool>".into())],
        })
    }

    /// One line: the verifier's message, then where it happened as a field path from the
    /// root (`ETDump.run_data[1].events[7].profile_event.name`). Positions are file
    /// offsets.
    #[allow(clippy::boxed_local)] // errors travel boxed; unboxing first would copy
    pub fn into_error(self: Box<Bad>, root: &str) -> EtDumpError {
        if let (InvalidFlatbuffer::MissingRequiredField { required, .. }, Some(Seg::Field(f))) =
            (&self.err, self.trail.first())
        {
            if f == "<pool>" {
                return EtDumpError::Corrupt(required.to_string());
            }
        }
        let text = self.err.to_string();
        let message = text.lines().next().unwrap_or("").trim();
        if matches!(
            self.err,
            InvalidFlatbuffer::TooManyTables
                | InvalidFlatbuffer::ApparentSizeTooLarge
                | InvalidFlatbuffer::DepthLimitReached
        ) {
            return EtDumpError::Corrupt(format!(
                "flatbuffer verification failed: {message} (offsets revisit tables?)"
            ));
        }
        let mut path = String::from(root);
        for seg in self.trail.iter().rev() {
            match seg {
                Seg::Field(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Seg::Index(i) => path.push_str(&format!("[{i}]")),
            }
        }
        EtDumpError::Corrupt(format!(
            "flatbuffer verification failed at {path}: {message}"
        ))
    }
}

/// Adds path steps to an error on its way out.
pub(crate) trait Trail {
    fn at_field(self, name: &'static str) -> Self;
    fn at_index(self, index: usize) -> Self;
}

impl<T> Trail for CheckResult<T> {
    #[inline]
    fn at_field(self, name: &'static str) -> Self {
        self.map_err(|mut b| {
            b.trail.push(Seg::Field(Cow::Borrowed(name)));
            b
        })
    }
    #[inline]
    fn at_index(self, index: usize) -> Self {
        self.map_err(|mut b| {
            b.trail.push(Seg::Index(index));
            b
        })
    }
}

/// Checked reads from the size-prefixed buffer, with the verifier's budgets.
pub(crate) struct Cursor<'a> {
    buf: &'a [u8],
    limits: Limits,
    tables: usize,
    apparent: usize,
    /// For sub-tables we do not decode.
    options: VerifierOptions,
}

/// A table found valid: its position and its vtable's.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Table {
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(buf: &'a [u8], limits: Limits) -> Self {
        Cursor {
            buf,
            limits,
            tables: 0,
            apparent: 0,
            options: limits.verifier_options(),
        }
    }

    /// The size-prefixed buffer (for [`super::shape`], which reads what a shape proved).
    #[inline(always)]
    pub fn buf(&self) -> &'a [u8] {
        self.buf
    }

    /// Whether `(tables, apparent bytes)` more stay within the budgets.
    #[inline(always)]
    pub fn fits(&self, (tables, apparent): (usize, usize)) -> bool {
        self.tables + tables <= self.limits.max_tables
            && self.apparent + apparent <= self.limits.max_apparent_size
    }

    /// Counts what a fast visit read (checked by [`Cursor::fits`]).
    #[inline(always)]
    pub fn charge(&mut self, (tables, apparent): (usize, usize)) {
        self.tables += tables;
        self.apparent += apparent;
    }

    #[inline]
    fn aligned(&self, pos: usize, align: usize, ty: &'static str) -> CheckResult<()> {
        if pos % align == 0 {
            Ok(())
        } else {
            Err(Bad::new(InvalidFlatbuffer::Unaligned {
                position: pos,
                unaligned_type: Cow::Borrowed(ty),
                error_trace: Default::default(),
            }))
        }
    }

    #[inline]
    fn range(&mut self, pos: usize, size: usize) -> CheckResult<()> {
        let end = pos.saturating_add(size);
        if end > self.buf.len() {
            return Err(Bad::new(InvalidFlatbuffer::RangeOutOfBounds {
                range: pos..end,
                error_trace: Default::default(),
            }));
        }
        self.apparent += size;
        if self.apparent > self.limits.max_apparent_size {
            return Err(Bad::new(InvalidFlatbuffer::ApparentSizeTooLarge));
        }
        Ok(())
    }

    #[inline]
    fn bytes<const N: usize>(&mut self, pos: usize, ty: &'static str) -> CheckResult<[u8; N]> {
        self.aligned(pos, N, ty)?;
        self.range(pos, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(&self.buf[pos..pos + N]);
        Ok(out)
    }

    #[inline]
    fn u16_at(&mut self, pos: usize) -> CheckResult<u16> {
        self.bytes::<2>(pos, "u16").map(u16::from_le_bytes)
    }

    #[inline]
    fn u32_at(&mut self, pos: usize) -> CheckResult<u32> {
        self.bytes::<4>(pos, "u32").map(u32::from_le_bytes)
    }

    #[inline]
    fn i32_at(&mut self, pos: usize) -> CheckResult<i32> {
        self.bytes::<4>(pos, "i32").map(i32::from_le_bytes)
    }

    #[inline]
    fn u64_at(&mut self, pos: usize) -> CheckResult<u64> {
        self.bytes::<8>(pos, "u64").map(u64::from_le_bytes)
    }

    /// Follows the forward offset stored at `pos`.
    #[inline]
    fn follow(&mut self, pos: usize) -> CheckResult<usize> {
        Ok((self.u32_at(pos)? as usize).saturating_add(pos))
    }

    /// The table at `pos`: its soffset, vtable length and vtable range.
    #[inline]
    fn table(&mut self, pos: usize) -> CheckResult<Table> {
        let soffset = self.bytes::<4>(pos, "i32").map(i32::from_le_bytes)?;
        let vtable = if soffset > 0 {
            pos.checked_sub(soffset.unsigned_abs() as usize)
        } else {
            pos.checked_add(soffset.unsigned_abs() as usize)
        };
        let vtable = match vtable {
            Some(v) if v < self.buf.len() => v,
            _ => {
                return Err(Bad::new(InvalidFlatbuffer::SignedOffsetOutOfBounds {
                    soffset,
                    position: pos,
                    error_trace: Default::default(),
                }))
            }
        };
        let vtable_len = self.u16_at(vtable)? as usize;
        self.aligned(vtable.saturating_add(vtable_len), 2, "u16")?;
        self.range(vtable, vtable_len)?;
        self.tables += 1;
        if self.tables > self.limits.max_tables {
            return Err(Bad::new(InvalidFlatbuffer::TooManyTables));
        }
        Ok(Table {
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Position of field `slot` of `t`, if present.
    #[inline]
    fn field(&mut self, t: &Table, slot: u16) -> CheckResult<Option<usize>> {
        let slot = slot as usize;
        if slot < t.vtable_len {
            let offset = self.u16_at(t.vtable.saturating_add(slot))?;
            if offset > 0 {
                return Ok(Some(t.pos.saturating_add(offset as usize)));
            }
        }
        Ok(None)
    }

    #[inline]
    fn field_i32(&mut self, t: &Table, slot: u16, default: i32) -> CheckResult<i32> {
        match self.field(t, slot)? {
            Some(at) => self.i32_at(at),
            None => Ok(default),
        }
    }

    #[inline]
    fn field_u64(&mut self, t: &Table, slot: u16) -> CheckResult<u64> {
        match self.field(t, slot)? {
            Some(at) => self.u64_at(at),
            None => Ok(0),
        }
    }

    /// Byte range of the elements of the vector at `pos` (`elem` bytes each, aligned
    /// to `elem`).
    #[inline]
    fn vector(&mut self, pos: usize, elem: usize) -> CheckResult<Range<usize>> {
        let len = self.u32_at(pos)? as usize;
        let start = pos.saturating_add(4);
        self.aligned(start, elem, if elem == 1 { "u8" } else { "u32" })?;
        let size = len.saturating_mul(elem);
        self.range(start, size)?;
        Ok(start..start + size)
    }

    /// The bytes of the string whose offset is at `at`, with its null terminator
    /// checked. UTF-8 is checked by [`utf8`] (skipped for bytes equal to a name already
    /// checked).
    #[inline]
    pub fn string(&mut self, at: usize) -> CheckResult<&'a [u8]> {
        let pos = self.follow(at)?;
        let range = self.vector(pos, 1)?;
        let end = range.end;
        let bytes = &self.buf[range.clone()];
        if self.buf.get(end) != Some(&0) {
            // The verifier reports bad UTF-8 before a missing terminator.
            std::str::from_utf8(bytes).map_err(|error| {
                Bad::new(InvalidFlatbuffer::Utf8Error {
                    error,
                    range: range.clone(),
                    error_trace: Default::default(),
                })
            })?;
            return Err(Bad::new(InvalidFlatbuffer::MissingNullTerminator {
                range,
                error_trace: Default::default(),
            }));
        }
        Ok(bytes)
    }

    /// The bytes of the `[ubyte]` vector whose offset is at `at`.
    #[inline]
    pub fn byte_vector(&mut self, at: usize) -> CheckResult<&'a [u8]> {
        let pos = self.follow(at)?;
        let range = self.vector(pos, 1)?;
        Ok(&self.buf[range])
    }

    /// Hands the field at `at` (an offset to a `T`) to the flatbuffers verifier.
    fn verify_with_crate<T: Verifiable>(&mut self, at: usize) -> CheckResult<()> {
        let mut v = Verifier::new(&self.options, self.buf);
        T::run_verifier(&mut v, at).map_err(Bad::new)
    }
}

/// `bytes` (a string returned by [`Cursor::string`]) as UTF-8.
#[inline]
pub(crate) fn utf8<'a>(cur: &Cursor<'a>, bytes: &'a [u8]) -> CheckResult<&'a str> {
    std::str::from_utf8(bytes).map_err(|error| {
        let start = (bytes.as_ptr() as usize).wrapping_sub(cur.buf.as_ptr() as usize);
        Bad::new(InvalidFlatbuffer::Utf8Error {
            error,
            range: start..start + bytes.len(),
            error_trace: Default::default(),
        })
    })
}

/// The root table: `version` and the byte range of the `run_data` offsets.
pub(crate) struct Root {
    pub version: u32,
    pub run_data: Option<Range<usize>>,
}

pub(crate) fn root(cur: &mut Cursor<'_>) -> CheckResult<Root> {
    // Size prefix, then the offset to the root table.
    let pos = cur.follow(super::header::SIZE_PREFIX_LEN)?;
    let t = cur.table(pos)?;
    let version = match cur.field(&t, fb::ETDump::VT_VERSION)? {
        Some(at) => cur.u32_at(at).at_field("version")?,
        None => 0,
    };
    let run_data = match cur.field(&t, fb::ETDump::VT_RUN_DATA)? {
        Some(at) => Some(
            cur.follow(at)
                .and_then(|p| cur.vector(p, 4))
                .at_field("run_data")?,
        ),
        None => None,
    };
    Ok(Root { version, run_data })
}

/// A `RunData` table: field positions (strings and vectors are read by the caller).
pub(crate) struct RunData<'a> {
    pub name: Option<&'a str>,
    pub bundled_input_index: i32,
    /// Byte range of the `events` offsets.
    pub events: Option<Range<usize>>,
}

/// The RunData whose offset is at `at`; `allocators` is verified here.
pub(crate) fn run_data<'a>(cur: &mut Cursor<'a>, at: usize) -> CheckResult<RunData<'a>> {
    let pos = cur.follow(at)?;
    let t = cur.table(pos)?;
    let name = match cur.field(&t, fb::RunData::VT_NAME)? {
        Some(at) => {
            let bytes = cur.string(at).at_field("name")?;
            Some(utf8(cur, bytes).at_field("name")?)
        }
        None => None,
    };
    let bundled_input_index = cur
        .field_i32(&t, fb::RunData::VT_BUNDLED_INPUT_INDEX, -1)
        .at_field("bundled_input_index")?;
    if let Some(at) = cur.field(&t, fb::RunData::VT_ALLOCATORS)? {
        cur.verify_with_crate::<ForwardsUOffset<Vector<'_, ForwardsUOffset<fb::Allocator>>>>(at)
            .at_field("allocators")?;
    }
    let events = match cur.field(&t, fb::RunData::VT_EVENTS)? {
        Some(at) => Some(
            cur.follow(at)
                .and_then(|p| cur.vector(p, 4))
                .at_field("events")?,
        ),
        None => None,
    };
    Ok(RunData {
        name,
        bundled_input_index,
        events,
    })
}

/// An `Event` table: positions of its members' offsets.
pub(crate) struct Event {
    pub profile_event: Option<usize>,
    pub allocation_event: Option<usize>,
    pub debug_event: Option<usize>,
}

/// The Event whose offset is at `at` (its members are read by the caller: the profile
/// event by [`profile_event`], the others by [`unread_event_members`]).
#[inline]
pub(crate) fn event(cur: &mut Cursor<'_>, at: usize) -> CheckResult<Event> {
    let pos = cur.follow(at)?;
    let t = cur.table(pos)?;
    Ok(Event {
        profile_event: cur.field(&t, fb::Event::VT_PROFILE_EVENT)?,
        allocation_event: cur.field(&t, fb::Event::VT_ALLOCATION_EVENT)?,
        debug_event: cur.field(&t, fb::Event::VT_DEBUG_EVENT)?,
    })
}

/// Verifies the allocation and debug events of `event` (not decoded).
pub(crate) fn unread_event_members(cur: &mut Cursor<'_>, event: &Event) -> CheckResult<()> {
    if let Some(at) = event.allocation_event {
        cur.verify_with_crate::<ForwardsUOffset<fb::AllocationEvent>>(at)
            .at_field("allocation_event")?;
    }
    if let Some(at) = event.debug_event {
        cur.verify_with_crate::<ForwardsUOffset<fb::DebugEvent>>(at)
            .at_field("debug_event")?;
    }
    Ok(())
}

/// A `ProfileEvent` with scalar fields read (schema defaults applied) and the positions
/// of its strings and metadata offsets.
pub(crate) struct ProfileEventFields {
    pub name: Option<usize>,
    pub chain_index: i32,
    pub instruction_id: i32,
    pub delegate_debug_id_int: i32,
    pub delegate_debug_id_str: Option<usize>,
    pub delegate_debug_metadata: Option<usize>,
    pub start_time: u64,
    pub end_time: u64,
}

/// The ProfileEvent whose offset is at `at`. Strings and metadata are checked by the
/// caller as it reads them, before any later field.
#[inline]
pub(crate) fn profile_event(cur: &mut Cursor<'_>, at: usize) -> CheckResult<ProfileEventFields> {
    let pos = cur.follow(at)?;
    let t = cur.table(pos)?;
    Ok(ProfileEventFields {
        name: cur.field(&t, fb::ProfileEvent::VT_NAME)?,
        chain_index: cur
            .field_i32(&t, fb::ProfileEvent::VT_CHAIN_INDEX, 0)
            .at_field("chain_index")?,
        instruction_id: cur
            .field_i32(&t, fb::ProfileEvent::VT_INSTRUCTION_ID, -1)
            .at_field("instruction_id")?,
        delegate_debug_id_int: cur
            .field_i32(&t, fb::ProfileEvent::VT_DELEGATE_DEBUG_ID_INT, -1)
            .at_field("delegate_debug_id_int")?,
        delegate_debug_id_str: cur.field(&t, fb::ProfileEvent::VT_DELEGATE_DEBUG_ID_STR)?,
        delegate_debug_metadata: cur.field(&t, fb::ProfileEvent::VT_DELEGATE_DEBUG_METADATA)?,
        start_time: cur
            .field_u64(&t, fb::ProfileEvent::VT_START_TIME)
            .at_field("start_time")?,
        end_time: cur
            .field_u64(&t, fb::ProfileEvent::VT_END_TIME)
            .at_field("end_time")?,
    })
}
