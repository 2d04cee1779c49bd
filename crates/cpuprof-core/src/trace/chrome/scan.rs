//! A pull scanner of JSON text read through one fixed buffer: the trace-event reader asks
//! for the next token, reads the strings and numbers it keeps into buffers it reuses,
//! and skips every other value without building it. Memory is the buffer (plus the
//! longest string kept), whatever the size of the text; nothing is allocated per token.
//!
//! Values that are skipped are checked for structure (brackets, commas, colons, keys,
//! strings closed, literals spelled), not for the syntax of their numbers and escapes;
//! values that are read are checked whole (numbers by the JSON grammar, strings as
//! UTF-8 with valid escapes). Positions in messages are byte offsets in the text (lines
//! would cost a count of every newline read; `tail -c +N` finds a byte).

use std::fmt;
use std::io::Read;

/// The size of the window the text is read through.
pub(super) const BUFFER_BYTES: usize = 256 << 10;

/// Keys longer than this are told apart by their first bytes only (the longest key the
/// reader looks for has 10).
const MAX_KEY_BYTES: usize = 64;

/// Nesting deeper than this is refused (serde_json's limit, which the reader had).
pub(super) const MAX_DEPTH: u32 = 128;

/// Why the JSON text could not be read to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// Not JSON (or not the shape of a trace) at this place.
    Syntax { what: &'static str, offset: u64 },
    /// The text ends inside a value.
    Eof { what: &'static str, offset: u64 },
    /// The reader failed (a gzip stream that is cut or corrupt, a read error).
    Io(String),
}

impl ScanError {
    pub(crate) fn is_eof(&self) -> bool {
        matches!(self, ScanError::Eof { .. })
    }

    pub(crate) fn is_io(&self) -> bool {
        matches!(self, ScanError::Io(_))
    }
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScanError::Syntax { what, offset } => write!(f, "{what} at byte {offset}"),
            ScanError::Eof { what, offset } => {
                write!(f, "EOF while parsing {what} at byte {offset}")
            }
            ScanError::Io(m) => f.write_str(m),
        }
    }
}

pub(super) type Scan<T> = Result<T, ScanError>;

/// JSON text through a window `buf[pos..end]`, refilled from `reader` when used up.
pub(super) struct Scanner<'r> {
    reader: &'r mut dyn Read,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// The offset in the text of `buf[0]`, for positions in messages.
    base: u64,
    /// A key being read when it is not whole in the window (escaped, or cut by a refill).
    key_buf: Vec<u8>,
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

#[inline]
fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

impl<'r> Scanner<'r> {
    pub(super) fn new(reader: &'r mut dyn Read) -> Self {
        Self::with_buffer(reader, BUFFER_BYTES)
    }

    /// A scanner with a window of `bytes` (tests use tiny ones: every token then
    /// straddles a refill).
    pub(super) fn with_buffer(reader: &'r mut dyn Read, bytes: usize) -> Self {
        Self::at(reader, bytes, 0)
    }

    /// A scanner of text that `reader` gives from byte `base` of the whole text on
    /// (a part of it read by another thread: positions stay those of the whole text).
    pub(super) fn at(reader: &'r mut dyn Read, bytes: usize, base: u64) -> Self {
        Scanner {
            reader,
            buf: vec![0; bytes.max(1)],
            pos: 0,
            end: 0,
            eof: false,
            base,
            key_buf: Vec::new(),
        }
    }

