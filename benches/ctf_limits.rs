//! `report --format tally` on CTF traces against babeltrace2 and against the machine's
//! physical limit, each figure beside its target (issue #26), the peers measured in the
//! same run:
//!
//! - the 1M-event LTTng-style recording (~30 MB, written by the crate's CTF writer:
//!   THAPI's metadata shape, 4 per-CPU streams, 8 threads, nested ATen-like ops, 256 KiB
//!   packets with indexes): `cpuprof-tui report --format tally DIR` against
//!   `babeltrace2 DIR > /dev/null` (skipped with a message where babeltrace2 is not
//!   installed), wall time, CPU time (user + sys) and peak RSS of each, from `wait4`;
//! - a 10M-event (~300 MB) trace of the same shape;
//! - the physical limit: one pass reading the mapped bytes of the same trace (a checksum
//!   of every file in it, 8 bytes at a time), each figure also given as a multiple of it;
//! - with `CPUPROF_BENCH_5GB=1`: a trace of over 5 GiB (the 10M-event trace's 4 stream
//!   files each written 20 times over end to end: 200M events, 5.6 GB on disk), for its
//!   peak RSS.
//!
//! `CTF_BENCH_DIR=path` writes the traces there and keeps them (later runs reuse them).
//! Run: `cargo bench --bench ctf_limits`.
//!
//! Peak RSS is the child's `ru_maxrss`, which on Linux starts from the high-water mark
//! of the process that spawned it (a vforked child borrows its parent's memory until
//! exec). So the bench writes the traces, then measures from a fresh copy of itself
//! (`CTF_LIMITS_MEASURE=1`) that holds nothing, and the checksum pass over the map runs
//! in a copy of its own (`CTF_LIMITS_CHECKSUM=DIR`): neither the writer's memory nor the
//! mapped trace is counted in anyone's figure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use cpuprof_testkit::ctf_writer as writer;

use cpuprof_testkit::bench_run as run;
use run::{median_run, run_once, Run};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const BABELTRACE2: &str = "/usr/bin/babeltrace2";
/// Copies of the 10M-event streams in the 5 GiB trace.
const COPIES: usize = 20;

fn files_under(p: &Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            let path = e.path();
            if path.is_dir() {
                files_under(&path, out);
            } else {
                out.push(path);
            }
        }
    }
}

/// Bytes of every file under `root`.
fn dir_size(root: &Path) -> u64 {
    let mut files = Vec::new();
    files_under(root, &mut files);
    files
        .iter()
        .map(|f| std::fs::metadata(f).map_or(0, |m| m.len()))
        .sum()
}

/// One pass over the mapped bytes of every file under `root` (a wrapping sum of 8-byte
/// words): the least any reader of these files must do. Median wall seconds of `n`.
fn checksum_pass(root: &Path, n: usize) -> f64 {
    let mut files = Vec::new();
    files_under(root, &mut files);
    let mut times = Vec::new();
    for _ in 0..n {
        let t0 = Instant::now();
        let mut sum = 0u64;
        for f in &files {
            let file = std::fs::File::open(f).expect("open");
            if file.metadata().map_or(0, |m| m.len()) == 0 {
                continue;
            }
            // SAFETY: the bench's own files, not changed while mapped.
            let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
            let mut words = map.chunks_exact(8);
            for w in &mut words {
                sum = sum.wrapping_add(u64::from_le_bytes(w.try_into().expect("8 bytes")));
            }
            for &b in words.remainder() {
                sum = sum.wrapping_add(u64::from(b));
            }
        }
        std::hint::black_box(sum);
        times.push(t0.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    times[n / 2]
}

/// A trace of about `events` op events under `root` (reused when already there).
fn trace(root: &Path, events: usize) -> PathBuf {
    let dir = root.join(format!("ctf-{events}"));
    let trace = dir.join("ust/uid/1000/64-bit");
    if !trace.join("metadata").is_file() {
        let cfg = writer::WriterConfig {
            streams: 4,
            packet_size: 256 * 1024,
            ..writer::WriterConfig::default()
        };
        writer::write_workload(&trace, cfg, events, 8).expect("write trace");
    }
    dir
}

/// The 10M-event trace's stream files each written `copies` times over, end to end, as
/// the 4 streams of one trace directory (no index: the packets are walked). Each copy
/// starts its clock again; every call's entry and exit stay in one copy, so the pairing
/// is the same `copies` times over.
fn concatenated_copies(root: &Path, src: &Path, copies: usize) -> PathBuf {
    let dir = root.join(format!("ctf-concat-{copies}"));
    let trace = dir.join("ust/uid/1000/64-bit");
    if trace.join("metadata").is_file() {
        return dir;
    }
    let from = src.join("ust/uid/1000/64-bit");
    std::fs::create_dir_all(&trace).expect("mkdir");
    for e in std::fs::read_dir(&from).expect("list").flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("blocking-channel_") {
            continue;
        }
        let mut out = std::fs::File::create(trace.join(&name)).expect("create");
        for _ in 0..copies {
            let mut f = std::fs::File::open(e.path()).expect("open");
            std::io::copy(&mut f, &mut out).expect("copy");
        }
    }
    // The metadata last: a run cut short leaves no directory that looks complete.
    std::fs::copy(from.join("metadata"), trace.join("metadata")).expect("metadata");
    dir
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "MISSED"
    }
}

fn mb(kib: u64) -> f64 {
    kib as f64 * 1024.0 / 1e6
}

