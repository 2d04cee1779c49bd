//! What an entry of a folder of dumps is, from its name alone, and how many bytes tell an
//! ETDump: shared by the watcher (which decides when a dump is ready) and `fleet` (which
//! finds dumps in a folder).

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::profile::ProfileRequest;

/// Bytes needed to recognise an ETDump: u32 size prefix, u32 root offset, `ED00`
/// (formats.md §1.1).
pub const HEADER_LEN: usize = 12;

/// What a directory entry is, from its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameKind {
    /// `*.etdp` / `*.etdump`: a dump; garbage in it is reported.
    Dump,
    /// `*.log`: a runner log.
    Log,
    /// Anything else that may still be a dump with an unusual name (sniffed by content;
    /// never reported as garbage).
    Maybe,
    /// Hidden and temporary files (`.x`, `x.tmp`, `x.part`, `x~`): half-written files of a
    /// write-then-rename are not dumps yet.
    Ignored,
}

pub fn name_kind(path: &Path) -> NameKind {
    let Some(name) = path.file_name().and_then(OsStr::to_str) else {
        // Non-UTF-8 names: still sniff them, they may be dumps.
        return NameKind::Maybe;
    };
    if name.starts_with('.') || name.ends_with('~') {
        return NameKind::Ignored;
    }
    let ext = Path::new(name)
        .extension()
        .and_then(OsStr::to_str)
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("etdp" | "etdump") => NameKind::Dump,
        Some("log") => NameKind::Log,
        Some("tmp" | "temp" | "part" | "partial" | "swp" | "crdownload") => NameKind::Ignored,
        _ => NameKind::Maybe,
    }
}

/// A complete dump version and the log that goes with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpPair {
    pub etdump: PathBuf,
    /// None: no log was found within the grace period; profile the dump alone.
    pub log: Option<PathBuf>,
    /// The dump's mtime.
    pub modified: SystemTime,
    /// The dump's length in bytes.
    pub size: u64,
}

impl DumpPair {
    /// What the explorer's worker loads for this pair.
    pub fn request(&self, warmup: usize) -> ProfileRequest {
        ProfileRequest {
            regular_only: true,
            ..ProfileRequest::new(self.etdump.clone(), self.log.clone(), warmup)
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// A new complete version of a dump (each version once).
    Ready(DumpPair),
    /// A dump announced before (Ready or Error) is gone.
    Removed(PathBuf),
    /// A dump-named file that is not an ETDump, or a file that cannot be read (or the
    /// watched directory cannot be listed). `message` is one line without the path;
    /// `modified` the file's time as the watcher saw it (None: it could not be read), so
    /// that the explorer's update reads no file system.
    Error {
        path: PathBuf,
        message: String,
        modified: Option<std::time::SystemTime>,
    },
}

/// One line naming the file.
impl fmt::Display for WatchEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WatchEvent::Ready(p) => match &p.log {
                Some(log) => write!(
                    f,
                    "{}: ready ({} bytes, log {})",
                    p.etdump.display(),
                    p.size,
                    log.display()
                ),
                None => write!(
                    f,
                    "{}: ready ({} bytes, no log)",
                    p.etdump.display(),
                    p.size
                ),
            },
            WatchEvent::Removed(path) => write!(f, "{}: removed", path.display()),
            WatchEvent::Error { path, message, .. } => write!(f, "{}: {message}", path.display()),
        }
    }
}
