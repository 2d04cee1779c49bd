//! Dumps big enough (>= 100,000 events) for the build's two-thread paths: runs grouped
//! while every run is collected ahead (kept when the runs are one group, dropped when
//! they are not), and the stats of big series computed on two threads. Expected values
//! are worked by hand from the generator (`etdump_build::xnnpack_like`): every run has
//! the operators GEMM #1 = 38,000 ns, #2 = 6,000 ns, #3 = 1,000 ns, the delegate call
//! 45,495 ns and `Method::execute` 46,000 ns.

use crate::support::etdump_build;

use cpuprof_tui::profile::{build_profile, Profile, ProfileSource};

fn build(runs: &[etdump_build::BuiltRun]) -> Profile {
    let bytes = etdump_build::build(0, runs);
    let dump = cpuprof_tui::etdump::parse(&bytes).expect("generated dump parses");
    assert!(
        dump.events.len() >= 100_000,
        "too small for the threaded paths"
    );
    let source = ProfileSource {
        etdump: "big.etdp".into(),
        log: None,
    };
    build_profile(&dump, None, 2, source).expect("builds")
}

/// (name, median ms, sample count) of the operators of the one delegate of method `m`.
fn operators(p: &Profile, m: usize) -> Vec<(String, f64, usize)> {
    p.methods[m].delegates[0]
        .operators
        .iter()
        .map(|o| (o.name.clone(), o.stats.median(), o.stats.count))
        .collect()
}

#[test]
fn one_group_of_every_run() {
    let p = build(&etdump_build::xnnpack_like(25_000));
    assert_eq!(p.methods.len(), 1);
    // 25,000 runs, 2 dropped as warm-up.
    assert_eq!((p.runs.total, p.runs.kept), (25_000, 24_998));
    let ops = operators(&p, 0);
    assert_eq!(
        ops,
        vec![
            (
                "Fully Connected (NC, F32) GEMM #1".to_string(),
                0.038,
                24_998
            ),
            (
                "Fully Connected (NC, F32) GEMM #2".to_string(),
                0.006,
                24_998
            ),
            (
                "Fully Connected (NC, F32) GEMM #3".to_string(),
                0.001,
                24_998
            ),
        ]
    );
    let m = p.method.as_ref().expect("method stats");
    assert_eq!((m.count, m.median(), m.p99()), (24_998, 0.046, 0.046));
    assert_eq!(m.warmup_samples, vec![0.046, 0.046]);
    assert_eq!(p.delegates[0].call.median(), 0.045495);
    // Remainder: 46,000 - 45,495 ns of method time outside the delegate call.
    assert_eq!(p.remainder.as_ref().map(|r| r.count), Some(24_998));
    assert!((p.remainder.as_ref().expect("remainder").median() - 0.000505).abs() < 1e-12);
}

#[test]
fn a_second_group_in_the_middle_is_profiled_apart() {
    let mut runs = etdump_build::xnnpack_like(25_000);
    // Runs 10,000..12,000 (block 0 is the Default block) on bundled input 3: a second
    // group, though the first and last runs look alike (so runs were collected ahead
    // as one group, and that collection must be dropped).
    for run in &mut runs[10_001..12_001] {
        run.bundled_input_index = 3;
    }
    let p = build(&runs);
    assert_eq!(p.methods.len(), 2);
    assert_eq!(p.methods[0].runs.total, 23_000);
    assert_eq!(p.methods[1].runs.total, 2_000);
    assert_eq!(p.methods[1].bundled_input_index, Some(3));
    for (m, kept) in [(0, 22_998), (1, 1_998)] {
        assert_eq!(
            operators(&p, m),
            vec![
                ("Fully Connected (NC, F32) GEMM #1".to_string(), 0.038, kept),
                ("Fully Connected (NC, F32) GEMM #2".to_string(), 0.006, kept),
                ("Fully Connected (NC, F32) GEMM #3".to_string(), 0.001, kept),
            ]
        );
    }
    // The first method's runs are the blocks around the second's: no run indexes are
    // stored as every kept run has a sample.
    assert!(p.methods[0].delegates[0].call.runs.is_empty());
}