fn show(label: &str, r: &Run, limit: f64) {
    println!(
        "  {label:<44} wall {:>7.3} s  cpu {:>7.3} s  peak RSS {:>6.1} MB  ({:.1}x the physical limit)",
        r.wall,
        r.cpu,
        mb(r.rss_kib),
        r.wall / limit
    );
}

/// The checksum pass, run in a fresh copy of this bench: median seconds of `n`.
fn checksum_child(dir: &Path, n: usize) -> f64 {
    let out = Command::new(std::env::current_exe().expect("own path"))
        .env("CTF_LIMITS_CHECKSUM", dir)
        .env("CTF_LIMITS_REPEATS", n.to_string())
        .stderr(Stdio::inherit())
        .output()
        .expect("checksum copy runs");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("checksum copy prints seconds")
}

fn main() {
    if let Some(dir) = std::env::var_os("CTF_LIMITS_CHECKSUM") {
        let n = std::env::var("CTF_LIMITS_REPEATS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(5);
        println!("{}", checksum_pass(Path::new(&dir), n));
        return;
    }
    // `cargo bench` passes --bench; a filter argument is ignored.
    let (root, _keep) = match std::env::var_os("CTF_BENCH_DIR") {
        Some(p) => (PathBuf::from(p), None),
        None => {
            let t = tempfile::tempdir().expect("tempdir");
            (t.path().to_path_buf(), Some(t))
        }
    };
    let one_m = trace(&root, 1_000_000);
    let ten_m = trace(&root, 10_000_000);
    if std::env::var_os("CTF_LIMITS_MEASURE").is_none() {
        if std::env::var_os("CPUPROF_BENCH_5GB").is_some() {
            concatenated_copies(&root, &ten_m, COPIES);
        }
        let status = Command::new(std::env::current_exe().expect("own path"))
            .env("CTF_LIMITS_MEASURE", "1")
            .env("CTF_BENCH_DIR", &root)
            .status()
            .expect("measuring copy runs");
        assert!(status.success(), "measuring copy failed");
        return;
    }

    for (events, dir, runs) in [(1_000_000usize, &one_m, 5usize), (10_000_000, &ten_m, 3)] {
        let d = dir.to_str().expect("utf-8 path");
        let size = dir_size(dir);
        let tally_args = ["report", "--format", "tally", d];
        // Warm the page cache (and check the command works) before timing.
        run_once(BIN, &tally_args).expect("cpuprof-tui report --format tally succeeds");
        let limit = checksum_child(dir, 5);
        let ours = median_run(runs, BIN, &tally_args).expect("tally runs");
        println!(
            "\nctf {events} events, {:.1} MB at {d} (median of {runs} runs)",
            size as f64 / 1e6
        );
        println!(
            "  {:<44} wall {limit:>7.3} s  ({:.2} GB/s)",
            "physical limit: one checksum pass over the map",
            size as f64 / limit / 1e9
        );
        show("cpuprof-tui report --format tally DIR", &ours, limit);
        if events == 1_000_000 {
            if Path::new(BABELTRACE2).is_file() {
                match median_run(3, BABELTRACE2, &[d]) {
                    Some(bt) => {
                        show("babeltrace2 DIR > /dev/null", &bt, limit);
                        let (w, c) = (bt.wall / ours.wall, bt.cpu / ours.cpu);
                        println!(
                            "  wall: babeltrace2 / tally {w:.1}x (target >= 15x): {}",
                            verdict(w >= 15.0)
                        );
                        println!(
                            "  cpu:  babeltrace2 / tally {c:.1}x (target >= 10x): {}",
                            verdict(c >= 10.0)
                        );
                    }
                    None => println!("  babeltrace2 failed on {d}: no comparison"),
                }
            } else {
                println!("  babeltrace2 not installed ({BABELTRACE2}): peer skipped");
            }
            println!(
                "  peak RSS {:.1} MB (target <= 48 MB): {}",
                mb(ours.rss_kib),
                verdict(mb(ours.rss_kib) <= 48.0)
            );
        } else {
            println!(
                "  wall {:.3} s (target <= 1 s): {}",
                ours.wall,
                verdict(ours.wall <= 1.0)
            );
            println!(
                "  peak RSS {:.1} MB (target <= 96 MB): {}",
                mb(ours.rss_kib),
                verdict(mb(ours.rss_kib) <= 96.0)
            );
        }
    }

    if std::env::var_os("CPUPROF_BENCH_5GB").is_some() {
        let big = concatenated_copies(&root, &ten_m, COPIES);
        let d = big.to_str().expect("utf-8 path");
        let size = dir_size(&big);
        let limit = checksum_child(&big, 1);
        let ours = median_run(1, BIN, &["report", "--format", "tally", d]).expect("tally runs");
        println!(
            "\nctf {:.2} GiB ({COPIES} copies of the 10M-event streams end to end) at {d}",
            size as f64 / (1u64 << 30) as f64
        );
        println!(
            "  {:<44} wall {limit:>7.3} s  ({:.2} GB/s)",
            "physical limit: one checksum pass over the map",
            size as f64 / limit / 1e9
        );
        show("cpuprof-tui report --format tally DIR", &ours, limit);
        println!(
            "  peak RSS {:.1} MB (target: bounded, <= 96 MB as for 10M events): {}",
            mb(ours.rss_kib),
            verdict(mb(ours.rss_kib) <= 96.0)
        );
    } else {
        println!("\n5 GiB trace: set CPUPROF_BENCH_5GB=1 to run it");
    }
}
