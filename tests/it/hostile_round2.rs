//! The hostile table of issue #19 ("Round 2" of `fixtures/hostile/README.md`), one test
//! per row (row 14, compare JSON streaming, lives with the compare tests), on inputs made
//! here: trace directories with outputs pointed into them through links, a TSDL bomb,
//! sparse stream files, broken clocks, junk files, odd `metadata` files, folders of dumps,
//! and every numeric option with hostile values. Memory is measured in the child
//! (`wait4`), never in this process.

use crate::common;
use common::copy_dir;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::child;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Run with a deadline (a hang fails the test instead of the whole run).
fn run_in(dir: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    child::wait_with_timeout(cmd.spawn().unwrap(), Duration::from_secs(60))
}

fn run(args: &[&str]) -> Output {
    run_in(None, args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit 2 with exactly one line on stderr, which is returned.
fn one_error_line(o: &Output, what: &str) -> String {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {e}");
    assert_eq!(e.lines().count(), 1, "{what}: {e}");
    assert!(e.starts_with("cpuprof-tui: "), "{what}: {e}");
    e
}

/// The small real LTTng trace copied to `root` (a session: `ust/uid/0/64-bit/`); the
/// trace directory is returned.
fn copy_trace(root: &Path) -> PathBuf {
    copy_dir(&fixture("thapi/ctf"), root);
    root.join("ust/uid/0/64-bit")
}

/// What the fixture trace is known to hold (`fixtures/thapi/README.md`,
/// `expected_self_time.tsv`): 72 events, aten::linear 5 calls of 1,034,791 ns in all.
fn assert_fixture_truth(json: &[u8]) {
    let v: serde_json::Value = serde_json::from_slice(json).unwrap();
    assert_eq!(v["counts"]["events"], 72, "{v}");
    assert_eq!(v["unit"], "ms");
    let linear = v["ops"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == "aten::linear")
        .unwrap();
    assert_eq!(linear["calls"], 5);
    assert_eq!(linear["inclusive_total"], 1.034791);
}

/// Exit code, peak RSS (KiB) and wall time of the binary run with `args`.
///
/// Measured by `/usr/bin/time` (which forks from its own small process): `wait4` on a
/// child of this test process would count this process's own peak as well, because a
/// child spawned with `posix_spawn` (vfork) execs from this process's memory and Linux
/// keeps the higher mark across exec. Without `/usr/bin/time`, `wait4` is used and the
/// budgets are raised by this process's own peak.
#[cfg(target_os = "linux")]
#[allow(clippy::zombie_processes)] // reaped with wait4
fn peak_rss_kib(args: &[&str]) -> (Option<i32>, i64, Duration) {
    let t0 = Instant::now();
    if Path::new("/usr/bin/time").is_file() {
        let o = Command::new("/usr/bin/time")
            .args(["-f", "peak=%M"])
            .arg(BIN)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        let kib = err
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("peak="))
            .and_then(|v| v.trim().parse().ok())
            .expect("peak RSS from /usr/bin/time");
        // time exits with the command's code.
        return (o.status.code(), kib, t0.elapsed());
    }
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    drop(child);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let own = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<i64>().ok())
        })
        .unwrap_or(0);
    (code, usage.ru_maxrss - own, t0.elapsed())
}

// ------------------------------------------------------------------ row 1, row 11: -o

