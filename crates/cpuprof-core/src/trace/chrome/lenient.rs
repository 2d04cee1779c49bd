//! JSON values read leniently: a scalar (a number, or a string kept in the event's text),
//! anything else skipped and recorded as `Other`; `ts`/`dur` as numbers or strings
//! holding one.

use std::ops::Range;

use super::micros::{decimal_bytes_us_to_ns, decimal_us_to_ns};
use super::scan::{Scan, Scanner};

/// A JSON scalar read leniently (anything else is skipped and becomes `Other`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Scalar {
    Int(i64),
    Float(f64),
    /// A string, at this range of the event's text.
    Str(Range<usize>),
    Other,
}

impl Scalar {
    pub(super) fn as_str<'t>(&self, text: &'t str) -> Option<&'t str> {
        match self {
            Scalar::Str(r) => text.get(r.clone()),
            _ => None,
        }
    }
}

/// The reused buffers values are read into: `text` holds the strings of one event,
/// `raw` one token while it is read.
#[derive(Default)]
pub(super) struct Texts {
    pub(super) text: String,
    pub(super) raw: Vec<u8>,
}

/// A buffer grown past this (by one huge string or number) is freed once used, not
/// kept for the next events: a 200 MB name is held by the model, not also here.
pub(super) const KEEP_BYTES: usize = 1 << 20;

impl Texts {
    /// A string (after its opening quote) appended to `text`; its range.
    pub(super) fn string(&mut self, s: &mut Scanner) -> Scan<Range<usize>> {
        self.raw.clear();
        s.string_body(&mut self.raw)?;
        let start = self.text.len();
        if self.raw.len() > KEEP_BYTES {
            return self.big_string(s);
        }
        let Ok(str) = std::str::from_utf8(&self.raw) else {
            return Err(s.syntax("invalid UTF-8 in a string"));
        };
        self.text.push_str(str);
        Ok(start..self.text.len())
    }

    /// A huge string read into `raw` appended to `text` without a second copy of it:
    /// `text` so far is moved in front of it, and the whole becomes `text`.
    #[cold]
    fn big_string(&mut self, s: &Scanner) -> Scan<Range<usize>> {
        let start = self.text.len();
        let mut bytes = std::mem::take(&mut self.raw);
        bytes.splice(0..0, self.text.bytes());
        match String::from_utf8(bytes) {
            Ok(text) => {
                self.text = text;
                Ok(start..self.text.len())
            }
            // `text` was UTF-8: the string is not.
            Err(_) => Err(s.syntax("invalid UTF-8 in a string")),
        }
    }

    /// `text` cut back to `mark` (a value read only to be parsed or copied), and
    /// shrunk when a huge value grew it.
    pub(super) fn truncate(&mut self, mark: usize) {
        self.text.truncate(mark);
        if self.text.capacity() > KEEP_BYTES {
            self.text.shrink_to(KEEP_BYTES.max(mark));
        }
    }

    /// Free the buffers a huge value grew (the event they held is done with).
    pub(super) fn release_big(&mut self) {
        if self.text.capacity() > KEEP_BYTES {
            self.text = String::new();
        }
        if self.raw.capacity() > KEEP_BYTES {
            self.raw = Vec::new();
        }
    }
}

/// One value as a [`Scalar`].
pub(super) fn scalar(s: &mut Scanner, t: &mut Texts) -> Scan<Scalar> {
    match s.next_in("a value")? {
        b'"' => {
            s.bump();
            t.string(s).map(Scalar::Str)
        }
        b'-' | b'0'..=b'9' => {
            t.raw.clear();
            s.number(&mut t.raw)?;
            Ok(number(&t.raw))
        }
        _ => {
            s.skip_value()?;
            Ok(Scalar::Other)
        }
    }
}

/// A JSON number's text (checked by the grammar) as serde_json would give it: an
/// integer that fits an i64, else a float.
fn number(raw: &[u8]) -> Scalar {
    // The usual pid/tid/dim: up to 18 digits, no sign, fraction or exponent.
    if raw.len() <= 18 && raw.iter().all(u8::is_ascii_digit) {
        let v = raw.iter().fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
        return Scalar::Int(v);
    }
    // The grammar was checked: ASCII.
    let text = std::str::from_utf8(raw).unwrap_or("");
    if !raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E')) {
        if let Ok(i) = text.parse::<i64>() {
            return Scalar::Int(i);
        }
    }
    text.parse::<f64>().map_or(Scalar::Other, Scalar::Float)
}

/// `ts`/`dur`: µs as a number, or a string holding one, in whole ns; `None` for
/// anything else or what does not fit (never through a float: `micros.rs`).
pub(super) fn micros(s: &mut Scanner, t: &mut Texts) -> Scan<Option<i64>> {
    match s.next_in("a value")? {
        b'"' => {
            s.bump();
            let mark = t.text.len();
            let range = t.string(s)?;
            let ns = decimal_us_to_ns(t.text[range].trim());
            t.truncate(mark);
            Ok(ns)
        }
        b'-' | b'0'..=b'9' => {
            if let Some(ns) = s.plain_micros() {
                return Ok(Some(ns));
            }
            t.raw.clear();
            s.number(&mut t.raw)?;
            Ok(decimal_bytes_us_to_ns(&t.raw))
        }
        _ => {
            s.skip_value()?;
            Ok(None)
        }
    }
}
