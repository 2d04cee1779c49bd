//! One profile event: read by the fast path ([`super::shape`]) or the checked path,
//! its names interned (through a small cache of recent names) and its metadata pooled.

use super::checked::{self, CheckResult, Cursor, Trail};
use super::reader::Part;
use super::shape::Shapes;
use super::{ByteSpan, DelegateId, EtDumpError, NameId, NameTable, ProfileEvent};

pub(super) fn decode_profile_event(
    cur: &mut Cursor<'_>,
    pos: usize,
    recent: &mut RecentNames,
    part: &mut Part,
) -> CheckResult<ProfileEvent> {
    let pe = checked::profile_event(cur, pos)?;
    let names = &mut part.names;
    let mut intern = |cur: &mut Cursor<'_>, at: usize, field: &'static str| {
        let bytes = cur.string(at).at_field(field)?;
        if let Some(id) = recent.lookup(names, bytes) {
            return Ok((id, bytes.is_empty()));
        }
        let s = checked::utf8(cur, bytes).at_field(field)?;
        Ok::<_, Box<checked::Bad>>((recent.intern(names, s), s.is_empty()))
    };
    // Fields in schema order, as the verifier visits them (the first error reported is
    // the same).
    let name = match pe.name {
        Some(at) => Some(intern(cur, at, "name")?.0),
        None => None,
    };
    let delegate_str = match pe.delegate_debug_id_str {
        Some(at) => Some(intern(cur, at, "delegate_debug_id_str")?),
        None => None,
    };
    let metadata_bytes = match pe.delegate_debug_metadata {
        Some(at) => Some(cur.byte_vector(at).at_field("delegate_debug_metadata")?),
        None => None,
    };
    finish_event(
        part,
        name,
        delegate_str,
        metadata_bytes,
        [pe.chain_index, pe.instruction_id, pe.delegate_debug_id_int],
        [pe.start_time, pe.end_time],
    )
    .map_err(checked::Bad::from_etdump_error)
}

/// The event whose offset is at `elem` by the fast path ([`super::shape`]), or None
/// for the checked path (which then decides, and reports any error).
#[inline]
pub(super) fn fast_event(
    cur: &mut Cursor<'_>,
    shapes: &Shapes,
    elem: usize,
    recent: &mut RecentNames,
    part: &mut Part,
) -> Option<ProfileEvent> {
    let raw = shapes.event(cur, elem)?;
    let mut intern = |bytes: &[u8]| {
        let id = match recent.lookup(&part.names, bytes) {
            Some(id) => id,
            None => recent.intern(&mut part.names, std::str::from_utf8(bytes).ok()?),
        };
        Some((id, bytes.is_empty()))
    };
    let name = match raw.name {
        Some(b) => Some(intern(b)?.0),
        None => None,
    };
    let delegate_str = match raw.delegate_debug_id_str {
        Some(b) => Some(intern(b)?),
        None => None,
    };
    let event = finish_event(
        part,
        name,
        delegate_str,
        raw.delegate_debug_metadata,
        [
            raw.chain_index,
            raw.instruction_id,
            raw.delegate_debug_id_int,
        ],
        [raw.start_time, raw.end_time],
    )
    .ok()?;
    cur.charge(raw.charge);
    Some(event)
}

/// A profile event from its checked fields: the delegate id (the string if non-empty,
/// else the integer unless -1), metadata pooled. `ints`: chain_index, instruction_id,
/// delegate_debug_id_int; `times`: start, end.
#[inline(always)]
fn finish_event(
    part: &mut Part,
    name: Option<NameId>,
    delegate_str: Option<(NameId, bool)>,
    metadata_bytes: Option<&[u8]>,
    [chain_index, instruction_id, delegate_int]: [i32; 3],
    [start_ticks, end_ticks]: [u64; 2],
) -> Result<ProfileEvent, EtDumpError> {
    let delegate_id = match delegate_str {
        Some((id, false)) => Some(DelegateId::Str(id)),
        _ => match delegate_int {
            -1 => None,
            i => Some(DelegateId::Int(i)),
        },
    };
    let metadata = match metadata_bytes {
        None => None,
        Some(bytes) => Some(pool_metadata(
            part,
            delegate_id.map_or(name, label_id),
            bytes,
        )?),
    };
    Ok(ProfileEvent {
        name,
        delegate_id,
        chain_index,
        instruction_id,
        start_ticks,
        end_ticks,
        metadata,
    })
}

fn label_id(id: DelegateId) -> Option<NameId> {
    match id {
        DelegateId::Str(n) => Some(n),
        DelegateId::Int(_) => None,
    }
}

