//! Property tests for the ETDump reader: damaged input never panics and gets the right
//! error kind; dumps built from a random model read back as that model.

use crate::support::etdump_build as build;

use build::{BuiltEvent, BuiltProfile, BuiltRun};
use cpuprof_tui::etdump::{self, DelegateId, EtDump, EtDumpError};
use proptest::prelude::*;

const REAL: [&[u8]; 3] = [
    include_bytes!("../../fixtures/real/mlp_xnnpack.etdp"),
    include_bytes!("../../fixtures/real/cnn_portable.etdp"),
    include_bytes!("../../fixtures/real/mlp_portable_debugbuf.etdp"),
];

/// Whatever parse returns must be safe to use: ranges and ids in bounds.
fn assert_consistent(dump: &EtDump) {
    let mut next = 0;
    for b in &dump.blocks {
        assert_eq!(b.events.start, next);
        assert!(b.events.end >= b.events.start && b.events.end <= dump.events.len());
        next = b.events.end;
    }
    assert_eq!(next, dump.events.len());
    for ev in &dump.events {
        let _ = dump.label(ev);
        let _ = dump.name(ev);
        if let Some(span) = ev.metadata {
            assert!(span.start <= span.end && span.end as usize <= dump.metadata.len());
        }
    }
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(500))]

    /// XOR flips anywhere in a real dump (the header included): a typed error or a
    /// consistent dump, never a panic.
    #[test]
    fn flipped_bytes_never_panic(
        which in 0..REAL.len(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..64),
    ) {
        let mut bytes = REAL[which].to_vec();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        if let Ok(dump) = etdump::parse(&bytes) {
            assert_consistent(&dump);
        }
    }

    /// A valid file cut anywhere: Incomplete while the 12-byte header is intact (the prefix
    /// still names the full length), NotEtDump below that.
    #[test]
    fn truncation_is_incomplete_or_not_etdump(which in 0..REAL.len(), cut in any::<prop::sample::Index>()) {
        let full = REAL[which];
        let len = cut.index(full.len()); // 0..full.len()
        let err = etdump::parse(&full[..len]).unwrap_err();
        if len >= 12 {
            prop_assert_eq!(err, EtDumpError::Incomplete {
                declared: full.len() as u64 - 4,
                available: len as u64 - 4,
            });
        } else {
            prop_assert_eq!(err.kind(), "not_etdump");
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(dump) = etdump::parse(&bytes) {
            assert_consistent(&dump);
        }
    }

    /// Random bodies behind a correct header reach the verifier every time.
    #[test]
    fn arbitrary_body_behind_valid_header_never_panics(
        root in 0u32..64,
        body in prop::collection::vec(any::<u8>(), 0..512),
    ) {
        let mut bytes = ((body.len() + 8) as u32).to_le_bytes().to_vec();
        bytes.extend_from_slice(&root.to_le_bytes());
        bytes.extend_from_slice(b"ED00");
        bytes.extend_from_slice(&body);
        match etdump::parse(&bytes) {
            Ok(dump) => assert_consistent(&dump),
            Err(e) => prop_assert_eq!(e.kind(), "corrupt"),
        }
    }
}

fn name_strategy() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(String::new())),
        prop::sample::select(vec![
            "OPERATOR_CALL",
            "DELEGATE_CALL",
            "Method::execute",
            "é #1"
        ])
        .prop_map(|s| Some(s.to_owned())),
        "\\PC{0,12}".prop_map(Some),
    ]
}

fn event_strategy() -> impl Strategy<Value = BuiltEvent> {
    let profile = (
        name_strategy(),
        name_strategy(),
        prop_oneof![Just(-1i32), any::<i32>()],
        prop_oneof![Just(-1i32), Just(0), any::<i32>()],
        prop_oneof![Just(0i32), Just(-1), any::<i32>()],
        prop::option::of(prop::collection::vec(any::<u8>(), 0..8)),
        any::<u64>(),
        any::<u64>(),
    )
        .prop_map(
            |(
                name,
                delegate_str,
                delegate_int,
                instruction_id,
                chain_index,
                metadata,
                start,
                end,
            )| {
                BuiltEvent::Profile(BuiltProfile {
                    name,
                    chain_index,
                    instruction_id,
                    delegate_int,
                    delegate_str,
                    metadata,
                    start,
                    end,
                })
            },
        );
    prop_oneof![
        6 => profile,
        1 => (name_strategy(), any::<bool>()).prop_map(|(name, output)| BuiltEvent::Debug { name, output }),
        1 => (any::<i32>(), any::<u64>()).prop_map(|(allocator_id, size)| BuiltEvent::Allocation { allocator_id, size }),
        1 => Just(BuiltEvent::Empty),
    ]
}

fn run_strategy() -> impl Strategy<Value = BuiltRun> {
    (
        name_strategy(),
        prop_oneof![Just(-1i32), any::<i32>()],
        prop::option::of(prop::collection::vec(event_strategy(), 0..12)),
    )
        .prop_map(|(name, bundled_input_index, events)| BuiltRun {
            name,
            bundled_input_index,
            events,
        })
}

