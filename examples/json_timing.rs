//! Minimum over repeats of each phase of `report --format json` on one dump (robust to a
//! busy machine): parse, build, JSON.
//! `cargo run --release --example json_timing -- DUMP.etdp [LOG] [REPEATS]`
use std::time::{Duration, Instant};

fn min_of<T>(n: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..n {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    (best, last.expect("n > 0"))
}

/// Minor page faults of this process so far.
fn minor_faults() -> i64 {
    // SAFETY: getrusage writes into the struct we pass.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_minflt
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::Path::new(&args[1]);
    let log = args
        .get(2)
        .map(|l| cpuprof_tui::runlog::read_file(std::path::Path::new(l)).unwrap());
    let n: usize = args.get(3).map_or(10, |s| s.parse().unwrap());
    let bytes = std::fs::read(path).unwrap();
    let f0 = minor_faults();
    let (parse, dump) = min_of(n, || cpuprof_tui::etdump::parse(&bytes).unwrap());
    let f1 = minor_faults();
    let source = cpuprof_tui::profile::ProfileSource {
        etdump: args[1].clone(),
        log: None,
    };
    let (build, profile) = min_of(n, || {
        cpuprof_tui::profile::build_profile(&dump, log.as_ref(), 0, source.clone()).unwrap()
    });
    let f2 = minor_faults();
    let (json, text) = min_of(n, || cpuprof_tui::report::profile_json(&profile));
    let f3 = minor_faults();
    println!(
        "minor faults per repeat: parse {} build {} json {}",
        (f1 - f0) / n as i64,
        (f2 - f1) / n as i64,
        (f3 - f2) / n as i64
    );
    println!(
        "min of {n}: parse {parse:.1?} build {build:.1?} json {json:.1?} ({:.1} MB json, {} events)",
        text.len() as f64 / 1e6,
        dump.events.len()
    );
}
