//! Text from inputs (op names, paths, parser messages) on its way to a terminal.
//!
//! A name in a trace or a dump can hold ESC, BEL, CR or a newline: printed raw, it can
//! retitle the terminal, clear the screen or break the one-line error rule. Every text
//! output (table, tally, CSV on a terminal) and every warning and error line goes through
//! this module. Escapes are Rust-style (`\n`, `\t`, `\r`, `\x1b`, `\u{9b}`), so a reader
//! can tell what the bytes were.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Longest message line printed on stderr, in characters (the rest is cut with `…`).
pub const MAX_MESSAGE_CHARS: usize = 400;

/// Whether `c` would be interpreted by a terminal rather than shown: C0 controls, DEL,
/// C1 controls (U+0080..U+009F; `U+009B` is a CSI on some terminals), and the bidi
/// overrides/isolates that reorder what follows them on screen.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `s` with every terminal-unsafe character escaped (newlines too: one line stays one).
pub fn escape(s: &str) -> Cow<'_, str> {
    escape_except(s, None)
}

/// Like [`escape`] but keeps `'\n'`: for whole multi-line text outputs (tables, CSV on a
/// terminal) whose names were escaped already, as a last line of defence.
pub fn escape_keep_newlines(s: &str) -> Cow<'_, str> {
    escape_except(s, Some('\n'))
}

fn escape_except(s: &str, keep: Option<char>) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe_char(c) && Some(c) != keep) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_char(c) && Some(c) != keep {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `s` escaped and cut to at most `max` terminal cells: the start and the end are kept
/// around a `…` (the end of a path or a message often says the most).
pub fn escape_cut(s: &str, max: usize) -> String {
    let escaped = escape(s);
    cut_middle(&escaped, max)
}

/// `s` cut to `max` terminal cells around a `…` (unchanged when short enough; a wide
/// character that would straddle the cut is left out whole).
pub fn cut_middle(s: &str, max: usize) -> String {
    if display_width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let tail_room = (max - 1) / 4;
    let head_room = max - 1 - tail_room;
    let fits = |room: usize| {
        let mut used = 0;
        move |c: &char| {
            used += unicode_width::UnicodeWidthChar::width(*c).unwrap_or(0);
            used <= room
        }
    };
    let mut out: String = s.chars().take_while(fits(head_room)).collect();
    let tail: Vec<char> = s.chars().rev().take_while(fits(tail_room)).collect();
    out.push('…');
    out.extend(tail.into_iter().rev());
    out
}

/// Terminal cells `s` takes (a CJK character two, a combining mark none), as the
/// terminal draws it: what table columns are sized and padded by, never `chars()`.
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `s` cut to at most `width` terminal cells, ending in `…` when cut (a wide character
/// that would straddle the edge is left out whole).
pub fn cut_to_width(s: &str, width: usize) -> String {
    if display_width(s) <= width {
        return s.to_string();
    }
    let room = width.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// `s` then spaces up to `width` cells (left-aligned); `s` whole when it is wider.
pub fn pad_right(s: &str, width: usize) -> String {
    let mut out = String::with_capacity(s.len() + width);
    out.push_str(s);
    out.extend(std::iter::repeat_n(
        ' ',
        width.saturating_sub(display_width(s)),
    ));
    out
}

/// Spaces then `s` up to `width` cells (right-aligned); `s` whole when it is wider.
pub fn pad_left(s: &str, width: usize) -> String {
    let mut out: String =
        std::iter::repeat_n(' ', width.saturating_sub(display_width(s))).collect();
    out.push_str(s);
    out
}

/// One message line for stderr: escaped (no raw control character, no line break) and
/// cut to [`MAX_MESSAGE_CHARS`].
pub fn message_line(s: &str) -> String {
    escape_cut(s, MAX_MESSAGE_CHARS)
}

/// Print `cpuprof-tui: <message>` on stderr as one safe line.
pub fn eprint_line(message: &str) {
    eprint_raw(&format!("cpuprof-tui: {}", message_line(message)));
}

/// Write one line of ours (already safe) on stderr. A closed or broken stderr (`2>&-`, a
/// reader gone) loses the line; it never panics as `eprintln!` does.
pub fn eprint_raw(line: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"));
}

/// JSON text bound for a terminal: serde_json escapes C0 controls already; DEL, C1
/// controls and bidi controls only occur inside strings, where `\u00XX` means the same.
pub fn escape_json_for_terminal(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe_char_outside_c0) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe_char_outside_c0(c) {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn is_unsafe_char_outside_c0(c: char) -> bool {
    (c as u32) >= 0x7f && is_unsafe_char(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_middle_cut_counts_cells_not_chars() {
        // 20 cells: 4 ASCII + 8 CJK (2 cells each). Cut to 11: 10 cells around `…`,
        // 8 before it (`aten` and 2 CJK) and 2 after (1 CJK).
        assert_eq!(cut_middle("aten加法运算卷积层啊", 11), "aten加法…啊");
        assert_eq!(cut_middle("abcdefghijklmnop", 9), "abcdef…op");
        for w in 1..22 {
            assert!(display_width(&cut_middle("aten加法运算卷积层啊", w)) <= w);
        }
    }

    #[test]
    fn a_cut_counts_cells_not_chars() {
        // Each CJK character takes 2 cells (Unicode East Asian Wide); `…` takes 1.
        assert_eq!(cut_to_width("aten::加法运算", 8), "aten::…");
        assert_eq!(cut_to_width("aten::加法运算", 9), "aten::加…");
        assert_eq!(cut_to_width("aten::加法运算", 10), "aten::加…");
        assert_eq!(cut_to_width("aten::加法运算", 11), "aten::加法…");
        assert_eq!(cut_to_width("aten::加法运算", 14), "aten::加法运算");
        assert_eq!(cut_to_width("abcdef", 4), "abc…");
        for w in 1..16 {
            assert!(display_width(&cut_to_width("aten::加法运算", w)) <= w.max(1));
        }
    }

    #[test]
    fn controls_are_escaped_and_text_kept() {
        assert_eq!(escape("aten::mm"), "aten::mm");
        assert!(matches!(escape("plain"), Cow::Borrowed(_)));
        assert_eq!(escape("a\x1b]0;x\x07b"), "a\\x1b]0;x\\x07b");
        assert_eq!(escape("a\nb\r\t"), "a\\nb\\r\\t");
        assert_eq!(escape("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(escape("\u{202e}abc"), "\\u{202e}abc");
        assert_eq!(escape("\x7f"), "\\x7f");
        assert_eq!(escape("ünïcode ✓"), "ünïcode ✓");
        assert_eq!(escape_keep_newlines("a\nb\x1b"), "a\nb\\x1b");
    }

    #[test]
    fn long_lines_are_cut_in_the_middle() {
        let s = "x".repeat(1000) + "END";
        let cut = escape_cut(&s, 20);
        assert_eq!(cut.chars().count(), 20);
        assert!(cut.ends_with("END") && cut.contains('…'), "{cut}");
        assert_eq!(cut_middle("short", 20), "short");
        let line = message_line(&format!("{}\n{}", "a".repeat(5000), "b"));
        assert!(!line.contains('\n'));
        assert_eq!(line.chars().count(), MAX_MESSAGE_CHARS);
    }

    #[test]
    fn json_for_terminal_keeps_meaning() {
        let v = serde_json::json!({"name": "a\u{9b}b\x1b"});
        let text = serde_json::to_string(&v).unwrap();
        let safe = escape_json_for_terminal(&text);
        assert!(!safe.chars().any(is_unsafe_char));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }
}
