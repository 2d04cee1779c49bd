//! The ETRecord and program rows of the "Round 3" hostile table (issue #45:
//! `eocd`, `zipentries`, `jsonzeros`, `handles`, `methodsflood`, `dupentry`, `methodname`)
//! and the model files given in the wrong place (issue #43), on inputs made here from the
//! real fixtures of `fixtures/etrecord` the way `round3.sh`'s `mk.py` makes them. Each
//! case has a time budget and, where it ballooned, a memory budget measured in the child
//! (`/usr/bin/time`, as `tests/it/hostile_round2.rs` does).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::child;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const EP: &str = "edge_dialect_exported_program/forward";
const HM: &str = "debug_handle_map";

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/etrecord")
        .join(rel)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run(args: &[&str], limit: Duration) -> (Output, Duration) {
    let t0 = Instant::now();
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = child::wait_with_timeout(child, limit);
    (o, t0.elapsed())
}

// ------------------------------------------------------------- stored zips, as mk.py

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}
fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// The entries of a stored zip written by Python's zipfile (no comment, no zip64).
fn entries(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
    let end = zip.len() - 22;
    assert_eq!(u32_at(zip, end), 0x0605_4b50);
    let (count, mut at) = (u16_at(zip, end + 10), u32_at(zip, end + 16));
    let mut out = Vec::new();
    for _ in 0..count {
        let (size, n, x, c) = (
            u32_at(zip, at + 20),
            u16_at(zip, at + 28),
            u16_at(zip, at + 30),
            u16_at(zip, at + 32),
        );
        let name = String::from_utf8(zip[at + 46..at + 46 + n].to_vec()).unwrap();
        let local = u32_at(zip, at + 42);
        let data = local + 30 + u16_at(zip, local + 26) + u16_at(zip, local + 28);
        out.push((name, zip[data..data + size].to_vec()));
        at += 46 + n + x + c;
    }
    out
}

fn crc(d: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(d);
    c.sum()
}

fn central(name: &[u8], data: &[u8], off: u32) -> Vec<u8> {
    let mut h = 0x0201_4b50u32.to_le_bytes().to_vec();
    h.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    h.extend_from_slice(&crc(data).to_le_bytes());
    h.extend_from_slice(&(data.len() as u32).to_le_bytes());
    h.extend_from_slice(&(data.len() as u32).to_le_bytes());
    h.extend_from_slice(&(name.len() as u16).to_le_bytes());
    h.extend_from_slice(&[0; 12]);
    h.extend_from_slice(&off.to_le_bytes());
    h.extend_from_slice(name);
    h
}

/// A stored zip of `ents`, with `extra_cd` (`extra_count` entries) after their directory;
/// zip64 end records past 65,535 entries.
fn build(ents: &[(String, Vec<u8>)], extra_cd: &[u8], extra_count: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cd = Vec::new();
    for (n, d) in ents {
        let off = out.len() as u32;
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&crc(d).to_le_bytes());
        out.extend_from_slice(&(d.len() as u32).to_le_bytes());
        out.extend_from_slice(&(d.len() as u32).to_le_bytes());
        out.extend_from_slice(&(n.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(n.as_bytes());
        out.extend_from_slice(d);
        cd.extend(central(n.as_bytes(), d, off));
    }
    cd.extend_from_slice(extra_cd);
    let count = ents.len() as u64 + extra_count;
    let off = out.len() as u64;
    out.extend_from_slice(&cd);
    let end = |count: u16, size: u32, off: u32| {
        let mut e = 0x0605_4b50u32.to_le_bytes().to_vec();
        e.extend_from_slice(&[0, 0, 0, 0]);
        e.extend_from_slice(&count.to_le_bytes());
        e.extend_from_slice(&count.to_le_bytes());
        e.extend_from_slice(&size.to_le_bytes());
        e.extend_from_slice(&off.to_le_bytes());
        e.extend_from_slice(&[0, 0]);
        e
    };
    if count > 0xffff {
        let z64 = out.len() as u64;
        out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&(cd.len() as u64).to_le_bytes());
        out.extend_from_slice(&off.to_le_bytes());
        out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&z64.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend(end(0xffff, 0xffff_ffff, 0xffff_ffff));
    } else {
        out.extend(end(count as u16, cd.len() as u32, off as u32));
    }
    out
}

