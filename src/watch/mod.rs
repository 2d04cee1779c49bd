//! Live watch of a runner output directory: announces each complete ETDump (with its
//! log) once, plus removals and bad files. std threads only: notify's (debounced)
//! watcher thread says "something changed", one worker thread lists the directory,
//! decides (see `rules`) and emits `WatchEvent`s to a sink. Loading profiles is the
//! caller's job.
//!
//! How a dump is judged (details in `rules`): a dump is `*.etdp`/`*.etdump`, or any
//! other non-hidden, non-temporary file whose bytes 8..12 are `ED00`. It is ready when
//! the size prefix is satisfied and it has not changed for the quiet period (its mtime
//! counts as evidence, so a file finished before we looked need not wait again).
//! Incomplete dumps are re-checked with backoff (100 ms doubling to 2 s, restarting when
//! the file changes) and never reported. Its log is `<stem>.log`, else the newest
//! unclaimed log of the same directory written since the previous dump (up to
//! `log_grace` after this one); with no log it is announced alone `log_grace` after it
//! was finished. Each (path, size, mtime) is announced once; a removal forgets it.
//!
//! ```no_run
//! use cpuprof_tui::watch::{spawn_watcher, WatchConfig, WatchEvent};
//! let (tx, rx) = std::sync::mpsc::channel::<WatchEvent>();
//! let handle = spawn_watcher(WatchConfig::new("out/"), tx)?;
//! for event in rx {
//!     println!("{event}");
//! }
//! drop(handle);
//! # Ok::<(), cpuprof_tui::watch::WatchError>(())
//! ```

pub use cpuprof_core::folder_entry::{DumpPair, WatchEvent};

pub mod rules;
mod tracker;

use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify::{PollWatcher, RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer_opt, Config as DebounceConfig, Debouncer};

use crate::threads::panic_message;
use tracker::{KnownDirs, Settings, Tracker};

/// What to watch and how patiently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchConfig {
    pub dir: PathBuf,
    /// Also watch subdirectories (hidden ones are skipped).
    pub recursive: bool,
    /// Use a polling watcher (file systems without change events, e.g. some network mounts).
    pub poll: bool,
    /// Change events are gathered for this long after the last one before looking.
    pub debounce: Duration,
    /// A complete dump must not change for this long before it is announced.
    pub quiet_period: Duration,
    /// How long after a dump is finished to wait for its log before announcing it alone.
    pub log_grace: Duration,
    /// Scan interval of the polling watcher (`poll` only).
    pub poll_interval: Duration,
    /// An incomplete dump (or a dump-named file too short to tell) that has not changed
    /// for this long is reported on its row (its writer probably stopped); a new version
    /// is still picked up.
    pub stall_after: Duration,
}

impl WatchConfig {
    /// Defaults: not recursive, native events, debounce 200 ms, quiet 150 ms, log grace
    /// 1 s, poll interval 250 ms, stalled after 10 s.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        WatchConfig {
            dir: dir.into(),
            recursive: false,
            poll: false,
            debounce: Duration::from_millis(200),
            quiet_period: Duration::from_millis(150),
            log_grace: Duration::from_secs(1),
            poll_interval: Duration::from_millis(250),
            stall_after: Duration::from_secs(10),
        }
    }

    /// Durations kept in a range that cannot overflow or spin.
    fn sanitized(mut self) -> Self {
        const MAX: Duration = Duration::from_secs(3600);
        self.debounce = self.debounce.clamp(Duration::from_millis(1), MAX);
        self.quiet_period = self.quiet_period.min(MAX);
        self.log_grace = self.log_grace.min(MAX);
        self.poll_interval = self.poll_interval.clamp(Duration::from_millis(10), MAX);
        self.stall_after = self.stall_after.clamp(Duration::from_millis(10), MAX);
        self
    }
}

/// Why watching could not start. Display: one line naming the directory.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{}: no such directory", dir.display())]
    Missing { dir: PathBuf },
    #[error("{}: not a directory", dir.display())]
    NotADirectory { dir: PathBuf },
    #[error("{}: cannot read directory: {reason}", dir.display())]
    Unreadable { dir: PathBuf, reason: String },
    #[error("{}: cannot watch: {reason}", dir.display())]
    Watch { dir: PathBuf, reason: String },
}

