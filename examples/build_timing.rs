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
    let source = cpuprof_tui::profile::ProfileSource {
        etdump: path.clone(),
        log: None,
    };
    let profile =
        cpuprof_tui::profile::build_profile(&dump, log.as_ref(), 0, source).expect("build profile");
    let (top, all) = sample_bytes(&profile);
    let t = Instant::now();
    let warnings = dump.implausible_durations(cpuprof_tui::etdump::TimeUnit::Ns);
    let clock = t.elapsed();
    println!(
        "{} events: build min {:?} median {:?} over {iterations}; implausible_durations {clock:?} ({} warnings)",
        dump.events.len(),
        times[0],
        times[times.len() / 2],
        warnings.len()
    );
    println!(
        "profile sample vectors: {:.1} MB ({:.1} MB in the top-level copy of method 1)",
        all as f64 / 1e6,
        top as f64 / 1e6
    );
}

/// Heap bytes of the sample vectors of `profile` (top-level fields, and in all).
fn sample_bytes(profile: &cpuprof_tui::profile::Profile) -> (usize, usize) {
    use cpuprof_tui::profile::{Delegate, OtherOperator, Stats};
    fn stats(s: &Stats) -> usize {
        (s.samples.capacity() + s.warmup_samples.capacity() + s.runs.capacity()) * 8
    }
    fn parts(
        method: &Option<Stats>,
        remainder: &Option<Stats>,
        delegates: &[Delegate],
        others: &[OtherOperator],
    ) -> usize {
        let mut n = method.iter().chain(remainder).map(stats).sum::<usize>();
        for d in delegates {
            n += stats(&d.call);
            n += d.operators.iter().map(|o| stats(&o.stats)).sum::<usize>();
            n += d
                .unattributed
                .iter()
                .map(|o| stats(&o.stats))
                .sum::<usize>();
            for step in &d.steps {
                n += stats(&step.stats);
                n += step
                    .operators
                    .iter()
                    .map(|o| stats(&o.stats))
                    .sum::<usize>();
            }
        }
        for o in others {
            n += stats(&o.stats) + o.kernels.iter().map(|k| stats(&k.stats)).sum::<usize>();
        }
        n
    }
    let top = parts(
        &profile.method,
        &profile.remainder,
        &profile.delegates,
        &profile.other_operators,
    );
    let methods: usize = profile
        .methods
        .iter()
        .map(|m| parts(&m.method, &m.remainder, &m.delegates, &m.other_operators))
        .sum();
    (top, top + methods)
}
