//! The standard normal distribution: upper tail and quantile.

/// P(Z > z) for a standard normal Z (accurate in the far tail: erfc, not 1 - cdf).
pub fn normal_sf(z: f64) -> f64 {
    0.5 * libm::erfc(z / std::f64::consts::SQRT_2)
}

/// The z with P(Z > z) = `upper` (0 < upper < 1), by bisection on [`normal_sf`]: called
/// once per comparison, so simplicity beats speed.
pub fn normal_quantile(upper: f64) -> f64 {
    if upper.is_nan() || upper <= 0.0 {
        return f64::INFINITY;
    }
    if upper >= 1.0 {
        return f64::NEG_INFINITY;
    }
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        // normal_sf decreases in z.
        if normal_sf(mid) > upper {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn against_scipy() {
        // /work/venv/bin/python -c "from scipy.stats import norm;
        //   print(norm.sf(1.959963984540054), norm.sf(5.0), norm.isf(0.025), norm.isf(0.005))"
        // 0.025 2.866515718791933e-07 1.9599639845400545 2.575829303548901
        assert!((normal_sf(1.959963984540054) - 0.025).abs() < 1e-15);
        assert!((normal_sf(5.0) / 2.866515718791933e-07 - 1.0).abs() < 1e-12);
        assert!((normal_quantile(0.025) - 1.9599639845400545).abs() < 1e-12);
        assert!((normal_quantile(0.005) - 2.575829303548901).abs() < 1e-12);
        assert!((normal_sf(0.0) - 0.5).abs() < 1e-15);
    }
}
