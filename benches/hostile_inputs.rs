//! Hostile inputs cost time in proportion to their size, never more (issue #8):
//!
//! - THAPI text with 10,000 / 50,000 record headers that never close (`op_entry: {`
//!   lines without a body). The first release re-parsed each open record up to 1,000
//!   lines (8 MB: 8-20 s); linear now: compare the two sizes' time per header.
//! - A gzip Chrome trace whose event array holds 128 MiB of spaces (~130 KB
//!   compressed): streamed through the whitespace squeezer, so it costs one inflate
//!   pass and bounded memory (see `tests/it/hostile.rs` for the RSS budget).
//!
//! - TSDL metadata where each `typealias struct` holds two of the previous one (issue
//!   #19 row 2): 24 and 60 levels. Sizes are computed per declared type, so parsing
//!   costs the text (a few KB) and ends with one budget error, in microseconds; the
//!   first release expanded the types (24 levels: 1.8 GB). Beside it, the real THAPI
//!   metadata (`fixtures/thapi/ctf`) parsed in full, for scale.
//!
//! Before criterion runs, one import of 50,000 open headers must finish within
//! `OPEN_HEADERS_BUDGET` (a budget, not a measurement: it fails loudly on a regression
//! to quadratic time).

use std::hint::black_box;
use std::io::Write;
use std::time::{Duration, Instant};

use cpuprof_tui::trace::ctf::tsdl;
use cpuprof_tui::trace::parse_trace;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const OPEN_HEADERS_BUDGET: Duration = Duration::from_secs(2);

/// `n` THAPI record headers whose group never closes, then one complete call (so the
/// import succeeds and the damaged records are warnings).
fn open_headers(n: usize) -> String {
    let mut s = String::with_capacity(n * 80 + 300);
    for i in 0..n {
        s.push_str(&format!(
            "13:35:44.{:09} - vm - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_entry: {{\n",
            i % 1_000_000_000
        ));
    }
    s.push_str("13:35:45.000000000 - vm - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_entry: { name: \"a\", overload_name: \"\" }\n");
    s.push_str("13:35:45.000001000 - vm - vpid: 1, vtid: 1 - lttng_ust_pytorch:op_exit: { name: \"a\", overload_name: \"\" }\n");
    s
}

fn whitespace_bomb(mib: usize) -> Vec<u8> {
    let ev = br#"{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}"#;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(b"{\"traceEvents\":[").unwrap();
    e.write_all(ev).unwrap();
    e.write_all(b",").unwrap();
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..mib {
        e.write_all(&spaces).unwrap();
    }
    e.write_all(ev).unwrap();
    e.write_all(b"]}").unwrap();
    e.finish().unwrap()
}

/// The doubling bomb of `round2.sh bomb` with `levels` levels.
fn tsdl_bomb(levels: usize) -> String {
    let mut t = String::from("/* CTF 1.8 */\n");
    t.push_str("typealias integer { size = 8; align = 8; signed = false; } := d0;\n");
    t.push_str("typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n");
    for i in 0..levels {
        t.push_str(&format!(
            "typealias struct {{ d{i} a; d{i} b; }} := d{};\n",
            i + 1
        ));
    }
    t.push_str("trace { major = 1; minor = 8; byte_order = le; packet.header := struct { uint32_t magic; uint32_t stream_id; }; };\n");
    t.push_str("stream { id = 0; };\n");
    t.push_str(&format!("event {{ name = \"lttng_ust_pytorch:op_entry\"; id = 0; stream_id = 0; fields := struct {{ d{levels} _z; string _name; }}; }};\n"));
    t
}

fn bench(c: &mut Criterion) {
    let text = open_headers(50_000);
    let started = Instant::now();
    let p = parse_trace(text.as_bytes(), "open").expect("import");
    let took = started.elapsed();
    assert_eq!(p.counts.malformed, 50_000);
    assert!(
        took < OPEN_HEADERS_BUDGET,
        "50,000 open THAPI headers took {took:?} (budget {OPEN_HEADERS_BUDGET:?})"
    );

    let mut g = c.benchmark_group("hostile_inputs");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for n in [10_000usize, 50_000] {
        let text = open_headers(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("thapi_open_headers_{n}"), |b| {
            b.iter(|| black_box(parse_trace(black_box(text.as_bytes()), "open").unwrap()))
        });
    }
    let bomb = whitespace_bomb(128);
    g.throughput(Throughput::Bytes(128 << 20));
    g.bench_function("gzip_json_128MiB_whitespace", |b| {
        b.iter(|| black_box(parse_trace(black_box(&bomb), "bomb").unwrap()))
    });
    for levels in [24usize, 60] {
        let text = tsdl_bomb(levels);
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_function(format!("tsdl_doubling_bomb_{levels}_levels"), |b| {
            b.iter(|| {
                let r = tsdl::parse_metadata(black_box(&text));
                assert!(r.is_err());
                black_box(r)
            })
        });
    }
    let real = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/thapi/ctf/ust/uid/0/64-bit/metadata"
    ))
    .unwrap();
    let real = tsdl::metadata_text(&real).unwrap();
    g.throughput(Throughput::Bytes(real.len() as u64));
    g.bench_function("tsdl_thapi_metadata", |b| {
        b.iter(|| black_box(tsdl::parse_metadata(black_box(&real)).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
