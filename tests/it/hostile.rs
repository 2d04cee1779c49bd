//! The hostile table of issue #8, one test per row (`fixtures/hostile/README.md`), on
//! files made here: special outputs (device, FIFO, /dev/full), inputs from pipes, FIFOs
//! and standard input, damaged THAPI text, junk first lines, gzip faults, names holding
//! escape sequences, usage errors, an unreadable log, a signal during a write, and
//! memory budgets (measured in the child with `wait4`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn run_with_stdin(args: &[&str], input: Vec<u8>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// No byte a terminal would interpret: C0 controls other than `\n`, DEL, and no C1
/// control characters (U+0080..U+009F).
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    for (i, &b) in bytes.iter().enumerate() {
        assert!(
            b == b'\n' || (b >= 0x20 && b != 0x7f),
            "{what}: raw control byte {b:#04x} at {i}: {:?}",
            String::from_utf8_lossy(&bytes[i.saturating_sub(40)..(i + 40).min(bytes.len())])
        );
    }
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c)),
        "{what}: C1 control"
    );
}

// ---------------------------------------------------------------- outputs

#[cfg(unix)]
/// The sum of a count field (`calls`, `errors`) over the ops of a trace report's JSON.
fn ops_total(v: &serde_json::Value, field: &str) -> u64 {
    v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o[field].as_u64().unwrap())
        .sum()
}

