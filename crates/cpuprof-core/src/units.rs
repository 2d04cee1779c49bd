//! Human-readable durations and shares, shared by the panes and the text report.
//! Profiles are in ms; operators are often a few µs.

/// A duration given in milliseconds, printed with a unit that keeps 3–4 significant
/// digits: `850 ns`, `12.3 µs`, `850 µs`, `1.165 ms`, `12.35 ms`, `265.4 ms`, `1.234 s`.
/// Zero reads `<1 µs`: no clock here ticks slower than 1 µs (the resolution assumed is at
/// most 1 µs), and a duration of 0 ticks is one under the quantum, not no time at all.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".to_string();
    }
    let abs = ms.abs();
    if abs == 0.0 {
        BELOW_QUANTUM.to_string()
    } else if abs < 0.001 {
        format!("{:.0} ns", ms * 1e6)
    } else if abs < 1.0 {
        let us = ms * 1e3;
        if us.abs() < 10.0 {
            format!("{us:.2} µs")
        } else if us.abs() < 100.0 {
            format!("{us:.1} µs")
        } else {
            format!("{us:.0} µs")
        }
    } else if abs < 10.0 {
        format!("{ms:.3} ms")
    } else if abs < 100.0 {
        format!("{ms:.2} ms")
    } else if abs < 1000.0 {
        // One decimal keeps `265.4 ms` as narrow as `12.35 ms` (table cells are 8 wide).
        format!("{ms:.1} ms")
    } else {
        format!("{:.3} s", ms / 1e3)
    }
}

/// A point in time in milliseconds from an origin (a timeline's axis, an event's start):
/// as [`duration_ms`], but 0 is the origin itself, `0 µs`.
pub fn position_ms(ms: f64) -> String {
    if ms == 0.0 {
        "0 µs".to_string()
    } else {
        duration_ms(ms)
    }
}

/// A share (0..1) as a percentage with one decimal.
pub fn percent(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        "-".to_string()
    }
}

