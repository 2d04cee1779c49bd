//! Hand-written runner logs: line splitting and every way a chunk sequence can break.

use super::*;

/// A small plan, hand-assembled like formats.md §3.2 (with one unknown key).
const PLAN: &str = concat!(
    r#"{"regions":[{"provider":"XNNPACK","implementation":"subgraph","nodes":["conv","gelu"],"#,
    r#""inputs":[0,1],"outputs":[5],"scratch_bytes":0},{"provider":"ET","implementation":"registry","#,
    r#""nodes":["neg"],"inputs":[5],"outputs":[6],"scratch_bytes":64}],"preparation_ms":2.369180,"#,
    r#""future_key":7,"selection_context":{"threads":1,"avx2_fma":true},"#,
    r#""candidates":[{"node":"neg"}],"copied_constant_bytes":0}"#
);

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The chunk hex strings of a report (80 bytes per chunk, as CPUBackend splits it).
fn chunk_hexes(report: &[u8]) -> Vec<String> {
    report.chunks(80).map(hex).collect()
}

fn et_line(index: usize, count: usize, hex: &str) -> String {
    format!("I 00:00:00.002865 executorch:CPUBackend.cpp:252] CPU_PLAN_CHUNK {index} {count} {hex}")
}

/// The log lines of one complete sequence.
fn sequence_lines(report: &[u8]) -> Vec<String> {
    let hexes = chunk_hexes(report);
    let n = hexes.len();
    hexes
        .iter()
        .enumerate()
        .map(|(i, h)| et_line(i, n, h))
        .collect()
}

fn log(lines: &[String]) -> Vec<u8> {
    let mut text = lines.join("\n");
    text.push('\n');
    text.into_bytes()
}

fn problem(run: &RunLog, k: usize) -> &PlanProblem {
    run.sequences[k].outcome.as_ref().unwrap_err()
}

fn assert_incomplete(run: &RunLog, k: usize, needles: &[&str]) {
    let PlanProblem::Incomplete(text) = problem(run, k) else {
        panic!(
            "sequence {k}: expected Incomplete, got {:?}",
            run.sequences[k].outcome
        );
    };
    for needle in needles {
        assert!(text.contains(needle), "{text:?} lacks {needle:?}");
    }
    let warning = run.warnings.iter().find(|w| w.sequence == k).unwrap();
    assert_eq!(warning.code, "plan_chunks_incomplete");
}

#[test]
fn plan_fixture_has_five_chunks() {
    // The edge cases below rely on this.
    assert_eq!(chunk_hexes(PLAN.as_bytes()).len(), 5);
}

#[test]
fn complete_sequence_decodes() {
    let run = parse(&log(&sequence_lines(PLAN.as_bytes())));
    assert!(run.warnings.is_empty());
    assert_eq!(run.sequences.len(), 1);
    let seq = &run.sequences[0];
    assert_eq!(seq.expected_chunks, 5);
    assert_eq!(seq.chunk_indexes, vec![0, 1, 2, 3, 4]);
    assert_eq!(seq.first_line, 1);
    let plan = seq.outcome.as_ref().unwrap();
    assert_eq!(plan.regions.len(), 2);
    assert_eq!(plan.regions[0].nodes, vec!["conv", "gelu"]);
    assert_eq!(plan.regions[1].scratch_bytes, Some(64));
    assert_eq!(plan.regions[0].step_name(), "XNNPACK/subgraph:conv+1");
    assert_eq!(plan.regions[1].step_name(), "ET/registry:neg");
    assert_eq!(plan.preparation_ms, Some(2.369180));
    assert_eq!(plan.copied_constant_bytes, Some(0));
    assert_eq!(plan.extra.get("future_key"), Some(&serde_json::json!(7)));
    assert_eq!(plan.candidates.len(), 1);
    assert_eq!(plan.candidates[0].preference_rank, None);
    assert_eq!(run.plan_json(0).as_deref(), Some(PLAN));
    assert_eq!(run.plan_json(1), None);
}

