//! `--time-unit`: dumps whose clock is µs or cycles read back as the same profile as the
//! equivalent ns dump, and durations implausible for the unit are warned about.
//!
//! The dumps are generated from `fixtures/real/mlp_xnnpack.etdp` (ns ticks) through the
//! flatbuffers builder used by the tests: ticks floored to whole µs give the reference
//! ns dump (`t / 1000 * 1000`), the µs dump (`t / 1000`) and a 2 GHz cycle-counter dump
//! (`t / 1000 * 1000 * 2`). Read with the right unit, all three are the same ns ticks, so
//! their `report --format json` must be identical (sources aside).

use crate::support::etdump_build as build;

use std::path::Path;
use std::process::Command;

use build::BuiltRun;
use cpuprof_tui::etdump;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");
const FIXTURE: &[u8] = include_bytes!("../../fixtures/real/mlp_xnnpack.etdp");

/// The fixture with every tick mapped by `f` (and optionally every delegate operator
/// stretched by `stretch_ops` ticks).
fn rewrite(f: impl Fn(u64) -> u64, stretch_ops: u64) -> Vec<u8> {
    let dump = etdump::parse(FIXTURE).expect("fixture parses");
    let runs: Vec<BuiltRun> = dump
        .blocks
        .iter()
        .map(|block| {
            cpuprof_testkit::big_dump::built_run_timed(&dump, block, |ev| {
                let stretch = if ev.delegate_id.is_some() {
                    stretch_ops
                } else {
                    0
                };
                (f(ev.start_ticks), f(ev.end_ticks) + stretch)
            })
        })
        .collect();
    build::build(dump.version, &runs)
}

fn report(path: &Path, unit: Option<&str>) -> Value {
    let mut cmd = Command::new(BIN);
    cmd.args(["report", "--format", "json"]);
    if let Some(u) = unit {
        cmd.args(["--time-unit", u]);
    }
    let out = cmd.arg(path).output().expect("report runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).expect("json");
    v.as_object_mut().unwrap().remove("source");
    v
}

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "implausible_durations")
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn us_and_cycle_clocks_read_as_the_equivalent_ns_dump() {
    let dir = tempfile::tempdir().unwrap();
    let ns = dir.path().join("ns.etdp");
    let us = dir.path().join("us.etdp");
    let cycles = dir.path().join("cycles.etdp");
    std::fs::write(&ns, rewrite(|t| t / 1000 * 1000, 0)).unwrap();
    std::fs::write(&us, rewrite(|t| t / 1000, 0)).unwrap();
    std::fs::write(&cycles, rewrite(|t| t / 1000 * 1000 * 2, 0)).unwrap();

    let reference = report(&ns, None);
    assert_eq!(report(&ns, Some("ns")), reference);
    assert_eq!(report(&us, Some("us")), reference);
    assert_eq!(report(&cycles, Some("cycles:2GHz")), reference);
    assert_eq!(report(&cycles, Some("cycles:2000000000")), reference);
    assert!(warnings(&reference).is_empty());

    // Read with the default unit, the µs dump is 1000x faster: Method::execute's median
    // in the reference is a whole number of µs, and the µs dump's is that many ns.
    let wrong = report(&us, None);
    let right_ms = reference["method"]["median"].as_f64().unwrap();
    let wrong_ms = wrong["method"]["median"].as_f64().unwrap();
    assert!(right_ms > 0.0);
    assert!(
        (wrong_ms * 1000.0 - right_ms).abs() < 1e-9,
        "{wrong_ms} {right_ms}"
    );
    // And a 2 GHz counter read as ns is twice as slow.
    let slow = report(&cycles, None);
    let slow_ms = slow["method"]["median"].as_f64().unwrap();
    assert!(
        (slow_ms - 2.0 * right_ms).abs() < 1e-9,
        "{slow_ms} {right_ms}"
    );
}

#[test]
fn hours_long_method_execute_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x100.etdp");
    // Ticks x100: the fixture's longest Method::execute, 55,544 ns (its Inspector
    // output), becomes 5,554,400 ticks; read as ms that is 5,554 s = 1.5 h.
    std::fs::write(&path, rewrite(|t| t * 100, 0)).unwrap();
    let as_ms = report(&path, Some("ms"));
    let w = warnings(&as_ms);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("Method::execute") && w[0].contains("1.5 h"),
        "{}",
        w[0]
    );
    // As ns (5.6 ms) or µs (5.6 s) nothing is implausible.
    assert!(warnings(&report(&path, None)).is_empty());
    assert!(warnings(&report(&path, Some("us"))).is_empty());
}

#[test]
fn operators_longer_than_their_delegate_call_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("stretched.etdp");
    // Every XNNPACK operator made 1 s longer: longer than any DELEGATE_CALL (< 1 ms).
    std::fs::write(&path, rewrite(|t| t, 1_000_000_000)).unwrap();
    let w = warnings(&report(&path, None));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("DELEGATE_CALL"), "{}", w[0]);
}

#[test]
fn bad_time_unit_is_a_usage_error() {
    let out = Command::new(BIN)
        .args(["report", "--time-unit", "cycles:fast", "x.etdp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cycle frequency"), "{err}");
}