    /// The offset in the whole text of the next byte.
    #[inline]
    pub(super) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The window is used up: read the next bytes into it. False at the end of the text.
    #[cold]
    fn fill(&mut self) -> Scan<bool> {
        if self.eof {
            return Ok(false);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.reader.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.eof = true;
                    return Err(ScanError::Io(e.to_string()));
                }
            }
        }
    }

    #[cold]
    pub(super) fn syntax(&self, what: &'static str) -> ScanError {
        ScanError::Syntax {
            what,
            offset: self.base + self.pos as u64,
        }
    }

    #[cold]
    fn eof_in(&self, what: &'static str) -> ScanError {
        ScanError::Eof {
            what,
            offset: self.base + self.pos as u64,
        }
    }

    /// The next byte that is not whitespace (not consumed); None at the end of the text.
    #[inline]
    pub(super) fn peek(&mut self) -> Scan<Option<u8>> {
        loop {
            let window = &self.buf[self.pos..self.end];
            if let Some(i) = window.iter().position(|&b| !is_ws(b)) {
                self.pos += i;
                return Ok(Some(window[i]));
            }
            self.pos = self.end;
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// The next byte that is not whitespace, inside `what` (the end of the text there
    /// is an error).
    #[inline]
    pub(super) fn next_in(&mut self, what: &'static str) -> Scan<u8> {
        match self.peek()? {
            Some(b) => Ok(b),
            None => Err(self.eof_in(what)),
        }
    }

    /// The bytes read and not consumed yet (from the next one on).
    #[inline]
    pub(super) fn window(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Consume `n` bytes of [`Self::window`].
    #[inline]
    pub(super) fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    /// Consume the byte [`Self::peek`] returned.
    #[inline]
    pub(super) fn bump(&mut self) {
        self.pos += 1;
    }

    /// Consume `want` (after whitespace) or fail with `what`.
    #[inline]
    pub(super) fn expect(
        &mut self,
        want: u8,
        inside: &'static str,
        what: &'static str,
    ) -> Scan<()> {
        if self.next_in(inside)? == want {
            self.bump();
            Ok(())
        } else {
            Err(self.syntax(what))
        }
    }

    /// After a member of an object: true on `,` (another member follows), false on `}`.
    #[inline]
    pub(super) fn object_continues(&mut self) -> Scan<bool> {
        match self.next_in("an object")? {
            b',' => {
                self.bump();
                Ok(true)
            }
            b'}' => {
                self.bump();
                Ok(false)
            }
            _ => Err(self.syntax("expected `,` or `}`")),
        }
    }

    /// After an element of a list: true on `,`, false on `]`.
    #[inline]
    pub(super) fn list_continues(&mut self) -> Scan<bool> {
        match self.next_in("a list")? {
            b',' => {
                self.bump();
                Ok(true)
            }
            b']' => {
                self.bump();
                Ok(false)
            }
            _ => Err(self.syntax("expected `,` or `]`")),
        }
    }

    /// After `{` or `[` was consumed: true when the container is empty (its closing
    /// bracket consumed too).
    #[inline]
    pub(super) fn closes_at_once(&mut self, close: u8, inside: &'static str) -> Scan<bool> {
        if self.next_in(inside)? == close {
            self.bump();
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// A member's key classified by `class` (read in place when it is whole in the
    /// window and has no escape, else decoded first), and its `:`.
    #[inline]
    pub(super) fn key_class(&mut self, class: fn(&[u8]) -> u8) -> Scan<u8> {
        if self.next_in("an object")? != b'"' {
            return Err(self.syntax("key must be a string"));
        }
        self.bump();
        let window = &self.buf[self.pos..self.end];
        let id = match find_quote_or_backslash(window) {
            Some(i) if window[i] == b'"' => {
                let id = class(&window[..i]);
                self.pos += i + 1;
                id
            }
            _ => {
                let mut key = std::mem::take(&mut self.key_buf);
                key.clear();
                // No key the reader knows is this long: a longer one is skipped past its
                // first bytes, so a hostile key costs no memory.
                let read = self.string_body_capped(&mut key, MAX_KEY_BYTES);
                let id = class(&key);
                self.key_buf = key;
                read?;
                id
            }
        };
        self.expect(b':', "an object", "expected `:`")?;
        Ok(id)
    }

    /// A string's text after its opening quote, appended to `out` with escapes decoded
    /// (the closing quote consumed). UTF-8 is the caller's to check.
    pub(super) fn string_body(&mut self, out: &mut Vec<u8>) -> Scan<()> {
        self.string_body_capped(out, usize::MAX)
    }

    /// [`Self::string_body`], keeping only about the first `cap` bytes in `out` (the
    /// rest is read and dropped).
    fn string_body_capped(&mut self, out: &mut Vec<u8>, cap: usize) -> Scan<()> {
        loop {
            let window = &self.buf[self.pos..self.end];
            match find_quote_or_backslash(window) {
                Some(i) => {
                    if out.len() < cap {
                        out.extend_from_slice(&window[..i.min(cap)]);
                    }
                    let quote = window[i] == b'"';
                    self.pos += i + 1;
                    if quote {
                        return Ok(());
                    }
                    self.escape(out)?;
                    out.truncate(cap);
                }
                None => {
                    if out.len() < cap {
                        out.extend_from_slice(&window[..window.len().min(cap)]);
                    }
                    self.pos = self.end;
                    if !self.fill()? {
                        return Err(self.eof_in("a string"));
                    }
                }
            }
        }
    }

    /// The next byte of a string (no whitespace skipped).
    #[inline]
    fn raw_byte(&mut self) -> Scan<u8> {
        if self.pos == self.end && !self.fill()? {
            return Err(self.eof_in("a string"));
        }
        let b = self.buf[self.pos];
        self.pos += 1;
        Ok(b)
    }

    /// One escape after its backslash, decoded into `out`.
    fn escape(&mut self, out: &mut Vec<u8>) -> Scan<()> {
        let first = self.raw_byte()?;
        self.escape_of(first, out)
    }

    fn escape_of(&mut self, first: u8, out: &mut Vec<u8>) -> Scan<()> {
        let c = match first {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = self.hex4()?;
                if !(0xD800..0xDC00).contains(&hi) {
                    char::from_u32(hi).unwrap_or('\u{FFFD}')
                } else if self.raw_byte()? != b'\\' {
                    // A lone leading surrogate is U+FFFD; the byte after it is text.
                    self.pos -= 1;
                    '\u{FFFD}'
                } else {
                    let next = self.raw_byte()?;
                    if next != b'u' {
                        push_char(out, '\u{FFFD}');
                        return self.escape_of(next, out);
                    }
                    let lo = self.hex4()?;
                    if (0xDC00..0xE000).contains(&lo) {
                        let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        char::from_u32(code).unwrap_or('\u{FFFD}')
                    } else {
                        push_char(out, '\u{FFFD}');
                        char::from_u32(lo).unwrap_or('\u{FFFD}')
                    }
                }
            }
            _ => return Err(self.syntax("invalid escape")),
        };
        push_char(out, c);
        Ok(())
    }

    fn hex4(&mut self) -> Scan<u32> {
        let mut v = 0;
        for _ in 0..4 {
            let d = match self.raw_byte()? {
                b @ b'0'..=b'9' => b - b'0',
                b @ b'a'..=b'f' => b - b'a' + 10,
                b @ b'A'..=b'F' => b - b'A' + 10,
                _ => return Err(self.syntax("invalid escape")),
            };
            v = v * 16 + u32::from(d);
        }
        Ok(v)
    }

    /// A string skipped (after its opening quote): its closing quote found, escapes
    /// stepped over.
    fn skip_string_body(&mut self) -> Scan<()> {
        loop {
            let window = &self.buf[self.pos..self.end];
            match find_quote_or_backslash(window) {
                Some(i) => {
                    let quote = window[i] == b'"';
                    self.pos += i + 1;
                    if quote {
                        return Ok(());
                    }
                    self.raw_byte()?;
                }
                None => {
                    self.pos = self.end;
                    if !self.fill()? {
                        return Err(self.eof_in("a string"));
                    }
                }
            }
        }
    }

    /// The bytes of a number (at its first byte), appended to `out`, checked against
    /// the JSON grammar.
    pub(super) fn number(&mut self, out: &mut Vec<u8>) -> Scan<()> {
        let start = out.len();
        self.number_bytes(Some(out))?;
        if valid_number(&out[start..]) {
            Ok(())
        } else {
            Err(self.syntax("invalid number"))
        }
    }

    /// A number (at its first byte) that is a plain integer of at most 18 digits, whole
    /// in the window: its value, consumed (no copy, no second pass). `None`, nothing
    /// consumed, for any other number: [`Self::number`] reads it.
    #[inline]
    pub(super) fn plain_int(&mut self) -> Option<i64> {
        let w = &self.buf[self.pos..self.end];
        let digits = w.iter().take(19).take_while(|b| b.is_ascii_digit()).count();
        let next = *w.get(digits)?;
        if digits == 0 || digits > 18 || is_number_byte(next) || (w[0] == b'0' && digits > 1) {
            return None;
        }
        let v = w[..digits]
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        self.pos += digits;
        Some(v)
    }

    /// A number (at its first byte) of µs written `DIGITS[.D[D[D]]]` (Kineto's `ts` and
    /// `dur`), whole in the window: its value in ns, consumed. `None`, nothing consumed,
    /// for any other number (a sign, an exponent, digits below the ns, a leading zero,
    /// too big): [`Self::number`] reads it.
    #[inline]
    pub(super) fn plain_micros(&mut self) -> Option<i64> {
        let w = &self.buf[self.pos..self.end];
        let digits = w.iter().take(17).take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 16 || (w[0] == b'0' && digits > 1) {
            return None;
        }
        let mut ns = w[..digits]
            .iter()
            .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'))
            .checked_mul(1000)?;
        let mut len = digits;
        if *w.get(len)? == b'.' {
            let frac = w[len + 1..]
                .iter()
                .take(4)
                .take_while(|b| b.is_ascii_digit())
                .count();
            if frac == 0 || frac > 3 {
                return None;
            }
            let f = w[len + 1..len + 1 + frac]
                .iter()
                .fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
            ns = ns.checked_add(f * [100, 10, 1][frac - 1])?;
            len += 1 + frac;
        }
        if is_number_byte(*w.get(len)?) {
            return None;
        }
        self.pos += len;
        Some(ns)
    }

    /// Consume the bytes a number can hold, keeping them in `out` if given.
    fn number_bytes(&mut self, mut out: Option<&mut Vec<u8>>) -> Scan<()> {
        loop {
            let window = &self.buf[self.pos..self.end];
            let n = window
                .iter()
                .position(|&b| !is_number_byte(b))
                .unwrap_or(window.len());
            if let Some(out) = out.as_deref_mut() {
                out.extend_from_slice(&window[..n]);
            }
            self.pos += n;
            if self.pos < self.end || !self.fill()? {
                return Ok(());
            }
        }
    }

    /// `true`, `false` or `null` (at its first byte).
    fn literal(&mut self) -> Scan<()> {
        let word: &[u8] = match self.buf[self.pos] {
            b't' => b"true",
            b'f' => b"false",
            _ => b"null",
        };
        for &want in word {
            if self.pos == self.end && !self.fill()? {
                return Err(self.eof_in("a value"));
            }
            if self.buf[self.pos] != want {
                return Err(self.syntax("expected value"));
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Skip one value, whatever it is, checking its structure; nothing is kept.
    pub(super) fn skip_value(&mut self) -> Scan<()> {
        // One bit per open container: 1 an object, 0 a list.
        let mut objects: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            // A value is expected here.
            match self.next_in("a value")? {
                open @ (b'{' | b'[') => {
                    self.bump();
                    let object = open == b'{';
                    let close = if object { b'}' } else { b']' };
                    if !self.closes_at_once(close, "a value")? {
                        if depth >= MAX_DEPTH {
                            return Err(self.syntax("recursion limit exceeded"));
                        }
                        objects = (objects << 1) | u128::from(object);
                        depth += 1;
                        if object {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.bump();
                    self.skip_string_body()?;
                }
                b'-' | b'0'..=b'9' => self.number_bytes(None)?,
                b't' | b'f' | b'n' => self.literal()?,
                _ => return Err(self.syntax("expected value")),
            }
            // A value ended: close containers until one continues.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                if objects & 1 == 1 {
                    if self.object_continues()? {
                        self.skip_key()?;
                        break;
                    }
                } else if self.list_continues()? {
                    break;
                }
                objects >>= 1;
                depth -= 1;
            }
        }
    }

    fn skip_key(&mut self) -> Scan<()> {
        if self.next_in("an object")? != b'"' {
            return Err(self.syntax("key must be a string"));
        }
        self.bump();
        self.skip_string_body()?;
        self.expect(b':', "an object", "expected `:`")
    }
}

/// The first `"` or `\\`: most strings of a trace are short, so the first bytes are
/// looked at one by one before the vector search (which costs its setup per call).
#[inline]
pub(super) fn find_quote_or_backslash(window: &[u8]) -> Option<usize> {
    let head = window.len().min(24);
    if let Some(i) = window[..head].iter().position(|&b| b == b'"' || b == b'\\') {
        return Some(i);
    }
    memchr::memchr2(b'"', b'\\', &window[head..]).map(|i| i + head)
}

fn push_char(out: &mut Vec<u8>, c: char) {
    let mut utf8 = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
pub(super) fn valid_number(b: &[u8]) -> bool {
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip_all(text: &[u8], window: usize) -> Scan<usize> {
        let mut r = text;
        let mut s = Scanner::with_buffer(&mut r, window);
        let mut n = 0;
        while s.peek()?.is_some() {
            s.skip_value()?;
            n += 1;
        }
        Ok(n)
    }

    #[test]
    fn skips_values_whatever_the_window() {
        let text =
            br#" {"a": [1, -2.5e3, "x\"y", {"b": null}, [], {}], "c": true} [false] "s\\" 12 "#;
        for window in [1, 2, 3, 7, 64, 4096] {
            assert_eq!(skip_all(text, window), Ok(4), "window {window}");
        }
    }

    #[test]
    fn structure_errors_are_named_with_their_place() {
        let e = skip_all(b"{\"a\" 1}", 4).unwrap_err();
        assert_eq!(e.to_string(), "expected `:` at byte 5");
        let e = skip_all(b"[1,\n 2 }", 3).unwrap_err();
        assert_eq!(e.to_string(), "expected `,` or `]` at byte 7");
        let e = skip_all(b"[1, 2", 3).unwrap_err();
        assert!(e.is_eof(), "{e}");
        assert!(skip_all(b"[tru]", 2).is_err());
        assert!(skip_all(b"{1: 2}", 2).is_err());
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(skip_all(deep.as_bytes(), 16).is_err());
        let ok = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(skip_all(ok.as_bytes(), 16), Ok(1));
    }

    #[test]
    fn strings_decode_escapes_across_refills() {
        let text = br#""a\n\u00e9\ud83d\ude00\ud800x\/""#;
        for window in [1, 2, 5, 100] {
            let mut r = &text[..];
            let mut s = Scanner::with_buffer(&mut r, window);
            assert_eq!(s.next_in("v"), Ok(b'"'));
            s.bump();
            let mut out = Vec::new();
            s.string_body(&mut out).unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "a\n\u{e9}\u{1F600}\u{FFFD}x/"
            );
        }
    }

    #[test]
    fn a_long_key_is_not_kept() {
        let key = "k".repeat(100_000);
        let text = format!(r#"{{"{key}\n{}": 1, "ph": 2}}"#, r"\t".repeat(10_000));
        let mut r = text.as_bytes();
        let mut s = Scanner::with_buffer(&mut r, 4096);
        assert_eq!(s.next_in("v"), Ok(b'{'));
        s.bump();
        let class = |k: &[u8]| u8::from(k == b"ph");
        assert_eq!(s.key_class(class), Ok(0));
        assert!(s.key_buf.capacity() < 4096, "{}", s.key_buf.capacity());
        s.skip_value().unwrap();
        assert_eq!(s.object_continues(), Ok(true));
        assert_eq!(s.key_class(class), Ok(1));
    }

    /// The in-place readings of plain numbers give what the general path gives, and
    /// leave every other number to it.
    #[test]
    fn plain_numbers_read_in_place_as_the_general_path_does() {
        use super::super::micros::decimal_bytes_us_to_ns;
        for text in [
            "0",
            "7",
            "12.5",
            "0.125",
            "1708722576381804.123",
            "1708722576381804.12",
            "9999999999999999.999",
            "05",
            "1.",
            "1.5e3",
            "-2",
            "1.2345",
            "00",
            "123456789012345678",
            "1234567890123456789",
            "12.",
        ] {
            let t = format!("{text},");
            let mut r = t.as_bytes();
            let mut s = Scanner::with_buffer(&mut r, 64);
            s.peek().unwrap();
            let valid = valid_number(text.as_bytes());
            match s.plain_micros() {
                Some(ns) => {
                    assert!(valid, "{text}");
                    assert_eq!(Some(ns), decimal_bytes_us_to_ns(text.as_bytes()), "{text}");
                    assert_eq!(s.next_in("x"), Ok(b','), "{text}");
                }
                None => assert_eq!(s.offset(), 0, "{text}"),
            }
            let mut r = t.as_bytes();
            let mut s = Scanner::with_buffer(&mut r, 64);
            s.peek().unwrap();
            match s.plain_int() {
                Some(v) => {
                    assert!(valid, "{text}");
                    assert_eq!(Ok(v), text.parse::<i64>(), "{text}");
                    assert_eq!(s.next_in("x"), Ok(b','), "{text}");
                }
                None => assert_eq!(s.offset(), 0, "{text}"),
            }
        }
    }

    #[test]
    fn numbers_follow_the_grammar() {
        for good in ["0", "-0", "12", "1.5", "-2.25e-3", "1E9", "5e+2"] {
            assert!(valid_number(good.as_bytes()), "{good}");
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "1.2.3", "1-2", "--1"] {
            assert!(!valid_number(bad.as_bytes()), "{bad}");
        }
    }
}