/// The real ETRecord with entry `name` replaced by `data`.
fn replaced(name: &str, data: Vec<u8>) -> Vec<u8> {
    let src = std::fs::read(fixture("modules_xnnpack.etrecord")).unwrap();
    let ents: Vec<(String, Vec<u8>)> = entries(&src)
        .into_iter()
        .map(|(n, d)| if n == name { (n, data.clone()) } else { (n, d) })
        .collect();
    build(&ents, &[], 0)
}

fn real_entry(name: &str) -> Vec<u8> {
    let src = std::fs::read(fixture("modules_xnnpack.etrecord")).unwrap();
    entries(&src)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap()
        .1
}

/// A scratch folder holding the xnnpack dump (no program, no log beside it).
fn scratch() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("partial_xnnpack.etdp");
    std::fs::copy(fixture("modules_xnnpack.etdp"), &dump).unwrap();
    (dir, dump)
}

/// `report DUMP --no-log --etrecord REC --format json -o OUT`: the profile (parsed),
/// stderr, and the time taken; the profile must load (exit 0).
fn report_with(dump: &Path, rec: &Path, limit: Duration) -> (serde_json::Value, String, Duration) {
    let out = dump.with_extension("json");
    let (o, took) = run(
        &[
            "report",
            s(dump),
            "--no-log",
            "--etrecord",
            s(rec),
            "--format",
            "json",
            "-o",
            s(&out),
        ],
        limit,
    );
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(0), "{err}");
    let v = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    (v, err, took)
}

fn report_args<'a>(dump: &'a Path, rec: &'a Path) -> Vec<&'a str> {
    vec![
        "report",
        s(dump),
        "--no-log",
        "--etrecord",
        s(rec),
        "--format",
        "json",
        "-o",
        "/dev/null",
    ]
}

/// Every stderr line is one of ours, without a raw control character.
fn assert_clean_lines(err: &str) {
    for l in err.lines() {
        assert!(l.starts_with("cpuprof-tui: "), "{l:?}");
        assert!(!l.chars().any(|c| c.is_control()), "{l:?}");
    }
}

/// The rows got their sources (the dump's three delegates and its kernels).
fn assert_sources(v: &serde_json::Value) {
    let d = v["delegates"].as_array().unwrap();
    assert_eq!(d.len(), 3, "{v}");
    assert!(d.iter().all(|d| !d["source"].is_null()), "{v}");
}

// --------------------------------------------------------------------------- cases

