//! The runner log reader against the generator's truth files (`fixtures/cpu/*.truth.json`)
//! and the real pybindings logs (`fixtures/real/*.log`).

use std::path::{Path, PathBuf};

use cpuprof_tui::runlog::{self, PlanProblem, RunLog};
use serde_json::Value;

fn fixtures(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(dir)
}

/// `(case name, log bytes, parsed log, truth)` for every CPU case.
fn cpu_cases() -> Vec<(String, Vec<u8>, RunLog, Value)> {
    let dir = fixtures("cpu");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".truth.json").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 6,
        "expected the 6 public cases, found {names:?}"
    );
    names
        .into_iter()
        .map(|name| {
            let log_path = dir.join(format!("{name}.log"));
            let bytes = std::fs::read(&log_path).unwrap();
            let run = runlog::read_file(&log_path).unwrap();
            let truth: Value = serde_json::from_slice(
                &std::fs::read(dir.join(format!("{name}.truth.json"))).unwrap(),
            )
            .unwrap();
            (name, bytes, run, truth)
        })
        .collect()
}

fn delegates(truth: &Value) -> &Vec<Value> {
    truth["delegates"].as_array().unwrap()
}

#[test]
fn line_count_and_endings() {
    for (name, bytes, run, truth) in cpu_cases() {
        // Every fixture log ends with a line ending, so lines = number of `\n`.
        assert_eq!(bytes.last(), Some(&b'\n'), "{name}");
        let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(run.lines.len(), newlines, "{name}");
        for (i, line) in run.lines.iter().enumerate() {
            assert_eq!(line.number, i + 1, "{name}");
            assert!(
                !line.text.contains(['\r', '\n']),
                "{name} line {}",
                line.number
            );
        }
        let crlf = bytes.windows(2).filter(|w| w == b"\r\n").count();
        match truth["files"]["log_line_endings"].as_str().unwrap() {
            "CRLF" => assert_eq!(crlf, newlines, "{name}"),
            "LF" => assert_eq!(crlf, 0, "{name}"),
            other => panic!("{name}: unknown line endings {other}"),
        }
        assert_eq!(
            bytes.len() as u64,
            truth["files"]["log_bytes"].as_u64().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn sequences_and_status_per_delegate() {
    for (name, _, run, truth) in cpu_cases() {
        let dels = delegates(&truth);
        let all_absent = dels.iter().all(|d| d["plan_status"] == "absent");
        let expected_sequences = if all_absent { 0 } else { dels.len() };
        assert_eq!(run.sequences.len(), expected_sequences, "{name}");
        for (k, d) in dels.iter().enumerate() {
            match d["plan_status"].as_str().unwrap() {
                "ok" => {
                    let seq = &run.sequences[k];
                    assert!(
                        seq.outcome.is_ok(),
                        "{name} delegate {k}: {:?}",
                        seq.outcome
                    );
                    let chunks = d["plan_chunks"].as_u64().unwrap() as usize;
                    assert_eq!(seq.expected_chunks, chunks, "{name} delegate {k}");
                    assert_eq!(seq.chunk_indexes, (0..chunks).collect::<Vec<_>>(), "{name}");
                }
                "incomplete" => assert!(
                    matches!(run.sequences[k].outcome, Err(PlanProblem::Incomplete(_))),
                    "{name} delegate {k}"
                ),
                "absent" => assert!(run.sequences.get(k).is_none(), "{name} delegate {k}"),
                other => panic!("{name}: unknown plan_status {other}"),
            }
        }
        // The log-side warnings are exactly the truth's plan_chunks_incomplete ones.
        let expected: Vec<u64> = truth["expected"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == "plan_chunks_incomplete")
            .map(|w| w["plan_index"].as_u64().unwrap())
            .collect();
        let got: Vec<u64> = run.warnings.iter().map(|w| w.sequence as u64).collect();
        assert_eq!(got, expected, "{name}: {:?}", run.warnings);
    }
}

#[test]
fn decoded_plans_equal_truth() {
    let mut plans_checked = 0;
    for (name, _, run, truth) in cpu_cases() {
        for (k, d) in delegates(&truth).iter().enumerate() {
            if d["plan_status"] != "ok" {
                assert!(d["plan"].is_null(), "{name} delegate {k}");
                continue;
            }
            let want = &d["plan"];
            let plan = run.sequences[k].outcome.as_ref().unwrap();

            // 1. The decoded text itself: same JSON, same keys in the same order, same size.
            let text = run.plan_json(k).unwrap();
            assert_eq!(
                text.len() as u64,
                d["plan_bytes"].as_u64().unwrap(),
                "{name} {k}"
            );
            let decoded: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(&decoded, want, "{name} delegate {k}: decoded text");
            let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(&decoded), keys(want), "{name} delegate {k}: key order");

            // 2. The typed plan, serialized back (unknown keys kept in `extra`).
            let back = serde_json::to_value(plan).unwrap();
            assert_eq!(&back, want, "{name} delegate {k}: typed plan round trip");

            // 3. Field by field.
            let regions = want["regions"].as_array().unwrap();
            assert_eq!(plan.regions.len(), regions.len(), "{name} {k}");
            for (r, w) in plan.regions.iter().zip(regions) {
                assert_eq!(r.provider, w["provider"].as_str().unwrap());
                assert_eq!(r.implementation, w["implementation"].as_str().unwrap());
                let nodes: Vec<&str> = w["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap())
                    .collect();
                assert_eq!(r.nodes, nodes);
                let ints = |v: &Value| {
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|i| i.as_i64().unwrap())
                        .collect::<Vec<_>>()
                };
                assert_eq!(r.inputs, ints(&w["inputs"]));
                assert_eq!(r.outputs, ints(&w["outputs"]));
                assert_eq!(r.scratch_bytes, w["scratch_bytes"].as_u64());
                assert!(r.extra.is_empty());
            }
            assert_eq!(plan.policy.as_deref(), want["policy"].as_str());
            assert_eq!(plan.preparation_ms, want["preparation_ms"].as_f64());
            assert_eq!(plan.preparation_ms, d["preparation_ms"].as_f64());
            assert_eq!(
                plan.preferences.len(),
                want["preferences"].as_array().unwrap().len()
            );
            assert_eq!(
                plan.activation_arena_bytes,
                want["activation_arena_bytes"].as_u64()
            );
            assert_eq!(
                plan.private_constant_bytes,
                want["private_constant_bytes"].as_u64()
            );
            assert_eq!(
                plan.shared_scratch_bytes,
                want["shared_scratch_bytes"].as_u64()
            );
            assert_eq!(
                plan.copied_constant_bytes,
                want["copied_constant_bytes"].as_u64()
            );
            let ctx = plan.selection_context.as_ref().unwrap();
            assert_eq!(ctx.threads, want["selection_context"]["threads"].as_u64());
            assert_eq!(
                ctx.avx2_fma,
                want["selection_context"]["avx2_fma"].as_bool()
            );
            assert_eq!(
                plan.candidates.len(),
                want["candidates"].as_array().unwrap().len()
            );
            for key in [
                "xnn_workspace_bytes",
                "xnn_packed_cache_bytes",
                "xnn_workspace_shared",
                "xnn_packed_cache",
                "delegate_io",
            ] {
                assert_eq!(plan.extra.get(key), want.get(key), "{name} {k} {key}");
            }

            // 4. Region j names step event j.
            let steps: Vec<&str> = d["steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["event"].as_str().unwrap())
                .collect();
            let names: Vec<String> = plan.regions.iter().map(|r| r.step_name()).collect();
            assert_eq!(names, steps, "{name} delegate {k}");
            plans_checked += 1;
        }
    }
    // mlp_basic 1, cnn2_basic 2, wide_browse 2, mlp_w0_t1 1, cnn2_crlf_noise 2.
    assert_eq!(plans_checked, 8);
}

#[test]
fn et_log_times() {
    for (name, _, run, truth) in cpu_cases() {
        // Timestamps never go backwards (the generator checks this on its side too).
        let times: Vec<u64> = run
            .lines
            .iter()
            .filter_map(|l| l.et_log.as_ref()?.time_us)
            .collect();
        assert!(!times.is_empty(), "{name}");
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}");
        // Plan lines are printed during the method load (same clock as the ETDump).
        let start_us = truth["clock"]["load_start_ns"].as_u64().unwrap() / 1000;
        let end_us = truth["clock"]["load_end_ns"].as_u64().unwrap() / 1000;
        for line in run
            .lines
            .iter()
            .filter(|l| l.text.contains("CPU_PLAN_CHUNK 0 "))
        {
            let f = line.et_log.as_ref().unwrap();
            let t = f.time_us.unwrap();
            assert!(
                start_us <= t && t <= end_us,
                "{name} line {}: {t}",
                line.number
            );
            assert_eq!(
                (f.level, f.file.as_str(), f.line),
                (Some('I'), "CPUBackend.cpp", 252)
            );
            assert!(f.message.starts_with("CPU_PLAN_CHUNK 0 "));
        }
    }
}

#[test]
fn one_timestamp_by_hand() {
    let run = runlog::read_file(&fixtures("cpu").join("mlp_basic.log")).unwrap();
    // Line 4: "I 00:00:00.002865 executorch:CPUBackend.cpp:252] CPU_PLAN_CHUNK 0 28 7b22...".
    let f = run.lines.get(3).unwrap().et_log.unwrap();
    assert_eq!(f.time_us, Some(2_865));
    assert_eq!(f.level, Some('I'));
    assert_eq!(f.file, "CPUBackend.cpp");
    assert_eq!(f.line, 252);
    assert!(f.message.starts_with("CPU_PLAN_CHUNK 0 28 7b2272"));
    // Line 1: "I 00:00:00.000298 executorch:runner.cpp:141] Model file mlp.pte is loaded."
    let f = run.lines.get(0).unwrap().et_log.unwrap();
    assert_eq!((f.time_us, f.line), (Some(298), 141));
    assert_eq!(f.message, "Model file mlp.pte is loaded.");
}

#[test]
fn noise_case() {
    let run = runlog::read_file(&fixtures("cpu").join("cnn2_crlf_noise.log")).unwrap();
    assert_eq!(run.sequences.len(), 2);
    assert!(run.warnings.is_empty());
    let is_chunk = |i: usize| {
        run.lines.get(i).unwrap().text.contains("CPU_PLAN_CHUNK 1 ")
            || run.lines.get(i).unwrap().text.contains("CPU_PLAN_CHUNK 2 ")
    };
    // A foreign line between chunks 1 and 2 of a sequence, kept as a short-form ET_LOG line.
    let between: Vec<usize> = (1..run.lines.len() - 1)
        .filter(|&i| {
            run.lines
                .get(i)
                .unwrap()
                .text
                .starts_with("[cpuinfo_utils.cpp:125]")
                && is_chunk(i - 1)
                && is_chunk(i + 1)
        })
        .collect();
    assert_eq!(between.len(), 2, "one per sequence");
    let f = run.lines.get(between[0]).unwrap().et_log.unwrap();
    assert_eq!(
        (f.level, f.time_us, f.file.as_str(), f.line),
        (None, None, "cpuinfo_utils.cpp", 125)
    );
    // The decoy: kept, an ET_LOG line, no chunk, no warning.
    let decoy = run.lines.iter().find(|l| l.text.contains("decoy")).unwrap();
    assert_eq!(decoy.et_log.as_ref().unwrap().file, "notes.cpp");
    assert!(run.sequences.iter().all(|s| s.first_line != decoy.number));
    // Other noise: kept, not ET_LOG.
    for prefix in ["W1129 ", "Golden match:"] {
        let line = run
            .lines
            .iter()
            .find(|l| l.text.starts_with(prefix))
            .unwrap();
        assert_eq!(line.et_log, None, "{prefix}");
    }
    assert!(run
        .lines
        .iter()
        .any(|l| l.text.is_empty() && l.et_log.is_none()));
}

#[test]
fn no_plan_case() {
    let run = runlog::read_file(&fixtures("cpu").join("cnn2_noplan.log")).unwrap();
    assert!(run.sequences.is_empty());
    assert!(run.warnings.is_empty());
    assert_eq!(run.plans().count(), 0);
    assert_eq!(run.plan_json(0), None);
    assert_eq!(run.lines.len(), 10); // wc -l
}

#[test]
fn real_pybindings_logs() {
    let dir = fixtures("real");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("log") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let run = runlog::parse(&bytes);
        assert_eq!(
            run.lines.len(),
            bytes.iter().filter(|&&b| b == b'\n').count(),
            "{path:?}"
        );
        assert!(
            run.sequences.is_empty() && run.warnings.is_empty(),
            "{path:?}"
        );
        for line in run.lines.iter() {
            // The runtime's lines are `[<file>.cpp:<line>] ...`; `[fixture] ...` and the
            // rest are the fixture script's and Python's.
            let short = line.text.starts_with('[') && line.text.contains(".cpp:");
            assert_eq!(line.et_log.is_some(), short, "{path:?}: {:?}", line.text);
            if let Some(f) = &line.et_log {
                assert_eq!((f.level, f.time_us), (None, None));
                assert!(f.file.ends_with(".cpp") && f.line > 0, "{f:?}");
                assert!(line.text.ends_with(&f.message));
            }
        }
        seen += 1;
    }
    assert!(seen >= 5);
}

#[test]
fn read_file_reports_io_errors() {
    let err = runlog::read_file(&fixtures("cpu").join("no_such_file.log")).unwrap_err();
    assert!(!err.is_empty());
}