/// Tensor shapes in the one notation the explorer, the text report and CSV share:
/// `[1,16,32,32] [64,16,1,1] [64]` (a scalar is `[]`).
pub fn shape_list(list: &[Vec<i64>]) -> String {
    list.iter()
        .map(|s| {
            let dims: Vec<String> = s.iter().map(i64::to_string).collect();
            format!("[{}]", dims.join(","))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A delegate's long name, the one every output uses: `delegate #1` (its instruction id).
pub fn delegate_name(instruction_id: i32) -> String {
    format!("delegate #{instruction_id}")
}

/// A non-delegated instruction's frame in the flame graph, the folded stacks and the
/// Chrome export: its event's name and instruction id (`OPERATOR_CALL #3`).
pub fn instruction_frame(name: &str, instruction_id: i32) -> String {
    format!("{name} #{instruction_id}")
}

/// A delegate's short name, for narrow columns: `d1`.
pub fn delegate_short(instruction_id: i32) -> String {
    format!("d{instruction_id}")
}

/// The clock quantum of XNNPACK operator events (ms): their durations are whole µs.
pub const XNNPACK_QUANTUM_MS: f64 = 0.001;

/// How a duration under the clock quantum reads.
pub const BELOW_QUANTUM: &str = "<1 µs";

/// A bound that says nothing (a share below 100% or more).
pub const NO_BOUND: &str = "–";

/// A duration that may be under the clock's resolution: `<1 µs` when `below` (the
/// samples say 0 or less than one quantum, not that the time is 0), else as
/// [`duration_ms`].
pub fn duration_or_below(ms: f64, below: bool) -> String {
    if below {
        BELOW_QUANTUM.to_string()
    } else {
        duration_ms(ms)
    }
}

/// The median of a compared row: `<1 µs` for an operator whose median is 0 (XNNPACK
/// reports whole microseconds; no other operator event takes 0 ns), else as
/// [`duration_ms`].
pub fn operator_median(is_operator: bool, ms: f64) -> String {
    duration_or_below(ms, is_operator && ms == 0.0)
}

/// One side's median in a compared row, as [`operator_median`]; `-` for a side the row
/// is missing from or has no samples on.
pub fn side_median(is_operator: bool, side: Option<&crate::stats::Stats>) -> String {
    side.filter(|s| s.count > 0).map_or("-".to_string(), |s| {
        operator_median(is_operator, s.median())
    })
}

/// A share that may be an upper bound: for a row under the clock's resolution the share
/// is below `quantum / parent`, shown as `<x%` (never `0.0%`); else as [`percent`].
pub fn percent_or_bound(share: f64, below: bool, quantum_ms: f64, parent_ms: f64) -> String {
    if !below {
        return percent(share);
    }
    if parent_ms.is_nan() || parent_ms <= 0.0 || !quantum_ms.is_finite() {
        return "-".to_string();
    }
    percent_bound(quantum_ms / parent_ms)
}

/// The share of a sum of `count` medians: as [`percent`], but a sum of 0 (every part under
/// the clock quantum) is a bound, `count` quanta of `parent_ms` (`<0.3%`), never `0.0%`.
pub fn share_of_sum(share: f64, summed_ms: f64, count: usize, parent_ms: Option<f64>) -> String {
    match parent_ms {
        Some(p) if summed_ms == 0.0 && p > 0.0 => {
            percent_bound(count.max(1) as f64 * XNNPACK_QUANTUM_MS / p)
        }
        _ => percent(share),
    }
}

/// An upper bound on a share (0..1) as `<x%`, rounded up to one decimal so the bound
/// stays a bound (never `<0.0%`); a bound of 100% or more says nothing and reads `–`
/// (the quantum is as long as the parent).
pub fn percent_bound(bound: f64) -> String {
    let bound = (bound * 100.0).max(0.1);
    if bound >= 100.0 || bound.is_nan() {
        NO_BOUND.to_string()
    } else {
        format!("<{:.1}%", (bound * 10.0).ceil() / 10.0)
    }
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, written from its description).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_resolution() {
        assert_eq!(duration_or_below(0.0, true), "<1 µs");
        assert_eq!(duration_or_below(0.0, false), "<1 µs");
        // Under 1 µs in a 1 µs parent: the bound says nothing.
        assert_eq!(percent_or_bound(0.0, true, 0.001, 0.001), "–");
        assert_eq!(percent_bound(1.5), "–");
        // Under 1 µs in a 2 ms step: < 0.05%, shown as the floor <0.1%.
        assert_eq!(percent_or_bound(0.0, true, 0.001, 2.0), "<0.1%");
        // Under 1 µs in a 4 µs step: < 25%.
        assert_eq!(percent_or_bound(0.0, true, 0.001, 0.004), "<25.0%");
        // 1 µs / 3 µs = 33.33..%, rounded up: <33.4%.
        assert_eq!(percent_or_bound(0.0, true, 0.001, 0.003), "<33.4%");
        assert_eq!(percent_or_bound(0.5, false, 0.001, 0.003), "50.0%");
        assert_eq!(percent_or_bound(0.0, true, 0.001, 0.0), "-");
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration_ms(0.0), "<1 µs");
        assert_eq!(duration_ms(0.000_85), "850 ns");
        assert_eq!(duration_ms(0.001_234), "1.23 µs");
        assert_eq!(duration_ms(0.012_34), "12.3 µs");
        assert_eq!(duration_ms(0.85), "850 µs");
        assert_eq!(duration_ms(1.165_015), "1.165 ms");
        assert_eq!(duration_ms(12.345_6), "12.35 ms");
        assert_eq!(duration_ms(265.37), "265.4 ms");
        assert_eq!(duration_ms(1234.0), "1.234 s");
        assert_eq!(duration_ms(f64::NAN), "-");
    }

    #[test]
    fn a_sum_of_zeros_is_a_bound() {
        // 3 parts under 1 µs in a 1 ms method: under 0.3%.
        assert_eq!(share_of_sum(0.0, 0.0, 3, Some(1.0)), "<0.3%");
        assert_eq!(share_of_sum(0.25, 0.25, 3, Some(1.0)), "25.0%");
    }

    #[test]
    fn delegate_forms() {
        assert_eq!(delegate_name(3), "delegate #3");
        assert_eq!(delegate_short(3), "d3");
    }

    #[test]
    fn percents() {
        assert_eq!(percent(0.4567), "45.7%");
        assert_eq!(percent(f64::INFINITY), "-");
    }
}
