//! Cell-width helpers: fit text to a column, share bars.

/// `s` cut or padded to exactly `width` terminal cells (cut text ends with `…`; a wide
/// character is two cells, never split).
pub fn fit(s: &str, width: usize, right: bool) -> String {
    use crate::escape::{cut_to_width, display_width, pad_left, pad_right};
    let cut = if display_width(s) > width {
        if width == 0 {
            return String::new();
        }
        cut_to_width(s, width)
    } else {
        s.to_string()
    };
    if right {
        pad_left(&cut, width)
    } else {
        pad_right(&cut, width)
    }
}

/// `s` padded to `width` cells, or cut in the middle (`XNNPACK/…conv2d_10+18`) so both
/// ends stay readable; measured in terminal cells.
pub fn fit_middle(s: &str, width: usize) -> String {
    use crate::escape::{display_width, pad_right};
    if display_width(s) <= width || width < 5 {
        return fit(s, width, false);
    }
    let out = cut_around(s, width, (width - 1) / 2);
    pad_right(&out, width)
}

/// `s` in `room` cells around a `…`: at most `head_room` cells of its start, then as much
/// of its end as the rest holds (a wide character never split).
pub fn cut_around(s: &str, room: usize, head_room: usize) -> String {
    use crate::escape::display_width;
    fn take(chars: impl Iterator<Item = char>, room: usize) -> Vec<char> {
        let mut used = 0;
        let mut out = Vec::new();
        for c in chars {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > room {
                break;
            }
            used += w;
            out.push(c);
        }
        out
    }
    let head: String = take(s.chars(), head_room.min(room.saturating_sub(1)))
        .into_iter()
        .collect();
    let rest = room.saturating_sub(1 + display_width(&head));
    let mut tail = take(s.chars().rev(), rest);
    tail.reverse();
    let mut out = head;
    out.push('…');
    out.extend(tail);
    out
}

#[cfg(test)]
mod width_tests {
    use super::{fit, fit_middle};
    use crate::escape::display_width;

    /// Cells, not characters: a CJK name is cut to the column's cells, padded to them.
    #[test]
    fn fit_counts_cells() {
        assert_eq!(fit("abc", 5, false), "abc  ");
        assert_eq!(fit("abc", 5, true), "  abc");
        assert_eq!(fit("abcdef", 4, false), "abc…");
        let cjk = "卷积卷积卷积";
        assert_eq!(display_width(&fit(cjk, 7, false)), 7);
        assert_eq!(fit(cjk, 7, false), "卷积卷…");
        assert_eq!(
            fit(cjk, 8, false),
            "卷积卷… ",
            "a wide character never split: padded"
        );
        assert_eq!(display_width(&fit_middle(cjk, 9)), 9);
        assert_eq!(
            fit_middle("XNNPACK/subgraph:conv2d_10+18", 15),
            "XNNPACK…d_10+18"
        );
    }
}

/// A horizontal bar `width` cells wide filled to `share` (0..1), in eighths.
pub fn share_bar(share: f64, width: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    let share = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let eighths = (share * width as f64 * 8.0).round() as usize;
    let full = eighths / 8;
    let mut out = "█".repeat(full.min(width));
    if full < width {
        out.push(PARTS[eighths % 8]);
        out.push_str(&" ".repeat(width - full - 1));
    }
    out
}

/// One of `▁▂▃▄▅▆▇█` for `level` in 1..=8 (0 = space).
pub fn block(level: usize) -> char {
    const B: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    B[level.min(8)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cuts_and_pads() {
        assert_eq!(fit("abcdef", 4, false), "abc…");
        assert_eq!(fit("ab", 4, false), "ab  ");
        assert_eq!(fit("ab", 4, true), "  ab");
        assert_eq!(fit("ab", 0, true), "");
        assert_eq!(fit_middle("abcdefghij", 7), "abc…hij");
        assert_eq!(fit_middle("abc", 5), "abc  ");
        assert_eq!(fit_middle("abcdefghij", 4), "abc…");
    }

    #[test]
    fn bars() {
        assert_eq!(share_bar(0.5, 4), "██  ");
        assert_eq!(share_bar(1.0, 4), "████");
        assert_eq!(share_bar(0.0, 3), "   ");
        assert_eq!(share_bar(1.0 / 16.0, 2), "▏ ");
        assert_eq!(share_bar(f64::NAN, 2), "  ");
        assert_eq!(share_bar(2.0, 2).chars().count(), 2);
    }
}
