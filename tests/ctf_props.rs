//! Corrupted CTF input never panics or hangs: metadata text and packets with bytes
//! changed, inserted or cut, damaged index files. Each case must end with a profile or
//! one error line, and quickly (a hang would time the test run out).

mod common;

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
