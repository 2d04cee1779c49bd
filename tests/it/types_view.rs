//! #43: the types view (`o`): a type's Median is the median over kept runs of the sum of
//! its instances' times in each run, checked against the ExecuTorch Inspector's goldens
//! (every event of that type, by name without ` #N`, `raw_ms` summed run by run); where
//! no such per-run sum exists (a type in two methods), the cell says it is a sum of
//! medians (`Σ`).

use crate::common;

use common::{json, load};
use cpuprof_tui::app::table::cell;
use cpuprof_tui::app::{Column, ExplorerData};

/// `Fully Connected (NC, F32) GEMM #3` -> `Fully Connected (NC, F32) GEMM` (written
/// here, not taken from the crate).
fn type_of(name: &str) -> &str {
    match name.rsplit_once(" #") {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => name,
    }
}

/// Median of whole ns (mean of the middle two for an even count), in ms.
fn median_ms(mut v: Vec<i64>) -> f64 {
    v.sort_unstable();
    let n = v.len();
    let m = if n % 2 == 1 {
        v[n / 2] as f64
    } else {
        (v[n / 2 - 1] + v[n / 2]) as f64 / 2.0
    };
    m / 1e6
}

fn check(stem: &str, warmup: usize) {
    let doc = json(&format!("real/{stem}.inspector.json"));
    let block = doc["etdump_only"]["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Execute")
        .unwrap()
        .clone();
    let events = block["events"].as_array().unwrap();
    let p = load(&format!("real/{stem}.etdp"), None, warmup);
    let d = ExplorerData::from_profile(&p);
    assert!(!d.groups.is_empty());
    for g in &d.groups {
        let members: Vec<&serde_json::Value> = events
            .iter()
            .filter(|e| type_of(e["event_name"].as_str().unwrap()) == g.name)
            .collect();
        assert_eq!(members.len(), g.instances, "{stem} {}", g.name);
        let runs = members[0]["raw_ms"].as_array().unwrap().len();
        let per_run: Vec<i64> = (warmup..runs)
            .map(|r| {
                members
                    .iter()
                    .map(|e| (e["raw_ms"][r].as_f64().unwrap() * 1e6).round() as i64)
                    .sum()
            })
            .collect();
        let want = median_ms(per_run);
        assert_eq!(g.summed_median, None, "{stem} {}: per-run sums", g.name);
        assert!(
            (g.stats.median() - want).abs() < 1e-6,
            "{stem} {}: median {} ms, the Inspector's runs give {want} ms",
            g.name,
            g.stats.median()
        );
        assert!(!cell(g, Column::Median).contains('Σ'));
    }
}

#[test]
fn type_medians_are_medians_of_per_run_sums() {
    check("multi_delegate", 0);
    check("multi_delegate", 3);
    check("mlp_xnnpack", 2);
}

/// The sum of medians differs from the median of the sums on a real dump (so the check
/// above tells the two apart): on multi_delegate's 8 GEMMs.
#[test]
fn the_two_figures_differ_on_a_real_dump() {
    let p = load("real/multi_delegate.etdp", None, 0);
    let d = ExplorerData::from_profile(&p);
    let g = d
        .groups
        .iter()
        .find(|g| g.name == "Fully Connected (NC, F32) GEMM")
        .unwrap();
    let sum_of_medians: f64 = d
        .ops
        .iter()
        .filter(|o| type_of(&o.name) == g.name)
        .map(|o| o.stats.median())
        .sum();
    assert!(
        (sum_of_medians - g.stats.median()).abs() > 1e-4,
        "{sum_of_medians}"
    );
}

/// A type whose instances are in two methods has no run of its own: its Median is the
/// sum of the instances' medians, and the cell says so.
#[test]
fn a_type_in_two_methods_is_a_sum_of_medians_said_so() {
    let p = load("real/two_method.etdp", None, 0);
    assert!(p.methods.len() > 1);
    let d = ExplorerData::from_profile(&p);
    let mut seen = 0;
    for g in &d.groups {
        let ops: Vec<_> = d
            .ops
            .iter()
            .filter(|o| type_of(&o.name) == g.name)
            .collect();
        let roots: std::collections::BTreeSet<usize> = ops
            .iter()
            .map(|o| {
                let mut i = o.node;
                while let Some(p) = d.nodes[i].parent {
                    i = p;
                }
                i
            })
            .collect();
        if roots.len() < 2 {
            continue;
        }
        seen += 1;
        let sum: f64 = ops.iter().map(|o| o.stats.median()).sum();
        assert!((g.summed_median.unwrap() - sum).abs() < 1e-9, "{}", g.name);
        assert!(cell(g, Column::Median).starts_with("Σ "), "{}", g.name);
    }
    assert!(seen > 0, "no type in both methods");
}
