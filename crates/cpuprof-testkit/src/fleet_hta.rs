//! Issue #48's fleet target, for `trace_limits`: 16 rank traces of ~50 MB each (the
//! training fixture's events repeated, as the 47 MB trace; `distributedInfo.rank` in
//! each, as Kineto writes it for a distributed job), every rank's times scaled by
//! 1 + rank/2000 (ranks differ a little, as real ones do) and rank 7's by 1.5 (the
//! straggler). In the same run:
//! - `cpuprof-tui fleet DIR --format json -o OUT` (median of 3; wall, CPU, peak RSS), its
//!   `stragglers[]` checked: rank 7 listed, no other rank;
//! - HolisticTraceAnalysis: `TraceAnalysis(trace_dir=DIR)` (it parses every rank), then
//!   what it takes to list the stragglers with it (HTA has no straggler call for CPU
//!   ops, and its temporal breakdown needs GPU kernels): each rank's median call per
//!   op from its parsed frames, and the robust z of each rank's median against the
//!   ranks' (the rule our fleet uses, without its tests). Timed in Python (the calls
//!   alone) and as a whole command (Python start and `import hta` included). The Python
//!   is `CPUPROF_BENCH_HTA`, else `/work/venv/bin/python`; skipped with a message when
//!   it cannot import HTA (`pip install HolisticTraceAnalysis`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::bench_run::{median_run, Run};
use crate::big_trace::TraceTemplate;

pub const RANKS: u32 = 16;
pub const STRAGGLER: u32 = 7;

/// The rank traces under `dir/fleet16/` (kept when already there).
pub fn write_ranks(t: &TraceTemplate, dir: &Path, bytes: u64) -> PathBuf {
    let fleet = dir.join("fleet16");
    std::fs::create_dir_all(&fleet).unwrap();
    let copies = t.copies_for(bytes);
    for rank in 0..RANKS {
        let path = fleet.join(format!("rank-{rank:02}.json"));
        if path.exists() {
            continue;
        }
        let scale = if rank == STRAGGLER {
            (3, 2)
        } else {
            (2000 + i64::from(rank), 2000)
        };
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        t.write_rank(&mut f, copies, rank, scale).unwrap();
        std::io::Write::flush(&mut f).unwrap();
    }
    fleet
}

