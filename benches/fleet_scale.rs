//! Scale targets of issue #25, side by side in one run (inputs generated in a temp dir,
//! never committed):
//! - `fleet_1000x1mb`: 1,000 dumps of ~1 MB each: the real XNNPACK fixture
//!   (`fixtures/real/mlp_xnnpack.etdp`) with its runs repeated to ~1 MB, every file's
//!   timings stretched differently (a factor per file and a jitter per run, so no two
//!   files are alike), in ten device folders. `cpuprof-tui fleet DIR --format json -o
//!   OUT` against a sequential loop of `cpuprof-tui report --format json` over the same
//!   files, and the fleet's peak RSS (`/usr/bin/time`). Targets: <= 3 s on this 2-core
//!   machine, >= 2x the loop, peak RSS <= 300 MB.
//! - `fleet_10000_small`: 10,000 small dumps (the same fixture, ~6 KB each, varied the
//!   same way): `fleet` <= 15 s.
//!
//! Criterion itself times the in-process pipeline (discover, load, analyse) on the
//! first 200 files of the small fleet. The summary prints each figure next to its
//! target (`ok` / `MISSED`). The machine is shared: the load average at the start is
//! printed with the figures.

use cpuprof_testkit::big_dump;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use cpuprof_tui::fleet::analysis::AnalysisOptions;
use cpuprof_tui::fleet::{analyse, discover, load_all, LoadOptions};
use criterion::{criterion_group, criterion_main, Criterion};

use cpuprof_testkit::bench_run as run;

use run::*;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// A small deterministic generator (xorshift64*), for the jitter.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` dumps of about `bytes` each under `dir/devNN/run-K.etdp`; returns the files.
fn make_fleet(dir: &Path, n: usize, bytes: usize) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read(root.join("fixtures/real/mlp_xnnpack.etdp")).expect("fixture");
    let mut files = Vec::with_capacity(n);
    for k in 0..n {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (k as u64 + 1).wrapping_mul(0xff51_afd7));
        let per_file = 1.0 + 0.02 * (k % 13) as f64;
        // Sizes vary by up to +-10% too.
        let target = (bytes as f64 * (0.9 + 0.2 * rng.unit())) as usize;
        let (dump, _) = big_dump::repeat_execute_runs_stretched(&source, target, &mut |_| {
            per_file * (0.97 + 0.06 * rng.unit())
        });
        let sub = dir.join(format!("dev{:02}", k % 10));
        std::fs::create_dir_all(&sub).expect("mkdir");
        let path = sub.join(format!("run-{k:05}.etdp"));
        std::fs::write(&path, &dump).expect("write");
        files.push(path);
    }
    files
}

fn verdict(met: bool) -> &'static str {
    if met {
        "ok"
    } else {
        "MISSED"
    }
}

fn fleet_cmd(dir: &Path, out: &Path) {
    let status = Command::new(BIN)
        .args(["fleet", "--format", "json", "-o"])
        .arg(out)
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .expect("binary runs");
    assert!(status.success(), "fleet failed on {}", dir.display());
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "n/a".into())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let big = tmp.path().join("big");
    let small = tmp.path().join("small");
    let out = tmp.path().join("fleet.json");
    let one = tmp.path().join("report.json");
    let t = Instant::now();
    let big_files = make_fleet(&big, 1_000, 1_000_000);
    let big_mb: f64 = big_files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()) as f64)
        .sum::<f64>()
        / 1e6;
    eprintln!(
        "fleet_scale: built 1,000 dumps ({big_mb:.0} MB) in {:.1?}",
        t.elapsed()
    );
    let t = Instant::now();
    let small_files = make_fleet(&small, 10_000, 6_000);
    eprintln!(
        "fleet_scale: built 10,000 small dumps in {:.1?}",
        t.elapsed()
    );

    // Criterion: the in-process pipeline on 200 small dumps.
    let part = tmp.path().join("part");
    for f in &small_files[..200] {
        let to = part.join(f.strip_prefix(&small).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(f, &to).unwrap();
    }
    let mut g = c.benchmark_group("fleet_scale");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(3));
    g.warm_up_time(Duration::from_millis(500));
    g.bench_function("discover+load+analyse 200 small (in process)", |b| {
        b.iter(|| {
            let found = discover(std::slice::from_ref(&part)).unwrap();
            let profiles = load_all(found, &LoadOptions::default());
            analyse(profiles, AnalysisOptions::default()).groups.len()
        })
    });
    g.finish();

    eprintln!(
        "\nfleet_scale summary (warm page cache; load average at start {})",
        load_average()
    );
    // Warm the page cache once, then the median of 3.
    fleet_cmd(&big, &out);
    let fleet = median_of(3, || fleet_cmd(&big, &out));
    let sequential = {
        let t = Instant::now();
        for f in &big_files {
            report(f, &one);
        }
        t.elapsed()
    };
    let rss_mb =
        peak_rss_kib(&["fleet", "--format", "json"], &big, &out).map(|k| k as f64 * 1024.0 / 1e6);
    let ratio = secs(sequential) / secs(fleet);
    eprintln!(
        "fleet_1000x1mb   fleet {:.2} s (median of 3) vs target <= 3 s: {}",
        secs(fleet),
        verdict(secs(fleet) <= 3.0)
    );
    eprintln!(
        "                 sequential report loop {:.2} s: fleet {ratio:.1}x faster (target >= 2x): {}",
        secs(sequential),
        verdict(ratio >= 2.0)
    );
    match rss_mb {
        Some(rss) => eprintln!(
            "                 fleet peak RSS {rss:.0} MB vs target <= 300 MB: {}",
            verdict(rss <= 300.0)
        ),
        None => eprintln!("                 fleet peak RSS: n/a (/usr/bin/time not installed)"),
    }
    fleet_cmd(&small, &out);
    let small_t = median_of(3, || fleet_cmd(&small, &out));
    let small_rss = peak_rss_kib(&["fleet", "--format", "json"], &small, &out)
        .map_or("n/a".into(), |k| {
            format!("{:.0} MB", k as f64 * 1024.0 / 1e6)
        });
    eprintln!(
        "fleet_10000_small fleet {:.2} s (median of 3) vs target <= 15 s: {}  (peak RSS {small_rss})",
        secs(small_t),
        verdict(secs(small_t) <= 15.0)
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
