//! Loading a profile from files: read with progress, parse, build. This is what the
//! worker thread and the `report` command call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::{build_profile_with, Profile, ProfileSource};
use crate::etdump::{self, EtDumpError, NameTable, ProfileEvent, RunBlock};
use crate::runlog;

/// What an ETDump reader's "not an ETDump" is followed by, so the user learns every
/// format that was tried.
const FORMATS_TRIED: &str =
    "and not a recognised trace (tried babeltrace2 text, THAPI text, Chrome JSON, gzip of these)";

/// What to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRequest {
    pub etdump: PathBuf,
    /// Explicit runner log; None means "use `<dump stem>.log` beside the dump if present"
    /// (unless `no_log`).
    pub log: Option<PathBuf>,
    /// `--no-log`: read no runner log at all, not even the one beside the dump.
    pub no_log: bool,
    /// Number of leading `Execute` runs to drop.
    pub warmup: usize,
    /// `--warmup auto`: drop the cold leading runs of each method instead of `warmup`.
    pub warmup_auto: bool,
    /// `--warmup log` (the command line's default): the runner log's count when it adds
    /// up to the dump's runs, else auto.
    pub warmup_stated: bool,
    /// Bytes to use instead of reading the paths (the bundled demo); paths are then
    /// only names for display.
    pub embedded: Option<EmbeddedDump>,
    /// The dump's path is controlled by another process (a watched folder): it is read
    /// only if it is a regular file, never waiting on a FIFO swapped in there.
    pub regular_only: bool,
    /// The ETRecord and program to read with the dump instead of those beside it
    /// (`--etrecord`, `--program`).
    pub model: super::ModelFileArgs,
    /// How the bytes are read: the size limit and the unit of the dump's ticks.
    pub read: ReadOptions,
}

/// How every input of a command is read (`--max-input-size`, `--time-unit`): a value of
/// each load request and each command's arguments, never a process-wide setting, so two
/// loads with different options at once do not race.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// The most bytes read from one input (and decompressed from one gzip stream).
    pub max_input_size: u64,
    /// What one tick of an ETDump is (the profile is built in ns).
    pub time_unit: crate::etdump::TimeUnit,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            max_input_size: crate::input::DEFAULT_MAX_INPUT_SIZE,
            time_unit: crate::etdump::TimeUnit::Ns,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedDump {
    pub etdump: &'static [u8],
    pub log: &'static [u8],
}

/// The demo profile bundled in the binary (a copy of `fixtures/cpu/wide_browse`).
pub const DEMO: EmbeddedDump = EmbeddedDump {
    etdump: include_bytes!("../../../../assets/demo/demo.etdp"),
    log: include_bytes!("../../../../assets/demo/demo.log"),
};

impl ProfileRequest {
    pub fn new(etdump: PathBuf, log: Option<PathBuf>, warmup: usize) -> Self {
        ProfileRequest {
            etdump,
            log,
            no_log: false,
            warmup,
            warmup_auto: false,
            warmup_stated: false,
            embedded: None,
            regular_only: false,
            model: super::ModelFileArgs::default(),
            read: ReadOptions::default(),
        }
    }

    /// The same request reading `model`'s ETRecord and program (where named) instead of
    /// those beside the dump.
    pub fn with_model_files(mut self, model: super::ModelFileArgs) -> Self {
        self.model = model;
        self
    }

    /// The same request read with `read` (size limit, time unit).
    pub fn with_read_options(mut self, read: ReadOptions) -> Self {
        self.read = read;
        self
    }

    /// This request without any runner log (`--no-log`).
    pub fn without_log(mut self) -> Self {
        self.no_log = true;
        self.log = None;
        self
    }

    /// The same request with warm-up `w` (a number of runs or `auto`).
    pub fn with_warmup(mut self, w: super::warmup::Warmup) -> Self {
        self.warmup = w.runs();
        self.warmup_auto = w.is_auto();
        self.warmup_stated = w == super::warmup::Warmup::Stated;
        self
    }

    /// The warm-up this request asks for.
    pub fn warmup_setting(&self) -> super::warmup::Warmup {
        if self.warmup_auto {
            super::warmup::Warmup::Auto
        } else if self.warmup_stated {
            super::warmup::Warmup::Stated
        } else {
            super::warmup::Warmup::Runs(self.warmup)
        }
    }

