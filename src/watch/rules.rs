//! Pure decisions of the watcher: what a file is, whether a dump is ready, when to look
//! again, which log belongs to a dump, and whether a version was already announced.
//! No I/O here, so every rule is unit-tested directly.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

pub use cpuprof_core::folder_entry::{name_kind, NameKind, HEADER_LEN};

const IDENTIFIER: &[u8; 4] = b"ED00";

/// What the first bytes of a file say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sniff {
    /// Fewer than `HEADER_LEN` bytes: cannot tell yet.
    TooShort,
    /// Bytes 8..12 are not `ED00`.
    NotEtDump(String),
    /// An ETDump header; `prefix` = bytes that follow the 4-byte size prefix.
    EtDump { prefix: u32 },
}

pub fn sniff(head: &[u8]) -> Sniff {
    if head.len() < HEADER_LEN {
        return Sniff::TooShort;
    }
    if &head[8..12] != IDENTIFIER {
        return Sniff::NotEtDump(format!(
            "not an ETDump: identifier is \"{}\", expected \"ED00\"",
            head[8..12].escape_ascii()
        ));
    }
    Sniff::EtDump {
        prefix: u32::from_le_bytes([head[0], head[1], head[2], head[3]]),
    }
}

/// The decision for one dump version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Completeness {
    /// Size prefix satisfied and quiet for the quiet period: load it.
    Ready,
    /// Size prefix satisfied (or content final) but written too recently: look again after.
    Settling(Duration),
    /// Size prefix not satisfied yet (or too short to tell): retry with backoff.
    Incomplete,
    /// Not an ETDump, and quiet (not being rewritten): report it.
    Garbage(String),
}

/// Decide from the file length, what its header says, and when it last changed.
/// `last_change` is the latest instant the file is known to have been written.
pub fn completeness(
    len: u64,
    sniff: &Sniff,
    last_change: Instant,
    now: Instant,
    quiet: Duration,
) -> Completeness {
    let quiet_for = now.saturating_duration_since(last_change);
    let settled = quiet_for >= quiet;
    match sniff {
        Sniff::TooShort => Completeness::Incomplete,
        Sniff::EtDump { prefix } if len < 4 + u64::from(*prefix) => Completeness::Incomplete,
        Sniff::EtDump { .. } if settled => Completeness::Ready,
        Sniff::NotEtDump(why) if settled => Completeness::Garbage(why.clone()),
        Sniff::EtDump { .. } | Sniff::NotEtDump(_) => Completeness::Settling(quiet - quiet_for),
    }
}

/// What to say about a dump that stayed incomplete for `quiet_for`: its writer probably
/// stopped (crash, full disk), or it is not an ETDump at all.
pub fn stalled_message(len: u64, sniff: &Sniff, quiet_for: Duration) -> String {
    let secs = quiet_for.as_secs();
    match sniff {
        Sniff::EtDump { prefix } => format!(
            "incomplete ETDump: size prefix says {prefix} bytes follow, only {} present, \
             unchanged for {secs} s (did the writer stop?)",
            len.saturating_sub(4)
        ),
        _ => format!("only {len} bytes, too short for an ETDump header, unchanged for {secs} s"),
    }
}

/// When the file last changed, as far as we can tell: when we first saw this version, or
/// earlier if its mtime is already older than that (a file that was finished before we
/// looked need not wait out the quiet period again). mtimes in the future are ignored.
pub fn last_change(
    first_seen: Instant,
    mtime: SystemTime,
    now: Instant,
    now_wall: SystemTime,
) -> Instant {
    match now_wall.duration_since(mtime) {
        Ok(age) => match now.checked_sub(age) {
            Some(t) if t < first_seen => t,
            _ => first_seen,
        },
        Err(_) => first_seen,
    }
}

pub const BACKOFF_FIRST: Duration = Duration::from_millis(100);
pub const BACKOFF_MAX: Duration = Duration::from_secs(2);

/// Delay before the `attempt`-th retry of an incomplete dump (0-based): 100 ms doubling,
/// capped at 2 s. The attempt count restarts whenever the file changes.
pub fn backoff(attempt: u32) -> Duration {
    BACKOFF_FIRST
        .checked_mul(1u32.checked_shl(attempt).unwrap_or(u32::MAX))
        .map_or(BACKOFF_MAX, |d| d.min(BACKOFF_MAX))
}

/// Logs considered only if written at most this long before the dump when there is no
/// earlier dump to bound the run.
pub const MAX_RUN: Duration = Duration::from_secs(3600);

/// A log file seen in the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    pub path: PathBuf,
    pub modified: SystemTime,
    /// A dump with the log's stem exists beside it: the log is that dump's.
    pub claimed: bool,
}

