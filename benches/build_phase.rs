//! The build phase of issue #13 (`build_profile`: grouping runs, collecting rows,
//! statistics), on dumps generated here and parsed once:
//! - `xnnpack_100k`: 100,000 runs of a 3-operator XNNPACK model (`etdump_build::
//!   xnnpack_like`, the shape of the 43.9 MB real dump);
//! - `cpu_50mb`: the `Execute` runs of `fixtures/cpu/wide_browse.etdp` repeated to
//!   ~50 MB (the shape of the 1 GB CpuBackend dump, 1/20 of it).
//!
//! The build before this work is not kept in the tree (it spans collect, build, methods
//! and the statistics); its figures, measured on the same machine under shared load
//! (2 cores, load average 2-3), as the minimum of 15 builds (3 on the 1 GB dump) with the
//! example `build_timing` of that commit (now part of `phase_timing`, whose `build` figure
//! is the same minimum: `cargo run --release --example phase_timing -- DUMP LOG 15`),
//! compiled against the library of commit c992bbe ("before") and
//! of this bench's commit ("after"):
//!
//! | dump                                        | before  | after  |
//! |---------------------------------------------|---------|--------|
//! | generated `xnnpack_100k` (log /dev/null)    | 32.5 ms | 17 ms  |
//! | generated `cpu_50mb` (wide_browse.log)      | 41.5 ms | 19 ms  |
//! | /tmp/x46.etdp (43.9 MB real XNNPACK dump)   | 37.6 ms | 17 ms  |
//! | /tmp/cpu1g.etdp (999 MB CpuBackend, 8 M ev) | 882 ms  | 441 ms |
//!
//! `CPUPROF_BENCH_SAVE=DIR` also writes the generated dumps there, to time other builds
//! on them with `phase_timing`.

use cpuprof_testkit::big_dump;
use cpuprof_testkit::etdump_build;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use cpuprof_tui::etdump;
use cpuprof_tui::profile::{build_profile, ProfileSource};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn source() -> ProfileSource {
    ProfileSource {
        etdump: "bench.etdp".into(),
        log: None,
    }
}

fn save(name: &str, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("CPUPROF_BENCH_SAVE") {
        let path = Path::new(&dir).join(name);
        std::fs::write(&path, bytes).expect("write generated dump");
        eprintln!("build_phase: wrote {}", path.display());
    }
}

fn bench(c: &mut Criterion) {
    let xnn_bytes = etdump_build::build(0, &etdump_build::xnnpack_like(100_000));
    save("xnnpack_100k.etdp", &xnn_bytes);
    let xnn = etdump::parse(&xnn_bytes).expect("generated dump parses");

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let wide = std::fs::read(root.join("fixtures/cpu/wide_browse.etdp")).expect("fixture");
    let (cpu_bytes, _) = big_dump::repeat_execute_runs(&wide, 50_000_000);
    save("cpu_50mb.etdp", &cpu_bytes);
    let cpu = etdump::parse(&cpu_bytes).expect("generated dump parses");
    let log = cpuprof_tui::runlog::read_file(&root.join("fixtures/cpu/wide_browse.log"))
        .expect("fixture log");

    let mut g = c.benchmark_group("build_phase");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(3));
    g.warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Elements(xnn.events.len() as u64));
    g.bench_function("xnnpack_100k build_profile", |b| {
        b.iter(|| build_profile(black_box(&xnn), None, 0, source()).map(|p| p.runs.kept))
    });
    g.throughput(Throughput::Elements(cpu.events.len() as u64));
    g.bench_function("cpu_50mb build_profile (with log)", |b| {
        b.iter(|| build_profile(black_box(&cpu), Some(&log), 0, source()).map(|p| p.runs.kept))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
