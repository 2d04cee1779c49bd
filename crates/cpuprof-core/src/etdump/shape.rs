//! The fast path of the checked decoder, for the two tables every event repeats (`Event`
//! and its `ProfileEvent`).
//!
//! A writer shares vtables: nearly every event of a dump points at one of a handful. Once
//! the checked path ([`super::checked`]) has accepted a table, its vtable's checks
//! (alignment, length, range) hold for every table that points at the same vtable, and
//! the vtable gives the same field offsets. What still depends on the table is its own
//! position: soffset alignment and range, each field's alignment and range, and the
//! strings and vectors it points at. A [`Shape`] keeps the offsets with what those checks
//! reduce to (one range, one alignment residue), so an event is checked with a few
//! comparisons instead of a checked read per field.
//!
//! Any check that does not pass sends the event back to the checked path, which then
//! reports the error exactly as the verifier would (or accepts what the shape could not
//! prove, such as a field at an unusual alignment). Nothing is changed before a fast
//! visit has passed every check, so the checked path starts from the same state. The
//! verdict is the checked path's either way; `tests/it/etdump_checked.rs` holds both to the
//! verifier.

use super::checked::Cursor;
use super::generated::etdump as fb;

/// The fields of an event as the checked path would return them: scalars with the
/// schema's defaults, strings and metadata as bytes (strings not yet checked as UTF-8).
pub(super) struct Raw<'a> {
    pub name: Option<&'a [u8]>,
    pub chain_index: i32,
    pub instruction_id: i32,
    pub delegate_debug_id_int: i32,
    pub delegate_debug_id_str: Option<&'a [u8]>,
    pub delegate_debug_metadata: Option<&'a [u8]>,
    pub start_time: u64,
    pub end_time: u64,
    /// What the checked path's budgets would be charged: tables, apparent bytes.
    pub charge: (usize, usize),
}

/// Field sizes of `Event` by slot: three offsets.
const EVENT_FIELDS: [u8; 3] = [4, 4, 4];
/// Field sizes of `ProfileEvent` by slot: name, chain_index, instruction_id,
/// delegate_debug_id_int, delegate_debug_id_str, delegate_debug_metadata, start_time,
/// end_time.
const PROFILE_FIELDS: [u8; 8] = [4, 4, 4, 4, 4, 4, 8, 8];

/// A vtable the checked path accepted, and what a table pointing at it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape<const N: usize> {
    vtable: usize,
    /// Offset of each field from the table's start (0: absent).
    at: [u16; N],
    /// Bytes from the table's start to the end of its last fixed field (at least the
    /// 4-byte soffset).
    reach: usize,
    /// The `pos % 8` at which every 8-byte field is aligned (`pos` is 4-aligned); `ANY`
    /// when the table has none; `NEVER` when some field is misaligned wherever the table
    /// is, so the checked path always decides.
    align8: u8,
    /// Apparent bytes the checked path counts for the table and its fixed fields.
    apparent: usize,
}

const ANY: u8 = 8;
const NEVER: u8 = 9;

impl<const N: usize> Shape<N> {
    /// The shape of the vtable at `vtable`, which the checked path has accepted (in
    /// range, aligned, of even length).
    fn learn(buf: &[u8], vtable: usize, sizes: [u8; N]) -> Option<Self> {
        let u16_at = |p: usize| buf.get(p..p + 2).map(|b| u16::from_le_bytes([b[0], b[1]]));
        let vtable_len = u16_at(vtable)? as usize;
        let mut at = [0u16; N];
        let mut reach = 4usize;
        let mut align8 = ANY;
        // soffset, the vtable's length, the vtable.
        let mut apparent = 4 + 2 + vtable_len;
        for (i, &size) in sizes.iter().enumerate() {
            let slot = 4 + 2 * i;
            if slot >= vtable_len {
                continue;
            }
            apparent += 2;
            let off = u16_at(vtable + slot)?;
            if off == 0 {
                continue;
            }
            at[i] = off;
            reach = reach.max(off as usize + size as usize);
            apparent += size as usize;
            // The table starts 4-aligned: a 4-byte field is aligned iff its offset is.
            let residue = (8 - off % 8) % 8;
            align8 = match size {
                _ if off % 4 != 0 => NEVER,
                8 if align8 == ANY => residue as u8,
                8 if align8 != residue as u8 => NEVER,
                _ => align8,
            };
        }
        Some(Shape {
            vtable,
            at,
            reach,
            align8,
            apparent,
        })
    }

    /// Whether the table at `pos` points at this shape's vtable and every fixed field is
    /// aligned and in the buffer.
    #[cfg(test)]
    fn fits(&self, buf: &[u8], pos: usize, soffset: i32) -> bool {
        vtable_of(pos, soffset) == Some(self.vtable) && self.fits_at(buf, pos)
    }

