//! Loading a profile from files: read with progress, parse, build. This is what the
//! worker thread and the `report` command call.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::Profile;

/// What to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileRequest {
    pub etdump: PathBuf,
    /// Explicit runner log; None means "use `<dump stem>.log` beside the dump if present".
    pub log: Option<PathBuf>,
    /// Number of leading `Execute` runs to drop.
    pub warmup: usize,
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
            embedded: None,
        }
    }

    /// The bundled demo. Its run has 5 warm-up runs, dropped by default.
    pub fn demo(warmup: Option<usize>) -> Self {
        ProfileRequest {
            etdump: PathBuf::from("demo.etdp"),
            log: Some(PathBuf::from("demo.log")),
            warmup: warmup.unwrap_or(5),
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
/// between phases and while reading.
pub fn load_profile(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Profile, LoadError> {
    let _ = (request, &mut *progress, cancel.load(Ordering::Relaxed));
    Err(LoadError::BadInput {
        path: request.etdump.display().to_string(),
        detail: "pipeline not implemented yet".into(),
    })
}
