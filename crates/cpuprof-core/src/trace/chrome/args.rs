//! An event's `args`: its input signature (`Input Dims`, `Input type`) read into reused
//! buffers, everything else skipped.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::super::intervals::InputSig;
use super::lenient::{fallback_on_map, fallback_on_other_types, fallback_on_seq, Scalar};

/// Input signature of the current event, kept flat in reused buffers so that the common
/// case (a signature seen before) allocates nothing.
#[derive(Default)]
pub(super) struct SigScratch {
    pub(super) has_dims: bool,
    /// Per input: the dim count, then the dims (a non-flat input is recorded as `[]`).
    dims: Vec<i64>,
    pub(super) has_types: bool,
    /// Each dtype followed by `\0`.
    types: String,
}

impl SigScratch {
    pub(super) fn clear(&mut self) {
        self.has_dims = false;
        self.dims.clear();
        self.has_types = false;
        self.types.clear();
    }

    pub(super) fn matches(&self, sig: &InputSig) -> bool {
        let mut pos = 0;
        for shape in &sig.shapes {
            let Some(&n) = self.dims.get(pos) else {
                return false;
            };
            let end = pos + 1 + shape.len();
            if n as usize != shape.len() || self.dims.get(pos + 1..end) != Some(&shape[..]) {
                return false;
            }
            pos = end;
        }
        pos == self.dims.len()
            && sig.types.len() == self.types.matches('\0').count()
            && sig
                .types
                .iter()
                .zip(self.types.split_terminator('\0'))
                .all(|(a, b)| a == b)
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
        use std::hash::{Hash, Hasher};
        let mut h = super::super::intervals::FastHasher::default();
        self.dims.hash(&mut h);
        self.types.hash(&mut h);
        h.finish()
    }
}

/// `Input Dims`: a list of dim lists.
struct DimsSeed<'b>(&'b mut Vec<i64>);

impl DimsSeed<'_> {
    fn fallback(self) {}
}

impl<'de> DeserializeSeed<'de> for DimsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DimsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of dim lists")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(DimListSeed(&mut *self.0))?.is_some() {}
        Ok(())
    }
    fallback_on_map!();
    fallback_on_other_types!();
}

/// One input's dims; anything but a flat list of ints (tensor lists, scalars) is `[]`.
struct DimListSeed<'b>(&'b mut Vec<i64>);

impl DimListSeed<'_> {
    fn fallback(self) {
        self.0.push(0);
    }
}

impl<'de> DeserializeSeed<'de> for DimListSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DimListSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of ints")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mark = self.0.len();
        self.0.push(0);
        let mut flat = true;
        while let Some(s) = seq.next_element::<Scalar>()? {
            match s {
                Scalar::Int(i) if flat => self.0.push(i),
                _ => flat = false,
            }
        }
        if flat {
            self.0[mark] = (self.0.len() - mark - 1) as i64;
        } else {
            self.0.truncate(mark + 1);
        }
        Ok(())
    }
    fallback_on_map!();
    fallback_on_other_types!();
}

/// `Input type`: strings (anything else becomes "").
struct TypesSeed<'b>(&'b mut String);

impl TypesSeed<'_> {
    fn fallback(self) {}
}

impl<'de> DeserializeSeed<'de> for TypesSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TypesSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(s) = seq.next_element::<Scalar>()? {
            // `\0` is the separator; a dtype never holds one.
            self.0.push_str(&s.as_str().unwrap_or("").replace('\0', ""));
            self.0.push('\0');
        }
        Ok(())
    }
    fallback_on_map!();
    fallback_on_other_types!();
}

/// `args`: only `Input Dims` and `Input type` are kept.
pub(super) struct ArgsSeed<'b>(pub(super) &'b mut SigScratch);

impl ArgsSeed<'_> {
    fn fallback(self) {}
}

impl<'de> DeserializeSeed<'de> for ArgsSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ArgsSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an args object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            match key.as_str().unwrap_or("") {
                "Input Dims" if !self.0.has_dims => {
                    self.0.has_dims = true;
                    map.next_value_seed(DimsSeed(&mut self.0.dims))?;
                }
                "Input type" if !self.0.has_types => {
                    self.0.has_types = true;
                    map.next_value_seed(TypesSeed(&mut self.0.types))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
    fallback_on_seq!();
    fallback_on_other_types!();
}
