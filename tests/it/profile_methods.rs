//! A real two-method ETDump (executorch 1.5.1, `fixtures/real/two_method.*`, made by
//! `scripts/make_two_method.py`) against the Inspector's event blocks: one method profile
//! per block, with the Inspector's sample counts and medians.

use crate::common;

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
                close(s.median(), median, 1e-9) || (s.median() - median).abs() < 1e-9,
                "{}: {name} median {} vs Inspector {median}",
                m.name,
                s.median()
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

/// Inspector's samples of `name` in Execute block `k` (ms).
fn inspector_raw(golden: &serde_json::Value, k: usize, name: &str) -> Vec<f64> {
    let blocks: Vec<&serde_json::Value> = golden["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["name"] == "Execute")
        .collect();
    blocks[k]["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event_name"] == name)
        .unwrap_or_else(|| panic!("block {k} has no {name}"))["raw_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

/// The row tree has one method row per method, every path starting with its method, and
/// compare pairs encode with encode: the dump against itself is `same` everywhere with
/// the Inspector's counts and medians on the method rows.
#[test]
fn compare_matches_the_methods_of_a_two_method_dump() {
    use cpuprof_tui::compare::{compare, CompareOptions, Verdict};
    use cpuprof_tui::rows::{RowKind, RowTree};
    let golden = json("real/two_method.inspector.json");
    let p = load("real/two_method.etdp", None, 0);
    let t = RowTree::from_profile(&p);
    let roots: Vec<&str> = t.roots.iter().map(|&r| t.rows[r].name.as_str()).collect();
    assert_eq!(roots, ["method 1", "method 2"]);
    for i in 0..t.rows.len() {
        let path = t.path(i);
        assert!(path[0] == "method 1" || path[0] == "method 2", "{path:?}");
    }
    // The cumsum kernel is decode's (method 2) only.
    let cumsum: Vec<String> = (0..t.rows.len())
        .filter(|&i| t.rows[i].name.contains("cumsum"))
        .map(|i| t.path(i).swap_remove(0))
        .collect();
    assert!(
        !cumsum.is_empty() && cumsum.iter().all(|m| m == "method 2"),
        "{cumsum:?}"
    );
    let c = compare(&t, &t, &CompareOptions::default());
    assert!(
        c.rows.iter().all(|r| r.verdict == Verdict::Same),
        "{:?}",
        c.summary
    );
    let methods: Vec<_> = c
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Method)
        .collect();
    assert_eq!(methods.len(), 2);
    for (k, count) in [(0, 12), (1, 16)] {
        let m = methods[k];
        assert_eq!(inspector_raw(&golden, k, "Method::execute").len(), count);
        let a = m.a.as_ref().unwrap();
        let b = m.b.as_ref().unwrap();
        assert_eq!((a.count, b.count), (count, count), "{}", m.name);
        let inspector_median = golden["event_blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["name"] == "Execute")
            .nth(k)
            .unwrap()["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["event_name"] == "Method::execute")
            .unwrap()["median_ms"]
            .as_f64()
            .unwrap();
        assert!(
            (a.median() - inspector_median).abs() < 1e-9,
            "{} {}",
            a.median(),
            inspector_median
        );
    }

    // Renamed methods (a log named them) in the other order still pair by signature:
    // encode (one delegate) with method 1, decode (delegate + cumsum) with method 2.
    let mut b = t.clone();
    for (&r, name) in t.roots.iter().zip(["encode", "decode"]) {
        b.rows[r].name = name.to_string();
    }
    b.roots.reverse();
    let c = compare(&t, &b, &CompareOptions::default());
    assert_eq!(
        (c.summary.added, c.summary.removed),
        (0, 0),
        "{:?}",
        c.summary
    );
    let pairs: Vec<(usize, usize)> = c
        .rows
        .iter()
        .filter(|r| r.kind == RowKind::Method)
        .map(|r| (r.a.as_ref().unwrap().count, r.b.as_ref().unwrap().count))
        .collect();
    assert_eq!(pairs, [(12, 12), (16, 16)]);
    assert!(c.rows.iter().all(|r| r.verdict == Verdict::Same));
}

/// Export: one chrome process per method and a method frame at the root of folded
/// stacks; the counts per method are the Inspector's blocks (encode 12 runs, decode 16),
/// and each method's folded stacks add up to its `Method::execute` total (the Inspector's
/// raw samples, whole ns).
#[test]
fn export_writes_each_method_apart() {
    use cpuprof_tui::profile::ProfileRequest;
    use cpuprof_tui::report::export::select_runs;
    use cpuprof_tui::report::{chrome, folded};
    let golden = json("real/two_method.inspector.json");
    let request = ProfileRequest::new(common::fixture("real/two_method.etdp"), None, 0);
    let tl = cpuprof_tui::timeline::load_dump_timeline(
        &request,
        false,
        &cpuprof_tui::profile::RunSelection::all(),
    )
    .unwrap();
    assert_eq!(tl.methods, ["method 1", "method 2"]);
    let runs = select_runs(&tl, None, false);
    let mut out = Vec::new();
    chrome::write_dump_chrome(&mut out, &tl, &runs, "two_method.etdp").unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    let count = |pid: u64, name: &str| {
        events
            .iter()
            .filter(|e| e["ph"] == "X" && e["pid"] == pid && e["name"] == name)
            .count()
    };
    let gemm = "Fully Connected (NC, F32) GEMM #1";
    assert_eq!(
        (count(1, "Method::execute"), count(2, "Method::execute")),
        (12, 16)
    );
    assert_eq!((count(1, gemm), count(2, gemm)), (12, 16));
    let cumsum = inspector_raw(&golden, 1, "native_call_cumsum.out").len();
    assert_eq!(cumsum, 16);
    assert_eq!(count(2, "native_call_cumsum.out"), 16);
    assert_eq!(count(1, "native_call_cumsum.out"), 0);
    let process = |pid: u64| {
        events
            .iter()
            .find(|e| e["ph"] == "M" && e["pid"] == pid && e["name"] == "process_name")
            .map(|e| e["args"]["name"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(process(1), "ETDump two_method.etdp · method 1");
    assert_eq!(process(2), "ETDump two_method.etdp · method 2");
    assert_eq!(
        v["otherData"]["methods"],
        serde_json::json!(["method 1", "method 2"])
    );

    let mut out = Vec::new();
    folded::write_dump_folded(&mut out, &tl, &runs).unwrap();
    let text = String::from_utf8(out).unwrap();
    let total = |m: &str| -> u64 {
        text.lines()
            .filter(|l| l.starts_with(&format!("{m};")))
            .map(|l| l.rsplit_once(' ').unwrap().1.parse::<u64>().unwrap())
            .sum()
    };
    assert!(
        text.lines()
            .all(|l| l.starts_with("method 1;") || l.starts_with("method 2;")),
        "{text}"
    );
    for (k, m) in ["method 1", "method 2"].into_iter().enumerate() {
        let ns: u64 = inspector_raw(&golden, k, "Method::execute")
            .iter()
            .map(|ms| (ms * 1e6).round() as u64)
            .sum();
        assert_eq!(total(m), ns, "{m}");
    }

    // One warm-up run is dropped per method: 11 and 15 kept.
    let request = ProfileRequest::new(common::fixture("real/two_method.etdp"), None, 1);
    let tl = cpuprof_tui::timeline::load_dump_timeline(
        &request,
        false,
        &cpuprof_tui::profile::RunSelection::all(),
    )
    .unwrap();
    let kept = |m: usize| tl.kept_runs().filter(|r| r.method == m).count();
    assert_eq!((kept(0), kept(1)), (11, 15));

    // `--warmup auto`: each method's own cold runs (hand-computed in
    // tests/it/profile_warmup.rs from the Inspector's samples: encode 3, decode 1).
    let request = ProfileRequest::new(common::fixture("real/two_method.etdp"), None, 0)
        .with_warmup(cpuprof_tui::profile::warmup::Warmup::Auto);
    let tl = cpuprof_tui::timeline::load_dump_timeline(
        &request,
        false,
        &cpuprof_tui::profile::RunSelection::all(),
    )
    .unwrap();
    let dropped = |m: usize| tl.runs.iter().filter(|r| r.method == m && r.warmup).count();
    assert_eq!((dropped(0), dropped(1)), (3, 1));
    // The dropped runs are each method's first ones.
    for m in 0..2 {
        let flags: Vec<bool> = tl
            .runs
            .iter()
            .filter(|r| r.method == m)
            .map(|r| r.warmup)
            .collect();
        assert!(flags.windows(2).all(|w| w[0] || !w[1]), "{flags:?}");
    }
}

/// An operator's delegate in words comes from its place (the method and the instruction
/// id of the row it shows), not from its short label read back: `delegate m2 #I` in the
/// second method of two; a type group over several delegates lists them.
#[test]
fn an_operators_delegate_is_named_from_its_place() {
    let p = load("real/two_method.etdp", None, 0);
    let d = cpuprof_tui::app::ExplorerData::from_profile(&p);
    let tree = d.rows.as_ref().unwrap();
    let mut seen = 0;
    for op in &d.ops {
        let node = &d.nodes[op.node];
        let Some(row) = node.row else { continue };
        let Some(id) = tree.rows[row].instruction_id else {
            continue;
        };
        // The method: the root above the node.
        let mut at = op.node;
        while let Some(p) = d.nodes[at].parent {
            at = p;
        }
        let method = d.roots.iter().position(|&r| r == at).unwrap() + 1;
        if op.scope.is_some() {
            assert_eq!(d.delegate_text(op), format!("delegate m{method} #{id}"));
            seen += 1;
        }
    }
    assert!(seen > 0, "no delegated operator");
    let p = load("real/multi_delegate.etdp", None, 0);
    let d = cpuprof_tui::app::ExplorerData::from_profile(&p);
    let spread: Vec<String> = d
        .groups
        .iter()
        .filter(|g| g.scope.is_none() && g.delegate != "-")
        .map(|g| d.delegate_text(g))
        .collect();
    assert!(!spread.is_empty(), "no type group spans delegates");
    for text in spread {
        assert!(text.starts_with("delegates d"), "{text}");
        assert!(!text.contains('#'), "{text}");
    }
}
