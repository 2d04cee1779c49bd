//! `cpuprof-tui fleet --samples FILE`: the table of every kept sample, read back as CSV
//! and with the `parquet` crate, equals the samples of each profile's own
//! `report --format json` (read here independently: `stats.samples`, with the run of
//! sample i from `stats.runs[i]`, else `runs.warmup_dropped + i`), and the lines per row
//! equal the main long table's `count`. The file is refused when it is an input or `-o`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::support::fleet_files;
use fleet_files::{fx, ok_stdout, parse_csv, read_parquet, report_rows, run};

const FILES: [&str; 3] = [
    "compare/cnn2_a.etdp",
    "compare/cnn2_slow_b.etdp",
    "compare/wide_a.etdp",
];

/// (path, row_path) -> [(run, ms as JSON text)] from each file's own report.
fn expected(paths: &[String]) -> BTreeMap<(String, String), Vec<(u64, f64)>> {
    let mut want = BTreeMap::new();
    for path in paths {
        let report: Value = serde_json::from_str(&ok_stdout(&[
            "report", path, "--format", "json", "--warmup", "3",
        ]))
        .unwrap();
        let first = report["runs"]["warmup_dropped"].as_u64().unwrap();
        assert_eq!(first, 3);
        for (row, stats) in report_rows(&report) {
            let samples = stats["samples"].as_array().unwrap();
            let runs = stats.get("runs").and_then(Value::as_array);
            let list: Vec<(u64, f64)> = samples
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let run = runs.map_or(first + i as u64, |r| r[i].as_u64().unwrap());
                    (run, s.as_f64().unwrap())
                })
                .collect();
            assert_eq!(list.len() as u64, stats["count"].as_u64().unwrap());
            want.insert((path.clone(), row), list);
        }
    }
    want
}

/// The same map from a table's lines (cells as text; `ms` read by serde_json, as the
/// JSON's numbers were, from the shortest digits of the same f64).
fn got(
    header: &[String],
    lines: &[Vec<Option<String>>],
) -> BTreeMap<(String, String), Vec<(u64, f64)>> {
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .unwrap_or_else(|| panic!("{n}"))
    };
    let mut out: BTreeMap<(String, String), Vec<(u64, f64)>> = BTreeMap::new();
    for l in lines {
        let cell = |n: &str| l[col(n)].clone().unwrap_or_else(|| panic!("{n} is null"));
        out.entry((cell("path"), cell("row_path")))
            .or_default()
            .push((
                cell("run").parse().unwrap(),
                serde_json::from_str(&cell("ms")).unwrap(),
            ));
    }
    out
}

#[test]
fn samples_csv_and_parquet_equal_each_profiles_report_json() {
    let dir = tempfile::tempdir().unwrap();
    let mut paths: Vec<String> = FILES.iter().map(|f| fx(f).display().to_string()).collect();
    // A damaged dump among them: listed in the main table, no samples.
    let bad = fx("real/bad_truncated.etdp").display().to_string();
    let want = expected(&paths);
    paths.push(bad.clone());
    let total: usize = want.values().map(Vec::len).sum();
    let s_csv = dir.path().join("samples.csv");
    let s_pq = dir.path().join("samples.parquet");
    let long = dir.path().join("long.csv");
    for s in [&s_csv, &s_pq] {
        let mut args = vec!["fleet", "--format", "csv", "--warmup", "3", "-o"];
        args.push(long.to_str().unwrap());
        args.extend(["--samples", s.to_str().unwrap()]);
        args.extend(paths.iter().map(String::as_str));
        ok_stdout(&args);
    }
    let csv = parse_csv(&std::fs::read_to_string(&s_csv).unwrap());
    let header = csv[0].clone();
    let lead = ["profile_id", "path"];
    let tail = [
        "model",
        "row_path",
        "kind",
        "name",
        "instruction_id",
        "run",
        "ms",
    ];
    assert_eq!(&header[..2], lead);
    assert_eq!(&header[header.len() - 7..], tail);
    let lines: Vec<Vec<Option<String>>> = csv[1..]
        .iter()
        .map(|r| r.iter().map(|c| Some(c.clone())).collect())
        .collect();
    assert_eq!(lines.len(), total, "one line per kept sample");
    assert_eq!(
        got(&header, &lines),
        want,
        "CSV samples = report JSON samples"
    );
    let (names, rows) = read_parquet(&s_pq);
    assert_eq!(names, header, "Parquet has the CSV's columns");
    assert_eq!(rows.len(), total);
    assert_eq!(
        got(&names, &rows),
        want,
        "Parquet samples = report JSON samples"
    );
    // Lines per row = the main long table's count (and none for the damaged dump).
    let main = parse_csv(&std::fs::read_to_string(&long).unwrap());
    let c = |n: &str| main[0].iter().position(|h| h == n).unwrap();
    let mut counted = 0usize;
    for r in &main[1..] {
        if r[c("path")] == bad {
            assert!(!r[c("error")].is_empty());
            continue;
        }
        let n: usize = r[c("count")].parse().unwrap();
        counted += n;
        let key = (r[c("path")].clone(), r[c("row_path")].clone());
        assert_eq!(want[&key].len(), n, "{key:?}");
    }
    assert_eq!(counted, total, "sum of the long table's counts");
    let col = names.iter().position(|n| n == "path").unwrap();
    assert!(rows.iter().all(|r| r[col].as_deref() != Some(bad.as_str())));
}

