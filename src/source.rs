//! What the explorer opens: an ETDump profile or a PyTorch trace, told apart by content
//! (never by file name), loaded into the same view model.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::app::ExplorerData;
use crate::profile::{load_profile, LoadError, LoadPhase, LoadProgress, ProfileRequest};
use crate::trace;

/// Whether the file at `path` is a PyTorch trace rather than an ETDump (from its first
/// bytes). Unreadable files count as ETDumps, whose loader reports the error. A directory
/// is a CTF trace directory (the trace loader reports one that is not).
pub fn is_trace_file(path: &Path) -> bool {
    if path.is_dir() {
        return true;
    }
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    n > 0 && trace::looks_like_trace(&head[..n])
}

/// Load `request` into the explorer's view model. `request.etdump` may name a trace, in
/// which case the log and warm-up do not apply.
pub fn load_explorer_data(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<ExplorerData, LoadError> {
    if request.embedded.is_none() && is_trace_file(&request.etdump) {
        let total = std::fs::metadata(&request.etdump).map_or(0, |m| m.len());
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: 0,
            bytes_total: total,
        });
        let path = request.etdump.display().to_string();
        let profile = trace::load_trace(&request.etdump).map_err(|e| LoadError::BadInput {
            path: path.clone(),
            detail: e.to_string(),
        })?;
        progress(LoadProgress {
            phase: LoadPhase::Analysing,
            bytes_done: total,
            bytes_total: total,
        });
        return Ok(ExplorerData::from_trace(&profile));
    }
    load_profile(request, progress, cancel).map(|p| ExplorerData::from_profile(&p))
}
