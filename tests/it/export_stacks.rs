//! Folded and Chrome exports keep apart what the explorer's tree keeps apart: on every
//! real dump and every CpuBackend truth case, the stacks with self time are exactly the
//! tree's rows with self time, named as the tree names them (`delegate #I`, the
//! instruction of an `OPERATOR_CALL`), and the values add up.
//!
//! The expected rows and their self times are computed from the profile's own rows (the
//! numbers the Inspector goldens and truth files check), not from the timeline: a row's
//! self time is its total over the kept runs minus its children's totals (the method's
//! minus its delegates and other instructions, a delegate call's minus its steps,
//! operators and unattributed events, a step's minus its operators, an `OPERATOR_CALL`'s
//! minus its kernels).

use crate::common;

use std::collections::BTreeMap;

use cpuprof_tui::profile::{MethodProfile, Profile, ProfileRequest, Stats};
use cpuprof_tui::report::{chrome, export::select_runs, folded};

fn ns(s: &Stats) -> i64 {
    s.samples.ns().iter().sum()
}

/// Run index -> sample (ns) of one row (`Stats::runs`, or warm-up + i when every kept
/// run has a sample).
fn per_run(s: &Stats, warmup: usize) -> BTreeMap<usize, i64> {
    s.samples
        .ns()
        .iter()
        .enumerate()
        .map(|(i, &ns)| {
            let run = s.runs.get(i).copied().unwrap_or(warmup + i);
            (run, ns)
        })
        .collect()
}

/// Self time of a row over its runs: in each run it has a sample, its sample minus its
/// children's samples in that run. Children in runs where the row has no sample (an
/// operator whose step event was lost in that run) are returned, per run, for the
/// row's parent to subtract.
fn self_per_run(
    row: &BTreeMap<usize, i64>,
    children: &[BTreeMap<usize, i64>],
) -> (i64, BTreeMap<usize, i64>) {
    let mut own = 0;
    let mut orphans: BTreeMap<usize, i64> = BTreeMap::new();
    for (&r, &v) in row {
        own += v - children.iter().filter_map(|c| c.get(&r)).sum::<i64>();
    }
    for c in children {
        for (&r, &v) in c {
            if !row.contains_key(&r) {
                *orphans.entry(r).or_insert(0) += v;
            }
        }
    }
    (own, orphans)
}

/// Stack text -> self time (ns) of every tree row of one method, under `prefix`.
fn tree_rows(
    m: &MethodProfile,
    prefix: &str,
    out: &mut BTreeMap<String, i64>,
    duplicates: &mut usize,
) {
    let w = m.runs.warmup_dropped;
    let mut put = |stack: String, v: i64| {
        if out.insert(stack, v).is_some() {
            *duplicates += 1;
        }
    };
    let root = format!("{prefix}Method::execute");
    let mut method_children = Vec::new();
    for d in &m.delegates {
        let dn = format!("{root};delegate #{}", d.instruction_id);
        let call = per_run(&d.call, w);
        method_children.push(call.clone());
        let mut inner = Vec::new();
        for s in &d.steps {
            let sn = format!("{dn};{}", s.name);
            let step = per_run(&s.stats, w);
            let ops: Vec<_> = s.operators.iter().map(|o| per_run(&o.stats, w)).collect();
            let (own, orphans) = self_per_run(&step, &ops);
            put(sn.clone(), own);
            inner.push(step);
            inner.push(orphans);
            for o in &s.operators {
                put(format!("{sn};{}", o.name), ns(&o.stats));
            }
        }
        for o in &d.operators {
            inner.push(per_run(&o.stats, w));
            put(format!("{dn};{}", o.name), ns(&o.stats));
        }
        for u in &d.unattributed {
            inner.push(per_run(&u.stats, w));
            put(format!("{dn};{}", u.name), ns(&u.stats));
        }
        put(dn, self_per_run(&call, &inner).0);
    }
    for o in &m.other_operators {
        let total = per_run(&o.stats, w);
        method_children.push(total.clone());
        if o.kernels.is_empty() {
            put(format!("{root};{}", o.name), ns(&o.stats));
            continue;
        }
        // The tree names this row after its kernel, with its instruction; the frame is
        // the instruction's OPERATOR_CALL.
        let on = format!("{root};OPERATOR_CALL #{}", o.instruction_id);
        let kernels: Vec<_> = o.kernels.iter().map(|k| per_run(&k.stats, w)).collect();
        put(on.clone(), self_per_run(&total, &kernels).0);
        for k in &o.kernels {
            put(format!("{on};{}", k.name), ns(&k.stats));
        }
    }
    let method = m.method.as_ref().map(|s| per_run(s, w)).unwrap_or_default();
    put(root, self_per_run(&method, &method_children).0);
}

