//! `--warmup auto` and the clock-resolution note on real dumps and CpuBackend cases.
//!
//! The auto rule (src/profile/warmup.rs, README): n runs, cap = n / 4; reference = runs
//! cap.. ; m = their median, MAD = median |x - m|; cold when x > m + max(3·1.4826·MAD,
//! 0.1·m); drop up to the last cold run among the first `cap`. The expected counts below
//! were worked out from each dump's Method::execute samples as the Inspector lists them
//! (`*.inspector.json`, raw_ms), by hand/python over those lists, not from our output.

mod common;

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
    // mlp_xnnpack: 13 runs, cap 3, first [55.5, 21.8, 28.9] µs; reference median 27.962,
    // MAD 10.560 -> threshold 27.962 + 3·1.4826·10.560 = 74.93 µs: none cold (the first
    // run is slow, but the later runs vary as much).
    // cnn_portable: cap 3, first [940.7, 720.9, 578.5]; median 569.111, MAD 11.997 ->
    // threshold 626.02: runs 0 and 1 cold -> 2.
    // mlp_portable_debugbuf: cap 3, first [949.2, 357.5, 346.1]; median 318.218, MAD
    // 7.7035 -> threshold 352.48: runs 0, 1 cold (346.1 is not) -> 2.
    for (dump, want) in [
        ("real/mlp_xnnpack.etdp", 0),
        ("real/cnn_portable.etdp", 2),
        ("real/mlp_portable_debugbuf.etdp", 2),
    ] {
        let p = load_auto(dump, None);
        assert_eq!(p.runs.warmup_dropped, want, "{dump}");
        assert_eq!(p.runs.kept, 13 - want, "{dump}");
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
    // two_method, per method. encode: 12 runs, cap 3, first [34.7, 25.9, 17.2] µs; median
    // 14.972, MAD 0.161 -> threshold max(0.716, 1.497) above: 16.469; all three cold -> 3.
    // decode: 16 runs, cap 4, first [29.0, 6.0, 4.9, 4.2]; median 3.8705, MAD 0.366 ->
    // threshold 3.8705 + 1.628 = 5.498: runs 0, 1 cold -> 2.
    let p = load_auto("real/two_method.etdp", None);
    let dropped: Vec<usize> = p.methods.iter().map(|m| m.runs.warmup_dropped).collect();
    assert_eq!(dropped, [3, 2]);
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

#[test]
fn cpu_backend_cases_drop_within_one_of_the_generators_warmup() {
    // The generator makes run r slower by 1 + 1.6·e^(−1.1·r) (2.6×, 1.53×, 1.18×, ...),
    // then times its W warm-up runs and T timed runs; auto must find W ± 1.
    for case in common::TRUTH_CASES {
        let truth = json(&format!("{case}.truth.json"));
        let w = truth["warmup"].as_u64().unwrap() as i64;
        let p = load_auto(&format!("{case}.etdp"), Some(&format!("{case}.log")));
        let got = p.runs.warmup_dropped as i64;
        assert!(
            (got - w).abs() <= 1,
            "{case}: auto dropped {got}, generator warm-up {w}"
        );
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
    assert_eq!(decode_gemm.stats.median, 0.0, "JSON keeps the exact number");
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
        // `method`, then the (added) `module` and `source_line`: empty without an ETRecord.
        .find(|l| l.contains("GEMM #1") && l.ends_with(",method 2,,"))
        .unwrap();
    assert!(row.contains(",<1 µs,<"), "{row}");
}
