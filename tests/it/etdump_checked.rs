//! Differential tests of the checked decoder (`etdump::parse`) against the flatbuffers
//! crate's verifier and the generated accessors:
//! - on every mutant whose header is intact, `parse` accepts exactly when the verifier
//!   accepts (the verifier's table and size budgets aside: they guard time, not memory
//!   safety, and are counted per chunk);
//! - whatever `parse` accepts, the verifier accepts too, so the generated accessors are
//!   safe on it, and they read the same events as `parse` returned;
//! - `parse` (whose fast path decodes events by cached vtable shapes) gives exactly what
//!   the checked path alone gives (`parse_checked_only`): the same dump, names, ids and
//!   metadata pool, or the same error message.

use crate::support::etdump_build as build;

use cpuprof_tui::etdump::generated::etdump as fb;
use cpuprof_tui::etdump::{self, DelegateId, EtDump, EtDumpError};
use flatbuffers::{InvalidFlatbuffer, VerifierOptions};
use proptest::prelude::*;

const REAL: [&[u8]; 3] = [
    include_bytes!("../../fixtures/real/mlp_xnnpack.etdp"),
    include_bytes!("../../fixtures/real/cnn_portable.etdp"),
    include_bytes!("../../fixtures/real/mlp_portable_debugbuf.etdp"),
];

/// The verifier's options as the reader scales them (`len / 4 + 1024` tables, 16x the
/// buffer plus 1 MiB touched), written out here rather than imported.
fn options(len: usize) -> VerifierOptions {
    VerifierOptions {
        max_depth: 64,
        max_tables: len / 4 + 1024,
        max_apparent_size: len * 16 + (1 << 20),
        ignore_missing_null_terminator: false,
    }
}

/// One event as the generated accessors read it: (name, delegate str, delegate int,
/// chain, instruction, start, end, metadata).
type RefEvent = (
    Option<String>,
    Option<String>,
    i32,
    i32,
    i32,
    u64,
    u64,
    Option<Vec<u8>>,
);

/// A whole dump: version, then per run (name, bundled input, events, allocation and
/// debug event counts).
type RefDump = (u32, Vec<(String, i32, Vec<RefEvent>, usize, usize)>);

/// Decodes with the verifier and the generated accessors (the reference).
fn reference(bytes: &[u8]) -> Result<RefDump, InvalidFlatbuffer> {
    let root = fb::size_prefixed_root_as_etdump_with_opts(&options(bytes.len()), bytes)?;
    let mut runs = Vec::new();
    for run in root.run_data().iter().flat_map(|v| v.iter()) {
        let mut events = Vec::new();
        let (mut alloc, mut debug) = (0, 0);
        for ev in run.events().iter().flat_map(|v| v.iter()) {
            if let Some(pe) = ev.profile_event() {
                events.push((
                    pe.name().map(str::to_owned),
                    pe.delegate_debug_id_str().map(str::to_owned),
                    pe.delegate_debug_id_int(),
                    pe.chain_index(),
                    pe.instruction_id(),
                    pe.start_time(),
                    pe.end_time(),
                    pe.delegate_debug_metadata().map(|m| m.bytes().to_vec()),
                ));
            } else if ev.debug_event().is_some() {
                debug += 1;
            } else if ev.allocation_event().is_some() {
                alloc += 1;
            }
        }
        runs.push((
            run.name().unwrap_or("").to_owned(),
            run.bundled_input_index(),
            events,
            alloc,
            debug,
        ));
    }
    Ok((root.version(), runs))
}

/// `parse`'s output in the reference's shape.
fn ours(dump: &EtDump) -> RefDump {
    let runs = dump
        .blocks
        .iter()
        .map(|b| {
            let events = dump
                .block_events(b)
                .iter()
                .map(|ev| {
                    let (dstr, dint) = match ev.delegate_id {
                        Some(DelegateId::Str(s)) => (Some(dump.names.get(s).to_owned()), -1),
                        Some(DelegateId::Int(i)) => (None, i),
                        None => (None, -1),
                    };
                    (
                        dump.name(ev).map(str::to_owned),
                        dstr,
                        dint,
                        ev.chain_index,
                        ev.instruction_id,
                        ev.start_ticks,
                        ev.end_ticks,
                        dump.metadata_bytes(ev).map(<[u8]>::to_vec),
                    )
                })
                .collect();
            (
                b.name.to_string(),
                b.bundled_input_index,
                events,
                b.allocation_events,
                b.debug_events,
            )
        })
        .collect();
    (dump.version, runs)
}

/// The reference with `parse`'s normalisation of delegate ids: an empty string id counts
/// as absent, and the int is only kept when no non-empty string id is present.
fn normalise(mut r: RefDump) -> impl PartialEq + std::fmt::Debug {
    for run in &mut r.1 {
        for ev in &mut run.2 {
            if ev.1.as_deref() == Some("") {
                ev.1 = None;
            }
            if ev.1.is_some() {
                ev.2 = -1;
            }
        }
    }
    r
}

