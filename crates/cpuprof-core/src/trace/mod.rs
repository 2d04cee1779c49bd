//! PyTorch operator trace import (THAPI babeltrace2 / THAPI text, torch.profiler Chrome
//! JSON): detect the format, read per-thread intervals, build the [`TraceProfile`] and
//! its tally input ([`tally::TallyInput`]). Rendering (the iprof-style tally, CSV,
//! `cpuprof.trace/1` JSON) is `report`'s: a reader renders nothing.
//!
//! Entry points: [`load_trace`] / [`parse_trace`] (whole pipeline), [`looks_like_trace`]
//! (route a file to this importer or the ETDump reader), [`read_intervals`] (reader stage
//! only), [`parse_lttng_events`] + [`pair_events`] (LTTng events without the model),
//! `report::tally::render_tally`, `report::trace_csv`, `report::trace_json::to_json_value`.
//!
//! Decisions on ambiguous input:
//! - A failed call (LTTng exit with no entry) counts in `calls` and `errors` with
//!   duration 0 and stays out of `stats`/min/max, as in iprof's tally.
//! - Entries never exited are listed in `unterminated` (not counted); their closed
//!   children become roots of the call tree.
//! - Self time = inclusive minus the inclusive time of direct children on the same
//!   thread; not clamped (a child overlapping its parent's end within the Chrome
//!   containment tolerance can make it slightly negative, as PyTorch's would).
//! - Chrome traces: the host is the top-level `host_name`; non-numeric pid/tid strings get
//!   negative ids (with a warning); an `Input Dims` entry that is not a flat list of ints
//!   (tensor lists) is recorded as `[]`.
//! - Warnings are grouped by kind: the first 5 of a kind verbatim, then a count.

mod chrome;
pub mod ctf;
mod detect;
mod error;
mod fields;
mod gzip;
mod intervals;
mod lttng;
mod model;
mod nesting;
pub mod nodes;
mod pairing;
mod read_ahead;
pub mod tally;
mod timestamp;

use std::io::Read;
use std::path::Path;

use gzip::{lock, GzProblem, GzStream};

pub use detect::{detect_format, is_gzip, looks_like_trace, TraceFormat};
pub use error::TraceError;
pub use intervals::{
    ImportCounts, InputSig, Interval, IntervalSet, ThreadKey, TraceWarning, Unterminated,
};
pub use lttng::{pair_events, parse_lttng_events, LttngEvent};
pub use model::{
    BuildOptions, CallNode, CallTree, TraceOp, TraceProfile, TraceThread, MAX_TREE_DEPTH,
};
pub use nesting::CONTAINMENT_TOLERANCE_NS;
pub use pairing::OpEventKind;

/// Read and import a trace file or a CTF trace directory (a file is read once through [`crate::input`]: `-` is standard
/// input; FIFOs and process substitutions work), with the default size limit
/// ([`crate::input::DEFAULT_MAX_INPUT_SIZE`]). The error names the problem, not the path.
pub fn load_trace(path: &Path) -> Result<TraceProfile, TraceError> {
    load_trace_with_limit(path, crate::input::DEFAULT_MAX_INPUT_SIZE)
}

/// [`load_trace`], reading at most `limit` bytes of any one input (`--max-input-size`).
pub fn load_trace_with_limit(path: &Path, limit: u64) -> Result<TraceProfile, TraceError> {
    // A CTF trace directory (LTTng / iprof output) is read by the native CTF reader.
    if path.is_dir() {
        return ctf::load_dir(path, limit);
    }
    let name = crate::input::display_name(path);
    if let Some(streamed) = load_large_chrome_json(path, &name, limit) {
        return streamed;
    }
    let input = crate::input::read_input(path, limit).map_err(|e| TraceError::Io(e.to_string()))?;
    parse_trace_with(&input.bytes, &input.name, BuildOptions::default(), limit)
}

/// When `path` is a regular file of 1 MiB or more holding plain Chrome JSON, import it
/// from the file through the scanner's fixed buffer (`chrome::scan`): memory grows with
/// the events, not the text, and the file's pages are never part of the process's
/// resident set. `None`: anything else, to be read whole through [`crate::input`] as
/// usual. A regular file can be read again, so sniffing its head first reads nothing
/// twice that matters. The input layer's guarantees hold: the size limit `limit`
/// (`--max-input-size`, checked before reading and on the bytes read), read-only, and a
/// file that changed while it was read is refused as a changed map is.
pub fn load_large_chrome_json(
    path: &Path,
    name: &str,
    limit: u64,
) -> Option<Result<TraceProfile, TraceError>> {
    load_large_chrome_json_with(path, name, BuildOptions::default(), limit)
}

/// [`load_large_chrome_json`], the profile built with `options`.
pub fn load_large_chrome_json_with(
    path: &Path,
    name: &str,
    options: BuildOptions,
    limit: u64,
) -> Option<Result<TraceProfile, TraceError>> {
    load_large_chrome_json_on(path, name, options, limit, 0)
}