#[test]
fn chunk_without_prefix_and_with_short_prefix() {
    let hexes = chunk_hexes(PLAN.as_bytes());
    let lines: Vec<String> = hexes
        .iter()
        .enumerate()
        .map(|(i, h)| match i % 2 {
            0 => format!("CPU_PLAN_CHUNK {i} 5 {h}"),
            _ => format!(
                "[CPUBackend.cpp:252] CPU_PLAN_CHUNK {i} 5 {}",
                h.to_uppercase()
            ),
        })
        .collect();
    let run = parse(&log(&lines));
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert!(run.sequences[0].outcome.is_ok());
    assert_eq!(run.lines.get(0).unwrap().et_log, None);
    assert_eq!(
        run.lines.get(1).unwrap().et_log.unwrap().file,
        "CPUBackend.cpp"
    );
}

#[test]
fn missing_chunk() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.remove(2);
    let run = parse(&log(&lines));
    assert_eq!(run.sequences[0].chunk_indexes, vec![0, 1, 3, 4]);
    assert_incomplete(&run, 0, &["chunks 0, 1, 3, 4 of 5 present", "missing 2"]);
    assert_eq!(
        run.warnings[0].message,
        "plan sequence 0 (line 1): incomplete chunk sequence: chunks 0, 1, 3, 4 of 5 present; missing 2"
    );
    assert_eq!(run.plan_json(0), None);
}

#[test]
fn truncated_sequence_at_end_of_log() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.truncate(3);
    let run = parse(&log(&lines));
    assert_incomplete(&run, 0, &["chunks 0-2 of 5 present; missing 3, 4"]);
}

#[test]
fn duplicated_chunk() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.insert(2, lines[1].clone());
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 1);
    assert_eq!(run.sequences[0].chunk_indexes, vec![0, 1, 1, 2, 3, 4]);
    assert_incomplete(&run, 0, &["chunk 1 repeated (line 3)"]);
}

#[test]
fn duplicated_last_chunk_is_a_duplicate() {
    // The closing line of sequence 0 (line 5) is logged twice (line 6): a duplicate. The
    // plan still decodes, and the repeat takes no delegate's slot.
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.push(lines[4].clone());
    lines.extend(sequence_lines(PLAN.as_bytes()));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 2);
    assert!(
        run.sequences[0].outcome.is_ok(),
        "{:?}",
        run.sequences[0].outcome
    );
    assert_eq!(run.sequences[0].chunk_indexes, vec![0, 1, 2, 3, 4]);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert!(run.sequences[1].outcome.is_ok());
    assert_eq!(run.sequences[1].first_line, 7);
    // The plan text is the same as without the repeat.
    assert_eq!(run.plan_json(0).as_deref(), Some(PLAN));
}

#[test]
fn many_repeats_give_a_short_message() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    let repeated = lines[1].clone();
    lines.splice(2..2, std::iter::repeat_n(repeated, 1000));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 1);
    assert_incomplete(
        &run,
        0,
        &["chunk 1 repeated (line 3)", "; 996 more problems"],
    );
    assert!(run.warnings[0].message.len() < 300);
}

#[test]
fn out_of_order_chunks() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.swap(1, 2);
    let run = parse(&log(&lines));
    assert_incomplete(&run, 0, &["chunk 1 out of order (line 3)"]);
}

#[test]
fn count_changes() {
    let hexes = chunk_hexes(PLAN.as_bytes());
    let lines: Vec<String> = hexes
        .iter()
        .enumerate()
        .map(|(i, h)| et_line(i, if i == 3 { 6 } else { 5 }, h))
        .collect();
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 1);
    assert_eq!(run.sequences[0].expected_chunks, 5);
    assert_incomplete(&run, 0, &["count changes from 5 to 6 (line 4)"]);
}

#[test]
fn index_beyond_count_and_zero_count() {
    let run = parse(b"CPU_PLAN_CHUNK 0 1 7b7d\nCPU_PLAN_CHUNK 0 0 7b7d\n");
    assert_eq!(run.sequences.len(), 2);
    // `{}` is valid JSON but no plan: no `regions`.
    assert!(matches!(problem(&run, 0), PlanProblem::BadJson(m) if m.contains("regions")));
    assert_incomplete(&run, 1, &["beyond the count"]);
}

