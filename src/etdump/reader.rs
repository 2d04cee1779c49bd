use std::path::Path;

use flatbuffers::{ErrorTraceDetail, InvalidFlatbuffer, VerifierOptions};

use super::generated::etdump as fb;
use super::header::check_header;
use super::{
    ByteSpan, DelegateId, EtDump, EtDumpError, NameId, NameTable, ProfileEvent, RunBlock,
    SkippedEvents,
};

/// Parse the bytes of a whole `.etdp` file.
pub fn parse(bytes: &[u8]) -> Result<EtDump, EtDumpError> {
    let buf = check_header(bytes)?;
    let root = fb::size_prefixed_root_as_etdump_with_opts(&verifier_options(buf.len()), buf)
        .map_err(|e| EtDumpError::Corrupt(describe_invalid(&e)))?;
    decode(root)
}

/// Read and parse a file. Errors do not include the path; callers add it.
pub fn read_file(path: &Path) -> Result<EtDump, EtDumpError> {
    let bytes = std::fs::read(path).map_err(|e| EtDumpError::Io(e.to_string()))?;
    parse(&bytes)
}

/// Limits scaled to the buffer: the default cap of 1M tables rejects real dumps of a few
/// tens of MB (two tables per event). A genuine buffer cannot hold more tables than
/// `len / 4` (each starts with a 4-byte soffset; flatcc and flatc share vtables, never
/// tables), so the cap only trips on offsets that revisit the same tables, which is how a
/// small malicious file would make verification slow.
fn verifier_options(buf_len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: 64,
        max_tables: buf_len / 4 + 1024,
        // Bytes the verifier touches, counting shared vtables once per table: about 2x the
        // buffer in genuine dumps.
        max_apparent_size: buf_len.saturating_mul(16).saturating_add(1 << 20),
        ignore_missing_null_terminator: false,
    }
}

/// One line: the flatbuffers error, then where it happened as a field path from the root
/// (`ETDump.run_data[1].events[7].profile_event.name`). Positions are file offsets.
fn describe_invalid(e: &InvalidFlatbuffer) -> String {
    let text = e.to_string();
    let message = text.lines().next().unwrap_or("").trim();
    let trace = match e {
        InvalidFlatbuffer::MissingRequiredField { error_trace, .. }
        | InvalidFlatbuffer::InconsistentUnion { error_trace, .. }
        | InvalidFlatbuffer::Utf8Error { error_trace, .. }
        | InvalidFlatbuffer::MissingNullTerminator { error_trace, .. }
        | InvalidFlatbuffer::Unaligned { error_trace, .. }
        | InvalidFlatbuffer::RangeOutOfBounds { error_trace, .. }
        | InvalidFlatbuffer::SignedOffsetOutOfBounds { error_trace, .. } => {
            Some(error_trace.as_ref())
        }
        InvalidFlatbuffer::TooManyTables
        | InvalidFlatbuffer::ApparentSizeTooLarge
        | InvalidFlatbuffer::DepthLimitReached => None,
    };
    let Some(trace) = trace else {
        return format!("flatbuffer verification failed: {message} (offsets revisit tables?)");
    };
    // The trace is innermost first.
    let mut path = String::from("ETDump");
    for detail in trace.iter().rev() {
        match detail {
            ErrorTraceDetail::TableField { field_name, .. } => {
                path.push('.');
                path.push_str(field_name);
            }
            ErrorTraceDetail::VectorElement { index, .. } => {
                path.push_str(&format!("[{index}]"));
            }
            ErrorTraceDetail::UnionVariant { variant, .. } => {
                path.push_str(&format!("<{variant}>"));
            }
        }
    }
    format!("flatbuffer verification failed at {path}: {message}")
}

