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
