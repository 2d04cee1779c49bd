//! The usual event read straight from the scanner's window: one pass over its bytes
//! with a local index, strings borrowed where they lie (nothing copied), numbers read
//! in place, every other value skipped by a loop over the bytes that checks the same
//! structure the scanner's `skip_value` checks.
//!
//! It reads only what it is sure of. Anything else (the event not whole in the window,
//! an escape in a string it reads or in a key, a number that is not a plain integer or
//! `DIGITS[.DDD]` µs, invalid UTF-8, bad structure, nesting too deep) gives `None` before
//! anything is handed to the builder, and the scanner reads the same event from its
//! start (`document::event`): its result, or its error with its message and place. So
//! the trace read is the scanner's, whatever the text (`tests/it/trace_parts.rs` and the
//! unit test below compare them).

use super::super::intervals::Interner;
use super::args::args_member;
use super::document::{event_member, ARGS, CAT, DUR, NAME, PH, PID, TID, TS};
use super::keys::{known_args_key, known_event_key};
use super::scan::MAX_DEPTH;
use super::{Builder, EventView, Val};

/// One event object (`w` starts at its `{`), whole in `w`: handed to the builder, and
/// the bytes it took; `None`, for any event the scanner is to read, the builder
/// untouched but for its signature scratch and its memos (which then hold only what was
/// read whole: `memo.rs`). A head and a run of `args` met before are taken from the
/// memos; read here, they are kept there.
pub(super) fn event(w: &[u8], b: &mut Builder) -> Option<usize> {
    let mut c = Cursor { w, i: 1 };
    b.scratch.clear();
    let mut ev = EventView::default();
    // The memo's span that gave or took this event's signature, while it is that (a
    // second `args` finds or keeps a span only while the signature is still empty, and
    // gives `None` otherwise).
    let mut span = None;
    // The head read here, where it ends so far (`None`: taken from the memo, or ended).
    let mut head = Some(0);
    let expected = b.memo.expected_head();
    let empty = match b.heads.find(w, expected) {
        Some((id, len, fields)) => {
            b.memo.head_follows(id);
            ev = fields;
            c.i = len;
            head = None;
            false
        }
        None => c.ws()? == b'}',
    };
    if empty {
        c.i += 1;
    } else {
        loop {
            let key = c.event_key()?;
            if let Some(end) = head.filter(|_| !matches!(key, PH | CAT | NAME | PID | TID)) {
                if end > 0 {
                    if let Some(id) = b.heads.note(&w[..end], &ev) {
                        b.memo.head_follows(id);
                    }
                }
                head = None;
            }
            // A member given twice: the last one counts, as in the scanner's reading.
            match key {
                PH => ev.ph = Some(c.scalar()?),
                CAT => ev.cat = Some(c.scalar()?),
                NAME => (ev.name, ev.name_id) = c.name(&b.names)?,
                PID => ev.pid = Some(c.scalar()?),
                TID => ev.tid = Some(c.scalar()?),
                TS => ev.ts = Some(c.micros()?),
                DUR => ev.dur = Some(c.micros()?),
                ARGS => {
                    let memo = ev.name_id.map(|id| (&mut b.memo, id));
                    span = c.args(&mut b.scratch, memo)?;
                }
                _ => c.skip()?,
            }
            if !c.continues(b'}')? {
                break;
            }
            if head.is_some() {
                head = Some(c.i);
            }
        }
    }
    b.memo.current = span;
    b.memo.previous = span;
    b.add_view(&ev);
    Some(c.i)
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The 8 bytes at `i` (little-endian: byte `i` lowest), if the window has them.
#[inline]
pub(super) fn load(w: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(w.get(i..i + 8)?.try_into().ok()?))
}

/// The top bit of each byte of `x` equal to `b`: exact up to the first such byte (the
/// lowest set bit), which is all that is used.
#[inline]
fn bytes_equal(x: u64, b: u8) -> u64 {
    let y = x ^ (ONES * u64::from(b));
    y.wrapping_sub(ONES) & !y & (ONES << 7)
}

