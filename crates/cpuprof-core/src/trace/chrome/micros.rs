//! `ts` and `dur` of a trace event, microseconds written in decimal, read from the JSON
//! text straight into integer nanoseconds. Never through a float: Kineto writes `ts` as
//! µs since 1970 with three decimals (`1708722576381804.123`), and a double holds such
//! a value only to 0.25 µs (at 1.7e18 ns its step is 256 ns), which made back-to-back
//! calls overlap and nest.

/// Longest exponent read (larger ones overflow or round to 0 anyway).
const MAX_EXPONENT_DIGITS: usize = 6;

/// `[+-]digits[.digits][(e|E)[+-]digits]` µs to ns, exactly; digits beyond the ns are
/// rounded half away from zero (as `f64::round` did). `None` on anything else or when
/// the result does not fit in an `i64`.
pub(super) fn decimal_us_to_ns(text: &str) -> Option<i64> {
    decimal_bytes_us_to_ns(text.as_bytes())
}

/// [`decimal_us_to_ns`] of the bytes of a JSON number.
pub(super) fn decimal_bytes_us_to_ns(b: &[u8]) -> Option<i64> {
    let mut i = 0;
    let negative = match b.first() {
        Some(b'-') => {
            i = 1;
            true
        }
        Some(b'+') => {
            i = 1;
            false
        }
        _ => false,
    };
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = &b[int_start..i];
    let mut frac_digits: &[u8] = &[];
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = &b[start..i];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return None;
    }
    let mut exponent: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let exp_negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        let digits = &b[start..i];
        if digits.is_empty() {
            return None;
        }
        let significant = digits.iter().skip_while(|&&d| d == b'0').count();
        if significant > MAX_EXPONENT_DIGITS {
            // Astronomically large or small: 0 if every digit is 0 or the exponent is
            // negative, else too large.
            let all_zero = int_digits.iter().chain(frac_digits).all(|&d| d == b'0');
            return (all_zero || exp_negative).then_some(0);
        }
        for &d in digits {
            exponent = exponent * 10 + i64::from(d - b'0');
        }
        if exp_negative {
            exponent = -exponent;
        }
    }
    if i != b.len() {
        return None;
    }
    // The digits int ++ frac, with the point after `point` of them once scaled to ns.
    let digit = |k: usize| -> u8 {
        if k < int_digits.len() {
            int_digits[k] - b'0'
        } else {
            frac_digits
                .get(k - int_digits.len())
                .map_or(0, |d| d - b'0')
        }
    };
    let n_digits = int_digits.len() + frac_digits.len();
    let point = int_digits.len() as i64 + exponent + 3;
    let mut value: i64 = 0;
    let mut k: i64 = 0;
    while k < point {
        let d = if (k as usize) < n_digits {
            digit(k as usize)
        } else if value == 0 {
            // Only zeros are left to shift in.
            break;
        } else {
            0
        };
        value = value.checked_mul(10)?.checked_add(i64::from(d))?;
        k += 1;
    }
    let round_digit = if point >= 0 && (point as usize) < n_digits {
        digit(point as usize)
    } else {
        0
    };
    if round_digit >= 5 {
        value = value.checked_add(1)?;
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::decimal_us_to_ns as ns;

    #[test]
    fn exact_at_epoch_scale() {
        // f64 gave 1708722576381804123 -> ...804160 (a 256 ns step).
        assert_eq!(ns("1708722576381804.123"), Some(1_708_722_576_381_804_123));
        assert_eq!(ns("1694039968955744"), Some(1_694_039_968_955_744_000));
        assert_eq!(ns("1712195495519695.812"), Some(1_712_195_495_519_695_812));
    }

    #[test]
    fn forms_and_rounding() {
        assert_eq!(ns("0"), Some(0));
        assert_eq!(ns("1.5"), Some(1_500));
        assert_eq!(ns("-2.25"), Some(-2_250));
        assert_eq!(ns("+3"), Some(3_000));
        assert_eq!(ns(".5"), Some(500));
        assert_eq!(ns("7."), Some(7_000));
        assert_eq!(ns("1.0004"), Some(1_000));
        assert_eq!(ns("1.0005"), Some(1_001));
        assert_eq!(ns("-1.0005"), Some(-1_001));
        assert_eq!(ns("0.0004999"), Some(0));
        assert_eq!(ns("1.7e3"), Some(1_700_000));
        assert_eq!(ns("17E-1"), Some(1_700));
        assert_eq!(ns("5e-4"), Some(1));
        assert_eq!(ns("5e-5"), Some(0));
        assert_eq!(ns("1e-9999999"), Some(0));
        assert_eq!(ns("0e9999999"), Some(0));
        assert_eq!(ns("000000000000000000000000000012.5"), Some(12_500));
    }

    #[test]
    fn rejects_what_is_not_a_decimal_or_does_not_fit() {
        for bad in [
            "",
            "-",
            ".",
            "e5",
            "1e",
            "1.2.3",
            "1 ",
            "nan",
            "inf",
            "0x10",
            "1e9999999",
            "1,5",
        ] {
            assert_eq!(ns(bad), None, "{bad:?}");
        }
        assert_eq!(ns("9223372036854775.807"), Some(i64::MAX));
        assert_eq!(ns("9223372036854775.808"), None);
        assert_eq!(ns("1e16"), None);
        assert_eq!(ns("-9223372036854775.807"), Some(-i64::MAX));
    }
}
