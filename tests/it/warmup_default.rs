//! The warm-up chosen for the user: without `--warmup`, `report`, `compare` and `export`
//! drop the count the runner log states (`Running 3 warm-up and 20 timed iteration(s).`)
//! when its warm-up and timed iterations add up to the dump's runs, else the cold runs
//! by the `auto` rule; `--warmup 0` keeps every run. `profile.json` says which rule chose
//! the count (`warmup_rule`). Counts: the logs' own lines and the truth files; the auto
//! count of cnn_portable (2) is worked out in tests/it/profile_warmup.rs.

use crate::common;

use std::process::Command;

fn bin(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .args(args)
        .output()
        .unwrap()
}

fn report_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let o = bin(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_log_that_states_the_count_is_believed() {
    // compare/cnn2_a.log: "Running 3 warm-up and 20 timed iteration(s)."; the dump has
    // 23 runs.
    let v = report_json(&[&common::path("compare/cnn2_a.etdp")]);
    assert_eq!(v["runs"]["total"], 23);
    assert_eq!(v["runs"]["warmup_dropped"], 3);
    let rule = &v["warmup_rule"];
    assert_eq!(rule["rule"], "runner_log");
    assert_eq!(rule["requested"], "log");
    assert_eq!(rule["dropped"], 3);
    assert_eq!(
        rule["text"],
        "3 warm-up runs dropped (runner log) · 0 keeps all"
    );
}

#[test]
fn without_a_stated_count_the_cold_rule_decides() {
    // cnn_portable.log (the Python harness's) states no iteration counts: auto, 2 runs.
    let v = report_json(&[&common::path("real/cnn_portable.etdp")]);
    assert_eq!(v["runs"]["warmup_dropped"], 2);
    assert_eq!(v["warmup_rule"]["rule"], "auto");
    assert_eq!(
        v["warmup_rule"]["text"],
        "2 cold runs dropped (auto) · 0 keeps all"
    );
    // A log stating 0 + 3 iterations beside a dump of 23 runs is not believed.
    let v = report_json(&[
        &common::path("cpu/mlp_basic.etdp"),
        "--log",
        &common::path("compare/mlp3_a.log"),
    ]);
    assert_eq!(v["runs"]["total"], 23);
    assert_eq!(v["warmup_rule"]["rule"], "auto");
    let reason = v["warmup_rule"]["reason"].as_str().unwrap();
    assert!(reason.contains("the dump has 23 runs"), "{reason}");
}

#[test]
fn warmup_0_keeps_every_run() {
    let v = report_json(&[&common::path("compare/cnn2_a.etdp"), "--warmup", "0"]);
    assert_eq!(v["runs"]["warmup_dropped"], 0);
    assert_eq!(v["runs"]["kept"], 23);
    assert_eq!(v["warmup_rule"]["rule"], "given");
    assert_eq!(v["warmup_rule"]["text"], "all 23 runs kept (--warmup 0)");
}

#[test]
fn compare_and_export_use_the_same_default() {
    // Both sides' logs state 3 warm-up runs: 20 runs per side.
    let o = bin(&[
        "compare",
        &common::path("compare/cnn2_a.etdp"),
        &common::path("compare/cnn2_null_b.etdp"),
        "--format",
        "json",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["a"]["runs"].as_u64(), v["b"]["runs"].as_u64()),
        (Some(20), Some(20))
    );
    // Export leaves the 3 stated warm-up runs out: runs 3..23.
    let o = bin(&[
        "export",
        &common::path("compare/cnn2_a.etdp"),
        "--format",
        "chrome",
    ]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let runs: Vec<u64> = v["otherData"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap())
        .collect();
    assert_eq!(runs, (3..23).collect::<Vec<u64>>());
}
