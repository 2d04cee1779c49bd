//! Every CpuBackend fixture case against its generator's ground truth (`*.truth.json`):
//! runs, plans, per-delegate steps, operators, samples (exact, from integer ns), medians,
//! shapes, other operators, warnings and errors.

use crate::common;

use std::collections::BTreeSet;

use common::{fixture, json, load};
use cpuprof_tui::profile::{Delegate, OperatorKind, Profile, Stats};
use serde_json::Value;

const CASES: &[&str] = common::TRUTH_CASES;

fn profile_of(case: &str) -> (Profile, Value) {
    let truth = json(&format!("{case}.truth.json"));
    let warmup = truth["warmup"].as_u64().unwrap() as usize;
    let p = load(
        &format!("{case}.etdp"),
        Some(&format!("{case}.log")),
        warmup,
    );
    (p, truth)
}

/// Samples must equal the truth's integer nanoseconds / 1e6 exactly, in run order; the
/// median must equal the truth's median.
fn assert_stats(what: &str, got: &Stats, want: &Value) {
    let ns: Vec<f64> = want["samples_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as f64 / 1e6)
        .collect();
    assert_eq!(got.samples, ns, "{what}: samples");
    assert_eq!(
        got.count,
        want["count"].as_u64().unwrap() as usize,
        "{what}: count"
    );
    if got.count > 0 {
        let median = want["median_ms"].as_f64().unwrap();
        assert!(
            common::close(got.median(), median, 1e-12),
            "{what}: median {} vs {median}",
            got.median()
        );
        assert!(
            common::close(got.min(), want["min_ms"].as_f64().unwrap(), 1e-12),
            "{what}: min"
        );
        assert!(
            common::close(got.max(), want["max_ms"].as_f64().unwrap(), 1e-12),
            "{what}: max"
        );
        assert!(
            common::close(got.mean(), want["mean_ms"].as_f64().unwrap(), 1e-9),
            "{what}: mean"
        );
    }
}

fn check_case(case: &str) {
    let (p, t) = profile_of(case);
    let w = t["warmup"].as_u64().unwrap() as usize;
    let timed = t["timed"].as_u64().unwrap() as usize;
    assert_eq!(
        (p.runs.total, p.runs.warmup_dropped, p.runs.kept),
        (w + timed, w, timed),
        "{case}: runs"
    );
    assert_stats(
        &format!("{case}: Method::execute"),
        p.method.as_ref().unwrap(),
        &t["method_execute"],
    );

    let want_delegates = t["delegates"].as_array().unwrap();
    assert_eq!(
        p.delegates.len(),
        want_delegates.len(),
        "{case}: delegate count"
    );
    for (d, wd) in p.delegates.iter().zip(want_delegates) {
        check_delegate(case, d, wd);
    }

    // Non-delegated instructions: OPERATOR_CALL under the kernel's name, with the kernel.
    let want_ops: Vec<&Value> = t["instructions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "operator")
        .collect();
    assert_eq!(
        p.other_operators.len(),
        want_ops.len(),
        "{case}: other operators"
    );
    for (op, w) in p.other_operators.iter().zip(want_ops) {
        assert_eq!(
            op.instruction_id as i64,
            w["instruction_id"].as_i64().unwrap()
        );
        assert_eq!(op.name, w["event"].as_str().unwrap());
        assert_stats(
            &format!("{case}: {} OPERATOR_CALL", op.name),
            &op.stats,
            &w["operator_call"],
        );
        assert_eq!(op.kernels.len(), 1);
        assert_stats(
            &format!("{case}: {}", op.name),
            &op.kernels[0].stats,
            &w["native_call"],
        );
    }

    let findings = |list: &[cpuprof_tui::profile::Finding]| -> BTreeSet<(String, Option<String>)> {
        // The clock-resolution note is informational and not part of the generator's
        // expected findings (it is checked against the fixtures in profile_resolution.rs).
        list.iter()
            .filter(|f| f.kind != "below_clock_resolution")
            .map(|f| (f.kind.clone(), f.event.clone()))
            .collect()
    };
    let truth_findings = |key: &str| -> BTreeSet<(String, Option<String>)> {
        t["expected"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["code"].as_str().unwrap().to_string(),
                    f["event"].as_str().map(str::to_string),
                )
            })
            .collect()
    };
    assert_eq!(
        findings(&p.errors),
        truth_findings("errors"),
        "{case}: errors"
    );
    assert_eq!(
        findings(&p.warnings),
        truth_findings("warnings"),
        "{case}: warnings"
    );
}

