//! Attribution on constructed dumps (the ETDump builder of cpuprof-testkit): clock jitter,
//! stale plans, repeated delegate calls, missing kernel events, and runs of two methods.
//! Every expected value is written from the construction.

use crate::support::etdump_build;

use cpuprof_tui::etdump;
use cpuprof_tui::profile::{build_profile, Profile, ProfileSource};
use cpuprof_tui::runlog;
use etdump_build::{build, delegate_op, profile, BuiltEvent, BuiltRun};

fn method(start: u64, end: u64) -> BuiltEvent {
    let mut e = profile("Method::execute", 0, start, end);
    if let BuiltEvent::Profile(p) = &mut e {
        p.chain_index = -1;
    }
    e
}

fn run(events: Vec<BuiltEvent>) -> BuiltRun {
    BuiltRun {
        name: Some("Execute".into()),
        bundled_input_index: -1,
        events: Some(events),
    }
}

fn source() -> ProfileSource {
    ProfileSource {
        etdump: "t.etdp".into(),
        log: Some("t.log".into()),
    }
}

fn build_with(runs: &[BuiltRun], log: Option<&str>) -> Profile {
    let dump = etdump::parse(&build(0, runs)).unwrap();
    let log = log.map(|text| runlog::parse(text.as_bytes()));
    build_profile(&dump, log.as_ref(), 0, source()).unwrap()
}

/// The log lines of one plan (one chunk).
fn plan_log(regions: &[(&str, &str, &[&str])]) -> String {
    let regions: Vec<String> = regions
        .iter()
        .map(|(p, i, nodes)| {
            let nodes: Vec<String> = nodes.iter().map(|n| format!("{n:?}")).collect();
            format!(
                r#"{{"provider":"{p}","implementation":"{i}","nodes":[{}],"inputs":[],"outputs":[],"scratch_bytes":0}}"#,
                nodes.join(",")
            )
        })
        .collect();
    let json = format!(
        r#"{{"regions":[{}],"preparation_ms":1.0,"selection_context":{{"threads":1}},"candidates":[],"copied_constant_bytes":0}}"#,
        regions.join(",")
    );
    let hex: String = json.bytes().map(|b| format!("{b:02x}")).collect();
    format!("I 00:00:00.000100 executorch:CPUBackend.cpp:252] CPU_PLAN_CHUNK 0 1 {hex}\n")
}

#[test]
fn an_xnnpack_operator_ending_one_microsecond_after_its_step_is_attributed() {
    // Step XNNPACK/subgraph:conv (10..20 µs); its operator ends at 21 µs (1 µs late, one
    // XNNPACK clock quantum). Without tolerance it would be unattributed and the step
    // would get a false xnnpack_operator_events_missing error.
    let runs: Vec<BuiltRun> = (0..3u64)
        .map(|r| {
            let t = r * 100_000;
            run(vec![
                delegate_op(
                    "Convolution (NHWC, F32) IGEMM #1",
                    0,
                    t + 11_000,
                    t + 21_000,
                ),
                delegate_op("XNNPACK/subgraph:conv", 0, t + 10_000, t + 20_000),
                profile("DELEGATE_CALL", 0, t + 5_000, t + 30_000),
                method(t, t + 40_000),
            ])
        })
        .collect();
    let log = plan_log(&[("XNNPACK", "subgraph", &["conv"])]);
    let p = build_with(&runs, Some(&log));
    let d = &p.delegates[0];
    assert!(d.unattributed.is_empty(), "{:?}", d.unattributed);
    assert_eq!(d.steps.len(), 1);
    assert_eq!(d.steps[0].operators.len(), 1);
    assert_eq!(d.steps[0].operators[0].stats.samples, vec![0.010; 3]);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert!(!p.warnings.iter().any(|w| w.kind == "outside_step"));
}

