//! Temporary files of outputs being written, removed by whoever handles a signal (the
//! binary's `signals` module calls [`remove_all`]): the library only keeps the list.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

static TEMP_FILES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remove every registered temporary file (on a signal, before exiting).
pub fn remove_all() {
    let list = TEMP_FILES.lock().unwrap_or_else(|p| p.into_inner());
    for p in list.iter() {
        let _ = std::fs::remove_file(p);
    }
}

/// A temporary file that a signal removes while this guard lives.
#[must_use]
pub struct TempFileGuard {
    path: PathBuf,
}

/// Register `path` (about to be created) for removal on a signal.
pub fn register(path: &Path) -> TempFileGuard {
    let mut list = TEMP_FILES.lock().unwrap_or_else(|p| p.into_inner());
    list.push(path.to_path_buf());
    TempFileGuard {
        path: path.to_path_buf(),
    }
}

impl Drop for TempFileGuard {
    fn drop(&mut self) {
        let mut list = TEMP_FILES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = list.iter().position(|p| *p == self.path) {
            list.swap_remove(i);
        }
    }
}
