//! The explorer's view of PyTorch traces, against PyTorch's own aggregates
//! (`*.key_averages.json`) and the THAPI fixture's ground truth.

mod common;

use std::sync::atomic::AtomicBool;

use common::{fixture, json};
use cpuprof_tui::app::{ExplorerData, NodeKind, SourceKind};
use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::source::is_trace_file;
use cpuprof_tui::worker::load_explorer_data;

fn open(rel: &str) -> ExplorerData {
    let request = ProfileRequest::new(fixture(rel), None, 0);
    load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap()
}

#[test]
fn detection_is_by_content() {
    assert!(is_trace_file(
        &fixture("torch/cnn_infer.json"),
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
    assert!(is_trace_file(
        &fixture("torch/cnn_train.json.gz"),
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
    assert!(is_trace_file(
        &fixture("thapi/babeltrace2_pretty.txt"),
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
    assert!(!is_trace_file(
        &fixture("cpu/mlp_basic.etdp"),
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
    assert!(!is_trace_file(
        &fixture("real/bad_empty.etdp"),
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
    // A trace renamed to .etdp is still a trace.
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("trace.etdp");
    std::fs::copy(fixture("torch/cnn_infer.json"), &renamed).unwrap();
    assert!(is_trace_file(
        &renamed,
        cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE
    ));
}

#[test]
fn torch_ops_table_matches_key_averages() {
    let d = open("torch/cnn_infer.json");
    assert_eq!(d.kind, SourceKind::Trace);
    assert!(d.runs.is_none());
    for want in json("torch/cnn_infer.key_averages.json")
        .as_array()
        .unwrap()
    {
        let name = want["name"].as_str().unwrap();
        if name == "aten::div_" {
            continue; // merged by PyTorch (fixture README)
        }
        let row = d
            .ops
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("{name}"));
        let calls = want["count"].as_u64().unwrap() as usize;
        assert_eq!(row.stats.count, calls, "{name}");
        let self_ms = want["self_cpu_time_total_us"].as_f64().unwrap() / 1e3;
        assert!(
            (row.self_total.unwrap() - self_ms).abs() <= 0.05e-3 * calls as f64,
            "{name}"
        );
        // The table row's node carries the same statistics for the detail pane.
        assert_eq!(d.nodes[row.node].stats, row.stats);
    }
    let conv = d.ops.iter().find(|r| r.name == "aten::conv2d").unwrap();
    assert!(
        conv.input_shapes.starts_with("[2,3,32,32] [16,3,3,3] [16]"),
        "{}",
        conv.input_shapes
    );
    assert!(conv.dtypes.starts_with("float"), "{}", conv.dtypes);
}

#[test]
fn call_tree_aggregates_by_path_per_thread() {
    let d = open("torch/cnn_infer.json");
    let thread = d.roots[0];
    assert!(d.nodes[thread].name.starts_with("thread "));
    // Each of the 5 iterations is one top-level `iteration` range.
    let iteration = d.nodes[thread].children[0];
    assert_eq!(d.nodes[iteration].name, "iteration");
    assert_eq!(d.nodes[iteration].stats.count, 5);
    // conv2d runs twice per iteration: one path node with 10 calls under `iteration`.
    let conv = d.nodes[iteration]
        .children
        .iter()
        .map(|&c| &d.nodes[c])
        .find(|n| n.name == "aten::conv2d")
        .unwrap();
    assert_eq!(conv.stats.count, 10);
    assert_eq!(conv.kind, NodeKind::Operator);
}

#[test]
fn thapi_trace_has_two_threads_and_a_failed_call() {
    let d = open("thapi/babeltrace2_pretty_clock_seconds.txt");
    // Ground truth: two threads (expected_events.tsv vtids).
    let truth = std::fs::read_to_string(fixture("thapi/expected_events.tsv")).unwrap();
    let mut tids: Vec<&str> = truth
        .lines()
        .skip(1)
        .filter_map(|l| l.split('\t').nth(3))
        .collect();
    tids.sort();
    tids.dedup();
    let threads = d
        .roots
        .iter()
        .filter(|&&r| d.nodes[r].name.starts_with("thread "))
        .count();
    assert_eq!(threads, tids.len());
    assert_eq!(threads, 2);
    assert_eq!(d.error_count(), 1);
    assert!(d
        .findings
        .iter()
        .any(|f| f.error && f.message.contains("aten::orphan_exit")));
    assert!(d.findings.iter().any(|f| f.message.contains("never")));
}

/// Two calls of 5e15 µs (5e18 ns each): their sum does not fit an i64. The totals
/// saturate instead of panicking (debug) or wrapping negative (release).
#[test]
fn huge_durations_saturate() {
    let text = br#"{"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "a", "ts": 0, "dur": 5e15, "pid": 1, "tid": 1},
        {"ph": "X", "cat": "cpu_op", "name": "b", "ts": 6e15, "dur": 5e15, "pid": 1, "tid": 1}
    ]}"#;
    let trace = cpuprof_tui::trace::parse_trace(text, "huge.json").unwrap();
    let data = ExplorerData::from_trace(&trace);
    let thread = &data.nodes[data.roots[0]];
    let shares: Vec<f64> = thread
        .children
        .iter()
        .map(|&c| data.nodes[c].share.unwrap())
        .collect();
    // Each call is 5e18 of a saturated 9.22e18 total: a positive share below 1.
    assert_eq!(shares.len(), 2);
    for s in shares {
        assert!(s > 0.5 && s < 0.6, "{s}");
    }
    for op in &data.ops {
        assert!(op.share > 0.5 && op.share < 0.6, "{}", op.share);
    }
}

#[test]
fn a_trace_op_whose_every_call_failed_shows_its_calls_and_failures() {
    // The THAPI fixture's `aten::orphan_exit` has one exit with no entry: one call, and it
    // failed (no duration). The tally counts it as 1 call, 1 error; the explorer's row must
    // say the same, not count 0.
    let d = open("thapi/babeltrace2_pretty_clock_seconds.txt");
    let row = d
        .ops
        .iter()
        .find(|r| r.name == "aten::orphan_exit")
        .unwrap();
    assert_eq!(
        row.stats.count, 0,
        "no successful call, so no duration sample"
    );
    assert_eq!(row.failed, 1);
    let trace =
        cpuprof_tui::trace::load_trace(&fixture("thapi/babeltrace2_pretty_clock_seconds.txt"))
            .unwrap();
    let op = trace.op("aten::orphan_exit").unwrap();
    assert_eq!((op.calls, op.errors), (1, 1));
    assert_eq!(row.stats.count as u64 + row.failed, op.calls);
}
