//! THAPI across nodes: one CTF directory per node (written here with the test-support
//! writer: 4 hosts × 2 processes × 2 threads), read as one tally by `report`, cut per
//! host / process / thread (`--per`), with the stragglers (per op, the groups whose calls
//! are outliers). Expected values are computed here while the calls are written (what
//! was written, in ns: the writer's clock is 1 GHz), never read back from the code.
//! Where babeltrace2 is installed, each node's counts are checked against its text
//! output read by the text reader; the real recording (`fixtures/thapi/ctf`) is checked
//! per thread against its ground truth (`expected_events.tsv`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use cpuprof_testkit::ctf_writer::{CtfWriter, WriteEvent, WriterConfig};

const HOSTS: [&str; 4] = ["n0", "n1", "n2", "n3"];
const CALLS_PER_THREAD: u64 = 12;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
}

/// (calls, total ns, min ns, max ns) per key.
type Truth = BTreeMap<(String, String), (u64, i64, i64, i64)>;

fn add(t: &mut Truth, group: &str, op: &str, d: i64) {
    let e = t
        .entry((group.to_string(), op.to_string()))
        .or_insert((0, 0, i64::MAX, i64::MIN));
    e.0 += 1;
    e.1 += d;
    e.2 = e.2.min(d);
    e.3 = e.3.max(d);
}

/// Write one node: 2 processes (pid 1000 + 10·h + p) of 2 threads (tid = pid, pid + 500),
/// each thread on its own stream, each running `CALLS_PER_THREAD` times: `aten::mm`,
/// `aten::relu`, and `aten::linear` holding `aten::addmm`. `slow_mm` multiplies every
/// `aten::mm` call by 3. Durations depend on the iteration (a permutation of 0..11) and
/// a little on the thread and host (0–41 ns), so groups differ slightly but not by 5%.
/// Returns the truth per (host, op), per ("host pid", op) and per ("", op).
fn write_node(dir: &Path, h: usize, slow_mm: bool, truth: &mut [Truth; 3]) {
    let cfg = WriterConfig {
        streams: 4,
        hostname: HOSTS[h].to_string(),
        ..WriterConfig::default()
    };
    let mut w = CtfWriter::new(cfg);
    for p in 0..2 {
        let pid = 1000 + 10 * h as i32 + p;
        for t in 0..2 {
            let tid = pid + 500 * t;
            let stream = (2 * p + t) as usize;
            let mut ts: u64 = 1_000_000 + 777 * stream as u64;
            let call = |w: &mut CtfWriter,
                        ts: &mut u64,
                        name: &str,
                        dur: u64,
                        inner: Option<(&str, u64)>| {
                let op = |entry| WriteEvent::Op {
                    entry,
                    vpid: pid,
                    vtid: tid,
                    name,
                    overload: "",
                };
                w.event(stream, *ts, op(true));
                if let Some((child, d)) = inner {
                    let c = |entry| WriteEvent::Op {
                        entry,
                        vpid: pid,
                        vtid: tid,
                        name: child,
                        overload: "",
                    };
                    w.event(stream, *ts + 400, c(true));
                    w.event(stream, *ts + 400 + d, c(false));
                }
                w.event(stream, *ts + dur, op(false));
                *ts += dur + 500;
            };
            for i in 0..CALLS_PER_THREAD {
                let k = (i * 5) % CALLS_PER_THREAD; // a permutation of 0..11
                                                    // Hosts and threads differ a little (as real ones do), never by 5%.
                let jitter = (tid % 3) as u64 * 10 + h as u64 * 7;
                let mut mm = 20_000 + k * 150 + jitter;
                if slow_mm {
                    mm *= 3;
                }
                let relu = 3_000 + k * 30 + jitter;
                let addmm = 8_000 + k * 60 + jitter;
                let linear = addmm + 1_000;
                call(&mut w, &mut ts, "aten::mm", mm, None);
                call(&mut w, &mut ts, "aten::relu", relu, None);
                call(
                    &mut w,
                    &mut ts,
                    "aten::linear",
                    linear,
                    Some(("aten::addmm", addmm)),
                );
                let proc_key = format!("{} pid {pid}", HOSTS[h]);
                for (op, d) in [
                    ("aten::mm", mm),
                    ("aten::relu", relu),
                    ("aten::linear", linear),
                    ("aten::addmm", addmm),
                ] {
                    add(&mut truth[0], HOSTS[h], op, d as i64);
                    add(&mut truth[1], &proc_key, op, d as i64);
                    add(&mut truth[2], "", op, d as i64);
                }
            }
        }
    }
    w.finish(dir).unwrap();
}