/// The Python to run HTA with, when it imports HTA.
fn hta_python() -> Option<String> {
    let candidates = [
        std::env::var("CPUPROF_BENCH_HTA").ok(),
        Some("/work/venv/bin/python".to_string()),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .args(["-c", "from hta.trace_analysis import TraceAnalysis"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

const HTA_SCRIPT: &str = r#"
import sys, time, logging
logging.disable(logging.WARNING)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
t1 = time.perf_counter()
a = TraceAnalysis(trace_dir=sys.argv[1])
t2 = time.perf_counter()
ids = a.t.symbol_table.get_sym_id_map()
names = a.t.symbol_table.get_sym_table()
ops = {ids[c] for c in ("cpu_op", "user_annotation") if c in ids}
medians = {}
for rank, df in a.t.traces.items():
    calls = df[df["cat"].isin(ops)]
    for name, m in calls.groupby("name")["dur"].median().items():
        medians.setdefault(name, {})[rank] = m
found = []
for name, per_rank in medians.items():
    if len(per_rank) < 3:
        continue
    values = sorted(per_rank.values())
    mid = values[len(values) // 2]
    mad = sorted(abs(v - mid) for v in values)[len(values) // 2]
    scale = 1.4826 * mad if mad > 0 else 1.253314 * sum(abs(v - mid) for v in values) / len(values)
    for rank, v in per_rank.items():
        if scale > 0 and (v - mid) / scale >= 3.5 and v >= 1.05 * mid:
            found.append((names[name], rank))
t3 = time.perf_counter()
ranks = sorted({r for _, r in found})
print("RESULT", t2 - t1, t3 - t2, len(found), ",".join(map(str, ranks)))
"#;

/// HTA on `dir`: (TraceAnalysis construction s, straggler listing s, whole command s,
/// stragglers found, their ranks).
fn hta(py: &str, dir: &Path) -> Option<(f64, f64, f64, usize, String)> {
    let started = Instant::now();
    let out = Command::new(py)
        .args(["-c", HTA_SCRIPT])
        .arg(dir)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let whole = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("RESULT "))?;
    let f: Vec<&str> = line.split(' ').collect();
    Some((
        f[1].parse().ok()?,
        f[2].parse().ok()?,
        whole,
        f[3].parse().ok()?,
        f.get(4).unwrap_or(&"").to_string(),
    ))
}

/// The profiles our fleet lists as stragglers (their ids) and how many lines.
fn our_stragglers(out: &Path) -> (Vec<String>, usize) {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out).unwrap_or_default()).unwrap_or_default();
    let list = v["stragglers"].as_array().cloned().unwrap_or_default();
    let mut ids: Vec<String> = list
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    (ids, list.len())
}

/// Measure both; the targets' lines.
pub fn fleet_vs_hta(t: &TraceTemplate, dir: &Path, bin: &str) -> Vec<(String, String, bool)> {
    let started = Instant::now();
    let fleet = write_ranks(t, dir, 50_000_000);
    let bytes: u64 = std::fs::read_dir(&fleet)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum();
    println!(
        "fleet of {RANKS} rank traces: {:.0} MB in all (rank {STRAGGLER} slowed 1.5x; written in {:.1} s)",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );
    let paths: Vec<String> = std::fs::read_dir(&fleet)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().to_string())
        .collect();
    let mut cat_args: Vec<&str> = paths.iter().map(String::as_str).collect();
    cat_args.sort();
    let cat = median_run(3, "cat", &cat_args).expect("cat runs");
    let out = dir.join("fleet16.json");
    let args = [
        "fleet",
        fleet.to_str().unwrap(),
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ];
    let ours: Run = median_run(3, bin, &args).expect("fleet runs");
    let (ids, lines) = our_stragglers(&out);
    println!(
        "  {:<40} wall {:>8.3} s  cpu {:>7.3} s  peak RSS {:>7.1} MB",
        "cpuprof-tui fleet DIR --format json",
        ours.wall,
        ours.cpu,
        ours.rss_kib as f64 * 1024.0 / 1e6
    );
    println!("  {:<40} wall {:>8.3} s", "cat FILES > /dev/null", cat.wall);
    println!("  our stragglers: {lines} (op, rank) lines, ranks {ids:?}");
    let want = format!("rank-{STRAGGLER:02}.json");
    let mut targets = vec![(
        "fleet: stragglers name rank 7 only".to_string(),
        format!("{lines} lines, {} rank(s)", ids.len()),
        lines > 0 && ids.iter().all(|i| i.ends_with(&want)),
    )];
    let Some(py) = hta_python() else {
        println!(
            "  HolisticTraceAnalysis: skipped (no Python that imports hta; set CPUPROF_BENCH_HTA=python, \
             pip install HolisticTraceAnalysis)"
        );
        return targets;
    };
    match hta(&py, &fleet) {
        Some((construct, listing, whole, found, ranks)) => {
            println!(
                "  {:<40} {:>8.3} s, straggler listing {:.3} s, whole command {:.3} s; \
                 {found} (op, rank) found, ranks [{ranks}]",
                "HTA TraceAnalysis(trace_dir=DIR)", construct, listing, whole
            );
            let x = (construct + listing) / ours.wall;
            targets.push((
                "fleet: >= 40x HTA TraceAnalysis".into(),
                format!(
                    "{x:.1}x ({:.1} s vs {:.3} s; whole commands {:.1}x)",
                    construct + listing,
                    ours.wall,
                    whole / ours.wall
                ),
                x >= 40.0,
            ));
        }
        None => println!("  HolisticTraceAnalysis: failed on {}", fleet.display()),
    }
    targets
}
