//! The explorer's watch mode without a terminal: the real watcher, worker, event channel,
//! `action_for`, `update` and `apply`, against a writer thread in a temp dir that writes
//! a dump in chunks with pauses, renames a new version over it, drops garbage and deletes
//! the dump. Expected profiles come from loading the fixtures directly (mlp_basic and
//! cnn2_basic: 23 runs each; their operator counts tell them apart).

use crate::common;

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::fixture;
use cpuprof_tui::app::{update, AppState, ExplorerData, RunStatus};
use cpuprof_tui::profile::{load_profile, ProfileRequest};
use cpuprof_tui::tui::{action_for, apply, start_watcher};
use cpuprof_tui::watch::WatchConfig;
use cpuprof_tui::worker::{Event, Worker};

/// Generous for a loaded machine; every wait ends as soon as its condition holds.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Longer than debounce + quiet period: the watcher really sees the partial file.
const CHUNK_PAUSE: Duration = Duration::from_millis(300);

struct Rig {
    state: AppState,
    worker: Worker,
    tx: Sender<Event>,
    rx: Receiver<Event>,
    /// Set by the writer once the first dump is complete.
    first_done: Arc<AtomicBool>,
    dump: PathBuf,
}

impl Rig {
    /// Handle events until `cond` holds; every state in between is checked.
    fn until(&mut self, what: &str, cond: impl Fn(&AppState) -> bool) {
        let deadline = Instant::now() + TIMEOUT;
        while !cond(&self.state) {
            let left = deadline.saturating_duration_since(Instant::now());
            let ev = match self.rx.recv_timeout(left) {
                Ok(ev) => ev,
                Err(_) => panic!("timed out waiting for {what}: {:#?}", self.summary()),
            };
            if let Some(action) = action_for(ev) {
                let effects = update(&mut self.state, action);
                assert!(!apply(effects, &mut self.worker, &self.tx), "no quit");
            }
            self.invariants();
        }
    }

    fn invariants(&self) {
        // No dialog ever; only complete files load; incomplete is never an error.
        assert_eq!(self.state.error(), None);
        let w = self.state.session.watch.as_ref().unwrap();
        for e in &w.entries {
            if e.etdump == self.dump {
                if let RunStatus::Failed { message, .. } = &e.status {
                    panic!("the dump was reported as an error: {message}");
                }
                if e.status == RunStatus::Loaded {
                    assert!(
                        self.first_done.load(Ordering::SeqCst),
                        "loaded before the write finished"
                    );
                }
            }
        }
    }

    fn summary(&self) -> Vec<String> {
        let w = self.state.session.watch.as_ref().unwrap();
        w.entries
            .iter()
            .map(|e| format!("{} {:?} removed={}", e.file_name(), e.status, e.removed))
            .collect()
    }
}