proptest! {
    #![proptest_config(config(500))]

    /// Whatever the builder writes (defaults omitted, as flatcc does) reads back field for
    /// field, with the delegate-id rule of formats.md §2 and the counts of skipped events.
    #[test]
    fn built_dumps_read_back(version in prop_oneof![Just(0u32), any::<u32>()],
                             runs in prop::collection::vec(run_strategy(), 0..6)) {
        let bytes = build::build(version, &runs);
        let dump = etdump::parse(&bytes).unwrap();
        assert_consistent(&dump);
        prop_assert_eq!(dump.version, version);
        prop_assert_eq!(dump.blocks.len(), runs.len());
        let (mut alloc, mut debug, mut empty) = (0, 0, 0);
        for (block, run) in dump.blocks.iter().zip(&runs) {
            prop_assert_eq!(&block.name, run.name.as_deref().unwrap_or(""));
            prop_assert_eq!(block.bundled_input_index, run.bundled_input_index);
            let events = run.events.as_deref().unwrap_or(&[]);
            let profiles: Vec<&BuiltProfile> = events.iter().filter_map(|e| match e {
                BuiltEvent::Profile(p) => Some(p),
                _ => None,
            }).collect();
            let count = |f: fn(&BuiltEvent) -> bool| events.iter().filter(|e| f(e)).count();
            prop_assert_eq!(block.debug_events, count(|e| matches!(e, BuiltEvent::Debug { .. })));
            prop_assert_eq!(block.allocation_events, count(|e| matches!(e, BuiltEvent::Allocation { .. })));
            alloc += block.allocation_events;
            debug += block.debug_events;
            empty += count(|e| matches!(e, BuiltEvent::Empty));
            let ours = dump.block_events(block);
            prop_assert_eq!(ours.len(), profiles.len());
            for (ev, p) in ours.iter().zip(profiles) {
                prop_assert_eq!(dump.name(ev), p.name.as_deref());
                prop_assert_eq!(ev.chain_index, p.chain_index);
                prop_assert_eq!(ev.instruction_id, p.instruction_id);
                prop_assert_eq!(ev.start_ticks, p.start);
                prop_assert_eq!(ev.end_ticks, p.end);
                prop_assert_eq!(dump.metadata_bytes(ev), p.metadata.as_deref());
                let want = match (p.delegate_str.as_deref(), p.delegate_int) {
                    (Some(s), _) if !s.is_empty() => Some(Err(s)),
                    (_, -1) => None,
                    (_, i) => Some(Ok(i)),
                };
                let got = ev.delegate_id.map(|d| match d {
                    DelegateId::Int(i) => Ok(i),
                    DelegateId::Str(id) => Err(dump.names.get(id)),
                });
                prop_assert_eq!(got, want);
            }
        }
        prop_assert_eq!(dump.skipped.allocation, alloc);
        prop_assert_eq!(dump.skipped.debug, debug);
        prop_assert_eq!(dump.skipped.empty, empty);

        // The same bytes with one trailing byte are flagged, not silently accepted.
        let mut longer = bytes.clone();
        longer.push(0);
        prop_assert_eq!(etdump::parse(&longer).unwrap_err().kind(), "corrupt");
    }
}

#[test]
fn built_xnnpack_like_dump_reads_back() {
    let bytes = build::build(0, &build::xnnpack_like(3));
    // Independent of the reader: the header the runtime writes.
    assert_eq!(&bytes[8..12], b"ED00");
    assert_eq!(
        u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize,
        bytes.len() - 4
    );
    let dump = etdump::parse(&bytes).unwrap();
    assert_eq!(dump.blocks.len(), 4);
    assert_eq!(dump.events.len(), 2 + 3 * 5);
    let labels: Vec<_> = dump
        .block_events(&dump.blocks[3])
        .iter()
        .map(|e| dump.label(e).into_owned())
        .collect();
    assert_eq!(
        labels,
        [
            "Fully Connected (NC, F32) GEMM #1",
            "Fully Connected (NC, F32) GEMM #2",
            "Fully Connected (NC, F32) GEMM #3",
            "DELEGATE_CALL",
            "Method::execute"
        ]
    );
    // Names are interned once.
    assert_eq!(dump.names.len(), 7);
}

/// Many copies of one table in a vector are legal flatbuffers but let a tiny file make the
/// verifier walk a huge tree; the table cap, scaled to the file size, stops it.
#[test]
fn revisiting_tables_hits_the_scaled_cap() {
    // Build one run, then point a long run_data vector at it many times.
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    use cpuprof_tui::etdump::generated::etdump as fb;
    let evs: Vec<_> = (0..64)
        .map(|_| {
            let pe = fb::ProfileEvent::create(&mut fbb, &fb::ProfileEventArgs::default());
            fb::Event::create(
                &mut fbb,
                &fb::EventArgs {
                    profile_event: Some(pe),
                    allocation_event: None,
                    debug_event: None,
                },
            )
        })
        .collect();
    let events = fbb.create_vector(&evs);
    let run = fb::RunData::create(
        &mut fbb,
        &fb::RunDataArgs {
            name: None,
            bundled_input_index: -1,
            allocators: None,
            events: Some(events),
        },
    );
    let runs = fbb.create_vector(&vec![run; 4096]);
    let root = fb::ETDump::create(
        &mut fbb,
        &fb::ETDumpArgs {
            version: 0,
            run_data: Some(runs),
        },
    );
    fb::finish_size_prefixed_etdump_buffer(&mut fbb, root);
    let bytes = fbb.finished_data();
    // 4096 * 129 tables from ~19 KB.
    match etdump::parse(bytes) {
        Err(EtDumpError::Corrupt(msg)) => assert!(msg.contains("Too many tables"), "{msg}"),
        other => panic!("{:?}", other.map(|d| d.events.len())),
    }
}
