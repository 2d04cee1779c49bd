//! Each phase of `report --format json` on one dump, as the minimum over repeats (robust
//! to a busy machine): parse, build, JSON, with the minor page faults of each; then the
//! clock checks alone and what the profile's sample vectors cost.
//! `cargo run --release --example phase_timing -- DUMP.etdp [LOG] [REPEATS]` (default 10)
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
    let t = Instant::now();
    let warnings = dump.implausible_durations(cpuprof_tui::etdump::TimeUnit::Ns);
    println!(
        "implausible_durations {:.1?} ({} warnings)",
        t.elapsed(),
        warnings.len()
    );
    let (top, all) = sample_bytes(&profile);
    println!(
        "profile sample vectors: {:.1} MB ({:.1} MB reached from the top-level fields)",
        all as f64 / 1e6,
        top as f64 / 1e6
    );
}

/// Heap bytes of the sample vectors of `profile` (reached from the top-level fields, and
/// in all). Shared samples (the top level and `methods[0]` hold the same ones) count once.
fn sample_bytes(profile: &cpuprof_tui::profile::Profile) -> (usize, usize) {
    use cpuprof_tui::profile::{Delegate, OtherOperator, Stats};
    use std::collections::HashSet;
    type Seen = HashSet<*const i64>;
    fn stats(s: &Stats, seen: &mut Seen) -> usize {
        let shared = !s.samples.is_empty() && !seen.insert(s.samples.ns().as_ptr());
        let samples = if shared { 0 } else { s.samples.len() };
        (samples + s.warmup_samples.len() + s.runs.capacity()) * 8
    }
    fn parts(
        method: &Option<Stats>,
        remainder: &Option<Stats>,
        delegates: &[Delegate],
        others: &[OtherOperator],
        seen: &mut Seen,
    ) -> usize {
        let mut n = 0;
        for s in method.iter().chain(remainder) {
            n += stats(s, seen);
        }
        for d in delegates {
            n += stats(&d.call, seen);
            for o in &d.operators {
                n += stats(&o.stats, seen);
            }
            for o in &d.unattributed {
                n += stats(&o.stats, seen);
            }
            for step in &d.steps {
                n += stats(&step.stats, seen);
                for o in &step.operators {
                    n += stats(&o.stats, seen);
                }
            }
        }
        for o in others {
            n += stats(&o.stats, seen);
            for k in &o.kernels {
                n += stats(&k.stats, seen);
            }
        }
        n
    }
    let mut seen = Seen::new();
    let top = parts(
        &profile.method,
        &profile.remainder,
        &profile.delegates,
        &profile.other_operators,
        &mut seen,
    );
    let methods: usize = profile
        .methods
        .iter()
        .map(|m| {
            parts(
                &m.method,
                &m.remainder,
                &m.delegates,
                &m.other_operators,
                &mut seen,
            )
        })
        .sum();
    (top, top + methods)
}
