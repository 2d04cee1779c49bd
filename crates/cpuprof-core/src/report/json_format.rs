//! JSON layout for our reports: objects pretty-printed (two-space indent), but arrays of
//! scalars on one line (`"samples": [0.236, 0.226, ...]`). A profile holds many thousands
//! of samples; one per line makes files long to read and slow to write.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

/// Write `value` with this layout, newline-terminated.
pub fn write_json<T: Serialize + ?Sized>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    // The serializer writes a token at a time: through a buffer of its own type those
    // writes are inlined copies, not a virtual call each into `w`.
    let mut buffered = io::BufWriter::with_capacity(1 << 18, w);
    let mut ser =
        serde_json::Serializer::with_formatter(&mut buffered, ScalarArraysInline::default());
    value.serialize(&mut ser).map_err(io::Error::other)?;
    buffered.write_all(b"\n")?;
    buffered.flush()
}

/// The indent of the values of a top-level object's keys.
pub(super) const TOP_LEVEL_INDENT: usize = 1;

/// Write `value` with this layout as if it were nested `indent` levels deep (the value of
/// a key of the top-level object is at [`TOP_LEVEL_INDENT`]); no newline after it.
pub(super) fn write_value_at<W: Write, T: Serialize + ?Sized>(
    w: &mut W,
    value: &T,
    indent: usize,
) -> io::Result<()> {
    let formatter = ScalarArraysInline {
        indent,
        ..ScalarArraysInline::default()
    };
    let mut ser = serde_json::Serializer::with_formatter(w, formatter);
    value.serialize(&mut ser).map_err(io::Error::other)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArrayLayout {
    /// No element yet.
    Empty,
    /// Scalars so far: elements separated by ", ".
    Inline,
    /// Objects or arrays: one element per line.
    Block,
}

#[derive(Default)]
struct ScalarArraysInline {
    indent: usize,
    arrays: Vec<ArrayLayout>,
    /// An array element has begun but nothing is written for it yet (we do not know
    /// whether it is a scalar). Holds whether it is the first element.
    pending: Option<bool>,
}

impl ScalarArraysInline {
    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.indent {
            w.write_all(b"  ")?;
        }
        Ok(())
    }

    /// Write what goes before an array element, now that we know its kind (inlined: it
    /// runs once per sample).
    #[inline(always)]
    fn flush<W: ?Sized + Write>(&mut self, w: &mut W, scalar: bool) -> io::Result<()> {
        let Some(first) = self.pending.take() else {
            return Ok(());
        };
        let layout = self
            .arrays
            .last_mut()
            .expect("pending implies an open array");
        if scalar && *layout != ArrayLayout::Block {
            *layout = ArrayLayout::Inline;
            if !first {
                w.write_all(b", ")?;
            }
            return Ok(());
        }
        *layout = ArrayLayout::Block;
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }
}

macro_rules! scalar {
    ($($name:ident: $t:ty),*) => {$(
        fn $name<W: ?Sized + Write>(&mut self, w: &mut W, value: $t) -> io::Result<()> {
            self.flush(w, true)?;
            serde_json::ser::CompactFormatter.$name(w, value)
        }
    )*};
}

/// A duration in ms that came from whole nanoseconds (`ns as f64 / 1e6`, how every
/// sample is made), for 0 ≤ value < 10^9 ms: its ns. From 1 µs on, the exact decimal
/// `ns / 10^6` is the shortest text that reads back as `value`, and the one serde_json
/// writes (no exponent), so it can be written from the integer, much faster than a
/// general float formatter (most numbers in a profile are samples); below 1 µs the text
/// is serde_json's own, made once ([`sub_microsecond_text`]).
#[inline]
fn whole_ns_ms(value: f64) -> Option<u64> {
    // One comparison of the bits: a positive double below 10^9 has smaller bits, while
    // negatives (-0.0 too, which serde_json writes "-0.0"), NaN and infinities have
    // larger ones.
    if value.to_bits() >= 1e9f64.to_bits() {
        return None;
    }
    // Round half up (a plain add and truncate, not a libm call): any candidate is
    // checked below, and below 2^53 two different ns never give the same value, so a
    // candidate that passes is the one.
    // Through i64, not u64: one conversion instruction each way on x86-64 (the value is
    // finite and 0.5 <= value * 1e6 + 0.5 < 1e15 + 1, so the cast never saturates).
    let ns = (value * 1e6 + 0.5) as i64;
    (ns as f64 / 1e6 == value).then_some(ns as u64)
}