#[test]
fn huge_count_gives_a_short_message() {
    let run = parse(b"CPU_PLAN_CHUNK 0 99999999999999999999999999 7b\n");
    assert_incomplete(&run, 0, &["missing 1-"]);
    assert!(run.warnings[0].message.len() < 200);
}

#[test]
fn bad_hex() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines[3] = lines[3].replacen("CPU_PLAN_CHUNK 3 5 7", "CPU_PLAN_CHUNK 3 5 7g", 1);
    let run = parse(&log(&lines));
    let PlanProblem::BadHex(text) = problem(&run, 0) else {
        panic!("{:?}", run.sequences[0].outcome);
    };
    assert!(text.contains("chunk 3 (line 4)"), "{text}");
    assert!(text.contains("'g'"), "{text}");
    assert_eq!(run.warnings[0].code, "plan_bad_hex");
}

#[test]
fn odd_length_hex() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines[4].pop();
    let run = parse(&log(&lines));
    let PlanProblem::BadHex(text) = problem(&run, 0) else {
        panic!("{:?}", run.sequences[0].outcome);
    };
    assert!(text.contains("odd number of hex digits"), "{text}");
}

#[test]
fn bad_json() {
    let broken = PLAN.replacen("\"nodes\":[\"neg\"]", "\"nodes\":[\"neg\"", 1);
    let run = parse(&log(&sequence_lines(broken.as_bytes())));
    let PlanProblem::BadJson(text) = problem(&run, 0) else {
        panic!("{:?}", run.sequences[0].outcome);
    };
    // serde_json's own message, with the position.
    assert!(text.contains("line 1 column"), "{text}");
    assert_eq!(run.warnings[0].code, "plan_bad_json");
    // The text itself decodes; only the JSON is wrong.
    assert_eq!(run.plan_json(0).as_deref(), Some(broken.as_str()));
}

#[test]
fn bad_utf8() {
    let mut report = PLAN.as_bytes().to_vec();
    report[30] = 0xff;
    let run = parse(&log(&sequence_lines(&report)));
    assert!(matches!(problem(&run, 0), PlanProblem::BadUtf8(m) if m.contains("index 30")));
    assert_eq!(run.warnings[0].code, "plan_bad_utf8");
}

#[test]
fn first_sequence_broken_second_keeps_index_1() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.remove(3);
    let second = PLAN.replace("conv", "conv_9");
    lines.extend(sequence_lines(second.as_bytes()));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 2);
    assert_incomplete(&run, 0, &["missing 3"]);
    assert_eq!(run.warnings.len(), 1);
    assert_eq!(run.warnings[0].sequence, 0);
    let plans: Vec<_> = run.plans().collect();
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0].0, 1);
    assert_eq!(
        plans[0].1.regions[0].step_name(),
        "XNNPACK/subgraph:conv_9+1"
    );
    assert_eq!(run.sequences[1].first_line, 5);
}

#[test]
fn new_sequence_while_one_is_open() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.truncate(2);
    lines.extend(sequence_lines(PLAN.as_bytes()));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 2);
    assert_incomplete(&run, 0, &["missing 2-4"]);
    assert!(run.sequences[1].outcome.is_ok());
}

#[test]
fn lost_chunk_zero_keeps_its_slot() {
    // Delegate 1 lost its chunk 0: its stray chunks form sequence 1, delegate 2 stays at 2.
    let mut lines = sequence_lines(PLAN.as_bytes());
    let mut second = sequence_lines(PLAN.replace("neg", "abs").as_bytes());
    second.remove(0);
    lines.extend(second);
    lines.extend(sequence_lines(PLAN.replace("neg", "exp").as_bytes()));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 3);
    assert!(run.sequences[0].outcome.is_ok());
    assert_eq!(run.sequences[1].chunk_indexes, vec![1, 2, 3, 4]);
    assert_eq!(run.sequences[1].first_line, 6);
    assert_incomplete(&run, 1, &["missing 0"]);
    let third = run.sequences[2].outcome.as_ref().unwrap();
    assert_eq!(third.regions[1].nodes, vec!["exp"]);
}