#[test]
fn output_onto_a_character_device_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let dev = dir.path().join("mynull");
    let made = Command::new("mknod")
        .args(["-m", "666"])
        .arg(&dev)
        .args(["c", "1", "3"])
        .status()
        .is_ok_and(|s| s.success());
    if !made {
        eprintln!("skipped: mknod is not permitted here (needs CAP_MKNOD)");
        return;
    }
    let o = run(&[
        "report",
        fixture("cpu/mlp_basic.etdp").to_str().unwrap(),
        "--format",
        "json",
        "-o",
        dev.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ft = std::fs::metadata(&dev).unwrap().file_type();
    assert!(ft.is_char_device(), "the device was replaced");
    // Nothing else appeared in the folder (no temp file).
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
#[test]
fn output_onto_a_fifo_streams_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.fifo");
    if !mkfifo(&fifo) {
        eprintln!("skipped: mkfifo failed");
        return;
    }
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        std::fs::File::open(&reader_path)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        got
    });
    let input = fixture("torch/cnn_infer.json");
    let o = run(&[
        "report",
        input.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        fifo.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let got = reader.join().unwrap();
    let direct = run(&["report", input.to_str().unwrap(), "--format", "json"]);
    assert_eq!(got, direct.stdout, "the FIFO got the same report as stdout");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn output_onto_dev_full_fails() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let o = run(&[
        "report",
        fixture("cpu/mlp_basic.etdp").to_str().unwrap(),
        "--format",
        "json",
        "-o",
        "/dev/full",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    let errors: Vec<&str> = e
        .lines()
        .filter(|l| !l.starts_with("cpuprof-tui: using runner log"))
        .collect();
    assert_eq!(errors.len(), 1, "{e}");
    assert!(
        errors[0].contains("/dev/full") && errors[0].contains("space"),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn a_signal_during_a_write_removes_the_temp_file() {
    for (sig, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.json");
        let mut child = Command::new(BIN)
            .args([
                "report",
                fixture("cpu/mlp_basic.etdp").to_str().unwrap(),
                "--format",
                "json",
                "-o",
                out.to_str().unwrap(),
            ])
            // Debug builds hold the temp file open this long before writing.
            .env("CPUPROF_TUI_TEST_SLOW_WRITE", "5000")
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let temps = std::fs::read_dir(dir.path()).unwrap().count();
            if temps > 0 {
                break;
            }
            assert!(Instant::now() < deadline, "no temp file appeared");
            std::thread::sleep(Duration::from_millis(10));
        }
        unsafe {
            libc::kill(child.id() as i32, sig);
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + sig), "SIG{name}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "SIG{name} left {left:?}");
    }
}

// ---------------------------------------------------------------- inputs read once

/// Same CSV (no file names in it) from the file and from `feed`. The file is read
/// without the log beside it: a pipe or FIFO has no "beside" to find one in (and the log
/// names the method, which the CSV shows).
fn same_csv_as_file(file: &Path, via: &str, got: Output) {
    let want = run(&[
        "report",
        file.to_str().unwrap(),
        "--format",
        "csv",
        "--no-log",
    ]);
    assert_eq!(want.status.code(), Some(0), "{}", stderr(&want));
    assert_eq!(got.status.code(), Some(0), "{via}: {}", stderr(&got));
    assert!(!want.stdout.is_empty());
    assert_eq!(stdout(&got), stdout(&want), "{via}");
}

#[test]
fn standard_input_works_like_a_file() {
    for rel in [
        "cpu/mlp_basic.etdp",
        "torch/cnn_infer.json",
        "torch/cnn_train.json.gz",
        "thapi/babeltrace2_pretty.txt",
    ] {
        let file = fixture(rel);
        let bytes = std::fs::read(&file).unwrap();
        let dash = run_with_stdin(&["report", "-", "--format", "csv"], bytes.clone());
        same_csv_as_file(&file, &format!("{rel} via -"), dash);
        if Path::new("/dev/stdin").exists() {
            let dev = run_with_stdin(&["report", "/dev/stdin", "--format", "csv"], bytes);
            same_csv_as_file(&file, &format!("{rel} via /dev/stdin"), dev);
        }
    }
    // The name in messages is <stdin>.
    let o = run_with_stdin(&["report", "-"], b"hello\n".to_vec());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("cpuprof-tui: <stdin>: "),
        "{}",
        stderr(&o)
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_and_process_substitution_work_like_files() {
    let dir = tempfile::tempdir().unwrap();
    for rel in ["torch/cnn_train.json.gz", "cpu/mlp_basic.etdp"] {
        let file = fixture(rel);
        let fifo = dir.path().join("in.fifo");
        let _ = std::fs::remove_file(&fifo);
        if !mkfifo(&fifo) {
            eprintln!("skipped: mkfifo failed");
            return;
        }
        let bytes = std::fs::read(&file).unwrap();
        let w = fifo.clone();
        let writer = std::thread::spawn(move || {
            // Written in small pieces, as a slow producer would.
            let mut f = std::fs::OpenOptions::new().write(true).open(&w).unwrap();
            for chunk in bytes.chunks(1000) {
                if f.write_all(chunk).is_err() {
                    return;
                }
            }
        });
        let o = run(&["report", fifo.to_str().unwrap(), "--format", "csv"]);
        writer.join().unwrap();
        same_csv_as_file(&file, &format!("{rel} via a FIFO"), o);
        if Path::new("/bin/bash").exists() {
            let o = Command::new("/bin/bash")
                .arg("-c")
                .arg(format!(
                    "\"{BIN}\" report <(cat \"{}\") --format csv",
                    file.display()
                ))
                .output()
                .unwrap();
            same_csv_as_file(&file, &format!("{rel} via <(cat ..)"), o);
        }
    }
}

#[test]
fn an_endless_stream_stops_at_the_limit() {
    let mut child = Command::new(BIN)
        .args(["report", "-", "--max-input-size", "1M"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let line =
            b"[1.0] h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"a\" }\n";
        // Stops when the reader closes the pipe (EPIPE; Rust ignores SIGPIPE).
        while stdin.write_all(line).is_ok() {}
    });
    let o = wait_with_timeout(child, Duration::from_secs(30));
    writer.join().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("<stdin>") && e.contains("limit of 1048576 bytes"),
        "{e}"
    );
}

fn wait_with_timeout(mut child: Child, limit: Duration) -> Output {
    let deadline = Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the child did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

// ---------------------------------------------------------------- damage stays local

/// THAPI pretty text: `n` calls of `op{i%3}` on one thread, entries multi-line (5 lines
/// with the exit: header, name, overload, `}`, then the one-line exit).
fn thapi_text(n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let t0 = 1_000 + i as u64 * 100;
        s.push_str(&format!(
            "13:35:44.{t0:09} - h - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_entry: {{\n  name: \"op{}\",\n  overload_name: \"\"\n}}\n",
            i % 3
        ));
        s.push_str(&format!(
            "13:35:44.{:09} - h - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_exit: {{ name: \"op{}\", overload_name: \"\" }}\n",
            t0 + 50,
            i % 3
        ));
    }
    s
}

#[test]
fn a_missing_brace_costs_one_record() {
    let n = 40;
    let text = thapi_text(n);
    // Delete the `}` closing the entry of call 3: that entry starts on line 3*5+1 = 16
    // and its `}` is line 19.
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[18], "}");
    lines.remove(18);
    let damaged = lines.join("\n") + "\n";
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("thapi.txt");
    std::fs::write(&path, damaged).unwrap();
    let o = run(&["report", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 40 exits are all kept: 39 close their entry, the exit of call 3 has none (a failed
    // call). 39 entries + 40 exits = 79 op events; 1 malformed record.
    let calls: u64 = ops_total(&v, "calls");
    let errors: u64 = ops_total(&v, "errors");
    assert_eq!((calls, errors), (40, 1));
    assert_eq!(v["counts"]["malformed"], 1);
    assert_eq!(v["counts"]["op_events"], 79);
    let e = stderr(&o);
    assert!(
        e.contains("line 16: record not closed before the next record on line 19"),
        "{e}"
    );
    // The shared fixture: 72 events, one `}` deleted near the top.
    let o = run(&[
        "report",
        fixture("hostile/thapi_missing_brace.txt").to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["counts"]["malformed"], 1);
    assert_eq!(v["counts"]["op_events"], 71);
}

#[test]
fn a_cut_thapi_record_at_the_end_is_one_warning() {
    let text = thapi_text(10);
    // Cut inside the last entry (before its `}`): 9 calls complete, one record cut.
    let cut = text.rfind("}\n13:35").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.txt");
    std::fs::write(&path, &text[..cut]).unwrap();
    let o = run(&["report", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let calls: u64 = ops_total(&v, "calls");
    assert_eq!(calls, 9);
    assert!(
        stderr(&o).contains("line 46: record cut short"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn junk_first_lines_do_not_hide_a_trace() {
    for rel in ["hostile/misdetect_firstline.txt", "hostile/nan_first.txt"] {
        let o = run(&["report", fixture(rel).to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{rel}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("warning: malformed: line 1:"),
            "{}",
            stderr(&o)
        );
    }
    // Generated: three junk lines, then one call.
    let text = "garbage\n#### banner ####\n[NaN] x\n[1.0] h lttng_ust_pytorch:op_entry: { vpid = 1, vtid = 1 }, { name = \"a\" }\n[1.5] h lttng_ust_pytorch:op_exit: { vpid = 1, vtid = 1 }, { name = \"a\" }\n";
    let o = run_with_stdin(
        &["report", "-", "--format", "json"],
        text.as_bytes().to_vec(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ops"][0]["name"], "a");
    assert_eq!(v["ops"][0]["inclusive_total"], 500.0);
    assert_eq!(v["counts"]["malformed"], 3);
}

#[test]
fn neither_format_says_what_was_tried() {
    let o = run_with_stdin(&["report", "-"], b"hello\nthis is no trace\n".to_vec());
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("not an ETDump"), "{e}");
    assert!(
        e.contains("not a recognised trace (tried babeltrace2 text, THAPI text, Chrome JSON"),
        "{e}"
    );
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

#[test]
fn gzip_faults_are_named() {
    let json = std::fs::read(fixture("torch/cnn_infer.json")).unwrap();
    let good = gzip(&json);
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    // Trailing junk: the data is intact, the junk is named.
    let mut junk = good.clone();
    junk.extend_from_slice(b"this is not gzip");
    let o = run(&["report", write("junk.json.gz", &junk).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("16 bytes of trailing data after the gzip stream ignored"),
        "{}",
        stderr(&o)
    );
    // A bad CRC (RFC 1952: CRC32 in the 8..5th bytes from the end) is an error.
    let mut crc = good.clone();
    let at = crc.len() - 6;
    crc[at] ^= 0x40;
    let o = run(&["report", write("crc.json.gz", &crc).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("CRC mismatch"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
    // Cut short: what was inflated is kept, with the cut named.
    let cut = &good[..good.len() * 3 / 4];
    let o = run(&["report", write("cut.json.gz", cut).to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("gzip stream ends early"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------------------- escapes

#[test]
fn names_with_escape_sequences_are_escaped_everywhere() {
    // A babeltrace2 trace whose names hold OSC (title), CSI (clear), BEL, CR, DEL and a
    // C1 CSI; the exit's name differs so a warning carries both names.
    let evil_a = "\x1b]0;PWNED\x07\x1b[2J\rA\x7f\u{9b}31m";
    let evil_b = "\x1b[31mB\r";
    let text = format!(
        "[1.0] h\x1b[2J lttng_ust_pytorch:op_entry: {{ vpid = 1, vtid = 1 }}, {{ name = \"{evil_a}\" }}\n\
         [1.5] h\x1b[2J lttng_ust_pytorch:op_exit: {{ vpid = 1, vtid = 1 }}, {{ name = \"{evil_b}\" }}\n\
         \x1b[2Jjunk line\x07\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil\x1b[2J.txt");
    std::fs::write(&path, &text).unwrap();
    for format in ["table", "tally"] {
        let o = run(&["report", path.to_str().unwrap(), "--format", format]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_terminal_safe(&format!("{format} stdout"), &o.stdout);
        assert_terminal_safe(&format!("{format} stderr"), &o.stderr);
        assert!(stdout(&o).contains("\\x1b[31mB\\r"), "{}", stdout(&o));
        assert!(stderr(&o).contains("\\x1b]0;PWNED\\x07"), "{}", stderr(&o));
    }
    // JSON keeps the names exact (serde escapes C0 controls; DEL and C1 are valid JSON).
    let o = run(&["report", path.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ops"][0]["name"], evil_b);
    assert_terminal_safe("json stderr", &o.stderr);
    // An error naming the file escapes the path.
    std::fs::write(&path, b"\x1b[2J nothing").unwrap();
    let o = run(&["report", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert_terminal_safe("error line", &o.stderr);
    assert!(stderr(&o).contains("evil\\x1b[2J.txt"), "{}", stderr(&o));
    // An ETDump with such a name (shared fixture), table and stderr.
    let o = run(&[
        "report",
        fixture("hostile/ansi_name.etdp").to_str().unwrap(),
    ]);
    assert_terminal_safe("etdump table", &o.stdout);
    assert_terminal_safe("etdump stderr", &o.stderr);
    assert!(
        stdout(&o).contains("\\x1b]0;PWNED-TITLE\\x07"),
        "{}",
        stdout(&o)
    );
    let o = run(&[
        "report",
        fixture("hostile/ansi_trace.txt").to_str().unwrap(),
    ]);
    assert_terminal_safe("ansi_trace tally", &o.stdout);
    assert_terminal_safe("ansi_trace stderr", &o.stderr);
}

#[test]
fn a_newline_in_a_path_keeps_the_error_on_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two\nlines.etdp");
    std::fs::write(&path, b"definitely not a profile").unwrap();
    let o = run(&["report", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("two\\nlines.etdp"), "{e}");
    // A missing file too.
    let o = run(&["report", dir.path().join("gone\nfile").to_str().unwrap()]);
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn long_names_are_cut_in_messages() {
    let long = "n".repeat(1 << 20);
    let text = format!(
        "[1.0] h lttng_ust_pytorch:op_entry: {{ vpid = 1, vtid = 1 }}, {{ name = \"{long}\" }}\n\
         [1.5] h lttng_ust_pytorch:op_exit: {{ vpid = 1, vtid = 1 }}, {{ name = \"other\" }}\n"
    );
    let o = run_with_stdin(&["report", "-", "--format", "json"], text.into_bytes());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(!e.is_empty());
    for line in e.lines() {
        // escape::MAX_MESSAGE_CHARS (400) plus the `cpuprof-tui: ` prefix.
        assert!(
            line.chars().count() <= 413,
            "{} chars",
            line.chars().count()
        );
    }
    assert!(e.contains('…'));
}

// ---------------------------------------------------------------- usage and logs

#[test]
fn usage_errors_are_one_line() {
    for args in [
        &["report", "x.etdp", "--warmup", "-1"][..],
        &["--warmup", "-1", "x.etdp"],
        &["report", "x.etdp", "--warmup", "many"],
        &["report"],
        &["report", "x", "--max-input-size", "lots"],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(e.starts_with("cpuprof-tui: "), "{e}");
        assert!(!e.contains("-- -1"), "{e}");
    }
    let e = stderr(&run(&["report", "x.etdp", "--warmup", "-1"]));
    assert!(e.contains("--warmup") && e.contains("0 or more"), "{e}");
}

#[cfg(unix)]
#[test]
fn an_unreadable_log_beside_the_dump_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("run.etdp");
    std::fs::copy(fixture("cpu/mlp_basic.etdp"), &dump).unwrap();
    let log = dir.path().join("run.log");
    // A regular file that cannot be read, even by root: /proc/self/mem fails at offset 0.
    std::os::unix::fs::symlink("/proc/self/mem", &log).unwrap();
    if std::fs::read(&log).is_ok() {
        eprintln!("skipped: no unreadable regular file available");
        return;
    }
    let o = run(&["report", dump.to_str().unwrap(), "--format", "json"]);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["source"]["log"], serde_json::Value::Null);
    assert!(stderr(&o).contains("log_unreadable"), "{}", stderr(&o));
    // A log named with --log must be readable.
    let o = run(&[
        "report",
        dump.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    // Watch mode pairs logs itself and passes them on: the dump still loads.
    let request = cpuprof_tui::profile::ProfileRequest::new(dump.clone(), Some(log.clone()), 0);
    let p = cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &Default::default())
        .expect("loads without its log");
    assert!(p.source.log.is_none());
    assert!(p.warnings.iter().any(|w| w.kind == "log_unreadable"));
}

// ---------------------------------------------------------------- memory budgets

/// Run the binary and return (exit code, peak RSS in KiB) of that child alone, through
/// /usr/bin/time (`support::child`; without it the budget is skipped and says so).
#[cfg(target_os = "linux")]
fn peak_rss_kib(args: &[&str]) -> (Option<i32>, i64) {
    crate::support::child::peak_rss_kib_or_zero(BIN, args)
}

#[cfg(target_os = "linux")]
#[test]
fn a_gzip_bomb_stays_in_a_memory_budget() {
    // 256 MiB of spaces inside the event array, ~260 KB compressed. Inflating it whole
    // took > 256 MiB; streamed, the peak is the 64 MiB in-memory window plus the program.
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let ev = br#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}"#;
    e.write_all(b"{\"traceEvents\":[").unwrap();
    e.write_all(ev).unwrap();
    e.write_all(b",").unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..256 {
        e.write_all(&spaces).unwrap();
    }
    e.write_all(ev).unwrap();
    e.write_all(b"]}").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.json.gz");
    std::fs::write(&path, e.finish().unwrap()).unwrap();
    let (code, kib) = peak_rss_kib(&["report", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < 160 * 1024, "peak RSS {kib} KiB");
    // With a lower input limit it stops with an error instead.
    let (code, _) = peak_rss_kib(&["report", path.to_str().unwrap(), "--max-input-size", "16M"]);
    assert_eq!(code, Some(2));
}

#[cfg(target_os = "linux")]
#[test]
fn a_large_plain_json_file_is_streamed() {
    // 96 MiB of spaces in the event array of a plain file (past the 64 MiB in-memory
    // window): parsed from the file as a stream, so the peak stays far below its size.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spaces.json");
    {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let ev = br#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}"#;
        f.write_all(b"{\"traceEvents\":[").unwrap();
        f.write_all(ev).unwrap();
        f.write_all(b",").unwrap();
        let spaces = vec![b' '; 1 << 20];
        for _ in 0..96 {
            f.write_all(&spaces).unwrap();
        }
        // A second call after the first (an identical interval would nest in it, and a
        // parent whose only child has its name counts once, as in key_averages()).
        f.write_all(br#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":10,"dur":2}"#)
            .unwrap();
        f.write_all(b"]}").unwrap();
    }
    let (code, kib) = peak_rss_kib(&["report", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < 48 * 1024, "peak RSS {kib} KiB for a 96 MiB file");
    let o = run(&["report", path.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ops"][0]["calls"], 2);
}

#[cfg(target_os = "linux")]
#[test]
fn whitespace_json_through_a_pipe_costs_time_not_memory() {
    // 160 MiB of spaces between two events, written into the binary's standard input: a
    // pipe cannot be streamed from a file, so past the 64 MiB kept as read the whitespace
    // is squeezed as it is read. Kept whole it would take > 160 MiB; the budget is the
    // window plus the program.
    // Through /usr/bin/time where installed (see `peak_rss_kib`).
    let timed = std::path::Path::new("/usr/bin/time").is_file();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "peak=%M", BIN]);
        c
    } else {
        eprintln!("skipped: memory budget (/usr/bin/time not installed)");
        Command::new(BIN)
    };
    let mut child = cmd
        .args(["report", "-", "--format", "json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin
            .write_all(br#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2},"#)
            .unwrap();
        let spaces = vec![b' '; 1 << 20];
        for _ in 0..160 {
            stdin.write_all(&spaces).unwrap();
        }
        stdin
            .write_all(br#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":10,"dur":2}]}"#)
            .unwrap();
    });
    let mut stderr = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut e = String::new();
        stderr.read_to_string(&mut e).unwrap();
        e
    });
    let mut out = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
    writer.join().unwrap();
    let status = child.wait().unwrap();
    let errors = errors.join().unwrap();
    assert_eq!(status.code(), Some(0), "{errors}");
    if timed {
        let kib: i64 = errors
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("peak="))
            .and_then(|v| v.trim().parse().ok())
            .expect("peak RSS from /usr/bin/time");
        assert!(kib < 100 * 1024, "peak RSS {kib} KiB");
    }
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["ops"][0]["calls"], 2);
}

#[cfg(target_os = "linux")]
#[test]
fn many_distinct_op_names_cost_memory_in_proportion() {
    // 100,000 distinct names in ~9.7 MB of JSON. The first release took 409 MB (a JSON
    // value tree of ~3 KB per op); the budget is 25x the input.
    let mut json = String::from("{\"traceEvents\":[");
    for i in 0..100_000 {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "{{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op{i:06}\",\"pid\":1,\"tid\":1,\"ts\":{}.0,\"dur\":1.0}}",
            i * 2
        ));
    }
    json.push_str("]}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("names.json");
    std::fs::write(&path, &json).unwrap();
    let budget_kib = (json.len() as i64 * 25) / 1024;
    let (code, kib) = peak_rss_kib(&["report", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < budget_kib, "json: peak RSS {kib} KiB > {budget_kib}");
}
