//! `CPU_PLAN_CHUNK <index> <count> <hex>` lines: finding them, grouping them into one
//! sequence per delegate, and decoding a sequence into a [`CpuPlan`] (formats.md §3.1).
//!
//! Grouping rules (a sequence is *open* until a chunk that says it is the last one,
//! `index == count - 1`, arrives):
//! - index 0 always starts a new sequence; an open one left behind stays incomplete;
//! - any other chunk joins the open sequence, whatever its count (a changed count is
//!   then reported as a problem of that sequence);
//! - a non-zero chunk with no open sequence is a *stray*. If it equals the last chunk of
//!   the previous sequence (same index, count and hex: a duplicated final line), it is a
//!   duplicate and ignored (the plan stays decodable). Otherwise it starts a new, incomplete sequence: its chunk 0
//!   was lost, but it is still a delegate's report, so it keeps its slot and later
//!   sequences keep theirs. (Only the last chunk is compared: two delegates with similar
//!   plans can share identical earlier chunks.)

use std::collections::HashSet;

use super::{CpuPlan, PlanProblem};

pub(crate) const MARK: &str = "CPU_PLAN_CHUNK";

/// The three fields of a chunk line. Numbers too large for `usize` saturate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChunkFields<'a> {
    pub index: usize,
    pub count: usize,
    pub hex: &'a str,
}

impl ChunkFields<'_> {
    fn is_last(&self) -> bool {
        self.count.checked_sub(1) == Some(self.index)
    }
}

/// The first `CPU_PLAN_CHUNK <digits> <digits> <token>` anywhere in `line`, where the
/// token is the run of non-blank characters after the count and starts with a hex
/// digit. A mention of the marker without these fields is no chunk.
pub(crate) fn find_chunk(line: &str) -> Option<ChunkFields<'_>> {
    line.match_indices(MARK)
        .find_map(|(pos, _)| chunk_fields(&line[pos + MARK.len()..]))
}

fn chunk_fields(s: &str) -> Option<ChunkFields<'_>> {
    let s = skip_blanks(s)?;
    let (index, s) = take_number(s)?;
    let s = skip_blanks(s)?;
    let (count, s) = take_number(s)?;
    let s = skip_blanks(s)?;
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    let hex = &s[..end];
    if !hex.starts_with(|c: char| c.is_ascii_hexdigit()) {
        return None;
    }
    Some(ChunkFields { index, count, hex })
}

/// At least one space or tab, skipped.
fn skip_blanks(s: &str) -> Option<&str> {
    let rest = s.trim_start_matches([' ', '\t']);
    (rest.len() < s.len()).then_some(rest)
}

/// Decimal digits followed by a blank; the value saturates at `usize::MAX`.
fn take_number(s: &str) -> Option<(usize, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || !s[n..].starts_with([' ', '\t']) {
        return None;
    }
    let value = s[..n].bytes().fold(0usize, |acc, b| {
        acc.saturating_mul(10).saturating_add(usize::from(b - b'0'))
    });
    Some((value, &s[n..]))
}

/// A chunk and the 1-based line it came from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineChunk<'a> {
    pub line: usize,
    pub fields: ChunkFields<'a>,
}

/// The chunks of one sequence, in log order (never empty).
#[derive(Debug, Clone)]
pub(crate) struct RawSequence<'a> {
    pub chunks: Vec<LineChunk<'a>>,
}

impl RawSequence<'_> {
    pub fn first_line(&self) -> usize {
        self.chunks[0].line
    }

    /// The count announced by the first chunk.
    pub fn expected_chunks(&self) -> usize {
        self.chunks[0].fields.count
    }

    pub fn indexes(&self) -> Vec<usize> {
        self.chunks.iter().map(|c| c.fields.index).collect()
    }
}

/// Group chunk lines `(line number, text)` into sequences (see the module rules).
pub(crate) fn assemble<'a>(
    lines: impl IntoIterator<Item = (usize, &'a str)>,
) -> Vec<RawSequence<'a>> {
    let mut sequences: Vec<RawSequence<'a>> = Vec::new();
    let mut open = false;
    for (line, text) in lines {
        let Some(fields) = find_chunk(text) else {
            continue;
        };
        let chunk = LineChunk { line, fields };
        if fields.index != 0 && open {
            if let Some(last) = sequences.last_mut() {
                last.chunks.push(chunk);
            }
            open = !fields.is_last();
        } else if fields.index != 0 && repeats_previous(sequences.last(), &fields) {
            // An identical repeat of the closing line (a logger that flushed twice): a
            // duplicate, neither a broken plan nor the next delegate's report.
            continue;
        } else {
            sequences.push(RawSequence {
                chunks: vec![chunk],
            });
            open = !fields.is_last();
        }
    }
    sequences
}