fn check(dump: &str, log: Option<&str>, warmup: usize) {
    let p: Profile = common::load(dump, log, warmup);
    let mut expected = BTreeMap::new();
    let mut duplicates = 0;
    if p.methods.len() > 1 {
        for m in &p.methods {
            tree_rows(m, &format!("{};", m.name), &mut expected, &mut duplicates);
        }
    } else {
        tree_rows(&p.methods[0], "", &mut expected, &mut duplicates);
    }
    let with_self: BTreeMap<&String, i64> = expected
        .iter()
        .filter(|(_, &v)| v > 0)
        .map(|(k, &v)| (k, v))
        .collect();

    let request = ProfileRequest::new(common::fixture(dump), log.map(common::fixture), warmup);
    let tl = cpuprof_tui::timeline::load_dump_timeline(
        &request,
        false,
        &cpuprof_tui::profile::RunSelection::all(),
    )
    .unwrap();
    let runs = select_runs(&tl, None, false);
    let mut out = Vec::new();
    folded::write_dump_folded(&mut out, &tl, &runs).unwrap();
    let text = String::from_utf8(out).unwrap();
    let stacks: BTreeMap<String, i64> = text
        .lines()
        .map(|l| {
            let (s, v) = l.rsplit_once(' ').unwrap();
            (s.to_string(), v.parse().unwrap())
        })
        .collect();
    assert_eq!(
        stacks.len(),
        text.lines().count(),
        "{dump}: one line per stack"
    );
    // The same number of stacks with self time as tree rows with self time, and the same
    // stacks.
    assert_eq!(duplicates, 0, "{dump}: two tree rows with one path");
    assert_eq!(
        stacks.len(),
        with_self.len(),
        "{dump}: stacks {:#?}\nrows {:#?}",
        stacks.keys().collect::<Vec<_>>(),
        with_self.keys().collect::<Vec<_>>()
    );
    for k in with_self.keys() {
        assert!(stacks.contains_key(*k), "{dump}: no stack {k}");
    }
    // Values add up exactly to Method::execute over the kept runs.
    let method: i64 = p
        .methods
        .iter()
        .filter_map(|m| m.method.as_ref())
        .map(ns)
        .sum();
    assert_eq!(stacks.values().sum::<i64>(), method, "{dump}: total");
    // Where every child lies inside its parent (real dumps: XNNPACK operators are
    // contiguous inside their call), each stack's value is the row's self time.
    if dump.starts_with("real/") {
        for (k, &v) in &with_self {
            assert_eq!(stacks[*k], v, "{dump}: {k}");
        }
    }

    // Chrome: the events carry the same names; distinct (name path) stacks with self
    // time, rebuilt from the main-track nesting, equal the folded ones.
    let mut out = Vec::new();
    chrome::write_dump_chrome(&mut out, &tl, &runs, dump).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let names: std::collections::BTreeSet<String> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect();
    for k in with_self.keys() {
        let leaf = k.rsplit(';').next().unwrap();
        assert!(
            names.contains(leaf),
            "{dump}: chrome has no event named {leaf}"
        );
    }
    let leaves = |n: &str| {
        with_self
            .keys()
            .filter(|k| k.rsplit(';').next() == Some(n))
            .count()
    };
    // Delegate calls and instruction scopes are named apart in Chrome too (within one
    // method: each method is a process of its own).
    for n in names.iter().filter(|_| p.methods.len() == 1) {
        if n.starts_with("delegate #") || n.starts_with("OPERATOR_CALL #") {
            assert!(leaves(n) <= 1, "{dump}: {n}");
        }
    }
    assert!(!names.contains("DELEGATE_CALL"), "{dump}");
}

#[test]
fn real_dumps_export_one_stack_per_tree_row() {
    for dump in [
        "real/mlp_xnnpack.etdp",
        "real/cnn_portable.etdp",
        "real/mlp_portable_debugbuf.etdp",
        "real/two_method.etdp",
        "real/multi_delegate.etdp",
    ] {
        check(dump, None, 0);
    }
}