/// The value of the decimal digits `w` starts with (at most `max` of them; wrapped
/// beyond 18, where the callers refuse the number), and how many there are.
#[inline]
fn leading_digits(w: &[u8], max: usize) -> (i64, usize) {
    let mut v = 0i64;
    let mut n = 0;
    while n < max {
        let Some(d) = w.get(n).map(|b| b.wrapping_sub(b'0')).filter(|&d| d <= 9) else {
            break;
        };
        v = v.wrapping_mul(10).wrapping_add(i64::from(d));
        n += 1;
    }
    (v, n)
}

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

#[inline]
fn is_number_byte(b: u8) -> bool {
    matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
}

/// The bytes of one event and the place in them; every method is `None` where the
/// scanner is to read the event instead.
struct Cursor<'w> {
    w: &'w [u8],
    i: usize,
}

impl<'w> Cursor<'w> {
    /// The next byte that is not whitespace (not consumed).
    #[inline]
    fn ws(&mut self) -> Option<u8> {
        let b = *self.w.get(self.i)?;
        if b > b' ' {
            return Some(b);
        }
        // One space (`, "`, `: 1`): the usual case.
        if b == b' ' {
            let next = *self.w.get(self.i + 1)?;
            if next > b' ' {
                self.i += 1;
                return Some(next);
            }
        }
        self.ws_run()
    }

    /// [`Self::ws`] at whitespace: a space or a line break and the spaces after it
    /// (Kineto's indent) 8 bytes at a time.
    fn ws_run(&mut self) -> Option<u8> {
        loop {
            let b = *self.w.get(self.i)?;
            if b == b' ' || b == b'\n' {
                // Bytes 1..8 compared with spaces (byte 8, shifted in, compares equal).
                let rest = (load(self.w, self.i)? >> 8) ^ ((ONES >> 8) * u64::from(b' '));
                self.i += 1 + if rest == 0 {
                    7
                } else {
                    (rest.trailing_zeros() / 8) as usize
                };
            } else if is_ws(b) {
                self.i += 1;
            } else {
                return Some(b);
            }
        }
    }

    /// After a member or an element: true on `,`, false on `close` (both consumed).
    #[inline]
    fn continues(&mut self, close: u8) -> Option<bool> {
        let b = self.ws()?;
        self.i += 1;
        if b == b',' {
            Some(true)
        } else if b == close {
            Some(false)
        } else {
            None
        }
    }

    /// After an opening bracket: true when `close` follows at once (consumed).
    #[inline]
    fn closes_at_once(&mut self, close: u8) -> Option<bool> {
        if self.ws()? == close {
            self.i += 1;
            Some(true)
        } else {
            Some(false)
        }
    }

