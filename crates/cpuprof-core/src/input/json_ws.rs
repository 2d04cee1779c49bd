//! JSON as bytes: whether a stream holds a JSON document (its first non-blank byte opens
//! an object, or an array of objects), and a reader that cuts every run of whitespace
//! outside strings to one byte. Input uses both to read a long JSON stream without
//! keeping its padding; the trace reader uses the squeezer on big files. No trace
//! format is known here.

use std::io::{self, Read};

/// Whether `head` (the first bytes of a stream, after any byte-order mark) starts a JSON
/// document: the first non-blank byte is `{`, or `[` followed on its line by `{`, `]` or
/// nothing (a line that starts `[06:48:34.83] ` is a bracketed time, not JSON).
pub fn looks_like_json(head: &[u8]) -> bool {
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    let Some(start) = start else {
        return false;
    };
    match head[start] {
        b'{' => true,
        b'[' => {
            let rest = &head[start + 1..];
            let next = rest
                .iter()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\x0c' | b'\r'));
            matches!(next, None | Some(b'\n') | Some(b'{') | Some(b']'))
        }
        _ => false,
    }
}

/// A JSON byte stream with every run of whitespace outside strings cut to one byte.
/// JSON means the same; a gigabyte of padding then costs one pass over the bytes here,
/// not a gigabyte of work in the tokenizer.
pub struct SqueezeJsonWhitespace<R> {
    inner: R,
    buf: Vec<u8>,
    in_string: bool,
    escaped: bool,
    last_ws: bool,
}

impl<R: Read> SqueezeJsonWhitespace<R> {
    pub fn new(inner: R) -> Self {
        SqueezeJsonWhitespace {
            inner,
            buf: vec![0; 1 << 16],
            in_string: false,
            escaped: false,
            last_ws: false,
        }
    }
}

impl<R: Read> Read for SqueezeJsonWhitespace<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            let want = out.len().min(self.buf.len());
            let n = self.inner.read(&mut self.buf[..want])?;
            if n == 0 {
                return Ok(0);
            }
            let mut k = 0;
            for i in 0..n {
                let b = self.buf[i];
                if self.in_string {
                    if self.escaped {
                        self.escaped = false;
                    } else if b == b'\\' {
                        self.escaped = true;
                    } else if b == b'"' {
                        self.in_string = false;
                    }
                } else if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                    if self.last_ws {
                        continue;
                    }
                    self.last_ws = true;
                    out[k] = b;
                    k += 1;
                    continue;
                } else if b == b'"' {
                    self.in_string = true;
                }
                self.last_ws = false;
                out[k] = b;
                k += 1;
            }
            if k > 0 {
                return Ok(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_documents_and_not() {
        for yes in [
            &b"{\"traceEvents\": []}"[..],
            b"\n  [{\"ph\":\"X\"}]",
            b"[\n{}]",
            b"[ ]",
            b"[",
        ] {
            assert!(looks_like_json(yes), "{:?}", String::from_utf8_lossy(yes));
        }
        for no in [
            &b"[06:48:34.832333283] (+?.?????????) vm p:e: { }"[..],
            b"[1795934914.8] vm p:e: { }",
            b"timestamp = 06:48:34.832333283",
            b"\x1f\x8b\x08\x00",
            b"   ",
            b"",
        ] {
            assert!(!looks_like_json(no), "{:?}", String::from_utf8_lossy(no));
        }
    }

    #[test]
    fn whitespace_runs_outside_strings_are_cut() {
        let text = b"{ \"a  b\" :\n\n   [1,   2, \"x\\\"   y\"]   }      ";
        let mut out = Vec::new();
        SqueezeJsonWhitespace::new(&text[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, b"{ \"a  b\" :\n[1, 2, \"x\\\"   y\"] } ");
        let a: serde_json::Value = serde_json::from_slice(text).unwrap();
        let b: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(a, b);
    }
}
