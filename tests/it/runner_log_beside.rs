//! #44: a runner log beside the input is looked for only when the input is an ETDump
//! (sniffed: bytes 8..12 `ED00`). `X.log` given as the input (a callgrind or V8 log) found
//! itself "beside the dump", and a trace or any other file with a `.log` of the same stem
//! got that log announced before its error.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const NOTICE: &str = "using runner log";

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A callgrind output and a V8 `--prof` log, as those tools write them (first lines).
const CALLGRIND: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.22.0\n\
pid: 4242\ncmd:  ./a.out\npart: 1\n\nevents: Ir\n\nfl=(1) main.c\nfn=(1) main\n16 3\n";
const V8_LOG: &str = "v8-version,11,3,244,8,0,0\nv8-platform,linux,linux\n\
shared-library,/usr/bin/node,0x55d0c4a00000,0x55d0c6c2a000,0\ntick,0x7f3e1,12345,0,0x0,6\n";

#[test]
fn a_log_given_as_the_input_is_not_its_own_runner_log() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("callgrind.out.log", CALLGRIND),
        ("isolate-0x1-v8.log", V8_LOG),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let p = path.to_str().unwrap();
        for args in [
            vec!["report", p],
            vec!["report", p, "--format", "json"],
            vec!["export", p, "--format", "folded"],
            vec!["compare", p, p],
        ] {
            let o = run(&args);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(!err.contains(NOTICE), "{args:?}: {err}");
            // One line naming the file.
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(err.contains(name), "{args:?}: {err}");
        }
    }
}

#[test]
fn a_trace_or_other_file_beside_a_log_gets_no_runner_log() {
    let dir = tempfile::tempdir().unwrap();
    // A torch.profiler trace with a `.log` of the same stem (the training script's log).
    let trace = dir.path().join("trace.json");
    std::fs::copy("fixtures/torch/cnn_infer.json", &trace).unwrap();
    std::fs::write(dir.path().join("trace.log"), CALLGRIND).unwrap();
    for args in [
        vec!["report", trace.to_str().unwrap(), "--format", "csv"],
        vec!["export", trace.to_str().unwrap(), "--format", "folded"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains(NOTICE), "{args:?}: {}", stderr(&o));
    }
    // A binary file that is not an ETDump (bytes 8..12 are not `ED00`) with a log.
    let other = dir.path().join("perf.data");
    std::fs::write(
        &other,
        b"PERFILE2\x68\x00\x00\x00\x00\x00\x00\x00 not an etdump",
    )
    .unwrap();
    std::fs::write(dir.path().join("perf.log"), V8_LOG).unwrap();
    let o = run(&["report", other.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.contains(NOTICE), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// The control: an ETDump with its runner log beside it still gets it (the line names the
/// log, and the report reads the warm-up count from it).
#[test]
fn an_etdump_still_finds_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("mlp.etdp");
    std::fs::copy("fixtures/real/mlp_xnnpack.etdp", &dump).unwrap();
    std::fs::copy("fixtures/real/mlp_xnnpack.log", dir.path().join("mlp.log")).unwrap();
    let o = run(&["report", dump.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = format!(
        "{NOTICE} {} (found beside the dump)",
        Path::new(dir.path()).join("mlp.log").display()
    );
    assert!(stderr(&o).contains(&expected), "{}", stderr(&o));
}
