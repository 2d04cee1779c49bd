//! `--warmup auto` and the clock-resolution note on real dumps and CpuBackend cases.
//!
//! The auto rule (src/profile/warmup.rs, README): n runs; reference = the later half
//! (runs n/2..); m = their median, MAD = median |x - m|; cold when x > m +
//! max(3·1.4826·MAD, 0.1·m); drop the leading cold runs, up to the first run that is not
//! cold. The expected counts below were worked out from each dump's Method::execute samples
//! as the Inspector lists them (`*.inspector.json`, raw_ms), with python over those lists
//! (numpy.median), not from our output.

use crate::common;

use std::sync::atomic::AtomicBool;

use common::{fixture, json};
use cpuprof_tui::profile::warmup::{auto_warmup, Warmup};
use cpuprof_tui::profile::{load_profile, Profile, ProfileRequest};

fn load_auto(etdump: &str, log: Option<&str>) -> Profile {
    let request =
        ProfileRequest::new(fixture(etdump), log.map(fixture), 0).with_warmup(Warmup::Auto);
    load_profile(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap()
}

#[test]
fn auto_drops_exactly_the_cold_runs_of_each_real_dump() {
    // mlp_xnnpack: 13 runs, reference runs 6..13 [15.7, 21.5, 44.0, 34.1, 31.2, 44.1,
    // 36.8] µs: median 34.114, MAD 9.898 -> threshold 34.114 + 3·1.4826·9.898 = 78.14 µs;
    // run 0 (55.5) is not above it: nothing dropped.
    // cnn_portable: [940.7, 720.9, 578.5, ...]; reference median 561.527, MAD 4.849 ->
    // threshold 617.68: runs 0 and 1 cold, run 2 (578.5) not -> 2.
    // mlp_portable_debugbuf: [949.2, 357.5, 346.1, 370.5, 360.2, 366.6, 345.8, 319.2,
    // ...]; reference median 314.336, MAD 2.905 -> threshold max(12.92, 31.43) above:
    // 345.77; runs 0-6 are all above it (the level drops at run 7) -> 7.
    // multi_delegate: [728.0, 632.9, ...]; reference median 585.112, MAD 35.036 ->
    // threshold 740.94: run 0 is not above it -> 0.
    for (dump, want, runs) in [
        ("real/mlp_xnnpack.etdp", 0, 13),
        ("real/cnn_portable.etdp", 2, 13),
        ("real/mlp_portable_debugbuf.etdp", 7, 13),
        ("real/multi_delegate.etdp", 0, 15),
    ] {
        let p = load_auto(dump, None);
        assert_eq!(p.runs.warmup_dropped, want, "{dump}");
        assert_eq!(p.runs.kept, runs - want, "{dump}");
        let w: Vec<_> = p
            .warnings
            .iter()
            .filter(|w| w.kind == "warmup_auto")
            .collect();
        assert_eq!(w.len(), 1, "{dump}: one warning says how many and why");
        assert!(
            w[0].message
                .contains(&format!("dropped {want} leading run(s)")),
            "{}",
            w[0].message
        );
    }
    // two_method, per method. encode: 12 runs [34.7, 25.9, 17.2, 15.9, ...] µs;
    // reference median 14.792, MAD 0.26 -> threshold 14.792 + max(1.156, 1.479) = 16.271:
    // runs 0-2 cold, 15.9 not -> 3. decode: 16 runs [29.0, 6.0, 4.9, ...]; median 3.01,
    // MAD 1.237 -> threshold 8.512: run 0 cold, 6.0 not -> 1.
    let p = load_auto("real/two_method.etdp", None);
    let dropped: Vec<usize> = p.methods.iter().map(|m| m.runs.warmup_dropped).collect();
    assert_eq!(dropped, [3, 1]);
    assert_eq!(p.runs.warmup_dropped, 3);
}

#[test]
fn the_rule_agrees_with_the_inspector_samples() {
    // The same rule over the Inspector's Method::execute list of cnn_portable.
    let g = json("real/cnn_portable.inspector.json");
    let block = &g["etdump_only"]["event_blocks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "Execute")
        .unwrap()["events"];
    let raw: Vec<f64> = block
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["event_name"] == "Method::execute")
        .unwrap()["raw_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(auto_warmup(&raw).0, 2);
}

/// The leading cold runs of each CpuBackend case by the rule, worked out with python
/// (numpy.median) over each truth file's `method_execute` samples (warm-up then timed, in
/// run order), not from our output. The generator slows run r by 1 + 1.6·e^(−1.1·r)
/// (2.6×, 1.53×, 1.18×, ...) plus noise, so the cold prefix ends where the noise hides
/// the slowdown: e.g. mlp_basic reads 73.2, 39.5, 41.2, ... µs against a threshold of
/// 40.8 µs: run 1 is warm, so only run 0 goes (run 2, cold again, is kept: it follows a
/// warm run).
#[test]
fn cpu_backend_cases_drop_their_leading_cold_runs() {
    let want = [
        ("cpu/mlp_basic", 1),
        ("cpu/cnn2_basic", 2),
        ("cpu/wide_browse", 3),
        ("cpu/cnn2_noplan", 2),
        ("cpu/mlp_w0_t1", 0),
        ("cpu/cnn2_crlf_noise", 3),
        ("cpu-faults/cnn2_drop_ops", 4),
        ("cpu-faults/cnn2_drop_step", 2),
        ("cpu-faults/cnn2_bad_metadata", 3),
        ("cpu-faults/cnn2_truncated_plan", 2),
        ("cpu-faults/cnn2_gap_plan", 3),
        ("cpu-faults/mlp_noshapes_hours", 2),
    ];
    assert_eq!(want.len(), common::TRUTH_CASES.len());
    for (case, w) in want {
        let p = load_auto(&format!("{case}.etdp"), Some(&format!("{case}.log")));
        assert_eq!(p.runs.warmup_dropped, w, "{case}");
    }
}

#[test]
fn cold_runs_are_reported_without_auto_too() {
    // With --warmup 0 the profile still says the first 2 runs of cnn_portable are cold
    // (the explorer's footer names them), but drops nothing.
    let p = common::load("real/cnn_portable.etdp", None, 0);
    assert_eq!(p.runs.warmup_dropped, 0);
    let cold = p.cold_runs.as_ref().unwrap();
    assert_eq!((cold.count, cold.dropped), (2, false));
}

#[test]
fn resolution_note_and_below_resolution_rows_on_real_dumps() {
    // mlp_xnnpack: GEMM #1..#3 medians 18, 4, 1 µs (whole µs): none under 1 µs, no note.
    let p = common::load("real/mlp_xnnpack.etdp", None, 0);
    assert!(!p
        .warnings
        .iter()
        .any(|w| w.kind == "below_clock_resolution"));
    assert_eq!(p.resolution.unwrap().xnnpack_operator_ms, 0.001);
    // two_method: decode's GEMM #1 is 0 in all 16 runs (Inspector median 0.0): one
    // operator under 1 µs, one note for the whole profile; encode's GEMM (13 µs) is not.
    let p = common::load("real/two_method.etdp", None, 0);
    let notes: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| w.kind == "below_clock_resolution")
        .collect();
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0].message.contains("1 operator(s)"),
        "{}",
        notes[0].message
    );
    assert_eq!(p.resolution.unwrap().operators_below_resolution, 1);
    let decode_gemm = &p.methods[1].delegates[0].operators[0];
    assert!(decode_gemm.below_resolution());
    assert_eq!(
        decode_gemm.stats.median(),
        0.0,
        "JSON keeps the exact number"
    );
    assert!(!p.methods[0].delegates[0].operators[0].below_resolution());
    // The report table reads <1 µs for it, and a bounded share, never 0.0%.
    let table = cpuprof_tui::report::profile_table(&p);
    let line = table
        .lines()
        .filter(|l| {
            l.trim_start()
                .starts_with("Fully Connected (NC, F32) GEMM #1")
        })
        .nth(1)
        .unwrap();
    assert!(line.contains("<1 µs"), "{line}");
    assert!(
        line.trim_end().ends_with('%') && line.contains(" <"),
        "{line}"
    );
    assert!(!line.contains("0.0%"), "{line}");
    let csv = cpuprof_tui::report::profile_csv(&p);
    let row = csv
        .lines()
        .find(|l| l.contains("GEMM #1") && l.contains(",method 2,"))
        .unwrap();
    assert!(row.contains(",<1 µs,<"), "{row}");
}
