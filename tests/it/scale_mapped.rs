//! `report` maps regular files of 1 MiB or more (and releases decoded pages behind the
//! decoder); standard input is read. Both must give the same profile, byte for byte.

use crate::support::etdump_build as build;

use std::io::Write;
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_cpuprof-tui");

fn json_without_source(stdout: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(stdout).expect("json");
    v.as_object_mut().unwrap().remove("source");
    v
}

#[test]
fn mapped_file_and_stdin_give_the_same_profile() {
    // ~5 MB: mapped, and decoded by two threads on a 2-core machine.
    let bytes = build::build(0, &build::xnnpack_like(12_000));
    assert!(bytes.len() > 4 << 20);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.etdp");
    std::fs::write(&path, &bytes).unwrap();

    let mapped = Command::new(BIN)
        .args(["report", "--format", "json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        mapped.status.success(),
        "{}",
        String::from_utf8_lossy(&mapped.stderr)
    );

    let mut child = Command::new(BIN)
        .args(["report", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&bytes));
    let piped = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        piped.status.success(),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );

    let a = json_without_source(&mapped.stdout);
    assert_eq!(a, json_without_source(&piped.stdout));
    // 12,000 Execute runs, none dropped; xnnpack_like's Method::execute spans 46,000 ns.
    assert_eq!(a["runs"]["kept"], 12_000);
    assert_eq!(a["method"]["median"], 0.046);
}
