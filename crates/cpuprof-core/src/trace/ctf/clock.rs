//! Clocks: the clock a stream class's timestamps are mapped to, and cycles to ns (exact,
//! clamped, or None on overflow; a 1 GHz clock by a precomputed base).

use super::tsdl::{Clock, Metadata, Type};

/// The clock a stream class's event timestamps are mapped to.
pub(super) fn stream_clock(meta: &Metadata, stream_class: usize) -> Clock {
    let mut found = None;
    if let Some(h) = meta.streams.get(stream_class).and_then(|s| s.event_header) {
        let mut todo = vec![h];
        let mut seen = 0;
        while let Some(t) = todo.pop() {
            seen += 1;
            if seen > 10_000 {
                break;
            }
            match &meta.types[t as usize] {
                Type::Int(i) if i.clock.is_some() => {
                    found = i.clock;
                    break;
                }
                Type::Struct { fields, .. } => todo.extend(fields.iter().map(|f| f.ty)),
                Type::Variant { options, .. } => todo.extend(options.iter().map(|f| f.ty)),
                _ => {}
            }
        }
    }
    let idx = found.map_or(0, usize::from);
    meta.clocks.get(idx).cloned().unwrap_or(Clock {
        name: "cycles".into(),
        freq: 1_000_000_000,
        offset_s: 0,
        offset: 0,
    })
}

/// Absolute ns of `cycles`: offset_s seconds plus (offset + cycles) / freq, floored;
/// clamped to the i64 range (see [`cycles_to_ns_checked`]).
pub fn cycles_to_ns(c: &Clock, cycles: u64) -> i64 {
    let total = exact_ns(c, cycles);
    total.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// [`cycles_to_ns`], or None when the time lies outside the i64 ns range (years 1678 to
/// 2262): a clock whose frequency or offset does not describe its cycles.
pub fn cycles_to_ns_checked(c: &Clock, cycles: u64) -> Option<i64> {
    i64::try_from(exact_ns(c, cycles)).ok()
}

fn exact_ns(c: &Clock, cycles: u64) -> i128 {
    let cyc = i128::from(c.offset) + i128::from(cycles);
    let ns = if c.freq == 1_000_000_000 {
        cyc
    } else {
        // |cyc| < 2^65 and 1e9 < 2^30: no i128 overflow.
        (cyc * 1_000_000_000).div_euclid(i128::from(c.freq.max(1)))
    };
    i128::from(c.offset_s) * 1_000_000_000 + ns
}

/// A clock with its cycles-to-ns conversion; a 1 GHz clock (LTTng's monotonic) adds a
/// precomputed base in i64.
pub struct ClockConv {
    pub clock: Clock,
    base_1ghz: Option<i64>,
}

impl ClockConv {
    pub fn new(clock: Clock) -> ClockConv {
        let base = i128::from(clock.offset_s) * 1_000_000_000 + i128::from(clock.offset);
        let base_1ghz = (clock.freq == 1_000_000_000)
            .then(|| i64::try_from(base).ok())
            .flatten();
        ClockConv { clock, base_1ghz }
    }

    #[inline]
    pub fn to_ns(&self, cycles: u64) -> i64 {
        self.try_to_ns(cycles)
            .unwrap_or_else(|| cycles_to_ns(&self.clock, cycles))
    }

    /// The time in ns, or None when it overflows i64 ([`cycles_to_ns_checked`]).
    #[inline]
    pub fn try_to_ns(&self, cycles: u64) -> Option<i64> {
        if let (Some(b), Ok(c)) = (self.base_1ghz, i64::try_from(cycles)) {
            if let Some(ns) = b.checked_add(c) {
                return Some(ns);
            }
        }
        cycles_to_ns_checked(&self.clock, cycles)
    }

    /// The clock in words, for messages.
    pub(super) fn describe(&self) -> String {
        let c = &self.clock;
        format!(
            "clock `{}` (freq {} Hz, offset_s {}, offset {} cycles)",
            c.name, c.freq, c.offset_s, c.offset
        )
    }
}