/// Whether `a` and `b` are the same dump: events with their name ids and metadata
/// spans, blocks, the name table in id order, the metadata pool, the skipped counts.
fn same_dump(a: &EtDump, b: &EtDump) -> bool {
    let names = |d: &EtDump| {
        (0..d.names.len() as u32)
            .map(|i| d.names.get(etdump::NameId(i)).to_owned())
            .collect::<Vec<_>>()
    };
    a.version == b.version
        && a.blocks == b.blocks
        && a.events == b.events
        && names(a) == names(b)
        && a.metadata == b.metadata
        && a.skipped == b.skipped
}

/// The fast path against the checked path alone on `bytes`: the same dump, or the same
/// message (budget verdicts aside: the fast path counts a visit's bytes in one sum).
fn check_fast_path(bytes: &[u8], fast: &Result<EtDump, EtDumpError>) {
    let budget = |e: &EtDumpError| e.to_string().contains("offsets revisit tables?");
    match (fast, &etdump::parse_checked_only(bytes)) {
        (Ok(f), Ok(c)) => assert!(same_dump(f, c), "the fast path decoded another dump"),
        (Err(f), Err(c)) => {
            if !budget(f) && !budget(c) {
                assert_eq!(
                    f.to_string(),
                    c.to_string(),
                    "the fast path reports another error"
                )
            }
        }
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => {
            assert!(budget(e), "one path accepts, the other rejects: {e}")
        }
    }
}

/// Compares `parse` with the verifier and with the checked path alone on `bytes`.
fn check(bytes: &[u8]) {
    let ours_result = etdump::parse(bytes);
    check_fast_path(bytes, &ours_result);
    // Header verdicts (not an ETDump, incomplete, trailing bytes) come before any table
    // is read: the verifier has no opinion on them.
    let header_ok = match &ours_result {
        Ok(_) => true,
        Err(EtDumpError::Corrupt(m)) => m.starts_with("flatbuffer verification failed"),
        Err(_) => false,
    };
    if !header_ok {
        return;
    }
    match (reference(bytes), ours_result) {
        (Ok(r), Ok(dump)) => {
            let normalised = normalise(r);
            let got = normalise(ours(&dump));
            assert_eq!(got, normalised, "decoded content differs");
        }
        (Err(InvalidFlatbuffer::TooManyTables | InvalidFlatbuffer::ApparentSizeTooLarge), _) => {}
        (Err(e), Ok(_)) => panic!("parse accepted what the verifier rejects: {e}"),
        (Ok(_), Err(e)) => {
            if !e.to_string().contains("Too many tables")
                && !e.to_string().contains("Apparent size")
            {
                panic!("parse rejected what the verifier accepts: {e}")
            }
        }
        (Err(_), Err(_)) => {}
    }
}

