//! A pull reader of the ETRecord's JSON entries, over the entry's bytes.
//!
//! Python's `json` (which writes these entries) writes `NaN`, `Infinity` and `-Infinity`
//! for non-finite floats (an attention mask's `-inf` in the edge program's arguments):
//! they are read as numbers, kept as such. Only what is asked for is built: every other
//! value is skipped without allocating (a value's own nesting aside), so unused metadata
//! costs time, not memory. Nesting is bounded ([`MAX_DEPTH`]).

use std::borrow::Cow;

/// Deepest nesting of arrays and objects read (torch.export JSON nests about 15 deep).
pub const MAX_DEPTH: usize = 512;

/// A JSON number. `F` may be NaN or infinite (Python's `NaN`, `Infinity`, `-Infinity`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    U(u64),
    I(i64),
    F(f64),
}

/// What the next value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

pub type Result<T> = std::result::Result<T, String>;

pub struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Reader<'a> {
    pub fn new(b: &'a [u8]) -> Reader<'a> {
        Reader {
            b,
            pos: 0,
            depth: 0,
        }
    }

    /// `what` at line L column C (1-based, as serde_json says it).
    pub fn error(&self, what: &str) -> String {
        let upto = &self.b[..self.pos.min(self.b.len())];
        let line = memchr::memchr_iter(b'\n', upto).count() + 1;
        let col = upto.len() - memchr::memrchr(b'\n', upto).map_or(0, |p| p + 1) + 1;
        format!("{what} at line {line} column {col}")
    }

    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.pos) {
            if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Result<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected `{}`", c as char)))
        }
    }

    /// Only white space may follow the value read.
    pub fn finish(&mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(self.error("trailing characters")),
        }
    }

    /// The kind of the next value (None at the end or before a character no value starts
    /// with).
    pub fn kind(&mut self) -> Option<Kind> {
        Some(match self.peek()? {
            b'{' => Kind::Object,
            b'[' => Kind::Array,
            b'"' => Kind::String,
            b't' | b'f' => Kind::Bool,
            b'n' => Kind::Null,
            b'-' | b'0'..=b'9' | b'N' | b'I' => Kind::Number,
            _ => return None,
        })
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(&format!("nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        Ok(())
    }

    /// An object: `f(reader, key)` is called for each member and must read (or skip) its
    /// value.
    pub fn object(
        &mut self,
        mut f: impl FnMut(&mut Self, Cow<'a, str>) -> Result<()>,
    ) -> Result<()> {
        self.expect(b'{')?;
        self.enter()?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a key"));
            }
            let key = self.string()?;
            self.expect(b':')?;
            f(self, key)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    /// An array: `f(reader, index)` is called for each element and must read (or skip) it.
    pub fn array(&mut self, mut f: impl FnMut(&mut Self, usize) -> Result<()>) -> Result<()> {
        self.expect(b'[')?;
        self.enter()?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        let mut i = 0;
        loop {
            f(self, i)?;
            i += 1;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    /// The end of the string starting at `self.pos` (its opening quote), checked: escapes,
    /// no raw control character, UTF-8. Returns (content end, whether it has escapes).
    fn scan_string(&mut self) -> Result<(usize, bool)> {
        let start = self.pos + 1;
        let mut at = start;
        let mut escaped = false;
        loop {
            let Some(p) = memchr::memchr2(b'"', b'\\', &self.b[at..]) else {
                self.pos = self.b.len();
                return Err(self.error("EOF while parsing a string"));
            };
            at += p;
            if self.b[at] == b'"' {
                break;
            }
            escaped = true;
            match self.b.get(at + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => at += 2,
                Some(b'u')
                    if self
                        .b
                        .get(at + 2..at + 6)
                        .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
                {
                    at += 6
                }
                _ => {
                    self.pos = at;
                    return Err(self.error("invalid escape"));
                }
            }
        }
        let content = &self.b[start..at];
        if let Some(c) = content.iter().position(|&c| c < 0x20) {
            self.pos = start + c;
            return Err(self.error("control character in a string"));
        }
        if let Err(e) = std::str::from_utf8(content) {
            self.pos = start + e.valid_up_to();
            return Err(self.error("invalid UTF-8 in a string"));
        }
        Ok((at, escaped))
    }

    /// A string (borrowed when it has no escape).
    pub fn string(&mut self) -> Result<Cow<'a, str>> {
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a string"));
        }
        let start = self.pos + 1;
        let (end, escaped) = self.scan_string()?;
        self.pos = end + 1;
        let b: &'a [u8] = self.b;
        let raw = std::str::from_utf8(&b[start..end]).expect("checked by scan_string");
        if !escaped {
            return Ok(Cow::Borrowed(raw));
        }
        Ok(Cow::Owned(unescape(raw)))
    }

    /// A number: JSON's, or `NaN`, `Infinity`, `-Infinity`.
    pub fn number(&mut self) -> Result<Number> {
        self.ws();
        let rest = &self.b[self.pos..];
        for (word, v) in [
            (&b"NaN"[..], f64::NAN),
            (b"Infinity", f64::INFINITY),
            (b"-Infinity", f64::NEG_INFINITY),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(Number::F(v));
            }
        }
        let len = rest
            .iter()
            .take_while(|c| matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
            .count();
        let text = std::str::from_utf8(&rest[..len]).expect("ASCII");
        let first_digit = text.strip_prefix('-').unwrap_or(text).bytes().next();
        if !first_digit.is_some_and(|c| c.is_ascii_digit()) {
            return Err(self.error("invalid number"));
        }
        let n = if let Ok(u) = text.parse::<u64>() {
            Number::U(u)
        } else if let Ok(i) = text.parse::<i64>() {
            Number::I(i)
        } else if let Ok(f) = text.parse::<f64>() {
            Number::F(f)
        } else {
            return Err(self.error("invalid number"));
        };
        self.pos += len;
        Ok(n)
    }

    fn word(&mut self, w: &[u8]) -> Result<()> {
        if self.b[self.pos..].starts_with(w) {
            self.pos += w.len();
            Ok(())
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// Skip one scalar (string, number, true, false, null).
    fn skip_scalar(&mut self) -> Result<()> {
        match self.peek() {
            Some(b'"') => {
                let (end, _) = self.scan_string()?;
                self.pos = end + 1;
                Ok(())
            }
            Some(b't') => self.word(b"true"),
            Some(b'f') => self.word(b"false"),
            Some(b'n') => self.word(b"null"),
            Some(_) => self.number().map(drop),
            None => Err(self.error("EOF while parsing a value")),
        }
    }

    /// Skip one value, checked, without building it (nesting bounded by [`MAX_DEPTH`]).
    pub fn skip(&mut self) -> Result<()> {
        // The closers of the open containers; bounded by MAX_DEPTH.
        let mut open: Vec<u8> = Vec::new();
        let base = self.depth;
        loop {
            // A value.
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    self.pos += 1;
                    self.enter()?;
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        self.depth -= 1;
                    } else {
                        open.push(close);
                        if close == b'}' {
                            self.key_colon()?;
                        }
                        continue;
                    }
                }
                _ => self.skip_scalar()?,
            }
            // After a value: separators and closers.
            loop {
                let Some(&close) = open.last() else {
                    debug_assert_eq!(self.depth, base);
                    return Ok(());
                };
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if close == b'}' {
                            self.key_colon()?;
                        }
                        break;
                    }
                    Some(c) if c == close => {
                        self.pos += 1;
                        self.depth -= 1;
                        open.pop();
                    }
                    _ => {
                        return Err(self.error(if close == b'}' {
                            "expected `,` or `}`"
                        } else {
                            "expected `,` or `]`"
                        }))
                    }
                }
            }
        }
    }

    fn key_colon(&mut self) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a key"));
        }
        let (end, _) = self.scan_string()?;
        self.pos = end + 1;
        self.expect(b':')
    }

    /// A string if the next value is one; else the value is skipped and None returned.
    pub fn string_or_skip(&mut self) -> Result<Option<Cow<'a, str>>> {
        if self.kind() == Some(Kind::String) {
            self.string().map(Some)
        } else {
            self.skip().map(|_| None)
        }
    }
}

fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    let hex = |chars: &mut std::str::Chars| -> u32 {
        let s: String = chars.by_ref().take(4).collect();
        u32::from_str_radix(&s, 16).unwrap_or(0xfffd)
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('u') => {
                let u = hex(&mut chars);
                let c = if (0xd800..0xdc00).contains(&u) && chars.as_str().starts_with("\\u") {
                    let mut look = chars.clone();
                    look.next();
                    look.next();
                    let lo = hex(&mut look);
                    if (0xdc00..0xe000).contains(&lo) {
                        chars = look;
                        char::from_u32(0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00))
                    } else {
                        None
                    }
                } else {
                    char::from_u32(u)
                };
                // A lone surrogate (Python writes them): the replacement character.
                out.push(c.unwrap_or('\u{fffd}'));
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_floats_are_numbers_kept_as_such() {
        let mut r = Reader::new(br#"{"as_float": -Infinity, "b": [NaN, Infinity, 1.5, -2, 7]}"#);
        let mut seen = Vec::new();
        r.object(|r, k| {
            if k == "as_float" {
                seen.push(r.number()?);
                Ok(())
            } else {
                r.array(|r, _| {
                    seen.push(r.number()?);
                    Ok(())
                })
            }
        })
        .unwrap();
        r.finish().unwrap();
        assert_eq!(seen[0], Number::F(f64::NEG_INFINITY));
        assert!(matches!(seen[1], Number::F(f) if f.is_nan()));
        assert_eq!(seen[2], Number::F(f64::INFINITY));
        assert_eq!(seen[3], Number::F(1.5));
        assert_eq!(seen[4], Number::I(-2));
        assert_eq!(seen[5], Number::U(7));
        // Skipped as well.
        let mut r = Reader::new(br#"[{"a": [-Infinity, {"x": NaN}]}, "s\"\u00e9", true, null]"#);
        r.skip().unwrap();
        r.finish().unwrap();
    }

    #[test]
    fn strings_are_unescaped() {
        let mut r = Reader::new(br#""a\nb\u00e9\ud83d\ude00\ud800x""#);
        assert_eq!(r.string().unwrap(), "a\nb\u{e9}\u{1f600}\u{fffd}x");
        let mut r = Reader::new(br#""plain""#);
        assert!(matches!(r.string().unwrap(), Cow::Borrowed("plain")));
    }

    #[test]
    fn bad_json_is_an_error_with_its_place() {
        for (text, what) in [
            (&b"{\"a\": 1,}"[..], "expected a key at line 1 column 9"),
            (b"[1 2]", "expected `,` or `]`"),
            (b"{\"a\" 1}", "expected `:`"),
            (b"[\"ab", "EOF while parsing a string"),
            (b"[\"a\\x\"]", "invalid escape"),
            (b"[-]", "invalid number"),
            (b"[nul]", "expected a value"),
            (b"[\"a\x01\"]", "control character"),
            (b"[\"\xff\"]", "invalid UTF-8"),
            (b"[1]]", "trailing characters"),
            (b"{\n\"a\": Inf}", "invalid number at line 2 column 6"),
        ] {
            let mut r = Reader::new(text);
            let e = r.skip().and_then(|_| r.finish()).unwrap_err();
            assert!(e.contains(what), "{}: {e}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = Reader::new(deep.as_bytes()).skip().unwrap_err();
        assert!(e.contains("nested deeper"), "{e}");
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        Reader::new(ok.as_bytes()).skip().unwrap();
    }
}
