//! `report ... | head` (issue #44): a closed output pipe ends the command quietly (exit 0,
//! or 141 for SIGPIPE), for every command, format and stream; a closed stderr never makes
//! a panic (exit 101) of a warning or an error line.
//!
//! The streams here have their read end closed before the command starts, so every
//! write into them fails with EPIPE, whatever the size of the output.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// A stream whose reader is gone (a socket pair with one end closed: writes fail with
/// EPIPE, as into a pipe whose reader left; `std::io::pipe` is newer than the MSRV).
fn closed_pipe() -> Stdio {
    let (r, w) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(r);
    Stdio::from(std::os::fd::OwnedFd::from(w))
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
                matches!(status.code(), Some(0..=2)) || {
                    use std::os::unix::process::ExitStatusExt;
                    status.signal() == Some(13)
                },
                "{args:?} (stdout closed: {stdout_closed}): {status:?}"
            );
        }
    }
}

#[test]
fn dev_stdout_into_a_pipe_whose_reader_left_ends_quietly() {
    // `/dev/stdout` -> `/proc/self/fd/1` -> `pipe:[N]`, a magic link opened by its path.
    // The JSON (112 KB) outgrows the pipe (64 KB) and `true` reads none of it: EPIPE.
    let o = Command::new("bash")
        .args([
            "-c",
            "set -o pipefail; \"$0\" report \"$1\" --format json -o /dev/stdout | true",
            BIN,
            TRACE,
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0 | 141)),
        "{:?} {err}",
        o.status
    );
    assert!(
        !err.contains("not writable") && !err.contains("Broken pipe"),
        "{err}"
    );
}