fn repeats_previous(previous: Option<&RawSequence<'_>>, fields: &ChunkFields<'_>) -> bool {
    previous.is_some_and(|p| p.chunks.last().is_some_and(|c| c.fields == *fields))
}

/// Check that the chunks are exactly `0, 1, .., count-1` with one count; the problem
/// text says what is wrong otherwise.
pub(crate) fn check_structure(seq: &RawSequence<'_>) -> Result<(), PlanProblem> {
    let count = seq.expected_chunks();
    let mut notes = Vec::new();

    if let Some(c) = seq.chunks.iter().find(|c| c.fields.count != count) {
        notes.push(format!(
            "count changes from {count} to {} (line {})",
            c.fields.count, c.line
        ));
    }
    let mut seen: HashSet<usize> = HashSet::with_capacity(seq.chunks.len());
    let mut previous: Option<usize> = None;
    let mut order_noted = false;
    for c in &seq.chunks {
        let i = c.fields.index;
        if i >= count {
            notes.push(format!("chunk {i} (line {}) is beyond the count", c.line));
        } else if !seen.insert(i) {
            notes.push(format!("chunk {i} repeated (line {})", c.line));
        } else if previous.is_some_and(|p| i < p) && !order_noted {
            notes.push(format!("chunk {i} out of order (line {})", c.line));
            order_noted = true;
        }
        previous = Some(i);
    }

    let mut present: Vec<usize> = seen.iter().copied().filter(|&i| i < count).collect();
    present.sort_unstable();
    let missing = missing_ranges(&present, count);
    if notes.is_empty() && missing.is_empty() {
        return Ok(());
    }
    let mut text = format!(
        "chunks {} of {count} present",
        format_ranges(&present_ranges(&present))
    );
    if !missing.is_empty() {
        text.push_str(&format!("; missing {}", format_ranges(&missing)));
    }
    // Bounded, so a log full of repeats still gives a one-line warning.
    const MAX_NOTES: usize = 4;
    for note in notes.iter().take(MAX_NOTES) {
        text.push_str("; ");
        text.push_str(note);
    }
    if notes.len() > MAX_NOTES {
        text.push_str(&format!("; {} more problems", notes.len() - MAX_NOTES));
    }
    Err(PlanProblem::Incomplete(text))
}

/// Inclusive ranges of `0..count` not in `present` (sorted, unique, all `< count`).
/// Works with ranges so a huge announced count costs nothing.
fn missing_ranges(present: &[usize], count: usize) -> Vec<(usize, usize)> {
    let mut gaps = Vec::new();
    let mut next = 0usize;
    for &p in present {
        if p > next {
            gaps.push((next, p - 1));
        }
        next = p + 1;
    }
    if next < count {
        gaps.push((next, count - 1));
    }
    gaps
}

/// Inclusive ranges of consecutive values in `present` (sorted, unique).
fn present_ranges(present: &[usize]) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &p in present {
        match ranges.last_mut() {
            Some((_, end)) if end.checked_add(1) == Some(p) => *end = p,
            _ => ranges.push((p, p)),
        }
    }
    ranges
}

/// `0, 1, 3` / `5-36`; runs of three or more as `a-b`, at most 12 items.
fn format_ranges(ranges: &[(usize, usize)]) -> String {
    const MAX_ITEMS: usize = 12;
    let mut items: Vec<String> = Vec::new();
    'outer: for &(a, b) in ranges {
        if b - a >= 2 {
            items.push(format!("{a}-{b}"));
        } else {
            for i in a..=b {
                items.push(i.to_string());
                if items.len() > MAX_ITEMS {
                    break 'outer;
                }
            }
        }
        if items.len() > MAX_ITEMS {
            break;
        }
    }
    if items.is_empty() {
        return "none".to_string();
    }
    if items.len() > MAX_ITEMS {
        items.truncate(MAX_ITEMS);
        items.push("...".to_string());
    }
    items.join(", ")
}

/// The report text of a structurally complete sequence: hex-decoded, then UTF-8.
pub(crate) fn decode_text(seq: &RawSequence<'_>) -> Result<String, PlanProblem> {
    let total: usize = seq.chunks.iter().map(|c| c.fields.hex.len() / 2).sum();
    let mut bytes = Vec::with_capacity(total);
    for c in &seq.chunks {
        decode_hex_into(c.fields.hex, &mut bytes).map_err(|why| {
            PlanProblem::BadHex(format!("chunk {} (line {}): {why}", c.fields.index, c.line))
        })?;
    }
    String::from_utf8(bytes).map_err(|e| PlanProblem::BadUtf8(e.to_string()))
}

