//! The unit of ETDump ticks. ExecuTorch writes "units of time or CPU cycles": on Linux
//! the ticks are nanoseconds, on other platforms they may be µs or cycles (the Python
//! Inspector's `source_time_scale`). The profile is built in ns, so ticks in another unit
//! are converted right after decoding, before any duration is computed.

use std::fmt;
use std::str::FromStr;
use std::sync::Mutex;

use super::EtDump;

/// What one tick is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TimeUnit {
    #[default]
    Ns,
    Us,
    Ms,
    /// CPU cycles at this frequency (Hz, > 0).
    Cycles(f64),
}

impl TimeUnit {
    /// Nanoseconds per tick.
    pub fn ns_per_tick(self) -> f64 {
        match self {
            TimeUnit::Ns => 1.0,
            TimeUnit::Us => 1e3,
            TimeUnit::Ms => 1e6,
            TimeUnit::Cycles(hz) => 1e9 / hz,
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeUnit::Ns => f.write_str("ns"),
            TimeUnit::Us => f.write_str("us"),
            TimeUnit::Ms => f.write_str("ms"),
            TimeUnit::Cycles(hz) => write!(f, "cycles:{hz}"),
        }
    }
}

impl FromStr for TimeUnit {
    type Err = String;

    /// `ns`, `us` (or `µs`), `ms`, or `cycles:HZ` where HZ is a frequency such as
    /// `2400000000`, `2.4e9`, `2.4GHz`, `800MHz`.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        match s.to_ascii_lowercase().as_str() {
            "ns" => return Ok(TimeUnit::Ns),
            "us" | "µs" => return Ok(TimeUnit::Us),
            "ms" => return Ok(TimeUnit::Ms),
            _ => {}
        }
        let Some(freq) = s.strip_prefix("cycles:") else {
            return Err(format!(
                "unknown time unit {s:?}: expected ns, us, ms or cycles:HZ (e.g. cycles:2.4GHz)"
            ));
        };
        let lower = freq.trim().to_ascii_lowercase();
        let (number, scale) = if let Some(n) = lower.strip_suffix("ghz") {
            (n, 1e9)
        } else if let Some(n) = lower.strip_suffix("mhz") {
            (n, 1e6)
        } else if let Some(n) = lower.strip_suffix("khz") {
            (n, 1e3)
        } else if let Some(n) = lower.strip_suffix("hz") {
            (n, 1.0)
        } else {
            (lower.as_str(), 1.0)
        };
        match number.trim().parse::<f64>() {
            Ok(v) if v.is_finite() && v * scale >= 1.0 => Ok(TimeUnit::Cycles(v * scale)),
            _ => Err(format!(
                "bad cycle frequency {freq:?}: expected a positive number of Hz such as \
                 2400000000, 2.4e9 or 2.4GHz"
            )),
        }
    }
}

static TIME_UNIT: Mutex<TimeUnit> = Mutex::new(TimeUnit::Ns);

/// The unit of ticks for every dump this process loads (`--time-unit`; default ns).
pub fn time_unit() -> TimeUnit {
    *TIME_UNIT.lock().unwrap_or_else(|p| p.into_inner())
}

pub fn set_time_unit(unit: TimeUnit) {
    *TIME_UNIT.lock().unwrap_or_else(|p| p.into_inner()) = unit;
}

const U32_MAX: u64 = u32::MAX as u64;

/// An event's duration in ticks with the Inspector's rule for 32-bit wrap-around (an end
/// below its start is a 32-bit counter that wrapped, if both fit in 32 bits); None when
/// no wrap explains it. The one place the rule lives: statistics, the timeline and the
/// clock checks all time events with it.
pub fn duration_ticks(start: u64, end: u64) -> Option<u64> {
    if end >= start {
        Some(end - start)
    } else if start <= U32_MAX && end <= U32_MAX {
        Some((U32_MAX - start) + end)
    } else {
        None
    }
}

impl EtDump {
    /// Converts every event's ticks from `unit` to nanoseconds (nothing to do for ns).
    /// A span that wrapped around 32 bits is unwrapped first (its end moved past its
    /// start by the Inspector's wrap rule), since scaled ticks no longer wrap at 2^32.
    pub fn convert_ticks_to_ns(&mut self, unit: TimeUnit) {
        let scale = |t: u64| -> u64 {
            match unit {
                TimeUnit::Ns => t,
                TimeUnit::Us => t.saturating_mul(1_000),
                TimeUnit::Ms => t.saturating_mul(1_000_000),
                // `as` saturates; f64 keeps ns exact below 2^53 (104 days).
                TimeUnit::Cycles(hz) => (t as f64 * (1e9 / hz)).round() as u64,
            }
        };
        if unit == TimeUnit::Ns {
            return;
        }
        for ev in &mut self.events {
            let end = match duration_ticks(ev.start_ticks, ev.end_ticks) {
                Some(d) if ev.end_ticks < ev.start_ticks => ev.start_ticks.saturating_add(d),
                _ => ev.end_ticks,
            };
            ev.start_ticks = scale(ev.start_ticks);
            ev.end_ticks = scale(end);
        }
    }

