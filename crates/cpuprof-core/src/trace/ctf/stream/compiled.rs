//! A trace's compiled layouts, built once from its metadata: the decoding programs of
//! every scope, the event-id tables, and LTTng's event header recognised for a fast path.

use super::super::decode::{BitReader, ClockState, DecodeError, Decoder, Program};
use super::super::flat::{FlatPlan, OpFieldIds};
use super::super::tsdl::{ByteOrder, Field, IntType, Metadata, Type};

/// A trace's decoding programs and event-id table, built once from its metadata and
/// shared by all its streams.
pub struct Compiled {
    pub(super) packet_header: Option<Program>,
    /// Per stream class: packet context, event header, event context.
    pub(super) streams: Vec<[Option<Program>; 3]>,
    /// Per event class: context, payload.
    pub(super) events: Vec<[Option<Program>; 2]>,
    /// (stream class, event id) -> event class index, for ids below a bound that keeps
    /// the tables no larger than a few entries per event class ...
    pub(super) classes: Vec<Vec<Option<usize>>>,
    /// ... and for the rest (hostile or sparse ids).
    pub(super) sparse_classes: std::collections::HashMap<(usize, u64), usize>,
    /// Stream class id -> index into `Metadata::streams`.
    pub(super) stream_ids: std::collections::HashMap<u64, usize>,
    /// Per stream class: the event id when all its event classes have that one id (an
    /// event header without an id then means it).
    pub(super) single_id: Vec<Option<u64>>,
    /// Per stream class: LTTng's event header decoded without the generic machinery.
    pub(super) fast_headers: Vec<Option<FastHeader>>,
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
pub(super) struct FastHeader {
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
        let spec = |t: &IntType| IntSpec {
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
        let int_of = |f: &Field, name: &str, clock: bool| match &meta.types[f.ty as usize] {
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
    pub(super) fn decode(
        &self,
        r: &mut BitReader<'_>,
        clock: &mut ClockState,
    ) -> Result<u64, DecodeError> {
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

/// Event ids at or above this are looked up in a hash map instead of a table.
const CLASS_TABLE_MAX: u64 = 1 << 16;
