//! `cpuprof-tui export`: the Trace Event JSON and folded stacks of every CpuBackend fixture
//! and of the PyTorch traces, checked against the fixtures' truth files (samples per
//! step and operator, `Method::execute` totals) and the traces' ground truth (paired calls
//! per thread, self times), plus the layout rule Perfetto needs: on every track, events
//! either nest or are disjoint.

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::process::{Command, Output};

use common::{fixture, json, path};
use cpuprof_tui::report::folded::write_trace_folded;
use cpuprof_tui::timeline::TraceTimeline;
use cpuprof_tui::trace::{pair_events, LttngEvent, OpEventKind};
use serde_json::Value;

fn export(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .arg("export")
        .args(args)
        .output()
        .expect("binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn export_ok(args: &[&str]) -> String {
    let o = export(args);
    assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// µs with three decimals -> integer ns (exact for the values we write).
fn ns(v: &Value) -> i64 {
    (v.as_f64().expect("number") * 1000.0).round() as i64
}

#[derive(Debug, Clone)]
struct Ev {
    name: String,
    cat: String,
    pid: i64,
    tid: i64,
    ts: i64,
    dur: i64,
    args: Value,
}

/// Parse the export and check required keys and types of every event.
fn parse_chrome(text: &str) -> (Vec<Ev>, Vec<Value>, Value) {
    let doc: Value = serde_json::from_str(text).expect("export is JSON");
    let events = doc["traceEvents"].as_array().expect("traceEvents array");
    let mut complete = Vec::new();
    let mut others = Vec::new();
    for e in events {
        let ph = e["ph"].as_str().expect("ph is a string");
        assert!(e["pid"].is_u64(), "pid: {e}");
        assert!(e["tid"].is_u64(), "tid: {e}");
        assert!(e["name"].is_string(), "name: {e}");
        match ph {
            "X" => {
                assert!(e["ts"].is_number() && e["dur"].is_number(), "{e}");
                assert!(e["dur"].as_f64().unwrap() >= 0.0, "{e}");
                assert!(e["args"].is_object(), "{e}");
                complete.push(Ev {
                    name: e["name"].as_str().unwrap().to_string(),
                    cat: e["cat"].as_str().unwrap_or("").to_string(),
                    pid: e["pid"].as_i64().unwrap(),
                    tid: e["tid"].as_i64().unwrap(),
                    ts: ns(&e["ts"]),
                    dur: ns(&e["dur"]),
                    args: e["args"].clone(),
                });
            }
            "M" => {
                assert!(
                    matches!(
                        e["name"].as_str(),
                        Some("process_name" | "thread_name" | "thread_sort_index")
                    ),
                    "{e}"
                );
                assert!(e["args"].is_object(), "{e}");
                others.push(e.clone());
            }
            "i" => {
                assert!(e["ts"].is_number(), "{e}");
                others.push(e.clone());
            }
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    // Every track used by an event is named.
    for ev in &complete {
        assert!(
            others.iter().any(|m| m["name"] == "thread_name"
                && m["pid"].as_i64() == Some(ev.pid)
                && m["tid"].as_i64() == Some(ev.tid)),
            "track ({}, {}) has no thread_name",
            ev.pid,
            ev.tid
        );
        assert!(
            others
                .iter()
                .any(|m| m["name"] == "process_name" && m["pid"].as_i64() == Some(ev.pid)),
            "process {} has no process_name",
            ev.pid
        );
    }
    (complete, others, doc)
}

/// For every track: events sorted by (start, longer first) either nest inside the open
/// event or start after it ends. Returns, per event index, its enclosing event on the
/// track (the check written independently of the exporter's own layout code).
fn check_tracks(evs: &[Ev]) -> Vec<Option<usize>> {
    let mut by_track: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    for (i, e) in evs.iter().enumerate() {
        by_track.entry((e.pid, e.tid)).or_default().push(i);
    }
    let mut parent = vec![None; evs.len()];
    for (track, mut ids) in by_track {
        ids.sort_by_key(|&i| (evs[i].ts, -evs[i].dur, i));
        let mut stack: Vec<usize> = Vec::new();
        for i in ids {
            let e = &evs[i];
            while let Some(&top) = stack.last() {
                if evs[top].ts + evs[top].dur <= e.ts {
                    stack.pop();
                } else {
                    break;
                }
            }
            if let Some(&top) = stack.last() {
                let t = &evs[top];
                assert!(
                    e.ts + e.dur <= t.ts + t.dur,
                    "track {track:?}: {} [{}, {}] overlaps {} [{}, {}] without nesting",
                    e.name,
                    e.ts,
                    e.ts + e.dur,
                    t.name,
                    t.ts,
                    t.ts + t.dur
                );
                parent[i] = Some(top);
            }
            stack.push(i);
        }
    }
    parent
}

fn sorted(mut v: Vec<i64>) -> Vec<i64> {
    v.sort_unstable();
    v
}

fn samples(stats: &Value) -> Vec<i64> {
    sorted(
        stats["samples_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect(),
    )
}

fn cases() -> Vec<String> {
    let mut out = Vec::new();
    for dir in ["cpu", "cpu-faults"] {
        for e in std::fs::read_dir(fixture(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if let Some(stem) = name.strip_suffix(".truth.json") {
                out.push(format!("{dir}/{stem}"));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 12, "{out:?}");
    out
}

/// Chrome export of every CpuBackend case against its truth file.
#[test]
fn chrome_export_of_every_cpu_case_matches_the_truth() {
    for case in cases() {
        let truth = json(&format!("{case}.truth.json"));
        let warmup = truth["warmup"].as_u64().unwrap().to_string();
        let dump = path(&format!("{case}.etdp"));
        let text = export_ok(&[&dump, "--format", "chrome", "--warmup", &warmup]);
        let (evs, _, _) = parse_chrome(&text);
        let parent = check_tracks(&evs);

        // One Method::execute per kept run, with the truth's durations.
        let methods: Vec<&Ev> = evs.iter().filter(|e| e.name == "Method::execute").collect();
        assert_eq!(
            sorted(methods.iter().map(|e| e.dur).collect()),
            samples(&truth["method_execute"]),
            "{case}: Method::execute"
        );
        let runs: Vec<i64> = methods
            .iter()
            .map(|e| e.args["run"].as_i64().unwrap())
            .collect();
        let w = truth["warmup"].as_i64().unwrap();
        let expected: Vec<i64> = (w..truth["runs_total"].as_i64().unwrap()).collect();
        assert_eq!(
            sorted(runs),
            expected,
            "{case}: runs in order, warm-ups left out"
        );
        // Time order of runs: each Method::execute starts after the previous one ended.
        for pair in methods.windows(2) {
            assert!(
                pair[0].ts + pair[0].dur <= pair[1].ts,
                "{case}: runs out of order"
            );
        }

        for d in truth["delegates"].as_array().unwrap() {
            let instr = d["instruction_id"].as_i64().unwrap();
            let calls: Vec<i64> = evs
                .iter()
                .filter(|e| e.cat == "delegate_call" && e.args["instruction_id"] == instr)
                // Named as the explorer's tree names the delegate.
                .inspect(|e| assert_eq!(e.name, format!("delegate #{instr}"), "{case}"))
                .map(|e| e.dur)
                .collect();
            assert_eq!(
                sorted(calls),
                samples(&d["delegate_call"]),
                "{case}: delegate {instr}"
            );
            for step in d["steps"].as_array().unwrap() {
                let sname = step["event"].as_str().unwrap();
                let got: Vec<i64> = evs
                    .iter()
                    .filter(|e| e.cat == "step" && e.name == sname && e.args["delegate"] == instr)
                    .map(|e| e.dur)
                    .collect();
                if step["stats"]["count"].as_u64() == Some(0) || step["stats"].is_null() {
                    assert!(got.is_empty(), "{case}: dropped step {sname}");
                } else {
                    assert_eq!(sorted(got), samples(&step["stats"]), "{case}: step {sname}");
                }
                for op in step["operators"].as_array().unwrap() {
                    let oname = op["event"].as_str().unwrap();
                    let mine: Vec<usize> = (0..evs.len())
                        .filter(|&i| {
                            evs[i].name == oname
                                && evs[i].args["delegate"] == instr
                                && evs[i].args["step"] == sname
                        })
                        .collect();
                    if op["stats"]["count"].as_u64() == Some(0) {
                        continue;
                    }
                    assert_eq!(
                        sorted(mine.iter().map(|&i| evs[i].dur).collect()),
                        samples(&op["stats"]),
                        "{case}: operator {oname} in {sname}: every sample present"
                    );
                    for &i in &mine {
                        let e = &evs[i];
                        if op["kind"] == "xnnpack" {
                            assert_eq!(e.args["synthesized_start"], true, "{case}: {oname}");
                        }
                        // On the main track an operator sits in its own step (or in the
                        // delegate call when that run has no event of the step).
                        if e.args.get("moved").is_none() {
                            let p = &evs[parent[i].expect("operator has a parent")];
                            assert!(
                                p.name == sname || p.cat == "delegate_call",
                                "{case}: {oname} nested in {}",
                                p.name
                            );
                        }
                        if let Some(sh) = op.get("shapes").filter(|s| s.is_object()) {
                            assert_eq!(e.args["input_shapes"], sh["inputs"], "{case}: {oname}");
                            assert_eq!(e.args["output_shapes"], sh["outputs"], "{case}: {oname}");
                        }
                    }
                }
            }
        }
        for instr in truth["instructions"].as_array().unwrap() {
            if instr["kind"] != "operator" {
                continue;
            }
            let id = instr["instruction_id"].as_i64().unwrap();
            let kernel = instr["event"].as_str().unwrap();
            let got: Vec<usize> = (0..evs.len())
                .filter(|&i| evs[i].name == kernel && evs[i].args["instruction_id"] == id)
                .collect();
            assert_eq!(
                sorted(got.iter().map(|&i| evs[i].dur).collect()),
                samples(&instr["native_call"]),
                "{case}: {kernel}"
            );
            for &i in &got {
                let p = &evs[parent[i].expect("kernel has a parent")];
                assert_eq!(p.name, format!("OPERATOR_CALL #{id}"), "{case}: {kernel}");
                assert_eq!(p.args["instruction_id"], id);
            }
        }
        // Events moved off the main track are XNNPACK operators (synthesized starts).
        for e in &evs {
            if e.args.get("moved").is_some() {
                assert_eq!(e.cat, "xnnpack_operator", "{case}: moved {}", e.name);
            }
        }
    }
}

fn folded_lines(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .map(|l| {
            let (stack, v) = l.rsplit_once(' ').expect("stack VALUE");
            assert!(!stack.is_empty());
            (stack.to_string(), v.parse::<u64>().expect("integer ns"))
        })
        .collect()
}

/// Folded values add up to the truth's Method::execute total, for kept runs and with the
/// warm-ups included.
#[test]
fn folded_values_add_up_to_method_execute() {
    for case in cases() {
        let truth = json(&format!("{case}.truth.json"));
        let warmup = truth["warmup"].as_u64().unwrap().to_string();
        let dump = path(&format!("{case}.etdp"));
        let lines = folded_lines(&export_ok(&[
            &dump, "--format", "folded", "--warmup", &warmup,
        ]));
        let total: u64 = lines.iter().map(|l| l.1).sum();
        let expected: i64 = samples(&truth["method_execute"]).iter().sum();
        assert_eq!(total as i64, expected, "{case}");
        let stacks: Vec<&String> = lines.iter().map(|l| &l.0).collect();
        let mut unique = stacks.clone();
        unique.dedup();
        assert_eq!(unique.len(), stacks.len(), "{case}: one line per stack");
        assert!(
            lines.iter().all(|l| l.0.starts_with("Method::execute")),
            "{case}"
        );

        let all = folded_lines(&export_ok(&[
            &dump,
            "--format",
            "folded",
            "--warmup",
            &warmup,
            "--include-warmup",
        ]));
        let warm: i64 = truth["method_execute"]["warmup_samples_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .sum();
        assert_eq!(
            all.iter().map(|l| l.1).sum::<u64>() as i64,
            expected + warm,
            "{case}"
        );
    }
}

/// `--runs` picks runs by Execute index; the folded total is their Method::execute sum.
#[test]
fn run_ranges_select_runs() {
    let truth = json("cpu/cnn2_basic.truth.json");
    let w = truth["warmup"].as_u64().unwrap() as usize;
    let kept: Vec<i64> = truth["method_execute"]["samples_ns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let dump = path("cpu/cnn2_basic.etdp");
    let range = format!("{}..{}", w + 1, w + 3);
    let lines = folded_lines(&export_ok(&[
        &dump,
        "--format",
        "folded",
        "--warmup",
        &w.to_string(),
        "--runs",
        &range,
    ]));
    assert_eq!(
        lines.iter().map(|l| l.1).sum::<u64>() as i64,
        kept[1] + kept[2]
    );
    let text = export_ok(&[
        &dump,
        "--format",
        "chrome",
        "--warmup",
        &w.to_string(),
        "--runs",
        &range,
    ]);
    let (evs, _, _) = parse_chrome(&text);
    let runs: Vec<i64> = evs
        .iter()
        .filter(|e| e.name == "Method::execute")
        .map(|e| e.args["run"].as_i64().unwrap())
        .collect();
    assert_eq!(runs, vec![w as i64 + 1, w as i64 + 2]);
    // A range of warm-up runs only selects nothing: usage error.
    let o = export(&[
        &dump,
        "--format",
        "folded",
        "--warmup",
        &w.to_string(),
        "--runs",
        "0..1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("selects no"), "{}", stderr(&o));
}

/// A real XNNPACK dump (no log) and a portable one: every ETDump event of the kept runs
/// is exported once, tracks nest.
#[test]
fn real_dumps_export_every_event() {
    for file in ["real/mlp_xnnpack.etdp", "real/cnn_portable.etdp"] {
        // Every run: without a log the default warm-up is auto, which drops cold runs.
        let text = export_ok(&[
            &path(file),
            "--format",
            "chrome",
            "--no-log",
            "--warmup",
            "0",
        ]);
        let (evs, _, _) = parse_chrome(&text);
        check_tracks(&evs);
        // Independent count: the ETDump reader's events in Execute blocks, minus the
        // ones outside instructions that are not Method::execute (as the profile does).
        let dump = cpuprof_tui::etdump::read_file(&fixture(file)).unwrap();
        let expected = dump
            .blocks
            .iter()
            .filter(|b| b.name == "Execute")
            .flat_map(|b| dump.block_events(b))
            .filter(|e| {
                e.delegate_id.is_some()
                    || dump.name(e) == Some("Method::execute")
                    || (e.name.is_some() && e.chain_index >= 0)
            })
            .count();
        assert_eq!(evs.len(), expected, "{file}");
        let folded = folded_lines(&export_ok(&[
            &path(file),
            "--format",
            "folded",
            "--no-log",
            "--warmup",
            "0",
        ]));
        let total: i64 = evs
            .iter()
            .filter(|e| e.name == "Method::execute")
            .map(|e| e.dur)
            .sum();
        assert_eq!(
            folded.iter().map(|l| l.1).sum::<u64>() as i64,
            total,
            "{file}"
        );
    }
}

/// Paired calls of the THAPI recording, from `expected_events.tsv` with THAPI's rule (a
/// LIFO stack per (vpid, vtid); an exit on an empty stack is a failed call).
fn thapi_truth() -> (usize, usize, usize) {
    let text = std::fs::read_to_string(fixture("thapi/expected_events.tsv")).unwrap();
    let mut stacks: HashMap<(String, String), usize> = HashMap::new();
    let (mut paired, mut failed) = (0, 0);
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let depth = stacks
            .entry((f[2].to_string(), f[3].to_string()))
            .or_insert(0);
        if f[1].ends_with("op_entry") {
            *depth += 1;
        } else if *depth > 0 {
            *depth -= 1;
            paired += 1;
        } else {
            failed += 1;
        }
    }
    let open: usize = stacks.values().sum();
    (paired, failed, open)
}

#[test]
fn thapi_trace_export_has_one_event_per_paired_call() {
    let (paired, failed, open) = thapi_truth();
    assert_eq!(
        (paired, failed, open),
        (35, 1, 1),
        "the fixture README's counts"
    );
    for file in [
        "thapi/babeltrace2_pretty.txt",
        "thapi/babeltrace2_pretty_clock_seconds.txt",
    ] {
        let text = export_ok(&[&path(file), "--format", "chrome"]);
        let (evs, others, _) = parse_chrome(&text);
        check_tracks(&evs);
        assert_eq!(evs.len(), paired, "{file}");
        let failed_evs: Vec<&Value> = others
            .iter()
            .filter(|e| e["ph"] == "i" && e["args"]["failed"] == true)
            .collect();
        assert_eq!(failed_evs.len(), failed);
        assert!(failed_evs[0]["name"]
            .as_str()
            .unwrap()
            .starts_with("aten::orphan_exit"));
        let unterminated: Vec<&Value> = others
            .iter()
            .filter(|e| e["ph"] == "i" && e["args"]["unterminated"] == true)
            .collect();
        assert_eq!(unterminated.len(), open);
        // (babeltrace2 2.0.4 prints a stale overload on some lines: the base name is sure.)
        assert!(
            unterminated[0]["name"]
                .as_str()
                .unwrap()
                .starts_with("aten::never_exits"),
            "{}",
            unterminated[0]
        );
        // One track per thread (no overlaps in a LIFO-paired trace).
        let threads: std::collections::BTreeSet<i64> = evs
            .iter()
            .map(|e| e.args["tid"].as_i64().unwrap())
            .collect();
        let tracks: std::collections::BTreeSet<(i64, i64)> =
            evs.iter().map(|e| (e.pid, e.tid)).collect();
        assert_eq!(threads.len(), tracks.len(), "{file}");
        // Depth 0 events have no enclosing event on their track.
        let parent = check_tracks(&evs);
        for (i, e) in evs.iter().enumerate() {
            assert_eq!(
                e.args["depth"] == 0,
                parent[i].is_none(),
                "{file}: {}",
                e.name
            );
        }
    }
}

/// Folded self times of the THAPI recording equal `expected_self_time.tsv` per op (the
/// ground-truth events paired by the library, since babeltrace2's text has stale overload
/// names), and the CLI's folded export of the text adds up to the top-level calls' total.
#[test]
fn thapi_folded_matches_self_times() {
    let tsv = std::fs::read_to_string(fixture("thapi/expected_events.tsv")).unwrap();
    let ns = |ts: &str| -> i64 {
        let (s, f) = ts.split_once('.').unwrap();
        let f = format!("{f:0<9}");
        s.parse::<i64>().unwrap() * 1_000_000_000 + f[..9].parse::<i64>().unwrap()
    };
    let events: Vec<LttngEvent> = tsv
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split('\t').collect();
            LttngEvent {
                ts_ns: ns(f[0]),
                kind: if f[1].ends_with("op_entry") {
                    OpEventKind::Entry
                } else {
                    OpEventKind::Exit
                },
                host: None,
                vpid: f[2].parse().unwrap(),
                vtid: f[3].parse().unwrap(),
                name: f[4].to_string(),
                overload_name: Some(f.get(5).unwrap_or(&"").to_string()),
                line: i + 2,
            }
        })
        .collect();
    let mut out = Vec::new();
    write_trace_folded(&mut out, &TraceTimeline::new(pair_events(&events))).unwrap();
    let lines = folded_lines(&String::from_utf8(out).unwrap());
    let mut per_op: HashMap<String, u64> = HashMap::new();
    for (stack, v) in &lines {
        let leaf = stack.rsplit(';').next().unwrap();
        *per_op.entry(leaf.to_string()).or_insert(0) += v;
    }
    let truth = std::fs::read_to_string(fixture("thapi/expected_self_time.tsv")).unwrap();
    let mut total_self = 0;
    for l in truth.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split('\t').collect();
        let self_ns: u64 = f[3].parse().unwrap();
        total_self += self_ns;
        assert_eq!(per_op.get(f[0]).copied().unwrap_or(0), self_ns, "{}", f[0]);
    }
    // "self 1296021 ns" in the file's total line: the top-level calls' total.
    assert_eq!(total_self, 1_296_021);
    assert_eq!(lines.iter().map(|l| l.1).sum::<u64>(), total_self);

    for file in [
        "thapi/babeltrace2_pretty.txt",
        "thapi/babeltrace2_pretty_clock_seconds.txt",
    ] {
        let cli = folded_lines(&export_ok(&[&path(file), "--format", "folded"]));
        assert_eq!(cli.iter().map(|l| l.1).sum::<u64>(), total_self, "{file}");
    }
}

/// torch.profiler traces: one complete event per cpu_op/user_annotation event of the
/// input (counted here from the input JSON), tracks nest, folded adds up to the
/// top-level calls.
#[test]
fn torch_trace_export_has_one_event_per_call() {
    for file in ["torch/cnn_infer.json", "torch/cnn_train.json.gz"] {
        let bytes = std::fs::read(fixture(file)).unwrap();
        let raw = if file.ends_with(".gz") {
            let mut out = String::new();
            std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
                .unwrap();
            out
        } else {
            String::from_utf8(bytes).unwrap()
        };
        let input: Value = serde_json::from_str(&raw).unwrap();
        let calls: Vec<&Value> = input["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X" && (e["cat"] == "cpu_op" || e["cat"] == "user_annotation"))
            .collect();
        let text = export_ok(&[&path(file), "--format", "chrome"]);
        let (evs, _, _) = parse_chrome(&text);
        check_tracks(&evs);
        assert_eq!(evs.len(), calls.len(), "{file}");
        let mut want: Vec<(String, i64)> = calls
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_string(),
                    (e["dur"].as_f64().unwrap() * 1000.0).round() as i64,
                )
            })
            .collect();
        let mut got: Vec<(String, i64)> = evs.iter().map(|e| (e.name.clone(), e.dur)).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "{file}: names and durations");

        // Top-level calls: events with depth 0; their total is the folded sum.
        let top: i64 = evs
            .iter()
            .filter(|e| e.args["depth"] == 0)
            .map(|e| e.dur)
            .sum();
        let folded = folded_lines(&export_ok(&[&path(file), "--format", "folded"]));
        assert_eq!(
            folded.iter().map(|l| l.1).sum::<u64>() as i64,
            top,
            "{file}"
        );
    }
}

#[test]
fn atomic_output_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("trace.json");
    let dump = path("cpu/mlp_basic.etdp");
    let o = export(&[
        &dump,
        "--format",
        "chrome",
        "-o",
        out.to_str().unwrap(),
        "--no-log",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    // --no-log: the log beside the dump is not read (and not announced).
    assert!(!stderr(&o).contains("using runner log"), "{}", stderr(&o));
    parse_chrome(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp file left"
    );

    // Writing over the input is refused; the input is unchanged.
    let copy = dir.path().join("dump.etdp");
    std::fs::copy(fixture("cpu/mlp_basic.etdp"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let c = copy.to_str().unwrap();
    let o = export(&[c, "--format", "folded", "-o", c]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&copy).unwrap(), before);

    for (args, what) in [
        (
            vec![
                path("real/bad_truncated.etdp"),
                "--format".into(),
                "chrome".into(),
            ],
            "bad_truncated.etdp",
        ),
        (
            vec![
                path("cpu/mlp_basic.etdp"),
                "--format".into(),
                "chrome".into(),
                "--warmup".into(),
                "999".into(),
                "--no-log".into(),
            ],
            "mlp_basic.etdp",
        ),
        (
            vec![
                path("cpu/mlp_basic.etdp"),
                "--format".into(),
                "chrome".into(),
                "--runs".into(),
                "x".into(),
            ],
            "--runs",
        ),
        (
            vec![
                path("thapi/babeltrace2_pretty.txt"),
                "--format".into(),
                "folded".into(),
                "--warmup".into(),
                "2".into(),
            ],
            "--warmup",
        ),
        (
            vec![
                dir.path().join("missing.etdp").display().to_string(),
                "--format".into(),
                "chrome".into(),
            ],
            "missing.etdp",
        ),
    ] {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = export(&refs);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(what), "{err}");
    }
    // Without --format: clap's usage error, exit 2.
    assert_eq!(export(&[&dump]).status.code(), Some(2));
}

/// The timeline's walk and the profile's `collect` agree on every event of every case
/// (no event is kept without its row), and each kept run has one Method::execute.
#[test]
fn timeline_walk_agrees_with_the_profile() {
    use cpuprof_tui::profile::{ProfileRequest, TimelineKind};
    let mut files: Vec<String> = cases().iter().map(|c| format!("{c}.etdp")).collect();
    files.push("real/mlp_xnnpack.etdp".into());
    files.push("real/cnn_portable.etdp".into());
    files.push("real/mlp_portable_debugbuf.etdp".into());
    for f in files {
        let request = ProfileRequest::new(fixture(&f), None, 0);
        let tl = cpuprof_tui::timeline::load_dump_timeline(
            &request,
            true,
            &cpuprof_tui::profile::RunSelection::all(),
        )
        .unwrap();
        assert_eq!(tl.unmatched_events, 0, "{f}");
        for run in &tl.runs {
            let methods = run
                .events
                .iter()
                .filter(|e| tl.entry(e).kind == TimelineKind::Method)
                .count();
            assert_eq!(methods, 1, "{f} run {}", run.index);
            // Parents come first and contain their children's start (or are the
            // fallback container of an event outside every candidate).
            for (i, e) in run.events.iter().enumerate() {
                if let Some(p) = e.parent {
                    assert!((p as usize) < i, "{f}");
                }
            }
        }
    }
}
