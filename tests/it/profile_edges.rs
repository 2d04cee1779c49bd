//! Pipeline edge cases on small hand-built dumps, with hand-computed expectations.

use crate::support::etdump_build;

use cpuprof_tui::etdump;
use cpuprof_tui::profile::{build_profile, ProfileSource};
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

fn profile_of(runs: &[BuiltRun]) -> cpuprof_tui::profile::Profile {
    let dump = etdump::parse(&build(0, runs)).unwrap();
    let source = ProfileSource {
        etdump: "t.etdp".into(),
        log: None,
    };
    build_profile(&dump, None, 0, source).unwrap()
}

#[test]
fn kernel_without_instruction_scope_is_not_counted_twice_in_the_remainder() {
    // Method 0..10_000 ns; a bare kernel at instruction 1 takes 3_000 ns (no OPERATOR_CALL).
    let p = profile_of(&[run(vec![
        profile("native_call_add.out", 1, 1_000, 4_000),
        method(0, 10_000),
    ])]);
    assert_eq!(p.other_operators.len(), 1);
    assert_eq!(p.other_operators[0].stats.samples, vec![0.003]);
    // 0.010 - 0.003 = 0.007 ms, not 0.010.
    let rest = p.remainder.unwrap().samples.ms(0);
    assert!((rest - 0.007).abs() < 1e-12, "{rest}");
}

#[test]
fn an_event_outside_every_step_goes_to_the_nearest_step_and_is_warned_about_once() {
    // A CPU delegate at instruction 0 with one step "X/s:a" (10..20 µs) holding three
    // operators. Run 0 also has an XNNPACK op 10 µs after the step (30..35 µs, beyond the
    // 1 µs quantum); run 1 does not (one lost event in five: the same method): 1 sample in
    // 2 runs, placed under the only (nearest) step of its call.
    let r = |odd: bool| {
        let mut ev = vec![
            delegate_op("Convolution (NHWC, F32) IGEMM #1", 0, 10_000, 12_000),
            delegate_op("Convolution (NHWC, F32) IGEMM #2", 0, 12_000, 15_000),
            delegate_op("Convolution (NHWC, F32) IGEMM #3", 0, 15_000, 19_000),
            delegate_op("X/s:a", 0, 10_000, 20_000),
        ];
        if odd {
            ev.push(delegate_op("Add (ND) #1", 0, 30_000, 35_000));
        }
        ev.extend([
            profile("DELEGATE_CALL", 0, 5_000, 40_000),
            method(0, 50_000),
        ]);
        run(ev)
    };
    let p = profile_of(&[r(true), r(false)]);
    let d = &p.delegates[0];
    assert!(d.unattributed.is_empty(), "{:?}", d.unattributed);
    assert_eq!(d.steps[0].operators.len(), 4);
    assert_eq!(d.steps[0].operators[3].name, "Add (ND) #1");
    assert_eq!(d.steps[0].operators[3].stats.samples, vec![0.005]);
    let warned: Vec<_> = p
        .warnings
        .iter()
        .filter(|w| w.event.as_deref() == Some("Add (ND) #1"))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", p.warnings);
    assert_eq!(warned[0].kind, "unexpected_sample_count");
    assert_eq!(
        p.warnings
            .iter()
            .filter(|w| w.kind == "outside_step")
            .count(),
        1
    );
}