/// Where events go. Implemented for `Sender<WatchEvent>` and for closures returning
/// false once nobody listens (then the watcher stops), so the caller can wrap events
/// into its own channel type:
/// `spawn_watcher(config, move |ev| tx.send(AppEvent::Watch(ev)).is_ok())`.
pub trait WatchSink: Send + 'static {
    /// Deliver one event; false means "stop watching".
    fn deliver(&mut self, event: WatchEvent) -> bool;
}

impl<F> WatchSink for F
where
    F: FnMut(WatchEvent) -> bool + Send + 'static,
{
    fn deliver(&mut self, event: WatchEvent) -> bool {
        self(event)
    }
}

impl WatchSink for mpsc::Sender<WatchEvent> {
    fn deliver(&mut self, event: WatchEvent) -> bool {
        self.send(event).is_ok()
    }
}

enum Msg {
    /// Something changed in the tree (or the backend reported an error): list it again.
    Changed,
    /// The change callback panicked (its message): report and stop.
    Failed(String),
    Stop,
}

/// The notify backend; stops its thread when dropped (held only for that).
#[allow(dead_code)]
enum Backend {
    Native(Debouncer<RecommendedWatcher>),
    Poll(Debouncer<PollWatcher>),
}

/// Running watcher. Dropping it (or `stop`) stops and joins the threads.
pub struct WatchHandle {
    dir: PathBuf,
    backend: Option<Backend>,
    control: mpsc::Sender<Msg>,
    worker: Option<JoinHandle<()>>,
}

impl WatchHandle {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// False once the worker has ended (the sink refused an event).
    pub fn is_running(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for WatchHandle {
    fn drop(&mut self) {
        drop(self.backend.take());
        let _ = self.control.send(Msg::Stop);
        if let Some(worker) = self.worker.take() {
            let _ = worker.join();
        }
    }
}

impl fmt::Debug for WatchHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WatchHandle")
            .field("dir", &self.dir)
            .finish()
    }
}

/// In poll mode the worker also lists the directory this often itself: notify's poller
/// compares mtimes in whole seconds, so it misses a file replaced within the same second.
const POLL_RESCAN: Duration = Duration::from_secs(1);
/// With native events, a slow safety listing: an overflowed event queue loses events
/// (notify-debouncer-mini drops the path-less "rescan" notice).
const NATIVE_RESCAN: Duration = Duration::from_secs(5);

/// Start watching `config.dir`: existing dumps are announced first (after the usual
/// checks), then changes. Fails at once if the directory is missing or unreadable.
pub fn spawn_watcher<S: WatchSink>(
    config: WatchConfig,
    sink: S,
) -> Result<WatchHandle, WatchError> {
    let config = config.sanitized();
    let dir = config.dir.clone();
    check_dir(&dir)?;

    let (control, inbox) = mpsc::channel::<Msg>();
    let notify_tx = control.clone();
    let known_dirs = KnownDirs::default();
    let known = Arc::clone(&known_dirs);
    let on_change = move |result: notify_debouncer_mini::DebounceEventResult| {
        // Which files changed does not matter: the worker lists the directory. Backend
        // errors (e.g. event queue overflow) also mean "look again". Events only on
        // directories already listed are the worker's own listings (see `KnownDirs`).
        let only_known = catch_unwind(AssertUnwindSafe(|| {
            let Ok(events) = &result else {
                return false;
            };
            let known = known
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            // A known directory that is no longer one was deleted or renamed away.
            events
                .iter()
                .all(|e| known.contains(&e.path) && e.path.is_dir())
        }));
        let _ = notify_tx.send(match only_known {
            Ok(true) => return,
            Ok(false) => Msg::Changed,
            Err(payload) => Msg::Failed(panic_message(&*payload)),
        });
    };
    let mode = if config.recursive {
        RecursiveMode::Recursive
    } else {
        RecursiveMode::NonRecursive
    };
    let debounce = DebounceConfig::default()
        .with_timeout(config.debounce)
        .with_batch_mode(false);
    let watch_err = |e: notify::Error| WatchError::Watch {
        dir: dir.clone(),
        reason: e.to_string(),
    };
    let backend = if config.poll {
        let notify_config = notify::Config::default().with_poll_interval(config.poll_interval);
        let mut d = new_debouncer_opt::<_, PollWatcher>(
            debounce.with_notify_config(notify_config),
            on_change,
        )
        .map_err(watch_err)?;
        d.watcher().watch(&dir, mode).map_err(watch_err)?;
        Backend::Poll(d)
    } else {
        let mut d =
            new_debouncer_opt::<_, RecommendedWatcher>(debounce, on_change).map_err(watch_err)?;
        d.watcher().watch(&dir, mode).map_err(watch_err)?;
        Backend::Native(d)
    };

    let tracker = Tracker::new(Settings {
        root: dir.clone(),
        known_dirs,
        recursive: config.recursive,
        quiet: config.quiet_period,
        grace: config.log_grace,
        stall_after: config.stall_after,
    });
    let rescan_every = if config.poll {
        POLL_RESCAN
    } else {
        NATIVE_RESCAN
    };
    let worker = std::thread::Builder::new()
        .name("cpuprof-watch".into())
        .spawn({
            let dir = dir.clone();
            move || run_guarded(&dir, tracker, inbox, sink, rescan_every)
        })
        .map_err(|e| WatchError::Watch {
            dir: dir.clone(),
            reason: e.to_string(),
        })?;
    Ok(WatchHandle {
        dir,
        backend: Some(backend),
        control,
        worker: Some(worker),
    })
}

