//! Where trace directories are looked for: LTTng's layout at and below the root, within
//! the search budgets (see the parent module's doc), and the files of the traces found.

use std::path::{Path, PathBuf};

use super::super::error::TraceError;
use super::{ctf_err, tsdl};
use crate::input;

/// Folders of any name below the root that may be LTTng sessions or trace directories
/// (the root may be a folder of sessions, such as `lttng-traces/`). Below a session
/// only LTTng's own layout is followed.
pub const SESSION_SEARCH_LEVELS: usize = 1;
/// At most this many directory entries are looked at while searching (a big folder that
/// holds no trace costs this, not its size).
pub const MAX_SEARCH_ENTRIES: usize = 100_000;
/// At most this many trace directories are read.
pub const MAX_TRACE_DIRS: usize = 1_024;
/// At most this many entries in one trace directory (LTTng writes one stream file per
/// CPU and channel).
pub const MAX_TRACE_DIR_ENTRIES: usize = 16_384;

/// Where a directory sits in LTTng's layout while searching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    /// The root (0) or a folder in it: a trace directory, a session, or (the root only,
    /// see [`SESSION_SEARCH_LEVELS`]) a folder of those.
    Free(usize),
    /// `ust/`: `uid/`, `pid/`.
    Ust,
    UidList,
    /// `ust/uid/<uid>/`: `<N>-bit/` trace directories.
    Uid,
    PidList,
    /// `ust/pid/<proc>-<pid>-<date>/`: a trace directory, or `<N>-bit/` ones.
    Pid,
    /// `kernel/`, `<N>-bit/`: must hold the metadata.
    Trace,
}

/// What a directory search found.
#[derive(Default)]
struct Search {
    /// Trace directories, with their depth in free folders (0: the root or its session).
    found: Vec<(PathBuf, usize)>,
    /// Things where a metadata file belongs that are not one ("X/metadata is a FIFO").
    problems: Vec<String>,
    /// Whether a problem sits where LTTng's layout puts a trace (not in a free folder).
    layout_problem: bool,
    entries: usize,
    stopped: bool,
}

/// What a file that is not a regular file is, in words.
pub(super) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
    }
    "not a regular file"
}

/// Whether the first bytes of the regular file `path` look like CTF metadata
/// (packetized, or TSDL text).
fn looks_like_metadata(path: &Path) -> bool {
    let mut head = Vec::with_capacity(256);
    let read = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 256), &mut head));
    read.is_ok() && tsdl::looks_like_metadata(&head)
}

impl Search {
    /// Subdirectories of `dir` (symlinks to directories followed), sorted by name;
    /// counts the entries looked at and stops at [`MAX_SEARCH_ENTRIES`].
    fn subdirs(&mut self, dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir)? {
            if self.entries >= MAX_SEARCH_ENTRIES {
                self.stopped = true;
                break;
            }
            self.entries += 1;
            let Ok(entry) = entry else { continue };
            let is_dir = match entry.file_type() {
                Ok(t) if t.is_dir() => true,
                Ok(t) if t.is_symlink() => entry.path().is_dir(),
                _ => false,
            };
            if is_dir {
                out.push((
                    entry.file_name().to_string_lossy().into_owned(),
                    entry.path(),
                ));
            }
        }
        out.sort();
        Ok(out)
    }

    /// `dir/metadata`: Some(true) CTF metadata (a trace directory), Some(false)
    /// something that is not (noted as a problem), None nothing there.
    fn metadata_at(&mut self, root: &Path, dir: &Path, in_layout: bool) -> Option<bool> {
        let path = dir.join("metadata");
        let problem = match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {
                if looks_like_metadata(&path) {
                    return Some(true);
                }
                format!(
                    "{} is not CTF metadata (neither packetized, magic 0x75D11D57, nor TSDL text)",
                    rel_to(root, &path)
                )
            }
            Ok(m) => format!(
                "{} is {}, not a CTF metadata file (not opened)",
                rel_to(root, &path),
                kind_of(&m)
            ),
            Err(_) if std::fs::symlink_metadata(&path).is_ok() => {
                format!("{} is a symbolic link to nothing", rel_to(root, &path))
            }
            Err(_) => return None,
        };
        self.problems.push(problem);
        self.layout_problem |= in_layout;
        Some(false)
    }

    fn visit(&mut self, root: &Path, dir: &Path, level: Level) -> std::io::Result<()> {
        if self.stopped || self.found.len() >= MAX_TRACE_DIRS {
            return Ok(());
        }
        let free_depth = match level {
            Level::Free(d) => Some(d),
            _ => None,
        };
        if matches!(level, Level::Free(_) | Level::Pid | Level::Trace) {
            match self.metadata_at(root, dir, free_depth.is_none()) {
                Some(true) => {
                    self.found
                        .push((dir.to_path_buf(), free_depth.unwrap_or(0)));
                    return Ok(());
                }
                Some(false) if level == Level::Trace => return Ok(()),
                _ => {}
            }
        }
        if level == Level::Trace {
            return Ok(());
        }
        let subs = self.subdirs(dir)?;
        match level {
            Level::Free(d) => {
                let session = subs.iter().any(|(n, _)| n == "ust" || n == "kernel");
                for (name, path) in &subs {
                    let next = match name.as_str() {
                        // A session's traces count as found where the session is.
                        "ust" => Level::Ust,
                        "kernel" => Level::Trace,
                        _ if !session && d < SESSION_SEARCH_LEVELS => Level::Free(d + 1),
                        _ => continue,
                    };
                    let before = self.found.len();
                    // Only the root must be listable: a folder below it that we may not
                    // read is not a trace we can use.
                    let _ = self.visit(root, path, next);
                    for f in &mut self.found[before..] {
                        f.1 = f.1.max(d);
                    }
                }
            }
            Level::Ust => {
                for (name, path) in &subs {
                    let next = match name.as_str() {
                        "uid" => Level::UidList,
                        "pid" => Level::PidList,
                        _ => continue,
                    };
                    let _ = self.visit(root, path, next);
                }
            }
            Level::UidList | Level::PidList => {
                let next = if level == Level::UidList {
                    Level::Uid
                } else {
                    Level::Pid
                };
                for (_, path) in &subs {
                    let _ = self.visit(root, path, next);
                }
            }
            Level::Uid | Level::Pid => {
                for (name, path) in &subs {
                    if name.ends_with("-bit") {
                        let _ = self.visit(root, path, Level::Trace);
                    }
                }
            }
            Level::Trace => {}
        }
        Ok(())
    }
}

