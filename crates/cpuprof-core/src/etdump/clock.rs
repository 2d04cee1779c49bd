//! The unit of ETDump ticks. ExecuTorch writes "units of time or CPU cycles": on Linux
//! the ticks are nanoseconds, on other platforms they may be µs or cycles (the Python
//! Inspector's `source_time_scale`). The profile is built in ns, so ticks in another unit
//! are converted right after decoding, before any duration is computed.

use std::fmt;
use std::str::FromStr;

use super::EtDump;

/// What one tick is (`--time-unit`, carried by each load request:
/// `profile::ReadOptions`). Two units are equal when their frequencies have the same bits,
/// so a unit is a key like any other.
#[derive(Debug, Clone, Copy, Default)]
pub enum TimeUnit {
    #[default]
    Ns,
    Us,
    Ms,
    /// CPU cycles at this frequency (Hz, > 0).
    Cycles(f64),
}

impl PartialEq for TimeUnit {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (TimeUnit::Cycles(a), TimeUnit::Cycles(b)) => a.to_bits() == b.to_bits(),
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl Eq for TimeUnit {}

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

/// The slowest clock `cycles:HZ` accepts: one tick per second.
pub const MIN_CYCLE_HZ: f64 = 1.0;
/// The fastest: one tick per femtosecond (1 PHz). Past these the ticks are not CPU cycles
/// and durations would round to nothing or overflow.
pub const MAX_CYCLE_HZ: f64 = 1e15;

impl FromStr for TimeUnit {
    type Err = String;

    /// `ns`, `us` (or `µs`), `ms`, or `cycles:HZ` where HZ is a frequency such as
    /// `2400000000`, `2.4e9`, `2.4GHz`, `800MHz`: finite, with a tick between 1 fs and
    /// 1 s ([`MIN_CYCLE_HZ`] ..= [`MAX_CYCLE_HZ`]).
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let lower = s.to_lowercase();
        match lower.as_str() {
            "ns" => return Ok(TimeUnit::Ns),
            "us" | "µs" => return Ok(TimeUnit::Us),
            "ms" => return Ok(TimeUnit::Ms),
            _ => {}
        }
        let Some(freq) = lower.strip_prefix("cycles:") else {
            return Err(format!(
                "unknown time unit {s:?}: expected ns, us, ms or cycles:HZ (e.g. cycles:2.4GHz)"
            ));
        };
        // As given, for messages (`cycles:` is ASCII, so the offsets agree).
        let given = s.get("cycles:".len()..).unwrap_or_default().trim();
        let freq = freq.trim();
        let (number, scale) = [
            ("thz", 1e12),
            ("ghz", 1e9),
            ("mhz", 1e6),
            ("khz", 1e3),
            ("hz", 1.0),
        ]
        .iter()
        .find_map(|&(suffix, scale)| freq.strip_suffix(suffix).map(|n| (n, scale)))
        .unwrap_or((freq, 1.0));
        let number = number.trim();
        // Plain decimal or exponent notation only (f64's parser also takes inf and nan).
        let plain = !number.is_empty()
            && number
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
        let hz = match number.parse::<f64>() {
            Ok(v) if plain => v * scale,
            _ => {
                return Err(format!(
                    "bad cycle frequency {given:?}: expected a number of Hz such as 2400000000, \
                     2.4e9 or 2.4GHz"
                ))
            }
        };
        if !hz.is_finite() {
            return Err(format!(
                "cycle frequency {given:?} is not a finite number of Hz"
            ));
        }
        if hz <= 0.0 {
            return Err(format!("cycle frequency {given:?} must be more than 0 Hz"));
        }
        if hz < MIN_CYCLE_HZ {
            return Err(format!(
                "cycle frequency {given:?} makes a tick longer than 1 s (below 1 Hz)"
            ));
        }
        if hz > MAX_CYCLE_HZ {
            return Err(format!(
                "cycle frequency {given:?} makes a tick shorter than 1 fs (above 1e15 Hz)"
            ));
        }
        Ok(TimeUnit::Cycles(hz))
    }
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
        convert_events_to_ns(&mut self.events, unit);
    }

    /// Signs that ticks (already in ns) are not in the unit they were read as: one line
    /// each, for the profile's warnings. `unit` is only named in the messages.
    pub fn implausible_durations(&self, unit: TimeUnit) -> Vec<String> {
        let mut checks = Plausibility::default();
        for block in self.blocks.iter().filter(|b| b.name == "Execute") {
            checks.execute_run(&self.names, self.block_events(block));
        }
        checks.messages(unit)
    }
}

