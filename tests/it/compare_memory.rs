//! `compare --format json` streams its document row by row, as `profile.json` does: its
//! peak memory is of the order of the CSV and table formats' (issue: 338 MB against
//! 86 MB on two traces with 20,000 distinct ops). Peak RSS is measured in the child with
//! `wait4`, on two Chrome traces generated here.

#![cfg(target_os = "linux")]

use std::io::Write;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const OPS: usize = 20_000;

/// A torch.profiler-like trace: 3 iterations, each calling OPS distinct ops once.
fn trace(path: &std::path::Path, scale: f64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(f, "{{\"traceEvents\":[").unwrap();
    let mut ts = 0u64;
    let mut first = true;
    for it in 0..3 {
        let start = ts;
        let mut body = Vec::new();
        for op in 0..OPS {
            let dur = ((2 + (op * 7 + it) % 5) as f64 * scale).round() as u64;
            body.push(format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"aten::op_{op}","pid":1,"tid":1,"ts":{},"dur":{dur}}}"#,
                ts + 1
            ));
            ts += dur + 2;
        }
        ts += 2;
        if !first {
            write!(f, ",").unwrap();
        }
        first = false;
        write!(
            f,
            r#"{{"ph":"X","cat":"user_annotation","name":"iteration","pid":1,"tid":1,"ts":{start},"dur":{}}}"#,
            ts - start
        )
        .unwrap();
        for e in body {
            write!(f, ",{e}").unwrap();
        }
        ts += 10;
    }
    write!(f, "]}}").unwrap();
    f.flush().unwrap();
}

/// (exit code, peak RSS in KiB) of the binary run alone, through /usr/bin/time (`wait4`
/// here would count the test process's own peak: a spawned child takes over its
/// parent's high-water mark until it execs). Without /usr/bin/time the budget is
/// skipped (0), and `support::child` says so.
fn peak_rss_kib(args: &[&str]) -> (Option<i32>, i64) {
    crate::support::child::peak_rss_kib_or_zero(BIN, args)
}

#[test]
fn compare_json_memory_is_of_the_order_of_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    trace(&a, 1.0);
    trace(&b, 1.3);
    let (a, b) = (a.display().to_string(), b.display().to_string());
    let run = |format: &str| {
        let out = dir.path().join(format!("out.{format}"));
        let (code, kib) = peak_rss_kib(&[
            "compare",
            &a,
            &b,
            "--format",
            format,
            "-o",
            &out.display().to_string(),
        ]);
        assert_eq!(code, Some(0), "{format}");
        (kib, std::fs::metadata(&out).unwrap().len())
    };
    let (csv, csv_bytes) = run("csv");
    let (json, json_bytes) = run("json");
    eprintln!(
        "peak RSS: csv {csv} KiB ({csv_bytes} bytes out), json {json} KiB ({json_bytes} bytes out)"
    );
    // The document is bigger than the CSV (keys on every row), but is written as it is
    // made: the peak may exceed the CSV's by little more than a buffer, never by a tree
    // of the whole document (which cost 4x).
    assert!(
        json <= csv + csv / 4 + 16 * 1024,
        "json {json} KiB against csv {csv} KiB"
    );
}
