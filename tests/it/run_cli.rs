//! `cpuprof-tui run --no-tui` with the fake runner (`tests/support/fake_runner.sh`, which
//! copies `fixtures/cpu/mlp_basic.*`): the dump and log land in OUT under fresh names,
//! the printed report is the fixture's truth, the runner's exit status is passed
//! through, a missing or cut-short dump is one line naming the path the runner was given,
//! and signals reach the runner.
#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::json;

const RUNNER: &str = "tests/support/fake_runner.sh";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(out: &Path, extra: &[&str], runner_args: &[&str]) -> Output {
    bin()
        .args(["run", "--no-tui", "--out", out.to_str().unwrap()])
        .args(extra)
        .arg("--")
        .arg(RUNNER)
        .args(runner_args)
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Method samples (ms) of a `cpuprof.profile/1` document.
fn method_samples(doc: &serde_json::Value) -> Vec<f64> {
    doc["method"]["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

fn truth_samples() -> Vec<f64> {
    json("cpu/mlp_basic.truth.json")["method_execute"]["samples_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn one_run_lands_in_out_and_reports_the_fixture_truth() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &["--warmup", "3", "--timed", "20", "--format", "json"],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = dir.path().canonicalize().unwrap();
    // The dump is the fixture's bytes; the log is the runner's stderr, with the counts
    // it was given.
    assert_eq!(
        std::fs::read(out.join("run-1.etdp")).unwrap(),
        std::fs::read("fixtures/cpu/mlp_basic.etdp").unwrap()
    );
    let log = std::fs::read_to_string(out.join("run-1.log")).unwrap();
    assert!(
        log.contains("Running 3 warm-up and 20 timed iteration(s)."),
        "{log}"
    );
    // Passed through to our stderr too.
    assert!(stderr(&o).contains("Running 3 warm-up and 20 timed iteration(s)."));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["schema"], "cpuprof.profile/1");
    assert_eq!(doc["runs"]["warmup_dropped"], 3);
    assert_eq!(doc["runs"]["kept"], 20);
    assert_eq!(method_samples(&doc), truth_samples());
    // The plan came from the captured log.
    let truth = json("cpu/mlp_basic.truth.json");
    assert_eq!(
        doc["delegates"][0]["plan"]["regions"],
        truth["delegates"][0]["plan"]["regions"]
    );
    assert_eq!(
        doc["source"]["log"].as_str().unwrap(),
        out.join("run-1.log").to_str().unwrap()
    );
}

#[test]
fn the_environment_counts_reach_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &["--warmup", "7", "--timed", "2"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let log = std::fs::read_to_string(dir.path().join("run-1.log")).unwrap();
    assert!(
        log.contains("Running 7 warm-up and 2 timed iteration(s)."),
        "{log}"
    );
}

#[test]
fn repeat_makes_fresh_names_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    // An earlier run's files are kept; the numbering skips them.
    std::fs::write(dir.path().join("run-1.etdp"), b"earlier").unwrap();
    std::fs::write(dir.path().join("run-2.log"), b"earlier log").unwrap();
    let o = run(
        dir.path(),
        &["--repeat", "3", "--warmup", "3", "--format", "json"],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(dir.path().join("run-1.etdp")).unwrap(),
        b"earlier"
    );
    assert_eq!(
        std::fs::read(dir.path().join("run-2.log")).unwrap(),
        b"earlier log"
    );
    for n in [3, 4, 5] {
        assert!(
            dir.path().join(format!("run-{n}.etdp")).is_file(),
            "run-{n}"
        );
        assert!(dir.path().join(format!("run-{n}.log")).is_file(), "run-{n}");
    }
    assert!(!dir.path().join("run-6.etdp").exists());
    // One document per run, in order.
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_slice(&o.stdout)
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(docs.len(), 3);
    for (doc, n) in docs.iter().zip([3, 4, 5]) {
        assert!(doc["source"]["etdump"]
            .as_str()
            .unwrap()
            .ends_with(&format!("run-{n}.etdp")));
        assert_eq!(method_samples(doc), truth_samples());
    }
}

#[test]
fn a_failing_runner_passes_its_exit_status_through() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &[], &["--mode", "fail:7"]);
    assert_eq!(o.status.code(), Some(7));
    let err = stderr(&o);
    let dump = dir.path().canonicalize().unwrap().join("run-1.etdp");
    let line = err
        .lines()
        .find(|l| l.starts_with("cpuprof-tui: "))
        .expect("a line of ours");
    assert!(line.contains(dump.to_str().unwrap()), "{line}");
    assert!(
        line.contains("no dump") && line.contains("exit status 7"),
        "{line}"
    );
    assert!(
        line.contains("the model failed to load"),
        "the log's end: {line}"
    );
    // A runner that wrote its dump and then failed: the report, and its status.
    let o = run(dir.path(), &["--warmup", "3"], &["--mode", "dumpfail:5"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Method::execute"));
}

#[test]
fn a_runner_that_writes_no_dump_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &[], &["--mode", "nodump"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let ours: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("cpuprof-tui: "))
        .collect::<Vec<_>>();
    assert_eq!(ours.len(), 1, "{ours:?}");
    let dump = dir.path().canonicalize().unwrap().join("run-1.etdp");
    assert!(ours[0].contains(dump.to_str().unwrap()), "{}", ours[0]);
    assert!(
        ours[0].contains("ETDump written to file 'mlp_basic.etdp'."),
        "{}",
        ours[0]
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn a_runner_that_dies_writing_its_dump() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &[], &["--mode", "partial"]);
    // Killed by SIGKILL: 128 + 9, as a shell says.
    assert_eq!(o.status.code(), Some(137), "{}", stderr(&o));
    let err = stderr(&o);
    let ours: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("cpuprof-tui: "))
        .collect::<Vec<_>>();
    assert_eq!(ours.len(), 1, "{ours:?}");
    let size = std::fs::metadata("fixtures/cpu/mlp_basic.etdp")
        .unwrap()
        .len();
    // The fake runner keeps the first half: size / 2 bytes, of which 4 are the prefix.
    let want = format!("({} of the {} bytes", size / 2 - 4, size - 4);
    assert!(
        ours[0].contains("incomplete ETDump") && ours[0].contains(&want),
        "{}",
        ours[0]
    );
    assert!(
        ours[0].contains("SIGKILL") && ours[0].contains("dying half-way"),
        "{}",
        ours[0]
    );
}

