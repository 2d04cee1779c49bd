//! An event's `args`: its input signature (`Input Dims`, `Input type`) read into reused
//! buffers, everything else skipped.

use super::super::intervals::InputSig;
use super::lenient::{scalar, Scalar, Texts, KEEP_BYTES};
use super::scan::{Scan, Scanner};

/// A distinct signature as [`SigScratch`] holds it: dims with their counts, dtypes each
/// followed by `\0`.
pub(super) type FlatSig = (Vec<i64>, String);

/// Input signature of the current event, kept flat in reused buffers so that the common
/// case (a signature seen before) allocates nothing.
#[derive(Default)]
pub(super) struct SigScratch {
    pub(super) has_dims: bool,
    /// Per input: the dim count, then the dims (a non-flat input is recorded as `[]`).
    pub(super) dims: Vec<i64>,
    pub(super) has_types: bool,
    /// Each dtype followed by `\0`.
    pub(super) types: String,
}

impl SigScratch {
    /// Become `other`, in this scratch's own buffers (no allocation once they are big
    /// enough: `Clone::clone_from` as derived would allocate).
    pub(super) fn copy_from(&mut self, other: &SigScratch) {
        self.has_dims = other.has_dims;
        self.dims.clone_from(&other.dims);
        self.has_types = other.has_types;
        self.types.clone_from(&other.types);
    }

    /// No `Input Dims` or `Input type` read yet.
    pub(super) fn is_empty(&self) -> bool {
        !self.has_dims && !self.has_types
    }

    pub(super) fn clear(&mut self) {
        self.has_dims = false;
        self.dims.clear();
        self.has_types = false;
        self.types.clear();
    }

    /// Whether this is the signature kept flat as `flat` (two comparisons, not one per
    /// input).
    pub(super) fn matches(&self, flat: &FlatSig) -> bool {
        self.dims == flat.0 && self.types == flat.1
    }

    /// The flat form kept beside each distinct signature, to compare the next ones with:
    /// a copy, or the scratch's own buffers when they are huge (moved, not copied).
    pub(super) fn take_flat(&mut self) -> FlatSig {
        if self.types.len() + self.dims.len() * 8 > KEEP_BYTES {
            return (
                std::mem::take(&mut self.dims),
                std::mem::take(&mut self.types),
            );
        }
        (self.dims.clone(), self.types.clone())
    }

    /// Free the buffers a huge signature grew (its event is done with).
    pub(super) fn release_big(&mut self) {
        if self.types.capacity() > KEEP_BYTES {
            self.types = String::new();
        }
        if self.dims.capacity() * 8 > KEEP_BYTES {
            self.dims = Vec::new();
        }
    }

    pub(super) fn to_sig(&self) -> InputSig {
        let mut shapes = Vec::new();
        let mut pos = 0;
        while let Some(&n) = self.dims.get(pos) {
            let end = (pos + 1 + n as usize).min(self.dims.len());
            shapes.push(self.dims[pos + 1..end].to_vec());
            pos = end;
        }
        InputSig {
            shapes,
            types: self
                .types
                .split_terminator('\0')
                .map(str::to_string)
                .collect(),
        }
    }

    pub(super) fn hash(&self) -> u64 {
        hash_of(&self.dims, &self.types)
    }
}

/// The hash of a signature kept flat: [`SigScratch::hash`] of the scratch it was made of.
pub(super) fn flat_hash(flat: &FlatSig) -> u64 {
    hash_of(&flat.0, &flat.1)
}

fn hash_of(dims: &[i64], types: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = super::super::intervals::FastHasher::default();
    dims.hash(&mut h);
    types.hash(&mut h);
    h.finish()
}

/// `args`: only `Input Dims` and `Input type` are read (the first of each); every other
/// member, and an `args` that is not an object, is skipped unbuilt.
pub(super) fn read_args(s: &mut Scanner, sig: &mut SigScratch, t: &mut Texts) -> Scan<()> {
    if s.next_in("a value")? != b'{' {
        return s.skip_value();
    }
    s.bump();
    if s.closes_at_once(b'}', "an object")? {
        return Ok(());
    }
    loop {
        match s.key_class(args_member)? {
            DIMS if !sig.has_dims => {
                sig.has_dims = true;
                dims(s, &mut sig.dims, t)?;
            }
            TYPES if !sig.has_types => {
                sig.has_types = true;
                types(s, &mut sig.types, t)?;
            }
            _ => s.skip_value()?,
        }
        if !s.object_continues()? {
            return Ok(());
        }
    }
}

