//! Running the real binary from a bench: once (checking it succeeded), as the median of
//! several runs, and under `/usr/bin/time` for its peak RSS. Shared by the benches that
//! time whole commands (`#[path = "support/run.rs"] mod run;`).
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

/// `cpuprof-tui ARGS -o OUT INPUT`; panics when it fails.
pub fn run(args: &[&str], input: &Path, out: &Path) {
    let status = Command::new(BIN)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(input)
        .stderr(Stdio::null())
        .status()
        .expect("binary runs");
    assert!(status.success(), "{args:?} failed on {}", input.display());
}

/// `report --format json -o OUT INPUT`.
pub fn report(input: &Path, out: &Path) {
    run(&["report", "--format", "json"], input, out);
}

/// The median wall time of `n` calls of `f`.
pub fn median_of(n: usize, mut f: impl FnMut()) -> Duration {
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

/// Peak RSS in KiB of `cpuprof-tui ARGS -o OUT INPUT`, from `/usr/bin/time` when
/// installed.
pub fn peak_rss_kib(args: &[&str], input: &Path, out: &Path) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.is_file() {
        return None;
    }
    let o = Command::new(time)
        .args(["-f", "%M", BIN])
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(input)
        .output()
        .ok()?;
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}