#[cfg(unix)]
#[test]
fn row1_an_output_onto_any_file_of_the_trace_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("t");
    let dir = copy_trace(&root);
    let stream = dir.join("blocking-channel_0");
    let before: Vec<(PathBuf, Vec<u8>)> = [
        stream.clone(),
        dir.join("blocking-channel_1"),
        dir.join("metadata"),
        dir.join("index/blocking-channel_0.idx"),
    ]
    .into_iter()
    .map(|p| {
        let b = std::fs::read(&p).unwrap();
        (p, b)
    })
    .collect();
    // Every way of naming a file of the trace: directly, through `..`, a symlink to it,
    // a symlink to its folder, a hard link elsewhere, a relative path.
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&stream, &link).unwrap();
    let dir_link = tmp.path().join("dirlink");
    std::os::unix::fs::symlink(&dir, &dir_link).unwrap();
    let hard = tmp.path().join("hard");
    std::fs::hard_link(dir.join("metadata"), &hard).unwrap();
    let dotdot = dir.join("index/../blocking-channel_1");
    let outputs: Vec<PathBuf> = vec![
        stream.clone(),
        dir.join("metadata"),
        dir.join("index/blocking-channel_0.idx"),
        dotdot,
        link,
        dir_link.join("blocking-channel_0"),
        hard,
    ];
    for out in &outputs {
        for args in [
            vec!["report", s(&root), "--format", "json", "-o", s(out)],
            vec!["report", s(&dir), "--format", "tally", "-o", s(out)],
            vec!["export", s(&root), "--format", "chrome", "-o", s(out)],
            vec![
                "compare",
                s(&root),
                s(&fixture("thapi/ctf")),
                "--format",
                "json",
                "-o",
                s(out),
            ],
        ] {
            let o = run(&args);
            let e = one_error_line(&o, &format!("{args:?}"));
            assert!(e.contains("refusing to overwrite the input file"), "{e}");
        }
    }
    // Relative, from inside the trace directory.
    let o = run_in(Some(&dir), &["report", "../../../..", "-o", "metadata"]);
    one_error_line(&o, "relative");
    for (p, b) in &before {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{} changed", p.display());
    }
    // No temp file was left in the trace directory either.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    // A new file beside the streams is not an input: written.
    let fresh = tmp.path().join("report.json");
    let o = run(&["report", s(&root), "--format", "json", "-o", s(&fresh)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_fixture_truth(&std::fs::read(&fresh).unwrap());
}

#[cfg(unix)]
#[test]
fn row1_the_dump_and_its_log_are_inputs_through_links() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("run.etdp");
    let log = tmp.path().join("run.log");
    std::fs::copy(fixture("cpu/mlp_basic.etdp"), &dump).unwrap();
    std::fs::copy(fixture("cpu/mlp_basic.log"), &log).unwrap();
    let log_bytes = std::fs::read(&log).unwrap();
    let hard = tmp.path().join("copy.log");
    std::fs::hard_link(&log, &hard).unwrap();
    let sym = tmp.path().join("sym.etdp");
    std::os::unix::fs::symlink(&dump, &sym).unwrap();
    for out in [&log, &hard, &sym] {
        for cmd in ["report", "export"] {
            let mut args = vec![cmd, s(&dump), "-o", s(out)];
            if cmd == "export" {
                args.extend(["--format", "folded"]);
            }
            let o = run(&args);
            let e = one_error_line(&o, &format!("{args:?}"));
            assert!(e.contains("refusing to overwrite"), "{e}");
        }
    }
    assert_eq!(std::fs::read(&log).unwrap(), log_bytes);
    assert_eq!(
        std::fs::read(&dump).unwrap(),
        std::fs::read(fixture("cpu/mlp_basic.etdp")).unwrap()
    );
}