/// Bytes of room [`put_ms`] writes into: a separator and the longest
/// [`put_ms`] text (2 + 9 + 1 + 6).
const WINDOW: usize = 24;

/// [`write_ms_of_ns`]'s text of `ns` (1 µs <= ns < 10^15, so at most 9 digits before
/// the point), after ", " when `sep`, written straight into `dst`: its length (bytes
/// past it are scratch).
#[inline(always)]
fn put_ms(dst: &mut [u8; WINDOW], sep: bool, ns: u64) -> usize {
    let pair = |k: usize| [DIGIT_PAIRS[2 * k], DIGIT_PAIRS[2 * k + 1]];
    let mut p = 0;
    if sep {
        dst[..2].copy_from_slice(b", ");
        p = 2;
    }
    let (whole, frac) = (ns / 1_000_000, (ns % 1_000_000) as usize);
    let digits = match whole {
        0..=9 => 1,
        10..=99 => 2,
        100..=999 => 3,
        1_000..=9_999 => 4,
        10_000..=99_999 => 5,
        100_000..=999_999 => 6,
        1_000_000..=9_999_999 => 7,
        10_000_000..=99_999_999 => 8,
        _ => 9,
    };
    // The whole part right to left, two digits at a time.
    let mut end = p + digits;
    let mut n = whole as usize;
    while n >= 100 {
        end -= 2;
        dst[end..end + 2].copy_from_slice(&pair(n % 100));
        n /= 100;
    }
    if n >= 10 {
        dst[end - 2..end].copy_from_slice(&pair(n));
    } else {
        dst[end - 1] = b'0' + n as u8;
    }
    p += digits;
    dst[p] = b'.';
    p += 1;
    if frac == 0 {
        dst[p] = b'0';
        return p + 1;
    }
    dst[p..p + 2].copy_from_slice(&pair(frac / 10_000));
    dst[p + 2..p + 4].copy_from_slice(&pair(frac / 100 % 100));
    dst[p + 4..p + 6].copy_from_slice(&pair(frac % 100));
    let mut kept = 6;
    let mut f = frac;
    while f % 10 == 0 {
        f /= 10;
        kept -= 1;
    }
    p + kept
}

/// Durations under 1 µs: ns 0..1000.
const SUB_MICROSECOND: usize = 1_000;

/// serde_json's text of `ns / 10^6` for ns under 1 µs (`0.0`, `0.000417`, ...), taken from
/// its formatter the first time one is written: in that range it may choose an exponent,
/// so the text is its own, not rebuilt. A profile of fast operators has many such samples.
fn sub_microsecond_text(ns: usize) -> &'static [u8] {
    static TEXT: std::sync::OnceLock<(Vec<u8>, Vec<u32>)> = std::sync::OnceLock::new();
    let (text, ends) = TEXT.get_or_init(|| {
        let mut text = Vec::with_capacity(SUB_MICROSECOND * 10);
        let mut ends = Vec::with_capacity(SUB_MICROSECOND + 1);
        ends.push(0);
        for ns in 0..SUB_MICROSECOND {
            // Writing into a vector cannot fail.
            let _ = serde_json::ser::CompactFormatter.write_f64(&mut text, ns as f64 / 1e6);
            ends.push(text.len() as u32);
        }
        (text, ends)
    });
    &text[ends[ns] as usize..ends[ns + 1] as usize]
}

