use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::path::Path;

use super::checked::{self, CheckResult, Cursor, Limits, Trail};
use super::event::{decode_profile_event, fast_event, RecentNames};
use super::header::check_header;
use super::shape::{self, Shapes};
use super::{
    ByteSpan, DelegateId, EtDump, EtDumpError, NameId, NameTable, ProfileEvent, RunBlock,
    SkippedEvents,
};

/// Below this size one thread is faster than starting more.
pub(super) const PARALLEL_MIN_BYTES: usize = 4 << 20;

/// Chunks of runs per decoding thread (see `parse`).
pub(super) const CHUNKS_PER_THREAD: usize = 4;

/// Parse the bytes of a whole `.etdp` file.
///
/// One pass: [`super::checked`] bounds-checks each table as it decodes it (the same checks
/// the flatbuffers verifier makes, so the verdict is the same), in contiguous chunks of
/// `RunData` blocks, one per core; the chunks are merged in file order.
pub fn parse(bytes: &[u8]) -> Result<EtDump, EtDumpError> {
    parse_by(bytes, Decoder::Shapes)
}

/// Which decoder reads the events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decoder {
    /// The fast path where a cached shape proves every check, else the checked path.
    Shapes,
    /// The checked path for every event (for tests: the verdicts and values the fast
    /// path must equal).
    Checked,
}

/// [`parse`] with the checked path for every event: what the fast path is held to.
#[doc(hidden)]
pub fn parse_checked_only(bytes: &[u8]) -> Result<EtDump, EtDumpError> {
    parse_by(bytes, Decoder::Checked)
}

/// How many of the dump's profile events the fast path decodes, of how many (one chunk,
/// one thread): for tests that the fast path is the one taken.
#[doc(hidden)]
pub fn shape_coverage(bytes: &[u8]) -> Result<(usize, usize), EtDumpError> {
    let buf = check_header(bytes)?;
    let limits = Limits::for_buffer(buf.len());
    let root = checked::root(&mut Cursor::new(buf, limits)).map_err(|b| b.into_error("ETDump"))?;
    let Some(runs) = root.run_data else {
        return Ok((0, 0));
    };
    let part = decode_chunk(
        buf,
        limits,
        runs.start,
        0..runs.len() / 4,
        &mut [],
        Vec::new(),
        Decoder::Shapes,
    )?;
    Ok((part.fast, part.overflow.len()))
}

fn parse_by(bytes: &[u8], path: Decoder) -> Result<EtDump, EtDumpError> {
    let buf = check_header(bytes)?;
    let limits = Limits::for_buffer(buf.len());
    let mut root_cur = Cursor::new(buf, limits);
    let root = checked::root(&mut root_cur).map_err(|b| b.into_error("ETDump"))?;
    let Some(runs) = root.run_data else {
        return Ok(EtDump {
            version: root.version,
            ..EtDump::default()
        });
    };
    let first_element = runs.start;
    let count = runs.len() / 4;

    let threads = if buf.len() >= PARALLEL_MIN_BYTES {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 8)
            .min(count.max(1))
    } else {
        1
    };
    // Several chunks per thread, taken as threads become free: a thread slowed down by
    // another process does not hold up the end.
    let pieces = if threads == 1 {
        1
    } else {
        threads * CHUNKS_PER_THREAD
    };
    let chunks: Vec<Range<usize>> = (0..pieces)
        .map(|t| count * t / pieces..count * (t + 1) / pieces)
        .collect();
    // Every chunk decodes straight into its own stretch of one allocation, sized by a
    // quick count of each run's `Event`s: no growing, no copying parts together. A count
    // that fails (bad offsets) leaves a chunk no slots; it then collects its events
    // aside and the decoder reports the problem precisely. Counting faults in most of
    // the file's pages (each run's table heads its events), so it is parallel too.
    let counts: Vec<usize> = crate::threads::map_pulled(threads, chunks.clone(), |r| {
        count_events(buf, first_element, r).unwrap_or(0)
    })
    .into_iter()
    .map(|c| c.unwrap_or(0))
    .collect();
    let total: usize = counts.iter().sum();
    let mut events: Vec<ProfileEvent> = Vec::new();
    if events.try_reserve_exact(total).is_err() {
        return Err(EtDumpError::Corrupt(format!(
            "{total} events do not fit in memory"
        )));
    }
    advise_huge_pages(events.spare_capacity_mut());
    let mut work: Vec<(Range<usize>, &mut [MaybeUninit<ProfileEvent>])> =
        Vec::with_capacity(pieces);
    let mut rest = &mut events.spare_capacity_mut()[..total];
    for (range, &n) in chunks.into_iter().zip(&counts) {
        let (mine, others) = rest.split_at_mut(n);
        work.push((range, mine));
        rest = others;
    }
    let parts: Vec<Result<Part, EtDumpError>> =
        crate::threads::map_pulled(threads, work, |(range, slot)| {
            decode_chunk(buf, limits, first_element, range, slot, Vec::new(), path)
        })
        .into_iter()
        .map(|r| {
            // The decode thread's own message reaches the user.
            r.unwrap_or_else(|panic| {
                Err(EtDumpError::Corrupt(format!(
                    "internal error while decoding: {panic}"
                )))
            })
        })
        .collect();
    merge(root.version, parts, events, &counts)
}

