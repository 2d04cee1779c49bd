//! Shared helpers for integration tests: fixture paths and profile loading.
#![allow(dead_code)]

pub mod ctf_truth;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::atomic::AtomicBool;

use cpuprof_tui::profile::{load_profile, Profile, ProfileRequest};

pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

pub fn load(etdump: &str, log: Option<&str>, warmup: usize) -> Profile {
    let request = ProfileRequest::new(fixture(etdump), log.map(fixture), warmup);
    load_profile(&request, &mut |_| {}, &AtomicBool::new(false))
        .unwrap_or_else(|e| panic!("{etdump}: {e}"))
}

pub fn json(rel: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// |a - b| <= rel * max(|a|, |b|), with an absolute floor for values near zero.
pub fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) || (a - b).abs() <= 1e-15
}

/// Runs `cpuprof-tui report ARGS...`.
pub fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .arg("report")
        .args(args)
        .output()
        .expect("binary runs")
}

/// Copies the directory tree `from` into `to` (made if missing).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A fixture's path as a string argument.
pub fn path(rel: &str) -> String {
    fixture(rel).display().to_string()
}

/// Every CpuBackend case with a truth file (`fixtures/<case>.truth.json`).
pub const TRUTH_CASES: &[&str] = &[
    "cpu/mlp_basic",
    "cpu/cnn2_basic",
    "cpu/wide_browse",
    "cpu/cnn2_noplan",
    "cpu/mlp_w0_t1",
    "cpu/cnn2_crlf_noise",
    "cpu-faults/cnn2_drop_ops",
    "cpu-faults/cnn2_drop_step",
    "cpu-faults/cnn2_bad_metadata",
    "cpu-faults/cnn2_truncated_plan",
    "cpu-faults/cnn2_gap_plan",
    "cpu-faults/mlp_noshapes_hours",
];
