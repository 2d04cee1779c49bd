//! Scanner for the field groups of babeltrace2 / THAPI text: `{ k = v, k = { .. } }`
//! (or `k: v`). Quoted strings may hold escaped quotes, commas and braces; groups nest.
//! Values are returned lazily (a group is its inner text) so unused fields cost a scan.

use std::borrow::Cow;

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    Str(Cow<'a, str>),
    /// Inner text of `{ .. }`.
    Group(&'a str),
    /// Inner text of `[ .. ]`.
    List(&'a str),
    Bare(&'a str),
}

impl Value<'_> {
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Bare(s) => s.parse().ok(),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// Input ended inside a string or group (a multi-line record, or a truncated file).
    Incomplete,
    Malformed,
}

pub(crate) type Fields<'a> = Vec<(&'a str, Value<'a>)>;

/// `k SEP v, k SEP v, ..` (whole input).
pub(crate) fn kv_list<'a>(s: &'a str, sep: u8, out: &mut Fields<'a>) -> Result<(), ScanError> {
    kv_items(s, 0, sep, None, out).map(|_| ())
}

/// `k SEP v, ..` from `pos` up to `close` (then returns the position after it) or, with
/// no `close`, to the end of the input.
pub(crate) fn kv_items<'a>(
    s: &'a str,
    pos: usize,
    sep: u8,
    close: Option<u8>,
    out: &mut Fields<'a>,
) -> Result<usize, ScanError> {
    let b = s.as_bytes();
    let at_end = |pos: usize| -> Result<Option<usize>, ScanError> {
        match (b.get(pos), close) {
            (None, None) => Ok(Some(pos)),
            (None, Some(_)) => Err(ScanError::Incomplete),
            (Some(&c), Some(want)) if c == want => Ok(Some(pos + 1)),
            _ => Ok(None),
        }
    };
    let mut pos = skip_ws(b, pos);
    if let Some(end) = at_end(pos)? {
        return Ok(end);
    }
    loop {
        let key_start = pos;
        loop {
            match b.get(pos) {
                None => {
                    return Err(if close.is_some() {
                        ScanError::Incomplete
                    } else {
                        ScanError::Malformed
                    })
                }
                Some(&c) if c == sep => break,
                Some(b',' | b'{' | b'}' | b'"' | b'[' | b']') => return Err(ScanError::Malformed),
                Some(_) => pos += 1,
            }
        }
        let key = s[key_start..pos].trim();
        if key.is_empty() {
            return Err(ScanError::Malformed);
        }
        pos = skip_ws(b, pos + 1);
        let (value, next) = scan_value(s, pos)?;
        out.push((key, value));
        pos = skip_ws(b, next);
        if let Some(end) = at_end(pos)? {
            return Ok(end);
        }
        match b.get(pos) {
            Some(b',') => pos = skip_ws(b, pos + 1),
            _ => return Err(ScanError::Malformed),
        }
    }
}

/// A value starting at `pos`; returns it and the position after it.
pub(crate) fn scan_value(s: &str, pos: usize) -> Result<(Value<'_>, usize), ScanError> {
    let b = s.as_bytes();
    match b.get(pos) {
        None => Err(ScanError::Incomplete),
        Some(b'"') => {
            let (v, end) = scan_string(s, pos)?;
            Ok((Value::Str(v), end))
        }
        Some(b'{') => {
            let close = find_close(b, pos)?;
            Ok((Value::Group(&s[pos + 1..close]), close + 1))
        }
        Some(b'[') => {
            let close = find_close(b, pos)?;
            Ok((Value::List(&s[pos + 1..close]), close + 1))
        }
        Some(b'}' | b']' | b',') => Err(ScanError::Malformed),
        Some(_) => {
            let end = b[pos..]
                .iter()
                .position(|&c| matches!(c, b',' | b'{' | b'}' | b'[' | b']' | b'"'))
                .map_or(b.len(), |n| pos + n);
            if matches!(b.get(end), Some(b'{' | b'[' | b']' | b'"')) {
                return Err(ScanError::Malformed);
            }
            Ok((Value::Bare(s[pos..end].trim_end()), end))
        }
    }
}

