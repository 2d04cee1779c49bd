//! `cpuprof-tui fleet` end to end. The generated fleets of `fixtures/fleet/` (made by
//! `scripts/make_fleet_fixtures.sh`; `truth.json` says what was injected where): the
//! outlier device and the commit of the regression found exactly, nothing on the null
//! fleet of 40. Mixed fleets built here from other fixtures: a damaged dump and a torch
//! trace among dumps; the long CSV table read back equals each profile's `report` JSON.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::fleet_files;
use fleet_files::{fx, ok_stdout, parse_csv, read_parquet, report_rows, run};

fn fleet_json(args: &[&str]) -> Value {
    let mut all = vec!["fleet", "--format", "json"];
    all.extend_from_slice(args);
    serde_json::from_str(&ok_stdout(&all)).expect("fleet JSON")
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
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
        copy(
            &fx(&format!("compare/{n}.etdp")),
            &d.join(format!("dumps/{n}.etdp")),
        );
        copy(
            &fx(&format!("compare/{n}.log")),
            &d.join(format!("dumps/{n}.log")),
        );
    }
    // A dump cut in half, and a file named like a dump that is not one.
    let bytes = std::fs::read(fx("compare/cnn2_a.etdp")).unwrap();
    std::fs::write(d.join("dumps/broken.etdp"), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(d.join("dumps/junk.etdp"), b"this is no dump at all\n").unwrap();
    copy(
        &fx("torch/cnn_infer.json"),
        &d.join("traces/cnn_infer.json"),
    );
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
    assert_eq!(
        ids, want,
        "logs are not profiles; everything else is listed"
    );
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
    let models: BTreeSet<String> = [
        "dumps/cnn2_a.etdp",
        "dumps/wide_a.etdp",
        "traces/cnn_infer.json",
    ]
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

#[test]
fn csv_long_table_equals_each_profiles_report_json() {
    let files = [
        "compare/cnn2_a.etdp",
        "compare/cnn2_slow_b.etdp",
        "compare/wide_a.etdp",
    ];
    let paths: Vec<String> = files.iter().map(|f| fx(f).display().to_string()).collect();
    let mut args = vec!["fleet", "--format", "csv", "--warmup", "3"];
    args.extend(paths.iter().map(String::as_str));
    let csv = parse_csv(&ok_stdout(&args));
    let header = &csv[0];
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    for c in [
        "profile_id",
        "path",
        "model",
        "row_path",
        "kind",
        "name",
        "instruction_id",
        "count",
        "median_ms",
        "p10_ms",
        "p90_ms",
        "min_ms",
        "max_ms",
        "mean_ms",
        "flops",
        "bytes",
    ] {
        col(c);
    }
    for path in &paths {
        let report: Value = serde_json::from_str(&ok_stdout(&[
            "report", path, "--format", "json", "--warmup", "3",
        ]))
        .unwrap();
        let want = report_rows(&report);
        let got: Vec<&Vec<String>> = csv[1..]
            .iter()
            .filter(|r| &r[col("path")] == path)
            .collect();
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
                assert_eq!(
                    x,
                    stats[k].as_f64().unwrap(),
                    "{path} {} {c}",
                    r[col("row_path")]
                );
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
        (
            vec!["fleet", empty],
            "no ETDump, trace file or CTF trace directory found",
        ),
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

fn truth() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fx("fleet/truth.json")).unwrap()).unwrap()
}

const KEY: &str = "{device}/{commit}/run-{n}.etdp";

/// The injected row's path and the paths above it (they contain its time).
fn is_on_path(row: &Value, leaf: &str) -> bool {
    row["name"] == leaf || row["kind"] != "operator"
}

#[test]
fn outlier_device_is_found_exactly() {
    let t = truth();
    let want = &t["devices"]["outlier"];
    let root = fx("fleet/devices");
    let v = fleet_json(&[root.to_str().unwrap(), "--key", KEY]);
    assert_eq!(v["profiles"].as_array().unwrap().len(), 12);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 1, "one model");
    let leaf = want["row"].as_str().unwrap();
    let mut injected_seen = false;
    for r in groups[0]["rows"].as_array().unwrap() {
        let outliers = r["outliers"].as_array().unwrap();
        if r["name"] == leaf {
            injected_seen = true;
            assert_eq!(outliers.len(), 1, "{r}");
            assert_eq!(outliers[0]["id"], want["id"]);
            assert!(outliers[0]["z"].as_f64().unwrap() >= 3.5);
            assert!(outliers[0]["p_value"].as_f64().unwrap() <= 0.05);
            assert_eq!(r["slowest"]["id"], want["id"]);
            // 1.5x of the fleet's median, within the noise of 20 runs.
            let ratio =
                outliers[0]["median"].as_f64().unwrap() / r["median_of_medians"].as_f64().unwrap();
            assert!((1.3..1.7).contains(&ratio), "{ratio}");
        } else if !is_on_path(r, leaf) {
            assert!(outliers.is_empty(), "false outlier on {}: {r}", r["name"]);
        } else {
            // The rows containing it may flag it, and only it.
            assert!(outliers.iter().all(|o| o["id"] == want["id"]), "{r}");
        }
    }
    assert!(injected_seen);
}

