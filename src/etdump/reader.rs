use std::ops::Range;
use std::path::Path;

use flatbuffers::{
    ErrorTraceDetail, Follow, ForwardsUOffset, InvalidFlatbuffer, SkipSizePrefix, Vector,
    Verifiable, Verifier, VerifierOptions,
};

use super::generated::etdump as fb;
use super::header::check_header;
use super::{
    ByteSpan, DelegateId, EtDump, EtDumpError, NameId, NameTable, ProfileEvent, RunBlock,
    SkippedEvents,
};

/// Below this size one thread is faster than starting more.
const PARALLEL_MIN_BYTES: usize = 4 << 20;

/// Parse the bytes of a whole `.etdp` file.
///
/// The root table and the `run_data` offsets are verified first; then the `RunData`
/// tables are verified (each with the flatbuffers verifier) and decoded in contiguous
/// chunks, one per core, and the chunks are merged in file order.
pub fn parse(bytes: &[u8]) -> Result<EtDump, EtDumpError> {
    let buf = check_header(bytes)?;
    let opts = verifier_options(buf.len());
    let mut verifier = Verifier::new(&opts, buf);
    <SkipSizePrefix<ForwardsUOffset<ShallowRoot>>>::run_verifier(&mut verifier, 0)
        .map_err(|e| EtDumpError::Corrupt(describe_invalid(&e, "ETDump")))?;
    // SAFETY: the root table, its scalar fields and the run_data vector of offsets were
    // verified just above. RunData tables are only read after their own verification.
    let root = unsafe { fb::size_prefixed_root_as_etdump_unchecked(buf) };
    let version = root.version();
    let Some(runs) = root.run_data() else {
        return Ok(EtDump {
            version,
            ..EtDump::default()
        });
    };
    // Position of the first element (an offset) of the run_data vector in `buf`.
    let first_element = runs.bytes().as_ptr() as usize - buf.as_ptr() as usize;
    let count = runs.len();

    let threads = if buf.len() >= PARALLEL_MIN_BYTES {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(count.max(1))
    } else {
        1
    };
    let chunks: Vec<Range<usize>> = (0..threads)
        .map(|t| count * t / threads..count * (t + 1) / threads)
        .collect();
    let parts: Vec<Result<Part, EtDumpError>> = if threads == 1 {
        vec![decode_chunk(buf, &opts, first_element, 0..count)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunks
                .iter()
                .map(|range| {
                    let (opts, range) = (&opts, range.clone());
                    scope.spawn(move || decode_chunk(buf, opts, first_element, range))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|payload| {
                        // The decode thread's own message reaches the user.
                        Err(EtDumpError::Corrupt(format!(
                            "internal error while decoding: {}",
                            crate::threads::panic_message(&*payload)
                        )))
                    })
                })
                .collect()
        })
    };
    merge(version, parts)
}

/// Read and parse a file. Errors do not include the path; callers add it.
pub fn read_file(path: &Path) -> Result<EtDump, EtDumpError> {
    let bytes = std::fs::read(path).map_err(|e| EtDumpError::Io(e.to_string()))?;
    parse(&bytes)
}

/// The root table with `run_data` checked only as a vector of offsets: the tables behind
/// them are verified chunk by chunk in [`decode_chunk`].
struct ShallowRoot;

impl Verifiable for ShallowRoot {
    fn run_verifier(v: &mut Verifier, pos: usize) -> Result<(), InvalidFlatbuffer> {
        v.visit_table(pos)?
            .visit_field::<u32>("version", fb::ETDump::VT_VERSION, false)?
            .visit_field::<ForwardsUOffset<Vector<'_, u32>>>(
                "run_data",
                fb::ETDump::VT_RUN_DATA,
                false,
            )?
            .finish();
        Ok(())
    }
}

/// The decoded events of a contiguous range of RunData blocks, with its own name table
/// and metadata pool (merged afterwards).
#[derive(Default)]
struct Part {
    blocks: Vec<RunBlock>,
    events: Vec<ProfileEvent>,
    names: NameTable,
    metadata: Vec<u8>,
    skipped: SkippedEvents,
    /// Last metadata span stored per label, for sharing repeated bytes.
    last_metadata: Vec<Option<ByteSpan>>,
}

fn decode_chunk(
    buf: &[u8],
    opts: &VerifierOptions,
    first_element: usize,
    range: Range<usize>,
) -> Result<Part, EtDumpError> {
    let mut verifier = Verifier::new(opts, buf);
    let mut part = Part::default();
    let mut recent = RecentNames::new();
    for index in range {
        let pos = first_element + 4 * index;
        <ForwardsUOffset<fb::RunData>>::run_verifier(&mut verifier, pos).map_err(|e| {
            EtDumpError::Corrupt(describe_invalid(&e, &format!("ETDump.run_data[{index}]")))
        })?;
        // SAFETY: this RunData (and everything it reaches) was verified just above.
        let run = unsafe { <ForwardsUOffset<fb::RunData>>::follow(buf, pos) };
        decode_run(run, &mut part, &mut recent)?;
    }
    Ok(part)
}