    /// The bundled demo. Its run has 5 warm-up runs, dropped by default.
    pub fn demo(warmup: Option<usize>) -> Self {
        ProfileRequest {
            etdump: PathBuf::from("demo.etdp"),
            log: Some(PathBuf::from("demo.log")),
            no_log: false,
            warmup: warmup.unwrap_or(5),
            warmup_auto: false,
            warmup_stated: false,
            embedded: Some(DEMO),
            regular_only: false,
            model: super::ModelFileArgs::default(),
            read: ReadOptions::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPhase {
    Reading,
    Parsing,
    ReadingLog,
    Analysing,
}

impl LoadPhase {
    pub fn label(self) -> &'static str {
        match self {
            LoadPhase::Reading => "reading",
            LoadPhase::Parsing => "parsing",
            LoadPhase::ReadingLog => "reading log",
            LoadPhase::Analysing => "analysing",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadProgress {
    pub phase: LoadPhase,
    pub bytes_done: u64,
    pub bytes_total: u64,
}

/// Why a profile could not be produced. Display gives one line naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The dump is being written (size prefix says more than the file has): retry later.
    #[error("{path}: {detail}")]
    Incomplete { path: String, detail: String },
    /// Bad input (unreadable, corrupt, not an ETDump, mismatched log, bad warm-up).
    #[error("{path}: {detail}")]
    BadInput { path: String, detail: String },
    #[error("cancelled")]
    Cancelled,
}

impl LoadError {
    pub fn is_incomplete(&self) -> bool {
        matches!(self, LoadError::Incomplete { .. })
    }
}

/// The log used for a dump when none is named: `<stem>.log` beside it, if it exists and
/// the input is an ETDump (a callgrind or V8 `X.log`, a trace or any other file given by
/// mistake gets none: it is never its own log). A FIFO or device is not read here; its
/// log is looked for as before.
pub fn default_log_for(etdump: &Path) -> Option<PathBuf> {
    let regular = std::fs::metadata(etdump).is_ok_and(|m| m.is_file());
    default_log_with_head(etdump, || regular.then(|| read_head(etdump)))
}

/// [`default_log_for`] of a dump whose first bytes are already read (the loader's).
fn default_log_with_head(etdump: &Path, head: impl FnOnce() -> Option<Vec<u8>>) -> Option<PathBuf> {
    let candidate = etdump.with_extension("log");
    if candidate == etdump || !candidate.is_file() {
        return None;
    }
    head()
        .is_none_or(|h| has_etdump_header(&h))
        .then_some(candidate)
}

/// The first 12 bytes of a regular file (opened without ever blocking: a FIFO swapped in
/// at the path gives none).
fn read_head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut head = Vec::with_capacity(12);
    if let Ok((file, _)) = crate::regular_file::open(path) {
        let _ = file.take(12).read_to_end(&mut head);
    }
    head
}

/// The ETDump identifier `ED00` in the first bytes (size-prefixed or not).
fn has_etdump_header(head: &[u8]) -> bool {
    head.get(4..8) == Some(b"ED00") || head.get(8..12) == Some(b"ED00")
}

/// Load and build a profile. `progress` is called from this thread; `cancel` is polled
/// while reading and between phases. The dump is read once through [`crate::input`]
/// (`-` is standard input; FIFOs and pipes work like files).
pub fn load_profile(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Profile, LoadError> {
    match request.embedded {
        Some(e) => load_profile_from_bytes(request, e.etdump, progress, cancel),
        None => {
            let input = read_dump(request, progress, cancel)?;
            load_profile_from_input(request, &input, progress, cancel)
        }
    }
}

/// Read the dump of `request` once, with progress (the explorer and `report` sniff the
/// same bytes before choosing a loader). A regular file is mapped, not copied
/// ([`crate::input::read_input_mapped`]): load it with [`load_profile_from_input`],
/// which checks that it did not change while it was decoded.
pub fn read_dump(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<crate::input::Input, LoadError> {
    let name = crate::input::display_name(&request.etdump);
    let read = if request.regular_only {
        crate::input::read_regular_mapped_with_progress
    } else {
        crate::input::read_input_mapped_with_progress
    };
    read(
        &request.etdump,
        request.read.max_input_size,
        &mut |done, total| {
            progress(LoadProgress {
                phase: LoadPhase::Reading,
                bytes_done: done,
                bytes_total: total,
            })
        },
        cancel,
    )
    .map_err(|e| match e {
        crate::input::InputError::Cancelled => LoadError::Cancelled,
        other => LoadError::BadInput {
            path: name,
            detail: other.to_string(),
        },
    })
}

/// [`load_profile`] on a dump already read or mapped ([`read_dump`]): progress while it
/// is decoded, and, for a map, the check that the file did not change meanwhile (a
/// changed file is [`LoadError::Incomplete`]: watch mode retries it, the explorer shows
/// the message over the last good profile, `report` exits 2).
pub fn load_profile_from_input(
    request: &ProfileRequest,
    input: &crate::input::Input,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Profile, LoadError> {
    let result = load_profile_inner(
        request,
        &input.bytes,
        Some(input),
        progress,
        cancel,
        &mut |_| {},
    );
    unchanged_or(input, &request.etdump, result)
}

/// `result`, unless the mapped `input` changed while it was decoded: then whatever was
/// decoded (or the error the decoder gave on the zeros the guard put there) is replaced
/// by one line saying so.
pub fn unchanged_or<T>(
    input: &crate::input::Input,
    path: &Path,
    result: Result<T, LoadError>,
) -> Result<T, LoadError> {
    if matches!(result, Err(LoadError::Cancelled)) {
        return result;
    }
    match input.check_unchanged() {
        Ok(()) => result,
        Err(e) => Err(LoadError::Incomplete {
            path: crate::input::display_name(path),
            detail: e.to_string(),
        }),
    }
}

/// [`load_profile`] on dump bytes already read (`request.etdump` names them). A log that
/// cannot be read is a `log_unreadable` warning, not a failed load.
pub fn load_profile_from_bytes(
    request: &ProfileRequest,
    bytes: &[u8],
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Profile, LoadError> {
    load_profile_inner(request, bytes, None, progress, cancel, &mut |_| {})
}

/// What a load decodes, handed to an observer as it goes: the dump's runs in order, each
/// event as decoded (ticks as in the dump), so that a caller needing the events in the
/// dump's order (the Python package's Inspector frame) does not decode the dump twice.
pub enum Decoded<'a> {
    /// A chunk of runs: its blocks, whose event ranges index `events`, and the dump's
    /// names so far.
    Runs {
        blocks: &'a [RunBlock],
        events: &'a [ProfileEvent],
        names: &'a NameTable,
    },
    /// Forget the runs handed so far: the dump is decoded again, whole.
    Restart,
    /// Every run was handed; `debug_events` the dump's debug events (counted, not decoded).
    End { debug_events: usize },
}

/// [`load_profile_from_bytes`], handing `observe` every run as it is decoded
/// ([`Decoded`]).
pub fn load_profile_observed(
    request: &ProfileRequest,
    bytes: &[u8],
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
    observe: &mut (dyn FnMut(Decoded<'_>) + Send),
) -> Result<Profile, LoadError> {
    load_profile_inner(request, bytes, None, progress, cancel, observe)
}

/// Decode `bytes` on a scoped thread while this one reports how far the decoder got in
/// the map of `input` (the decoder counts the ranges it is done with, see
/// [`crate::input::release_mapped_pages`]): a gigabyte takes seconds, and the gauge
/// should move meanwhile. A panic in the decoder is passed on as it was.
fn parse_with_progress<T: Send>(
    bytes: &[u8],
    input: &crate::input::Input,
    progress: &mut dyn FnMut(LoadProgress),
    decode: impl FnOnce() -> T + Send,
) -> T {
    let total = bytes.len() as u64;
    let mut report = || {
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: input.bytes_decoded().unwrap_or(0).min(total),
            bytes_total: total,
        })
    };
    report();
    with_ticks(std::time::Duration::from_millis(40), &mut report, decode)
}

/// Run `work` on a scoped thread while this one reports `phase` (all `total` bytes
/// done) every 100 ms until it ends. A panic in `work` is passed on as it was.
fn with_heartbeat<T: Send>(
    phase: LoadPhase,
    total: u64,
    progress: &mut dyn FnMut(LoadProgress),
    work: impl FnOnce() -> T + Send,
) -> T {
    let mut beat = || {
        progress(LoadProgress {
            phase,
            bytes_done: total,
            bytes_total: total,
        })
    };
    with_ticks(std::time::Duration::from_millis(100), &mut beat, work)
}

/// `work` on a scoped thread; this one calls `tick` every `every` until it ends, and
/// returns as soon as it does (woken by the worker, not at the next tick). A panic in
/// `work` is passed on as it was.
fn with_ticks<T: Send>(
    every: std::time::Duration,
    tick: &mut dyn FnMut(),
    work: impl FnOnce() -> T + Send,
) -> T {
    /// Marks the work done and wakes the waiting thread when dropped: when `work`
    /// returns and when it panics.
    struct Done<'a>(&'a AtomicBool, std::thread::Thread);
    impl Drop for Done<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Release);
            self.1.unpark();
        }
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let waiting = std::thread::current();
        let done = &done;
        let worker = s.spawn(move || {
            let _done = Done(done, waiting);
            work()
        });
        // The flag, not `is_finished`: the worker wakes this thread a moment before it
        // has finished, and a check in that moment would sleep a whole tick more.
        loop {
            std::thread::park_timeout(every);
            if done.load(Ordering::Acquire) {
                break;
            }
            tick();
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn load_profile_inner(
    request: &ProfileRequest,
    bytes: &[u8],
    mapped: Option<&crate::input::Input>,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
    observe: &mut (dyn FnMut(Decoded<'_>) + Send),
) -> Result<Profile, LoadError> {
    let dump_name = crate::input::display_name(&request.etdump);
    let bad = |path: &str, detail: String| LoadError::BadInput {
        path: path.to_string(),
        detail,
    };
    let check_cancel = || {
        if cancel.load(Ordering::Relaxed) {
            Err(LoadError::Cancelled)
        } else {
            Ok(())
        }
    };

    let total = bytes.len() as u64;
    let mapped = mapped.filter(|i| i.is_mapped());
    progress(LoadProgress {
        phase: LoadPhase::ReadingLog,
        bytes_done: 0,
        bytes_total: total,
    });
    let mut log_path = match (&request.embedded, &request.log) {
        _ if request.no_log => None,
        (Some(_), log) => log.clone(),
        (None, Some(log)) => Some(log.clone()),
        (None, None) if crate::input::is_stdin(&request.etdump) => None,
        (None, None) => default_log_with_head(&request.etdump, || {
            Some(bytes[..bytes.len().min(12)].to_vec())
        }),
    };
    let mut log_warning = None;
    let log = match (&request.embedded, &log_path) {
        _ if request.no_log => None,
        (Some(e), _) => Some(runlog::parse(e.log)),
        (None, Some(path)) => match if request.regular_only {
            crate::input::read_regular(path, request.read.max_input_size)
        } else {
            crate::input::read_input(path, request.read.max_input_size)
        } {
            Ok(input) => Some(runlog::parse(&input.bytes)),
            // The dump is what was asked for: it opens without its log. (`report` and
            // the explorer check a log named with `--log` before loading.)
            Err(e) => {
                log_warning = Some(super::Finding::new(
                    "log_unreadable",
                    format!(
                        "runner log {} cannot be read ({e}); loaded without it",
                        path.display()
                    ),
                ));
                None
            }
        },
        (None, None) => None,
    };
    if log.is_none() {
        log_path = None;
    }
    check_cancel()?;

    progress(LoadProgress {
        phase: LoadPhase::Parsing,
        bytes_done: if mapped.is_some() { 0 } else { total },
        bytes_total: total,
    });
    check_cancel()?;
    // Decoded straight into collection when every run has the first one's signature
    // (no event array); otherwise decoded whole, then built.
    let time_unit = request.read.time_unit;
    let plan_step_names = super::build::plan_step_names(log.as_ref());
    let mut stream =
        || super::stream::decode_and_collect(bytes, &plan_step_names, time_unit, &mut *observe);
    let streamed = match mapped {
        Some(input) => parse_with_progress(bytes, input, progress, stream),
        None => stream(),
    }
    .map_err(|e| dump_error(e, &dump_name, bytes))?;
    check_cancel()?;
    let source = ProfileSource {
        etdump: dump_name.clone(),
        log: log_path.map(|p| p.display().to_string()),
    };
    let (built, implausible) = match streamed {
        Some(s) => {
            progress(LoadProgress {
                phase: LoadPhase::Analysing,
                bytes_done: total,
                bytes_total: total,
            });
            let super::stream::Streamed {
                dump,
                prepared,
                plausibility,
                ..
            } = s;
            observe(Decoded::End {
                debug_events: dump.skipped.debug,
            });
            let warmup = request.warmup_setting();
            let build = || {
                super::build::assemble_profile(
                    &dump,
                    log.as_ref(),
                    warmup,
                    source,
                    &plan_step_names,
                    prepared,
                )
            };
            let built = match mapped {
                Some(_) => with_heartbeat(LoadPhase::Analysing, total, progress, build),
                None => build(),
            };
            (built, plausibility.messages(time_unit))
        }
        None => {
            observe(Decoded::Restart);
            let parsed = match mapped {
                Some(input) => parse_with_progress(bytes, input, progress, || etdump::parse(bytes)),
                None => etdump::parse(bytes),
            };
            let mut dump = parsed.map_err(|e| dump_error(e, &dump_name, bytes))?;
            observe(Decoded::Runs {
                blocks: &dump.blocks,
                events: &dump.events,
                names: &dump.names,
            });
            observe(Decoded::End {
                debug_events: dump.skipped.debug,
            });
            // Ticks in another unit than ns (`--time-unit`) become ns before anything is
            // timed.
            dump.convert_ticks_to_ns(time_unit);
            check_cancel()?;
            progress(LoadProgress {
                phase: LoadPhase::Analysing,
                bytes_done: total,
                bytes_total: total,
            });
            let build =
                || build_profile_with(&dump, log.as_ref(), request.warmup_setting(), source);
            let built = match mapped {
                // A big dump takes a second or more to analyse, with no bytes to count: a
                // heartbeat keeps the gauge alive (it turns a spinner).
                Some(_) => with_heartbeat(LoadPhase::Analysing, total, progress, build),
                None => build(),
            };
            (built, dump.implausible_durations(time_unit))
        }
    };
    let mut profile = built.map_err(|e| bad(&dump_name, e.to_string()))?;
    if let Some(w) = log_warning {
        profile.warnings.insert(0, w);
    }
    // The ETRecord and program: names, sources and modules (never a failed load).
    super::model_files::apply(
        &mut profile,
        &request.etdump,
        request.embedded.is_none(),
        &request.model,
        request.read.max_input_size,
    );
    for message in implausible {
        profile
            .warnings
            .push(super::Finding::new("implausible_durations", message));
    }
    Ok(profile)
}

/// Why `path` cannot be opened, in the words loading would use; None when it can (or
/// it is a directory, which a trace reader may accept). Checked before the explorer
/// takes over the terminal.
pub fn check_openable(path: &Path) -> Option<String> {
    if crate::input::is_stdin(path) {
        return None;
    }
    match std::fs::metadata(path) {
        Err(e) => Some(io_message(&e)),
        // Only a regular file is opened here: opening a FIFO would wait for (and then
        // cut off) its writer; pipes and devices are read once by the loader.
        Ok(m) if m.is_file() => std::fs::File::open(path).err().map(|e| io_message(&e)),
        Ok(_) => None,
    }
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// A decoding error as a load error naming the dump.
fn dump_error(e: EtDumpError, dump_name: &str, bytes: &[u8]) -> LoadError {
    if let (EtDumpError::NotEtDump(_), Some(what)) =
        (&e, super::model_files::model_file_given_as_dump(bytes))
    {
        return LoadError::BadInput {
            path: dump_name.to_string(),
            detail: what.to_string(),
        };
    }
    match e {
        EtDumpError::Incomplete { .. } => LoadError::Incomplete {
            path: dump_name.to_string(),
            detail: e.to_string(),
        },
        e @ EtDumpError::NotEtDump(_) if !bytes.is_empty() => LoadError::BadInput {
            path: dump_name.to_string(),
            detail: format!("{e}; {FORMATS_TRIED}"),
        },
        other => LoadError::BadInput {
            path: dump_name.to_string(),
            detail: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn ticks_until_the_work_ends_and_returns_when_it_does() {
        // Ticks every 10 ms while 100 ms of work runs; no more once it ends.
        let mut ticks = 0u128;
        let t = Instant::now();
        let out = with_ticks(Duration::from_millis(10), &mut || ticks += 1, || {
            std::thread::sleep(Duration::from_millis(100));
            7
        });
        let elapsed = t.elapsed().as_millis();
        assert_eq!(out, 7);
        // A tick waits 10 ms at least, so at most one per 10 ms of what the call took (a
        // busy machine stretches the 100 ms, and the count with it).
        assert!(
            ticks >= 3 && ticks <= elapsed / 10,
            "{ticks} ticks in {elapsed} ms"
        );
        // A tick every 3 s: the end of short work is not waited for at the next tick
        // (the worker's wake-up is what ends the wait; many times over, as a lost
        // wake-up would show only now and then).
        for _ in 0..200 {
            let t = Instant::now();
            with_ticks(Duration::from_secs(3), &mut || {}, || {
                std::thread::yield_now();
            });
            assert!(
                t.elapsed() < Duration::from_millis(1500),
                "{:?}",
                t.elapsed()
            );
        }
    }

    #[test]
    fn a_panic_in_the_work_is_passed_on_not_waited_for() {
        let t = Instant::now();
        let caught = std::panic::catch_unwind(|| {
            with_ticks(Duration::from_secs(3600), &mut || {}, || -> u32 {
                panic!("decoder failed")
            })
        });
        let payload = caught.expect_err("the panic comes through");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"decoder failed"));
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}
