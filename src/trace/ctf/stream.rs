//! One data stream file: packets (header, context, content and packet sizes), events
//! (header with compact/extended timestamps, stream and event contexts, payload), the
//! discarded-event counters, and the LTTng `index/*.idx` file checked against the packets.

use super::decode::{BitReader, ClockState, DecodeError, Decoder, Leaf, Program, Value};
use super::flat::{FlatPlan, OpFieldIds, OpFields};
use super::tsdl::{ByteOrder, Metadata, Type};

/// CTF packet header magic.
pub const PACKET_MAGIC: u64 = 0xC1FC_1FC1;
/// LTTng index file magic (big-endian on disk).
pub const INDEX_MAGIC: u32 = 0xC1F1_DCC1;

/// One entry of an LTTng index: where a packet is and how big (sizes in bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexEntry {
    pub offset: u64,
    pub packet_size: u64,
    pub content_size: u64,
}

/// Parse an `index/<stream>.idx` file: header (magic, major, minor, entry length), then
/// big-endian entries starting offset, packet_size, content_size. None when it does not
/// look like an index (the caller then walks the packets alone).
pub fn parse_index(bytes: &[u8]) -> Result<Vec<IndexEntry>, String> {
    let be32 = |o: usize| -> Option<u32> {
        bytes
            .get(o..o + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let be64 = |o: usize| -> Option<u64> {
        bytes.get(o..o + 8).map(|b| {
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            u64::from_be_bytes(w)
        })
    };
    if be32(0) != Some(INDEX_MAGIC) {
        return Err("bad magic".into());
    }
    let major = be32(4).unwrap_or(0);
    if major != 1 {
        return Err(format!("index version {major} is not 1"));
    }
    let entry_len = be32(12).unwrap_or(0) as usize;
    if !(24..=4096).contains(&entry_len) {
        return Err(format!("index entry length {entry_len} is implausible"));
    }
    let body = &bytes[16..];
    if body.len() % entry_len != 0 {
        return Err(format!(
            "index body of {} bytes is not a whole number of {entry_len}-byte entries",
            body.len()
        ));
    }
    let mut out = Vec::with_capacity(body.len() / entry_len);
    for i in 0..body.len() / entry_len {
        let o = 16 + i * entry_len;
        let (Some(offset), Some(packet_size), Some(content_size)) =
            (be64(o), be64(o + 8), be64(o + 16))
        else {
            return Err("index entry cut short".into());
        };
        out.push(IndexEntry {
            offset,
            packet_size,
            content_size,
        });
    }
    Ok(out)
}

/// A problem met while reading a stream. `Fatal` stops the import (the file is cut
/// short); `Packet` skips to the next packet with a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamIssue {
    Fatal(String),
    Packet { kind: &'static str, message: String },
}

/// One packet of a stream file, as its header and context describe it: where it is,
/// where its events end, its stream class and time range. A stream is decoded packet
/// by packet ([`StreamCursor::next_packet`], then [`StreamCursor::next_event_in_packet`]),
/// so a reader can order, skip or hand out whole packets by their time range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    /// Byte offset in the file.
    pub start: u64,
    /// Byte offset of the next packet.
    pub end: u64,
    /// Bits, absolute in the file: where the events end.
    pub content_end: u64,
    /// Index into `Metadata::streams`.
    pub stream_class: usize,
    /// `timestamp_begin` / `timestamp_end` of the packet context (stream clock cycles),
    /// when declared.
    pub ts_begin: Option<u64>,
    pub ts_end: Option<u64>,
}

/// Decoded pages of a mapped stream are released once this far behind the decoder (the
/// pairing thread still reads names from the latest batches: at most 13 batches of
/// 4096 events, ~1.6 MB of trace spread over the streams; a page released early is only
/// read again from the page cache). Per stream at most lag + step + one packet stay
/// resident, so a trace of many streams stays small too.
const RELEASE_LAG: u64 = 512 << 10;
/// ... in steps of at least this much (one `madvise` per step).
const RELEASE_STEP: u64 = 512 << 10;

/// The current event of a stream, pointing into the cursor's leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventPos {
    /// Cycles of the stream clock.
    pub cycles: u64,
    /// Index into `Metadata::events`.
    pub class: usize,
    /// Index into `Metadata::streams`.
    pub stream_class: usize,
    /// Byte offset of the event in the stream file.
    pub offset: u64,
    /// Leaves: `[0, ctx_start)` header, `[ctx_start, payload_start)` contexts,
    /// `[payload_start, ..)` payload.
    pub ctx_start: usize,
    pub payload_start: usize,
    /// Decoded by a [`FlatPlan`]: no leaves past the header, the fields are in
    /// [`StreamCursor::op`].
    pub flat: bool,
}