#[test]
fn stray_chunk_before_any_sequence() {
    let mut lines = vec!["CPU_PLAN_CHUNK 3 5 abcd".to_string()];
    lines.extend(sequence_lines(PLAN.as_bytes()));
    let run = parse(&log(&lines));
    assert_eq!(run.sequences.len(), 2);
    assert_incomplete(&run, 0, &["missing 0-2, 4"]);
    assert!(run.sequences[1].outcome.is_ok());
}

#[test]
fn noise_and_decoy_between_chunks() {
    let mut lines = sequence_lines(PLAN.as_bytes());
    lines.insert(
        2,
        "[cpuinfo_utils.cpp:125] CPU info and manual query on # of cpus dont match.".into(),
    );
    lines.insert(
        4,
        "I 00:00:00.006356 executorch:notes.cpp:1] CPU_PLAN_CHUNK lines above (decoy)".into(),
    );
    lines.insert(5, String::new());
    let run = parse(&log(&lines));
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert_eq!(run.lines.len(), 8);
    assert_eq!(run.lines.get(4).unwrap().et_log.unwrap().file, "notes.cpp");
    assert!(run.sequences[0].outcome.is_ok());
}

#[test]
fn plan_name_field_overrides_the_naming_rule() {
    let named = PLAN.replacen(
        "\"scratch_bytes\":0}",
        "\"scratch_bytes\":0,\"name\":\"step A\"}",
        1,
    );
    let run = parse(&log(&sequence_lines(named.as_bytes())));
    let plan = run.sequences[0].outcome.as_ref().unwrap();
    assert_eq!(plan.regions[0].step_name(), "step A");
    assert_eq!(plan.regions[1].step_name(), "ET/registry:neg");
}

#[test]
fn empty_input() {
    assert_eq!(parse(b""), RunLog::default());
}

#[test]
fn only_crlf() {
    let run = parse(b"\r\n");
    assert_eq!(run.lines.len(), 1);
    assert_eq!(run.lines.get(0).unwrap().number, 1);
    assert_eq!(run.lines.get(0).unwrap().text, "");
    assert_eq!(run.lines.get(0).unwrap().et_log, None);
    assert!(run.sequences.is_empty());
    assert_eq!(parse(b"\r\n\r\n\r\n").lines.len(), 3);
}

#[test]
fn line_endings_and_lossy_text() {
    let run = parse(b"a\r\nb\nc\r\rd\n\xffe");
    let texts: Vec<&str> = run.lines.iter().map(|l| l.text).collect();
    // Only one `\r` before `\n` is a line ending; a final line without one counts.
    assert_eq!(texts, vec!["a", "b", "c\r\rd", "\u{fffd}e"]);
    let numbers: Vec<usize> = run.lines.iter().map(|l| l.number).collect();
    assert_eq!(numbers, vec![1, 2, 3, 4]);
    assert_eq!(parse(b"x").lines.len(), 1);
    assert_eq!(parse(b"\n").lines.len(), 1);
    assert_eq!(parse(b"\n\n").lines.len(), 2);
}

#[test]
fn hours_over_99_in_a_log() {
    let run = parse(b"I 101:30:00.412345 executorch:runner.cpp:211] Method loaded.\r\n");
    let f = run.lines.get(0).unwrap().et_log.unwrap();
    // (101 * 3600 + 30 * 60) s = 365_400 s, plus 412_345 us.
    assert_eq!(f.time_us, Some(365_400_412_345));
    assert_eq!(f.line, 211);
    assert_eq!(f.message, "Method loaded.");
}

#[test]
fn crlf_chunks_decode() {
    let text = sequence_lines(PLAN.as_bytes()).join("\r\n") + "\r\n";
    let run = parse(text.as_bytes());
    assert!(run.sequences[0].outcome.is_ok());
    assert_eq!(run.plan_json(0).as_deref(), Some(PLAN));
}
