//! Round 3 of the hostile table (issue #45, "Round 3" of `fixtures/hostile/README.md`):
//! the rows about outputs, fleets, streams and logs, one test per row, on inputs made here
//! from the fixtures. Every run has a deadline; memory is measured in the child
//! (`/usr/bin/time`), never in this process.
//!
//! - `fleetmodel`: `-o` / `--samples` onto a program or ETRecord read (beside the dump or
//!   named, through symlinks) is refused with exit 2 and the file is untouched;
//! - `exportnames`: `export` names the methods from the program as `report` does;
//! - `partcollide`, `partlong`: `--partition-by` never loses a profile;
//! - `dupcols`: metadata column names are distinct;
//! - `sidecar`: a bad sidecar is a warning, the dump loads;
//! - `stream2x`: an endless stream costs the limit, not twice it;
//! - `logblank`: a log of blank lines costs about its size.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::fleet_files;
use fleet_files::{parse_csv, read_parquet};

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
fn run(args: &[&str]) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child::wait_with_timeout(child, Duration::from_secs(60))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output, what: &str) -> String {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn copy(from: &str, to: &Path) {
    std::fs::copy(fixture(from), to).unwrap_or_else(|e| panic!("{from}: {e}"));
}

// ------------------------------------------------------------------ fleetmodel

/// A dump with its program, ETRecord and log in `dir/f`, a second copy of the ETRecord
/// in `dir/named.etrecord`, and links `f/.l2 -> .l1 -> STEM.etrecord`.
fn model_farm(dir: &Path) -> PathBuf {
    let f = dir.join("f");
    std::fs::create_dir_all(&f).unwrap();
    for ext in ["etdp", "pte", "etrecord"] {
        copy(
            &format!("etrecord/modules_xnnpack.{ext}"),
            &f.join(format!("modules_xnnpack.{ext}")),
        );
    }
    std::fs::write(f.join("modules_xnnpack.log"), b"").unwrap();
    copy(
        "etrecord/modules_xnnpack.etrecord",
        &dir.join("named.etrecord"),
    );
    std::os::unix::fs::symlink("modules_xnnpack.etrecord", f.join(".l1")).unwrap();
    std::os::unix::fs::symlink(".l1", f.join(".l2")).unwrap();
    f
}

#[cfg(unix)]
#[test]
fn fleetmodel_outputs_onto_a_program_or_etrecord_read_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let f = model_farm(tmp.path());
    let dump = f.join("modules_xnnpack.etdp");
    let pte = f.join("modules_xnnpack.pte");
    let etr = f.join("modules_xnnpack.etrecord");
    let named = tmp.path().join("named.etrecord");
    let l2 = f.join(".l2");
    let models = [&pte, &etr, &named];
    let before: Vec<Vec<u8>> = models.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let cases: Vec<Vec<&str>> = vec![
        vec!["fleet", s(&f), "--format", "json", "-o", s(&pte)],
        vec![
            "fleet",
            s(&f),
            "--format",
            "csv",
            "-o",
            "/dev/null",
            "--samples",
            s(&l2),
        ],
        vec!["fleet", s(&f), "--format", "csv", "-o", s(&l2)],
        vec![
            "fleet",
            s(&f),
            "--etrecord",
            s(&named),
            "--format",
            "json",
            "-o",
            s(&named),
        ],
        vec![
            "export",
            s(&dump),
            "--format",
            "folded",
            "--etrecord",
            s(&named),
            "-o",
            s(&named),
        ],
        vec!["export", s(&dump), "--format", "chrome", "-o", s(&l2)],
        vec!["export", s(&dump), "--format", "folded", "-o", s(&pte)],
        vec!["report", s(&dump), "--format", "json", "-o", s(&pte)],
        vec![
            "report",
            s(&dump),
            "--format",
            "json",
            "--program",
            s(&named),
            "-o",
            s(&named),
        ],
        vec![
            "compare",
            s(&dump),
            s(&dump),
            "--format",
            "json",
            "-o",
            s(&l2),
        ],
    ];
    for args in &cases {
        let o = run(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains("refusing to overwrite the input file"),
            "{args:?}: {e}"
        );
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        for (p, b) in models.iter().zip(&before) {
            assert_eq!(
                &std::fs::read(p).unwrap(),
                b,
                "{args:?} changed {}",
                p.display()
            );
        }
    }
    // Other outputs still work.
    let out = tmp.path().join("ok.json");
    ok(
        &run(&["fleet", s(&f), "--format", "json", "-o", s(&out)]),
        "fleet -o elsewhere",
    );
    assert!(out.is_file());
}