#[test]
fn a_stale_plan_is_not_forced_onto_a_plain_xnnpack_delegate() {
    // The log holds a CpuBackend plan; the dump has only a plain XNNPACK delegate (operator
    // events, no step events). The plan explains nothing here: no step_missing error,
    // operators stay directly under the delegate, and the plan is reported unmatched.
    let runs: Vec<BuiltRun> = (0..2u64)
        .map(|r| {
            let t = r * 100_000;
            run(vec![
                delegate_op(
                    "Fully Connected (NC, F32) GEMM #1",
                    0,
                    t + 10_000,
                    t + 15_000,
                ),
                delegate_op(
                    "Fully Connected (NC, F32) GEMM #2",
                    0,
                    t + 15_000,
                    t + 17_000,
                ),
                profile("DELEGATE_CALL", 0, t + 5_000, t + 20_000),
                method(t, t + 30_000),
            ])
        })
        .collect();
    let log = plan_log(&[("XNNPACK", "subgraph", &["linear", "linear_1"])]);
    let p = build_with(&runs, Some(&log));
    let d = &p.delegates[0];
    assert_eq!(d.kind, cpuprof_tui::profile::DelegateKind::Xnnpack);
    assert!(d.plan.is_none());
    assert!(d.steps.is_empty() && d.unattributed.is_empty());
    let names: Vec<&str> = d.operators.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Fully Connected (NC, F32) GEMM #1",
            "Fully Connected (NC, F32) GEMM #2"
        ]
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert!(p.warnings.iter().any(|w| w.kind == "plan_unmatched"));
}

#[test]
fn a_delegate_called_twice_in_a_run_adds_samples_to_the_same_steps() {
    // Each run calls the delegate twice (a loop in the method): call A at 0..50 µs, call B
    // at 100..150 µs. Plan: one XNNPACK step (conv, with one operator) and one ET step
    // (neg, with its kernel). Call A's step conv takes 20 µs, call B's 30 µs.
    let runs: Vec<BuiltRun> = (0..2u64)
        .map(|r| {
            let t = r * 1_000_000;
            let mut ev = Vec::new();
            for (c, conv) in [(0u64, 20_000u64), (100_000, 30_000)] {
                let s = t + c;
                ev.extend([
                    delegate_op(
                        "Convolution (NHWC, F32) IGEMM #1",
                        0,
                        s + 1_000,
                        s + 1_000 + conv,
                    ),
                    delegate_op("XNNPACK/subgraph:conv", 0, s + 1_000, s + 1_000 + conv),
                    profile("native_call_neg.out", 0, s + 40_000, s + 42_000),
                    delegate_op("ET/registry:neg", 0, s + 39_000, s + 43_000),
                    profile("DELEGATE_CALL", 0, s, s + 50_000),
                ]);
            }
            ev.push(method(t, t + 200_000));
            run(ev)
        })
        .collect();
    let log = plan_log(&[
        ("XNNPACK", "subgraph", &["conv"]),
        ("ET", "registry", &["neg"]),
    ]);
    let p = build_with(&runs, Some(&log));
    let d = &p.delegates[0];
    assert!(d.unattributed.is_empty(), "{:?}", d.unattributed);
    assert_eq!(d.call.count, 4);
    let conv = &d.steps[0];
    assert_eq!(conv.name, "XNNPACK/subgraph:conv");
    assert_eq!(conv.stats.samples, vec![0.020, 0.030, 0.020, 0.030]);
    assert_eq!(
        conv.operators[0].stats.samples,
        vec![0.020, 0.030, 0.020, 0.030]
    );
    let neg = &d.steps[1];
    assert_eq!(neg.stats.samples, vec![0.004; 4]);
    assert_eq!(neg.operators[0].name, "native_call_neg.out");
    assert_eq!(neg.operators[0].stats.count, 4);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    assert!(
        !p.warnings
            .iter()
            .any(|w| w.kind == "unexpected_sample_count"),
        "{:?}",
        p.warnings
    );
    assert!(p
        .warnings
        .iter()
        .any(|w| w.kind == "repeated_delegate_calls"));
}

#[test]
fn a_missing_first_kernel_event_moves_nothing_else() {
    // One delegate, two ET/registry steps (add at 10..20 µs, add_1 at 30..40 µs), each
    // running one `native_call_add.out` kernel: 5 µs in the first step, 7 µs in the
    // second. In run 1 the first step's kernel event is missing. By occurrence in the run,
    // run 1's only kernel event (7 µs) would land on the first step's row; by containing
    // step it stays in the second.
    let runs: Vec<BuiltRun> = (0..3u64)
        .map(|r| {
            let t = r * 100_000;
            let mut ev = Vec::new();
            if r != 1 {
                ev.push(profile("native_call_add.out", 0, t + 11_000, t + 16_000));
            }
            ev.extend([
                delegate_op("ET/registry:add", 0, t + 10_000, t + 20_000),
                profile("native_call_add.out", 0, t + 31_000, t + 38_000),
                delegate_op("ET/registry:add_1", 0, t + 30_000, t + 40_000),
                profile("DELEGATE_CALL", 0, t + 5_000, t + 45_000),
                method(t, t + 50_000),
            ]);
            run(ev)
        })
        .collect();
    let p = build_with(&runs, None);
    let d = &p.delegates[0];
    assert!(d.unattributed.is_empty());
    assert_eq!(d.steps[0].operators[0].stats.samples, vec![0.005, 0.005]);
    assert_eq!(d.steps[0].operators[0].stats.runs, vec![0, 2]);
    assert_eq!(d.steps[1].operators[0].stats.samples, vec![0.007; 3]);
    // One warning: the first step's kernel has 2 samples in 3 runs.
    let counts: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| w.kind == "unexpected_sample_count")
        .collect();
    assert_eq!(counts.len(), 1, "{:?}", p.warnings);
}

