//! Truth for traces written by the test-support CTF writer: the written calls, converted
//! to ns here with the clock formula written out.

use std::collections::BTreeMap;

use cpuprof_tui::trace::ctf::writer::{TruthCall, WriterConfig};

/// ns of `cycles` under the writer's clock: offset_s s + (offset + cycles) * 1e9 / freq.
pub fn to_ns(cfg: &WriterConfig, cycles: u64) -> i64 {
    let c = (cfg.clock_offset as i128 + cycles as i128) * 1_000_000_000 / cfg.clock_freq as i128;
    (cfg.clock_offset_s as i128 * 1_000_000_000 + c) as i64
}

/// Per op: (calls, total ns, min ns, max ns) from the written calls.
pub fn expected(cfg: &WriterConfig, calls: &[TruthCall]) -> BTreeMap<String, (u64, i64, i64, i64)> {
    let mut m: BTreeMap<String, (u64, i64, i64, i64)> = BTreeMap::new();
    for c in calls {
        let d = to_ns(cfg, c.start + c.dur) - to_ns(cfg, c.start);
        // Without an overload field only the schema name is recorded.
        let name = if cfg.with_overload {
            c.name.clone()
        } else {
            c.name.split('.').next().unwrap_or_default().to_string()
        };
        let e = m.entry(name).or_insert((0, 0, i64::MAX, i64::MIN));
        e.0 += 1;
        e.1 += d;
        e.2 = e.2.min(d);
        e.3 = e.3.max(d);
    }
    m
}
