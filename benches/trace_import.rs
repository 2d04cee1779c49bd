//! Import throughput of 1,000,000-event traces built in memory: babeltrace2 text (the
//! default `sink.text.pretty` layout) and torch.profiler Chrome JSON. Reported as
//! events/s (criterion's elements/s).
//!
//! `TRACE_IMPORT_FILE=path cargo bench --bench trace_import` also times the import of a
//! real file (e.g. `babeltrace2 ctf/ > big.txt`) to compare with babeltrace2's own time.

use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

use cpuprof_tui::trace::parse_trace;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const EVENTS: usize = 1_000_000;

/// One "forward" per iteration: empty, linear(t, addmm), relu, abs(abs.out): 14 events.
const FORWARD: [(&str, &str, bool); 14] = [
    ("aten::empty", "memory_format", true),
    ("aten::empty", "memory_format", false),
    ("aten::linear", "", true),
    ("aten::t", "", true),
    ("aten::t", "", false),
    ("aten::addmm", "", true),
    ("aten::addmm", "", false),
    ("aten::linear", "", false),
    ("aten::relu", "", true),
    ("aten::relu", "", false),
    ("aten::abs", "", true),
    ("aten::abs", "out", true),
    ("aten::abs", "out", false),
    ("aten::abs", "", false),
];

fn babeltrace2_text(events: usize) -> String {
    let mut s = String::with_capacity(events * 170);
    let mut t: u64 = 1_795_934_914_832_333_283 % 86_400_000_000_000;
    let mut k = 0;
    let mut prev = None;
    while k < events {
        let tid = 9852 + (k / FORWARD.len()) as u64 % 2;
        for (name, ov, entry) in FORWARD {
            if k == events {
                break;
            }
            let step = 300 + (k as u64 * 7919) % 5000;
            t += step;
            let (h, m, sec, ns) = (
                t / 3_600_000_000_000,
                t / 60_000_000_000 % 60,
                t / 1_000_000_000 % 60,
                t % 1_000_000_000,
            );
            let delta = match prev {
                None => "+?.?????????".to_string(),
                Some(_) => format!("+0.{step:09}"),
            };
            prev = Some(t);
            let ev = if entry { "op_entry" } else { "op_exit" };
            let _ = writeln!(
                s,
                "[{h:02}:{m:02}:{sec:02}.{ns:09}] ({delta}) vm lttng_ust_pytorch:{ev}: {{ cpu_id = {} }}, {{ vpid = 9852, vtid = {tid} }}, {{ name = \"{name}\", overload_name = \"{ov}\" }}",
                tid % 2
            );
            k += 1;
        }
    }
    s
}

/// Complete events with the args torch.profiler writes under `record_shapes=True`.
fn chrome_json(events: usize) -> String {
    let mut s = String::with_capacity(events * 330);
    s.push_str("{\n  \"schemaVersion\": 1,\n  \"host_name\": \"vm\",\n  \"baseTimeNanoseconds\": 1790857026000000000,\n  \"traceEvents\": [\n");
    // iteration(conv2d(convolution), relu, addmm): parents listed before children.
    let mut k = 0;
    let mut t = 5_078_678_186_672_763u64; // ns
    while k < events {
        let group = [
            ("user_annotation", "iteration", 0u64, 9_000u64, "{\"External id\": 1, \"Record function id\": 0, \"Ev Idx\": 0}"),
            ("cpu_op", "aten::conv2d", 100, 4_000, "{\"External id\": 2, \"Record function id\": 0, \"Input type\": [\"float\", \"float\", \"float\", \"ScalarList\"], \"Input Dims\": [[2, 3, 32, 32], [16, 3, 3, 3], [16], []], \"Ev Idx\": 1}"),
            ("cpu_op", "aten::convolution", 150, 3_800, "{\"External id\": 3, \"Record function id\": 0, \"Input type\": [\"float\", \"float\", \"float\", \"ScalarList\"], \"Input Dims\": [[2, 3, 32, 32], [16, 3, 3, 3], [16], []], \"Ev Idx\": 2}"),
            ("cpu_op", "aten::relu", 4_300, 1_000, "{\"External id\": 4, \"Record function id\": 0, \"Input type\": [\"float\"], \"Input Dims\": [[2, 16, 30, 30]], \"Ev Idx\": 3}"),
            ("cpu_op", "aten::addmm", 5_500, 3_000, "{\"External id\": 5, \"Record function id\": 0, \"Input type\": [\"float\", \"float\", \"float\", \"Scalar\", \"Scalar\"], \"Input Dims\": [[10], [2, 32], [32, 10], [], []], \"Ev Idx\": 4}"),
        ];
        for (cat, name, off, dur, args) in group {
            if k == events {
                break;
            }
            let ts = t + off;
            let sep = if k + 1 == events { "" } else { "," };
            let _ = writeln!(
                s,
                "  {{\n    \"ph\": \"X\", \"cat\": \"{cat}\", \"name\": \"{name}\", \"pid\": 21953, \"tid\": 21953,\n    \"ts\": {}.{:03}, \"dur\": {}.{:03},\n    \"args\": {args}\n  }}{sep}",
                ts / 1000,
                ts % 1000,
                dur / 1000,
                dur % 1000
            );
            k += 1;
        }
        t += 10_000;
    }
    s.push_str("  ],\n  \"traceName\": \"bench.json\"\n}\n");
    s
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("trace_import");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(15))
        .warm_up_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(EVENTS as u64));

    let text = babeltrace2_text(EVENTS);
    g.bench_function("babeltrace2_text_1M_events", |b| {
        b.iter(|| black_box(parse_trace(black_box(text.as_bytes()), "bench").unwrap()))
    });
    drop(text);

    let json = chrome_json(EVENTS);
    g.bench_function("chrome_json_1M_events", |b| {
        b.iter(|| black_box(parse_trace(black_box(json.as_bytes()), "bench").unwrap()))
    });
    drop(json);

    if let Ok(path) = std::env::var("TRACE_IMPORT_FILE") {
        let bytes = std::fs::read(&path).expect("TRACE_IMPORT_FILE");
        let p = parse_trace(&bytes, &path).expect("import");
        g.throughput(Throughput::Elements(p.counts.events));
        g.bench_function("file", |b| {
            b.iter(|| black_box(parse_trace(black_box(&bytes), "bench").unwrap()))
        });
    }
    g.finish();
}

/// One op called with 40,000 distinct input shapes (a dynamic-shape trace with a growing
/// sequence length): distinct shapes are hashed, so import stays linear (it was quadratic,
/// 7.6 s for 40k shapes).
fn chrome_json_shapes(shapes: usize) -> String {
    let mut s = String::from("{\"traceEvents\": [\n");
    for i in 0..shapes {
        if i > 0 {
            s.push_str(",\n");
        }
        s.push_str(&format!(
            r#"{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":{},"dur":1,"args":{{"Input Dims":[[{},64],[64,64]],"Input type":["float","float"]}}}}"#,
            i * 2,
            i + 1
        ));
    }
    s.push_str("\n]}\n");
    s
}

fn bench_shapes(c: &mut Criterion) {
    let mut g = c.benchmark_group("trace_import_shapes");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    let json = chrome_json_shapes(40_000);
    g.bench_function("chrome_json_40k_distinct_shapes", |b| {
        b.iter(|| black_box(parse_trace(black_box(json.as_bytes()), "bench").unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench, bench_shapes);
criterion_main!(benches);