    /// A string's bytes after its opening quote, the closing quote consumed; `None` at
    /// an escape.
    #[inline]
    fn plain_str(&mut self) -> Option<&'w [u8]> {
        let start = self.i;
        let n = self.quote_or_backslash()?;
        if self.w[n] != b'"' {
            return None;
        }
        self.i = n + 1;
        Some(&self.w[start..n])
    }

    /// The place of the next `"` or `\\` from here on, 8 bytes at a time (`None` within
    /// 8 bytes of the window's end: the scanner reads that event).
    #[inline]
    fn quote_or_backslash(&self) -> Option<usize> {
        let mut j = self.i;
        loop {
            let x = load(self.w, j)?;
            let hits = bytes_equal(x, b'"') | bytes_equal(x, b'\\');
            if hits != 0 {
                return Some(j + (hits.trailing_zeros() / 8) as usize);
            }
            j += 8;
        }
    }

    /// A member's key classified by `class`, and its `:`.
    #[inline]
    fn key(&mut self, class: impl Fn(&[u8]) -> u8) -> Option<u8> {
        if self.ws()? != b'"' {
            return None;
        }
        self.i += 1;
        let id = class(self.plain_str()?);
        if self.ws()? != b':' {
            return None;
        }
        self.i += 1;
        Some(id)
    }

    /// An event member's key classified as `event_member` does, and its `:`. Kineto's
    /// keys (`"ph": `, `"name": `, ...: the key, its closing quote, `:` and one space) are
    /// matched in one 8-byte load; any other key by [`Self::key`].
    #[inline]
    fn event_key(&mut self) -> Option<u8> {
        if self.ws()? != b'"' {
            return None;
        }
        if let Some((id, len)) = load(self.w, self.i + 1).and_then(known_event_key) {
            self.i += 1 + len;
            return Some(id);
        }
        self.key(event_member)
    }

    /// A key of `args` classified as `args_member` does, and its `:`: Kineto's keys
    /// (`"External id": `, `"Input Dims": `, ...) matched in at most three 8-byte loads,
    /// any other by [`Self::key`].
    #[inline]
    fn args_key(&mut self) -> Option<u8> {
        if self.ws()? != b'"' {
            return None;
        }
        if let Some((id, len)) = known_args_key(self.w, self.i + 1) {
            self.i += 1 + len;
            return Some(id);
        }
        self.key(args_member)
    }

    /// A string value read (at its opening quote), checked as UTF-8 (the phases,
    /// categories and dtypes of every op event are known ASCII: not checked again).
    #[inline]
    fn text(&mut self) -> Option<&'w str> {
        self.i += 1;
        let b = self.plain_str()?;
        match b {
            b"X" => Some("X"),
            b"cpu_op" => Some("cpu_op"),
            b"python_function" => Some("python_function"),
            b"user_annotation" => Some("user_annotation"),
            b"" => Some(""),
            b"float" => Some("float"),
            b"Scalar" => Some("Scalar"),
            b"ScalarList" => Some("ScalarList"),
            _ => std::str::from_utf8(b).ok(),
        }
    }

    /// A dtype of `Input type` read (at its opening quote): the usual ones known, any
    /// other checked as UTF-8 without a `\0` (one with a `\0` is the scanner's).
    #[inline]
    fn dtype(&mut self) -> Option<&'w str> {
        self.i += 1;
        match self.plain_str()? {
            b"float" => Some("float"),
            b"" => Some(""),
            b"Scalar" => Some("Scalar"),
            b"ScalarList" => Some("ScalarList"),
            b"long int" => Some("long int"),
            b"bool" => Some("bool"),
            other if other.contains(&0) => None,
            other => std::str::from_utf8(other).ok(),
        }
    }

    /// A plain integer of at most 18 digits (at its first digit), as the scanner reads
    /// it (`Scanner::plain_int`).
    #[inline]
    fn plain_int(&mut self) -> Option<i64> {
        let w = &self.w[self.i..];
        let (v, digits) = leading_digits(w, 19);
        if digits == 0 || digits > 18 || is_number_byte(*w.get(digits)?) {
            return None;
        }
        if w[0] == b'0' && digits > 1 {
            return None;
        }
        self.i += digits;
        Some(v)
    }

    /// A scalar member: a string, a plain integer, or any other value skipped.
    #[inline]
    fn scalar(&mut self) -> Option<Val<'w>> {
        match self.ws()? {
            b'"' => self.text().map(Val::Str),
            b'0'..=b'9' => self.plain_int().map(Val::Int),
            b'-' => None,
            _ => {
                self.skip()?;
                Some(Val::Other)
            }
        }
    }

    /// The `name` member: a string met before as a name is taken as its id (found by
    /// its bytes, which are then that name's: no UTF-8 check); anything else as
    /// [`Self::scalar`] reads it.
    #[inline]
    fn name(&mut self, names: &Interner) -> Option<(Option<Val<'w>>, Option<u32>)> {
        if self.ws()? == b'"' {
            let start = self.i;
            self.i += 1;
            if let Some(id) = names.get(self.plain_str()?) {
                return Some((Some(Val::Str("")), Some(id)));
            }
            self.i = start;
        }
        Some((Some(self.scalar()?), None))
    }

    /// `ts`/`dur` written `DIGITS[.D[D[D]]]` µs (Kineto's), in ns, as the scanner reads
    /// them (`Scanner::plain_micros`).
    #[inline]
    fn micros(&mut self) -> Option<i64> {
        self.ws()?;
        let w = &self.w[self.i..];
        let (us, digits) = leading_digits(w, 17);
        if digits == 0 || digits > 16 || (w[0] == b'0' && digits > 1) {
            return None;
        }
        let mut ns = us.checked_mul(1000)?;
        let mut len = digits;
        if *w.get(len)? == b'.' {
            let (f, frac) = leading_digits(&w[len + 1..], 4);
            if frac == 0 || frac > 3 {
                return None;
            }
            ns = ns.checked_add(f * [100, 10, 1][frac - 1])?;
            len += 1 + frac;
        }
        if is_number_byte(*w.get(len)?) {
            return None;
        }
        self.i += len;
        Some(ns)
    }

    /// A string skipped (after its opening quote): escapes stepped over, not decoded.
    #[inline]
    fn skip_str(&mut self) -> Option<()> {
        loop {
            let n = self.quote_or_backslash()?;
            self.i = n + 1;
            if self.w[n] == b'"' {
                return Some(());
            }
            // The escaped byte.
            self.w.get(self.i)?;
            self.i += 1;
        }
    }

    /// A key skipped, and its `:`.
    #[inline]
    fn skip_key(&mut self) -> Option<()> {
        if self.ws()? != b'"' {
            return None;
        }
        self.i += 1;
        self.skip_str()?;
        if self.ws()? != b':' {
            return None;
        }
        self.i += 1;
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.w[self.i..].starts_with(word) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A member's value skipped: a number (most of `args`' other members: ids,
    /// sequence numbers, indices) stepped over here as [`Self::skip`] steps over it,
    /// without the call; any other value by [`Self::skip`].
    #[inline(always)]
    fn skip_member(&mut self) -> Option<()> {
        match self.ws()? {
            b'-' | b'0'..=b'9' => self.skip_number(),
            b'[' => self.skip_list(),
            _ => self.skip(),
        }
    }

    /// A number stepped over as [`Self::skip`] steps over it (its bytes, not checked).
    #[inline(always)]
    fn skip_number(&mut self) -> Option<()> {
        let n = self.w[self.i..].iter().position(|&b| !is_number_byte(b))?;
        self.i += n;
        Some(())
    }

    /// A list skipped (at its `[`) as [`Self::skip`] skips it, for Kineto's lists of
    /// strings and numbers (`Concrete Inputs`) and of lists of numbers (`Input
    /// Strides`) without the general loop's bookkeeping; a list holding anything else
    /// is skipped again from its `[` by [`Self::skip`].
    fn skip_list(&mut self) -> Option<()> {
        let start = self.i;
        self.i += 1;
        if self.closes_at_once(b']')? {
            return Some(());
        }
        loop {
            match self.ws()? {
                b'"' => {
                    self.i += 1;
                    self.skip_str()?;
                }
                b'-' | b'0'..=b'9' => self.skip_number()?,
                b'[' => {
                    self.i += 1;
                    if !self.closes_at_once(b']')? {
                        loop {
                            if !matches!(self.ws()?, b'-' | b'0'..=b'9') {
                                self.i = start;
                                return self.skip();
                            }
                            self.skip_number()?;
                            if !self.continues(b']')? {
                                break;
                            }
                        }
                    }
                }
                _ => {
                    self.i = start;
                    return self.skip();
                }
            }
            if !self.continues(b']')? {
                return Some(());
            }
        }
    }

    /// One value skipped, its structure checked as `Scanner::skip_value` checks it.
    fn skip(&mut self) -> Option<()> {
        // One bit per open container: 1 an object, 0 a list.
        let mut objects: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            match self.ws()? {
                open @ (b'{' | b'[') => {
                    self.i += 1;
                    let object = open == b'{';
                    if !self.closes_at_once(if object { b'}' } else { b']' })? {
                        if depth >= MAX_DEPTH {
                            return None;
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
                    self.i += 1;
                    self.skip_str()?;
                }
                b'-' | b'0'..=b'9' => {
                    let n = self.w[self.i..].iter().position(|&b| !is_number_byte(b))?;
                    self.i += n;
                }
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return None,
            }
            // A value ended: close containers until one continues.
            loop {
                if depth == 0 {
                    return Some(());
                }
                let object = objects & 1 == 1;
                if self.continues(if object { b'}' } else { b']' })? {
                    if object {
                        self.skip_key()?;
                    }
                    break;
                }
                objects >>= 1;
                depth -= 1;
            }
        }
    }
}

mod args;

#[cfg(test)]
mod tests {
    use super::super::document::read_document;
    use super::super::scan::Scanner;
    use super::super::Builder;
    use super::{bytes_equal, load};

    /// The first byte found equal is the first equal byte, whatever the others (high
    /// bytes, bytes one above or below, borrows from lower bytes).
    #[test]
    fn bytes_equal_finds_the_first() {
        let mut rng = cpuprof_testkit::rng::XorShift::new(0x2545_f491_4f6c_dd1d);
        for round in 0..200_000 {
            let seed = rng.next_u64();
            let pool = [
                b'"', b'#', b'!', b'\\', 0x5b, 0x5d, 0, 0x80, 0xa2, 0xff, b'a',
            ];
            let bytes: Vec<u8> = (0..8)
                .map(|k| {
                    let r = (seed >> (k * 8)) as u8;
                    if round % 2 == 0 {
                        pool[r as usize % pool.len()]
                    } else {
                        r
                    }
                })
                .collect();
            let x = load(&bytes, 0).unwrap();
            for want in [b'"', b'\\', b' '] {
                let first = bytes.iter().position(|&b| b == want);
                let hits = bytes_equal(x, want);
                let got = (hits != 0).then(|| (hits.trailing_zeros() / 8) as usize);
                assert_eq!(got, first, "{bytes:?} {want}");
            }
        }
    }

    /// Every event below read with the fast path where it can and with the scanner
    /// alone (a window of 1 byte: no event is ever whole in it) gives the same builder.
    #[test]
    fn the_fast_path_reads_what_the_scanner_reads() {
        let events = [
            r#"{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":7,"tid":8,"ts":1.5,"dur":2.0,
               "args":{"Input Dims":[[2,3],[3,4],[[1],[2]],[],[true]],"Input type":["float","",""]}}"#,
            r#"{ "ph" : "X" , "cat":"cpu_op","name":"a\"b","pid":"7","tid":8,"ts":1,"dur":1}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"é","pid":-1,"tid":8,"ts":1.2345,"dur":1e3}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"n","pid":1,"tid":1,"ts":"3","dur":01}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"n","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Input Dims":[[1.5]],"x":{"a":[1,{"b":null}],"c":"\\"}}}"#,
            r#"{"ph":"X","name":"n","name":"m","pid":1.0,"tid":null,"ts":3,"dur":1,"args":[]}"#,
            r#"{"ph":"i","s":"t","args":{"Input type":["a\u0000b"]}}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"n","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Input type":[1]}}"#,
            r#"{}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"a long name, more than 8 bytes \\ with an escape","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Concrete Inputs":["", "a\\\"b", "[1, 1]", "0123456\\"]}}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"aten::add_","pid":1,"tid":1,"ts":3,"dur":1,            "args":{"Input type":["float", "éé"],"Input Dims":[[1], []]}}"#,
            r#"{"ph":"X","cat":"cpu_op","name":"q","pid":1,"tid":1,"ts":3,"dur":1,"args":{"Input Dims":[[1,2]],"Input Dims":[[3]]}}"#,
            // Kineto's layout: keys matched in one load, names met before found by
            // their bytes.
            "{\n    \"ph\": \"X\",\n    \"cat\": \"cpu_op\",\n    \"name\": \"aten::mm\",\n    \"pid\": 7,\n    \"tid\": 8,\n    \"ts\": 5078683664669.397,\n    \"dur\": 14710.087\n    ,\n    \"args\": {\n      \"External id\": 3,\"Sequence number\": -1, \"Concrete Inputs\": [\"\", \"[1, 1]\"], \"Input type\": [\"float\", \"\"], \"Input Dims\": [[2, 3], []], \"Ev Idx\": 2\n    }\n  }",
            r#"{"ph": "X", "cat": "cpu_op", "name": "n", "name": 5, "pid": 1, "tid": 1, "ts": 3, "dur": 1}"#,
            r#"{"ph": "X", "name": 5, "name": "aten::mm", "cat": "cpu_op", "pid": 1, "tid": 1, "ts":  3, "dur": 1, "args": 5}"#,
            r#"{"phx": "X", "ph":  "X", "cat" : "cpu_op", "name": "aten::mm\u0041", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"Ev Idx": 1.5e3, "x": -0}}"#,
            r#"{"ph": "X", "cat": "cpu_op", "name": "a\"b", "pid": 1, "tid": 1, "ts": 3, "dur": 2, "args": {}}"#,
            // Lists skipped by `skip_list`, or given back to `skip` from their `[`.
            r#"{"ph": "X", "cat": "cpu_op", "name": "n", "pid": 1, "tid": 1, "ts": 3, "dur": 1, "args": {"Concrete Inputs": ["", "[1, 1]", "a\\\"]", -1, 2.5e3], "Input Strides": [[3072, 1024, 32, 1], [], [-0]], "x": [ ], "y": [[ ]], "z": [1, [2, "s"], [3]], "w": [[[1]], {"a": [1]}], "v": [true, null, [false]]}}"#,
        ];
        let text = format!("[{}]", events.join(",\n  "));
        let read = |window: usize| {
            let mut r = text.as_bytes();
            let mut s = Scanner::with_buffer(&mut r, window);
            let mut b = Builder::new(u64::MAX);
            let scanned = read_document(&mut s, &mut b);
            format!(
                "{scanned:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                b.counts, b.intervals, b.names, b.inputs, b.threads, b.warnings
            )
        };
        assert_eq!(read(1 << 20), read(1));
        // Errors too: the scanner names them, wherever the fast path gave up.
        for bad in [
            r#"{"a":[1 2]}"#,
            r#"{"a":tru}"#,
            r#"{"ph":"X" "cat":1}"#,
            r#"{"ph": "X", "args": {"a": [1, ]}}"#,
            r#"{"ph": "X", "args": {"a": [[1, ], 2]}}"#,
            r#"{"ph": "X", "args": {"a": ["x" "y"]}}"#,
            r#"{"ph": "X", "args": {"a": [[1] [2]]}}"#,
            r#"{"ph": "X", "args": {"a": [[1, "s"}]}}"#,
            r#"{"ph": "X", "args": {"a": [1}}"#,
            r#"{"ph": "X", "args": {"a": [, 1]}}"#,
        ] {
            let text = format!("[{}, {bad}]", events[0]);
            let read = |window: usize| {
                let mut r = text.as_bytes();
                let mut s = Scanner::with_buffer(&mut r, window);
                let mut b = Builder::new(u64::MAX);
                format!("{:?} {:?}", read_document(&mut s, &mut b), b.counts)
            };
            assert_eq!(read(1 << 20), read(1), "{bad}");
        }
    }
}
