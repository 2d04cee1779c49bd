//! The CTF op-event path with the streams decoded ahead on a thread of their own
//! (`trace::ctf::ahead`). It is not the default (the serial merge measured as fast or
//! faster on 2 cores), so here `CPUPROF_TUI_TEST_CTF_AHEAD=always` (set for the whole
//! test binary and inherited by
//! the binary it runs) makes it run on every trace: the real LTTng recording against its
//! golden tally, traces of the test-support writer against the calls written, a clock
//! that overflows and a truncated stream against what the serial path reports.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::ctf_truth::{
    assert_overflowing_clock_report, assert_tally_rows, assert_truncated_stream_error, expected,
    truncated_stream_copy, write_overflowing_clock_trace,
};
use cpuprof_tui::trace::ctf::writer::{write_workload, WriterConfig};
use cpuprof_tui::trace::{self, ctf};

const KNOB: &str = "CPUPROF_TUI_TEST_CTF_AHEAD";

/// Every test of this binary asks for the same value, so setting it again is harmless.
fn ahead() {
    std::env::set_var(KNOB, "always");
}

fn run(mode: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .env(KNOB, mode)
        .args(args)
        .output()
        .expect("binary runs")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn thapi(rel: &str) -> PathBuf {
    common::fixture("thapi").join(rel)
}

#[test]
fn the_real_recording_tallies_to_the_golden_byte_for_byte() {
    ahead();
    let want = std::fs::read_to_string(thapi("expected_tally_thapi_style.txt")).unwrap();
    let root = thapi("ctf");
    let o = run("always", &["report", s(&root), "--format", "tally"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), want);
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(
        err.contains("orphan_exit: event 7: exit of aten::orphan_exit"),
        "{err}"
    );
    // The warnings (event numbers included) are the serial path's, in its order.
    let serial = run("never", &["report", s(&root), "--format", "tally"]);
    assert_eq!(err, String::from_utf8(serial.stderr).unwrap());
}

fn check(cfg: WriterConfig, events: usize, threads: usize) {
    ahead();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("ust/uid/1000/64-bit");
    let calls = write_workload(&dir, cfg.clone(), events, threads).unwrap();
    let want = expected(&cfg, &calls);
    let t = ctf::tally_dir(tmp.path(), cpuprof_tui::input::DEFAULT_MAX_INPUT_SIZE).unwrap();
    assert_tally_rows(&t.tally.rows, &want, &format!("{cfg:?}"));
    // The model's reader takes the same path.
    let p = trace::load_trace(tmp.path()).unwrap();
    assert_eq!(t.tally, trace::tally::TallyInput::from_profile(&p));
    assert_eq!(t.warnings, p.warnings);
}

#[test]
fn written_traces_tally_to_the_calls_written() {
    // Many small packets over 4 streams: batches end mid-packet and streams interleave.
    check(
        WriterConfig {
            streams: 4,
            packet_size: 512,
            ..WriterConfig::default()
        },
        40_000,
        8,
    );
    // More streams than threads (some streams stay empty or end early), big-endian,
    // compact headers whose timestamps wrap.
    check(
        WriterConfig {
            streams: 16,
            big_endian: true,
            compact_header: true,
            ..WriterConfig::default()
        },
        20_000,
        3,
    );
    // One stream.
    check(
        WriterConfig {
            streams: 1,
            ..WriterConfig::default()
        },
        5_000,
        2,
    );
}

#[test]
fn a_clock_past_the_range_is_counted_and_skipped_as_serially() {
    ahead();
    // As hostile_round2's row 5: 3 calls counted, 4 events past the clock's range.
    let tmp = tempfile::tempdir().unwrap();
    write_overflowing_clock_trace(tmp.path());
    let o = run("always", &["report", s(tmp.path()), "--format", "json"]);
    assert_overflowing_clock_report(&o);
}

#[test]
fn a_truncated_stream_is_the_same_one_line_error() {
    ahead();
    let tmp = truncated_stream_copy();
    let o = run("always", &["report", s(tmp.path()), "--format", "tally"]);
    assert_truncated_stream_error(&o);
}
