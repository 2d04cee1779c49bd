//! Programs made the way users make them (`fixtures/wild`, `scripts/make_wild_fixtures.py`,
//! executorch 1.5.1): kernels outside `aten`, an op outside the edge dialect, a timm
//! model on XNNPACK, constant methods with `prefill`/`decode` loaded on first use, and
//! `torch.cond` branches. Checked against the ExecuTorch Inspector's goldens
//! (`*.inspector.json`) and what the script recorded while running them (`*.run.json`).

use crate::common;

use common::{close, json, load};
use cpuprof_tui::profile::{MethodProfile, Profile, RowSource, Stats};
use serde_json::Value;

const DIR: &str = "wild";

fn wild(stem: &str) -> Profile {
    // No runner log: the methods are named from the program alone.
    load(&format!("{DIR}/{stem}.etdp"), None, 0)
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

/// Our stats and source for one of the Inspector's events of a method's block.
fn ours<'a>(m: &'a MethodProfile, ev: &Value) -> Option<(&'a Stats, Option<&'a RowSource>)> {
    let name = ev["event_name"].as_str().unwrap();
    let instr = ev["instruction_id"].as_i64().unwrap() as i32;
    if name == "Method::execute" {
        return m.method.as_ref().map(|s| (s, None));
    }
    if let Some(d) = m.delegates.iter().find(|d| d.instruction_id == instr) {
        if name == "DELEGATE_CALL" {
            return Some((&d.call, d.source.as_ref()));
        }
        let op = d
            .operators
            .iter()
            .chain(d.steps.iter().flat_map(|s| &s.operators))
            .find(|o| o.name == name)?;
        return Some((&op.stats, op.source.as_ref()));
    }
    let o = m
        .other_operators
        .iter()
        .find(|o| o.instruction_id == instr)?;
    if name == "OPERATOR_CALL" {
        return Some((&o.stats, o.source.as_ref()));
    }
    match o.kernels.iter().find(|k| k.name == name) {
        Some(k) => Some((&k.stats, k.source.as_ref())),
        // An event of its own (JF_CALL, MOVE_CALL).
        None => (o.name == name).then_some((&o.stats, o.source.as_ref())),
    }
}

fn execute_blocks(golden: &Value) -> Vec<&Value> {
    golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["name"] == "Execute")
        .collect()
}

