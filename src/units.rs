//! Human-readable durations and shares, shared by the panes and the text report.
//! Profiles are in ms; operators are often a few µs.

/// A duration given in milliseconds, printed with a unit that keeps 3–4 significant
/// digits: `850 ns`, `12.3 µs`, `850 µs`, `1.165 ms`, `12.35 ms`, `265.4 ms`, `1.234 s`.
pub fn duration_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".to_string();
    }
    let abs = ms.abs();
    if abs == 0.0 {
        "0 µs".to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(duration_ms(0.0), "0 µs");
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
    fn percents() {
        assert_eq!(percent(0.4567), "45.7%");
        assert_eq!(percent(f64::INFINITY), "-");
    }
}
