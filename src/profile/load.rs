//! Loading a profile from files: read with progress, parse, build. This is what the
//! worker thread and the `report` command call.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::{build_profile_with, Profile, ProfileSource};
use crate::etdump::{self, EtDumpError};
use crate::runlog;

/// What to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRequest {
    pub etdump: PathBuf,
    /// Explicit runner log; None means "use `<dump stem>.log` beside the dump if present".
    pub log: Option<PathBuf>,
    /// Number of leading `Execute` runs to drop.
    pub warmup: usize,
    /// `--warmup auto`: drop the cold leading runs of each method instead of `warmup`.
    pub warmup_auto: bool,
    /// Bytes to use instead of reading the paths (the bundled demo); paths are then
    /// only names for display.
    pub embedded: Option<EmbeddedDump>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmbeddedDump {
    pub etdump: &'static [u8],
    pub log: &'static [u8],
}

/// The demo profile bundled in the binary (a copy of `fixtures/cpu/wide_browse`).
pub const DEMO: EmbeddedDump = EmbeddedDump {
    etdump: include_bytes!("../../assets/demo/demo.etdp"),
    log: include_bytes!("../../assets/demo/demo.log"),
};

impl ProfileRequest {
    pub fn new(etdump: PathBuf, log: Option<PathBuf>, warmup: usize) -> Self {
        ProfileRequest {
            etdump,
            log,
            warmup,
            warmup_auto: false,
            embedded: None,
        }
    }

    /// The same request with warm-up `w` (a number of runs or `auto`).
    pub fn with_warmup(mut self, w: super::warmup::Warmup) -> Self {
        self.warmup = w.runs();
        self.warmup_auto = w.is_auto();
        self
    }

    /// The warm-up this request asks for.
    pub fn warmup_setting(&self) -> super::warmup::Warmup {
        if self.warmup_auto {
            super::warmup::Warmup::Auto
        } else {
            super::warmup::Warmup::Runs(self.warmup)
        }
    }

    /// The bundled demo. Its run has 5 warm-up runs, dropped by default.
    pub fn demo(warmup: Option<usize>) -> Self {
        ProfileRequest {
            etdump: PathBuf::from("demo.etdp"),
            log: Some(PathBuf::from("demo.log")),
            warmup: warmup.unwrap_or(5),
            warmup_auto: false,
            embedded: Some(DEMO),
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

/// The log used for a dump when none is named: `<stem>.log` beside it, if it exists.
pub fn default_log_for(etdump: &Path) -> Option<PathBuf> {
    let candidate = etdump.with_extension("log");
    candidate.is_file().then_some(candidate)
}

/// Load and build a profile. `progress` is called from this thread; `cancel` is polled
/// while reading and between phases.
pub fn load_profile(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Profile, LoadError> {
    let dump_name = request.etdump.display().to_string();
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

    // The file bytes are dropped as soon as they are parsed: the dump owns copies of what
    // it needs, and the bytes are the largest allocation of the whole run.
    let (dump, total) = {
        let owned;
        let bytes: &[u8] = match request.embedded {
            Some(e) => e.etdump,
            None => {
                owned =
                    read_with_progress(&request.etdump, progress, cancel).map_err(|e| match e {
                        ReadError::Cancelled => LoadError::Cancelled,
                        ReadError::Io(msg) => bad(&dump_name, msg),
                        ReadError::Invalid(e) => bad(&dump_name, e.to_string()),
                    })?;
                &owned
            }
        };
        let total = bytes.len() as u64;
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: total,
            bytes_total: total,
        });
        check_cancel()?;
        let dump = etdump::parse(bytes).map_err(|e| match e {
            EtDumpError::Incomplete { .. } => LoadError::Incomplete {
                path: dump_name.clone(),
                detail: e.to_string(),
            },
            other => bad(&dump_name, other.to_string()),
        })?;
        (dump, total)
    };
    check_cancel()?;

    progress(LoadProgress {
        phase: LoadPhase::ReadingLog,
        bytes_done: total,
        bytes_total: total,
    });
    let log_path = match (&request.embedded, &request.log) {
        (Some(_), log) => log.clone(),
        (None, Some(log)) => Some(log.clone()),
        (None, None) => default_log_for(&request.etdump),
    };
    let log = match (&request.embedded, &log_path) {
        (Some(e), _) => Some(runlog::parse(e.log)),
        (None, Some(path)) => {
            Some(runlog::read_file(path).map_err(|e| bad(&path.display().to_string(), e))?)
        }
        (None, None) => None,
    };
    check_cancel()?;

    progress(LoadProgress {
        phase: LoadPhase::Analysing,
        bytes_done: total,
        bytes_total: total,
    });
    let source = ProfileSource {
        etdump: dump_name.clone(),
        log: log_path.map(|p| p.display().to_string()),
    };
    build_profile_with(&dump, log.as_ref(), request.warmup_setting(), source)
        .map_err(|e| bad(&dump_name, e.to_string()))
}

enum ReadError {
    Io(String),
    /// The first bytes already show it is not an ETDump.
    Invalid(EtDumpError),
    Cancelled,
}

/// Read a whole file in chunks so the caller sees progress and can cancel a big read.
fn read_with_progress(
    path: &Path,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Vec<u8>, ReadError> {
    const CHUNK: usize = 8 << 20;
    let mut file = File::open(path).map_err(|e| ReadError::Io(io_message(&e)))?;
    let meta = file.metadata().map_err(|e| ReadError::Io(io_message(&e)))?;
    if meta.is_dir() {
        return Err(ReadError::Io("is a directory, not an ETDump file".into()));
    }
    let total = meta.len();
    // Reject what cannot be an ETDump before reading (and allocating for) all of it.
    if total > u64::from(u32::MAX) + 4 {
        return Err(ReadError::Invalid(EtDumpError::NotEtDump(format!(
            "{total} bytes, larger than any ETDump (its size prefix is 32-bit)"
        ))));
    }
    let mut bytes = Vec::with_capacity(total as usize);
    (&mut file)
        .take(12)
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(io_message(&e)))?;
    if let Err(e @ EtDumpError::NotEtDump(_)) = etdump::parse(&bytes) {
        if bytes.len() == 12 {
            return Err(ReadError::Invalid(e));
        }
    }
    loop {
        if cancel.load(Ordering::Relaxed) {
            return Err(ReadError::Cancelled);
        }
        let before = bytes.len();
        let n = (&mut file)
            .take(CHUNK as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| ReadError::Io(io_message(&e)))?;
        progress(LoadProgress {
            phase: LoadPhase::Reading,
            bytes_done: bytes.len() as u64,
            bytes_total: total.max(bytes.len() as u64),
        });
        if n == 0 || bytes.len() == before {
            return Ok(bytes);
        }
    }
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}
