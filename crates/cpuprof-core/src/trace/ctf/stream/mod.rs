//! One data stream file: packets (header, context, content and packet sizes), events
//! (header with compact/extended timestamps, stream and event contexts, payload), the
//! discarded-event counters, and the LTTng `index/*.idx` file checked against the packets.

mod compiled;
mod cursor;
mod index;

pub use compiled::Compiled;
pub use cursor::{EventPos, Packet, StreamCursor, StreamIssue};
pub use index::{parse_index, IndexEntry};

/// CTF packet header magic.
pub const PACKET_MAGIC: u64 = 0xC1FC_1FC1;
/// LTTng index file magic (big-endian on disk).
pub const INDEX_MAGIC: u32 = 0xC1F1_DCC1;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::ctf::decode::Value;
    use crate::trace::ctf::tsdl::{parse_metadata, Metadata};
    use cpuprof_testkit::ctf_writer::{CtfWriter, WriteEvent, WriterConfig};

    /// The metadata and the first stream file of a written one-stream trace.
    fn written(w: CtfWriter) -> (Metadata, Vec<u8>) {
        let tmp = tempfile::tempdir().unwrap();
        w.finish(tmp.path()).unwrap();
        let meta_bytes = std::fs::read(tmp.path().join("metadata")).unwrap();
        let text = crate::trace::ctf::tsdl::metadata_text(&meta_bytes).unwrap();
        let data = std::fs::read(tmp.path().join("blocking-channel_0")).unwrap();
        (parse_metadata(&text).unwrap(), data)
    }

    /// Op events decoded by their flat plans give the fields the generic decoder's
    /// leaves give, event by event (little- and big-endian, compact and large headers,
    /// with and without `overload_name`, other events between), and a flat plan is made
    /// for the op classes only where their fields are plain integers and strings.
    #[test]
    fn flat_plans_give_the_generic_decoder_s_fields() {
        use crate::trace::ctf::flat::{OpFieldIds, OpFields};
        let names = [
            "aten::add",
            "aten::mm",
            "",
            "aten::conv2d",
            "aten::\u{e9}t\u{e9}",
        ];
        for (compact_header, big_endian, with_overload) in [
            (false, false, true),
            (true, false, true),
            (true, true, false),
            (false, true, true),
        ] {
            let cfg = WriterConfig {
                streams: 1,
                packet_size: 1024,
                compact_header,
                big_endian,
                with_overload,
                ..WriterConfig::default()
            };
            let mut w = CtfWriter::new(cfg);
            let mut ts = 10u64;
            for i in 0..400usize {
                ts += 1 + (i as u64 * 7919) % 5000;
                let ev = if i % 7 == 3 {
                    WriteEvent::Other {
                        vpid: 5,
                        vtid: 6,
                        label: "blob",
                        data: &[1, 2, 3, 4, 5][..i % 5],
                    }
                } else {
                    WriteEvent::Op {
                        entry: i % 2 == 0,
                        vpid: 40 + (i % 3) as i32,
                        vtid: -(i as i32),
                        name: names[i % names.len()],
                        overload: names[(i / 2) % names.len()],
                    }
                };
                w.event(0, ts, ev);
            }
            let (meta, data) = written(w);
            let compiled = Compiled::new(&meta);
            let ids = OpFieldIds::of(&meta);
            let plans = compiled.flat_plans(&meta, &ids);
            for (e, plan) in meta.events.iter().zip(&plans) {
                // The writer's op events are plain fields; its blob holds a sequence.
                let op = e.name.ends_with("op_entry") || e.name.ends_with("op_exit");
                assert_eq!(plan.is_some(), op, "{}", e.name);
            }
            let mut generic = StreamCursor::new(&meta, &compiled, &data, None);
            let mut flat = StreamCursor::new(&meta, &compiled, &data, None).with_flat_plans(&plans);
            let mut n = 0;
            while let Some(g) = generic.next_event().unwrap() {
                let f = flat.next_event().unwrap().expect("as many events");
                assert_eq!((f.class, f.cycles, f.offset), (g.class, g.cycles, g.offset));
                assert_eq!(f.flat, plans[g.class].is_some());
                if f.flat {
                    let mut want = OpFields::default();
                    for l in generic.leaves[g.ctx_start..].iter().filter(|l| l.top) {
                        want.take(ids.role(l.name), l.value);
                    }
                    assert_eq!(flat.op, want, "event {n}");
                    assert!(matches!(want.name, Some(Value::S(_))) && want.pid.is_some());
                }
                n += 1;
            }
            assert!(flat.next_event().unwrap().is_none());
            assert_eq!(n, 400);
            assert!(generic.issues.is_empty() && flat.issues.is_empty());
        }
    }

    /// A damaged op event gives the same issue with or without flat plans (the generic
    /// decoder reports it), and the events before it are the same.
    #[test]
    fn a_damaged_op_event_is_reported_as_the_generic_decoder_reports_it() {
        use crate::trace::ctf::flat::OpFieldIds;
        let mut w = CtfWriter::new(WriterConfig {
            streams: 1,
            packet_size: 4096,
            ..WriterConfig::default()
        });
        for i in 0..20u64 {
            w.event(
                0,
                100 + i,
                WriteEvent::Op {
                    entry: i % 2 == 0,
                    vpid: 1,
                    vtid: 2,
                    name: "aten::add",
                    overload: "Tensor",
                },
            );
        }
        let (meta, mut data) = written(w);
        // Every NUL after the first events' names gone: a string runs past the content.
        let at = data
            .windows(9)
            .enumerate()
            .filter(|(_, w)| *w == b"aten::add")
            .nth(5)
            .unwrap()
            .0;
        for b in &mut data[at..] {
            if *b == 0 {
                *b = b'x';
            }
        }
        let compiled = Compiled::new(&meta);
        let plans = compiled.flat_plans(&meta, &OpFieldIds::of(&meta));
        let run = |cur: &mut StreamCursor<'_>| {
            let mut offsets = Vec::new();
            while let Ok(Some(e)) = cur.next_event() {
                offsets.push(e.offset);
            }
            (offsets, format!("{:?}", cur.issues))
        };
        let generic = run(&mut StreamCursor::new(&meta, &compiled, &data, None));
        let flat =
            run(&mut StreamCursor::new(&meta, &compiled, &data, None).with_flat_plans(&plans));
        assert_eq!(generic.0.len(), 5);
        assert!(generic.1.contains("no NUL"), "{}", generic.1);
        assert_eq!(flat, generic);
    }

    /// The LTTng header fast path and the generic decoder agree event by event.
    #[test]
    fn fast_header_matches_generic_decoding() {
        for (compact_header, big_endian) in [(false, false), (true, false), (true, true)] {
            let cfg = WriterConfig {
                streams: 1,
                packet_size: 512,
                compact_header,
                big_endian,
                ..WriterConfig::default()
            };
            let mut w = CtfWriter::new(cfg);
            let mut ts = 5u64;
            for i in 0..300u64 {
                ts += if i % 50 == 0 { 1 << 33 } else { 1 + i * 997 };
                let ev = if i % 3 == 0 {
                    WriteEvent::Other {
                        vpid: 1,
                        vtid: 2,
                        label: "x",
                        data: &[9; 3],
                    }
                } else {
                    WriteEvent::Op {
                        entry: i % 2 == 0,
                        vpid: 1,
                        vtid: 2,
                        name: "n",
                        overload: "",
                    }
                };
                w.event(0, ts, ev);
            }
            let (meta, data) = written(w);
            let fast = Compiled::new(&meta);
            assert!(fast.fast_headers[0].is_some());
            let mut generic = Compiled::new(&meta);
            generic.fast_headers = vec![None];
            let collect = |c: &Compiled| {
                let mut cur = StreamCursor::new(&meta, c, &data, None);
                let mut out = Vec::new();
                while let Some(e) = cur.next_event().unwrap() {
                    out.push((e.class, e.cycles, e.offset));
                }
                assert!(cur.issues.is_empty());
                out
            };
            let a = collect(&fast);
            assert_eq!(a.len(), 300);
            assert_eq!(
                a,
                collect(&generic),
                "compact={compact_header} be={big_endian}"
            );
            assert_eq!(a.last().map(|e| e.1), Some(ts));
        }
    }
}
