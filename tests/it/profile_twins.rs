//! A real dump of two twin methods (identical graphs: one run signature), made by
//! `scripts/make_twin_methods.py` with executorch 1.5.1: the Inspector groups their runs
//! into one block and their two loads into one `Default` block of two samples. The
//! profile does the same with the runs, keeps both loads (`loads`) and says that the
//! profile holds two methods.

use crate::common;

use common::{close, json, load};

fn inspector_raw(golden: &serde_json::Value, block: &str, event: &str) -> Vec<f64> {
    golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == block)
        .unwrap()["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event_name"] == event)
        .unwrap()["raw_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn twin_methods_are_one_profile_with_both_loads() {
    let golden = json("real/twin_methods.inspector.json");
    let p = load("real/twin_methods.etdp", None, 0);
    // One signature: one method profile of all 16 runs, as the Inspector's one block.
    assert_eq!(p.methods.len(), 1);
    let execute = inspector_raw(&golden, "Execute", "Method::execute");
    assert_eq!(execute.len(), 16);
    let ours = &p.method.as_ref().unwrap().samples;
    assert_eq!(ours.len(), execute.len());
    for (a, b) in ours.iter_ms().zip(&execute) {
        assert!(close(a, *b, 1e-9), "{a} vs {b}");
    }
    // Both loads kept, equal to the Inspector's two Default samples.
    let init = inspector_raw(&golden, "Default", "Method::init");
    let load_method = inspector_raw(&golden, "Default", "Program::load_method");
    assert_eq!(p.loads.len(), 2);
    for (k, l) in p.loads.iter().enumerate() {
        assert!(close(l.method_init.unwrap(), init[k], 1e-9), "load {k}");
        assert!(close(l.program_load_method.unwrap(), load_method[k], 1e-9));
    }
    assert_eq!(p.load, Some(p.loads[0]));
    // Said in a warning, and written in profile.json.
    let w = p
        .warnings
        .iter()
        .find(|w| w.kind == "merged_methods")
        .expect("a merged_methods warning");
    assert!(w.message.contains("loaded 2 methods"), "{}", w.message);
    let v: serde_json::Value =
        serde_json::from_str(&cpuprof_tui::report::profile_json(&p)).unwrap();
    assert_eq!(v["loads"].as_array().unwrap().len(), 2);
}

#[test]
fn a_dump_of_one_load_per_method_has_no_merge_warning() {
    for dump in ["real/two_method.etdp", "real/mlp_xnnpack.etdp"] {
        let p = load(dump, None, 0);
        assert!(
            p.warnings.iter().all(|w| w.kind != "merged_methods"),
            "{dump}"
        );
        assert_eq!(p.loads.len(), p.methods.len(), "{dump}");
    }
}
