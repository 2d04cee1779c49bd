//! The CTF reader on traces written by the test-support writer: both byte orders, both
//! LTTng event-header layouts, timestamps wrapping the compact field, clocks that are not
//! 1 GHz, payloads without `overload_name`, other event kinds, discarded events and a
//! damaged packet. Expected values come from the writer's own list of calls (what was
//! written), converted to ns here with the clock formula written out in the test.

use crate::common;

use std::path::Path;

use common::ctf_truth::{assert_tally_rows, expected, to_ns};

use cpuprof_testkit::ctf_writer::{write_workload, CtfWriter, WriteEvent, WriterConfig};
use cpuprof_tui::trace::{self, ctf};

fn check(cfg: WriterConfig, events: usize, threads: usize) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ust/uid/1000/64-bit");
    let calls = write_workload(&dir, cfg.clone(), events, threads).unwrap();
    let p = trace::load_trace(tmp.path()).unwrap();
    let want = expected(&cfg, &calls);
    assert_eq!(p.ops.len(), want.len(), "{cfg:?}");
    for (name, (n, total, min, max)) in &want {
        let op = p
            .op(name)
            .unwrap_or_else(|| panic!("{name} missing ({cfg:?})"));
        assert_eq!(op.calls, *n, "{name} {cfg:?}");
        assert_eq!(op.inclusive_total_ns, *total, "{name} {cfg:?}");
        assert_eq!(
            (op.min_ns, op.max_ns),
            (Some(*min), Some(*max)),
            "{name} {cfg:?}"
        );
    }
    assert_eq!(p.threads.len(), threads.min(p.threads.len()));
    // The tally read straight from the streams (what `report --format tally` prints):
    // the same written truth, without the model.
    let t = ctf::tally_dir(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert_tally_rows(&t.tally.rows, &want, &format!("{cfg:?}"));
    // Order (total descending, then name), self time and counts as the model has them.
    assert_eq!(
        t.tally,
        cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(&p)),
        "{cfg:?}"
    );
    assert_eq!(t.warnings, p.warnings, "{cfg:?}");
    let kinds: Vec<&str> = p.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(
        !kinds
            .iter()
            .any(|k| k.contains("packet") || k.contains("index")),
        "{:?}",
        p.warnings
    );
}

#[test]
fn little_endian_large_headers_small_packets() {
    check(
        WriterConfig {
            packet_size: 512,
            ..WriterConfig::default()
        },
        5_000,
        4,
    );
}

#[test]
fn big_endian_compact_headers_plain_metadata_no_index() {
    check(
        WriterConfig {
            big_endian: true,
            compact_header: true,
            packetized_metadata: false,
            write_index: false,
            streams: 3,
            ..WriterConfig::default()
        },
        5_000,
        5,
    );
}

#[test]
fn slow_clock_with_second_offset_and_no_overload_field() {
    check(
        WriterConfig {
            clock_freq: 3_000_000,
            clock_offset_s: 1_700_000_000,
            clock_offset: 12_345,
            with_overload: false,
            compact_header: true,
            ..WriterConfig::default()
        },
        3_000,
        2,
    );
}

