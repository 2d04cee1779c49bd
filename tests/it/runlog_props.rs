//! Property tests of the runner log reader: any bytes parse without panicking, and
//! damage to a real log stays local to the sequence it hits.

use std::path::Path;

use cpuprof_tui::runlog::{self, RunLog};
use proptest::prelude::*;

fn fixture_lines(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cpu")
        .join(name);
    let text = String::from_utf8(std::fs::read(path).unwrap()).unwrap();
    text.lines().map(str::to_string).collect()
}

fn join(lines: &[String]) -> Vec<u8> {
    let mut text = lines.join("\n");
    text.push('\n');
    text.into_bytes()
}

/// Invariants that hold for every input.
fn check_invariants(bytes: &[u8], run: &RunLog) {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let unterminated = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
    assert_eq!(run.lines.len(), newlines + unterminated);
    for (i, line) in run.lines.iter().enumerate() {
        assert_eq!(line.number, i + 1);
    }
    let failed: Vec<usize> = (0..run.sequences.len())
        .filter(|&k| run.sequences[k].outcome.is_err())
        .collect();
    let warned: Vec<usize> = run.warnings.iter().map(|w| w.sequence).collect();
    assert_eq!(warned, failed);
    for w in &run.warnings {
        let problem = run.sequences[w.sequence].outcome.as_ref().unwrap_err();
        assert_eq!(w.code, problem.code());
    }
    for seq in &run.sequences {
        assert!(!seq.chunk_indexes.is_empty());
        assert!(seq.first_line >= 1 && seq.first_line <= run.lines.len());
    }
}

/// A line that is noise, an ET_LOG line, or something close to a chunk line.
fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,60}",
        "[DIEF?] [0-9]{1,3}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} executorch:[a-z.]{0,8}:[0-9]{0,4}\\] .{0,20}",
        "\\[[a-z_]{0,8}\\.cpp:[0-9]{1,3}\\] .{0,20}",
        (0usize..40, 0usize..40, "[0-9a-fA-Fg ]{0,24}")
            .prop_map(|(i, n, h)| format!("CPU_PLAN_CHUNK {i} {n} {h}")),
        "CPU_PLAN_CHUNK.{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let run = runlog::parse(&bytes);
        check_invariants(&bytes, &run);
    }

    #[test]
    fn arbitrary_lines_never_panic(lines in proptest::collection::vec(any_line(), 0..40), crlf in any::<bool>()) {
        let text = lines.join(if crlf { "\r\n" } else { "\n" });
        let run = runlog::parse(text.as_bytes());
        check_invariants(text.as_bytes(), &run);
    }

    /// Splicing lines into a real log never panics; lines without the chunk marker change
    /// nothing about the plans.
    #[test]
    fn spliced_lines(
        inserts in proptest::collection::vec((0usize..1000, any_line()), 1..8),
    ) {
        let original = fixture_lines("cnn2_basic.log");
        let clean = runlog::parse(&join(&original));
        let mut lines = original.clone();
        for (pos, line) in &inserts {
            let at = pos % (lines.len() + 1);
            lines.insert(at, line.clone());
        }
        let bytes = join(&lines);
        let run = runlog::parse(&bytes);
        check_invariants(&bytes, &run);
        prop_assert_eq!(run.lines.len(), original.len() + inserts.len());
        if inserts.iter().all(|(_, l)| !l.contains("CPU_PLAN_CHUNK")) {
            prop_assert_eq!(run.sequences.len(), clean.sequences.len());
            for (a, b) in run.sequences.iter().zip(&clean.sequences) {
                prop_assert_eq!(&a.outcome, &b.outcome);
                prop_assert_eq!(&a.chunk_indexes, &b.chunk_indexes);
            }
        }
    }

    /// Losing any one chunk line breaks exactly the sequence it belonged to; the other
    /// keeps its slot and its plan.
    #[test]
    fn one_lost_chunk_stays_local(pick in 0usize..1000) {
        let original = fixture_lines("cnn2_basic.log");
        let clean = runlog::parse(&join(&original));
        prop_assert_eq!(clean.sequences.len(), 2);
        let chunk_lines: Vec<usize> = (0..original.len())
            .filter(|&i| original[i].contains("CPU_PLAN_CHUNK"))
            .collect();
        let victim = chunk_lines[pick % chunk_lines.len()];
        let hit = usize::from(victim + 1 >= clean.sequences[1].first_line);
        let mut lines = original.clone();
        lines.remove(victim);
        let bytes = join(&lines);
        let run = runlog::parse(&bytes);
        check_invariants(&bytes, &run);
        prop_assert_eq!(run.sequences.len(), 2);
        prop_assert!(run.sequences[hit].outcome.is_err());
        prop_assert_eq!(&run.sequences[1 - hit].outcome, &clean.sequences[1 - hit].outcome);
        prop_assert_eq!(run.warnings.len(), 1);
        prop_assert_eq!(run.warnings[0].sequence, hit);
    }

    /// Flipping one byte of a chunk line never panics and never touches the other plan.
    #[test]
    fn one_corrupt_byte_stays_local(pick in 0usize..1000, offset in 0usize..400, byte in any::<u8>()) {
        let original = fixture_lines("cnn2_basic.log");
        let clean = runlog::parse(&join(&original));
        let chunk_lines: Vec<usize> = (0..original.len())
            .filter(|&i| original[i].contains("CPU_PLAN_CHUNK"))
            .collect();
        let victim = chunk_lines[pick % chunk_lines.len()];
        let other = 1 - usize::from(victim + 1 >= clean.sequences[1].first_line);
        let mut bytes = Vec::new();
        for (i, line) in original.iter().enumerate() {
            let mut b = line.as_bytes().to_vec();
            // Only the hex part, so the line stays a chunk line of the same sequence.
            if i == victim {
                let hex_start = line.rfind(' ').unwrap() + 1;
                let at = hex_start + offset % (b.len() - hex_start);
                b[at] = if byte == b'\n' { b'x' } else { byte };
            }
            bytes.extend_from_slice(&b);
            bytes.push(b'\n');
        }
        let run = runlog::parse(&bytes);
        check_invariants(&bytes, &run);
        prop_assert_eq!(run.sequences.len(), 2);
        prop_assert_eq!(&run.sequences[other].outcome, &clean.sequences[other].outcome);
    }
}
