//! The lines of a runner log, kept compactly: the log's text once (line endings
//! included) and the byte offset of every [`MARK_EVERY`]th line. A line is found from
//! the mark before it; its ET_LOG fields are split when asked for. A log of blank lines
//! costs about its own size (a `Vec` of owned lines cost ~200 bytes a line: 5 MB of
//! blank lines took 1 GB). Cloning shares the text.

use std::sync::Arc;

use super::etlog::parse_et_log;
use super::EtLogFields;

/// Lines between two marks (a lookup scans at most this many line endings).
const MARK_EVERY: usize = 64;

/// Every line of a log.
#[derive(Debug, Clone, Default)]
pub struct LogLines {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// The log's text without the final line ending (invalid UTF-8 replaced).
    text: String,
    /// Byte offset of line `k * MARK_EVERY` (0-based).
    marks: Vec<usize>,
    len: usize,
    /// Characters of the longest line, counted once when first asked for.
    longest: std::sync::OnceLock<usize>,
}

/// One line, borrowed from its log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine<'a> {
    /// 1-based line number.
    pub number: usize,
    /// Line text without the line ending.
    pub text: &'a str,
    /// Set for ET_LOG lines (`I 00:00:00.012345 executorch:file.cpp:12] msg` or
    /// `[file.cpp:12] msg`).
    pub et_log: Option<EtLogFields>,
}

impl LogLines {
    /// The lines of `bytes`: they end at `\n`, one `\r` before it dropped (LF, CRLF or a
    /// mix). A final line without a line ending still counts; the empty text after a
    /// final line ending does not. Invalid UTF-8 is replaced (a `\n` is never part of a
    /// replaced sequence, so lines split the same before or after).
    pub fn parse(bytes: &[u8]) -> LogLines {
        if bytes.is_empty() {
            return LogLines::default();
        }
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let text = String::from_utf8_lossy(body).into_owned();
        let mut marks = vec![0];
        let mut len = 1;
        // A plain loop: memchr's call per line costs more than it saves on short lines.
        for (end, _) in text.bytes().enumerate().filter(|&(_, b)| b == b'\n') {
            if len % MARK_EVERY == 0 {
                marks.push(end + 1);
            }
            len += 1;
        }
        LogLines {
            inner: Arc::new(Inner {
                text,
                marks,
                len,
                longest: Default::default(),
            }),
        }
    }

    /// Lines given one by one (no line ending in them).
    pub fn from_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> LogLines {
        let mut joined = String::new();
        let mut any = false;
        for l in lines {
            joined.push_str(l);
            joined.push('\n');
            any = true;
        }
        if !any {
            return LogLines::default();
        }
        LogLines::parse(joined.as_bytes())
    }

    pub fn len(&self) -> usize {
        self.inner.len
    }

    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    /// Characters in the longest line (counted once: the log view asks on every key).
    pub fn longest_chars(&self) -> usize {
        *self
            .inner
            .longest
            .get_or_init(|| self.texts().map(|l| l.chars().count()).max().unwrap_or(0))
    }