#[test]
fn compact_timestamps_wrap_many_times() {
    // Steps just under 2^27 cycles: every event wraps the 27-bit field (or nearly), and
    // the writer still uses compact headers since each delta fits.
    for big_endian in [false, true] {
        let cfg = WriterConfig {
            compact_header: true,
            big_endian,
            streams: 1,
            ..WriterConfig::default()
        };
        let mut w = CtfWriter::new(cfg.clone());
        let step = (1u64 << 27) - 3;
        let mut ts = (1u64 << 27) - 10;
        let mut want = Vec::new();
        for i in 0..200 {
            let entry = i % 2 == 0;
            w.event(
                0,
                ts,
                WriteEvent::Op {
                    entry,
                    vpid: 1,
                    vtid: 1,
                    name: "aten::mm",
                    overload: "",
                },
            );
            want.push(to_ns(&cfg, ts));
            ts += if i % 7 == 0 { 5 } else { step };
        }
        // One gap too large for the compact field: the writer must go extended.
        w.event(
            0,
            ts + (1 << 28),
            WriteEvent::Op {
                entry: true,
                vpid: 1,
                vtid: 1,
                name: "aten::mm",
                overload: "",
            },
        );
        want.push(to_ns(&cfg, ts + (1 << 28)));
        assert_eq!(w.extended_headers, 1);
        let tmp = tempfile::tempdir().unwrap();
        w.finish(tmp.path()).unwrap();
        let (events, warnings) =
            ctf::read_op_events(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let got: Vec<i64> = events.iter().map(|e| e.ts_ns).collect();
        assert_eq!(got, want, "big_endian={big_endian}");
    }
}

fn write_small(dir: &Path, discard: bool) {
    let mut w = CtfWriter::new(WriterConfig {
        streams: 1,
        packet_size: 256,
        ..WriterConfig::default()
    });
    let mut ts = 1_000;
    for i in 0..40 {
        if i == 20 && discard {
            w.discard(0, 7);
            w.lose_packets(0, 2);
        }
        w.event(
            0,
            ts,
            WriteEvent::Other {
                vpid: 1,
                vtid: 1,
                label: "maps",
                data: &[1, 2, 3, 4, 5],
            },
        );
        ts += 10;
        w.event(
            0,
            ts,
            WriteEvent::Op {
                entry: true,
                vpid: 1,
                vtid: 1,
                name: "aten::a",
                overload: "",
            },
        );
        ts += 100;
        w.event(
            0,
            ts,
            WriteEvent::Op {
                entry: false,
                vpid: 1,
                vtid: 1,
                name: "aten::a",
                overload: "",
            },
        );
        ts += 10;
    }
    w.finish(dir).unwrap();
}

#[test]
fn other_events_are_listed_and_discarded_events_warned() {
    let tmp = tempfile::tempdir().unwrap();
    write_small(tmp.path(), true);
    let p = trace::load_trace(tmp.path()).unwrap();
    let a = p.op("aten::a").unwrap();
    assert_eq!((a.calls, a.inclusive_total_ns), (40, 4_000));
    assert_eq!(p.counts.ignored_events, 40);
    // The tally read straight from the streams warns the same, in the same order.
    let t = ctf::tally_dir(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert_eq!(t.warnings, p.warnings);
    assert_eq!(t.counts.ignored_events, 40);
    let row = t.tally.rows.iter().find(|r| r.name == "aten::a").unwrap();
    assert_eq!((row.calls, row.total_ns), (40, 4_000));
    let msg = |kind: &str| {
        p.warnings
            .iter()
            .find(|w| w.kind == kind)
            .map(|w| w.message.clone())
            .unwrap_or_else(|| panic!("no {kind} warning: {:?}", p.warnings))
    };
    assert_eq!(
        msg("ignored_events"),
        "40 events of other kinds ignored: lttng_ust_statedump:blob (40)"
    );
    let lost = msg("discarded_packets");
    assert!(
        lost.starts_with(
            "blocking-channel_0: 2 packets lost by the tracer before the packet at offset "
        ),
        "{lost}"
    );
    let d = msg("discarded_events");
    assert!(
        d.starts_with(
            "blocking-channel_0: 7 events discarded by the tracer before the packet at offset "
        ),
        "{d}"
    );
}

#[test]
fn damaged_packet_is_skipped_with_a_warning_naming_stream_and_offset() {
    let tmp = tempfile::tempdir().unwrap();
    write_small(tmp.path(), false);
    let f = tmp.path().join("blocking-channel_0");
    let mut bytes = std::fs::read(&f).unwrap();
    let packets = bytes.len() / 256;
    assert!(packets >= 4);
    // Packet 1: its first event's id (u16 LE right after the 84-byte preamble) -> 999.
    bytes[256 + 84] = 0xe7;
    bytes[256 + 85] = 0x03;
    std::fs::write(&f, &bytes).unwrap();
    let p = trace::load_trace(tmp.path()).unwrap();
    let w = p
        .warnings
        .iter()
        .find(|w| w.kind == "undecodable_packet")
        .expect("warning");
    assert_eq!(
        w.message,
        "blocking-channel_0: event at offset 340 (packet at offset 256): unknown event id 999; rest of the packet skipped"
    );
    // The other packets still count.
    let a = p.op("aten::a").unwrap();
    assert!(a.calls >= 30 && a.calls < 40, "{}", a.calls);
    // Packet 2 with a bad magic: skipped, resynchronised on packet 3 by the index.
    bytes[512] ^= 0xff;
    std::fs::write(&f, &bytes).unwrap();
    let p = trace::load_trace(tmp.path()).unwrap();
    assert!(
        p.warnings
            .iter()
            .any(|w| w.message.contains("packet at offset 512: bad packet magic")),
        "{:?}",
        p.warnings
    );
    assert!(p.op("aten::a").unwrap().calls >= 20);
    let t = ctf::tally_dir(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert_eq!(t.warnings, p.warnings);
    assert_eq!(
        t.tally,
        cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(&p))
    );
}
