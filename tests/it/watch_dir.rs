//! The directory watcher against a writer thread in a temp dir: chunked writes, a
//! rename over an existing dump, a deletion, garbage, a dump without a log, a log of the
//! same run with another name. Each with the native watcher and with `poll: true`. Every
//! Ready is loaded and checked against the fixture truth (`runs_total`).

use crate::common;

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use common::{fixture, json};
use cpuprof_tui::profile::load_profile;
use cpuprof_tui::watch::{spawn_watcher, DumpPair, WatchConfig, WatchError, WatchEvent};

/// Generous: a loaded CI machine may be slow; the wait ends as soon as the event comes.
const EVENT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause between chunks: longer than debounce + quiet, so the watcher really looks at
/// the partial file.
const CHUNK_PAUSE: Duration = Duration::from_millis(300);
const GRACE: Duration = Duration::from_millis(600);

fn config(dir: &Path, poll: bool) -> WatchConfig {
    WatchConfig {
        poll,
        debounce: Duration::from_millis(100),
        quiet_period: Duration::from_millis(100),
        log_grace: GRACE,
        poll_interval: Duration::from_millis(100),
        ..WatchConfig::new(dir)
    }
}

fn dump_bytes() -> Vec<u8> {
    fs::read(fixture("cpu/mlp_basic.etdp")).unwrap()
}

fn log_bytes() -> Vec<u8> {
    fs::read(fixture("cpu/mlp_basic.log")).unwrap()
}

fn runs_total() -> usize {
    json("cpu/mlp_basic.truth.json")["runs_total"]
        .as_u64()
        .unwrap() as usize
}

fn next_event(rx: &Receiver<WatchEvent>, within: Duration) -> Option<WatchEvent> {
    match rx.recv_timeout(within) {
        Ok(ev) => Some(ev),
        Err(RecvTimeoutError::Timeout) => None,
        Err(RecvTimeoutError::Disconnected) => panic!("watcher stopped"),
    }
}

fn expect_ready(rx: &Receiver<WatchEvent>, what: &str) -> DumpPair {
    match next_event(rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Ready(pair)) => pair,
        other => panic!("{what}: expected Ready, got {other:?}"),
    }
}

fn expect_nothing(rx: &Receiver<WatchEvent>, for_: Duration, what: &str) {
    if let Some(ev) = next_event(rx, for_) {
        panic!("{what}: unexpected event {ev:?}");
    }
}

/// What the explorer will do with a Ready: run the pipeline on it.
fn assert_loads(pair: &DumpPair) {
    let profile = load_profile(&pair.request(0), &mut |_| {}, &AtomicBool::new(false))
        .unwrap_or_else(|e| panic!("{}: {e}", pair.etdump.display()));
    assert_eq!(
        profile.runs.total,
        runs_total(),
        "{}",
        pair.etdump.display()
    );
}

fn write_in_chunks(path: &Path, bytes: &[u8], cuts: &[usize]) {
    let mut file = File::create(path).unwrap();
    let mut from = 0;
    for &to in cuts.iter().chain([bytes.len()].iter()) {
        file.write_all(&bytes[from..to]).unwrap();
        file.flush().unwrap();
        from = to;
        if to < bytes.len() {
            thread::sleep(CHUNK_PAUSE);
        }
    }
}

