//! compare's change and interval (the Hodges–Lehmann ratio B/A and its distribution-free
//! interval, `src/stats/ratio.rs`) against a reference computed independently with numpy
//! and scipy: `fixtures/compare/ratio_reference.json`, written by
//! `/work/venv/bin/python scripts/compare-ratio-reference.py > fixtures/compare/ratio_reference.json`
//! (numpy 2.4, scipy 1.17.1: ratios materialised with numpy, the interval rank from
//! scipy's exact Mann–Whitney distribution). Then property tests over random sample sets
//! (ties, 2–5 samples, a quantised clock with zeros): the interval holds the change and
//! lies above −100%, through `compare` itself.

use crate::common;

use cpuprof_tui::compare::{compare, CompareOptions};
use cpuprof_tui::rows::{Row, RowKind, RowTree, TreeSource};
use cpuprof_tui::stats::{ratio_estimate, Stats};
use proptest::prelude::*;

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn ratio_and_interval_equal_the_scipy_reference() {
    let doc = common::json("compare/ratio_reference.json");
    let alpha = doc["alpha"].as_f64().unwrap();
    let cases = doc["cases"].as_array().unwrap();
    assert!(cases.len() >= 60);
    let mut with_ci = 0;
    for (i, c) in cases.iter().enumerate() {
        let (a, b) = (floats(&c["a"]), floats(&c["b"]));
        let got = ratio_estimate(&a, &b, alpha);
        match c["ratio"].as_f64() {
            None => assert!(got.is_none(), "case {i}: {got:?}"),
            Some(r) => {
                let got = got.unwrap_or_else(|| panic!("case {i}: no estimate"));
                // serde_json reads floats to within an ulp (no float_roundtrip feature).
                let same = |x: f64, y: f64| (x - y).abs() <= 1e-14 * x.abs().max(y.abs());
                assert!(same(got.ratio, r), "case {i}: ratio {} vs {r}", got.ratio);
                let want = c["ci"]
                    .as_array()
                    .map(|v| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap()));
                match (got.ci, want) {
                    (None, None) => {}
                    (Some(g), Some(w)) => {
                        assert!(same(g.0, w.0) && same(g.1, w.1), "case {i}: {g:?} vs {w:?}")
                    }
                    (g, w) => panic!("case {i}: interval {g:?} vs {w:?}"),
                }
                with_ci += usize::from(want.is_some());
            }
        }
    }
    assert!(with_ci >= 20, "{with_ci} cases with an interval");
}

fn tree(samples: &[f64]) -> RowTree {
    RowTree {
        source_kind: TreeSource::Dump,
        source: "t".into(),
        runs: samples.len(),
        rows: vec![Row {
            kind: RowKind::Operator,
            name: "op".into(),
            instruction_id: None,
            group: None,
            facts: Default::default(),
            share: None,
            source: None,
            input_shapes: None,
            output_shapes: None,
            flops: None,
            bytes: None,
            module: None,
            source_line: None,
            stats: Stats::from_ms(samples),
            parent: None,
            children: Vec::new(),
            depth: 0,
        }],
        roots: vec![0],
    }
}

/// Samples are whole ns: each set is rounded to them (as a profile's are) before use.
fn sample_set() -> impl Strategy<Value = Vec<f64>> {
    let whole_ns =
        |v: Vec<f64>| -> Vec<f64> { v.iter().map(|x| (x * 1e6).round() / 1e6).collect() };
    prop_oneof![
        // Continuous, 2-5 samples.
        prop::collection::vec(0.001f64..10.0, 2..=5),
        // Heavy ties.
        prop::collection::vec((1u32..4).prop_map(f64::from), 2..=5),
        // A quantised clock: whole µs (in ms), zeros included.
        prop::collection::vec((0u32..5).prop_map(|u| f64::from(u) / 1000.0), 2..=12),
        // Larger, continuous.
        prop::collection::vec(0.01f64..5.0, 6..=25),
    ]
    .prop_map(whole_ns)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_interval_holds_the_change_and_lies_above_minus_100(a in sample_set(), b in sample_set()) {
        let c = compare(&tree(&a), &tree(&b), &CompareOptions::default());
        let r = &c.rows[0];
        if let Some(d) = r.delta_pct {
            prop_assert!(d >= -100.0 && d.is_finite(), "{d}");
            if let Some((lo, hi)) = r.ci_pct {
                prop_assert!(lo > -100.0, "{lo}");
                prop_assert!(lo <= d && d <= hi, "{d} not in [{lo}, {hi}]");
                prop_assert!(hi.is_finite());
            }
        } else {
            prop_assert!(r.ci_pct.is_none());
        }
        // The same estimator: the change is the ratio estimate's.
        if let (Some(d), Some(e)) = (r.delta_pct, ratio_estimate(&a, &b, 0.05)) {
            prop_assert!(((e.ratio - 1.0) * 100.0 - d).abs() <= 1e-9 * d.abs().max(1.0));
        }
    }
}
