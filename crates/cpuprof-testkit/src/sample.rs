//! Hand-built profiles for tests and benches (no pipeline needed). Values are chosen so
//! that expected numbers can be worked out by hand. (`--demo` opens the bundled dump,
//! `assets/demo/`, not these.)

use cpuprof_core::profile::{
    Delegate, DelegateKind, EventStats, Finding, OperatorKind, OperatorStats, OtherOperator,
    PlanStep, Profile, ProfileSource, RunCounts, Stats, PROFILE_SCHEMA,
};
use cpuprof_core::runlog::{CpuPlan, LogLines};

/// Stats over kept `samples` (ms, whole ns) after `warmup` dropped samples, runs
/// numbered from 0.
pub fn stats(samples: &[f64], warmup: &[f64]) -> Stats {
    let w = warmup.len();
    let ns = |ms: &[f64]| {
        ms.iter()
            .map(|&v| cpuprof_core::stats::ms_to_ns(v))
            .collect()
    };
    Stats::from_ns(ns(samples))
        .with_runs((w..w + samples.len()).collect())
        .with_warmup(ns(warmup))
}

/// `base` scaled per run: the same run-to-run shape for every event.
fn runs(base: f64) -> (Vec<f64>, Vec<f64>) {
    const KEPT: [f64; 6] = [1.0, 1.2, 1.1, 0.9, 1.05, 1.15];
    const WARM: [f64; 2] = [2.0, 1.5];
    (
        KEPT.iter().map(|k| round(base * k)).collect(),
        WARM.iter().map(|k| round(base * k)).collect(),
    )
}

fn round(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}

fn st(base: f64) -> Stats {
    let (k, w) = runs(base);
    stats(&k, &w)
}

fn op(name: &str, kind: OperatorKind, base: f64, parent: f64, shapes: bool) -> OperatorStats {
    let input_shapes = shapes.then(|| vec![vec![1, 8, 16, 16], vec![8, 3, 3, 8]]);
    let output_shapes = shapes.then(|| vec![vec![1, 8, 16, 16]]);
    // As `build_profile` fills them.
    let cost = cpuprof_core::profile::efficiency::operator_cost(
        name,
        input_shapes.as_deref(),
        output_shapes.as_deref(),
    );
    OperatorStats {
        name: name.to_string(),
        kind,
        stats: st(base),
        share: base / parent,
        input_shapes,
        output_shapes,
        flops: cost.flops,
        bytes: cost.bytes,
        source: None,
    }
}

