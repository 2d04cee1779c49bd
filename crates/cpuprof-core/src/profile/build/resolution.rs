//! The clock resolution of a dump: the step every non-XNNPACK duration is a multiple of
//! (`ResolutionStep`, fed events as they come) and the `Resolution` a profile reports.

use super::super::model::*;
use crate::etdump::ProfileEvent;

/// The largest of 1 ns, 10 ns, 100 ns, 1 µs that every duration of events other than
/// XNNPACK operators is a multiple of, fed events in any order.
pub(crate) struct ResolutionStep {
    step: u64,
    /// Whether a delegate id names an XNNPACK operator, decided once per distinct name.
    is_operator: Vec<Option<bool>>,
}

impl Default for ResolutionStep {
    fn default() -> Self {
        ResolutionStep {
            step: 1_000,
            is_operator: Vec::new(),
        }
    }
}

impl ResolutionStep {
    pub fn events(&mut self, names: &crate::etdump::NameTable, events: &[ProfileEvent]) {
        if self.is_operator.len() < names.len() {
            self.is_operator.resize(names.len(), None);
        }
        let step = &mut self.step;
        for ev in events {
            if *step == 1 {
                break;
            }
            let xnnpack = match ev.delegate_id {
                Some(crate::etdump::DelegateId::Str(id)) => *self
                    .is_operator
                    .get_mut(id.0 as usize)
                    .map(|c| {
                        c.get_or_insert_with(|| {
                            super::super::classify::parse_operator_name(names.get(id)).is_some()
                        })
                    })
                    .unwrap_or(&mut false),
                _ => false,
            };
            if xnnpack {
                continue;
            }
            let d = ev.end_ticks.wrapping_sub(ev.start_ticks);
            while *step > 1 && d % *step != 0 {
                *step /= 10;
            }
        }
    }

    pub fn step(&self) -> u64 {
        self.step
    }
}

/// The resolution assumed: XNNPACK operators 1 µs; other events the dump's own (`step`
/// ns, see [`ResolutionStep`]).
pub(super) fn resolution(step: u64, methods: &[MethodProfile]) -> Resolution {
    let below = methods
        .iter()
        .flat_map(|m| &m.delegates)
        .map(|d| {
            d.operators.iter().filter(|o| o.below_resolution()).count()
                + d.steps
                    .iter()
                    .flat_map(|s| &s.operators)
                    .filter(|o| o.below_resolution())
                    .count()
        })
        .sum();
    Resolution {
        xnnpack_operator_ms: XNNPACK_QUANTUM_MS,
        other_ms: step as f64 / 1e6,
        operators_below_resolution: below,
    }
}
