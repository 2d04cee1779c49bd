//! `cpuprof-tui run` with a real runner: `scripts/et_cpu_runner.py` on ExecuTorch's
//! Python bindings runs `fixtures/run/tiny_mlp.pte` (made by `scripts/make_tiny_pte.py`)
//! with the environment `run` sets, and the printed `cpuprof.profile/1` equals the
//! ExecuTorch Inspector's view of the dump it wrote (`scripts/inspect_etdump.py`): every
//! Execute event's samples, warm-ups included, to 1e-9 relative.
//!
//! Needs a Python with executorch (1.5.1) and torch: `CPUPROF_TEST_PYTHON`, else
//! `/work/venv/bin/python` when it exists. Without one the test says so and passes.
#![cfg(unix)]

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::close;
use serde_json::Value;

fn python_with_executorch() -> Option<PathBuf> {
    let python = std::env::var_os("CPUPROF_TEST_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let venv = PathBuf::from("/work/venv/bin/python");
            venv.exists().then_some(venv)
        })?;
    let ok = Command::new(&python)
        .args([
            "-c",
            "import executorch.extension.pybindings.portable_lib, executorch.devtools",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

fn samples(stats: &Value) -> Vec<f64> {
    let list = |k: &str| -> Vec<f64> {
        stats[k]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_f64().unwrap()).collect())
            .unwrap_or_default()
    };
    // Every run, in order: the warm-ups dropped first, then the kept ones.
    let mut all = list("warmup_samples");
    all.extend(list("samples"));
    all
}

/// Our stats for an Inspector row (instruction id, event name).
fn ours<'a>(doc: &'a Value, instr: i64, name: &str) -> Option<&'a Value> {
    if name == "Method::execute" {
        return Some(&doc["method"]);
    }
    let delegates = doc["delegates"].as_array()?;
    for d in delegates
        .iter()
        .filter(|d| d["instruction_id"].as_i64() == Some(instr))
    {
        if name == "DELEGATE_CALL" {
            return Some(&d["call"]);
        }
        let steps = d["steps"].as_array().into_iter().flatten();
        let ops = d["operators"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(steps.flat_map(|s| s["operators"].as_array().into_iter().flatten()));
        for o in ops {
            if o["name"] == name {
                return Some(&o["stats"]);
            }
        }
    }
    None
}

#[test]
fn the_python_runner_profile_equals_the_inspector() {
    let Some(python) = python_with_executorch() else {
        eprintln!(
            "skipped: no Python with executorch (set CPUPROF_TEST_PYTHON to one that has it)"
        );
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .current_dir(&root)
        .args([
            "run", "--no-tui", "--format", "json", "--warmup", "2", "--timed", "6",
        ])
        .arg("--out")
        .arg(dir.path())
        .arg("--")
        .arg(&python)
        .args(["scripts/et_cpu_runner.py", "fixtures/run/tiny_mlp.pte"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let dump = dir.path().join("run-1.etdp");
    let log = std::fs::read_to_string(dir.path().join("run-1.log")).unwrap();
    assert!(
        log.contains("Running 2 warm-up and 6 timed iteration(s)."),
        "{log}"
    );
    assert_eq!(doc["runs"]["total"], 8);
    assert_eq!(doc["runs"]["warmup_dropped"], 2);
    assert_eq!(doc["runs"]["kept"], 6);

    let insp = Command::new(&python)
        .arg(root.join("scripts/inspect_etdump.py"))
        .arg(&dump)
        .output()
        .unwrap();
    assert!(
        insp.status.success(),
        "{}",
        String::from_utf8_lossy(&insp.stderr)
    );
    let golden: Value = serde_json::from_slice(&insp.stdout).unwrap();
    let mut checked = 0;
    for block in golden["event_blocks"].as_array().unwrap() {
        if block["name"] != "Execute" {
            continue;
        }
        for row in block["events"].as_array().unwrap() {
            let name = row["event_name"].as_str().unwrap();
            let instr = row["instruction_id"].as_i64().unwrap_or(-1);
            let stats = ours(&doc, instr, name)
                .unwrap_or_else(|| panic!("no row for {name} @{instr} in {doc}"));
            let raw: Vec<f64> = row["raw_ms"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let got = samples(stats);
            assert_eq!(got.len(), raw.len(), "{name}: runs");
            assert_eq!(raw.len(), 8, "{name}: the Inspector keeps every run");
            for (a, b) in got.iter().zip(&raw) {
                assert!(close(*a, *b, 1e-9), "{name}: {a} vs {b}");
            }
            checked += 1;
        }
    }
    // Method::execute, the delegate call and its three XNNPACK operators.
    assert_eq!(checked, 5, "{golden}");
}