#[cfg(unix)]
#[test]
fn row11_a_dangling_link_is_written_through_and_proc_is_not_writable() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = fixture("cpu/mlp_basic.etdp");
    let want = run(&["report", s(&dump), "--no-log", "--format", "json"]).stdout;
    // A dangling link (relative target, through a second link): the target is created,
    // the links stay links.
    std::fs::create_dir(tmp.path().join("out")).unwrap();
    let link2 = tmp.path().join("out/l2");
    std::os::unix::fs::symlink("target.json", &link2).unwrap();
    let link1 = tmp.path().join("l1");
    std::os::unix::fs::symlink("out/l2", &link1).unwrap();
    let o = run(&[
        "report",
        s(&dump),
        "--no-log",
        "--format",
        "json",
        "-o",
        s(&link1),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(std::fs::symlink_metadata(&link1)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata(&link2)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(tmp.path().join("out/target.json")).unwrap(),
        want
    );
    // A loop of links is one line.
    let a = tmp.path().join("a");
    let b = tmp.path().join("b");
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let o = run(&["report", s(&dump), "--no-log", "-o", s(&a)]);
    assert!(one_error_line(&o, "loop").contains("symbolic links"));
    // A pseudo file nobody can replace, and a folder that does not exist.
    if Path::new("/proc/version").exists() {
        let o = run(&[
            "report",
            s(&dump),
            "--no-log",
            "--format",
            "json",
            "-o",
            "/proc/version",
        ]);
        let e = one_error_line(&o, "/proc/version");
        assert!(e.contains("not writable"), "{e}");
        assert!(!e.contains("No such file"), "{e}");
    }
    let o = run(&[
        "report",
        s(&dump),
        "--no-log",
        "-o",
        s(&tmp.path().join("no/such/dir/x.json")),
    ]);
    assert!(one_error_line(&o, "no dir").contains("not writable"));
}

// ------------------------------------------------------------------ row 2: TSDL bomb

/// Metadata where each `typealias struct` holds two of the previous one and the event
/// uses the last (`round2.sh bomb`): `levels` levels expand to 2^levels bytes.
fn tsdl_bomb(levels: usize) -> String {
    let mut t = String::from("/* CTF 1.8 */\n");
    t.push_str("typealias integer { size = 8; align = 8; signed = false; } := d0;\n");
    t.push_str("typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n");
    for i in 0..levels {
        t.push_str(&format!(
            "typealias struct {{ d{i} a; d{i} b; }} := d{};\n",
            i + 1
        ));
    }
    t.push_str("trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n");
    t.push_str("stream { id = 0; };\n");
    t.push_str(&format!("event {{ name = \"lttng_ust_pytorch:op_entry\"; id = 0; stream_id = 0; fields := struct {{ d{levels} _z; string _name; }}; }};\n"));
    t
}

#[cfg(target_os = "linux")]
#[test]
fn row2_a_tsdl_bomb_is_one_line_in_little_memory() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("doubling24", tsdl_bomb(24)),
        ("doubling60", tsdl_bomb(60)),
        // Arrays of arrays: 2^16 elements each, three deep.
        (
            "arrays",
            tsdl_bomb(0)
                .replace(
                    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n",
                    "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n\
                 typealias struct { uint32_t x[65536]; } := a1;\n\
                 typealias struct { a1 x[65536]; } := a2;\n\
                 typealias struct { a2 x[65536]; } := a3;\n",
                )
                .replace("d0 _z;", "a3 _z;"),
        ),
    ] {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("metadata"), &text).unwrap();
        std::fs::write(dir.join("stream_0"), b"\xc1\x1f\xfc\xc1\0\0\0\0").unwrap();
        let o = run(&["report", s(&dir), "--format", "json"]);
        let e = one_error_line(&o, name);
        assert!(e.contains("metadata: line") && e.contains("budget"), "{e}");
        let (code, kib, took) = peak_rss_kib(&["report", s(&dir), "--format", "json"]);
        assert_eq!(code, Some(2));
        assert!(kib < 48 * 1024, "{name}: peak RSS {kib} KiB");
        assert!(took < Duration::from_secs(10), "{name}: {took:?}");
    }
    // Under the budget, the same shape is read (a trace whose event holds 2^10 bytes).
    let lib = cpuprof_tui::trace::ctf::tsdl::parse_metadata(&tsdl_bomb(10)).unwrap();
    let fields = lib.events[0].fields.unwrap() as usize;
    assert_eq!(lib.min_bits[fields], (1 << 10) * 8 + 8);
    // d10: 2^10 bytes, each node counted once: 2^11 - 1 steps, plus the event's struct
    // and its string.
    assert_eq!(lib.steps[fields], (1 << 11) - 1 + 2);
}

// ------------------------------------------------------------------ row 3: big streams

