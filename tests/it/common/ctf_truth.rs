//! Truth for traces written by the test-support CTF writer: the written calls, converted
//! to ns here with the clock formula written out.

use std::collections::BTreeMap;

use std::path::Path;

use cpuprof_testkit::ctf_writer::{CtfWriter, TruthCall, WriteEvent, WriterConfig};
use cpuprof_tui::trace::tally::TallyRow;

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

/// Each tally row against the written truth (`expected`): calls, no errors, total, min
/// and max; and no row missing or more.
pub fn assert_tally_rows(
    rows: &[TallyRow],
    want: &BTreeMap<String, (u64, i64, i64, i64)>,
    what: &str,
) {
    assert_eq!(rows.len(), want.len(), "{what}");
    for row in rows {
        let (n, total, min, max) = want[&*row.name];
        assert_eq!(
            (row.calls, row.errors, row.total_ns, row.min_ns, row.max_ns),
            (n, 0, total, Some(min), Some(max)),
            "{} {what}",
            row.name
        );
    }
}

/// Writes to `dir` a trace on a 1 GHz clock whose offset leaves 10,000 ns before the end
/// of the i64 ns range: of 5 calls of `aten::x` (entry at 1,000 + 4,000 i, exit 500
/// later), the first 3 fit and the 2 after 10,000 do not (4 events past the range).
pub fn write_overflowing_clock_trace(dir: &Path) {
    let cfg = WriterConfig {
        streams: 1,
        clock_offset: i64::MAX - 10_000,
        ..WriterConfig::default()
    };
    let mut w = CtfWriter::new(cfg);
    for i in 0..5u64 {
        let t = 1_000 + 4_000 * i;
        for (entry, ts) in [(true, t), (false, t + 500)] {
            let op = WriteEvent::Op {
                entry,
                vpid: 1,
                vtid: 1,
                name: "aten::x",
                overload: "",
            };
            w.event(0, ts, op);
        }
    }
    w.finish(dir).unwrap();
}

/// What `report --format json` of [`write_overflowing_clock_trace`]'s trace says: the
/// 4 events counted in a warning, 3 calls of 500 ns (0.0015 ms in all).
pub fn assert_overflowing_clock_report(o: &std::process::Output) {
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{e}");
    assert!(
        e.contains("clock_overflow") && e.contains("puts 4 event times"),
        "{e}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ops"][0]["calls"], 3);
    assert_eq!(v["ops"][0]["inclusive_total"], 0.0015);
}

/// A copy of the real recording's stream directory (`fixtures/thapi/ctf/ust/uid/0/64-bit`)
/// with `blocking-channel_1` cut to 2000 bytes, inside its first packet.
pub fn truncated_stream_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    super::copy_dir(&super::fixture("thapi/ctf/ust/uid/0/64-bit"), tmp.path());
    let f = tmp.path().join("blocking-channel_1");
    let bytes = std::fs::read(&f).unwrap();
    std::fs::write(&f, &bytes[..2000]).unwrap();
    tmp
}

/// What a report of `truncated_stream_copy` must print: exit 2, one line naming the
/// stream file and the offset of the packet cut short.
pub fn assert_truncated_stream_error(o: &std::process::Output) {
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("blocking-channel_1: packet at offset 0 is truncated"),
        "{err}"
    );
}
