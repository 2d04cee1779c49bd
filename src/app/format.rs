//! Shape, count and text formatting for the panes. Durations and shares come from
//! `crate::units`, shared with the text report.

pub use crate::units::{duration_ms, percent};

/// Shapes as `[1,3,224,224] [64]` (`crate::units::shape_list`, as in the report); None
/// (unknown) as empty.
pub fn shapes(shapes: Option<&Vec<Vec<i64>>>) -> String {
    shapes
        .map(|l| crate::units::shape_list(l))
        .unwrap_or_default()
}

/// A duration before and after: `1.113→1.114 ms` (one unit when both share it), else
/// `980 µs→1.002 ms`.
pub fn duration_change(before: f64, after: f64) -> String {
    let (a, b) = (duration_ms(before), duration_ms(after));
    match (a.rsplit_once(' '), b.rsplit_once(' ')) {
        (Some((x, ua)), Some((y, ub))) if ua == ub => format!("{x}→{y} {ub}"),
        _ => format!("{a}→{b}"),
    }
}

/// `1 warning`, `2 warnings`.
pub fn count(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// Byte counts for the loading gauge: `512 B`, `1.5 KiB`, `120.0 MiB`.
pub fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = n as f64;
    if f < KIB {
        format!("{n} B")
    } else if f < KIB * KIB {
        format!("{:.1} KiB", f / KIB)
    } else if f < KIB * KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else {
        format!("{:.2} GiB", f / (KIB * KIB * KIB))
    }
}

/// Greedy word wrap to `width` cells (words longer than a line are cut). Always at least
/// one line.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut len = 0;
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let need = if len == 0 {
                word.len()
            } else {
                len + 1 + word.len()
            };
            if need <= width {
                if len > 0 {
                    line.push(' ');
                    len += 1;
                }
                line.extend(word.iter());
                len += word.len();
                break;
            }
            if len > 0 {
                lines.push(std::mem::take(&mut line));
                len = 0;
                continue;
            }
            // A word longer than the line: cut it.
            let rest = word.split_off(width);
            lines.push(word.iter().collect());
            word = rest;
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_by_words() {
        assert_eq!(wrap("ab cd ef", 5), ["ab cd", "ef"]);
        assert_eq!(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
        assert_eq!(wrap("", 10), [""]);
        assert_eq!(wrap("a bcdefg", 4), ["a", "bcde", "fg"]);
        assert_eq!(wrap("µs µs", 2), ["µs", "µs"]);
    }

    #[test]
    fn shapes_and_bytes() {
        assert_eq!(
            shapes(Some(&vec![vec![1, 3, 8, 8], vec![4]])),
            "[1,3,8,8] [4]"
        );
        assert_eq!(shapes(Some(&vec![vec![]])), "[]");
        assert_eq!(shapes(None), "");
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(120 * 1024 * 1024), "120.0 MiB");
        assert_eq!(percent(0.1234), "12.3%");
        assert_eq!(duration_change(1.1134, 1.1141), "1.113→1.114 ms");
        assert_eq!(duration_change(0.980, 1.002), "980 µs→1.002 ms");
    }
}