/// [`load_large_chrome_json_with`] on up to `threads` threads (0: one per core). A pool
/// that reads several files at once (`fleet`) gives 1: its workers already fill the
/// cores, and parts on top of them would only share the same cores.
pub fn load_large_chrome_json_on(
    path: &Path,
    name: &str,
    options: BuildOptions,
    limit: u64,
    threads: usize,
) -> Option<Result<TraceProfile, TraceError>> {
    if crate::input::is_stdin(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() < STREAM_FILE_MIN_BYTES {
        return None;
    }
    let mut file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut head = Vec::new();
    (&mut file)
        .take(GZIP_SNIFF_BYTES)
        .read_to_end(&mut head)
        .ok()?;
    if is_gzip(&head) || crate::trace::looks_like_etdump(&head) {
        return None;
    }
    let has_bom = head.starts_with(BOM);
    let body = head.strip_prefix(BOM).unwrap_or(&head);
    if detect_format(body).ok()? != TraceFormat::ChromeJson {
        return None;
    }
    if meta.len() > limit {
        return Some(Err(TraceError::Io(
            crate::input::InputError::TooLarge {
                limit,
                size: Some(meta.len()),
            }
            .to_string(),
        )));
    }
    // The bytes the file had when it was measured are read (in parts on every core:
    // `chrome/parts.rs`); one that grew or changed meanwhile is refused below.
    let start = if has_bom { 3 } else { 0 };
    let set = chrome::read_chrome_file(&file, start, meta.len().saturating_sub(start), threads);
    let changed = file
        .metadata()
        .ok()
        .is_none_or(|now| now.len() != meta.len() || now.modified().ok() != meta.modified().ok());
    if changed {
        return Some(Err(TraceError::Io(
            crate::input::InputError::Changed.to_string(),
        )));
    }
    Some(set.map(|set| TraceProfile::build_with(set, name, options)))
}

/// Regular files of Chrome JSON at least this big are read through the scanner's buffer
/// ([`load_large_chrome_json`]); smaller ones are read whole (cheaper).
const STREAM_FILE_MIN_BYTES: u64 = 1 << 20;

fn looks_like_etdump(head: &[u8]) -> bool {
    head.len() >= 12 && &head[8..12] == b"ED00"
}

/// Import a trace held in memory; `name` is recorded as the source. A gzip trace is
/// inflated up to the default size limit ([`crate::input::DEFAULT_MAX_INPUT_SIZE`]).
pub fn parse_trace(bytes: &[u8], name: &str) -> Result<TraceProfile, TraceError> {
    parse_trace_with(
        bytes,
        name,
        BuildOptions::default(),
        crate::input::DEFAULT_MAX_INPUT_SIZE,
    )
}

/// [`parse_trace`], the profile built with `options`, a gzip trace inflated up to
/// `limit` bytes (`--max-input-size`).
pub fn parse_trace_with(
    bytes: &[u8],
    name: &str,
    options: BuildOptions,
    limit: u64,
) -> Result<TraceProfile, TraceError> {
    read_intervals(bytes, limit).map(|set| TraceProfile::build_with(set, name, options))
}

/// How much inflated text sniffing looks at in a gzip trace.
const GZIP_SNIFF_BYTES: u64 = 64 << 10;

/// The reader stage alone (detect, decompress, read): intervals before aggregation. A
/// gzip trace is inflated up to `limit` bytes (`--max-input-size`).
pub fn read_intervals(bytes: &[u8], limit: u64) -> Result<IntervalSet, TraceError> {
    if is_gzip(bytes) {
        return read_gzip(bytes, limit);
    }
    // A UTF-8 byte-order mark (editors on Windows add one) is not content.
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let format = detect_format(bytes)?;
    match format {
        TraceFormat::ChromeJson => chrome::read_chrome_json(bytes),
        _ => read_text(bytes, format),
    }
}

const BOM: &[u8] = b"\xef\xbb\xbf";

/// Chrome JSON held in memory read with the text cut into parts at `hints` (each moved
/// to the next place that looks like the start of an event when `snap`), the parts
/// scanned on threads of their own: the same intervals as the serial scan, whatever the
/// cuts; and how many parts were merged rather than scanned again. For the tests of the
/// cutting.
#[doc(hidden)]
pub fn read_chrome_json_cut_at(
    bytes: &[u8],
    hints: &[u64],
    snap: bool,
) -> (Result<IntervalSet, TraceError>, usize) {
    chrome::read_chrome_json_cut_at(bytes, hints, snap)
}

fn read_text(bytes: &[u8], format: TraceFormat) -> Result<IntervalSet, TraceError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => std::borrow::Cow::Borrowed(t),
        Err(_) => std::borrow::Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
    };
    lttng::read_lttng_text(&text, format)
}