/// Asks for transparent huge pages behind a big fresh allocation about to be written
/// in full: one fault per 2 MiB instead of one per 4 KiB page (the kernel's default
/// `madvise` mode gives them only to ranges that ask).
fn advise_huge_pages<T>(spare: &mut [MaybeUninit<T>]) {
    const HUGE: usize = 2 << 20;
    let bytes = std::mem::size_of_val(spare);
    if bytes < 4 * HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        let start = spare.as_mut_ptr() as usize;
        let (lo, hi) = (start.div_ceil(HUGE) * HUGE, (start + bytes) / HUGE * HUGE);
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the allocation behind `spare`, which we own
            // and have not written yet; the advice changes no contents.
            unsafe {
                libc::madvise(lo as *mut libc::c_void, hi - lo, libc::MADV_HUGEPAGE);
            }
        }
    }
}

/// The number of `Event`s of the runs in `range` (an upper bound on their profile
/// events), read without checks beyond bounds; None if any offset is off (the decoder
/// then finds and reports it).
pub(super) fn count_events(buf: &[u8], first_element: usize, range: Range<usize>) -> Option<usize> {
    let u32_at = |pos: usize| -> Option<usize> {
        Some(u32::from_le_bytes(buf.get(pos..pos.checked_add(4)?)?.try_into().ok()?) as usize)
    };
    let u16_at = |pos: usize| -> Option<usize> {
        Some(u16::from_le_bytes(buf.get(pos..pos.checked_add(2)?)?.try_into().ok()?) as usize)
    };
    let mut total = 0usize;
    for index in range {
        let pos = first_element.checked_add(index.checked_mul(4)?)?;
        let table = pos.checked_add(u32_at(pos)?)?;
        let soffset = u32_at(table)? as u32 as i32;
        let vtable = if soffset > 0 {
            table.checked_sub(soffset.unsigned_abs() as usize)?
        } else {
            table.checked_add(soffset.unsigned_abs() as usize)?
        };
        let slot = super::generated::etdump::RunData::VT_EVENTS as usize;
        if slot >= u16_at(vtable)? {
            continue;
        }
        let field = u16_at(vtable.checked_add(slot)?)?;
        if field == 0 {
            continue;
        }
        let at = table.checked_add(field)?;
        let vector = at.checked_add(u32_at(at)?)?;
        total = total.checked_add(u32_at(vector)?)?;
    }
    // Each event takes at least 4 bytes of offsets: more cannot be genuine.
    (total <= buf.len() / 4).then_some(total)
}