/// Parse the report JSON.
pub(crate) fn parse_plan(text: &str) -> Result<CpuPlan, PlanProblem> {
    serde_json::from_str(text).map_err(|e| PlanProblem::BadJson(e.to_string()))
}

/// Structure check, decode and parse of one sequence.
pub(crate) fn decode_sequence(seq: &RawSequence<'_>) -> Result<CpuPlan, PlanProblem> {
    check_structure(seq)?;
    parse_plan(&decode_text(seq)?)
}

fn decode_hex_into(hex: &str, out: &mut Vec<u8>) -> Result<(), String> {
    if let Some((pos, c)) = hex.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(format!("{c:?} at offset {pos} is not a hex digit"));
    }
    if hex.len() % 2 != 0 {
        return Err(format!("odd number of hex digits ({})", hex.len()));
    }
    // All ASCII hex digits from here on, so byte pairs are whole characters.
    out.extend(
        hex.as_bytes()
            .chunks_exact(2)
            .map(|pair| (nibble(pair[0]) << 4) | nibble(pair[1])),
    );
    Ok(())
}

fn nibble(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0, // unreachable: checked by the caller
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(index: usize, count: usize, hex: &str) -> Option<ChunkFields<'_>> {
        Some(ChunkFields { index, count, hex })
    }

    #[test]
    fn finds_chunk_with_or_without_prefix() {
        assert_eq!(find_chunk("CPU_PLAN_CHUNK 0 3 7b22"), chunk(0, 3, "7b22"));
        assert_eq!(
            find_chunk("I 00:00:00.002865 executorch:CPUBackend.cpp:252] CPU_PLAN_CHUNK 12 28 ab"),
            chunk(12, 28, "ab")
        );
        assert_eq!(
            find_chunk("[CPUBackend.cpp:252] CPU_PLAN_CHUNK 1 2 AB trailing"),
            chunk(1, 2, "AB")
        );
        assert_eq!(find_chunk("xCPU_PLAN_CHUNK\t2\t3\tabc"), chunk(2, 3, "abc"));
    }

    #[test]
    fn decoys_are_not_chunks() {
        for line in [
            "CPU_PLAN_CHUNK lines above carry the delegate plans (decoy: no numbers here)",
            "CPU_PLAN_CHUNK",
            "CPU_PLAN_CHUNK 0",
            "CPU_PLAN_CHUNK 0 3",
            "CPU_PLAN_CHUNK 0 3 ",
            "CPU_PLAN_CHUNK 0 3 xyz",
            "CPU_PLAN_CHUNK 0x 3 ab",
            "CPU_PLAN_CHUNK -1 3 ab",
            "CPU_PLAN_CHUNK0 3 ab",
        ] {
            assert_eq!(find_chunk(line), None, "{line:?}");
        }
    }

    #[test]
    fn later_mark_is_used_when_the_first_has_no_fields() {
        assert_eq!(
            find_chunk("CPU_PLAN_CHUNK follows: CPU_PLAN_CHUNK 0 1 7b7d"),
            chunk(0, 1, "7b7d")
        );
    }

    #[test]
    fn huge_numbers_saturate() {
        let c = find_chunk("CPU_PLAN_CHUNK 99999999999999999999999 1 ab").unwrap();
        assert_eq!(c.index, usize::MAX);
    }

    #[test]
    fn ranges_format() {
        assert_eq!(format_ranges(&present_ranges(&[0, 1, 3])), "0, 1, 3");
        assert_eq!(format_ranges(&missing_ranges(&[0, 1, 3], 5)), "2, 4");
        assert_eq!(format_ranges(&present_ranges(&[0, 1, 2, 3, 7])), "0-3, 7");
        assert_eq!(
            format_ranges(&missing_ranges(&[0], usize::MAX)),
            format!("1-{}", usize::MAX - 1)
        );
        assert_eq!(format_ranges(&[]), "none");
        let many: Vec<usize> = (0..40).step_by(2).collect();
        assert!(format_ranges(&present_ranges(&many)).ends_with(", ..."));
    }

    #[test]
    fn hex_decoding() {
        let mut out = Vec::new();
        assert!(decode_hex_into("7b7D", &mut out).is_ok());
        assert_eq!(out, b"{}");
        assert!(decode_hex_into("7b7", &mut out)
            .unwrap_err()
            .contains("odd"));
        assert!(decode_hex_into("7g", &mut out).unwrap_err().contains("'g'"));
        assert!(decode_hex_into("7\u{fffd}", &mut out)
            .unwrap_err()
            .contains("not a hex digit"));
    }
}