/// A job folder `root/n0 .. root/n3`, one trace directory per node; `slow`: the host
/// whose `aten::mm` is 3× slower.
fn job(slow: Option<usize>) -> (tempfile::TempDir, [Truth; 3]) {
    let tmp = tempfile::tempdir().unwrap();
    let mut truth: [Truth; 3] = Default::default();
    for (h, host) in HOSTS.iter().enumerate() {
        write_node(&tmp.path().join(host), h, slow == Some(h), &mut truth);
    }
    (tmp, truth)
}

fn run_ok(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&run_ok(args)).unwrap()
}

fn ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

fn close(a: &serde_json::Value, ns: i64) -> bool {
    (a.as_f64().unwrap() - ms(ns)).abs() < 1e-9
}

/// iprof's time cell (formats.md §3): the largest unit giving a value ≥ 1, two decimals.
fn iprof_time(ns: i64) -> String {
    let v = ns as f64;
    for (div, unit) in [(1e9, "s"), (1e6, "ms"), (1e3, "us")] {
        if v >= div {
            return format!("{:.2}{unit}", v / div);
        }
    }
    format!("{ns}ns")
}

fn p(d: &Path) -> &str {
    d.to_str().unwrap()
}

#[test]
fn a_folder_of_nodes_gives_one_tally_with_its_hosts() {
    let (tmp, truth) = job(Some(2));
    let root = tmp.path();
    let v = json(&["report", "--format", "json", "--per", "host", p(root)]);
    assert_eq!(v["schema"], "cpuprof.trace/1");
    // The whole: 4 hosts × 2 processes × 2 threads × 12 calls of each op.
    let ops = v["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 4);
    for op in ops {
        let name = op["name"].as_str().unwrap();
        let (calls, total, _, _) = truth[2][&(String::new(), name.to_string())];
        assert_eq!(calls, 4 * 2 * 2 * CALLS_PER_THREAD);
        assert_eq!(op["calls"], calls, "{name}");
        assert!(close(&op["inclusive_total"], total), "{name}: {op}");
    }
    assert_eq!(v["threads"].as_array().unwrap().len(), 16);
    // Per host.
    assert_eq!(v["per"], "host");
    let groups = v["breakdown"].as_array().unwrap();
    let hosts: Vec<&str> = groups.iter().map(|g| g["host"].as_str().unwrap()).collect();
    assert_eq!(hosts, HOSTS);
    for g in groups {
        let host = g["host"].as_str().unwrap();
        assert_eq!(g["threads"], 4);
        assert!(g.get("pid").is_none());
        let ops = g["ops"].as_array().unwrap();
        assert_eq!(ops.len(), 4);
        for op in ops {
            let name = op["name"].as_str().unwrap();
            let (calls, total, min, max) = truth[0][&(host.to_string(), name.to_string())];
            assert_eq!(op["calls"], calls, "{host} {name}");
            assert!(close(&op["inclusive_total"], total), "{host} {name}");
            assert!(
                close(&op["min"], min) && close(&op["max"], max),
                "{host} {name}"
            );
        }
    }
    // Exactly the slow host on exactly the slow op.
    let s = v["stragglers"].as_array().unwrap();
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(
        (s[0]["op"].as_str(), s[0]["host"].as_str()),
        (Some("aten::mm"), Some("n2"))
    );
    let ratio = s[0]["ratio"].as_f64().unwrap();
    assert!((2.9..3.1).contains(&ratio), "{ratio}");
    assert_eq!(s[0]["calls"], 2 * 2 * CALLS_PER_THREAD);
    assert_eq!(s[0]["groups"], 4);
}

#[test]
fn the_tally_text_has_the_total_the_stragglers_and_each_host() {
    let (tmp, truth) = job(Some(2));
    let root = tmp.path();
    let text = run_ok(&["report", "--format", "tally", "--per", "host", p(root)]);
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("BACKEND_PYTORCH | 4 Hostnames | 8 Processes | 16 Threads | ")
    );
    // The total's mm row: its time and calls as written.
    let (calls, total, _, _) = truth[2][&(String::new(), "aten::mm".to_string())];
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("aten::mm |"))
        .unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells[1], iprof_time(total), "{row}");
    assert_eq!(cells[3], calls.to_string(), "{row}");
    // One straggler line, naming n2 and aten::mm.
    let at = text.find("Stragglers per host (4 hosts").expect(&text);
    let section: Vec<&str> = text[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(section.len(), 1, "{text}");
    assert!(section[0].contains("aten::mm | n2 |"), "{}", section[0]);
    // Each host's own table, iprof -e style, with its own counts.
    for (h, host) in HOSTS.iter().enumerate() {
        let title = format!(
            "Hostname: {host} | \nBACKEND_PYTORCH | 1 Hostnames | 2 Processes | 4 Threads | "
        );
        let at = text
            .find(&title)
            .unwrap_or_else(|| panic!("{host}: {text}"));
        let (calls, total, _, _) = truth[0][&(host.to_string(), "aten::mm".to_string())];
        let row = text[at..]
            .lines()
            .find(|l| l.trim_start().starts_with("aten::mm |"))
            .unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(
            (cells[1], cells[3]),
            (iprof_time(total).as_str(), calls.to_string().as_str()),
            "{h}"
        );
    }
}

