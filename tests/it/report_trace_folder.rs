//! #44: `report DIR` on a folder of rank traces (HolisticTraceAnalysis' usual input: one
//! Kineto trace per rank, `*.json` / `*.json.gz`, in a folder) said "not a CTF trace
//! directory". It says how many trace files the folder holds and that `fleet DIR` (or
//! `report FILE MORE...`) reads them: one line, exit 2.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn report(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN).arg("report").args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_folder_of_rank_traces_names_the_fleet_command() {
    let dir = tempfile::tempdir().unwrap();
    // Three ranks as torch.profiler writes them (plain and gzip JSON), and a file that is
    // neither a trace nor a dump (not counted).
    std::fs::copy(
        "fixtures/torch/cnn_infer.json",
        dir.path().join("rank-0.pt.trace.json"),
    )
    .unwrap();
    std::fs::copy(
        "fixtures/torch/cnn_train.json.gz",
        dir.path().join("rank-1.pt.trace.json.gz"),
    )
    .unwrap();
    std::fs::copy(
        "fixtures/torch/recursive_steps.json",
        dir.path().join("rank-2.pt.trace.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join("notes.txt"), "run on 3 ranks\n").unwrap();
    let d = dir.path().to_str().unwrap();
    for format in ["table", "tally", "json"] {
        let (code, out, err) = report(&[d, "--format", format]);
        assert_eq!(code, Some(2), "{err}");
        assert!(out.is_empty());
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("a folder of 3 trace files"), "{err}");
        assert!(err.contains(&format!("`cpuprof-tui fleet {d}`")), "{err}");
        assert!(err.contains("report FILE MORE..."), "{err}");
        // Not the CTF search's message ("no LTTng trace in it ... holds 4 files").
        assert!(!err.contains("no LTTng trace"), "{err}");
    }
    // What the line says works: the fleet reads the 3 traces.
    let o = Command::new(BIN).args(["fleet", d]).output().unwrap();
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("fleet: 3 profiles, 0 failed"), "{text}");
}

/// A folder of dumps keeps the CTF search's line (it names the dumps and `--watch`), and
/// so does a folder of nothing readable.
#[test]
fn a_folder_of_dumps_and_a_folder_of_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        "fixtures/real/mlp_xnnpack.etdp",
        dir.path().join("run-1.etdp"),
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, _, err) = report(&[d]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("it holds 1 ETDump"), "{err}");
    assert!(!err.contains("trace file"), "{err}");

    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("a.txt"), "x").unwrap();
    let (code, _, err) = report(&[empty.path().to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a CTF trace directory"), "{err}");
    assert!(!err.contains("trace file"), "{err}");
}

/// A CTF trace directory is still read as one (the check only runs when the search finds
/// no metadata): `fixtures/thapi/ctf` is an LTTng session folder (`ust/...`).
#[test]
fn a_ctf_trace_directory_is_still_read() {
    let (code, out, err) = report(&["fixtures/thapi/ctf", "--format", "tally"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Calls"), "{out}");
}
