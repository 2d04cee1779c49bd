//! SIGINT, SIGTERM and SIGHUP: leave nothing behind, then exit with 128 + signal.
//!
//! A thread (signal-hook's iterator: the handler itself only writes to a pipe) receives
//! the signal, removes the temporary files of outputs being written, restores the
//! terminal when the explorer had taken it over, and exits. The restore holds the stdout
//! lock from its first byte to the exit, so the explorer cannot draw over the restored
//! screen (or hide the cursor again) in between; `report` never waits for that lock (a
//! report blocked writing into a full pipe still dies on Ctrl-C).
//!
//! `cpuprof-tui run` adds one step ([`set_forward`]): after the restore, the signal goes
//! on to the runner, which gets a grace period to end before the exit. Whether a signal
//! was sent by a process (`kill`) or by the kernel (Ctrl-C, a hang-up: the runner in our
//! process group got it too) is recorded by a second, async-signal-safe action.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, OnceLock};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

/// The signals handled (anything else keeps its default action).
pub const HANDLED: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

static TERMINAL_RESTORE: OnceLock<fn()> = OnceLock::new();
static INSTALL: Once = Once::new();
/// What `cpuprof-tui run` does with a signal after the restore (it holds the run's grace
/// period: an option travels in the closure, not in a static of its own).
type Forward = Box<dyn Fn(i32) + Send + Sync>;
static FORWARD: OnceLock<Forward> = OnceLock::new();
/// Per handled signal: its last delivery was sent by a process (`si_code <= 0`).
static BY_PROCESS: [AtomicBool; 3] = [const { AtomicBool::new(false) }; 3];

/// Start handling the signals (idempotent). Without it they keep their default action.
pub fn install() {
    INSTALL.call_once(|| {
        for (i, &sig) in HANDLED.iter().enumerate() {
            // Only an atomic store in the handler (async-signal-safe); it runs before
            // the iterator's thread is woken, so `on_signal` sees this delivery's origin.
            let _ = unsafe {
                signal_hook_registry::register_sigaction(sig, move |info: &libc::siginfo_t| {
                    BY_PROCESS[i].store(info.si_code <= 0, Ordering::SeqCst);
                })
            };
        }
        let Ok(mut signals) = signal_hook::iterator::Signals::new(HANDLED) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    on_signal(sig);
                }
            });
    });
}

fn on_signal(sig: i32) -> ! {
    cpuprof_core::output::temp_files::remove_all();
    if let Some(&restore) = TERMINAL_RESTORE.get() {
        // The restoring thread takes the stdout lock and keeps it until the exit, so the
        // explorer cannot draw after the restore. A main thread blocked while holding the
        // lock (a stalled terminal) must not keep the process alive: wait 1 s at most.
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let _ = std::thread::Builder::new()
            .name("restore".into())
            .spawn(move || {
                let stdout = std::io::stdout();
                let mut lock = stdout.lock();
                restore();
                let _ = lock.flush();
                let _ = done_tx.send(());
                loop {
                    std::thread::park();
                }
            });
        let _ = done_rx.recv_timeout(std::time::Duration::from_secs(1));
    }
    if let Some(forward) = FORWARD.get() {
        forward(sig);
    }
    std::process::exit(128 + sig);
}

/// Called on a signal after the terminal is restored, before the exit (`run` registers
/// the forwarding of the signal to its runner).
pub fn set_forward(forward: impl Fn(i32) + Send + Sync + 'static) {
    let _ = FORWARD.set(Box::new(forward));
}

/// Whether the last `sig` received was sent by a process (`kill`, `sigqueue`) rather than
/// by the kernel (the terminal's Ctrl-C or hang-up, which reach the whole foreground
/// process group). False for a signal not handled here.
pub fn sent_by_a_process(sig: i32) -> bool {
    HANDLED
        .iter()
        .position(|&s| s == sig)
        .is_some_and(|i| BY_PROCESS[i].load(Ordering::SeqCst))
}

/// Called on a signal to put the terminal back (the explorer registers its restore).
pub fn set_terminal_restore(restore: fn()) {
    let _ = TERMINAL_RESTORE.set(restore);
}
