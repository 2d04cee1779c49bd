//! `report` on PyTorch traces: format routing by content, the tally, `--self`, the
//! `cpuprof.trace/1` JSON, and usage errors. Expected values come from the fixtures
//! (op_exit lines counted in the text, PyTorch's own key_averages), not from our output.

use crate::common;

use common::{fixture, json, path, report};

#[test]
fn tally_of_babeltrace_text_counts_every_exit() {
    let file = "thapi/babeltrace2_pretty_clock_seconds.txt";
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    let exits = text
        .lines()
        .filter(|l| l.contains("lttng_ust_pytorch:op_exit"))
        .count();
    assert_eq!(exits, 36);
    let o = report(&[&path(file), "--format", "tally"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "BACKEND_PYTORCH | 1 Hostnames | 1 Processes | 2 Threads | "
    );
    assert_eq!(lines[1], "");
    assert!(lines[2].trim_start().starts_with("Name |"));
    let total = lines
        .iter()
        .find(|l| l.trim_start().starts_with("Total |"))
        .expect("Total row");
    let cells: Vec<&str> = total.split('|').map(str::trim).collect();
    // Total | time | 100.00% | calls | (blank avg/min/max) | errors
    assert_eq!(cells[2], "100.00%");
    assert_eq!(cells[3], exits.to_string());
    // The orphan exit is the one failed call.
    assert_eq!(cells[cells.len() - 2], "1");
}

#[test]
fn self_column_is_added_after_time_percent() {
    let o = report(&[
        &path("thapi/babeltrace2_pretty.txt"),
        "--format",
        "tally",
        "--self",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let header: Vec<&str> = out
        .lines()
        .nth(2)
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    assert_eq!(&header[..4], ["Name", "Time", "Time(%)", "Self"]);
}

#[test]
fn json_of_torch_trace_matches_key_averages() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.json");
    let o = report(&[
        &path("torch/cnn_infer.json"),
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(t["schema"], "cpuprof.trace/1");
    assert_eq!(t["unit"], "ms");
    assert_eq!(t["source"]["format"], "chrome_json");
    let ops = t["ops"].as_array().unwrap();
    for want in json("torch/cnn_infer.key_averages.json")
        .as_array()
        .unwrap()
    {
        let name = want["name"].as_str().unwrap();
        if name == "aten::div_" {
            continue; // PyTorch merges the same-name child into its parent (fixture README)
        }
        let op = ops
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("{name}"));
        let calls = want["count"].as_u64().unwrap();
        assert_eq!(op["calls"].as_u64().unwrap(), calls, "{name}");
        let tol = 0.05e-3 * calls as f64; // 0.05 µs per call, in ms
        let incl = want["cpu_time_total_us"].as_f64().unwrap() / 1e3;
        let selft = want["self_cpu_time_total_us"].as_f64().unwrap() / 1e3;
        assert!(
            (op["inclusive_total"].as_f64().unwrap() - incl).abs() <= tol,
            "{name} inclusive"
        );
        assert!(
            (op["self_total"].as_f64().unwrap() - selft).abs() <= tol,
            "{name} self"
        );
        for key in [
            "count", "median", "min", "max", "mean", "p10", "p90", "p99", "stddev", "samples",
        ] {
            assert!(op["stats"].get(key).is_some(), "{name}: stats.{key}");
        }
    }
    assert!(t["threads"].as_array().is_some_and(|a| !a.is_empty()));
    assert!(t["unterminated"].is_array() && t["warnings"].is_array());
}

#[test]
fn gzip_chrome_trace_and_csv() {
    let o = report(&[&path("torch/cnn_train.json.gz"), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8(o.stdout).unwrap();
    let names: Vec<&str> = out
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .collect();
    for want in json("torch/cnn_train.key_averages.json")
        .as_array()
        .unwrap()
    {
        let name = want["name"].as_str().unwrap();
        let quoted = format!("\"{name}\"");
        assert!(
            names.iter().any(|n| *n == name || *n == quoted),
            "{name} missing from CSV"
        );
    }
}

#[test]
fn etdump_options_are_refused_for_traces() {
    for extra in [["--warmup", "1"], ["--log", "x.log"]] {
        let o = report(&[&path("torch/cnn_infer.json"), extra[0], extra[1]]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("cnn_infer.json") && err.contains(extra[0]),
            "{err}"
        );
    }
    // And the tally is refused for ETDumps.
    let o = report(&[&path("cpu/mlp_basic.etdp"), "--format", "tally"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn truncated_trace_is_a_clear_error_or_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read(fixture("torch/cnn_infer.json")).unwrap();
    let cut = dir.path().join("cut.json");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let o = report(&[cut.to_str().unwrap(), "--format", "json"]);
    let err = String::from_utf8_lossy(&o.stderr);
    match o.status.code() {
        Some(2) => assert!(
            err.contains("cut.json") && err.lines().count() == 1,
            "{err}"
        ),
        Some(0) => assert!(err.contains("warning"), "partial result must warn: {err}"),
        other => panic!("exit {other:?}: {err}"),
    }
}
