//! Format detection from content (never from the file name).

use serde::Serialize;

use super::error::TraceError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceFormat {
    /// `babeltrace2` `sink.text.pretty`: `[time] (+delta) host event: { .. }, { .. }`.
    Babeltrace2Text,
    /// `babeltrace2 --names=all`: `timestamp = .., name = .., event.fields = { .. }`.
    Babeltrace2NamesAll,
    /// THAPI's pretty printer (`iprof -t`): `time - host - vpid: N, vtid: N - event: {`.
    ThapiText,
    /// torch.profiler / Kineto Chrome-trace JSON.
    ChromeJson,
    /// An LTTng CTF trace directory, decoded natively (`trace::ctf`).
    CtfDir,
}

impl TraceFormat {
    pub fn label(self) -> &'static str {
        match self {
            TraceFormat::Babeltrace2Text => "babeltrace2_text",
            TraceFormat::Babeltrace2NamesAll => "babeltrace2_names_all",
            TraceFormat::ThapiText => "thapi_text",
            TraceFormat::ChromeJson => "chrome_json",
            TraceFormat::CtfDir => "ctf",
        }
    }

    pub fn is_lttng_text(self) -> bool {
        !matches!(self, TraceFormat::ChromeJson | TraceFormat::CtfDir)
    }
}

pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&GZIP_MAGIC)
}

/// Whether a file starting with `first_bytes` should go to the trace importer rather than
/// the ETDump reader. ETDumps start with a u32 size prefix, a u32 root offset, then `ED00`.
pub fn looks_like_trace(first_bytes: &[u8]) -> bool {
    if first_bytes.len() >= 12 && &first_bytes[8..12] == b"ED00" {
        return false;
    }
    is_gzip(first_bytes) || detect_text(first_bytes).is_some()
}

/// Detect the format of (decompressed) content.
pub fn detect_format(bytes: &[u8]) -> Result<TraceFormat, TraceError> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(TraceError::Empty);
    }
    detect_text(bytes).ok_or_else(|| {
        let first = first_line(bytes);
        TraceError::UnknownFormat(format!("first line starts with {first:?}"))
    })
}

fn first_line(bytes: &[u8]) -> String {
    let s = skip_ws(strip_bom(bytes));
    let end = s
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(s.len())
        .min(60);
    String::from_utf8_lossy(&s[..end]).into_owned()
}

fn strip_bom(b: &[u8]) -> &[u8] {
    b.strip_prefix(b"\xef\xbb\xbf").unwrap_or(b)
}

fn skip_ws(b: &[u8]) -> &[u8] {
    let n = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    &b[n..]
}

/// How far sniffing looks for a recognisable record when the first lines are junk (a
/// banner, a damaged first record, `[NaN]` times): lines and bytes.
const SNIFF_LINES: usize = 64;
const SNIFF_BYTES: usize = 64 << 10;

/// The format of the first non-blank line; when that line is none (junk, a damaged
/// record), the first of the next [`SNIFF_LINES`] lines in one of the text formats
/// (JSON only ever starts a file). A prefix of a file is enough.
fn detect_text(bytes: &[u8]) -> Option<TraceFormat> {
    let s = skip_ws(strip_bom(bytes));
    let s = &s[..s.len().min(SNIFF_BYTES)];
    let mut lines = s
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace));
    let first = lines.next()?;
    if let Some(f) = detect_line(first, true) {
        return Some(f);
    }
    lines
        .take(SNIFF_LINES - 1)
        .find_map(|l| detect_line(l, false))
}