    /// Whether every fixed field of a table at `pos` that points at this shape's vtable
    /// is aligned and in the buffer.
    #[inline(always)]
    fn fits_at(&self, buf: &[u8], pos: usize) -> bool {
        let aligned = match self.align8 {
            ANY => true,
            NEVER => false,
            r => pos % 8 == r as usize,
        };
        aligned
            && pos
                .checked_add(self.reach)
                .is_some_and(|end| end <= buf.len())
    }

    /// The field `i` of a table at `pos` that [`fits`](Self::fits), or None if absent.
    #[inline(always)]
    fn field(&self, pos: usize, i: usize) -> Option<usize> {
        match self.at[i] {
            0 => None,
            off => Some(pos + off as usize),
        }
    }
}

/// Where the soffset of a table at `pos` puts its vtable (as the checked path computes
/// it; None where that is outside the address space).
#[inline(always)]
fn vtable_of(pos: usize, soffset: i32) -> Option<usize> {
    if soffset > 0 {
        pos.checked_sub(soffset.unsigned_abs() as usize)
    } else {
        pos.checked_add(soffset.unsigned_abs() as usize)
    }
}

/// A few shapes per table type, found by vtable position (a CpuBackend dump alternates
/// two or three `ProfileEvent` vtables: framework events, delegate events with and
/// without metadata).
struct Cache<const N: usize> {
    /// The shapes' vtable positions (`usize::MAX`: no shape), apart, for a quick scan.
    vtables: [usize; WAYS],
    shapes: [Shape<N>; WAYS],
    next: usize,
}

const WAYS: usize = 4;

impl<const N: usize> Default for Cache<N> {
    fn default() -> Self {
        let none = Shape {
            vtable: usize::MAX,
            at: [0; N],
            reach: 0,
            align8: NEVER,
            apparent: 0,
        };
        Cache {
            vtables: [usize::MAX; WAYS],
            shapes: [none; WAYS],
            next: 0,
        }
    }
}

impl<const N: usize> Cache<N> {
    #[inline(always)]
    fn find(&self, buf: &[u8], pos: usize, soffset: i32) -> Option<&Shape<N>> {
        // A vtable is inside the buffer, so never `usize::MAX`.
        let vtable = vtable_of(pos, soffset)?;
        let way = self.vtables.iter().position(|&v| v == vtable)?;
        let shape = &self.shapes[way];
        shape.fits_at(buf, pos).then_some(shape)
    }

    fn has(&self, vtable: usize) -> bool {
        self.vtables.contains(&vtable)
    }

    fn insert(&mut self, shape: Shape<N>) {
        self.vtables[self.next] = shape.vtable;
        self.shapes[self.next] = shape;
        self.next = (self.next + 1) % WAYS;
    }
}

/// The shapes of a decoder's `Event` and `ProfileEvent` tables.
pub(super) struct Shapes {
    event: Cache<3>,
    profile: Cache<8>,
    /// Off: no shape is learnt, every event takes the checked path.
    on: bool,
}

