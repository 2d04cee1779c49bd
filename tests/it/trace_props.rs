//! Bad input never panics; cut-off files give a clear error or a partial result with a
//! warning.

use cpuprof_tui::trace::{parse_trace, TraceError};
use proptest::prelude::*;

const THAPI: &str = include_str!("../../fixtures/thapi/babeltrace2_pretty_clock_seconds.txt");
const TORCH: &[u8] = include_bytes!("../../fixtures/torch/cnn_infer.json");
const TORCH_GZ: &[u8] = include_bytes!("../../fixtures/torch/cnn_train.json.gz");
const THAPI_MULTI: &str = "13:35:44.048636859 - x41 - vpid: 7, vtid: 8 - lttng_ust_pytorch:op_entry: {\n  name: \"aten::randn\",\n  overload_name: \"\"\n}\n13:35:44.048637000 - x41 - vpid: 7, vtid: 8 - lttng_ust_pytorch:op_exit: {\n  name: \"aten::randn\",\n  overload_name: \"\"\n}\n";

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 96,
        ..ProptestConfig::default()
    }
}

/// A cut-off file must not look complete: either an error, or at least one warning.
fn assert_cut_is_visible(bytes: &[u8], cut: usize, complete_at: impl Fn(usize) -> bool) {
    match parse_trace(&bytes[..cut], "cut") {
        Ok(p) => assert!(
            complete_at(cut) || !p.warnings.is_empty() || !p.unterminated.is_empty(),
            "cut at {cut} went unnoticed"
        ),
        Err(e) => assert!(!e.to_string().is_empty() && !e.to_string().contains('\n')),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse_trace(&bytes, "x");
    }

    #[test]
    fn arbitrary_text_in_each_format_never_panics(
        prefix in prop::sample::select(vec!["[06:48:34.8] (+?.?) vm lttng_ust_pytorch:op_entry: ", "[1.5] h lttng_ust_pytorch:op_exit: ", "timestamp = 1.5, name = lttng_ust_pytorch:op_exit, ", "00:00:01.1 - h - vpid: 1, vtid: 2 - lttng_ust_pytorch:op_entry: ", "{\"traceEvents\":[", "["]),
        body in "[\\[\\]{}\",:=a-z0-9 .\\\\\\n+-]{0,200}",
    ) {
        let text = format!("{prefix}{body}");
        let _ = parse_trace(text.as_bytes(), "x");
    }

    #[test]
    fn arbitrary_json_events_never_panic(
        events in proptest::collection::vec(
            (prop::sample::select(vec!["\"X\"", "\"B\"", "1", "null", "[]"]),
             prop::sample::select(vec!["\"cpu_op\"", "\"user_annotation\"", "\"kernel\"", "{}"]),
             prop::sample::select(vec!["1", "\"7\"", "\"Spans\"", "-3", "1e300", "[1]"]),
             prop::sample::select(vec!["0", "1.5", "-2", "\"x\"", "1e308", "null", "9e15", "-9e15"]),
             prop::sample::select(vec!["{}", "[]", "{\"Input Dims\":[[1,2],[],[[3]]],\"Input type\":[\"float\",3]}", "{\"Input Dims\":7}"])),
            0..12),
    ) {
        let body: Vec<String> = events.iter().map(|(ph, cat, id, t, args)| {
            format!("{{\"ph\":{ph},\"cat\":{cat},\"name\":\"a\",\"pid\":{id},\"tid\":{id},\"ts\":{t},\"dur\":{t},\"args\":{args}}}")
        }).collect();
        let json = format!("{{\"traceEvents\":[{}]}}", body.join(","));
        let _ = parse_trace(json.as_bytes(), "x");
    }

    #[test]
    fn cut_lttng_text_is_visible(cut in 1usize..11_705) {
        let bytes = THAPI.as_bytes();
        let cut = cut.min(bytes.len());
        // A cut at a line boundary leaves a shorter valid trace (nothing to detect);
        // anywhere else the last record is damaged.
        assert_cut_is_visible(bytes, cut, |c| {
            c == bytes.len() || bytes[c - 1] == b'\n' || bytes[c] == b'\n'
        });
    }

    #[test]
    fn cut_thapi_multi_line_is_visible(cut in 1usize..THAPI_MULTI.len()) {
        let bytes = THAPI_MULTI.as_bytes();
        // Cutting the first record's exit leaves an entry that never exits: visible.
        assert_cut_is_visible(bytes, cut, |c| bytes[c..].iter().all(u8::is_ascii_whitespace));
    }

    #[test]
    fn cut_chrome_json_is_visible(cut in 1usize..104_012) {
        let cut = cut.min(TORCH.len() - 1);
        assert_cut_is_visible(TORCH, cut, |c| TORCH[c..].iter().all(u8::is_ascii_whitespace));
    }

    #[test]
    fn cut_gzip_is_visible(cut in 1usize..18_301) {
        let cut = cut.min(TORCH_GZ.len() - 1);
        assert_cut_is_visible(TORCH_GZ, cut, |_| false);
    }

    #[test]
    fn corrupted_bytes_never_panic(flips in proptest::collection::vec((0usize..104_012, any::<u8>()), 1..8)) {
        let mut json = TORCH.to_vec();
        let mut text = THAPI.as_bytes().to_vec();
        for (pos, b) in flips {
            let n = json.len();
            json[pos % n] = b;
            let n = text.len();
            text[pos % n] = b;
        }
        let _ = parse_trace(&json, "x");
        let _ = parse_trace(&text, "x");
    }
}

#[test]
fn errors_are_one_clear_line() {
    let cases: [(&[u8], &str); 4] = [
        (b"", "empty file"),
        (b"hello world\n", "not a recognised trace"),
        (b"{\"traceEvents\": 3}", "Chrome-trace JSON"),
        (
            b"[06:48:34.8] (+?.?) vm lttng_ust_ze:init: { a = 1 }\n",
            "no operator events",
        ),
    ];
    for (bytes, want) in cases {
        let e: TraceError = parse_trace(bytes, "x").unwrap_err();
        let s = e.to_string();
        assert!(s.contains(want), "{s}");
        assert!(!s.contains('\n'));
    }
}
