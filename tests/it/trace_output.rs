//! Output contracts: `cpuprof.trace/1` JSON, CSV, the tally's `--self` column.

use std::path::Path;

use cpuprof_tui::report::tally::{render_tally, TallyOptions};
use cpuprof_tui::report::trace_csv::{to_csv, CSV_HEADER};
use cpuprof_tui::report::trace_json::{to_json_value, TRACE_SCHEMA};
use cpuprof_tui::trace::{load_trace, parse_trace};

fn keys(v: &serde_json::Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn json_contract_for_lttng_text() {
    let p = load_trace(Path::new(
        "fixtures/thapi/babeltrace2_pretty_clock_seconds.txt",
    ))
    .unwrap();
    let v = to_json_value(&p);
    assert_eq!(v["schema"], TRACE_SCHEMA);
    assert_eq!(v["schema"], "cpuprof.trace/1");
    assert_eq!(v["unit"], "ms");
    assert_eq!(v["source"]["format"], "babeltrace2_text");
    assert!(v["source"]["trace"]
        .as_str()
        .unwrap()
        .ends_with("babeltrace2_pretty_clock_seconds.txt"));
    for k in [
        "schema",
        "unit",
        "source",
        "ops",
        "threads",
        "unterminated",
        "warnings",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    let op = &v["ops"][0];
    for k in [
        "name",
        "calls",
        "errors",
        "inclusive_total",
        "self_total",
        "stats",
        "input_shapes",
    ] {
        assert!(op.get(k).is_some(), "{k}");
    }
    assert_eq!(
        keys(&op["stats"]),
        ["count", "median", "min", "max", "mean", "p10", "p90", "p99", "stddev", "samples"]
    );
    assert!(op["input_shapes"].is_null());
    let t = &v["threads"][0];
    assert_eq!(
        (t["host"].as_str(), t["pid"].as_i64()),
        (Some("vm"), Some(9852))
    );
    let u = &v["unterminated"][0];
    assert_eq!(
        (u["name"].as_str(), u["pid"].as_i64(), u["tid"].as_i64()),
        (
            Some("aten::never_exits.memory_format"),
            Some(9852),
            Some(9852)
        )
    );
    let w = &v["warnings"][0];
    assert_eq!(keys(w), ["kind", "message"]);
    // ms: aten::relu's first call is 30.387 us in the text (832547422 -> 832577809 ns).
    let relu = v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "aten::relu")
        .unwrap();
    assert!((relu["stats"]["samples"][0].as_f64().unwrap() - 0.030387).abs() < 1e-12);
}

#[test]
fn json_shapes_for_chrome_trace() {
    let p = load_trace(Path::new("fixtures/torch/cnn_infer.json")).unwrap();
    let v = to_json_value(&p);
    assert_eq!(v["source"]["format"], "chrome_json");
    let addmm = v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "aten::addmm")
        .unwrap();
    assert_eq!(
        addmm["input_shapes"],
        serde_json::json!([[[10], [2, 32], [32, 10], [], []]])
    );
    assert_eq!(addmm["calls"], 5);
    assert_eq!(v["threads"][0]["host"], "vm");
}

#[test]
fn csv_has_a_header_and_one_quoted_row_per_op() {
    let text = "[1.000000000] vm lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"my, \\\"op\\\"\", overload_name = \"\" }\n\
                [1.000002000] vm lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"my, \\\"op\\\"\", overload_name = \"\" }\n";
    let p = parse_trace(text.as_bytes(), "t").unwrap();
    let csv = to_csv(&cpuprof_tui::rows::RowTree::trace_ops(&p));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], CSV_HEADER);
    assert_eq!(lines.len(), 2);
    assert!(
        lines[1].starts_with("\"my, \"\"op\"\"\",1,0,0.002,0.002,"),
        "{}",
        lines[1]
    );
    let p = load_trace(Path::new("fixtures/torch/cnn_infer.json")).unwrap();
    let csv = to_csv(&cpuprof_tui::rows::RowTree::trace_ops(&p));
    assert_eq!(csv.lines().count(), p.ops.len() + 1);
    assert!(csv.contains("aten::addmm,5,0,"));
    assert!(csv.contains("\"[[10],[2,32],[32,10],[],[]]\""));
}

#[test]
fn tally_self_column_and_name_cut() {
    // aten::linear [0, 10 us] holds aten::t [1, 3 us]; a long name is cut to 20 chars.
    let long = "aten::a_very_long_operator_name_indeed";
    let text = format!(
        "[1.000000000] vm lttng_ust_pytorch:op_entry: {{ vpid = 1, vtid = 1 }}, {{ name = \"aten::linear\", overload_name = \"\" }}\n\
         [1.000001000] vm lttng_ust_pytorch:op_entry: {{ vpid = 1, vtid = 1 }}, {{ name = \"{long}\", overload_name = \"\" }}\n\
         [1.000003000] vm lttng_ust_pytorch:op_exit: {{ vpid = 1, vtid = 1 }}, {{ name = \"{long}\", overload_name = \"\" }}\n\
         [1.000010000] vm lttng_ust_pytorch:op_exit: {{ vpid = 1, vtid = 1 }}, {{ name = \"aten::linear\", overload_name = \"\" }}\n"
    );
    let p = parse_trace(text.as_bytes(), "t").unwrap();
    let opts = TallyOptions {
        self_time: true,
        max_name_size: 20,
    };
    let got = render_tally(
        &cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(&p)),
        opts,
    );
    // THAPI's cut keeps (20 - 5) / 2 = 7 leading and 8 trailing characters.
    let want = [
        "BACKEND_PYTORCH | 1 Hostnames | 1 Processes | 1 Threads | ",
        "",
        "                Name |    Time | Time(%) |    Self | Calls | Average |     Min |     Max |         ",
        "        aten::linear | 10.00us |  83.33% |  8.00us |     1 | 10.00us | 10.00us | 10.00us |         ",
        "aten::a[...]e_indeed |  2.00us |  16.67% |  2.00us |     1 |  2.00us |  2.00us |  2.00us |         ",
        "               Total | 12.00us | 100.00% | 10.00us |     2 |                                       ",
        "",
        "",
    ]
    .join("\n");
    assert_eq!(got, want);
}

