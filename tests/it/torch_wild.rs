//! torch.profiler / Kineto traces nobody on this project wrote (issue #44): every key's
//! calls, self and total time equal to `key_averages()`, to the nanosecond.
//!
//! - `fixtures/torch/hta/`: HolisticTraceAnalysis' test traces (`ts` in µs since 1970,
//!   integer or with ns digits), against `scripts/kineto_key_averages.py` (the JSON read
//!   with decimals, PyTorch's rules).
//! - `fixtures/torch/wild/`: traces made with torch.profiler (`scripts/make_wild_traces.py`),
//!   against PyTorch's own `key_averages()` of the same run.

use std::collections::BTreeMap;
use std::path::Path;

use cpuprof_tui::trace::{load_trace, TraceProfile};

/// One key of a golden: calls, self and total time in whole ns.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Key {
    count: u64,
    self_ns: i64,
    total_ns: i64,
}

fn golden(path: &str) -> BTreeMap<String, Key> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, e)| {
            (
                k.clone(),
                Key {
                    count: e["count"].as_u64().unwrap(),
                    self_ns: e["self_ns"].as_i64().unwrap(),
                    total_ns: e["total_ns"].as_i64().unwrap(),
                },
            )
        })
        .collect()
}

fn ours(p: &TraceProfile) -> BTreeMap<String, Key> {
    p.ops
        .iter()
        .map(|o| {
            (
                o.name.to_string(),
                Key {
                    count: o.calls,
                    self_ns: o.self_total_ns,
                    total_ns: o.inclusive_total_ns,
                },
            )
        })
        .collect()
}

/// Every key of the golden with its exact figures, and no other key; `tol_ns` per call
/// for goldens whose times come from PyTorch's float µs.
fn assert_keys(trace: &str, want: &BTreeMap<String, Key>, tol_ns: i64) {
    let p = load_trace(Path::new(trace)).unwrap_or_else(|e| panic!("{trace}: {e}"));
    let got = ours(&p);
    let mut wrong = Vec::new();
    for (k, w) in want {
        match got.get(k) {
            None => wrong.push(format!("{k}: missing")),
            Some(g) => {
                let tol = tol_ns * w.count as i64;
                if g.count != w.count
                    || (g.self_ns - w.self_ns).abs() > tol
                    || (g.total_ns - w.total_ns).abs() > tol
                {
                    wrong.push(format!("{k}: ours {g:?} vs {w:?}"));
                }
            }
        }
    }
    for k in got.keys().filter(|k| !want.contains_key(*k)) {
        wrong.push(format!("{k}: not a key of key_averages()"));
    }
    assert!(wrong.is_empty(), "{trace}:\n{}", wrong.join("\n"));
}

#[test]
fn hta_traces_with_epoch_timestamps_equal_key_averages_to_the_ns() {
    for stem in ["rank_non_gpu", "ns_resolution_40ms"] {
        let want = golden(&format!("fixtures/torch/hta/{stem}.key_averages.json"));
        assert!(want.len() > 50, "{stem}: {} keys", want.len());
        assert_keys(&format!("fixtures/torch/hta/{stem}.json.gz"), &want, 0);
    }
    // The calls the 256 ns steps of an f64 at epoch scale lost (fixtures' README).
    let want = golden("fixtures/torch/hta/rank_non_gpu.key_averages.json");
    assert_eq!(want["aten::zeros"].count, 47);
    let want = golden("fixtures/torch/hta/ns_resolution_40ms.key_averages.json");
    assert_eq!(want["aten::result_type"].count, 483);
}

#[test]
fn epoch_timestamps_with_ns_digits_keep_back_to_back_calls_apart() {
    // `b` starts when `a` ends. Through an f64 (`ts * 1000.0`) `a` became
    // [..807360, ..808360] and `b` started at ..808128: inside `a`, so it nested and
    // took 500 ns of `a`'s self time. The string form of `ts` is read the same way.
    let json = br#"{"traceEvents":[
        {"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1708722576381807.126,"dur":1.000},
        {"ph":"X","cat":"cpu_op","name":"b","pid":1,"tid":1,"ts":"1708722576381808.126","dur":0.5}
    ]}"#;
    let p = cpuprof_tui::trace::parse_trace(json, "t.json").unwrap();
    let a = p.op("a").unwrap();
    assert_eq!(
        (a.calls, a.inclusive_total_ns, a.self_total_ns),
        (1, 1000, 1000)
    );
    assert_eq!(p.op("b").unwrap().self_total_ns, 500);
    let roots = &p.call_trees[0].roots;
    assert_eq!(roots.len(), 2);
    assert!(roots.iter().all(|r| r.children.is_empty()));
}

/// PyTorch's µs floats, rounded to ns in the golden: within 1 ns a call.
const KEY_AVERAGES_TOL_NS: i64 = 1;

#[test]
fn wild_torch_traces_equal_their_key_averages() {
    for (trace, stem) in [
        ("with_stack.json.gz", "with_stack"),
        ("compiled.json.gz", "compiled"),
        ("threads.json", "threads"),
        ("tb/worker0.cycle1.pt.trace.json.gz", "tb/worker0.cycle1"),
        ("tb/worker0.cycle2.pt.trace.json.gz", "tb/worker0.cycle2"),
    ] {
        let want = golden(&format!("fixtures/torch/wild/{stem}.key_averages.json"));
        assert_keys(
            &format!("fixtures/torch/wild/{trace}"),
            &want,
            KEY_AVERAGES_TOL_NS,
        );
    }
}

