//! A real two-method ETDump (executorch 1.5.1, `fixtures/real/two_method.*`, made by
//! `scripts/make_two_method.py`) against the Inspector's event blocks: one method profile
//! per block, with the Inspector's sample counts and medians.

mod common;

use common::{close, json, load};
use cpuprof_tui::profile::{MethodProfile, Stats};

/// (event name, instruction id) -> (count, median) of one Inspector block.
fn inspector_events(block: &serde_json::Value) -> Vec<(String, i64, usize, f64)> {
    block["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["event_name"].as_str().unwrap().to_string(),
                e["instruction_id"].as_i64().unwrap(),
                e["num_samples"].as_u64().unwrap() as usize,
                e["median_ms"].as_f64().unwrap(),
            )
        })
        .collect()
}

/// Our stats of an Inspector event in one method profile.
fn ours<'a>(m: &'a MethodProfile, name: &str, instr: i64) -> Option<&'a Stats> {
    if name == "Method::execute" {
        return m.method.as_ref();
    }
    for d in &m.delegates {
        if i64::from(d.instruction_id) != instr {
            continue;
        }
        if name == "DELEGATE_CALL" {
            return Some(&d.call);
        }
        if let Some(o) = d.operators.iter().find(|o| o.name == name) {
            return Some(&o.stats);
        }
    }
    for o in &m.other_operators {
        if i64::from(o.instruction_id) != instr {
            continue;
        }
        if name == "OPERATOR_CALL" || (o.name == name && o.kernels.is_empty()) {
            return Some(&o.stats);
        }
        if let Some(k) = o.kernels.iter().find(|k| k.name == name) {
            return Some(&k.stats);
        }
    }
    None
}

#[test]
fn two_methods_are_two_profiles_matching_the_inspector_blocks() {
    let golden = json("real/two_method.inspector.json");
    let blocks: Vec<&serde_json::Value> = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["name"] == "Execute")
        .collect();
    // The script ran encode 12 times and decode 16 times, alternately.
    assert_eq!(blocks.len(), 2);
    let p = load("real/two_method.etdp", None, 0);
    assert_eq!(p.methods.len(), 2);
    assert_eq!(p.methods[0].runs.total, 12);
    assert_eq!(p.methods[1].runs.total, 16);
    assert_eq!(p.methods[0].name, "method 1");
    assert_eq!(p.methods[1].name, "method 2");
    assert!(p.warnings.iter().any(|w| w.kind == "several_methods"));
    // No pooled rows, so no count warnings.
    for m in &p.methods {
        assert!(
            !m.warnings
                .iter()
                .any(|w| w.kind == "unexpected_sample_count"),
            "{}: {:?}",
            m.name,
            m.warnings
        );
    }
    for (m, block) in p.methods.iter().zip(&blocks) {
        for (name, instr, count, median) in inspector_events(block) {
            let s = ours(m, &name, instr)
                .unwrap_or_else(|| panic!("{}: no row for {name:?} @{instr}", m.name));
            assert_eq!(s.count, count, "{}: {name} count", m.name);
            assert!(
                close(s.median, median, 1e-9) || (s.median - median).abs() < 1e-9,
                "{}: {name} median {} vs Inspector {median}",
                m.name,
                s.median
            );
        }
    }
    // The top-level fields describe the first method.
    assert_eq!(p.runs, p.methods[0].runs);
    assert_eq!(p.delegates, p.methods[0].delegates);
    // Load times: two Default blocks, one per method load.
    assert!(p.methods[0].load.is_some() && p.methods[1].load.is_some());
    // The decode method has the portable cumsum; the encode method has none.
    assert!(p.methods[0].other_operators.is_empty());
    assert_eq!(p.methods[1].other_operators.len(), 1);
}

#[test]
fn the_explorer_shows_one_tree_root_per_method() {
    let p = load("real/two_method.etdp", None, 0);
    let d = cpuprof_tui::app::ExplorerData::from_profile(&p);
    let roots: Vec<&str> = d.roots.iter().map(|&r| d.nodes[r].name.as_str()).collect();
    assert_eq!(
        roots,
        ["Method::execute · method 1", "Method::execute · method 2"]
    );
    // encode: its delegate; decode: its delegate, the cumsum operator and the remainder.
    let children = |r: usize| d.nodes[d.roots[r]].children.len();
    assert_eq!((children(0), children(1)), (2, 3));
    // The decode GEMM (0 in every run) is a row under the clock quantum.
    let below: Vec<&str> = d
        .ops
        .iter()
        .filter(|o| o.below_resolution.is_some())
        .map(|o| o.delegate.as_str())
        .collect();
    // The delegate column reads `m2d0`: method 2, instruction 0.
    assert_eq!(below, ["m2d0"]);
}
