//! Human-readable durations. Profiles are in ms; operators are often a few µs.

/// `0.0027` -> `2.70 µs`, `1.5` -> `1.500 ms`, `2500.0` -> `2.500 s`. Three significant
/// decimals at most so columns stay narrow.
pub fn format_ms(ms: f64) -> String {
    if !ms.is_finite() {
        return "-".to_string();
    }
    let abs = ms.abs();
    if abs == 0.0 {
        "0".to_string()
    } else if abs < 1e-3 {
        format!("{:.0} ns", ms * 1e6)
    } else if abs < 1.0 {
        format!("{:.2} µs", ms * 1e3)
    } else if abs < 1000.0 {
        format!("{ms:.3} ms")
    } else {
        format!("{:.3} s", ms / 1e3)
    }
}

/// A share 0..1 as a percentage with one decimal.
pub fn format_share(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_units() {
        assert_eq!(format_ms(0.0), "0");
        assert_eq!(format_ms(0.0005), "500 ns");
        assert_eq!(format_ms(0.0027), "2.70 µs");
        assert_eq!(format_ms(0.236620), "236.62 µs");
        assert_eq!(format_ms(1.5), "1.500 ms");
        assert_eq!(format_ms(2500.0), "2.500 s");
        assert_eq!(format_share(0.4567), "45.7%");
    }
}
