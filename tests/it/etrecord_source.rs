//! From operators to the model, on real files made with executorch 1.5.1
//! (`scripts/make_etrecord_fixtures.py`): every row's source against the Inspector where
//! it can read the ETRecord, against the ETRecord's own JSON (`scripts/etrecord_truth.py`)
//! where it cannot (several methods), methods named from the program, and damaged files.

use crate::common;

use std::collections::BTreeMap;

use common::{close, fixture, json, path, report};
use cpuprof_tui::profile::{MethodProfile, Profile, RowSource};
use serde_json::Value;

const DIR: &str = "etrecord";

fn load(stem: &str) -> Profile {
    common::load(&format!("{DIR}/{stem}.etdp"), None, 0)
}

fn handles(v: &Value) -> Vec<u64> {
    match v {
        Value::Null => Vec::new(),
        Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap()).collect(),
        x => vec![x.as_u64().unwrap()],
    }
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

/// The innermost module path of each of the Inspector's nodes, distinct, in node order.
fn inspector_modules(ev: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for node in strs(&ev["nodes"]) {
        let h = ev["module_hierarchy"][&node].as_object().unwrap();
        if let Some((_, v)) = h.iter().next_back() {
            let p = v[0].as_str().unwrap().to_string();
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// Our row for one of the Inspector's events.
fn our_source<'a>(m: &'a MethodProfile, ev: &Value) -> Option<&'a RowSource> {
    let name = ev["name"].as_str().unwrap();
    let instr = ev["instruction_id"].as_i64().unwrap() as i32;
    if ev["is_delegated_op"].as_bool().unwrap() {
        let d = m.delegates.iter().find(|d| d.instruction_id == instr)?;
        return d.operators.iter().find(|o| o.name == name)?.source.as_ref();
    }
    if name == "DELEGATE_CALL" {
        return m
            .delegates
            .iter()
            .find(|d| d.instruction_id == instr)?
            .source
            .as_ref();
    }
    let o = m
        .other_operators
        .iter()
        .find(|o| o.instruction_id == instr)?;
    if name == "OPERATOR_CALL" {
        return o.source.as_ref();
    }
    o.kernels.iter().find(|k| k.name == name)?.source.as_ref()
}

/// Every row's handles, op_types, nodes and modules are the Inspector's; an XNNPACK
/// operator, which the Inspector leaves without handles, carries its delegate's, marked.
fn rows_match_the_inspector(stem: &str) -> usize {
    let p = load(stem);
    assert_eq!(p.methods.len(), 1);
    let m = &p.methods[0];
    let golden = json(&format!("{DIR}/{stem}.inspector.json"));
    let execute = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Execute")
        .unwrap();
    let events = execute["events"].as_array().unwrap();
    let mut checked = 0;
    for ev in events {
        let name = ev["name"].as_str().unwrap();
        if name == "Method::execute" {
            continue;
        }
        let s = our_source(m, ev).unwrap_or_else(|| panic!("{stem}: no source for {ev}"));
        if ev["is_delegated_op"].as_bool().unwrap() {
            assert!(ev["debug_handles"].is_null(), "{ev}");
            assert!(s.through_delegate, "{stem}: {name}");
            let call = events
                .iter()
                .find(|e| {
                    e["name"] == "DELEGATE_CALL" && e["instruction_id"] == ev["instruction_id"]
                })
                .unwrap();
            assert_eq!(s.debug_handles, handles(&call["debug_handles"]), "{name}");
            assert_eq!(s.op_types, strs(&call["op_types"]), "{name}");
        } else {
            assert!(!s.through_delegate, "{stem}: {name}");
            assert_eq!(
                s.debug_handles,
                handles(&ev["debug_handles"]),
                "{stem}: {name}"
            );
            assert_eq!(s.op_types, strs(&ev["op_types"]), "{stem}: {name}");
            let nodes: Vec<String> = strs(&ev["nodes"])
                .iter()
                .map(|n| n.strip_suffix('_').unwrap().to_string())
                .collect();
            assert_eq!(s.nodes, nodes, "{stem}: {name}");
            assert_eq!(s.modules, inspector_modules(ev), "{stem}: {name}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn xnnpack_rows_are_the_inspectors() {
    // 3 delegate calls, 4 XNNPACK operators, 4 kernels, 4 OPERATOR_CALLs.
    assert_eq!(rows_match_the_inspector("modules_xnnpack"), 15);
}

#[test]
fn portable_rows_are_the_inspectors() {
    let n = rows_match_the_inspector("modules_portable");
    assert!(n >= 20, "{n}");
}

/// Module totals: `mean_total` is the Inspector's `find_total_for_module` wherever its
/// substring match is unambiguous; where it is not (`head` also matches `head_norm`) it
/// is the sum over the events whose module hierarchy holds exactly that path (worked
/// from the same golden). `median_total` is the same sum of the events' medians.
fn module_totals_match(stem: &str) {
    let p = load(stem);
    let golden = json(&format!("{DIR}/{stem}.inspector.json"));
    let events: Vec<&Value> = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["events"].as_array().unwrap())
        .filter(|e| {
            let n = e["name"].as_str().unwrap();
            n != "OPERATOR_CALL" && !n.starts_with("Method::") && !n.starts_with("Program::")
        })
        .collect();
    let exact = |path: &str, key: &str| -> f64 {
        events
            .iter()
            .filter(|e| {
                e["module_hierarchy"]
                    .as_object()
                    .unwrap()
                    .values()
                    .any(|h| {
                        h.as_object()
                            .unwrap()
                            .values()
                            .any(|v| v[0].as_str() == Some(path))
                    })
            })
            .map(|e| e[key].as_f64().unwrap())
            .sum()
    };
    let ours: BTreeMap<&str, _> = p.modules.iter().map(|m| (m.path.as_str(), m)).collect();
    let method_median = p.method.as_ref().unwrap().median();
    let mut unambiguous = 0;
    for g in golden["modules"].as_array().unwrap() {
        let path = g["path"].as_str().unwrap();
        let m = ours
            .get(path)
            .unwrap_or_else(|| panic!("{stem}: no module {path}"));
        let inspector = g["find_total_for_module"].as_f64().unwrap();
        if g["ambiguous"].as_bool().unwrap() {
            assert!(
                !close(m.mean_total, inspector, 1e-9),
                "{stem}: {path} should not take in {:?}",
                g["also_matches"]
            );
        } else {
            assert!(
                close(m.mean_total, inspector, 1e-9),
                "{stem}: {path}: {} vs the Inspector's {inspector}",
                m.mean_total
            );
            unambiguous += 1;
        }
        assert!(
            close(m.mean_total, exact(path, "avg_ms"), 1e-9),
            "{stem}: {path}"
        );
        assert!(
            close(m.median_total, exact(path, "median_ms"), 1e-9),
            "{stem}: {path}: {} vs {}",
            m.median_total,
            exact(path, "median_ms")
        );
        assert!(close(m.share, m.median_total / method_median, 1e-12));
    }
    assert!(unambiguous >= 5, "{stem}: {unambiguous}");
}

#[test]
fn xnnpack_module_totals_are_the_inspectors() {
    module_totals_match("modules_xnnpack");
}

#[test]
fn portable_module_totals_are_the_inspectors() {
    module_totals_match("modules_portable");
}

/// The first delegate holds `embed`'s linear, `layers.0.fc`'s linear and `layers.0`'s
/// relu: it sits at the root, marked as spanning, and its time in `embed` and `layers.0`
/// is not attributable to them alone.
#[test]
fn a_delegate_spanning_modules_sits_at_their_common_ancestor() {
    let p = load("modules_xnnpack");
    let d0 = p.delegates.iter().find(|d| d.instruction_id == 0).unwrap();
    let s = d0.source.as_ref().unwrap();
    assert_eq!(s.module.as_deref(), Some(""));
    assert_eq!(s.modules, ["embed", "layers.0.fc", "layers.0"]);
    let root = p.modules.iter().find(|m| m.path.is_empty()).unwrap();
    let row = root
        .rows
        .iter()
        .find(|r| r.kind == "delegate" && r.instruction_id == 0)
        .unwrap();
    assert!(row.spans_children);
    for path in ["embed", "layers.0", "layers.0.fc"] {
        let m = p.modules.iter().find(|m| m.path == path).unwrap();
        assert_eq!(m.median_not_attributable, d0.call.median(), "{path}");
        assert!(m.rows.iter().all(|r| r.instruction_id != 0), "{path}");
    }
    // flip of layers.0 is layers.0's own.
    let l0 = p.modules.iter().find(|m| m.path == "layers.0").unwrap();
    assert!(l0.rows.iter().any(|r| r.name == "native_call_flip.out"));
    // The single method is named from the program.
    assert_eq!(p.methods[0].name, "forward");
}

fn runs_of(stem: &str) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for m in json(&format!("{DIR}/{stem}.run.json"))["run_order"]
        .as_array()
        .unwrap()
    {
        *n.entry(m.as_str().unwrap().to_string()).or_default() += 1;
    }
    n
}

/// `source` of a row of `method` at `instr` against the ETRecord's own JSON.
fn check_against_truth(truth: &Value, method: &str, instr: i32, s: &RowSource, what: &str) {
    let t = &truth["methods"][method]["instructions"][instr.to_string()];
    assert!(!t.is_null(), "{method}: no truth for {instr}");
    assert_eq!(s.debug_handles, handles(&t["handles"]), "{method} {what}");
    let nodes = t["nodes"].as_array().unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n["name"].as_str().unwrap()).collect();
    assert_eq!(s.nodes, names, "{method} {what}");
    let ops: Vec<&str> = nodes
        .iter()
        .map(|n| n["op_type"].as_str().unwrap())
        .collect();
    assert_eq!(s.op_types, ops, "{method} {what}");
    let mut mods: Vec<&str> = Vec::new();
    for n in nodes {
        let m = n["module"].as_str().unwrap();
        if !mods.contains(&m) {
            mods.push(m);
        }
    }
    assert_eq!(s.modules, mods, "{method} {what}");
    assert_eq!(
        s.source_line.as_deref(),
        nodes[0]["frame"].as_str(),
        "{method} {what}"
    );
}

/// A three-method program the Inspector cannot read (`KeyError: 'forward'`): every run
/// group named after its method, every row mapped, as the ETRecord's JSON says.
#[test]
fn three_methods_are_named_and_every_row_mapped() {
    let run = json(&format!("{DIR}/three_method.run.json"));
    assert!(run["inspector_with_etrecord"]
        .as_str()
        .unwrap()
        .contains("KeyError"));
    let p = load("three_method");
    let truth = json(&format!("{DIR}/three_method.truth.json"));
    let runs = runs_of("three_method");
    let mut names: Vec<&str> = p.methods.iter().map(|m| m.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["decode", "prefill", "score"]);
    let mut rows = 0;
    for m in &p.methods {
        assert_eq!(m.runs.total, runs[&m.name], "{}", m.name);
        assert!(
            !m.delegates.is_empty() && !m.modules.is_empty(),
            "{}",
            m.name
        );
        for d in &m.delegates {
            let s = d.source.as_ref().expect("delegate source");
            check_against_truth(&truth, &m.name, d.instruction_id, s, "delegate");
            assert_eq!(
                truth["methods"][&m.name]["instructions"][d.instruction_id.to_string()]["delegate"],
                "XnnpackBackend"
            );
            for op in &d.operators {
                let os = op.source.as_ref().unwrap();
                assert!(os.through_delegate);
                assert_eq!(os.nodes, s.nodes);
                rows += 1;
            }
            rows += 1;
        }
        for o in &m.other_operators {
            let s = o.source.as_ref().expect("operator source");
            check_against_truth(&truth, &m.name, o.instruction_id, s, &o.name);
            for k in &o.kernels {
                check_against_truth(
                    &truth,
                    &m.name,
                    o.instruction_id,
                    k.source.as_ref().unwrap(),
                    &k.name,
                );
            }
            rows += 1;
        }
    }
    assert!(rows >= 8, "{rows}");
    // The top-level fields are the first method's, sources included.
    assert_eq!(p.delegates, p.methods[0].delegates);
    assert_eq!(p.modules, p.methods[0].modules);
}

/// Two methods of one module have identical instruction lists: their runs are one
/// group (as the Inspector groups them), named after both.
#[test]
fn identical_methods_stay_merged_and_are_named_together() {
    let p = load("twin_method");
    let runs = runs_of("twin_method");
    let names: Vec<&str> = p.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let together = |n: &str| {
        let mut parts: Vec<&str> = n.split(" + ").collect();
        parts.sort();
        parts == ["decode", "prefill"]
    };
    let twin = p
        .methods
        .iter()
        .find(|m| together(&m.name))
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(twin.runs.total, runs["prefill"] + runs["decode"]);
    let score = p.methods.iter().find(|m| m.name == "score").unwrap();
    assert_eq!(score.runs.total, runs["score"]);
    let truth = json(&format!("{DIR}/twin_method.truth.json"));
    for d in &twin.delegates {
        check_against_truth(
            &truth,
            "prefill",
            d.instruction_id,
            d.source.as_ref().unwrap(),
            "delegate",
        );
    }
    let several = p
        .warnings
        .iter()
        .find(|w| w.kind == "several_methods")
        .unwrap();
    assert!(
        several.message.contains(&format!("{} (", twin.name)),
        "{}",
        several.message
    );
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `report --format json` of `dump` with extra args: (exit code, stderr, profile).
fn report_json(dump: &str, extra: &[&str]) -> (Option<i32>, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.json");
    let d = path(&format!("{DIR}/{dump}"));
    let mut args = vec![d.as_str(), "--format", "json", "-o", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o = report(&args);
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    let v = serde_json::from_str(&text).unwrap_or(Value::Null);
    (o.status.code(), stderr(&o), v)
}

fn warning_lines<'a>(err: &'a str, kind: &str) -> Vec<&'a str> {
    err.lines().filter(|l| l.contains(kind)).collect()
}

/// Each damaged ETRecord is one warning line naming it; the profile loads without
/// sources (or with what could be read).
#[test]
fn damaged_etrecords_are_one_warning_each() {
    let cases = [
        ("bad_truncated.etrecord", "not an ETRecord"),
        ("bad_deflated.etrecord", "uncompressed"),
        ("bad_json.etrecord", "`debug_handle_map` is not valid JSON"),
        (
            "bad_program_json.etrecord",
            "no method of the ETRecord could be read",
        ),
        ("no_such.etrecord", "no such file"),
    ];
    for (file, what) in cases {
        let rec = path(&format!("{DIR}/{file}"));
        let (code, err, p) = report_json("modules_xnnpack.etdp", &["--etrecord", &rec]);
        assert_eq!(code, Some(0), "{file}: {err}");
        let lines = warning_lines(&err, "etrecord_unreadable");
        assert_eq!(lines.len(), 1, "{file}: {err}");
        assert!(
            lines[0].contains(file) && lines[0].contains(what),
            "{file}: {}",
            lines[0]
        );
        // No sources, no modules; the program beside the dump still names the method.
        assert!(p["delegates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["source"].is_null()));
        assert_eq!(p["modules"], serde_json::json!([]));
        assert_eq!(p["methods"][0]["name"], "forward");
    }
}

/// A method without its program entry: that method's rows have no source, the others do.
#[test]
fn a_missing_method_leaves_only_its_rows_without_source() {
    let rec = path(&format!("{DIR}/bad_missing_method.etrecord"));
    let (code, err, p) = report_json("three_method.etdp", &["--etrecord", &rec]);
    assert_eq!(code, Some(0), "{err}");
    let damaged = warning_lines(&err, "etrecord_damaged");
    assert_eq!(damaged.len(), 1, "{err}");
    assert!(
        damaged[0].contains("\"decode\"")
            && damaged[0].contains("edge_dialect_exported_program/decode")
    );
    assert_eq!(warning_lines(&err, "etrecord_unmatched").len(), 1, "{err}");
    for m in p["methods"].as_array().unwrap() {
        let has = m["delegates"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| !d["source"].is_null());
        assert_eq!(has, m["name"] != "decode", "{}", m["name"]);
    }
}

/// A handle no node carries: the row keeps its handle and has no nodes; one warning.
#[test]
fn a_handle_that_maps_to_no_node() {
    let rec = path(&format!("{DIR}/bad_handle.etrecord"));
    let (code, err, p) = report_json("modules_xnnpack.etdp", &["--etrecord", &rec]);
    assert_eq!(code, Some(0), "{err}");
    let lines = warning_lines(&err, "etrecord_damaged");
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("99 (instruction 4)"), "{}", lines[0]);
    let cumsum = p["other_operators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["instruction_id"] == 4)
        .unwrap();
    assert_eq!(cumsum["source"]["debug_handles"], serde_json::json!([99]));
    assert_eq!(cumsum["source"]["nodes"], serde_json::json!([]));
    assert!(cumsum["source"]["module"].is_null());
    // The other rows are mapped as usual.
    let flip = p["other_operators"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["instruction_id"] == 1)
        .unwrap();
    assert_eq!(flip["source"]["module"], "layers.0");
}

/// Damaged programs, and a program of another model, are one warning each; the methods
/// keep their default names.
#[test]
fn damaged_and_foreign_programs_are_one_warning_each() {
    let cases = [
        ("bad_truncated.pte", "program_unreadable", "damaged"),
        ("bad_identifier.pte", "program_unreadable", "ET12"),
        (
            "modules_portable.pte",
            "program_unmatched",
            "no method of it fits",
        ),
        ("modules_xnnpack.etrecord", "program_unreadable", "zip"),
    ];
    for (file, kind, what) in cases {
        let prog = path(&format!("{DIR}/{file}"));
        let (code, err, p) = report_json("modules_xnnpack.etdp", &["--program", &prog]);
        assert_eq!(code, Some(0), "{file}: {err}");
        let lines = warning_lines(&err, kind);
        assert_eq!(lines.len(), 1, "{file}: {err}");
        assert!(
            lines[0].contains(file) && lines[0].contains(what),
            "{file}: {}",
            lines[0]
        );
        assert_eq!(p["methods"][0]["name"], "method 1", "{file}");
        // The ETRecord beside the dump still gives sources.
        assert!(!p["delegates"][0]["source"].is_null(), "{file}");
    }
}

/// The table shows each row's module, operators and line; --by-module the module tree;
/// CSV has the two new columns.
#[test]
fn table_csv_and_by_module_show_the_source() {
    let truth = json(&format!("{DIR}/modules_xnnpack.truth.json"));
    let flip = &truth["methods"]["forward"]["instructions"]["1"]["nodes"][0];
    let frame = flip["frame"].as_str().unwrap();
    let o = report(&[&path(&format!("{DIR}/modules_xnnpack.etdp"))]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = String::from_utf8(o.stdout).unwrap();
    let want = format!("in layers.0: aten.flip.default  ({frame})");
    assert!(table.contains(&want), "{want}\n{table}");
    assert!(
        table.contains("== forward") || !table.contains("method 1"),
        "{table}"
    );

    let o = report(&[&path(&format!("{DIR}/modules_xnnpack.etdp")), "--by-module"]);
    let text = String::from_utf8(o.stdout).unwrap();
    for m in [
        "(root)",
        "embed",
        "layers.0",
        "layers.0.fc",
        "layers.1.fc",
        "head_norm",
    ] {
        assert!(text.contains(m), "{m}\n{text}");
    }
    assert!(
        text.contains("[spans modules: split not attributable]"),
        "{text}"
    );

    let o = report(&[
        &path(&format!("{DIR}/modules_xnnpack.etdp")),
        "--format",
        "csv",
    ]);
    let csv = String::from_utf8(o.stdout).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    // `module` and `source_line` are the last (added) columns.
    assert_eq!(&header[header.len() - 2..], ["module", "source_line"]);
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let flip_line = csv
        .lines()
        .find(|l| l.starts_with("other_operator,1,"))
        .unwrap();
    let cells: Vec<&str> = flip_line.split(',').collect();
    assert_eq!(cells[col("method")], "forward", "{flip_line}");
    assert_eq!(cells[col("module")], "layers.0", "{flip_line}");
    assert!(
        flip_line.ends_with(&format!(",layers.0,{frame}")),
        "{flip_line}"
    );
}

/// compare --by-module: one `module` row per module, matched by path.
#[test]
fn compare_by_module_sums_rows_per_module() {
    let a = path(&format!("{DIR}/modules_xnnpack.etdp"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        // Every run, as the profile below keeps them.
        .args([
            "compare",
            &a,
            &a,
            "--by-module",
            "--format",
            "json",
            "--warmup",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    let modules: Vec<&str> = rows
        .iter()
        .filter(|r| r["kind"] == "module")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    // Modules holding rows (and their ancestors): `embed` and `layers.1.fc` hold none
    // of their own (their delegates span modules and sit above them).
    for m in ["(root)", "layers.0", "layers.1", "head", "head_norm"] {
        assert!(modules.contains(&m), "{m}: {modules:?}");
    }
    assert!(
        !modules.contains(&"embed") && !modules.contains(&"layers.1.fc"),
        "{modules:?}"
    );
    // layers.1 holds delegate #2 (layers.1.fc + relu) and the second flip: per run, their
    // sum; its median is the median of those sums (worked from the profile).
    let p = load("modules_xnnpack");
    let d2 = &p
        .delegates
        .iter()
        .find(|d| d.instruction_id == 2)
        .unwrap()
        .call
        .samples;
    let flip = &p
        .other_operators
        .iter()
        .find(|o| o.instruction_id == 3)
        .unwrap()
        .kernels[0]
        .stats
        .samples;
    let mut sums: Vec<f64> = d2
        .iter_ms()
        .zip(flip.iter_ms())
        .map(|(a, b)| a + b)
        .collect();
    sums.sort_by(f64::total_cmp);
    let median = (sums[4] + sums[5]) / 2.0;
    let l1 = rows.iter().find(|r| r["name"] == "layers.1").unwrap();
    assert!(
        close(l1["a"]["median"].as_f64().unwrap(), median, 1e-12),
        "{l1}"
    );
    let _ = fixture(DIR);
}

/// Compare rows carry their module ("which layer got slower"); the explorer's loader
/// (the worker's entry) reads the files beside the dump too.
#[test]
fn compare_rows_and_the_explorer_loader_carry_modules() {
    let a = path(&format!("{DIR}/modules_xnnpack.etdp"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["compare", &a, &a, "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let flip = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "kernel" && r["instruction_id"] == 3)
        .unwrap();
    assert_eq!(flip["module"], "layers.1");

    let request = cpuprof_tui::profile::ProfileRequest::new(
        fixture(&format!("{DIR}/three_method.etdp")),
        None,
        0,
    );
    let loaded =
        cpuprof_tui::source::load_source(&request, &mut |_| {}, &Default::default()).unwrap();
    let cpuprof_tui::source::Source::Profile(p) = loaded else {
        panic!("not a profile")
    };
    assert_eq!(p.methods[0].name, "prefill");
    assert!(p.delegates[0].source.is_some());
    let files = p.model_files.as_ref().unwrap();
    assert!(files
        .etrecord
        .as_deref()
        .unwrap()
        .ends_with("three_method.etrecord"));
    assert!(files
        .program
        .as_deref()
        .unwrap()
        .ends_with("three_method.pte"));
}

/// `--etrecord` is taken by every command: export and the explorer's argument parser too.
#[test]
fn every_command_takes_the_model_files() {
    let dump = path(&format!("{DIR}/modules_xnnpack.etdp"));
    let rec = path(&format!("{DIR}/bad_json.etrecord"));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(["export", &dump, "--format", "folded", "--etrecord", &rec])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let cli = <cpuprof_tui::cli::Cli as clap::Parser>::try_parse_from([
        "cpuprof-tui",
        &dump,
        "--etrecord",
        &rec,
        "--program",
        "x.pte",
    ])
    .unwrap();
    assert_eq!(
        cli.model.etrecord.as_deref(),
        Some(std::path::Path::new(&rec))
    );
    assert_eq!(
        cli.model.program.as_deref(),
        Some(std::path::Path::new("x.pte"))
    );
}

/// Mutated and cut ETRecords and programs are errors or records, never a panic, and every
/// error is one line.
#[test]
fn mutated_files_never_panic() {
    let mut rng = cpuprof_testkit::rng::XorShift::new(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    for file in [
        "modules_xnnpack.etrecord",
        "three_method.etrecord",
        "modules_xnnpack.pte",
        "three_method.pte",
    ] {
        let good = std::fs::read(fixture(&format!("{DIR}/{file}"))).unwrap();
        for round in 0..300 {
            let mut bytes = good.clone();
            if round % 3 == 0 {
                bytes.truncate((next() as usize) % bytes.len());
            } else {
                for _ in 0..1 + round % 8 {
                    let at = (next() as usize) % bytes.len();
                    bytes[at] = next() as u8;
                }
            }
            let message = if file.ends_with(".pte") {
                cpuprof_tui::program::parse(&bytes)
                    .err()
                    .map(|e| e.to_string())
            } else {
                cpuprof_tui::etrecord::parse(&bytes)
                    .err()
                    .map(|e| e.to_string())
            };
            if let Some(m) = message {
                assert!(!m.contains('\n'), "{file} round {round}: {m}");
            }
        }
    }
}

/// An ETRecord in the older layout (one program entry, maps not keyed by method) gives
/// the same sources as the current one.
#[test]
fn the_older_layout_reads_the_same() {
    let read = |f: &str| {
        cpuprof_tui::etrecord::parse(&std::fs::read(fixture(&format!("{DIR}/{f}"))).unwrap())
            .unwrap()
    };
    let new = read("modules_xnnpack.etrecord");
    let old = read("old_layout.etrecord");
    assert_eq!(old.methods.len(), 1);
    assert_eq!(old.methods[0].name, "forward");
    assert_eq!(old.methods[0], new.methods[0]);
    assert!(old.warnings.is_empty(), "{:?}", old.warnings);
}

/// The ETRecord is an input like the dump: `--max-input-size` bounds it (a warning, the
/// profile loads without sources).
#[test]
fn the_input_size_limit_applies_to_the_etrecord() {
    // The dump is 12 KB, the ETRecord 80 KB.
    let (code, err, p) = report_json("modules_xnnpack.etdp", &["--max-input-size", "40K"]);
    assert_eq!(code, Some(0), "{err}");
    let lines = warning_lines(&err, "etrecord_unreadable");
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("modules_xnnpack.etrecord"),
        "{}",
        lines[0]
    );
    assert!(p["delegates"][0]["source"].is_null());
    assert_eq!(p["methods"][0]["name"], "forward");
}

/// --by-module needs a dump: a trace is a usage error naming the file.
#[test]
fn by_module_on_a_trace_is_one_line() {
    let o = report(&[&path("torch/cnn_infer.json"), "--by-module"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("cnn_infer.json") && err.contains("--by-module"),
        "{err}"
    );
}

/// The model files are a value of each load request, not a process-wide setting: two
/// threads loading the same dump at once, one naming a broken ETRecord and one taking the
/// one beside the dump, each get what their own request named, every time.
#[test]
fn model_files_go_with_each_request() {
    use cpuprof_tui::profile::{load_profile, ModelFileArgs, ProfileRequest};
    let dump = fixture(&format!("{DIR}/modules_xnnpack.etdp"));
    let broken = fixture(&format!("{DIR}/bad_json.etrecord"));
    let load = |model: ModelFileArgs| {
        let request = ProfileRequest::new(dump.clone(), None, 0).with_model_files(model);
        load_profile(&request, &mut |_| {}, &Default::default()).unwrap()
    };
    let etrecord_of = |p: &Profile| {
        p.model_files
            .as_ref()
            .and_then(|f| f.etrecord.clone())
            .unwrap_or_default()
    };
    std::thread::scope(|s| {
        let named = s.spawn(|| {
            for _ in 0..12 {
                let p = load(ModelFileArgs {
                    etrecord: Some(broken.clone()),
                    program: None,
                });
                assert_eq!(etrecord_of(&p), "", "the broken ETRecord is not used");
                assert!(
                    p.warnings.iter().any(|w| w.kind == "etrecord_unreadable"),
                    "{:?}",
                    p.warnings
                );
            }
        });
        let beside = s.spawn(|| {
            for _ in 0..12 {
                let p = load(ModelFileArgs::default());
                assert!(etrecord_of(&p).ends_with("modules_xnnpack.etrecord"));
                assert!(p.warnings.iter().all(|w| w.kind != "etrecord_unreadable"));
                assert!(p.delegates.iter().any(|d| d.source.is_some()));
            }
        });
        named.join().unwrap();
        beside.join().unwrap();
    });
}