/// What a folder that holds no trace holds instead, judged by names only (nothing is
/// opened): ETDumps in it or one level down, else a count of files and folders.
fn describe_folder(root: &Path) -> String {
    let is_dump = |p: &Path| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("etdp") || e.eq_ignore_ascii_case("etdump"))
    };
    let (mut files, mut dirs, mut dumps, mut dumps_below) = (0usize, 0usize, 0usize, 0usize);
    let mut budget = MAX_SEARCH_ENTRIES;
    let mut subdirs = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root) {
        for e in rd.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                dirs += 1;
                subdirs.push(p);
            } else {
                files += 1;
                dumps += usize::from(is_dump(&p));
            }
        }
    }
    for d in subdirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            if budget == 0 {
                break;
            }
            budget -= 1;
            dumps_below += usize::from(is_dump(&e.path()));
        }
    }
    let shown = root.display();
    let s = |n: usize| if n == 1 { "" } else { "s" };
    if dumps > 0 {
        format!(
            "it holds {dumps} ETDump{} (.etdp): open one by naming the file, or follow the folder as dumps land with `cpuprof-tui --watch {shown}`",
            s(dumps)
        )
    } else if dumps_below > 0 {
        format!(
            "its subfolders hold {dumps_below} ETDump{} (.etdp): open one by naming the file, or follow them as they land with `cpuprof-tui --watch {shown} --recursive`",
            s(dumps_below)
        )
    } else {
        format!(
            "it holds {files} file{} and {dirs} folder{}",
            s(files),
            s(dirs)
        )
    }
}

/// The trace directories (holding CTF `metadata`) at `root` or in LTTng's layout below
/// it (see the module doc), sorted. Err: one line saying what was found instead.
pub fn find_trace_dirs(root: &Path) -> Result<Vec<PathBuf>, TraceError> {
    search_trace_dirs(root).map(|(dirs, _)| dirs)
}

/// [`find_trace_dirs`], and the note to give when traces were found in folders below
/// the root (a folder of sessions) rather than at it.
pub(super) fn search_trace_dirs(root: &Path) -> Result<(Vec<PathBuf>, Option<String>), TraceError> {
    let mut search = Search::default();
    if let Err(e) = search.visit(root, root, Level::Free(0)) {
        return Err(ctf_err(format!(
            "cannot list the directory: {}",
            input::io_message(&e)
        )));
    }
    if search.found.is_empty() || search.layout_problem {
        if let Some(first) = search.problems.first() {
            let n = search.problems.len();
            let more = if n > 1 {
                format!(" (and {} more like it)", n - 1)
            } else {
                String::new()
            };
            return Err(ctf_err(format!("{first}{more}")));
        }
        let stopped = if search.stopped {
            format!(" (stopped after looking at {MAX_SEARCH_ENTRIES} entries)")
        } else {
            String::new()
        };
        return Err(ctf_err(format!(
            "not a CTF trace directory: no LTTng trace in it (a `metadata` file, or a session's `ust/` or `kernel/`, in it or in a folder directly in it){stopped}; {}",
            describe_folder(root)
        )));
    }
    let below: Vec<String> = search
        .found
        .iter()
        .filter(|(_, depth)| *depth > 0)
        .map(|(d, _)| rel_to(root, d))
        .collect();
    let mut found: Vec<PathBuf> = search.found.into_iter().map(|(d, _)| d).collect();
    found.sort();
    let note = (!below.is_empty()).then(|| {
        let n = below.len();
        let list = below.iter().take(8).cloned().collect::<Vec<_>>().join(", ");
        let rest = if n > 8 {
            format!(", and {} more", n - 8)
        } else {
            String::new()
        };
        format!(
            "{n} trace director{} found in folders below the root, read together: {list}{rest}",
            if n == 1 { "y" } else { "ies" }
        )
    });
    Ok((found, note))
}

/// Every file the CTF reader opens for `root`: each trace directory's `metadata`, the
/// files beside it, and its `index/` files (for `-o`: all of them are inputs). Empty
/// when `root` holds no trace.
pub fn trace_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in find_trace_dirs(root).unwrap_or_default() {
        for d in [dir.clone(), dir.join("index")] {
            if let Ok(rd) = std::fs::read_dir(&d) {
                out.extend(
                    rd.flatten()
                        .take(MAX_TRACE_DIR_ENTRIES)
                        .map(|e| e.path())
                        .filter(|p| p.is_file()),
                );
            }
        }
    }
    out
}

pub(super) fn rel_to(root: &Path, p: &Path) -> String {
    match p.strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".into(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.display().to_string(),
    }
}
