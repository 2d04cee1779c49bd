//! Native CTF reading on a generated ~1,000,000-event LTTng-style trace (written by the
//! crate's test-support CTF writer: same metadata shape as a THAPI recording, 4 per-CPU
//! streams, 8 threads, nested ATen-like ops, 256 KiB packets with indexes).
//!
//! Criterion measures, in process: decoding alone (every event visited in time order)
//! and the whole `report --format tally` pipeline (decode, pair, model, render).
//! Then, side by side on the same trace, wall time and peak RSS (`/usr/bin/time`) of
//! `babeltrace2 DIR > /dev/null` (when installed) and of the real binary
//! `cpuprof-tui report DIR --format tally > /dev/null`, with the ratio.
//!
//! `CTF_BENCH_DIR=path` writes the trace there and keeps it (for manual runs).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cpuprof_testkit::ctf_writer as writer;
use cpuprof_tui::report::tally;
use cpuprof_tui::trace::ctf;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const EVENTS: usize = 1_000_000;

fn trace_dir() -> (PathBuf, Option<tempfile::TempDir>) {
    let (root, keep) = match std::env::var_os("CTF_BENCH_DIR") {
        Some(p) => (PathBuf::from(p), None),
        None => {
            let t = tempfile::tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        }
    };
    let dir = root.join("ust/uid/1000/64-bit");
    if !dir.join("metadata").is_file() {
        let cfg = writer::WriterConfig {
            streams: 4,
            packet_size: 256 * 1024,
            ..writer::WriterConfig::default()
        };
        writer::write_workload(&dir, cfg, EVENTS, 8).expect("write trace");
    }
    (root, keep)
}

fn dir_size(p: &Path) -> u64 {
    let mut n = 0;
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            let path = e.path();
            if path.is_dir() {
                n += dir_size(&path);
            } else {
                n += e.metadata().map_or(0, |m| m.len());
            }
        }
    }
    n
}

/// Wall seconds and peak RSS (KiB, when /usr/bin/time exists) of a command, stdout to
/// /dev/null.
fn run_timed(cmd: &str, args: &[&str]) -> Option<(f64, Option<u64>)> {
    let time = Path::new("/usr/bin/time").is_file();
    let t0 = Instant::now();
    let out = if time {
        Command::new("/usr/bin/time")
            .arg("-f")
            .arg("%M")
            .arg(cmd)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .ok()?
    } else {
        Command::new(cmd)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .ok()?
    };
    let secs = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        return None;
    }
    let rss = time
        .then(|| {
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .and_then(|l| l.trim().parse::<u64>().ok())
        })
        .flatten();
    Some((secs, rss))
}

fn side_by_side(root: &Path) {
    let dir = root.to_str().expect("utf-8 path");
    let size_mb = dir_size(root) as f64 / 1e6;
    println!("\nctf side by side: {EVENTS} events, trace {size_mb:.1} MB at {dir}");
    let ours = run_timed(
        env!("CARGO_BIN_EXE_cpuprof-tui"),
        &["report", dir, "--format", "tally"],
    );
    let bt = run_timed("babeltrace2", &[dir]);
    let show = |label: &str, r: &Option<(f64, Option<u64>)>| match r {
        Some((s, rss)) => println!(
            "  {label:<45} {s:>7.3} s   peak RSS {}",
            rss.map_or("?".into(), |k| format!("{:.1} MB", k as f64 / 1024.0))
        ),
        None => println!("  {label:<45} not available"),
    };
    show("cpuprof-tui report DIR --format tally", &ours);
    show("babeltrace2 DIR > /dev/null", &bt);
    if let (Some((a, rss)), Some((b, _))) = (&ours, &bt) {
        println!("  babeltrace2 / cpuprof-tui: {:.1}x", b / a);
        if let Some(k) = rss {
            println!(
                "  peak RSS minus trace size: {:.1} MB (budget 64 MB)",
                *k as f64 / 1024.0 * 1.048576 - size_mb
            );
        }
    }
}

fn bench(c: &mut Criterion) {
    let (root, _keep) = trace_dir();
    let mut g = c.benchmark_group("ctf_1m_events");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Elements(EVENTS as u64));
    g.bench_function("decode_all_events", |b| {
        b.iter(|| {
            let (traces, _) =
                ctf::open_traces(&root, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("open");
            let mut n = 0u64;
            ctf::for_each_event(&traces, |ev| {
                n += ev.cycles & 1;
            })
            .expect("decode");
            black_box(n)
        })
    });
    g.bench_function("report_tally", |b| {
        b.iter(|| {
            let p = ctf::load_dir(&root, cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).expect("load");
            black_box(tally::render_tally(
                &cpuprof_tui::report::tally::tally_input(&cpuprof_tui::rows::RowTree::trace_ops(
                    &p,
                )),
                tally::TallyOptions::default(),
            ))
        })
    });
    g.finish();
    side_by_side(&root);
}

criterion_group!(benches, bench);
criterion_main!(benches);