/// The reports' rows (`RowTree::trace_ops`) of the THAPI recording against the truth its
/// generator wrote (`expected_self_time.tsv`, from the events, not from this reader):
/// calls, inclusive and self time, fastest and slowest call per op; the failed call and
/// the two threads.
#[test]
fn op_rows_equal_the_recordings_truth() {
    use cpuprof_tui::rows::{Facts, RowTree};
    let p = load_trace(Path::new("fixtures/thapi/ctf")).unwrap();
    let tree = RowTree::trace_ops(&p);
    let text = std::fs::read_to_string("fixtures/thapi/expected_self_time.tsv").unwrap();
    let mut checked = 0;
    for l in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split('\t').collect();
        let n = |i: usize| f[i].parse::<i64>().unwrap();
        let row = tree.ops().find(|r| r.name == f[0]).expect(f[0]);
        let Facts::Op {
            calls,
            errors,
            inclusive_ns,
            self_ns,
            ..
        } = row.facts
        else {
            panic!("{}: an op row without its facts", f[0]);
        };
        assert_eq!((calls as i64, errors), (n(1), 0), "{}", f[0]);
        assert_eq!((inclusive_ns, self_ns), (n(2), n(3)), "{}", f[0]);
        assert_eq!(row.min_max_ns(), Some((n(4), n(5))), "{}", f[0]);
        checked += 1;
    }
    assert_eq!(checked, 7);
    let orphan = tree.ops().find(|r| r.name == "aten::orphan_exit").unwrap();
    assert!(matches!(
        orphan.facts,
        Facts::Op {
            calls: 1,
            errors: 1,
            inclusive_ns: 0,
            ..
        }
    ));
    assert_eq!(orphan.min_max_ns(), None);
    // Two threads (main and worker, README), no call tree below them in these rows.
    let tids: Vec<i64> = tree
        .threads()
        .map(|t| match &t.facts {
            Facts::Thread { key, .. } => key.tid,
            _ => panic!("a thread row without its facts"),
        })
        .collect();
    assert_eq!(tids, [9852, 9855]);
    assert!(tree.threads().all(|t| t.children.is_empty()));
}

/// cnn_infer's `key_averages()`: every op row's calls, inclusive (`cpu_time_total`) and
/// self time, as the JSON and CSV reports write them.
#[test]
fn op_rows_equal_key_averages() {
    use cpuprof_tui::rows::{Facts, RowTree};
    let p = load_trace(Path::new("fixtures/torch/cnn_infer.json")).unwrap();
    let tree = RowTree::trace_ops(&p);
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("fixtures/torch/cnn_infer.key_averages.json").unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    for want in golden.as_array().unwrap() {
        let name = want["name"].as_str().unwrap();
        let Some(row) = tree.ops().find(|r| r.name == name) else {
            continue;
        };
        let Facts::Op {
            calls,
            inclusive_ns,
            self_ns,
            ..
        } = row.facts
        else {
            panic!("{name}: an op row without its facts");
        };
        let us = |k: &str| want[k].as_f64().unwrap();
        assert_eq!(calls, want["count"].as_u64().unwrap(), "{name}");
        let near = |ns: i64, us: f64| (ns as f64 / 1e3 - us).abs() <= 1.0 + us * 1e-9;
        assert!(near(inclusive_ns, us("cpu_time_total_us")), "{name}");
        assert!(near(self_ns, us("self_cpu_time_total_us")), "{name}");
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} ops found");
}

/// A thread whose calls are all Python frames (left out without `--python-frames`) has a
/// call tree and no calls: each thread's row holds its own key, calls and call tree (the
/// rows once paired the threads with the call trees by position, so the second thread
/// showed the first's tree), and the reports list the thread that made calls only.
#[test]
fn a_thread_of_python_frames_only_keeps_its_own_tree() {
    use cpuprof_tui::rows::{Facts, RowKind, RowTree};
    let text = r#"{"traceEvents": [
      {"ph": "X", "cat": "python_function", "name": "train.py(3): loop", "pid": 1, "tid": 7, "ts": 0, "dur": 50},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 8, "ts": 10, "dur": 20}
    ]}"#;
    let p = parse_trace(text.as_bytes(), "t.json").unwrap();
    let tree = RowTree::from_trace(&p);
    let scopes: Vec<(i64, u64, Vec<&str>)> = tree
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Scope)
        .map(|r| match &r.facts {
            Facts::Thread { key, calls, .. } => (
                key.tid,
                *calls,
                r.children
                    .iter()
                    .map(|&c| tree.rows[c].name.as_str())
                    .collect(),
            ),
            _ => panic!("a scope row without its facts"),
        })
        .collect();
    assert_eq!(
        scopes,
        [(7, 0, vec!["train.py(3): loop"]), (8, 1, vec!["aten::mm"])]
    );
    let v = to_json_value(&p);
    assert_eq!(v["threads"].as_array().unwrap().len(), 1);
    assert_eq!(v["threads"][0]["tid"], 8);
    assert_eq!(v["threads"][0]["calls"], 1);
}
