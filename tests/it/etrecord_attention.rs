//! A real ETRecord holding `-Infinity` (issue #43): a causal-mask attention block made with
//! executorch 1.5.1 by `scripts/make_attention_fixture.py` (`masked_fill(mask, -inf)`,
//! which Python's json writes as `{"as_float": -Infinity}` in the edge program). Every
//! row's source and every module total against the Inspector's golden
//! (`attention_mask.inspector.json`) and the ETRecord's own JSON
//! (`attention_mask.truth.json`, `scripts/etrecord_truth.py`).

use crate::common;

use std::collections::BTreeMap;

use common::{close, fixture, json};
use cpuprof_tui::profile::{MethodProfile, Profile, RowSource};
use serde_json::Value;

const STEM: &str = "etrecord/attention_mask";

fn load() -> Profile {
    common::load(&format!("{STEM}.etdp"), None, 0)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn handles(v: &Value) -> Vec<u64> {
    match v {
        Value::Null => Vec::new(),
        Value::Array(a) => a.iter().map(|x| x.as_u64().unwrap()).collect(),
        x => vec![x.as_u64().unwrap()],
    }
}

/// The Execute events of the Inspector's golden, `Method::execute` left out.
fn inspector_events() -> Vec<Value> {
    let g = json(&format!("{STEM}.inspector.json"));
    g["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Execute")
        .unwrap()["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] != "Method::execute")
        .cloned()
        .collect()
}

/// Our row for an Inspector event (a portable program: kernels and OPERATOR_CALLs).
fn our_source<'a>(m: &'a MethodProfile, ev: &Value) -> &'a RowSource {
    let name = ev["name"].as_str().unwrap();
    let instr = ev["instruction_id"].as_i64().unwrap() as i32;
    let o = m
        .other_operators
        .iter()
        .find(|o| o.instruction_id == instr)
        .unwrap_or_else(|| panic!("no row for instruction {instr}"));
    let s = if name == "OPERATOR_CALL" {
        o.source.as_ref()
    } else {
        o.kernels
            .iter()
            .find(|k| k.name == name)
            .and_then(|k| k.source.as_ref())
    };
    s.unwrap_or_else(|| panic!("no source for {name} #{instr}"))
}

#[test]
fn the_etrecord_holds_negative_infinity() {
    // Stored (not compressed), so the edge program's text is in the file as written.
    let bytes = std::fs::read(fixture(&format!("{STEM}.etrecord"))).unwrap();
    assert!(bytes
        .windows(b"\"as_float\": -Infinity".len())
        .any(|w| w == b"\"as_float\": -Infinity"));
}

/// Every row gets its handles, nodes, modules and op types, as the Inspector lists them;
/// no warning about the ETRecord.
#[test]
fn every_row_has_the_inspectors_source() {
    let p = load();
    assert!(
        p.warnings.iter().all(|w| !w.kind.starts_with("etrecord")),
        "{:?}",
        p.warnings
    );
    assert!(p.model_files.as_ref().unwrap().etrecord.is_some());
    assert_eq!(p.methods.len(), 1);
    let m = &p.methods[0];
    let events = inspector_events();
    assert_eq!(events.len(), 42);
    let truth = json(&format!("{STEM}.truth.json"));
    for ev in &events {
        let name = ev["name"].as_str().unwrap();
        let s = our_source(m, ev);
        assert!(!s.through_delegate);
        assert_eq!(s.debug_handles, handles(&ev["debug_handles"]), "{name}");
        let nodes: Vec<String> = strs(&ev["nodes"])
            .iter()
            .map(|n| n.strip_suffix('_').unwrap().to_string())
            .collect();
        assert_eq!(s.nodes, nodes, "{name}");
        // Op types: exactly the Inspector's, `scalar_tensor.default` (outside the edge
        // dialect, listed without its namespace) included.
        assert_eq!(s.op_types, strs(&ev["op_types"]), "{name}");
        // Modules: the innermost path of each node, from the ETRecord's own JSON.
        let instr = ev["instruction_id"].as_u64().unwrap().to_string();
        let mut want_modules: Vec<String> = Vec::new();
        for n in truth["methods"]["forward"]["instructions"][&instr]["nodes"]
            .as_array()
            .unwrap()
        {
            let p = n["module"].as_str().unwrap().to_string();
            if !want_modules.contains(&p) {
                want_modules.push(p);
            }
        }
        assert_eq!(s.modules, want_modules, "{name}");
    }
    // The masked fill (scalar_tensor + where) is attn's own.
    let w = m
        .other_operators
        .iter()
        .find(|o| {
            o.kernels
                .iter()
                .any(|k| k.name == "native_call_where.self_out")
        })
        .unwrap();
    let s = w.source.as_ref().unwrap();
    assert_eq!(s.module.as_deref(), Some("attn"));
    assert!(s.op_types.contains(&"aten.where.self".to_string()));
    assert!(s
        .source_line
        .as_deref()
        .unwrap()
        .starts_with("make_attention_fixture.py:"));
}

/// Module totals: the Inspector's `find_total_for_module` (no path here is a substring of
/// another's key but its own subtree: attn.q, attn.k, attn.v, attn.out, attn, norm), and
/// the medians summed over the events whose hierarchy holds the path.
#[test]
fn module_totals_are_the_inspectors() {
    let p = load();
    let golden = json(&format!("{STEM}.inspector.json"));
    let events: Vec<Value> = inspector_events()
        .into_iter()
        .filter(|e| e["name"] != "OPERATOR_CALL")
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
    let modules = golden["modules"].as_array().unwrap();
    assert_eq!(modules.len(), 6);
    for g in modules {
        let path = g["path"].as_str().unwrap();
        assert!(!g["ambiguous"].as_bool().unwrap(), "{path}");
        let m = ours.get(path).unwrap_or_else(|| panic!("no module {path}"));
        let inspector = g["find_total_for_module"].as_f64().unwrap();
        assert!(
            close(m.mean_total, inspector, 1e-9),
            "{path}: {} vs the Inspector's {inspector}",
            m.mean_total
        );
        assert!(
            close(m.median_total, exact(path, "median_ms"), 1e-9),
            "{path}: {} vs {}",
            m.median_total,
            exact(path, "median_ms")
        );
    }
}