#[test]
fn metadata_from_the_key_template_sidecars_and_mtime() {
    let t = truth();
    let root = fx("fleet/devices");
    let v = fleet_json(&[root.to_str().unwrap(), "--key", KEY]);
    for (id, side) in t["devices"]["sidecars"].as_object().unwrap() {
        let meta = &by_id(&v, id)["meta"];
        let device = id.split('/').next().unwrap();
        assert_eq!(meta["device"], device);
        assert_eq!(meta["commit"], "c1");
        assert_eq!(meta["n"], "1");
        for (k, want) in side.as_object().unwrap() {
            assert_eq!(&meta[k], want, "{id} {k}");
        }
    }
    let plain = &by_id(&v, "dev02/c1/run-1.etdp")["meta"];
    assert!(plain.get("soc").is_none());
    let mtime = plain["mtime"].as_str().unwrap();
    assert_eq!(mtime.len(), "2026-01-01T00:00:00Z".len());
    assert!(
        mtime.ends_with('Z') && mtime.as_bytes()[10] == b'T',
        "{mtime}"
    );
    // CSV: one column per metadata key, in the order first seen.
    let csv = ok_stdout(&[
        "fleet",
        root.to_str().unwrap(),
        "--key",
        KEY,
        "--format",
        "csv",
    ]);
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("profile_id,path,device,commit,n,soc,os,mtime,model,row_path,"),
        "{header}"
    );
    // 12 profiles x 7 rows: Method::execute, the delegate, its one step and the step's 4
    // XNNPACK operators (the mlp of gen_cpu_fixtures.py).
    let lines = csv.lines().count() - 1;
    assert_eq!(lines, 12 * 7);
}

