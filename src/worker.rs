//! Background loading: a std thread loads a profile or trace into the view model,
//! sending progress and the result into the one event channel the UI loop reads.
//! Each request carries a generation; starting a newer one cancels the older.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Least time between two progress reports of one phase.
const PROGRESS_EVERY: Duration = Duration::from_millis(40);

use ratatui::crossterm::event::Event as TermEvent;

use crate::app::ExplorerData;
use crate::profile::{LoadError, LoadPhase, LoadProgress, ProfileRequest};
use crate::threads::panic_message;
use crate::watch::WatchEvent;

/// Everything the UI loop waits for, from the input thread and the worker.
#[derive(Debug)]
pub enum Event {
    Input(TermEvent),
    /// The input thread could not read the terminal any more.
    InputClosed,
    Progress {
        generation: u64,
        progress: LoadProgress,
    },
    Loaded {
        generation: u64,
        result: Result<Box<ExplorerData>, LoadError>,
    },
    /// From the directory watcher (`--watch`).
    Watch(WatchEvent),
    /// A retry timer for an incomplete dump fired.
    RetryDue,
    /// Something drawn over the explorer changed (`tui::Companion`): draw a frame.
    Redraw,
    /// A timeline loaded for the timeline view.
    TimelineLoaded {
        generation: u64,
        result: Result<Box<crate::timeline::AnyTimeline>, String>,
    },
    /// The fleet view's profiles found, loaded and summarised (`tui::run_fleet`).
    FleetLoaded(crate::views::fleet::state::FleetResult),
}

/// What the loader thread runs (the real one is `load_explorer_data`).
pub type LoadFn = fn(
    &ProfileRequest,
    &mut dyn FnMut(LoadProgress),
    &AtomicBool,
) -> Result<ExplorerData, LoadError>;

pub struct Worker {
    tx: Sender<Event>,
    current: Option<Arc<AtomicBool>>,
    load: LoadFn,
}

impl Worker {
    pub fn new(tx: Sender<Event>) -> Worker {
        Worker::with_loader(tx, load_explorer_data)
    }

    /// A worker running `load` instead of the real loader (tests).
    pub fn with_loader(tx: Sender<Event>, load: LoadFn) -> Worker {
        Worker {
            tx,
            current: None,
            load,
        }
    }

    /// Start loading `request`; the previous load (if any) is cancelled.
    pub fn start(&mut self, request: ProfileRequest, generation: u64) {
        self.cancel();
        let cancel = Arc::new(AtomicBool::new(false));
        self.current = Some(cancel.clone());
        let tx = self.tx.clone();
        let load = self.load;
        let spawned = thread::Builder::new()
            .name(format!("load-{generation}"))
            .spawn(move || {
                let mut last: Option<(LoadPhase, u64, Instant)> = None;
                let mut progress = |p: LoadProgress| {
                    // On a phase change and at the end; between them at most every 0.5%
                    // and every 40 ms (25 frames a second move a gauge smoothly; a frame
                    // per 0.5% was ~200 frames in a one-second load, drawn on the cores
                    // the load runs on).
                    let step = (p.bytes_total / 200).max(1);
                    let send = match last {
                        Some((phase, done, at)) => {
                            phase != p.phase
                                || p.bytes_done == p.bytes_total
                                || (p.bytes_done >= done + step && at.elapsed() >= PROGRESS_EVERY)
                        }
                        None => true,
                    };
                    if send {
                        last = Some((p.phase, p.bytes_done, Instant::now()));
                        let _ = tx.send(Event::Progress {
                            generation,
                            progress: p,
                        });
                    }
                };
                // A panic in the loader is a bug on one input, not a reason to hang the
                // gauge (or the watch queue) forever: it becomes this load's error.
                let result = panic::catch_unwind(AssertUnwindSafe(|| {
                    load(&request, &mut progress, &cancel)
                }))
                .unwrap_or_else(|payload| {
                    Err(LoadError::BadInput {
                        path: request.etdump.display().to_string(),
                        detail: format!(
                            "internal error while loading: {}",
                            panic_message(&*payload)
                        ),
                    })
                })
                .map(Box::new);
                if !cancel.load(Ordering::Relaxed) {
                    let _ = tx.send(Event::Loaded { generation, result });
                } // else superseded: nobody wants this result
                release_freed_heap();
            });
        if let Err(e) = spawned {
            let _ = self.tx.send(Event::Loaded {
                generation,
                result: Err(LoadError::BadInput {
                    path: String::from("(worker)"),
                    detail: format!("cannot start loader thread: {e}"),
                }),
            });
        }
    }

    pub fn cancel(&mut self) {
        if let Some(c) = self.current.take() {
            c.store(true, Ordering::Relaxed);
        }
    }
}

/// After a load, give the heap it freed back to the system. A big dump's decode and
/// build free hundreds of MB (the decoded events, the per-row sample buffers) in this
/// thread's malloc arena, which glibc keeps for reuse: the explorer would sit at that
/// size for the rest of its life, and the timeline load (`t`) would stack its own peak
/// on top (1 GB dump: ~340 MB resident after the load without this, see
/// `benches/explorer_scale.rs`). Run after the result is sent, so it never delays it.
pub(crate) fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free memory of glibc's arenas to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// Load `request` into the explorer's view model. `request.etdump` may name a trace, in
/// which case the log and warm-up do not apply.
pub fn load_explorer_data(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<ExplorerData, LoadError> {
    use crate::source::{load_source, Source};
    Ok(match load_source(request, progress, cancel)? {
        Source::Profile(p) => ExplorerData::from_profile(&p),
        Source::Trace(t) => ExplorerData::from_trace(&t),
    })
}