/// A trace's decoding programs and event-id table, built once from its metadata and
/// shared by all its streams.
pub struct Compiled {
    packet_header: Option<Program>,
    /// Per stream class: packet context, event header, event context.
    streams: Vec<[Option<Program>; 3]>,
    /// Per event class: context, payload.
    events: Vec<[Option<Program>; 2]>,
    /// (stream class, event id) -> event class index, for ids below a bound that keeps
    /// the tables no larger than a few entries per event class ...
    classes: Vec<Vec<Option<usize>>>,
    /// ... and for the rest (hostile or sparse ids).
    sparse_classes: std::collections::HashMap<(usize, u64), usize>,
    /// Stream class id -> index into `Metadata::streams`.
    stream_ids: std::collections::HashMap<u64, usize>,
    /// Per stream class: the event id when all its event classes have that one id (an
    /// event header without an id then means it).
    single_id: Vec<Option<u64>>,
    /// Per stream class: LTTng's event header decoded without the generic machinery.
    fast_headers: Vec<Option<FastHeader>>,
}

/// One integer field of a [`FastHeader`]: alignment mask, size, byte order.
#[derive(Debug, Clone, Copy)]
struct IntSpec {
    mask: u64,
    size: u32,
    order: ByteOrder,
}

impl IntSpec {
    #[inline(always)]
    fn read(&self, r: &mut BitReader<'_>) -> Result<u64, DecodeError> {
        let p = (r.pos + self.mask) & !self.mask;
        if p > r.end {
            return Err(DecodeError {
                bit: r.pos,
                what: "alignment padding runs past the end of the packet content".into(),
            });
        }
        r.pos = p;
        // Whole little-endian bytes at a byte boundary: read directly.
        if p % 8 == 0 && self.order == ByteOrder::Le && p + u64::from(self.size) <= r.end {
            let at = (p / 8) as usize;
            let b = &r.data[at..];
            let v = match self.size {
                8 => u64::from(b[0]),
                16 => u64::from(u16::from_le_bytes([b[0], b[1]])),
                32 => u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                64 => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
                _ => return r.read_bits(self.size, self.order),
            };
            r.pos += u64::from(self.size);
            return Ok(v);
        }
        r.read_bits(self.size, self.order)
    }
}

/// LTTng's event header (`event_header_compact` / `event_header_large`): an enum `id`
/// whose `compact` range holds the event id and selects a short clock-mapped
/// `timestamp`, and whose `extended` range selects a 32-bit `id` and a 64-bit
/// `timestamp`. Recognised from the metadata, decoded directly: the same bits as the
/// generic decoder reads, without variant lookups.
#[derive(Debug, Clone, Copy)]
struct FastHeader {
    align: u64,
    id: IntSpec,
    compact: (i128, i128),
    extended: (i128, i128),
    compact_align: u64,
    compact_ts: IntSpec,
    extended_align: u64,
    extended_id: IntSpec,
    extended_ts: IntSpec,
}

impl FastHeader {
    fn detect(meta: &Metadata, ty: u32) -> Option<FastHeader> {
        let spec = |t: &super::tsdl::IntType| IntSpec {
            mask: u64::from(t.align) - 1,
            size: t.size,
            order: t.order.unwrap_or(ByteOrder::Le),
        };
        let Type::Struct { fields, .. } = meta.types.get(ty as usize)? else {
            return None;
        };
        let [idf, vf] = fields.as_slice() else {
            return None;
        };
        let Type::Enum { int, mappings } = &meta.types[idf.ty as usize] else {
            return None;
        };
        if idf.name != "id" || int.signed || int.clock.is_some() {
            return None;
        }
        let Type::Variant { tag, options, .. } = &meta.types[vf.ty as usize] else {
            return None;
        };
        if *tag != idf.name_id || options.len() != 2 || mappings.len() != 2 {
            return None;
        }
        let range = |label: &str| {
            mappings
                .iter()
                .find(|m| m.label == label)
                .map(|m| (m.lo, m.hi))
        };
        let opt = |name: &str| options.iter().find(|o| o.name == name).map(|o| o.ty);
        let (compact, extended) = (range("compact")?, range("extended")?);
        let (ct, et) = (opt("compact")?, opt("extended")?);
        let Type::Struct { fields: cf, .. } = &meta.types[ct as usize] else {
            return None;
        };
        let Type::Struct { fields: ef, .. } = &meta.types[et as usize] else {
            return None;
        };
        let int_of =
            |f: &super::tsdl::Field, name: &str, clock: bool| match &meta.types[f.ty as usize] {
                Type::Int(i) if f.name == name && i.clock.is_some() == clock && !i.signed => {
                    Some(spec(i))
                }
                _ => None,
            };
        let [cts] = cf.as_slice() else {
            return None;
        };
        let [eid, ets] = ef.as_slice() else {
            return None;
        };
        Some(FastHeader {
            align: u64::from(meta.aligns[ty as usize].max(1)) - 1,
            id: spec(int),
            compact,
            extended,
            compact_align: u64::from(meta.aligns[ct as usize].max(1)) - 1,
            compact_ts: int_of(cts, "timestamp", true)?,
            extended_align: u64::from(meta.aligns[et as usize].max(1)) - 1,
            extended_id: int_of(eid, "id", false)?,
            extended_ts: int_of(ets, "timestamp", true)?,
        })
    }

