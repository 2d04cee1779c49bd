//! `cpuprof-tui compare` end to end on generated A/B pairs (fixtures/compare/README.md
//! says how each was made and what is true of it): injected changes and only they (and
//! the rows containing them) are flagged, null pairs flag nothing, tiny samples are
//! `too_few_samples`, a profile against itself is `same`; exit codes and usage errors.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/compare");

fn fx(name: &str) -> String {
    format!("{DIR}/{name}")
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(args)
        .output()
        .expect("run cpuprof-tui")
}

fn json(args: &[&str]) -> Value {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let out = run(&all);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("compare JSON")
}

fn rows(v: &Value) -> &Vec<Value> {
    v["rows"].as_array().unwrap()
}

fn path_of(r: &Value) -> Vec<String> {
    r["path"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn flagged(v: &Value) -> Vec<(Vec<String>, String)> {
    rows(v)
        .iter()
        .filter(|r| matches!(r["verdict"].as_str(), Some("slower" | "faster")))
        .map(|r| (path_of(r), r["verdict"].as_str().unwrap().to_string()))
        .collect()
}

/// Paths of the rows that contain one of `injected` (its ancestors), and those rows.
fn allowed(v: &Value, injected: &[Vec<String>]) -> BTreeSet<Vec<String>> {
    let mut ok = BTreeSet::new();
    for p in injected {
        for n in 1..=p.len() {
            ok.insert(p[..n].to_vec());
        }
    }
    // Every allowed path must exist in the comparison (else the test checks nothing).
    for p in injected {
        assert!(
            rows(v).iter().any(|r| &path_of(r) == p),
            "injected row {p:?} not in the comparison"
        );
    }
    ok
}

fn verdict_at(v: &Value, path: &[&str]) -> String {
    rows(v)
        .iter()
        .find(|r| path_of(r) == path)
        .unwrap_or_else(|| panic!("no row {path:?}"))["verdict"]
        .as_str()
        .unwrap()
        .to_string()
}

fn injected_dump_rows() -> Vec<Vec<String>> {
    // From cnn2_slow_b.truth.json `faults.slow`: delegate 0 is instruction 0 (its
    // `delegates[0].instruction_id`), the non-delegated pixel_shuffle is instruction 1.
    let truth: Value =
        serde_json::from_slice(&std::fs::read(fx("cnn2_slow_b.truth.json")).unwrap()).unwrap();
    let slow = truth["faults"]["slow"].as_array().unwrap();
    assert_eq!(slow.len(), 3);
    assert_eq!(truth["delegates"][0]["instruction_id"], 0);
    let s = |x: &[&str]| x.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        s(&[
            "Method::execute",
            "delegate #0",
            "XNNPACK/subgraph:conv_3+2",
            "Convolution (NHWC, F32) IGEMM #3",
        ]),
        s(&[
            "Method::execute",
            "delegate #0",
            "ET/registry:neg",
            "native_call_neg.out",
        ]),
        s(&[
            "Method::execute",
            "native_call_pixel_shuffle.out",
            "native_call_pixel_shuffle.out",
        ]),
    ]
}

#[test]
fn injected_dump_changes_and_only_they_are_flagged() {
    let v = json(&[&fx("cnn2_a.etdp"), &fx("cnn2_slow_b.etdp"), "--warmup", "3"]);
    let injected = injected_dump_rows();
    let ok = allowed(&v, &injected);
    for (p, _) in flagged(&v) {
        assert!(ok.contains(&p), "{p:?} flagged but not injected");
    }
    let conv: Vec<&str> = injected[0].iter().map(String::as_str).collect();
    let neg: Vec<&str> = injected[1].iter().map(String::as_str).collect();
    let shuffle: Vec<&str> = injected[2].iter().map(String::as_str).collect();
    assert_eq!(verdict_at(&v, &conv), "slower");
    assert_eq!(verdict_at(&v, &neg), "slower");
    assert_eq!(verdict_at(&v, &shuffle), "faster");
    // The injected factor lies in the reported interval (1.5x = +50%, 0.6x = -40%).
    let row = rows(&v).iter().find(|r| path_of(r) == conv).unwrap();
    let (lo, hi) = (
        row["ci_pct"][0].as_f64().unwrap(),
        row["ci_pct"][1].as_f64().unwrap(),
    );
    assert!(lo < 50.0 && 50.0 < hi, "[{lo}, {hi}]");
    let s = &v["summary"];
    assert_eq!(
        s["faster"].as_u64().unwrap() + s["slower"].as_u64().unwrap(),
        flagged(&v).len() as u64
    );
    assert_eq!(s["added"], 0);
    assert_eq!(s["removed"], 0);
}

#[test]
fn swapping_a_and_b_swaps_the_verdicts() {
    let ab = json(&[&fx("cnn2_a.etdp"), &fx("cnn2_slow_b.etdp"), "--warmup", "3"]);
    let ba = json(&[&fx("cnn2_slow_b.etdp"), &fx("cnn2_a.etdp"), "--warmup", "3"]);
    let flip = |v: &str| match v {
        "slower" => "faster".to_string(),
        "faster" => "slower".to_string(),
        o => o.to_string(),
    };
    let mut want: Vec<_> = flagged(&ab)
        .into_iter()
        .map(|(p, v)| (p, flip(&v)))
        .collect();
    let mut got = flagged(&ba);
    want.sort();
    got.sort();
    // The min-change threshold is relative to A's median, so a row at the edge may
    // differ; the injected rows (40-50% changes) must not.
    for p in injected_dump_rows() {
        assert!(got.iter().any(|(q, _)| *q == p), "{p:?}");
    }
    assert!(want.len().abs_diff(got.len()) <= 1, "{want:?} vs {got:?}");
}

#[test]
fn null_pairs_flag_nothing() {
    let v = json(&[&fx("cnn2_a.etdp"), &fx("cnn2_null_b.etdp"), "--warmup", "3"]);
    assert_eq!(flagged(&v), vec![]);
    // Many operators: uncorrected tests at 0.05 would raise a false alarm here
    // (fixtures/compare/README.md), the Holm-corrected verdicts do not.
    let v = json(&[&fx("wide_a.etdp"), &fx("wide_null_b.etdp"), "--warmup", "3"]);
    assert_eq!(flagged(&v), vec![]);
    assert!(rows(&v).len() >= 90, "{}", rows(&v).len());
    let uncorrected = rows(&v)
        .iter()
        .filter(|r| {
            r["p_raw"].as_f64().is_some_and(|p| p < 0.05)
                && r["delta_pct"].as_f64().is_some_and(|d| d.abs() >= 5.0)
        })
        .count();
    assert!(uncorrected >= 1, "the pair no longer shows the false alarm");
    assert!(v["method"].as_str().unwrap().contains("Holm"));
}

#[test]
fn three_runs_against_three_are_too_few() {
    let v = json(&[&fx("mlp3_a.etdp"), &fx("mlp3_b.etdp")]);
    assert!(!rows(&v).is_empty());
    for r in rows(&v) {
        assert_eq!(r["verdict"], "too_few_samples", "{r}");
        assert!(r["p_value"].is_null());
    }
    assert_eq!(v["a"]["runs"], 3);
    let w = v["warnings"].as_array().unwrap();
    assert!(w.iter().any(|w| w["kind"] == "few_runs"), "{w:?}");
}

#[test]
fn a_profile_against_itself_is_same_everywhere() {
    for (a, extra) in [
        ("cnn2_a.etdp", vec!["--warmup", "3"]),
        ("wide_a.etdp", vec![]),
        ("trace_a.json", vec![]),
        // 3 runs: too few for any test, but identical samples are plainly the same.
        ("mlp3_a.etdp", vec![]),
    ] {
        let mut args = vec![fx(a), fx(a)];
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let v = json(&refs);
        for r in rows(&v) {
            assert_eq!(r["verdict"], "same", "{a}: {r}");
            if let Some(d) = r["delta_pct"].as_f64() {
                assert_eq!(d, 0.0);
            }
        }
        assert_eq!(v["summary"]["geomean_ratio"], 1.0);
    }
}

#[test]
fn trace_pairs() {
    let v = json(&[&fx("trace_a.json"), &fx("trace_slow_b.json")]);
    // aten::addmm 1.5x slower; aten::linear and ## forward ## contain it.
    let ok = ["aten::addmm", "aten::linear", "## forward ##"];
    for (p, verdict) in flagged(&v) {
        assert_eq!(verdict, "slower");
        assert!(ok.contains(&p.last().unwrap().as_str()), "{p:?}");
    }
    assert_eq!(verdict_at(&v, &["aten::addmm"]), "slower");
    assert_eq!(
        verdict_at(&v, &["## forward ##", "aten::linear", "aten::addmm"]),
        "slower"
    );
    let op = rows(&v)
        .iter()
        .find(|r| path_of(r) == ["aten::addmm"])
        .unwrap();
    assert_eq!(op["kind"], "op");
    assert_eq!(op["instruction_id"], Value::Null);

    let v = json(&[&fx("trace_a.json"), &fx("trace_null_b.json")]);
    assert_eq!(flagged(&v), vec![]);

    let v = json(&[&fx("trace3_a.json"), &fx("trace3_b.json")]);
    assert_eq!(verdict_at(&v, &["## forward ##"]), "too_few_samples");
}

#[test]
fn json_contract_fields() {
    let v = json(&[&fx("cnn2_a.etdp"), &fx("cnn2_null_b.etdp"), "--warmup", "3"]);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "schema",
            "unit",
            "alpha",
            "min_change_pct",
            "method",
            "a",
            "b",
            "rows",
            "summary",
            "warnings"
        ]
    );
    assert_eq!(v["schema"], "cpuprof.compare/1");
    assert_eq!(v["unit"], "ms");
    assert_eq!(v["alpha"], 0.05);
    assert_eq!(v["min_change_pct"], 5.0);
    assert_eq!(v["a"]["runs"], 20);
    assert!(v["a"]["source"].as_str().unwrap().ends_with("cnn2_a.etdp"));
    for r in rows(&v) {
        for k in [
            "kind",
            "path",
            "name",
            "instruction_id",
            "a",
            "b",
            "delta_pct",
            "ci_pct",
            "p_value",
            "verdict",
        ] {
            assert!(r.get(k).is_some(), "{k} missing in {r}");
        }
        for k in ["count", "median", "p10", "p90"] {
            assert!(r["a"].get(k).is_some());
        }
        let path = path_of(r);
        assert_eq!(path.last().unwrap(), r["name"].as_str().unwrap());
    }
    // Kinds: method, delegate, step, operator (XNNPACK and the non-delegated
    // instruction), kernel (native_call_* in a step and below the instruction).
    let kind = |p: &[&str]| {
        rows(&v).iter().find(|r| path_of(r) == p).unwrap()["kind"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(kind(&["Method::execute"]), "method");
    assert_eq!(kind(&["Method::execute", "delegate #0"]), "delegate");
    assert_eq!(
        kind(&["Method::execute", "delegate #0", "ET/registry:neg"]),
        "step"
    );
    assert_eq!(
        kind(&[
            "Method::execute",
            "delegate #0",
            "ET/registry:neg",
            "native_call_neg.out"
        ]),
        "kernel"
    );
    assert_eq!(
        kind(&["Method::execute", "native_call_pixel_shuffle.out"]),
        "operator"
    );
    assert_eq!(
        kind(&[
            "Method::execute",
            "native_call_pixel_shuffle.out",
            "native_call_pixel_shuffle.out"
        ]),
        "kernel"
    );
    let s = &v["summary"];
    let total: u64 = [
        "slower",
        "faster",
        "same",
        "too_few_samples",
        "added",
        "removed",
    ]
    .iter()
    .map(|k| s[k].as_u64().unwrap())
    .sum();
    assert_eq!(total, rows(&v).len() as u64);
}

#[test]
fn different_models_are_said_plainly() {
    let v = json(&[&fx("cnn2_a.etdp"), &fx("wide_a.etdp")]);
    let w = v["warnings"].as_array().unwrap();
    assert!(w.iter().any(|w| w["kind"] == "different_models"), "{w:?}");
    assert!(v["summary"]["added"].as_u64().unwrap() > 0);
    assert!(v["summary"]["removed"].as_u64().unwrap() > 0);
}

#[test]
fn fail_on_regression_exit_codes() {
    let (a, slow, null) = (
        fx("cnn2_a.etdp"),
        fx("cnn2_slow_b.etdp"),
        fx("cnn2_null_b.etdp"),
    );
    let code = |b: &str, pct: &str| {
        run(&[
            "compare",
            &a,
            b,
            "--warmup",
            "3",
            "--format",
            "csv",
            "--fail-on-regression",
            pct,
        ])
        .status
        .code()
    };
    // The slowest injected row is about +50%.
    assert_eq!(code(&slow, "10"), Some(1));
    assert_eq!(code(&slow, "90"), Some(0));
    assert_eq!(code(&null, "0"), Some(0));
}

#[test]
fn without_format_and_without_a_terminal_the_table_is_printed() {
    let out = run(&["compare", &fx("trace_a.json"), &fx("trace_slow_b.json")]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("\x1b["), "no terminal control sequences");
    assert!(
        text.lines()
            .any(|l| l.starts_with("slower") && l.ends_with("aten::addmm")),
        "{text}"
    );
}

#[test]
fn csv_has_one_line_per_row() {
    let out = run(&[
        "compare",
        &fx("cnn2_a.etdp"),
        &fx("cnn2_slow_b.etdp"),
        "--warmup",
        "3",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let v = json(&[&fx("cnn2_a.etdp"), &fx("cnn2_slow_b.etdp"), "--warmup", "3"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("kind,path,name,instruction_id,"));
    assert_eq!(lines.len() - 1, rows(&v).len());
    // The verdict column, then the added module and median_change_pct.
    assert!(lines[0].ends_with(",verdict,module,median_change_pct"));
    assert!(lines
        .iter()
        .any(|l| l.contains("Convolution (NHWC, F32) IGEMM #3") && l.contains(",slower,")));
}

#[test]
fn usage_errors_exit_2_with_one_line() {
    let one_line = |o: &Output| {
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
        e
    };
    // A dump against a trace.
    let o = run(&[
        "compare",
        &fx("cnn2_a.etdp"),
        &fx("trace_a.json"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = one_line(&o);
    assert!(
        e.contains("trace_a.json") && e.contains("cnn2_a.etdp"),
        "{e}"
    );
    assert!(o.stdout.is_empty());
    // A missing file names it.
    let o = run(&[
        "compare",
        &fx("cnn2_a.etdp"),
        &fx("nope.etdp"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_line(&o).contains("nope.etdp"));
    // Warm-up or logs with traces.
    let o = run(&[
        "compare",
        &fx("trace_a.json"),
        &fx("trace_a.json"),
        "--warmup",
        "2",
        "--format",
        "table",
    ]);
    assert_eq!(o.status.code(), Some(2));
    one_line(&o);
    // Bad flag values (clap also exits 2).
    for bad in [
        ["--alpha", "0"],
        ["--alpha", "1.5"],
        ["--min-change", "-1"],
        ["--fail-on-regression", "x"],
    ] {
        let o = run(&[
            "compare",
            &fx("cnn2_a.etdp"),
            &fx("cnn2_a.etdp"),
            bad[0],
            bad[1],
            "--format",
            "json",
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
    }
    let o = run(&[
        "compare",
        &fx("cnn2_a.etdp"),
        &fx("cnn2_a.etdp"),
        "--no-log",
        "--log-a",
        &fx("cnn2_a.log"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    // Not a dump at all.
    let o = run(&[
        "compare",
        &fx("README.md"),
        &fx("cnn2_a.etdp"),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_line(&o).contains("README.md"));
}

#[test]
fn output_file_is_written_and_inputs_are_never() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cmp.json");
    let o = run(&[
        "compare",
        &fx("trace_a.json"),
        &fx("trace_null_b.json"),
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["schema"], "cpuprof.compare/1");
    // Writing over an input is refused.
    let copy = dir.path().join("a.json");
    std::fs::copy(fx("trace_a.json"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let o = run(&[
        "compare",
        copy.to_str().unwrap(),
        &fx("trace_null_b.json"),
        "--format",
        "json",
        "-o",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    assert!(Path::new(&copy).exists());
}
