//! The ETDump reader against dumps written by the ExecuTorch 1.5.1 runtime, checked against
//! executorch's own parse of the same files (`*.etdump.json`), the fixture READMEs and the
//! truth files of the synthetic CpuBackend fixtures.

use std::collections::BTreeMap;
use std::path::PathBuf;

use cpuprof_tui::etdump::{self, DelegateId, EtDump, EtDumpError};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn read(rel: &str) -> EtDump {
    etdump::read_file(&fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn json(rel: &str) -> Value {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn hex_decode(s: &str) -> Vec<u8> {
    assert!(s.len() % 2 == 0, "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every RunData and every event of `<name>.etdp` equals executorch's own parse of it.
fn check_against_executorch_parse(name: &str) {
    let dump = read(&format!("real/{name}.etdp"));
    let golden = json(&format!("real/{name}.etdump.json"));

    assert_eq!(
        dump.version as u64,
        golden["version"].as_u64().unwrap(),
        "{name}: version"
    );
    let runs = golden["run_data"].as_array().unwrap();
    assert_eq!(dump.blocks.len(), runs.len(), "{name}: number of RunData");

    let (mut total_debug, mut total_alloc) = (0, 0);
    for (b, (block, run)) in dump.blocks.iter().zip(runs).enumerate() {
        let ctx = format!("{name}: run_data[{b}]");
        assert_eq!(
            block.name,
            run["name"].as_str().unwrap_or(""),
            "{ctx}: name"
        );
        assert_eq!(
            block.bundled_input_index as i64,
            run["bundled_input_index"].as_i64().unwrap(),
            "{ctx}: bundled_input_index"
        );
        let events = run["events"].as_array().map(Vec::as_slice).unwrap_or(&[]);
        let profile: Vec<&Value> = events.iter().filter(|e| e["kind"] == "profile").collect();
        let debug = events.iter().filter(|e| e["kind"] == "debug").count();
        let alloc = events.iter().filter(|e| e["kind"] == "allocation").count();
        assert_eq!(
            profile.len() + debug + alloc,
            events.len(),
            "{ctx}: unknown kind in golden"
        );
        assert_eq!(block.debug_events, debug, "{ctx}: debug events");
        assert_eq!(block.allocation_events, alloc, "{ctx}: allocation events");
        total_debug += debug;
        total_alloc += alloc;

        let ours = dump.block_events(block);
        assert_eq!(ours.len(), profile.len(), "{ctx}: profile events");
        for (i, (ev, want)) in ours.iter().zip(&profile).enumerate() {
            let ctx = format!("{ctx}.events[{i}]");
            assert_eq!(dump.name(ev), want["name"].as_str(), "{ctx}: name");
            assert_eq!(
                ev.chain_index as i64,
                want["chain_index"].as_i64().unwrap(),
                "{ctx}: chain_index"
            );
            assert_eq!(
                ev.instruction_id as i64,
                want["instruction_id"].as_i64().unwrap(),
                "{ctx}: instruction_id"
            );
            assert_eq!(
                ev.start_ticks,
                want["start_time"].as_u64().unwrap(),
                "{ctx}: start"
            );
            assert_eq!(
                ev.end_ticks,
                want["end_time"].as_u64().unwrap(),
                "{ctx}: end"
            );

            // Delegate id rule (formats.md §2): non-empty str, else int unless -1.
            let want_str = want["delegate_debug_id_str"]
                .as_str()
                .filter(|s| !s.is_empty());
            let want_int = want["delegate_debug_id_int"].as_i64().unwrap();
            match (ev.delegate_id, want_str) {
                (Some(DelegateId::Str(id)), Some(s)) => {
                    assert_eq!(dump.names.get(id), s, "{ctx}: delegate str")
                }
                (Some(DelegateId::Int(i)), None) => {
                    assert_eq!(i as i64, want_int, "{ctx}: delegate int")
                }
                (None, None) => assert_eq!(want_int, -1, "{ctx}: delegate int"),
                (got, _) => panic!("{ctx}: delegate id {got:?}, golden {want_str:?}/{want_int}"),
            }

            let want_meta = match &want["delegate_debug_metadata"] {
                Value::Null => None,
                v => Some(hex_decode(v["hex"].as_str().unwrap())),
            };
            assert_eq!(
                dump.metadata_bytes(ev).map(<[u8]>::to_vec),
                want_meta,
                "{ctx}: metadata"
            );
        }
    }
    assert_eq!(dump.skipped.debug, total_debug, "{name}: skipped debug");
    assert_eq!(
        dump.skipped.allocation, total_alloc,
        "{name}: skipped allocation"
    );
    assert_eq!(dump.skipped.empty, 0, "{name}: empty events");
}

#[test]
fn mlp_xnnpack_matches_executorch_parse() {
    check_against_executorch_parse("mlp_xnnpack");
}

#[test]
fn cnn_portable_matches_executorch_parse() {
    check_against_executorch_parse("cnn_portable");
}

#[test]
fn mlp_portable_debugbuf_matches_executorch_parse() {
    check_against_executorch_parse("mlp_portable_debugbuf");
}

/// Counts by name from `<name>.summary.json` (written by the fixture harness, which keys
/// delegate events as `<delegate id_str='…' id_int=…>`).
fn check_summary(name: &str) {
    let dump = read(&format!("real/{name}.etdp"));
    let summary = json(&format!("real/{name}.summary.json"));
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for ev in &dump.events {
        let key = match ev.delegate_id {
            Some(DelegateId::Str(id)) => {
                format!("<delegate id_str='{}' id_int=-1>", dump.names.get(id))
            }
            Some(DelegateId::Int(i)) => format!("<delegate id_str='None' id_int={i}>"),
            None => dump.name(ev).unwrap_or("").to_owned(),
        };
        *counts.entry(key).or_default() += 1;
    }
    if dump.skipped.debug > 0 {
        counts.insert("debug:None".into(), dump.skipped.debug as u64);
    }
    let want: BTreeMap<String, u64> = summary["event_counts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(counts, want, "{name}: counts by label");
    let total = dump.events.len() + dump.skipped.debug + dump.skipped.allocation;
    assert_eq!(total as u64, summary["total_events"].as_u64().unwrap());
    let mut runs: BTreeMap<String, u64> = BTreeMap::new();
    for b in &dump.blocks {
        *runs.entry(b.name.to_string()).or_default() += 1;
    }
    let want_runs: BTreeMap<String, u64> = summary["runs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    assert_eq!(runs, want_runs, "{name}: runs");
}

#[test]
fn real_event_counts_match_summaries() {
    for name in ["mlp_xnnpack", "cnn_portable", "mlp_portable_debugbuf"] {
        check_summary(name);
    }
}

/// Facts stated in fixtures/real/README.md and formats.md §1.
#[test]
fn real_layout_facts() {
    for name in ["mlp_xnnpack", "cnn_portable", "mlp_portable_debugbuf"] {
        let dump = read(&format!("real/{name}.etdp"));
        assert_eq!(dump.version, 0, "{name}");
        assert_eq!(dump.blocks.len(), 14, "{name}: 1 Default + 13 Execute");
        assert_eq!(dump.blocks[0].name, "Default");
        assert!(dump.blocks[1..].iter().all(|b| b.name == "Execute"));
        assert!(dump.blocks.iter().all(|b| b.bundled_input_index == -1));

        let default: Vec<_> = dump
            .block_events(&dump.blocks[0])
            .iter()
            .map(|e| (dump.name(e), e.chain_index, e.instruction_id))
            .collect();
        assert_eq!(
            default,
            [
                (Some("Method::init"), -1, 0),
                (Some("Program::load_method"), -1, 0)
            ],
            "{name}"
        );
        // load_method encloses init (appended when it ends).
        let d = dump.block_events(&dump.blocks[0]);
        assert!(d[1].start_ticks <= d[0].start_ticks && d[0].end_ticks <= d[1].end_ticks);

        for block in &dump.blocks[1..] {
            let evs = dump.block_events(block);
            let last = evs.last().unwrap();
            assert_eq!(dump.name(last), Some("Method::execute"), "{name}");
            assert_eq!((last.chain_index, last.instruction_id), (-1, 0));
            for e in &evs[..evs.len() - 1] {
                assert_eq!(e.chain_index, 0, "{name}");
                assert!(last.start_ticks <= e.start_ticks && e.end_ticks <= last.end_ticks);
            }
            for e in evs {
                // Delegate events have no name and always carry (empty) metadata; others
                // have a name and no metadata.
                match e.delegate_id {
                    Some(_) => {
                        assert_eq!(e.name, None);
                        assert_eq!(dump.metadata_bytes(e), Some(&[][..]));
                    }
                    None => {
                        assert!(e.name.is_some());
                        assert_eq!(e.metadata, None);
                    }
                }
            }
        }
    }
    // XNNPACK per-op events: str ids, whole µs, contiguous, inside DELEGATE_CALL.
    let dump = read("real/mlp_xnnpack.etdp");
    for block in &dump.blocks[1..] {
        let evs = dump.block_events(block);
        let labels: Vec<_> = evs.iter().map(|e| dump.label(e).into_owned()).collect();
        assert_eq!(
            labels,
            [
                "Fully Connected (NC, F32) GEMM #1",
                "Fully Connected (NC, F32) GEMM #2",
                "Fully Connected (NC, F32) GEMM #3",
                "DELEGATE_CALL",
                "Method::execute"
            ]
        );
        for w in evs[..3].windows(2) {
            assert_eq!(w[0].end_ticks, w[1].start_ticks);
        }
        for e in &evs[..3] {
            assert!(matches!(e.delegate_id, Some(DelegateId::Str(_))));
            assert_eq!((e.end_ticks - e.start_ticks) % 1000, 0);
            assert!(evs[3].start_ticks <= e.start_ticks && e.end_ticks <= evs[3].end_ticks);
        }
    }
    // 9 DebugEvents per Execute run in the debug-buffer dump.
    let dump = read("real/mlp_portable_debugbuf.etdp");
    assert_eq!(dump.blocks[0].debug_events, 0);
    assert!(dump.blocks[1..].iter().all(|b| b.debug_events == 9));
    assert_eq!(dump.skipped.debug, 117);
}

#[test]
fn cpu_fixtures_match_truth() {
    for case in [
        "mlp_basic",
        "cnn2_basic",
        "wide_browse",
        "cnn2_noplan",
        "mlp_w0_t1",
        "cnn2_crlf_noise",
    ] {
        let dump = read(&format!("cpu/{case}.etdp"));
        let truth = json(&format!("cpu/{case}.truth.json"));
        let want_names: Vec<&str> = truth["etdump"]["run_data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let names: Vec<&str> = dump.blocks.iter().map(|b| b.name.as_ref()).collect();
        assert_eq!(names, want_names, "{case}: run_data names");
        assert_eq!(
            dump.events.len() as u64,
            truth["etdump"]["events_total"].as_u64().unwrap(),
            "{case}: events_total"
        );
        let runs = truth["runs_total"].as_u64().unwrap();
        assert_eq!(dump.blocks.len() as u64, runs + 1, "{case}: Default + runs");
        assert_eq!(
            dump.skipped,
            Default::default(),
            "{case}: ProfileEvents only"
        );
        // One Method::execute per Execute block, with the truth's duration per run.
        let mut exec = Vec::new();
        for b in &dump.blocks[1..] {
            for e in dump.block_events(b) {
                if dump.name(e) == Some("Method::execute") {
                    exec.push(e.end_ticks - e.start_ticks);
                }
            }
        }
        let me = &truth["method_execute"];
        let want: Vec<u64> = me["warmup_samples_ns"]
            .as_array()
            .unwrap()
            .iter()
            .chain(me["samples_ns"].as_array().unwrap())
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(exec, want, "{case}: Method::execute durations (ns)");
        // Load block: init and load_method durations, and the load window.
        let d = dump.block_events(&dump.blocks[0]);
        let ms = |e: &etdump::ProfileEvent| (e.end_ticks - e.start_ticks) as f64 / 1e6;
        assert_eq!(ms(&d[0]), truth["load"]["method_init_ms"].as_f64().unwrap());
        assert_eq!(
            ms(&d[1]),
            truth["load"]["program_load_method_ms"].as_f64().unwrap()
        );
        assert_eq!(
            d[1].start_ticks,
            truth["clock"]["load_start_ns"].as_u64().unwrap()
        );
        assert_eq!(
            d[1].end_ticks,
            truth["clock"]["load_end_ns"].as_u64().unwrap()
        );
    }
}

fn read_err(rel: &str) -> EtDumpError {
    match etdump::read_file(&fixture(rel)) {
        Ok(_) => panic!("{rel}: parsed"),
        Err(e) => e,
    }
}

#[test]
fn bad_empty_is_not_etdump() {
    assert_eq!(
        read_err("real/bad_empty.etdp"),
        EtDumpError::NotEtDump("empty file".into())
    );
}

#[test]
fn bad_truncated_header_is_not_etdump() {
    match read_err("real/bad_truncated_header.etdp") {
        EtDumpError::NotEtDump(m) => assert!(m.starts_with("only 6 bytes"), "{m}"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_wrong_identifier_is_not_etdump() {
    assert_eq!(
        read_err("real/bad_wrong_identifier.etdp"),
        EtDumpError::NotEtDump("identifier is \"XX00\", expected \"ED00\"".into())
    );
}

#[test]
fn bad_no_size_prefix_is_not_etdump() {
    match read_err("real/bad_no_size_prefix.etdp") {
        EtDumpError::NotEtDump(m) => assert!(m.contains("no size prefix"), "{m}"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn bad_truncated_is_incomplete() {
    // README: first half (2,972 bytes) of mlp_xnnpack.etdp, prefix still says 5,940.
    assert_eq!(
        read_err("real/bad_truncated.etdp"),
        EtDumpError::Incomplete {
            declared: 5940,
            available: 2968
        }
    );
}

#[test]
fn bad_flipped_is_corrupt() {
    // Diffing bad_flipped.etdp against mlp_xnnpack.etdp: 64 bytes differ; the first flip
    // the verifier can see is byte 5651, 'l' -> 0xE2 inside "Fully Connected (NC, F32)
    // GEMM #1" (string bytes 5648..5681), the delegate id of run 1's first event. The
    // others hit timestamps, padding and vtable slots it cannot tell from valid data.
    let original = std::fs::read(fixture("real/mlp_xnnpack.etdp")).unwrap();
    let flipped = std::fs::read(fixture("real/bad_flipped.etdp")).unwrap();
    assert_eq!(&original[5648..5681], b"Fully Connected (NC, F32) GEMM #1");
    assert_eq!(flipped[5651], 0xE2);
    match read_err("real/bad_flipped.etdp") {
        EtDumpError::Corrupt(m) => {
            assert!(
                m.contains("ETDump.run_data[1].events[0].profile_event.delegate_debug_id_str"),
                "{m}"
            );
            assert!(m.contains("Utf8 error") && m.contains("5648..5681"), "{m}");
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn missing_file_is_io() {
    assert_eq!(read_err("real/no_such_file.etdp").kind(), "io");
}
