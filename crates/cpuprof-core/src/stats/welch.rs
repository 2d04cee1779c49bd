//! Welch's two-sample t test (unequal variances) from each side's count, mean and
//! variance, with the two-sided p-value of Student's t through the regularized
//! incomplete beta function. The fleet's trend tests profiles' medians with it:
//! few units a side, where a rank test cannot reach a small p.

/// t, the Welch–Satterthwaite degrees of freedom and the two-sided p-value. None with
/// fewer than 2 values a side, or no spread and no difference.
pub fn welch_t(
    n1: usize,
    mean1: f64,
    var1: f64,
    n2: usize,
    mean2: f64,
    var2: f64,
) -> Option<WelchT> {
    if n1 < 2 || n2 < 2 || !(var1 >= 0.0 && var2 >= 0.0) {
        return None;
    }
    let (a, b) = (var1 / n1 as f64, var2 / n2 as f64);
    let se2 = a + b;
    let diff = mean1 - mean2;
    if se2 <= 0.0 {
        // Every value equal within each side: any difference is certain.
        return (diff != 0.0).then_some(WelchT {
            t: diff.signum() * f64::INFINITY,
            df: (n1 + n2 - 2) as f64,
            p_value: 0.0,
        });
    }
    let t = diff / se2.sqrt();
    let df = se2 * se2 / (a * a / (n1 as f64 - 1.0) + b * b / (n2 as f64 - 1.0));
    Some(WelchT {
        t,
        df,
        p_value: student_two_sided(t, df),
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WelchT {
    pub t: f64,
    pub df: f64,
    pub p_value: f64,
}

/// P(|T| >= |t|) for Student's t with `df` degrees of freedom.
pub fn student_two_sided(t: f64, df: f64) -> f64 {
    if !t.is_finite() {
        return if t.is_nan() { 1.0 } else { 0.0 };
    }
    let x = df / (df + t * t);
    incomplete_beta(df / 2.0, 0.5, x).clamp(0.0, 1.0)
}

/// The regularized incomplete beta I_x(a, b) (continued fraction, modified Lentz).
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front =
        libm::lgamma(a + b) - libm::lgamma(a) - libm::lgamma(b) + a * x.ln() + b * (1.0 - x).ln();
    // The fraction converges fast for x < (a + 1) / (a + b + 2); else by symmetry.
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 - qab * x / qap;
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut h = d;
    for m in 1..=300 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 + aa * d;
        if d.abs() < TINY {
            d = TINY;
        }
        c = 1.0 + aa / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_var(v: &[f64]) -> (usize, f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        (v.len(), m, var)
    }

    /// Against scipy 1.17.1: `scipy.stats.ttest_ind(a, b, equal_var=False)` (statistic,
    /// pvalue, df) for the three pairs below.
    #[test]
    fn welch_equals_scipy() {
        type Case<'a> = (&'a [f64], &'a [f64], f64, f64, f64);
        let cases: [Case; 3] = [
            (
                &[1.0, 2.0, 3.0, 4.0],
                &[3.0, 5.0, 6.0],
                -1.982481414323861,
                0.11919070661877634,
                3.9593147751605993,
            ),
            (
                &[0.1, 0.12, 0.11, 0.13, 0.1, 0.12],
                &[0.2, 0.21, 0.19, 0.22],
                -11.273900848248335,
                2.1690977725991224e-05,
                6.259835558306074,
            ),
            (
                &[10.0, 11.0, 9.0, 10.5, 10.2],
                &[10.1, 9.9, 10.3, 10.4, 9.8, 10.0],
                0.16458379184592328,
                0.8761774672176552,
                4.654718862737402,
            ),
        ];
        for (a, b, t, p, df) in cases {
            let (n1, m1, v1) = mean_var(a);
            let (n2, m2, v2) = mean_var(b);
            let w = welch_t(n1, m1, v1, n2, m2, v2).unwrap();
            assert!((w.t - t).abs() < 1e-9 * t.abs().max(1.0), "{w:?}");
            assert!((w.df - df).abs() < 1e-9 * df, "{w:?}");
            assert!(
                (w.p_value - p).abs() < 1e-9 * p.max(1e-12),
                "{w:?} want p {p}"
            );
        }
    }

    /// `scipy.special.betainc(a, b, x)`.
    #[test]
    fn incomplete_beta_equals_scipy() {
        for (x, a, b, want) in [
            (0.3, 2.0, 0.5, 0.03784096948581308),
            (0.9, 10.5, 0.5, 0.141553091812887),
            (0.01, 1.5, 0.5, 0.0004256932865778925),
        ] {
            let got = incomplete_beta(a, b, x);
            assert!(
                (got - want).abs() < 1e-12,
                "I_{x}({a}, {b}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn too_few_or_no_spread() {
        assert!(welch_t(1, 1.0, 0.0, 5, 2.0, 1.0).is_none());
        assert!(welch_t(3, 1.0, 0.0, 3, 1.0, 0.0).is_none());
        assert_eq!(welch_t(3, 1.0, 0.0, 3, 2.0, 0.0).unwrap().p_value, 0.0);
    }
}
