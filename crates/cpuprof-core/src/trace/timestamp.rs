//! Event times of babeltrace2 / THAPI text as exact integer nanoseconds (no f64: at
//! 1.8e9 s a double is only good to ~240 ns).

use super::intervals::WarningLog;

const NS_PER_S: i64 = 1_000_000_000;
const DAY_NS: i64 = 86_400 * NS_PER_S;
const HALF_DAY_NS: i64 = DAY_NS / 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stamp {
    /// `HH:MM:SS.nnnnnnnnn` (default babeltrace2 output): ns since midnight, no date.
    TimeOfDay(i64),
    /// `--clock-seconds` (`1795934914.832333283`) or `--clock-date`: ns since the epoch.
    Absolute(i64),
}

pub(crate) fn parse_stamp(s: &str) -> Option<Stamp> {
    let s = s.trim();
    if let Some((date, time)) = s.split_once(' ') {
        let days = parse_date(date)?;
        let tod = parse_time_of_day(time)?;
        return days
            .checked_mul(DAY_NS)?
            .checked_add(tod)
            .map(Stamp::Absolute);
    }
    if s.contains(':') {
        return parse_time_of_day(s).map(Stamp::TimeOfDay);
    }
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    let sec: i64 = parse_digits(sec)?;
    sec.checked_mul(NS_PER_S)?
        .checked_add(parse_frac(frac)?)
        .map(Stamp::Absolute)
}

fn parse_digits(s: &str) -> Option<i64> {
    if s.is_empty() || s.len() > 18 || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Up to 9 fraction digits, right-padded with zeros (more digits are cut, not rounded).
fn parse_frac(f: &str) -> Option<i64> {
    if !f.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v = 0i64;
    for i in 0..9 {
        v = v * 10 + f.as_bytes().get(i).map_or(0, |c| i64::from(c - b'0'));
    }
    Some(v)
}

fn parse_time_of_day(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, ':');
    let h = parse_digits(parts.next()?)?;
    let m = parse_digits(parts.next()?)?;
    let rest = parts.next()?;
    let (sec, frac) = rest.split_once('.').unwrap_or((rest, ""));
    let sec = parse_digits(sec)?;
    if h > 23 || m > 59 || sec > 60 {
        return None;
    }
    Some(((h * 60 + m) * 60 + sec) * NS_PER_S + parse_frac(frac)?)
}

/// `YYYY-MM-DD` to days since 1970-01-01 (proleptic Gregorian).
fn parse_date(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, '-');
    let y = parse_digits(parts.next()?)?;
    let m = parse_digits(parts.next()?)?;
    let d = parse_digits(parts.next()?)?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || y > 1_000_000 {
        return None;
    }
    // Shift the year to start in March so the leap day is last.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// Turns stamps into a monotonic time line. Date-less times wrap at midnight: when a
/// time-of-day goes back by more than 12 h, a day is added (babeltrace2 merges streams
/// in time order, so real time never goes back that far).
#[derive(Debug, Default)]
pub(crate) struct Clock {
    day_offset: i64,
    last: Option<i64>,
}

impl Clock {
    pub(crate) fn resolve(&mut self, stamp: Stamp, warnings: &mut WarningLog, line: usize) -> i64 {
        let t = match stamp {
            Stamp::Absolute(t) => t,
            Stamp::TimeOfDay(tod) => {
                let mut t = tod.saturating_add(self.day_offset);
                if let Some(last) = self.last {
                    if t < last.saturating_sub(HALF_DAY_NS) {
                        self.day_offset = self.day_offset.saturating_add(DAY_NS);
                        t = t.saturating_add(DAY_NS);
                        warnings.add("midnight_wrap", || {
                            format!("line {line}: time went back by more than 12 h; assumed the next day (use --clock-seconds for exact times)")
                        });
                    }
                }
                t
            }
        };
        self.last = Some(t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_nanoseconds() {
        assert_eq!(
            parse_stamp("1795934914.832333283"),
            Some(Stamp::Absolute(1_795_934_914_832_333_283))
        );
        assert_eq!(
            parse_stamp("06:48:34.8"),
            Some(Stamp::TimeOfDay(
                (6 * 3600 + 48 * 60 + 34) * NS_PER_S + 800_000_000
            ))
        );
        // 2026-11-29 is day 20_786 since the epoch (1795934914 / 86400 = 20786.28).
        assert_eq!(
            parse_stamp("2026-11-29 06:48:34.832333283"),
            Some(Stamp::Absolute(1_795_934_914_832_333_283))
        );
        assert_eq!(
            parse_stamp("1970-01-01 00:00:00.000000001"),
            Some(Stamp::Absolute(1))
        );
        assert_eq!(parse_stamp("ab:cd"), None);
        assert_eq!(parse_stamp("99999999999999999999.1"), None);
    }

    #[test]
    fn midnight_wrap_adds_a_day() {
        let mut c = Clock::default();
        let mut w = WarningLog::default();
        let a = c.resolve(parse_stamp("23:59:59.999999999").unwrap(), &mut w, 1);
        let b = c.resolve(parse_stamp("00:00:00.000000001").unwrap(), &mut w, 2);
        assert_eq!(b - a, 2);
        assert_eq!(w.finish().len(), 1);
    }
}
