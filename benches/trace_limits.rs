//! Issue #48: torch.profiler traces at the machine's limit. Traces shaped like a real
//! training trace are made here (never committed): `fixtures/torch/cnn_train.json.gz`'s
//! events repeated with shifted timestamps and fresh ids (`cpuprof-testkit`'s `big_trace`),
//! ~47 MB (and ~1 GB with `CPUPROF_BENCH_1GB=1`), plain and gzip, in a temp dir (or
//! `CPUPROF_BENCH_DIR`, kept). Every peer is measured in the same run:
//! - `cpuprof-tui report FILE --format json -o OUT`: wall (median of 5), CPU, peak RSS
//!   from `wait4`;
//! - `cat FILE > /dev/null` (the machine's limit for reading the file);
//! - Python's `json.load` of the file (the time of the call alone, without Python's
//!   start; `CPUPROF_BENCH_PYTHON`, else `/work/venv/bin/python`, else `python3`;
//!   skipped with a message when none runs);
//! - the report of the `.gz` of the same file.
//!
//! - with `CPUPROF_BENCH_FLEET=1`, `fleet` over 16 rank traces of ~50 MB against
//!   HolisticTraceAnalysis' `TraceAnalysis` on the same folder (`support/fleet_hta.rs`).
//!
//! Each target is printed beside its figure with `target met` / `NOT met`. The report's
//! calls are checked against the truth: PyTorch's `key_averages()` of the fixture
//! (`cnn_train.key_averages.json`) times the number of copies, for every key.

use cpuprof_testkit::bench_run as run;
use cpuprof_testkit::big_trace;
use cpuprof_testkit::fleet_hta;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use run::{median_run, run_once, Run};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn mb(kib: u64) -> f64 {
    kib as f64 * 1024.0 / 1e6
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "target met"
    } else {
        "NOT met"
    }
}