fn scenario(poll: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (tx, rx) = mpsc::channel();
    let handle = spawn_watcher(config(dir, poll), tx).unwrap();
    let dump = dir.join("mlp_basic.etdp");
    let log = dir.join("mlp_basic.log");
    let bytes = dump_bytes();

    // 1. A writer thread plays the runner: its log, then the dump in chunks with pauses
    //    (the first chunk shorter than a header). One Ready, with the same-stem log, and
    //    only after the last chunk.
    let writer = {
        let (dump, log, bytes) = (dump.clone(), log.clone(), bytes.clone());
        thread::spawn(move || {
            fs::write(&log, log_bytes()).unwrap();
            thread::sleep(CHUNK_PAUSE);
            write_in_chunks(&dump, &bytes, &[7, 5000, 12000]);
            Instant::now()
        })
    };
    let first = expect_ready(&rx, "chunked dump");
    let received = Instant::now();
    let written = writer.join().unwrap();
    assert!(received >= written, "Ready before the dump was complete");
    eprintln!(
        "poll={poll}: write finished -> Ready in {:?}",
        received - written
    );
    assert_eq!(first.etdump, dump);
    assert_eq!(first.log.as_deref(), Some(log.as_path()));
    assert_eq!(first.size, bytes.len() as u64);
    assert_loads(&first);

    // 2. A new version written beside it and renamed over it: a second Ready.
    let tmp_path = dir.join(".mlp_basic.etdp.tmp");
    fs::write(&tmp_path, &bytes).unwrap();
    fs::rename(&tmp_path, &dump).unwrap();
    let second = expect_ready(&rx, "renamed over");
    assert_eq!(second.etdump, dump);
    assert_eq!(second.log.as_deref(), Some(log.as_path()));
    assert_ne!(second.modified, first.modified, "a new version");
    assert_loads(&second);

    // 3. The run is deleted: Removed for the dump (logs are not announced).
    fs::remove_file(&dump).unwrap();
    fs::remove_file(&log).unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Removed(p)) => assert_eq!(p, dump),
        other => panic!("expected Removed, got {other:?}"),
    }

    // 4. Garbage with a dump name: one Error naming it.
    let garbage = dir.join("garbage.etdp");
    fs::write(
        &garbage,
        b"this is not an ETDump, just some text of fair length\n",
    )
    .unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(ev @ WatchEvent::Error { .. }) => {
            let WatchEvent::Error { path, message, .. } = &ev else {
                unreachable!()
            };
            assert_eq!(path, &garbage);
            assert!(message.contains("not an ETDump"), "{message}");
            let line = ev.to_string();
            assert!(
                line.contains("garbage.etdp") && !line.contains('\n'),
                "{line}"
            );
        }
        other => panic!("expected Error, got {other:?}"),
    }

    // 5. A dump without a log (and no log in the directory): Ready alone after the grace.
    let solo = dir.join("solo.etdump");
    fs::write(&solo, &bytes).unwrap();
    let written = Instant::now();
    let alone = expect_ready(&rx, "dump without log");
    assert_eq!(alone.etdump, solo);
    assert_eq!(alone.log, None);
    assert!(
        written.elapsed() >= GRACE - Duration::from_millis(50),
        "announced after {:?}, before the grace",
        written.elapsed()
    );
    assert_loads(&alone);

    // 6. A run whose log has another name, written just before its dump (an unusual dump
    //    name too, recognised by content): paired with that log.
    let run_log = dir.join("runner_output.log");
    let run_dump = dir.join("run7.bin");
    fs::write(&run_log, log_bytes()).unwrap();
    fs::write(&run_dump, &bytes).unwrap();
    let paired = expect_ready(&rx, "log of the same run");
    assert_eq!(paired.etdump, run_dump);
    assert_eq!(paired.log.as_deref(), Some(run_log.as_path()));
    assert_loads(&paired);

    // Each version once: nothing more.
    expect_nothing(&rx, Duration::from_millis(500), "at the end");
    drop(handle);
}

#[test]
fn writer_scenario_native() {
    scenario(false);
}

#[test]
fn writer_scenario_poll() {
    scenario(true);
}

