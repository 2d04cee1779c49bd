//! The cursor over one stream file: packets opened one by one (header, context, sizes,
//! discarded events, index check), events decoded one at a time, decoded pages released.

use super::super::decode::{BitReader, ClockState, DecodeError, Decoder, Leaf, Value};
use super::super::flat::{FlatPlan, OpFields};
use super::super::tsdl::Metadata;
use super::compiled::Compiled;
use super::index::IndexEntry;
use super::PACKET_MAGIC;

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
        let at = |e: DecodeError| {
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