/// Concatenate parts in order, re-interning each part's names into the first one's table.
fn merge(version: u32, parts: Vec<Result<Part, EtDumpError>>) -> Result<EtDump, EtDumpError> {
    let parts: Vec<Part> = parts.into_iter().collect::<Result<_, _>>()?;
    let total_events: usize = parts.iter().map(|p| p.events.len()).sum();
    let mut parts = parts.into_iter().map(Ok::<Part, EtDumpError>);
    let first = match parts.next() {
        Some(p) => p?,
        None => Part::default(),
    };
    let mut events = first.events;
    // One exact allocation for all events rather than repeated doubling.
    events.reserve_exact(total_events - events.len());
    let mut out = EtDump {
        version,
        blocks: first.blocks,
        events,
        names: first.names,
        metadata: first.metadata,
        skipped: first.skipped,
    };
    for part in parts {
        let part = part?;
        let remap: Vec<NameId> = (0..part.names.len())
            .map(|i| out.names.intern(part.names.get(NameId(i as u32))))
            .collect();
        let event_base = out.events.len();
        let meta_base = u32::try_from(out.metadata.len())
            .ok()
            .filter(|b| b.checked_add(part.metadata.len() as u32).is_some())
            .ok_or_else(|| {
                EtDumpError::Corrupt("delegate_debug_metadata larger than 4 GiB".into())
            })?;
        out.metadata.extend_from_slice(&part.metadata);
        out.events.extend(part.events.iter().map(|ev| ProfileEvent {
            name: ev.name.map(|n| remap[n.0 as usize]),
            delegate_id: match ev.delegate_id {
                Some(DelegateId::Str(n)) => Some(DelegateId::Str(remap[n.0 as usize])),
                other => other,
            },
            metadata: ev.metadata.map(|m| ByteSpan {
                start: m.start + meta_base,
                end: m.end + meta_base,
            }),
            ..*ev
        }));
        out.blocks.extend(part.blocks.into_iter().map(|mut b| {
            b.events = b.events.start + event_base..b.events.end + event_base;
            b
        }));
        out.skipped.allocation += part.skipped.allocation;
        out.skipped.debug += part.skipped.debug;
        out.skipped.empty += part.skipped.empty;
    }
    Ok(out)
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
fn describe_invalid(e: &InvalidFlatbuffer, root: &str) -> String {
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
    let mut path = String::from(root);
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

/// Decodes one verified RunData into `part`. Accessors apply the schema defaults.
fn decode_run(
    run: fb::RunData<'_>,
    part: &mut Part,
    recent: &mut RecentNames,
) -> Result<(), EtDumpError> {
    let first = part.events.len();
    let mut allocation_events = 0;
    let mut debug_events = 0;
    if let Some(events) = run.events() {
        part.events.reserve(events.len());
        for event in events.iter() {
            // The schema says exactly one member is set; if a writer set several, the
            // profile event wins (it is the only one we decode).
            if let Some(pe) = event.profile_event() {
                let decoded = decode_profile_event(pe, recent, part)?;
                part.events.push(decoded);
            } else if event.debug_event().is_some() {
                debug_events += 1;
            } else if event.allocation_event().is_some() {
                allocation_events += 1;
            } else {
                part.skipped.empty += 1;
            }
        }
    }
    part.skipped.allocation += allocation_events;
    part.skipped.debug += debug_events;
    part.blocks.push(RunBlock {
        name: run.name().unwrap_or("").to_owned(),
        bundled_input_index: run.bundled_input_index(),
        events: first..part.events.len(),
        allocation_events,
        debug_events,
    });
    Ok(())
}

fn decode_profile_event(
    pe: fb::ProfileEvent<'_>,
    recent: &mut RecentNames,
    part: &mut Part,
) -> Result<ProfileEvent, EtDumpError> {
    let names = &mut part.names;
    let delegate_id = match pe.delegate_debug_id_str() {
        Some(s) if !s.is_empty() => Some(DelegateId::Str(recent.intern(names, s))),
        _ => match pe.delegate_debug_id_int() {
            -1 => None,
            i => Some(DelegateId::Int(i)),
        },
    };
    let name = pe.name().map(|n| recent.intern(names, n));
    let metadata = match pe.delegate_debug_metadata() {
        None => None,
        Some(v) => Some(pool_metadata(
            part,
            delegate_id.map_or(name, label_id),
            v.bytes(),
        )?),
    };
    Ok(ProfileEvent {
        name,
        delegate_id,
        chain_index: pe.chain_index(),
        instruction_id: pe.instruction_id(),
        start_ticks: pe.start_time(),
        end_ticks: pe.end_time(),
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
        if &part.metadata[prev.start as usize..prev.end as usize] == bytes {
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