    /// The text of line `i` (0-based), without its line ending.
    pub fn text(&self, i: usize) -> Option<&str> {
        if i >= self.inner.len {
            return None;
        }
        let text = self.inner.text.as_str();
        let mut start = self.inner.marks[i / MARK_EVERY];
        for _ in 0..i % MARK_EVERY {
            start += memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(0, |p| p + 1);
        }
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |p| start + p);
        let line = &text[start..end];
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// Line `i` (0-based) with its ET_LOG fields.
    pub fn get(&self, i: usize) -> Option<LogLine<'_>> {
        self.text(i).map(|text| LogLine {
            number: i + 1,
            text,
            et_log: parse_et_log(text),
        })
    }

    /// The lines' texts in order.
    pub fn texts(&self) -> impl Iterator<Item = &str> + '_ {
        let text = self.inner.text.as_str();
        let all = (self.inner.len > 0).then(|| text.split('\n'));
        all.into_iter()
            .flatten()
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
    }

    /// The lines that contain `needle`, in order, each once, with their ET_LOG fields:
    /// found by one search over the whole text, so a scan for a rare marker costs no
    /// work per line (200M blank lines: a pass per line was seconds per scan).
    pub fn containing<'s>(&'s self, needle: &'s str) -> impl Iterator<Item = LogLine<'s>> + 's {
        let text = self.inner.text.as_str();
        let bytes = text.as_bytes();
        let mut finder = memchr::memmem::find_iter(bytes, needle.as_bytes());
        // Line number and start of the line the last count reached.
        let (mut number, mut counted) = (1usize, 0usize);
        let mut next_from = 0usize;
        std::iter::from_fn(move || loop {
            let at = finder.next()?;
            if at < next_from {
                continue; // another match in a line already given
            }
            let start = memchr::memrchr(b'\n', &bytes[..at]).map_or(0, |p| p + 1);
            number += bytes[counted..start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted = start;
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |p| at + p);
            next_from = end;
            let line = &text[start..end];
            let line = line.strip_suffix('\r').unwrap_or(line);
            return Some(LogLine {
                number,
                text: line,
                et_log: parse_et_log(line),
            });
        })
    }

    /// The lines in order, each with its ET_LOG fields.
    pub fn iter(&self) -> impl Iterator<Item = LogLine<'_>> + '_ {
        self.texts().enumerate().map(|(i, text)| LogLine {
            number: i + 1,
            text,
            et_log: parse_et_log(text),
        })
    }
}

impl PartialEq for LogLines {
    fn eq(&self, other: &LogLines) -> bool {
        self.inner.len == other.inner.len && self.texts().eq(other.texts())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_found_from_its_mark() {
        for n in [0usize, 1, 63, 64, 65, 200] {
            let mut log = String::new();
            for i in 0..n {
                log.push_str(&"x".repeat(i % 5));
                log.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
            }
            let lines = LogLines::parse(log.as_bytes());
            assert_eq!(lines.len(), n);
            let texts: Vec<&str> = lines.texts().collect();
            assert_eq!(texts.len(), n);
            for (i, got) in texts.iter().enumerate() {
                let want = "x".repeat(i % 5);
                assert_eq!(lines.text(i), Some(want.as_str()), "line {i} of {n}");
                assert_eq!(*got, want);
            }
            assert_eq!(lines.text(n), None);
        }
    }

    #[test]
    fn lines_containing_a_needle_are_those_a_scan_finds() {
        let log = "a X\n\nX X\r\nb\n[f.cpp:3] X\nXX\nno\n";
        let lines = LogLines::parse(log.as_bytes());
        let scanned: Vec<LogLine> = lines.iter().filter(|l| l.text.contains('X')).collect();
        let found: Vec<LogLine> = lines.containing("X").collect();
        assert_eq!(found, scanned);
        assert_eq!(
            found.iter().map(|l| l.number).collect::<Vec<_>>(),
            [1, 3, 5, 6]
        );
        assert_eq!(found[1].text, "X X");
        assert_eq!(found[2].et_log.as_ref().unwrap().file, "f.cpp");
        assert_eq!(lines.containing("nothing").count(), 0);
        assert_eq!(LogLines::default().containing("X").count(), 0);
    }

    #[test]
    fn final_line_and_empty_text() {
        assert!(LogLines::parse(b"").is_empty());
        assert_eq!(LogLines::parse(b"\n").len(), 1);
        assert_eq!(LogLines::parse(b"a\nb").len(), 2);
        assert_eq!(LogLines::parse(b"a\nb\n").len(), 2);
        assert_eq!(LogLines::parse(b"a\n\n").len(), 2);
        let l = LogLines::parse(b"\xff\xfe\r\nok");
        assert_eq!(l.text(0), Some("\u{fffd}\u{fffd}"));
        assert_eq!(l.text(1), Some("ok"));
        assert_eq!(LogLines::from_lines(["a", "", "b"]).len(), 3);
    }

    #[test]
    fn blank_lines_cost_about_their_bytes() {
        let log = vec![b'\n'; 1_000_000];
        let lines = LogLines::parse(&log);
        assert_eq!(lines.len(), 1_000_000);
        let bytes = lines.inner.text.capacity() + lines.inner.marks.capacity() * 8;
        // The text (999,999 bytes) and one mark per 64 lines (15,625 x 8 bytes).
        assert!(bytes < 1_200_000, "{bytes}");
    }
}