/// Walks a verified buffer. Accessors apply the schema defaults.
fn decode(root: fb::ETDump<'_>) -> Result<EtDump, EtDumpError> {
    let runs = root.run_data();
    let run_count = runs.map_or(0, |r| r.len());
    // Upper bound (it includes debug and allocation events); one allocation for all.
    let event_bound: usize = runs.map_or(0, |runs| {
        runs.iter().map(|r| r.events().map_or(0, |e| e.len())).sum()
    });

    let mut out = EtDump {
        version: root.version(),
        blocks: Vec::with_capacity(run_count),
        events: Vec::with_capacity(event_bound),
        names: NameTable::default(),
        metadata: Vec::new(),
        skipped: SkippedEvents::default(),
    };
    let Some(runs) = runs else {
        return Ok(out);
    };
    let mut names = RecentNames::new();

    for run in runs.iter() {
        let first = out.events.len();
        let mut allocation_events = 0;
        let mut debug_events = 0;
        if let Some(events) = run.events() {
            for event in events.iter() {
                // The schema says exactly one member is set; if a writer set several, the
                // profile event wins (it is the only one we decode).
                if let Some(pe) = event.profile_event() {
                    let decoded =
                        decode_profile_event(pe, &mut names, &mut out.names, &mut out.metadata)?;
                    out.events.push(decoded);
                } else if event.debug_event().is_some() {
                    debug_events += 1;
                } else if event.allocation_event().is_some() {
                    allocation_events += 1;
                } else {
                    out.skipped.empty += 1;
                }
            }
        }
        out.skipped.allocation += allocation_events;
        out.skipped.debug += debug_events;
        out.blocks.push(RunBlock {
            name: run.name().unwrap_or("").to_owned(),
            bundled_input_index: run.bundled_input_index(),
            events: first..out.events.len(),
            allocation_events,
            debug_events,
        });
    }
    Ok(out)
}

fn decode_profile_event(
    pe: fb::ProfileEvent<'_>,
    recent: &mut RecentNames,
    names: &mut NameTable,
    metadata: &mut Vec<u8>,
) -> Result<ProfileEvent, EtDumpError> {
    let delegate_id = match pe.delegate_debug_id_str() {
        Some(s) if !s.is_empty() => Some(DelegateId::Str(recent.intern(names, s))),
        _ => match pe.delegate_debug_id_int() {
            -1 => None,
            i => Some(DelegateId::Int(i)),
        },
    };
    let metadata = match pe.delegate_debug_metadata() {
        None => None,
        Some(v) => {
            let bytes = v.bytes();
            let start = metadata.len();
            metadata.extend_from_slice(bytes);
            // The pool is smaller than the file, whose size prefix is a u32.
            let span = u32::try_from(start)
                .ok()
                .zip(u32::try_from(metadata.len()).ok())
                .map(|(start, end)| ByteSpan { start, end })
                .ok_or_else(|| {
                    EtDumpError::Corrupt("delegate_debug_metadata larger than 4 GiB".into())
                })?;
            Some(span)
        }
    };
    Ok(ProfileEvent {
        name: pe.name().map(|n| recent.intern(names, n)),
        delegate_id,
        chain_index: pe.chain_index(),
        instruction_id: pe.instruction_id(),
        start_ticks: pe.start_time(),
        end_ticks: pe.end_time(),
        metadata,
    })
}

/// A small direct-mapped cache in front of `NameTable::intern`: a dump repeats a few dozen
/// names per run, and comparing against one cached name is much cheaper than a SipHash
/// lookup. Misses (or crafted collisions) just fall through to the table, so a hostile
/// file cannot make interning slower than without the cache.
struct RecentNames {
    slots: [Option<NameId>; RecentNames::SLOTS],
}

impl RecentNames {
    const SLOTS: usize = 256;

    fn new() -> Self {
        RecentNames {
            slots: [None; Self::SLOTS],
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

    /// Mixes the length and the last 8 bytes: names often differ only at the end
    /// (`... GEMM #1`, `... GEMM #2`).
    #[inline]
    fn slot(s: &str) -> usize {
        let b = s.as_bytes();
        let k = b.len().min(8);
        let mut tail = [0u8; 8];
        tail[..k].copy_from_slice(&b[b.len() - k..]);
        let x = u64::from_le_bytes(tail) ^ (b.len() as u64).rotate_left(40);
        (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize % Self::SLOTS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn verifier_limits_scale_with_size() {
        let small = verifier_options(100);
        assert_eq!(small.max_tables, 100 / 4 + 1024);
        let big = verifier_options(100 << 20);
        // A 100 MB dump holds ~2.4M tables, more than the crate default of 1M.
        assert!(big.max_tables > 2_400_000);
        assert!(big.max_apparent_size >= 2 * (100 << 20));
    }
}
