//! Kineto's keys matched in whole-word loads: an event member's key (`"ph": `, `"name": `,
//! ...) in one 8-byte load, an `args` key (`"External id": `, `"Input Dims": `, ...) in at
//! most three; the key's bytes, its closing quote, `:` and one space, as Kineto writes
//! them. Any other text gives `None` and the fast path reads the key the general way
//! (`Cursor::key`), so the classes are always `event_member`'s and `args_member`'s.

use super::args::{DIMS, TYPES};
use super::document::{ARGS, CAT, DUR, NAME, PH, PID, TID, TS};
use super::fast::load;

/// A key as a pattern of up to 8 bytes: its value (little-endian), the mask of its
/// bytes, its length.
const fn key_pattern(k: &[u8]) -> (u64, u64, usize) {
    let mut v = 0u64;
    let mut i = 0;
    while i < k.len() {
        v |= (k[i] as u64) << (8 * i);
        i += 1;
    }
    let mask = if k.len() == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * k.len())) - 1
    };
    (v, mask, k.len())
}

/// The event member whose key, written as Kineto writes it, the 8 bytes `x` after its
/// opening quote start with (the key's bytes, its closing quote, `: `), and how many
/// bytes that is; `None` for any other text.
#[inline]
pub(super) fn known_event_key(x: u64) -> Option<(u8, usize)> {
    const KPH: (u64, u64, usize) = key_pattern(b"ph\": ");
    const KCAT: (u64, u64, usize) = key_pattern(b"cat\": ");
    const KNAME: (u64, u64, usize) = key_pattern(b"name\": ");
    const KPID: (u64, u64, usize) = key_pattern(b"pid\": ");
    const KTID: (u64, u64, usize) = key_pattern(b"tid\": ");
    const KTS: (u64, u64, usize) = key_pattern(b"ts\": ");
    const KDUR: (u64, u64, usize) = key_pattern(b"dur\": ");
    const KARGS: (u64, u64, usize) = key_pattern(b"args\": ");
    let is = |k: (u64, u64, usize)| x & k.1 == k.0;
    let (id, k) = match x as u8 {
        b'p' if is(KPH) => (PH, KPH),
        b'p' if is(KPID) => (PID, KPID),
        b'c' if is(KCAT) => (CAT, KCAT),
        b'n' if is(KNAME) => (NAME, KNAME),
        b't' if is(KTID) => (TID, KTID),
        b't' if is(KTS) => (TS, KTS),
        b'd' if is(KDUR) => (DUR, KDUR),
        b'a' if is(KARGS) => (ARGS, KARGS),
        _ => return None,
    };
    Some((id, k.2))
}

/// A key of up to 24 bytes as three [`key_pattern`]s (an empty one matches anything).
type LongKey = [(u64, u64, usize); 3];

const fn long_key(k: &[u8]) -> LongKey {
    let (a, rest) = k.split_at(if k.len() < 8 { k.len() } else { 8 });
    let (b, c) = rest.split_at(if rest.len() < 8 { rest.len() } else { 8 });
    [key_pattern(a), key_pattern(b), key_pattern(c)]
}

/// The `args` member (as `args_member` classifies it) whose key, written as Kineto
/// writes it, the text at `w[i..]` (after the key's opening quote) starts with (the
/// key's bytes, its closing quote, `: `), and how many bytes that is; `None` for any
/// other text, and near the window's end.
#[inline]
pub(super) fn known_args_key(w: &[u8], i: usize) -> Option<(u8, usize)> {
    const EXTERNAL: LongKey = long_key(b"External id\": ");
    const EV_IDX: LongKey = long_key(b"Ev Idx\": ");
    const RECORD: LongKey = long_key(b"Record function id\": ");
    const SEQUENCE: LongKey = long_key(b"Sequence number\": ");
    const FWD: LongKey = long_key(b"Fwd thread id\": ");
    const CONCRETE: LongKey = long_key(b"Concrete Inputs\": ");
    const KDIMS: LongKey = long_key(b"Input Dims\": ");
    const KTYPES: LongKey = long_key(b"Input type\": ");
    const STRIDES: LongKey = long_key(b"Input Strides\": ");
    let is = |k: &LongKey| {
        k.iter().enumerate().all(|(j, &(v, mask, len))| {
            len == 0 || load(w, i + 8 * j).is_some_and(|x| x & mask == v)
        })
    };
    let k = match *w.get(i)? {
        b'E' if is(&EXTERNAL) => (0, &EXTERNAL),
        b'E' if is(&EV_IDX) => (0, &EV_IDX),
        b'R' if is(&RECORD) => (0, &RECORD),
        b'S' if is(&SEQUENCE) => (0, &SEQUENCE),
        b'F' if is(&FWD) => (0, &FWD),
        b'C' if is(&CONCRETE) => (0, &CONCRETE),
        b'I' if is(&KDIMS) => (DIMS, &KDIMS),
        b'I' if is(&KTYPES) => (TYPES, &KTYPES),
        b'I' if is(&STRIDES) => (0, &STRIDES),
        _ => return None,
    };
    Some((k.0, k.1.iter().map(|p| p.2).sum()))
}

#[cfg(test)]
mod tests {
    use super::super::args::args_member;
    use super::super::document::event_member;
    use super::super::fast::load;
    use super::{known_args_key, known_event_key};

    /// A key is matched in one load exactly when the text is a member's key as
    /// `event_member` classifies it, its closing quote, `:` and a space.
    #[test]
    fn known_keys_are_the_members() {
        let keys = [
            "ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "p", "pidx", "nam", "argsx",
            "t", "", "Ph", "tss", "id",
        ];
        for key in keys {
            for tail in ["\": ", "\":", "\" :", "x\": ", "\\\": ", "\":\n"] {
                let text = format!("{key}{tail}........");
                let x = load(text.as_bytes(), 0).unwrap();
                let member = event_member(key.as_bytes());
                let want = (tail == "\": " && member != 0).then_some((member, key.len() + 3));
                assert_eq!(known_event_key(x), want, "{text:?}");
            }
        }
    }

    /// An `args` key is matched in loads exactly when the text is a key as
    /// `args_member` classifies it, its closing quote, `:` and a space (other keys of
    /// Kineto's are class 0, skipped).
    #[test]
    fn known_args_keys_are_the_members() {
        // Kineto's keys, matched in loads; then keys one byte off them.
        let known = [
            "External id",
            "Ev Idx",
            "Record function id",
            "Sequence number",
            "Fwd thread id",
            "Concrete Inputs",
            "Input Dims",
            "Input type",
            "Input Strides",
        ];
        let near = [
            "Input",
            "Input Dim",
            "Input Dimsx",
            "Input types",
            "Ev",
            "External i",
            "input Dims",
            "I",
            "",
        ];
        for &key in known.iter().chain(&near) {
            for tail in ["\": ", "\":", "\" :", "x\": ", "\\\": ", "\":\n"] {
                let text = format!("{key}{tail}........................");
                let member = args_member(key.as_bytes());
                let want =
                    (tail == "\": " && known.contains(&key)).then_some((member, key.len() + 3));
                assert_eq!(known_args_key(text.as_bytes(), 0), want, "{text:?}");
                // Cut by the window's end: matched right or not at all (then the general
                // path reads the key).
                for cut in 0..=key.len() + 3 {
                    let got = known_args_key(&text.as_bytes()[..cut], 0);
                    assert!(got.is_none() || got == want, "{text:?} cut at {cut}");
                    if cut < key.len() + 3 {
                        assert_eq!(got, None, "{text:?} cut at {cut}");
                    }
                }
            }
        }
    }
}
