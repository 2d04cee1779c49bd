//! ETDump reader throughput on a ~100 MB dump built in memory (XNNPACK-shaped runs, as in
//! `fixtures/real/mlp_xnnpack.etdp`). Target: well under 0.5 s per 100 MB.

use cpuprof_testkit::etdump_build as build;

use std::hint::black_box;
use std::time::Instant;

use cpuprof_tui::etdump;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn parse_100mb(c: &mut Criterion) {
    let t = Instant::now();
    // ~430 bytes per run.
    let bytes = build::build(0, &build::xnnpack_like(240_000));
    let dump = etdump::parse(&bytes).expect("built dump parses");
    let events = dump.events.len();
    drop(dump);
    eprintln!(
        "etdump_parse: built {:.1} MB, {} events in {:.2?}",
        bytes.len() as f64 / 1e6,
        events,
        t.elapsed()
    );

    let mut group = c.benchmark_group("etdump");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("parse_100mb_bytes", |b| {
        b.iter(|| etdump::parse(black_box(&bytes)))
    });
    group.throughput(Throughput::Elements(events as u64));
    group.bench_function("parse_100mb_events", |b| {
        b.iter(|| etdump::parse(black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, parse_100mb);
criterion_main!(benches);