#[inline(always)]
fn u32_at(buf: &[u8], p: usize) -> Option<u32> {
    let b = buf.get(p..p.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[inline(always)]
fn u64_at(buf: &[u8], p: usize) -> Option<u64> {
    let b: [u8; 8] = buf.get(p..p.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// The table the forward offset at `at` points to, and its soffset: `at` is 4-aligned
/// and in the buffer (the caller knows).
#[inline(always)]
fn table_at(buf: &[u8], at: usize) -> Option<(usize, i32)> {
    let pos = at.saturating_add(u32_at(buf, at)? as usize);
    if pos % 4 != 0 {
        return None;
    }
    Some((pos, u32_at(buf, pos)? as i32))
}

/// The bytes of the `[ubyte]` vector or string (`nul`) the 4-aligned, in-buffer offset
/// at `at` points to, checked as the verifier checks them (except UTF-8), with the
/// apparent bytes counted.
#[inline(always)]
fn bytes_at<'a>(buf: &'a [u8], at: usize, nul: bool, apparent: &mut usize) -> Option<&'a [u8]> {
    let pos = at.saturating_add(u32_at(buf, at)? as usize);
    if pos % 4 != 0 {
        return None;
    }
    let len = u32_at(buf, pos)? as usize;
    let start = pos + 4;
    let end = start.checked_add(len)?;
    if end > buf.len() || (nul && buf.get(end) != Some(&0)) {
        return None;
    }
    // The length and the bytes (the offset is counted with the table's fields).
    *apparent += 4 + len;
    Some(&buf[start..end])
}

/// Events whose tables are fetched ahead of the decoder (see [`prefetch`]).
pub(super) const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to bring in the tables of the event whose offset is at `elem`, a few
/// events before the decoder reads them: each event's first read otherwise waits on
/// memory (a third of the decoder's time on the 1 GB dump, by `perf annotate`), and the
/// next event's offset cannot be read until the current event's chain of loads is done.
/// Its `Event` table and, at forward offsets from it, its `ProfileEvent`, strings and
/// metadata: the two cache lines from the table on. A hint only: nothing is read.
#[inline(always)]
pub(super) fn prefetch(buf: &[u8], elem: usize) {
    let Some(pos) = u32_at(buf, elem).map(|off| elem.saturating_add(off as usize)) else {
        return;
    };
    #[cfg(target_arch = "x86_64")]
    for line in [pos, pos + 64] {
        if line < buf.len() {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch reads nothing and cannot fault; the address is inside
            // `buf` anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(buf.as_ptr().wrapping_add(line).cast()) };
        }
    }
}

impl Shapes {
    pub fn new(on: bool) -> Self {
        Shapes {
            event: Cache::default(),
            profile: Cache::default(),
            on,
        }
    }

    /// The profile event of the `Event` whose offset is at `elem` (an element of a
    /// checked offset vector: 4-aligned and in the buffer), if the cached shapes prove
    /// every check; None sends it to the checked path. Changes nothing.
    #[inline]
    pub fn event<'a>(&self, cur: &Cursor<'a>, elem: usize) -> Option<Raw<'a>> {
        let buf = cur.buf();
        let (pos, soffset) = table_at(buf, elem)?;
        let event = self.event.find(buf, pos, soffset)?;
        // A member we do not decode goes to the verifier: the checked path.
        if event.at[1] != 0 || event.at[2] != 0 {
            return None;
        }
        let pe_at = event.field(pos, 0)?;
        let (pe, soffset) = table_at(buf, pe_at)?;
        let shape = self.profile.find(buf, pe, soffset)?;
        // The element's offset, then both tables' fixed parts (the profile event's
        // offset among the event's fields).
        let mut apparent = 4 + event.apparent + shape.apparent;
        let i32_or = |i: usize, default: i32| match shape.field(pe, i) {
            Some(p) => u32_at(buf, p).map(|v| v as i32),
            None => Some(default),
        };
        let u64_or_0 = |i: usize| match shape.field(pe, i) {
            Some(p) => u64_at(buf, p),
            None => Some(0),
        };
        let raw = Raw {
            name: match shape.field(pe, 0) {
                Some(p) => Some(bytes_at(buf, p, true, &mut apparent)?),
                None => None,
            },
            chain_index: i32_or(1, 0)?,
            instruction_id: i32_or(2, -1)?,
            delegate_debug_id_int: i32_or(3, -1)?,
            delegate_debug_id_str: match shape.field(pe, 4) {
                Some(p) => Some(bytes_at(buf, p, true, &mut apparent)?),
                None => None,
            },
            delegate_debug_metadata: match shape.field(pe, 5) {
                Some(p) => Some(bytes_at(buf, p, false, &mut apparent)?),
                None => None,
            },
            start_time: u64_or_0(6)?,
            end_time: u64_or_0(7)?,
            charge: (2, apparent),
        };
        cur.fits(raw.charge).then_some(raw)
    }

    /// Caches the shapes of the `Event` whose offset is at `elem` and of its profile
    /// event, which the checked path has just accepted.
    #[cold]
    pub fn learn(&mut self, buf: &[u8], elem: usize) {
        if !self.on {
            return;
        }
        let Some((pos, soffset)) = table_at(buf, elem) else {
            return;
        };
        let Some(vtable) = vtable_of(pos, soffset) else {
            return;
        };
        let Some(event) = Shape::learn(buf, vtable, EVENT_FIELDS) else {
            return;
        };
        if !self.event.has(vtable) {
            self.event.insert(event);
        }
        let Some((pe, soffset)) = event.field(pos, 0).and_then(|at| table_at(buf, at)) else {
            return;
        };
        let Some(vtable) = vtable_of(pe, soffset) else {
            return;
        };
        if !self.profile.has(vtable) {
            if let Some(s) = Shape::learn(buf, vtable, PROFILE_FIELDS) {
                self.profile.insert(s);
            }
        }
    }
}

