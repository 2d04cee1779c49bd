//! A big Chrome trace is scanned in parts on every core (`trace/chrome/parts.rs`): the
//! text cut where an event seems to start, each part scanned on its own thread, the
//! parts merged. The result must be the serial scan's, whatever the cuts: on every real
//! trace of the fixtures, on a big trace read from a file (the report's bytes), and on
//! generated traces whose strings hold braces, quotes and `}, {"`, whose args hold lists
//! of objects, with string pids, malformed events and cut-off ends, cut anywhere (at
//! places that look like an event's start, and at any byte).

use std::io::Read;
use std::path::Path;

use cpuprof_tui::trace::{self, read_chrome_json_cut_at, TraceProfile};
use proptest::prelude::*;

use cpuprof_testkit::big_trace;

use big_trace::TraceTemplate;

/// The serial scan (no cut), as text: intervals, tables, warnings, counts, or the error.
fn serial(text: &[u8]) -> String {
    format!("{:?}", read_chrome_json_cut_at(text, &[], false).0)
}

/// The scan in parts, as text, and how many parts were merged.
fn in_parts_merged(text: &[u8], hints: &[u64], snap: bool) -> (String, usize) {
    let (set, merged) = read_chrome_json_cut_at(text, hints, snap);
    (format!("{set:?}"), merged)
}

fn in_parts(text: &[u8], hints: &[u64], snap: bool) -> String {
    in_parts_merged(text, hints, snap).0
}

/// The text of a fixture (gzip inflated).
fn fixture_text(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut text)
            .unwrap();
        text
    } else {
        bytes
    }
}

/// Every Chrome trace among the fixtures (ours and the shared ones, when present).
fn chrome_fixtures() -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let roots = [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/torch"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/torch"),
        Path::new("/work/shared/fixtures/torch").to_path_buf(),
    ];
    let mut stack: Vec<_> = roots.into_iter().filter(|r| r.is_dir()).collect();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                stack.push(p);
            } else if (name.ends_with(".json") || name.ends_with(".json.gz"))
                && !name.contains("key_averages")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_real_trace_reads_the_same_in_parts() {
    let files = chrome_fixtures();
    assert!(files.len() >= 8, "{files:?}");
    let mut checked = 0;
    for f in &files {
        let text = fixture_text(f);
        if trace::detect_format(&text).ok() != Some(trace::TraceFormat::ChromeJson) {
            continue;
        }
        let whole = serial(&text);
        assert!(whole.starts_with("Ok("), "{}: {whole:.200}", f.display());
        let len = text.len() as u64;
        for n in 2..=6u64 {
            let hints: Vec<u64> = (1..n).map(|k| len * k / n).collect();
            let (set, merged) = in_parts_merged(&text, &hints, true);
            assert_eq!(set, whole, "{} in {n} parts", f.display());
            // Kineto's layout: every guess is an event's start, every part merged.
            assert_eq!(merged, n as usize - 1, "{} in {n} parts", f.display());
            assert_eq!(in_parts(&text, &hints, false), whole, "{}", f.display());
        }
        // Every 997th byte a cut: most of them inside an event.
        let hints: Vec<u64> = (1..len).step_by(997).collect();
        assert_eq!(in_parts(&text, &hints, false), whole, "{}", f.display());
        assert_eq!(in_parts(&text, &hints, true), whole, "{}", f.display());
        checked += 1;
    }
    assert!(checked >= 8, "{checked} Chrome traces checked");
}

/// A big trace in a file goes through the file's path (`pread` by every part): the
/// report's JSON is the same bytes as the report of the serial scan of the same text.
#[test]
fn a_big_trace_file_reports_the_same_bytes_as_the_serial_scan() {
    let t = TraceTemplate::from_fixture();
    let mut text = Vec::new();
    t.write(&mut text, 60).unwrap();
    assert!(text.len() > 12 << 20, "{} bytes", text.len());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    std::fs::write(&path, &text).unwrap();
    let from_file = trace::load_trace(&path).unwrap();
    let serial_set = read_chrome_json_cut_at(&text, &[], false).0.unwrap();
    let one_thread = TraceProfile::build(serial_set, &cpuprof_tui::input::display_name(&path));
    assert_eq!(
        cpuprof_tui::report::trace_json::to_json_string(&from_file),
        cpuprof_tui::report::trace_json::to_json_string(&one_thread)
    );
    // And cut by the reader's own choice (as many parts as cores) in memory.
    let len = text.len() as u64;
    let whole = serial(&text);
    for n in [2u64, 3, 8] {
        let hints: Vec<u64> = (1..n).map(|k| len * k / n).collect();
        assert_eq!(
            in_parts_merged(&text, &hints, true),
            (whole.clone(), n as usize - 1)
        );
    }
}