#[test]
fn several_paths_give_the_tally_of_the_folder() {
    let (tmp, _) = job(Some(2));
    let root = tmp.path();
    let dirs: Vec<PathBuf> = HOSTS.iter().map(|h| root.join(h)).collect();
    let mut args = vec!["report", "--format", "tally"];
    args.extend(dirs.iter().map(|d| p(d)));
    let by_paths = run_ok(&args);
    let by_folder = run_ok(&["report", "--format", "tally", p(root)]);
    assert_eq!(by_paths, by_folder);
    assert!(by_paths.starts_with("BACKEND_PYTORCH | 4 Hostnames | 8 Processes | 16 Threads | "));
    // Without --per the tally is the plain iprof tally: no straggler, no host section.
    assert!(!by_paths.contains("Stragglers") && !by_paths.contains("Hostname:"));
}

#[test]
fn per_process_and_per_thread_find_the_slow_hosts_ranks() {
    let (tmp, truth) = job(Some(2));
    let root = tmp.path();
    let v = json(&["report", "--format", "json", "--per", "process", p(root)]);
    let groups = v["breakdown"].as_array().unwrap();
    assert_eq!(groups.len(), 8);
    for g in groups {
        let key = format!("{} pid {}", g["host"].as_str().unwrap(), g["pid"]);
        assert_eq!(g["threads"], 2);
        for op in g["ops"].as_array().unwrap() {
            let name = op["name"].as_str().unwrap();
            let (calls, total, _, _) = truth[1][&(key.clone(), name.to_string())];
            assert_eq!(op["calls"], calls, "{key} {name}");
            assert!(close(&op["inclusive_total"], total), "{key} {name}");
        }
    }
    let s: Vec<(String, i64)> = v["stragglers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["op"].as_str().unwrap().to_string(),
                s["pid"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        s,
        [
            ("aten::mm".to_string(), 1020),
            ("aten::mm".to_string(), 1021)
        ]
    );
    let v = json(&["report", "--format", "json", "--per", "thread", p(root)]);
    assert_eq!(v["breakdown"].as_array().unwrap().len(), 16);
    let s = v["stragglers"].as_array().unwrap();
    assert_eq!(s.len(), 4, "{s:?}");
    assert!(s.iter().all(|s| s["op"] == "aten::mm" && s["host"] == "n2"));
}

#[test]
fn a_null_job_has_no_straggler() {
    let (tmp, _) = job(None);
    let root = tmp.path();
    for per in ["host", "process", "thread"] {
        let v = json(&["report", "--format", "json", "--per", per, p(root)]);
        assert_eq!(v["stragglers"].as_array().unwrap().len(), 0, "{per}");
    }
    let text = run_ok(&["report", "--format", "tally", "--per", "host", p(root)]);
    assert!(
        text.contains("Stragglers per host: none (4 hosts compared op by op)"),
        "{text}"
    );
}

#[test]
fn a_fleet_of_node_directories_names_the_straggler() {
    let (tmp, _) = job(Some(2));
    let root = tmp.path();
    let v = json(&["fleet", "--format", "json", p(root)]);
    assert_eq!(v["schema"], "cpuprof.fleet/1");
    assert_eq!(v["profiles"].as_array().unwrap().len(), 4);
    let s = v["stragglers"].as_array().unwrap();
    assert_eq!(s.len(), 1, "{s:?}");
    assert_eq!(
        (s[0]["op"].as_str(), s[0]["id"].as_str()),
        (Some("aten::mm"), Some("n2"))
    );
    let table = run_ok(&["fleet", p(root)]);
    assert!(table.contains("Stragglers (4 traces"), "{table}");
    assert!(table.contains("aten::mm | n2 |"), "{table}");
    let (null, _) = job(None);
    let v = json(&["fleet", "--format", "json", p(null.path())]);
    assert_eq!(v["stragglers"].as_array().unwrap().len(), 0);
}

#[test]
fn a_bad_or_foreign_path_among_the_nodes_is_one_line_exit_2() {
    let (tmp, _) = job(Some(2));
    let root = tmp.path();
    let empty = root.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let notes = root.join("notes.txt");
    std::fs::write(&notes, "not a trace\n").unwrap();
    let dump = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cpu/wide_browse.etdp");
    let n0 = root.join("n0");
    for (bad, says) in [
        (empty.as_path(), "not a CTF trace directory"),
        (notes.as_path(), "notes.txt"),
        (dump.as_path(), "an ETDump"),
    ] {
        let out = bin()
            .args(["report", "--format", "tally", p(&n0), p(bad)])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        let name = bad.file_name().unwrap().to_str().unwrap();
        assert!(err.contains(name) && err.contains(says), "{err}");
    }
    // Every file of every node goes through the input limit.
    let out = bin()
        .args([
            "report",
            "--max-input-size",
            "1000",
            "--format",
            "tally",
            p(&root.join("n1")),
            p(&n0),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("n1: metadata") && err.contains("input limit"),
        "{err}"
    );
    // --per with CSV is a usage line.
    let out = bin()
        .args(["report", "--format", "csv", "--per", "host", p(&n0)])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // An output over one of the nodes' files is refused before anything is read.
    let meta = n0.join("metadata");
    let before = std::fs::read(&meta).unwrap();
    let out = bin()
        .args([
            "report",
            "--format",
            "tally",
            p(&root.join("n1")),
            p(&n0),
            "-o",
            p(&meta),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&meta).unwrap(), before);
}

/// Per op: calls from a text reader's profile.
fn calls_of(p: &cpuprof_tui::trace::TraceProfile) -> BTreeMap<String, u64> {
    p.ops
        .iter()
        .map(|o| (o.name.to_string(), o.calls))
        .collect()
}

#[test]
fn each_node_agrees_with_babeltrace2_where_installed() {
    let bt = Path::new("/usr/bin/babeltrace2");
    if !bt.exists() {
        eprintln!("skipped: /usr/bin/babeltrace2 not installed (apt-get install babeltrace2)");
        return;
    }
    let (tmp, _) = job(Some(2));
    let root = tmp.path();
    let v = json(&["report", "--format", "json", "--per", "host", p(root)]);
    for (h, host) in HOSTS.iter().enumerate() {
        let out = Command::new(bt)
            .args(["--clock-seconds", p(&root.join(host))])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = cpuprof_tui::trace::parse_trace(&out.stdout, host).unwrap();
        let want = calls_of(&text);
        let got: BTreeMap<String, u64> = v["breakdown"][h]["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| {
                (
                    o["name"].as_str().unwrap().to_string(),
                    o["calls"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(got, want, "{host}");
        assert_eq!(text.threads.len(), 4, "{host}");
        assert!(text
            .threads
            .iter()
            .all(|t| t.key.host.as_deref() == Some(*host)));
    }
}

/// The real recording, per thread, against its ground truth: an op's calls on a thread
/// are its exits there (an exit without entry is a failed call; the entry never exited
/// is no call).
#[test]
fn the_real_recording_per_thread_matches_its_ground_truth() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/thapi");
    let tsv = std::fs::read_to_string(fixtures.join("expected_events.tsv")).unwrap();
    let mut want: BTreeMap<i64, BTreeMap<String, u64>> = BTreeMap::new();
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if f[1] != "lttng_ust_pytorch:op_exit" {
            continue;
        }
        let name = if f.get(5).is_some_and(|o| !o.is_empty()) {
            format!("{}.{}", f[4], f[5])
        } else {
            f[4].to_string()
        };
        *want
            .entry(f[3].parse().unwrap())
            .or_default()
            .entry(name)
            .or_default() += 1;
    }
    assert_eq!(want.len(), 2);
    let v = json(&[
        "report",
        "--format",
        "json",
        "--per",
        "thread",
        p(&fixtures.join("ctf")),
    ]);
    let mut got: BTreeMap<i64, BTreeMap<String, u64>> = BTreeMap::new();
    for g in v["breakdown"].as_array().unwrap() {
        let ops = got.entry(g["tid"].as_i64().unwrap()).or_default();
        for o in g["ops"].as_array().unwrap() {
            ops.insert(
                o["name"].as_str().unwrap().to_string(),
                o["calls"].as_u64().unwrap(),
            );
        }
    }
    assert_eq!(got, want);
    let text = run_ok(&[
        "report",
        "--format",
        "tally",
        "--per",
        "thread",
        p(&fixtures.join("ctf")),
    ]);
    assert!(
        text.contains(
            "Stragglers per thread: none sought (2 threads; at least 3 are needed to compare)"
        ),
        "{text}"
    );
}