/// Read and parse a file. Errors do not include the path; callers add it.
pub fn read_file(path: &Path) -> Result<EtDump, EtDumpError> {
    let bytes = std::fs::read(path).map_err(|e| EtDumpError::Io(e.to_string()))?;
    parse(&bytes)
}

/// The decoded events of a contiguous range of RunData blocks, with its own name table
/// and metadata pool (merged afterwards).
#[derive(Default)]
pub(super) struct Part {
    pub(super) blocks: Vec<RunBlock>,
    /// Events written into this chunk's slots, in order; block ranges count from the
    /// chunk's first event (slots first, then `overflow`).
    written: usize,
    /// Events beyond the slots (only when counting failed).
    pub(super) overflow: Vec<ProfileEvent>,
    pub(super) names: NameTable,
    pub(super) metadata: Vec<u8>,
    pub(super) skipped: SkippedEvents,
    /// Last metadata span stored per label, for sharing repeated bytes.
    pub(super) last_metadata: Vec<Option<ByteSpan>>,
    /// Events the fast path decoded.
    pub(super) fast: usize,
}

/// Where a chunk's events go: its slots, then a vector.
struct Sink<'s> {
    slots: &'s mut [MaybeUninit<ProfileEvent>],
    len: usize,
    overflow: Vec<ProfileEvent>,
}

impl Sink<'_> {
    #[inline]
    fn push(&mut self, ev: ProfileEvent) {
        match self.slots.get_mut(self.len) {
            Some(slot) => {
                slot.write(ev);
            }
            None => self.overflow.push(ev),
        }
        self.len += 1;
    }
}

