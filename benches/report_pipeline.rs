//! `cpuprof-tui report --format json` end to end (process start, read, verify, attribute,
//! statistics, JSON written to a file) against the baseline `wc -l` (one plain sequential
//! read) on the same file, side by side:
//! - `../shared/fixtures/real/big20k_mlp_xnnpack.etdp` (8.7 MB, real runtime dump), when
//!   present;
//! - a >= 100 MB CpuBackend dump built here by repeating the Execute runs of
//!   `fixtures/cpu/wide_browse.etdp` (with its log, so plans are decoded).
//!
//! After criterion's runs a summary prints medians, ratios, MB/s, events/s and peak RSS
//! (from `/usr/bin/time` when installed).

use cpuprof_testkit::big_dump;

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use cpuprof_testkit::bench_run as run;

use run::*;

struct Input {
    label: &'static str,
    path: PathBuf,
    bytes: u64,
    events: usize,
}

fn inputs(dir: &Path) -> Vec<Input> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let real = root.join("../shared/fixtures/real/big20k_mlp_xnnpack.etdp");
    if real.is_file() {
        out.push(input("real_8.7MB", real));
    } else {
        eprintln!(
            "report_pipeline: {} not found, skipping the real 8.7 MB dump",
            real.display()
        );
    }
    let source = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, 100_000_000);
    let big = dir.join("big_wide.etdp");
    std::fs::write(&big, &bytes).expect("write big dump");
    std::fs::copy(
        root.join("fixtures/cpu/wide_browse.log"),
        dir.join("big_wide.log"),
    )
    .expect("log");
    eprintln!(
        "report_pipeline: built {} ({:.1} MB, {runs} runs)",
        big.display(),
        bytes.len() as f64 / 1e6
    );
    out.push(input("cpu_plan_100MB", big));
    out
}

fn input(label: &'static str, path: PathBuf) -> Input {
    let bytes = std::fs::metadata(&path).expect("stat").len();
    let data = std::fs::read(&path).expect("read");
    let events = cpuprof_tui::etdump::parse(&data)
        .expect("parses")
        .events
        .len();
    Input {
        label,
        path,
        bytes,
        events,
    }
}

fn wc(path: &Path) {
    let out = Command::new("wc")
        .arg("-l")
        .arg(path)
        .output()
        .expect("wc runs");
    assert!(out.status.success());
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("profile.json");
    let inputs = inputs(dir.path());
    for i in &inputs {
        let mut g = c.benchmark_group(format!("report_vs_wc/{}", i.label));
        g.sample_size(10);
        g.throughput(Throughput::Bytes(i.bytes));
        g.bench_function("wc -l (baseline)", |b| b.iter(|| wc(&i.path)));
        g.bench_function("report --format json", |b| b.iter(|| report(&i.path, &out)));
        g.finish();
    }
    eprintln!("\nsummary (median of 7 runs each, same files, warm page cache)");
    eprintln!(
        "{:<16} {:>9} {:>11} {:>11} {:>8} {:>10} {:>13} {:>12}",
        "input", "MB", "wc -l", "report", "ratio", "MB/s", "events/s", "peak RSS"
    );
    for i in &inputs {
        let t_wc = median_of(7, || wc(&i.path));
        let t_rep = median_of(7, || report(&i.path, &out));
        let rss = peak_rss_kib(&["report", "--format", "json"], &i.path, &out)
            .map_or("n/a".to_string(), |k| {
                format!("{:.0} MB", k as f64 / 1024.0)
            });
        let mb = i.bytes as f64 / 1e6;
        eprintln!(
            "{:<16} {:>9.1} {:>9.1}ms {:>9.1}ms {:>7.1}x {:>10.0} {:>13.0} {:>12}",
            i.label,
            mb,
            t_wc.as_secs_f64() * 1e3,
            t_rep.as_secs_f64() * 1e3,
            t_rep.as_secs_f64() / t_wc.as_secs_f64(),
            mb / t_rep.as_secs_f64(),
            i.events as f64 / t_rep.as_secs_f64(),
            rss
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