/// [`EtDump::implausible_durations`] fed one `Execute` run at a time.
#[derive(Debug, Default)]
pub struct Plausibility {
    longest_method: u64,
    /// Per run and instruction: groups with a DELEGATE_CALL and delegate events, and
    /// how many of them have every delegate event longer than the (longest) call.
    compared: usize,
    all_longer: usize,
    /// (instruction, is the call, duration), reused run after run; grouped by
    /// instruction (sorted when not already), so a run costs at most O(n log n)
    /// however many calls it has.
    spans: Vec<(i32, bool, u64)>,
    /// The ids of `Method::execute` and `DELEGATE_CALL` in the names table, looked up
    /// again only when the table has grown since (ids never change once given; a hash
    /// lookup per run was a few percent of a small model's load).
    ids: Option<(usize, Option<super::NameId>, Option<super::NameId>)>,
}

impl Plausibility {
    /// Takes in the events of one `Execute` run (ticks in ns), names in `names`: the
    /// dump's table, the same (growing) table on every call.
    pub fn execute_run(&mut self, names: &super::NameTable, events: &[super::ProfileEvent]) {
        let (method, call) = match self.ids {
            Some((seen, method, call)) if seen == names.len() => (method, call),
            _ => {
                let (method, call) = (names.find("Method::execute"), names.find("DELEGATE_CALL"));
                self.ids = Some((names.len(), method, call));
                (method, call)
            }
        };
        let spans = &mut self.spans;
        spans.clear();
        for ev in events {
            let Some(d) = duration_ticks(ev.start_ticks, ev.end_ticks) else {
                continue;
            };
            match ev.delegate_id {
                Some(_) => spans.push((ev.instruction_id, false, d)),
                None if ev.name.is_some() && ev.name == method => {
                    self.longest_method = self.longest_method.max(d)
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
                self.compared += 1;
                if o > c {
                    self.all_longer += 1;
                }
            }
        }
    }

    /// The warnings for the runs taken in; `unit` is only named in the messages.
    pub fn messages(&self, unit: TimeUnit) -> Vec<String> {
        const HOUR_NS: u64 = 3_600_000_000_000;
        let (longest_method, compared, all_longer) =
            (self.longest_method, self.compared, self.all_longer);
        let mut out = Vec::new();
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

/// [`EtDump::convert_ticks_to_ns`] on some events (a chunk decoded on its own).
pub fn convert_events_to_ns(events: &mut [super::ProfileEvent], unit: TimeUnit) {
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
    for ev in events.iter_mut() {
        let end = match duration_ticks(ev.start_ticks, ev.end_ticks) {
            Some(d) if ev.end_ticks < ev.start_ticks => ev.start_ticks.saturating_add(d),
            _ => ev.end_ticks,
        };
        ev.start_ticks = scale(ev.start_ticks);
        ev.end_ticks = scale(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::etdump::{NameTable, ProfileEvent};

    #[test]
    fn names_met_in_a_later_chunk_are_found() {
        // The table grows as chunks come: a Method::execute interned only after the
        // first run still counts (2 h of ns here, over the hour that warns).
        let method = |names: &mut NameTable, ns: u64| ProfileEvent {
            name: Some(names.intern("Method::execute")),
            delegate_id: None,
            chain_index: -1,
            instruction_id: -1,
            start_ticks: 0,
            end_ticks: ns,
            metadata: None,
        };
        let mut names = NameTable::default();
        names.intern("native_call_add.out");
        let mut p = Plausibility::default();
        p.execute_run(&names, &[]);
        let short = method(&mut names, 1_000);
        p.execute_run(&names, &[short]);
        assert_eq!(p.longest_method, 1_000);
        let long = method(&mut names, 7_200_000_000_000);
        p.execute_run(&names, &[long]);
        assert_eq!(p.longest_method, 7_200_000_000_000);
        assert_eq!(p.messages(TimeUnit::Ns).len(), 1);
    }

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
        // Not finite, zero, or a tick outside 1 fs ..= 1 s.
        for bad in [
            "cycles:1e308GHz",
            "cycles:18446744073709551616",
            "cycles:inf",
            "cycles:NaN",
            "cycles:0.5",
            "cycles:0Hz",
            "cycles:1.5e15",
            "cycles:2THz0",
        ] {
            assert!(bad.parse::<TimeUnit>().is_err(), "{bad}");
        }
        assert_eq!("cycles:1".parse::<TimeUnit>(), Ok(TimeUnit::Cycles(1.0)));
        assert_eq!(
            "CYCLES:1e15".parse::<TimeUnit>(),
            Ok(TimeUnit::Cycles(1e15))
        );
        assert_eq!(
            "cycles:1THz".parse::<TimeUnit>(),
            Ok(TimeUnit::Cycles(1e12))
        );
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
