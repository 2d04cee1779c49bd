//! `compare` of two ~100k-event dumps against loading one, side by side: both built here
//! by repeating the Execute runs of `fixtures/compare/wide_a.etdp` and `wide_null_b.etdp`
//! (with their logs, so plans decode). `compare` = load A + load B + row trees + matching
//! + tests on every row; `compare_only` is the last three alone.

use cpuprof_testkit::big_dump;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cpuprof_tui::compare::{compare, CompareOptions};
use cpuprof_tui::profile::{load_profile, Profile, ProfileRequest};
use cpuprof_tui::rows::RowTree;
use criterion::{criterion_group, criterion_main, Criterion};

/// ~100k events: the wide fixture has 2,118 events in 265 kB.
const TARGET_BYTES: usize = 12_600_000;

fn build(dir: &Path, name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/compare");
    let source = std::fs::read(root.join(format!("{name}.etdp"))).expect("fixture");
    let (bytes, runs) = big_dump::repeat_execute_runs(&source, TARGET_BYTES);
    let path = dir.join(format!("{name}.etdp"));
    std::fs::write(&path, &bytes).expect("write");
    std::fs::copy(
        root.join(format!("{name}.log")),
        dir.join(format!("{name}.log")),
    )
    .expect("log");
    let events = cpuprof_tui::etdump::parse(&bytes)
        .expect("parses")
        .events
        .len();
    eprintln!(
        "compare bench: {} ({:.1} MB, {runs} runs, {events} events)",
        path.display(),
        bytes.len() as f64 / 1e6
    );
    path
}

fn load(path: &Path) -> Profile {
    let log = path.with_extension("log");
    load_profile(
        &ProfileRequest::new(path.to_path_buf(), Some(log), 3),
        &mut |_| {},
        &AtomicBool::new(false),
    )
    .expect("loads")
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = build(dir.path(), "wide_a");
    let b = build(dir.path(), "wide_null_b");
    let mut g = c.benchmark_group("compare_100k_events");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    g.bench_function("load_one", |bench| bench.iter(|| load(&a)));
    g.bench_function("compare", |bench| {
        bench.iter(|| {
            let (pa, pb) = (load(&a), load(&b));
            compare(
                &RowTree::from_profile(&pa),
                &RowTree::from_profile(&pb),
                &CompareOptions::default(),
            )
        })
    });
    let (ta, tb) = (
        RowTree::from_profile(&load(&a)),
        RowTree::from_profile(&load(&b)),
    );
    g.bench_function("compare_only", |bench| {
        bench.iter(|| compare(&ta, &tb, &CompareOptions::default()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