#[test]
fn partitioned_samples_and_metadata_columns() {
    let dir = tempfile::tempdir().unwrap();
    let root = fx("fleet/devices");
    let key = "{device}/{commit}/run-{n}.etdp";
    let parts = dir.path().join("parts");
    let samples = dir.path().join("samples");
    let csv = dir.path().join("s.csv");
    ok_stdout(&[
        "fleet",
        root.to_str().unwrap(),
        "--key",
        key,
        "--format",
        "parquet",
        "--partition-by",
        "device",
        "-o",
        parts.to_str().unwrap(),
        "--samples",
        samples.to_str().unwrap(),
    ]);
    ok_stdout(&[
        "fleet",
        root.to_str().unwrap(),
        "--key",
        key,
        "--samples",
        csv.to_str().unwrap(),
    ]);
    let all = parse_csv(&std::fs::read_to_string(&csv).unwrap());
    let dev = all[0].iter().position(|h| h == "device").unwrap();
    for h in ["commit", "n", "mtime"] {
        assert!(all[0].iter().any(|c| c == h), "metadata column {h}");
    }
    let mut seen = 0;
    for d in 1..=12 {
        let name = format!("dev{d:02}");
        let (names, rows) = read_parquet(&samples.join(format!("device={name}/part-0.parquet")));
        assert!(
            !names.iter().any(|n| n == "device"),
            "the key is the folder"
        );
        let want = all[1..].iter().filter(|r| r[dev] == name).count();
        assert_eq!(rows.len(), want, "{name}");
        assert!(want > 0);
        seen += rows.len();
    }
    assert_eq!(seen, all.len() - 1, "every sample in some partition");
}

#[test]
fn samples_file_that_is_an_input_or_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dump = dir.path().join("a.etdp");
    std::fs::copy(fx("compare/cnn2_a.etdp"), &dump).unwrap();
    let log = dir.path().join("a.log");
    std::fs::copy(fx("compare/cnn2_a.log"), &log).unwrap();
    let before = std::fs::read(&dump).unwrap();
    let out = dir.path().join("o.csv");
    let d = dump.to_str().unwrap();
    for (args, says) in [
        (vec!["fleet", d, "--format", "csv", "--samples", d], "input"),
        (
            vec![
                "fleet",
                d,
                "--format",
                "csv",
                "--samples",
                log.to_str().unwrap(),
            ],
            "input",
        ),
        (
            vec![
                "fleet",
                d,
                "--format",
                "csv",
                "-o",
                out.to_str().unwrap(),
                "--samples",
                out.to_str().unwrap(),
            ],
            "same file",
        ),
        (vec!["fleet", d, "--samples", "x.txt"], ".csv or .parquet"),
        (
            vec!["fleet", d, "--format", "csv", "--samples", "-"],
            "standard output",
        ),
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&dump).unwrap(),
        before,
        "the input is untouched"
    );
    assert!(!out.exists());
}
