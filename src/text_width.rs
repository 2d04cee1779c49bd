//! Text columns measured in terminal cells, not characters: a CJK or full-width character
//! takes 2 cells, a combining mark none (`aten::加法` is 10 cells, 8 characters). `format!`
//! pads by characters, which shifted every row holding such a name (#44).

use unicode_width::UnicodeWidthStr;

/// Cells `s` takes on a terminal.
pub fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` followed by spaces up to `w` cells (left-aligned; as is when already wider).
pub fn pad_right(s: &str, w: usize) -> String {
    let mut out = String::with_capacity(s.len() + w);
    out.push_str(s);
    out.extend(std::iter::repeat_n(' ', w.saturating_sub(width(s))));
    out
}

/// Spaces up to `w` cells, then `s` (right-aligned; as is when already wider).
pub fn pad_left(s: &str, w: usize) -> String {
    let mut out: String = std::iter::repeat_n(' ', w.saturating_sub(width(s))).collect();
    out.push_str(s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_characters_take_two_cells() {
        assert_eq!(width("aten::add"), 9);
        assert_eq!(width("aten::加法"), 10);
        assert_eq!(width("ｆｕｌｌ"), 8);
        assert_eq!(pad_right("加法", 6), "加法  ");
        assert_eq!(pad_left("加法", 6), "  加法");
        assert_eq!(pad_left("加法", 3), "加法");
    }
}