#[test]
fn a_step_event_missing_in_one_run_keeps_its_operators_rows() {
    // A plain two-step delegate; in run 2 the event of step b is missing. Its operator
    // (Add #1, 3 µs) still belongs to the same row (same order among Add #1 events),
    // not to a new row under the nearest step.
    let runs: Vec<BuiltRun> = (0..4u64)
        .map(|r| {
            let t = r * 100_000;
            let mut ev = vec![
                delegate_op(
                    "Convolution (NHWC, F32) IGEMM #1",
                    0,
                    t + 10_000,
                    t + 18_000,
                ),
                delegate_op("XNNPACK/subgraph:a", 0, t + 10_000, t + 20_000),
                delegate_op("Add (ND) #1", 0, t + 30_000, t + 33_000),
            ];
            if r != 2 {
                ev.push(delegate_op("XNNPACK/subgraph:b", 0, t + 30_000, t + 34_000));
            }
            ev.extend([
                profile("DELEGATE_CALL", 0, t + 5_000, t + 40_000),
                method(t, t + 50_000),
            ]);
            run(ev)
        })
        .collect();
    let p = build_with(&runs, None);
    assert_eq!(
        p.methods.len(),
        1,
        "a lost step event is not another method"
    );
    let d = &p.delegates[0];
    assert!(d.unattributed.is_empty());
    assert_eq!(d.steps.len(), 2);
    assert_eq!(d.steps[1].stats.count, 3);
    assert_eq!(d.steps[1].operators.len(), 1);
    assert_eq!(d.steps[1].operators[0].stats.samples, vec![0.003; 4]);
}

#[test]
fn runs_on_two_bundled_inputs_are_two_profiles() {
    // One method run alternately on bundled input 0 (small: delegate 10 µs) and bundled
    // input 1 (large: 90 µs), 3 runs each. Pooled, the median would be 50 µs, which no run
    // has; kept apart, the medians are 10 and 90 µs.
    let runs: Vec<BuiltRun> = (0..6u64)
        .map(|r| {
            let t = r * 1_000_000;
            let d = if r % 2 == 0 { 10_000 } else { 90_000 };
            BuiltRun {
                name: Some("Execute".into()),
                bundled_input_index: (r % 2) as i32,
                events: Some(vec![
                    delegate_op(
                        "Fully Connected (NC, F32) GEMM #1",
                        0,
                        t + 1_000,
                        t + 1_000 + d,
                    ),
                    profile("DELEGATE_CALL", 0, t + 500, t + 1_500 + d),
                    method(t, t + 2_000 + d),
                ]),
            }
        })
        .collect();
    let p = build_with(&runs, None);
    assert_eq!(p.methods.len(), 2);
    let m: Vec<(&str, Option<i32>, usize, f64)> = p
        .methods
        .iter()
        .map(|m| {
            (
                m.name.as_str(),
                m.bundled_input_index,
                m.runs.total,
                m.delegates[0].operators[0].stats.median(),
            )
        })
        .collect();
    assert_eq!(
        m,
        [
            ("method 1", Some(0), 3, 0.010),
            ("method 2", Some(1), 3, 0.090)
        ]
    );
    assert!(p.warnings.iter().any(|w| w.kind == "several_methods"));
}

