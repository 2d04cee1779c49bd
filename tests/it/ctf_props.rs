//! Corrupted CTF input never panics or hangs: metadata text and packets with bytes
//! changed, inserted or cut, damaged index files. Each case must end with a profile or
//! one error line, and quickly (a hang would time the test run out).

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::fixture;
use cpuprof_tui::trace::{self, ctf};
use proptest::prelude::*;

fn fixture_dir() -> std::path::PathBuf {
    fixture("thapi/ctf/ust/uid/0/64-bit")
}

fn metadata_tsdl() -> String {
    let bytes = std::fs::read(fixture_dir().join("metadata")).unwrap();
    ctf::tsdl::metadata_text(&bytes).unwrap()
}

fn copy_trace(to: &Path) {
    std::fs::create_dir_all(to.join("index")).unwrap();
    for name in ["metadata", "blocking-channel_0", "blocking-channel_1"] {
        std::fs::copy(fixture_dir().join(name), to.join(name)).unwrap();
    }
    for name in ["blocking-channel_0.idx", "blocking-channel_1.idx"] {
        std::fs::copy(
            fixture_dir().join("index").join(name),
            to.join("index").join(name),
        )
        .unwrap();
    }
}

#[derive(Debug, Clone)]
enum Edit {
    Set(usize, u8),
    Insert(usize, u8),
    Cut(usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            6 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
            1 => (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
            1 => any::<usize>().prop_map(Edit::Cut),
        ],
        1..6,
    )
}

fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for e in edits {
        if bytes.is_empty() {
            return;
        }
        match *e {
            Edit::Set(i, b) => {
                let n = bytes.len();
                bytes[i % n] = b;
            }
            Edit::Insert(i, b) => {
                let n = bytes.len();
                bytes.insert(i % n, b);
            }
            Edit::Cut(i) => {
                let n = bytes.len();
                bytes.truncate(i % n);
            }
        }
    }
}

fn load_quickly(dir: &Path) -> Result<(), String> {
    let t0 = Instant::now();
    let r = trace::load_trace(dir);
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t0.elapsed()
    );
    match r {
        Ok(_) => Ok(()),
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.contains('\n'), "multi-line error: {msg}");
            Err(msg)
        }
    }
}