#[cfg(target_os = "linux")]
#[test]
fn row3_the_input_limit_applies_to_every_ctf_file() {
    let root = fixture("thapi/ctf-rich/trace");
    // ctf-rich: metadata 8192 bytes, ch_0 4096, ch_1 57344.
    let o = run(&["report", s(&root), "--max-input-size", "8191"]);
    let e = one_error_line(&o, "metadata over");
    assert!(
        e.contains("metadata: 8192 bytes, larger than the input limit of 8191"),
        "{e}"
    );
    let o = run(&["report", s(&root), "--max-input-size", "8K"]);
    let e = one_error_line(&o, "stream over");
    assert!(
        e.contains("ch_1: 57344 bytes, larger than the input limit of 8192"),
        "{e}"
    );
    let o = run(&["report", s(&root), "--max-input-size", "56K"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // An index over the limit is not used (a warning), the packets still are.
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_trace(tmp.path());
    let mut idx = std::fs::read(dir.join("index/blocking-channel_0.idx")).unwrap();
    idx.resize(5000, 0);
    std::fs::write(dir.join("index/blocking-channel_0.idx"), idx).unwrap();
    let o = run(&[
        "report",
        s(tmp.path()),
        "--format",
        "json",
        "--max-input-size",
        "4096",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("index_invalid"), "{}", stderr(&o));
    assert_fixture_truth(&o.stdout);
    // A 2 GiB sparse stream with --max-input-size 64M: refused before it is read.
    let big = tempfile::tempdir().unwrap();
    let bdir = copy_trace(big.path());
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(bdir.join("blocking-channel_9"))
        .unwrap();
    f.set_len(2 << 30).unwrap();
    let (code, kib, _) = peak_rss_kib(&["report", s(big.path()), "--max-input-size", "64M"]);
    assert_eq!(code, Some(2));
    assert!(kib < 32 * 1024, "peak RSS {kib} KiB");
    let o = run(&["report", s(big.path()), "--max-input-size", "64M"]);
    let e = one_error_line(&o, "2 GiB");
    assert!(
        e.contains("blocking-channel_9: 2147483648 bytes, larger than the input limit"),
        "{e}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn row3_a_huge_stream_costs_memory_by_packet_not_by_file() {
    // A real stream followed by 512 MiB of zeros (a sparse tail): the packets decode,
    // then the damage is scanned for a next packet and skipped with a warning. Read
    // whole (or mapped and never released) the zeros would be resident: 512 MiB.
    let tmp = tempfile::tempdir().unwrap();
    let dir = copy_trace(tmp.path());
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("blocking-channel_1"))
        .unwrap();
    f.set_len(512 << 20).unwrap();
    drop(f);
    let (code, kib, _) = peak_rss_kib(&["report", s(tmp.path()), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < 96 * 1024, "peak RSS {kib} KiB for a 512 MiB stream");
    let o = run(&["report", s(tmp.path()), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("blocking-channel_1: packet at offset 4096: bad packet magic 0x0"),
        "{}",
        stderr(&o)
    );
    assert_fixture_truth(&o.stdout);
    // The same stream file entirely zeros (a sparse 2 GiB file): not a stream, not read.
    let zeros = tmp.path().join("ust/uid/0/64-bit/blocking-channel_7");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let (code, kib, took) = peak_rss_kib(&["report", s(tmp.path()), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < 96 * 1024, "peak RSS {kib} KiB");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

// ------------------------------------------------------------------ rows 4-7: numbers

fn dump_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["--no-log"];
    v.extend_from_slice(extra);
    v
}

#[test]
fn rows4_to_7_hostile_numbers_are_one_usage_line_naming_the_option() {
    let dump = fixture("cpu/mlp_basic.etdp");
    let d = s(&dump);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "export",
                d,
                "--format",
                "folded",
                "--time-unit",
                "cycles:1e308GHz",
            ],
            "--time-unit",
        ),
        (
            vec![
                "export",
                d,
                "--format",
                "folded",
                "--time-unit",
                "cycles:18446744073709551616",
            ],
            "--time-unit",
        ),
        (vec!["report", d, "--time-unit", "cycles:0"], "--time-unit"),
        (
            vec!["report", d, "--time-unit", "cycles:-2GHz"],
            "--time-unit",
        ),
        (
            vec!["report", d, "--time-unit", "cycles:nan"],
            "--time-unit",
        ),
        (
            vec!["report", d, "--time-unit", "cycles:0.5Hz"],
            "--time-unit",
        ),
        (
            vec!["report", d, "--time-unit", "cycles:2e15"],
            "--time-unit",
        ),
        (vec!["compare", d, d, "--alpha", "-0.1"], "--alpha"),
        (vec!["compare", d, d, "--alpha", "1"], "--alpha"),
        (vec!["compare", d, d, "--alpha", "NaN"], "--alpha"),
        (vec!["compare", d, d, "--min-change", "-5"], "--min-change"),
        (vec!["compare", d, d, "--min-change", "inf"], "--min-change"),
        (
            vec!["compare", d, d, "--fail-on-regression", "-1"],
            "--fail-on-regression",
        ),
        (
            vec!["compare", d, d, "--fail-on-regression", "1e999"],
            "--fail-on-regression",
        ),
        (
            vec!["export", d, "--format", "chrome", "--runs", "-3.."],
            "--runs",
        ),
        (
            vec!["export", d, "--format", "chrome", "--runs", "-1"],
            "--runs",
        ),
        (
            vec!["report", d, "--max-input-size", "-1"],
            "--max-input-size",
        ),
        (
            vec!["report", d, "--max-input-size", "-5G"],
            "--max-input-size",
        ),
        (
            vec!["report", d, "--max-input-size", "0"],
            "--max-input-size",
        ),
        (vec!["report", d, "--warmup", "-2"], "--warmup"),
        (vec!["compare", d, d, "--warmup-a", "-1"], "--warmup-a"),
        (vec!["--warmup", "-1", d], "--warmup"),
    ];
    for (args, option) in &cases {
        let mut args = args.clone();
        if args[0] != "--warmup" && !args.contains(&"--warmup-a") {
            args.extend(dump_args(&[]));
        }
        let o = run(&args);
        let e = one_error_line(&o, &format!("{args:?}"));
        assert!(e.contains(option), "{args:?}: {e}");
        assert!(!e.contains("unexpected argument"), "{args:?}: {e}");
        assert!(o.stdout.is_empty(), "{args:?} wrote output");
    }
    // Row 6: the largest limit works (the same report as without it).
    let plain = run(&["report", d, "--no-log", "--format", "json"]);
    for limit in [
        "18446744073709551615",
        "18446744073709551616",
        "16E",
        "9999999999T",
    ] {
        let o = run(&[
            "report",
            d,
            "--no-log",
            "--format",
            "json",
            "--max-input-size",
            limit,
        ]);
        assert_eq!(o.status.code(), Some(0), "{limit}: {}", stderr(&o));
        assert_eq!(o.stdout, plain.stdout, "{limit}");
    }
    // Row 4: a frequency at the edges is taken; durations follow it (1 GHz = ns).
    let ns = run(&["export", d, "--no-log", "--format", "folded"]);
    let ghz = run(&[
        "export",
        d,
        "--no-log",
        "--format",
        "folded",
        "--time-unit",
        "cycles:1GHz",
    ]);
    assert_eq!(ns.stdout, ghz.stdout);
    assert!(!ns.stdout.is_empty());
}

// ------------------------------------------------------------------ row 5: CTF clocks

/// The fixture trace with its (packetized) metadata rewritten as text by `edit`.
fn trace_with_metadata(root: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let dir = copy_trace(root);
    let bytes = std::fs::read(dir.join("metadata")).unwrap();
    let text = cpuprof_tui::trace::ctf::tsdl::metadata_text(&bytes).unwrap();
    let edited = edit(text.clone());
    assert_ne!(edited, text, "the edit changed nothing");
    std::fs::write(dir.join("metadata"), edited).unwrap();
    dir
}

#[test]
fn row5_a_clock_that_overflows_every_time_is_an_error_naming_it() {
    for (what, from, to) in [
        ("freq 1", "freq = 1000000000;", "freq = 1;"),
        (
            "offset_s",
            "offset = 1795934618683213425;",
            "offset = 1795934618683213425; offset_s = 9000000000;",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        trace_with_metadata(tmp.path(), |t| t.replace(from, to));
        let o = run(&["report", s(tmp.path()), "--format", "json"]);
        let e = one_error_line(&o, what);
        assert!(
            e.contains("clock `monotonic`") && e.contains("72 event times"),
            "{what}: {e}"
        );
    }
    // An offset that does not fit 64 signed bits is named at its line.
    let tmp = tempfile::tempdir().unwrap();
    trace_with_metadata(tmp.path(), |t| {
        let at = t.find("offset = ").unwrap();
        let end = at + t[at..].find(';').unwrap();
        format!("{}offset = 18446744073709551615{}", &t[..at], &t[end..])
    });
    let o = run(&["report", s(tmp.path())]);
    let e = one_error_line(&o, "offset 2^64-1");
    assert!(
        e.contains("clock `monotonic`: offset = 18446744073709551615"),
        "{e}"
    );
}

#[test]
fn row5_events_past_the_clock_range_are_counted_and_skipped() {
    // The first 3 calls fit the i64 ns range, the 2 after do not (their 4 events are
    // skipped and counted).
    let tmp = tempfile::tempdir().unwrap();
    common::ctf_truth::write_overflowing_clock_trace(tmp.path());
    let o = run(&["report", s(tmp.path()), "--format", "json"]);
    common::ctf_truth::assert_overflowing_clock_report(&o);
}

// ------------------------------------------------------------------ rows 8, 9

#[test]
fn row8_dash_output_is_standard_output() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = fixture("cpu/mlp_basic.etdp");
    let trace = fixture("torch/cnn_infer.json");
    for (with, without) in [
        (
            vec!["report", s(&dump), "--format", "json", "-o", "-"],
            vec!["report", s(&dump), "--format", "json"],
        ),
        (
            vec!["export", s(&dump), "--format", "folded", "-o", "-"],
            vec!["export", s(&dump), "--format", "folded"],
        ),
        (
            vec!["compare", s(&trace), s(&trace), "-o", "-"],
            vec!["compare", s(&trace), s(&trace), "--format", "table"],
        ),
        (
            vec![
                "compare",
                s(&trace),
                s(&trace),
                "--format",
                "csv",
                "--output",
                "-",
            ],
            vec!["compare", s(&trace), s(&trace), "--format", "csv"],
        ),
    ] {
        let a = run_in(Some(tmp.path()), &with);
        let b = run_in(Some(tmp.path()), &without);
        assert_eq!(a.status.code(), Some(0), "{with:?}: {}", stderr(&a));
        assert!(!a.stdout.is_empty());
        assert_eq!(a.stdout, b.stdout, "{with:?}");
        assert!(
            !tmp.path().join("-").exists(),
            "{with:?} made a file named -"
        );
    }
}

#[test]
fn row9_compare_names_the_side_that_is_no_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("EMPTY");
    std::fs::write(&empty, b"").unwrap();
    let junk = tmp.path().join("junk.bin");
    std::fs::write(&junk, b"\x00\x01 nothing known").unwrap();
    let gone = tmp.path().join("gone.etdp");
    let trace = fixture("torch/cnn_infer.json");
    for (a, b, bad, want) in [
        (&empty, &trace, &empty, "empty file"),
        (&trace, &empty, &empty, "empty file"),
        (&gone, &trace, &gone, "no such file"),
        (&junk, &trace, &junk, "not an ETDump"),
    ] {
        let o = run(&["compare", s(a), s(b), "--format", "json"]);
        let e = one_error_line(&o, &format!("{a:?} {b:?}"));
        assert!(e.contains(&format!("{}: ", bad.display())), "{e}");
        assert!(e.contains(want), "{e}");
        assert!(!e.contains("cannot compare"), "{e}");
    }
    // Two real profiles of different kinds: that is what is said.
    let o = run(&[
        "compare",
        s(&fixture("cpu/mlp_basic.etdp")),
        s(&trace),
        "--no-log",
        "--format",
        "json",
    ]);
    assert!(one_error_line(&o, "kinds").contains("cannot compare the ETDump"));
}

// ------------------------------------------------------------------ row 10: junk files

#[cfg(unix)]
#[test]
fn row10_junk_beside_the_streams_is_a_warning_naming_each_file() {
    let meta = std::fs::read(fixture("thapi/ctf/ust/uid/0/64-bit/metadata")).unwrap();
    let blob: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
    // Two traces, so that each keeps its warnings under the 5 a kind shows verbatim.
    let sets: [Vec<(&str, &[u8])>; 2] = [
        vec![
            ("README", b"notes\n"),
            ("a", b"x"),
            ("abc", b"abc"),
            ("notes.txt", b"eight by"),
        ],
        // A copy of the metadata starts with the metadata magic, not the packet magic.
        vec![("blob", &blob), ("metadata.bak", &meta)],
    ];
    for (n, junk) in sets.iter().enumerate() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = copy_trace(tmp.path());
        for (name, bytes) in junk {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        std::fs::create_dir(dir.join("subdir")).unwrap();
        let fifo_made = n == 1
            && Command::new("mkfifo")
                .arg(dir.join("pipe"))
                .status()
                .is_ok_and(|s| s.success());
        if n == 1 {
            std::os::unix::fs::symlink("nowhere", dir.join("dangling")).unwrap();
        }
        let o = run(&["report", s(tmp.path()), "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_fixture_truth(&o.stdout);
        let e = stderr(&o);
        for (name, bytes) in junk {
            let want = format!(
                "ust/uid/0/64-bit/{name}: not a CTF stream file ({} bytes,",
                bytes.len()
            );
            assert!(e.contains(&want), "{name}: {e}");
        }
        if n == 1 {
            assert!(e.contains("dangling is a symbolic link to nothing"), "{e}");
        }
        if fifo_made {
            assert!(e.contains("pipe is a FIFO, not a stream file"), "{e}");
        }
    }
}

// ------------------------------------------------------------------ row 12: metadata

#[cfg(unix)]
#[test]
fn row12_a_metadata_that_is_not_a_file_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let mkfifo = |p: &Path| {
        Command::new("mkfifo")
            .arg(p)
            .status()
            .is_ok_and(|s| s.success())
    };
    // At the root, and where LTTng's layout puts a trace.
    for (rel, kind) in [
        ("fifo", "a FIFO"),
        ("dir", "a directory"),
        ("dev", "a character device"),
        ("dangling", "a symbolic link to nothing"),
        ("socket", "a socket"),
    ] {
        for layout in ["", "ust/uid/0/64-bit/"] {
            let root = tmp.path().join(format!("{rel}{}", layout.len()));
            let dir = root.join(layout);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(
                fixture("thapi/ctf/ust/uid/0/64-bit/blocking-channel_0"),
                dir.join("blocking-channel_0"),
            )
            .unwrap();
            let meta = dir.join("metadata");
            let made = match rel {
                "fifo" => mkfifo(&meta),
                "dir" => std::fs::create_dir(&meta).is_ok(),
                "dev" => std::os::unix::fs::symlink("/dev/null", &meta).is_ok(),
                "dangling" => std::os::unix::fs::symlink("gone", &meta).is_ok(),
                _ => std::os::unix::net::UnixListener::bind(&meta).is_ok(),
            };
            if !made {
                eprintln!("skipped: cannot make a {rel}");
                continue;
            }
            let o = run(&["report", s(&root)]);
            let e = one_error_line(&o, rel);
            assert!(e.contains(&format!("{layout}metadata is {kind}")), "{e}");
        }
    }
    // A trace 300 folders deep is not searched for (10 levels at most, #44); the message
    // says how far it looks.
    let mut deep = tmp.path().join("deep");
    for _ in 0..300 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    copy_dir(&fixture("thapi/ctf/ust/uid/0/64-bit"), &deep);
    let t0 = Instant::now();
    let o = run(&["report", s(&tmp.path().join("deep"))]);
    let e = one_error_line(&o, "deep");
    assert!(e.contains("up to 10 levels below"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(10));
}

// ------------------------------------------------------------------ row 13: folders

#[cfg(target_os = "linux")]
#[test]
fn row13_a_folder_of_dumps_is_one_line_before_any_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let dumps = tmp.path().join("dumps");
    std::fs::create_dir(&dumps).unwrap();
    for i in 0..3 {
        std::fs::copy(
            fixture("cpu/mlp_basic.etdp"),
            dumps.join(format!("run{i}.etdp")),
        )
        .unwrap();
    }
    // The explorer (no subcommand, stdin not a terminal): the line, exit 2, nothing else.
    for args in [
        vec![s(&dumps)],
        vec!["report", s(&dumps)],
        vec!["export", s(&dumps), "--format", "chrome"],
    ] {
        let o = run(&args);
        let e = one_error_line(&o, &format!("{args:?}"));
        assert!(e.contains("it holds 3 ETDumps"), "{e}");
        assert!(e.contains(&format!("--watch {}", dumps.display())), "{e}");
        assert!(o.stdout.is_empty(), "{args:?}: the terminal was written to");
    }
    // Dumps one level down: --recursive is suggested.
    let o = run(&["report", s(tmp.path())]);
    let e = one_error_line(&o, "below");
    assert!(
        e.contains("subfolders hold 3 ETDumps") && e.contains("--recursive"),
        "{e}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn row13_the_search_is_bounded_and_reads_no_other_file() {
    let tmp = tempfile::tempdir().unwrap();
    // A trace three folders down in an unrelated tree is found, as babeltrace2 finds it
    // (#44), and named in a warning, never read silently.
    let root = tmp.path().join("projects");
    copy_trace(&root.join("a/b/c"));
    // Files that must never be opened: a FIFO (opening it would hang), a sparse 8 GiB
    // file, and one named `metadata` that is not CTF (read: only its first bytes).
    let fifo_made = Command::new("mkfifo")
        .arg(root.join("pipe"))
        .status()
        .is_ok_and(|s| s.success());
    std::fs::File::create(root.join("disk.img"))
        .unwrap()
        .set_len(8 << 30)
        .unwrap();
    std::fs::create_dir_all(root.join("x")).unwrap();
    std::fs::File::create(root.join("x/metadata"))
        .unwrap()
        .set_len(4 << 30)
        .unwrap();
    let (code, kib, took) = peak_rss_kib(&["report", s(&root), "--format", "json"]);
    assert_eq!(code, Some(0));
    assert!(kib < 32 * 1024, "peak RSS {kib} KiB");
    assert!(took < Duration::from_secs(10), "{took:?}");
    let o = run(&["report", s(&root), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("x/metadata is not CTF metadata"), "{e}");
    assert!(
        e.contains("1 trace directory found in folders below the root, read together: a/b/c/ust/uid/0/64-bit (72 events)"),
        "{e}"
    );
    assert_fixture_truth(&o.stdout);
    let _ = fifo_made;
    // Without the trace: the one line, and the non-CTF `metadata` named.
    std::fs::remove_dir_all(root.join("a")).unwrap();
    let o = run(&["report", s(&root)]);
    let e = one_error_line(&o, "projects");
    assert!(e.contains("x/metadata is not CTF metadata"), "{e}");
    std::fs::remove_file(root.join("x/metadata")).unwrap();
    let o = run(&["report", s(&root)]);
    let e = one_error_line(&o, "projects");
    assert!(e.contains("no LTTng trace in it"), "{e}");
    // A folder of sessions (one level): read, and the note names what was found.
    let sessions = tmp.path().join("lttng-traces");
    copy_trace(&sessions.join("s1-20261201"));
    let o = run(&["report", s(&sessions), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1 trace directory found in folders below the root, read together: s1-20261201/ust/uid/0/64-bit"),
        "{}",
        stderr(&o)
    );
    assert_fixture_truth(&o.stdout);
}

#[cfg(target_os = "linux")]
#[test]
fn row13_a_wide_folder_is_searched_to_a_bounded_count() {
    // 120,000 empty folders (more than the search looks at): one line, fast, small.
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("wide");
    std::fs::create_dir(&root).unwrap();
    for i in 0..120_000 {
        if std::fs::create_dir(root.join(format!("{i}"))).is_err() {
            eprintln!("skipped: cannot make 120,000 folders here");
            return;
        }
    }
    let (code, kib, took) = peak_rss_kib(&["report", s(&root)]);
    assert_eq!(code, Some(2));
    assert!(kib < 64 * 1024, "peak RSS {kib} KiB");
    // Bounded: 20 s, or on a disk slowed by other work, 10x `find` listing the same
    // folders in the same run (the peer: one readdir of the root, one of each folder).
    if took >= Duration::from_secs(20) {
        let t = std::time::Instant::now();
        let listed = Command::new("find")
            .args([s(&root), "-maxdepth", "2"])
            .output()
            .map(|o| o.status.success());
        let find = t.elapsed();
        assert!(
            listed.unwrap_or(false),
            "find could not list {}",
            root.display()
        );
        assert!(took < find * 10, "{took:?}, find took {find:?}");
    }
    let o = run(&["report", s(&root)]);
    let e = one_error_line(&o, "wide");
    assert!(e.contains("stopped after looking at 100000 entries"), "{e}");
}