/// A small CpuBackend profile: 8 runs (2 warm-up), a planned delegate #1 with two steps,
/// a plain XNNPACK delegate #4, one non-delegated operator, one warning.
///
/// Operator names (7): `Convolution (NHWC, F32) IGEMM #1` (0.20 ms),
/// `Clamp (NC, F32) #1` (0.05), `Convolution (NHWC, F32) IGEMM #2` (0.22),
/// `native_call_cumsum.out` (0.10), `Fully Connected (NC, F32) GEMM #1` (0.15),
/// `Add (ND, F32) #1` (0.01), `native_call_mean.dtype_out` (0.03). Medians are base
/// times 1.075 (the median of the run factors 0.9 1.0 1.05 1.1 1.15 1.2).
pub fn profile() -> Profile {
    let plan: CpuPlan = serde_json::from_value(serde_json::json!({
        "regions": [
            {"provider": "XNNPACK", "implementation": "subgraph",
             "nodes": ["conv2d", "relu", "conv2d_1"]},
            {"provider": "ET", "implementation": "registry", "nodes": ["cumsum"]}
        ],
        "policy": "explicit_preference",
        "selection_context": {"threads": 4}
    }))
    .expect("static plan JSON");
    let step1 = PlanStep {
        name: "XNNPACK/subgraph:conv2d+2".into(),
        provider: "XNNPACK".into(),
        implementation: "subgraph".into(),
        nodes: vec!["conv2d".into(), "relu".into(), "conv2d_1".into()],
        node_count: 3,
        stats: st(0.5),
        share: 0.5 / 0.65,
        operators: vec![
            op(
                "Convolution (NHWC, F32) IGEMM #1",
                OperatorKind::Xnnpack,
                0.2,
                0.5,
                true,
            ),
            op("Clamp (NC, F32) #1", OperatorKind::Xnnpack, 0.05, 0.5, true),
            op(
                "Convolution (NHWC, F32) IGEMM #2",
                OperatorKind::Xnnpack,
                0.22,
                0.5,
                true,
            ),
        ],
    };
    let step2 = PlanStep {
        name: "ET/registry:cumsum".into(),
        provider: "ET".into(),
        implementation: "registry".into(),
        nodes: vec!["cumsum".into()],
        node_count: 1,
        stats: st(0.1),
        share: 0.1 / 0.65,
        operators: vec![op(
            "native_call_cumsum.out",
            OperatorKind::Kernel,
            0.1,
            0.1,
            false,
        )],
    };
    Profile {
        schema: PROFILE_SCHEMA.into(),
        unit: "ms".into(),
        source: ProfileSource {
            etdump: "sample.etdp".into(),
            log: Some("sample.log".into()),
        },
        runs: RunCounts {
            total: 8,
            warmup_dropped: 2,
            kept: 6,
        },
        method: Some(st(1.0)),
        delegates: vec![
            Delegate {
                instruction_id: 1,
                kind: DelegateKind::CpuPlan,
                call: st(0.65),
                plan: Some(std::sync::Arc::new(plan)),
                plan_sequence: Some(0),
                steps: vec![step1, step2],
                operators: Vec::new(),
                unattributed: Vec::new(),
                source: None,
            },
            Delegate {
                instruction_id: 4,
                kind: DelegateKind::Xnnpack,
                call: st(0.2),
                plan: None,
                plan_sequence: None,
                steps: Vec::new(),
                operators: vec![
                    op(
                        "Fully Connected (NC, F32) GEMM #1",
                        OperatorKind::Xnnpack,
                        0.15,
                        0.2,
                        true,
                    ),
                    op("Add (ND, F32) #1", OperatorKind::Xnnpack, 0.01, 0.2, true),
                ],
                unattributed: Vec::new(),
                source: None,
            },
        ],
        other_operators: vec![OtherOperator {
            instruction_id: 2,
            name: "aten::mean".into(),
            stats: st(0.04),
            kernels: vec![EventStats {
                name: "native_call_mean.dtype_out".into(),
                stats: st(0.03),
                source: None,
            }],
            source: None,
        }],
        remainder: Some(st(0.11)),
        load: None,
        warnings: vec![Finding::new(
            "xnnpack_ops_missing",
            "delegate #4 has no plan; operators shown directly under the call",
        )],
        errors: Vec::new(),
        log_lines: LogLines::from_lines([
            "I 00:00:00.001000 executorch:runner.cpp:10] Loading model",
            "I 00:00:00.002000 executorch:cpu_backend.cpp:88] CPU_PLAN_CHUNK 0/1 7b7d",
            "I 00:00:00.090000 executorch:runner.cpp:40] Done",
        ]),
        methods: Vec::new(),
        resolution: None,
        cold_runs: None,
        modules: Vec::new(),
        loads: Vec::new(),
        warmup_rule: None,
        dump: None,
        model_files: None,
    }
}

/// The sample profile with one error finding added.
pub fn profile_with_error() -> Profile {
    let mut p = profile();
    p.errors.push(Finding::new(
        "step_missing",
        "plan step ET/registry:cumsum has no ETDump event in run 3",
    ));
    p
}

/// A profile of `n` operator rows spread over 4 delegates (for benches).
pub fn big(n: usize) -> Profile {
    let mut p = profile();
    p.delegates.truncate(1);
    let template = p.delegates[0].clone();
    p.other_operators.clear();
    p.delegates.clear();
    let per = n.div_ceil(4).max(1);
    let mut made = 0;
    for d in 0..4i32 {
        let mut del = template.clone();
        del.instruction_id = d * 2 + 1;
        del.steps.truncate(1);
        let step = &mut del.steps[0];
        step.operators.clear();
        while step.operators.len() < per && made < n {
            let base = 0.001 + (made % 997) as f64 * 0.0005;
            step.operators.push(op(
                &format!("Convolution (NHWC, F32) IGEMM #{}", made + 1),
                OperatorKind::Xnnpack,
                base,
                0.5,
                true,
            ));
            made += 1;
        }
        p.delegates.push(del);
    }
    p
}
