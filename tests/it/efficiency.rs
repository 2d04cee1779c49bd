//! Efficiency from shapes and the answer line, against values computed independently:
//! FLOPs and bytes by `scripts/efficiency-reference.py` from the truth files' shapes
//! (`fixtures/cpu/efficiency.expected.json`), shares worked by hand from the truth
//! files' medians, roofline marks on chosen peaks.

use crate::common;

use std::collections::HashMap;

use common::{fixture, json, path, report, TRUTH_CASES};
use cpuprof_tui::profile::{Profile, ProfileRequest};

/// A case loaded with its log and the warm-up its truth file states.
fn load_case(case: &str) -> Profile {
    let truth = json(&format!("{case}.truth.json"));
    let warmup = truth["warmup"].as_u64().unwrap() as usize;
    let request = ProfileRequest::new(
        fixture(&format!("{case}.etdp")),
        Some(fixture(&format!("{case}.log"))),
        warmup,
    );
    cpuprof_tui::profile::load_profile(&request, &mut |_| {}, &Default::default())
        .unwrap_or_else(|e| panic!("{case}: {e}"))
}

/// (delegate instruction id, operator name) and (FLOPs, bytes).
type Key<'a> = (i64, &'a str);
type Figures = (Option<u64>, Option<u64>);

/// Every operator of every CpuBackend case has the FLOPs and bytes the reference script
/// computed from the truth shapes (null where it has none).
#[test]
fn flops_and_bytes_equal_the_reference_script() {
    let expected = json("cpu/efficiency.expected.json");
    let mut with_flops = 0;
    for case in TRUTH_CASES {
        let name = case.rsplit('/').next().unwrap();
        let rows = expected[name]
            .as_array()
            .unwrap_or_else(|| panic!("{name}"));
        let want: HashMap<Key, Figures> = rows
            .iter()
            .map(|r| {
                (
                    (
                        r["instruction_id"].as_i64().unwrap(),
                        r["event"].as_str().unwrap(),
                    ),
                    (r["flops"].as_u64(), r["bytes"].as_u64()),
                )
            })
            .collect();
        let p = load_case(case);
        let mut seen = 0;
        for d in &p.delegates {
            let ops = d
                .steps
                .iter()
                .flat_map(|s| &s.operators)
                .chain(&d.operators);
            for op in ops {
                let got = (op.flops, op.bytes);
                let w = want
                    .get(&(d.instruction_id as i64, op.name.as_str()))
                    .unwrap_or_else(|| panic!("{case}: {} not in the reference", op.name));
                assert_eq!(
                    got, *w,
                    "{case}: delegate #{} {}",
                    d.instruction_id, op.name
                );
                seen += 1;
                with_flops += usize::from(op.flops.is_some());
            }
        }
        // Every operator of the truth (dropped events are not in it) is in the profile.
        assert_eq!(seen, rows.len(), "{case}");
    }
    assert!(with_flops > 100, "only {with_flops} operators with FLOPs");
}

/// `profile.json` carries `flops` and `bytes` on every operator: numbers from the
/// shapes, null for a kernel (no shapes recorded).
#[test]
fn profile_json_has_flops_and_bytes_per_operator() {
    let p = load_case("cpu/cnn2_basic");
    let v: serde_json::Value =
        serde_json::from_str(&cpuprof_tui::report::profile_json(&p)).unwrap();
    let step0 = &v["delegates"][0]["steps"][0]["operators"];
    // Reference: IGEMM #1 777600 FLOPs, 71616 bytes (by hand in src/profile/efficiency.rs).
    assert_eq!(step0[1]["name"], "Convolution (NHWC, F32) IGEMM #1");
    assert_eq!(step0[1]["flops"], 777_600);
    assert_eq!(step0[1]["bytes"], 71_616);
    let neg = &v["delegates"][0]["steps"][1]["operators"][0];
    assert_eq!(neg["name"], "native_call_neg.out");
    assert!(neg["flops"].is_null() && neg["bytes"].is_null(), "{neg}");
    assert!(neg.as_object().unwrap().contains_key("flops"));
}

/// CSV: `GFLOP/s` = flops / median, `GB/s` = bytes / median, `%peak` and `bound` with
/// `--peak`. IGEMM #2 of cnn2_basic: 4147200 FLOPs in its truth median 94 µs = 44.12
/// GFLOP/s; its 124480 bytes: 1.324 GB/s; intensity 33.3 FLOP/byte.
/// At --peak 100,20 (ridge 5): compute-bound, 44.12% of 100.
/// At --peak 1000,10 (ridge 100): memory-bound, attainable 33.3 × 10 = 333.2 GFLOP/s,
/// 13.24% of it (= 1.324 / 10).
#[test]
fn csv_rates_and_roofline() {
    for (peak, bound, pct) in [("100,20", "compute", 44.119), ("1000,10", "memory", 13.243)] {
        let o = report(&[
            &path("cpu/cnn2_basic.etdp"),
            "--warmup",
            "3",
            "--format",
            "csv",
            "--peak",
            peak,
        ]);
        assert_eq!(o.status.code(), Some(0));
        let text = String::from_utf8(o.stdout).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with("operator,0,") && l.contains("IGEMM #2\""))
            .expect("IGEMM #2 of delegate #0");
        // Quoted cells (names, shapes) hold commas: split with the quotes in mind.
        let cells = split_csv(row);
        assert_eq!(cells[col("flops")], "4147200");
        assert_eq!(cells[col("bytes")], "124480");
        let num = |c: &str| cells[col(c)].parse::<f64>().unwrap();
        assert!((num("GFLOP/s") - 44.119_148_936).abs() < 1e-6, "{row}");
        assert!((num("GB/s") - 1.324_255_319).abs() < 1e-6, "{row}");
        assert!((num("%peak") - pct).abs() < 1e-3, "{row}");
        assert_eq!(cells[col("bound")], bound);
    }
}