fn built() -> Vec<u8> {
    let mut runs = build::xnnpack_like(3);
    // A debug event and an allocation event, so the sub-tables handed to the verifier
    // are exercised too.
    if let Some(events) = runs[1].events.as_mut() {
        events.push(build::BuiltEvent::Debug {
            name: Some("dbg".into()),
            output: true,
        });
        events.push(build::BuiltEvent::Allocation {
            allocator_id: 1,
            size: 64,
        });
    }
    build::build(0, &runs)
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

#[test]
fn unmutated_dumps_agree() {
    for bytes in REAL {
        check(bytes);
        assert!(etdump::parse(bytes).is_ok());
    }
    check(&built());
    assert!(etdump::parse(&built()).is_ok());
}

/// The fast path is the one taken: all but the first event of each vtable (flatcc
/// shares vtables within a buffer: 64 of 67, 221 of 223 and 221 of 223 events of the
/// real dumps; the builder too).
#[test]
fn the_fast_path_decodes_nearly_every_event() {
    let many_runs = build::build(0, &build::xnnpack_like(200));
    for bytes in REAL.iter().copied().map(<[u8]>::to_vec).chain([many_runs]) {
        let (fast, all) = etdump::shape_coverage(&bytes).unwrap();
        let events = etdump::parse(&bytes).unwrap().events.len();
        assert_eq!(all, events);
        assert!(
            fast * 10 >= all * 9,
            "{fast} of {all} events by the fast path"
        );
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Byte flips anywhere after the header.
    #[test]
    fn flips_agree_with_the_verifier(
        which in 0..REAL.len() + 1,
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..8),
    ) {
        let mut bytes = if which < REAL.len() { REAL[which].to_vec() } else { built() };
        for (at, x) in &flips {
            let i = 12 + at.index(bytes.len() - 12);
            bytes[i] ^= x;
        }
        check(&bytes);
    }

    /// Aligned 32-bit words overwritten with offset-like values (what hits offsets,
    /// soffsets, vector lengths and vtable entries, rather than timestamps).
    #[test]
    fn word_writes_agree_with_the_verifier(
        which in 0..REAL.len() + 1,
        writes in prop::collection::vec((any::<prop::sample::Index>(), prop_oneof![
            Just(0u32), Just(1), Just(2), Just(4), Just(0xFFFF_FFFF), Just(0x8000_0000),
            Just(0x7FFF_FFFF), 0u32..64, any::<u32>(),
        ]), 1..4),
    ) {
        let mut bytes = if which < REAL.len() { REAL[which].to_vec() } else { built() };
        for (at, v) in &writes {
            let words = (bytes.len() - 12) / 4;
            let i = 12 + 4 * at.index(words);
            bytes[i..i + 4].copy_from_slice(&v.to_le_bytes());
        }
        check(&bytes);
    }

    /// 16-bit writes (vtable lengths and field offsets are u16).
    #[test]
    fn half_word_writes_agree_with_the_verifier(
        which in 0..REAL.len() + 1,
        at in any::<prop::sample::Index>(),
        v in prop_oneof![Just(0u16), Just(1), Just(3), Just(4), Just(0xFFFF), 0u16..40],
    ) {
        let mut bytes = if which < REAL.len() { REAL[which].to_vec() } else { built() };
        let halves = (bytes.len() - 12) / 2;
        let i = 12 + 2 * at.index(halves);
        bytes[i..i + 2].copy_from_slice(&v.to_le_bytes());
        check(&bytes);
    }
}

#[test]
fn error_path_names_the_field() {
    // Bad UTF-8 in a run name: the path goes through run_data[1].name.
    let mut runs = build::xnnpack_like(2);
    runs[1].name = Some("Exec\u{e9}".into());
    let mut bytes = build::build(0, &runs);
    let at = bytes
        .windows(6)
        .position(|w| w == "Exec\u{e9}".as_bytes())
        .unwrap();
    // Make the 2-byte sequence for é invalid (0xC3 0xA9 -> 0xC3 0x41).
    bytes[at + 5] = 0x41;
    match etdump::parse(&bytes) {
        Err(EtDumpError::Corrupt(m)) => {
            assert!(m.contains("ETDump.run_data[1].name"), "{m}");
            assert!(m.contains("Utf8 error"), "{m}");
        }
        other => panic!("{:?}", other.map(|d| d.events.len())),
    }
    check(&bytes);
}

/// A dump big enough to be decoded by several threads (>= 4 MB), with debug and
/// allocation events in some runs (gaps between the threads' slots to close): the
/// events, blocks and names equal the verifier + accessors reading.
#[test]
fn parallel_decode_agrees_with_the_accessors() {
    let mut runs = build::xnnpack_like(12_000);
    for (i, run) in runs.iter_mut().enumerate().skip(1) {
        if i % 997 == 0 {
            if let Some(events) = run.events.as_mut() {
                events.insert(
                    1,
                    build::BuiltEvent::Debug {
                        name: Some(format!("dbg{i}")),
                        output: false,
                    },
                );
                events.push(build::BuiltEvent::Allocation {
                    allocator_id: 0,
                    size: i as u64,
                });
            }
        }
        if i == 7_001 {
            // A name only the second half of the file has.
            if let Some(build::BuiltEvent::Profile(p)) =
                run.events.as_mut().and_then(|e| e.first_mut())
            {
                p.delegate_str = Some("only in the second half".into());
            }
        }
    }
    let bytes = build::build(0, &runs);
    assert!(bytes.len() > 4 << 20, "{} bytes", bytes.len());
    check(&bytes);
    let dump = etdump::parse(&bytes).unwrap();
    assert_eq!(dump.blocks.len(), 12_001);
    assert_eq!(dump.skipped.debug, 12);
}

proptest! {
    #![proptest_config(config(12))]
    /// Words written anywhere in a dump decoded by several threads (the per-chunk event
    /// counts read offsets unchecked before the decoder checks them): the verdict and
    /// the content still match the verifier's, and nothing panics.
    #[test]
    fn word_writes_in_a_parallel_dump_agree_with_the_verifier(
        at in 4usize..(4 << 20),
        word in prop_oneof![Just(0u32), Just(u32::MAX), Just(0x7fff_ffff), 0u32..4096],
    ) {
        static BIG: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let big = BIG.get_or_init(|| build::build(0, &build::xnnpack_like(12_000)));
        prop_assert!(big.len() > 4 << 20);
        let mut bytes = big.clone();
        let at = at & !3;
        bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        check(&bytes);
    }
}
