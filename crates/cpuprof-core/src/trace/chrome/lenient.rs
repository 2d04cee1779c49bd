//! JSON values read leniently: a scalar (anything else skipped, `Other`), and the visitor
//! methods that skip values of an unexpected type.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

/// A JSON scalar read leniently (anything else is skipped and becomes `Other`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Scalar<'a> {
    Int(i64),
    Float(f64),
    Str(Cow<'a, str>),
    Other,
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(i64::try_from(v).map_or(Scalar::Float(v as f64), Scalar::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

impl Scalar<'_> {
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Visitor methods for values of the wrong type: skip them and call `self.fallback()`.
macro_rules! fallback_on_other_types {
    () => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(self.fallback())
        }
    };
}

macro_rules! fallback_on_map {
    () => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(self.fallback())
        }
    };
}

macro_rules! fallback_on_seq {
    () => {
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(self.fallback())
        }
    };
}

pub(super) use {fallback_on_map, fallback_on_other_types, fallback_on_seq};
