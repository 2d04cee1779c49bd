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
