//! Cell-width helpers: fit text to a column, share bars.

/// `s` cut or padded to exactly `width` cells (cut text ends with `…`).
pub fn fit(s: &str, width: usize, right: bool) -> String {
    let n = s.chars().count();
    if n > width {
        if width == 0 {
            return String::new();
        }
        let mut out: String = s.chars().take(width - 1).collect();
        out.push('…');
        out
    } else if right {
        format!("{}{}", " ".repeat(width - n), s)
    } else {
        format!("{}{}", s, " ".repeat(width - n))
    }
}

/// `s` padded to `width` cells, or cut in the middle (`XNNPACK/…conv2d_10+18`) so both
/// ends stay readable.
pub fn fit_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width || width < 5 {
        return fit(s, width, false);
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
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