/// The log of `dump`: `<stem>.log` beside it if present; else the newest unclaimed log in
/// the same directory modified during the same run, i.e. after the previous dump
/// (`prev_dump`, the newest older dump there; else at most `MAX_RUN` before) and at most
/// `slack` after this one (runners print after writing the dump).
pub fn pick_log(
    dump: &Path,
    dump_modified: SystemTime,
    prev_dump: Option<SystemTime>,
    logs: &[LogFile],
    slack: Duration,
) -> Option<PathBuf> {
    let same_stem = dump.with_extension("log");
    if logs.iter().any(|l| l.path == same_stem) {
        return Some(same_stem);
    }
    let dir = dump.parent();
    let upper = dump_modified.checked_add(slack).unwrap_or(dump_modified);
    let lower = prev_dump.or_else(|| dump_modified.checked_sub(MAX_RUN));
    logs.iter()
        .filter(|l| !l.claimed && l.path.parent() == dir)
        .filter(|l| l.modified <= upper && lower.is_none_or(|lo| l.modified > lo))
        .max_by(|a, b| {
            a.modified
                .cmp(&b.modified)
                .then_with(|| a.path.cmp(&b.path))
        })
        .map(|l| l.path.clone())
}

/// The last version announced per dump path, so one version is announced once.
#[derive(Debug, Default)]
pub struct Dedupe {
    last: HashMap<PathBuf, (u64, SystemTime)>,
}

impl Dedupe {
    /// True if (path, size, mtime) is not the version last announced for path (and
    /// records it).
    pub fn admit(&mut self, path: &Path, size: u64, modified: SystemTime) -> bool {
        let version = (size, modified);
        match self.last.get(path) {
            Some(v) if *v == version => false,
            _ => {
                self.last.insert(path.to_path_buf(), version);
                true
            }
        }
    }

    /// The path was removed: a file coming back later is a new arrival.
    pub fn forget(&mut self, path: &Path) -> bool {
        self.last.remove(path).is_some()
    }