#[test]
fn existing_files_are_announced_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("mlp_basic.etdp"), dump_bytes()).unwrap();
    fs::write(dir.join("mlp_basic.log"), log_bytes()).unwrap();
    fs::write(dir.join("notes.txt"), b"some notes, not a dump at all\n").unwrap();
    // A truncated dump stays pending (retried, not an error).
    fs::write(dir.join("partial.etdp"), &dump_bytes()[..9000]).unwrap();
    fs::create_dir(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/deep.etdp"), dump_bytes()).unwrap();

    let (tx, rx) = mpsc::channel();
    let _handle = spawn_watcher(config(dir, false), tx).unwrap();
    let pair = expect_ready(&rx, "existing pair");
    assert_eq!(pair.etdump, dir.join("mlp_basic.etdp"));
    assert_eq!(pair.log, Some(dir.join("mlp_basic.log")));
    assert_loads(&pair);
    // Not recursive: sub/ is not looked at.
    expect_nothing(&rx, GRACE + Duration::from_millis(400), "after the pair");

    // Completing the partial dump in place announces it (with no log of its own, and the
    // only log is claimed by mlp_basic.etdp).
    let mut f = OpenOptions::new()
        .append(true)
        .open(dir.join("partial.etdp"))
        .unwrap();
    f.write_all(&dump_bytes()[9000..]).unwrap();
    drop(f);
    let done = expect_ready(&rx, "completed partial");
    assert_eq!(done.etdump, dir.join("partial.etdp"));
    assert_eq!(done.log, None);
    assert_loads(&done);
}

#[test]
fn recursive_watch_sees_subdirectories() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (tx, rx) = mpsc::channel();
    let cfg = WatchConfig {
        recursive: true,
        ..config(dir, false)
    };
    let _handle = spawn_watcher(cfg, tx).unwrap();
    let sub: PathBuf = dir.join("run1");
    fs::create_dir(&sub).unwrap();
    // Give the watcher a moment to add the new directory before writing into it; the
    // listing after any event finds the files either way.
    thread::sleep(Duration::from_millis(50));
    fs::write(sub.join("mlp_basic.log"), log_bytes()).unwrap();
    fs::write(sub.join("mlp_basic.etdp"), dump_bytes()).unwrap();
    let pair = expect_ready(&rx, "dump in a subdirectory");
    assert_eq!(pair.etdump, sub.join("mlp_basic.etdp"));
    assert_eq!(pair.log, Some(sub.join("mlp_basic.log")));
}

#[cfg(unix)]
#[test]
fn unreadable_dump_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let locked = dir.join("locked.etdp");
    fs::write(&locked, dump_bytes()).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if File::open(&locked).is_ok() {
        eprintln!("skipped: running with privileges that read mode-000 files (root?)");
        return;
    }
    let (tx, rx) = mpsc::channel();
    let _handle = spawn_watcher(config(dir, false), tx).unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Error { path, message, .. }) => {
            assert_eq!(path, locked);
            assert!(message.contains("permission denied"), "{message}");
        }
        other => panic!("expected Error, got {other:?}"),
    }
    // Readable again (chmod changes ctime): a new look, and the dump is announced.
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o644)).unwrap();
    let pair = expect_ready(&rx, "readable again");
    assert_eq!(pair.etdump, locked);
}

#[test]
fn missing_or_non_directory_is_an_error_at_start() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("nope");
    let (tx, _rx) = mpsc::channel();
    let err = spawn_watcher(WatchConfig::new(&missing), tx.clone()).unwrap_err();
    assert!(matches!(err, WatchError::Missing { .. }), "{err:?}");
    let line = err.to_string();
    assert!(line.contains("nope") && !line.contains('\n'), "{line}");

    let file = tmp.path().join("file.etdp");
    fs::write(&file, b"x").unwrap();
    for poll in [false, true] {
        let cfg = WatchConfig {
            poll,
            ..WatchConfig::new(&file)
        };
        let err = spawn_watcher(cfg, tx.clone()).unwrap_err();
        assert!(matches!(err, WatchError::NotADirectory { .. }), "{err:?}");
        assert!(err.to_string().contains("file.etdp"), "{err}");
    }
}

#[test]
fn closure_sink_wraps_events_and_stops_when_refused() {
    #[derive(Debug)]
    enum AppEvent {
        Watch(WatchEvent),
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("a.etdp"), dump_bytes()).unwrap();
    let (tx, rx) = mpsc::channel::<AppEvent>();
    let handle = spawn_watcher(config(dir, false), move |ev| {
        tx.send(AppEvent::Watch(ev)).is_ok()
    })
    .unwrap();
    match rx.recv_timeout(EVENT_TIMEOUT) {
        Ok(AppEvent::Watch(WatchEvent::Ready(p))) => assert_eq!(p.etdump, dir.join("a.etdp")),
        other => panic!("{other:?}"),
    }
    // The receiver goes away: the next event is refused and the worker ends by itself.
    drop(rx);
    fs::write(dir.join("b.etdp"), dump_bytes()).unwrap();
    let deadline = Instant::now() + EVENT_TIMEOUT;
    while handle.is_running() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(20));
    }
    assert!(!handle.is_running());
}