/// Bytes that matter to the scanner; everything else is skipped in a tight loop.
const fn class_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    t[b'"' as usize] = 1;
    t[b'{' as usize] = 2;
    t[b'[' as usize] = 2;
    t[b'}' as usize] = 3;
    t[b']' as usize] = 3;
    t[b'\\' as usize] = 4;
    t
}
static CLASS: [u8; 256] = class_table();

/// Index of the bracket closing the one at `open` (any of `{}` / `[]`, quote-aware).
pub(crate) fn find_close(b: &[u8], open: usize) -> Result<usize, ScanError> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match CLASS[b[i] as usize] {
            0 | 4 => {}
            1 => {
                i = string_end(b, i)?;
                continue;
            }
            2 => depth += 1,
            _ => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
        }
        i += 1;
    }
    Err(ScanError::Incomplete)
}

/// Position after the closing quote of the string starting at `open`.
fn string_end(b: &[u8], open: usize) -> Result<usize, ScanError> {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'"' => return Ok(i + 1),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    Err(ScanError::Incomplete)
}

/// The string starting at the quote at `open`, unescaped only when needed.
pub(crate) fn scan_string(s: &str, open: usize) -> Result<(Cow<'_, str>, usize), ScanError> {
    let b = s.as_bytes();
    let end = string_end(b, open)?;
    let raw = &s[open + 1..end - 1];
    if !raw.as_bytes().contains(&b'\\') {
        return Ok((Cow::Borrowed(raw), end));
    }
    Ok((Cow::Owned(unescape(raw)), end))
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('v') => out.push('\u{b}'),
            Some('x') => {
                let hex: String = chars.clone().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(v) if hex.len() == 2 => {
                        out.push(char::from(v));
                        chars.nth(1);
                    }
                    _ => out.push_str("\\x"),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn skip_ws(b: &[u8], mut pos: usize) -> usize {
    while pos < b.len() && b[pos].is_ascii_whitespace() {
        pos += 1;
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_strings_hold_delimiters() {
        let mut f = Vec::new();
        kv_list(
            r#"name = "a, \"b\" {c}", n = -3, g = { x = 1 }, l = [ 1, 2 ]"#,
            b'=',
            &mut f,
        )
        .unwrap();
        assert_eq!(
            f[0],
            ("name", Value::Str(Cow::Owned("a, \"b\" {c}".into())))
        );
        assert_eq!(f[1].1.as_i64(), Some(-3));
        assert_eq!(f[2].1, Value::Group(" x = 1 "));
        assert_eq!(f[3].1, Value::List(" 1, 2 "));
    }

    #[test]
    fn groups_end_at_their_brace_and_incomplete_detected() {
        let text = r#"{ name = "}{", o = "" }, { x = 1 }"#;
        let mut f = Vec::new();
        let end = kv_items(text, 1, b'=', Some(b'}'), &mut f).unwrap();
        assert_eq!(&text[end..], ", { x = 1 }");
        assert_eq!(f[0].1, Value::Str(Cow::Borrowed("}{")));
        let mut f = Vec::new();
        assert_eq!(
            kv_items(r#"{ name = "ab"#, 1, b'=', Some(b'}'), &mut f),
            Err(ScanError::Incomplete)
        );
        let mut f = Vec::new();
        assert_eq!(
            kv_items("{ name = 3", 1, b'=', Some(b'}'), &mut f),
            Err(ScanError::Incomplete)
        );
        let mut f = Vec::new();
        assert_eq!(
            kv_list("name: \"x\",\n  overload_name: \"\"\n", b':', &mut f),
            Ok(())
        );
        assert_eq!(f.len(), 2);
        assert_eq!(
            kv_list("a = 1 }", b'=', &mut Vec::new()),
            Err(ScanError::Malformed)
        );
    }
}
