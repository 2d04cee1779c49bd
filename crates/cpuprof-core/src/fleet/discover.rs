//! Finding the profiles of a fleet: every ETDump (by name, or by its `ED00` header), trace
//! file (by its first bytes, `trace::looks_like_trace`) and CTF trace directory (a folder
//! holding `metadata`, or an LTTng session's `ust/` / `kernel/`) under the paths, in
//! sorted order. Runner logs, sidecars, hidden and temporary files are not profiles; a
//! named file always is (its loader says what is wrong with it).

use std::path::{Path, PathBuf};

use crate::folder_entry::{name_kind, NameKind, HEADER_LEN};

/// Folders deeper than this below a root are not searched.
pub const MAX_DEPTH: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FoundKind {
    /// An ETDump (or a file named like one: its loader reports what it is).
    Dump,
    /// A trace file (text, JSON, gzip).
    Trace,
    /// A CTF trace directory.
    Ctf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    /// The root it was found under (the path given on the command line).
    pub root: PathBuf,
    /// `path` relative to `root` with `/` separators (the file name for a named file).
    pub rel: String,
    pub kind: FoundKind,
}

/// Every profile under `roots`; Err: a root that cannot be read (one line).
pub fn discover(roots: &[PathBuf]) -> Result<Vec<Found>, String> {
    let mut out = Vec::new();
    for root in roots {
        let meta = std::fs::metadata(root)
            .map_err(|e| format!("{}: {}", root.display(), crate::input::io_message(&e)))?;
        if meta.is_dir() {
            if is_ctf_dir(root) {
                let rel = root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| root.display().to_string());
                out.push(Found {
                    path: root.clone(),
                    root: root.clone(),
                    rel,
                    kind: FoundKind::Ctf,
                });
                continue;
            }
            walk(root, root, 0, &mut out)
                .map_err(|e| format!("{}: {}", root.display(), crate::input::io_message(&e)))?;
        } else {
            // Only a regular file is sniffed here: a FIFO or device named on the command
            // line is read once, by the load (which sniffs what it reads).
            let kind = if meta.is_file() && trace_head(root) {
                FoundKind::Trace
            } else {
                FoundKind::Dump
            };
            let rel = root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| root.display().to_string());
            out.push(Found {
                path: root.clone(),
                root: root.clone(),
                rel,
                kind,
            });
        }
    }
    Ok(out)
}

fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<Found>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        // Symlinked folders are not followed (no loops); symlinked files are.
        let Ok(lmeta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let rel = || rel_path(root, &path);
        if lmeta.is_dir() {
            if name_kind(&path) == NameKind::Ignored {
                continue;
            }
            if is_ctf_dir(&path) {
                out.push(Found {
                    rel: rel(),
                    path,
                    root: root.to_path_buf(),
                    kind: FoundKind::Ctf,
                });
            } else if depth < MAX_DEPTH {
                // A subfolder that cannot be listed is skipped, not fatal.
                let _ = walk(root, &path, depth + 1, out);
            }
            continue;
        }
        if !path.is_file() {
            continue;
        }
        let kind = match name_kind(&path) {
            NameKind::Ignored | NameKind::Log => continue,
            _ if is_side_file(&path) => continue,
            NameKind::Dump => FoundKind::Dump,
            NameKind::Maybe => match sniff_file(&path) {
                Some(k) => k,
                None => continue,
            },
        };
        out.push(Found {
            rel: rel(),
            path,
            root: root.to_path_buf(),
            kind,
        });
    }
    Ok(())
}

/// Files beside profiles that are never profiles: sidecars, truth files, the model's
/// program and ETRecord.
fn is_side_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".meta.json")
        || name.ends_with(".truth.json")
        || name.ends_with(".pte")
        || name.contains(".etrecord")
        || name == "etrecord.bin"
        || name == "metadata"
}

/// A CTF trace directory: `metadata` in it, or an LTTng session (`ust/`, `kernel/`).
fn is_ctf_dir(dir: &Path) -> bool {
    dir.join("metadata").is_file() || dir.join("ust").is_dir() || dir.join("kernel").is_dir()
}

fn head(path: &Path) -> Vec<u8> {
    let mut head = Vec::with_capacity(4096);
    let _ = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut head));
    head
}

/// A file with an unusual name: an ETDump by its header, a trace by its first bytes,
/// else not a profile. JSON found in a folder is a trace only when it holds trace
/// events (a report, a sidecar or a `key_averages` table is JSON too, and no profile).
fn sniff_file(path: &Path) -> Option<FoundKind> {
    let h = head(path);
    if h.len() >= HEADER_LEN && &h[8..12] == b"ED00" {
        return Some(FoundKind::Dump);
    }
    if h.is_empty() || !crate::trace::looks_like_trace(&h) {
        return None;
    }
    let json = !crate::trace::is_gzip(&h)
        && crate::trace::detect_format(&h) == Ok(crate::trace::TraceFormat::ChromeJson);
    (!json || holds_trace_events(path)).then_some(FoundKind::Trace)
}

/// Bytes of a JSON file searched for trace events: a trace names them early (torch's
/// `traceEvents` follows a few small fields; an array of events starts with one).
const JSON_SNIFF_BYTES: u64 = 1 << 20;

/// Whether the first MiB of a JSON file names trace events: the `traceEvents` key of a
/// Chrome trace object, or an event's phase (`"ph"`) in an array of events.
fn holds_trace_events(path: &Path) -> bool {
    let mut bytes = Vec::new();
    let _ = std::fs::File::open(path).and_then(|f| {
        std::io::Read::read_to_end(&mut std::io::Read::take(f, JSON_SNIFF_BYTES), &mut bytes)
    });
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    has(b"\"traceEvents\"") || has(b"\"ph\"")
}

fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// A regular file whose first 4 KiB read as a trace (what `source::is_trace_file` says of
/// a regular file; not imported from `source`, which the fleet view's `app` sits below).
fn trace_head(path: &Path) -> bool {
    let mut head = Vec::with_capacity(4096);
    let n = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut head))
        .unwrap_or(0);
    n > 0 && crate::trace::looks_like_trace(&head[..n])
}
