//! Opening the trace directories found: metadata read and parsed, stream files mapped
//! (others skipped with a warning), `index/*.idx` files read and checked.

use std::path::{Path, PathBuf};

use super::super::error::TraceError;
use super::super::intervals::{TraceWarning, WarningLog};
use super::clock::{stream_clock, ClockConv};
use super::search::{kind_of, rel_to, search_trace_dirs, MAX_TRACE_DIR_ENTRIES};
use super::stream::{self, parse_index};
use super::tsdl::{self, Metadata, Type};
use super::{ctf_err, CtfTrace, StreamFile};
use crate::input;

/// Read every trace directory under `root`: metadata parsed, stream files mapped and
/// indexes read. Index problems and skipped files are the warnings returned. `limit`: the
/// most bytes read or mapped of any one file (`--max-input-size`).
pub fn open_traces(
    root: &Path,
    limit: u64,
) -> Result<(Vec<CtfTrace>, Vec<TraceWarning>), TraceError> {
    let mut warnings = WarningLog::default();
    let traces = open_traces_log(root, limit, &mut warnings)?;
    Ok((traces, warnings.finish()))
}

/// Whether the packet header starts with a `magic` field (then every stream file does).
fn header_has_magic(meta: &Metadata) -> bool {
    match meta.packet_header.map(|t| &meta.types[t as usize]) {
        Some(Type::Struct { fields, .. }) => fields.first().is_some_and(|f| f.name == "magic"),
        _ => false,
    }
}

fn starts_with_packet_magic(bytes: &[u8]) -> bool {
    let m = stream::PACKET_MAGIC as u32;
    bytes.len() >= 4 && (bytes[..4] == m.to_le_bytes() || bytes[..4] == m.to_be_bytes())
}

/// The entries beside `dir/metadata` that may be streams: (path, type with symlinks
/// followed), sorted; `index/`, the metadata and hidden files left out.
fn trace_dir_entries(
    dir: &Path,
    rel: &str,
) -> Result<Vec<(PathBuf, Option<std::fs::Metadata>)>, TraceError> {
    let listing = std::fs::read_dir(dir)
        .map_err(|e| ctf_err(format!("{rel}: cannot list: {}", input::io_message(&e))))?;
    let mut out = Vec::new();
    for e in listing.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name == "metadata" || name == "index" || name.starts_with('.') {
            continue;
        }
        if out.len() >= MAX_TRACE_DIR_ENTRIES {
            return Err(ctf_err(format!(
                "{rel}: more than {MAX_TRACE_DIR_ENTRIES} entries beside the metadata; not an LTTng trace directory"
            )));
        }
        let path = e.path();
        let meta = std::fs::metadata(&path).ok();
        out.push((path, meta));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

pub(super) fn open_traces_log(
    root: &Path,
    limit: u64,
    warnings: &mut WarningLog,
) -> Result<Vec<CtfTrace>, TraceError> {
    let (dirs, problems) = search_trace_dirs(root)?;
    for p in problems {
        warnings.add("not_a_trace", || format!("{p}; skipped"));
    }
    let mut traces = Vec::new();
    for (dir, below_root) in dirs {
        let rel = rel_to(root, &dir);
        let meta_path = dir.join("metadata");
        let meta_rel = rel_to(root, &meta_path);
        let meta = {
            let read = input::read_input(&meta_path, limit)
                .map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
            let text = tsdl::metadata_text(&read.bytes)
                .map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?;
            tsdl::parse_metadata(&text).map_err(|e| ctf_err(format!("{meta_rel}: {e}")))?
        };
        for w in &meta.warnings {
            warnings.add("metadata_warning", || format!("{meta_rel}: {w}"));
        }
        let magic = header_has_magic(&meta);
        let mut streams = Vec::new();
        for (p, file_meta) in trace_dir_entries(&dir, &rel)? {
            let srel = rel_to(root, &p);
            let Some(m) = file_meta else {
                warnings.add("not_a_stream", || {
                    format!("{srel} is a symbolic link to nothing; skipped")
                });
                continue;
            };
            if m.is_dir() {
                continue;
            }
            if !m.is_file() {
                let what = kind_of(&m);
                warnings.add("not_a_stream", || {
                    format!("{srel} is {what}, not a stream file; not opened")
                });
                continue;
            }
            if m.len() == 0 {
                continue;
            }
            let data = input::map_input(&p, limit).map_err(|e| ctf_err(format!("{srel}: {e}")))?;
            if magic && !starts_with_packet_magic(&data.bytes) {
                let len = data.bytes.len();
                warnings.add("not_a_stream", || {
                    format!(
                        "{srel}: not a CTF stream file ({len} bytes, not starting with the packet magic 0xC1FC1FC1); skipped"
                    )
                });
                continue;
            }
            let index = read_index(&dir, &p, &srel, data.bytes.len() as u64, limit, warnings);
            streams.push(StreamFile {
                rel: srel,
                data,
                index,
            });
        }
        let clocks = (0..meta.streams.len())
            .map(|i| ClockConv::new(stream_clock(&meta, i)))
            .collect();
        let compiled = stream::Compiled::new(&meta);
        traces.push(CtfTrace {
            rel,
            below_root,
            meta,
            streams,
            clocks,
            compiled,
        });
    }
    Ok(traces)
}

/// `index/<stream>.idx` when present and consistent (sorted, inside the file).
fn read_index(
    dir: &Path,
    stream: &Path,
    srel: &str,
    file_len: u64,
    limit: u64,
    warnings: &mut WarningLog,
) -> Option<Vec<stream::IndexEntry>> {
    let name = stream.file_name()?;
    let mut idx_name = name.to_os_string();
    idx_name.push(".idx");
    let path = dir.join("index").join(idx_name);
    let unusable = |why: String, warnings: &mut WarningLog| {
        warnings.add("index_invalid", || {
            format!("{srel}: index file not used ({why}); packets read from their headers")
        });
        None
    };
    match std::fs::metadata(&path) {
        Ok(m) if m.is_file() => {}
        // Never opened: a FIFO would block the import.
        Ok(m) => return unusable(format!("it is {}", kind_of(&m)), warnings),
        Err(_) => return None,
    }
    let read = match input::read_input(&path, limit) {
        Ok(r) => r,
        Err(e) => return unusable(e.to_string(), warnings),
    };
    let checked = parse_index(&read.bytes).and_then(|entries| {
        let mut prev_end = 0u64;
        for (i, e) in entries.iter().enumerate() {
            let end = e.offset.checked_add(e.packet_size / 8);
            if e.offset < prev_end
                || e.packet_size % 8 != 0
                || e.content_size > e.packet_size
                || end.is_none_or(|end| end > file_len)
            {
                return Err(format!("entry {i} does not fit the stream file"));
            }
            prev_end = end.unwrap_or(0);
        }
        Ok(entries)
    });
    match checked {
        Ok(e) => Some(e),
        Err(why) => unusable(why, warnings),
    }
}