#[test]
fn python_frames_are_parents_in_the_tree_but_no_ops_unless_asked() {
    let bytes = std::fs::read("fixtures/torch/wild/with_stack.json.gz").unwrap();
    let p = cpuprof_tui::trace::parse_trace(&bytes, "with_stack").unwrap();
    // The issue's figures: `ProfilerStep*` self time was the whole step less its ops.
    let want = golden("fixtures/torch/wild/with_stack.key_averages.json");
    let step = p.op("ProfilerStep*").unwrap();
    assert_eq!(step.self_total_ns, want["ProfilerStep*"].self_ns);
    assert!(step.self_total_ns * 4 < step.inclusive_total_ns);
    assert!(p.ops.iter().all(|o| !o.name.contains(".py(")));
    // The call tree holds the frames: some node below a root is a Python frame.
    fn any_frame(n: &cpuprof_tui::trace::CallNode) -> bool {
        n.name.contains(".py(") || n.children.iter().any(any_frame)
    }
    assert!(p.call_trees.iter().any(|t| t.roots.iter().any(any_frame)));
    // Asked for (`report --python-frames`), they are rows too: see
    // `report_python_frames_lists_the_frames_as_rows`.
}

#[test]
fn the_answer_line_of_a_compiled_trace_names_the_real_keys() {
    let p = load_trace(Path::new("fixtures/torch/wild/compiled.json.gz")).unwrap();
    let want = golden("fixtures/torch/wild/compiled.key_averages.json");
    let total: i64 = want.values().map(|k| k.self_ns).sum();
    let a = cpuprof_tui::summary::trace_answer(&cpuprof_tui::rows::RowTree::trace_ops(&p), "", 3)
        .unwrap();
    assert_eq!(a.items.len(), 3);
    for item in &a.items {
        let key = want
            .get(&*item.label)
            .unwrap_or_else(|| panic!("{} is no key", item.label));
        let share = key.self_ns as f64 / total as f64;
        assert!((item.share - share).abs() < 1e-6, "{}", item.label);
    }
    assert!(a
        .items
        .iter()
        .any(|i| &*i.label == "async_compile.wait (dynamo_timed)"
            || &*i.label == "Scheduler.codegen (dynamo_timed)"));
}

/// The text of `with_stack.json.gz`, inflated.
fn with_stack_text() -> String {
    use std::io::Read;
    let gz = std::fs::read("fixtures/torch/wild/with_stack.json.gz").unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn an_event_array_without_its_closing_bracket_is_read_with_a_truncated_warning() {
    let text = with_stack_text();
    let want = golden("fixtures/torch/wild/with_stack.key_averages.json");
    // The events as Kineto wrote them, between `"traceEvents": [` and the final `]`.
    let start = text.find("\"traceEvents\": [").unwrap() + "\"traceEvents\": [".len();
    let end = text.rfind("],\"traceName\"").unwrap();
    let events = text[start..end].trim_end();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The JSON array format with no `]` (with and without a trailing comma), and the
    // object format cut after the last event (a killed writer).
    let cases = [
        ("array_comma.json", format!("[{events},\n")),
        ("array.json", format!("[{events}\n")),
        ("object.json", text[..end].to_string()),
    ];
    for (name, body) in cases {
        let path = dir.join(name);
        std::fs::write(&path, body).unwrap();
        let trace = path.to_str().unwrap();
        assert_keys(trace, &want, KEY_AVERAGES_TOL_NS);
        let p = load_trace(&path).unwrap();
        assert!(
            p.warnings.iter().any(|w| w.kind == "truncated"),
            "{name}: {:?}",
            p.warnings
        );
    }
    // Cut with only non-op events before the cut: the error says so, not "EOF".
    let first_op = text.find("\"ph\": \"X\"").unwrap();
    let head = &text[..text[..first_op].rfind('{').unwrap()];
    let path = dir.join("head.json");
    std::fs::write(&path, head).unwrap();
    let err = load_trace(&path).unwrap_err().to_string();
    assert!(err.contains("none of them"), "{err}");
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(args)
        .output()
        .unwrap()
}

/// `report --python-frames`: the Python frames of a `with_stack=True` trace listed as
/// rows too. Their calls add up to the trace's `python_function` events, counted here from
/// the JSON itself (704, as `python3 -c "import gzip,json; d=json.load(gzip.open(F));
/// print(sum(e.get('cat')=='python_function' and e.get('ph')=='X' for e in
/// d['traceEvents']))"` prints); every other row is the same with the flag or without it.
/// On an ETDump the flag is one usage line.
#[test]
fn report_python_frames_lists_the_frames_as_rows() {
    use std::io::Read;
    let path = "fixtures/torch/wild/with_stack.json.gz";
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let frames = doc["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cat"] == "python_function" && e["ph"] == "X")
        .count() as u64;
    assert_eq!(frames, 704);
    let ops = |extra: &[&str]| -> BTreeMap<String, serde_json::Value> {
        let mut args = vec!["report", path, "--format", "json"];
        args.extend_from_slice(extra);
        let o = cli(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|op| (op["name"].as_str().unwrap().to_string(), op.clone()))
            .collect()
    };
    let without = ops(&[]);
    let with = ops(&["--python-frames"]);
    let mut frame_calls = 0;
    for (name, op) in &with {
        match without.get(name) {
            Some(same) => assert_eq!(same, op, "{name}"),
            None => frame_calls += op["calls"].as_u64().unwrap(),
        }
    }
    assert_eq!(frame_calls, frames);
    assert!(without.keys().all(|k| with.contains_key(k)));
    let o = cli(&[
        "report",
        "fixtures/real/mlp_xnnpack.etdp",
        "--python-frames",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--python-frames is for PyTorch traces"),
        "{err}"
    );
}
