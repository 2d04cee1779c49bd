//! What the explorer and `report` open: an ETDump profile or a PyTorch trace, told apart
//! by content (never by file name), read once ([`crate::input`]). The TUI crate's
//! `worker::load_explorer_data` makes the explorer's view model of it.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::input;
use crate::profile::{
    load_profile_from_bytes, load_profile_from_input, read_dump, unchanged_or, LoadError,
    LoadPhase, LoadProgress, Profile, ProfileRequest,
};
use crate::trace::{self, TraceProfile};

/// What the bytes of an input are, judged from the bytes themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// A PyTorch trace (text, JSON, or gzip of either).
    Trace,
    /// Anything else goes to the ETDump reader, which says what is wrong with it.
    EtDump,
}

/// Sniff content from bytes already read (never from the name).
pub fn sniff(bytes: &[u8]) -> Content {
    if trace::looks_like_trace(bytes) {
        Content::Trace
    } else {
        Content::EtDump
    }
}

/// Whether the file at `path` is a PyTorch trace rather than an ETDump (from its first
/// bytes). Unreadable files count as ETDumps, whose loader reports the error.
///
/// This opens the file: for a pipe or FIFO use [`load_source`] instead, which sniffs the
/// bytes it reads once (stdin and FIFOs read here, at most `limit` bytes, are kept for
/// that load).
pub fn is_trace_file(path: &Path, limit: u64) -> bool {
    // A directory is a CTF trace directory (the trace loader reports one that is not).
    if path.is_dir() {
        return true;
    }
    if input::is_stdin(path) || !path.is_file() {
        return input::read_input(path, limit).is_ok_and(|i| sniff(&i.bytes) == Content::Trace);
    }
    let mut head = Vec::with_capacity(4096);
    let n = std::fs::File::open(path)
        .and_then(|f| std::io::Read::read_to_end(&mut std::io::Read::take(f, 4096), &mut head))
        .unwrap_or(0);
    n > 0 && trace::looks_like_trace(&head[..n])
}

/// A loaded input: either kind.
#[derive(Debug, Clone)]
pub enum Source {
    Profile(Box<Profile>),
    Trace(Box<TraceProfile>),
}

/// Read `request.etdump` once, sniff it, and load it as a trace or an ETDump profile
/// (with the request's log and warm-up).
pub fn load_source(
    request: &ProfileRequest,
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Source, LoadError> {
    if let Some(e) = request.embedded {
        return load_profile_from_bytes(request, e.etdump, progress, cancel)
            .map(|p| Source::Profile(Box::new(p)));
    }
    let name = input::display_name(&request.etdump);
    // A CTF trace directory: the native reader maps its stream files itself.
    if request.etdump.is_dir() {
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: 0,
            bytes_total: 0,
        });
        return trace::load_trace_with_limit(&request.etdump, request.read.max_input_size)
            .map(|p| Source::Trace(Box::new(p)))
            .map_err(|e| LoadError::BadInput {
                path: name,
                detail: e.to_string(),
            });
    }
    if let Some(streamed) =
        trace::load_large_chrome_json(&request.etdump, &name, request.read.max_input_size)
    {
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: 0,
            bytes_total: 0,
        });
        return streamed
            .map(|p| Source::Trace(Box::new(p)))
            .map_err(|e| LoadError::BadInput {
                path: name,
                detail: e.to_string(),
            });
    }
    // A regular file is mapped: a trace parsed from it, like a dump decoded from it, is
    // only believed if the file did not change meanwhile.
    let input = read_dump(request, progress, cancel)?;
    if sniff(&input.bytes) == Content::EtDump {
        return load_profile_from_input(request, &input, progress, cancel)
            .map(|p| Source::Profile(Box::new(p)));
    }
    let result = load_source_from_bytes(request, &input.bytes, progress, cancel);
    unchanged_or(&input, &request.etdump, result)
}

/// [`load_source`] on bytes already read (`request.etdump` names them).
pub fn load_source_from_bytes(
    request: &ProfileRequest,
    bytes: &[u8],
    progress: &mut dyn FnMut(LoadProgress),
    cancel: &AtomicBool,
) -> Result<Source, LoadError> {
    if request.embedded.is_none() && sniff(bytes) == Content::Trace {
        let total = bytes.len() as u64;
        progress(LoadProgress {
            phase: LoadPhase::Parsing,
            bytes_done: 0,
            bytes_total: total,
        });
        let name = input::display_name(&request.etdump);
        let options = trace::BuildOptions::default();
        let profile = trace::parse_trace_with(bytes, &name, options, request.read.max_input_size)
            .map_err(|e| LoadError::BadInput {
            path: name.clone(),
            detail: e.to_string(),
        })?;
        progress(LoadProgress {
            phase: LoadPhase::Analysing,
            bytes_done: total,
            bytes_total: total,
        });
        return Ok(Source::Trace(Box::new(profile)));
    }
    load_profile_from_bytes(request, bytes, progress, cancel).map(|p| Source::Profile(Box::new(p)))
}

/// Load the timeline for `request` (dump or trace, told apart by content), on a
/// background thread: this reads the files. The timeline view shows it.
pub fn load_timeline(request: &ProfileRequest) -> Result<crate::timeline::AnyTimeline, String> {
    load_timeline_around(request, None)
}

/// Events the timeline view holds at most (about): 32 bytes each, 64 MB. A dump whose kept
/// runs hold more gets the events of a window of runs around `center` (or the median run);
/// stepping out of it loads the next window.
pub const TIMELINE_VIEW_EVENTS: usize = 2_000_000;

/// [`load_timeline`], a big dump's window of runs around run `center`.
pub fn load_timeline_around(
    request: &ProfileRequest,
    center: Option<usize>,
) -> Result<crate::timeline::AnyTimeline, String> {
    load_timeline_with(request, center, TIMELINE_VIEW_EVENTS)
}

/// [`load_timeline_around`] with a budget of `max_events` (tests use small ones).
pub fn load_timeline_with(
    request: &ProfileRequest,
    center: Option<usize>,
    max_events: usize,
) -> Result<crate::timeline::AnyTimeline, String> {
    use crate::timeline::{load_dump_timeline, load_trace_timeline, AnyTimeline};
    let limit = request.read.max_input_size;
    if request.embedded.is_none() && is_trace_file(&request.etdump, limit) {
        return load_trace_timeline(&request.etdump, limit).map(AnyTimeline::Trace);
    }
    // The view steps through the kept runs only: warm-ups are not walked.
    let select = crate::profile::RunSelection {
        max_events: Some(max_events),
        center,
        ..crate::profile::RunSelection::kept()
    };
    load_dump_timeline(request, true, &select).map(AnyTimeline::Dump)
}
