//! Splitting one log line into ET_LOG fields (formats.md §3.1).
//!
//! Two forms are recognised at the start of a line:
//! - POSIX PAL: `I 00:00:00.012345 executorch:file.cpp:12] message`
//!   (level `D I E F ?`; hours have at least one digit and are not capped);
//! - short (pybindings): `[file.cpp:12] message`.
//!
//! Anything else is not an ET_LOG line (`None`); that is never an error.

use super::EtLogFields;

/// The ET_LOG fields of `line`, if it is an ET_LOG line.
pub(crate) fn parse_et_log(line: &str) -> Option<EtLogFields> {
    parse_posix(line).or_else(|| parse_short(line))
}

fn parse_posix(line: &str) -> Option<EtLogFields> {
    let mut chars = line.chars();
    let level = chars.next()?;
    if !matches!(level, 'D' | 'I' | 'E' | 'F' | '?') {
        return None;
    }
    let rest = chars.as_str().strip_prefix(' ')?;
    let (time_us, rest) = parse_time(rest)?;
    let rest = rest.strip_prefix(" executorch:")?;
    let (file, line_no, message) = split_location(rest)?;
    Some(EtLogFields {
        level: Some(level),
        time_us: Some(time_us),
        file: file.to_string(),
        line: line_no,
        message: message.to_string(),
    })
}

fn parse_short(line: &str) -> Option<EtLogFields> {
    let rest = line.strip_prefix('[')?;
    let close = rest.find(']')?;
    let (file, line_no) = split_file_line(&rest[..close])?;
    // A file name with blanks is prose in brackets, not a source location.
    if file.chars().any(char::is_whitespace) {
        return None;
    }
    let after = &rest[close + 1..];
    let message = after.strip_prefix(' ').unwrap_or(after);
    Some(EtLogFields {
        level: None,
        time_us: None,
        file: file.to_string(),
        line: line_no,
        message: message.to_string(),
    })
}

/// `H+:MM:SS.UUUUUU` -> microseconds, and the text after it.
fn parse_time(s: &str) -> Option<(u64, &str)> {
    let (hours, s) = take_digits(s, 1, usize::MAX)?;
    let s = s.strip_prefix(':')?;
    let (minutes, s) = take_digits(s, 2, 2)?;
    let s = s.strip_prefix(':')?;
    let (seconds, s) = take_digits(s, 2, 2)?;
    let s = s.strip_prefix('.')?;
    let (micros, s) = take_digits(s, 6, 6)?;
    let total = hours
        .checked_mul(3_600_000_000)?
        .checked_add(minutes * 60_000_000)?
        .checked_add(seconds * 1_000_000)?
        .checked_add(micros)?;
    Some((total, s))
}

/// Between `min` and `max` ASCII digits at the start of `s` (as many as there are, up to
/// `max`), their value (None on overflow) and the rest.
fn take_digits(s: &str, min: usize, max: usize) -> Option<(u64, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n < min || n > max {
        return None;
    }
    let mut value: u64 = 0;
    for b in s[..n].bytes() {
        value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some((value, &s[n..]))
}

/// `file:LINE] message` -> (file, LINE, message). The location ends at the first `]`
/// (file names have none), so the message may contain `]` and `:`.
fn split_location(s: &str) -> Option<(&str, u32, &str)> {
    let close = s.find(']')?;
    let (file, line_no) = split_file_line(&s[..close])?;
    let after = &s[close + 1..];
    // The PAL prints "] %s": a space follows unless trailing blanks were trimmed.
    let message = if after.is_empty() {
        after
    } else {
        after.strip_prefix(' ')?
    };
    Some((file, line_no, message))
}

/// `file:LINE` with a non-empty file and a decimal LINE that fits in u32.
fn split_file_line(s: &str) -> Option<(&str, u32)> {
    let (file, digits) = s.rsplit_once(':')?;
    if file.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((file, digits.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(
        level: Option<char>,
        time_us: Option<u64>,
        file: &str,
        line: u32,
        msg: &str,
    ) -> EtLogFields {
        EtLogFields {
            level,
            time_us,
            file: file.to_string(),
            line,
            message: msg.to_string(),
        }
    }

    #[test]
    fn posix_line() {
        let got =
            parse_et_log("I 00:00:02.002865 executorch:CPUBackend.cpp:252] CPU_PLAN_CHUNK 0 28 7b");
        // 2 s + 2865 µs, by hand.
        assert_eq!(
            got,
            Some(fields(
                Some('I'),
                Some(2_002_865),
                "CPUBackend.cpp",
                252,
                "CPU_PLAN_CHUNK 0 28 7b"
            ))
        );
    }

    #[test]
    fn posix_hours_over_99() {
        let got = parse_et_log("E 101:30:00.412345 executorch:runner.cpp:7] boom").unwrap();
        // 101 h = 363_600 s, 30 min = 1_800 s: 365_400 s + 412_345 µs.
        assert_eq!(got.time_us, Some(365_400_412_345));
        assert_eq!(got.level, Some('E'));
        assert_eq!(got.message, "boom");
    }

    #[test]
    fn posix_all_levels_and_empty_message() {
        for level in ['D', 'I', 'E', 'F', '?'] {
            let line = format!("{level} 00:01:00.000001 executorch:a.cpp:1] ");
            let got = parse_et_log(&line).unwrap();
            assert_eq!(got, fields(Some(level), Some(60_000_001), "a.cpp", 1, ""));
        }
        // Trailing blank trimmed by some tool.
        let got = parse_et_log("I 00:00:00.000000 executorch:a.cpp:9]").unwrap();
        assert_eq!(got.message, "");
        assert_eq!(got.line, 9);
    }

    #[test]
    fn posix_message_with_brackets_and_colons() {
        let got = parse_et_log("I 00:00:00.000001 executorch:x.cpp:3] a] b:4] c").unwrap();
        assert_eq!(got, fields(Some('I'), Some(1), "x.cpp", 3, "a] b:4] c"));
    }

    #[test]
    fn short_form() {
        let got = parse_et_log("[cpuinfo_utils.cpp:71] Reading file /sys/x").unwrap();
        assert_eq!(
            got,
            fields(None, None, "cpuinfo_utils.cpp", 71, "Reading file /sys/x")
        );
    }

    #[test]
    fn not_et_log() {
        for line in [
            "",
            "Golden match: run=1 elements=10",
            "W1129 06:53:50.476000 16685 torch/utils/_pytree.py:630] <enum> is ...",
            "[fixture] loading mlp_xnnpack.pte",
            "[some prose:12] x",
            "X 00:00:00.000001 executorch:a.cpp:1] wrong level",
            "I 00:0:00.000001 executorch:a.cpp:1] short minutes",
            "I 00:00:00.00001 executorch:a.cpp:1] five-digit micros",
            "I 00:00:00.000001 executorch:a.cpp] no line number",
            "I 00:00:00.000001 executorch::5] no file",
            "I 99999999999999999999999:00:00.000001 executorch:a.cpp:1] hours overflow",
            "I 00:00:00.000001 executorch:a.cpp:99999999999] line overflow",
            "I 00:00:00.000001 executorch:a.cpp] x:5] location not first",
            "I 00:00:00.000001 executorch:a.cpp:5]x no blank after location",
            "CPU_PLAN_CHUNK 0 1 7b7d",
        ] {
            assert_eq!(parse_et_log(line), None, "{line:?}");
        }
    }
}