    /// Decode the header, extend the clock, return the event id.
    #[inline(always)]
    fn decode(&self, r: &mut BitReader<'_>, clock: &mut ClockState) -> Result<u64, DecodeError> {
        r.align_mask(self.align)?;
        let id = self.id.read(r)?;
        let v = i128::from(id);
        if self.compact.0 <= v && v <= self.compact.1 {
            r.align_mask(self.compact_align)?;
            let ts = self.compact_ts.read(r)?;
            clock.extend(ts, self.compact_ts.size);
            Ok(id)
        } else if self.extended.0 <= v && v <= self.extended.1 {
            r.align_mask(self.extended_align)?;
            let eid = self.extended_id.read(r)?;
            let ts = self.extended_ts.read(r)?;
            clock.extend(ts, self.extended_ts.size);
            Ok(eid)
        } else {
            Err(DecodeError {
                bit: r.pos,
                what: format!("variant tag value {id} selects no option"),
            })
        }
    }
}

impl Compiled {
    /// Per event class: its flat plan (event context, context, payload), or None when
    /// those need the generic decoder (see [`FlatPlan::of`]).
    pub fn flat_plans(&self, meta: &Metadata, ids: &OpFieldIds) -> Vec<Option<FlatPlan>> {
        meta.events
            .iter()
            .zip(&self.events)
            .map(|(e, [ctx, payload])| {
                let stream = *self.stream_ids.get(&e.stream_id)?;
                let [_, _, event_ctx] = &self.streams[stream];
                FlatPlan::of(&[event_ctx.as_ref(), ctx.as_ref(), payload.as_ref()], ids)
            })
            .collect()
    }

    pub fn new(meta: &Metadata) -> Compiled {
        let dec = Decoder { meta };
        let prog = |t: Option<u32>| t.map(|t| dec.compile_root(t));
        let mut stream_ids = std::collections::HashMap::with_capacity(meta.streams.len());
        for (i, s) in meta.streams.iter().enumerate() {
            stream_ids.entry(s.id).or_insert(i);
        }
        // A dense table per stream class only up to 4 slots per event class of it (plus
        // 64): ids LTTng assigns are 0, 1, 2, ..; any other ids go to the hash map, so
        // hostile ids cannot make the tables big.
        let mut per_stream = vec![0u64; meta.streams.len()];
        for e in &meta.events {
            if let Some(&s) = stream_ids.get(&e.stream_id) {
                per_stream[s] += 1;
            }
        }
        let mut single_id: Vec<Option<Option<u64>>> = vec![None; meta.streams.len()];
        for e in &meta.events {
            if let Some(&s) = stream_ids.get(&e.stream_id) {
                single_id[s] = match single_id[s] {
                    None => Some(Some(e.id)),
                    Some(Some(id)) if id == e.id => Some(Some(id)),
                    _ => Some(None),
                };
            }
        }
        let single_id = single_id.into_iter().map(Option::flatten).collect();
        let mut classes: Vec<Vec<Option<usize>>> = vec![Vec::new(); meta.streams.len()];
        let mut sparse_classes = std::collections::HashMap::new();
        for (i, e) in meta.events.iter().enumerate() {
            let Some(&s) = stream_ids.get(&e.stream_id) else {
                continue;
            };
            let dense_max = (per_stream[s].saturating_mul(4) + 64).min(CLASS_TABLE_MAX);
            if e.id < dense_max {
                let t = &mut classes[s];
                if t.len() <= e.id as usize {
                    t.resize(e.id as usize + 1, None);
                }
                t[e.id as usize].get_or_insert(i);
            } else {
                sparse_classes.entry((s, e.id)).or_insert(i);
            }
        }
        Compiled {
            packet_header: prog(meta.packet_header),
            streams: meta
                .streams
                .iter()
                .map(|s| {
                    [
                        prog(s.packet_context),
                        prog(s.event_header),
                        prog(s.event_context),
                    ]
                })
                .collect(),
            events: meta
                .events
                .iter()
                .map(|e| [prog(e.context), prog(e.fields)])
                .collect(),
            classes,
            sparse_classes,
            stream_ids,
            single_id,
            fast_headers: meta
                .streams
                .iter()
                .map(|s| s.event_header.and_then(|h| FastHeader::detect(meta, h)))
                .collect(),
        }
    }
}

