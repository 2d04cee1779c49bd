//! `cpuprof-tui export` on a >= 100 MB CpuBackend dump (the Execute runs of
//! `fixtures/cpu/wide_browse.etdp` repeated, with its log), end to end (process start to
//! file written), side by side with `report --format json` on the same file. Short on
//! purpose: 10 samples each. A summary prints medians, ratios, output sizes and peak RSS
//! (from `/usr/bin/time` when installed).

#[path = "../tests/support/big_dump.rs"]
mod big_dump;
#[path = "../tests/support/etdump_build.rs"]
mod etdump_build;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

const RUNS: [(&str, &[&str]); 3] = [
    ("report --format json", &["report", "--format", "json"]),
    (
        "export --format folded",
        &["export", "--format", "folded", "--warmup", "5"],
    ),
    (
        "export --format chrome",
        &["export", "--format", "chrome", "--warmup", "5"],
    ),
];

fn run(args: &[&str], input: &Path, out: &Path) {
    let status = Command::new(BIN)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(input)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("binary runs");
    assert!(status.success(), "{args:?} failed on {}", input.display());
}

fn median_of(n: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[n / 2]
}

fn peak_rss_mb(args: &[&str], input: &Path, out: &Path) -> String {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return "n/a".into();
    }
    Command::new(time)
        .args(["-f", "%M", BIN])
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(input)
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .last()?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or("n/a".into(), |k| format!("{:.0} MB", k / 1024.0))
}

fn bench(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().expect("tempdir");
    let source = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, 100_000_000);
    let input = dir.path().join("big_wide.etdp");
    std::fs::write(&input, &bytes).expect("write big dump");
    std::fs::copy(
        root.join("fixtures/cpu/wide_browse.log"),
        dir.path().join("big_wide.log"),
    )
    .expect("log");
    eprintln!(
        "export: built {:.1} MB dump, {runs} runs",
        bytes.len() as f64 / 1e6
    );
    let out = dir.path().join("out");

    let mut g = c.benchmark_group("export_100MB");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    for (name, args) in RUNS {
        g.bench_function(name, |b| b.iter(|| run(args, &input, &out)));
    }
    g.finish();

    eprintln!("\nsummary (median of 5 runs each, same file, warm page cache)");
    eprintln!(
        "{:<24} {:>10} {:>8} {:>12} {:>10}",
        "command", "time", "ratio", "output", "peak RSS"
    );
    let mut base = None;
    for (name, args) in RUNS {
        let t = median_of(5, || run(args, &input, &out));
        let base = *base.get_or_insert(t);
        let size = std::fs::metadata(&out).map_or(0, |m| m.len());
        eprintln!(
            "{:<24} {:>8.0}ms {:>7.2}x {:>9.1} MB {:>10}",
            name,
            t.as_secs_f64() * 1e3,
            t.as_secs_f64() / base.as_secs_f64(),
            size as f64 / 1e6,
            peak_rss_mb(args, &input, &out)
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
