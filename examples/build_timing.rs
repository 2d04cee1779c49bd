//! Times the build phase alone (`build_profile`) on one dump, several times.
//! `cargo run --release --example build_timing -- DUMP.etdp [LOG] [ITERATIONS]`
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: build_timing DUMP.etdp [LOG] [ITERATIONS]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(path).expect("read dump");
    let dump = cpuprof_tui::etdump::parse(&bytes).expect("parse dump");
    drop(bytes);
    let log = args
        .get(2)
        .map(|l| cpuprof_tui::runlog::read_file(std::path::Path::new(l)).expect("read log"));
    let iterations: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(5);
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..iterations {
        let source = cpuprof_tui::profile::ProfileSource {
            etdump: path.clone(),
            log: None,
        };
        let t = Instant::now();
        let profile = cpuprof_tui::profile::build_profile(&dump, log.as_ref(), 0, source)
            .expect("build profile");
        times.push(t.elapsed());
        std::hint::black_box(&profile);
    }
    times.sort();
    println!(
        "{} events: build min {:?} median {:?} over {iterations}",
        dump.events.len(),
        times[0],
        times[times.len() / 2]
    );
}