/// "00", "01", .. "99": two digits per division.
const DIGIT_PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `ns / 10^6` as a JSON number (ns below 10^15, [`whole_ns_ms`]'s range), after ", "
/// when `sep`, in one write: integer part, then the fraction without trailing zeros (`.0`
/// for a whole number, as serde_json writes floats); below 1 µs serde_json's own text.
fn write_ms_of_ns<W: ?Sized + Write>(w: &mut W, sep: bool, ns: u64) -> io::Result<()> {
    if ns < SUB_MICROSECOND as u64 {
        if sep {
            w.write_all(b", ")?;
        }
        return w.write_all(sub_microsecond_text(ns as usize));
    }
    let mut text = [0u8; WINDOW];
    let len = put_ms(&mut text, sep, ns);
    w.write_all(&text[..len])
}

impl Formatter for ScalarArraysInline {
    scalar!(write_bool: bool, write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64,
        write_i128: i128, write_u128: u128, write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64,
        write_f32: f32, write_number_str: &str);

    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        let Some(ns) = whole_ns_ms(value) else {
            self.flush(w, true)?;
            return serde_json::ser::CompactFormatter.write_f64(w, value);
        };
        // A sample after another in an inline array (the commonest case): the separator
        // and the number in one write.
        if self.pending == Some(false) && self.arrays.last() == Some(&ArrayLayout::Inline) {
            self.pending = None;
            return write_ms_of_ns(w, true, ns);
        }
        self.flush(w, true)?;
        write_ms_of_ns(w, false, ns)
    }

    fn write_null<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.flush(w, true)?;
        w.write_all(b"null")
    }

    fn begin_string<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.flush(w, true)?;
        w.write_all(b"\"")
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        serde_json::ser::CompactFormatter.write_char_escape(w, escape)
    }

    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        self.flush(w, true)?;
        w.write_all(fragment.as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.flush(w, false)?;
        self.indent += 1;
        self.arrays.push(ArrayLayout::Empty);
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        if self.arrays.pop() == Some(ArrayLayout::Block) {
            self.newline(w)?;
        }
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, _w: &mut W, first: bool) -> io::Result<()> {
        self.pending = Some(first);
        Ok(())
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.flush(w, false)?;
        self.indent += 1;
        // An object is a block inside its own braces; array layouts resume after it.
        self.arrays.push(ArrayLayout::Block);
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.indent -= 1;
        let had_keys = self.arrays.pop() == Some(ArrayLayout::Inline);
        if had_keys {
            self.newline(w)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        // Inside an object the layout slot records "has keys" (Inline) for end_object.
        if let Some(slot) = self.arrays.last_mut() {
            *slot = ArrayLayout::Inline;
        }
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// serde_json's own text for a float (its general formatter).
    fn serde_text(v: f64) -> String {
        let mut out = Vec::new();
        serde_json::ser::CompactFormatter
            .write_f64(&mut out, v)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    fn fast_text(v: f64) -> Option<String> {
        let ns = whole_ns_ms(v)?;
        let mut out = Vec::new();
        write_ms_of_ns(&mut out, false, ns).unwrap();
        Some(String::from_utf8(out).unwrap())
    }

    #[test]
    fn durations_from_whole_ns_read_as_serde_writes_them() {
        // Hand-checked: 34,306 ns = 0.034306 ms; 1 ms; 1 µs; 12.5 ms; 1,234,567,891 ns.
        for (ns, want) in [
            (34_306u64, "0.034306"),
            (1_000_000, "1.0"),
            (1_000, "0.001"),
            (12_500_000, "12.5"),
            (1_234_567_891, "1234.567891"),
        ] {
            assert_eq!(fast_text(ns as f64 / 1e6).as_deref(), Some(want));
            assert_eq!(serde_text(ns as f64 / 1e6), want);
        }
        // Under 1 µs, serde_json's own text, which switches to an exponent below 10 ns.
        for (ns, want) in [
            (0u64, "0.0"),
            (417, "0.000417"),
            (1, "1e-6"),
            (10, "0.00001"),
        ] {
            assert_eq!(fast_text(ns as f64 / 1e6).as_deref(), Some(want), "{ns} ns");
        }
        // Outside the range, or not from whole ns: the general formatter.
        assert_eq!(fast_text(0.0004171), None);
        assert_eq!(fast_text(0.1 / 3.0), None);
        assert_eq!(fast_text(-1.0), None);
        assert_eq!(fast_text(-0.0), None);
        assert_eq!(fast_text(f64::NAN), None);
        assert_eq!(fast_text(1e9), None);
    }

    proptest! {
        /// Every duration made from whole ns (as samples are) is written exactly as
        /// serde_json writes it, so the JSON reads back to the same value.
        #[test]
        fn fast_path_equals_serde(ns in prop_oneof![0u64..2_000, 1_000u64..1_000_000_000_000_000]) {
            let v = ns as f64 / 1e6;
            if let Some(fast) = fast_text(v) {
                prop_assert_eq!(&fast, &serde_text(v));
                prop_assert_eq!(fast.parse::<f64>().unwrap(), v);
            }
        }
    }

    /// Samples (ns) lay out exactly as the same durations in ms written as numbers: as
    /// a field, in an array of arrays, empty, after an object.
    #[test]
    fn samples_lay_out_as_their_ms() {
        use crate::stats::Samples;
        let ns = vec![34_306, 1_000_000, 417, 1_234_567_891, -2];
        let ms = vec![0.034306, 1.0, 0.000417, 1234.567891, -2e-6];
        #[derive(serde::Serialize)]
        struct Row<T> {
            samples: T,
            nested: Vec<T>,
            empty: T,
            mixed: (std::collections::BTreeMap<&'static str, u8>, T),
        }
        let as_samples = Row {
            samples: Samples::from_ns(ns.clone()),
            nested: vec![
                Samples::from_ns(ns.clone()),
                Samples::from_ns(vec![2_500_000]),
            ],
            empty: Samples::from_ns(Vec::new()),
            mixed: (Default::default(), Samples::from_ns(ns.clone())),
        };
        let as_numbers = Row {
            samples: ms.clone(),
            nested: vec![ms.clone(), vec![2.5]],
            empty: Vec::new(),
            mixed: (Default::default(), ms.clone()),
        };
        let (mut got, mut want) = (Vec::new(), Vec::new());
        write_json(&mut got, &as_samples).unwrap();
        write_json(&mut want, &as_numbers).unwrap();
        assert_eq!(
            String::from_utf8(got).unwrap(),
            String::from_utf8(want).unwrap()
        );
        assert_eq!(
            serde_json::to_string(&as_samples.nested).unwrap(),
            "[[0.034306,1.0,0.000417,1234.567891,-2e-6],[2.5]]"
        );
    }

    fn text(v: &serde_json::Value) -> String {
        let mut out = Vec::new();
        write_json(&mut out, v).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn scalar_arrays_inline_objects_indented() {
        let v = serde_json::json!({
            "a": [1, 2.5, null],
            "b": [{"x": [], "y": "s"}, {}],
            "c": [],
            "d": [[1, 2], [3]],
            "e": {"f": ["g", "h"]}
        });
        let want = "{\n  \"a\": [1, 2.5, null],\n  \"b\": [\n    {\n      \"x\": [],\n      \"y\": \"s\"\n    },\n    {}\n  ],\n  \"c\": [],\n  \"d\": [\n    [1, 2],\n    [3]\n  ],\n  \"e\": {\n    \"f\": [\"g\", \"h\"]\n  }\n}\n";
        assert_eq!(text(&v), want);
    }

    #[test]
    fn durations_in_arrays_take_their_separators() {
        // Inline arrays of durations (the ", " written with each number), a duration
        // after an object in a block array (its ",\n" before it), arrays of arrays.
        // Floats not from whole ns (the general formatter) between durations.
        let v = serde_json::json!({
            "s": [0.034306, 1.0, 12.5],
            "m": [{"x": 1}, 2.5],
            "n": [[1.5, 2.5], [3.5]],
            "g": [0.5, 0.1 / 3.0, 1e-9, 2.5],
            "o": 0.001
        });
        let want = "{\n  \"s\": [0.034306, 1.0, 12.5],\n  \"m\": [\n    {\n      \"x\": 1\n    },\n    2.5\n  ],\n  \"n\": [\n    [1.5, 2.5],\n    [3.5]\n  ],\n  \"g\": [0.5, 0.03333333333333333, 1e-9, 2.5],\n  \"o\": 0.001\n}\n";
        assert_eq!(text(&v), want);
        let mut plain = Vec::new();
        serde_json::to_writer_pretty(&mut plain, &v).unwrap();
        let plain: serde_json::Value = serde_json::from_slice(&plain).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text(&v)).unwrap(),
            plain
        );
    }

    #[test]
    fn output_is_the_same_json() {
        let v = serde_json::json!({"k": [{"q\"uote": [1e-9, -3, "x\ny"]}, [true, false]], "z": {}});
        let back: serde_json::Value = serde_json::from_str(&text(&v)).unwrap();
        assert_eq!(back, v);
    }
}