/// The table's row of the same operator, with the same peaks (by hand above): 44.1
/// GFLOP/s, 1.32 GB/s, 44% of peak, compute-bound; the per-call figures under it.
#[test]
fn table_rates_and_roofline() {
    let o = report(&[
        &path("cpu/cnn2_basic.etdp"),
        "--warmup",
        "3",
        "--peak",
        "100,20",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("  %peak bound\n"), "{text}");
    let mut lines = text.lines().skip_while(|l| !l.contains("IGEMM #2"));
    let row = lines.next().expect("IGEMM #2 row");
    let cells: Vec<&str> = row.split_whitespace().rev().take(4).collect();
    assert_eq!(cells, ["compute", "44%", "1.32", "44.1"], "{row}");
    assert!(lines.next().unwrap().ends_with("· 4.1 MFLOP · 124.5 kB"));
}

fn split_csv(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    cells
}

/// The answer line opens the table, worked by hand from the truth medians:
/// wide_browse (Method::execute 1.113487 ms): 21 GEMMs 0.644 ms = 57.84%, 9 DWConvs
/// 0.2575 ms = 23.13%, one IGEMM 0.049 ms = 4.40%; other 100 − 85.36 = 14.64%.
#[test]
fn the_table_opens_with_the_answer_line() {
    let o = report(&[&path("cpu/wide_browse.etdp"), "--warmup", "5"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        text.lines().next().unwrap(),
        "GEMM 58% (21) · DWConv 23% (9) · IGEMM 4% · other 15%"
    );
    // The efficiency columns, and per-call figures under the shapes.
    assert!(text.contains("GFLOP/s"), "{text}");
    assert!(
        text.contains("[1,3,64,64] [16,3,3,3] [16] -> [1,16,32,32] · "),
        "{text}"
    );
}

/// Scope and filter, by hand from cnn2_basic's truth:
/// - delegate #2 (call median 0.052579 ms): IGEMM 0.042 = 79.88%, Mean 0.003 = 5.71%,
///   Transpose 0.002 = 3.80%; other 10.61%.
/// - filter `igemm` (Method::execute 0.23562 ms): 4 IGEMMs 0.187 ms = 79.37%; other
///   20.63%.
/// - unscoped: IGEMM 79.37% (4), Transpose 0.0095 = 4.03% (5), pixel_shuffle (a
///   non-delegated kernel) 0.0076285 = 3.24%; other 13.36%.
#[test]
fn answer_follows_scope_and_filter() {
    let p = load_case("cpu/cnn2_basic");
    let tree = cpuprof_tui::rows::RowTree::from_profile(&p);
    let answer = |scope, filter| {
        cpuprof_tui::summary::dump_answer(&tree, tree.roots[0], scope, filter, 3).unwrap()
    };
    let a = answer(Some(2), "");
    assert_eq!(
        a.to_string(),
        "IGEMM 80% · Mean 6% · Transpose 4% · other 11%"
    );
    assert_eq!(a.over, "delegate #2");
    assert!((a.items[0].share - 0.042 / 0.052579).abs() < 1e-9);
    let a = answer(None, "IGEMM");
    assert_eq!(a.to_string(), "IGEMM 79% (4) · other 21%");
    let a = answer(None, "");
    assert_eq!(
        a.to_string(),
        "IGEMM 79% (4) · Transpose 4% (5) · pixel_shuffle 3% · other 13%"
    );
    assert_eq!(a.over, "Method::execute");
}

/// The trace table opens with the top self-time ops; the tally stays as it was.
#[test]
fn trace_table_opens_with_top_self_time_ops() {
    let file = path("torch/cnn_infer.json");
    let table = String::from_utf8(report(&[&file, "--format", "table"]).stdout).unwrap();
    let tally = String::from_utf8(report(&[&file, "--format", "tally"]).stdout).unwrap();
    let (first, rest) = table.split_once('\n').unwrap();
    assert_eq!(rest, tally);
    // The top op by self time in PyTorch's own key_averages.
    let key_averages = json("torch/cnn_infer.key_averages.json");
    let top = key_averages
        .as_array()
        .or_else(|| key_averages["ops"].as_array())
        .unwrap()
        .iter()
        .max_by_key(|r| r["self_cpu_time_total_us"].as_f64().unwrap_or(0.0) as i64)
        .unwrap();
    let top = top["name"].as_str().unwrap();
    assert!(
        first.starts_with(&format!("{top} ")),
        "{first} (top: {top})"
    );
}

#[test]
fn peak_is_validated_with_one_usage_line() {
    for bad in ["100", "0,20", "100,-5", "inf,10", "x,y"] {
        let o = report(&[&path("cpu/mlp_basic.etdp"), "--peak", bad]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        let err = String::from_utf8(o.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("--peak"), "{err}");
    }
}
