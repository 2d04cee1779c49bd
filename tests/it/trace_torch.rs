//! torch.profiler fixtures (real Chrome traces): per-name calls, inclusive and self time
//! against PyTorch's own `key_averages()` export.

use std::path::Path;

use cpuprof_tui::trace::{load_trace, CallNode, TraceFormat, TraceProfile};

const DIR: &str = "fixtures/torch";
/// 0.05 µs per call, in ns.
const TOL_PER_CALL_NS: f64 = 50.0;

struct KeyAvg {
    name: String,
    count: u64,
    self_ns: f64,
    total_ns: f64,
}

fn key_averages(stem: &str) -> Vec<KeyAvg> {
    let text =
        std::fs::read_to_string(Path::new(DIR).join(format!("{stem}.key_averages.json"))).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| KeyAvg {
            name: e["name"].as_str().unwrap().to_string(),
            count: e["count"].as_u64().unwrap(),
            self_ns: e["self_cpu_time_total_us"].as_f64().unwrap() * 1000.0,
            total_ns: e["cpu_time_total_us"].as_f64().unwrap() * 1000.0,
        })
        .collect()
}

/// Inclusive time and calls of `name` calls whose parent is also `name` in the call
/// tree (PyTorch's aggregate, and ours, merge such a pair into one call).
fn nested_same_name(nodes: &[CallNode], parent: Option<&str>, name: &str) -> (i64, u64) {
    let mut acc = (0, 0);
    for n in nodes {
        if &*n.name == name && parent == Some(name) {
            acc.0 += n.inclusive_ns;
            acc.1 += n.calls;
        }
        let (t, c) = nested_same_name(&n.children, Some(&n.name), name);
        acc.0 += t;
        acc.1 += c;
    }
    acc
}

/// `merged`: the names PyTorch's aggregate merges (a call whose only child has the same
/// name counts once). The fixture README documents `aten::div_`; the training trace also
/// nests `aten::sum` and `aten::div` (backward of the mean) the same way.
fn check(file: &str, stem: &str, merged: &[&str]) -> TraceProfile {
    let p = load_trace(&Path::new(DIR).join(file)).unwrap();
    assert_eq!(p.format, TraceFormat::ChromeJson);
    let ka = key_averages(stem);
    assert_eq!(p.ops.len(), ka.len(), "same set of names");
    let mut seen_merged = Vec::new();
    for k in &ka {
        let op = p
            .op(&k.name)
            .unwrap_or_else(|| panic!("{file}: missing {}", k.name));
        let tol = TOL_PER_CALL_NS * op.calls as f64;
        // Calls and times equal PyTorch's own aggregate, merged pairs included.
        let (incl, calls) = (op.inclusive_total_ns as f64, op.calls);
        let inner_calls = p
            .call_trees
            .iter()
            .map(|t| nested_same_name(&t.roots, None, &k.name).1)
            .sum::<u64>();
        if inner_calls > 0 {
            seen_merged.push(k.name.as_str());
        }
        assert_eq!(calls, k.count, "{file}: calls of {}", k.name);
        assert!(
            (incl - k.total_ns).abs() <= tol,
            "{file}: inclusive of {}: {incl} vs {}",
            k.name,
            k.total_ns
        );
        let self_ns = op.self_total_ns as f64;
        assert!(
            (self_ns - k.self_ns).abs() <= tol,
            "{file}: self of {}: {self_ns} vs {}",
            k.name,
            k.self_ns
        );
    }
    seen_merged.sort_unstable();
    assert_eq!(seen_merged, merged, "{file}: same-name nesting");
    assert!(p.unterminated.is_empty());
    p
}

#[test]
fn inference_trace_matches_key_averages() {
    let p = check("cnn_infer.json", "cnn_infer", &["aten::div_"]);
    // 10 aten::div_ events in the trace (each outer call holds one inner call): 5 calls,
    // as in key_averages.
    assert_eq!(p.op("aten::div_").unwrap().calls, 5);
    assert_eq!(p.counts.op_events, 225);
    assert_eq!(p.threads.len(), 1);
    assert_eq!(p.threads[0].key.host.as_deref(), Some("vm"));
    assert_eq!((p.threads[0].key.pid, p.threads[0].key.tid), (21953, 21953));
    // Hand-checked against the JSON: linear 32 -> 10 on a batch of 2 is addmm(bias [10],
    // input [2, 32], weight^T [32, 10], beta, alpha), the same in all 5 iterations.
    let addmm = p.op("aten::addmm").unwrap();
    assert_eq!(
        addmm.input_shapes,
        Some(vec![vec![
            vec![10],
            vec![2, 32],
            vec![32, 10],
            vec![],
            vec![]
        ]])
    );
    let types = ["float", "float", "float", "Scalar", "Scalar"]
        .map(String::from)
        .to_vec();
    assert_eq!(addmm.dtypes, Some(vec![types]));
    // conv 3 -> 16 on 2x3x32x32, then conv 16 -> 32 on the 15x15 max-pooled map.
    let conv = p.op("aten::conv2d").unwrap();
    let shapes = conv.input_shapes.as_ref().unwrap();
    assert_eq!(shapes.len(), 2);
    assert_eq!(
        shapes[0][..3],
        [vec![2, 3, 32, 32], vec![16, 3, 3, 3], vec![16]]
    );
    assert_eq!(
        shapes[1][..3],
        [vec![2, 16, 15, 15], vec![32, 16, 3, 3], vec![32]]
    );
    // The user_annotation ranges are the roots; every op sits under one.
    let tree = &p.call_trees[0];
    assert_eq!(tree.roots.len(), 1);
    assert_eq!(
        (&*tree.roots[0].name, tree.roots[0].calls),
        ("iteration", 5)
    );
    assert_eq!(p.op("iteration").unwrap().stats.samples.len(), 5);
}