    /// Signs that ticks (already in ns) are not in the unit they were read as: one line
    /// each, for the profile's warnings. `unit` is only named in the messages.
    pub fn implausible_durations(&self, unit: TimeUnit) -> Vec<String> {
        const HOUR_NS: u64 = 3_600_000_000_000;
        let mut out = Vec::new();
        let method = self.names.find("Method::execute");
        let call = self.names.find("DELEGATE_CALL");
        let mut longest_method = 0u64;
        // Per run and instruction: groups with a DELEGATE_CALL and delegate events, and
        // how many of them have every delegate event longer than the (longest) call.
        let (mut compared, mut all_longer) = (0usize, 0usize);
        // (instruction, is the call, duration), reused run after run; grouped by
        // instruction (sorted when not already), so a run costs at most O(n log n)
        // however many calls it has.
        let mut spans: Vec<(i32, bool, u64)> = Vec::new();
        for block in self.blocks.iter().filter(|b| b.name == "Execute") {
            spans.clear();
            for ev in self.block_events(block) {
                let Some(d) = duration_ticks(ev.start_ticks, ev.end_ticks) else {
                    continue;
                };
                match ev.delegate_id {
                    Some(_) => spans.push((ev.instruction_id, false, d)),
                    None if ev.name.is_some() && ev.name == method => {
                        longest_method = longest_method.max(d)
                    }
                    None if ev.name.is_some() && ev.name == call => {
                        spans.push((ev.instruction_id, true, d))
                    }
                    None => {}
                }
            }
            // Only grouping by instruction matters (a group's longest call and shortest
            // operator do not depend on its order), and runs usually list events of one
            // instruction together already.
            if !spans.is_sorted_by_key(|s| s.0) {
                spans.sort_unstable();
            }
            for group in spans.chunk_by(|a, b| a.0 == b.0) {
                let longest_call = group.iter().filter(|s| s.1).map(|s| s.2).max();
                let shortest_op = group.iter().filter(|s| !s.1).map(|s| s.2).min();
                if let (Some(c), Some(o)) = (longest_call, shortest_op) {
                    compared += 1;
                    if o > c {
                        all_longer += 1;
                    }
                }
            }
        }
        if longest_method > HOUR_NS {
            out.push(format!(
                "a Method::execute takes {:.1} h with ticks read as {unit}: durations look \
                 implausible; is the clock another unit? (--time-unit ns|us|ms|cycles:HZ)",
                longest_method as f64 / HOUR_NS as f64
            ));
        }
        if compared > 0 && all_longer == compared {
            out.push(format!(
                "every delegate operator is longer than its DELEGATE_CALL (in all {compared} \
                 calls) with ticks read as {unit}: the delegate's clock may be in another \
                 unit than the framework's"
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!("ns".parse::<TimeUnit>(), Ok(TimeUnit::Ns));
        assert_eq!("us".parse::<TimeUnit>(), Ok(TimeUnit::Us));
        assert_eq!("µs".parse::<TimeUnit>(), Ok(TimeUnit::Us));
        assert_eq!("ms".parse::<TimeUnit>(), Ok(TimeUnit::Ms));
        assert_eq!(
            "cycles:2.4GHz".parse::<TimeUnit>(),
            Ok(TimeUnit::Cycles(2.4e9))
        );
        assert_eq!(
            "cycles:800MHz".parse::<TimeUnit>(),
            Ok(TimeUnit::Cycles(8e8))
        );
        assert_eq!(
            "cycles:2000000000".parse::<TimeUnit>(),
            Ok(TimeUnit::Cycles(2e9))
        );
        assert!("cycles:0".parse::<TimeUnit>().is_err());
        assert!("cycles:-5".parse::<TimeUnit>().is_err());
        assert!("cycles:".parse::<TimeUnit>().is_err());
        assert!("s".parse::<TimeUnit>().is_err());
        // 1 GHz: one cycle is 1 ns; 500 MHz: 2 ns.
        assert_eq!(TimeUnit::Cycles(1e9).ns_per_tick(), 1.0);
        assert_eq!(TimeUnit::Cycles(5e8).ns_per_tick(), 2.0);
    }

    #[test]
    fn wrapped_span_is_unwrapped_before_scaling() {
        use crate::etdump::{ProfileEvent, RunBlock};
        let mut dump = EtDump {
            blocks: vec![RunBlock {
                name: "Execute".into(),
                bundled_input_index: -1,
                events: 0..1,
                allocation_events: 0,
                debug_events: 0,
            }],
            events: vec![ProfileEvent {
                name: None,
                delegate_id: None,
                chain_index: 0,
                instruction_id: 0,
                start_ticks: 4_294_967_000,
                end_ticks: 704,
                metadata: None,
            }],
            ..EtDump::default()
        };
        dump.convert_ticks_to_ns(TimeUnit::Us);
        // Wrap rule: (2^32 - 1 - 4294967000) + 704 = 295 + 704 = 999 ticks = 999 µs.
        let ev = dump.events[0];
        assert_eq!(ev.end_ticks - ev.start_ticks, 999_000);
        assert_eq!(ev.start_ticks, 4_294_967_000_000);
    }
}
