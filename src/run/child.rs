//! The runner process: started with the profiling environment, its standard error copied
//! into the run's log, waited for, stopped (SIGINT, then SIGTERM and SIGKILL after a grace
//! period each), and sent the signals `cpuprof-tui` gets.
//!
//! One runner is alive at a time. Its pid lives in [`ACTIVE`] from the spawn until the
//! runner thread has seen it exit, and it is reaped only after the pid left `ACTIVE`
//! (`waitid(WNOWAIT)` first), so a signal is never sent to a recycled pid.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::plan::RunFiles;

/// How the runner's output is captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// `--no-tui`: standard input and output are the program's; standard error goes
    /// through a pipe to a tee thread that writes the log and our standard error. The
    /// runner stays in our process group (it can read the terminal; Ctrl-C reaches it).
    Tee,
    /// The explorer has the terminal: standard input is /dev/null, standard error goes
    /// straight into the log and standard output into `<stem>-<n>.out` (the explorer
    /// follows the log file), and the runner gets a process group of its own, which is
    /// what `q` and forwarded signals are sent to. Writing to files, not pipes, lets a
    /// runner kept alive (`--keep-running`) outlive `cpuprof-tui` with its log intact.
    Files,
}

/// What to start, the same for every run but the placeholders.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The program and its arguments, placeholders not yet replaced.
    pub command: Vec<OsString>,
    pub warmup: Option<usize>,
    pub timed: Option<usize>,
    pub capture: Capture,
}

/// The environment variables a CpuBackend runner reads.
pub const ENV_ETDUMP: &str = "ET_CPU_ETDUMP";
pub const ENV_WARMUP: &str = "ET_CPU_WARMUP_RUNS";
pub const ENV_TIMED: &str = "ET_CPU_TIMED_RUNS";

/// A started runner.
pub struct Started {
    pub files: RunFiles,
    child: Child,
    tee: Option<JoinHandle<()>>,
}

/// Start one run writing `files`. The error is one line naming the program.
pub fn start(spec: &Spec, files: RunFiles) -> Result<Started, String> {
    let program = spec
        .command
        .first()
        .ok_or_else(|| "run: no program given (cpuprof-tui run -- PROGRAM ARGS)".to_string())?;
    let args = super::plan::substitute(
        &spec.command[1..],
        super::plan::Values {
            etdump: &files.etdump,
            warmup: spec.warmup,
            timed: spec.timed,
        },
    );
    let mut cmd = Command::new(program);
    cmd.args(&args).env(ENV_ETDUMP, &files.etdump);
    if let Some(w) = spec.warmup {
        cmd.env(ENV_WARMUP, w.to_string());
    }
    if let Some(t) = spec.timed {
        cmd.env(ENV_TIMED, t.to_string());
    }
    let log = OpenOptions::new()
        .append(true)
        .open(&files.log)
        .map_err(|e| format!("{}: cannot open the log: {e}", files.log.display()))?;
    match spec.capture {
        Capture::Tee => {
            cmd.stderr(Stdio::piped());
        }
        Capture::Files => {
            let out = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&files.stdout)
                .map_err(|e| format!("{}: cannot create: {e}", files.stdout.display()))?;
            cmd.stdin(Stdio::null())
                .stdout(out)
                .stderr(log.try_clone().map_err(|e| e.to_string())?)
                .process_group(0);
        }
    }
    let name = super::plan::program_name(program);
    // Registered before the spawn so that a signal arriving during it is not lost: the
    // pid is filled in at once after.
    let mut active = lock();
    if active.stop {
        return Err(format!("{name}: not started (stopping)"));
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{name}: cannot start the runner: {}", io_message(&e)))?;
    active.pid = Some(child.id() as i32);
    active.group = spec.capture == Capture::Files;
    drop(active);
    let tee = child.stderr.take().map(|pipe| spawn_tee(pipe, log));
    Ok(Started { files, child, tee })
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Copy the runner's standard error into the log and onto ours, as it comes (bytes as
/// the program wrote them: it is the program talking to its terminal).
fn spawn_tee(mut pipe: impl Read + Send + 'static, mut log: File) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name("tee".into())
        .spawn(move || {
            let mut buf = [0u8; 8192];
            let mut terminal = true;
            loop {
                let n = match pipe.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                };
                // The log first: it is what the profile is read with.
                let _ = log.write_all(&buf[..n]);
                if terminal {
                    let mut err = std::io::stderr().lock();
                    terminal = err.write_all(&buf[..n]).and_then(|_| err.flush()).is_ok();
                }
            }
        })
        .expect("spawning the tee thread")
}