#[test]
fn methods_are_named_by_the_log_when_it_says_them() {
    // Two signatures (one has a portable kernel after the delegate), and a log naming the
    // methods in the order they were used.
    let runs: Vec<BuiltRun> = (0..4u64)
        .map(|r| {
            let t = r * 1_000_000;
            let mut ev = vec![
                delegate_op("Fully Connected (NC, F32) GEMM #1", 0, t + 1_000, t + 5_000),
                profile("DELEGATE_CALL", 0, t + 500, t + 6_000),
            ];
            if r % 2 == 1 {
                ev.push(profile("native_call_cumsum.out", 1, t + 7_000, t + 8_000));
                ev.push(profile("OPERATOR_CALL", 1, t + 6_500, t + 8_500));
            }
            ev.push(method(t, t + 9_000));
            run(ev)
        })
        .collect();
    let log = "I 00:00:00.000270 executorch:runner.cpp:158] Using method encode\n\
               I 00:00:00.000300 executorch:runner.cpp:158] Using method decode\n";
    let p = build_with(&runs, Some(log));
    let names: Vec<&str> = p.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["encode", "decode"]);
    assert_eq!(p.methods[1].other_operators.len(), 1);
}

#[test]
fn resolution_other_than_xnnpack_is_the_dumps_own() {
    // Non-XNNPACK durations 40_000, 25_000 and 1_500 ns: all multiples of 100 ns, not of
    // 1 µs, so the dump's resolution is taken as 100 ns = 0.0001 ms. XNNPACK operators
    // are always 1 µs.
    let runs = vec![run(vec![
        delegate_op("Fully Connected (NC, F32) GEMM #1", 0, 6_000, 6_000),
        profile("DELEGATE_CALL", 0, 5_000, 30_000),
        profile("native_call_add.out", 1, 31_000, 32_500),
        method(0, 40_000),
    ])];
    let p = build_with(&runs, None);
    let r = p.resolution.unwrap();
    assert_eq!(r.xnnpack_operator_ms, 0.001);
    assert!((r.other_ms - 0.0001).abs() < 1e-15, "{}", r.other_ms);
    // The 0 ns GEMM is under 1 µs: counted once.
    assert_eq!(r.operators_below_resolution, 1);
}

#[test]
fn a_method_with_one_operator_less_is_another_method() {
    // Method A: one XNNPACK delegate with GEMM #1 and GEMM #2; method B: the same
    // delegate position with GEMM #1 only, run fewer times. B's signature is A's minus one
    // of two delegate events: another method (as the Inspector says), not a lost event.
    let runs: Vec<BuiltRun> = (0..5u64)
        .map(|r| {
            let t = r * 1_000_000;
            let mut ev = vec![delegate_op(
                "Fully Connected (NC, F32) GEMM #1",
                0,
                t + 1_000,
                t + 4_000,
            )];
            if r != 2 {
                ev.push(delegate_op(
                    "Fully Connected (NC, F32) GEMM #2",
                    0,
                    t + 4_000,
                    t + 6_000,
                ));
            }
            ev.extend([
                profile("DELEGATE_CALL", 0, t + 500, t + 7_000),
                method(t, t + 8_000),
            ]);
            run(ev)
        })
        .collect();
    let p = build_with(&runs, None);
    let totals: Vec<usize> = p.methods.iter().map(|m| m.runs.total).collect();
    assert_eq!(totals, [4, 1]);
}

#[test]
fn an_operator_ending_where_the_next_step_starts_stays_in_its_own_step() {
    // Steps a (10..20 µs) and b (20..30 µs) laid end to end. Operator X (19..20 µs) lies
    // exactly inside a; b starts within 1 µs of X's start, but exact containment wins.
    // Operator Y (20..31 µs) ends 1 µs after b: within the quantum, in b.
    let runs: Vec<BuiltRun> = (0..2u64)
        .map(|r| {
            let t = r * 100_000;
            run(vec![
                delegate_op(
                    "Convolution (NHWC, F32) IGEMM #1",
                    0,
                    t + 10_000,
                    t + 19_000,
                ),
                delegate_op("Static Reshape (NC) #1", 0, t + 19_000, t + 20_000),
                delegate_op("XNNPACK/subgraph:a", 0, t + 10_000, t + 20_000),
                delegate_op("Add (ND) #1", 0, t + 20_000, t + 31_000),
                delegate_op("XNNPACK/subgraph:b", 0, t + 20_000, t + 30_000),
                profile("DELEGATE_CALL", 0, t + 5_000, t + 35_000),
                method(t, t + 40_000),
            ])
        })
        .collect();
    let p = build_with(&runs, None);
    let d = &p.delegates[0];
    let names = |i: usize| -> Vec<&str> {
        d.steps[i]
            .operators
            .iter()
            .map(|o| o.name.as_str())
            .collect()
    };
    assert_eq!(
        names(0),
        ["Convolution (NHWC, F32) IGEMM #1", "Static Reshape (NC) #1"]
    );
    assert_eq!(names(1), ["Add (ND) #1"]);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
}