// ------------------------------------------------------------------ exportnames

/// The methods of `three_method` as the script that ran it logged them (`run.json`).
fn three_method_names() -> BTreeSet<String> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("etrecord/three_method.run.json")).unwrap())
            .unwrap();
    v["run_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

fn folded_roots(text: &str) -> BTreeSet<String> {
    text.lines()
        .map(|l| l.split(';').next().unwrap().to_string())
        .collect()
}

#[test]
fn exportnames_export_names_methods_from_the_program() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("three_method.etdp");
    copy("etrecord/three_method.etdp", &dump);
    let want = three_method_names();
    assert_eq!(want.len(), 3);
    // Without a program the methods are numbered (nothing to name them by).
    let bare = ok(
        &run(&["export", s(&dump), "--no-log", "--format", "folded"]),
        "bare",
    );
    let numbered: BTreeSet<String> = (1..=3).map(|i| format!("method {i}")).collect();
    assert_eq!(folded_roots(&bare), numbered);
    // Named with --program from elsewhere, then found beside the dump.
    let elsewhere = tmp.path().join("prog.bin");
    copy("etrecord/three_method.pte", &elsewhere);
    let named = run(&[
        "export",
        s(&dump),
        "--no-log",
        "--format",
        "folded",
        "--program",
        s(&elsewhere),
    ]);
    assert_eq!(folded_roots(&ok(&named, "--program")), want);
    copy(
        "etrecord/three_method.pte",
        &tmp.path().join("three_method.pte"),
    );
    let beside = ok(
        &run(&["export", s(&dump), "--no-log", "--format", "folded"]),
        "beside",
    );
    assert_eq!(folded_roots(&beside), want);
    // The same stacks, only the root renamed: every line's count is kept.
    let counts = |t: &str| -> Vec<u64> {
        let mut v: Vec<u64> = t
            .lines()
            .map(|l| l.rsplit_once(' ').unwrap().1.parse().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(counts(&bare), counts(&beside));
    // Chrome: one process per method, named the same.
    let chrome = ok(
        &run(&["export", s(&dump), "--no-log", "--format", "chrome"]),
        "chrome",
    );
    let v: serde_json::Value = serde_json::from_str(&chrome).unwrap();
    let procs: BTreeSet<String> = v["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        want.iter()
            .all(|m| procs.iter().any(|p| p.contains(m.as_str()))),
        "{procs:?}"
    );
    // A damaged program is one warning, the export still made.
    let bad = tmp.path().join("bad.pte");
    copy("etrecord/bad_truncated.pte", &bad);
    let o = run(&[
        "export",
        s(&dump),
        "--no-log",
        "--format",
        "folded",
        "--program",
        s(&bad),
    ]);
    assert_eq!(folded_roots(&ok(&o, "damaged program")), numbered);
    assert!(stderr(&o).contains("program_unreadable"), "{}", stderr(&o));
}

// ------------------------------------------------------------------ partitions

/// Six dumps of the null fleet in `dir/in/{a,b}/`, sidecars written by `sidecar(i)`.
fn six_dumps(dir: &Path, sidecar: impl Fn(usize) -> Option<String>) -> Vec<String> {
    let mut ids = Vec::new();
    for i in 0..6 {
        let sub = if i < 3 { "a" } else { "b" };
        let d = dir.join("in").join(sub);
        std::fs::create_dir_all(&d).unwrap();
        let n = format!("n{:02}", i + 1);
        copy(
            &format!("fleet/null/{n}.etdp"),
            &d.join(format!("{n}.etdp")),
        );
        copy(&format!("fleet/null/{n}.log"), &d.join(format!("{n}.log")));
        if let Some(text) = sidecar(i) {
            std::fs::write(d.join(format!("{n}.meta.json")), text).unwrap();
        }
        ids.push(format!("{sub}/{n}.etdp"));
    }
    ids
}

/// Partition directory name -> profile ids in its file (read back from the Parquet).
fn partitions_read_back(out: &Path) -> BTreeMap<String, Vec<String>> {
    let mut parts = BTreeMap::new();
    for e in std::fs::read_dir(out).unwrap() {
        let dir = e.unwrap().path();
        let files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|f| f.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{}", dir.display());
        let (names, rows) = read_parquet(&files[0]);
        let id = names.iter().position(|n| n == "profile_id").unwrap();
        let mut ids: Vec<String> = rows.iter().map(|r| r[id].clone().unwrap()).collect();
        ids.dedup();
        parts.insert(dir.file_name().unwrap().to_str().unwrap().to_string(), ids);
    }
    parts
}

/// `%XX` decoded (Hive's rule).
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

#[test]
fn partcollide_empty_missing_and_the_default_name_lose_no_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let ids = six_dumps(tmp.path(), |i| match i {
        0 => Some(r#"{"device": ""}"#.into()),
        1 => Some(r#"{"device": "__HIVE_DEFAULT_PARTITION__"}"#.into()),
        2 => Some(r#"{"device": "x"}"#.into()),
        _ => None,
    });
    let out = tmp.path().join("out");
    let o = run(&[
        "fleet",
        s(&tmp.path().join("in")),
        "--format",
        "parquet",
        "--partition-by",
        "device",
        "-o",
        s(&out),
    ]);
    ok(&o, "partition");
    let parts = partitions_read_back(&out);
    // Every profile in exactly one file.
    let mut all: Vec<&String> = parts.values().flatten().collect();
    all.sort();
    let mut want: Vec<&String> = ids.iter().collect();
    want.sort();
    assert_eq!(all, want, "{parts:?}");
    // The literal value decodes to itself, in a directory of its own.
    let literal: Vec<&String> = parts
        .keys()
        .filter(|k| percent_decode(k) == "device=__HIVE_DEFAULT_PARTITION__")
        .collect();
    assert_eq!(literal.len(), 2, "{parts:?}"); // the null partition and the literal
    let lit = parts
        .iter()
        .find(|(k, _)| k.contains('%'))
        .map(|(_, v)| v.clone());
    assert_eq!(lit, Some(vec![ids[1].clone()]));
    // "" and the missing values: the null partition, one file.
    let null = &parts["device=__HIVE_DEFAULT_PARTITION__"];
    let mut null_ids = null.clone();
    null_ids.sort();
    assert_eq!(
        null_ids,
        vec![
            ids[0].clone(),
            ids[3].clone(),
            ids[4].clone(),
            ids[5].clone()
        ]
    );
    assert_eq!(parts["device=x"], vec![ids[2].clone()]);
}

#[test]
fn partlong_a_value_too_long_for_a_file_name_is_cut_and_the_rest_written() {
    let tmp = tempfile::tempdir().unwrap();
    let long = format!("m{}", "/".repeat(100));
    let longer = format!("m{}", "/".repeat(101));
    let ids = six_dumps(tmp.path(), |i| match i {
        0 => Some(r#"{"device": "a"}"#.into()),
        1 => Some(r#"{"device": "z"}"#.into()),
        3 => Some(serde_json::json!({ "device": long }).to_string()),
        4 => Some(serde_json::json!({ "device": longer }).to_string()),
        _ => None,
    });
    let out = tmp.path().join("out");
    let t0 = Instant::now();
    let o = run(&[
        "fleet",
        s(&tmp.path().join("in")),
        "--format",
        "parquet",
        "--partition-by",
        "device",
        "-o",
        s(&out),
    ]);
    ok(&o, "partition");
    assert!(t0.elapsed() < Duration::from_secs(30));
    let parts = partitions_read_back(&out);
    assert_eq!(parts.len(), 5, "a, z, two long ones, null: {parts:?}");
    let cut: Vec<(&String, &Vec<String>)> = parts.iter().filter(|(k, _)| k.contains('~')).collect();
    assert_eq!(cut.len(), 2, "{parts:?}");
    for (name, members) in &cut {
        assert!(name.len() <= 255, "{name}");
        assert_eq!(members.len(), 1);
        // The head is the value's encoding, cut; the report names the profile.
        let head = name.rsplit_once('~').unwrap().0;
        assert!(
            format!("device=m{}", "%2F".repeat(101)).starts_with(head),
            "{head}"
        );
        assert!(stderr(&o).contains(members[0].as_str()), "{}", stderr(&o));
    }
    let mut all: Vec<&String> = parts.values().flatten().collect();
    all.sort();
    assert_eq!(all.len(), ids.len());
}

// ------------------------------------------------------------------ dupcols

#[test]
fn dupcols_metadata_keys_never_repeat_a_column_name() {
    let tmp = tempfile::tempdir().unwrap();
    six_dumps(tmp.path(), |i| {
        (i == 0).then(|| {
            r#"{"ms": 1, "meta.ms": 2, "profile_id": 3, "meta.profile_id": 4, "median_ms": 5}"#
                .into()
        })
    });
    let input = tmp.path().join("in");
    let long = tmp.path().join("long.csv");
    let samples = tmp.path().join("s.csv");
    let pq = tmp.path().join("long.parquet");
    let spq = tmp.path().join("s.parquet");
    ok(
        &run(&[
            "fleet",
            s(&input),
            "--format",
            "csv",
            "-o",
            s(&long),
            "--samples",
            s(&samples),
        ]),
        "csv",
    );
    ok(
        &run(&[
            "fleet",
            s(&input),
            "--format",
            "parquet",
            "-o",
            s(&pq),
            "--samples",
            s(&spq),
        ]),
        "parquet",
    );
    let check = |names: &[String], row: &[String], want: &[(&str, &str)], what: &str| {
        let distinct: BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{what}: {names:?}");
        for (col, val) in want {
            let i = names
                .iter()
                .position(|n| n == col)
                .unwrap_or_else(|| panic!("{what}: no {col} in {names:?}"));
            assert_eq!(row[i], *val, "{what}: {col}");
        }
    };
    // Keys that are fixed columns move to meta.KEY, or meta.meta.KEY when a key has that name.
    let long_want = [
        ("ms", "1"),
        ("meta.ms", "2"),
        ("meta.meta.profile_id", "3"),
        ("meta.profile_id", "4"),
        ("meta.median_ms", "5"),
        ("profile_id", "a/n01.etdp"),
    ];
    let samples_want = [
        ("meta.meta.ms", "1"),
        ("meta.ms", "2"),
        ("meta.meta.profile_id", "3"),
        ("meta.profile_id", "4"),
        ("meta.median_ms", "5"),
        ("profile_id", "a/n01.etdp"),
    ];
    let first = |path: &Path| -> (Vec<String>, Vec<String>) {
        let t = parse_csv(&std::fs::read_to_string(path).unwrap());
        (t[0].clone(), t[1].clone())
    };
    let (h, r) = first(&long);
    check(&h, &r, &long_want, "long CSV");
    let (h, r) = first(&samples);
    check(&h, &r, &samples_want, "samples CSV");
    for (path, want) in [(&pq, &long_want[..]), (&spq, &samples_want[..])] {
        let (names, rows) = read_parquet(path);
        let row: Vec<String> = rows[0]
            .iter()
            .map(|c| c.clone().unwrap_or_default())
            .collect();
        check(&names, &row, want, "Parquet");
    }
}

// ------------------------------------------------------------------ sidecar

#[test]
fn sidecar_a_bad_sidecar_is_a_warning_and_the_dump_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let big = format!(r#"{{"k": "{}"}}"#, "x".repeat((1 << 20) + 10));
    let ids = six_dumps(tmp.path(), |i| match i {
        0 => Some(r#"{"device": {"name": "a"}}"#.into()),
        1 => Some("[1, 2]".into()),
        2 => Some(big.clone()),
        3 => Some("{not json".into()),
        4 => Some(r#"{"device": "ok"}"#.into()),
        _ => None,
    });
    let o = run(&["fleet", s(&tmp.path().join("in")), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&ok(&o, "fleet")).unwrap();
    let e = stderr(&o);
    let profiles = v["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), 6);
    // Every dump read: as many runs as the dump without a sidecar (they are alike).
    let runs: Vec<u64> = profiles
        .iter()
        .map(|p| p["runs"].as_u64().unwrap())
        .collect();
    assert!(runs.iter().all(|&r| r == runs[5] && r > 0), "{runs:?}");
    for (i, p) in profiles.iter().enumerate() {
        assert_eq!(p["id"], ids[i]);
        assert!(p["error"].is_null(), "{p}");
        let warnings = p["warnings"].as_array().unwrap();
        if i < 4 {
            assert_eq!(warnings.len(), 1, "{p}");
            let w = warnings[0].as_str().unwrap();
            assert!(
                w.contains(".meta.json") && w.contains("metadata left out"),
                "{w}"
            );
            assert!(e.contains(&ids[i]), "{e}");
            assert!(p["meta"].get("device").is_none() && p["meta"].get("k").is_none());
        } else {
            assert!(warnings.is_empty(), "{p}");
        }
    }
    assert_eq!(profiles[4]["meta"]["device"], "ok");
    assert_eq!(v["groups"][0]["profiles"].as_array().unwrap().len(), 6);
}

// ------------------------------------------------------------------ stream2x

#[cfg(target_os = "linux")]
#[test]
fn stream2x_an_endless_stream_stops_at_the_limit_in_the_limit_of_memory() {
    use std::os::unix::process::CommandExt;
    // 512 MiB read from /dev/zero within 900 MiB of address space: the buffer grows to the
    // limit + 1 byte (doubling asked for 1 GiB and aborted).
    let mut cmd = Command::new(BIN);
    cmd.args([
        "report",
        "/dev/zero",
        "--no-log",
        "--max-input-size",
        "512M",
    ])
    .args(["--format", "json", "-o", "/dev/null"])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit {
                rlim_cur: 900 << 20,
                rlim_max: 900 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let t0 = Instant::now();
    let o = child::wait_with_timeout(cmd.spawn().unwrap(), Duration::from_secs(60));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("/dev/zero") && e.contains("larger than the limit of 536870912 bytes"),
        "{e}"
    );
    assert!(t0.elapsed() < Duration::from_secs(30));
}

// ------------------------------------------------------------------ logblank

#[test]
fn logblank_a_log_of_blank_lines_costs_about_its_size() {
    let tmp = tempfile::tempdir().unwrap();
    let dump = tmp.path().join("d.etdp");
    copy("etrecord/modules_xnnpack.etdp", &dump);
    // 8,000,000 blank lines (8 MB): ~200 bytes a line before (1.6 GB).
    let log = tmp.path().join("d.log");
    std::fs::write(&log, vec![b'\n'; 8_000_000]).unwrap();
    // Every line is still there for the log view (8,000,000 line endings written).
    let request = cpuprof_tui::profile::ProfileRequest::new(dump.clone(), Some(log.clone()), 0);
    let never = std::sync::atomic::AtomicBool::new(false);
    let p = cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &never).unwrap();
    assert_eq!(p.log_lines.len(), 8_000_000);
    assert_eq!(p.log_lines.text(7_999_999), Some(""));
    assert_eq!(
        p.log_lines.texts().filter(|t| t.is_empty()).count(),
        8_000_000
    );
    // The memory, with the log and without it (where /usr/bin/time is installed).
    let report = |extra: &[&str]| {
        let mut args = vec!["report", s(&dump), "--format", "json", "-o", "/dev/null"];
        args.extend_from_slice(extra);
        child::peak_rss_kib(BIN, &args)
    };
    let Some((code, without)) = report(&["--no-log"]) else {
        return;
    };
    assert_eq!(code, Some(0));
    let (code, with) = report(&[]).unwrap();
    assert_eq!(code, Some(0));
    // The log read (8 MB) and kept as text (8 MB), a mark per 64 lines, slack for the
    // allocator: within 4x the log's size of the run without it.
    let budget = 4 * 8_000_000 / 1024;
    assert!(
        with - without <= budget,
        "{with} KiB with the log, {without} KiB without"
    );
}