impl Started {
    /// Wait for the runner to end (and for its standard error to be copied).
    pub fn wait(mut self) -> (RunFiles, ExitStatus) {
        let pid = self.child.id() as i32;
        wait_no_reap(pid);
        let status = {
            let mut active = lock();
            active.pid = None;
            // Reaped under the lock: no signal goes to the pid in between. The runner
            // is a zombie already, so this does not wait.
            let status = self
                .child
                .wait()
                .unwrap_or_else(|_| ExitStatus::from_raw(1 << 8));
            if active.group {
                // Its process group may live on (a worker it started): still ours to end.
                active.left.push(pid);
                active.left.retain(|&g| group_left_alive(g));
            }
            CHANGED.notify_all();
            status
        };
        if let Some(t) = self.tee.take() {
            // A process the runner left behind may hold the pipe open: the copy ends when
            // it does, but the run does not wait for it beyond a second.
            let deadline = Instant::now() + Duration::from_secs(1);
            while !t.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
        (self.files, status)
    }
}

/// Block until `pid` has ended, leaving it a zombie (its pid cannot be reused yet).
fn wait_no_reap(pid: i32) {
    loop {
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// The exit status as a shell reports it: the code, or 128 + the signal that ended it.
pub fn status_code(status: ExitStatus) -> u8 {
    match (status.code(), status.signal()) {
        (Some(c), _) => (c & 0xff) as u8,
        (None, Some(sig)) => (128 + sig).min(255) as u8,
        _ => 1,
    }
}

/// `exit status 3`, `killed by SIGTERM`.
pub fn describe(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit status {c}"),
        (None, Some(sig)) => format!("killed by {}", signal_name(sig)),
        _ => "ended".into(),
    }
}

pub fn signal_name(sig: i32) -> String {
    signal_hook::low_level::signal_name(sig)
        .map(str::to_string)
        .unwrap_or_else(|| format!("signal {sig}"))
}

/// The runner alive now, for `q` and for forwarded signals.
#[derive(Debug, Default)]
struct Active {
    pid: Option<i32>,
    /// In a process group of its own (signals go to the group).
    group: bool,
    /// Process groups of runners that have ended (their leader reaped) with members
    /// still alive when last looked at: `q` and signals end them too.
    left: Vec<i32>,
    /// No further run is started.
    stop: bool,
}

static ACTIVE: Mutex<Active> = Mutex::new(Active {
    pid: None,
    group: false,
    left: Vec::new(),
    stop: false,
});
static CHANGED: Condvar = Condvar::new();

fn lock() -> std::sync::MutexGuard<'static, Active> {
    ACTIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// True once [`stop`] or a signal asked for no further run.
pub fn stopping() -> bool {
    lock().stop
}

/// No further run is started (the one alive is left alone).
pub fn stop_starting() {
    lock().stop = true;
}

/// Whether the process group `pgid` of a runner that ended (and was reaped) still has a
/// member. Its number cannot be given to a new process while the group has one; once
/// the group is empty it can, so a process now holding the pid `pgid` means the group
/// ended and the number was reused: that is not ours (a shell's job, say) and is never
/// signalled.
fn group_left_alive(pgid: i32) -> bool {
    // SAFETY: kill with signal 0 only checks; no signal is sent.
    let esrch = |target: i32| unsafe {
        libc::kill(target, 0) != 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    };
    esrch(pgid) && !esrch(-pgid)
}

/// Send `sig` to the runner alive now (its group when it has one) and to the groups of
/// ended runners that still have members. False: nothing of the runner's is alive.
pub fn send(sig: i32) -> bool {
    let mut active = lock();
    let mut sent = false;
    if let Some(pid) = active.pid {
        let target = if active.group { -pid } else { pid };
        unsafe { libc::kill(target, sig) };
        sent = true;
    }
    active.left.retain(|&g| group_left_alive(g));
    for &pgid in &active.left {
        unsafe { libc::kill(-pgid, sig) };
        sent = true;
    }
    sent
}

/// Wait up to `limit` for the runner alive now, and every member of its process group,
/// to end; true when none is alive.
fn wait_gone(limit: Duration) -> bool {
    // The group's other members are not our children: they are looked at this often.
    const LOOK_EVERY: Duration = Duration::from_millis(20);
    let deadline = Instant::now() + limit;
    let mut active = lock();
    loop {
        active.left.retain(|&g| group_left_alive(g));
        if active.pid.is_none() && active.left.is_empty() {
            return true;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        active = CHANGED
            .wait_timeout(active, left.min(LOOK_EVERY))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

/// Stop: no further run, then `first` to the runner alive (and to what is left of its
/// process group, also after the runner itself ended), SIGTERM after `grace`, SIGKILL
/// after another `grace`: until no member of the group is alive. Returns the signals
/// sent, for the message.
pub fn stop(first: i32, grace: Duration) -> Vec<i32> {
    stop_starting();
    let mut sent = Vec::new();
    for sig in [first, libc::SIGTERM, libc::SIGKILL] {
        if sent.last() == Some(&sig) {
            continue;
        }
        if !send(sig) {
            break;
        }
        sent.push(sig);
        if wait_gone(grace) {
            break;
        }
    }
    sent
}

/// The pid of the runner alive now (tests, messages).
pub fn active_pid() -> Option<i32> {
    lock().pid
}

/// Installed as the signal hook of `cpuprof-tui run` ([`crate::signals::set_forward`]):
/// the signal goes on to the runner (unless it came from the terminal and the runner,
/// in our process group, got it already), which is then given the grace period to end,
/// and stopped as `q` stops it otherwise.
pub fn forward_signal(sig: i32, grace: Duration) {
    SIGNALLED.store(true, std::sync::atomic::Ordering::SeqCst);
    stop_starting();
    let in_our_group = !lock().group;
    let the_runner_has_it = in_our_group && !crate::signals::sent_by_a_process(sig);
    if !the_runner_has_it {
        send(sig);
    }
    if !wait_gone(grace) {
        stop(libc::SIGTERM, grace);
    }
}

static SIGNALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A signal is being handled: the process ends with 128 + signal from the signal thread
/// (which waits for the runner first); the main thread must not end it sooner with the
/// runner's status.
pub fn signalled() -> bool {
    SIGNALLED.load(std::sync::atomic::Ordering::SeqCst)
}
