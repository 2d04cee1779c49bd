//! `report ... | head` and a closed standard error (#44): a reader that goes away ends the
//! command quietly (exit 0, or 141 / SIGPIPE), for every format and stream; a standard
//! error whose reader is gone never makes a panic (exit 101) of a warning line.
//!
//! "Closed" here is a pipe whose read end was dropped (writes fail with EPIPE), not
//! `Stdio::null()` (which takes every byte).

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const DUMP: &str = "fixtures/real/mlp_xnnpack.etdp";
const TRACE: &str = "fixtures/torch/cnn_train.json.gz";
const HTA: &str = "fixtures/torch/hta/ns_resolution_40ms.json.gz";

/// Every output a user pipes into `head`: each report format of a dump and of a trace,
/// both exports, compare, fleet, and `--samples -` (the one written by
/// `output::write_atomic_with`), and `-o /dev/stdout`. The chrome export of the trace (113 KB), the fleet's
/// samples (2 MB) and the fleet CSV (138 KB) are larger than a pipe's 64 KiB, so their
/// writer is still writing when the reader goes: those get EPIPE for sure.
fn commands() -> Vec<Vec<&'static str>> {
    let mut all: Vec<Vec<&str>> = Vec::new();
    for f in ["table", "csv", "json"] {
        all.push(vec!["report", DUMP, "--format", f]);
    }
    for f in ["table", "csv", "json", "tally"] {
        all.push(vec!["report", TRACE, "--format", f]);
    }
    for input in [DUMP, TRACE] {
        for f in ["chrome", "folded"] {
            all.push(vec!["export", input, "--format", f]);
        }
    }
    // `-o /dev/stdout`: a device path leading to the pipe (written as a stream).
    all.push(vec![
        "export",
        TRACE,
        "--format",
        "chrome",
        "-o",
        "/dev/stdout",
    ]);
    all.push(vec![
        "report",
        DUMP,
        "--format",
        "json",
        "-o",
        "/dev/stdout",
    ]);
    all.push(vec!["compare", DUMP, DUMP]);
    all.push(vec!["compare", DUMP, DUMP, "--format", "json"]);
    all.push(vec!["compare", TRACE, TRACE, "--format", "csv"]);
    // A real Kineto trace (epoch timestamps), `-o -`, several traces `--per` thread, the
    // fleet of a folder of rank traces, and the usage text.
    all.push(vec!["report", HTA, "-o", "-", "--format", "json"]);
    all.push(vec![
        "report", HTA, HTA, "--per", "thread", "--format", "json",
    ]);
    all.push(vec!["fleet", "fixtures/torch/hta", "--format", "csv"]);
    all.push(vec!["--help"]);
    all.push(vec!["fleet", "fixtures/fleet"]);
    all.push(vec!["fleet", "fixtures/fleet", "--format", "csv"]);
    all.push(vec![
        "fleet",
        "fixtures/fleet",
        "--format",
        "csv",
        "-o",
        "/dev/null",
        "--samples",
        "-",
    ]);
    all
}

fn quiet_end(status: ExitStatus) -> bool {
    status.code() == Some(0) || status.signal() == Some(13)
}

/// Lines of stderr that are neither the run's own warnings nor the runner-log notice: an
/// error about the write, a panic.
fn unexpected_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            !l.starts_with("cpuprof-tui: warning:")
                && !l.starts_with("cpuprof-tui: using runner log")
                && !l.ends_with("profiles could not be read (listed with their errors)")
        })
        .collect()
}

#[test]
fn a_closed_stdout_ends_quietly() {
    for args in commands() {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 3];
        out.read_exact(&mut first).unwrap();
        drop(out);
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(quiet_end(status), "{args:?}: {status:?}\n{stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            unexpected_lines(&stderr).is_empty(),
            "{args:?}: {:?}",
            unexpected_lines(&stderr)
        );
    }
}

/// The same commands with a normal stdout and a standard error nobody reads: the whole
/// output, exit 0, no panic (before #44, every command that printed a warning or the
/// runner-log line exited 101 here).
#[test]
fn a_closed_stderr_never_panics() {
    for args in commands() {
        let expected = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .unwrap();
        assert!(expected.status.success(), "{args:?}: {:?}", expected.status);
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let mut out = Vec::new();
        child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{args:?}: {status:?}");
        // The same report (a fleet table and a compare hold no timing of this run).
        assert_eq!(out.len(), expected.stdout.len(), "{args:?}");
    }
}

/// Both streams closed, and the error paths (a file that does not exist, a bad option):
/// their line is lost with the stream, their status is kept (2, not a panic's 101).
#[test]
fn both_closed_and_errors_keep_their_status() {
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["report", DUMP, "--format", "json"], 0),
        (vec!["report", TRACE, "--format", "tally"], 0),
        (vec!["export", TRACE, "--format", "chrome"], 0),
        (vec!["report", "fixtures/no-such-file.etdp"], 2),
        (vec!["report", DUMP, "--no-such-option"], 2),
        (vec!["report", "fixtures/real/bad_truncated.etdp"], 2),
        (vec!["report", "fixtures/torch"], 2),
    ];
    for (args, code) in cases {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        let _ = out.read(&mut first);
        drop(out);
        let status = child.wait().unwrap();
        if code == 0 {
            assert!(quiet_end(status), "{args:?}: {status:?}");
        } else {
            assert_eq!(status.code(), Some(code), "{args:?}: {status:?}");
        }
    }
}