fn check_delegate(case: &str, d: &Delegate, wd: &Value) {
    let id = wd["instruction_id"].as_i64().unwrap();
    let ctx = format!("{case}: delegate @{id}");
    assert_eq!(d.instruction_id as i64, id, "{ctx}");
    assert_stats(
        &format!("{ctx} DELEGATE_CALL"),
        &d.call,
        &wd["delegate_call"],
    );
    let has_plan = wd["plan_status"] == "ok";
    assert_eq!(d.plan.is_some(), has_plan, "{ctx}: plan presence");
    if let Some(plan) = &d.plan {
        assert_eq!(
            serde_json::to_value(plan).unwrap(),
            wd["plan"],
            "{ctx}: plan JSON"
        );
    }
    let want_steps = wd["steps"].as_array().unwrap();
    // Without a plan, steps come from events; a step never seen cannot appear.
    let seen_steps: Vec<&Value> = want_steps
        .iter()
        .filter(|s| has_plan || s["stats"]["count"].as_u64().unwrap() > 0)
        .collect();
    assert_eq!(d.steps.len(), seen_steps.len(), "{ctx}: steps");
    for (s, ws) in d.steps.iter().zip(seen_steps) {
        let sctx = format!("{ctx} step {}", s.name);
        assert_eq!(s.name, ws["event"].as_str().unwrap(), "{sctx}");
        assert_eq!(s.provider, ws["provider"].as_str().unwrap(), "{sctx}");
        assert_eq!(
            s.implementation,
            ws["implementation"].as_str().unwrap(),
            "{sctx}"
        );
        let nodes: Vec<String> = serde_json::from_value(ws["nodes"].clone()).unwrap();
        assert_eq!(s.node_count, nodes.len(), "{sctx}: node count");
        if has_plan {
            assert_eq!(s.nodes, nodes, "{sctx}: nodes");
        } else {
            assert_eq!(s.nodes, nodes[..1], "{sctx}: first node");
        }
        assert_stats(&sctx, &s.stats, &ws["stats"]);
        let want_ops = ws["operators"].as_array().unwrap();
        assert_eq!(
            s.operators
                .iter()
                .map(|o| o.name.as_str())
                .collect::<Vec<_>>(),
            want_ops
                .iter()
                .map(|o| o["event"].as_str().unwrap())
                .collect::<Vec<_>>(),
            "{sctx}: operators"
        );
        for (o, wo) in s.operators.iter().zip(want_ops) {
            let octx = format!("{sctx} / {}", o.name);
            let kind = match o.kind {
                OperatorKind::Xnnpack => "xnnpack",
                OperatorKind::Kernel => "kernel",
                OperatorKind::Delegate => "delegate",
            };
            assert_eq!(kind, wo["kind"].as_str().unwrap(), "{octx}: kind");
            assert_stats(&octx, &o.stats, &wo["stats"]);
            match &wo["shapes"] {
                Value::Null => assert_eq!(
                    (&o.input_shapes, &o.output_shapes),
                    (&None, &None),
                    "{octx}"
                ),
                shapes => {
                    let i: Vec<Vec<i64>> =
                        serde_json::from_value(shapes["inputs"].clone()).unwrap();
                    let out: Vec<Vec<i64>> =
                        serde_json::from_value(shapes["outputs"].clone()).unwrap();
                    assert_eq!(o.input_shapes.as_ref(), Some(&i), "{octx}: inputs");
                    assert_eq!(o.output_shapes.as_ref(), Some(&out), "{octx}: outputs");
                }
            }
        }
    }
    assert!(
        d.unattributed.is_empty(),
        "{ctx}: unattributed {:?}",
        d.unattributed
    );
}

#[test]
fn every_cpu_fixture_matches_its_truth() {
    for case in CASES {
        check_case(case);
    }
}

#[test]
fn step_missing_in_one_run_keeps_its_other_samples_and_run_indexes() {
    // cnn2_drop_step: step 1 of delegate 0 (ET/registry:neg) has no event in run 5
    // (warm-ups count: runs 2..11 are kept).
    let (p, t) = profile_of("cpu-faults/cnn2_drop_step");
    let step = &p.delegates[0].steps[1];
    assert_eq!(step.name, "ET/registry:neg");
    let missing = t["delegates"][0]["steps"][1]["missing_in_runs"].clone();
    assert_eq!(missing, serde_json::json!([5]));
    assert_eq!(step.stats.runs, vec![2, 3, 4, 6, 7, 8, 9, 10, 11]);
    // Its kernel still has all 10 samples (attributed by name, not only by containment).
    assert_eq!(step.operators[0].stats.count, 10);
}

#[test]
fn warmup_samples_are_kept_aside_in_run_order() {
    let (p, t) = profile_of("cpu/mlp_basic");
    let want: Vec<f64> = t["method_execute"]["warmup_samples_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as f64 / 1e6)
        .collect();
    assert_eq!(want.len(), 3);
    assert_eq!(p.method.as_ref().unwrap().warmup_samples, want);
}

#[test]
fn warmup_must_leave_a_run() {
    let request = cpuprof_tui::profile::ProfileRequest::new(fixture("cpu/mlp_w0_t1.etdp"), None, 1);
    let err =
        cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &Default::default()).unwrap_err();
    let line = err.to_string();
    assert!(
        line.contains("mlp_w0_t1.etdp") && line.contains("--warmup 1"),
        "{line}"
    );
}

#[test]
fn method_time_is_explained() {
    // Per kept run: delegates + other operators + remainder = Method::execute, in whole
    // ns exactly: every sample is a whole number of ns (`ns / 1e6` ms), the remainder too
    // (subtracted in ns, not as a difference of ms with its rounding noise).
    let whole_ns = |ms: f64| -> i64 {
        let ns = (ms * 1e6).round() as i64;
        assert_eq!(ns as f64 / 1e6, ms, "{ms} ms is not a whole number of ns");
        ns
    };
    for case in ["cpu/cnn2_basic", "cpu/mlp_basic", "cpu/wide_browse"] {
        let (p, _) = profile_of(case);
        let m = p.method.as_ref().unwrap();
        let r = p.remainder.as_ref().unwrap();
        for i in 0..m.count {
            let parts: i64 = p
                .delegates
                .iter()
                .map(|d| whole_ns(d.call.samples.ms(i)))
                .sum::<i64>()
                + p.other_operators
                    .iter()
                    .map(|o| whole_ns(o.stats.samples.ms(i)))
                    .sum::<i64>();
            let rest = whole_ns(r.samples.ms(i));
            assert_eq!(parts + rest, whole_ns(m.samples.ms(i)), "{case} run {i}");
            assert!(rest >= 0, "{case} run {i}");
        }
    }
}
