//! Round 3 of the hostile inputs (issue #45, `fixtures/hostile/README.md` "Round 3"), the
//! cases of `run`, `--watch`, the clipboard and the options: runners that leave a FIFO or
//! a directory where the dump or the log should be, that leave a worker of their process
//! group behind, that flood their standard error; a FIFO swapped in at a watched dump's
//! path; an ETRecord whose source paths hold newlines (`c` copies them); `--grace -1`.
//! Every case has a time budget: a hang fails the test instead of the whole run. The
//! budgets are loose (a 2-core machine running the suite); what they catch are hangs and
//! waits of many seconds, which is what each case did before.
#![cfg(unix)]

use crate::support::pty;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use pty::Session;

use crate::support::child;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const ROWS: u16 = 36;
const COLS: u16 = 120;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The binary with `args`, killed (and the test failed) after `limit`.
fn run_within(limit: Duration, args: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_with_timeout(child, limit, args);
    (out, t0.elapsed())
}

fn wait_with_timeout(child: Child, limit: Duration, args: &[&str]) -> Output {
    child::wait_with_timeout_for(child, limit, &format!("{args:?}"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Alive and not a zombie (a killed process waits for its reaper a moment).
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) S ...`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
        Err(_) => false,
    }
}

fn wait_for_file(path: &Path, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if !text.trim().is_empty() {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "{} never written",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A `run` session in a pseudo-terminal, from the crate's folder.
fn start_run(out: &Path, extra: &[&str], command: &[&str]) -> Session {
    let mut args = vec!["run", "--out", s(out)];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend_from_slice(command);
    Session::start(ROWS, COLS, &args)
}

/// `q`, then the exit status and how long it took.
fn quit(session: &mut Session) -> (u32, Duration) {
    let t0 = Instant::now();
    session.send("q");
    let code = session.wait_exit().exit_code();
    (code, t0.elapsed())
}

// ---- runmsg ------------------------------------------------------------------------

#[test]
fn what_the_runner_left_at_the_dump_path_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    for (script, want) in [
        (
            r#"mkdir "$ET_CPU_ETDUMP""#,
            "the runner left a directory, not a dump (exit status 0)",
        ),
        (
            r#"ln -s /dev/zero "$ET_CPU_ETDUMP""#,
            "the runner left a symbolic link to a character device, not a dump",
        ),
        (
            r#"ln -s . "$ET_CPU_ETDUMP""#,
            "the runner left a symbolic link to a directory, not a dump",
        ),
    ] {
        let (o, took) = run_within(
            Duration::from_secs(30),
            &[
                "run",
                "--no-tui",
                "--out",
                s(&out),
                "--",
                "sh",
                "-c",
                script,
            ],
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{script}: {e}");
        assert_eq!(e.lines().count(), 1, "{script}: {e}");
        assert!(e.contains(want), "{script}: {e}");
        // Neither the size of a directory entry nor "an empty dump" of /dev/zero.
        assert!(!e.contains("too short") && !e.contains("empty dump"), "{e}");
        assert!(took < Duration::from_secs(20), "{script}: {took:?}");
    }
}

// ---- runfifo -----------------------------------------------------------------------

#[test]
fn a_fifo_at_the_dump_path_is_one_line_never_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let (o, took) = run_within(
        Duration::from_secs(30),
        &[
            "run",
            "--no-tui",
            "--out",
            s(&out),
            "--",
            "sh",
            "-c",
            r#"mkfifo "$ET_CPU_ETDUMP""#,
        ],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("run-1.etdp: the runner left a FIFO, not a dump (exit status 0)"),
        "{e}"
    );
    // Before: blocked in open() of the FIFO until killed.
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[test]
fn a_fifo_at_the_log_path_is_said_and_the_dump_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let src = fixture("cpu/mlp_basic.etdp");
    let (o, took) = run_within(
        Duration::from_secs(60),
        &[
            "run",
            "--no-tui",
            "--warmup",
            "3",
            "--format",
            "json",
            "--out",
            s(&out),
            "--",
            "sh",
            "-c",
            r#"L=${ET_CPU_ETDUMP%.etdp}.log; cp "$0" "$ET_CPU_ETDUMP"; rm "$L"; mkfifo "$L""#,
            s(&src),
        ],
    );
    let e = stderr(&o);
    assert!(o.status.code().is_some_and(|c| c <= 2), "{e}");
    assert!(
        e.contains("run-1.log: the runner left a FIFO, not a log; the dump is reported without it"),
        "{e}"
    );
    // The dump itself is reported: mlp_basic has 23 Execute runs (its README), 3 dropped.
    let v: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|err| panic!("{err}: {}", String::from_utf8_lossy(&o.stdout)));
    assert_eq!(v["runs"]["kept"], 20, "{v}");
    assert!(took < Duration::from_secs(45), "{took:?}");
}

#[test]
fn a_fifo_at_the_dump_path_in_the_explorer_then_q() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = start_run(
        dir.path(),
        &["--grace", "0.5"],
        &["sh", "-c", r#"mkfifo "$ET_CPU_ETDUMP""#],
    );
    // Said on the pane while the explorer is open...
    session.wait_for(&["a FIFO, not a dump"]);
    let (code, took) = quit(&mut session);
    // ... and after q, exit 2 (the runner exited 0 without a dump), without a hang.
    assert_eq!(code, 2);
    assert!(took < Duration::from_secs(10), "{took:?}");
    session.assert_restored("FIFO at the dump");
    let out = String::from_utf8_lossy(&session.final_output()).into_owned();
    assert!(out.contains("the runner left a FIFO, not a dump"), "{out}");
}

// ---- orphan ------------------------------------------------------------------------

/// A runner that writes its dump and starts a worker in its process group that ignores
/// SIGINT and SIGTERM (its pid in `worker.pid`); then waits for SIGINT (`stay`) or exits
/// at once.
fn orphan_runner(dir: &Path, stay: bool) -> PathBuf {
    let script = dir.join("runner.sh");
    let tail = if stay {
        "trap 'exit 130' INT\nwhile :; do sleep 0.1; done\n"
    } else {
        "exit 0\n"
    };
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncp '{}' \"$ET_CPU_ETDUMP\"\n\
             sh -c 'trap \"\" INT TERM; echo $$ > \"$0\"; while :; do sleep 0.1; done' '{}' &\n{tail}",
            s(&fixture("cpu/mlp_basic.etdp")),
            s(&dir.join("worker.pid")),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    script
}

/// The worker's pid, once it has written it.
fn worker_pid(dir: &Path) -> i32 {
    wait_for_file(&dir.join("worker.pid"), pty::PATIENCE)
        .trim()
        .parse()
        .unwrap()
}

/// The worker is gone within `limit`; if not, it is killed (this test started it) and
/// the test fails.
fn assert_worker_ended(pid: i32, limit: Duration, what: &str) {
    let deadline = Instant::now() + limit;
    while alive(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if alive(pid) {
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("{what}: the runner's worker (pid {pid}, same process group) is still alive");
    }
}

#[test]
fn q_ends_the_whole_process_group_of_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    let runner = orphan_runner(dir.path(), true);
    let out = dir.path().join("o");
    let mut session = start_run(&out, &["--grace", "0.5"], &[s(&runner)]);
    let pid = worker_pid(dir.path());
    session.wait_for(&["run-1.etdp"]);
    let (code, took) = quit(&mut session);
    // SIGINT ends the runner (130); the worker ignores SIGINT and SIGTERM: SIGKILL after
    // two grace periods of 0.5 s.
    assert_eq!(code, 130);
    assert_worker_ended(pid, Duration::from_secs(5), "q");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let text = String::from_utf8_lossy(&session.final_output()).into_owned();
    assert!(
        text.contains("stopped the runner (SIGINT, then SIGTERM, then SIGKILL)"),
        "{text}"
    );
}

#[test]
fn a_signal_after_the_runner_exited_still_ends_its_group() {
    for (how, sig) in [("q", 0), ("SIGTERM", libc::SIGTERM)] {
        let dir = tempfile::tempdir().unwrap();
        let runner = orphan_runner(dir.path(), false);
        let out = dir.path().join("o");
        let mut session = start_run(&out, &["--grace", "0.5"], &[s(&runner)]);
        let pid = worker_pid(dir.path());
        // The runner has exited (its status is on the pane, its dump listed).
        session.wait_for(&["run-1.etdp"]);
        std::thread::sleep(Duration::from_millis(300));
        let t0 = Instant::now();
        let code = if sig == 0 {
            quit(&mut session).0
        } else {
            session.signal(sig);
            session.wait_exit().exit_code()
        };
        assert_eq!(code, if sig == 0 { 0 } else { 128 + sig as u32 }, "{how}");
        assert_worker_ended(pid, Duration::from_secs(5), how);
        assert!(t0.elapsed() < Duration::from_secs(10), "{how}");
        session.assert_restored(how);
        if sig == 0 {
            let text = String::from_utf8_lossy(&session.final_output()).into_owned();
            assert!(
                text.contains(
                    "stopped what the runner left running in its process group \
                     (SIGINT, then SIGTERM, then SIGKILL)"
                ),
                "{text}"
            );
        }
    }
}

// ---- slowquit ----------------------------------------------------------------------

#[test]
fn q_exits_at_once_under_a_stderr_flood() {
    let dir = tempfile::tempdir().unwrap();
    // 20 MB of blank lines on standard error: the pane split them one at a time off the
    // front of a string (~15 s of work, waited for after q).
    let mut session = start_run(
        dir.path(),
        &[],
        &["sh", "-c", r#"yes "" | head -c 20000000 >&2"#],
    );
    session.wait_for(&["runner ·"]);
    std::thread::sleep(Duration::from_millis(500));
    let (code, took) = quit(&mut session);
    // The runner exited 0 without a dump.
    assert_eq!(code, 2);
    assert!(took < Duration::from_secs(5), "q took {took:?}");
    session.assert_restored("flood");
}

// ---- watchfifo ---------------------------------------------------------------------

/// A dump announced complete, then swapped for a FIFO before the worker loads it (or a
/// FIFO at its log's path): the load is refused at once, naming a FIFO, instead of
/// waiting for a writer in `open` (the loader thread then never finished and the runs
/// list's queue stalled behind it). Run on a thread so the old behaviour fails the test
/// instead of hanging it.
#[test]
fn a_watched_dump_or_log_swapped_for_a_fifo_is_refused_by_the_loader_without_waiting() {
    use cpuprof_tui::watch::DumpPair;
    use std::sync::atomic::AtomicBool;
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("run.etdp");
    let log = dir.path().join("run.log");
    std::fs::copy(fixture("real/mlp_xnnpack.etdp"), &dump).unwrap();
    let pair = DumpPair {
        etdump: dump.clone(),
        log: Some(log.clone()),
        modified: std::time::SystemTime::now(),
        size: 0,
    };
    let load = |request: cpuprof_tui::profile::ProfileRequest| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let r =
                cpuprof_tui::source::load_source(&request, &mut |_| {}, &AtomicBool::new(false));
            let _ = tx.send(r.map(|_| ()).map_err(|e| e.to_string()));
        });
        rx.recv_timeout(Duration::from_secs(20))
            .expect("the load waited on a FIFO")
    };
    // The log is a FIFO: the dump loads without it (the log's warning says why).
    mkfifo(&log);
    assert_eq!(load(pair.request(0)), Ok(()));
    // The dump is a FIFO: refused, naming what it is.
    std::fs::remove_file(&dump).unwrap();
    mkfifo(&dump);
    let err = load(pair.request(0)).unwrap_err();
    assert!(err.contains("a FIFO, not a regular file"), "{err}");
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path; no memory is shared.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_swapped_in_at_a_watched_dump_never_blocks_the_watch() {
    let dir = tempfile::tempdir().unwrap();
    let watched = dir.path().join("d");
    std::fs::create_dir(&watched).unwrap();
    let mut session = Session::start(ROWS, COLS, &["--watch", s(&watched)]);
    session.wait_until("watch mode", |sc| {
        sc.alternate_screen() && !sc.contents().trim().is_empty()
    });
    // x.etdp swapped between a regular file (the head of a real dump) and a FIFO for 3 s:
    // the watcher stats a file and, at times, opens a FIFO.
    let head: Vec<u8> = std::fs::read(fixture("cpu/mlp_basic.etdp"))
        .unwrap()
        .into_iter()
        .take(4096)
        .collect();
    let x = watched.join("x.etdp");
    let (tmp, fifo) = (watched.join(".r"), watched.join(".f"));
    let fifo_c = std::ffi::CString::new(s(&fifo)).unwrap();
    let t0 = Instant::now();
    let mut swaps = 0;
    while t0.elapsed() < Duration::from_secs(3) {
        std::fs::File::create(&tmp)
            .unwrap()
            .write_all(&head)
            .unwrap();
        std::fs::rename(&tmp, &x).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo_c.as_ptr(), 0o600) }, 0);
        std::fs::rename(&fifo, &x).unwrap();
        swaps += 1;
    }
    std::fs::remove_file(&x).unwrap();
    assert!(swaps > 10, "{swaps}");
    // The watch goes on: a dump added after the swaps is listed.
    std::fs::copy(fixture("cpu/mlp_basic.etdp"), watched.join("after.etdp")).unwrap();
    session.wait_for(&["after.etdp"]);
    let (code, took) = quit(&mut session);
    assert_eq!(code, 0);
    assert!(took < Duration::from_secs(5), "q took {took:?}");
    session.assert_restored("watch after FIFO swaps");
}

// ---- paste -------------------------------------------------------------------------

/// `src` (an ETRecord zip) with every node's stack trace naming `file` (stored, as
/// ETRecords are).
fn etrecord_with_source_file(src: &Path, dst: &Path, file: &str) {
    let mut zin = zip::ZipArchive::new(std::fs::File::open(src).unwrap()).unwrap();
    let mut zout = zip::ZipWriter::new(std::fs::File::create(dst).unwrap());
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..zin.len() {
        let mut entry = zin.by_index(i).unwrap();
        let name = entry.name().to_string();
        let mut data = Vec::new();
        entry.read_to_end(&mut data).unwrap();
        if name == "edge_dialect_exported_program/forward" {
            let mut ep: serde_json::Value = serde_json::from_slice(&data).unwrap();
            let mut changed = 0;
            for node in ep["graph_module"]["graph"]["nodes"].as_array_mut().unwrap() {
                if let Some(st) = node["metadata"].get_mut("stack_trace") {
                    *st = format!("File \"{file}\", line 83, in forward\n    x").into();
                    changed += 1;
                }
            }
            assert!(changed > 0);
            data = serde_json::to_vec(&ep).unwrap();
        }
        zout.start_file(name, options).unwrap();
        zout.write_all(&data).unwrap();
    }
    zout.finish().unwrap();
}

/// The texts put on the clipboard (OSC 52) in `output`, decoded.
fn clipboard_texts(output: &[u8]) -> Vec<String> {
    use base64::Engine;
    let text = String::from_utf8_lossy(output);
    text.split("\x1b]52;c;")
        .skip(1)
        .map(|rest| {
            let b64 = rest.split('\x07').next().unwrap();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            String::from_utf8(bytes).unwrap()
        })
        .collect()
}

#[test]
fn a_source_path_with_newlines_is_copied_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("m.etdp");
    std::fs::copy(fixture("etrecord/modules_xnnpack.etdp"), &dump).unwrap();
    let etrecord = dir.path().join("p.etrecord.bin");
    etrecord_with_source_file(
        &fixture("etrecord/modules_xnnpack.etrecord"),
        &etrecord,
        "/tmp/x.py\ntouch /tmp/PASTED\n",
    );
    let mut session = Session::start(
        ROWS,
        COLS,
        &[s(&dump), "--no-log", "--etrecord", s(&etrecord)],
    );
    session.wait_for(&["Method::execute median"]);
    // A row with a source, then the detail pane, where `c` copies its `file:line`.
    session.send("\x1b[B");
    std::thread::sleep(Duration::from_millis(200));
    session.send("\t");
    std::thread::sleep(Duration::from_millis(200));
    session.send("\t");
    std::thread::sleep(Duration::from_millis(200));
    session.send("c");
    session.wait_for(&["the row's source line"]);
    let copied = clipboard_texts(&session.output.lock().unwrap());
    assert!(!copied.is_empty(), "nothing copied");
    let last = copied.last().unwrap();
    // The source path, escaped: one line, no control character (the ETRecord's newline
    // is the two characters \ and n), so a paste cannot run `touch`.
    assert_eq!(last, "/tmp/x.py\\ntouch /tmp/PASTED\\n:83");
    for text in &copied {
        assert!(
            !text.chars().any(|c| c.is_control()),
            "a control character in {text:?}"
        );
    }
    let (code, _) = quit(&mut session);
    assert_eq!(code, 0);
}

// ---- grace -------------------------------------------------------------------------

#[test]
fn a_negative_grace_is_one_line_about_the_value() {
    let dir = tempfile::tempdir().unwrap();
    for value in ["-1", "-0.5", "-inf", "nan", "3601"] {
        let (o, _) = run_within(
            Duration::from_secs(20),
            &[
                "run",
                "--grace",
                value,
                "--out",
                s(&dir.path().join("o")),
                "--",
                "true",
            ],
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{value}: {e}");
        assert_eq!(e.lines().count(), 1, "{value}: {e}");
        assert!(
            e.contains("--grace") && e.contains("not a number of seconds"),
            "{e}"
        );
        assert!(!e.contains("unexpected argument"), "{e}");
        assert!(o.stdout.is_empty());
    }
    // Nothing ran: no folder was made for runs.
    assert!(!dir.path().join("o").exists());
}