fn check_dir(dir: &Path) -> Result<(), WatchError> {
    let meta = std::fs::metadata(dir).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => WatchError::Missing {
            dir: dir.to_path_buf(),
        },
        _ => WatchError::Unreadable {
            dir: dir.to_path_buf(),
            reason: tracker::io_message(&e),
        },
    })?;
    if !meta.is_dir() {
        return Err(WatchError::NotADirectory {
            dir: dir.to_path_buf(),
        });
    }
    std::fs::read_dir(dir).map_err(|e| WatchError::Unreadable {
        dir: dir.to_path_buf(),
        reason: tracker::io_message(&e),
    })?;
    Ok(())
}

/// `run_worker`, but a panic (in the tracker, the sink or the change callback) ends the
/// watch with one `WatchEvent::Error` naming the directory instead of a silent stop.
fn run_guarded<S: WatchSink>(
    dir: &Path,
    tracker: Tracker,
    inbox: mpsc::Receiver<Msg>,
    mut sink: S,
    rescan_every: Duration,
) {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        run_worker(tracker, inbox, &mut sink, rescan_every)
    }));
    let failure = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(message)) => message,
        Err(payload) => panic_message(&*payload),
    };
    let event = WatchEvent::Error {
        path: dir.to_path_buf(),
        message: format!("watching stopped: internal error: {failure}"),
        modified: tracker::modified_time(dir),
    };
    // The sink itself may be what panicked.
    let _ = catch_unwind(AssertUnwindSafe(|| sink.deliver(event)));
}

/// Ok when the sink or the handle stopped the watch; Err(message) when the change
/// callback panicked.
fn run_worker<S: WatchSink>(
    mut tracker: Tracker,
    inbox: mpsc::Receiver<Msg>,
    sink: &mut S,
    rescan_every: Duration,
) -> Result<(), String> {
    let mut out = Vec::new();
    let mut rescan = true; // the initial scan
    let mut next_rescan = Instant::now() + rescan_every;
    loop {
        let now = Instant::now();
        if next_rescan <= now {
            rescan = true;
            next_rescan = now + rescan_every;
        }
        if rescan {
            tracker.rescan(now, &mut out);
            rescan = false;
        }
        tracker.run_due(now, &mut out);
        for event in out.drain(..) {
            if !sink.deliver(event) {
                return Ok(());
            }
        }

        let wake = tracker
            .next_due()
            .map_or(next_rescan, |at| at.min(next_rescan));
        let msg = inbox.recv_timeout(wake.saturating_duration_since(Instant::now()));
        match msg {
            Ok(Msg::Changed) => rescan = true,
            Ok(Msg::Failed(message)) => return Err(message),
            Ok(Msg::Stop) | Err(RecvTimeoutError::Disconnected) => return Ok(()),
            Err(RecvTimeoutError::Timeout) => {}
        }
        // Coalesce a burst of change messages into one listing.
        loop {
            match inbox.try_recv() {
                Ok(Msg::Changed) => rescan = true,
                Ok(Msg::Failed(message)) => return Err(message),
                Ok(Msg::Stop) | Err(mpsc::TryRecvError::Disconnected) => return Ok(()),
                Err(mpsc::TryRecvError::Empty) => break,
            }
        }
    }
}
