//! #43: a delegate's `(overhead)` row (its call's time outside its operators) on real
//! dumps, against the ExecuTorch Inspector's goldens: for each delegate (instruction I)
//! and run, `DELEGATE_CALL`'s `raw_ms` minus the sum of the `raw_ms` of the delegated
//! operators of instruction I in that run. The row used to be dropped on every real dump
//! (its samples list no runs when every kept run has one).

use crate::common;

use common::{json, load};
use cpuprof_tui::app::ExplorerData;
use cpuprof_tui::rows::RowKind;

/// Whole ns of a golden's ms.
fn ns(ms: &serde_json::Value) -> i64 {
    (ms.as_f64().unwrap() * 1e6).round() as i64
}

/// Per delegate instruction: the overhead of each run, in ns, from the Inspector.
fn golden_overheads(stem: &str) -> Vec<(i64, Vec<i64>)> {
    let doc = json(&format!("real/{stem}.inspector.json"));
    let block = doc["etdump_only"]["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Execute")
        .unwrap();
    let events = block["events"].as_array().unwrap();
    let raw = |e: &serde_json::Value| -> Vec<i64> {
        e["raw_ms"].as_array().unwrap().iter().map(ns).collect()
    };
    events
        .iter()
        .filter(|e| e["event_name"] == "DELEGATE_CALL")
        .map(|call| {
            let instr = call["instruction_id"].as_i64().unwrap();
            let mut rest = raw(call);
            for op in events
                .iter()
                .filter(|e| e["is_delegated_op"] == true && e["instruction_id"] == instr)
            {
                for (r, t) in rest.iter_mut().zip(raw(op)) {
                    *r -= t;
                }
            }
            (instr, rest)
        })
        .collect()
}

fn check(stem: &str, warmup: usize) {
    let truth = golden_overheads(stem);
    assert!(!truth.is_empty(), "{stem}: no delegate in the golden");
    let p = load(&format!("real/{stem}.etdp"), None, warmup);
    let d = ExplorerData::from_profile(&p);
    for (instr, runs) in truth {
        let name = format!("delegate #{instr}");
        let call = d
            .nodes
            .iter()
            .position(|n| n.name == name)
            .unwrap_or_else(|| panic!("{stem}: no node {name}"));
        let over = d
            .nodes
            .iter()
            .find(|n| n.parent == Some(call) && n.name == "(overhead)")
            .unwrap_or_else(|| panic!("{stem}: {name} has no (overhead) row"));
        let got: Vec<i64> = over.stats.samples.ns().to_vec();
        assert_eq!(got, runs[warmup..], "{stem} {name}: kept runs");
        let warm: Vec<i64> = over.stats.warmup_samples.ns().to_vec();
        assert_eq!(warm, runs[..warmup], "{stem} {name}: warm-up runs");
        assert!(over.stats.runs.is_empty(), "every kept run has a sample");
        // Its share is of the call's median (one call per run here).
        let call_median = d.nodes[call].stats.median();
        let share = over.share.unwrap();
        assert!(
            (share - over.stats.median() / call_median).abs() < 1e-9,
            "{stem} {name}: share {share}"
        );
        // The node is read from the row model: the tree's row is that overhead.
        let tree = d.rows.as_ref().expect("a dump's row model");
        let row = &tree.rows[over.row.expect("the overhead node has its row")];
        assert_eq!(row.kind, RowKind::Overhead, "{stem} {name}");
        assert_eq!(row.instruction_id, Some(instr as i32), "{stem} {name}");
        assert_eq!(
            row.stats.samples.ns(),
            &runs[warmup..],
            "{stem} {name}: row"
        );
    }
    // What fleet pairs: the measured rows, every other row kept with its path.
    let tree = d.rows.as_ref().unwrap().as_ref().clone();
    let kept: Vec<Vec<String>> = (0..tree.rows.len())
        .filter(|&i| tree.rows[i].kind != RowKind::Overhead)
        .map(|i| tree.path(i))
        .collect();
    let measured = tree.measured();
    let paths: Vec<Vec<String>> = (0..measured.rows.len()).map(|i| measured.path(i)).collect();
    assert_eq!(paths, kept, "{stem}: measured rows");
    for (i, r) in measured.rows.iter().enumerate() {
        for &c in &r.children {
            assert_eq!(measured.rows[c].parent, Some(i), "{stem}: child of {i}");
        }
    }
}

#[test]
fn mlp_xnnpack_overhead_is_the_call_minus_its_operators() {
    check("mlp_xnnpack", 0);
    check("mlp_xnnpack", 3);
}

#[test]
fn multi_delegate_overheads_are_the_calls_minus_their_operators() {
    check("multi_delegate", 0);
    check("multi_delegate", 2);
    check("multi_delegate8", 1);
}