/// Store metadata bytes in the pool. An event usually carries the same bytes as the
/// previous event with its label (the same operator's shapes, run after run), so those
/// share one copy: the pool stays small instead of growing with the run count.
fn pool_metadata(
    part: &mut Part,
    label: Option<NameId>,
    bytes: &[u8],
) -> Result<ByteSpan, EtDumpError> {
    if let Some(prev) = label.and_then(|l| part.last_metadata.get(l.0 as usize).copied().flatten())
    {
        if same_bytes(
            &part.metadata[prev.start as usize..prev.end as usize],
            bytes,
        ) {
            return Ok(prev);
        }
    }
    let start = part.metadata.len();
    part.metadata.extend_from_slice(bytes);
    // The pool is smaller than the file, whose size prefix is a u32.
    let span = u32::try_from(start)
        .ok()
        .zip(u32::try_from(part.metadata.len()).ok())
        .map(|(start, end)| ByteSpan { start, end })
        .ok_or_else(|| EtDumpError::Corrupt("delegate_debug_metadata larger than 4 GiB".into()))?;
    if let Some(l) = label {
        let slot = l.0 as usize;
        if part.last_metadata.len() <= slot {
            part.last_metadata.resize(slot + 1, None);
        }
        part.last_metadata[slot] = Some(span);
    }
    Ok(span)
}

/// Slice equality inlined for the short names and metadata compared once per event (a
/// call to `memcmp` per event cost more than the comparison).
#[inline]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut a_words = a.chunks_exact(8);
    let mut b_words = b.chunks_exact(8);
    for (x, y) in (&mut a_words).zip(&mut b_words) {
        let word = |w: &[u8]| u64::from_ne_bytes(<[u8; 8]>::try_from(w).unwrap_or_default());
        if word(x) != word(y) {
            return false;
        }
    }
    a_words
        .remainder()
        .iter()
        .zip(b_words.remainder())
        .all(|(x, y)| x == y)
}

/// A small direct-mapped cache in front of `NameTable::intern`: a dump repeats a few dozen
/// names per run, and comparing against one cached name is much cheaper than a SipHash
/// lookup. Misses (or crafted collisions) just fall through to the table, so a hostile
/// file cannot make interning slower than without the cache.
pub(super) struct RecentNames {
    slots: Box<[Option<NameId>]>,
}

impl RecentNames {
    /// A power of two, well above the few hundred names of a wide model (with 256 slots
    /// a 400-name dump missed on most events and paid a SipHash lookup for each).
    const SLOTS: usize = 4096;

    pub(super) fn new() -> Self {
        RecentNames {
            slots: vec![None; Self::SLOTS].into_boxed_slice(),
        }
    }

    #[inline]
    fn intern(&mut self, table: &mut NameTable, s: &str) -> NameId {
        let slot = Self::slot(s);
        if let Some(id) = self.slots[slot] {
            if table.get(id) == s {
                return id;
            }
        }
        let id = table.intern(s);
        self.slots[slot] = Some(id);
        id
    }

    /// The id of `bytes` if it is the name cached in its slot (then it is valid UTF-8: it
    /// equals a name already checked).
    #[inline]
    fn lookup(&self, table: &NameTable, bytes: &[u8]) -> Option<NameId> {
        let id = self.slots[Self::slot_of(bytes)]?;
        same_bytes(table.get(id).as_bytes(), bytes).then_some(id)
    }

    /// Mixes the length and the last 8 bytes: names often differ only at the end
    /// (`... GEMM #1`, `... GEMM #2`).
    #[inline]
    fn slot(s: &str) -> usize {
        Self::slot_of(s.as_bytes())
    }

    #[inline]
    fn slot_of(b: &[u8]) -> usize {
        // The last 8 bytes as one load; shorter names byte by byte (a copy of a variable
        // length was a call to `memcpy` per event).
        let tail = match b.last_chunk::<8>() {
            Some(t) => u64::from_le_bytes(*t),
            None => b.iter().fold(0u64, |w, &x| (w << 8) | x as u64),
        };
        let x = tail ^ (b.len() as u64).rotate_left(40);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::SLOTS.trailing_zeros())) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bytes_is_slice_equality() {
        let cases: [(&[u8], &[u8]); 7] = [
            (b"", b""),
            (b"a", b"a"),
            (b"a", b"b"),
            (
                b"Fully Connected (NC, F32) GEMM #1",
                b"Fully Connected (NC, F32) GEMM #1",
            ),
            (
                b"Fully Connected (NC, F32) GEMM #1",
                b"Fully Connected (NC, F32) GEMM #2",
            ),
            (b"12345678", b"12345679"),
            (b"123456789", b"12345678"),
        ];
        for (a, b) in cases {
            assert_eq!(same_bytes(a, b), a == b, "{a:?} {b:?}");
        }
    }

    #[test]
    fn recent_names_survive_slot_collisions() {
        let mut table = NameTable::default();
        let mut recent = RecentNames::new();
        // Same length and same last 8 bytes: same slot.
        let (a, b) = ("x_GEMM #1", "y_GEMM #1");
        assert_eq!(RecentNames::slot(a), RecentNames::slot(b));
        let ia = recent.intern(&mut table, a);
        let ib = recent.intern(&mut table, b);
        assert_ne!(ia, ib);
        assert_eq!(recent.intern(&mut table, a), ia);
        assert_eq!(recent.intern(&mut table, b), ib);
        assert_eq!((table.get(ia), table.get(ib)), (a, b));
        assert_eq!(recent.intern(&mut table, ""), table.find("").unwrap());
        assert_eq!(table.len(), 3);
    }
}