/// One generated event: fields in any order, strings with the characters that fool a
/// guess, args with lists of objects.
fn event() -> impl Strategy<Value = String> {
    let text = prop::sample::select(vec![
        "aten::mm",
        "}, {\\\"ph\\\": \\\"X\\\"",
        "a}, {\"b",
        "x\\\\",
        "q\\\"}, {\\\"",
        "é}{",
        "",
    ]);
    let cat = prop::sample::select(vec![
        "cpu_op",
        "user_annotation",
        "python_function",
        "kernel",
    ]);
    let id = prop::sample::select(vec!["1", "2", "\"7\"", "\"Spans\"", "null"]);
    let ts = prop::sample::select(vec!["10", "10.5", "11.125", "\"12\"", "-3", "x"]);
    let dur = prop::sample::select(vec!["1", "2.5", "0", "-1", "\"3\"", "100"]);
    let args = prop::sample::select(vec![
        "{}",
        "{\"Input Dims\": [[1, 2], []], \"Input type\": [\"float\", \"\"]}",
        "{\"Input Dims\": [[3]], \"Input type\": [\"int\"], \"l\": [{\"a\": 1}, {\"b\": \"}, {\\\"c\"}]}",
        "{\"stack\": [\"f.py(1): g\", \"}, {\\\"\"]}",
    ]);
    let ph = prop::sample::select(vec!["\"X\"", "\"X\"", "\"X\"", "\"i\"", "\"M\""]);
    (
        ph,
        cat,
        text.clone(),
        id.clone(),
        id,
        ts,
        dur,
        args,
        text,
        any::<bool>(),
    )
        .prop_map(|(ph, cat, name, pid, tid, ts, dur, args, extra, swap)| {
            let mut members = vec![
                format!("\"ph\": {ph}"),
                format!("\"cat\": \"{cat}\""),
                format!("\"name\": \"{name}\""),
                format!("\"pid\": {pid}"),
                format!("\"tid\": {tid}"),
                format!("\"ts\": {ts}"),
                format!("\"dur\": {dur}"),
                format!("\"args\": {args}"),
                format!("\"note\": \"{extra}\""),
            ];
            if swap {
                members.swap(0, 7);
            }
            format!("{{{}}}", members.join(", "))
        })
}

fn trace_text() -> impl Strategy<Value = String> {
    let element = prop_oneof![8 => event(), 1 => Just("17".to_string()), 1 => Just("[{\"a\": 1}, {\"b\": 2}]".to_string())];
    (
        prop::collection::vec(element, 0..40),
        prop::sample::select(vec![", ", ",\n  ", " ,", ","]),
        0usize..4,
        prop::sample::select(vec!["", "x", "}", ", \"host_name\": \"h}, {\\\"\"}"]),
    )
        .prop_map(|(events, sep, shape, tail)| {
            let body = events.join(sep);
            match shape {
                0 => format!("[{body}]"),
                1 => format!("{{\"traceEvents\": [{body}]}}"),
                2 => format!(
                    "{{\"a\": {{\"b\": [{{\"c\": 1}}, {{\"d\": 2}}]}}, \"traceEvents\": [{body}], \"traceEvents\": [{body}]{tail}"
                ),
                _ => format!("{{\"traceEvents\": [{body}]{tail}"),
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn generated_traces_read_the_same_cut_anywhere(
        text in trace_text(),
        cuts in prop::collection::vec(0.0f64..1.0, 1..6),
        cut_off in 0.0f64..1.0,
        whole_text in any::<bool>(),
        snap in any::<bool>(),
    ) {
        let mut text = text.into_bytes();
        if !whole_text {
            text.truncate((text.len() as f64 * cut_off) as usize);
        }
        let hints: Vec<u64> = cuts.iter().map(|c| (text.len() as f64 * c) as u64).collect();
        prop_assert_eq!(in_parts(&text, &hints, snap), serial(&text));
    }
}

/// Well-formed events (no warning: every part merges exactly) whose names and args hold
/// what fools a guess: with the cuts anywhere, most parts merge and the result is the
/// serial scan's.
#[test]
fn well_formed_traces_merge_their_parts() {
    let names = ["aten::mm", "a}, {\\\"b", "}, {\\\"ph\\\": 1", "x\\\\"];
    let mut events = Vec::new();
    for i in 0..400u64 {
        let name = names[i as usize % names.len()];
        let args = if i % 3 == 0 {
            r#"{"Input Dims": [[2, 3]], "Input type": ["float"], "l": [{"a": 1}, {"b": "}, {\"c"}]}"#
        } else {
            "{}"
        };
        events.push(format!(
            "{{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{name}\", \"pid\": 1, \"tid\": {}, \"ts\": {}.5, \"dur\": 3, \"args\": {args}}}",
            i % 3,
            i * 10
        ));
    }
    let text = format!(
        "{{\"traceEvents\": [\n  {}\n], \"host_name\": \"h\"}}",
        events.join(",\n  ")
    );
    let whole = serial(text.as_bytes());
    assert!(whole.contains("Ok("));
    let mut merged = 0;
    for step in [97u64, 1009, 4001] {
        let hints: Vec<u64> = (1..text.len() as u64).step_by(step as usize).collect();
        let (set, m) = in_parts_merged(text.as_bytes(), &hints, true);
        assert_eq!(set, whole, "step {step}");
        merged += m;
    }
    assert!(merged >= 100, "only {merged} parts merged");
}