/// The format a line is the start of (`first`: the first non-blank line of the input).
fn detect_line(line: &[u8], first: bool) -> Option<TraceFormat> {
    match *line.first()? {
        b'{' if first => Some(TraceFormat::ChromeJson),
        b'[' => {
            // `[06:48:..] `, `[1795934914.8..] `, `[2026-11-29 ..] ` vs a JSON array.
            let rest = skip_ws(&line[1..]);
            if bracketed_time(line) {
                Some(TraceFormat::Babeltrace2Text)
            } else if first && matches!(rest.first(), Some(b'{') | Some(b']') | None) {
                Some(TraceFormat::ChromeJson)
            } else {
                None
            }
        }
        b't' if line.starts_with(b"timestamp = ") => Some(TraceFormat::Babeltrace2NamesAll),
        _ if is_thapi_header(line) => Some(TraceFormat::ThapiText),
        _ => None,
    }
}

/// `13:35:44.048636859 - host - vpid: N, vtid: N - provider:event: ...`: the first line
/// of a THAPI pretty-printed record (body lines are indented or `}`).
pub(crate) fn is_thapi_header(line: &[u8]) -> bool {
    line.first().is_some_and(u8::is_ascii_digit)
        && contains(line, b" - ")
        && contains(line, b"vpid: ")
}

/// `[06:48:34.83] ..`: a bracket holding only time characters, then a space.
fn bracketed_time(line: &[u8]) -> bool {
    let Some(close) = line.iter().position(|&b| b == b']') else {
        return false;
    };
    let inner = &line[1..close];
    inner.first().is_some_and(u8::is_ascii_digit)
        && inner
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b':' | b'.' | b'-' | b' '))
        && matches!(line.get(close + 1), Some(b' ') | None)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_each_form() {
        let cases: &[(&str, TraceFormat)] = &[
            (
                "[06:48:34.832333283] (+?.?????????) vm p:e: { }",
                TraceFormat::Babeltrace2Text,
            ),
            (
                "[1795934914.832333283] vm p:e: { }",
                TraceFormat::Babeltrace2Text,
            ),
            (
                "[2026-11-29 06:48:34.832333283] (+?.?????????) vm p:e: { }",
                TraceFormat::Babeltrace2Text,
            ),
            (
                "timestamp = 06:48:34.832333283, delta = +?",
                TraceFormat::Babeltrace2NamesAll,
            ),
            (
                "13:35:44.048636859 - h - vpid: 1, vtid: 1 - p:e: {",
                TraceFormat::ThapiText,
            ),
            ("\n  {\"traceEvents\": []}", TraceFormat::ChromeJson),
            ("[{\"ph\":\"X\"}]", TraceFormat::ChromeJson),
        ];
        for (text, want) in cases {
            assert_eq!(detect_format(text.as_bytes()).unwrap(), *want, "{text}");
        }
        assert!(matches!(
            detect_format(b"hello"),
            Err(TraceError::UnknownFormat(_))
        ));
        assert_eq!(detect_format(b"  \n"), Err(TraceError::Empty));
    }

    #[test]
    fn junk_first_lines_do_not_hide_a_trace() {
        let bt = "[06:48:34.832333283] (+?.?????????) vm lttng_ust_pytorch:op_entry: { }";
        for junk in [
            "garbage line",
            "[NaN] (+?.?????????) vm p:e: { }",
            "\u{1b}[2J",
        ] {
            let text = format!("{junk}\n\n{bt}\n");
            assert_eq!(
                detect_format(text.as_bytes()).unwrap(),
                TraceFormat::Babeltrace2Text,
                "{junk}"
            );
        }
        // JSON is only recognised at the start; a later `{` line is not a trace.
        assert!(detect_format(b"junk\n{\"traceEvents\": []}").is_err());
        // Past the sniffing window: not recognised.
        let far = format!("{}{bt}\n", "junk\n".repeat(SNIFF_LINES + 1));
        assert!(detect_format(far.as_bytes()).is_err());
    }

    #[test]
    fn etdump_is_not_a_trace() {
        let mut b = vec![0x10, 0, 0, 0, 0x0c, 0, 0, 0];
        b.extend_from_slice(b"ED00");
        assert!(!looks_like_trace(&b));
        assert!(looks_like_trace(&[0x1f, 0x8b, 8, 0]));
        assert!(looks_like_trace(b"{\"traceEvents\":[]}"));
    }
}