/// Decodes the runs `range` into a [`Part`]: events into `slots`, then, past them, onto
/// `overflow` (which may come with room reserved).
pub(super) fn decode_chunk(
    buf: &[u8],
    limits: Limits,
    first_element: usize,
    range: Range<usize>,
    slots: &mut [MaybeUninit<ProfileEvent>],
    overflow: Vec<ProfileEvent>,
    path: Decoder,
) -> Result<Part, EtDumpError> {
    let mut cur = Cursor::new(buf, limits);
    let mut part = Part {
        blocks: Vec::with_capacity(range.len()),
        ..Part::default()
    };
    let mut sink = Sink {
        slots,
        len: 0,
        overflow,
    };
    let mut recent = RecentNames::new();
    let mut shapes = Shapes::new(path == Decoder::Shapes);
    // Table positions of the runs decoded since pages were last released.
    let mut window: Option<(usize, usize)> = None;
    let end = range.end;
    for (n, index) in range.enumerate() {
        let pos = first_element + 4 * index;
        // The next run's table is a page or more on: its first read would wait on memory
        // (the hardware prefetcher stops at page boundaries).
        if index + 1 < end {
            super::shape::prefetch(buf, pos + 4);
        }
        decode_run(
            &mut cur,
            pos,
            &mut part,
            &mut sink,
            &mut recent,
            &mut shapes,
        )
        .map_err(|b| b.into_error(&format!("ETDump.run_data[{index}]")))?;
        // The offset was just checked: the table is at pos + offset, in the buffer.
        let table = buf
            .get(pos..pos + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(pos, |b: [u8; 4]| {
                pos.saturating_add(u32::from_le_bytes(b) as usize)
            });
        window = Some(window.map_or((table, table), |(lo, hi)| (lo.min(table), hi.max(table))));
        if n % RELEASE_EVERY_RUNS == RELEASE_EVERY_RUNS - 1 {
            release(buf, window.take());
        }
    }
    release(buf, window);
    part.written = sink.len;
    part.overflow = sink.overflow;
    Ok(part)
}

/// Runs decoded between two releases of the mapped pages behind the decoder.
const RELEASE_EVERY_RUNS: usize = 2048;

/// A writer lays out each run's tables together, so the bytes between the first and last
/// run tables of a window hold those runs: once decoded they need not stay resident
/// (only has an effect on a file map, see `input::release_mapped_pages`; pages touched
/// again are faulted back in).
fn release(buf: &[u8], window: Option<(usize, usize)>) {
    if let Some((lo, hi)) = window {
        if let Some(bytes) = buf.get(lo..hi.min(buf.len())) {
            crate::input::release_mapped_pages(bytes);
        }
    }
}

/// Joins the parts in order: each part's events are moved down next to the previous
/// part's (closing the gaps left by `Event`s that were not profile events), their names
/// re-interned into the first part's table and their metadata spans rebased.
fn merge(
    version: u32,
    parts: Vec<Result<Part, EtDumpError>>,
    mut events: Vec<ProfileEvent>,
    counts: &[usize],
) -> Result<EtDump, EtDumpError> {
    let parts: Vec<Part> = parts.into_iter().collect::<Result<_, _>>()?;
    if parts.iter().any(|p| !p.overflow.is_empty()) {
        return merge_slow(version, parts, events, counts);
    }
    let mut out = EtDump {
        version,
        ..EtDump::default()
    };
    let mut base = 0usize;
    for (k, part) in parts.into_iter().enumerate() {
        let slots = counts.get(k).copied().unwrap_or(0);
        let n = part.written.min(slots);
        let at = events.len();
        // SAFETY: this part wrote `n` events into its slots, which start at `base` in
        // the spare capacity; `at <= base` (earlier parts wrote no more than their
        // slots), `base + n <= capacity`. `ptr::copy` allows the overlap, and the first
        // `at + n` elements are initialised once it is done. ProfileEvent is Copy.
        unsafe {
            if base != at {
                let p = events.as_mut_ptr();
                std::ptr::copy(p.add(base), p.add(at), n);
            }
            events.set_len(at + n);
        }
        base += slots;
        if let Some((remap, meta_base)) = absorb(&mut out, part, k == 0, at)? {
            for ev in &mut events[at..] {
                *ev = rebase(ev, &remap, meta_base);
            }
        }
    }
    out.events = events;
    Ok(out)
}

/// [`merge`] when some part had events beyond its slots (its count failed): copies.
fn merge_slow(
    version: u32,
    parts: Vec<Part>,
    events: Vec<ProfileEvent>,
    counts: &[usize],
) -> Result<EtDump, EtDumpError> {
    // The parts' slots, in the (uninitialised) capacity of `events`.
    let spare = events.as_ptr();
    let mut out = EtDump {
        version,
        ..EtDump::default()
    };
    let mut base = 0usize;
    for (k, mut part) in parts.into_iter().enumerate() {
        let slots = counts.get(k).copied().unwrap_or(0);
        let n = part.written.min(slots);
        // SAFETY: as in `merge`: the part initialised `n` slots from `base`.
        let written: &[ProfileEvent] = unsafe { std::slice::from_raw_parts(spare.add(base), n) };
        base += slots;
        let overflow = std::mem::take(&mut part.overflow);
        let at = out.events.len();
        let rebasing = absorb(&mut out, part, k == 0, at)?;
        out.events
            .extend(written.iter().chain(&overflow).map(|ev| match &rebasing {
                Some((remap, meta_base)) => rebase(ev, remap, *meta_base),
                None => *ev,
            }));
    }
    Ok(out)
}

/// Adds what a part holds besides its events to `out`: its names, metadata pool, blocks
/// (their event ranges now from `at`) and skipped counts. The first part is moved in as
/// it is (None); a later one gives how to rebase its events: the ids of its names in the
/// merged table and where its metadata pool starts.
fn absorb(
    out: &mut EtDump,
    part: Part,
    first: bool,
    at: usize,
) -> Result<Option<(Vec<NameId>, u32)>, EtDumpError> {
    if first {
        out.names = part.names;
        out.metadata = part.metadata;
        out.blocks = part.blocks;
        out.skipped = part.skipped;
        return Ok(None);
    }
    let remap: Vec<NameId> = (0..part.names.len())
        .map(|i| out.names.intern(part.names.get(NameId(i as u32))))
        .collect();
    let meta_base = metadata_base(&out.metadata, &part.metadata)?;
    out.metadata.extend_from_slice(&part.metadata);
    out.blocks.extend(part.blocks.into_iter().map(|mut b| {
        b.events = b.events.start + at..b.events.end + at;
        b
    }));
    out.skipped.allocation += part.skipped.allocation;
    out.skipped.debug += part.skipped.debug;
    out.skipped.empty += part.skipped.empty;
    Ok(Some((remap, meta_base)))
}

pub(super) fn metadata_base(pool: &[u8], more: &[u8]) -> Result<u32, EtDumpError> {
    u32::try_from(pool.len())
        .ok()
        .filter(|b| u32::try_from(more.len()).is_ok_and(|m| b.checked_add(m).is_some()))
        .ok_or_else(|| EtDumpError::Corrupt("delegate_debug_metadata larger than 4 GiB".into()))
}

/// An event of a later part with its names in the merged table and its metadata span
/// in the merged pool.
#[inline]
pub(super) fn rebase(ev: &ProfileEvent, remap: &[NameId], meta_base: u32) -> ProfileEvent {
    ProfileEvent {
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
    }
}

/// Decodes the RunData whose offset is at `pos` into `part`, checking every field the
/// flatbuffers verifier would check (sub-tables we do not decode are handed to it).
fn decode_run(
    cur: &mut Cursor<'_>,
    pos: usize,
    part: &mut Part,
    sink: &mut Sink<'_>,
    recent: &mut RecentNames,
    shapes: &mut Shapes,
) -> CheckResult<()> {
    let run = checked::run_data(cur, pos)?;
    let first = sink.len;
    let mut allocation_events = 0;
    let mut debug_events = 0;
    let name = match run.name.unwrap_or("") {
        "Execute" => Cow::Borrowed("Execute"),
        "Default" => Cow::Borrowed("Default"),
        other => Cow::Owned(other.to_owned()),
    };
    if let Some(events) = run.events.clone() {
        let ahead = 4 * shape::PREFETCH_AHEAD;
        let last = events.end.saturating_sub(4);
        for (i, elem) in events.step_by(4).enumerate() {
            if elem + ahead <= last {
                shape::prefetch(cur.buf(), elem + ahead);
            }
            if let Some(decoded) = fast_event(cur, shapes, elem, recent, part) {
                sink.push(decoded);
                part.fast += 1;
                continue;
            }
            let event = checked::event(cur, elem).at_index(i).at_field("events")?;
            if let Some(pe) = event.profile_event {
                let decoded = decode_profile_event(cur, pe, recent, part)
                    .at_field("profile_event")
                    .at_index(i)
                    .at_field("events")?;
                sink.push(decoded);
            }
            checked::unread_event_members(cur, &event)
                .at_index(i)
                .at_field("events")?;
            // The schema says exactly one member is set; if a writer set several, the
            // profile event wins (it is the only one we decode).
            if event.profile_event.is_some() {
            } else if event.debug_event.is_some() {
                debug_events += 1;
            } else if event.allocation_event.is_some() {
                allocation_events += 1;
            } else {
                part.skipped.empty += 1;
            }
            if event.profile_event.is_some() {
                shapes.learn(cur.buf(), elem);
            }
        }
    }
    part.skipped.allocation += allocation_events;
    part.skipped.debug += debug_events;
    part.blocks.push(RunBlock {
        name,
        bundled_input_index: run.bundled_input_index,
        events: first..sink.len,
        allocation_events,
        debug_events,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifier_limits_scale_with_size() {
        let small = Limits::for_buffer(100);
        assert_eq!(small.max_tables, 100 / 4 + 1024);
        let big = Limits::for_buffer(100 << 20);
        // A 100 MB dump holds ~2.4M tables, more than the crate default of 1M.
        assert!(big.max_tables > 2_400_000);
        assert!(big.max_apparent_size >= 2 * (100 << 20));
    }
}