/// Reads one stream file event by event, lazily.
pub struct StreamCursor<'a> {
    meta: &'a Metadata,
    compiled: &'a Compiled,
    data: &'a [u8],
    index: Option<Vec<IndexEntry>>,
    /// Next packet to open (bytes).
    next_packet: u64,
    packet: Option<Packet>,
    packet_no: usize,
    pos: u64,
    /// Bytes before this are released ([`crate::input::release_mapped_pages`]).
    released_to: u64,
    clock: ClockState,
    discarded: u64,
    /// The previous packet's `packet_seq_num` (a gap means packets were lost).
    last_seq: Option<u64>,
    pub leaves: Vec<Leaf<'a>>,
    /// Per event class, the flat plans to decode with ([`Self::with_flat_plans`]).
    flat: Option<&'a [Option<FlatPlan>]>,
    /// The fields of the current event when it was decoded by its flat plan.
    pub op: OpFields<'a>,
    names: Names,
    /// Warnings met while advancing (drained by the caller).
    pub issues: Vec<StreamIssue>,
}

#[derive(Clone, Copy)]
struct Names {
    magic: Option<u32>,
    stream_id: Option<u32>,
    content_size: Option<u32>,
    packet_size: Option<u32>,
    timestamp_begin: Option<u32>,
    timestamp_end: Option<u32>,
    events_discarded: Option<u32>,
    packet_seq_num: Option<u32>,
    id: Option<u32>,
}

/// Event ids at or above this are looked up in a hash map instead of a table.
const CLASS_TABLE_MAX: u64 = 1 << 16;

impl<'a> StreamCursor<'a> {
    pub fn new(
        meta: &'a Metadata,
        compiled: &'a Compiled,
        data: &'a [u8],
        index: Option<Vec<IndexEntry>>,
    ) -> Self {
        let names = Names {
            magic: meta.name_id("magic"),
            stream_id: meta.name_id("stream_id"),
            content_size: meta.name_id("content_size"),
            packet_size: meta.name_id("packet_size"),
            timestamp_begin: meta.name_id("timestamp_begin"),
            timestamp_end: meta.name_id("timestamp_end"),
            events_discarded: meta.name_id("events_discarded"),
            packet_seq_num: meta.name_id("packet_seq_num"),
            id: meta.name_id("id"),
        };
        StreamCursor {
            meta,
            compiled,
            data,
            index,
            next_packet: 0,
            packet: None,
            packet_no: 0,
            pos: 0,
            released_to: 0,
            clock: ClockState::default(),
            discarded: 0,
            last_seq: None,
            leaves: Vec::new(),
            flat: None,
            op: OpFields::default(),
            names,
            issues: Vec::new(),
        }
    }

    /// Events of classes with a flat plan are decoded by it (their fields go to
    /// [`Self::op`], not to the leaves).
    pub fn with_flat_plans(mut self, plans: &'a [Option<FlatPlan>]) -> Self {
        self.flat = Some(plans);
        self
    }