/// Tokens the mutations below splice into the metadata (grammar-aware damage).
const TOKENS: [&str; 14] = [
    "{",
    "}",
    ";",
    "[",
    "]",
    "struct",
    "variant <id>",
    "enum : uint8_t",
    "align(3)",
    "size = 99;",
    "[4294967295]",
    "integer { size = 0; }",
    ":=",
    "\"",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_metadata_text_never_panics(edits in edits(), splices in prop::collection::vec((any::<usize>(), 0..TOKENS.len()), 0..4)) {
        let mut text = metadata_tsdl().into_bytes();
        apply(&mut text, &edits);
        for (at, t) in splices {
            let at = at % text.len().max(1);
            let tail = text.split_off(at.min(text.len()));
            text.extend_from_slice(TOKENS[t].as_bytes());
            text.extend_from_slice(&tail);
        }
        let s = String::from_utf8_lossy(&text);
        let _ = ctf::tsdl::parse_metadata(&s);
        let _ = ctf::tsdl::metadata_text(&text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_packets_never_panic_or_hang(stream in 0usize..2, edits in edits()) {
        let tmp = tempfile::tempdir().unwrap();
        copy_trace(tmp.path());
        let f = tmp.path().join(format!("blocking-channel_{stream}"));
        let mut bytes = std::fs::read(&f).unwrap();
        apply(&mut bytes, &edits);
        std::fs::write(&f, &bytes).unwrap();
        let _ = load_quickly(tmp.path());
    }

    #[test]
    fn damaged_headers_and_contexts_never_panic(stream in 0usize..2, edits in prop::collection::vec((0usize..120, any::<u8>()), 1..8)) {
        // Concentrate damage on the packet header and context (first 84 bytes) and the
        // first events.
        let tmp = tempfile::tempdir().unwrap();
        copy_trace(tmp.path());
        let f = tmp.path().join(format!("blocking-channel_{stream}"));
        let mut bytes = std::fs::read(&f).unwrap();
        for (i, b) in edits {
            bytes[i] = b;
        }
        std::fs::write(&f, &bytes).unwrap();
        let _ = load_quickly(tmp.path());
    }

    #[test]
    fn damaged_index_never_panics_and_never_changes_the_result(stream in 0usize..2, edits in edits()) {
        let tmp = tempfile::tempdir().unwrap();
        copy_trace(tmp.path());
        let f = tmp.path().join(format!("index/blocking-channel_{stream}.idx"));
        let mut bytes = std::fs::read(&f).unwrap();
        apply(&mut bytes, &edits);
        std::fs::write(&f, &bytes).unwrap();
        let p = trace::load_trace(tmp.path()).unwrap();
        // Packets are read from their own headers: the index only confirms them.
        prop_assert_eq!(p.op("aten::linear").unwrap().inclusive_total_ns, 1_034_791);
        prop_assert_eq!(p.counts.events, 72);
    }

    #[test]
    fn damaged_packetized_metadata_never_panics(edits in edits()) {
        let tmp = tempfile::tempdir().unwrap();
        copy_trace(tmp.path());
        let f = tmp.path().join("metadata");
        let mut bytes = std::fs::read(&f).unwrap();
        apply(&mut bytes, &edits);
        std::fs::write(&f, &bytes).unwrap();
        let _ = load_quickly(tmp.path());
    }
}

// ---------------------------------------------------------------- budgets (issue #19)

/// One line of a random TSDL type chain: each level built from the ones before it
/// (struct of two, array of N, variant of two, sequence), so some chains expand
/// exponentially and some stay small.
#[derive(Debug, Clone)]
enum Level {
    Pair,
    Array(u64),
    Variant,
    Sequence,
}

fn levels() -> impl Strategy<Value = Vec<Level>> {
    prop::collection::vec(
        prop_oneof![
            3 => Just(Level::Pair),
            2 => prop_oneof![Just(1u64), Just(2), Just(1000), Just(65536), Just(u64::MAX / 3)].prop_map(Level::Array),
            1 => Just(Level::Variant),
            1 => Just(Level::Sequence),
        ],
        0..70,
    )
}

fn chain_metadata(levels: &[Level]) -> String {
    let mut t = String::from("/* CTF 1.8 */\n");
    t.push_str("typealias integer { size = 8; align = 8; signed = false; } := t0;\n");
    t.push_str("typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n");
    t.push_str("typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n");
    t.push_str("enum sel : uint16_t { a = 0, b = 1 };\n");
    for (i, l) in levels.iter().enumerate() {
        let n = i + 1;
        let body = match l {
            Level::Pair => format!("typealias struct {{ t{i} a; t{i} b; }} := t{n};"),
            Level::Array(len) => format!("typealias struct {{ t{i} x[{len}]; }} := t{n};"),
            Level::Variant => format!(
                "typealias struct {{ enum sel tag; variant <tag> {{ t{i} a; t{i} b; }} v; }} := t{n};"
            ),
            Level::Sequence => format!(
                "typealias struct {{ uint16_t len; t{i} s[len]; }} := t{n};"
            ),
        };
        t.push_str(&body);
        t.push('\n');
    }
    t.push_str("trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n");
    t.push_str("stream { id = 0; };\n");
    t.push_str(&format!(
        "event {{ name = \"lttng_ust_pytorch:op_entry\"; id = 0; stream_id = 0; fields := struct {{ t{} _z; string _name; }}; }};\n",
        levels.len()
    ));
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, failure_persistence: None, ..ProptestConfig::default() })]

    /// Nested type chains parse (or are refused over the budget) in bounded time, and
    /// what is accepted stays within the documented decode-step budget, so compiling
    /// and decoding it is bounded too. (Time is measured in `benches/hostile_inputs.rs`;
    /// asserted loosely here.)
    #[test]
    fn nested_type_chains_stay_in_budget(levels in levels()) {
        let text = chain_metadata(&levels);
        let t0 = Instant::now();
        let parsed = ctf::tsdl::parse_metadata(&text);
        prop_assert!(t0.elapsed() < Duration::from_secs(2), "parse took {:?}", t0.elapsed());
        match parsed {
            Ok(meta) => {
                let root = meta.events[0].fields.unwrap() as usize;
                prop_assert!(meta.steps[root] <= ctf::tsdl::MAX_ROOT_STEPS);
                // The arena grows with the text, never with what the types expand to.
                prop_assert!(meta.types.len() <= text.len());
                let compiled = ctf::stream::Compiled::new(&meta);
                drop(compiled);
                // And a stream of one damaged packet decodes quickly.
                let tmp = tempfile::tempdir().unwrap();
                std::fs::write(tmp.path().join("metadata"), &text).unwrap();
                let mut stream = vec![0xc1, 0x1f, 0xfc, 0xc1, 0, 0, 0, 0];
                stream.extend((0..4096u32).map(|i| (i * 31 % 7) as u8));
                std::fs::write(tmp.path().join("stream_0"), &stream).unwrap();
                let _ = load_quickly(tmp.path());
            }
            Err(e) => {
                prop_assert!(!e.message.contains('\n'));
            }
        }
    }

    /// Numbers in the real metadata changed at random (sizes, alignments, ids, clock
    /// figures, lengths): the whole trace loads or is one error line, quickly.
    #[test]
    fn numbers_in_metadata_changed_load_quickly(
        picks in prop::collection::vec((any::<usize>(), prop_oneof![
            Just("0".to_string()), Just("1".to_string()), Just("64".to_string()),
            Just("65536".to_string()), Just("4294967295".to_string()),
            Just("18446744073709551615".to_string()), any::<u64>().prop_map(|v| v.to_string()),
        ]), 1..5)
    ) {
        let text = metadata_tsdl();
        // Byte ranges of the decimal literals in the text.
        let mut spans = Vec::new();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'_') {
                let st = i;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                spans.push((st, i));
            } else {
                i += 1;
            }
        }
        let mut edited = text.clone();
        let mut chosen: Vec<(usize, String)> = picks
            .into_iter()
            .map(|(k, v)| (k % spans.len(), v))
            .collect();
        chosen.sort_by_key(|c| std::cmp::Reverse(c.0));
        chosen.dedup_by_key(|c| c.0);
        for (k, v) in chosen {
            let (st, en) = spans[k];
            edited.replace_range(st..en, &v);
        }
        let tmp = tempfile::tempdir().unwrap();
        copy_trace(tmp.path());
        std::fs::write(tmp.path().join("metadata"), edited).unwrap();
        let _ = load_quickly(tmp.path());
    }
}