#[test]
fn etdump_in_the_arguments_is_the_path() {
    let dir = tempfile::tempdir().unwrap();
    // Without ET_CPU_ETDUMP in its environment the runner only knows the argument.
    let o = bin()
        .args([
            "run", "--no-tui", "--format", "json", "--warmup", "3", "--out",
        ])
        .arg(dir.path())
        .args([
            "--",
            "env",
            "-u",
            "ET_CPU_ETDUMP",
            RUNNER,
            "--etdump_path",
            "{etdump}",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(method_samples(&doc), truth_samples());
    // Inside an argument too, and {warmup}/{timed}.
    let o = run(
        dir.path(),
        &["--warmup", "2", "--timed", "9"],
        &["--etdump_path={etdump}", "w={warmup}", "t={timed}"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let log = std::fs::read_to_string(dir.path().join("run-2.log")).unwrap();
    assert!(log.contains("args: [w=2] [t=9]"), "{log}");
    // A placeholder without its option: refused before anything runs.
    let o = run(dir.path(), &[], &["{timed}"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("{timed} needs --timed N"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("run-3.log").exists());
}

#[test]
fn a_program_that_cannot_start_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = bin()
        .args(["run", "--no-tui", "--out"])
        .arg(dir.path())
        .args(["--", "./no-such-runner", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "cpuprof-tui: ./no-such-runner: cannot start the runner: no such file or directory\n"
    );
    // Its claimed log is gone: the folder is as it was.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn the_default_folder_is_new_under_cpuprof_runs() {
    let cwd = tempfile::tempdir().unwrap();
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join(RUNNER);
    let go = || {
        Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
            .current_dir(cwd.path())
            .args(["run", "--no-tui", "--"])
            .arg(&runner)
            .output()
            .unwrap()
    };
    let (a, b) = (go(), go());
    assert_eq!(a.status.code(), Some(0), "{}", stderr(&a));
    assert_eq!(b.status.code(), Some(0), "{}", stderr(&b));
    let mut folders: Vec<PathBuf> = std::fs::read_dir(cwd.path().join("cpuprof-runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.sort();
    assert_eq!(folders.len(), 2, "{folders:?}");
    for f in &folders {
        assert!(f.join("run-1.etdp").is_file() && f.join("run-1.log").is_file());
        // YYYYMMDD-HHMMSS, maybe -2.
        let name = f.file_name().unwrap().to_str().unwrap();
        assert!(name.len() >= 15 && name.as_bytes()[8] == b'-', "{name}");
    }
}

#[test]
fn baseline_prints_the_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &[
            "--baseline",
            "fixtures/cpu/mlp_basic.etdp",
            "--warmup",
            "3",
            "--format",
            "json",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["schema"], "cpuprof.compare/1");
    // The same bytes on both sides: every matched row is `same`, with no change.
    let rows = doc["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for r in rows {
        assert_eq!(r["verdict"], "same", "{r}");
    }
}

/// Wait until `path` holds `needle`.
fn wait_for_file(path: &Path, needle: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if std::fs::read_to_string(path).is_ok_and(|t| t.contains(needle)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{} never said {needle:?}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn signals_to_cpuprof_tui_reach_the_runner() {
    for (sig, name) in [
        (libc::SIGTERM, "TERM"),
        (libc::SIGINT, "INT"),
        (libc::SIGHUP, "HUP"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("got");
        let mut child = bin()
            .args(["run", "--no-tui", "--grace", "10", "--out"])
            .arg(dir.path())
            .args(["--", RUNNER, "--mode", "wait", "--record"])
            .arg(&record)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        wait_for_file(&dir.path().join("run-1.log"), "waiting for a signal");
        unsafe { libc::kill(child.id() as i32, sig) };
        let status = child.wait().unwrap();
        assert_eq!(
            std::fs::read_to_string(&record).unwrap().trim(),
            name,
            "SIG{name}"
        );
        // cpuprof-tui waited for the runner (it wrote its dump on the signal) and ends
        // as signals end it: 128 + signal.
        assert!(dir.path().join("run-1.etdp").is_file(), "SIG{name}");
        assert_eq!(status.code(), Some(128 + sig), "SIG{name}");
    }
}

/// #43: `run` and `report` on the same dump drop the same warm-up runs. Without
/// `--warmup`, the runner's log states `Running 3 warm-up and 20 timed iteration(s).`
/// (fixtures/cpu/mlp_basic.log, truth `warmup: 3`): `run` drops those 3, as `report`
/// does on the dump and log it left; it used to drop 0.
#[test]
fn without_warmup_run_drops_what_report_drops() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(dir.path(), &["--format", "json"], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let truth = json("cpu/mlp_basic.truth.json");
    assert_eq!(doc["runs"]["warmup_dropped"], truth["warmup"]);
    assert_eq!(doc["runs"]["kept"], 20);
    assert_eq!(method_samples(&doc), truth_samples());
    let out = dir.path().canonicalize().unwrap();
    let report = bin()
        .arg("report")
        .arg(out.join("run-1.etdp"))
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let rep: serde_json::Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(rep["runs"], doc["runs"]);
}
