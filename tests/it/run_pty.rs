//! `cpuprof-tui run` in the explorer (a pseudo-terminal through `cpuprof_testkit::pty`)
//! with the fake runner: the watch view of OUT opens at once and shows the run's profile;
//! `q` while the runner runs restores the terminal first, then stops the runner (SIGINT,
//! then SIGTERM after the grace period); `--keep-running` leaves it alive; a signal to
//! cpuprof-tui reaches the runner's process group and restores the terminal.
#![cfg(unix)]

use crate::support::pty;

use std::path::Path;
use std::time::{Duration, Instant};

use pty::Session;

const ROWS: u16 = 36;
const COLS: u16 = 120;
const RUNNER: &str = "tests/support/fake_runner.sh";

fn start(out: &Path, extra: &[&str], runner: &[&str]) -> Session {
    let out = out.to_str().unwrap();
    let mut args = vec!["run", "--out", out];
    args.extend_from_slice(extra);
    args.push("--");
    args.push(RUNNER);
    args.extend_from_slice(runner);
    Session::start(ROWS, COLS, &args)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn wait_file(path: &Path, ok: impl Fn(&str) -> bool, what: &str) {
    let deadline = Instant::now() + pty::PATIENCE;
    while !ok(&read(path)) {
        assert!(
            Instant::now() < deadline,
            "{what}: {} says {:?}",
            path.display(),
            read(path)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pid_alive(pid: i32) -> bool {
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn the_explorer_shows_each_run_as_it_lands() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = start(dir.path(), &["--warmup", "3", "--repeat", "2"], &[]);
    // Both runs listed with their profile; the first is the change column's baseline.
    let screen = s.wait_for(&[
        "run-2.etdp",
        "run-1.etdp",
        "baseline",
        "Method::execute median 33.5 µs",
    ]);
    assert!(
        screen.contains("runs 20 kept, 3 warm-up dropped (of 23)"),
        "{screen}"
    );
    // The live pane stays after the last run, with how it ended (#47).
    s.wait_for(&["runner done: 2 runs", "done, exit 0"]);
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 0);
    s.assert_restored("after q");
}

#[test]
fn q_while_the_runner_runs_restores_the_terminal_then_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("got");
    let mut s = start(
        dir.path(),
        &["--grace", "1.5"],
        &["--mode", "stubborn", "--record", record.to_str().unwrap()],
    );
    // The live pane shows the runner's log as it is written.
    s.wait_for(&["runner · run 1/1 · running", "waiting for a signal"]);
    s.send("q");
    // The terminal is back while the runner is still in its grace period (it ignores
    // SIGINT), before cpuprof-tui has exited.
    wait_file(&record, |t| t.contains("INT"), "SIGINT first");
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "exited before the grace period"
    );
    s.assert_restored("q while running");
    // Then SIGTERM ends it; the exit status is the runner's (143 = 128 + SIGTERM).
    assert_eq!(s.wait_exit().exit_code(), 143);
    assert_eq!(
        read(&record).split_whitespace().collect::<Vec<_>>(),
        ["INT", "TERM"]
    );
    let out = String::from_utf8_lossy(&s.final_output()).into_owned();
    assert!(
        out.contains("stopped the runner (SIGINT, then SIGTERM)"),
        "{out}"
    );
}

#[test]
fn keep_running_leaves_the_runner_alive() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("got");
    let mut s = start(
        dir.path(),
        &["--keep-running"],
        &["--mode", "wait", "--record", record.to_str().unwrap()],
    );
    s.wait_for(&["waiting for a signal"]);
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 0);
    s.assert_restored("keep running");
    let out = String::from_utf8_lossy(&s.final_output()).into_owned();
    let pid: i32 = out
        .split("keeps running (pid ")
        .nth(1)
        .and_then(|t| t.split(',').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {out:?}"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(pid_alive(pid), "the runner was stopped");
    assert_eq!(read(&record), "", "the runner got a signal");
    // Its log still grows after cpuprof-tui is gone: stop it, it writes its dump.
    unsafe { libc::kill(-pid, libc::SIGINT) };
    wait_file(&record, |t| t.contains("INT"), "the runner's own record");
    let dump = dir.path().join("run-1.etdp");
    let deadline = Instant::now() + pty::PATIENCE;
    while !dump.is_file() {
        assert!(
            Instant::now() < deadline,
            "no dump after the runner was stopped"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_signal_in_the_explorer_reaches_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("got");
    let mut s = start(
        dir.path(),
        &[],
        &["--mode", "wait", "--record", record.to_str().unwrap()],
    );
    s.wait_for(&["waiting for a signal"]);
    s.signal(libc::SIGTERM);
    assert_eq!(s.wait_exit().exit_code(), 128 + libc::SIGTERM as u32);
    s.assert_restored("SIGTERM");
    assert_eq!(read(&record).trim(), "TERM");
}

#[test]
fn a_run_without_a_dump_is_said_in_the_pane_and_after_q() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = start(dir.path(), &[], &["--mode", "fail:4"]);
    s.wait_for(&["exit status 4", "wrote no dump"]);
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 4);
    s.assert_restored("no dump");
    let out = String::from_utf8_lossy(&s.final_output()).into_owned();
    assert!(out.contains("the model failed to load"), "{out}");
}

#[test]
fn ctrl_c_with_no_tui_reaches_the_runner_once() {
    // On a terminal with --no-tui the runner shares our process group: the terminal's
    // Ctrl-C reaches it directly and is not forwarded a second time; after the grace
    // period the runner (which ignores SIGINT) gets SIGTERM.
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("got");
    let mut s = start(
        dir.path(),
        &["--no-tui", "--grace", "1"],
        &["--mode", "stubborn", "--record", record.to_str().unwrap()],
    );
    s.wait_for(&["waiting for a signal"]);
    s.send("\x03");
    assert_eq!(s.wait_exit().exit_code(), 128 + libc::SIGINT as u32);
    assert_eq!(
        read(&record).split_whitespace().collect::<Vec<_>>(),
        ["INT", "TERM"]
    );
}

#[test]
fn baseline_is_pinned_in_the_runs_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = start(
        dir.path(),
        &["--warmup", "3", "--baseline", "fixtures/cpu/mlp_basic.etdp"],
        &[],
    );
    s.wait_for(&["run-1.etdp", "mlp_basic.etdp"]);
    // The saved dump's row says `baseline`; the run's change is against it (the same
    // samples: no significant change, +0.0%).
    s.wait_until("the baseline row", |sc| {
        let text = sc.contents();
        text.lines()
            .any(|l| l.contains("mlp_basic.etdp") && l.contains("baseline"))
            && text
                .lines()
                .any(|l| l.contains("run-1.etdp") && l.contains("~+0.0%"))
    });
    s.send("q");
    assert_eq!(s.wait_exit().exit_code(), 0);
    s.assert_restored("baseline");
}