// The slots the shapes assume, against the generated schema.
const _: () = {
    assert!(fb::Event::VT_PROFILE_EVENT == 4);
    assert!(fb::Event::VT_ALLOCATION_EVENT == 6);
    assert!(fb::Event::VT_DEBUG_EVENT == 8);
    assert!(fb::ProfileEvent::VT_NAME == 4);
    assert!(fb::ProfileEvent::VT_CHAIN_INDEX == 6);
    assert!(fb::ProfileEvent::VT_INSTRUCTION_ID == 8);
    assert!(fb::ProfileEvent::VT_DELEGATE_DEBUG_ID_INT == 10);
    assert!(fb::ProfileEvent::VT_DELEGATE_DEBUG_ID_STR == 12);
    assert!(fb::ProfileEvent::VT_DELEGATE_DEBUG_METADATA == 14);
    assert!(fb::ProfileEvent::VT_START_TIME == 16);
    assert!(fb::ProfileEvent::VT_END_TIME == 18);
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer holding, at 0, a `ProfileEvent` vtable whose fields are `fields` (slot
    /// index, offset), zero-padded to `len` bytes.
    fn vtable(fields: &[(usize, u16)], len: usize) -> Vec<u8> {
        let vtable_len = 4 + 2 * PROFILE_FIELDS.len();
        let mut buf = vec![0u8; len];
        buf[0..2].copy_from_slice(&(vtable_len as u16).to_le_bytes());
        for &(i, off) in fields {
            buf[4 + 2 * i..6 + 2 * i].copy_from_slice(&off.to_le_bytes());
        }
        buf
    }

    fn fits(shape: &Shape<8>, buf: &[u8], pos: usize) -> bool {
        shape.fits(buf, pos, pos as i32)
    }

    #[test]
    fn eight_byte_fields_fix_the_table_position_modulo_8() {
        // start_time at +8 and end_time at +16: the table must start 8-aligned.
        let buf = vtable(&[(6, 8), (7, 16)], 256);
        let shape = Shape::learn(&buf, 0, PROFILE_FIELDS).unwrap();
        assert_eq!((shape.reach, shape.align8), (24, 0));
        assert!(fits(&shape, &buf, 24));
        assert!(!fits(&shape, &buf, 28));
        assert!(fits(&shape, &buf, 232));
        // The last field would end past the buffer.
        assert!(!fits(&shape, &buf, 240));
        // At +4 and +12: the table starts 4 past a multiple of 8.
        let buf = vtable(&[(6, 4), (7, 12)], 256);
        let shape = Shape::learn(&buf, 0, PROFILE_FIELDS).unwrap();
        assert_eq!(shape.align8, 4);
        assert!(fits(&shape, &buf, 28));
        assert!(!fits(&shape, &buf, 24));
    }

    #[test]
    fn fields_no_position_aligns_leave_it_to_the_checked_path() {
        // 8-byte fields at +4 and +8 cannot both be aligned.
        let shape = Shape::learn(&vtable(&[(6, 4), (7, 8)], 64), 0, PROFILE_FIELDS).unwrap();
        assert_eq!(shape.align8, NEVER);
        assert!(!fits(&shape, &vtable(&[], 64), 24));
        // A 4-byte field at an offset that is not a multiple of 4.
        let shape = Shape::learn(&vtable(&[(1, 6)], 64), 0, PROFILE_FIELDS).unwrap();
        assert_eq!(shape.align8, NEVER);
        // No 8-byte field: any 4-aligned position.
        let buf = vtable(&[(1, 4), (2, 8)], 64);
        let shape = Shape::learn(&buf, 0, PROFILE_FIELDS).unwrap();
        assert_eq!((shape.align8, shape.reach), (ANY, 12));
        assert!(fits(&shape, &buf, 24) && fits(&shape, &buf, 28));
    }

    #[test]
    fn a_table_fits_only_the_vtable_it_points_at() {
        let buf = vtable(&[(6, 8)], 64);
        let shape = Shape::learn(&buf, 0, PROFILE_FIELDS).unwrap();
        assert!(shape.fits(&buf, 24, 24));
        assert!(!shape.fits(&buf, 24, 20));
        assert!(!shape.fits(&buf, 24, -4));
    }

    #[test]
    fn slots_past_a_short_vtable_are_absent() {
        // A vtable of 8 bytes holds slots 0 and 1 only (name, chain_index).
        let mut buf = vec![0u8; 64];
        buf[0..2].copy_from_slice(&8u16.to_le_bytes());
        buf[4..6].copy_from_slice(&4u16.to_le_bytes());
        buf[6..8].copy_from_slice(&8u16.to_le_bytes());
        // What would be slot 2's entry, past the vtable.
        buf[8..10].copy_from_slice(&12u16.to_le_bytes());
        let shape = Shape::learn(&buf, 0, PROFILE_FIELDS).unwrap();
        assert_eq!(shape.at, [4, 8, 0, 0, 0, 0, 0, 0]);
        // soffset, vtable length and vtable, two entries, two 4-byte fields.
        assert_eq!(shape.apparent, 4 + 2 + 8 + 2 * 2 + 2 * 4);
    }
}
