//! `profile.json` written to a sink, timed (the min of REPEATS):
//! `cargo run --release --example json_timing -- DUMP.etdp [REPEATS]`
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let request = cpuprof_tui::profile::ProfileRequest::new(args[1].clone().into(), None, 0);
    let n: usize = args.get(2).map_or(5, |s| s.parse().unwrap());
    let profile =
        cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &AtomicBool::new(false))
            .expect("loads");
    let mut best = Duration::MAX;
    let mut bytes = 0;
    for _ in 0..n {
        let mut counter = Counter(0);
        let t = Instant::now();
        cpuprof_tui::report::write_profile_json(&mut counter, &profile).unwrap();
        best = best.min(t.elapsed());
        bytes = counter.0;
    }
    println!(
        "min of {n}: {:.1?} for {:.1} MB ({:.0} MB/s)",
        best,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / best.as_secs_f64()
    );
}

struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