fn expected(stem: &str) -> ExplorerData {
    let request = ProfileRequest::new(
        fixture(&format!("cpu/{stem}.etdp")),
        Some(fixture(&format!("cpu/{stem}.log"))),
        0,
    );
    ExplorerData::from_profile(
        &load_profile(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap(),
    )
}

fn loaded_of(s: &AppState, path: &Path) -> usize {
    let w = s.session.watch.as_ref().unwrap();
    w.entries
        .iter()
        .filter(|e| e.etdump == path && e.status == RunStatus::Loaded)
        .count()
}

fn shown_ops(s: &AppState) -> Option<usize> {
    s.session.data.as_ref().map(|d| d.ops.len())
}

fn scenario(poll: bool) {
    let (mlp, cnn) = (expected("mlp_basic"), expected("cnn2_basic"));
    assert_ne!(mlp.ops.len(), cnn.ops.len());
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let (tx, rx) = mpsc::channel();
    let config = WatchConfig {
        poll,
        debounce: Duration::from_millis(100),
        quiet_period: Duration::from_millis(100),
        log_grace: Duration::from_millis(600),
        poll_interval: Duration::from_millis(100),
        ..WatchConfig::new(&dir)
    };
    let _watch = start_watcher(config, tx.clone()).unwrap();
    let mut state = AppState::new(100, 30);
    state.start_watch(dir.display().to_string(), 0);
    let first_done = Arc::new(AtomicBool::new(false));
    let dump = dir.join("run.etdp");
    let mut rig = Rig {
        state,
        worker: Worker::new(tx.clone()),
        tx,
        rx,
        first_done: first_done.clone(),
        dump: dump.clone(),
    };

    // The writer: the log, then the dump in three chunks with pauses.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let writer_dir = dir.clone();
    let writer = thread::spawn(move || {
        let bytes = |name: &str| fs::read(fixture(&format!("cpu/{name}"))).unwrap();
        fs::write(writer_dir.join("run.log"), bytes("mlp_basic.log")).unwrap();
        let data = bytes("mlp_basic.etdp");
        let mut f = File::create(writer_dir.join("run.etdp")).unwrap();
        let third = data.len() / 3;
        for chunk in [&data[..third], &data[third..2 * third]] {
            f.write_all(chunk).unwrap();
            f.flush().unwrap();
            thread::sleep(CHUNK_PAUSE);
        }
        // Flag first: the watcher cannot see the end of the file before it is written.
        first_done.store(true, Ordering::SeqCst);
        f.write_all(&data[2 * third..]).unwrap();
        drop(f);
        // Phase 2: a new version renamed over both files (log first).
        go_rx.recv().unwrap();
        let tmp_log = writer_dir.join("run.log.partial");
        fs::write(&tmp_log, bytes("cnn2_basic.log")).unwrap();
        fs::rename(&tmp_log, writer_dir.join("run.log")).unwrap();
        let tmp_dump = writer_dir.join("run.etdp.partial");
        fs::write(&tmp_dump, bytes("cnn2_basic.etdp")).unwrap();
        fs::rename(&tmp_dump, writer_dir.join("run.etdp")).unwrap();
        // Phase 3: garbage under a dump name.
        go_rx.recv().unwrap();
        fs::write(
            writer_dir.join("junk.etdp"),
            b"this is not an ETDump, only some text".repeat(4),
        )
        .unwrap();
        // Phase 4: the dump is deleted.
        go_rx.recv().unwrap();
        fs::remove_file(writer_dir.join("run.etdp")).unwrap();
    });

    rig.until("the first complete dump", |s| loaded_of(s, &dump) == 1);
    assert_eq!(shown_ops(&rig.state), Some(mlp.ops.len()));
    let runs = rig
        .state
        .session
        .data
        .as_ref()
        .unwrap()
        .runs
        .clone()
        .unwrap();
    assert_eq!(runs.total, 23);

    go_tx.send(()).unwrap();
    rig.until("the renamed new version", |s| loaded_of(s, &dump) == 2);
    assert_eq!(shown_ops(&rig.state), Some(cnn.ops.len()), "newest shown");
    let w = rig.state.session.watch.as_ref().unwrap();
    assert_eq!(w.entries.len(), 2, "{:?}", rig.summary());

    go_tx.send(()).unwrap();
    let junk = dir.join("junk.etdp");
    rig.until("the garbage entry", |s| {
        let w = s.session.watch.as_ref().unwrap();
        w.entries.iter().any(|e| e.etdump == junk && e.is_error())
    });
    let w = rig.state.session.watch.as_ref().unwrap();
    let junk_entry = w.entries.iter().find(|e| e.etdump == junk).unwrap();
    match &junk_entry.status {
        RunStatus::Failed { message, .. } => {
            assert!(message.starts_with("junk.etdp: "), "{message}");
            assert!(!message.contains('\n'));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(w.errors(), 1);
    assert_eq!(
        shown_ops(&rig.state),
        Some(cnn.ops.len()),
        "last good stays"
    );

    go_tx.send(()).unwrap();
    rig.until("the removal", |s| {
        let w = s.session.watch.as_ref().unwrap();
        w.entries
            .iter()
            .filter(|e| e.etdump == dump)
            .all(|e| e.removed)
    });
    assert_eq!(
        shown_ops(&rig.state),
        Some(cnn.ops.len()),
        "still on screen"
    );
    assert_eq!(rig.state.session.watch.as_ref().unwrap().profiles(), 2);
    writer.join().unwrap();
}

#[test]
fn writer_thread_native_events() {
    scenario(false);
}

#[test]
fn writer_thread_polling() {
    scenario(true);
}
