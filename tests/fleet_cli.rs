//! `cpuprof-tui fleet` end to end. The generated fleets of `fixtures/fleet/` (made by
//! `scripts/make_fleet_fixtures.sh`; `truth.json` says what was injected where): the
//! outlier device and the commit of the regression found exactly, nothing on the null
//! fleet of 40. Mixed fleets built here from other fixtures: a damaged dump and a torch
//! trace among dumps; the long CSV table read back equals each profile's `report` JSON.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures");

fn fx(rel: &str) -> PathBuf {
    Path::new(FIX).join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(args)
        .output()
        .expect("run cpuprof-tui")
}

fn ok_stdout(args: &[&str]) -> String {
    let out = run(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn fleet_json(args: &[&str]) -> Value {
    let mut all = vec!["fleet", "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&ok_stdout(&all)).expect("fleet JSON")
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

/// RFC 4180 records (quoted cells with `""` inside).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(cell.is_empty() && row.is_empty(), "CSV ends with a newline");
    rows
}

fn by_id<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no profile {id}"))
}

#[test]
fn damaged_dump_and_torch_trace_inside_a_fleet() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for n in ["cnn2_a", "cnn2_null_b", "wide_a"] {
        copy(&fx(&format!("compare/{n}.etdp")), &d.join(format!("dumps/{n}.etdp")));
        copy(&fx(&format!("compare/{n}.log")), &d.join(format!("dumps/{n}.log")));
    }
    // A dump cut in half, and a file named like a dump that is not one.
    let bytes = std::fs::read(fx("compare/cnn2_a.etdp")).unwrap();
    std::fs::write(d.join("dumps/broken.etdp"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(d.join("dumps/junk.etdp"), b"this is no dump at all\n").unwrap();
    copy(&fx("torch/cnn_infer.json"), &d.join("traces/cnn_infer.json"));
    let root = d.to_str().unwrap();
    let v = fleet_json(&[root]);
    assert_eq!(v["schema"], "cpuprof.fleet/1");
    let ids: BTreeSet<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let want: BTreeSet<&str> = [
        "dumps/broken.etdp",
        "dumps/cnn2_a.etdp",
        "dumps/cnn2_null_b.etdp",
        "dumps/junk.etdp",
        "dumps/wide_a.etdp",
        "traces/cnn_infer.json",
    ]
    .into();
    assert_eq!(ids, want, "logs are not profiles; everything else is listed");
    // The two damaged files: their error is `report`'s (one line), no model, no rows.
    for bad in ["dumps/broken.etdp", "dumps/junk.etdp"] {
        let p = by_id(&v, bad);
        assert!(p["model"].is_null() && p["method"].is_null());
        let err = p["error"].as_str().expect("an error");
        assert!(!err.contains('\n'));
        let path = d.join(bad);
        let report = run(&["report", path.to_str().unwrap()]);
        assert_eq!(report.status.code(), Some(2));
        let line = String::from_utf8_lossy(&report.stderr);
        assert!(line.contains(err), "fleet: {err:?}; report: {line:?}");
    }
    // The others loaded: two cnn2 dumps share a model, wide and the trace have their own.
    let model = |id: &str| by_id(&v, id)["model"].as_str().unwrap().to_string();
    assert_eq!(model("dumps/cnn2_a.etdp"), model("dumps/cnn2_null_b.etdp"));
    let models: BTreeSet<String> =
        ["dumps/cnn2_a.etdp", "dumps/wide_a.etdp", "traces/cnn_infer.json"]
            .iter()
            .map(|i| model(i))
            .collect();
    assert_eq!(models.len(), 3);
    assert_eq!(by_id(&v, "traces/cnn_infer.json")["kind"], "trace");
    assert_eq!(by_id(&v, "dumps/wide_a.etdp")["runs"], 20);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    let cnn2 = groups
        .iter()
        .find(|g| g["model"] == model("dumps/cnn2_a.etdp").as_str())
        .unwrap();
    assert_eq!(cnn2["profiles"].as_array().unwrap().len(), 2);
    // Method::execute across the two: the mean of the two medians (numpy's median of 2).
    let m = |id: &str| by_id(&v, id)["method"]["median"].as_f64().unwrap();
    let row0 = &cnn2["rows"][0];
    assert_eq!(row0["name"], "Method::execute");
    let want = (m("dumps/cnn2_a.etdp") + m("dumps/cnn2_null_b.etdp")) / 2.0;
    assert!((row0["median_of_medians"].as_f64().unwrap() - want).abs() < 1e-12);
    // The table says so too, and the command does not fail for the broken ones.
    let table = ok_stdout(&["fleet", root]);
    assert!(table.contains("6 profiles, 2 failed, 3 groups"), "{table}");
}

/// (row path joined with ` › `, stats) of every row of a `report --format json` dump.
fn report_rows(report: &Value) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    let root = "Method::execute".to_string();
    out.insert(root.clone(), report["method"].clone());
    for d in report["delegates"].as_array().unwrap() {
        let dp = format!("{root} › delegate #{}", d["instruction_id"]);
        out.insert(dp.clone(), d["call"].clone());
        for s in d["steps"].as_array().unwrap() {
            let sp = format!("{dp} › {}", s["name"].as_str().unwrap());
            out.insert(sp.clone(), s["stats"].clone());
            for o in s["operators"].as_array().unwrap() {
                out.insert(format!("{sp} › {}", o["name"].as_str().unwrap()), o["stats"].clone());
            }
        }
        for o in d["operators"].as_array().unwrap().iter().chain(d["unattributed"].as_array().unwrap()) {
            out.insert(format!("{dp} › {}", o["name"].as_str().unwrap()), o["stats"].clone());
        }
    }
    for o in report["other_operators"].as_array().unwrap() {
        let op = format!("{root} › {}", o["name"].as_str().unwrap());
        out.insert(op.clone(), o["stats"].clone());
        for k in o["kernels"].as_array().unwrap() {
            out.insert(format!("{op} › {}", k["name"].as_str().unwrap()), k["stats"].clone());
        }
    }
    out
}

#[test]
fn csv_long_table_equals_each_profiles_report_json() {
    let files = ["compare/cnn2_a.etdp", "compare/cnn2_slow_b.etdp", "compare/wide_a.etdp"];
    let paths: Vec<String> = files.iter().map(|f| fx(f).display().to_string()).collect();
    let mut args = vec!["fleet", "--format", "csv", "--warmup", "3"];
    args.extend(paths.iter().map(String::as_str));
    let csv = parse_csv(&ok_stdout(&args));
    let header = &csv[0];
    let col = |name: &str| header.iter().position(|h| h == name).unwrap_or_else(|| panic!("{name}"));
    for c in [
        "profile_id", "path", "model", "row_path", "kind", "name", "instruction_id", "count",
        "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms", "mean_ms", "flops", "bytes",
    ] {
        col(c);
    }
    for path in &paths {
        let report: Value = serde_json::from_str(&ok_stdout(&[
            "report", path, "--format", "json", "--warmup", "3",
        ]))
        .unwrap();
        let want = report_rows(&report);
        let got: Vec<&Vec<String>> = csv[1..].iter().filter(|r| &r[col("path")] == path).collect();
        assert_eq!(got.len(), want.len(), "{path}: one line per row");
        for r in got {
            let stats = want
                .get(&r[col("row_path")])
                .unwrap_or_else(|| panic!("{path}: no row {}", r[col("row_path")]));
            for (c, k) in [
                ("median_ms", "median"),
                ("p10_ms", "p10"),
                ("p90_ms", "p90"),
                ("min_ms", "min"),
                ("max_ms", "max"),
                ("mean_ms", "mean"),
            ] {
                // Read by the same parser as the JSON (serde_json without
                // `float_roundtrip` may misread the last bit; the same digits the same way).
                let x: f64 = serde_json::from_str(&r[col(c)]).unwrap();
                assert_eq!(x, stats[k].as_f64().unwrap(), "{path} {} {c}", r[col("row_path")]);
            }
            assert_eq!(r[col("count")], stats["count"].to_string());
        }
    }
}

#[test]
fn usage_errors_are_one_line_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().to_str().unwrap();
    for (args, says) in [
        (vec!["fleet", empty], "no ETDump, trace file or CTF trace directory found"),
        (vec!["fleet", "/no/such/folder"], "no such file"),
        (vec!["fleet", empty, "--key", "{device"], "--key"),
        (vec!["fleet", empty, "--min-change", "-3"], "--min-change"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
