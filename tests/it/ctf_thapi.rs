//! The native CTF reader on the real LTTng recording `fixtures/thapi/ctf/`: every event
//! against `expected_events.tsv` (truth read from the payload bytes by the fixture's
//! `truth.py`, including the 13 empty `overload_name`s babeltrace2 2.0.4 prints wrongly),
//! the tally against the golden byte for byte, self times against `expected_self_time.tsv`,
//! the directory layouts LTTng and iprof leave, and the errors for what is not a trace.

use crate::common;

use std::path::PathBuf;

use common::{copy_dir, fixture, report};
use cpuprof_tui::trace::{self, ctf, OpEventKind, TraceFormat};

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture("thapi").join(name)).unwrap()
}

fn ctf_root() -> PathBuf {
    fixture("thapi/ctf")
}

/// Exact ns from `1795934914.832333283`, independent of the crate's parsers.
fn ns(ts: &str) -> i64 {
    let (s, f) = ts.split_once('.').unwrap();
    let f = format!("{f:0<9}");
    s.parse::<i64>().unwrap() * 1_000_000_000 + f[..9].parse::<i64>().unwrap()
}

#[test]
fn all_72_events_match_the_truth_exactly() {
    let (events, warnings) =
        ctf::read_op_events(&ctf_root(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let truth = read("expected_events.tsv");
    let rows: Vec<Vec<&str>> = truth
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(rows.len(), 72);
    assert_eq!(events.len(), 72);
    for (i, (e, t)) in events.iter().zip(&rows).enumerate() {
        let kind = if t[1] == "lttng_ust_pytorch:op_entry" {
            OpEventKind::Entry
        } else {
            assert_eq!(t[1], "lttng_ust_pytorch:op_exit");
            OpEventKind::Exit
        };
        assert_eq!(e.ts_ns, ns(t[0]), "event {i}");
        assert_eq!(e.kind, kind, "event {i}");
        assert_eq!(e.vpid, t[2].parse::<i64>().unwrap(), "event {i}");
        assert_eq!(e.vtid, t[3].parse::<i64>().unwrap(), "event {i}");
        assert_eq!(e.name, t[4], "event {i}");
        assert_eq!(
            e.overload_name.as_deref(),
            Some(*t.get(5).unwrap_or(&"")),
            "event {i}"
        );
        assert_eq!(e.host.as_deref(), Some("vm"));
    }
    // The lines babeltrace2 2.0.4 gets wrong: line N of its output is event N-1 here.
    let stale = read("babeltrace2_stale_overload_lines.tsv");
    let mut n = 0;
    for l in stale.lines().skip(1) {
        let f: Vec<&str> = l.split('\t').collect();
        let line: usize = f[0].parse().unwrap();
        let e = &events[line - 1];
        assert_eq!(e.name, f[2]);
        assert_eq!(e.overload_name.as_deref(), Some(*f.get(4).unwrap_or(&"")));
        assert_ne!(e.overload_name.as_deref(), Some(f[3]));
        n += 1;
    }
    assert_eq!(n, 13);
}

#[test]
fn tally_equals_the_golden_byte_for_byte() {
    let want = read("expected_tally_thapi_style.txt");
    for dir in [ctf_root(), ctf_root().join("ust/uid/0/64-bit")] {
        let o = report(&[dir.to_str().unwrap(), "--format", "tally"]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            String::from_utf8(o.stdout).unwrap(),
            want,
            "{}",
            dir.display()
        );
        let err = String::from_utf8(o.stderr).unwrap();
        // The two edge cases of the recording are reported, by event number.
        assert!(
            err.contains("orphan_exit: event 7: exit of aten::orphan_exit"),
            "{err}"
        );
        assert!(err.contains("aten::never_exits"), "{err}");
    }
}

#[test]
fn self_times_match_the_truth() {
    let p = trace::load_trace(&ctf_root()).unwrap();
    assert_eq!(p.format, TraceFormat::CtfDir);
    let text = read("expected_self_time.tsv");
    let mut rows = 0;
    for l in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = l.split('\t').collect();
        let op = p.op(f[0]).unwrap_or_else(|| panic!("missing {}", f[0]));
        let n = |i: usize| f[i].parse::<i64>().unwrap();
        assert_eq!(op.calls as i64, n(1), "{}", f[0]);
        assert_eq!(op.inclusive_total_ns, n(2), "{}", f[0]);
        assert_eq!(op.self_total_ns, n(3), "{}", f[0]);
        assert_eq!((op.min_ns, op.max_ns), (Some(n(4)), Some(n(5))), "{}", f[0]);
        rows += 1;
    }
    assert_eq!(rows, 7);
    let orphan = p.op("aten::orphan_exit").unwrap();
    assert_eq!((orphan.calls, orphan.errors), (1, 1));
    assert_eq!(p.unterminated.len(), 1);
    let u = &p.unterminated[0];
    assert_eq!(
        (u.name.as_str(), u.pid, u.tid),
        ("aten::never_exits", 9852, 9852)
    );
    assert_eq!(u.start_ns, ns("1795934914.833120130"));
    assert_eq!(p.counts.events, 72);
    assert_eq!(p.counts.op_events, 72);
}

#[test]
fn json_and_csv_reports_accept_the_directory() {
    let root = ctf_root();
    let o = report(&[root.to_str().unwrap(), "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["source"]["format"], "ctf", "{v}");
    let o = report(&[root.to_str().unwrap(), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(0));
    let csv = String::from_utf8(o.stdout).unwrap();
    // 8 op rows (7 closed ops and the orphan exit) under the header.
    assert_eq!(csv.lines().count(), 9, "{csv}");
}

#[test]
fn explorer_loads_the_directory() {
    use cpuprof_tui::profile::ProfileRequest;
    let request = ProfileRequest::new(ctf_root(), None, 0);
    let data = cpuprof_tui::worker::load_explorer_data(
        &request,
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    );
    assert!(data.is_ok(), "{:?}", data.err().map(|e| e.to_string()));
}

#[test]
fn per_pid_layout_and_several_sessions_are_merged() {
    let src = ctf_root().join("ust/uid/0/64-bit");
    let tmp = tempfile::tempdir().unwrap();
    // One session per-pid, one per-uid with another bitness directory name.
    copy_dir(
        &src,
        &tmp.path()
            .join("s1/ust/pid/fake_model-9852-20261129-064834/64-bit"),
    );
    copy_dir(&src, &tmp.path().join("s2/ust/uid/1000/32-bit"));
    let p = trace::load_trace(tmp.path()).unwrap();
    // Same host, pid and tids twice: every op counts twice.
    assert_eq!(p.op("aten::linear").unwrap().calls, 10);
    assert_eq!(p.op("aten::orphan_exit").unwrap().errors, 2);
    assert_eq!(p.counts.events, 144);
}

#[test]
fn not_a_trace_directory_is_one_line_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
    std::fs::write(tmp.path().join("a/notes.txt"), "hello").unwrap();
    let o = report(&[tmp.path().to_str().unwrap(), "--format", "tally"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a CTF trace directory"), "{err}");
    assert!(!err.contains("ETDump"), "{err}");
}

#[test]
fn bad_metadata_names_the_file_and_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("t");
    copy_dir(&ctf_root().join("ust/uid/0/64-bit"), &dir);
    let text = "/* CTF 1.8 */\ntrace { byte_order = le; };\ngizmo { x = 1; };\n";
    std::fs::write(dir.join("metadata"), text).unwrap();
    let o = report(&[tmp.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("t/metadata: line 3:") && err.contains("gizmo"),
        "{err}"
    );
}

#[test]
fn truncated_stream_is_an_error_naming_file_and_offset() {
    let tmp = common::ctf_truth::truncated_stream_copy();
    let o = report(&[tmp.path().to_str().unwrap(), "--format", "tally"]);
    common::ctf_truth::assert_truncated_stream_error(&o);
}

#[test]
fn damaged_index_is_a_warning_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&ctf_root().join("ust/uid/0/64-bit"), tmp.path());
    let idx = tmp.path().join("index/blocking-channel_0.idx");
    let mut bytes = std::fs::read(&idx).unwrap();
    // content_size of entry 0 (bytes 16+16..16+24, big-endian) off by 8 bits.
    bytes[16 + 23] ^= 0x08;
    std::fs::write(&idx, &bytes).unwrap();
    std::fs::write(tmp.path().join("index/blocking-channel_1.idx"), b"junk").unwrap();
    let p = trace::load_trace(tmp.path()).unwrap();
    let kinds: Vec<&str> = p.warnings.iter().map(|w| w.kind.as_str()).collect();
    assert!(kinds.contains(&"index_mismatch"), "{kinds:?}");
    assert!(kinds.contains(&"index_invalid"), "{kinds:?}");
    assert_eq!(p.op("aten::linear").unwrap().inclusive_total_ns, 1_034_791);
}

fn have(cmd: &str) -> bool {
    std::process::Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn sessiond_pids() -> Vec<String> {
    std::process::Command::new("pgrep")
        .args(["-x", "lttng-sessiond"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Record a fresh trace with the fixture's program (in a copy of `src/`) when lttng and a
/// C compiler exist, and compare every event with babeltrace2's where babeltrace2 is
/// right: time, ids, name always; `overload_name` except where we read "" (2.0.4 prints
/// a stale value there). The workload's structure is known from `fake_model.c`.
#[test]
fn fresh_recording_when_lttng_is_installed() {
    if !(have("lttng") && have("lttng-sessiond") && have("gcc") && have("babeltrace2")) {
        eprintln!("skipped: needs lttng-tools, liblttng-ust-dev, gcc and babeltrace2");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&fixture("thapi/src"), &tmp.path().join("src"));
    let out = tmp.path().join("trace");
    let before = sessiond_pids();
    let o = std::process::Command::new("bash")
        .arg(tmp.path().join("src/record.sh"))
        .arg(&out)
        .output()
        .unwrap();
    // record.sh starts a session daemon when none runs: stop the one it started.
    for pid in sessiond_pids() {
        if !before.contains(&pid) {
            let _ = std::process::Command::new("kill").arg(&pid).status();
        }
    }
    if !o.status.success() {
        eprintln!(
            "skipped: recording failed (no tracing rights?): {}",
            String::from_utf8_lossy(&o.stderr)
        );
        return;
    }
    let (events, warnings) =
        ctf::read_op_events(&out, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(events.len(), 72);
    let bt = std::process::Command::new("babeltrace2")
        .arg("--clock-seconds")
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8(bt.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 72);
    for (e, l) in events.iter().zip(&lines) {
        let ts = &l[1..l.find(']').unwrap()];
        assert_eq!(e.ts_ns, ns(ts), "{l}");
        assert!(
            l.contains(&format!("vpid = {}, vtid = {}", e.vpid, e.vtid)),
            "{l}"
        );
        assert!(l.contains(&format!("name = \"{}\"", e.name)), "{l}");
        let ov = e.overload_name.as_deref().unwrap();
        if !ov.is_empty() {
            assert!(l.contains(&format!("overload_name = \"{ov}\"")), "{l}");
        }
    }
    let p = trace::load_trace(&out).unwrap();
    for op in [
        "aten::linear",
        "aten::t",
        "aten::addmm",
        "aten::relu",
        "aten::abs",
        "aten::abs.out",
        "aten::empty.memory_format",
    ] {
        assert_eq!(p.op(op).map(|o| o.calls), Some(5), "{op}");
    }
    assert_eq!(p.op("aten::orphan_exit").map(|o| o.errors), Some(1));
    assert_eq!(p.unterminated.len(), 1);
}

/// A real LTTng-UST recording with every field kind (`fixtures/thapi/ctf-rich`): every
/// event's time, ids and fields against babeltrace2's text of the same trace, where
/// babeltrace2 2.0.4 is right (all but empty strings). `after` comes last in the payload,
/// so it only matches if arrays, sequences, text, floats and enums were all sized right.
#[test]
fn every_field_kind_matches_babeltrace2() {
    use cpuprof_tui::trace::ctf::decode::Value;
    let root = fixture("thapi/ctf-rich/trace");
    let text =
        std::fs::read_to_string(fixture("thapi/ctf-rich/babeltrace2_clock_seconds.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 900);
    let (traces, warnings) =
        ctf::open_traces(&root, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let field = |line: &str, key: &str| -> String {
        let at = line
            .find(&format!(" {key} = "))
            .unwrap_or_else(|| panic!("{key} in {line}"))
            + key.len()
            + 4;
        let rest = &line[at..];
        let end = rest.find([',', ' ']).unwrap_or(rest.len());
        rest[..end].to_string()
    };
    let mut n = 0;
    let mut rich = 0;
    let decode_warnings = ctf::for_each_event(&traces, |ev| {
        let l = lines[n];
        n += 1;
        assert_eq!(ev.ts_ns, ns(&l[1..l.find(']').unwrap()]), "{l}");
        assert!(l.contains(&format!(" {}: ", ev.class_name)), "{l}");
        let int = |v: Option<Value<'_>>| v.and_then(|v| v.as_i64()).unwrap();
        assert_eq!(int(ev.context("vpid")).to_string(), field(l, "vpid"));
        assert_eq!(int(ev.context("vtid")).to_string(), field(l, "vtid"));
        if ev.class_name == "rich:all" {
            rich += 1;
            for key in ["i", "sh", "uc", "after"] {
                assert_eq!(
                    int(ev.payload(key)).to_string(),
                    field(l, key),
                    "{key}: {l}"
                );
            }
            assert_eq!(
                format!("0x{:X}", int(ev.payload("h"))),
                field(l, "h"),
                "{l}"
            );
            assert_eq!(ev.payload("s"), Some(Value::S(b"hello")));
            for key in ["d", "f"] {
                let Some(Value::F(x)) = ev.payload(key) else {
                    panic!("{key}")
                };
                let want: f64 = field(l, key).parse().unwrap();
                assert!(
                    (x - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "{key}: {x} vs {l}"
                );
            }
            let Some(Value::Enum(col, _)) = ev.payload("col") else {
                panic!("col")
            };
            assert!(l.contains(&format!(": container = {col} )")), "{l}");
            // The program's own values: i counts up, after = i + 1000, col = i % 7.
            let i = int(ev.payload("i"));
            assert_eq!((int(ev.payload("after")), col), (i + 1000, i % 7));
        } else {
            let Some(Value::S(name)) = ev.payload("name") else {
                panic!("name")
            };
            assert!(
                l.contains(&format!(
                    "name = \"{}\"",
                    std::str::from_utf8(name).unwrap()
                )),
                "{l}"
            );
        }
    })
    .unwrap();
    assert!(decode_warnings.is_empty(), "{decode_warnings:?}");
    assert_eq!((n, rich), (900, 300));
    let p = trace::load_trace(&root).unwrap();
    assert_eq!(p.op("aten::mm").unwrap().calls, 150);
    assert_eq!(p.op("aten::mm.out").unwrap().calls, 150);
    assert_eq!(p.counts.ignored_events, 300);
}
