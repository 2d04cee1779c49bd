//! `report ... | head` (issue #44): a closed output pipe ends the command quietly (exit 0,
//! or 141 for SIGPIPE), for every command, format and stream; a closed stderr never makes
//! a panic (exit 101) of a warning or an error line.
//!
//! The pipes here have their read end closed before the command starts, so every write
//! into them fails with EPIPE, whatever the size of the output.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// A pipe whose reader is gone.
fn closed_pipe() -> std::io::PipeWriter {
    let (r, w) = std::io::pipe().unwrap();
    drop(r);
    w
}

const TRACE: &str = "fixtures/torch/hta/ns_resolution_40ms.json.gz";
const DUMP: &str = "fixtures/cpu/cnn2_basic.etdp";

fn commands() -> Vec<Vec<&'static str>> {
    let mut v: Vec<Vec<&str>> = Vec::new();
    for format in ["json", "csv", "table", "tally"] {
        v.push(vec!["report", TRACE, "--format", format]);
    }
    for format in ["json", "csv", "table"] {
        v.push(vec!["report", DUMP, "--format", format]);
    }
    v.push(vec!["report", TRACE, "-o", "-", "--format", "json"]);
    // A magic link to the pipe (`/proc/self/fd/1` -> `pipe:[N]`), written into directly.
    v.push(vec![
        "report",
        TRACE,
        "-o",
        "/dev/stdout",
        "--format",
        "json",
    ]);
    v.push(vec![
        "report", TRACE, TRACE, "--per", "thread", "--format", "json",
    ]);
    v.push(vec!["export", TRACE, "--format", "chrome"]);
    v.push(vec!["export", DUMP, "--format", "folded"]);
    v.push(vec!["compare", DUMP, DUMP, "--format", "json"]);
    v.push(vec!["fleet", "fixtures/torch/hta", "--format", "csv"]);
    v.push(vec!["--help"]);
    v
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    for args in commands() {
        let o = Command::new(BIN)
            .args(&args)
            .stdout(closed_pipe())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let quiet = o.status.code() == Some(0) || {
            use std::os::unix::process::ExitStatusExt;
            o.status.signal() == Some(13)
        };
        assert!(quiet, "{args:?}: {:?} {err}", o.status);
        assert!(
            !err.contains("Broken pipe") && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_closed_stderr_never_panics() {
    let mut cases = commands();
    // Errors and usage errors, whose one line goes to the closed stderr.
    cases.push(vec!["report", "/nonexistent/x.json"]);
    cases.push(vec!["report", "--no-such-option"]);
    cases.push(vec!["report", "fixtures/torch"]);
    for args in cases {
        for stdout_closed in [false, true] {
            let mut c = Command::new(BIN);
            c.args(&args).stderr(closed_pipe());
            if stdout_closed {
                c.stdout(closed_pipe());
            } else {
                c.stdout(Stdio::null());
            }
            let status = c.status().unwrap();
            assert!(
                matches!(status.code(), Some(0 | 1 | 2)) || {
                    use std::os::unix::process::ExitStatusExt;
                    status.signal() == Some(13)
                },
                "{args:?} (stdout closed: {stdout_closed}): {status:?}"
            );
        }
    }
}
