//! The module rows of the row model (`RowTree::modules_of`: what `report --by-module`
//! and its CSV read) against the Inspector's frame of the same recording
//! (`fixtures/etrecord/*.inspector.json`): every module's totals, and every row a module
//! holds, found in the dump's rows.

use crate::common;

use common::{close, json};
use cpuprof_tui::rows::{Facts, ModuleMember, RowKind, RowTree};
use serde_json::Value;

const DIR: &str = "etrecord";

fn check(stem: &str) {
    let p = common::load(&format!("{DIR}/{stem}.etdp"), None, 0);
    let dump = RowTree::from_profile(&p);
    let tree = RowTree::modules_of(&p, &dump);
    let golden = json(&format!("{DIR}/{stem}.inspector.json"));
    // The Inspector's timed rows: delegate calls and kernels (no OPERATOR_CALL, no
    // Method:: or Program:: event, no operator inside a delegate call).
    let events: Vec<&Value> = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["events"].as_array().unwrap())
        .filter(|e| {
            let n = e["name"].as_str().unwrap();
            n != "OPERATOR_CALL"
                && !n.starts_with("Method::")
                && !n.starts_with("Program::")
                && !e["is_delegated_op"].as_bool().unwrap()
        })
        .collect();
    let module = |path: &str| {
        tree.rows
            .iter()
            .find(|r| r.kind == RowKind::Module && r.module.as_deref() == Some(path))
            .unwrap_or_else(|| panic!("{stem}: no module row {path}"))
    };
    let method = &tree.rows[tree.roots[0]];
    let mut unambiguous = 0;
    for g in golden["modules"].as_array().unwrap() {
        let path = g["path"].as_str().unwrap();
        let Facts::Module {
            mean_total,
            median_total,
            share,
            ..
        } = module(path).facts
        else {
            panic!("{stem}: {path}: a module row without its facts");
        };
        if !g["ambiguous"].as_bool().unwrap() {
            let inspector = g["find_total_for_module"].as_f64().unwrap();
            assert!(close(mean_total, inspector, 1e-9), "{stem}: {path}");
            unambiguous += 1;
        }
        assert!(close(share, median_total / method.stats.median(), 1e-12));
    }
    assert!(unambiguous >= 5, "{stem}: {unambiguous}");
    // Every timed row of the Inspector is held by exactly one module, with its figures,
    // and is found in the dump's rows.
    let members: Vec<&ModuleMember> = tree
        .rows
        .iter()
        .filter_map(|r| match &r.facts {
            Facts::Module { rows, .. } => Some(rows),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(members.len(), events.len(), "{stem}");
    for e in &events {
        let name = e["name"].as_str().unwrap();
        let id = e["instruction_id"].as_i64().unwrap() as i32;
        let m = members
            .iter()
            .find(|m| m.name == name && m.instruction_id == id)
            .unwrap_or_else(|| panic!("{stem}: {name} #{id} in no module"));
        assert!(close(m.mean, e["avg_ms"].as_f64().unwrap(), 1e-9), "{name}");
        assert!(
            close(m.median, e["median_ms"].as_f64().unwrap(), 1e-9),
            "{name}"
        );
        let row = &dump.rows[m
            .row
            .unwrap_or_else(|| panic!("{stem}: {name} #{id}: no row"))];
        assert_eq!(row.kind, m.kind, "{name}");
        assert_eq!(row.instruction_id, Some(id), "{name}");
        let want_kind = if name == "DELEGATE_CALL" {
            RowKind::Delegate
        } else {
            RowKind::Kernel
        };
        assert_eq!(m.kind, want_kind, "{name}");
    }
}

#[test]
fn xnnpack_module_rows_are_the_inspectors() {
    check("modules_xnnpack");
}

#[test]
fn portable_module_rows_are_the_inspectors() {
    check("modules_portable");
}

/// The modules view's data, made from the module rows, is the module tree the reader
/// computed with the ETRecord (`modules[]` of each method, `find_total_for_module`'s
/// sums), field for field, on every fixture with an ETRecord: nothing is lost on the way
/// through the row model.
#[test]
fn the_modules_view_data_is_the_readers_module_tree() {
    let mut checked = 0;
    for stem in [
        "modules_xnnpack",
        "modules_portable",
        "three_method",
        "twin_method",
        "attention_mask",
    ] {
        let p = common::load(&format!("{DIR}/{stem}.etdp"), None, 0);
        let data = cpuprof_tui::app::ExplorerData::from_profile(&p);
        let want: Vec<_> = if p.methods.len() > 1 {
            p.methods
                .iter()
                .map(|m| &m.modules)
                .filter(|m| !m.is_empty())
                .collect()
        } else {
            vec![&p.modules]
                .into_iter()
                .filter(|m| !m.is_empty())
                .collect()
        };
        let got: Vec<_> = data.modules.iter().map(|m| &m.modules).collect();
        assert_eq!(got, want, "{stem}");
        checked += got.iter().map(|m| m.len()).sum::<usize>();
    }
    assert!(checked >= 10, "only {checked} modules");
}
