//! A child process of a hostile-input test waited for with a time budget: its pipes
//! drained on threads (a chatty child never blocks on a full pipe), killed and reaped
//! past the budget, the test then failing with what was run.

use std::io::Read;
use std::process::{Child, Output};
use std::time::{Duration, Instant};

/// The child's output once it exits; panics naming `what` when it outlives `limit`.
pub fn wait_with_timeout_for(mut child: Child, limit: Duration, what: &str) -> Output {
    let deadline = Instant::now() + limit;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut v);
            }
            v
        })
    };
    let out = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish in {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// [`wait_with_timeout_for`] of "the child".
#[allow(dead_code)] // not every test file names what it ran
pub fn wait_with_timeout(child: Child, limit: Duration) -> Output {
    wait_with_timeout_for(child, limit, "the child")
}

/// Exit code and peak RSS (KiB) of `bin` run with `args`, through `/usr/bin/time` (`wait4`
/// here would count the test process too), within 60 s. None when `/usr/bin/time` is not
/// installed: the memory budget is then skipped, and this says so.
#[allow(dead_code)] // not every test file measures memory
pub fn peak_rss_kib(bin: &str, args: &[&str]) -> Option<(Option<i32>, i64)> {
    use std::process::{Command, Stdio};
    if !std::path::Path::new("/usr/bin/time").is_file() {
        eprintln!("skipped: memory budget (/usr/bin/time not installed)");
        return None;
    }
    let child = Command::new("/usr/bin/time")
        .args(["-f", "peak=%M"])
        .arg(bin)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_with_timeout_for(child, Duration::from_secs(60), &format!("{args:?}"));
    let kib = String::from_utf8_lossy(&o.stderr)
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("peak="))
        .and_then(|v| v.trim().parse().ok())
        .expect("peak RSS from /usr/bin/time");
    Some((o.status.code(), kib))
}

/// As [`peak_rss_kib`], the budget skipped (0 KiB) where `/usr/bin/time` is not installed:
/// the command still runs and its exit code is still checked.
pub fn peak_rss_kib_or_zero(bin: &str, args: &[&str]) -> (Option<i32>, i64) {
    match peak_rss_kib(bin, args) {
        Some(measured) => measured,
        None => {
            let o = std::process::Command::new(bin)
                .args(args)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .unwrap();
            (o.status.code(), 0)
        }
    }
}
