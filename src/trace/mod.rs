//! PyTorch operator trace import (THAPI babeltrace2 / THAPI text, torch.profiler Chrome
//! JSON): detect the format, read per-thread intervals, build the [`TraceProfile`], and
//! render it as an iprof-style tally, CSV or `cpuprof.trace/1` JSON.
//!
//! Entry points: [`load_trace`] / [`parse_trace`] (whole pipeline), [`looks_like_trace`]
//! (route a file to this importer or the ETDump reader), [`read_intervals`] (reader stage
//! only), [`parse_lttng_events`] + [`pair_events`] (LTTng events without the model),
//! [`tally::render_tally`], [`csv::to_csv`], [`json::to_json_value`].
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
pub mod csv;
mod detect;
mod error;
mod fields;
mod intervals;
pub mod json;
mod lttng;
mod model;
mod nesting;
mod pairing;
pub mod tally;
mod timestamp;

use std::io::Read;
use std::path::Path;

pub use detect::{detect_format, is_gzip, looks_like_trace, TraceFormat};
pub use error::TraceError;
pub use intervals::{
    ImportCounts, InputSig, Interval, IntervalSet, ThreadKey, TraceWarning, Unterminated,
};
pub use lttng::{pair_events, parse_lttng_events, LttngEvent};
pub use model::{CallNode, CallTree, TraceOp, TraceProfile, TraceThread, MAX_TREE_DEPTH};
pub use nesting::CONTAINMENT_TOLERANCE_NS;
pub use pairing::OpEventKind;

/// Read and import a trace file. The error names the problem, not the path.
pub fn load_trace(path: &Path) -> Result<TraceProfile, TraceError> {
    let bytes = std::fs::read(path).map_err(|e| TraceError::Io(e.to_string()))?;
    parse_trace(&bytes, &path.display().to_string())
}

/// Import a trace held in memory; `name` is recorded as the source.
pub fn parse_trace(bytes: &[u8], name: &str) -> Result<TraceProfile, TraceError> {
    read_intervals(bytes).map(|set| TraceProfile::build(set, name))
}

/// The reader stage alone (detect, decompress, read): intervals before aggregation.
pub fn read_intervals(bytes: &[u8]) -> Result<IntervalSet, TraceError> {
    let mut gzip_warning = None;
    let owned;
    let bytes = if is_gzip(bytes) {
        let (data, warning) = gunzip(bytes)?;
        gzip_warning = warning;
        owned = data;
        &owned[..]
    } else {
        bytes
    };
    // A UTF-8 byte-order mark (editors on Windows add one) is not content.
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let format = detect_format(bytes)?;
    let mut set = match format {
        TraceFormat::ChromeJson => chrome::read_chrome_json(bytes)?,
        _ => {
            let text = match std::str::from_utf8(bytes) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => std::borrow::Cow::Owned(String::from_utf8_lossy(bytes).into_owned()),
            };
            lttng::read_lttng_text(&text, format)?
        }
    };
    if let Some(message) = gzip_warning {
        set.warnings.insert(
            0,
            TraceWarning {
                kind: "truncated".into(),
                message,
            },
        );
    }
    Ok(set)
}

/// Decompress; a cut-off stream keeps what was decoded, with a warning.
fn gunzip(bytes: &[u8]) -> Result<(Vec<u8>, Option<String>), TraceError> {
    let mut out = Vec::with_capacity(bytes.len().saturating_mul(4));
    let mut dec = flate2::read::MultiGzDecoder::new(bytes);
    match dec.read_to_end(&mut out) {
        Ok(_) => Ok((out, None)),
        Err(e) if !out.is_empty() => Ok((
            out,
            Some(format!(
                "gzip stream ends early ({e}); reading what was decompressed"
            )),
        )),
        Err(e) => Err(TraceError::Gzip(e.to_string())),
    }
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