pub(super) const DIMS: u8 = 1;
pub(super) const TYPES: u8 = 2;

pub(super) fn args_member(key: &[u8]) -> u8 {
    match key {
        [b'I', b'n', b'p', b'u', b't', b' ', b'D', b'i', b'm', b's'] => DIMS,
        [b'I', b'n', b'p', b'u', b't', b' ', b't', b'y', b'p', b'e'] => TYPES,
        _ => 0,
    }
}

/// A list of values, each handed to `element`; anything but a list is skipped and
/// `false` returned.
fn list(s: &mut Scanner, mut element: impl FnMut(&mut Scanner) -> Scan<()>) -> Scan<bool> {
    if s.next_in("a value")? != b'[' {
        s.skip_value()?;
        return Ok(false);
    }
    s.bump();
    if s.closes_at_once(b']', "a list")? {
        return Ok(true);
    }
    loop {
        element(s)?;
        if !s.list_continues()? {
            return Ok(true);
        }
    }
}

/// `Input Dims`: a list of dim lists. One input's dims: anything but a flat list of
/// ints (tensor lists, scalars) is `[]`.
fn dims(s: &mut Scanner, dims: &mut Vec<i64>, t: &mut Texts) -> Scan<()> {
    list(s, |s| {
        let mark = dims.len();
        dims.push(0);
        let mut flat = true;
        let was_list = list(s, |s| {
            // The usual dim: a plain integer, read in place.
            if s.next_in("a value")?.is_ascii_digit() {
                if let Some(i) = s.plain_int() {
                    if flat {
                        dims.push(i);
                    }
                    return Ok(());
                }
            }
            let mark = t.text.len();
            let v = scalar(s, t)?;
            t.truncate(mark);
            match v {
                Scalar::Int(i) if flat => dims.push(i),
                _ => flat = false,
            }
            Ok(())
        })?;
        if was_list && flat {
            dims[mark] = (dims.len() - mark - 1) as i64;
        } else {
            dims.truncate(mark + 1);
        }
        Ok(())
    })?;
    Ok(())
}

/// `Input type`: strings (anything else becomes "").
fn types(s: &mut Scanner, types: &mut String, t: &mut Texts) -> Scan<()> {
    list(s, |s| {
        let mark = t.text.len();
        let v = scalar(s, t)?;
        // `\0` is the separator; a dtype never holds one.
        let dtype = v.as_str(&t.text).unwrap_or("");
        if dtype.contains('\0') {
            types.extend(dtype.chars().filter(|&c| c != '\0'));
        } else {
            types.push_str(dtype);
        }
        types.push('\0');
        t.truncate(mark);
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::read_chrome_json;

    /// A huge dtype (past `KEEP_BYTES`): its signature is kept once, moved out of the
    /// scratch, and still compares equal to the same signature met again.
    #[test]
    fn a_huge_signature_is_kept_and_found_again() {
        let huge = "t".repeat(3 << 20);
        let ev = |ts: u32, dtype: &str| {
            format!(
                r#"{{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":1,"ts":{ts},"dur":1,"args":{{"Input Dims":[[2,3]],"Input type":["{dtype}"]}}}}"#
            )
        };
        let json = format!(
            "[{},{},{},{}]",
            ev(0, &huge),
            ev(10, &huge),
            ev(20, "float"),
            ev(30, &huge)
        );
        let set = read_chrome_json(json.as_bytes()).unwrap();
        let ids: Vec<_> = set.intervals.iter().map(|iv| iv.inputs).collect();
        assert_eq!(ids, [Some(0), Some(0), Some(1), Some(0)]);
        assert_eq!(set.inputs.len(), 2);
        assert!(
            set.inputs[0].types == [huge.as_str()],
            "the huge dtype is not kept whole"
        );
        assert_eq!(set.inputs[0].shapes, [vec![2, 3]]);
        assert_eq!(set.inputs[1].types, ["float"]);
    }
}