/// `eocd`: 4 MB of zeros then 200,000 end-of-directory records, as `etrecord.bin` beside
/// the dump: each record used to start a scan of the file (never finished). Now one
/// search of the last 64 KiB: `etrecord_unreadable` at once, the profile loads.
#[test]
fn eocd_flood_is_unreadable_at_once() {
    let (dir, dump) = scratch();
    let mut rec = 0x0605_4b50u32.to_le_bytes().to_vec();
    rec.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0, 46, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let mut bytes = vec![0u8; 4_000_000];
    for _ in 0..200_000 {
        bytes.extend_from_slice(&rec);
    }
    std::fs::write(dir.path().join("etrecord.bin"), &bytes).unwrap();
    let out = dir.path().join("p.json");
    let (o, took) = run(
        &[
            "report",
            s(&dump),
            "--no-log",
            "--format",
            "json",
            "-o",
            s(&out),
        ],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("etrecord_unreadable"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("etrecord.bin") && lines[0].contains("zip"),
        "{err}"
    );
    assert!(took < Duration::from_secs(10), "{took:?}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["delegates"].as_array().unwrap().len(), 3);
}

/// `zipentries`: the real ETRecord plus 1,000,000 directory entries (zip64, 53 MB): refused
/// from the end record's count before the directory is read, in memory about the file.
#[test]
fn a_million_entries_are_refused_from_the_count() {
    let (dir, dump) = scratch();
    let n = 1_000_000u64;
    let mut cd = Vec::new();
    for i in 0..n {
        cd.extend(central(format!("x{i}").as_bytes(), b"", 0));
    }
    let src = std::fs::read(fixture("modules_xnnpack.etrecord")).unwrap();
    let bytes = build(&entries(&src), &cd, n);
    let rec = dir.path().join("e.etrecord.bin");
    std::fs::write(&rec, &bytes).unwrap();
    let (v, err, took) = report_with(&dump, &rec, Duration::from_secs(60));
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("etrecord_unreadable"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("1000") && lines[0].contains("100000"),
        "{err}"
    );
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert_eq!(v["delegates"].as_array().unwrap().len(), 3);
    if let Some((_, kib)) = child::peak_rss_kib(BIN, &report_args(&dump, &rec)) {
        let file_kib = bytes.len() as i64 / 1024;
        assert!(
            kib < file_kib + 64 * 1024,
            "peak RSS {kib} KiB for a {file_kib} KiB file"
        );
    }
}

/// `jsonzeros`: 20,000,000 zeros in an unused metadata key of the edge program (40 MB):
/// skipped without building values; the sources are read.
#[test]
fn unused_metadata_is_skipped_unbuilt() {
    let (dir, dump) = scratch();
    let ep = String::from_utf8(real_entry(EP)).unwrap();
    let at = ep.find("\"metadata\": {").unwrap() + "\"metadata\": {".len();
    let zeros = format!("\"junk\": [{}0], ", "0,".repeat(20_000_000 - 1));
    let edited = format!("{}{zeros}{}", &ep[..at], &ep[at..]);
    let rec = dir.path().join("z.etrecord.bin");
    let bytes = replaced(EP, edited.into_bytes());
    std::fs::write(&rec, &bytes).unwrap();
    let (v, err, took) = report_with(&dump, &rec, Duration::from_secs(60));
    assert!(!err.contains("etrecord"), "{err}");
    assert_sources(&v);
    assert!(took < Duration::from_secs(30), "{took:?}");
    if let Some((_, kib)) = child::peak_rss_kib(BIN, &report_args(&dump, &rec)) {
        let file_kib = bytes.len() as i64 / 1024;
        assert!(
            kib < file_kib + 64 * 1024,
            "peak RSS {kib} KiB for a {file_kib} KiB file"
        );
    }
}

/// `handles`: instruction 0 -> handle 1, five million times (10 MB): kept four times
/// (real lists repeat a handle, and the Inspector keeps the repeats), the rest counted in
/// one warning; memory about the file.
#[test]
fn repeated_handles_are_kept_a_few_times() {
    let (dir, dump) = scratch();
    let n = 5_000_000;
    let hm = format!("{{\"forward\": {{\"0\": [{}1]}}}}", "1,".repeat(n - 1));
    let rec = dir.path().join("h.etrecord.bin");
    let bytes = replaced(HM, hm.into_bytes());
    std::fs::write(&rec, &bytes).unwrap();
    let (v, err, took) = report_with(&dump, &rec, Duration::from_secs(60));
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("etrecord_")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains(&format!("{} debug handle", n - 4)),
        "{err}"
    );
    // Instruction 0 (the first delegate) has handle 1, four times.
    assert_eq!(
        v["delegates"][0]["source"]["debug_handles"],
        serde_json::json!([1, 1, 1, 1])
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    if let Some((_, kib)) = child::peak_rss_kib(BIN, &report_args(&dump, &rec)) {
        let file_kib = bytes.len() as i64 / 1024;
        assert!(
            kib < file_kib + 64 * 1024,
            "peak RSS {kib} KiB for a {file_kib} KiB file"
        );
    }
}

/// `methodsflood`: 200,000 methods (names with escapes) without a program entry: one
/// warning counting them and naming three, escaped; the real method keeps its sources.
#[test]
fn a_flood_of_methods_is_one_warning() {
    let (dir, dump) = scratch();
    let hm = String::from_utf8(real_entry(HM)).unwrap();
    let close = hm.rfind('}').unwrap();
    let mut text = hm[..close].to_string();
    for i in 0..200_000 {
        text.push_str(&format!(", \"m\\u001b[31m{i}\\u0007\": {{\"0\": 1}}"));
    }
    text.push('}');
    let rec = dir.path().join("m.etrecord.bin");
    std::fs::write(&rec, replaced(HM, text.into_bytes())).unwrap();
    let (v, err, took) = report_with(&dump, &rec, Duration::from_secs(60));
    assert!(err.lines().count() <= 3, "{} lines", err.lines().count());
    assert_clean_lines(&err);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("etrecord_")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("200000 methods") && lines[0].contains("and 199997 more"),
        "{err}"
    );
    assert_sources(&v);
    assert!(took < Duration::from_secs(30), "{took:?}");
}

/// `dupentry`: a second `debug_handle_map` entry after the real one: the first is read
/// (the sources stay), a warning names the duplicate.
#[test]
fn a_duplicate_entry_is_named_and_the_first_kept() {
    let (dir, dump) = scratch();
    let src = std::fs::read(fixture("modules_xnnpack.etrecord")).unwrap();
    let mut ents = entries(&src);
    ents.push((HM.to_string(), br#"{"forward": {"0": 424242}}"#.to_vec()));
    let rec = dir.path().join("d.etrecord.bin");
    std::fs::write(&rec, build(&ents, &[], 0)).unwrap();
    let (v, err, _) = report_with(&dump, &rec, Duration::from_secs(30));
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("etrecord_")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("duplicate") && lines[0].contains("\"debug_handle_map\""),
        "{err}"
    );
    assert!(!err.contains("424242"), "{err}");
    assert_sources(&v);
}

/// `methodname`: the program's method names hold escapes (same byte lengths, so the
/// flatbuffer stays valid): every warning of every method reaches stderr escaped.
#[test]
fn method_names_reach_stderr_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("three_methods.etdp");
    std::fs::copy(fixture("three_method.etdp"), &dump).unwrap();
    let pte = std::fs::read(fixture("three_method.pte")).unwrap();
    let swap = |d: Vec<u8>, from: &[u8], to: &[u8]| -> Vec<u8> {
        assert_eq!(from.len(), to.len());
        let at = d.windows(from.len()).position(|w| w == from).unwrap();
        let mut d = d;
        d[at..at + from.len()].copy_from_slice(to);
        d
    };
    let pte = swap(pte, b"decode\0", b"\x1b]0;X\x07\0");
    let pte = swap(pte, b"prefill\0", b"\x1b[2J\n\xc2\x9b\0");
    let pte = swap(pte, b"score\0", b"sc\xe2\x80\xae\0");
    std::fs::write(dir.path().join("three_methods.pte"), pte).unwrap();
    let (o, _) = run(
        &[
            "report",
            s(&dump),
            "--no-log",
            "--format",
            "json",
            "-o",
            "/dev/null",
        ],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.code().is_some_and(|c| c <= 1), "{err}");
    // Several methods have findings of their own (warm-up, ...), printed by name.
    assert!(err.lines().count() >= 2, "{err}");
    assert!(!o.stderr.iter().any(|&b| b == 0x1b || b == 0x07), "{err}");
    assert!(
        !err.contains('\u{9b}') && !err.contains('\u{202e}'),
        "{err}"
    );
    assert_clean_lines(&err);
}

// ------------------------------------------------------ issue #43: the wrong place

/// A program (`.pte`), a bundled program (`.bpte`) or an ETRecord (a zip, whatever its
/// name) given as the dump: one line saying what it is and how to pass it, exit 2.
#[test]
fn a_model_file_given_as_the_dump_says_how_to_pass_it() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("etrecord.bin");
    std::fs::copy(fixture("modules_portable.etrecord.bin"), &bin).unwrap();
    for (file, what) in [
        (
            fixture("modules_xnnpack.pte"),
            "ExecuTorch program (.pte), not an ETDump; pass it as --program",
        ),
        (
            fixture("attention_mask.bpte"),
            "bundled program (.bpte), not an ETDump; pass it as --program",
        ),
        (
            fixture("modules_xnnpack.etrecord"),
            "not an ETDump; pass it as --etrecord",
        ),
        (bin, "not an ETDump; pass it as --etrecord"),
    ] {
        for cmd in [&["report"][..], &["export", "--format", "folded"]] {
            let mut args = cmd.to_vec();
            args.push(s(&file));
            let (o, _) = run(&args, Duration::from_secs(30));
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(what) && !err.contains("identifier"), "{err}");
        }
    }
}

