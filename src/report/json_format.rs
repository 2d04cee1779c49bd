//! JSON layout for our reports: objects pretty-printed (two-space indent), but arrays of
//! scalars on one line (`"samples": [0.236, 0.226, ...]`). A profile holds many thousands
//! of samples; one per line makes files long to read and slow to write.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CharEscape, Formatter};

/// Write `value` with this layout, newline-terminated.
pub fn write_json<T: Serialize + ?Sized>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(&mut *w, ScalarArraysInline::default());
    value.serialize(&mut ser).map_err(io::Error::other)?;
    w.write_all(b"\n")
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

    /// Write what goes before an array element, now that we know its kind.
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

impl Formatter for ScalarArraysInline {
    scalar!(write_bool: bool, write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64,
        write_i128: i128, write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64,
        write_u128: u128, write_f32: f32, write_f64: f64, write_number_str: &str);

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
    fn output_is_the_same_json() {
        let v = serde_json::json!({"k": [{"q\"uote": [1e-9, -3, "x\ny"]}, [true, false]], "z": {}});
        let back: serde_json::Value = serde_json::from_str(&text(&v)).unwrap();
        assert_eq!(back, v);
    }
}