/// Gzip: sniff an inflated prefix; stream Chrome JSON through the parser while it
/// inflates (memory bounded by the events, not the text); inflate text formats whole,
/// up to the input limit.
fn read_gzip(bytes: &[u8], limit: u64) -> Result<IntervalSet, TraceError> {
    let limit = limit.max(1);
    let head_problem = std::sync::Mutex::new(None);
    let mut head = Vec::new();
    let head_read = GzStream::new(bytes, limit, &head_problem)
        .take(GZIP_SNIFF_BYTES)
        .read_to_end(&mut head);
    if head_read.is_err() && head.is_empty() {
        let p = lock(&head_problem).clone();
        return Err(match p.map(|p| p.verdict()) {
            Some(Err(e)) => e,
            Some(Ok(m)) => TraceError::Gzip(m),
            None => TraceError::Gzip("cannot decompress".into()),
        });
    }
    let has_bom = head.starts_with(BOM);
    let format = detect_format(head.strip_prefix(BOM).unwrap_or(&head))?;
    let problem = std::sync::Mutex::new(None);
    let mut stream = GzStream::new(bytes, limit, &problem);
    let mut set = if format == TraceFormat::ChromeJson {
        if has_bom {
            let mut skip = [0u8; 3];
            let _ = stream.read_exact(&mut skip);
        }
        // Inflated a few chunks ahead of the scanner on another thread (`read_ahead`),
        // never whole: the size of the text costs time, not memory.
        let mut io_problem = |e: &chrome::ScanError| {
            if e.is_io() || e.is_eof() {
                lock(&problem).as_ref().map(GzProblem::verdict)
            } else {
                None
            }
        };
        read_ahead::read_ahead(stream, &mut |text| {
            chrome::read_chrome_json_from(text, &mut io_problem)
        })?
    } else {
        let mut text = Vec::new();
        if stream.read_to_end(&mut text).is_err() {
            let p = lock(&problem).clone();
            match p.map(|p| p.verdict()) {
                Some(Err(e)) => return Err(e),
                Some(Ok(_)) if !text.is_empty() => {}
                Some(Ok(m)) => return Err(TraceError::Gzip(m)),
                None => return Err(TraceError::Gzip("cannot decompress".into())),
            }
        }
        let body = text.strip_prefix(BOM).unwrap_or(&text);
        read_text(body, format)?
    };
    let p = lock(&problem).clone();
    if let Some(Err(e)) = p.as_ref().map(GzProblem::verdict) {
        return Err(e);
    }
    if let Some(Ok(message)) = p.as_ref().map(GzProblem::verdict) {
        let kind = match p {
            Some(GzProblem::TrailingJunk(_)) => "gzip_trailing_data",
            _ => "truncated",
        };
        // The JSON reader already named a cut it kept events before.
        if !set.warnings.iter().any(|w| w.message.starts_with(&message)) {
            set.warnings.insert(
                0,
                TraceWarning {
                    kind: kind.into(),
                    message,
                },
            );
        }
    }
    Ok(set)
}

/// `12 × ph "i" cat "ac2g", 3 × ph "M" cat none` (most frequent first) for the
/// ignored-events warnings; names come from the input and are escaped by `{:?}` where
/// they are formed.
pub(crate) fn kinds_list(kinds: &std::collections::BTreeMap<String, u64>) -> String {
    let mut v: Vec<(&String, &u64)> = kinds.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut parts: Vec<String> = v
        .iter()
        .take(8)
        .map(|(k, n)| format!("{n} × {k}"))
        .collect();
    if v.len() > 8 {
        parts.push(format!("{} more kinds", v.len() - 8));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const TORCH: &[u8] = include_bytes!("../../../../fixtures/torch/cnn_infer.json");

    fn summary(
        r: Result<IntervalSet, TraceError>,
    ) -> Result<(usize, ImportCounts, Vec<String>), String> {
        r.map(|s| (s.intervals.len(), s.counts, s.names))
            .map_err(|e| format!("{:?}", std::mem::discriminant(&e)))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// The streamed Chrome JSON path (large files, large gzip) gives the verdict of
        /// the in-memory path on mutated input.
        #[test]
        fn streamed_json_gets_the_in_memory_verdict(
            flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6),
            cut in any::<prop::sample::Index>(),
            do_cut in any::<bool>(),
        ) {
            let mut bytes = TORCH.to_vec();
            for (at, b) in &flips {
                let i = at.index(bytes.len());
                bytes[i] = *b;
            }
            if do_cut {
                bytes.truncate(cut.index(bytes.len()));
            }
            let in_memory = summary(chrome::read_chrome_json(&bytes));
            let streamed = summary(chrome::read_chrome_json_from(
                &mut crate::input::SqueezeJsonWhitespace::new(&bytes[..]),
                &mut |_| None,
            ));
            prop_assert_eq!(in_memory, streamed);
        }
    }

    #[test]
    fn bom_and_gzip_are_transparent() {
        let json = br#"{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}"#;
        let mut with_bom = b"\xef\xbb\xbf".to_vec();
        with_bom.extend_from_slice(json);
        let p = parse_trace(&with_bom, "bom").unwrap();
        assert_eq!(p.ops[0].inclusive_total_ns, 2_000);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, json).unwrap();
        let p = parse_trace(&gz.finish().unwrap(), "gz").unwrap();
        assert_eq!(p.ops[0].calls, 1);
        assert!(p.warnings.is_empty());
    }
}
