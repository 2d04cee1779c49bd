//! Where trace directories are looked for: every folder holding CTF metadata at and below
//! the root, within the search budgets (see the parent module's doc), and their files.

use std::path::{Path, PathBuf};

use super::super::error::TraceError;
use super::{ctf_err, tsdl};
use crate::input;

/// How many folder levels below the root are searched for trace directories: every
/// layout LTTng writes (`<session>/archives/<chunk>/ust/pid/<proc>/64-bit` is 6 levels
/// below a folder of sessions) with room to spare, as babeltrace2 finds them, but not
/// an unbounded walk of a deep tree.
pub const MAX_SEARCH_DEPTH: usize = 10;
/// At most this many directory entries are looked at while searching (a big folder that
/// holds no trace costs this, not its size).
pub const MAX_SEARCH_ENTRIES: usize = 100_000;
/// At most this many trace directories are read.
pub const MAX_TRACE_DIRS: usize = 1_024;
/// At most this many entries in one trace directory (LTTng writes one stream file per
/// CPU and channel).
pub const MAX_TRACE_DIR_ENTRIES: usize = 16_384;

/// What a directory search found.
#[derive(Default)]
struct Search {
    /// Trace directories, and whether each sits where LTTng's layout puts the traces of
    /// a session at the root (else it was found in a folder below, and named).
    found: Vec<(PathBuf, bool)>,
    /// Things where a metadata file belongs that are not one ("X/metadata is a FIFO").
    problems: Vec<String>,
    /// Whether a problem sits where LTTng's layout puts a trace.
    layout_problem: bool,
    entries: usize,
    stopped: bool,
    /// Folders visited, by device and inode: a symlinked folder is followed once, so a
    /// link back up (`a/up -> ..`) or a second name for a session (`latest -> s1`) never
    /// reads a trace twice.
    visited: std::collections::HashSet<(u64, u64)>,
}

/// Whether `rel` (the folder names from the root down) is where LTTng puts the traces of
/// a session at the root: the root itself, `kernel`, `ust` (holding its metadata
/// directly), `ust/uid/<uid>/<N>-bit`, `ust/pid/<proc>[/<N>-bit]`.
fn in_session_layout(rel: &[String]) -> bool {
    let bits = |s: &String| s.ends_with("-bit");
    match rel {
        [] => true,
        [k] => k == "kernel" || k == "ust",
        [u, p, _] => u == "ust" && p == "pid",
        [u, x, _, b] => u == "ust" && (x == "uid" || x == "pid") && bits(b),
        _ => false,
    }
}
/// What a file that is not a regular file is, in words.
pub(super) fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    crate::regular_file::kind_name(&meta.file_type())
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

    /// Every folder from `dir` down ([`MAX_SEARCH_DEPTH`] levels below the root at most)
    /// that holds CTF metadata is a trace directory, as babeltrace2 finds them (a
    /// session's `kernel/` and `ust/...`, rotation chunks `archives/<chunk>/...`, a
    /// folder of sessions); a trace directory is not searched further. `rel` names the
    /// folders from the root down to `dir`.
    fn visit(&mut self, root: &Path, dir: &Path, rel: &mut Vec<String>) -> std::io::Result<()> {
        if self.stopped || self.found.len() >= MAX_TRACE_DIRS {
            return Ok(());
        }
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata(dir) {
            if !self.visited.insert((m.dev(), m.ino())) {
                return Ok(());
            }
        }
        let in_layout = in_session_layout(rel);
        // A file named `metadata` that is not one (Some(false), noted): its folder is
        // searched on, as any other.
        if self.metadata_at(root, dir, in_layout) == Some(true) {
            self.found.push((dir.to_path_buf(), in_layout));
            return Ok(());
        }
        if rel.len() >= MAX_SEARCH_DEPTH {
            return Ok(());
        }
        for (name, path) in self.subdirs(dir)? {
            // A trace's own `index/` holds no trace; hidden folders are not LTTng's.
            if name == "index" || name.starts_with('.') {
                continue;
            }
            rel.push(name);
            // Only the root must be listable: a folder below it that we may not read
            // is not a trace we can use.
            let _ = self.visit(root, &path, rel);
            rel.pop();
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
    search_trace_dirs(root).map(|(dirs, _)| dirs.into_iter().map(|(d, _)| d).collect())
}

/// What [`search_trace_dirs`] found: each trace directory with whether it was found in
/// a folder below the root rather than where LTTng's layout puts a session's traces
/// (then the reader names it), and the `metadata` files below the root that are not
/// CTF metadata (skipped, for a warning).
pub(super) type Found = (Vec<(PathBuf, bool)>, Vec<String>);

/// [`find_trace_dirs`], with what [`Found`] says.
pub(super) fn search_trace_dirs(root: &Path) -> Result<Found, TraceError> {
    let mut search = Search::default();
    if let Err(e) = search.visit(root, root, &mut Vec::new()) {
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
            "not a CTF trace directory: no LTTng trace in it (no folder holding a CTF `metadata` file, at it or up to {MAX_SEARCH_DEPTH} levels below){stopped}; {}",
            describe_folder(root)
        )));
    }
    let mut found: Vec<(PathBuf, bool)> = search
        .found
        .into_iter()
        .map(|(d, in_layout)| (d, !in_layout))
        .collect();
    found.sort();
    Ok((found, search.problems))
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