/// The multi-delegate dump by name: four delegates with the same operator names and four
/// `native_call_cumsum.out` instructions are eight stacks, not two.
#[test]
fn same_named_operators_of_different_delegates_are_different_stacks() {
    let request = ProfileRequest::new(common::fixture("real/multi_delegate.etdp"), None, 0);
    let tl = cpuprof_tui::timeline::load_dump_timeline(
        &request,
        false,
        &cpuprof_tui::profile::RunSelection::all(),
    )
    .unwrap();
    let runs = select_runs(&tl, None, false);
    let mut out = Vec::new();
    folded::write_dump_folded(&mut out, &tl, &runs).unwrap();
    let text = String::from_utf8(out).unwrap();
    let gemm: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("Fully Connected (NC, F32) GEMM #1 "))
        .collect();
    // The Inspector golden: GEMM #1 at instructions 5, 7, 9, 11, each nonzero.
    let stacks: Vec<String> = gemm
        .iter()
        .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
        .collect();
    let mut stacks = stacks;
    stacks.sort_by_key(|s| s.len());
    assert_eq!(
        stacks,
        [5, 7, 9, 11]
            .map(|i| format!("Method::execute;delegate #{i};Fully Connected (NC, F32) GEMM #1"))
    );
    let cumsum: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("native_call_cumsum.out"))
        .map(|l| l.rsplit_once(' ').unwrap().0)
        .collect();
    let mut cumsum = cumsum;
    cumsum.sort_by_key(|s| s.len());
    assert_eq!(
        cumsum,
        [6, 8, 10, 12]
            .map(|i| format!("Method::execute;OPERATOR_CALL #{i};native_call_cumsum.out"))
    );
}

#[test]
fn truth_cases_export_one_stack_per_tree_row() {
    for case in common::TRUTH_CASES {
        let truth = common::json(&format!("{case}.truth.json"));
        let w = truth["warmup"].as_u64().unwrap() as usize;
        check(&format!("{case}.etdp"), Some(&format!("{case}.log")), w);
    }
}

/// Traces: the stacks with self time are the call tree's nodes with self time (one tree
/// per thread: with several threads each stack starts with its thread, as the explorer's
/// tree roots do), and the values add up to the top-level calls.
#[test]
fn trace_exports_one_stack_per_call_tree_node() {
    use cpuprof_tui::trace::{load_trace, CallNode};
    fn walk(n: &CallNode, prefix: &str, out: &mut BTreeMap<String, i64>) {
        let path = if prefix.is_empty() {
            n.name.to_string()
        } else {
            format!("{prefix};{}", n.name)
        };
        if n.self_ns > 0 {
            out.insert(path.replace(['\n', '\r'], " "), n.self_ns);
        }
        for c in &n.children {
            walk(c, &path, out);
        }
    }
    for file in [
        "torch/cnn_infer.json",
        "torch/cnn_train.json.gz",
        "torch/recursive_steps.json",
    ] {
        let path = common::fixture(file);
        let p = load_trace(&path).unwrap();
        let mut expected = BTreeMap::new();
        let several = p.call_trees.len() > 1;
        for t in &p.call_trees {
            let prefix = if several {
                format!("thread {}", t.thread.tid)
            } else {
                String::new()
            };
            for r in &t.roots {
                walk(r, &prefix, &mut expected);
            }
        }
        let tt = cpuprof_tui::timeline::load_trace_timeline(
            &path,
            cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE,
        )
        .unwrap();
        let mut out = Vec::new();
        folded::write_trace_folded(&mut out, &tt).unwrap();
        let text = String::from_utf8(out).unwrap();
        let stacks: BTreeMap<String, i64> = text
            .lines()
            .map(|l| {
                let (s, v) = l.rsplit_once(' ').unwrap();
                (s.to_string(), v.parse().unwrap())
            })
            .collect();
        assert_eq!(
            stacks.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{file}"
        );
        let top: i64 = p
            .call_trees
            .iter()
            .flat_map(|t| &t.roots)
            .map(|r| r.inclusive_ns)
            .sum();
        assert_eq!(stacks.values().sum::<i64>(), top, "{file}");
    }
}