/// The bundled program is read as `--program` (its methods name the groups).
#[test]
fn a_bundled_program_is_a_program() {
    let out = tempfile::tempdir().unwrap();
    let o = out.path().join("p.json");
    let (r, _) = run(
        &[
            "report",
            s(&fixture("attention_mask.etdp")),
            "--no-log",
            "--program",
            s(&fixture("attention_mask.bpte")),
            "--format",
            "json",
            "-o",
            s(&o),
        ],
        Duration::from_secs(30),
    );
    let err = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(0), "{err}");
    assert!(!err.contains("program_"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&o).unwrap()).unwrap();
    assert!(v["model_files"]["program"]
        .as_str()
        .unwrap()
        .ends_with("attention_mask.bpte"));
    assert_eq!(v["methods"][0]["name"], "forward");
}

/// An ETRecord in the old layout whose nodes carry no debug handle, or one of another
/// export: read, matched to the method, but it maps no instruction to a node that fits:
/// a warning says so, no row keeps a source, and the profile does not name it as used.
#[test]
fn an_etrecord_that_maps_no_instruction_is_a_warning() {
    let (dir, dump) = scratch();
    let old = std::fs::read(fixture("old_layout.etrecord")).unwrap();
    let ents: Vec<(String, Vec<u8>)> = entries(&old)
        .into_iter()
        .map(|(n, d)| {
            if n == "edge_dialect_exported_program" {
                let t = String::from_utf8(d).unwrap();
                (
                    n,
                    t.replace("\"debug_handle\":", "\"old_handle\":")
                        .into_bytes(),
                )
            } else {
                (n, d)
            }
        })
        .collect();
    let rec = dir.path().join("old.etrecord");
    std::fs::write(&rec, build(&ents, &[], 0)).unwrap();
    let (v, err, _) = report_with(&dump, &rec, Duration::from_secs(30));
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("etrecord_unmapped"))
        .collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].contains("old.etrecord") && lines[0].contains("maps no instruction"));
    assert!(
        v["model_files"]["etrecord"].is_null(),
        "{}",
        v["model_files"]
    );
    assert_eq!(v["modules"], serde_json::json!([]));
    // The old-layout file of the XNNPACK export given for the portable export's dump:
    // its handles reach nodes, but those name other operators than every kernel (#0
    // runs permute_copy where its nodes are the delegate's linear and relu): not used.
    let dir2 = tempfile::tempdir().unwrap();
    let portable = dir2.path().join("modules_portable.etdp");
    std::fs::copy(fixture("modules_portable.etdp"), &portable).unwrap();
    let (v, err, _) = report_with(
        &portable,
        &fixture("old_layout.etrecord"),
        Duration::from_secs(30),
    );
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("etrecord_")).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(
        lines[0].contains("etrecord_unmapped")
            && lines[0].contains(
                "#0 native_call_permute_copy.out where its nodes are aten.linear.default"
            ),
        "{err}"
    );
    assert!(v["model_files"]["etrecord"].is_null());
    assert!(v["other_operators"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o["source"].is_null()));
    assert_eq!(v["modules"], serde_json::json!([]));
    // The real old-layout file maps every instruction, as the new layout does.
    let (v, err, _) = report_with(
        &dump,
        &fixture("old_layout.etrecord"),
        Duration::from_secs(30),
    );
    assert!(!err.contains("etrecord_"), "{err}");
    assert!(v["model_files"]["etrecord"]
        .as_str()
        .unwrap()
        .ends_with("old_layout.etrecord"));
    assert_sources(&v);
}