fn rename_away_and_delete_directory(poll: bool) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    fs::create_dir(&dir).unwrap();
    let (tx, rx) = mpsc::channel();
    let _handle = spawn_watcher(config(&dir, poll), tx).unwrap();
    let a = dir.join("a.etdp");
    fs::write(&a, dump_bytes()).unwrap();
    assert_eq!(expect_ready(&rx, "a").etdump, a);

    // Renamed to another dump name: the old one is removed, the new name is announced.
    let b = dir.join("b.etdp");
    fs::rename(&a, &b).unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Removed(p)) => assert_eq!(p, a),
        other => panic!("expected Removed, got {other:?}"),
    }
    assert_eq!(expect_ready(&rx, "b").etdump, b);

    // The directory itself goes: its dump is removed and the directory is reported.
    fs::remove_dir_all(&dir).unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Removed(p)) => assert_eq!(p, b),
        other => panic!("expected Removed, got {other:?}"),
    }
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Error { path, .. }) => assert_eq!(path, dir),
        other => panic!("expected Error for the directory, got {other:?}"),
    }
}

#[test]
fn rename_away_and_deleted_directory_native() {
    rename_away_and_delete_directory(false);
}

#[test]
fn rename_away_and_deleted_directory_poll() {
    rename_away_and_delete_directory(true);
}

#[test]
fn handle_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<cpuprof_tui::watch::WatchHandle>();
}

/// Odd directory entries: none may stop the watcher or be announced; a good dump written
/// afterwards is still announced.
#[cfg(unix)]
#[test]
fn odd_entries_are_survived() {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // A FIFO named like a dump (opening it would block).
    let _ = std::process::Command::new("mkfifo")
        .arg(dir.join("fifo.etdp"))
        .status();
    fs::create_dir(dir.join("folder.etdp")).unwrap();
    symlink(dir.join("nowhere"), dir.join("dangling.etdp")).unwrap();
    symlink(dir.join("loop.etdp"), dir.join("loop.etdp")).unwrap();
    fs::write(dir.join("empty.etdp"), b"").unwrap();
    // A header whose size prefix promises 4 GB: incomplete, retried, never an error.
    let mut huge = u32::MAX.to_le_bytes().to_vec();
    huge.extend_from_slice(&[0, 0, 0, 0]);
    huge.extend_from_slice(b"ED00");
    fs::write(dir.join("huge.etdp"), &huge).unwrap();
    fs::write(dir.join("no_ext"), [0u8; 5]).unwrap();

    for poll in [false, true] {
        let (tx, rx) = mpsc::channel();
        let handle = spawn_watcher(config(dir, poll), tx).unwrap();
        expect_nothing(&rx, Duration::from_millis(800), "odd entries");
        assert!(handle.is_running());
        let good = dir.join(format!("good_{poll}.etdp"));
        fs::write(&good, dump_bytes()).unwrap();
        assert_eq!(expect_ready(&rx, "good dump").etdump, good);
        drop(handle);
        fs::remove_file(&good).unwrap();
    }
}