#[test]
fn regression_is_found_at_its_commit_per_device() {
    let t = truth();
    let want = &t["commits"]["change"];
    let root = fx("fleet/commits");
    let v = fleet_json(&[
        root.to_str().unwrap(),
        "--key",
        KEY,
        "--by",
        "device",
        "--order",
        "commit",
    ]);
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    let group = |d: &str| {
        groups
            .iter()
            .find(|g| g["by"]["value"] == d)
            .unwrap_or_else(|| panic!("no group {d}"))
    };
    let a = group(want["device"].as_str().unwrap());
    assert_eq!(a["by"]["key"], "device");
    // Natural order: c9 before c10.
    let order: Vec<&str> = a["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    let expect: Vec<String> = (1..=10).map(|c| format!("a/c{c}/run-1.etdp")).collect();
    assert_eq!(order, expect);
    let leaf = want["row"].as_str().unwrap();
    let factor = want["factor"].as_f64().unwrap();
    let mut seen = false;
    for r in a["rows"].as_array().unwrap() {
        if r["name"] == leaf {
            seen = true;
            let c = &r["change"];
            assert_eq!(c["at"], want["at"], "{r}");
            let d = c["delta_pct"].as_f64().unwrap();
            assert!(((factor - 1.0) * 100.0 - d).abs() < 10.0, "{d}");
            assert!(c["p_value"].as_f64().unwrap() <= 0.05);
            assert!(c["after"].as_f64().unwrap() > c["before"].as_f64().unwrap());
        } else if !is_on_path(r, leaf) {
            assert!(r["change"].is_null(), "false change on {}: {r}", r["name"]);
        } else if !r["change"].is_null() {
            assert_eq!(r["change"]["at"], want["at"], "{r}");
        }
    }
    assert!(seen);
    let b = group(t["commits"]["unchanged_device"].as_str().unwrap());
    for r in b["rows"].as_array().unwrap() {
        assert!(r["change"].is_null(), "device b changed: {r}");
        assert!(r["outliers"].as_array().unwrap().is_empty(), "{r}");
    }
}

#[test]
fn null_fleet_of_forty_raises_no_alarm() {
    let root = fx("fleet/null");
    for extra in [&[][..], &["--order", "id"][..], &["--order", "mtime"][..]] {
        let mut args = vec![root.to_str().unwrap()];
        args.extend_from_slice(extra);
        let v = fleet_json(&args);
        assert_eq!(v["profiles"].as_array().unwrap().len(), 40);
        let groups = v["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 1);
        for r in groups[0]["rows"].as_array().unwrap() {
            assert!(
                r["outliers"].as_array().unwrap().is_empty(),
                "{extra:?}: {r}"
            );
            assert!(r["change"].is_null(), "{extra:?}: {r}");
            assert_eq!(r["profiles"], 40);
        }
    }
}

#[test]
fn ctf_directories_and_trace_texts_are_profiles() {
    let v = fleet_json(&[fx("thapi").to_str().unwrap()]);
    let ctf = by_id(&v, "ctf-rich/trace");
    assert_eq!(ctf["kind"], "trace");
    assert!(ctf["error"].is_null());
    // The same session as babeltrace2 text: the same run signature.
    assert_eq!(
        ctf["model"],
        by_id(&v, "ctf-rich/babeltrace2_clock_seconds.txt")["model"]
    );
    assert_eq!(by_id(&v, "ctf")["kind"], "trace");
}

#[test]
fn parquet_long_table_equals_the_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("long.parquet");
    let root = fx("fleet/devices");
    let base = [root.to_str().unwrap(), "--key", KEY];
    let csv = parse_csv(&ok_stdout(
        &[&["fleet", "--format", "csv"][..], &base].concat(),
    ));
    ok_stdout(
        &[
            &["fleet", "--format", "parquet", "-o", out.to_str().unwrap()][..],
            &base,
        ]
        .concat(),
    );
    let (names, rows) = read_parquet(&out);
    assert_eq!(names, csv[0], "the CSV's columns");
    assert_eq!(rows.len(), csv.len() - 1);
    for (p, c) in rows.iter().zip(&csv[1..]) {
        for ((pv, cv), name) in p.iter().zip(c).zip(&names) {
            // The CSV's empty cell is Parquet's null; figures are the same f64.
            match pv {
                None => assert_eq!(cv, "", "{name}"),
                Some(v) if name.ends_with("_ms") => {
                    assert_eq!(
                        v.parse::<f64>().unwrap(),
                        cv.parse::<f64>().unwrap(),
                        "{name}"
                    )
                }
                Some(v) => assert_eq!(v, cv, "{name}"),
            }
        }
    }
}

#[test]
fn partition_by_writes_a_hive_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("parts");
    let root = fx("fleet/devices");
    ok_stdout(&[
        "fleet",
        root.to_str().unwrap(),
        "--key",
        KEY,
        "--format",
        "parquet",
        "--partition-by",
        "device",
        "-o",
        out.to_str().unwrap(),
    ]);
    let mut dirs: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let want: Vec<String> = (1..=12).map(|i| format!("device=dev{i:02}")).collect();
    assert_eq!(dirs, want);
    let (names, rows) = read_parquet(&out.join("device=dev07/part-0.parquet"));
    assert!(!names.contains(&"device".to_string()), "{names:?}");
    assert_eq!(rows.len(), 7, "the mlp's 7 rows of one profile");
    let id = names.iter().position(|n| n == "profile_id").unwrap();
    assert!(rows
        .iter()
        .all(|r| r[id].as_deref() == Some("dev07/c1/run-1.etdp")));
    // Parquet without -o, and --partition-by without parquet, are refused.
    let out = run(&["fleet", root.to_str().unwrap(), "--format", "parquet"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["fleet", root.to_str().unwrap(), "--partition-by", "device"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Fleets carry each row's module (#24): two copies of the ETRecord fixture, whose
/// instruction 1 (the flip kernel) has one node, in module `layers.0`
/// (`fixtures/etrecord/modules_xnnpack.truth.json`, read by `scripts/etrecord_truth.py`).
#[test]
fn rows_carry_their_module() {
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(fx("etrecord/modules_xnnpack.truth.json")).unwrap(),
    )
    .unwrap();
    let nodes = &truth["methods"]["forward"]["instructions"]["1"]["nodes"];
    let want = nodes[0]["module"].as_str().unwrap();
    assert_eq!(want, "layers.0");
    let dir = tempfile::tempdir().unwrap();
    for dev in ["a", "b"] {
        for ext in ["etdp", "etrecord", "pte"] {
            copy(
                &fx(&format!("etrecord/modules_xnnpack.{ext}")),
                &dir.path().join(format!("{dev}/modules_xnnpack.{ext}")),
            );
        }
    }
    let root = dir.path().to_str().unwrap();
    let v = fleet_json(&[root, "--warmup", "0"]);
    let rows = v["groups"][0]["rows"].as_array().unwrap();
    let kernel = rows
        .iter()
        .find(|r| r["instruction_id"] == 1 && r["kind"] == "kernel")
        .unwrap_or_else(|| panic!("no kernel row at instruction 1: {rows:#?}"));
    assert_eq!(kernel["module"], want, "{kernel:#}");
    // The long CSV: its `module` column, on both profiles' row.
    let csv = parse_csv(&ok_stdout(&[
        "fleet", root, "--warmup", "0", "--format", "csv",
    ]));
    let col = |name: &str| csv[0].iter().position(|c| c == name).unwrap();
    let (m, i, k) = (col("module"), col("instruction_id"), col("kind"));
    let cells: Vec<&str> = csv[1..]
        .iter()
        .filter(|r| r[i] == "1" && r[k] == "kernel")
        .map(|r| r[m].as_str())
        .collect();
    assert_eq!(cells, [want, want]);
}

/// `fleet --help` prints the `--key` example as written (clap turns a bare `{n}` into a
/// line break).
#[test]
fn help_prints_the_key_template() {
    let help = ok_stdout(&["fleet", "--help"]);
    assert!(help.contains("'{device}/{commit}/run-{n}.etdp'"), "{help}");
    assert!(!help.contains('\u{2060}'));
}

/// Issue #47: the table's lines are at most 120 columns; every profile, every outlier the
/// JSON names is in it, and an id longer than its column keeps both ends.
#[test]
fn table_lines_fit_120_columns() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("device-{}-end.etdp", "x".repeat(70));
    copy(&fx("compare/cnn2_a.etdp"), &dir.path().join(&long));
    copy(&fx("compare/cnn2_a.etdp"), &dir.path().join("short.etdp"));
    for roots in [
        vec![fx("fleet/devices"), fx("fleet/commits")],
        vec![dir.path().to_path_buf()],
    ] {
        let roots: Vec<&str> = roots.iter().map(|p| p.to_str().unwrap()).collect();
        let mut args = vec!["fleet"];
        args.extend(&roots);
        let table = ok_stdout(&args);
        for line in table.lines() {
            assert!(
                line.chars().count() <= 120,
                "{} cells: {line}",
                line.chars().count()
            );
        }
        let words: String = table.split_whitespace().collect::<Vec<_>>().join(" ");
        let v = fleet_json(&roots);
        for p in v["profiles"].as_array().unwrap() {
            let id = p["id"].as_str().unwrap();
            if id.chars().count() <= 40 {
                assert!(words.contains(id), "{id}");
            } else {
                let cut = table
                    .lines()
                    .find(|l| l.starts_with("device-"))
                    .unwrap_or_else(|| panic!("{table}"));
                assert!(cut.contains("x…") && cut.contains("-end.etdp "), "{cut}");
            }
        }
        for g in v["groups"].as_array().unwrap() {
            for r in g["rows"].as_array().unwrap() {
                for o in r["outliers"].as_array().unwrap() {
                    let id = o["id"].as_str().unwrap();
                    assert!(words.contains(&format!("OUTLIER {id} ")), "{id}");
                }
            }
        }
    }
}

/// Issue #47: in a folder, a `.json` that holds no trace events (a `key_averages` table,
/// a report, a truth file under another name) is not a profile: skipped, not a failed
/// profile. The torch trace beside them is one.
#[test]
fn json_without_trace_events_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    copy(
        &fx("torch/cnn_infer.json"),
        &dir.path().join("cnn_infer.json"),
    );
    copy(
        &fx("torch/cnn_infer.key_averages.json"),
        &dir.path().join("cnn_infer.key_averages.json"),
    );
    copy(
        &fx("cpu/cnn2_basic.truth.json"),
        &dir.path().join("answers.json"),
    );
    std::fs::write(dir.path().join("list.json"), "[1, 2, 3]\n").unwrap();
    let v = fleet_json(&[dir.path().to_str().unwrap()]);
    let ids: Vec<&str> = v["profiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec!["cnn_infer.json"]);
    assert!(v["profiles"][0]["error"].is_null());
    // A JSON named on the command line is still read (its loader says what is wrong).
    let out = run(&[
        "fleet",
        "--format",
        "json",
        dir.path().join("list.json").to_str().unwrap(),
        dir.path().join("cnn_infer.json").to_str().unwrap(),
    ]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["profiles"].as_array().unwrap().len(), 2);
}
