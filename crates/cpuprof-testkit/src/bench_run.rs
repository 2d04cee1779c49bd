//! Running the real binary from a bench: once (checking it succeeded), as the median of
//! several runs, and under `/usr/bin/time` for its peak RSS. Shared by the benches that
//! time whole commands.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `cpuprof-tui` binary the bench runs.
pub fn bin() -> std::path::PathBuf {
    crate::binary()
}

/// `cpuprof-tui ARGS -o OUT INPUT`; panics when it fails.
pub fn run(args: &[&str], input: &Path, out: &Path) {
    let status = Command::new(bin())
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
        .arg("-f")
        .arg("%M")
        .arg(bin())
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

/// One run of a command: wall seconds, CPU seconds (user + sys), peak RSS in KiB.
#[derive(Debug, Clone, Copy)]
pub struct Run {
    pub wall: f64,
    pub cpu: f64,
    pub rss_kib: u64,
}

/// Run `cmd args` with stdout and stderr to /dev/null, its resources from `wait4`.
/// None when it cannot start or fails.
pub fn run_once(cmd: &str, args: &[&str]) -> Option<Run> {
    let t0 = Instant::now();
    let child = Command::new(cmd)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for (std never waits on drop).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t0.elapsed().as_secs_f64();
    if r != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return None;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(Run {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        rss_kib: usage.ru_maxrss as u64,
    })
}

/// The median (by wall time; CPU time and RSS medians taken on their own) of `n` runs.
pub fn median_run(n: usize, cmd: &str, args: &[&str]) -> Option<Run> {
    let mut runs = Vec::with_capacity(n);
    for _ in 0..n {
        runs.push(run_once(cmd, args)?);
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Some(Run {
        wall: med(runs.iter().map(|r| r.wall).collect()),
        cpu: med(runs.iter().map(|r| r.cpu).collect()),
        rss_kib: med(runs.iter().map(|r| r.rss_kib as f64).collect()) as u64,
    })
}
