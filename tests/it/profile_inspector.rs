//! Dumps written by the real ExecuTorch 1.5.1 runtime against the ExecuTorch Inspector's
//! goldens (`*.inspector.json`, etdump_only): with no warm-up dropped (the Inspector keeps
//! every run), every event's samples and median equal the Inspector's to 1e-9 relative.

use crate::common;

use common::{close, json, load};
use cpuprof_tui::profile::{Profile, Stats};

/// (instruction id, event name) -> stats of our profile for that Inspector row.
fn find<'a>(p: &'a Profile, instr: i64, name: &str) -> Option<&'a Stats> {
    if name == "Method::execute" {
        return p.method.as_ref();
    }
    for d in p
        .delegates
        .iter()
        .filter(|d| d.instruction_id as i64 == instr)
    {
        if name == "DELEGATE_CALL" {
            return Some(&d.call);
        }
        let ops = d
            .operators
            .iter()
            .chain(d.steps.iter().flat_map(|s| &s.operators));
        if let Some(o) = ops.into_iter().find(|o| o.name == name) {
            return Some(&o.stats);
        }
    }
    for o in p
        .other_operators
        .iter()
        .filter(|o| o.instruction_id as i64 == instr)
    {
        if name == "OPERATOR_CALL" {
            return Some(&o.stats);
        }
        if let Some(k) = o.kernels.iter().find(|k| k.name == name) {
            return Some(&k.stats);
        }
    }
    None
}

fn check(name: &str) {
    let golden = json(&format!("real/{name}.inspector.json"));
    let p = load(&format!("real/{name}.etdp"), None, 0);
    let mut checked = 0;
    for block in golden["etdump_only"]["event_blocks"].as_array().unwrap() {
        if block["name"] != "Execute" {
            continue;
        }
        for row in block["events"].as_array().unwrap() {
            let event = row["event_name"].as_str().unwrap();
            let instr = row["instruction_id"].as_i64().unwrap();
            let stats = find(&p, instr, event)
                .unwrap_or_else(|| panic!("{name}: no row for {event} @{instr}"));
            let raw: Vec<f64> = row["raw_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(stats.samples.len(), raw.len(), "{name}: {event} count");
            // The Inspector's samples are differences of large timestamps converted to ms
            // in floating point (`0.0029999999969732` for 3,000 ns): within 1e-9 relative,
            // or 1e-8 ms (10 fs) absolute, far under the clock's 1 ns.
            for (a, b) in stats.samples.iter_ms().zip(&raw) {
                assert!(
                    close(a, *b, 1e-9) || (a - b).abs() <= 1e-8,
                    "{name}: {event}: {a} vs {b}"
                );
            }
            for (ours, key) in [
                (stats.median(), "median_ms"),
                (stats.p10(), "p10_ms"),
                (stats.p90(), "p90_ms"),
                (stats.mean(), "avg_ms"),
                (stats.min(), "min_ms"),
                (stats.max(), "max_ms"),
            ] {
                let theirs = row[key].as_f64().unwrap();
                // Statistics of those samples: the same allowance.
                assert!(
                    close(ours, theirs, 1e-9) || (ours - theirs).abs() <= 1e-8,
                    "{name}: {event} {key}: {ours} vs {theirs}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 5, "{name}: only {checked} rows checked");
}

#[test]
fn xnnpack_dump_matches_inspector() {
    check("mlp_xnnpack");
}

/// The recurrent cell unrolled into 4 and into 8 XNNPACK delegates, with a portable
/// `cumsum` between them (`scripts/make_multi_delegate.py fixtures/real [8 multi_delegate8]`):
/// every event of every delegate equals the Inspector's.
#[test]
fn multi_delegate_dumps_match_inspector() {
    check("multi_delegate");
    check("multi_delegate8");
    let p = load("real/mlp_xnnpack.etdp", None, 0);
    // One plain XNNPACK delegate: operators directly under the call, no steps, no plan.
    assert_eq!(p.delegates.len(), 1);
    let d = &p.delegates[0];
    assert_eq!(d.kind, cpuprof_tui::profile::DelegateKind::Xnnpack);
    assert!(d.steps.is_empty() && d.plan.is_none());
    assert_eq!(d.operators.len(), 3);
    assert!(p.warnings.is_empty(), "{:?}", p.warnings);
}

#[test]
fn portable_dump_matches_inspector() {
    check("cnn_portable");
    let p = load("real/cnn_portable.etdp", None, 0);
    assert!(p.delegates.is_empty());
    assert_eq!(p.other_operators.len(), 8);
}

#[test]
fn debug_buffer_dump_matches_inspector_and_counts_debug_events() {
    check("mlp_portable_debugbuf");
    let p = load("real/mlp_portable_debugbuf.etdp", None, 0);
    let note = p
        .warnings
        .iter()
        .find(|w| w.kind == "skipped_events")
        .expect("debug events noted");
    assert!(note.message.contains("117 debug"), "{}", note.message);
}