    #[cfg(test)]
    pub fn contains(&self, path: &Path) -> bool {
        self.last.contains_key(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(prefix: u32, ident: &[u8; 4]) -> Vec<u8> {
        let mut v = prefix.to_le_bytes().to_vec();
        v.extend_from_slice(&20u32.to_le_bytes());
        v.extend_from_slice(ident);
        v
    }

    #[test]
    fn names() {
        assert_eq!(name_kind(Path::new("d/a.etdp")), NameKind::Dump);
        assert_eq!(name_kind(Path::new("d/a.ETDUMP")), NameKind::Dump);
        assert_eq!(name_kind(Path::new("a.log")), NameKind::Log);
        assert_eq!(name_kind(Path::new("a.bin")), NameKind::Maybe);
        assert_eq!(name_kind(Path::new("a")), NameKind::Maybe);
        assert_eq!(name_kind(Path::new(".a.etdp")), NameKind::Ignored);
        assert_eq!(name_kind(Path::new("a.etdp.tmp")), NameKind::Ignored);
        assert_eq!(name_kind(Path::new("a.etdp~")), NameKind::Ignored);
        assert_eq!(name_kind(Path::new("a.part")), NameKind::Ignored);
    }

    #[test]
    fn sniffing() {
        assert_eq!(sniff(&[]), Sniff::TooShort);
        assert_eq!(sniff(&header(100, b"ED00")[..11]), Sniff::TooShort);
        assert_eq!(sniff(&header(100, b"ED00")), Sniff::EtDump { prefix: 100 });
        match sniff(&header(100, b"XY00")) {
            Sniff::NotEtDump(why) => assert!(why.contains("\"XY00\""), "{why}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn completeness_needs_prefix_and_quiet() {
        let t0 = Instant::now();
        let quiet = Duration::from_millis(150);
        let dump = Sniff::EtDump { prefix: 96 };
        let later = t0 + Duration::from_millis(400);
        // 4 + 96 = 100 bytes needed.
        assert_eq!(
            completeness(99, &dump, t0, later, quiet),
            Completeness::Incomplete
        );
        assert_eq!(
            completeness(100, &dump, t0, later, quiet),
            Completeness::Ready
        );
        // Longer than the prefix says: complete (the loader reports trailing bytes).
        assert_eq!(
            completeness(101, &dump, t0, later, quiet),
            Completeness::Ready
        );
        // Exactly the quiet period counts as quiet.
        assert_eq!(
            completeness(100, &dump, t0, t0 + quiet, quiet),
            Completeness::Ready
        );
        assert_eq!(
            completeness(100, &dump, t0, t0 + Duration::from_millis(50), quiet),
            Completeness::Settling(Duration::from_millis(100))
        );
        // A last change "after now" (clock races) waits the whole period.
        assert_eq!(
            completeness(100, &dump, later, t0, quiet),
            Completeness::Settling(quiet)
        );
    }

    #[test]
    fn stalled_messages_say_what_is_missing() {
        let m = stalled_message(104, &Sniff::EtDump { prefix: 500 }, Duration::from_secs(12));
        assert!(
            m.contains("500 bytes follow, only 100 present") && m.contains("12 s"),
            "{m}"
        );
        let m = stalled_message(8, &Sniff::TooShort, Duration::from_secs(10));
        assert!(m.starts_with("only 8 bytes"), "{m}");
    }

    #[test]
    fn garbage_only_when_quiet_and_short_files_wait() {
        let t0 = Instant::now();
        let quiet = Duration::from_millis(150);
        let bad = Sniff::NotEtDump("not an ETDump".into());
        assert_eq!(
            completeness(5000, &bad, t0, t0 + Duration::from_millis(10), quiet),
            Completeness::Settling(Duration::from_millis(140))
        );
        assert_eq!(
            completeness(5000, &bad, t0, t0 + quiet, quiet),
            Completeness::Garbage("not an ETDump".into())
        );
        assert_eq!(
            completeness(3, &Sniff::TooShort, t0, t0 + Duration::from_secs(60), quiet),
            Completeness::Incomplete
        );
    }

    #[test]
    fn last_change_uses_old_mtime_but_not_future_ones() {
        let now = Instant::now();
        let wall = SystemTime::now();
        let seen = now;
        let old = wall - Duration::from_secs(5);
        assert_eq!(
            last_change(seen, old, now, wall),
            now.checked_sub(Duration::from_secs(5)).unwrap_or(seen)
        );
        let future = wall + Duration::from_secs(5);
        assert_eq!(last_change(seen, future, now, wall), seen);
        // An mtime newer than the first sighting cannot move the sighting later.
        let seen_earlier = now - Duration::from_millis(500);
        assert_eq!(
            last_change(seen_earlier, wall - Duration::from_millis(100), now, wall),
            seen_earlier
        );
    }

    #[test]
    fn backoff_doubles_to_two_seconds() {
        let ms: Vec<u128> = (0..8).map(|a| backoff(a).as_millis()).collect();
        assert_eq!(ms, [100, 200, 400, 800, 1600, 2000, 2000, 2000]);
        assert_eq!(backoff(31), BACKOFF_MAX);
        assert_eq!(backoff(32), BACKOFF_MAX);
        assert_eq!(backoff(u32::MAX), BACKOFF_MAX);
    }

    fn log(path: &str, at: SystemTime, claimed: bool) -> LogFile {
        LogFile {
            path: PathBuf::from(path),
            modified: at,
            claimed,
        }
    }

    #[test]
    fn same_stem_log_wins() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let logs = [
            log("d/a.log", t - Duration::from_secs(7200), true),
            log("d/run.log", t, false),
        ];
        let got = pick_log(
            Path::new("d/a.etdp"),
            t,
            None,
            &logs,
            Duration::from_secs(1),
        );
        assert_eq!(got, Some(PathBuf::from("d/a.log")));
    }

    #[test]
    fn newest_log_of_the_same_run() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let s = |secs: i64| {
            if secs >= 0 {
                t + Duration::from_secs(secs as u64)
            } else {
                t - Duration::from_secs((-secs) as u64)
            }
        };
        let slack = Duration::from_secs(1);
        let logs = [
            log("d/old.log", s(-30), false), // before the previous dump
            log("d/run1.log", s(-5), false), // during this run
            log("d/run2.log", s(-2), false), // during this run, newer
            log("d/other.log", s(-1), true), // belongs to d/other.etdp
            log("e/run.log", s(0), false),   // another directory
            log("d/late.log", s(3), false),  // after the slack: the next run's
        ];
        let got = pick_log(Path::new("d/x.etdp"), t, Some(s(-10)), &logs, slack);
        assert_eq!(got, Some(PathBuf::from("d/run2.log")));

        // Printed just after the dump: within the slack.
        let logs2 = [log("d/run.log", s(1), false)];
        let got = pick_log(Path::new("d/x.etdp"), t, Some(s(-10)), &logs2, slack);
        assert_eq!(got, Some(PathBuf::from("d/run.log")));

        // Only logs older than the previous dump: none.
        let got = pick_log(Path::new("d/x.etdp"), t, Some(s(-10)), &logs[..1], slack);
        assert_eq!(got, None);

        // No previous dump: bounded by MAX_RUN.
        assert_eq!(
            pick_log(Path::new("d/x.etdp"), t, None, &logs[..1], slack),
            Some(PathBuf::from("d/old.log"))
        );
        let ancient = [log("d/ancient.log", s(-7200), false)];
        assert_eq!(
            pick_log(Path::new("d/x.etdp"), t, None, &ancient, slack),
            None
        );
        assert_eq!(pick_log(Path::new("d/x.etdp"), t, None, &[], slack), None);
    }

    #[test]
    fn dedupe_by_path_size_mtime() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(5);
        let mut d = Dedupe::default();
        let a = Path::new("d/a.etdp");
        assert!(d.admit(a, 10, t));
        assert!(!d.admit(a, 10, t));
        assert!(d.admit(Path::new("d/b.etdp"), 10, t));
        assert!(d.admit(a, 11, t), "size changed: new version");
        assert!(d.admit(a, 11, t + Duration::from_nanos(1)), "mtime changed");
        assert!(!d.admit(a, 11, t + Duration::from_nanos(1)));
        assert!(d.contains(a));
        assert!(d.forget(a));
        assert!(!d.forget(a));
        assert!(
            d.admit(a, 11, t + Duration::from_nanos(1)),
            "came back after removal"
        );
    }
}