/// The Python to time `json.load` with.
fn python() -> Option<String> {
    let candidates = [
        std::env::var("CPUPROF_BENCH_PYTHON").ok(),
        Some("/work/venv/bin/python".to_string()),
        Some("python3".to_string()),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "import json"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// `json.load` of `file` in seconds (the call alone), median of `n`.
fn json_load(py: &str, file: &Path, n: usize) -> Option<f64> {
    let code = "import json, sys, time\nts = []\nfor _ in range(int(sys.argv[2])):\n    t = time.perf_counter()\n    with open(sys.argv[1], 'rb') as f:\n        json.load(f)\n    ts.append(time.perf_counter() - t)\nprint(sorted(ts)[len(ts) // 2])";
    let out = Command::new(py)
        .args(["-c", code])
        .arg(file)
        .arg(n.to_string())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout).trim().parse().ok()
}

/// Every key of `key_averages()` of the fixture, its count times `copies`, equals the
/// report's calls of that op.
fn check_calls(report: &Path, copies: u64) -> Result<usize, String> {
    let truth: serde_json::Value = serde_json::from_slice(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/torch/cnn_train.key_averages.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let got: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let ops = got["ops"].as_array().ok_or("no ops")?;
    let mut checked = 0;
    for key in truth.as_array().unwrap() {
        let name = key["name"].as_str().unwrap();
        let want = key["count"].as_u64().unwrap() * copies;
        let calls = ops
            .iter()
            .find(|o| o["name"] == name)
            .and_then(|o| o["calls"].as_u64());
        if calls != Some(want) {
            return Err(format!(
                "{name}: {calls:?} calls, key_averages() x {copies} = {want}"
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

fn write_trace(
    t: &big_trace::TraceTemplate,
    dir: &Path,
    name: &str,
    bytes: u64,
) -> (PathBuf, PathBuf, u64) {
    let copies = t.copies_for(bytes);
    let path = dir.join(format!("{name}.json"));
    let gz = dir.join(format!("{name}.json.gz"));
    if !path.exists() {
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        t.write(&mut f, copies).unwrap();
        f.flush().unwrap();
    }
    // The gzip peer of the 47 MB trace only (its target); 1 GB is not compressed.
    if bytes <= 200_000_000 && !gz.exists() {
        let mut e = flate2::write::GzEncoder::new(
            std::io::BufWriter::new(std::fs::File::create(&gz).unwrap()),
            flate2::Compression::default(),
        );
        std::io::copy(&mut std::fs::File::open(&path).unwrap(), &mut e).unwrap();
        e.finish().unwrap().flush().unwrap();
    }
    (path, gz, copies)
}

fn warm(path: &Path) {
    let _ = run_once("cat", &[path.to_str().unwrap()]);
}

struct Figures {
    report: Run,
    cat: Run,
    gz: Option<Run>,
    py: Option<f64>,
}

fn measure(
    label: &str,
    path: &Path,
    gz: &Path,
    copies: u64,
    out: &Path,
    n: usize,
    py: Option<&str>,
) -> Figures {
    let p = path.to_str().unwrap();
    let o = out.to_str().unwrap();
    let size = std::fs::metadata(path).unwrap().len() as f64 / 1e6;
    let gz_size = std::fs::metadata(gz).map_or(0.0, |m| m.len() as f64 / 1e6);
    println!("{label}: {size:.1} MB ({copies} copies of the training trace's events; .gz {gz_size:.1} MB)");
    warm(path);
    let report_args = ["report", p, "--format", "json", "-o", o];
    let report = median_run(n, BIN, &report_args).expect("report runs");
    match check_calls(out, copies) {
        Ok(k) => println!("  every call counted: {k} keys = key_averages() x {copies}"),
        Err(e) => println!("  CALLS WRONG: {e}"),
    }
    let cat = median_run(n, "cat", &[p]).expect("cat runs");
    let gz_args = ["report", gz.to_str().unwrap(), "--format", "json", "-o", o];
    let gz_run = gz.exists().then(|| median_run(n, BIN, &gz_args)).flatten();
    // json.load of a gigabyte takes many GB of memory on a shared machine: 47 MB only.
    let py_s = py
        .filter(|_| size <= 200.0)
        .and_then(|py| json_load(py, path, 3));
    let line = |what: &str, r: &Run| {
        println!(
            "  {what:<40} wall {:>8.3} s  cpu {:>7.3} s  peak RSS {:>7.1} MB",
            r.wall,
            r.cpu,
            mb(r.rss_kib)
        )
    };
    line("cpuprof-tui report --format json", &report);
    line("cat FILE > /dev/null", &cat);
    if let Some(g) = &gz_run {
        line("cpuprof-tui report FILE.gz --format json", g);
    }
    match py_s {
        Some(s) => println!("  {:<40} {s:>13.3} s (the call alone)", "Python json.load"),
        None => {
            println!("  Python json.load: skipped (no Python found, or the file is over 200 MB)")
        }
    }
    Figures {
        report,
        cat,
        gz: gz_run,
        py: py_s,
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let keep = std::env::var_os("CPUPROF_BENCH_DIR").map(PathBuf::from);
    let tmp = tempfile::tempdir().unwrap();
    let dir = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("report.json");
    let py = python();
    let t = big_trace::TraceTemplate::from_fixture();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "trace_limits (load average {})",
        load.split(' ').take(3).collect::<Vec<_>>().join(" ")
    );

    let (p47, gz47, copies47) = write_trace(&t, &dir, "train47", 47_000_000);
    let f = measure(
        "47 MB training trace",
        &p47,
        &gz47,
        copies47,
        &out,
        5,
        py.as_deref(),
    );
    let mut targets: Vec<(String, String, bool)> = Vec::new();
    if let Some(py_s) = f.py {
        let x = py_s / f.report.wall;
        targets.push((
            "47 MB: >= 30x json.load".into(),
            format!("{x:.1}x"),
            x >= 30.0,
        ));
    }
    let x = f.report.wall / f.cat.wall;
    targets.push((
        "47 MB: <= 3x cat".into(),
        format!("{x:.1}x ({:.3} s vs {:.3} s)", f.report.wall, f.cat.wall),
        x <= 3.0,
    ));
    let rss = mb(f.report.rss_kib);
    targets.push((
        "47 MB: peak RSS <= 64 MB".into(),
        format!("{rss:.1} MB"),
        rss <= 64.0,
    ));
    if let Some(g) = &f.gz {
        let x = g.wall / f.report.wall;
        targets.push((
            "47 MB: .gz <= 1.6x the plain file".into(),
            format!("{x:.2}x ({:.3} s)", g.wall),
            x <= 1.6,
        ));
    }

    if std::env::var_os("CPUPROF_BENCH_1GB").is_some() {
        let (p1g, gz1g, copies1g) = write_trace(&t, &dir, "train1g", 1_000_000_000);
        let f = measure(
            "1 GB training trace",
            &p1g,
            &gz1g,
            copies1g,
            &out,
            3,
            py.as_deref(),
        );
        let x = f.report.wall / f.cat.wall;
        targets.push((
            "1 GB: <= 3x cat".into(),
            format!("{x:.1}x ({:.3} s vs {:.3} s)", f.report.wall, f.cat.wall),
            x <= 3.0,
        ));
        let rss = mb(f.report.rss_kib);
        targets.push((
            "1 GB: peak RSS <= 256 MB".into(),
            format!("{rss:.1} MB"),
            rss <= 256.0,
        ));
        if let Some(py_s) = f.py {
            println!("  (1 GB: {:.1}x json.load)", py_s / f.report.wall);
        }
    } else {
        println!("(1 GB trace: set CPUPROF_BENCH_1GB=1)");
    }
    if std::env::var_os("CPUPROF_BENCH_FLEET").is_some() {
        targets.extend(fleet_hta::fleet_vs_hta(&t, &dir, BIN));
    } else {
        println!(
            "(fleet of 16 rank traces against HolisticTraceAnalysis: set CPUPROF_BENCH_FLEET=1)"
        );
    }
    println!("\ntargets (one run, peers measured in it; the machine may be shared):");
    for (what, figure, ok) in &targets {
        println!("  {what:<40} {figure:<32} {}", verdict(*ok));
    }
    if keep.is_none() {
        drop(tmp);
    }
}