    fn top(&self, from: usize, name: Option<u32>) -> Option<Value<'a>> {
        let name = name?;
        self.leaves[from..]
            .iter()
            .rev()
            .find(|l| l.top && l.name == name)
            .map(|l| l.value)
    }

    /// Decode the next event. Ok(None) at the end of the stream; Err for a fatal issue.
    #[inline]
    pub fn next_event(&mut self) -> Result<Option<EventPos>, String> {
        loop {
            if self.packet.is_some() {
                if let Some(ev) = self.next_event_in_packet() {
                    return Ok(Some(ev));
                }
            }
            if self.next_packet()?.is_none() {
                return Ok(None);
            }
        }
    }

    /// Close the current packet (if any) and open the next one: its header and context
    /// are decoded (damaged packets are skipped with an issue), its events are not.
    /// Ok(None) at the end of the stream; Err for a fatal issue (the file is cut short).
    pub fn next_packet(&mut self) -> Result<Option<Packet>, String> {
        self.close_packet();
        loop {
            if self.next_packet >= self.data.len() as u64 {
                return Ok(None);
            }
            match self.open_packet() {
                Ok(pk) => return Ok(Some(pk)),
                Err(StreamIssue::Fatal(m)) => return Err(m),
                Err(issue) => {
                    self.issues.push(issue);
                    if !self.skip_to_next_packet() {
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// The next event of the current packet; None when it has no more (or none is
    /// open). An undecodable event ends the packet with an issue.
    #[inline]
    pub fn next_event_in_packet(&mut self) -> Option<EventPos> {
        let pk = self.packet?;
        if self.pos >= pk.content_end {
            self.close_packet();
            return None;
        }
        match self.decode_event(pk) {
            Ok(ev) => Some(ev),
            Err(message) => {
                self.issues.push(StreamIssue::Packet {
                    kind: "undecodable_packet",
                    message,
                });
                self.close_packet();
                None
            }
        }
    }

    /// Done with the current packet: release the pages well behind it.
    fn close_packet(&mut self) {
        if let Some(pk) = self.packet.take() {
            self.release_before(pk.end);
        }
    }

    /// Let the pages of `[released_to, upto - RELEASE_LAG)` go (a map only; see
    /// [`crate::input::release_mapped_pages`]), in steps of [`RELEASE_STEP`].
    fn release_before(&mut self, upto: u64) {
        let to = upto.saturating_sub(RELEASE_LAG).min(self.data.len() as u64);
        if to >= self.released_to + RELEASE_STEP {
            crate::input::release_mapped_pages(&self.data[self.released_to as usize..to as usize]);
            self.released_to = to;
        }
    }

    /// After a packet whose own sizes cannot be trusted: the next index entry past it, or
    /// the next packet magic found by scanning. False when nothing follows.
    fn skip_to_next_packet(&mut self) -> bool {
        let here = self.next_packet;
        if let Some(ix) = &self.index {
            // Sorted by offset (checked when the index was read).
            if let Some(e) = ix.get(ix.partition_point(|e| e.offset <= here)) {
                self.next_packet = e.offset;
                return true;
            }
        }
        let magic_le = (PACKET_MAGIC as u32).to_le_bytes();
        let magic_be = (PACKET_MAGIC as u32).to_be_bytes();
        // Packets start at multiples of 8 bytes from the previous one; scanned window by
        // window so that a long damaged stretch is released as it is passed.
        let last = self.data.len().saturating_sub(3);
        let mut from = (here + 8) as usize;
        let phase = from % 8;
        let (le, be) = (
            memchr::memmem::Finder::new(&magic_le),
            memchr::memmem::Finder::new(&magic_be),
        );
        while from < last {
            let to = (from + RELEASE_STEP as usize).min(last);
            // Candidates anywhere in the window (vectorised), kept at packet offsets.
            let hay = &self.data[from..to + 3];
            let found = le
                .find_iter(hay)
                .chain(be.find_iter(hay))
                .map(|i| from + i)
                .filter(|i| i % 8 == phase && *i < to)
                .min();
            if let Some(i) = found {
                self.next_packet = i as u64;
                return true;
            }
            from += (to - from).div_ceil(8) * 8;
            self.release_before(from as u64);
        }
        self.next_packet = self.data.len() as u64;
        false
    }

    fn open_packet(&mut self) -> Result<Packet, StreamIssue> {
        let start = self.next_packet;
        let file_bits = self.data.len() as u64 * 8;
        let dec = Decoder { meta: self.meta };
        self.leaves.clear();
        let mut r = BitReader::new(self.data, start * 8, file_bits);
        let mut no_clock = ClockState {
            value: self.clock.value,
            update: false,
        };
        let bad = |what: String| StreamIssue::Packet {
            kind: "undecodable_packet",
            message: format!("packet at offset {start}: {what}; skipped"),
        };
        if let Some(h) = &self.compiled.packet_header {
            dec.run(h, &mut r, &mut self.leaves, &mut no_clock)
                .map_err(|e| {
                    if e.what.contains("past the end") {
                        StreamIssue::Fatal(format!(
                            "packet at offset {start} is truncated: the file ends inside its header"
                        ))
                    } else {
                        bad(e.what)
                    }
                })?;
        }
        if let Some(m) = self.top(0, self.names.magic) {
            if m.as_u64() != Some(PACKET_MAGIC) {
                return Err(bad(format!(
                    "bad packet magic 0x{:x}",
                    m.as_u64().unwrap_or(0)
                )));
            }
        }
        let stream_class = match self.top(0, self.names.stream_id).and_then(|v| v.as_u64()) {
            Some(id) => *self
                .compiled
                .stream_ids
                .get(&id)
                .ok_or_else(|| bad(format!("unknown stream id {id}")))?,
            None if self.meta.streams.len() == 1 => 0,
            None => return Err(bad("no stream_id and several stream classes".into())),
        };
        let ctx_from = self.leaves.len();
        if let Some(c) = &self.compiled.streams[stream_class][0] {
            dec.run(c, &mut r, &mut self.leaves, &mut no_clock)
                .map_err(|e| {
                    if e.what.contains("past the end") {
                        StreamIssue::Fatal(format!(
                            "packet at offset {start} is truncated: the file ends inside its context"
                        ))
                    } else {
                        bad(e.what)
                    }
                })?;
        }
        let remaining_bits = file_bits - start * 8;
        let packet_bits = self
            .top(ctx_from, self.names.packet_size)
            .and_then(|v| v.as_u64());
        let content_bits = self
            .top(ctx_from, self.names.content_size)
            .and_then(|v| v.as_u64());
        let (packet_bits, content_bits) = match (packet_bits, content_bits) {
            (Some(p), Some(c)) => (p, c),
            (Some(p), None) => (p, p),
            (None, Some(c)) => (remaining_bits.max(c), c),
            (None, None) => (remaining_bits, remaining_bits),
        };
        if packet_bits % 8 != 0 || packet_bits == 0 || content_bits > packet_bits {
            return Err(bad(format!(
                "inconsistent sizes (content {content_bits} bits, packet {packet_bits} bits)"
            )));
        }
        let header_bits = r.pos - start * 8;
        if content_bits < header_bits {
            return Err(bad(format!(
                "content size {content_bits} bits is smaller than the packet header and context ({header_bits} bits)"
            )));
        }
        if packet_bits > remaining_bits {
            return Err(StreamIssue::Fatal(format!(
                "packet at offset {start} is truncated: it declares {} bytes, the file has {} left",
                packet_bits / 8,
                remaining_bits / 8
            )));
        }
        self.check_index(start, packet_bits, content_bits);
        if let Some(d) = self
            .top(ctx_from, self.names.events_discarded)
            .and_then(|v| v.as_u64())
        {
            // LTTng's counter is cumulative per stream.
            if d > self.discarded {
                let lost = d - self.discarded;
                self.issues.push(StreamIssue::Packet {
                    kind: "discarded_events",
                    message: format!(
                        "{lost} events discarded by the tracer before the packet at offset {start}"
                    ),
                });
            }
            self.discarded = self.discarded.max(d);
        }
        if let Some(seq) = self
            .top(ctx_from, self.names.packet_seq_num)
            .and_then(|v| v.as_u64())
        {
            if let Some(prev) = self.last_seq {
                if seq > prev.saturating_add(1) {
                    let lost = seq - prev - 1;
                    self.issues.push(StreamIssue::Packet {
                        kind: "discarded_packets",
                        message: format!(
                            "{lost} packets lost by the tracer before the packet at offset {start} (sequence {prev} then {seq})"
                        ),
                    });
                }
            }
            self.last_seq = Some(seq);
        }
        let ts_begin = self
            .top(ctx_from, self.names.timestamp_begin)
            .and_then(|v| v.as_u64());
        if let Some(ts) = ts_begin {
            self.clock.value = ts;
        }
        let ts_end = self
            .top(ctx_from, self.names.timestamp_end)
            .and_then(|v| v.as_u64());
        let packet = Packet {
            start,
            end: start + packet_bits / 8,
            content_end: start * 8 + content_bits,
            stream_class,
            ts_begin,
            ts_end,
        };
        self.packet = Some(packet);
        self.pos = r.pos;
        self.next_packet = packet.end;
        self.packet_no += 1;
        Ok(packet)
    }

    /// An index that disagrees with the packets is reported once and then ignored.
    fn check_index(&mut self, start: u64, packet_bits: u64, content_bits: u64) {
        let Some(ix) = &self.index else {
            return;
        };
        let agrees = match ix.binary_search_by_key(&start, |e| e.offset) {
            Ok(i) => ix[i].packet_size == packet_bits && ix[i].content_size == content_bits,
            Err(_) => false,
        };
        if !agrees {
            self.issues.push(StreamIssue::Packet {
                kind: "index_mismatch",
                message: format!(
                    "the index has no entry matching the packet at offset {start} ({} bytes, content {content_bits} bits); index ignored, packet headers used",
                    packet_bits / 8
                ),
            });
            self.index = None;
        }
    }

    fn decode_event(&mut self, pk: Packet) -> Result<EventPos, String> {
        let dec = Decoder { meta: self.meta };
        self.leaves.clear();
        let offset = self.pos / 8;
        let mut r = BitReader::new(self.data, self.pos, pk.content_end);
        self.clock.update = true;
        let sc = &self.compiled.streams[pk.stream_class];
        let at = |e: super::decode::DecodeError| {
            format!(
                "event at offset {} (packet at offset {}): {}; rest of the packet skipped",
                e.bit / 8,
                pk.start,
                e.what
            )
        };
        let mut fast_id = None;
        if let Some(fh) = &self.compiled.fast_headers[pk.stream_class] {
            fast_id = Some(fh.decode(&mut r, &mut self.clock).map_err(at)?);
        } else if let Some(h) = &sc[1] {
            dec.run(h, &mut r, &mut self.leaves, &mut self.clock)
                .map_err(at)?;
        }
        // The event id: the last `id` decoded in the header (the extended one wins).
        let id = match self.names.id {
            _ if fast_id.is_some() => fast_id,
            Some(n) => self
                .leaves
                .iter()
                .rev()
                .find(|l| l.name == n)
                .and_then(|l| l.value.as_u64()),
            None => None,
        };
        let id = match id {
            Some(id) => id,
            None if self.compiled.single_id[pk.stream_class].is_some() => {
                self.compiled.single_id[pk.stream_class].unwrap_or(0)
            }
            None => {
                return Err(format!(
                    "event at offset {offset} (packet at offset {}): no event id in the header; rest of the packet skipped",
                    pk.start
                ))
            }
        };
        let class = self
            .class_of(pk.stream_class, id)
            .ok_or_else(|| {
                format!(
                    "event at offset {offset} (packet at offset {}): unknown event id {id}; rest of the packet skipped",
                    pk.start
                )
            })?;
        let cycles = self.clock.value;
        let ctx_start = self.leaves.len();
        if let Some(Some(plan)) = self.flat.and_then(|f| f.get(class)) {
            let mut at = r.pos;
            if plan.decode(self.data, &mut at, pk.content_end, &mut self.op) && at != self.pos {
                self.pos = at;
                return Ok(EventPos {
                    cycles,
                    class,
                    stream_class: pk.stream_class,
                    offset,
                    ctx_start,
                    payload_start: ctx_start,
                    flat: true,
                });
            }
            // Otherwise the generic decoder decodes it (and says what is wrong).
        }
        if let Some(c) = &sc[2] {
            dec.run(c, &mut r, &mut self.leaves, &mut self.clock)
                .map_err(at)?;
        }
        let ec = &self.compiled.events[class];
        if let Some(c) = &ec[0] {
            dec.run(c, &mut r, &mut self.leaves, &mut self.clock)
                .map_err(at)?;
        }
        let payload_start = self.leaves.len();
        if let Some(f) = &ec[1] {
            dec.run(f, &mut r, &mut self.leaves, &mut self.clock)
                .map_err(at)?;
        }
        if r.pos == self.pos {
            return Err(format!(
                "event at offset {offset} (packet at offset {}): an event of zero bits; rest of the packet skipped",
                pk.start
            ));
        }
        self.pos = r.pos;
        debug_assert!(pk.end * 8 >= pk.content_end);
        Ok(EventPos {
            cycles,
            class,
            stream_class: pk.stream_class,
            offset,
            ctx_start,
            payload_start,
            flat: false,
        })
    }

    #[inline]
    fn class_of(&self, stream_class: usize, id: u64) -> Option<usize> {
        match self.compiled.classes[stream_class].get(id as usize) {
            Some(&c) if c.is_some() => c,
            _ => self
                .compiled
                .sparse_classes
                .get(&(stream_class, id))
                .copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::ctf::tsdl::parse_metadata;
    use crate::trace::ctf::writer::{CtfWriter, WriteEvent, WriterConfig};

    /// The metadata and the first stream file of a written one-stream trace.
    fn written(w: CtfWriter) -> (Metadata, Vec<u8>) {
        let tmp = tempfile::tempdir().unwrap();
        w.finish(tmp.path()).unwrap();
        let meta_bytes = std::fs::read(tmp.path().join("metadata")).unwrap();
        let text = crate::trace::ctf::tsdl::metadata_text(&meta_bytes).unwrap();
        let data = std::fs::read(tmp.path().join("blocking-channel_0")).unwrap();
        (parse_metadata(&text).unwrap(), data)
    }

    /// Op events decoded by their flat plans give the fields the generic decoder's
    /// leaves give, event by event (little- and big-endian, compact and large headers,
    /// with and without `overload_name`, other events between), and a flat plan is made
    /// for the op classes only where their fields are plain integers and strings.
    #[test]
    fn flat_plans_give_the_generic_decoder_s_fields() {
        use crate::trace::ctf::flat::{OpFieldIds, OpFields};
        let names = [
            "aten::add",
            "aten::mm",
            "",
            "aten::conv2d",
            "aten::\u{e9}t\u{e9}",
        ];
        for (compact_header, big_endian, with_overload) in [
            (false, false, true),
            (true, false, true),
            (true, true, false),
            (false, true, true),
        ] {
            let cfg = WriterConfig {
                streams: 1,
                packet_size: 1024,
                compact_header,
                big_endian,
                with_overload,
                ..WriterConfig::default()
            };
            let mut w = CtfWriter::new(cfg);
            let mut ts = 10u64;
            for i in 0..400usize {
                ts += 1 + (i as u64 * 7919) % 5000;
                let ev = if i % 7 == 3 {
                    WriteEvent::Other {
                        vpid: 5,
                        vtid: 6,
                        label: "blob",
                        data: &[1, 2, 3, 4, 5][..i % 5],
                    }
                } else {
                    WriteEvent::Op {
                        entry: i % 2 == 0,
                        vpid: 40 + (i % 3) as i32,
                        vtid: -(i as i32),
                        name: names[i % names.len()],
                        overload: names[(i / 2) % names.len()],
                    }
                };
                w.event(0, ts, ev);
            }
            let (meta, data) = written(w);
            let compiled = Compiled::new(&meta);
            let ids = OpFieldIds::of(&meta);
            let plans = compiled.flat_plans(&meta, &ids);
            for (e, plan) in meta.events.iter().zip(&plans) {
                // The writer's op events are plain fields; its blob holds a sequence.
                let op = e.name.ends_with("op_entry") || e.name.ends_with("op_exit");
                assert_eq!(plan.is_some(), op, "{}", e.name);
            }
            let mut generic = StreamCursor::new(&meta, &compiled, &data, None);
            let mut flat = StreamCursor::new(&meta, &compiled, &data, None).with_flat_plans(&plans);
            let mut n = 0;
            while let Some(g) = generic.next_event().unwrap() {
                let f = flat.next_event().unwrap().expect("as many events");
                assert_eq!((f.class, f.cycles, f.offset), (g.class, g.cycles, g.offset));
                assert_eq!(f.flat, plans[g.class].is_some());
                if f.flat {
                    let mut want = OpFields::default();
                    for l in generic.leaves[g.ctx_start..].iter().filter(|l| l.top) {
                        want.take(ids.role(l.name), l.value);
                    }
                    assert_eq!(flat.op, want, "event {n}");
                    assert!(matches!(want.name, Some(Value::S(_))) && want.pid.is_some());
                }
                n += 1;
            }
            assert!(flat.next_event().unwrap().is_none());
            assert_eq!(n, 400);
            assert!(generic.issues.is_empty() && flat.issues.is_empty());
        }
    }

    /// A damaged op event gives the same issue with or without flat plans (the generic
    /// decoder reports it), and the events before it are the same.
    #[test]
    fn a_damaged_op_event_is_reported_as_the_generic_decoder_reports_it() {
        use crate::trace::ctf::flat::OpFieldIds;
        let mut w = CtfWriter::new(WriterConfig {
            streams: 1,
            packet_size: 4096,
            ..WriterConfig::default()
        });
        for i in 0..20u64 {
            w.event(
                0,
                100 + i,
                WriteEvent::Op {
                    entry: i % 2 == 0,
                    vpid: 1,
                    vtid: 2,
                    name: "aten::add",
                    overload: "Tensor",
                },
            );
        }
        let (meta, mut data) = written(w);
        // Every NUL after the first events' names gone: a string runs past the content.
        let at = data
            .windows(9)
            .enumerate()
            .filter(|(_, w)| *w == b"aten::add")
            .nth(5)
            .unwrap()
            .0;
        for b in &mut data[at..] {
            if *b == 0 {
                *b = b'x';
            }
        }
        let compiled = Compiled::new(&meta);
        let plans = compiled.flat_plans(&meta, &OpFieldIds::of(&meta));
        let run = |cur: &mut StreamCursor<'_>| {
            let mut offsets = Vec::new();
            while let Ok(Some(e)) = cur.next_event() {
                offsets.push(e.offset);
            }
            (offsets, format!("{:?}", cur.issues))
        };
        let generic = run(&mut StreamCursor::new(&meta, &compiled, &data, None));
        let flat =
            run(&mut StreamCursor::new(&meta, &compiled, &data, None).with_flat_plans(&plans));
        assert_eq!(generic.0.len(), 5);
        assert!(generic.1.contains("no NUL"), "{}", generic.1);
        assert_eq!(flat, generic);
    }

    /// The LTTng header fast path and the generic decoder agree event by event.
    #[test]
    fn fast_header_matches_generic_decoding() {
        for (compact_header, big_endian) in [(false, false), (true, false), (true, true)] {
            let cfg = WriterConfig {
                streams: 1,
                packet_size: 512,
                compact_header,
                big_endian,
                ..WriterConfig::default()
            };
            let mut w = CtfWriter::new(cfg);
            let mut ts = 5u64;
            for i in 0..300u64 {
                ts += if i % 50 == 0 { 1 << 33 } else { 1 + i * 997 };
                let ev = if i % 3 == 0 {
                    WriteEvent::Other {
                        vpid: 1,
                        vtid: 2,
                        label: "x",
                        data: &[9; 3],
                    }
                } else {
                    WriteEvent::Op {
                        entry: i % 2 == 0,
                        vpid: 1,
                        vtid: 2,
                        name: "n",
                        overload: "",
                    }
                };
                w.event(0, ts, ev);
            }
            let (meta, data) = written(w);
            let fast = Compiled::new(&meta);
            assert!(fast.fast_headers[0].is_some());
            let mut generic = Compiled::new(&meta);
            generic.fast_headers = vec![None];
            let collect = |c: &Compiled| {
                let mut cur = StreamCursor::new(&meta, c, &data, None);
                let mut out = Vec::new();
                while let Some(e) = cur.next_event().unwrap() {
                    out.push((e.class, e.cycles, e.offset));
                }
                assert!(cur.issues.is_empty());
                out
            };
            let a = collect(&fast);
            assert_eq!(a.len(), 300);
            assert_eq!(
                a,
                collect(&generic),
                "compact={compact_header} be={big_endian}"
            );
            assert_eq!(a.last().map(|e| e.1), Some(ts));
        }
    }
}