#[test]
fn extreme_durations_do_not_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    fs::write(dir.join("a.etdp"), dump_bytes()).unwrap();
    // All zero: announced at once (no log: no grace).
    let (tx, rx) = mpsc::channel();
    let zero = WatchConfig {
        debounce: Duration::ZERO,
        quiet_period: Duration::ZERO,
        log_grace: Duration::ZERO,
        poll_interval: Duration::ZERO,
        ..WatchConfig::new(dir)
    };
    for poll in [false, true] {
        let handle = spawn_watcher(
            WatchConfig {
                poll,
                ..zero.clone()
            },
            tx.clone(),
        )
        .unwrap();
        let pair = expect_ready(&rx, "zero durations");
        assert_eq!(pair.log, None);
        drop(handle);
    }
    // All huge: nothing is announced within the test, nothing overflows.
    let max = WatchConfig {
        debounce: Duration::MAX,
        quiet_period: Duration::MAX,
        log_grace: Duration::MAX,
        poll_interval: Duration::MAX,
        ..WatchConfig::new(dir)
    };
    for poll in [false, true] {
        let handle = spawn_watcher(
            WatchConfig {
                poll,
                ..max.clone()
            },
            tx.clone(),
        )
        .unwrap();
        expect_nothing(&rx, Duration::from_millis(300), "huge durations");
        assert!(handle.is_running());
    }
}

#[test]
fn a_log_written_all_the_time_does_not_hold_the_dump() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let log = dir.join("mlp_basic.log");
    fs::write(&log, log_bytes()).unwrap();
    let (tx, rx) = mpsc::channel();
    let _handle = spawn_watcher(config(&dir, false), tx).unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let appender = {
        let (log, stop) = (log.clone(), stop.clone());
        thread::spawn(move || {
            let mut f = OpenOptions::new().append(true).open(&log).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                f.write_all(b"I 00:00:00.000 still running\n").unwrap();
                thread::sleep(Duration::from_millis(30));
            }
        })
    };
    fs::write(dir.join("mlp_basic.etdp"), dump_bytes()).unwrap();
    let pair = expect_ready(&rx, "dump with a busy log");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    appender.join().unwrap();
    assert_eq!(pair.log, Some(log));
    assert_loads(&pair);
}

/// A dump whose writer stopped half-way is reported once it has been unchanged for
/// `stall_after` (never silently retried forever); finishing it later still loads it.
#[test]
fn stalled_dump_is_reported_then_recovers() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let (tx, rx) = mpsc::channel();
    let cfg = WatchConfig {
        stall_after: Duration::from_millis(400),
        ..config(dir, false)
    };
    let _handle = spawn_watcher(cfg, tx).unwrap();
    let bytes = dump_bytes();
    let path = dir.join("half.etdp");
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Error {
            path: p, message, ..
        }) => {
            assert_eq!(p, path);
            let want = format!(
                "size prefix says {} bytes follow, only {} present",
                bytes.len() - 4,
                bytes.len() / 2 - 4
            );
            assert!(message.contains(&want), "{message}");
        }
        other => panic!("expected the stalled dump to be reported, got {other:?}"),
    }
    fs::write(&path, &bytes).unwrap();
    let pair = expect_ready(&rx, "the completed dump");
    assert_eq!(pair.etdump, path);
    assert_loads(&pair);
}

/// A panic on the watcher thread (here in the sink, on the first event) ends the watch
/// with one error naming the directory, not a silent stop.
#[test]
fn a_panic_in_the_watcher_is_reported_once_and_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("junk.etdp"),
        b"not an etdump at all, long enough",
    )
    .unwrap();
    let (tx, rx) = mpsc::channel::<WatchEvent>();
    let mut first = true;
    let handle = spawn_watcher(config(dir.path(), false), move |ev| {
        if std::mem::take(&mut first) {
            panic!("sink exploded");
        }
        tx.send(ev).is_ok()
    })
    .unwrap();
    match next_event(&rx, EVENT_TIMEOUT) {
        Some(WatchEvent::Error { path, message, .. }) => {
            assert_eq!(path, dir.path());
            assert!(
                message.contains("internal error: sink exploded"),
                "{message}"
            );
        }
        other => panic!("expected the watcher's error, got {other:?}"),
    }
    let deadline = Instant::now() + EVENT_TIMEOUT;
    while handle.is_running() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(10));
    }
    assert!(!handle.is_running(), "the watcher stopped");
    // Nothing more: the channel closes with the thread.
    assert!(matches!(
        rx.recv_timeout(Duration::from_millis(50)),
        Err(RecvTimeoutError::Disconnected)
    ));
}
