//! The `report` command as scripts use it: exit codes, one-line errors naming the file,
//! atomic output that never touches inputs, and the three formats.

use crate::common;

use std::process::{Command, Output};

use common::{fixture, json, path, report};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn json_to_file_is_the_profile_contract() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("profile.json");
    let o = report(&[
        &path("cpu/cnn2_basic.etdp"),
        "--warmup",
        "3",
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // The log beside the dump is used, and the tool says so.
    assert!(
        stderr(&o).contains("using runner log") && stderr(&o).contains("cnn2_basic.log"),
        "{}",
        stderr(&o)
    );
    let p: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let truth = json("cpu/cnn2_basic.truth.json");
    assert_eq!(p["schema"], "cpuprof.profile/1");
    assert_eq!(p["unit"], "ms");
    assert_eq!(
        p["runs"],
        serde_json::json!({"total": 23, "warmup_dropped": 3, "kept": 20})
    );
    assert_eq!(p["delegates"].as_array().unwrap().len(), 2);
    assert_eq!(p["delegates"][0]["kind"], "cpu_plan");
    assert_eq!(
        p["delegates"][1]["instruction_id"],
        truth["delegates"][1]["instruction_id"]
    );
    assert_eq!(p["delegates"][0]["plan"], truth["delegates"][0]["plan"]);
    assert_eq!(
        p["method"]["median"].as_f64().unwrap(),
        truth["method_execute"]["median_ms"].as_f64().unwrap()
    );
    for key in [
        "count", "median", "min", "max", "mean", "p10", "p90", "p99", "stddev", "samples",
    ] {
        assert!(p["method"].get(key).is_some(), "STATS has {key}");
    }
    // The one warning is the clock-resolution note (XNNPACK times are whole µs).
    let kinds: Vec<&str> = p["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["below_clock_resolution"]);
    assert_eq!(p["resolution"]["xnnpack_operator_ms"], 0.001);
    assert_eq!(p["methods"].as_array().unwrap().len(), 1);
    assert_eq!(p["methods"][0]["runs"], p["runs"]);
    assert_eq!(p["errors"], serde_json::json!([]));
    // Only the output file is left in the directory (the temp file was renamed).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn failed_check_exits_1_unless_allowed() {
    let dump = path("cpu-faults/cnn2_drop_ops.etdp");
    let o = report(&[&dump, "--warmup", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("xnnpack_operator_events_missing"),
        "{}",
        stderr(&o)
    );
    let o = report(&[&dump, "--warmup", "2", "--allow-missing"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_file() {
    for (file, what) in [
        ("real/bad_empty.etdp", "empty file"),
        ("real/bad_truncated.etdp", "incomplete"),
        ("real/bad_wrong_identifier.etdp", "XX00"),
        ("real/bad_no_size_prefix.etdp", "no size prefix"),
        ("real/bad_flipped.etdp", "corrupt"),
        ("real/bad_truncated_header.etdp", "only 6 bytes"),
        ("no/such/file.etdp", "no such file"),
    ] {
        let o = report(&[&path(file)]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        assert!(err.contains(file) && err.contains(what), "{file}: {err}");
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn warmup_that_drops_every_run_is_a_usage_error() {
    let o = report(&[&path("cpu/mlp_w0_t1.etdp"), "--warmup", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--warmup 1"), "{}", stderr(&o));
    let o = report(&[&path("cpu/mlp_w0_t1.etdp"), "--warmup", "-1"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn never_writes_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("d.etdp");
    std::fs::copy(fixture("cpu/mlp_basic.etdp"), &dump).unwrap();
    let before = std::fs::read(&dump).unwrap();
    let o = report(&[
        dump.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        dump.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("refusing"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&dump).unwrap(), before);
}

#[test]
fn csv_has_one_row_per_method_call_step_and_operator() {
    let o = report(&[
        &path("cpu/cnn2_basic.etdp"),
        "--warmup",
        "3",
        "--format",
        "csv",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let truth = json("cpu/cnn2_basic.truth.json");
    // Expected rows from the truth: method + per delegate (call + steps + operators) +
    // non-delegated instructions.
    let mut want = 1;
    for d in truth["delegates"].as_array().unwrap() {
        want += 1;
        for s in d["steps"].as_array().unwrap() {
            want += 1 + s["operators"].as_array().unwrap().len();
        }
    }
    want += truth["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "operator")
        .count();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("level,delegate_instruction_id,"));
    assert_eq!(lines.len() - 1, want);
    // Operator names with commas are quoted, and shapes are filled.
    assert!(text.contains("\"Convolution (NHWC, F32) IGEMM #1\""));
    // Shapes in the explorer's notation (quoted: they hold commas).
    assert!(text.contains(",\"[1,3,32,32] "), "{text}");
}

#[test]
fn table_groups_steps_under_delegates() {
    let o = report(&[&path("cpu/mlp_basic.etdp"), "--warmup", "3"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    let truth = json("cpu/mlp_basic.truth.json");
    let step = truth["delegates"][0]["steps"][0]["event"].as_str().unwrap();
    let step_line = text
        .lines()
        .position(|l| l.trim_start().starts_with(step))
        .expect("step row");
    let delegate_line = text
        .lines()
        .position(|l| l.starts_with("delegate #"))
        .expect("delegate row");
    assert!(delegate_line < step_line);
    assert!(text.contains("Runs    23 total, 3 warm-up dropped, 20 kept"));
}

use crate::support::etdump_build;

#[test]
fn a_failed_write_to_stdout_is_an_error() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full");
    let Ok(full) = full else { return }; // not on this system
    let o = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["report", "--format", "json", &path("cpu/mlp_basic.etdp")])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("<stdout>: cannot write the report"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_impossibly_large_file_is_rejected_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.etdp");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(5 << 30).unwrap(); // sparse: no disk used, and must not be read
    let started = std::time::Instant::now();
    let o = report(&[huge.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("larger than any ETDump"),
        "{}",
        stderr(&o)
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "it read the file"
    );
}

#[test]
fn labels_with_newlines_keep_messages_on_one_line() {
    use etdump_build::{build, delegate_op, profile, BuiltEvent, BuiltRun};
    let run = |with_odd: bool| {
        let mut events = Vec::new();
        if with_odd {
            events.push(delegate_op("Odd\nop #1", 0, 10, 20));
        }
        // Four more operators in every run, so the run without the odd one is the same
        // method with one lost event (one in five), not a second run signature.
        for k in 1..=4u64 {
            let name = format!("Fully Connected (NC, F32) GEMM #{k}");
            events.push(delegate_op(&name, 0, 20 + k, 21 + k));
        }
        events.push(profile("DELEGATE_CALL", 0, 5, 40));
        let mut exec = profile("Method::execute", 0, 0, 50);
        if let BuiltEvent::Profile(p) = &mut exec {
            p.chain_index = -1;
        }
        events.push(exec);
        BuiltRun {
            name: Some("Execute".into()),
            bundled_input_index: -1,
            events: Some(events),
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("odd.etdp");
    std::fs::write(&dump, build(0, &[run(true), run(false)])).unwrap();
    let o = report(&[dump.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    // "Odd\nop #1" has 1 sample in 2 runs: one warning line, label escaped.
    assert!(
        err.contains("\"Odd\\nop #1\" has 1 samples in 2 kept runs"),
        "{err}"
    );
    assert!(err.lines().all(|l| l.starts_with("cpuprof-tui: ")), "{err}");
}

#[test]
fn warmup_auto_and_one_section_per_method() {
    // two_method: 12 encode runs and 16 decode runs; by the auto rule (worked out in
    // tests/it/profile_warmup.rs) 3 and 1 cold leading runs.
    let o = report(&[
        &path("real/two_method.etdp"),
        "--warmup",
        "auto",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let methods = p["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 2);
    for (m, (name, total, dropped)) in methods
        .iter()
        .zip([("method 1", 12, 3), ("method 2", 16, 1)])
    {
        assert_eq!(m["name"], name);
        assert_eq!(m["runs"]["total"], total);
        assert_eq!(m["runs"]["warmup_dropped"], dropped);
        for key in [
            "index",
            "bundled_input_index",
            "method",
            "delegates",
            "other_operators",
            "remainder",
            "warnings",
            "errors",
        ] {
            assert!(m.get(key).is_some(), "methods[] has {key}");
        }
    }
    // Top level: the first method.
    assert_eq!(p["runs"], methods[0]["runs"]);
    assert!(stderr(&o).contains("several_methods"));
    assert!(stderr(&o).contains("warmup_auto"));
    // Table: one section per method.
    let o = report(&[&path("real/two_method.etdp"), "--warmup", "auto"]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("== method 1 "), "{text}");
    assert!(text.contains("== method 2 "), "{text}");
    assert!(
        text.contains("Runs    16 total, 1 warm-up dropped, 15 kept"),
        "{text}"
    );
    // A bad warm-up value is a usage error.
    let o = report(&[&path("real/two_method.etdp"), "--warmup", "soon"]);
    assert_eq!(o.status.code(), Some(2));
}

/// Into a pipe (or a file) the table keeps whole names: the plan step of cnn2_basic
/// (`XNNPACK/subgraph:conv_1+3 (4 nodes)`) is not cut; only a terminal's width cuts names
/// (`profile_table_cut`: at 80 columns 18 characters are left for a name).
#[test]
fn table_names_are_cut_only_to_a_terminal_width() {
    let o = report(&[&path("cpu/cnn2_basic.etdp")]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let title = "XNNPACK/subgraph:conv_1+3 (4 nodes)";
    assert!(
        text.lines().any(|l| l.trim_start().starts_with(title)),
        "{text}"
    );
    assert!(!text.contains('…'), "{text}");
    // At 80 columns the same table fits the width, names cut with `…`.
    let p = common::load("cpu/cnn2_basic.etdp", Some("cpu/cnn2_basic.log"), 3);
    let narrow = cpuprof_tui::report::profile_table_cut(&p, Some(80));
    let row = narrow
        .lines()
        .find(|l| l.trim_start().starts_with("XNNPACK/sub"))
        .unwrap();
    assert!(row.contains('…') && row.chars().count() <= 80, "{row}");
}
