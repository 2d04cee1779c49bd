//! The explorer's view of PyTorch traces, against PyTorch's own aggregates
//! (`*.key_averages.json`) and the THAPI fixture's ground truth.

use crate::common;
use crate::support::explorer;

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

/// Issue #47: a trace's call tree gives each node's total (its calls' inclusive time
/// summed) beside its share, and the share is of the parent's total: the same quantity.
/// The totals are `key_averages()`'s `cpu_time_total` (the fixture's own file).
#[test]
fn tree_totals_and_shares_are_of_one_quantity() {
    let d = open("torch/cnn_infer.json");
    let ka = json("torch/cnn_infer.key_averages.json");
    let total_of = |name: &str| -> f64 {
        ka.as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()["cpu_time_total_us"]
            .as_f64()
            .unwrap()
            / 1e3
    };
    let node = |name: &str| {
        d.nodes
            .iter()
            .position(|n| n.name == name && n.op_row.is_none())
            .unwrap()
    };
    for name in ["iteration", "aten::conv2d", "aten::relu"] {
        let total = d.node_totals[node(name)].unwrap();
        assert!((total - total_of(name)).abs() < 1e-3, "{name}: {total}");
    }
    let mut checked = 0;
    for (id, n) in d.nodes.iter().enumerate() {
        let (Some(share), Some(parent)) = (n.share, n.parent) else {
            continue;
        };
        let (Some(total), Some(Some(parent_total))) = (
            d.node_totals.get(id).copied().flatten(),
            d.node_totals.get(parent).copied(),
        ) else {
            continue;
        };
        if n.op_row.is_none() {
            assert!(
                (share - total / parent_total).abs() < 1e-9,
                "{}: {share} vs {total}/{parent_total}",
                n.name
            );
            checked += 1;
        }
    }
    assert!(checked > 10);
}

/// Median of whole ns.
fn median_ns(mut v: Vec<i64>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    }
}

/// The THAPI header gives the top-level calls per op (the recording's calls differ:
/// `aten::linear`, `aten::relu`, ...), never one median across them. Top-level calls
/// worked out from `expected_events.tsv`: entries and exits paired per thread, a call
/// named by its exit with its overload as printed (as the reader does), an exit with
/// no entry skipped.
#[test]
fn thapi_header_gives_top_level_calls_per_op() {
    use std::collections::BTreeMap;
    let tsv = std::fs::read_to_string(fixture("thapi/expected_events.tsv")).unwrap();
    // babeltrace2 2.0.4 printed a wrong overload on 13 lines (the fixture lists them):
    // the reader sees the printed one.
    let stale =
        std::fs::read_to_string(fixture("thapi/babeltrace2_stale_overload_lines.tsv")).unwrap();
    let printed: BTreeMap<usize, String> = stale
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].parse().unwrap(), f[3].to_string())
        })
        .collect();
    let mut stacks: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    let mut calls: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (i, line) in tsv.lines().skip(1).enumerate() {
        let mut f: Vec<&str> = line.split('\t').collect();
        if let Some(o) = printed.get(&(i + 1)) {
            f.resize(6, "");
            f[5] = o;
        }
        let (secs, frac) = f[0].split_once('.').unwrap();
        let ns = secs.parse::<i64>().unwrap() * 1_000_000_000 + frac.parse::<i64>().unwrap();
        let stack = stacks.entry(f[3]).or_default();
        if f[1].ends_with("op_entry") {
            stack.push(ns);
        } else if let Some(start) = stack.pop() {
            if stack.is_empty() {
                // `name.overload` when the exit names an overload.
                let name = match f.get(5).filter(|o| !o.is_empty()) {
                    Some(o) => format!("{}.{o}", f[4]),
                    None => f[4].to_string(),
                };
                calls.entry(name).or_default().push(ns - start);
            }
        }
    }
    let (first, durations) = calls
        .iter()
        .max_by_key(|(_, d)| d.iter().sum::<i64>())
        .unwrap();
    let expected = format!(
        "{first} {} ×{}",
        cpuprof_tui::units::duration_ms(median_ns(durations.clone()) / 1e6),
        durations.len()
    );
    let s = explorer::opened(
        &fixture("thapi/babeltrace2_pretty_clock_seconds.txt")
            .display()
            .to_string(),
        0,
        (160, 48),
    );
    let text = explorer::screen(&s);
    let header = text.lines().nth(1).unwrap();
    assert!(header.contains(&expected), "{expected:?} in {header}");
    assert!(calls.len() > 1);
    assert!(!header.contains("top-level calls median"), "{header}");
}

/// The explorer's trace tree is read from the row model (`RowTree::from_trace`): its op
/// rows carry PyTorch's own counts and self times (`key_averages()`, the JSON beside the
/// trace, made by `fixtures/torch/make.py`), and merging the threads' call trees keeps
/// every top-level call (the merged root of a name has as many samples as the threads'
/// roots of that name have calls).
#[test]
fn the_trace_tree_is_read_from_the_row_model() {
    use cpuprof_tui::rows::{Facts, RowKind};
    let d = open("torch/cnn_train.json.gz");
    let tree = d.rows.as_ref().expect("a trace's row model");
    for n in &d.nodes {
        if let Some(r) = n.row {
            assert_eq!(tree.rows[r].name, n.name);
        }
    }
    let mut checked = 0;
    for want in json("torch/cnn_train.key_averages.json")
        .as_array()
        .unwrap()
    {
        let name = want["name"].as_str().unwrap();
        let Some(r) = tree
            .rows
            .iter()
            .find(|r| r.kind == RowKind::Op && r.name == name)
        else {
            continue;
        };
        let Facts::Op { calls, self_ns, .. } = &r.facts else {
            panic!("{name}: an op row without its facts");
        };
        assert_eq!(*calls, want["count"].as_u64().unwrap(), "{name}: calls");
        let self_us = want["self_cpu_time_total_us"].as_f64().unwrap();
        assert!(
            (*self_ns as f64 / 1e3 - self_us).abs() <= 1.0 + self_us * 1e-9,
            "{name}: self {self_ns} ns against {self_us} us"
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} ops found");
    let merged = tree.merged_threads();
    let mut roots: std::collections::BTreeMap<&str, u64> = Default::default();
    for &s in tree
        .roots
        .iter()
        .filter(|&&s| tree.rows[s].kind == RowKind::Scope)
    {
        for &c in &tree.rows[s].children {
            if let Facts::Call { calls, errors, .. } = tree.rows[c].facts {
                *roots.entry(tree.rows[c].name.as_str()).or_default() += calls - errors;
            }
        }
    }
    let got: std::collections::BTreeMap<&str, u64> = merged
        .roots
        .iter()
        .filter(|&&r| merged.rows[r].kind == RowKind::Node)
        .map(|&r| {
            let row = &merged.rows[r];
            (row.name.as_str(), row.stats.samples.ns().len() as u64)
        })
        .collect();
    assert_eq!(got, roots);
    assert!(!merged.rows.iter().any(|r| r.kind == RowKind::Scope));
}