#[test]
fn gzipped_training_trace_matches_key_averages() {
    let p = check(
        "cnn_train.json.gz",
        "cnn_train",
        &["aten::div", "aten::div_", "aten::sum"],
    );
    // div_ inside div_: the trace's 6 events are PyTorch's 3 calls.
    assert_eq!(p.op("aten::div_").unwrap().calls, 3);
    assert!(p
        .ops
        .iter()
        .any(|o| o.name.contains("ConvolutionBackward0")));
}

/// The ignored events are listed by kind. Counted independently with python over
/// `traceEvents` (everything but ph "X" with cat cpu_op/user_annotation):
/// {('M', None): 8, ('i', None): 2, ('X', 'Trace'): 1}.
#[test]
fn ignored_event_kinds_are_listed() {
    let p = load_trace(&Path::new(DIR).join("cnn_infer.json")).unwrap();
    let w = p
        .warnings
        .iter()
        .find(|w| w.kind == "ignored_events")
        .expect("an ignored_events warning");
    assert_eq!(
        w.message,
        "11 events of other phases/categories ignored: 8 × ph \"M\" cat none, 2 × ph \"i\" cat none, 1 × ph \"X\" cat \"Trace\""
    );
}

/// A call nested (not as an only child) in a call of the same op: a call of its own,
/// counted with its whole duration in the inclusive total as `key_averages()` counts it;
/// the recursion-free time is its own field. By hand: aten::sum [0, 100 µs] holds
/// aten::sum [10, 40] and aten::add [50, 70]: sum has 2 calls, inclusive 100 + 30 = 130
/// µs, recursion-free 100 µs, self (100 - 30 - 20) + 30 = 80 µs.
#[test]
fn nested_same_op_counts_as_key_averages_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested.json");
    let ev = |name: &str, ts: u32, dur: u32| {
        format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"{name}","pid":1,"tid":1,"ts":{ts},"dur":{dur}}}"#
        )
    };
    let text = format!(
        r#"{{"traceEvents":[{},{},{}]}}"#,
        ev("aten::sum", 0, 100),
        ev("aten::sum", 10, 30),
        ev("aten::add", 50, 20)
    );
    std::fs::write(&path, text).unwrap();
    let p = load_trace(&path).unwrap();
    let sum = p.op("aten::sum").unwrap();
    assert_eq!(sum.calls, 2);
    assert_eq!(sum.inclusive_total_ns, 130_000);
    assert_eq!(sum.inclusive_outer_total_ns, 100_000);
    assert_eq!(sum.self_total_ns, 80_000);
}

/// A real torch 2.15 trace (`scripts/make_recursive_trace.py`): `aten::abs` and
/// `aten::logsumexp` call themselves (the out variant, beside other children), and four
/// profiler steps `ProfilerStep#2..#5`. Every key of its `key_averages()` is equal,
/// `ProfilerStep*` included; the call tree keeps the four steps apart.
#[test]
fn recursive_ops_and_profiler_steps_match_key_averages() {
    // Nested directly in a call of the same name: aten::abs and aten::logsumexp (the out
    // variants) and aten::sum (an only child: merged by key_averages).
    let p = check(
        "recursive_steps.json",
        "recursive_steps",
        &["aten::abs", "aten::logsumexp", "aten::sum"],
    );
    let ka = key_averages("recursive_steps");
    let get = |n: &str| ka.iter().find(|k| k.name == n).unwrap();
    // The golden counts 32 calls of aten::abs and 8 of aten::logsumexp: the nested calls
    // count, with their time.
    assert_eq!(get("aten::abs").count, 32);
    assert_eq!(get("aten::logsumexp").count, 8);
    let lse = p.op("aten::logsumexp").unwrap();
    assert!(lse.inclusive_outer_total_ns < lse.inclusive_total_ns);
    assert_eq!(p.op("ProfilerStep*").unwrap().calls, 4);
    assert!(p.ops.iter().all(|o| !o.name.starts_with("ProfilerStep#")));
    let roots: Vec<&str> = p.call_trees[0].roots.iter().map(|r| &*r.name).collect();
    assert_eq!(
        roots,
        [
            "ProfilerStep#2",
            "ProfilerStep#3",
            "ProfilerStep#4",
            "ProfilerStep#5"
        ]
    );
}