/// Every event of every `Execute` block of the Inspector (one block per run signature,
/// in the order the signatures first ran, as our methods are) is a row of ours with the
/// same samples; where the Inspector read the ETRecord, every row that is not an XNNPACK
/// operator has its debug handles, `op_types` and nodes. Returns the rows checked.
fn rows_are_the_inspectors(stem: &str, p: &Profile) -> usize {
    let golden = json(&format!("{DIR}/{stem}.inspector.json"));
    let with_record = !golden["etrecord"].is_null();
    let blocks = execute_blocks(&golden);
    assert_eq!(p.methods.len(), blocks.len(), "{stem}: groups");
    let mut checked = 0;
    for (m, block) in p.methods.iter().zip(blocks) {
        for ev in block["events"].as_array().unwrap() {
            let name = ev["event_name"].as_str().unwrap();
            let (stats, source) =
                ours(m, ev).unwrap_or_else(|| panic!("{stem} {}: no row for {ev}", m.name));
            let raw: Vec<f64> = ev["raw_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            assert_eq!(stats.samples.len(), raw.len(), "{stem}: {name} count");
            // The Inspector's ms are differences of ns timestamps in floating point.
            for (a, b) in stats.samples.iter_ms().zip(&raw) {
                assert!(
                    close(a, *b, 1e-9) || (a - b).abs() <= 1e-8,
                    "{stem}: {name}: {a} vs {b}"
                );
            }
            let median = ev["median_ms"].as_f64().unwrap();
            assert!(
                close(stats.median(), median, 1e-9) || (stats.median() - median).abs() <= 1e-8,
                "{stem}: {name} median {} vs {median}",
                stats.median()
            );
            let framework = ["Method::execute", "JF_CALL", "MOVE_CALL", "FREE_CALL"];
            let delegated = ev["is_delegated_op"].as_bool().unwrap();
            if with_record && delegated {
                // The Inspector leaves XNNPACK operators without handles; ours carry
                // their delegate's, marked.
                assert!(ev["debug_handles"].is_null(), "{ev}");
                assert!(source.is_some_and(|s| s.through_delegate), "{stem}: {name}");
            } else if with_record && ev["debug_handles"].is_null() && !framework.contains(&name) {
                // Not in the ETRecord's debug_handle_map (a torch.cond branch's kernels):
                // nothing known of it.
                assert!(
                    source.is_none_or(|s| s.nodes.is_empty()),
                    "{stem}: {name}: {source:?}"
                );
            } else if with_record && !framework.contains(&name) {
                let s = source.unwrap_or_else(|| panic!("{stem}: {name} has no source"));
                assert_eq!(
                    s.debug_handles,
                    handles(&ev["debug_handles"]),
                    "{stem}: {name}"
                );
                assert_eq!(s.op_types, strs(&ev["op_types"]), "{stem}: {name}");
                let nodes: Vec<String> = strs(&ev["nodes"])
                    .iter()
                    .map(|n| n.strip_suffix('_').unwrap().to_string())
                    .collect();
                assert_eq!(s.nodes, nodes, "{stem}: {name}");
            }
            checked += 1;
        }
    }
    checked
}

fn kinds(p: &Profile) -> Vec<&str> {
    p.warnings.iter().map(|w| w.kind.as_str()).collect()
}

/// attn_dimorder's program runs `dim_order_ops::_to_dim_order_copy.out` at instructions
/// 22 and 24, which the dump records as `native_call__to_dim_order_copy.out`: the
/// program's one method (`forward`, the name torch.export gives and the ETRecord's
/// `edge_dialect_exported_program/forward`) fits, and the rows get their sources.
#[test]
fn kernels_outside_aten_name_the_method() {
    let p = wild("attn_dimorder");
    assert_eq!(p.methods.len(), 1);
    assert_eq!(p.methods[0].name, "forward");
    assert!(
        !kinds(&p).contains(&"program_unmatched"),
        "{:?}",
        p.warnings
    );
    let cast = p.methods[0]
        .other_operators
        .iter()
        .find(|o| o.instruction_id == 22)
        .unwrap();
    assert!(cast
        .kernels
        .iter()
        .any(|k| k.name == "native_call__to_dim_order_copy.out"));
    // 28 kernels, each with its OPERATOR_CALL, and Method::execute.
    assert_eq!(rows_are_the_inspectors("attn_dimorder", &p), 57);
}

/// The Inspector lists ops outside the edge dialect by `__name__`: the mask's
/// `torch.ops.aten.scalar_tensor.default` is `scalar_tensor.default` (instruction 16),
/// a dialect op of another namespace keeps it (`dim_order_ops._to_dim_order_copy.default`).
#[test]
fn op_types_outside_the_edge_dialect_are_the_inspectors() {
    let p = wild("attn_dimorder");
    let golden = json(&format!("{DIR}/attn_dimorder.inspector.json"));
    let of = |instr: i32| -> Vec<String> {
        p.methods[0]
            .other_operators
            .iter()
            .find(|o| o.instruction_id == instr)
            .and_then(|o| o.source.as_ref())
            .unwrap()
            .op_types
            .clone()
    };
    let theirs = |instr: i64| -> Vec<String> {
        let block = execute_blocks(&golden)[0];
        let ev = block["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["instruction_id"] == instr && e["event_name"] == "OPERATOR_CALL")
            .unwrap();
        strs(&ev["op_types"])
    };
    assert_eq!(of(16), ["scalar_tensor.default", "aten.where.self"]);
    assert_eq!(of(16), theirs(16));
    assert_eq!(of(22), ["dim_order_ops._to_dim_order_copy.default"]);
    assert_eq!(of(22), theirs(22));
}

/// timm's test_efficientnet on XNNPACK: every row is the Inspector's.
#[test]
fn a_timm_model_on_xnnpack_is_the_inspectors() {
    let p = wild("timm_effnet");
    assert_eq!(p.methods.len(), 1);
    assert_eq!(p.methods[0].name, "forward");
    assert!(
        !kinds(&p).contains(&"program_unmatched"),
        "{:?}",
        p.warnings
    );
    let golden = json(&format!("{DIR}/timm_effnet.inspector.json"));
    let events = execute_blocks(&golden)[0]["events"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(rows_are_the_inspectors("timm_effnet", &p), events);
}

/// const_methods: three constant methods (runs of Method::execute alone, one group, as
/// the Inspector makes one block of them), then prefill and decode, each method loaded
/// just before its first run (`run.json` lists every block with its method).
#[test]
fn constant_methods_are_named_and_each_method_has_its_load() {
    let p = wild("const_methods");
    let run = json(&format!("{DIR}/const_methods.run.json"));
    let program: Vec<String> = strs(&run["program_methods"]);
    let constants: Vec<String> = run["constant_methods"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    // Constant methods are named together, in the program's order.
    let constant_group: Vec<&str> = program
        .iter()
        .filter(|m| constants.contains(m))
        .map(String::as_str)
        .collect();
    let blocks = run["blocks"].as_array().unwrap();
    let method_of = |b: &Value| b["method"].as_str().unwrap().to_string();
    let group_of = |m: &str| -> String {
        if constants.iter().any(|c| c == m) {
            constant_group.join(" + ")
        } else {
            m.to_string()
        }
    };
    // The groups in the order they first ran, with their runs.
    let mut expected: Vec<(String, usize)> = Vec::new();
    for b in blocks.iter().filter(|b| b["name"] == "Execute") {
        let g = group_of(&method_of(b));
        match expected.iter_mut().find(|(n, _)| *n == g) {
            Some(e) => e.1 += 1,
            None => expected.push((g, 1)),
        }
    }
    let got: Vec<(String, usize)> = p
        .methods
        .iter()
        .map(|m| (m.name.clone(), m.runs.total))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(
        expected[0].0,
        "get_max_seq_len + use_kv_cache + get_vocab_size"
    );
    for k in ["program_unmatched", "etrecord_unmatched"] {
        assert!(!kinds(&p).contains(&k), "{k}: {:?}", p.warnings);
    }
    // The Inspector's one Default block holds every load's Method::init, in order.
    let golden = json(&format!("{DIR}/const_methods.inspector.json"));
    let default = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Default")
        .unwrap();
    let inits: Vec<f64> = default["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event_name"] == "Method::init")
        .unwrap()["raw_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let loads: Vec<&Value> = blocks.iter().filter(|b| b["name"] == "Default").collect();
    assert_eq!(p.loads.len(), loads.len());
    // A group's load: that of the method its first run ran.
    for m in &p.methods {
        let first = blocks
            .iter()
            .find(|b| b["name"] == "Execute" && group_of(&method_of(b)) == m.name)
            .unwrap();
        let k = loads
            .iter()
            .position(|b| method_of(b) == method_of(first))
            .unwrap();
        let init = m
            .load
            .and_then(|l| l.method_init)
            .unwrap_or_else(|| panic!("{}: no load", m.name));
        assert!(
            close(init, inits[k], 1e-9) || (init - inits[k]).abs() <= 1e-8,
            "{}: Method::init {init} vs the load of {} {}",
            m.name,
            method_of(first),
            inits[k]
        );
    }
    rows_are_the_inspectors("const_methods", &p);
}

/// cond_branches: the runs of `forward` through each branch of its `torch.cond` are two
/// groups (two blocks of the Inspector), named apart in the order they first ran; the
/// method's one load is the first branch's.
#[test]
fn cond_branches_are_told_apart() {
    let p = wild("cond_branches");
    let run = json(&format!("{DIR}/cond_branches.run.json"));
    let branches = strs(&run["execute_branches"]);
    let first = &branches[0];
    let firsts = branches.iter().filter(|b| *b == first).count();
    let got: Vec<(&str, usize)> = p
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.runs.total))
        .collect();
    assert_eq!(
        got,
        [
            ("forward · branch 1 of 2", firsts),
            ("forward · branch 2 of 2", branches.len() - firsts)
        ]
    );
    assert!(p.methods[0].load.is_some());
    assert!(p.methods[1].load.is_none());
    // Both branches take their sources from forward's ETRecord method.
    assert!(
        !kinds(&p).contains(&"etrecord_unmatched"),
        "{:?}",
        p.warnings
    );
    let golden = json(&format!("{DIR}/cond_branches.inspector.json"));
    let events: usize = execute_blocks(&golden)
        .iter()
        .map(|b| b["events"].as_array().unwrap().len())
        .sum();
    assert_eq!(rows_are_the_inspectors("cond_branches", &p), events);
}

/// The Inspector cannot read const_methods' ETRecord (`KeyError: 'forward'`, in
/// `run.json`): prefill's and decode's rows against the ETRecord's own JSON
/// (`const_methods.truth.json`, `scripts/etrecord_truth.py`): every delegate call and
/// kernel has the handles, nodes and op types the ETRecord maps its instruction to.
#[test]
fn methods_the_inspector_cannot_read_get_their_sources() {
    let run = json(&format!("{DIR}/const_methods.run.json"));
    assert!(run["inspector_with_etrecord"]
        .as_str()
        .unwrap()
        .contains("KeyError"));
    let truth = json(&format!("{DIR}/const_methods.truth.json"));
    let p = wild("const_methods");
    let mut checked = 0;
    for method in ["prefill", "decode"] {
        let m = p.methods.iter().find(|m| m.name == method).unwrap();
        let rows = m
            .delegates
            .iter()
            .map(|d| (d.instruction_id, d.source.as_ref()))
            .chain(
                m.other_operators
                    .iter()
                    .map(|o| (o.instruction_id, o.source.as_ref())),
            );
        for (instr, source) in rows {
            let t = &truth["methods"][method]["instructions"][instr.to_string()];
            assert!(!t.is_null(), "{method}: no truth for {instr}");
            let s = source.unwrap_or_else(|| panic!("{method} {instr}: no source"));
            assert_eq!(s.debug_handles, handles(&t["handles"]), "{method} {instr}");
            let nodes = t["nodes"].as_array().unwrap();
            let field = |k: &str| -> Vec<String> {
                nodes
                    .iter()
                    .map(|n| n[k].as_str().unwrap().to_string())
                    .collect()
            };
            assert_eq!(s.nodes, field("name"), "{method} {instr}");
            assert_eq!(s.op_types, field("op_type"), "{method} {instr}");
            checked += 1;
        }
    }
    // prefill: a delegate and cumsum; decode: a delegate, the cast and the sum.
    assert_eq!(checked, 5);
}

/// The groups of one method without a conditional jump are told apart by their bundled
/// inputs when each has its own, else by their order: cond_branches' two groups named
/// again from its program with the jumps made moves.
#[test]
fn groups_of_one_method_without_branches_are_told_apart_otherwise() {
    use cpuprof_tui::program::{parse, Instruction};
    let bytes = std::fs::read(common::fixture(&format!("{DIR}/cond_branches.pte"))).unwrap();
    let mut program = parse(&bytes).unwrap();
    assert_eq!(program.methods.len(), 1);
    for i in &mut program.methods[0].instructions {
        if *i == Instruction::JumpFalse {
            *i = Instruction::Move;
        }
    }
    let unnamed = || {
        let mut p = wild("cond_branches");
        for (k, m) in p.methods.iter_mut().enumerate() {
            m.name = format!("method {}", k + 1);
        }
        p
    };
    let names = |p: &Profile| -> Vec<String> { p.methods.iter().map(|m| m.name.clone()).collect() };
    let mut p = unnamed();
    cpuprof_tui::profile::source::name_methods(&mut p, &program, "x.pte");
    assert_eq!(
        names(&p),
        ["forward · group 1 of 2", "forward · group 2 of 2"]
    );
    let mut p = unnamed();
    p.methods[0].bundled_input_index = Some(4);
    p.methods[1].bundled_input_index = Some(7);
    cpuprof_tui::profile::source::name_methods(&mut p, &program, "x.pte");
    assert_eq!(
        names(&p),
        ["forward · bundled input 4", "forward · bundled input 7"]
    );
}
